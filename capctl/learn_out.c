/* capctl/learn_out.c -- the proposal: the service file as it was, line by
 * line, but for its privilege keys (mode, capabilities, bounding,
 * securebits), which become mode = noroot and the capabilities learned,
 * where the first of them stood (at the end when it had none).  The
 * others are kept as comments, so the administrator sees what changed. */
#include <string.h>

#include "../conf/names.h"
#include "learn_out.h"

static char const *const replaced[] = { "mode", "capabilities", "bounding", "securebits", 0 };

/* Is the line "KEY = ..." for one of the replaced keys? */
static int is_replaced(char const *line, size_t n)
{
  size_t i, k;
  while (n && (*line == ' ' || *line == '\t')) line++, n--;
  for (i = 0; replaced[i]; i++) {
    k = strlen(replaced[i]);
    if (n > k && !strncmp(line, replaced[i], k)) {
      char const *p = line + k;
      while (p < line + n && (*p == ' ' || *p == '\t')) p++;
      if (p < line + n && *p == '=') return 1;
    }
  }
  return 0;
}

static void block(FILE *out, uint64_t caps, learn_record const *r)
{
  char name[64], where[1024], list[1024];
  unsigned i;
  fputs("# capctl learn: only the capabilities the kernel granted, in a locked noroot tree\n", out);
  fputs("mode = noroot\n", out);
  for (i = 0; i < LEARN_CAPS; i++) {
    if (!(caps >> i & 1)) continue;
    fprintf(out, "# %s: %s\n", cap_name(i, name, sizeof name), learn_where_format(r->cap[i].where, r->cap[i].nwhere, where, sizeof where));
  }
  fprintf(out, "capabilities = %s\n", caps_format(caps, list, sizeof list));
}

void learn_propose(FILE *out, char const *text, uint64_t caps, learn_record const *r)
{
  int done = 0;
  while (*text) {
    char const *nl = strchr(text, '\n');
    size_t n = nl ? (size_t)(nl - text) : strlen(text);
    if (is_replaced(text, n)) {
      if (!done) block(out, caps, r);
      done = 1;
      fprintf(out, "# was: %.*s\n", (int)n, text);
    } else {
      fprintf(out, "%.*s\n", (int)n, text);
    }
    text += n + (nl ? 1 : 0);
  }
  if (!done) block(out, caps, r);
}

/* capctl/learn_out.c -- the proposal: the service file as it was, line by
 * line, but for its privilege keys (mode, capabilities, bounding,
 * securebits), which become mode = noroot and the capabilities learned,
 * and, when the files it wrote were learned, its file system's (read-only,
 * read-write, private-tmp), which become read-only = yes and the
 * directories it wrote into; all where the first of them stood (at the
 * end when it had none).  The others are kept as comments, so the
 * administrator sees what changed. */
#include <stdlib.h>
#include <string.h>

#include "../conf/names.h"
#include "../conf/xalloc.h"
#include "learn_out.h"

/* the privilege keys, then the file system's */
static char const *const replaced[] = { "mode", "capabilities", "bounding", "securebits",
                                        "read-only", "read-write", "private-tmp", "private-devices", 0 };
#define REPLACED_PRIV 4
#define REPLACED_FILES 7
#define REPLACED_DEV 8

/* Is the line "KEY = ..." for one of the first nkeys replaced keys (the
 * privilege keys; the file system's; and private-devices)? */
static int is_replaced(char const *line, size_t n, size_t nkeys)
{
  size_t i, k;
  while (n && (*line == ' ' || *line == '\t')) line++, n--;
  for (i = 0; i < nkeys; i++) {
    k = strlen(replaced[i]);
    if (n > k && !strncmp(line, replaced[i], k)) {
      char const *p = line + k;
      while (p < line + n && (*p == ' ' || *p == '\t')) p++;
      if (p < line + n && *p == '=') return 1;
    }
  }
  return 0;
}

/* The directories of the service's files (learn_files_dirs; widened,
 * learn_files_widen, when r says so) into *dirs, strings of *copy's: the
 * number of them.  The caller frees each of *copy's n, and both. */
static size_t dirs_of(learn_record const *r, int widen, int *tmp, char ***dirs, char ***copy, size_t *n)
{
  learn_files const *f = &r->files;
  size_t i, k;
  *copy = xcalloc(f->n + 1, sizeof **copy);
  *dirs = xcalloc(f->n + 1, sizeof **dirs);
  for (i = 0, *n = 0; i < f->n; i++)
    if (learn_record_has(r, f->file[i].pid)) (*dirs)[*n] = (*copy)[*n] = xstrdup(f->file[i].path), ++*n;
  k = learn_files_dirs(*dirs, *n, tmp);
  return widen ? learn_files_widen(*dirs, k) : k;
}

static void dirs_free(char **dirs, char **copy, size_t n)
{
  size_t i;
  for (i = 0; i < n; i++) free(copy[i]);
  free(copy);
  free(dirs);
}

/* The directories of the service's files onto out as read-write; 1 when
 * one is under /tmp or /var/tmp. */
static int read_write(FILE *out, learn_record const *r, int *tmp)
{
  char **copy, **dirs;
  size_t i, n, k = dirs_of(r, r->files_widened, tmp, &dirs, &copy, &n), m = 0;
  int shared = 0;
  /* read-write's paths are blank- or comma-separated: one with a blank
   * or a comma cannot be written there */
  for (i = 0; out && i < k; i++)
    if (strpbrk(dirs[i], " \t,")) fprintf(out, "# capctl learn: not in read-write (a blank or a comma): %s\n", dirs[i]);
  for (i = 0, m = 0; out && i < k; i++)
    if (!strpbrk(dirs[i], " \t,")) fprintf(out, "%s %s", m++ ? "" : "read-write =", dirs[i]);
  if (m) fputs("\n", out);
  for (i = 0; i < k; i++)
    if (!strncmp(dirs[i], "/tmp/", 5) || !strncmp(dirs[i], "/var/tmp/", 9)) shared = 1;
  dirs_free(dirs, copy, n);
  return shared;
}

int learn_propose_widens(learn_record const *r)
{
  char **copy[2], **dirs[2];
  size_t n[2], k[2], i;
  int tmp[2] = { 0, 0 }, w, differ;
  for (w = 0; w < 2; w++) k[w] = dirs_of(r, w, &tmp[w], &dirs[w], &copy[w], &n[w]);
  differ = k[0] != k[1];
  for (i = 0; !differ && i < k[0]; i++) differ = strcmp(dirs[0][i], dirs[1][i]) != 0;
  for (w = 0; w < 2; w++) dirs_free(dirs[w], copy[w], n[w]);
  return differ;
}

static int by_path(void const *a, void const *b)
{
  return strcmp((*(learn_file const *const *)a)->path, (*(learn_file const *const *)b)->path);
}

/* The first entry the service made in /dev (a socket such as /dev/log,
 * which its clients find there), or 0 */
static char const *dev_made(learn_record const *r)
{
  learn_files const *f = &r->files;
  size_t i;
  for (i = 0; r->files.marked && i < f->n; i++)
    if (learn_record_has(r, f->file[i].pid) && f->file[i].what & LF_MADE && !strncmp(f->file[i].path, "/dev/", 5))
      return f->file[i].path;
  return 0;
}

/* The entries whose directory several mounts reach, and the service
 * wrote a file through none of them, or through more than one
 * (learn_files_resolve): not proposed; each with its candidates. */
static void unsure(FILE *out, learn_record const *r)
{
  learn_files const *f = &r->files;
  size_t i, j, shown = 0;
  for (i = 0; i < f->nalt; i = j) {
    int first = f->alt[i].what & LF_UNSURE && shown++ < 8;
    if (first) fputs("# capctl learn: not in read-write, reached through one of several mounts, and learn cannot tell which:", out);
    /* what it did, once: the group's candidates share it */
    if (first) fputs(f->alt[i].what & LF_REMOVED ? " removed" : f->alt[i].what & LF_RENAMED ? " renamed" : " made", out);
    for (j = i; j < f->nalt && f->alt[j].group == f->alt[i].group; j++)
      if (first) fprintf(out, "%s %s", j > i ? " or" : "", f->alt[j].path);
    if (first) fprintf(out, " (%s)\n", learn_record_comm(r, f->alt[i].pid));
  }
  if (shown > 8) fprintf(out, "# and %zu more such entries\n", shown - 8);
}

/* The files the service wrote (learn_files.c), each once (what its
 * processes did to it, the first one's command): read-only = yes, the
 * directories it wrote into read-write, a private /tmp for its files
 * straight in /tmp, unless it shares a directory there, which a private
 * /tmp would hide (capexec refuses read-write in it): /tmp read-write
 * then. */
static void files(FILE *out, learn_record const *r)
{
  /* in the order it is likely done */
  static struct { unsigned bit; char const *word; } const words[] = {
    { LF_MADE, "made" }, { LF_WROTE, "wrote" }, { LF_RENAMED, "renamed" }, { LF_REMOVED, "removed" },
  };
  learn_files const *f = &r->files;
  learn_file const **mine = xcalloc(f->n + 1, sizeof *mine);
  size_t i, j, n = 0, shown;
  int tmp = 0;
  char const *dev;
  for (i = 0; i < f->n; i++)
    if (learn_record_has(r, f->file[i].pid)) mine[n++] = &f->file[i];
  qsort(mine, n, sizeof *mine, by_path);
  for (i = 0, shown = 0; i < n; i = j) {
    unsigned w, k = 0, what = 0;
    for (j = i; j < n && !strcmp(mine[j]->path, mine[i]->path); j++) what |= mine[j]->what;
    if (shown++ == 8) continue;
    fputs("# ", out);
    for (w = 0; w < sizeof words / sizeof words[0]; w++)
      if (what & words[w].bit) fprintf(out, "%s%s", k++ ? ", " : "", words[w].word);
    fprintf(out, " %s (%s)\n", mine[i]->path, learn_record_comm(r, mine[i]->pid));
  }
  if (shown > 8) fprintf(out, "# and %zu more paths\n", shown - 8);
  free(mine);
  unsure(out, r);
  if (r->files_widened)
    fputs("# capctl learn: the check fails with only the directories it wrote into (a write the kernel refused"
          " before any file changed, as an unlink of a missing file under read-only, leaves no event): writable"
          " where it wrote, each directory widened to its package's own under /run, /srv, /var/cache, /var/lib,"
          " /var/log, /var/mail or /var/spool\n", out);
  else
    fputs("# capctl learn: writable only where it wrote (seen by fanotify)\n", out);
  fputs("read-only = yes\n", out);
  if ((dev = dev_made(r))) {
    fprintf(out, "# capctl learn: it made %s: the machine's /dev, since a private one (read-only's default)"
                 " would hide it from every other process\n", dev);
    fputs("private-devices = no\n", out);
  }
  if (read_write(0, r, &tmp) && tmp) {
    fputs("# capctl learn: no private-tmp, for its files straight in /tmp: it shares a directory there\n", out);
    tmp = -1;
    read_write(out, r, &tmp);
    return;
  }
  read_write(out, r, &tmp);
  if (!tmp && r->own_tmp) fputs("# capctl learn: kept: its own /tmp, where learn sees nothing\n", out);
  if (tmp || r->own_tmp) fputs("private-tmp = yes\n", out);
}

static void block(FILE *out, uint64_t caps, learn_record const *r)
{
  char name[64], where[1024], list[1024];
  unsigned i;
  fputs("# capctl learn: only the capabilities the kernel granted, in a locked noroot tree\n", out);
  fputs("mode = noroot\n", out);
  if (r->securebits == LEARN_SECUREBITS_LOCKED) {
    fputs("# capctl learn: a process that switches from uid 0 to another loses its capabilities (setuid fixup),"
          " and none can ask to keep them (keep-caps locked): ", out);
    fputs(r->securebits_why == LEARN_SB_PROVEN ? "the check passes so\n"
                                                : "none asked in the run traced (prctl)\n", out);
    fputs("securebits = noroot, noroot-locked, keep-caps-locked\n", out);
  } else {
    if (r->securebits_why == LEARN_SB_KEEPCAPS)
      fputs("# capctl learn: the check fails with keep-caps-locked: a process keeps its capabilities across a"
            " switch from uid 0 with prctl(PR_SET_KEEPCAPS), as root may; without it they are cleared\n", out);
    else
      fprintf(out, "# capctl learn: root's own behaviour at a switch from uid 0: the capabilities are cleared, unless"
              " the process asked to keep them (prctl(PR_SET_KEEPCAPS)), as %s did; --check would try"
              " keep-caps-locked\n", r->keepcaps[0] ? r->keepcaps : "a process");
    fputs("securebits = noroot, noroot-locked\n", out);
  }
  for (i = 0; i < LEARN_CAPS; i++) {
    if (!(caps >> i & 1)) continue;
    learn_where_format(r->cap[i].where, r->cap[i].nwhere, where, sizeof where);
    fprintf(out, "# %s: %s", cap_name(i, name, sizeof name), where);
    /* kept across a uid switch: capset(2) refuses the set without it */
    if (r->cap[i].asked) fprintf(out, "%sasked of capset(2) (%s)", where[0] ? "; " : "", r->cap[i].asked_by);
    fputs("\n", out);
    /* what the calls acted on, where their arguments tell */
    if (learn_objects_format(r->cap[i].where, r->cap[i].nwhere, where, sizeof where)[0]) fprintf(out, "#   %s\n", where);
  }
  fprintf(out, "capabilities = %s\n", caps_format(caps, list, sizeof list));
  if (r->user) {
    fputs("# capctl learn: no capability, every file it wrote nobody's to write by its mode, and the check"
          " passes as nobody: a user of its own would be better (nobody is every such service's)\n", out);
    fprintf(out, "user = %s\n", r->user);
  } else if (r->uid0) {
    fputs("# capctl learn: no user proposed: what uid 0 owns (a file of mode 0600, a socket, a process)"
          " is reached without a capability check, so the trace cannot tell that another user would do\n", out);
    if (r->no_user) fprintf(out, "# capctl learn: and with --check: %s\n", r->no_user);
  }
  if (r->files.marked) files(out, r);
  else if (r->files_dropped)
    fputs("# capctl learn: the check fails with read-only = yes and the read-write paths learned (a write the"
          " kernel refused before any file changed, as an unlink of a missing file under read-only, leaves"
          " no event): the file's own file-system keys stay\n", out);
}

void learn_propose(FILE *out, char const *text, uint64_t caps, learn_record const *r)
{
  int done = 0;
  size_t nkeys = !r->files.marked ? REPLACED_PRIV : dev_made(r) ? REPLACED_DEV : REPLACED_FILES;
  while (*text) {
    char const *nl = strchr(text, '\n');
    size_t n = nl ? (size_t)(nl - text) : strlen(text);
    if (is_replaced(text, n, nkeys)) {
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

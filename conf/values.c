/* conf/values.c -- see values.h. */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "values.h"
#include "xalloc.h"

static int isblank_(char c) { return c == ' ' || c == '\t'; }
static int isdigit_(char c) { return c >= '0' && c <= '9'; }

int value_bool(char const *v, int *out)
{
  if (!strcmp(v, "yes")) *out = 1;
  else if (!strcmp(v, "no")) *out = 0;
  else return -1;
  return 0;
}

/* Decimal digits only (no sign, no blanks), into *out; -1 on overflow. */
static int digits(char const *s, size_t n, uint64_t *out)
{
  uint64_t x = 0;
  size_t i;
  if (!n) return -1;
  for (i = 0; i < n; i++) {
    if (!isdigit_(s[i])) return -1;
    if (x > (UINT64_MAX - (uint64_t)(s[i] - '0')) / 10) return -1;
    x = x * 10 + (uint64_t)(s[i] - '0');
  }
  *out = x;
  return 0;
}

int value_duration(char const *v, uint32_t *ms, char const **err)
{
  static struct { char const *unit; uint64_t ms; } const units[] = {
    { "ms", 1 }, { "s", 1000 }, { "m", 60000 }, { "h", 3600000 },
  };
  size_t n = 0, i;
  uint64_t x;
  while (isdigit_(v[n])) n++;
  if (!n) {
    *err = "expected a duration such as 250ms, 10s, 2m or 1h";
    return -1;
  }
  if (digits(v, n, &x) < 0) {
    *err = "duration too large (at most 24h)";
    return -1;
  }
  if (!v[n]) {
    if (x) {
      *err = "a duration needs a unit: ms, s, m or h (as in 10s)";
      return -1;
    }
    *ms = 0;
    return 0;
  }
  for (i = 0; i < sizeof units / sizeof units[0]; i++) {
    if (strcmp(v + n, units[i].unit)) continue;
    if (x > DURATION_MAX_MS / units[i].ms) {
      *err = "duration too large (at most 24h)";
      return -1;
    }
    *ms = (uint32_t)(x * units[i].ms);
    return 0;
  }
  *err = "unknown duration unit: use ms, s, m or h (as in 10s)";
  return -1;
}

int value_size(char const *v, int suffixes, uint64_t *out, char const **err)
{
  size_t n = 0;
  uint64_t x, mult = 1;
  while (isdigit_(v[n])) n++;
  if (!n) {
    *err = suffixes ? "expected a number, optionally with K, M, G or T"
                    : "expected a number";
    return -1;
  }
  if (digits(v, n, &x) < 0) {
    *err = "number too large";
    return -1;
  }
  if (v[n]) {
    if (!suffixes || v[n + 1]) goto bad;
    switch (v[n]) {
      case 'K': mult = (uint64_t)1 << 10; break;
      case 'M': mult = (uint64_t)1 << 20; break;
      case 'G': mult = (uint64_t)1 << 30; break;
      case 'T': mult = (uint64_t)1 << 40; break;
      default: goto bad;
    }
  }
  if (x > UINT64_MAX / mult) {
    *err = "number too large";
    return -1;
  }
  *out = x * mult;
  return 0;
bad:
  *err = suffixes ? "expected a number, optionally with K, M, G or T"
                  : "expected a number";
  return -1;
}

int value_umask(char const *v, unsigned *out, char const **err)
{
  size_t i;
  unsigned x = 0;
  for (i = 0; v[i]; i++) {
    if (v[i] < '0' || v[i] > '7' || i >= 4) {
      *err = "expected an octal umask such as 0022";
      return -1;
    }
    x = x * 8 + (unsigned)(v[i] - '0');
  }
  if (!i) {
    *err = "expected an octal umask such as 0022";
    return -1;
  }
  if (x > 0777) {
    *err = "at most 0777";
    return -1;
  }
  *out = x;
  return 0;
}

int value_id(char const *v, uint32_t *out)
{
  uint64_t x;
  if (digits(v, strlen(v), &x) < 0 || x >= UINT32_MAX) return -1;
  *out = (uint32_t)x;
  return 0;
}

int value_list(char const *v, int (*fn)(char const *item, void *arg), void *arg)
{
  char item[256];
  while (*v) {
    size_t n = 0;
    while (*v && (isblank_(*v) || *v == ',')) v++;
    if (!*v) break;
    while (v[n] && !isblank_(v[n]) && v[n] != ',') n++;
    if (n >= sizeof item) {
      /* no name of any vocabulary is this long: let the caller refuse it */
      memcpy(item, v, sizeof item - 4);
      memcpy(item + sizeof item - 4, "...", 4);
    } else {
      memcpy(item, v, n);
      item[n] = 0;
    }
    int r = fn(item, arg);
    if (r) return r;
    v += n;
  }
  return 0;
}

char **value_argv(char const *v, char const **err)
{
  size_t len = strlen(v), nargs = 0, i;
  /* worst case: every character its own word */
  char **argv;
  char *buf, *w;
  int inq = 0;

  argv = xmalloc((len / 2 + 2) * sizeof *argv + len + 1);
  buf = (char *)(argv + len / 2 + 2);
  w = buf;
  i = 0;
  for (;;) {
    while (isblank_(v[i])) i++;
    if (!v[i]) break;
    argv[nargs++] = w;
    while (v[i] && (inq || !isblank_(v[i]))) {
      if (v[i] == '"') {
        inq = !inq;
        i++;
      } else if (v[i] == '\\' && (v[i + 1] == '"' || v[i + 1] == '\\')) {
        *w++ = v[i + 1];
        i += 2;
      } else {
        *w++ = v[i++];
      }
    }
    *w++ = 0;
    if (inq) {
      *err = "unterminated quote";
      free(argv);
      return 0;
    }
  }
  argv[nargs] = 0;
  if (!nargs) {
    *err = "empty command";
    free(argv);
    return 0;
  }
  if (argv[0][0] != '/') {
    *err = "the program must be an absolute path (there is no PATH search)";
    free(argv);
    return 0;
  }
  /* the same in a block of its exact size: capinit keeps thousands */
  {
    size_t used = (size_t)(w - buf);
    char **exact = xmalloc((nargs + 1) * sizeof *exact + used);
    char *to = (char *)(exact + nargs + 1);
    memcpy(to, buf, used);
    for (i = 0; i < nargs; i++) exact[i] = to + (argv[i] - buf);
    exact[nargs] = 0;
    free(argv);
    return exact;
  }
}

size_t argv_count(char *const *argv)
{
  size_t n = 0;
  if (argv) while (argv[n]) n++;
  return n;
}

int value_abspath(char const *v, char const **err)
{
  if (v[0] != '/') {
    *err = "expected an absolute path";
    return -1;
  }
  return 0;
}

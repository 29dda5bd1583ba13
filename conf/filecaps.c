/* conf/filecaps.c -- see filecaps.h. */
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <linux/capability.h>

#include "filecaps.h"
#include "names.h"
#include "parse.h"
#include "xalloc.h"

static int isblank_(char c) { return c == ' ' || c == '\t'; }

enum { F_E, F_I, F_P };

/* One clause's capability list ("cap_a,cap_b", "all", or empty: all with
 * "=") as a mask, or -1 for a name that is none. */
static int clause_caps(char const *s, size_t n, int empty_ok, uint64_t *mask)
{
  char name[64];
  size_t i = 0, k;
  unsigned cap;
  *mask = 0;
  if (!n) {
    if (!empty_ok) return -1;
    *mask = ((uint64_t)1 << cap_names_n) - 1;
    return 0;
  }
  while (i <= n) {
    for (k = i; k < n && s[k] != ','; k++) {}
    if (k == i || k - i >= sizeof name) return -1;
    memcpy(name, s + i, k - i);
    name[k - i] = 0;
    if (!strcasecmp(name, "all")) *mask |= ((uint64_t)1 << cap_names_n) - 1;
    else if (cap_from_text_name(name, &cap) < 0) return -1;
    else *mask |= (uint64_t)1 << cap;
    i = k + 1;
  }
  return 0;
}

/* setcap's capability text, one clause or several separated by blanks:
 * LIST then operations, each '=', '+' or '-' and flags among e, i, p
 * ("cap_net_raw+ep", "cap_a,cap_b=ip", "=" for none, "all=p-i").  '='
 * clears the listed capabilities' three flags and sets those it names;
 * '+' and '-' need a flag.  0, or -1 for anything else. */
static int cap_text(char const *t, uint64_t flags[3])
{
  flags[F_E] = flags[F_I] = flags[F_P] = 0;
  while (*t) {
    uint64_t caps;
    size_t n;
    if (isblank_(*t)) {
      t++;
      continue;
    }
    for (n = 0; t[n] && t[n] != '=' && t[n] != '+' && t[n] != '-' && !isblank_(t[n]); n++) {}
    if (!t[n] || isblank_(t[n]) || clause_caps(t, n, t[n] == '=', &caps) < 0) return -1;
    t += n;
    while (*t == '=' || *t == '+' || *t == '-') {
      char op = *t++;
      int seen = 0;
      if (op == '=') flags[F_E] &= ~caps, flags[F_I] &= ~caps, flags[F_P] &= ~caps;
      for (; *t == 'e' || *t == 'i' || *t == 'p'; t++, seen++) {
        int f = *t == 'e' ? F_E : *t == 'i' ? F_I : F_P;
        flags[f] = op == '-' ? flags[f] & ~caps : flags[f] | caps;
      }
      if (!seen && op != '=') return -1;
    }
    if (*t && !isblank_(*t)) return -1;
  }
  return 0;
}

/* A valid path on a line that is not: remembered once. */
static void refuse(filecaps *out, char const *path)
{
  size_t i;
  for (i = 0; i < out->nrefused; i++)
    if (!strcmp(out->refused[i], path)) return;
  out->refused = xreallocarray(out->refused, out->nrefused + 1, sizeof *out->refused);
  out->refused[out->nrefused++] = xstrdup(path);
}

/* A path with a ".." component (in the middle or at the end). */
static int has_dotdot(char const *path)
{
  size_t n = strlen(path);
  return strstr(path, "/../") || (n >= 3 && !strcmp(path + n - 3, "/.."));
}

/* The capability text of path's line, as setcap takes it: one entry in
 * out, or -1 after diag_add (the path refused). */
static int add_entry(diag_list *diags, char const *file, unsigned line, char const *path, char const *text,
                     filecaps *out)
{
  uint64_t flags[3], prm, inh, eff;
  filecap *f;
  if (cap_text(text, flags) < 0) {
    diag_add(diags, DIAG_ERROR, file, line, "invalid capability text '%s' (as setcap: cap_net_raw+ep)", text);
    refuse(out, path);
    return -1;
  }
  prm = flags[F_P];
  inh = flags[F_I];
  eff = flags[F_E];
  if (eff && eff != (prm | inh)) {
    diag_add(diags, DIAG_ERROR, file, line,
             "'%s': the effective flag is one bit for a file: it must cover all its capabilities or none", text);
    refuse(out, path);
    return -1;
  }
  out->v = xreallocarray(out->v, out->n + 1, sizeof *out->v);
  f = &out->v[out->n++];
  f->path = xstrdup(path);
  f->line = line;
  f->prm = prm;
  f->inh = inh;
  f->eff = eff != 0;
  return 0;
}

static int parse_line(diag_list *diags, char const *file, unsigned line, char *s, void *arg)
{
  filecaps *out = arg;
  char *path, *text, *end;

  while (isblank_(*s)) s++;
  if (!*s || *s == '#') return 0;
  path = s;
  while (*s && !isblank_(*s)) s++;
  if (!*s) {
    diag_add(diags, DIAG_ERROR, file, line, "expected 'PATH CAPTEXT' (as setcap: cap_net_raw+ep, or = for none)");
    if (path[0] == '/' && !has_dotdot(path)) refuse(out, path);
    return -1;
  }
  *s++ = 0;
  while (isblank_(*s)) s++;
  text = s;
  end = text + strlen(text);
  while (end > text && isblank_(end[-1])) *--end = 0;
  if (path[0] != '/') {
    diag_add(diags, DIAG_ERROR, file, line, "'%s': expected an absolute path", path);
    return -1;
  }
  if (has_dotdot(path)) {
    diag_add(diags, DIAG_ERROR, file, line, "'%s': '..' is not allowed in a path", path);
    return -1;
  }
  if (!*text || strpbrk(text, " \t")) {
    diag_add(diags, DIAG_ERROR, file, line, "expected one capability text after the path (as setcap: cap_net_raw+ep)");
    refuse(out, path);
    return -1;
  }
  if (add_entry(diags, file, line, path, text, out) < 0) return -1;
  for (size_t i = 0; i + 1 < out->n; i++) {
    if (!strcmp(out->v[i].path, path)) {
      diag_add(diags, DIAG_ERROR, file, line, "'%s' is already listed on line %u", path, out->v[i].line);
      free(out->v[--out->n].path);
      return -1;
    }
  }
  return 0;
}

unsigned filecaps_parse(diag_list *diags, char const *file, char const *buf, size_t len, filecaps *out)
{
  return conf_each_line(diags, file, buf, len, parse_line, out);
}

int filecaps_load(diag_list *diags, char const *path, filecaps *out)
{
  return conf_each_line_of(diags, path, parse_line, out);
}

void filecaps_free(filecaps *f)
{
  size_t i;
  for (i = 0; i < f->n; i++) free(f->v[i].path);
  free(f->v);
  f->v = 0;
  f->n = 0;
  for (i = 0; i < f->nrefused; i++) free(f->refused[i]);
  free(f->refused);
  f->refused = 0;
  f->nrefused = 0;
}

static void put32(unsigned char *p, uint32_t x)
{
  p[0] = (unsigned char)x;
  p[1] = (unsigned char)(x >> 8);
  p[2] = (unsigned char)(x >> 16);
  p[3] = (unsigned char)(x >> 24);
}

size_t filecap_xattr(filecap const *f, unsigned char buf[20])
{
  put32(buf, VFS_CAP_REVISION_2 | (f->eff ? VFS_CAP_FLAGS_EFFECTIVE : 0));
  put32(buf + 4, (uint32_t)f->prm);
  put32(buf + 8, (uint32_t)f->inh);
  put32(buf + 12, (uint32_t)(f->prm >> 32));
  put32(buf + 16, (uint32_t)(f->inh >> 32));
  return 20;
}

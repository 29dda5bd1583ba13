/* capctl/unit_parse.c -- systemd's unit file syntax (systemd.syntax(7)),
 * read for capctl import.  Our own reading of the documented rules: a
 * line is a [Section] header, a comment (# or ; first), or key=value; a
 * line that ends in a backslash goes on at the next one (the backslash
 * becomes a blank, comment lines in between are skipped); quoting and
 * escapes belong to the values that take them (commands, lists). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../conf/xalloc.h"
#include "unit_parse.h"

static int is_blank(char c)
{
  return c == ' ' || c == '\t' || c == '\n' || c == '\r';
}

static char *trimmed(char const *s, size_t n)
{
  while (n && is_blank(*s)) s++, n--;
  while (n && is_blank(s[n - 1])) n--;
  return xstrndup(s, n);
}

static void problem(unit *u, char const *file, unsigned line, char const *text)
{
  u->bad = xreallocarray(u->bad, u->nbad + 1, sizeof *u->bad);
  u->bad[u->nbad].file = file;
  u->bad[u->nbad].line = line;
  u->bad[u->nbad++].text = xstrdup(text);
}

static void add_entry(unit *u, char const *section, char const *file, unsigned line, char const *text)
{
  char const *eq = strchr(text, '=');
  unit_entry *e;
  if (!section || !eq || eq == text) {
    problem(u, file, line, section ? "not a key=value line: ignored, as systemd does"
                                   : "an assignment before any [Section]: ignored, as systemd does");
    return;
  }
  u->v = xreallocarray(u->v, u->n + 1, sizeof *u->v);
  e = &u->v[u->n++];
  e->section = xstrdup(section);
  e->key = trimmed(text, (size_t)(eq - text));
  e->value = trimmed(eq + 1, strlen(eq + 1));
  e->file = file;
  e->line = line;
}

/* The next line of buf from *pos, without its newline, into a copy. */
static char *next_line(char const *buf, size_t len, size_t *pos)
{
  size_t start = *pos, end = start;
  while (end < len && buf[end] != '\n') end++;
  *pos = end < len ? end + 1 : end;
  return xstrndup(buf + start, end - start);
}

static int is_comment(char const *s)
{
  while (is_blank(*s)) s++;
  return *s == '#' || *s == ';';
}

/* A logical line: this one, and the next ones while it ends in '\'. */
static char *logical_line(char const *buf, size_t len, size_t *pos, unsigned *lineno)
{
  char *acc = next_line(buf, len, pos);
  size_t n = strlen(acc);
  while (n && acc[n - 1] == '\\' && *pos < len) {
    char *more = next_line(buf, len, pos);
    (*lineno)++;
    if (is_comment(more)) {
      free(more);
      continue;
    }
    acc[n - 1] = ' ';
    acc = xreallocarray(acc, n + strlen(more) + 1, 1);
    strcpy(acc + n, more);
    n = strlen(acc);
    free(more);
  }
  return acc;
}

void unit_parse_buffer(unit *u, char const *file, char const *buf, size_t len)
{
  size_t pos = 0;
  unsigned lineno = 0;
  char *section = 0, *name = xstrdup(file);
  u->files = xreallocarray(u->files, u->nfiles + 1, sizeof *u->files);
  u->files[u->nfiles++] = name;
  while (pos < len) {
    unsigned first = ++lineno;
    char *l = logical_line(buf, len, &pos, &lineno), *s = l;
    while (is_blank(*s)) s++;
    if (!*s || is_comment(s)) {
      free(l);
      continue;
    }
    if (*s == '[') {
      char *end = strchr(s, ']');
      free(section);
      section = end ? xstrndup(s + 1, (size_t)(end - s - 1)) : 0;
      if (!end) problem(u, name, first, "a section header without ']': its lines are ignored");
    } else {
      add_entry(u, section, name, first, s);
    }
    free(l);
  }
  free(section);
}

void unit_free(unit *u)
{
  size_t i;
  for (i = 0; i < u->n; i++) {
    free(u->v[i].section);
    free(u->v[i].key);
    free(u->v[i].value);
  }
  for (i = 0; i < u->nbad; i++) free(u->bad[i].text);
  for (i = 0; i < u->nfiles; i++) free(u->files[i]);
  free(u->v);
  free(u->bad);
  free(u->files);
  memset(u, 0, sizeof *u);
}

void unit_argv_free(char **argv)
{
  size_t i;
  if (!argv) return;
  for (i = 0; argv[i]; i++) free(argv[i]);
  free(argv);
}

static int hexval(char c)
{
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

/* One C escape at s (after the backslash) into *out; its length, or 0. */
static size_t c_escape(char const *s, char *out)
{
  static char const from[] = "abfnrtv\\\"' ", to[] = "\a\b\f\n\r\t\v\\\"' ";
  char const *p = *s ? strchr(from, *s) : 0;
  if (p) {
    *out = to[p - from];
    return 1;
  }
  if (*s == 'x' && hexval(s[1]) >= 0 && hexval(s[2]) >= 0) {
    *out = (char)(hexval(s[1]) * 16 + hexval(s[2]));
    return 3;
  }
  if (s[0] >= '0' && s[0] <= '3' && s[1] >= '0' && s[1] <= '7' && s[2] >= '0' && s[2] <= '7') {
    *out = (char)((s[0] - '0') * 64 + (s[1] - '0') * 8 + (s[2] - '0'));
    return 3;
  }
  return 0;
}

/* One word from *s: unquoted, unescaped (in either quotes too: getty's
 * '-p -- \\u' is "-p -- \u"), into a copy; NULL at the end of the value,
 * or with *err. */
static char *one_word(char const **s, char const **err)
{
  char const *p = *s;
  char *w, quote = 0;
  size_t n = 0;
  while (is_blank(*p)) p++;
  if (!*p) return 0;
  w = xmalloc(strlen(p) + 1);
  for (; *p && (quote || !is_blank(*p)); p++) {
    if (!quote && (*p == '"' || *p == '\'')) quote = *p;
    else if (quote && *p == quote) quote = 0;
    else if (*p == '\\') {
      /* an unknown escape stays as written, as systemd keeps it */
      size_t k = c_escape(p + 1, &w[n]);
      if (!k) w[n] = '\\';
      n++;
      p += k;
    } else w[n++] = *p;
  }
  if (quote) {
    *err = "an unterminated quote";
    free(w);
    return 0;
  }
  w[n] = 0;
  *s = p;
  return w;
}

char **unit_words(char const *v, size_t *n, char const **err)
{
  char **argv = xcalloc(1, sizeof *argv), *w;
  *n = 0;
  *err = 0;
  while ((w = one_word(&v, err))) {
    argv = xreallocarray(argv, *n + 2, sizeof *argv);
    argv[(*n)++] = w;
    argv[*n] = 0;
  }
  if (*err) {
    unit_argv_free(argv);
    return 0;
  }
  return argv;
}

char **unit_exec_split(char const *v, unsigned *flags, size_t *argc, char const **err)
{
  char **argv;
  *flags = 0;
  for (;; v++) {
    if (*v == '-') *flags |= EXEC_IGNORE_FAILURE;
    else if (*v == '@') *flags |= EXEC_ARGV0;
    else if (*v == ':') *flags |= EXEC_NO_ENV;
    else if (*v == '+') *flags |= EXEC_FULL_PRIVILEGE;
    else if (*v == '!' && v[1] == '!') *flags |= EXEC_AMBIENT_FALLBACK, v++;
    else if (*v == '!') *flags |= EXEC_NO_CREDENTIALS;
    else break;
  }
  argv = unit_words(v, argc, err);
  if (argv && !*argc) {
    *err = "no command";
    unit_argv_free(argv);
    return 0;
  }
  if (argv && (*flags & EXEC_ARGV0) && *argc < 2) {
    *err = "'@' without the argv[0] word";
    unit_argv_free(argv);
    return 0;
  }
  return argv;
}

char *unit_unescape(char const *s)
{
  char *out = xmalloc(strlen(s) + 1);
  size_t n = 0;
  for (; *s; s++) {
    if (*s == '-') out[n++] = '/';
    else if (s[0] == '\\' && s[1] == 'x' && hexval(s[2]) >= 0 && hexval(s[3]) >= 0) {
      out[n++] = (char)(hexval(s[2]) * 16 + hexval(s[3]));
      s += 3;
    } else out[n++] = *s;
  }
  out[n] = 0;
  return out;
}

/* The value of specifier c into a copy, or NULL when it is unknown. */
static char *specifier(char c, unit_names const *u)
{
  char const *fixed = 0, *dot;
  switch (c) {
    case 'n': fixed = u->full; break;
    case 'N': dot = strrchr(u->full, '.'); return xstrndup(u->full, dot ? (size_t)(dot - u->full) : strlen(u->full));
    case 'p': fixed = u->prefix; break;
    case 'P': return unit_unescape(u->prefix);
    case 'i': fixed = u->instance; break;
    case 'I': return u->instance ? unit_unescape(u->instance) : 0;
    case 'j': dot = strrchr(u->prefix, '-'); fixed = dot ? dot + 1 : u->prefix; break;
    case 'J': { char *p = unit_unescape(u->prefix), *d = strrchr(p, '/'), *r = xstrdup(d ? d + 1 : p); free(p); return r; }
    case 'f': { char *p = unit_unescape(u->instance ? u->instance : u->prefix), *r = xmalloc(strlen(p) + 2);
                sprintf(r, "%s%s", p[0] == '/' ? "" : "/", p); free(p); return r; }
    case 'u': fixed = u->user; break;
    case 'h': fixed = u->home; break;
    case 't': fixed = "/run"; break;
    case 'S': fixed = "/var/lib"; break;
    case 'C': fixed = "/var/cache"; break;
    case 'L': fixed = "/var/log"; break;
    case 'E': fixed = "/etc"; break;
    case 'T': fixed = "/tmp"; break;
    case 'V': fixed = "/var/tmp"; break;
    case '%': fixed = "%"; break;
    default: return 0;
  }
  return fixed ? xstrdup(fixed) : 0;
}

char *unit_specifiers(char const *v, unit_names const *names, char *bad)
{
  size_t cap = strlen(v) + 1, n = 0;
  char *out = xmalloc(cap);
  for (; *v; v++) {
    char *x;
    size_t k;
    if (*v != '%') {
      out[n++] = *v;
      continue;
    }
    x = specifier(v[1], names);
    if (!x) {
      *bad = v[1] ? v[1] : '%';
      free(out);
      return 0;
    }
    k = strlen(x);
    cap += k;
    out = xreallocarray(out, cap, 1);
    memcpy(out + n, x, k);
    n += k;
    free(x);
    v++;
  }
  out[n] = 0;
  return out;
}

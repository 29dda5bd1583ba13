/* conf/parse.c -- see parse.h. */
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "parse.h"
#include "xalloc.h"

static void vreport(conf_where *w, enum diag_level level, char const *fmt, va_list ap)
{
  char text[512];
  vsnprintf(text, sizeof text, fmt, ap);
  if (level == DIAG_ERROR) w->errors++;
  if (w->errors > CONF_DIAG_MAX) {
    if (w->errors == CONF_DIAG_MAX + 1)
      diag_add(w->diags, DIAG_ERROR, w->file, w->line,
               "too many problems: the rest of this file is not checked");
    return;
  }
  diag_add(w->diags, level, w->file, w->line, "%s", text);
}

int conf_error(conf_where *w, char const *fmt, ...)
{
  va_list ap;
  va_start(ap, fmt);
  vreport(w, DIAG_ERROR, fmt, ap);
  va_end(ap);
  return -1;
}

void conf_warning(conf_where *w, char const *fmt, ...)
{
  va_list ap;
  va_start(ap, fmt);
  vreport(w, DIAG_WARNING, fmt, ap);
  va_end(ap);
}

static int isblank_(char c) { return c == ' ' || c == '\t'; }

/* Levenshtein distance, small strings only: for "did you mean". */
static size_t distance(char const *a, char const *b)
{
  size_t la = strlen(a), lb = strlen(b), i, j;
  size_t row[40];
  if (la >= 39 || lb >= 39) return 99;
  for (j = 0; j <= lb; j++) row[j] = j;
  for (i = 1; i <= la; i++) {
    size_t corner = row[0];
    row[0] = i;
    for (j = 1; j <= lb; j++) {
      size_t up = row[j], best = corner + (a[i - 1] != b[j - 1]);
      if (up + 1 < best) best = up + 1;
      if (row[j - 1] + 1 < best) best = row[j - 1] + 1;
      corner = up;
      row[j] = best;
    }
  }
  return row[lb];
}

static conf_key const *key_find(conf_key const *keys, size_t nkeys, char const *name)
{
  size_t i;
  for (i = 0; i < nkeys; i++) {
    if (keys[i].flags & KEY_PREFIX) {
      size_t n = strlen(keys[i].name);
      if (!strncmp(name, keys[i].name, n)) return &keys[i];
    } else if (!strcmp(name, keys[i].name)) {
      return &keys[i];
    }
  }
  return 0;
}

static void unknown_key(conf_where *w, conf_key const *keys, size_t nkeys, char const *name)
{
  size_t i, best = 3;
  conf_key const *guess = 0;
  for (i = 0; i < nkeys; i++) {
    size_t d = distance(name, keys[i].name);
    if (d < best) {
      best = d;
      guess = &keys[i];
    }
  }
  /* a prefix key is named as the documentation writes it: rlimit-NAME */
  if (guess) conf_error(w, "unknown key '%s' (did you mean '%s%s'?)", name, guess->name,
                        guess->flags & KEY_PREFIX ? "NAME" : "");
  else conf_error(w, "unknown key '%s'", name);
}

/* One logical line, NUL-terminated, without its newline. */
static void parse_line(conf_where *w, char *s, conf_key const *keys, size_t nkeys,
                       unsigned *lines, void *obj)
{
  char *eq, *k, *v, *end;
  conf_key const *key;

  while (isblank_(*s)) s++;
  if (!*s || *s == '#') return;
  eq = strchr(s, '=');
  if (!eq) {
    conf_error(w, "expected 'key = value'");
    return;
  }
  k = s;
  end = eq;
  while (end > k && isblank_(end[-1])) end--;
  *end = 0;
  v = eq + 1;
  while (isblank_(*v)) v++;
  end = v + strlen(v);
  while (end > v && isblank_(end[-1])) end--;
  *end = 0;
  if (!*k) {
    conf_error(w, "expected 'key = value': the key is missing");
    return;
  }
  w->key = k;
  key = key_find(keys, nkeys, k);
  if (!key) {
    unknown_key(w, keys, nkeys, k);
    return;
  }
  if (!(key->flags & (KEY_REPEAT | KEY_PREFIX)) && lines[key->id]) {
    conf_error(w, "duplicate key '%s' (first set on line %u)", k, lines[key->id]);
    return;
  }
  if (!lines[key->id]) lines[key->id] = w->line;
  key->set(w, obj, v);
}

/* A byte that has no business in a text file: every control character but
 * tab.  Returns its position or NULL. */
static char const *bad_byte(char const *s, size_t n)
{
  size_t i;
  for (i = 0; i < n; i++) {
    unsigned char c = (unsigned char)s[i];
    if ((c < 0x20 && c != '\t') || c == 0x7f) return s + i;
  }
  return 0;
}

unsigned conf_parse_buffer(diag_list *diags, char const *file,
                           char const *buf, size_t len,
                           conf_key const *keys, size_t nkeys,
                           unsigned *lines, void *obj)
{
  conf_where w = { diags, file, 0, 0, 0 };
  char *copy = 0;
  size_t copycap = 0;

  while (len) {
    char const *nl = memchr(buf, '\n', len);
    size_t n = nl ? (size_t)(nl - buf) : len;
    char const *bad;
    w.line++;
    w.key = 0;
    if (n > CONF_LINE_MAX) {
      conf_error(&w, "line too long (%zu bytes; at most %u)", n, CONF_LINE_MAX);
    } else if ((bad = bad_byte(buf, n))) {
      if (*bad == '\r' && bad == buf + n - 1)
        conf_error(&w, "line ends in a carriage return (DOS line endings?)");
      else if (!*bad)
        conf_error(&w, "NUL byte in line (binary file?)");
      else
        conf_error(&w, "control character 0x%02x in line", (unsigned)(unsigned char)*bad);
    } else {
      if (n + 1 > copycap) {
        copycap = n + 1;
        copy = xreallocarray(copy, copycap, 1);
      }
      memcpy(copy, buf, n);
      copy[n] = 0;
      parse_line(&w, copy, keys, nkeys, lines, obj);
      /* a value may be a secret (environment): no stale copy in the heap,
       * where a fork of capinit (a private-pids reaper) would carry it */
      explicit_bzero(copy, n + 1);
    }
    if (w.errors > CONF_DIAG_MAX) break;
    buf += n + (nl ? 1 : 0);
    len -= n + (nl ? 1 : 0);
  }
  free(copy);
  return w.errors;
}

unsigned conf_parse_pair(diag_list *diags, char const *file, unsigned line,
                         char const *pair, conf_key const *keys, size_t nkeys,
                         unsigned *lines, void *obj)
{
  conf_where w = { diags, file, line, 0, 0 };
  size_t n = strlen(pair);
  char *copy;
  if (n > CONF_LINE_MAX) {
    conf_error(&w, "value too long (%zu bytes; at most %u)", n, CONF_LINE_MAX);
    return w.errors;
  }
  if (bad_byte(pair, n)) {
    conf_error(&w, "control character in 'key=value'");
    return w.errors;
  }
  copy = xstrdup(pair);
  parse_line(&w, copy, keys, nkeys, lines, obj);
  explicit_bzero(copy, n);
  free(copy);
  return w.errors;
}

char *conf_read_file(diag_list *diags, char const *path, size_t *lenp)
{
  struct stat st;
  char *buf;
  size_t len = 0;
  int fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY);
  if (fd < 0) {
    if (errno == ENOENT && lstat(path, &st) == 0 && S_ISLNK(st.st_mode))
      diag_add(diags, DIAG_ERROR, path, 0, "dangling symbolic link");
    else
      diag_add(diags, DIAG_ERROR, path, 0, "unable to open: %s", strerror(errno));
    return 0;
  }
  if (fstat(fd, &st) < 0) {
    diag_add(diags, DIAG_ERROR, path, 0, "unable to stat: %s", strerror(errno));
    goto fail;
  }
  if (S_ISDIR(st.st_mode)) {
    diag_add(diags, DIAG_ERROR, path, 0, "is a directory, not a file");
    goto fail;
  }
  if (!S_ISREG(st.st_mode)) {
    diag_add(diags, DIAG_ERROR, path, 0, "not a regular file");
    goto fail;
  }
  if (st.st_size > (off_t)CONF_FILE_MAX) {
    diag_add(diags, DIAG_ERROR, path, 0, "file too large (%lld bytes; at most %u)",
             (long long)st.st_size, CONF_FILE_MAX);
    goto fail;
  }
  buf = xmalloc((size_t)st.st_size + 1);
  for (;;) {
    ssize_t r = read(fd, buf + len, (size_t)st.st_size + 1 - len);
    if (r < 0 && errno == EINTR) continue;
    if (r < 0) {
      diag_add(diags, DIAG_ERROR, path, 0, "unable to read: %s", strerror(errno));
      free(buf);
      goto fail;
    }
    if (!r) break;
    len += (size_t)r;
    if (len > (size_t)st.st_size) {
      diag_add(diags, DIAG_ERROR, path, 0, "file grew while being read");
      free(buf);
      goto fail;
    }
  }
  close(fd);
  buf[len] = 0;
  *lenp = len;
  return buf;
fail:
  close(fd);
  return 0;
}

unsigned conf_each_line(diag_list *diags, char const *file, char const *buf, size_t len,
                        conf_line_fn *fn, void *arg)
{
  unsigned line = 0, errors = 0;
  char *copy = 0;
  while (len && errors <= CONF_DIAG_MAX) {
    char const *nl = memchr(buf, '\n', len);
    size_t n = nl ? (size_t)(nl - buf) : len, i;
    int bad = 0;
    line++;
    for (i = 0; i < n; i++) {
      unsigned char ch = (unsigned char)buf[i];
      if ((ch < 0x20 && ch != '\t') || ch == 0x7f) bad = 1;
    }
    if (bad) {
      diag_add(diags, DIAG_ERROR, file, line, "control character in line (binary file?)");
      errors++;
    } else if (n > CONF_LINE_MAX) {
      diag_add(diags, DIAG_ERROR, file, line, "line too long");
      errors++;
    } else {
      copy = xreallocarray(copy, n + 1, 1);
      memcpy(copy, buf, n);
      copy[n] = 0;
      if (fn(diags, file, line, copy, arg) < 0) errors++;
    }
    buf += n + (nl ? 1 : 0);
    len -= n + (nl ? 1 : 0);
  }
  if (len && errors > CONF_DIAG_MAX)
    diag_add(diags, DIAG_ERROR, file, line, "too many problems: the rest of this file is not read");
  free(copy);
  return errors;
}

int conf_each_line_of(diag_list *diags, char const *path, conf_line_fn *fn, void *arg)
{
  size_t len;
  char *buf = conf_read_file(diags, path, &len);
  unsigned e;
  if (!buf) return -1;
  e = conf_each_line(diags, path, buf, len, fn, arg);
  free(buf);
  return e ? -1 : 0;
}

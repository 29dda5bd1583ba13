/* conf/diag.c -- the list of configuration problems. */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "diag.h"
#include "xalloc.h"

void diag_add(diag_list *l, enum diag_level level, char const *file,
              unsigned line, char const *fmt, ...)
{
  va_list ap;
  char *text;
  int len;

  va_start(ap, fmt);
  len = vsnprintf(0, 0, fmt, ap);
  va_end(ap);
  text = xmalloc((size_t)len + 1);
  va_start(ap, fmt);
  vsnprintf(text, (size_t)len + 1, fmt, ap);
  va_end(ap);

  if (l->n == l->cap) {
    l->cap = l->cap ? 2 * l->cap : 16;
    l->v = xreallocarray(l->v, l->cap, sizeof *l->v);
  }
  l->v[l->n].file = xstrdup(file);
  l->v[l->n].line = line;
  l->v[l->n].level = level;
  l->v[l->n].text = text;
  l->n++;
}

size_t diag_count(diag_list const *l, enum diag_level level)
{
  size_t i, n = 0;
  for (i = 0; i < l->n; i++) n += l->v[i].level == level;
  return n;
}

/* Insertion sort: stable, and the lists are short. */
void diag_sort(diag_list *l)
{
  size_t i, j;
  for (i = 1; i < l->n; i++) {
    diag d = l->v[i];
    for (j = i; j > 0; j--) {
      diag const *p = &l->v[j - 1];
      int c = strcmp(p->file, d.file);
      if (c < 0 || (c == 0 && p->line <= d.line)) break;
      l->v[j] = l->v[j - 1];
    }
    l->v[j] = d;
  }
}

size_t diag_format(diag const *d, char const *prog, char *buf, size_t len)
{
  char where[32] = "";
  int n;
  if (!len) return 0;
  if (d->line) snprintf(where, sizeof where, ":%u", d->line);
  n = snprintf(buf, len, "%s: %s%s: %s: %s\n", prog, d->file, where,
               d->level == DIAG_WARNING ? "warning" : "error", d->text);
  if (n < 0) n = 0;
  if ((size_t)n >= len) {
    n = (int)len - 1;
    if (n > 0) buf[n - 1] = '\n';
  }
  return (size_t)n;
}

void diag_print(diag_list const *l, char const *prog, int fd)
{
  char buf[4096];
  for (size_t i = 0; i < l->n; i++) {
    size_t n = diag_format(&l->v[i], prog, buf, sizeof buf), off = 0;
    while (off < n) {
      ssize_t w = write(fd, buf + off, n - off);
      if (w <= 0) return;
      off += (size_t)w;
    }
  }
}

void diag_free(diag_list *l)
{
  size_t i;
  for (i = 0; i < l->n; i++) {
    free(l->v[i].file);
    free(l->v[i].text);
  }
  free(l->v);
  l->v = 0;
  l->n = l->cap = 0;
}

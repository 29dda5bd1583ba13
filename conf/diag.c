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

void diag_print(diag_list const *l, int fd)
{
  FILE *f = fdopen(dup(fd), "w");
  size_t i;
  if (!f) return;
  for (i = 0; i < l->n; i++) {
    diag const *d = &l->v[i];
    char const *w = d->level == DIAG_WARNING ? "warning: " : "";
    if (d->line) fprintf(f, "%s:%u: %s%s\n", d->file, d->line, w, d->text);
    else fprintf(f, "%s: %s%s\n", d->file, w, d->text);
  }
  fclose(f);
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

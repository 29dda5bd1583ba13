/* conf/xalloc.c -- see xalloc.h. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "xalloc.h"

static char const *prog = "capinit";

void xalloc_name(char const *name)
{
  prog = name;
}

static void nomem(void)
{
  static char const tail[] = ": fatal: out of memory\n";
  char msg[64 + sizeof tail];
  size_t n = strlen(prog);
  if (n > 64) n = 64;
  memcpy(msg, prog, n);
  memcpy(msg + n, tail, sizeof tail - 1);
  (void)!write(2, msg, n + sizeof tail - 1);
  _exit(111);
}

void *xmalloc(size_t n)
{
  void *p = malloc(n ? n : 1);
  if (!p) nomem();
  return p;
}

void *xcalloc(size_t n, size_t size)
{
  void *p = calloc(n ? n : 1, size ? size : 1);
  if (!p) nomem();
  return p;
}

void *xreallocarray(void *p, size_t n, size_t size)
{
  if (size && n > SIZE_MAX / size) nomem();
  p = realloc(p, (n && size) ? n * size : 1);
  if (!p) nomem();
  return p;
}

char *xstrndup(char const *s, size_t n)
{
  char *p = xmalloc(n + 1);
  memcpy(p, s, n);
  p[n] = 0;
  return p;
}

char *xstrdup(char const *s)
{
  return xstrndup(s, strlen(s));
}

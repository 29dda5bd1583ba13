/* conf/xalloc.h -- allocation that cannot fail quietly.
 *
 * Configuration is loaded before anything runs and its size is bounded by
 * the files' (each at most CONF_FILE_MAX bytes): running out of memory
 * there is not a condition to recover from, so these exit 111. */
#ifndef CAPINIT_CONF_XALLOC_H
#define CAPINIT_CONF_XALLOC_H

#include <stddef.h>

void *xmalloc(size_t n);
void *xcalloc(size_t n, size_t size);
void *xreallocarray(void *p, size_t n, size_t size);
char *xstrdup(char const *s);
char *xstrndup(char const *s, size_t n);
/* The program that says "PROG: fatal: out of memory" (default capinit),
 * as diag_format is given its name. */
void xalloc_name(char const *prog);

#endif

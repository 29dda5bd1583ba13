/* conf/diag.h -- problems found in configuration files, each printed in
 * the one shape of a configuration problem:
 *   PROG: FILE:LINE: error: text      (or warning:)
 *   PROG: FILE: error: text           (about the whole file: line 0)
 * System errors have the other shape, "PROG: fatal|warning: unable to X:
 * reason" (skalibs' strerr in capctl and capexec, console_say in capinit). */
#ifndef CAPINIT_CONF_DIAG_H
#define CAPINIT_CONF_DIAG_H

#include <stddef.h>

enum diag_level { DIAG_ERROR, DIAG_WARNING };

typedef struct diag_s {
  char *file;
  unsigned line;           /* 0: about the whole file */
  enum diag_level level;
  char *text;
} diag;

typedef struct diag_list_s {
  diag *v;
  size_t n, cap;
} diag_list;

void diag_add(diag_list *l, enum diag_level level, char const *file,
              unsigned line, char const *fmt, ...)
  __attribute__((format(printf, 5, 6)));
size_t diag_count(diag_list const *l, enum diag_level level);
/* Sort by file, then line, keeping the order of equal keys. */
void diag_sort(diag_list *l);
/* One problem in that shape, with its newline, into buf (cut to fit,
 * still ending in a newline).  Returns its length. */
size_t diag_format(diag const *d, char const *prog, char *buf, size_t len);
/* Each problem of l in that shape on fd. */
void diag_print(diag_list const *l, char const *prog, int fd);
void diag_free(diag_list *l);

#endif

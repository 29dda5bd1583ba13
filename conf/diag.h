/* conf/diag.h -- problems found in configuration files, as FILE:LINE: text. */
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
/* Print each as "FILE:LINE: text" (or "FILE:LINE: warning: text"). */
void diag_print(diag_list const *l, int fd);
void diag_free(diag_list *l);

#endif

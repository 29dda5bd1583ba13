/* capctl/import_map.h -- capctl import's table of directives
 * (import_map.c): the type of its rows, and one assignment through it. */
#ifndef CAPINIT_CAPCTL_IMPORT_MAP_H
#define CAPINIT_CAPCTL_IMPORT_MAP_H

#include "import_model.h"

typedef struct imp_row_s imp_row;
/* v is the value with its specifiers expanded */
typedef void imp_fn(imp *m, unit_entry const *e, char const *v, imp_row const *r);
struct imp_row_s {
  char const *section;
  char const *key;         /* a trailing '*': every key that begins so */
  imp_fn *fn;
  enum imp_key out;        /* the key its comment stands above */
  char const *text;        /* what the report says of it */
};

/* one assignment of the unit, through the table */
void import_entry(imp *m, unit_entry const *e);

#endif

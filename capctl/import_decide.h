/* capctl/import_decide.h -- capinit's keys for a unit (import_decide.c). */
#ifndef CAPINIT_CAPCTL_IMPORT_DECIDE_H
#define CAPINIT_CAPCTL_IMPORT_DECIDE_H

#include "import_model.h"

/* the keys, once every line is read; then depends and after, once every
 * unit of the run is (converted: their names) */
void import_decide(imp *m);
void import_deps(imp *m, imp_list const *converted);

#endif

/* capctl/import_out.h -- the service file capctl import writes
 * (import_out.c). */
#ifndef CAPINIT_CAPCTL_IMPORT_OUT_H
#define CAPINIT_CAPCTL_IMPORT_OUT_H

#include "import_model.h"

/* the service file at path, or -1 with errno */
int import_write(imp const *m, char const *path);

#endif

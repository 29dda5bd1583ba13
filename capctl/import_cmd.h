/* capctl/import_cmd.h -- the command of the service file (import_cmd.c). */
#ifndef CAPINIT_CAPCTL_IMPORT_CMD_H
#define CAPINIT_CAPCTL_IMPORT_CMD_H

#include "import_model.h"

/* the command of the service file (the main one, its foreground form,
 * what runs before it: prelude, sh lines), the stop and reload lines;
 * as_root: whether the command runs as uid 0 */
void import_commands(imp *m, imp_list const *prelude, int as_root);

#endif

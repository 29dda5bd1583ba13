/* capctl/import_exec.h -- the command lines of a unit (import_exec.c). */
#ifndef CAPINIT_CAPCTL_IMPORT_EXEC_H
#define CAPINIT_CAPCTL_IMPORT_EXEC_H

#include "import_model.h"

/* an Exec line into m's list (expanded once every line is read: the
 * environment is the unit's whole one) */
void import_exec_line(imp *m, imp_cmds *list, unit_entry const *e, char const *v);
void import_exec_expand(imp *m);
/* argv as a line of sh, and as capinit's command value (malloc'd) */
char *import_sh_line(char *const *argv);
char *import_svc_line(char *const *argv);
/* a value quoted for capinit's command syntax, into a malloc'd string */
char *svc_quote(char const *word);

#endif

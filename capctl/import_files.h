/* capctl/import_files.h -- the files of a unit (import_files.c). */
#ifndef CAPINIT_CAPCTL_IMPORT_FILES_H
#define CAPINIT_CAPCTL_IMPORT_FILES_H

#include "unit_parse.h"

/* a unit's file, or a link in its place (a masked unit, an alias) */
int import_is_file(char const *path);
/* The file of a unit beside dir (NULL: nowhere), or in root's unit
 * directories ("" for the running system): a malloc'd path, or NULL */
char *import_find_unit(char const *root, char const *dir, char const *name);
/* the assignments of the file at path into u, the report naming it
 * report_name; a file that cannot be read adds nothing */
void import_read_file(unit *u, char const *path, char const *report_name);
/* the drop-ins of the unit names[0] (and of its template names[1], or
 * NULL), in the order of their file names across dir (NULL: none) and
 * root's unit directories, as systemd applies them */
void import_read_dropins(unit *u, char const *root, char const *dir, char const *const names[2]);

#endif

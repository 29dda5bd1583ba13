/* supervise/mkdir_p.h -- mkdir -p (mkdir_p.c). */
#ifndef CAPINIT_SUPERVISE_MKDIR_P_H
#define CAPINIT_SUPERVISE_MKDIR_P_H

#include <sys/types.h>

/* mkdir -p: every missing component with mode.  The last one must be
 * capinit's (or root's); no link is followed at a component it made nor
 * at the end.  -1 with errno. */
int mkdir_p(char const *path, mode_t mode);

#endif

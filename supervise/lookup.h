/* supervise/lookup.h -- finding a service (lookup.c). */
#ifndef CAPINIT_SUPERVISE_LOOKUP_H
#define CAPINIT_SUPERVISE_LOOKUP_H

#include <sys/types.h>

#include "supervisor.h"

/* The service of that name, or 0 (sv.v is sorted by name). */
service *service_by_name(char const *name);
/* The service whose main process or stop-command is pid, or 0. */
service *service_by_pid(pid_t pid);

#endif

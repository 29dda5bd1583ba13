/* supervise/load.h -- the set of services: load, reload, forget (load.c). */
#ifndef CAPINIT_SUPERVISE_LOAD_H
#define CAPINIT_SUPERVISE_LOAD_H

#include <stddef.h>

#include "supervisor.h"

/* (Re)read the configuration: new services start, removed ones stop,
 * changed ones take effect at their next start.  -1: the services'
 * directory is unreadable. */
int load_services(supervisor *sup, int initial);
/* Refuse every service whose command is path (PID 1: filecaps mismatch). */
void load_refuse_command(char const *path, char const *why);
/* Forget sv->v[i], a removed service that is down. */
void service_forget(supervisor *sup, size_t i);

#endif

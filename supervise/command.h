/* supervise/command.h -- the command of a running service (command.c). */
#ifndef CAPINIT_SUPERVISE_COMMAND_H
#define CAPINIT_SUPERVISE_COMMAND_H

#include <sys/types.h>

#include "supervisor.h"

/* The pid of the command itself: the main process, or with private-pids
 * the reaper's child (0 when there is none). */
pid_t service_command_pid(service const *s);
/* Send sig to the command itself (capctl signal). */
void service_signal(service const *s, int sig);
/* The wait status of the command that just ended: status, or with
 * private-pids the one its reaper reported (reaper_fd is closed). */
int service_command_status(service *s, int status);

#endif

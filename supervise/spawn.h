/* supervise/spawn.h -- a service's processes: spawn, signals, the end of
 * a run (spawn.c). */
#ifndef CAPINIT_SUPERVISE_SPAWN_H
#define CAPINIT_SUPERVISE_SPAWN_H

#include <sys/types.h>

#include "../engine/privilege.h"
#include "supervisor.h"

/* Spawn argv through the engine, with the service's descriptors (and its
 * readiness pipe or notify socket if with_readiness).  Returns the pid,
 * or -1 (errno) when no child could be made.  *f is the stage that failed
 * in the child, or stage -1: the command runs (execve succeeded, which is
 * when a vfork-style clone returns). */
pid_t spawn(supervisor const *sup, service *s, char **argv, int with_readiness, priv_fail *f);
/* The main process ended: nothing of the service outlives it (SIGKILL to
 * its process group), and its readiness pipe is closed. */
void spawn_end(service *s);

/* Send sig to the service's process group, or to its main process alone
 * if the group is gone.  Never both: a second stop signal may mean
 * "hurry" to the service. */
void service_signal_group(service const *s, int sig);
/* SIGKILL to a oneshot's stop-command's process group, if it runs. */
void service_kill_stop_command(service const *s);

#endif

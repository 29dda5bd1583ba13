/* supervise/command.c -- the command of a running service: its pid, a
 * signal to it, its wait status, through the reaper of a private-pids
 * service (engine/reaper.c) when it has one. */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "command.h"
#include "../inspect/procfs.h"
#include "../engine/reaper.h"

pid_t service_command_pid(service const *s)
{
  char name[64], buf[64];
  if (s->pid <= 0 || !container_own_pids(s->spec->ct)) return s->pid;
  snprintf(name, sizeof name, "task/%d/children", (int)s->pid);
  return procfs_read(s->pid, name, buf, sizeof buf) > 0 ? (pid_t)atoi(buf) : 0;
}

void service_signal(service const *s, int sig)
{
  if (s->pid <= 0) return;
  /* the reaper passes on only what is queued for the command */
  if (container_own_pids(s->spec->ct))
    sigqueue(s->pid, sig, (union sigval){ .sival_int = REAPER_SIGNAL_MAIN });
  else
    kill(s->pid, sig);
}

int service_command_status(service *s, int status)
{
  reaper_report r;
  if (s->reaper_fd < 0) return status;
  if (read(s->reaper_fd, &r, sizeof r) == (ssize_t)sizeof r && r.kind == REAPER_EXITED) status = r.status;
  close(s->reaper_fd);
  s->reaper_fd = -1;
  return status;
}

/* supervise/notify.h -- sd_notify readiness: one datagram socket per
 * service (RUNDIR/notify/NAME), messages accepted only from a process of
 * that service. */
#ifndef CAPINIT_SUPERVISE_NOTIFY_H
#define CAPINIT_SUPERVISE_NOTIFY_H

#include <stddef.h>

#include "supervisor.h"

#define NOTIFY_MSG_MAX 4096

typedef struct notify_msg_s {
  int ready, stopping, reloading;
  int has_status;
  char status[128];
} notify_msg;

/* Parse one datagram: newline-separated VAR=VALUE assignments, as
 * sd_notify(3) sends them.  Unknown variables are ignored.  Returns 0, or
 * -1 for a malformed message (NUL bytes, a line without '='). Pure. */
int notify_parse(char const *buf, size_t len, notify_msg *m);

int notify_open(service *s);
char const *notify_path(service const *s);
/* Read what is waiting (64 messages at most): 1 if one of them said
 * READY=1, from a process of the service. */
int notify_read(service *s);
void notify_close(service *s);

#endif

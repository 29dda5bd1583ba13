/* supervise/service.h -- the state machine of one service (service.c):
 * its states, its events, and service_event(), the one place where a
 * current state changes. */
#ifndef CAPINIT_SUPERVISE_SERVICE_H
#define CAPINIT_SUPERVISE_SERVICE_H

#include "supervisor.h"

enum state {
  ST_DOWN,        /* not running */
  ST_STARTING,    /* spawned, not ready yet */
  ST_UP,          /* ready (a oneshot: exited 0) */
  ST_STOPPING,    /* stop signal sent (a oneshot: stop-command running) */
  ST_BACKOFF,     /* died; waiting before the next start */
  ST_FAILED,      /* a privilege stage failed, the file was refused, or a
                     run failed that its restart policy does not restart:
                     no automatic retry */
  ST_ABORTING,    /* not ready within ready-timeout: stop signal sent, and
                     its end is a failure (status says "stopping") */
  ST_COUNT
};
extern char const *const state_names[];  /* one per state, checked: service.c */

enum event {
  EV_START,       /* wanted up, and its dependencies are: spawn it */
  EV_SPAWNED,     /* fork done */
  EV_SPAWN_FAILED,/* a stage before exec failed (arg: stage), or fork failed */
  EV_EXECED,      /* execve succeeded */
  EV_READY,       /* readiness: fd:N newline, READY=1 */
  EV_EXITED,      /* the main process ended (arg: wait status) */
  EV_TIMEOUT,     /* the service's deadline passed */
  EV_STOP,        /* begin stopping */
  EV_REFUSED,     /* its file is invalid: it fails without a start */
  EV_CLEARED,     /* wanted up again or stopped on purpose: a failure ends */
  EV_COUNT
};

/* Feed the machine one event (arg: see enum event). */
void service_event(service *s, enum event ev, int arg);
/* Down, failed or backing off, and no process of it left. */
int service_is_settled_down(service const *s);
/* Another service whose process runs with a card on s's PARENT and with
 * s's address, or NULL: s's start would take that address twice, which
 * the kernel does not refuse for macvlan (stage address does). */
service const *service_card_holder(service const *s);

#endif

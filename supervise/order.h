/* supervise/order.h -- wanted states and the dependency order (order.c). */
#ifndef CAPINIT_SUPERVISE_ORDER_H
#define CAPINIT_SUPERVISE_ORDER_H

#include "supervisor.h"

/* Want s up (and what it depends on) or down (and what depends on it). */
void service_want(service *s, int up);
/* capctl restart: stop it if it runs, then start it again (a refused one
 * stays as it is) */
void service_restart(service *s);
/* Start or stop this one service if its wanted state and dependencies
 * allow it now (service_settle_all() does the rest). */
void service_settle(supervisor const *sup, service *s);
/* Start and stop services until nothing more changes. */
void service_settle_all(supervisor const *sup);
/* The shutdown: every service wanted down, for good; then action (see
 * supervisor.action) once the loop sees them all down. */
void order_shutdown(supervisor *sup, int action, char const *why);

#endif

/* supervise/order.c -- the wanted states and the dependency order:
 * wanting a service up or down spreads along its dependencies, and a
 * settle step starts what is wanted up and whose dependencies are ready,
 * and stops what is wanted down, dependents first.  It feeds the state
 * machine events (service.c); it changes no current state itself. */
#include <signal.h>
#include <string.h>

#include "console.h"
#include "lookup.h"
#include "order.h"
#include "service.h"

static int depends_on(service const *s, service const *d)
{
  size_t i;
  for (i = 0; i < s->spec->ndepends; i++)
    if (!strcmp(s->spec->depends[i], d->spec->name)) return 1;
  return 0;
}

static int after(service const *s, service const *d)
{
  size_t i;
  for (i = 0; i < s->spec->nafter; i++)
    if (!strcmp(s->spec->after[i], d->spec->name)) return 1;
  return 0;
}

/* Wanting a service up wants what it depends on up; wanting it down
 * wants down what depends on it.  Each service is visited once per
 * request (mark), so a refused dependency cycle cannot loop. */
static void want(service *s, int up, unsigned mark)
{
  size_t i;
  if (s->mark == mark) return;
  s->mark = mark;
  if (up) {
    if (s->spec->refused) return;
    s->wanted_up = 1;
    s->explicit_down = 0;
    service_event(s, EV_CLEARED, 0);  /* wanted again: no longer a failure */
    for (i = 0; i < s->spec->ndepends; i++) {
      service *d = service_by_name(s->spec->depends[i]);
      if (d) want(d, 1, mark);
    }
  } else {
    s->wanted_up = 0;
    s->explicit_down = 1;
    for (i = 0; i < sv.n; i++)
      if (depends_on(sv.v[i], s)) want(sv.v[i], 0, mark);
  }
}

void service_restart(service *s)
{
  if (s->spec->refused) return;
  if (s->state == ST_UP || s->state == ST_STARTING) {
    s->wanted_up = 1;
    s->explicit_down = 0;
    service_event(s, EV_STOP, 0);  /* wanted up: it starts again once down */
  } else {
    service_want(s, 1);
  }
}

void service_want(service *s, int up)
{
  static unsigned mark;
  if (!++mark) ++mark;
  want(s, up, mark);
}

static int can_start(service const *s)
{
  size_t i;
  for (i = 0; i < s->spec->ndepends; i++) {
    service *d = service_by_name(s->spec->depends[i]);
    if (!d || d->state != ST_UP) return 0;
  }
  for (i = 0; i < s->spec->nafter; i++) {
    service *a = service_by_name(s->spec->after[i]);
    if (a && a->wanted_up && (a->state == ST_DOWN || a->state == ST_STARTING)) return 0;
  }
  return 1;
}

/* Whatever depends on s, or comes after it, stops first. */
static int can_stop(supervisor const *sup, service const *s)
{
  size_t i;
  for (i = 0; i < sup->n; i++) {
    service const *t = sup->v[i];
    if (t == s || service_is_settled_down(t)) continue;
    if (t->wanted_up && !sup->shutting_down) continue;  /* it stays: no order to keep */
    if (depends_on(t, s) || after(t, s)) return 0;
  }
  return 1;
}

static int settle_one(supervisor const *sup, service *s)
{
  if (s->wanted_up && !sup->shutting_down) {
    if (s->state == ST_DOWN && !s->pid && !s->stop_pid && can_start(s)) {
      service_event(s, EV_START, 0);
      return 1;
    }
    return 0;
  }
  if (s->state == ST_FAILED && !s->pid && s->explicit_down && !s->spec->refused) {
    service_event(s, EV_CLEARED, 0);  /* stopped on purpose: no longer a failure */
    return 1;
  }
  if ((s->state == ST_UP || s->state == ST_STARTING || s->state == ST_BACKOFF ||
       (s->state == ST_FAILED && s->pid)) && can_stop(sup, s)) {
    enum state before = s->state;
    service_event(s, EV_STOP, 0);
    return s->state != before;
  }
  return 0;
}

void service_settle(supervisor const *sup, service *s)
{
  settle_one(sup, s);
}

void service_settle_all(supervisor const *sup)
{
  int changed, rounds = 0;
  do {
    size_t i;
    changed = 0;
    for (i = 0; i < sup->n; i++) changed |= settle_one(sup, sup->v[i]);
  } while (changed && ++rounds < 1000);
}

void order_shutdown(supervisor *sup, int action, char const *why)
{
  size_t i;
  /* the main command first: its end stops the services */
  if (sup->main.pid > 0) {
    console_say("capinit: %s: SIGTERM to the main command\n", why);
    maincmd_signal(&sup->main, SIGTERM);
    return;
  }
  if (!sup->shutting_down)
    console_say("capinit: %s: stopping every service\n", why);
  sup->shutting_down = 1;
  if (sup->machine) sup->action = action;
  for (i = 0; i < sup->n; i++) sup->v[i]->wanted_up = 0;
}

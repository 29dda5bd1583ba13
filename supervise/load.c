/* supervise/load.c -- the set of services: (re)loading capinit.conf and
 * the service files, merging new services into sv.v (sorted by name),
 * reloading changed ones, forgetting removed ones. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "../conf/diag.h"
#include "../conf/state_guard.h"
#include "console.h"
#include "load.h"
#include "lookup.h"
#include "log.h"
#include "mkdir_p.h"
#include "notify.h"
#include "order.h"
#include "service.h"

void load_refuse_command(char const *path, char const *why)
{
  bad_command *v = realloc(sv.bad_commands, (sv.nbad_commands + 1) * sizeof *v);
  char *copy = v ? strdup(path) : 0;
  if (v) sv.bad_commands = v;
  if (!copy) {
    /* fail closed: a refusal that cannot be remembered refuses all */
    console_say("capinit: fatal: out of memory: every service is refused\n");
    sv.bad_commands_lost = 1;
    return;
  }
  v[sv.nbad_commands].path = copy;
  v[sv.nbad_commands++].why = why;
}

/* What the machine cannot give a spec: refuse it, with the reason. */
static char const *cannot_run(supervisor const *sup, svc const *spec)
{
  size_t i;
  if (sup->no_securebits && spec->securebits) return "the kernel has no per-process securebits";
  if (sup->no_ambient && spec->caps) return "the kernel has no ambient capabilities";
  if (sup->bad_commands_lost) return "out of memory at boot (the filecaps manifest's refusals are unknown)";
  for (i = 0; spec->argv && i < sup->nbad_commands; i++)
    if (!strcmp(spec->argv[0], sup->bad_commands[i].path)) return sup->bad_commands[i].why;
  return 0;
}

static service *service_new(supervisor const *sup, svc *spec)
{
  service *s = calloc(1, sizeof *s);
  if (!s) return 0;
  s->spec = spec;
  s->ready_pipe = s->notify_sock = s->reaper_fd = -1;
  s->log.pipe = s->log.wpipe = s->log.file = -1;
  s->last_status = -1;
  s->fail_stage = s->fail_errno = s->fail_arg = -1;
  s->backoff_ms = spec->restart_delay_ms;
  s->wanted_up = spec->enabled && !spec->refused;
  if (spec->refused) {
    service_event(s, EV_REFUSED, 0);
  } else if ((s->failure = cannot_run(sup, spec))) {
    console_say("capinit: service %s: refused: %s\n", spec->name, s->failure);
    spec->refused = 1;
    s->wanted_up = 0;
    service_event(s, EV_REFUSED, 0);
  }
  return s;
}

void service_forget(supervisor *sup, size_t i)
{
  service *s = sup->v[i];
  log_close(s);
  notify_close(s);
  if (s->ready_pipe >= 0) close(s->ready_pipe);
  if (s->reaper_fd >= 0) close(s->reaper_fd);
  svc_free(s->spec);
  svc_free(s->next_spec);
  free(s->status_text);
  free(s);
  memmove(sup->v + i, sup->v + i + 1, (sup->n - i - 1) * sizeof *sup->v);
  sup->n--;
}

static int spec_by_name(void const *a, void const *b)
{
  return strcmp((*(svc *const *)a)->name, (*(svc *const *)b)->name);
}

/* sup->v is sorted by name (service_by_name searches it).  Add the new
 * services fresh[0..n), themselves sorted by name, keeping the order.
 * -1 when out of memory: nothing added. */
static int merge_fresh(supervisor *sup, service **fresh, size_t n)
{
  static size_t cap;
  size_t i, j, k;
  if (!n) return 0;
  if (sup->n + n > cap) {
    size_t want = (sup->n + n) + (sup->n + n) / 2;
    service **v = realloc(sup->v, want * sizeof *v);
    if (!v) return -1;
    sup->v = v;
    cap = want;
  }
  /* from the end: no temporary array */
  i = sup->n;
  j = n;
  k = sup->n + n;
  while (j > 0) {
    if (i > 0 && strcmp(sup->v[i - 1]->spec->name, fresh[j - 1]->spec->name) > 0) sup->v[--k] = sup->v[--i];
    else sup->v[--k] = fresh[--j];
  }
  sup->n += n;
  return 0;
}

/* Out of memory for new services: they are not loaded (PID 1 goes on
 * with the ones it has). */
static void drop_fresh(service **fresh, size_t n)
{
  size_t i;
  for (i = 0; i < n; i++) {
    console_say("capinit: warning: service %s: out of memory: not loaded\n", fresh[i]->spec->name);
    svc_free(fresh[i]->spec);
    free(fresh[i]);
  }
}

/* capinit.conf: its settings, or the defaults (at the first load) or the
 * current ones (at a reload) if it has errors; the log directory. */
static void load_settings(supervisor *sup, int initial)
{
  diag_list diags = { 0, 0, 0 };
  conf_ctx ctx = { .root = "/", .diags = &diags, .command_optional = 0, .live = 1 };
  capinit_conf conf;
  struct stat st;
  char path[4096];
  capinit_conf_defaults(&conf);
  snprintf(path, sizeof path, "%s/capinit.conf", sup->confdir);
  /* stat, not access(): access() asks as the real uid, which is not 0
   * while capinit supervises (peer_shield) */
  if (stat(path, &st) == 0 && capinit_conf_load(&ctx, &conf, path) < 0) {
    console_diags(&diags);
    console_say("capinit: warning: %s has errors: %s\n", path,
                initial ? "using the defaults" : "keeping the current settings");
    capinit_conf_free(&conf);
    if (initial) capinit_conf_defaults(&sup->conf);
  } else {
    if (!initial) capinit_conf_free(&sup->conf);
    sup->conf = conf;
  }
  diag_free(&diags);
  if (mkdir_p(sup->conf.log_directory, 0755) < 0)
    console_say("capinit: warning: unable to create %s: %s (the services' log lines go to the console)\n",
                sup->conf.log_directory, strerror(errno));
}

/* A reloaded spec for a service capinit has: a running one takes it at its
 * next start; one settled down at once (a refused one fails, a fixed one
 * runs like a new one). */
static void reload_spec(service *s, svc *spec, char const *why)
{
  int was_refused = s->spec->refused;
  s->removed = 0;
  if (!service_is_settled_down(s)) {
    svc_free(s->next_spec);
    s->next_spec = spec;
    return;
  }
  svc_free(s->spec);
  svc_free(s->next_spec);
  s->next_spec = 0;
  s->spec = spec;
  if (spec->refused) {
    s->wanted_up = 0;
    s->failure = why ? why : "invalid service file (capctl check)";
    service_event(s, EV_REFUSED, 0);
  } else if (was_refused) {
    s->failure = 0;
    service_event(s, EV_CLEARED, 0);
    s->wanted_up = spec->enabled;
    s->explicit_down = 0;
  }
}

/* The services' files, read and checked together; sorted by name (file
 * names sort "a-b.svc" before "a.svc").  -1: the directory is unreadable. */
static int load_specs(supervisor const *sup, int initial, svc_set *set)
{
  diag_list diags = { 0, 0, 0 };
  /* no service may write what capinit itself reads and writes */
  capinit_state const state = { sup->confdir, sup->rundir, sup->conf.log_directory };
  conf_ctx ctx = { .root = "/", .diags = &diags, .command_optional = 0, .live = 1, .state = &state };
  size_t j;
  if (svc_set_load_dir(&ctx, set, sup->confdir) < 0) {
    console_say("capinit: %s: unable to read %s/services: %s\n",
                initial ? "fatal" : "warning", sup->confdir, strerror(errno));
    diag_free(&diags);
    return -1;
  }
  svc_set_validate(&ctx, set);
  console_diags(&diags);
  diag_free(&diags);
  for (j = 0; j < set->n; j++) svc_drop_lines(set->v[j]);
  if (set->n > 1) qsort(set->v, set->n, sizeof *set->v, spec_by_name);
  return 0;
}

/* (Re)read the configuration: new services start, removed ones stop,
 * changed ones take effect at their next start. */
int load_services(supervisor *sup, int initial)
{
  svc_set set = { 0, 0 };
  service **fresh = 0;
  size_t i, j, nfresh = 0;

  load_settings(sup, initial);
  if (load_specs(sup, initial, &set) < 0) return -1;
  for (i = 0; i < sup->n; i++) sup->v[i]->removed = 1;
  if (set.n) fresh = malloc(set.n * sizeof *fresh);
  for (j = 0; j < set.n; j++) {
    svc *spec = set.v[j];
    service *s = service_by_name(spec->name);
    char const *why;
    /* equal names: only the empty name of refused files; the last wins */
    if (j + 1 < set.n && !strcmp(spec->name, set.v[j + 1]->name)) {
      svc_free(spec);
      continue;
    }
    why = spec->refused ? 0 : cannot_run(sup, spec);
    if (why && s) {
      console_say("capinit: service %s: refused: %s\n", spec->name, why);
      spec->refused = 1;
    }
    if (s) reload_spec(s, spec, why);
    else if ((s = fresh ? service_new(sup, spec) : 0)) fresh[nfresh++] = s;
    else {
      console_say("capinit: warning: service %s: out of memory: not loaded\n", spec->name);
      svc_free(spec);
    }
  }
  free(set.v);
  if (merge_fresh(sup, fresh, nfresh) < 0) {
    drop_fresh(fresh, nfresh);
    nfresh = 0;
  }
  /* an enabled service brings up what it depends on, enabled or not */
  for (i = 0; i < nfresh; i++)
    if (fresh[i]->wanted_up) service_want(fresh[i], 1);
  free(fresh);
  for (i = 0; i < sup->n; i++)
    if (sup->v[i]->removed) service_want(sup->v[i], 0);
  return 0;
}

/* supervise/control_dispatch.c -- one control request
 * (control_client.h): parsed against the verb table (conf/control_verbs.c),
 * the peer's rights checked, then the verb's work and its replies. */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/reboot.h>

#include "../conf/names.h"
#include "../conf/control_verbs.h"
#include "control_client.h"
#include "load.h"
#include "lookup.h"
#include "log.h"
#include "order.h"
#include "command.h"
#include "supervisor.h"

static int find_all(client *c, char **args, size_t n, service **out)
{
  size_t i;
  for (i = 0; i < n; i++) {
    out[i] = service_by_name(args[i]);
    if (!out[i]) {
      client_reply(c, "error: unknown service '%.64s'", args[i]);
      return -1;
    }
  }
  return 0;
}

/* One verb's work: its service arguments found (targets[0..n)), its
 * words in args (args[0] the verb). */
typedef struct verb_call_s {
  client *c;
  char **args;
  service **targets;
  size_t n;
} verb_call;

static void verb_status(verb_call const *v)
{
  size_t i;
  if (!v->n) for (i = 0; i < sv.n; i++) record_status(v->c, sv.v[i]);
  for (i = 0; i < v->n; i++) record_status(v->c, v->targets[i]);
  client_reply(v->c, "ok");
}

static void verb_start(verb_call const *v)
{
  size_t i;
  for (i = 0; i < v->n; i++) {
    if (v->targets[i]->spec->refused) {
      client_reply(v->c, "error: service '%s' is refused: its file has errors (capctl check)",
                   v->targets[i]->spec->name);
      return;
    }
  }
  for (i = 0; i < v->n; i++) service_want(v->targets[i], 1);
  client_reply(v->c, "ok");
}

static void verb_stop(verb_call const *v)
{
  for (size_t i = 0; i < v->n; i++) service_want(v->targets[i], 0);
  client_reply(v->c, "ok");
}

static void verb_restart(verb_call const *v)
{
  for (size_t i = 0; i < v->n; i++) service_restart(v->targets[i]);
  client_reply(v->c, "ok");
}

static void verb_signal(verb_call const *v)
{
  int sig = signal_from_name(v->args[1]);
  size_t i;
  if (sig < 0) {
    client_reply(v->c, "error: unknown signal '%.32s'", v->args[1]);
    return;
  }
  if (find_all(v->c, v->args + 2, v->n - 1, v->targets) < 0) return;
  for (i = 0; i + 1 < v->n; i++)
    if (v->targets[i]->pid > 0) service_signal(v->targets[i], sig);
  client_reply(v->c, "ok");
}

static void verb_reload(verb_call const *v)
{
  if (load_services(&sv, 0) < 0) client_reply(v->c, "error: unable to read %s/services", sv.confdir);
  else client_reply(v->c, "ok");
}

static void verb_log(verb_call const *v)
{
  char path[4096];
  char const *values[RF_COUNT] = { 0 };
  service const *s = v->targets[0];
  if (log_file_path(s, path, sizeof path) < 0) {
    client_reply(v->c, "error: log path too long");
    return;
  }
  values[RF_PATH] = path;
  values[RF_LOG] = vocab_name(log_names, (int)s->spec->log);
  client_record(v->c, 0, log_fields, 2, values);
  client_reply(v->c, "ok");
}

static void verb_power(verb_call const *v)
{
  char why[64];
  char const *verb = v->args[0];
  snprintf(why, sizeof why, "capctl %s", verb);
  order_shutdown(&sv, !strcmp(verb, "poweroff") ? RB_POWER_OFF : !strcmp(verb, "halt") ? RB_HALT_SYSTEM : RB_AUTOBOOT, why);
  v->c->asked_power = 1;
  client_reply(v->c, "ok");
}

static void verb_blame(verb_call const *v)
{
  record_blame(v->c);
  client_reply(v->c, "ok");
}

/* capctl verify judges; capinit says what only it knows */
static void verb_verify_facts(verb_call const *v)
{
  size_t i;
  record_facts_capinit(v->c);
  if (!v->n) for (i = 0; i < sv.n; i++) record_facts(v->c, sv.v[i]);
  for (i = 0; i < v->n; i++) record_facts(v->c, v->targets[i]);
  client_reply(v->c, "ok");
}

/* capinit's work for each verb of the table (conf/control_verbs.c, which
 * capctl shares: it has no handlers) */
static struct {
  char const *name;
  void (*run)(verb_call const *);
} const verb_work[] = {
  { "status", verb_status }, { "start", verb_start }, { "stop", verb_stop }, { "restart", verb_restart },
  { "signal", verb_signal }, { "reload", verb_reload }, { "log", verb_log }, { "poweroff", verb_power },
  { "reboot", verb_power }, { "halt", verb_power }, { "blame", verb_blame }, { "verify-facts", verb_verify_facts },
};

static int may(client const *c, control_verb const *verb)
{
  if (!verb->changes) return c->may_read;
  if (verb->changes == VERB_ROOT_READS) return c->may_read_files;
  return c->may_change || (verb->changes == VERB_POWER && c->may_power);
}

void control_dispatch(client *c, char const *msg, size_t len)
{
  static control_request r;
  service *targets[CONTROL_ARGS_MAX];
  char err[256];
  verb_call v;

  if (control_parse(msg, len, &r, err, sizeof err) < 0) {
    client_reply(c, "%s", err);
    return;
  }
  if (!may(c, r.verb)) {
    client_reply(c, "error: permission denied: %s",
                 r.verb->changes == VERB_POWER ? "only root or the power group may power off, reboot or halt"
                 : r.verb->changes == VERB_ROOT_READS ? "only uid 0 may verify (it is told digests of the service files)"
                 : r.verb->changes ? "only root with capinit's own power, in its user and PID namespaces, may change services" : "not in the control group");
    return;
  }
  v.c = c;
  v.args = r.argv;
  v.targets = targets;
  v.n = (size_t)r.argc - 1;  /* arguments after the verb */
  /* signal's first argument is the signal: it finds its services itself */
  if (find_all(c, v.args + 1, (!strcmp(r.verb->name, "signal") && v.n) ? 0 : v.n, targets) < 0) return;
  for (size_t i = 0; i < sizeof verb_work / sizeof *verb_work; i++) {
    if (!strcmp(verb_work[i].name, r.verb->name)) {
      verb_work[i].run(&v);
      return;
    }
  }
  client_reply(c, "error: capinit has no work for verb '%s'", r.verb->name);
}

/* supervise/control_dispatch.c -- one control request
 * (control_client.h): parsed against the verb table (control_verbs.c),
 * the peer's rights checked, then the verb's work and its replies. */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/reboot.h>

#include "../conf/names.h"
#include "control.h"
#include "control_client.h"
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

void control_dispatch(client *c, char const *msg, size_t len)
{
  static control_request r;
  service *targets[CONTROL_ARGS_MAX];
  char err[256];
  char **args;
  char const *verb;
  size_t n, i;

  if (control_parse(msg, len, &r, err, sizeof err) < 0) {
    client_reply(c, "%s", err);
    return;
  }
  if (r.verb->changes ? !c->may_change && !(r.verb->changes == VERB_POWER && c->may_power) : !c->may_read) {
    client_reply(c, "error: permission denied: %s",
                 r.verb->changes == VERB_POWER ? "only root or the power group may power off, reboot or halt"
                 : r.verb->changes ? "only root may change services" : "not in the control group");
    return;
  }
  verb = r.verb->name;
  n = (size_t)r.argc - 1;  /* arguments after the verb */
  args = r.argv;
  if (find_all(c, args + 1, (!strcmp(verb, "signal") && n) ? 0 : n, targets) < 0) return;

  if (!strcmp(verb, "status")) {
    if (!n) for (i = 0; i < sv.n; i++) record_status(c, sv.v[i]);
    for (i = 0; i < n; i++) record_status(c, targets[i]);
    client_reply(c, "ok");
  } else if (!strcmp(verb, "start")) {
    for (i = 0; i < n; i++) {
      if (targets[i]->spec->refused) {
        client_reply(c, "error: service '%s' is refused: its file has errors (capctl check)", targets[i]->spec->name);
        return;
      }
    }
    for (i = 0; i < n; i++) service_want(targets[i], 1);
    client_reply(c, "ok");
  } else if (!strcmp(verb, "stop")) {
    for (i = 0; i < n; i++) service_want(targets[i], 0);
    client_reply(c, "ok");
  } else if (!strcmp(verb, "restart")) {
    for (i = 0; i < n; i++) {
      service *s = targets[i];
      if (s->spec->refused) continue;
      if (s->state == ST_UP || s->state == ST_STARTING) {
        s->wanted_up = 1;
        s->explicit_down = 0;
        service_event(s, EV_STOP, 0);  /* wanted up: it starts again once down */
      } else {
        service_want(s, 1);
      }
    }
    client_reply(c, "ok");
  } else if (!strcmp(verb, "signal")) {
    int sig = signal_from_name(args[1]);
    if (sig < 0) {
      client_reply(c, "error: unknown signal '%.32s'", args[1]);
      return;
    }
    if (find_all(c, args + 2, n - 1, targets) < 0) return;
    for (i = 0; i + 1 < n; i++)
      if (targets[i]->pid > 0) service_signal(targets[i], sig);
    client_reply(c, "ok");
  } else if (!strcmp(verb, "reload")) {
    if (supervisor_load(0) < 0) client_reply(c, "error: unable to read %s/services", sv.confdir);
    else client_reply(c, "ok");
  } else if (!strcmp(verb, "log")) {
    char path[4096];
    if (log_file_path(targets[0], path, sizeof path) < 0) client_reply(c, "error: log path too long");
    else {
      client_reply(c, "path=%s\tlog=%s", path,
                   targets[0]->spec->log == LOG_FILE ? "file" : targets[0]->spec->log == LOG_CONSOLE ? "console" :
                   targets[0]->spec->log == LOG_KMSG ? "kmsg" : "none");
      client_reply(c, "ok");
    }
  } else if (!strcmp(verb, "poweroff") || !strcmp(verb, "reboot") || !strcmp(verb, "halt")) {
    char why[64];
    snprintf(why, sizeof why, "capctl %s", verb);
    supervisor_shutdown(!strcmp(verb, "poweroff") ? RB_POWER_OFF : !strcmp(verb, "halt") ? RB_HALT_SYSTEM : RB_AUTOBOOT, why);
    client_reply(c, "ok");
  } else if (!strcmp(verb, "blame")) {
    record_blame(c);
    client_reply(c, "ok");
  } else if (!strcmp(verb, "verify")) {
    unsigned bad = 0;
    proc_table procs;
    if (proc_table_read(&procs) < 0) {
      client_reply(c, "error: unable to read /proc: %s", strerror(errno));
      return;
    }
    if (!n) for (i = 0; i < sv.n; i++) bad += (unsigned)control_verify_one(c, sv.v[i], &procs);
    for (i = 0; i < n; i++) bad += (unsigned)control_verify_one(c, targets[i], &procs);
    proc_table_free(&procs);
    if (bad) client_reply(c, "error: %u service%s differ%s from the prediction", bad, bad == 1 ? "" : "s", bad == 1 ? "s" : "");
    else client_reply(c, "ok");
  }
}

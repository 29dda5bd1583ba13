/* supervise/service.c -- the state machine of one service.
 *
 * A table of states by events, actions[][] (in the manner of
 * s6-supervise's): each cell is one small named action.  set_state() is
 * the one place where a current state changes, and only these actions
 * call it, so the times a service came up or went down are always
 * stamped.  The processes themselves are spawn.c's: this file makes no
 * system call on them (tests/unit/test_machine.c runs it alone). */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <stdarg.h>
#include <sys/wait.h>

#include "../conf/names.h"
#include "../inspect/clock.h"
#include "console.h"
#include "log.h"
#include "../engine/privilege.h"
#include "service.h"
#include "spawn.h"
#include "notify.h"
#include "../inspect/procfs.h"
#include "../engine/reaper.h"
#include "supervisor.h"

char const *const state_names[] = {
  "down", "starting", "up", "stopping", "backoff", "failed",
  "stopping",  /* ST_ABORTING: capctl status says stopping */
};
_Static_assert(sizeof state_names / sizeof state_names[0] == ST_COUNT, "a name for each state of enum state");

#define HEALTHY_RUN_MS 1000u
#define KILL_GRACE_MS 5000u

static void say(service *s, char const *level, char const *fmt, ...) __attribute__((format(printf, 3, 4)));
static void say(service *s, char const *level, char const *fmt, ...)
{
  char text[512];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(text, sizeof text, fmt, ap);
  va_end(ap);
  console_say("capinit: service %s: %s%s\n", s->spec->name, level, text);
  log_line(s, "capinit: %s%s", level, text);
}

/* A line on capinit's stderr (the console of a machine) only, not in the
 * service's log: stops, so that a shutdown shows its order. */
static void note(service *s, char const *what)
{
  console_say("capinit: service %s: %s\n", s->spec->name, what);
}

static void set_state(service *s, enum state st)
{
  if (s->state == st) return;
  s->state = st;
  if (st == ST_UP) s->up_at = now_ms();
  if (st == ST_DOWN || st == ST_FAILED || st == ST_BACKOFF) s->down_at = now_ms();
}

service const *service_card_holder(service const *s)
{
  svc_container const *ct = s->spec->ct, *o;
  size_t i;
  if (!container_card(ct)) return 0;
  for (i = 0; i < sv.n; i++) {
    if (sv.v[i] == s || sv.v[i]->pid <= 0 || !sv.v[i]->spec) continue;
    o = sv.v[i]->spec->ct;
    if (container_card(o) && o->address.s_addr == ct->address.s_addr && !strcmp(o->parent, ct->parent)) return sv.v[i];
  }
  return 0;
}

/* A refusal at stage address for another running service's card names it */
static void say_stage(service *s, char const *level, char const *what_failed, priv_fail const *f)
{
  char why[512];
  service const *h = f->stage == STAGE_ADDRESS && f->err == EADDRINUSE ? service_card_holder(s) : 0;
  say(s, level, "%s at stage %s: %s%s%s%s", what_failed, stage_name(f->stage), priv_fail_reason(f, s->spec, why, sizeof why),
      h ? "; that card is service " : "", h ? h->spec->name : "", h ? "'s" : "");
}

static void describe_exit(service *s, int status)
{
  if (WIFEXITED(status))
    say(s, "", "exited %d after %llu ms", WEXITSTATUS(status),
        (unsigned long long)(now_ms() - s->spawned_at));
  else if (WIFSIGNALED(status))
    say(s, "", "killed by SIG%s after %llu ms",
        signal_name(WTERMSIG(status)) ? signal_name(WTERMSIG(status)) : "?",
        (unsigned long long)(now_ms() - s->spawned_at));
}

static int failed_exit(int status)
{
  return !WIFEXITED(status) || WEXITSTATUS(status) != 0;
}

/* A temporary shortage, not a property of the spec: retried. */
static int shortage(int e)
{
  return e == EMFILE || e == ENFILE || e == ENOMEM || e == EAGAIN;
}

/* After a run that ended (failed: a death, an exit status but 0, not
 * ready in time, or no start at all): start again, now or after a
 * backoff, or rest (down, or failed, then for why if it is given). */
static void restart_or_rest(service *s, int failed, char const *why)
{
  svc const *spec = s->spec;
  uint64_t ran = now_ms() - s->spawned_at;

  if (sv.shutting_down || !s->wanted_up || spec->restart == RESTART_NEVER ||
      (spec->restart == RESTART_ON_FAILURE && !failed)) {
    if (failed && s->wanted_up && !sv.shutting_down) {
      if (why) s->failure = why;
      set_state(s, ST_FAILED);
    } else {
      if (s->wanted_up && !failed) s->wanted_up = 0;  /* done, as asked */
      set_state(s, ST_DOWN);
    }
    return;
  }
  s->restarts++;
  if (ran >= HEALTHY_RUN_MS) {
    s->backoff_ms = spec->restart_delay_ms;
    set_state(s, ST_DOWN);  /* service_settle_all() starts it at once */
    return;
  }
  if (!s->backoff_ms) s->backoff_ms = spec->restart_delay_ms;
  s->deadline = now_ms() + s->backoff_ms;
  say(s, "", "died after %llu ms: restarting in %u ms", (unsigned long long)ran, (unsigned)s->backoff_ms);
  s->backoff_ms = s->backoff_ms > spec->restart_delay_max_ms / 2 ? spec->restart_delay_max_ms
                                                                 : s->backoff_ms * 2;
  if (s->backoff_ms < spec->restart_delay_ms) s->backoff_ms = spec->restart_delay_ms;
  set_state(s, ST_BACKOFF);
}

/* The end of a run: its process and what it left. */
static void end_run(service *s, int status)
{
  s->last_status = status;
  spawn_end(s);
  s->pid = 0;
  s->deadline = 0;
}

/* Signal the stop and wait stop-timeout for the end, in state st. */
static void signal_stop(service *s, enum state st)
{
  set_state(s, st);
  service_signal_group(s, s->spec->stop_signal);
  s->deadline = now_ms() + s->spec->stop_timeout_ms;
}

/* A reloaded spec takes effect when the service is not running. */
static void take_next_spec(service *s)
{
  if (!s->next_spec) return;
  svc_free(s->spec);
  s->spec = s->next_spec;
  s->next_spec = 0;
}

/* ------------------------------------------------------------ the actions
 * Each is one cell (or a few) of actions[][] below; arg is the event's. */

typedef void action(service *s, int arg);

/* what does not happen, or changes nothing, in that state */
static void nop(service *s, int arg) { (void)s; (void)arg; }

/* DOWN x START: spawn the command; its outcome comes back as events */
static void start(service *s, int arg)
{
  priv_fail f;
  take_next_spec(s);
  if (s->spec->refused) {
    service_event(s, EV_REFUSED, 0);
    return;
  }
  s->fail_stage = s->fail_errno = s->fail_arg = -1;
  s->failure = 0;
  free(s->status_text);
  s->status_text = 0;
  s->spawned_at = now_ms();
  s->pid = spawn(&sv, s, s->spec->argv, 1, &f);
  if (s->pid < 0) {
    s->pid = 0;
    s->fail_errno = errno;
    say(s, "warning: ", "unable to spawn: %s", strerror(errno));
    service_event(s, EV_SPAWN_FAILED, -1);
    return;
  }
  service_event(s, EV_SPAWNED, 0);
  if (f.stage >= 0 && f.stage < STAGE_COUNT) {
    s->fail_errno = f.err;
    s->fail_arg = f.arg;
    s->failure = "a privilege stage failed";
    service_event(s, EV_SPAWN_FAILED, f.stage);
  } else {
    service_event(s, EV_EXECED, 0);
  }
}

/* DOWN x SPAWNED */
static void starting(service *s, int arg)
{
  set_state(s, ST_STARTING);
  s->deadline = s->spec->ready_timeout_ms ? now_ms() + s->spec->ready_timeout_ms : 0;
}

/* DOWN (no child: stage -1) and STARTING (a stage failed) x SPAWN_FAILED */
static void spawn_failed(service *s, int stage)
{
  priv_fail f = { stage, s->fail_errno, s->fail_arg };
  if (stage < 0) {
    restart_or_rest(s, 1, 0);  /* a temporary shortage: back off, retry */
    return;
  }
  if (shortage(s->fail_errno)) {
    /* out of descriptors, memory or processes: not the spec's fault;
     * the child's exit (EV_EXITED) backs off and retries */
    say_stage(s, "warning: ", "start failed", &f);
    return;
  }
  say_stage(s, "fatal: ", "start failed", &f);
  s->fail_stage = stage;
  /* deterministic: no automatic retry (capctl start tries again) */
  set_state(s, ST_FAILED);
  s->deadline = 0;
}

/* STARTING x READY: a longrun is up (a oneshot is up when it exits 0) */
static void ready(service *s, int arg)
{
  if (s->spec->type != SVC_LONGRUN) return;
  set_state(s, ST_UP);
  s->deadline = 0;
}

/* STARTING x EXECED: ready = exec */
static void ready_at_exec(service *s, int arg)
{
  if (s->spec->ready == READY_EXEC) ready(s, arg);
}

/* DOWN, UP, BACKOFF x EXITED: a death, or a oneshot's end */
static void exited(service *s, int status)
{
  end_run(s, status);
  describe_exit(s, status);
  restart_or_rest(s, failed_exit(status), 0);
}

/* STARTING x EXITED: a oneshot that exits 0 is up */
static void exited_starting(service *s, int status)
{
  if (s->spec->type == SVC_ONESHOT && !failed_exit(status)) {
    end_run(s, status);
    set_state(s, ST_UP);
    return;
  }
  exited(s, status);
}

/* STOPPING x EXITED: stopped (a oneshot's stop-command ended) */
static void exited_stopping(service *s, int status)
{
  if (s->stop_pid && status >= 0 && s->spec->type == SVC_ONESHOT) {
    s->stop_pid = 0;
    if (failed_exit(status))
      say(s, "warning: ", "stop-command failed (%s %d)", WIFEXITED(status) ? "exit" : "signal",
          WIFEXITED(status) ? WEXITSTATUS(status) : WTERMSIG(status));
  } else {
    end_run(s, status);
  }
  note(s, "stopped");
  set_state(s, ST_DOWN);
  s->deadline = 0;
}

/* ABORTING x EXITED: a start that was not ready in time has failed */
static void exited_aborting(service *s, int status)
{
  end_run(s, status);
  describe_exit(s, status);
  restart_or_rest(s, 1, "not ready within ready-timeout");
}

/* FAILED x EXITED: the engine's child, whose failure was reported */
static void exited_failed(service *s, int status)
{
  end_run(s, status);
}

/* DOWN, UP, FAILED x TIMEOUT: no timer runs in these states */
static void drop_deadline(service *s, int arg)
{
  s->deadline = 0;
}

/* BACKOFF x TIMEOUT: the backoff is over */
static void end_backoff(service *s, int arg)
{
  s->deadline = 0;
  set_state(s, ST_DOWN);
}

/* STARTING x TIMEOUT: not ready within ready-timeout: stopped, and its
 * end is a failure (ABORTING) */
static void abort_start(service *s, int arg)
{
  svc const *spec = s->spec;
  say(s, "warning: ", "not %s after %u ms: stopping it",
      spec->type == SVC_ONESHOT ? "finished" : "ready", (unsigned)spec->ready_timeout_ms);
  signal_stop(s, ST_ABORTING);
}

/* STOPPING, ABORTING x TIMEOUT: still running after stop-timeout */
static void kill_all(service *s, int arg)
{
  svc const *spec = s->spec;
  say(s, "warning: ", "still running %u ms after SIG%s: sending SIGKILL to its process group",
      (unsigned)spec->stop_timeout_ms, signal_name(spec->stop_signal));
  service_signal_group(s, SIGKILL);
  service_kill_stop_command(s);
  s->deadline = now_ms() + KILL_GRACE_MS;
}

/* STARTING x STOP, and UP x STOP of a longrun: the stop signal */
static void stop_running(service *s, int arg)
{
  char what[64];
  snprintf(what, sizeof what, "stopping (SIG%s)", signal_name(s->spec->stop_signal));
  note(s, what);
  signal_stop(s, ST_STOPPING);
}

/* UP x STOP of a oneshot: its stop-command, if it has one */
static void stop_oneshot(service *s)
{
  svc const *spec = s->spec;
  priv_fail f;
  pid_t pid;
  if (!spec->stop_argv) {
    note(s, "stopped");
    set_state(s, ST_DOWN);
    return;
  }
  pid = spawn(&sv, s, spec->stop_argv, 0, &f);
  if (pid < 0) {
    say(s, "warning: ", "unable to spawn the stop-command: %s", strerror(errno));
    set_state(s, ST_DOWN);
    return;
  }
  if (f.stage >= 0 && f.stage < STAGE_COUNT) say_stage(s, "warning: ", "stop-command failed", &f);
  note(s, "stopping (stop-command)");
  s->stop_pid = pid;
  set_state(s, ST_STOPPING);
  s->deadline = now_ms() + spec->stop_timeout_ms;
}

/* UP x STOP */
static void stop_up(service *s, int arg)
{
  if (s->spec->type == SVC_ONESHOT) stop_oneshot(s);
  else stop_running(s, arg);
}

/* BACKOFF, FAILED x STOP: nothing runs (a failed engine child is
 * reaped in DOWN) */
static void rest(service *s, int arg)
{
  set_state(s, ST_DOWN);
  s->deadline = 0;
}

/* any state x REFUSED: fail closed: a file that became invalid never runs */
static void refuse(service *s, int arg)
{
  s->failure = s->failure ? s->failure : "invalid service file (capctl check)";
  set_state(s, ST_FAILED);
}

/* FAILED x CLEARED: wanted up again, or stopped on purpose */
static void clear(service *s, int arg)
{
  if (!s->pid) set_state(s, ST_DOWN);
}

/* A cell no event reaches in that state is nop: START comes from the
 * settle step for a service that is down; SPAWNED, SPAWN_FAILED and
 * EXECED from start(); READY from a starting service's pipe or socket;
 * REFUSED from start() and a (re)load of a service that is down, failed
 * or backing off, and refuses in any state all the same. */
static action *const actions[ST_COUNT][EV_COUNT] = {
  /*              START  SPAWNED   SPAWN_FAILED  EXECED         READY  EXITED           TIMEOUT        STOP          REFUSED CLEARED */
  [ST_DOWN]     = { start, starting, spawn_failed, nop,          nop,   exited,          drop_deadline, nop,          refuse, nop },
  [ST_STARTING] = { nop,   nop,      spawn_failed, ready_at_exec, ready, exited_starting, abort_start,   stop_running, refuse, nop },
  [ST_UP]       = { nop,   nop,      nop,          nop,          nop,   exited,          drop_deadline, stop_up,      refuse, nop },
  [ST_STOPPING] = { nop,   nop,      nop,          nop,          nop,   exited_stopping, kill_all,      nop,          refuse, nop },
  [ST_BACKOFF]  = { nop,   nop,      nop,          nop,          nop,   exited,          end_backoff,   rest,         refuse, nop },
  [ST_FAILED]   = { nop,   nop,      nop,          nop,          nop,   exited_failed,   drop_deadline, rest,         refuse, clear },
  [ST_ABORTING] = { nop,   nop,      nop,          nop,          nop,   exited_aborting, kill_all,      nop,          refuse, nop },
};

void service_event(service *s, enum event ev, int arg)
{
  actions[s->state][ev](s, arg);
}

int service_is_settled_down(service const *s)
{
  return (s->state == ST_DOWN || s->state == ST_FAILED || s->state == ST_BACKOFF) &&
         !s->pid && !s->stop_pid;
}

/* Unit tests: the state machine of one service (supervise/service.c),
 * alone.  Its processes are stubbed at the link: spawn() and the signals
 * of supervise/spawn.c record what they were asked and touch no process,
 * and the clock stands still.
 *
 * Every (state, event) cell of actions[][] has at least one case below
 * (checked at the end, the control: a cell left out fails), some several
 * (a oneshot, ready = exec, restart = never, a short run, a failed
 * spawn...).  Each case starts a service in a state, feeds it one event,
 * and asserts the next state, what was done to its processes or said
 * (in order), and its deadline. */
#include <errno.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "../../conf/stages.h"
#include "../../engine/privilege.h"
#include "../../inspect/clock.h"
#include "../../supervise/console.h"
#include "../../supervise/log.h"
#include "../../supervise/service.h"
#include "../../supervise/spawn.h"
#include "t.h"

/* ---------------------------------------------------------- the stubs */

supervisor sv;
static uint64_t now = 100000;
static char did[256];  /* what the machine did, word by word */
static int variant;

enum {
  V_ONESHOT = 1, V_EXEC = 2, V_NEVER = 4, V_SHORT = 8, V_PID = 16, V_NOPID = 32,
  V_STOPCMD = 64, V_STOPPID = 128, V_FORKFAIL = 256, V_STAGE = 512, V_SHORTAGE = 1024,
  V_REFUSED = 2048, V_SHUTDOWN = 4096,
};

static void record(char const *word)
{
  size_t n = strlen(did);
  snprintf(did + n, sizeof did - n, "%s%s", n ? " " : "", word);
}

uint64_t now_ms(void) { return now; }
void console_say(char const *fmt, ...) { record("con"); }
void log_line(service *s, char const *fmt, ...) { record("log"); }

char *priv_fail_reason(priv_fail const *f, svc const *s, char *buf, size_t len)
{
  snprintf(buf, len, "stage %d", f->stage);
  return buf;
}

pid_t spawn(supervisor const *sup, service *s, char **argv, int with_readiness, priv_fail *f)
{
  record(argv == s->spec->stop_argv ? "spawn-stop" : "spawn");
  f->stage = variant & V_STAGE ? STAGE_COUNT - 1 : -1;
  f->err = variant & V_SHORTAGE ? EMFILE : EPERM;
  f->arg = -1;
  if (variant & V_FORKFAIL) {
    errno = EAGAIN;
    return -1;
  }
  return 200;
}

void spawn_end(service *s) { record("end"); }

void service_signal_group(service const *s, int sig)
{
  char w[16];
  snprintf(w, sizeof w, "sig%d", sig);
  record(w);
}

void service_kill_stop_command(service const *s) { record("killstop"); }

/* ---------------------------------------------------------- the cases */

typedef struct cell_s {
  enum state from;
  enum event ev;
  int arg;
  int variant;
  enum state to;
  char const *did;
  int deadline;   /* after the event, relative to now; 42 is the one set before */
} cell;

#define EXIT(n) ((n) << 8)
#define D 42

static cell const cells[] = {
  /* DOWN */
  { ST_DOWN, EV_START, 0, 0, ST_STARTING, "spawn", 500 },
  { ST_DOWN, EV_START, 0, V_EXEC, ST_UP, "spawn", 0 },
  { ST_DOWN, EV_START, 0, V_FORKFAIL, ST_BACKOFF, "spawn con log con log", 100 },
  { ST_DOWN, EV_START, 0, V_STAGE, ST_FAILED, "spawn con log", 0 },
  { ST_DOWN, EV_START, 0, V_STAGE | V_SHORTAGE, ST_STARTING, "spawn con log", 500 },
  { ST_DOWN, EV_START, 0, V_REFUSED, ST_FAILED, "", D },
  { ST_DOWN, EV_SPAWNED, 0, 0, ST_STARTING, "", 500 },
  { ST_DOWN, EV_SPAWN_FAILED, -1, 0, ST_DOWN, "", D },
  { ST_DOWN, EV_SPAWN_FAILED, -1, V_SHORT, ST_BACKOFF, "con log", 100 },
  { ST_DOWN, EV_EXECED, 0, 0, ST_DOWN, "", D },
  { ST_DOWN, EV_READY, 0, 0, ST_DOWN, "", D },
  { ST_DOWN, EV_EXITED, EXIT(1), V_PID, ST_DOWN, "end con log", 0 },
  { ST_DOWN, EV_TIMEOUT, 0, 0, ST_DOWN, "", 0 },
  { ST_DOWN, EV_STOP, 0, 0, ST_DOWN, "", D },
  { ST_DOWN, EV_REFUSED, 0, 0, ST_FAILED, "", D },
  { ST_DOWN, EV_CLEARED, 0, 0, ST_DOWN, "", D },
  /* STARTING */
  { ST_STARTING, EV_START, 0, 0, ST_STARTING, "", D },
  { ST_STARTING, EV_SPAWNED, 0, 0, ST_STARTING, "", D },
  { ST_STARTING, EV_SPAWN_FAILED, 3, 0, ST_FAILED, "con log", 0 },
  { ST_STARTING, EV_SPAWN_FAILED, 3, V_SHORTAGE, ST_STARTING, "con log", D },
  { ST_STARTING, EV_EXECED, 0, 0, ST_STARTING, "", D },
  { ST_STARTING, EV_EXECED, 0, V_EXEC, ST_UP, "", 0 },
  { ST_STARTING, EV_EXECED, 0, V_EXEC | V_ONESHOT, ST_STARTING, "", D },
  { ST_STARTING, EV_READY, 0, 0, ST_UP, "", 0 },
  { ST_STARTING, EV_READY, 0, V_ONESHOT, ST_STARTING, "", D },
  { ST_STARTING, EV_EXITED, EXIT(0), 0, ST_DOWN, "end con log", 0 },
  { ST_STARTING, EV_EXITED, EXIT(0), V_ONESHOT, ST_UP, "end", 0 },
  { ST_STARTING, EV_EXITED, EXIT(1), V_ONESHOT | V_NEVER, ST_FAILED, "end con log", 0 },
  { ST_STARTING, EV_TIMEOUT, 0, 0, ST_ABORTING, "con log sig15", 300 },
  { ST_STARTING, EV_STOP, 0, 0, ST_STOPPING, "con sig15", 300 },
  { ST_STARTING, EV_REFUSED, 0, 0, ST_FAILED, "", D },
  { ST_STARTING, EV_CLEARED, 0, 0, ST_STARTING, "", D },
  /* UP */
  { ST_UP, EV_START, 0, 0, ST_UP, "", D },
  { ST_UP, EV_SPAWNED, 0, 0, ST_UP, "", D },
  { ST_UP, EV_SPAWN_FAILED, 3, 0, ST_UP, "", D },
  { ST_UP, EV_EXECED, 0, V_EXEC, ST_UP, "", D },
  { ST_UP, EV_READY, 0, 0, ST_UP, "", D },
  { ST_UP, EV_EXITED, SIGKILL, 0, ST_DOWN, "end con log", 0 },
  { ST_UP, EV_EXITED, SIGKILL, V_SHORT, ST_BACKOFF, "end con log con log", 100 },
  { ST_UP, EV_EXITED, SIGKILL, V_NEVER, ST_FAILED, "end con log", 0 },
  { ST_UP, EV_EXITED, EXIT(0), V_NEVER, ST_DOWN, "end con log", 0 },
  { ST_UP, EV_EXITED, SIGKILL, V_SHUTDOWN, ST_DOWN, "end con log", 0 },
  { ST_UP, EV_TIMEOUT, 0, 0, ST_UP, "", 0 },
  { ST_UP, EV_STOP, 0, 0, ST_STOPPING, "con sig15", 300 },
  { ST_UP, EV_STOP, 0, V_ONESHOT | V_NOPID, ST_DOWN, "con", D },
  { ST_UP, EV_STOP, 0, V_ONESHOT | V_NOPID | V_STOPCMD, ST_STOPPING, "spawn-stop con", 300 },
  { ST_UP, EV_STOP, 0, V_ONESHOT | V_NOPID | V_STOPCMD | V_FORKFAIL, ST_DOWN, "spawn-stop con log", D },
  { ST_UP, EV_REFUSED, 0, 0, ST_FAILED, "", D },
  { ST_UP, EV_CLEARED, 0, 0, ST_UP, "", D },
  /* STOPPING */
  { ST_STOPPING, EV_START, 0, 0, ST_STOPPING, "", D },
  { ST_STOPPING, EV_SPAWNED, 0, 0, ST_STOPPING, "", D },
  { ST_STOPPING, EV_SPAWN_FAILED, 3, 0, ST_STOPPING, "", D },
  { ST_STOPPING, EV_EXECED, 0, V_EXEC, ST_STOPPING, "", D },
  { ST_STOPPING, EV_READY, 0, 0, ST_STOPPING, "", D },
  { ST_STOPPING, EV_EXITED, SIGTERM, 0, ST_DOWN, "end con", 0 },
  { ST_STOPPING, EV_EXITED, EXIT(0), V_ONESHOT | V_STOPPID, ST_DOWN, "con", 0 },
  { ST_STOPPING, EV_EXITED, EXIT(2), V_ONESHOT | V_STOPPID, ST_DOWN, "con log con", 0 },
  { ST_STOPPING, EV_TIMEOUT, 0, 0, ST_STOPPING, "con log sig9 killstop", 5000 },
  { ST_STOPPING, EV_STOP, 0, 0, ST_STOPPING, "", D },
  { ST_STOPPING, EV_REFUSED, 0, 0, ST_FAILED, "", D },
  { ST_STOPPING, EV_CLEARED, 0, 0, ST_STOPPING, "", D },
  /* BACKOFF */
  { ST_BACKOFF, EV_START, 0, 0, ST_BACKOFF, "", D },
  { ST_BACKOFF, EV_SPAWNED, 0, 0, ST_BACKOFF, "", D },
  { ST_BACKOFF, EV_SPAWN_FAILED, -1, 0, ST_BACKOFF, "", D },
  { ST_BACKOFF, EV_EXECED, 0, V_EXEC, ST_BACKOFF, "", D },
  { ST_BACKOFF, EV_READY, 0, 0, ST_BACKOFF, "", D },
  { ST_BACKOFF, EV_EXITED, EXIT(1), V_PID, ST_DOWN, "end con log", 0 },
  { ST_BACKOFF, EV_TIMEOUT, 0, 0, ST_DOWN, "", 0 },
  { ST_BACKOFF, EV_STOP, 0, 0, ST_DOWN, "", 0 },
  { ST_BACKOFF, EV_REFUSED, 0, 0, ST_FAILED, "", D },
  { ST_BACKOFF, EV_CLEARED, 0, 0, ST_BACKOFF, "", D },
  /* FAILED */
  { ST_FAILED, EV_START, 0, 0, ST_FAILED, "", D },
  { ST_FAILED, EV_SPAWNED, 0, 0, ST_FAILED, "", D },
  { ST_FAILED, EV_SPAWN_FAILED, 3, 0, ST_FAILED, "", D },
  { ST_FAILED, EV_EXECED, 0, V_EXEC, ST_FAILED, "", D },
  { ST_FAILED, EV_READY, 0, 0, ST_FAILED, "", D },
  { ST_FAILED, EV_EXITED, EXIT(126), V_PID, ST_FAILED, "end", 0 },
  { ST_FAILED, EV_TIMEOUT, 0, 0, ST_FAILED, "", 0 },
  { ST_FAILED, EV_STOP, 0, 0, ST_DOWN, "", 0 },
  { ST_FAILED, EV_STOP, 0, V_PID, ST_DOWN, "", 0 },
  { ST_FAILED, EV_REFUSED, 0, 0, ST_FAILED, "", D },
  { ST_FAILED, EV_CLEARED, 0, 0, ST_DOWN, "", D },
  { ST_FAILED, EV_CLEARED, 0, V_PID, ST_FAILED, "", D },
  /* ABORTING */
  { ST_ABORTING, EV_START, 0, 0, ST_ABORTING, "", D },
  { ST_ABORTING, EV_SPAWNED, 0, 0, ST_ABORTING, "", D },
  { ST_ABORTING, EV_SPAWN_FAILED, 3, 0, ST_ABORTING, "", D },
  { ST_ABORTING, EV_EXECED, 0, V_EXEC, ST_ABORTING, "", D },
  { ST_ABORTING, EV_READY, 0, 0, ST_ABORTING, "", D },
  { ST_ABORTING, EV_EXITED, SIGTERM, 0, ST_DOWN, "end con log", 0 },
  { ST_ABORTING, EV_EXITED, EXIT(0), V_NEVER, ST_FAILED, "end con log", 0 },
  { ST_ABORTING, EV_TIMEOUT, 0, 0, ST_ABORTING, "con log sig9 killstop", 5000 },
  { ST_ABORTING, EV_STOP, 0, 0, ST_ABORTING, "", D },
  { ST_ABORTING, EV_REFUSED, 0, 0, ST_FAILED, "", D },
  { ST_ABORTING, EV_CLEARED, 0, 0, ST_ABORTING, "", D },
};

static char const *const event_names[EV_COUNT] = {
  "START", "SPAWNED", "SPAWN_FAILED", "EXECED", "READY", "EXITED", "TIMEOUT", "STOP", "REFUSED", "CLEARED",
};

static char const *const state_ids[ST_COUNT] = {
  "DOWN", "STARTING", "UP", "STOPPING", "BACKOFF", "FAILED", "ABORTING",
};

static char *argv_cmd[] = { "/bin/true", 0 };
static char *argv_stop[] = { "/bin/stop", 0 };

/* A service in state from, as the variant says: a longrun, ready on a
 * descriptor, restart = always, wanted up, after a healthy run. */
static void setup(service *s, svc *spec, cell const *c)
{
  memset(spec, 0, sizeof *spec);
  spec->name = "t";
  spec->argv = argv_cmd;
  spec->stop_argv = c->variant & V_STOPCMD ? argv_stop : 0;
  spec->type = c->variant & V_ONESHOT ? SVC_ONESHOT : SVC_LONGRUN;
  spec->ready = c->variant & V_EXEC ? READY_EXEC : READY_FD;
  spec->restart = c->variant & V_NEVER ? RESTART_NEVER : RESTART_ALWAYS;
  spec->refused = !!(c->variant & V_REFUSED);
  spec->restart_delay_ms = 100;
  spec->restart_delay_max_ms = 1000;
  spec->ready_timeout_ms = 500;
  spec->stop_timeout_ms = 300;
  spec->stop_signal = SIGTERM;
  memset(s, 0, sizeof *s);
  s->spec = spec;
  s->state = (unsigned char)c->from;
  s->pid = c->from == ST_STARTING || c->from == ST_UP || c->from == ST_STOPPING || c->from == ST_ABORTING ? 100 : 0;
  if (c->variant & V_PID) s->pid = 100;
  if (c->variant & V_NOPID) s->pid = 0;
  if (c->variant & V_STOPPID) {
    s->pid = 0;
    s->stop_pid = 300;
  }
  s->ready_pipe = s->notify_sock = s->reaper_fd = -1;
  s->wanted_up = 1;
  s->spawned_at = c->variant & V_SHORT ? now - 10 : now - 5000;
  s->deadline = now + D;
  s->backoff_ms = 100;
  s->fail_errno = c->variant & V_SHORTAGE ? EMFILE : EPERM;
  s->fail_stage = s->fail_arg = -1;
  sv.shutting_down = !!(c->variant & V_SHUTDOWN);
  variant = c->variant;
  did[0] = 0;
}

static void run(cell const *c)
{
  service s;
  svc spec;
  char what[96];
  setup(&s, &spec, c);
  service_event(&s, c->ev, c->arg);
  snprintf(what, sizeof what, "%s x %s (arg %d, variant %#x)", state_ids[c->from], event_names[c->ev], c->arg,
           (unsigned)c->variant);
  t_streq(state_ids[s.state], state_ids[c->to], "%s: next state", what);
  t_streq(did, c->did, "%s: what it did", what);
  t_ueq(s.deadline ? s.deadline - now : 0, c->deadline, "%s: deadline", what);
}

int main(void)
{
  unsigned char seen[ST_COUNT][EV_COUNT];
  size_t i;
  int st, ev, all = 1;
  memset(seen, 0, sizeof seen);
  for (i = 0; i < sizeof cells / sizeof *cells; i++) {
    run(&cells[i]);
    seen[cells[i].from][cells[i].ev] = 1;
  }
  for (st = 0; st < ST_COUNT; st++)
    for (ev = 0; ev < EV_COUNT; ev++)
      if (!seen[st][ev]) {
        printf("# no case for %s x %s\n", state_ids[st], event_names[ev]);
        all = 0;
      }
  t_ok(all, "every (state, event) cell of the machine has a case");

  /* what the cells' words do not show */
  {
    cell const c = { ST_ABORTING, EV_EXITED, EXIT(0), V_NEVER, ST_FAILED, "", 0 };
    service s;
    svc spec;
    setup(&s, &spec, &c);
    service_event(&s, c.ev, c.arg);
    t_streq(s.failure, "not ready within ready-timeout", "a start not ready in time fails for that reason");
    t_ueq(s.down_at, now, "its failure is stamped");
    t_streq(state_names[ST_ABORTING], "stopping", "status shows ABORTING as stopping");
  }
  {
    cell const c = { ST_UP, EV_EXITED, EXIT(0), V_NEVER, ST_DOWN, "", 0 };
    service s;
    svc spec;
    setup(&s, &spec, &c);
    service_event(&s, c.ev, c.arg);
    t_ueq(s.wanted_up, 0, "a run that ended as asked is no longer wanted up");
    t_ueq(s.last_status, EXIT(0), "the exit status is kept");
  }
  {
    cell const c = { ST_UP, EV_EXITED, SIGKILL, V_SHORT, ST_BACKOFF, "", 0 };
    service s;
    svc spec;
    setup(&s, &spec, &c);
    service_event(&s, c.ev, c.arg);
    t_ueq(s.backoff_ms, 200, "the backoff doubles after a short run");
    t_ueq(s.restarts, 1, "a restart is counted");
  }
  return t_done();
}

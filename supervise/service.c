/* supervise/service.c -- the state machine of one service, the rules that
 * start and stop services in dependency order, and the spawn through the
 * privilege engine. */
#include <errno.h>
#include <sched.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <stdarg.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <poll.h>
#include <unistd.h>

#include "../conf/names.h"
#include "notify.h"
#include "../engine/privilege.h"
#include "procfs.h"
#include "../engine/reaper.h"
#include "supervisor.h"

char const *const state_names[] = {
  "down", "starting", "up", "stopping", "backoff", "failed",
};
_Static_assert(sizeof state_names / sizeof state_names[0] == ST_COUNT, "a name for each state of enum state");

#define HEALTHY_RUN_MS 1000u
#define KILL_GRACE_MS 5000u

/* sv.v is sorted by name (supervisor.c keeps it so). */
service *service_by_name(char const *name)
{
  size_t lo = 0, hi = sv.n;
  while (lo < hi) {
    size_t mid = lo + (hi - lo) / 2;
    int c = strcmp(sv.v[mid]->spec->name, name);
    if (!c) return sv.v[mid];
    if (c < 0) lo = mid + 1;
    else hi = mid;
  }
  return 0;
}

service *service_by_pid(pid_t pid)
{
  size_t i;
  for (i = 0; i < sv.n; i++)
    if (sv.v[i]->pid == pid || sv.v[i]->stop_pid == pid) return sv.v[i];
  return 0;
}

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

/* Send sig to the service's process group, or to its main process alone
 * if the group is gone.  Never both: a second stop signal may mean
 * "hurry" to the service. */
static void signal_group(service *s, int sig)
{
  if (s->pid <= 0) return;
  if (kill(-s->pid, sig) < 0) kill(s->pid, sig);
  if (sig != SIGKILL && sig != SIGCONT) {
    kill(-s->pid, SIGCONT);
  }
}

/* ------------------------------------------------------------------ spawn */

static void close_fd(int *fd)
{
  if (*fd >= 0) close(*fd);
  *fd = -1;
}

/* The child of a spawn shares capinit's memory (a vfork-style clone: it
 * runs on its own stack while capinit waits, until it execs or exits).
 * It must only make system calls: no allocation, no lock, nothing capinit
 * relies on (the engine is written for this).  The one thing it writes is
 * f, the stage that failed: capinit reads it when the clone returns, so
 * no status pipe is needed. */
typedef struct child_s {
  svc const *spec;
  char **argv, **env;
  int null, out, ready_fd;
  priv_fail f;
} child;

static char child_stack[128 * 1024] __attribute__((aligned(16)));

/* dup2 for the child, from dup3: arm64 (like every newer architecture)
 * has no dup2 system call.  dup3 refuses from == to, where dup2 would
 * keep close-on-exec: here the descriptor must survive the exec. */
static int child_dup2(int from, int to)
{
  if (from == to) return (int)syscall(SYS_fcntl, to, F_SETFD, 0);
  return (int)syscall(SYS_dup3, from, to, 0);
}

/* The descriptors of the service: 0 /dev/null, 1 and 2 its output, and
 * its readiness descriptor.  -1 with c->f set (stage session). */
static int child_fds(child *c)
{
  /* the descriptor limit the services get first: the readiness
   * descriptor's number must fit under it, whatever capinit's is now */
  if (sv.nofile.rlim_max) syscall(SYS_prlimit64, 0, RLIMIT_NOFILE, &sv.nofile, 0);
  if (child_dup2(c->null, 0) < 0 || child_dup2(c->out, 1) < 0 || child_dup2(c->out, 2) < 0 ||
      (c->ready_fd >= 0 && child_dup2(c->ready_fd, c->spec->ready_fd) < 0)) {
    c->f.stage = STAGE_SESSION;
    c->f.err = errno;
    c->f.arg = PRIV_ARG_STDIO;
    return -1;
  }
  return 0;
}

/* It exits as capexec would: with the failed stage's status (f says
 * which to capinit too). */
static int child_main(void *arg)
{
  child *c = arg;
  if (child_fds(c) == 0)
    priv_exec(c->spec, PRIV_SESSION | PRIV_SIGNALS | PRIV_DEFAULTS, sv.last_cap, c->argv, c->env, &c->f);
  syscall(SYS_exit, priv_fail_exit_code(&c->f));
  return 126;
}

/* ------------------------------------------------------ private-pids */

#define REAPER_START_MS 10000u  /* to build the container and exec */
#define REAPER_FD_MIN 1024      /* above every readiness descriptor */

pid_t service_command_pid(service const *s)
{
  char name[64], buf[64];
  if (s->pid <= 0 || !s->spec->ct || !s->spec->ct->private_pids) return s->pid;
  snprintf(name, sizeof name, "task/%d/children", (int)s->pid);
  return procfs_read(s->pid, name, buf, sizeof buf) > 0 ? (pid_t)atoi(buf) : 0;
}

void service_signal(service const *s, int sig)
{
  if (s->pid <= 0) return;
  /* the reaper passes on only what is queued for the command */
  if (s->spec->ct && s->spec->ct->private_pids)
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

/* What the reaper's copy of capinit must not keep: every other service's
 * environment values (their own spec and a reload's next one), the
 * service's own next one, every service's STATUS= text and unfinished log
 * line, and capinit's own environment.  The service's current spec stays:
 * the command's envp points into it. */
static void wipe_env(svc const *spec, svc const *keep)
{
  size_t i;
  if (!spec || spec == keep) return;
  for (i = 0; i < spec->nenv; i++) reaper_wipe(spec->env[i]);
}

static void reaper_scrub(void *arg)
{
  svc const *own = arg;
  char **e;
  size_t i;
  for (i = 0; i < sv.n; i++) {
    service *s = sv.v[i];
    wipe_env(s->spec, own);
    wipe_env(s->next_spec, own);
    if (s->status_text) explicit_bzero(s->status_text, STATUS_TEXT_MAX);
    if (s->log.partial) explicit_bzero(s->log.partial, LOG_LINE_MAX);
  }
  for (e = environ; e && *e; e++) reaper_wipe(*e);
}

/* The reaper (a copy of capinit, no exec): the service's descriptors as a
 * spawn's child places them, its report pipe above them, every other
 * descriptor of capinit closed; then the engine (its signals stay
 * blocked: it waits for them), then the command.  Never returns. */
static void reaper_child(child *c, int rep) __attribute__((noreturn));
static void reaper_child(child *c, int rep)
{
  int r = (int)syscall(SYS_fcntl, rep, F_DUPFD, REAPER_FD_MIN), keep = c->ready_fd >= 0 ? c->spec->ready_fd : -1;
  if (r < 0 || child_fds(c) < 0) {
    c->f.err = errno;
    reaper_fail(r < 0 ? rep : r, &c->f);
  }
  /* 3 .. r - 1 but the readiness descriptor, and above r */
  if (keep >= 0) {
    syscall(SYS_close_range, 3, keep - 1, 0);
    syscall(SYS_close_range, keep + 1, r - 1, 0);
  } else {
    syscall(SYS_close_range, 3, r - 1, 0);
  }
  syscall(SYS_close_range, r + 1, ~0U, 0);
  if (priv_apply(c->spec, PRIV_SESSION | PRIV_DEFAULTS, sv.last_cap, &c->f) < 0) reaper_fail(r, &c->f);
  reaper_run(c->argv, c->env, r, keep, reaper_scrub, (void *)c->spec);
}

/* Wait for the reaper's first report: it runs the command, or a stage
 * failed (*f).  A reaper that says nothing in REAPER_START_MS is killed. */
static void reaper_started(service *s, pid_t pid, int rep, priv_fail *f)
{
  struct pollfd p = { rep, POLLIN, 0 };
  reaper_report r;
  ssize_t n = -1;
  int pr;
  while ((pr = poll(&p, 1, REAPER_START_MS)) < 0 && errno == EINTR) ;
  if (pr > 0) while ((n = read(rep, &r, sizeof r)) < 0 && errno == EINTR) ;
  if (n == (ssize_t)sizeof r && r.kind == REAPER_RUNNING) {
    fcntl(rep, F_SETFL, O_NONBLOCK);
    s->reaper_fd = rep;
    return;
  }
  if (n == (ssize_t)sizeof r && r.kind == REAPER_FAILED) {
    *f = r.f;
  } else {
    /* it ended, or hangs, without a word */
    kill(pid, SIGKILL);
    f->stage = STAGE_NAMESPACES;
    f->err = pr == 0 ? ETIMEDOUT : ECHILD;
    f->arg = -1;
  }
  close(rep);
}

/* /dev/null, opened once (close-on-exec): every service's stdin, and its
 * output with log = none. */
static int dev_null(void)
{
  static int fd = -1;
  if (fd < 0) fd = open("/dev/null", O_RDWR | O_CLOEXEC | O_NOCTTY);
  return fd;
}

/* Spawn argv through the engine.  Returns the pid, or -1 (errno) when no
 * child could be made.  *f is the stage that failed in the child, or
 * stage -1: the command runs (execve succeeded, which is when a
 * vfork-style clone returns). */
static pid_t spawn(service *s, char **argv, int with_readiness, priv_fail *f)
{
  svc const *spec = s->spec;
  int rp[2] = { -1, -1 }, out = -1, null = dev_null();
  char notify_env[160], **env;
  pid_t pid;

  if (null < 0) return -1;
  if (spec->log == LOG_NONE) out = null;
  else if (log_open_pipe(s, &out) < 0) return -1;
  if (with_readiness && spec->ready == READY_FD && pipe2(rp, O_CLOEXEC) < 0) return -1;
  notify_env[0] = 0;
  if (with_readiness && spec->ready == READY_NOTIFY) {
    if (notify_open(s) < 0) goto fail_rp;
    snprintf(notify_env, sizeof notify_env, "NOTIFY_SOCKET=%s", notify_path(s));
  }
  env = priv_environment(spec, notify_env[0] ? notify_env : 0);
  if (!env) goto fail_rp;

  {
    child c = { spec, argv, env, null, out, rp[1], { -1, 0, -1 } };
    if (spec->ct && spec->ct->private_pids) {
      int rep[2];
      pid = -1;
      if (pipe2(rep, O_CLOEXEC) == 0) {
        pid = reaper_fork();
        if (pid == 0) reaper_child(&c, rep[1]);
        close(rep[1]);
        if (pid > 0) reaper_started(s, pid, rep[0], &c.f);
        else close(rep[0]);
      }
    } else {
      pid = clone(child_main, child_stack + sizeof child_stack, CLONE_VM | CLONE_VFORK | SIGCHLD, &c);
    }
    *f = c.f;
  }
  free(env);
  close_fd(&rp[1]);
  if (pid < 0) {
    close_fd(&rp[0]);
    return -1;
  }
  if (rp[0] >= 0) {
    fcntl(rp[0], F_SETFL, O_NONBLOCK);
    close_fd(&s->ready_pipe);
    s->ready_pipe = rp[0];
  }
  return pid;

fail_rp:
  close_fd(&rp[0]);
  close_fd(&rp[1]);
  return -1;
}

/* A reloaded spec takes effect when the service is not running. */
static void take_next_spec(service *s)
{
  if (!s->next_spec) return;
  svc_free(s->spec);
  s->spec = s->next_spec;
  s->next_spec = 0;
}

static void start(service *s)
{
  priv_fail f;
  take_next_spec(s);
  if (s->spec->refused) {
    service_event(s, EV_REFUSED, 0);
    return;
  }
  s->execed = s->ready_seen = s->not_ready = 0;
  s->fail_stage = s->fail_errno = s->fail_arg = -1;
  s->failure = 0;
  free(s->status_text);
  s->status_text = 0;
  s->spawned_at = now_ms();
  s->pid = spawn(s, s->spec->argv, 1, &f);
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

/* ------------------------------------------------------- the transitions */

/* After a run that ended (failed: a death, an exit status but 0, not
 * ready in time, or no start at all): start again, now or after a
 * backoff, or rest (down, or failed). */
static void restart_or_rest(service *s, int failed)
{
  svc const *spec = s->spec;
  uint64_t ran = now_ms() - s->spawned_at;

  if (sv.shutting_down || !s->wanted_up || spec->restart == RESTART_NEVER ||
      (spec->restart == RESTART_ON_FAILURE && !failed)) {
    if (failed && s->wanted_up && !sv.shutting_down) {
      if (s->not_ready) s->failure = "not ready within ready-timeout";
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

/* A temporary shortage, not a property of the spec: retried. */
static int shortage(int e)
{
  return e == EMFILE || e == ENFILE || e == ENOMEM || e == EAGAIN;
}

static void say_stage(service *s, char const *level, char const *what_failed, priv_fail const *f)
{
  char what[256];
  errno = f->err;
  say(s, level, "%s at stage %s: unable to %s: %s", what_failed, stage_name(f->stage),
      priv_fail_describe(f, s->spec, what, sizeof what), strerror(f->err));
}

/* EV_SPAWN_FAILED: stage, or -1 when fork or a pipe failed */
static void on_spawn_failed(service *s, int stage)
{
  priv_fail f = { stage, s->fail_errno, s->fail_arg };
  if (stage < 0) {
    restart_or_rest(s, 1);  /* a temporary shortage: back off, retry */
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

/* EV_EXECED (ready = exec) and EV_READY: a starting longrun is up */
static void on_ready(service *s)
{
  if (s->state != ST_STARTING || s->spec->type != SVC_LONGRUN) return;
  set_state(s, ST_UP);
  s->deadline = 0;
}

/* EV_EXITED of a oneshot's stop-command */
static void on_stop_command_exited(service *s, int status)
{
  s->stop_pid = 0;
  if (!WIFEXITED(status) || WEXITSTATUS(status))
    say(s, "warning: ", "stop-command failed (%s %d)", WIFEXITED(status) ? "exit" : "signal",
        WIFEXITED(status) ? WEXITSTATUS(status) : WTERMSIG(status));
  note(s, "stopped");
  set_state(s, ST_DOWN);
  s->deadline = 0;
}

/* EV_EXITED: the main process ended (status: its wait status) */
static void on_exited(service *s, int status)
{
  if (s->stop_pid && status >= 0 && s->state == ST_STOPPING && s->spec->type == SVC_ONESHOT) {
    on_stop_command_exited(s, status);
    return;
  }
  s->last_status = status;
  signal_group(s, SIGKILL);  /* nothing of the service outlives it */
  s->pid = 0;
  s->deadline = 0;
  close_fd(&s->ready_pipe);
  if (s->state == ST_FAILED) return;  /* the engine's child, already reported */
  if (s->state == ST_STOPPING && !s->not_ready) {
    note(s, "stopped");
    set_state(s, ST_DOWN);
    return;
  }
  if (s->spec->type == SVC_ONESHOT && s->state == ST_STARTING && WIFEXITED(status) && !WEXITSTATUS(status)) {
    set_state(s, ST_UP);
    return;
  }
  describe_exit(s, status);
  restart_or_rest(s, s->not_ready || !WIFEXITED(status) || WEXITSTATUS(status) != 0);
}

/* EV_TIMEOUT: the end of a backoff, of ready-timeout, of stop-timeout */
static void on_timeout(service *s)
{
  svc const *spec = s->spec;
  s->deadline = 0;
  if (s->state == ST_BACKOFF) {
    set_state(s, ST_DOWN);
  } else if (s->state == ST_STARTING) {
    say(s, "warning: ", "not %s after %u ms: stopping it",
        spec->type == SVC_ONESHOT ? "finished" : "ready", (unsigned)spec->ready_timeout_ms);
    s->not_ready = 1;  /* a failed start: restart or rest as after a death */
    service_event(s, EV_STOP, 0);
  } else if (s->state == ST_STOPPING) {
    say(s, "warning: ", "still running %u ms after SIG%s: sending SIGKILL to its process group",
        (unsigned)spec->stop_timeout_ms, signal_name(spec->stop_signal));
    signal_group(s, SIGKILL);
    if (s->stop_pid) kill(-s->stop_pid, SIGKILL);
    s->deadline = now_ms() + KILL_GRACE_MS;
  }
}

/* EV_STOP of a oneshot that is up: its stop-command, if it has one */
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
  pid = spawn(s, spec->stop_argv, 0, &f);
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

/* EV_STOP: begin stopping */
static void on_stop(service *s)
{
  svc const *spec = s->spec;
  if (s->state == ST_BACKOFF || s->state == ST_FAILED) {
    set_state(s, ST_DOWN);
    s->deadline = 0;
  } else if (s->state == ST_UP && spec->type == SVC_ONESHOT) {
    stop_oneshot(s);
  } else if (s->state == ST_STARTING || s->state == ST_UP) {
    if (!s->not_ready) {
      char what[64];
      snprintf(what, sizeof what, "stopping (SIG%s)", signal_name(spec->stop_signal));
      note(s, what);
    }
    set_state(s, ST_STOPPING);
    signal_group(s, spec->stop_signal);
    s->deadline = now_ms() + spec->stop_timeout_ms;
  }
}

/* The one place where a service's current state changes: one handler an
 * event, and set_state() (which stamps up_at and down_at) is called from
 * these handlers only. */
void service_event(service *s, enum event ev, int arg)
{
  switch (ev) {
    case EV_SPAWNED:
      set_state(s, ST_STARTING);
      s->deadline = s->spec->ready_timeout_ms ? now_ms() + s->spec->ready_timeout_ms : 0;
      break;
    case EV_SPAWN_FAILED: on_spawn_failed(s, arg); break;
    case EV_EXECED:
      s->execed = 1;
      if (s->spec->ready == READY_EXEC) on_ready(s);
      break;
    case EV_READY:
      s->ready_seen = 1;
      on_ready(s);
      break;
    case EV_EXITED: on_exited(s, arg); break;
    case EV_TIMEOUT: on_timeout(s); break;
    case EV_STOP: on_stop(s); break;
    case EV_REFUSED:
      /* fail closed: a file that became invalid never runs */
      s->failure = s->failure ? s->failure : "invalid service file (capctl check)";
      set_state(s, ST_FAILED);
      break;
    case EV_CLEARED:
      if (s->state == ST_FAILED && !s->pid) set_state(s, ST_DOWN);
      break;
  }
}

/* ------------------------------------------------ wanted states and order */

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

int service_is_settled_down(service const *s)
{
  return (s->state == ST_DOWN || s->state == ST_FAILED || s->state == ST_BACKOFF) &&
         !s->pid && !s->stop_pid;
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
static int can_stop(service const *s)
{
  size_t i;
  for (i = 0; i < sv.n; i++) {
    service const *t = sv.v[i];
    if (t == s || service_is_settled_down(t)) continue;
    if (t->wanted_up && !sv.shutting_down) continue;  /* it stays: no order to keep */
    if (depends_on(t, s) || after(t, s)) return 0;
  }
  return 1;
}

static int settle_one(service *s)
{
  if (s->wanted_up && !sv.shutting_down) {
    if (s->state == ST_DOWN && !s->pid && !s->stop_pid && can_start(s)) {
      start(s);
      return 1;
    }
    return 0;
  }
  if (s->state == ST_FAILED && !s->pid && s->explicit_down && !s->spec->refused) {
    service_event(s, EV_CLEARED, 0);  /* stopped on purpose: no longer a failure */
    return 1;
  }
  if ((s->state == ST_UP || s->state == ST_STARTING || s->state == ST_BACKOFF ||
       (s->state == ST_FAILED && s->pid)) && can_stop(s)) {
    enum state before = s->state;
    service_event(s, EV_STOP, 0);
    return s->state != before;
  }
  return 0;
}

void service_settle(service *s)
{
  settle_one(s);
}

void service_settle_all(void)
{
  int changed, rounds = 0;
  do {
    size_t i;
    changed = 0;
    for (i = 0; i < sv.n; i++) changed |= settle_one(sv.v[i]);
  } while (changed && ++rounds < 1000);
}

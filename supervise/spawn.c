/* supervise/spawn.c -- a service's processes: the spawn through the
 * privilege engine (a vfork-style clone, or with private-pids a reaper
 * of capinit's and its first report), their signals, and the end of a
 * run.  Every system call the state machine makes on a service's
 * processes is here (tests/unit/test_machine.c stubs this file). */
#include <errno.h>
#include <sched.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <poll.h>
#include <unistd.h>

#include "log.h"
#include "notify.h"
#include "../engine/privilege.h"
#include "../engine/reaper.h"
#include "service.h"
#include "spawn.h"

void service_signal_group(service const *s, int sig)
{
  if (s->pid <= 0) return;
  if (kill(-s->pid, sig) < 0) kill(s->pid, sig);
  if (sig != SIGKILL && sig != SIGCONT) {
    kill(-s->pid, SIGCONT);
  }
}

void service_kill_stop_command(service const *s)
{
  if (s->stop_pid) kill(-s->stop_pid, SIGKILL);
}

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
  supervisor const *sup;
  svc const *spec;
  char **argv, **env;
  int null, out, ready_fd;
  unsigned card_taken;     /* PRIV_CARD_TAKEN: resolved by capinit */
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
  if (c->sup->nofile.rlim_max) syscall(SYS_prlimit64, 0, RLIMIT_NOFILE, &c->sup->nofile, 0);
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
    priv_exec(c->spec, PRIV_SESSION | PRIV_SIGNALS | PRIV_DEFAULTS | c->card_taken, c->sup->last_cap, c->argv, c->env, &c->f);
  syscall(SYS_exit, priv_fail_exit_code(&c->f));
  return 126;
}

/* ------------------------------------------------------ private-pids */

#define REAPER_START_MS 10000u  /* to build the container and exec */
#define REAPER_FD_MIN 1024      /* above every readiness descriptor */

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
  child const *c = arg;
  svc const *own = c->spec;
  char **e;
  size_t i;
  for (i = 0; i < c->sup->n; i++) {
    service *s = c->sup->v[i];
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
  if (priv_apply(c->spec, PRIV_SESSION | PRIV_DEFAULTS | c->card_taken, c->sup->last_cap, &c->f) < 0) reaper_fail(r, &c->f);
  reaper_run(c->argv, c->env, r, keep, reaper_scrub, c);
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

pid_t spawn(supervisor const *sup, service *s, char **argv, int with_readiness, priv_fail *f)
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
    child c = { sup, spec, argv, env, null, out, rp[1], 0, { -1, 0, -1 } };
    if (service_card_holder(s)) c.card_taken = PRIV_CARD_TAKEN;
    if (container_own_pids(spec->ct)) {
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

void spawn_end(service *s)
{
  service_signal_group(s, SIGKILL);  /* nothing of the service outlives it */
  close_fd(&s->ready_pipe);
}

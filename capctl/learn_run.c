/* capctl/learn_run.c -- one run of a service for capctl learn.  The
 * service is capexec -f FILE in a session of its own (so that its stop
 * reaches what it started), its output on learn's standard error (standard
 * output is the proposal's).  Traced, the child waits on a pipe until its
 * pid is the instance's set_event_pid, so the trace holds it from its
 * first instruction. */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <ftw.h>
#include <sys/signalfd.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "learn_files.h"
#include "learn_run.h"

/* a service that ignores TERM gets KILL this much later */
#define STOP_GRACE_MS 5000

static long long now_ms(void)
{
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (long long)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/* The child: wait for the word on go (none when go < 0), then become
 * capexec -f FILE.  Never returns. */
static void child(learn_run const *r, int go)
{
  char c;
  char *argv[] = { (char *)"capexec", (char *)"-f", (char *)r->file, 0 };
  sigset_t none;
  sigemptyset(&none);
  sigprocmask(SIG_SETMASK, &none, 0);
  if (go >= 0 && read(go, &c, 1) != 1) _exit(111);
  setsid();
  dup2(2, 1);
  execv(r->capexec, argv);
  fprintf(stderr, "capctl: fatal: unable to execute %s: %s\n", r->capexec, strerror(errno));
  _exit(126);
}

/* rm -r of one path of --fresh: each entry, depth first, on its own
 * file system (a mount under it is left, and so is what it holds) */
static int unlink_one(char const *path, struct stat const *st, int flag, struct FTW *ftw)
{
  (void)st, (void)ftw;
  if ((flag == FTW_DP ? rmdir(path) : unlink(path)) < 0 && errno != ENOENT && errno != EBUSY) return -1;
  return 0;
}

/* The paths of --fresh removed: 0, or -1 (err filled) */
static int fresh(learn_run const *r, char *err, size_t errlen)
{
  unsigned i;
  for (i = 0; i < r->nfresh; i++)
    if (nftw(r->fresh[i], unlink_one, 16, FTW_DEPTH | FTW_PHYS | FTW_MOUNT) < 0 && errno != ENOENT) {
      snprintf(err, errlen, "--fresh: remove %s: %s", r->fresh[i], strerror(errno));
      return -1;
    }
  return 0;
}

/* A signal that asks learn to end (INT, TERM, HUP), once seen: the run is
 * cut short, the service stopped, and learn_main cleans up. */
static int interrupted;

int learn_interrupted(void)
{
  return interrupted;
}

/* SIGCHLD and the signals that end learn as a descriptor; the mask that
 * was, into old */
static int child_signals(sigset_t *old)
{
  sigset_t s;
  sigemptyset(&s);
  sigaddset(&s, SIGCHLD);
  sigaddset(&s, SIGINT);
  sigaddset(&s, SIGTERM);
  sigaddset(&s, SIGHUP);
  sigprocmask(SIG_BLOCK, &s, old);
  return signalfd(-1, &s, SFD_CLOEXEC | SFD_NONBLOCK);
}

/* Every complete line of t's pipe to fn; what is left over stays in buf. */
static void drain(learn_trace *t, char *buf, size_t *len, size_t cap, learn_line_fn *fn, void *data)
{
  for (;;) {
    ssize_t n = read(t->pipe, buf + *len, cap - 1 - *len);
    char *p, *nl;
    if (n <= 0) return;
    *len += (size_t)n;
    buf[*len] = 0;
    for (p = buf; (nl = strchr(p, '\n')); p = nl + 1) {
      *nl = 0;
      fn(p, data);
    }
    *len -= (size_t)(p - buf);
    memmove(buf, p, *len);
    if (*len == cap - 1) *len = 0;  /* a line longer than the buffer: not a record of ours */
  }
}

/* Wait for pid until deadline (ms of now_ms), feeding the trace to fn when
 * t is given.  1 when it exited (status set), 0 at the deadline or when
 * learn is asked to end. */
static int wait_until(pid_t pid, int sfd, long long deadline, learn_trace *t, char *buf, size_t *len, size_t cap,
                      learn_line_fn *fn, void *data, int *status)
{
  for (;;) {
    struct pollfd p[3] = { { .fd = sfd, .events = POLLIN }, { .fd = t ? t->pipe : -1, .events = POLLIN },
                           { .fd = t && t->files ? t->files->fd : -1, .events = POLLIN } };
    long long left = deadline - now_ms();
    struct signalfd_siginfo si;
    if (waitpid(pid, status, WNOHANG) == pid) return 1;
    if (left <= 0 || interrupted) return 0;
    /* trace_pipe wakes a poller only once the buffer is buffer_percent
     * full (half, by default): drained every 200 ms as well */
    if (poll(p, 3, left > 200 && t ? 200 : (int)left) < 0 && errno != EINTR) return 0;
    while (read(sfd, &si, sizeof si) > 0)
      if (si.ssi_signo != SIGCHLD) interrupted = (int)si.ssi_signo;
    if (t) drain(t, buf, len, cap, fn, data);
    if (t && t->files) learn_files_drain(t->files);
  }
}

/* Wait for pid for the grace, whatever learn was asked meanwhile. */
static int wait_grace(pid_t pid, int sfd, int *st)
{
  int was = interrupted, r;
  interrupted = 0;
  r = wait_until(pid, sfd, now_ms() + STOP_GRACE_MS, 0, 0, 0, 0, 0, 0, st);
  if (was) interrupted = was;
  return r;
}

/* TERM to the service's session, KILL after the grace; reaped. */
static void stop(pid_t pid, int sfd)
{
  int st;
  kill(-pid, SIGTERM);
  kill(pid, SIGTERM);
  if (waitpid(pid, &st, 0 | WNOHANG) == pid) return;
  if (wait_grace(pid, sfd, &st)) return;
  kill(-pid, SIGKILL);
  kill(pid, SIGKILL);
  waitpid(pid, &st, 0);
}

/* The check command (/bin/sh -c check), CAPCTL_LEARN_EXIT the service's
 * exit status (exited, st) or "running", with the service's time too (one
 * that hangs is killed, and fails); the trace read meanwhile when t.  Its
 * wait status, or -1 when it could not start. */
static int check_run(learn_run const *r, char const *check, int exited, int st, int sfd, learn_trace *t, char *buf,
                     size_t *len, size_t cap, learn_line_fn *fn, void *data)
{
  char text[32];
  int cst;
  pid_t cpid;
  if (exited) snprintf(text, sizeof text, "%d", WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st));
  else snprintf(text, sizeof text, "running");
  cpid = fork();
  if (cpid < 0) return -1;
  if (cpid == 0) {
    sigset_t none;
    sigemptyset(&none);
    sigprocmask(SIG_SETMASK, &none, 0);
    setenv("CAPCTL_LEARN_EXIT", text, 1);
    dup2(2, 1);
    execl("/bin/sh", "sh", "-c", check, (char *)0);
    _exit(127);
  }
  if (!wait_until(cpid, sfd, now_ms() + (long long)r->seconds * 1000, t, buf, len, cap, fn, data, &cst)) {
    kill(cpid, SIGKILL);
    waitpid(cpid, &cst, 0);
  }
  return cst;
}

int learn_run_traced(learn_run const *r, char const *check, learn_trace *t, learn_line_fn *fn, void *data,
                     learn_end *end, char *err, size_t errlen)
{
  static char buf[65536];
  size_t len = 0;
  sigset_t old;
  int go[2], sfd, exited;
  pid_t pid;
  if (fresh(r, err, errlen) < 0) return -1;
  sfd = child_signals(&old);
  if (sfd < 0 || pipe2(go, O_CLOEXEC) < 0) {
    snprintf(err, errlen, "make a pipe: %s", strerror(errno));
    return -1;
  }
  pid = fork();
  if (pid < 0) {
    snprintf(err, errlen, "fork: %s", strerror(errno));
    return -1;
  }
  if (pid == 0) {
    close(go[1]);
    child(r, go[0]);
  }
  close(go[0]);
  if (learn_trace_start(t, pid, err, errlen) < 0) {
    close(go[1]);  /* the child reads nothing and exits 111 */
    waitpid(pid, 0, 0);
    return -1;
  }
  if (write(go[1], "g", 1) != 1) {
    snprintf(err, errlen, "start the service: %s", strerror(errno));
    return -1;
  }
  close(go[1]);
  exited = wait_until(pid, sfd, now_ms() + (long long)r->seconds * 1000, t, buf, &len, sizeof buf, fn, data,
                      &end->status);
  /* the check, traced as in its trials: what the service does for it
   * (a mail delivered, a log line written) is learned too; its result
   * is the control's to tell */
  if (check && !interrupted) {
    check_run(r, check, exited, end->status, sfd, t, buf, &len, sizeof buf, fn, data);
    /* the service may have exited meanwhile */
    if (!exited && waitpid(pid, &end->status, WNOHANG) == pid) exited = 1;
  }
  if (!exited) stop(pid, sfd);
  else kill(-pid, SIGTERM);  /* what it left in its session, as capinit stops a service's group */
  end->running = !exited;
  drain(t, buf, &len, sizeof buf, fn, data);
  if (t->files) learn_files_drain(t->files);
  close(sfd);
  sigprocmask(SIG_SETMASK, &old, 0);
  return 0;
}

int learn_run_check(learn_run const *r, char const *check, char *err, size_t errlen)
{
  sigset_t old;
  int sfd, st = 0, cst, exited;
  pid_t pid;
  if (fresh(r, err, errlen) < 0) return -1;
  sfd = child_signals(&old);
  if (sfd < 0) {
    snprintf(err, errlen, "make a signalfd: %s", strerror(errno));
    return -1;
  }
  pid = fork();
  if (pid < 0) {
    snprintf(err, errlen, "fork: %s", strerror(errno));
    return -1;
  }
  if (pid == 0) child(r, -1);
  exited = wait_until(pid, sfd, now_ms() + (long long)r->seconds * 1000, 0, 0, 0, 0, 0, 0, &st);
  cst = interrupted ? -1 : check_run(r, check, exited, st, sfd, 0, 0, 0, 0, 0, 0);
  if (!exited || interrupted) stop(pid, sfd);
  else kill(-pid, SIGTERM);
  close(sfd);
  sigprocmask(SIG_SETMASK, &old, 0);
  if (cst < 0) snprintf(err, errlen, "run the check: %s", strerror(errno));
  return cst;
}

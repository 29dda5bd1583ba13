/* supervise/reaper.c -- see reaper.h.  It runs in a copy of capinit (or
 * capexec) made without exec: raw system calls only, no libc state. */
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <signal.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "engine.h"
#include "reaper.h"

pid_t reaper_fork(void)
{
  return (pid_t)syscall(SYS_clone, CLONE_NEWPID | SIGCHLD, 0, 0, 0, 0);
}

static void report(int fd, reaper_report const *r)
{
  while (syscall(SYS_write, fd, r, sizeof *r) < 0 && errno == EINTR) ;
}

void reaper_fail(int report_fd, priv_fail const *f)
{
  reaper_report r;
  memset(&r, 0, sizeof r);
  r.kind = REAPER_FAILED;
  r.f = *f;
  report(report_fd, &r);
  syscall(SYS_exit_group, 126);
  for (;;) ;
}

/* The command's child: default signals, then exec; a failure goes to the
 * reaper on fd. */
static void command(char *const *argv, char *const *envp, int fd)
{
  priv_fail f = { -1, 0, -1 };
  /* a session of its own, as any service's command: a terminal can be its
   * controlling terminal, and its process group is the one signalled */
  if (syscall(SYS_setsid) < 0) priv_failed(&f, STAGE_SESSION, -1);
  else if (priv_reset_signals() < 0) priv_failed(&f, STAGE_SIGNALS, -1);
  else priv_exec_only(argv, envp, &f);
  syscall(SYS_write, fd, &f, sizeof f);
  syscall(SYS_exit_group, 126);
}

/* A signal from outside the namespace (si_pid 0 in here): queued with
 * REAPER_SIGNAL_MAIN, for the command; else for its process group (as
 * capinit signals a service's group), or the command alone when the group
 * is gone.  Signals from inside the namespace are dropped. */
static void forward(siginfo_t const *si, pid_t cmd)
{
  if (si->si_pid != 0) return;
  if (si->si_code == SI_QUEUE && si->si_value.sival_int == REAPER_SIGNAL_MAIN)
    syscall(SYS_kill, cmd, si->si_signo);
  else if (syscall(SYS_kill, -cmd, si->si_signo) < 0)
    syscall(SYS_kill, cmd, si->si_signo);
}

void reaper_run(char *const *argv, char *const *envp, int report_fd, int close_fd)
{
  reaper_report r;
  priv_fail f;
  sigset_t all;
  int ab[2];
  pid_t cmd;
  ssize_t n;

  memset(&r, 0, sizeof r);
  if (syscall(SYS_pipe2, ab, O_CLOEXEC) < 0) {
    priv_failed(&f, STAGE_EXEC, -1);
    reaper_fail(report_fd, &f);
  }
  cmd = (pid_t)syscall(SYS_clone, SIGCHLD, 0, 0, 0, 0);
  if (cmd < 0) {
    priv_failed(&f, STAGE_EXEC, -1);
    reaper_fail(report_fd, &f);
  }
  if (cmd == 0) {
    syscall(SYS_close, ab[0]);
    syscall(SYS_close, report_fd);
    command(argv, envp, ab[1]);
  }
  syscall(SYS_close, ab[1]);
  if (close_fd >= 0) syscall(SYS_close, close_fd);
  /* nothing read: the command's exec closed the pipe */
  while ((n = syscall(SYS_read, ab[0], &f, sizeof f)) < 0 && errno == EINTR) ;
  syscall(SYS_close, ab[0]);
  if (n == (ssize_t)sizeof f) reaper_fail(report_fd, &f);
  r.kind = REAPER_RUNNING;
  report(report_fd, &r);

  /* every signal is blocked (the caller's mask): wait for them */
  sigfillset(&all);
  for (;;) {
    siginfo_t si;
    int sig = (int)syscall(SYS_rt_sigtimedwait, &all, &si, 0, 8);
    if (sig < 0) continue;
    if (sig != SIGCHLD) {
      forward(&si, cmd);
      continue;
    }
    for (;;) {
      int st;
      pid_t p = (pid_t)syscall(SYS_wait4, -1, &st, WNOHANG, 0);
      if (p <= 0) break;
      if (p != cmd) continue;  /* an orphan of the namespace */
      r.kind = REAPER_EXITED;
      r.status = st;
      report(report_fd, &r);
      /* the kernel kills the rest of the namespace */
      syscall(SYS_exit_group, 0);
    }
  }
}

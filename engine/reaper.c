/* engine/reaper.c -- see reaper.h.  It runs in a copy of capinit (or
 * capexec) made without exec: raw system calls only, no libc state. */
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <signal.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "engine.h"
#include "reaper.h"

pid_t reaper_fork(void)
{
  pid_t pid = (pid_t)syscall(SYS_clone, CLONE_NEWPID | SIGCHLD, 0, 0, 0, 0);
  /* the child's first system call: it still has its parent's credentials
   * (nothing less can read it yet), and dumpable is a flag of the memory,
   * which the command's execve replaces */
  if (pid == 0) syscall(SYS_prctl, PR_SET_DUMPABLE, 0, 0, 0, 0);
  return pid;
}

void reaper_wipe(char *s)
{
  if (s) explicit_bzero(s, strlen(s));
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

/* The command's child is a vfork-style clone, as capinit's own spawn: it
 * shares the reaper's memory, so that starting it copies no page table
 * and its exec has no copy to tear down, and the reaper waits until it has
 * executed the command or failed (then f says where). */
typedef struct command_s {
  char *const *argv, *const *envp;
  int report_fd;
  priv_fail f;
} command;

static char command_stack[16 * 1024] __attribute__((aligned(16)));

static int command_main(void *arg)
{
  command *c = arg;
  syscall(SYS_close, c->report_fd);
  /* a session of its own, as any service's command: a terminal can be its
   * controlling terminal, and its process group is the one signalled */
  if (syscall(SYS_setsid) < 0) priv_failed(&c->f, STAGE_SESSION, -1);
  else if (priv_reset_signals() < 0) priv_failed(&c->f, STAGE_SIGNALS, -1);
  else priv_exec_only(c->argv, c->envp, &c->f);
  syscall(SYS_exit, priv_fail_exit_code(&c->f));
  return 126;
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

void reaper_run(char *const *argv, char *const *envp, int report_fd, int close_fd,
                reaper_scrub_fn *scrub, void *scrub_arg)
{
  command c = { argv, envp, report_fd, { -1, 0, -1 } };
  reaper_report r;
  sigset_t all;
  pid_t cmd;

  /* before the command exists: nothing of the service sees the copy yet */
  scrub(scrub_arg);
  memset(&r, 0, sizeof r);
  cmd = clone(command_main, command_stack + sizeof command_stack, CLONE_VM | CLONE_VFORK | SIGCHLD, &c);
  if (cmd < 0) {
    priv_failed(&c.f, STAGE_EXEC, -1);
    reaper_fail(report_fd, &c.f);
  }
  if (c.f.stage >= 0) reaper_fail(report_fd, &c.f);
  if (close_fd >= 0) syscall(SYS_close, close_fd);
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

/* supervise/maincmd.c -- the main command of capinit --container -- CMD:
 * what tini and dumb-init do for their one child, with capinit's policy
 * on who may signal it (docs/decisions.md, issue 39). */
#include <errno.h>
#include <signal.h>
#include <string.h>
#include <stdio.h>
#include <sys/wait.h>
#include <unistd.h>

#include "../conf/names.h"
#include "../engine/engine.h"
#include "console.h"
#include "maincmd.h"

/* In the child: no console (its buffer is capinit's), one write. */
static void child_fail(char const *cmd, int e)
{
  char msg[512];
  int n = snprintf(msg, sizeof msg, "capinit: fatal: unable to execute %s: %s\n", cmd, strerror(e));
  if (n < 0) n = 0;
  if (n > (int)sizeof msg - 1) n = (int)sizeof msg - 1;
  if (write(2, msg, (size_t)n) < 0) {}
  _exit(e == ENOENT ? 127 : 126);
}

/* fg: capinit's group was the terminal's foreground one, known before the
 * fork: the parent's setpgid may move the child before it could ask. */
static void child(maincmd const *m, int fg)
{
  if (m->err >= 0) dup2(m->err, 2);
  setpgid(0, 0);
  /* SIGTTOU is still blocked: a background group may take the terminal */
  if (fg) tcsetpgrp(0, getpid());
  if (priv_reset_signals() < 0) child_fail(m->argv[0], errno);
  execvp(m->argv[0], m->argv);
  child_fail(m->argv[0], errno);
}

int maincmd_start(maincmd *m)
{
  int fg = tcgetpgrp(0) == getpgrp();
  pid_t pid = fork();
  if (pid < 0) return -1;
  if (pid == 0) child(m, fg);
  m->pid = pid;
  m->status = -1;
  /* the parent's setpgid too: a signal forwarded before the child's own
   * call must already find the group */
  setpgid(pid, pid);
  console_say("capinit: main command %s: started as pid %d\n", m->argv[0], (int)pid);
  return 0;
}

void maincmd_signal(maincmd const *m, int sig)
{
  if (m->pid <= 0) return;
  if (m->group && kill(-m->pid, sig) == 0) return;
  kill(m->pid, sig);
}

void maincmd_ended(maincmd *m, int status)
{
  char const *name = WIFSIGNALED(status) ? signal_name(WTERMSIG(status)) : 0;
  m->pid = 0;
  m->status = status;
  if (WIFSIGNALED(status))
    console_say("capinit: main command %s: killed by SIG%s: exit code %d\n", m->argv[0], name ? name : "?",
                maincmd_exit_code(m));
  else
    console_say("capinit: main command %s: exited %d: exit code %d\n", m->argv[0], WEXITSTATUS(status),
                maincmd_exit_code(m));
}

int maincmd_exit_code(maincmd const *m)
{
  int code = WIFSIGNALED(m->status) ? 128 + WTERMSIG(m->status) : WEXITSTATUS(m->status);
  code &= 255;
  return m->zero[code / 8] & (1u << (code % 8)) ? 0 : code;
}

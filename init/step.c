/* init/step.c -- see step.h. */
#include <errno.h>
#include <sched.h>
#include <signal.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "../inspect/clock.h"
#include "../inspect/file.h"
#include "step.h"

/* The value of "NAME:   N kB" in /proc/meminfo's text, or 0. */
static uint64_t meminfo_kb(char const *text, char const *name)
{
  size_t n = strlen(name);
  char const *p = text;
  while ((p = strstr(p, name))) {
    if ((p == text || p[-1] == '\n') && p[n] == ':') return strtoull(p + n + 1, 0, 10);
    p += n;
  }
  return 0;
}

/* What write-back and swapoff still have to move, in kB; UINT64_MAX when
 * /proc/meminfo cannot be read (then no progress is ever seen). */
static uint64_t pending_kb(void)
{
  char buf[4096];
  if (file_read("/proc/meminfo", buf, sizeof buf) <= 0) return UINT64_MAX;
  return meminfo_kb(buf, "Dirty") + meminfo_kb(buf, "Writeback") +
         meminfo_kb(buf, "SwapTotal") - meminfo_kb(buf, "SwapFree");
}

/* The step's child shares PID 1's memory (clone with CLONE_VM): no copy
 * of PID 1's page tables and no copy-on-write faults after it, most of
 * a fork's cost under QEMU's TCG.  It runs on a stack of its own, with
 * what it calls at the top of that stack, and makes only fn's system
 * calls.  Where CLONE_VM alone is refused (qemu-user emulates it only
 * for threads), a fork. */
#define STACK_BYTES (64 * 1024)

struct call {
  step_fn *fn;
  void const *arg;
};

static int call_main(void *p)
{
  struct call const *c = p;
  _exit(c->fn(c->arg) & 0xff);
}

/* The child, or -1 with errno; *stack is the mapping to drop once it
 * has been reaped, or 0. */
static pid_t step_spawn(step_fn *fn, void const *arg, void **stack)
{
  pid_t pid;
  *stack = mmap(0, STACK_BYTES, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_STACK, -1, 0);
  if (*stack != MAP_FAILED) {
    struct call *c = (struct call *)((char *)*stack + STACK_BYTES) - 1;
    c->fn = fn;
    c->arg = arg;
    pid = clone(call_main, c, CLONE_VM | SIGCHLD, c);
    if (pid >= 0) return pid;
    munmap(*stack, STACK_BYTES);
  }
  *stack = 0;
  pid = fork();
  if (pid == 0) _exit(fn(arg) & 0xff);
  return pid;
}

int step_run(step_fn *fn, void const *arg, unsigned ms, int progress)
{
  void *stack;
  sigset_t set, old;
  uint64_t now, deadline, look, last = UINT64_MAX;
  int status, r = STEP_TIMEOUT;
  pid_t pid;

  sigemptyset(&set);
  sigaddset(&set, SIGCHLD);
  sigprocmask(SIG_BLOCK, &set, &old);
  pid = step_spawn(fn, arg, &stack);
  if (pid < 0) {
    r = errno;
    sigprocmask(SIG_SETMASK, &old, 0);
    return r;
  }
  now = now_ms();
  deadline = now + ms;
  look = now;
  for (;;) {
    struct timespec t;
    uint64_t until;
    pid_t p;
    while ((p = waitpid(-1, &status, WNOHANG)) > 0) {
      if (p != pid) continue;
      r = WIFEXITED(status) ? WEXITSTATUS(status) : EINTR;
      goto done;
    }
    now = now_ms();
    if (progress && now >= look) {
      uint64_t k = pending_kb();
      if (k < last) deadline = now + ms;
      last = k;
      look = now + 1000;
    }
    if (now >= deadline) break;
    until = progress && look < deadline ? look : deadline;
    t.tv_sec = (time_t)((until - now) / 1000);
    t.tv_nsec = (long)((until - now) % 1000) * 1000000L;
    sigtimedwait(&set, 0, &t);
  }
  /* Out of time: the child is stuck in the kernel, where no signal can
   * reach it.  SIGKILL waits for it there, so that it never runs another
   * instruction of its own (its stack, kept, and PID 1's memory have
   * moved on); PID 1 reaps it if it ever gets out. */
  kill(pid, SIGKILL);
  sigprocmask(SIG_SETMASK, &old, 0);
  return r;
done:
  if (stack) munmap(stack, STACK_BYTES);
  sigprocmask(SIG_SETMASK, &old, 0);
  return r;
}

/* init/step.h -- a system call that may block for ever (a mount, an
 * unmount, swapoff, sync on a dead disk or server), made by a child
 * process that PID 1 waits for with a deadline: PID 1 itself never
 * blocks in the kernel for a file system. */
#ifndef CAPINIT_INIT_STEP_H
#define CAPINIT_INIT_STEP_H

/* step_run's answer when the child did not end in time.  The child is
 * left behind with SIGKILL pending: a process blocked in the kernel
 * cannot be killed there, but it dies as it leaves, without running any
 * more of its own code; PID 1 reaps it if it ever ends. */
#define STEP_TIMEOUT (-1)

/* What the child does: returns 0 or an errno value.  The child shares
 * PID 1's memory and runs on a stack of its own (64 KiB): fn makes
 * system calls and nothing else, and writes nothing of PID 1's. */
typedef int step_fn(void const *arg);

/* Run fn(arg) in a child and wait at most ms for it.  With progress, the
 * deadline moves on as long as the kernel's write-back goes on (the
 * pages dirty, under write-back or in swap, from /proc/meminfo, fall
 * between two looks a second apart): a slow disk that is still writing
 * is waited for, a dead one is not.  Returns 0, the errno value fn
 * returned, or STEP_TIMEOUT.  SIGCHLD is blocked while it waits; other
 * children that end meanwhile are reaped. */
int step_run(step_fn *fn, void const *arg, unsigned ms, int progress);

#endif

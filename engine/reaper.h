/* engine/reaper.h -- the first process of a service's own PID namespace
 * (private-pids = yes).
 *
 * The first process of a PID namespace is its init: the kernel drops every
 * signal sent to it that it has no handler for (even from outside), and
 * reparents every orphan of the namespace to it; when it ends, the kernel
 * kills the whole namespace.  A daemon is not written for that.  So the
 * namespace's first process is this small reaper, with the service's own
 * credentials, and the command is its child:
 *   - it starts the command in a session and process group of its own,
 *     as any service's;
 *   - it passes on what it is sent from outside the namespace: a signal
 *     queued with REAPER_SIGNAL_MAIN (capctl signal) to the command, any
 *     other (the stop signal, sent to the reaper's group) to the
 *     command's process group; it drops signals from inside;
 *   - it reaps every orphan of the namespace;
 *   - when the command ends it reports the command's wait status and ends,
 *     and the kernel kills whatever is left in the namespace.
 * It reports on a pipe, one record each time: running (the command was
 * executed) or failed (a stage failed, in it or in the command's child),
 * then exited.
 *
 * It is a copy of its parent's memory, and the service's code runs beside
 * it: so it holds nothing the service may not have.  It is non-dumpable
 * from its first instruction (its /proc/PID/environ, maps and mem are the
 * kernel's to refuse: EACCES unless the reader has cap_sys_ptrace), and
 * before the command exists the caller's scrub zeroes, in the copy, what
 * belongs to others (other services' environment, the parent's own
 * environment): what a cap_sys_ptrace reader would find.  The command
 * is dumpable again as any process (execve resets it). */
#ifndef CAPINIT_SUPERVISE_REAPER_H
#define CAPINIT_SUPERVISE_REAPER_H

#include <sys/types.h>

#include "privilege.h"

#define REAPER_SIGNAL_MAIN 0x63617069  /* sigqueue value: to the command */

enum reaper_kind { REAPER_FAILED, REAPER_RUNNING, REAPER_EXITED };

typedef struct reaper_report_s {
  int kind;                /* enum reaper_kind */
  int status;              /* REAPER_EXITED: the command's wait status */
  priv_fail f;             /* REAPER_FAILED */
} reaper_report;

/* A child in a new PID namespace (fork semantics: a copy of this process,
 * no exec), non-dumpable.  Returns the pid, 0 in the child, -1 with errno. */
pid_t reaper_fork(void);

/* The caller's scrub: zero, in the reaper's copy, every secret of the
 * parent that is not the command's own (argv and envp must stay).  It runs
 * in the reaper: plain memory writes, no allocation, no stdio. */
typedef void reaper_scrub_fn(void *arg);

/* In that child, after priv_apply() without PRIV_SIGNALS (its signals stay
 * blocked): scrub(scrub_arg), then start argv, reap, report on report_fd.
 * close_fd (>= 0) is closed once the command runs (the readiness
 * descriptor: the service's own, not the reaper's).  Never returns. */
void reaper_run(char *const *argv, char *const *envp, int report_fd, int close_fd,
                reaper_scrub_fn *scrub, void *scrub_arg) __attribute__((noreturn));

/* Zero a NUL-terminated string in place (for scrubs): a write the compiler
 * keeps, though nothing reads the string again. */
void reaper_wipe(char *s);

/* The same for a stage that failed before reaper_run. */
void reaper_fail(int report_fd, priv_fail const *f) __attribute__((noreturn));

#endif

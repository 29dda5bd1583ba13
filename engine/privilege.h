/* engine/privilege.h -- the privilege engine: what happens between
 * fork and exec (or, in capexec, before exec), in the fixed order of
 * docs/design.md.  The caller parses and resolves everything (conf/),
 * and builds the environment before the fork (priv_environment, the one
 * function here that allocates); the engine's steps only make syscalls,
 * allocate nothing and touch no shared state, so they may run in a
 * vfork-style child.  Every step is checked: on
 * any failure it stops and says which stage failed, the errno, and the
 * capability or resource it was working on. */
#ifndef CAPINIT_SUPERVISE_PRIVILEGE_H
#define CAPINIT_SUPERVISE_PRIVILEGE_H

#include <stdint.h>

#include "../conf/stages.h"
#include "../conf/svc.h"

typedef struct priv_fail_s {
  int stage;               /* enum priv_stage */
  int err;                 /* errno */
  int arg;                 /* the capability or RLIMIT_* resource, or -1;
                              PRIV_ARG_STDIO at stage session: the
                              launcher's own setup of descriptors 0, 1, 2
                              and the readiness descriptor failed */
} priv_fail;

#define PRIV_ARG_STDIO (-2)

/* What to apply besides the privilege stages. */
enum {
  PRIV_SESSION = 1,        /* setsid(): a new session and process group,
                              and a new session keyring */
  PRIV_SIGNALS = 2,        /* unblock every signal; default dispositions
                              for priv_signals_to_reset */
  PRIV_DEFAULTS = 4,       /* directory "/" and umask 022 when not set
                              (capinit); without it, only keys that are
                              set (capexec, a chain-loader) */
  PRIV_CARD_TAKEN = 8,     /* the card's address is another running
                              service's (capinit found it): stage address
                              refuses it, EADDRINUSE */
};

/* The signals (bit sig - 1) whose disposition PRIV_SIGNALS sets to
 * SIG_DFL: every one by default (capexec: it cannot know what its caller
 * ignored).  capinit, which knows its own dispositions, lists only the
 * ones it ignores: execve resets caught signals by itself. */
extern uint64_t priv_signals_to_reset;

/* Set (by capinit and capexec, from CAPINIT_SECCOMP=if-available): a
 * kernel or emulator without seccomp runs services without their
 * system-call filter instead of refusing them at stage filter.  Where the
 * kernel has seccomp, the filter is loaded whatever this says. */
extern int priv_filter_optional;
/* Read CAPINIT_SECCOMP into priv_filter_optional; returns whether this
 * kernel has seccomp (1) or not (0: every filter fails, or is skipped). */
int filter_configure(void);

/* The highest capability number of the running kernel
 * (/proc/sys/kernel/cap_last_cap, or probed with PR_CAPBSET_READ). */
unsigned priv_last_cap(void);

/* The calling process's effective, permitted and inheritable sets, both
 * of the kernel's 32-bit words (capget): 0, or -1 (errno). */
typedef struct priv_caps_s {
  uint64_t eff, prm, inh;
} priv_caps;
int priv_caps_get(priv_caps *c);

/* Apply stages SESSION to NNP.  Returns 0, or -1 with *f filled. */
int priv_apply(svc const *s, unsigned flags, unsigned last_cap, priv_fail *f);

/* priv_apply(), then execve(argv[0], argv, envp).  Returns only on
 * failure, with *f filled. */
void priv_exec(svc const *s, unsigned flags, unsigned last_cap,
               char *const *argv, char *const *envp, priv_fail *f);

/* "raise ambient cap_net_raw" -- what failed, for "unable to %s: %s". */
char *priv_fail_describe(priv_fail const *f, svc const *s, char *buf, size_t len);

/* When stage, for s, needs a capability that a launcher with bounding
 * set bnd lacks (capinit in a container that did not give it one): the
 * sentence that says so, "capinit holds no cap_setpcap (the container's
 * bounding set): add it to the container, or drop securebits from
 * web.svc", in buf.  NULL: it lacks none. */
char *priv_lacks_text(int stage, svc const *s, uint64_t bnd, char *buf, size_t len);
/* Why a stage failed, after "at stage NAME: ": priv_lacks_text() for an
 * EPERM that capinit's own bounding set explains, else "unable to
 * ACTION: strerror" (len: at least 16). */
char *priv_fail_reason(priv_fail const *f, svc const *s, char *buf, size_t len);

/* The documented exit status of capexec for a failed stage
 * (stage_exit_status(), and 127 for a command not found). */
int priv_fail_exit_code(priv_fail const *f);

/* The environment a service starts with: LISTEN_PID and LISTEN_FDS when
 * it has listen sockets (LISTEN_PID first, its value written by the exec
 * stage), PATH, then the service's environment keys (which may replace
 * PATH; they cannot name LISTEN_*), then extra (e.g. NOTIFY_SOCKET=...,
 * may be NULL).  One malloc'd block, made by the caller before the fork:
 * not part of the engine's steps. */
#define PRIV_LISTEN_PID "LISTEN_PID="
#define PRIV_LISTEN_TEXT 40
char **priv_environment(svc const *s, char const *extra);

#ifdef PRIV_FAULT
/* Test builds only: make this stage fail with EPERM as if the kernel had
 * refused it (see tests/system/test_faults.sh). -1: none. */
extern int priv_fault_stage;
#endif

#endif

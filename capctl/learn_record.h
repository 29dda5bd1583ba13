/* capctl/learn_record.h -- what a traced run showed: each capability the
 * kernel checked for the service, granted or refused, with the system
 * calls and commands that led to the checks. */
#ifndef CAPINIT_CAPCTL_LEARN_RECORD_H
#define CAPINIT_CAPCTL_LEARN_RECORD_H

#include <stdint.h>
#include <sys/types.h>

#include "learn_files.h"
#include "learn_trace.h"

#define LEARN_CAPS 64
#define LEARN_WHERE 8      /* distinct (syscall, command) kept per capability */
#define LEARN_PIDS 256     /* processes whose last system call is kept */

/* The proposal's securebits: noroot, noroot-locked, keep-caps-locked (a
 * uid switch clears the capabilities, and nothing keeps them), or
 * noroot, noroot-locked (root's own behaviour at a uid switch: cleared,
 * unless the process asked for keep-caps first) */
#define LEARN_SECUREBITS_LOCKED 0x23u
#define LEARN_SECUREBITS_ROOT 0x03u
enum { LEARN_SB_UNPROVEN, LEARN_SB_PROVEN, LEARN_SB_KEEPCAPS };

typedef struct learn_where_s {
  long nr;                 /* -1: none seen before the check */
  char comm[17];
  char obj[64];            /* what the first check's call was on, from its
                              arguments' values ("uid 1234"), or "" */
} learn_where;

/* The checks of one capability: granted, refused, and quiet (granted or
 * not, a check the kernel makes only to adjust what it does, which no
 * service needs the capability for: learn_quiet). */
typedef struct learn_cap_s {
  unsigned long granted, refused, quiet;
  char const *quiet_why;   /* of the last quiet one */
  learn_where where[LEARN_WHERE];     /* of the granted and refused */
  unsigned nwhere;
  learn_where qwhere[LEARN_WHERE];    /* of the quiet */
  unsigned nqwhere;
  unsigned long asked;     /* a process that had switched from uid 0 named
                              it in the permitted set it asked of capset(2),
                              which checks no capability (learn_capset) */
  char asked_by[17];       /* the first one's command */
} learn_cap;

/* A process of the service: its last system call and its command. */
typedef struct learn_proc_s {
  pid_t pid;
  long nr;
  unsigned long args[6];
  char comm[17];
  int pend_cap, pend_opts; /* a check begun (LK_CAP_ENTRY), its result to come */
} learn_proc;

typedef struct learn_record_s {
  char const *capexec;     /* the setup's program: its checks are not the service's */
  int started;             /* a program other than capexec was executed */
  unsigned long lost;      /* records the kernel dropped */
  learn_cap cap[LEARN_CAPS];
  learn_proc proc[LEARN_PIDS];
  unsigned nproc;
  learn_trace const *trace;
  pid_t *seen;             /* every pid the trace showed (the table above
                              forgets the oldest when full): the service's;
                              a hash set (0: free), seencap a power of 2 */
  size_t nseen, seencap;
  learn_files files;       /* the files written; files.fd < 0 and no marks: unknown */
  int uid0;                /* the file runs the service as uid 0 */
  char const *user;        /* proposed, proven by --check (learn.c), or 0 */
  char const *no_user;     /* why none was, when it was tried, or 0 */
  unsigned securebits;     /* proposed: LEARN_SECUREBITS_LOCKED, or
                              LEARN_SECUREBITS_ROOT (learn.c) */
  int securebits_why;      /* LEARN_SB_UNPROVEN (no --check), LEARN_SB_PROVEN
                              (the check passed with it), LEARN_SB_KEEPCAPS
                              (the check failed with keep-caps locked) */
  int files_widened;       /* the check failed with the directories learned:
                              the proposal widens each (learn_files_widen) */
  int files_dropped;       /* the check failed with the file system learned,
                              widened too: the proposal keeps the file's own
                              keys */
  char keepcaps[17];       /* the command of the first of the service's
                              processes that asked for keep-caps
                              (prctl(PR_SET_KEEPCAPS, 1), or
                              PR_SET_SECUREBITS), or "" */
  char capset_unread[17];  /* the command of the first of the service's
                              processes that called capset(2) when the
                              source cannot read the sets asked, or "" */
  char capset_root[17];    /* of the first capset(2) not proposed: as uid
                              0, or its permitted set unchanged */
  char const *dir;         /* the directory the service starts in: its
                              file's, or learn's own (capexec keeps it) */
  int own_tmp;             /* the file gives it a /tmp of its own, which
                              learn does not watch (made after its marks) */
} learn_record;

/* One line of the trace: learn_line_fn of learn_run.h. */
void learn_record_line(char *line, void *record);

/* Is pid one of the service's processes (or capexec's) that the trace
 * showed? */
int learn_record_has(learn_record const *r, pid_t pid);
/* The command of pid, or "?" */
char const *learn_record_comm(learn_record const *r, pid_t pid);

/* The capabilities granted (not only quietly) or asked of capset(2)
 * (learn_capset), and those only refused. */
uint64_t learn_granted(learn_record const *r);
uint64_t learn_refused_only(learn_record const *r);

/* What a capset(2) with e's sets asks that the proposal must have:
 * capset checks no capability, but refuses (EPERM) a permitted set beyond
 * the one the process has.  A process that switched from uid 0 (keeping
 * its capabilities with keep-caps) and then names a permitted set other
 * than the one it had asks to keep that set: what it asked, within what
 * it had.  One as uid 0, or that leaves its permitted set as it was (its
 * effective set made from it, as after capget(2)), asks nothing a smaller
 * proposal would refuse: 0. */
uint64_t learn_capset(learn_event const *e);

/* Is a check of cap made in system call nr with opts (-1: unknown) one of
 * the kernel's quiet ones?  Its reason, or NULL. */
char const *learn_quiet(int cap, long nr, int opts);

/* What system call nr with args acted on, from their values ("fd 3, uid
 * 1234"), into buf ("" when its arguments name nothing by value: a path,
 * an address). */
char *learn_object(long nr, unsigned long const *args, char *buf, size_t len);
/* "fchown (prog): fd 3, uid 1234; setpriority (prog): nice -5" into buf:
 * the calls that have an object; "" when none has. */
char *learn_objects_format(learn_where const *w, unsigned n, char *buf, size_t len);

/* "bind (prog), setsockopt (prog)" into buf. */
char *learn_where_format(learn_where const *w, unsigned n, char *buf, size_t len);

/* The name of system call nr on this architecture, or NULL. */
char const *learn_syscall_name(long nr);

#endif

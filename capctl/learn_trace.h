/* capctl/learn_trace.h -- capctl learn's view of the kernel's tracing:
 * tracefs, an instance of its own, and the event sources that say which
 * capability the kernel checked for which process. */
#ifndef CAPINIT_CAPCTL_LEARN_TRACE_H
#define CAPINIT_CAPCTL_LEARN_TRACE_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

/* One record of the instance's trace, parsed. */
enum learn_kind {
  LK_OTHER, LK_CHECK, LK_SYSCALL, LK_EXEC, LK_FORK, LK_LOST,
  LK_CAP_ENTRY, LK_CAP_RET,  /* a check in two records: its start, its result */
  LK_CAPSET                  /* what a process asked of capset(2) */
};
typedef struct learn_event_s {
  enum learn_kind kind;
  pid_t pid;
  char comm[17];
  int cap, ret;            /* LK_CHECK; cap of LK_CAP_ENTRY, ret of LK_CAP_RET */
  int opts;                /* LK_CHECK, LK_CAP_ENTRY: CAP_OPT_*, or -1 unknown */
  long nr;                 /* LK_SYSCALL */
  unsigned long args[6];   /* LK_SYSCALL: its arguments, as registers (the
                              values; a path or a struct is an address) */
  char const *filename;    /* LK_EXEC: into the line given */
  pid_t child;             /* LK_FORK, with its command in comm */
  unsigned euid;           /* LK_CAPSET: the process's, at the call */
  uint64_t ask_perm, ask_eff;  /* LK_CAPSET: the sets asked */
  uint64_t had_perm, had_eff;  /* LK_CAPSET: the sets it had */
} learn_event;

/* An event source: where the kernel's capability checks come from.  The
 * tracepoint capability:cap_capable (6.18 has it, 6.1 not); a kprobe on
 * cap_capable, for kernels without it (learn_kprobe.c). */
typedef struct learn_source_s {
  char const *name;
  char const *probe;       /* the file that must exist, from tracefs's root */
  /* the events, as events/X/enable (%s: the group of our own) */
  char const *const *events;
  /* make the events, in group; 0, 1 with GROUP/cap_capset too (what a
   * process asks of capset(2)), or -1 (err filled).  NULL: none to make */
  int (*define)(int tracefs, char const *group, char *err, size_t errlen);
  void (*undefine)(int tracefs, char const *group);
  /* the record "EVENT: FIELDS" of a capability check (or of capset's
   * sets) into e: 0, or -1 */
  int (*parse_check)(char const *event, char const *fields, learn_event *e);
} learn_source;

/* The sources, the first this kernel has chosen. */
extern learn_source const learn_sources[];
extern size_t const learn_sources_n;

typedef struct learn_trace_s {
  int tracefs;             /* the tracefs root, a directory */
  int inst;                /* our instance, a directory */
  int pipe;                /* its trace_pipe, non-blocking */
  char name[64];           /* instances/NAME */
  char const *where;       /* of tracefs: "/sys/kernel/tracing", or ours */
  char group[64];          /* of the events the source made, if any */
  int defined;             /* they are made */
  int capset;              /* with GROUP/cap_capset, whose records
                              (LK_CAPSET) are the sets a process asks of
                              capset(2); without, only the call is seen
                              (raw_syscalls/sys_enter: their addresses) */
  learn_source const *src;
  struct learn_files_s *files;  /* drained with the trace, when set */
} learn_trace;

/* Open tracefs (where it is mounted, or a mount of its own that no
 * namespace sees), make the instance and choose the source.  0, or -1 with
 * errno and err filled. */
int learn_trace_open(learn_trace *t, char *err, size_t errlen);
/* Follow pid and its children, enable the events.  0, or -1. */
int learn_trace_start(learn_trace *t, pid_t pid, char *err, size_t errlen);
/* Stop the events, remove the instance.  0, or -1 (err filled). */
int learn_trace_close(learn_trace *t, char *err, size_t errlen);
/* One line of trace_pipe (without its newline) into e. */
void learn_trace_parse(learn_trace const *t, char *line, learn_event *e);

#endif

/* capctl/learn_run.h -- running a service for capctl learn: traced, and
 * on trial with a check command. */
#ifndef CAPINIT_CAPCTL_LEARN_RUN_H
#define CAPINIT_CAPCTL_LEARN_RUN_H

#include "learn_trace.h"

typedef struct learn_run_s {
  char const *capexec;     /* the program that applies a service file */
  char const *file;        /* the service file it applies */
  unsigned seconds;        /* the run ends when the service exits, or then */
  char const **fresh;      /* paths removed before each run (--fresh), so
                              that each is a first start, as after a boot */
  unsigned nfresh;
} learn_run;

/* What became of a run: the service's wait status, or still running when
 * its time was up (then it was stopped). */
typedef struct learn_end_s {
  int running;
  int status;
} learn_end;

/* Called for each line of the trace, in order. */
typedef void learn_line_fn(char *line, void *data);

/* Run the service under capexec, traced by t from before its first
 * instruction; each line of the trace to fn.  With check (or 0), when the
 * service has exited or its time is up, the check command runs as in
 * learn_run_check, still traced, before the service is stopped.  0, or
 * -1 (err filled). */
int learn_run_traced(learn_run const *r, char const *check, learn_trace *t, learn_line_fn *fn, void *data,
                     learn_end *end, char *err, size_t errlen);

/* Run the service, then, when it has exited or its time is up, the check
 * command (/bin/sh -c CMD, CAPCTL_LEARN_EXIT the service's exit status or
 * "running"; killed when it runs longer than the service's time), then
 * stop the service.  The check's wait status, or -1 (err filled). */
int learn_run_check(learn_run const *r, char const *check, char *err, size_t errlen);

/* The signal (INT, TERM, HUP) that asked learn to end during a run, or
 * 0: that run was cut short and its service stopped. */
int learn_interrupted(void);

#endif

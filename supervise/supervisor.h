/* supervise/supervisor.h -- capinit's supervisor: one process, one event
 * loop (supervisor.c), one state machine per service (service.c).
 *
 * Every service has a wanted state (up or down) and a current state; the
 * loop turns events (a child's exit, readiness, a timer, a control
 * request) into calls of service_event(), which is the one place where
 * current states change.  service_settle() (order.c) then starts and
 * stops what the wanted states and the dependencies allow.  This header
 * holds what they all share: the service and the supervisor. */
#ifndef CAPINIT_SUPERVISE_SUPERVISOR_H
#define CAPINIT_SUPERVISE_SUPERVISOR_H

#include <stdint.h>
#include <sys/resource.h>
#include <sys/types.h>

#include "../conf/svc.h"
#include "maincmd.h"

#define LOG_LINE_MAX 1024         /* longer lines are cut */

typedef struct logsink_s {
  uint64_t retry_at;       /* when to try opening the file again */
  uint64_t size;           /* bytes in the current file */
  uint64_t lines, dropped;
  char *partial;           /* an incomplete last line: LOG_LINE_MAX bytes,
                              allocated when the first one arrives */
  uint16_t npartial;
  unsigned char diverted;  /* the file cannot be written: lines go to the
                              console, which was told */
  int pipe;                /* read end of stdout+stderr, -1 */
  int wpipe;               /* write end, held across restarts, -1 */
  int file;                /* open sink, -1 */
} logsink;

#define STATUS_TEXT_MAX 128  /* STATUS= text, with its NUL */

/* One per service; capinit keeps thousands, so the fields are ordered to
 * pack (176 bytes: malloc's 192-byte class). */
typedef struct service_s {
  svc *spec;
  svc *next_spec;          /* reload: takes effect at the next start */
  uint64_t deadline;       /* monotonic ms, 0 = none */
  uint64_t spawned_at, up_at, down_at;
  char const *failure;     /* why it is failed, for status (static text) */
  char *status_text;       /* STATUS= (STATUS_TEXT_MAX bytes), or NULL */
  logsink log;
  pid_t pid;               /* main process (the command itself) */
  pid_t stop_pid;          /* a oneshot's stop-command */
  int ready_pipe;          /* fd:N readiness, -1 */
  int notify_sock;         /* notify readiness, -1 */
  int reaper_fd;           /* private-pids: the reaper's reports, -1 */
  unsigned mark;           /* service_want()'s visit mark */
  unsigned restarts;
  uint32_t backoff_ms;
  int last_status;         /* wait status of the last exit, -1 none */
  int fail_stage, fail_errno; /* -1 none */
  int fail_arg;            /* priv_fail.arg of the failed stage */
  unsigned char state;     /* enum state (service.h) */
  unsigned char wanted_up;
  unsigned char explicit_down; /* stopped by request: do not restart */
  unsigned char removed;   /* gone from the configuration: forget when down */
} service;

/* A step of PID 1's boot (mounts, modules, fstab...), for capctl blame:
 * monotonic ms. */
#define BOOT_PHASES_MAX 8
typedef struct boot_phase_s {
  char const *name;        /* static text */
  uint64_t start, end;
} boot_phase;

typedef struct bad_command_s {
  char *path;
  char const *why;         /* static text: "its command ..." */
} bad_command;

typedef struct supervisor_s {
  char const *confdir, *rundir;
  capinit_conf conf;
  service **v;
  size_t n;
  unsigned last_cap;
  int shutting_down;
  int control;             /* listening socket, -1 */
  int initctl;             /* /run/initctl (machine), -1 */
  struct rlimit nofile;    /* what capinit started with: services get it */
  int machine;             /* PID 1 of a machine: signals mean reboot... */
  int action;              /* after the shutdown: RB_AUTOBOOT, RB_POWER_OFF,
                              RB_HALT_SYSTEM (machine), or 0: exit */
  int no_securebits, no_ambient;  /* the kernel lacks them */
  int seccomp;                    /* the kernel has seccomp (filter_configure) */
  bad_command *bad_commands; /* files whose file capabilities are wrong */
  size_t nbad_commands;
  int bad_commands_lost;   /* one could not be recorded: refuse all */
  char **emergency_shell;
  uint64_t started_ms;     /* capinit's start (monotonic: since the kernel's) */
  uint64_t ready_ms;       /* when every service first was ready or failed, 0 */
  int ready_reported;
  boot_phase phases[BOOT_PHASES_MAX];
  size_t nphases;
  maincmd main;            /* --container -- CMD: main.argv set */
} supervisor;

extern supervisor sv;

/* Record a phase of the boot that started at start and ends now. */
void boot_phase_done(char const *name, uint64_t start);
/* The event loop, until every service is down after a shutdown: 0, or
 * 111 when it cannot start. */
int supervisor_run(void);

#endif

/* supervise/supervisor.h -- capinit's supervisor: one process, one event
 * loop, one state machine per service.
 *
 * Every service has a wanted state (up or down) and a current state; the
 * loop turns events (a child's exit, readiness, a timer, a control
 * request) into calls of service_event(), which is the one place where
 * current states change.  service_settle() then starts and stops what the
 * wanted states and the dependencies allow. */
#ifndef CAPINIT_SUPERVISE_SUPERVISOR_H
#define CAPINIT_SUPERVISE_SUPERVISOR_H

#include <stdint.h>
#include <sys/resource.h>
#include <sys/types.h>

#include "../conf/svc.h"
#include "console.h"

enum state {
  ST_DOWN,        /* not running */
  ST_STARTING,    /* spawned, not ready yet */
  ST_UP,          /* ready (a oneshot: exited 0) */
  ST_STOPPING,    /* stop signal sent (a oneshot: stop-command running) */
  ST_BACKOFF,     /* died; waiting before the next start */
  ST_FAILED,      /* a privilege stage failed, the file was refused, or a
                     run failed that its restart policy does not restart:
                     no automatic retry */
};
#define ST_COUNT (ST_FAILED + 1)   /* ST_FAILED is the last */
extern char const *const state_names[];  /* one per state, checked: service.c */

enum event {
  EV_SPAWNED,     /* fork done */
  EV_SPAWN_FAILED,/* a stage before exec failed (arg: stage), or fork failed */
  EV_EXECED,      /* execve succeeded */
  EV_READY,       /* readiness: fd:N newline, READY=1 */
  EV_EXITED,      /* the main process ended (arg: wait status) */
  EV_TIMEOUT,     /* the service's deadline passed */
  EV_STOP,        /* begin stopping */
  EV_REFUSED,     /* its file is invalid: it fails without a start */
  EV_CLEARED,     /* wanted up again or stopped on purpose: a failure ends */
};

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
  unsigned char state;     /* enum state */
  unsigned char wanted_up;
  unsigned char explicit_down; /* stopped by request: do not restart */
  unsigned char removed;   /* gone from the configuration: forget when down */
  unsigned char execed, ready_seen;
  unsigned char not_ready; /* stopped by ready-timeout: its end is a failure */
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
} supervisor;

extern supervisor sv;

uint64_t now_ms(void);

/* service.c */
void service_event(service *s, enum event ev, int arg);
void service_settle_all(void);
/* Start or stop this one service if its wanted state and dependencies
 * allow it now (service_settle_all() does the rest). */
void service_settle(service *s);
service *service_by_name(char const *name);
service *service_by_pid(pid_t pid);
/* The pid of the command itself: the main process, or with private-pids
 * the reaper's child (0 when there is none). */
pid_t service_command_pid(service const *s);
/* Send sig to the command itself (capctl signal). */
void service_signal(service const *s, int sig);
/* The wait status of the command that just ended: status, or with
 * private-pids the one its reaper reported (reaper_fd is closed). */
int service_command_status(service *s, int status);
void service_want(service *s, int up);
/* capctl restart: stop it if it runs, then start it again (a refused one
 * stays as it is) */
void service_restart(service *s);
int service_is_settled_down(service const *s);

/* log.c */
int log_open_pipe(service *s, int *child_end);
void log_read(service *s);
void log_close(service *s);
void log_line(service *s, char const *fmt, ...) __attribute__((format(printf, 2, 3)));
int log_file_path(service const *s, char *buf, size_t len);

/* control.c: the control socket and its loop (the other control_*.c files
 * serve its requests: control_client.h) */
#define CONTROL_CLIENTS_MAX 64
#define CONTROL_FDS_MAX (1 + CONTROL_CLIENTS_MAX)  /* the socket and its clients */
struct pollfd;
int control_listen(void);
size_t control_fds(struct pollfd *p, size_t max, uint64_t *deadline);
void control_handle(struct pollfd const *p, size_t n);
void control_close(void);
/* Whether a client that asked for the shutdown (capctl poweroff, reboot,
 * halt) is still connected, within CONTROL_ASKER_MS of its request:
 * capinit ends only once it has read its reply and gone, so that the
 * end (PID 1's last signals, a PID namespace's end) cannot kill it. */
#define CONTROL_ASKER_MS 5000u
int control_asker_waiting(void);

/* initctl.c: /run/initctl, sysvinit's FIFO (PID 1 of a machine) */
int initctl_open(void);
void initctl_read(int fd);

/* supervisor.c */
int supervisor_load(int initial);
/* mkdir -p: every missing component with mode. */
int mkdir_p(char const *path, mode_t mode);
/* Record a phase of the boot that started at start and ends now. */
void boot_phase_done(char const *name, uint64_t start);
/* Refuse every service whose command is path (PID 1: filecaps mismatch). */
void supervisor_refuse_command(char const *path, char const *why);
/* Stop every service, then do action (see supervisor.action). */
void supervisor_shutdown(int action, char const *why);
int supervisor_run(void);

#endif

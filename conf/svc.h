/* conf/svc.h -- a service as its file declares it, parsed and resolved.
 *
 * conf/ only reads files: it never changes the system.  Everything a
 * service needs at start (ids, capability masks, argv) is resolved here, in
 * the parent, so that the child between fork and exec only makes syscalls.
 */
#ifndef CAPINIT_CONF_SVC_H
#define CAPINIT_CONF_SVC_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>
#include <sys/resource.h>

#include "container.h"
#include "diag.h"

#define SVC_NAME_MAX 64
#define SVC_DIGEST_LEN 32        /* svc.digest: SHA-256 */
#define SVC_DIGEST_TEXT (2 * SVC_DIGEST_LEN + 1)

enum svc_type { SVC_LONGRUN, SVC_ONESHOT };
enum svc_mode { SVC_LEGACY, SVC_NOROOT };
enum svc_ready { READY_EXEC, READY_FD, READY_NOTIFY };
enum svc_restart { RESTART_ALWAYS, RESTART_ON_FAILURE, RESTART_NEVER };
enum svc_log { LOG_FILE, LOG_CONSOLE, LOG_KMSG, LOG_NONE };

/* Securebits as the kernel numbers them (linux/securebits.h). */
#define SECBITS_NOROOT_MODE 0x2fu

/* "all capabilities", whatever the running kernel's last one is. */
#define CAPS_ALL UINT64_MAX

typedef struct svc_rlimit_s {
  unsigned char set;
  rlim_t soft, hard;
} svc_rlimit;

/* Every key of the service-file table has one slot here: the line it was
 * set on (0 when absent), for duplicate detection and for pointing later,
 * cross-key and cross-service, problems at the right line. */
enum svc_key_id {
  K_DESCRIPTION, K_TYPE, K_COMMAND, K_STOP_COMMAND, K_DIRECTORY,
  K_ENVIRONMENT, K_UMASK, K_USER, K_GROUP, K_GROUPS, K_RLIMIT, K_MODE,
  K_SECUREBITS, K_CAPABILITIES, K_BOUNDING, K_NO_NEW_PRIVILEGES, K_DEPENDS,
  K_AFTER, K_READY, K_READY_TIMEOUT, K_RESTART, K_RESTART_DELAY,
  K_RESTART_DELAY_MAX, K_STOP_SIGNAL, K_STOP_TIMEOUT, K_LOG, K_ENABLED,
  K_READ_ONLY, K_READ_WRITE, K_BIND, K_BIND_RO, K_ROOT_DIRECTORY, K_PRIVATE_TMP,
  K_PRIVATE_PIDS, K_NETWORK, K_HOSTNAME, K_PRIVATE_IPC, K_LISTEN, K_WRITES_STATE,
  K_USER_NAMESPACES, K_SYSTEM_CALLS, K_ALLOW_SUID, K_PRIVATE_DEVICES, K_DEVICES,
  K_PROC_SUBSET, K_ADDRESS, K_GATEWAY, K_COUNT
};

/* capinit keeps one per service: the fields are ordered to pack (272
 * bytes on 64-bit: musl's 288-byte slot, which 240 bytes took already). */
typedef struct svc_s {
  char *name;              /* NAME of NAME.svc, "" when invalid; it lives
                              in file's block ("FILE\0NAME\0") */
  char *file;
  /* line[K_*]: the line each key was set on, 0 when absent;
   * line[K_COUNT + RLIMIT_*] the same for each rlimit-* key
   * (SVC_RLIMIT_LINE).  Needed while loading and checking:
   * svc_drop_lines() frees them (capinit keeps thousands of specs) and
   * leaves every line 0. */
  unsigned *line;

  char *description;
  char **argv;             /* NULL-terminated; argv[0] absolute */
  char **stop_argv;
  char *directory;
  char **env;              /* NAME=VALUE, NULL-terminated */
  size_t nenv;

  char *user;              /* as written, for messages; NULL = root */
  char *group_text;        /* as written; resolved by svc_finish() */
  char *groups_text;
  gid_t *groups;
  size_t ngroups;
  svc_rlimit *rlimit;      /* RLIM_NLIMITS entries; NULL: no rlimit-* key */
  uint64_t caps;           /* inheritable = ambient = post-exec P/E */
  uint64_t bounding;       /* CAPS_ALL means every cap the kernel has */

  svc_container *ct;           /* NULL: no container key */

  char **depends;
  size_t ndepends;
  char **after;
  size_t nafter;

  uid_t uid;
  gid_t gid;
  mode_t umask;
  enum svc_type type;
  enum svc_mode mode;
  unsigned securebits;     /* final value: from mode, or the key */
  enum svc_ready ready;
  uint32_t ready_timeout_ms;
  enum svc_restart restart;
  uint32_t restart_delay_ms;
  uint32_t restart_delay_max_ms;
  int stop_signal;
  uint32_t stop_timeout_ms;
  enum svc_log log;
  /* one bit each: five bytes would take the struct out of its class */
  unsigned char umask_set : 1;     /* the umask key was given */
  unsigned char no_new_privs : 1;
  unsigned char enabled : 1;
  unsigned char writes_state : 1;  /* writes-capinit-state = yes: it may write
                                      capinit's state (conf/state_guard.h) */
  unsigned char refused : 1;       /* an error was found: it must not start */
  unsigned char user_namespaces : 1;  /* may make user namespaces (final:
                                         svc_finish) */
  unsigned char suid_refused : 1;  /* the filter refuses set-id modes: a
                                      contained service without allow-suid */
  unsigned short ready_fd;         /* ready = fd:N (3 to 1023) */
  /* enum syscall_group bits: the groups the system-call filter denies
   * (final: svc_finish), and those the file allows (+@group) */
  unsigned short syscalls_deny, syscalls_allow;
  /* What it was loaded from (svc_load_file, svc_load_buffer): SHA-256 of
   * the file's bytes, then of the uid, gid and groups its names resolved
   * to.  capctl verify judges a running service only against a file whose
   * digest is the one capinit started it from; zero for a -k spec. */
  unsigned char digest[SVC_DIGEST_LEN];
} svc;

/* The global settings of capinit.conf. */
typedef struct capinit_conf_s {
  char *file;
  char *log_directory;
  uint64_t log_max_size;
  unsigned log_keep;
  char *control_group;
  gid_t control_gid;
  int control_group_set;
  char *power_group;       /* may power off, reboot, halt */
  gid_t power_gid;
  int power_group_set;
  char **emergency_shell;
  uint32_t unmount_timeout_ms;  /* PID 1: each file-system step of the shutdown */
} capinit_conf;

typedef struct conf_ctx_s {
  char const *root;        /* users and groups: ROOT/etc/passwd, ROOT/etc/group */
  diag_list *diags;
  int command_optional;    /* capexec: the command may come after "--" */
  int live;                /* checking for this machine: compare with our own
                              bounding set and warn */
  int bounding_read;       /* bounding: this process's bounding set, read
                              at the first service that names capabilities */
  uint64_t bounding;
  /* capinit's own paths: a service that could write them is refused
   * (conf/state_guard.h); NULL: not judged (explain, capexec, fuzzing) */
  struct capinit_state_s const *state;
} conf_ctx;

/* One service file; the service is named after it (NAME.svc).  Returns a new svc, never NULL unless out of memory; problems go
 * to ctx->diags and set svc->refused. */
svc *svc_load_file(conf_ctx *ctx, char const *path);

/* The same, from the file's text (fuzzing, tests). */
svc *svc_load_buffer(conf_ctx *ctx, char const *path, char const *buf, size_t len);

/* The same, from "key=value" strings (capexec -k); file is the name used
 * in messages. */
svc *svc_load_pairs(conf_ctx *ctx, char const *file, char const *const *pairs, size_t n);

void svc_free(svc *s);

/* s->digest in hexadecimal, into text (SVC_DIGEST_TEXT bytes). */
char const *svc_digest_text(svc const *s, char *text);

/* This process's bounding set, read from the kernel (PR_CAPBSET_READ):
 * what a live load checks against, and what capinit holds (the
 * container's bounding set, engine/privilege.h). */
uint64_t svc_own_bounding(void);

/* Forget the line numbers (after validation): every line reads 0. */
void svc_drop_lines(svc *s);

#define SVC_RLIMIT_LINE(s, resource) ((s)->line[K_COUNT + (resource)])

/* Fill defaults that depend on other keys and check one service on its own
 * (everything but dependencies). Called by the loaders. */
void svc_finish(conf_ctx *ctx, svc *s);

/* A whole directory of services (DIR/services, *.svc) or a list of files. */
typedef struct svc_set_s {
  svc **v;
  size_t n;
} svc_set;

/* Load the *.svc files of DIR/services, sorted by name.  Returns 0, or -1 with errno
 * when the directory itself cannot be read. */
int svc_set_load_dir(conf_ctx *ctx, svc_set *set, char const *dir);
/* The same for a directory of *.svc files. */
int svc_set_load_services(conf_ctx *ctx, svc_set *set, char const *dir);
int svc_set_add_file(conf_ctx *ctx, svc_set *set, char const *path);
/* Cross-service validation: services that could write capinit's state
 * (with ctx->state), unknown dependencies, cycles, dependencies on
 * refused services. */
void svc_set_validate(conf_ctx *ctx, svc_set *set);
/* A warning for s when another service of set has a card with s's
 * address on s's PARENT (svc_set_validate warns every pair). */
void svc_address_warn(conf_ctx *ctx, svc const *s, svc_set const *set);
svc *svc_set_find(svc_set const *set, char const *name);
void svc_set_free(svc_set *set);

int capinit_conf_load(conf_ctx *ctx, capinit_conf *c, char const *path);
void capinit_conf_defaults(capinit_conf *c);
void capinit_conf_free(capinit_conf *c);

/* Is NAME a valid service name? */
int svc_name_valid(char const *name);

#endif

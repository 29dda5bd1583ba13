/* capctl/import_model.h -- capctl import's model of one unit (imp): what
 * systemd would apply, read from the unit's lines, then capinit's keys
 * chosen and the report's lines; import_model.c's functions fill and
 * free it.  The other import_*.c files each do one step with it:
 * import_map.c's table of directives (the handlers of [Service] are
 * import_keys.c's), import_exec.c the command lines, import_cmd.c the
 * command of the service file, import_decide.c the keys once every line is
 * read, import_out.c the service file, import.c the verb. */
#ifndef CAPINIT_CAPCTL_IMPORT_MODEL_H
#define CAPINIT_CAPCTL_IMPORT_MODEL_H

#include <stddef.h>
#include <stdint.h>

#include "unit_parse.h"

/* A line of the report: a note changes nothing the service may do or
 * how it runs; a warning is a change of behaviour, or a restriction
 * capinit cannot make that does not touch privilege; an error refuses the
 * unit (with --allow-weaker a missing restriction is a warning instead). */
enum imp_level { IMP_NOTE, IMP_WARNING, IMP_ERROR };

/* The keys of the service file written, in the order they are written. */
enum imp_key {
  IK_DESCRIPTION, IK_TYPE, IK_COMMAND, IK_STOP_COMMAND, IK_READY, IK_DIRECTORY,
  IK_ENVIRONMENT, IK_UMASK, IK_RLIMIT, IK_USER, IK_GROUP, IK_GROUPS, IK_MODE,
  IK_SECUREBITS, IK_BOUNDING, IK_CAPABILITIES, IK_NNP, IK_READ_ONLY, IK_READ_WRITE,
  IK_BIND, IK_BIND_RO, IK_ROOT_DIRECTORY, IK_PRIVATE_TMP, IK_PRIVATE_DEVICES,
  IK_DEVICES, IK_PROC_SUBSET, IK_NETWORK, IK_USER_NAMESPACES, IK_SYSTEM_CALLS,
  IK_LISTEN, IK_DEPENDS, IK_AFTER, IK_READY_TIMEOUT, IK_RESTART, IK_RESTART_DELAY,
  IK_STOP_SIGNAL, IK_STOP_TIMEOUT, IK_LOG, IK_ENABLED,
  IK_NONE,                  /* a comment of its own, after the keys */
  IK_COUNT
};

typedef struct imp_note_s {
  enum imp_level level;
  enum imp_key key;        /* the key the comment stands above */
  char *where;             /* "ssh.service:12" */
  char *text;
} imp_note;

typedef struct imp_list_s {
  char **v;
  size_t n;
} imp_list;

typedef struct imp_cmd_s {
  char **argv;             /* expanded, prefixes removed */
  unsigned flags;          /* EXEC_* of unit_parse.h */
  char *where;
} imp_cmd;

typedef struct imp_cmds_s {
  imp_cmd *v;
  size_t n;
} imp_cmds;

/* A path of ReadWritePaths= and the like, with its '-' (may be missing) */
typedef struct imp_path_s {
  char *path;
  int optional;
  char *where;
} imp_path;

typedef struct imp_paths_s {
  imp_path *v;
  size_t n;
} imp_paths;

enum imp_type { T_SIMPLE, T_EXEC, T_NOTIFY, T_FORKING, T_ONESHOT, T_IDLE, T_DBUS };
enum imp_protect { P_NO, P_YES, P_FULL, P_STRICT };

/* One unit, as read: what systemd would apply, then the keys chosen. */
typedef struct imp_s {
  /* given */
  char const *root;        /* "" for the running system */
  char *unit_name;         /* "postfix@-.service" */
  char *name;              /* the service's name: "postfix@-" */
  char *dir;               /* the unit's directory, for its .socket */
  char const *outdir;
  int allow_weaker;
  unit_names names;
  /* read from the unit */
  char *description;
  enum imp_type type;
  char *type_where;
  int remain_after_exit;
  imp_cmds start, start_pre, start_post, stop, reload;
  imp_list env;            /* NAME=VALUE, the last one of a name wins */
  char *user, *group, *user_where;
  imp_list groups;
  uint64_t bounding, ambient;
  int bounding_set;
  char *bounding_where;
  imp_list securebits;
  int nnp;                 /* -1 unset */
  char *nnp_where;
  enum imp_protect protect_system;
  int protect_home;        /* 0 no, 1 yes or tmpfs, 2 read-only */
  imp_paths read_write, read_only, binds, binds_ro;
  imp_paths made_dirs;     /* optional: which of /run, /var/lib, /var/log, /var/cache */
  int private_tmp, private_devices, private_network, proc_subset;
  int private_devices_set, device_policy_closed;
  imp_list devices;
  int restrict_ns, restrict_ns_other, restrict_suid, native_only;
  int protect_proc, protect_tunables, protect_cgroups, protect_hostname;
  int stdout_null, stderr_kind, tty_stdin;  /* stderr: 0 inherit, 1 null, 2 other */
  uint64_t drop;           /* ProtectKernelModules= and the like */
  char *dir_mode[4];       /* RuntimeDirectoryMode= ... CacheDirectoryMode= */
  imp_list device_allow;   /* "WHERE SPEC" */
  unsigned syscalls_deny;  /* capinit's groups (conf/syscalls.h) */
  char *kill_mode;
  uint32_t stop_timeout_ms, start_timeout_ms, restart_delay_ms;
  char *restart, *stop_signal, *umask, *directory, *root_dir;
  imp_list rlimits;        /* "nofile = 16384" */
  imp_list after, depends, listen;
  int log_none, enabled;
  char *tty;               /* TTYPath= */
  /* the result */
  imp_list out[IK_COUNT];   /* the values of each key (several for the
                              repeatable ones) */
  imp_note *notes;
  size_t nnotes;
  size_t counts[3];        /* by level */
} imp;

/* A line of the report and a comment of the service file. */
void imp_say(imp *m, enum imp_level level, enum imp_key key, char const *where, char const *fmt, ...)
  __attribute__((format(printf, 5, 6)));
/* A restriction without an equivalent: an error, or with --allow-weaker
 * a warning. */
void imp_weaker(imp *m, enum imp_key key, char const *where, char const *fmt, ...)
  __attribute__((format(printf, 4, 5)));
void imp_set(imp *m, enum imp_key key, char const *fmt, ...) __attribute__((format(printf, 3, 4)));
void imp_add(imp *m, enum imp_key key, char const *fmt, ...) __attribute__((format(printf, 3, 4)));
char *imp_where(unit_entry const *e);

void imp_list_add(imp_list *l, char const *s);
int imp_list_has(imp_list const *l, char const *s);
/* NAME=... in l */
int imp_list_has_name(imp_list const *l, char const *name);
void imp_list_free(imp_list *l);
void imp_paths_add(imp_paths *p, char const *path, int optional, char const *where);
void imp_free(imp *m);

/* A boolean of systemd's that is off: "no", "false", "0", "off" or empty */
int imp_false(char const *v);
/* free *slot, then a copy of v there */
void imp_set_text(char **slot, char const *v);

#endif

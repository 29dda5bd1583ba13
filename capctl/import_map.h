/* capctl/import_map.h -- the rows of capctl import's table of directives
 * (import_map.c) and the handlers of [Service] (import_keys.c). */
#ifndef CAPINIT_CAPCTL_IMPORT_MAP_H
#define CAPINIT_CAPCTL_IMPORT_MAP_H

#include "import.h"

typedef struct imp_row_s imp_row;
/* v is the value with its specifiers expanded */
typedef void imp_fn(imp *m, unit_entry const *e, char const *v, imp_row const *r);
struct imp_row_s {
  char const *section;
  char const *key;         /* a trailing '*': every key that begins so */
  imp_fn *fn;
  enum imp_key out;        /* the key its comment stands above */
  char const *text;        /* what the report says of it */
};

/* "no", "false", "0", "off" or empty */
int imp_false(char const *v);
/* "KEY=VALUE: the row's text" in the report, at level */
void imp_say_row(imp *m, unit_entry const *e, imp_row const *r, enum imp_level level);
void imp_set_text(char **slot, char const *v);

imp_fn h_env, h_env_file, h_user, h_group, h_groups, h_bounding, h_ambient,
  h_securebits, h_nnp, h_protect_system, h_protect_home, h_paths, h_private,
  h_proc_subset, h_protect, h_restrict_ns, h_syscall_filter, h_syscall_arch,
  h_dirs, h_dir_mode, h_device_policy, h_device_allow, h_umask, h_workdir,
  h_rootdir, h_limit, h_timeout, h_restart, h_restart_sec, h_kill_mode,
  h_kill_signal, h_stdout, h_stdin, h_tty_path, h_sockets;

#endif

/* capctl/import_keys.h -- the handlers of [Service] directives that
 * import_map.c's table names (import_keys.c). */
#ifndef CAPINIT_CAPCTL_IMPORT_KEYS_H
#define CAPINIT_CAPCTL_IMPORT_KEYS_H

#include <stdint.h>

#include "import_map.h"

imp_fn h_env, h_env_file, h_user, h_group, h_groups, h_bounding, h_ambient,
  h_securebits, h_nnp, h_protect_system, h_protect_home, h_paths, h_private,
  h_proc_subset, h_protect, h_restrict_ns, h_syscall_filter, h_syscall_arch,
  h_dirs, h_dir_mode, h_device_policy, h_device_allow, h_umask, h_workdir,
  h_rootdir, h_limit, h_timeout, h_restart, h_restart_sec, h_kill_mode,
  h_kill_signal, h_stdout, h_stdin, h_tty_path, h_sockets;

/* capability names of systemd ("CAP_SYS_TIME") into a mask; -1 with the
 * unknown name in *bad */
int import_caps(char const *v, uint64_t *mask, int *invert, char const **bad);

#endif

/* conf/syscalls.c -- see syscalls.h. */
#include <linux/capability.h>
#include <stdio.h>
#include <string.h>
#include <sys/syscall.h>

#include "syscalls.h"

/* Each group's capability: a file that gives the service the capability
 * that makes the group's calls work means them (cap_sys_module: loading
 * modules), and the filter leaves them alone unless the file denies them.
 * The others are kernel attack surface that no capability a contained
 * service is given needs: file handles reach past every mount
 * (open_by_handle_at with cap_dac_read_search opens any file of a file
 * system by its number), io_uring and userfaultfd are where kernel
 * exploits start, and root's user keyring is shared by every uid 0.
 * chroot is not in @mount (systemd's has it): cap_sys_chroot is its own
 * capability, and postfix's master, given it, chroots its daemons. */
syscall_group_info const syscall_groups[SG_COUNT] = {
  [SG_BPF] = { "@bpf", CAP_BPF },
  [SG_DEBUG] = { "@debug", CAP_SYS_PTRACE },
  [SG_FILE_HANDLES] = { "@file-handles", -1 },
  [SG_IO_URING] = { "@io-uring", -1 },
  [SG_KEYRING] = { "@keyring", -1 },
  [SG_MODULE] = { "@module", CAP_SYS_MODULE },
  [SG_MOUNT] = { "@mount", CAP_SYS_ADMIN },
  [SG_REBOOT] = { "@reboot", CAP_SYS_BOOT },
  [SG_SWAP] = { "@swap", CAP_SYS_ADMIN },
  [SG_USERFAULTFD] = { "@userfaultfd", -1 },
};

#define M(g, name) { SG_##g, SYS_##name }
syscall_member const syscall_members[] = {
  M(BPF, bpf),
  M(DEBUG, ptrace), M(DEBUG, process_vm_readv), M(DEBUG, process_vm_writev),
  M(DEBUG, perf_event_open), M(DEBUG, pidfd_getfd),
  M(FILE_HANDLES, name_to_handle_at), M(FILE_HANDLES, open_by_handle_at),
  M(IO_URING, io_uring_setup), M(IO_URING, io_uring_enter), M(IO_URING, io_uring_register),
  M(KEYRING, add_key), M(KEYRING, keyctl), M(KEYRING, request_key),
  M(MODULE, init_module), M(MODULE, finit_module), M(MODULE, delete_module),
  M(MOUNT, mount), M(MOUNT, umount2), M(MOUNT, pivot_root),
  M(MOUNT, open_tree), M(MOUNT, move_mount), M(MOUNT, fsopen), M(MOUNT, fsconfig),
  M(MOUNT, fsmount), M(MOUNT, fspick), M(MOUNT, mount_setattr),
#ifdef SYS_umount
  M(MOUNT, umount),
#endif
  M(REBOOT, reboot), M(REBOOT, kexec_load),
#ifdef SYS_kexec_file_load
  M(REBOOT, kexec_file_load),
#endif
  M(SWAP, swapon), M(SWAP, swapoff),
  M(USERFAULTFD, userfaultfd),
};
#undef M
size_t const syscall_members_n = sizeof syscall_members / sizeof *syscall_members;

int syscall_group_from_name(char const *s)
{
  int g;
  for (g = 0; g < SG_COUNT; g++)
    if (!strcmp(s, syscall_groups[g].name)) return g;
  return -1;
}

unsigned syscalls_default_deny(uint64_t caps)
{
  unsigned deny = 0;
  int g;
  for (g = 0; g < SG_COUNT; g++)
    if (syscall_groups[g].cap < 0 || !(caps & ((uint64_t)1 << syscall_groups[g].cap))) deny |= 1u << g;
  return deny;
}

char *syscall_groups_format(unsigned mask, char *buf, size_t len)
{
  size_t at = 0;
  int g;
  if (!len) return buf;
  buf[0] = 0;
  for (g = 0; g < SG_COUNT && at < len; g++) {
    if (!(mask & (1u << g))) continue;
    int n = snprintf(buf + at, len - at, "%s%s", at ? "," : "", syscall_groups[g].name);
    if (n < 0) break;
    at += (size_t)n;
  }
  if (!mask) snprintf(buf, len, "none");
  return buf;
}

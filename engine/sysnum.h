/* engine/sysnum.h -- what raw syscall(2) calls need beyond
 * <sys/syscall.h>: the right numbers, the kernel's structures.
 *
 * On 32-bit ARM (and i386) the plain names SYS_setresuid, SYS_setgroups,
 * SYS_getgroups... are the old calls with 16-bit uid_t and gid_t, kept for
 * old binaries: the kernel truncates a uid above 65535 and reads a gid_t
 * array as 16-bit halves (groups 29,44 became 29,0: the root group).  The
 * calls with 32-bit ids end in 32.  musl maps them for its own wrappers,
 * not in <sys/syscall.h>; where they exist, they are the ones to call. */
#ifndef CAPINIT_SYSNUM_H
#define CAPINIT_SYSNUM_H

#include <sys/syscall.h>

#ifdef SYS_setresuid32
#undef SYS_setresuid
#define SYS_setresuid SYS_setresuid32
#endif
#ifdef SYS_setresgid32
#undef SYS_setresgid
#define SYS_setresgid SYS_setresgid32
#endif
#ifdef SYS_getresuid32
#undef SYS_getresuid
#define SYS_getresuid SYS_getresuid32
#endif
#ifdef SYS_getresgid32
#undef SYS_getresgid
#define SYS_getresgid SYS_getresgid32
#endif
#ifdef SYS_setgroups32
#undef SYS_setgroups
#define SYS_setgroups SYS_setgroups32
#endif
#ifdef SYS_getgroups32
#undef SYS_getgroups
#define SYS_getgroups SYS_getgroups32
#endif
#ifdef SYS_setfsuid32
#undef SYS_setfsuid
#define SYS_setfsuid SYS_setfsuid32
#endif
#ifdef SYS_setfsgid32
#undef SYS_setfsgid
#define SYS_setfsgid SYS_setfsgid32
#endif

/* The kernel's struct sigaction for rt_sigaction, on every architecture
 * capinit builds for (they all have sa_restorer).  Its mask is two 32-bit
 * words: a uint64_t would be 8-aligned on 32-bit ARM and land 4 bytes
 * after where the kernel reads and writes it. */
struct k_sigaction {
  void (*handler)(int);
  unsigned long flags;
  void (*restorer)(void);
  unsigned mask[2];
};
_Static_assert(sizeof(struct k_sigaction) == 2 * sizeof(void *) + sizeof(long) + 8,
               "struct k_sigaction: no padding, as the kernel's");

/* pidfds (Linux 5.3, SO_PEERPIDFD 6.5): one number on every architecture,
 * for headers older than the kernel (capctl verify, the signal policy) */
#ifndef SO_PEERPIDFD
#define SO_PEERPIDFD 77
#endif
#ifndef SYS_pidfd_open
#define SYS_pidfd_open 434
#endif

#endif

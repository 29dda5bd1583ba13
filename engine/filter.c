/* engine/filter.c -- stage filter: the service's system-call filter, a
 * seccomp BPF program made here from the spec (conf/syscalls.h) in the
 * child, on its stack.  No libseccomp: its 103 KB would be half of
 * capinit (docs/decisions.md).  The program:
 *
 *   - kills the process on any call through another ABI than this
 *     build's own (i386's int 0x80 or x32 on x86-64, arm's on arm64):
 *     their numbers differ, so the rules below would not see them;
 *   - without user namespaces: clone3 fails with ENOSYS (its flags are in
 *     memory, which a filter cannot read; libc falls back on clone),
 *     unshare and clone with CLONE_NEWUSER fail with EPERM, and so does
 *     setns into a user namespace (nstype 0 may be one);
 *   - each member of a denied group fails with EPERM;
 *   - unless allow-suid = yes: no set-user-ID or set-group-ID bit can be
 *     given to a file (chmod, fchmod, fchmodat, fchmodat2, mkdir, mkdirat,
 *     mknod, mknodat, open and openat with O_CREAT or O_TMPFILE, creat:
 *     EPERM, when the mode has one; openat2, whose mode is in memory:
 *     ENOSYS), as systemd's RestrictSUIDSGID: a contained uid 0 owns
 *     root's files, and a set-uid root copy of a shell in a writable path
 *     would be root for the next user who runs it;
 *   - everything else is allowed: the filter is a deny list on top of
 *     the capabilities, which remain what grants privilege. */
#include <errno.h>
#include <fcntl.h>
#include <linux/audit.h>
#include <linux/capability.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <sched.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "../conf/syscalls.h"
#include "engine.h"

#if defined(__x86_64__) && !defined(__ILP32__)
#define FILTER_ARCH AUDIT_ARCH_X86_64
#define FILTER_FOREIGN_NR 0x40000000u   /* x32's calls share the arch value */
#elif defined(__i386__)
#define FILTER_ARCH AUDIT_ARCH_I386
#elif defined(__aarch64__) && defined(__AARCH64EL__)
#define FILTER_ARCH AUDIT_ARCH_AARCH64
#elif defined(__arm__) && defined(__ARMEL__)
#define FILTER_ARCH AUDIT_ARCH_ARM
#elif defined(__riscv) && __riscv_xlen == 64
#define FILTER_ARCH AUDIT_ARCH_RISCV64
#else
#error "engine/filter.c: no seccomp architecture value for this target (add it beside the others)"
#endif

#ifndef SYS_fchmodat2
#define SYS_fchmodat2 452  /* Linux 6.6; one number on every architecture */
#endif
#define SUID_BITS (S_ISUID | S_ISGID)
#define CREATES (O_CREAT | (O_TMPFILE & ~O_DIRECTORY))  /* O_TMPFILE holds O_DIRECTORY */

/* the low 32 bits of argument N (little-endian: the filter reads 32 bits) */
#define ARG_LO(n) (offsetof(struct seccomp_data, args) + 8 * (n))

/* Jump targets, resolved by fix_jumps() once the program is whole: a
 * jump's jt or jf holds LABEL_BASE + one of these until then. */
enum { L_ALLOW, L_EPERM, L_ENOSYS, L_KILL, L_FLAGS, L_SETNS, L_MODE1, L_MODE2, L_MODE3, L_OPEN, L_OPENAT,
       L_COUNT };
#define LABEL_BASE 0xf0

#define FILTER_MAX 128
typedef struct prog_s {
  struct sock_filter v[FILTER_MAX];
  unsigned n;
  unsigned at[L_COUNT];
} prog;

static void emit(prog *p, unsigned short code, unsigned k, unsigned char jt, unsigned char jf)
{
  struct sock_filter i = { code, jt, jf, k };
  if (p->n < FILTER_MAX) p->v[p->n] = i;
  p->n++;
}

#define LD(p, off) emit(p, BPF_LD | BPF_W | BPF_ABS, (unsigned)(off), 0, 0)
#define RET(p, val) emit(p, BPF_RET | BPF_K, (val), 0, 0)
#define JEQ(p, k, label) emit(p, BPF_JMP | BPF_JEQ | BPF_K, (k), LABEL_BASE + (label), 0)
#define LABEL(p, l) ((p)->at[l] = (p)->n)

/* Every jump is forward: a label's offset from the jump after it. */
static int fix_jumps(prog *p)
{
  unsigned i;
  for (i = 0; i < p->n; i++) {
    struct sock_filter *x = &p->v[i];
    unsigned char *j[2] = { &x->jt, &x->jf };
    if (BPF_CLASS(x->code) != BPF_JMP) continue;
    for (int k = 0; k < 2; k++) {
      if (*j[k] < LABEL_BASE) continue;
      unsigned to = p->at[*j[k] - LABEL_BASE];
      if (to <= i || to - i - 1 > 255) return -1;
      *j[k] = (unsigned char)(to - i - 1);
    }
  }
  return 0;
}

/* the calls that give a file a mode, each to the block that reads it */
static void suid_calls(prog *p)
{
#ifdef SYS_chmod
  JEQ(p, SYS_chmod, L_MODE1);
  JEQ(p, SYS_mkdir, L_MODE1);
  JEQ(p, SYS_mknod, L_MODE1);
  JEQ(p, SYS_creat, L_MODE1);
  JEQ(p, SYS_open, L_OPEN);
#endif
  JEQ(p, SYS_fchmod, L_MODE1);
  JEQ(p, SYS_fchmodat, L_MODE2);
  JEQ(p, SYS_fchmodat2, L_MODE2);
  JEQ(p, SYS_mkdirat, L_MODE2);
  JEQ(p, SYS_mknodat, L_MODE2);
  JEQ(p, SYS_openat, L_OPENAT);
  JEQ(p, SYS_openat2, L_ENOSYS);
}

#define JSET(p, k, yes, no) emit(p, BPF_JMP | BPF_JSET | BPF_K, (k), LABEL_BASE + (yes), LABEL_BASE + (no))

/* the block at label: argument arg against bits, to yes when one is set,
 * else allowed */
static void arg_block(prog *p, int label, int arg, unsigned bits, int yes)
{
  LABEL(p, label);
  LD(p, ARG_LO(arg));
  JSET(p, bits, yes, L_ALLOW);
}

/* open(path, flags, mode), openat(dir, path, flags, mode): the mode counts
 * only when the call creates a file; then a mode of argument N */
static void suid_blocks(prog *p)
{
  arg_block(p, L_OPEN, 1, CREATES, L_MODE2);
  arg_block(p, L_OPENAT, 2, CREATES, L_MODE3);
  arg_block(p, L_MODE1, 1, SUID_BITS, L_EPERM);
  arg_block(p, L_MODE2, 2, SUID_BITS, L_EPERM);
  arg_block(p, L_MODE3, 3, SUID_BITS, L_EPERM);
}

static void build(svc const *s, prog *p)
{
  size_t i;
  p->n = 0;
  /* a label left unset stays 0: a jump to it is refused (fix_jumps) */
  memset(p->at, 0, sizeof p->at);
  LD(p, offsetof(struct seccomp_data, arch));
  emit(p, BPF_JMP | BPF_JEQ | BPF_K, FILTER_ARCH, 0, LABEL_BASE + L_KILL);
  LD(p, offsetof(struct seccomp_data, nr));
#ifdef FILTER_FOREIGN_NR
  emit(p, BPF_JMP | BPF_JGE | BPF_K, FILTER_FOREIGN_NR, LABEL_BASE + L_KILL, 0);
#endif
  if (!s->user_namespaces) {
    JEQ(p, SYS_clone3, L_ENOSYS);
    JEQ(p, SYS_unshare, L_FLAGS);
    JEQ(p, SYS_clone, L_FLAGS);
    JEQ(p, SYS_setns, L_SETNS);
  }
  for (i = 0; i < syscall_members_n; i++)
    if (s->syscalls_deny & (1u << syscall_members[i].group)) JEQ(p, (unsigned)syscall_members[i].nr, L_EPERM);
  if (s->suid_refused) suid_calls(p);
  RET(p, SECCOMP_RET_ALLOW);
  if (s->suid_refused) suid_blocks(p);
  if (!s->user_namespaces) {
    /* unshare(flags), clone(flags, ...): the flags are argument 0 */
    arg_block(p, L_FLAGS, 0, CLONE_NEWUSER, L_EPERM);
    /* setns(fd, nstype): 0 is any type, a user namespace among them */
    LABEL(p, L_SETNS);
    LD(p, ARG_LO(1));
    JEQ(p, 0, L_EPERM);
    JSET(p, CLONE_NEWUSER, L_EPERM, L_ALLOW);
  }
  /* every jump is forward: the returns come last */
  LABEL(p, L_ALLOW);
  RET(p, SECCOMP_RET_ALLOW);
  LABEL(p, L_EPERM);
  RET(p, SECCOMP_RET_ERRNO | EPERM);
  LABEL(p, L_ENOSYS);
  RET(p, SECCOMP_RET_ERRNO | ENOSYS);
  LABEL(p, L_KILL);
  RET(p, SECCOMP_RET_KILL_PROCESS);
}

int priv_filter_optional;

int filter_configure(void)
{
  char const *v = getenv("CAPINIT_SECCOMP");
  priv_filter_optional = v && !strcmp(v, "if-available");
  return prctl(PR_GET_SECCOMP, 0, 0, 0, 0) >= 0;
}

int filter_needed(svc const *s)
{
  return syscalls_filtered(s->syscalls_deny, s->user_namespaces, s->suid_refused);
}

/* A process without cap_sys_admin may load a filter only under
 * no_new_privs (the kernel's rule): then it is set here, as systemd
 * does; capinit, which runs as root, keeps cap_sys_admin until the
 * stage caps that follows. */
int filter_apply(svc const *s, priv_fail *f)
{
  prog p;
  struct sock_fprog fp;
  priv_caps c;
  if (!filter_needed(s)) return 0;
  build(s, &p);
  if (p.n > FILTER_MAX || fix_jumps(&p) < 0) {
    errno = E2BIG;
    return priv_failed(f, STAGE_FILTER, -1);
  }
  fp.len = (unsigned short)p.n;
  fp.filter = p.v;
  if (priv_caps_get(&c) < 0) return priv_failed(f, STAGE_FILTER, -1);
  if (!(c.eff & ((uint64_t)1 << CAP_SYS_ADMIN)) && syscall(SYS_prctl, PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) < 0)
    return priv_failed(f, STAGE_FILTER, -1);
  if (syscall(SYS_seccomp, SECCOMP_SET_MODE_FILTER, 0, &fp) == 0) return 0;
  /* no seccomp in this kernel (or emulator): only where the caller asked
   * that services run without it (CAPINIT_SECCOMP=if-available) */
  if ((errno == ENOSYS || errno == EINVAL) && priv_filter_optional &&
      syscall(SYS_prctl, PR_GET_SECCOMP, 0, 0, 0, 0) < 0)
    return 0;
  return priv_failed(f, STAGE_FILTER, -1);
}

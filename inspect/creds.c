/* inspect/creds.c -- what explain and verify read from the system: this
 * process's credentials (the launcher), a command's file, and the kernel's
 * rule for ambient capabilities across a setgid exec. */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sched.h>
#include <sys/mount.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <sys/wait.h>
#include <sys/xattr.h>
#include <unistd.h>
#include <linux/openat2.h>
#include <linux/capability.h>

#include "creds.h"
#include "procfs.h"
#include "../engine/privilege.h"
#include "../engine/sysnum.h"

int creds_launcher(cred_state *c)
{
  priv_caps caps;
  gid_t g[EXPLAIN_GROUPS_MAX];
  long n, i;
  unsigned cap;
  memset(c, 0, sizeof *c);
  if (syscall(SYS_getresuid, &c->ruid, &c->euid, &c->suid) < 0 ||
      syscall(SYS_getresgid, &c->rgid, &c->egid, &c->sgid) < 0 ||
      (n = syscall(SYS_getgroups, EXPLAIN_GROUPS_MAX, g)) < 0 ||
      priv_caps_get(&caps) < 0)
    return -1;
  for (i = 0; i < n; i++) c->groups[i] = g[i];
  c->ngroups = (size_t)n;
  c->inh = caps.inh;
  c->prm = caps.prm;
  c->eff = caps.eff;
  for (cap = 0; cap < 64; cap++) {
    int r = prctl(PR_CAPBSET_READ, cap, 0, 0, 0);
    if (r < 0) break;
    if (r) c->bnd |= (uint64_t)1 << cap;
    if (prctl(PR_CAP_AMBIENT, PR_CAP_AMBIENT_IS_SET, cap, 0, 0) > 0) c->amb |= (uint64_t)1 << cap;
  }
  c->securebits = (unsigned)prctl(PR_GET_SECUREBITS, 0, 0, 0, 0);
  c->nnp = prctl(PR_GET_NO_NEW_PRIVS, 0, 0, 0, 0) > 0;
  return 0;
}

/* A multi-call binary names itself in its own text. */
/* Whether buf holds mark (memchr on its first byte: memmem's two-way
 * search weighs a kilobyte in a static capinit, for one caller). */
static int holds(char const *buf, size_t len, char const *mark)
{
  size_t n = strlen(mark);
  char const *end = buf + len, *p = buf;
  while ((size_t)(end - p) >= n && (p = memchr(p, mark[0], (size_t)(end - p) - n + 1))) {
    if (!memcmp(p, mark, n)) return 1;
    p++;
  }
  return 0;
}

static char const *multicall_name(char const *path)
{
  static char const *const marks[][2] = {
    { "BusyBox v", "busybox" }, { "Toybox ", "toybox" },
  };
  char buf[65536 + 16];
  size_t keep = 0, i;
  ssize_t r;
  int fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
  off_t total = 0;
  if (fd < 0) return 0;
  while (total < (64 << 20) && (r = read(fd, buf + keep, sizeof buf - 16 - keep)) > 0) {
    size_t len = keep + (size_t)r;
    total += r;
    for (i = 0; i < sizeof marks / sizeof marks[0]; i++)
      if (holds(buf, len, marks[i][0])) {
        close(fd);
        return marks[i][1];
      }
    keep = len < 16 ? len : 16;
    memmove(buf, buf + len - keep, keep);
  }
  close(fd);
  return 0;
}

/* What a lookup found of the command's file: its stat, its file
 * system's flags (NULL: unknown), its security.capability (n < 0: none),
 * and whether it is a multi-call binary, read at name. */
static void target_facts(exec_target *t, struct stat const *st, struct statvfs const *vfs, unsigned char const *v,
                         ssize_t n, char const *name)
{
  t->mode = st->st_mode;
  t->uid = st->st_uid;
  t->gid = st->st_gid;
  if (vfs) t->nosuid = (vfs->f_flag & ST_NOSUID) != 0;
  if (n >= 0 && explain_parse_fcaps(v, (size_t)n, t) < 0) {
    t->fcaps = 2;
    t->fcaps_bad = 1;
  }
  if (S_ISREG(st->st_mode)) t->multicall = multicall_name(name);
}

int creds_target(char const *path, exec_target *t)
{
  struct stat st;
  struct statvfs vfs;
  unsigned char v[64];
  ssize_t n;
  memset(t, 0, sizeof *t);
  t->path = path;
  if (stat(path, &st) < 0) {
    t->err = errno;
    return 0;
  }
  n = getxattr(path, "security.capability", v, sizeof v);
  target_facts(t, &st, statvfs(path, &vfs) == 0 ? &vfs : 0, v, n, path);
  return 0;
}

/* The lookup of path (inside root, when not null) by a child that first
 * calls enter(arg): a chroot, or a mount namespace of its own with the
 * service's binds.  -1 when the child could not (enter failed: not
 * allowed) or there was no child. */
static int target_in_child(int (*enter)(void const *), void const *arg, char const *root,
                           char const *path, exec_target *t)
{
  exec_target got;
  ssize_t n;
  pid_t pid;
  int p[2];
  if (pipe2(p, O_CLOEXEC) < 0) return -1;
  pid = fork();
  if (pid == 0) {
    close(p[0]);
    if (enter(arg) < 0) _exit(1);
    creds_target_in(root, path, &got);
    if (write(p[1], &got, sizeof got) < 0) _exit(1);
    _exit(0);
  }
  close(p[1]);
  n = pid < 0 ? -1 : read(p[0], &got, sizeof got);
  close(p[0]);
  if (pid > 0) waitpid(pid, 0, 0);
  if (n != (ssize_t)sizeof got) return -1;
  *t = got;   /* multicall points to a static string, the same here */
  t->path = path;
  return 0;
}

/* openat2 is missing (a kernel before 5.6, or qemu-user 7.2, which runs
 * the image builder's capctl for another architecture): the same lookup
 * from a child chrooted into root, which the kernel resolves the same
 * way, absolute links included.  Needs cap_sys_chroot; without it, the
 * target is not known (ENOSYS). */
static int enter_root(void const *root)
{
  return chroot(root) < 0 || chdir("/") < 0 ? -1 : 0;
}

int creds_target_in(char const *root, char const *path, exec_target *t)
{
  struct open_how how;
  struct stat st;
  struct statvfs vfs;
  unsigned char v[64];
  char self[64];
  ssize_t n;
  int dir, fd;
  if (!root) return creds_target(path, t);
  memset(t, 0, sizeof *t);
  t->path = path;
  /* the file the service will execute: path resolved inside root, its
   * links (absolute ones too) included, as after the pivot */
  dir = open(root, O_PATH | O_DIRECTORY | O_CLOEXEC);
  if (dir < 0) {
    t->err = errno;
    return 0;
  }
  memset(&how, 0, sizeof how);
  how.flags = O_RDONLY | O_CLOEXEC;
  how.resolve = RESOLVE_IN_ROOT;
  fd = (int)syscall(SYS_openat2, dir, path, &how, sizeof how);
  close(dir);
  if (fd < 0 && errno == ENOSYS) {
    if (target_in_child(enter_root, root, 0, path, t) == 0) return 0;
    errno = ENOSYS;
  }
  if (fd < 0 || fstat(fd, &st) < 0) {
    t->err = errno;
    if (fd >= 0) close(fd);
    return 0;
  }
  n = fgetxattr(fd, "security.capability", v, sizeof v);
  snprintf(self, sizeof self, "/proc/self/fd/%d", fd);
  target_facts(t, &st, fstatvfs(fd, &vfs) == 0 ? &vfs : 0, v, n, self);
  close(fd);
  return 0;
}

/* Without a mount namespace to try the binds in: path as the service
 * sees it, through the bind whose target holds it (the longest), in
 * capinit's tree; links inside a bind are not followed out of it. */
static int target_through_binds(svc_container const *ct, char const *path, exec_target *t)
{
  ct_bind const *best = 0;
  char real[8192];
  size_t i, n = 0;
  for (i = 0; i < ct->nbinds; i++) {
    size_t k = strlen(ct->binds[i].dst);
    if (k > n && !strncmp(path, ct->binds[i].dst, k) && (!path[k] || path[k] == '/')) {
      best = &ct->binds[i];
      n = k;
    }
  }
  if (!best) return creds_target_in(ct->root, path, t);
  snprintf(real, sizeof real, "%s%s", best->src, path + n);
  creds_target(real, t);
  t->path = path;
  return 0;
}

/* the service's tree: its binds, in a mount namespace of the child's
 * own, made private first (else they could show in capinit's) */
static int enter_binds(void const *arg)
{
  svc_container const *ct = arg;
  size_t i;
  if (unshare(CLONE_NEWNS) < 0 || mount(0, "/", 0, MS_REC | MS_PRIVATE, 0) < 0) return -1;
  for (i = 0; i < ct->nbinds; i++)
    if (mount(ct->binds[i].src, ct->binds[i].at, 0, MS_BIND | MS_REC, 0) < 0) return -1;
  return 0;
}

int creds_target_view(svc_container const *ct, char const *path, exec_target *t)
{
  if (!ct || (!ct->root && !ct->nbinds)) return creds_target(path, t);
  /* not allowed to mount (not root, / not a mount point under chroot) */
  if (target_in_child(enter_binds, ct, ct->root, path, t) < 0) return target_through_binds(ct, path, t);
  return 0;
}

/* The CapAmb of a process (a zombie too), or -1. */
static long long proc_ambient(pid_t pid)
{
  char buf[4096], v[32];
  if (procfs_read(pid, "status", buf, sizeof buf) < 0 || procfs_field(buf, "CapAmb", v, sizeof v) < 0) return -1;
  return (long long)strtoull(v, 0, 16);
}

/* A directory of its own on a file system where set-id bits count, in
 * dir: 0, or -1 when there is none. */
static int probe_dir(char *dir, size_t len)
{
  static char const *const dirs[] = { "/run", "/tmp", "/dev/shm", "/var/tmp" };
  struct statvfs vfs;
  size_t i;
  for (i = 0; i < sizeof dirs / sizeof dirs[0]; i++) {
    if (statvfs(dirs[i], &vfs) < 0 || (vfs.f_flag & (ST_NOSUID | ST_RDONLY))) continue;
    snprintf(dir, len, "%s/setgid-rule.XXXXXX", dirs[i]);
    if (mkdtemp(dir)) return 0;
  }
  return -1;
}

/* A copy of this program at path, setgid to g: 0, or -1. */
static int probe_copy(char const *path, gid_t g)
{
  char buf[65536];
  struct stat st;
  ssize_t r;
  int ok = 1;
  int in = open("/proc/self/exe", O_RDONLY | O_CLOEXEC);
  int out = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0700);
  if (in < 0 || out < 0) ok = 0;
  while (ok && (r = read(in, buf, sizeof buf)) > 0) ok = write(out, buf, (size_t)r) == r;
  /* without cap_fsetid the kernel may drop the setgid bit: check it */
  ok = ok && fchown(out, 0, g) == 0 && fchmod(out, 02755) == 0 && fstat(out, &st) == 0 &&
       (st.st_mode & S_ISGID) && st.st_gid == g;
  if (in >= 0) close(in);
  if (out >= 0 && close(out) < 0) ok = 0;
  return ok ? 0 : -1;
}

/* The child: g as its one group, uid 65534 with cap_net_raw ambient,
 * exec the copy with -V (3 and 4: it failed before the exec). */
static void probe_child(char *path, gid_t g)
{
  gid_t one = g;
  struct __user_cap_header_struct h = { _LINUX_CAPABILITY_VERSION_3, 0 };
  struct __user_cap_data_struct d[2] = { { 0, 0, 0 }, { 0, 0, 0 } };
  char *argv[] = { path, (char *)"-V", 0 };
  char *envp[] = { 0 };
  int nul = open("/dev/null", O_WRONLY);
  d[0].permitted = d[0].effective = d[0].inheritable = 1u << CAP_NET_RAW;
  if (nul < 0 || dup2(nul, 1) < 0 || dup2(nul, 2) < 0 ||
      syscall(SYS_setgroups, 1, &one) < 0 || syscall(SYS_setresgid, 65534, 65534, 65534) < 0 ||
      prctl(PR_SET_KEEPCAPS, 1, 0, 0, 0) < 0 || syscall(SYS_setresuid, 65534, 65534, 65534) < 0 ||
      syscall(SYS_capset, &h, d) < 0 ||
      prctl(PR_CAP_AMBIENT, PR_CAP_AMBIENT_RAISE, CAP_NET_RAW, 0, 0) < 0)
    _exit(3);
  execve(path, argv, envp);
  _exit(4);
}

/* Run the copy at path in probe_child, and read whether cap_net_raw
 * stayed ambient across the exec. */
static enum setgid_rule probe_run(char *path, gid_t g)
{
  enum setgid_rule rule = SETGID_RULE_UNKNOWN;
  siginfo_t si;
  pid_t pid = fork();
  if (pid == 0) probe_child(path, g);
  if (pid < 0) return rule;
  memset(&si, 0, sizeof si);
  /* 3 and 4 are the child's failures before the exec; any other end is
   * the copy's (a sanitizer build may fail at its exit) */
  if (waitid(P_PID, (id_t)pid, &si, WEXITED | WNOWAIT) == 0 &&
      !(si.si_code == CLD_EXITED && (si.si_status == 3 || si.si_status == 4))) {
    long long amb = proc_ambient(pid);
    if (amb >= 0) rule = amb >> CAP_NET_RAW & 1 ? SETGID_RULE_KEEPS : SETGID_RULE_CLEARS;
  }
  waitpid(pid, 0, 0);
  return rule;
}

/* F6, detected on the running kernel: a child keeps one ambient
 * capability, takes the group of a setgid copy of this program as a
 * supplementary group, and execs it with -V (it prints its version and
 * exits); its ambient set after the exec is read from /proc while it is
 * a zombie, before it is reaped.  Needs root; the copy lives in a private
 * directory on a filesystem that honours set-id bits, and is removed at
 * once.  Used by capctl explain and by capinit's verify alike. */
enum setgid_rule creds_setgid_rule(void)
{
  char dir[64], path[96];
  gid_t const g = 0x7ffffff0;
  enum setgid_rule rule = SETGID_RULE_UNKNOWN;

  if (geteuid() != 0 || prctl(PR_CAPBSET_READ, CAP_NET_RAW, 0, 0, 0) != 1) return rule;
  if (probe_dir(dir, sizeof dir) < 0) return rule;
  chmod(dir, 0711);  /* the child, uid 65534, must reach the copy */
  snprintf(path, sizeof path, "%s/probe", dir);
  if (probe_copy(path, g) == 0) rule = probe_run(path, g);
  unlink(path);
  rmdir(dir);
  return rule;
}

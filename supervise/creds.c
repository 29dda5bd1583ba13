/* supervise/creds.c -- what explain and verify read from the system: this
 * process's credentials (the launcher) and a command's file. */
#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <sys/syscall.h>
#include <sys/xattr.h>
#include <unistd.h>
#include <linux/capability.h>

#include "control.h"

int control_launcher(cred_state *c)
{
  struct __user_cap_header_struct h = { _LINUX_CAPABILITY_VERSION_3, 0 };
  struct __user_cap_data_struct d[2];
  gid_t g[EXPLAIN_GROUPS_MAX];
  long n, i;
  unsigned cap;
  memset(c, 0, sizeof *c);
  if (syscall(SYS_getresuid, &c->ruid, &c->euid, &c->suid) < 0 ||
      syscall(SYS_getresgid, &c->rgid, &c->egid, &c->sgid) < 0 ||
      (n = syscall(SYS_getgroups, EXPLAIN_GROUPS_MAX, g)) < 0 ||
      syscall(SYS_capget, &h, d) < 0)
    return -1;
  for (i = 0; i < n; i++) c->groups[i] = g[i];
  c->ngroups = (size_t)n;
  c->inh = d[0].inheritable | (uint64_t)d[1].inheritable << 32;
  c->prm = d[0].permitted | (uint64_t)d[1].permitted << 32;
  c->eff = d[0].effective | (uint64_t)d[1].effective << 32;
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
      if (memmem(buf, len, marks[i][0], strlen(marks[i][0]))) {
        close(fd);
        return marks[i][1];
      }
    keep = len < 16 ? len : 16;
    memmove(buf, buf + len - keep, keep);
  }
  close(fd);
  return 0;
}

int control_target(char const *path, exec_target *t)
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
  t->mode = st.st_mode;
  t->uid = st.st_uid;
  t->gid = st.st_gid;
  if (statvfs(path, &vfs) == 0) t->nosuid = (vfs.f_flag & ST_NOSUID) != 0;
  n = getxattr(path, "security.capability", v, sizeof v);
  if (n >= 0 && explain_parse_fcaps(v, (size_t)n, t) < 0) {
    t->fcaps = 2;
    t->fcaps_bad = 1;
  }
  if (S_ISREG(st.st_mode)) t->multicall = multicall_name(path);
  return 0;
}


/* engine/container.c -- the container stages of the privilege engine:
 * namespaces, hostname, network, mounts, root, proc, readonly (in that
 * order, after signals and before directory; conf/stages.h).  They run in
 * the child while it still holds capinit's privilege; like the rest of the
 * engine they only make system calls, on what conf/container.c resolved.
 *
 * Paths are opened with openat2(RESOLVE_NO_SYMLINKS) and mounts made with
 * the descriptor-based mount API (open_tree, move_mount, fsopen, fsmount,
 * mount_setattr): a symbolic link swapped in after the file was checked
 * cannot redirect a mount.  Any failure stops the spawn: the service never
 * runs uncontained. */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <net/if.h>
#include <netinet/in.h>
#include <sched.h>
#include <stdio.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <sys/syscall.h>
#include <unistd.h>
#include <linux/mount.h>
#include <linux/openat2.h>

#include "engine.h"
#include "netlink.h"

#ifndef MNT_DETACH
#define MNT_DETACH 2  /* umount2(2); <sys/mount.h> clashes with <linux/mount.h> */
#endif
#ifndef MS_MOVE
#define MS_MOVE 8192
#endif

/* ------------------------------------------------------------ helpers */

static int sys_close(int fd)
{
  int e = errno, r = (int)syscall(SYS_close, fd);
  errno = e;
  return r;
}

/* An O_PATH descriptor of path (relative to dir), no symbolic link
 * followed on the way. */
static int path_fd(int dir, char const *path)
{
  struct open_how how;
  memset(&how, 0, sizeof how);
  how.flags = O_PATH | O_CLOEXEC;
  how.resolve = RESOLVE_NO_SYMLINKS;
  return (int)syscall(SYS_openat2, dir, path, &how, sizeof how);
}

/* Attach the detached mount m on dir/path; closes m. */
static int attach(int m, int dir, char const *path)
{
  int d = path_fd(dir, path), r = -1;
  if (d >= 0) {
    r = (int)syscall(SYS_move_mount, m, "", d, "", MOVE_MOUNT_F_EMPTY_PATH | MOVE_MOUNT_T_EMPTY_PATH);
    sys_close(d);
  }
  sys_close(m);
  return r;
}

/* A copy of the tree at src (with what is mounted under it) on dst. */
static int bind_at(int sdir, char const *src, int ddir, char const *dst)
{
  int s = path_fd(sdir, src), m;
  if (s < 0) return -1;
  m = (int)syscall(SYS_open_tree, s, "", OPEN_TREE_CLONE | OPEN_TREE_CLOEXEC | AT_EMPTY_PATH | AT_RECURSIVE);
  sys_close(s);
  if (m < 0) return -1;
  return attach(m, ddir, dst);
}

/* A new file system of type on dir/path, with options (key, value pairs,
 * then NULL) and mount attributes. */
static int fs_at(char const *type, char const *const *opts, unsigned attrs, int dir, char const *path)
{
  int fs = (int)syscall(SYS_fsopen, type, FSOPEN_CLOEXEC), m;
  size_t i;
  if (fs < 0) return -1;
  for (i = 0; opts && opts[i]; i += 2)
    if (syscall(SYS_fsconfig, fs, FSCONFIG_SET_STRING, opts[i], opts[i + 1], 0) < 0) goto fail;
  if (syscall(SYS_fsconfig, fs, FSCONFIG_CMD_CREATE, 0, 0, 0) < 0) goto fail;
  m = (int)syscall(SYS_fsmount, fs, FSMOUNT_CLOEXEC, attrs);
  sys_close(fs);
  if (m < 0) return -1;
  return attach(m, dir, path);
fail:
  sys_close(fs);
  return -1;
}

/* Set and clear mount attributes of the mount at path (and those under it
 * when recursive). */
static int set_attrs(char const *path, unsigned set, unsigned clear, int recursive)
{
  struct mount_attr a;
  memset(&a, 0, sizeof a);
  a.attr_set = set;
  a.attr_clr = clear;
  return (int)syscall(SYS_mount_setattr, AT_FDCWD, path,
                      AT_SYMLINK_NOFOLLOW | (recursive ? AT_RECURSIVE : 0), &a, sizeof a);
}

/* path as a mount of its own (a bind of itself), then attributes. */
static int self_bind(char const *path, unsigned set, unsigned clear, int recursive)
{
  if (bind_at(AT_FDCWD, path, AT_FDCWD, path) < 0) return -1;
  return set_attrs(path, set, clear, recursive);
}

static int exists_at(int dir, char const *path)
{
  int fd = path_fd(dir, path);
  if (fd < 0) return 0;
  sys_close(fd);
  return 1;
}

static int exists(char const *path)
{
  return exists_at(AT_FDCWD, path);
}

/* What a service may write holds no set-id program and no device it
 * could use (a contained uid 0 would copy a shell there, mode 4755, for
 * the next legacy root or other user that runs it), unless its file says
 * allow-suid = yes. */
static unsigned no_suid(svc_container const *ct)
{
  return container_nosuid(ct) ? MOUNT_ATTR_NOSUID | MOUNT_ATTR_NODEV : 0;
}

/* ------------------------------------------------------------ stages */

static int stage_namespaces(svc_container const *ct, priv_fail *f)
{
  int flags = container_unshare_flags(ct);
  if (flags && syscall(SYS_unshare, flags) < 0) return priv_failed(f, STAGE_NAMESPACES, -1);
  return 0;
}

/* The loopback interface of a new network namespace, up. */
static int loopback_up(void)
{
  struct ifreq ifr;
  int s = (int)syscall(SYS_socket, AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0), r = -1;
  if (s < 0) return -1;
  memset(&ifr, 0, sizeof ifr);
  memcpy(ifr.ifr_name, "lo", 3);
  if (syscall(SYS_ioctl, s, SIOCGIFFLAGS, &ifr) == 0) {
    ifr.ifr_flags |= IFF_UP;
    r = (int)syscall(SYS_ioctl, s, SIOCSIFFLAGS, &ifr);
  }
  sys_close(s);
  return r;
}

/* /run/netns/NAME, opened without following a link (one to
 * /proc/self/ns/net would be capinit's own network) and only when it is a
 * network namespace (nsfs: NS_GET_NSTYPE); else -1, EINVAL for another
 * kind of file. */
#ifndef NS_GET_NSTYPE
#define NS_GET_NSTYPE _IO(0xb7, 0x3)  /* <linux/nsfs.h>, whose ioctl macros clash with libc's */
#endif
static int netns_fd(char const *path)
{
  struct open_how how;
  int fd;
  memset(&how, 0, sizeof how);
  how.flags = O_RDONLY | O_CLOEXEC;
  how.resolve = RESOLVE_NO_SYMLINKS;
  fd = (int)syscall(SYS_openat2, AT_FDCWD, path, &how, sizeof how);
  if (fd >= 0 && syscall(SYS_ioctl, fd, NS_GET_NSTYPE) != CLONE_NEWNET) {
    sys_close(fd);
    errno = EINVAL;
    return -1;
  }
  return fd;
}

static int stage_network(svc_container const *ct, priv_fail *f)
{
  if ((ct->network == NET_NONE || container_card(ct)) && loopback_up() < 0) return priv_failed(f, STAGE_NETWORK, -1);
  if (ct->network == NET_NAMED) {
    int fd = netns_fd(ct->netns);
    if (fd < 0) return priv_failed(f, STAGE_NETWORK, -1);
    if (syscall(SYS_setns, fd, CLONE_NEWNET) < 0) {
      sys_close(fd);
      return priv_failed(f, STAGE_NETWORK, -1);
    }
    sys_close(fd);
  }
  return 0;
}

static char const *const tmp_opts[] = { "mode", "1777", 0 };

static int own_dev(char const *root_path, svc_container const *ct);

static int stage_mounts(svc_container const *ct, priv_fail *f)
{
  size_t i;
  if (syscall(SYS_mount, 0, "/", 0, MS_REC | MS_PRIVATE, 0) < 0) return priv_failed(f, STAGE_MOUNTS, CT_ARG_PRIVATE);
  if (ct->root && (bind_at(AT_FDCWD, ct->root, AT_FDCWD, ct->root) < 0 ||
                   set_attrs(ct->root, no_suid(ct), 0, 1) < 0))
    return priv_failed(f, STAGE_MOUNTS, CT_ARG_ROOT);
  for (i = 0; i < ct->nbinds; i++)
    if (bind_at(AT_FDCWD, ct->binds[i].src, AT_FDCWD, ct->binds[i].at) < 0)
      return priv_failed(f, STAGE_MOUNTS, (int)i);
  /* a root directory's own /dev and /tmp are made in it (stage_root) */
  if (container_own_dev(ct) && !ct->root && own_dev("/", ct) < 0) return priv_failed(f, STAGE_MOUNTS, CT_ARG_DEV);
  if (container_own_tmp(ct) && !ct->root &&
      fs_at("tmpfs", tmp_opts, MOUNT_ATTR_NOSUID | MOUNT_ATTR_NODEV, AT_FDCWD, "/tmp") < 0)
    return priv_failed(f, STAGE_MOUNTS, CT_ARG_TMP);
  if (container_own_var_tmp(ct) && exists("/var/tmp") &&
      fs_at("tmpfs", tmp_opts, MOUNT_ATTR_NOSUID | MOUNT_ATTR_NODEV, AT_FDCWD, "/var/tmp") < 0)
    return priv_failed(f, STAGE_MOUNTS, CT_ARG_VARTMP);
  return 0;
}

/* dev/PATH made empty in the /dev being built (the parent directories
 * first), then capinit's own bound over it: the way a node crosses into
 * a tmpfs that cannot make devices (nodev does not matter to a bind). */
static int pass_through(int host, int dev, char const *rel)
{
  char dir[PATH_MAX];
  size_t i, n = strlen(rel);
  int fd;
  if (n >= sizeof dir) return -1;
  memcpy(dir, rel, n + 1);
  for (i = 0; i < n; i++) {
    if (dir[i] != '/') continue;
    dir[i] = 0;
    if (syscall(SYS_mkdirat, dev, dir, 0755) < 0 && errno != EEXIST) return -1;
    dir[i] = '/';
  }
  fd = (int)syscall(SYS_openat, dev, rel, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW, 0666);
  if (fd < 0) return -1;
  sys_close(fd);
  return bind_at(host, rel, dev, rel);
}

/* dev/name, a symbolic link of capinit's /dev (/dev/log -> a socket in
 * the syslog daemon's own directory, where its restart makes a new one:
 * /var/lib/rsyslog/log in the Debian image), copied as a
 * link: it keeps naming the daemon's socket after the next restart, where
 * a bind of the socket itself would go stale.  0 also when it is none. */
static int copy_link(int host, int dev, char const *name)
{
  char to[PATH_MAX];
  long n = syscall(SYS_readlinkat, host, name, to, sizeof to - 1);
  if (n < 0) return 0;
  to[n] = 0;
  return (int)syscall(SYS_symlinkat, to, dev, name);
}

/* A /dev of its own at root/dev: a tmpfs (nosuid, nodev, noexec) with the usual
 * devices and those the file names (devices), bound from capinit's /dev,
 * whose descriptor host is, taken before the tmpfs hides it; the links
 * of a /dev, a private shm and devpts, mqueue with private-ipc, and the
 * syslog socket /dev/log when capinit's /dev has one (its clients need it;
 * a link is copied as a link: copy_link).  No block device,
 * no /dev/kmsg, no console, no tty but the service's own, unless named. */
static int make_dev(int root, int host, svc_container const *ct)
{
  static char const *const nodes[] = { "null", "zero", "full", "random", "urandom", "tty", "log" };
  static char const *const links[][2] = {
    { "fd", "/proc/self/fd" }, { "stdin", "/proc/self/fd/0" }, { "stdout", "/proc/self/fd/1" },
    { "stderr", "/proc/self/fd/2" }, { "ptmx", "pts/ptmx" },
  };
  /* nodev: a node made there (cap_mknod) opens nothing; those bound in
   * are mounts of capinit's /dev and open as there.  4 MiB: room for
   * what a service makes in its /dev, not for filling memory */
  static char const *const dev_opts[] = { "mode", "0755", "size", "4m", 0 };
  static char const *const pts_opts[] = { "ptmxmode", "0666", "mode", "0620", 0 };
  int dev, r = -1;
  size_t i;
  if (fs_at("tmpfs", dev_opts, MOUNT_ATTR_NOSUID | MOUNT_ATTR_NODEV | MOUNT_ATTR_NOEXEC, root, "dev") < 0) return -1;
  /* an O_PATH descriptor cannot make files: a real one */
  dev = (int)syscall(SYS_openat, root, "dev", O_RDONLY | O_DIRECTORY | O_CLOEXEC | O_NOFOLLOW);
  if (dev < 0) return -1;
  for (i = 0; i < sizeof nodes / sizeof *nodes; i++)
    if (copy_link(host, dev, nodes[i]) < 0 || (exists_at(host, nodes[i]) && pass_through(host, dev, nodes[i]) < 0))
      goto out;
  for (i = 0; i < ct->ndevices; i++)
    if (pass_through(host, dev, ct->devices[i].path + 5) < 0) goto out;
  for (i = 0; i < sizeof links / sizeof *links; i++)
    if (syscall(SYS_symlinkat, links[i][1], dev, links[i][0]) < 0) goto out;
  if (syscall(SYS_mkdirat, dev, "shm", 01777) < 0 ||
      fs_at("tmpfs", tmp_opts, MOUNT_ATTR_NOSUID | MOUNT_ATTR_NODEV, dev, "shm") < 0)
    goto out;
  if (syscall(SYS_mkdirat, dev, "pts", 0755) < 0 ||
      fs_at("devpts", pts_opts, MOUNT_ATTR_NOSUID | MOUNT_ATTR_NOEXEC, dev, "pts") < 0)
    goto out;
  if (container_own_mqueue(ct) && (syscall(SYS_mkdirat, dev, "mqueue", 01777) < 0 ||
                          fs_at("mqueue", 0, MOUNT_ATTR_NOSUID | MOUNT_ATTR_NODEV | MOUNT_ATTR_NOEXEC, dev, "mqueue") < 0))
    goto out;
  r = 0;
out:
  sys_close(dev);
  return r;
}

/* capinit's /dev and the tree's root, for make_dev */
static int own_dev(char const *root_path, svc_container const *ct)
{
  int host = path_fd(AT_FDCWD, "/dev"), root = -1, r = -1;
  if (host >= 0 && (root = path_fd(AT_FDCWD, root_path)) >= 0) r = make_dev(root, host, ct);
  if (root >= 0) sys_close(root);
  if (host >= 0) sys_close(host);
  return r;
}

static int stage_root(svc_container const *ct, priv_fail *f)
{
  int root;
  if (!ct->root) return 0;
  if (own_dev(ct->root, ct) < 0) return priv_failed(f, STAGE_ROOT, CT_ARG_DEV);
  root = path_fd(AT_FDCWD, ct->root);
  if (root < 0) return priv_failed(f, STAGE_ROOT, CT_ARG_ROOT);
  if (fs_at("tmpfs", tmp_opts, MOUNT_ATTR_NOSUID | MOUNT_ATTR_NODEV, root, "tmp") < 0) {
    sys_close(root);
    return priv_failed(f, STAGE_ROOT, CT_ARG_TMP);
  }
  /* pivot_root(".", "."): the old root is stacked under the new one, and
   * detached from it at once.  The initramfs (rootfs) cannot be pivoted
   * away (EINVAL): there, as switch_root does, the root directory is
   * moved over / and the service chrooted into it */
  if (syscall(SYS_fchdir, root) < 0) goto pivot_failed;
  if (syscall(SYS_pivot_root, ".", ".") == 0) {
    if (syscall(SYS_umount2, ".", MNT_DETACH) < 0) goto pivot_failed;
  } else if (errno != EINVAL || syscall(SYS_mount, ".", "/", 0, MS_MOVE, 0) < 0 ||
             syscall(SYS_chroot, ".") < 0) {
    goto pivot_failed;
  }
  if (syscall(SYS_chdir, "/") < 0) goto pivot_failed;
  sys_close(root);
  return 0;
pivot_failed:
  sys_close(root);
  return priv_failed(f, STAGE_ROOT, CT_ARG_PIVOT);
}

/* The options of its own /proc as fs_at takes them, each with its value
 * for a kernel before 5.8 when older; 0, or -1 when one has none. */
static int proc_options(svc_container const *ct, int older, char const *opts[2 * CT_PROC_OPTS_MAX + 1])
{
  ct_proc_opt const *o[CT_PROC_OPTS_MAX];
  size_t i, n = container_proc_opts(ct, o);
  for (i = 0; i < n; i++) {
    opts[2 * i] = o[i]->key;
    opts[2 * i + 1] = older ? o[i]->older : o[i]->value;
    if (!opts[2 * i + 1]) return -1;
  }
  opts[2 * n] = 0;
  return 0;
}

/* A /proc of its own, with the options the plan gives (conf/container.c);
 * refused with EINVAL (a kernel before 5.8), with their older values when
 * each has one, else the stage fails: never a /proc with less than the
 * file asks. */
static int stage_proc(svc_container const *ct, priv_fail *f)
{
  char const *opts[2 * CT_PROC_OPTS_MAX + 1];
  unsigned attrs = MOUNT_ATTR_NOSUID | MOUNT_ATTR_NODEV | MOUNT_ATTR_NOEXEC;
  if (!container_own_proc(ct)) return 0;
  proc_options(ct, 0, opts);
  if (fs_at("proc", opts, attrs, AT_FDCWD, "/proc") == 0) return 0;
  if (errno != EINVAL || proc_options(ct, 1, opts) < 0 || fs_at("proc", opts, attrs, AT_FDCWD, "/proc") < 0)
    return priv_failed(f, STAGE_PROC, -1);
  return 0;
}

/* The kernel's knobs stay read-only under a read-only tree, as the rest
 * of /proc becomes writable again (a process's own files: oom_score_adj,
 * its comm...). */
static char const *const proc_knobs[] = { "/proc/sys", "/proc/sysrq-trigger", "/proc/irq", "/proc/bus", "/proc/fs" };

static int stage_readonly(svc_container const *ct, priv_fail *f)
{
  size_t i;
  if (container_read_only(ct)) {
    if (set_attrs("/", MOUNT_ATTR_RDONLY, 0, 1) < 0) return priv_failed(f, STAGE_READONLY, CT_ARG_TREE);
    /* devices, and the process's own /proc files, stay writable */
    if (exists("/dev") && set_attrs("/dev", 0, MOUNT_ATTR_RDONLY, 1) < 0)
      return priv_failed(f, STAGE_READONLY, CT_ARG_DEV);
    if (exists("/proc") && set_attrs("/proc", 0, MOUNT_ATTR_RDONLY, 0) < 0)
      return priv_failed(f, STAGE_READONLY, CT_ARG_PROC);
    for (i = 0; i < sizeof proc_knobs / sizeof *proc_knobs; i++)
      if (exists(proc_knobs[i]) && self_bind(proc_knobs[i], MOUNT_ATTR_RDONLY, 0, 0) < 0)
        return priv_failed(f, STAGE_READONLY, CT_ARG_PROC);
    if (container_own_tmp(ct) && set_attrs("/tmp", 0, MOUNT_ATTR_RDONLY, 0) < 0)
      return priv_failed(f, STAGE_READONLY, CT_ARG_TMP);
    if (container_own_var_tmp(ct) && exists("/var/tmp") && set_attrs("/var/tmp", 0, MOUNT_ATTR_RDONLY, 0) < 0)
      return priv_failed(f, STAGE_READONLY, CT_ARG_VARTMP);
    for (i = 0; i < ct->nrw; i++)
      if (self_bind(ct->rw[i].path, no_suid(ct), MOUNT_ATTR_RDONLY, 1) < 0)
        return priv_failed(f, STAGE_READONLY, CT_ARG_RW + (int)i);
  }
  for (i = 0; i < ct->nbinds; i++) {
    int mode = container_bind_mode(ct, &ct->binds[i]);
    unsigned set = (mode == 'r' ? MOUNT_ATTR_RDONLY : 0) | no_suid(ct), clear = mode == 'w' ? MOUNT_ATTR_RDONLY : 0;
    if (set_attrs(ct->binds[i].dst, set, clear, 1) < 0)
      return priv_failed(f, STAGE_READONLY, (int)i);
  }
  return 0;
}

/* A Unix socket at path, bound on fd: its directory opened without
 * following a symbolic link (openat2, as the mounts: a link swapped in
 * by whoever may write there cannot redirect root's bind), a socket file
 * left there by an earlier start removed (anything else makes bind fail),
 * and the bind made through /proc/self/fd/DIR/NAME, with a umask that
 * gives the socket mode 0666 (no chmod by path afterwards). */
static int bind_unix(int fd, char const *path)
{
  struct sockaddr_un sa;
  struct stat st;
  char const *base = strrchr(path, '/') + 1;
  char dir[sizeof sa.sun_path], digits[12];
  size_t dn = (size_t)(base - path), n = 0, k = 0, i;
  int d, r, e;
  unsigned old;
  memcpy(dir, path, dn);
  dir[dn > 1 ? dn - 1 : 1] = 0;
  d = path_fd(AT_FDCWD, dir);
  if (d < 0) return -1;
  /* libc's fstatat: the stat call and structure differ by architecture */
  if (fstatat(d, base, &st, AT_SYMLINK_NOFOLLOW) == 0 && S_ISSOCK(st.st_mode)) syscall(SYS_unlinkat, d, base, 0);
  memset(&sa, 0, sizeof sa);
  sa.sun_family = AF_UNIX;
  for (i = (size_t)d; n < sizeof digits; i /= 10) {
    digits[n++] = (char)('0' + i % 10);
    if (i < 10) break;
  }
  memcpy(sa.sun_path, "/proc/self/fd/", 14);
  k = 14;
  while (n) sa.sun_path[k++] = digits[--n];
  sa.sun_path[k++] = '/';
  if (k + strlen(base) >= sizeof sa.sun_path) {
    sys_close(d);
    errno = ENAMETOOLONG;
    return -1;
  }
  memcpy(sa.sun_path + k, base, strlen(base) + 1);
  old = (unsigned)syscall(SYS_umask, 0111);
  r = (int)syscall(SYS_bind, fd, &sa, (socklen_t)sizeof sa);
  e = errno;
  syscall(SYS_umask, old);
  sys_close(d);
  errno = e;
  return r;
}

/* listen: each socket made, bound and listening, at CT_LISTEN_FD + i (a
 * descriptor that survives the exec).  A Unix socket's path is the
 * service's own (after the pivot). */
static int listen_one(ct_listen const *l, int at)
{
  int on = 1, v6only = l->v6only, fd, r;
  fd = (int)syscall(SYS_socket, l->addr.sa.sa_family, SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (fd < 0) return -1;
  if (l->addr.sa.sa_family == AF_UNIX) {
    if (bind_unix(fd, l->addr.un.sun_path) < 0) goto fail;
  } else if (syscall(SYS_setsockopt, fd, SOL_SOCKET, SO_REUSEADDR, &on, sizeof on) < 0 ||
             (l->addr.sa.sa_family == AF_INET6 &&
              syscall(SYS_setsockopt, fd, IPPROTO_IPV6, IPV6_V6ONLY, &v6only, sizeof v6only) < 0) ||
             syscall(SYS_bind, fd, &l->addr.sa, l->addrlen) < 0) {
    goto fail;
  }
  /* the kernel caps the backlog at net.core.somaxconn */
  if (syscall(SYS_listen, fd, 65535) < 0) goto fail;
  if (fd == at) return (int)syscall(SYS_fcntl, fd, F_SETFD, 0);
  r = (int)syscall(SYS_dup3, fd, at, 0);
  sys_close(fd);
  return r;
fail:
  sys_close(fd);
  return -1;
}

static int stage_listen(svc_container const *ct, priv_fail *f)
{
  size_t i;
  for (i = 0; i < ct->nlisten; i++)
    if (listen_one(&ct->listen[i], CT_LISTEN_FD + (int)i) < 0) return priv_failed(f, STAGE_LISTEN, (int)i);
  return 0;
}

static int container_stages(svc_container const *ct, int host, int card_taken, priv_fail *f)
{
  STAGE_START(f, STAGE_NAMESPACES);
  if (ct && stage_namespaces(ct, f) < 0) return -1;
  STAGE_START(f, STAGE_HOSTNAME);
  if (ct && ct->hostname && syscall(SYS_sethostname, ct->hostname, strlen(ct->hostname)) < 0)
    return priv_failed(f, STAGE_HOSTNAME, -1);
  STAGE_START(f, STAGE_NETWORK);
  if (ct && stage_network(ct, f) < 0) return -1;
  if (netcard_apply(ct, host, card_taken, f) < 0) return -1;
  STAGE_START(f, STAGE_MOUNTS);
  if (container_has_mounts(ct) && stage_mounts(ct, f) < 0) return -1;
  STAGE_START(f, STAGE_ROOT);
  if (ct && stage_root(ct, f) < 0) return -1;
  STAGE_START(f, STAGE_PROC);
  if (ct && stage_proc(ct, f) < 0) return -1;
  STAGE_START(f, STAGE_READONLY);
  if (container_has_mounts(ct) && stage_readonly(ct, f) < 0) return -1;
  STAGE_START(f, STAGE_LISTEN);
  if (ct && stage_listen(ct, f) < 0) return -1;
  return 0;
}

/* A card is made from capinit's network: its socket is opened before
 * the unshare that leaves it (engine/netcard.c). */
int container_apply(svc_container const *ct, int card_taken, priv_fail *f)
{
  int host = -1, r;
  if (container_card(ct) && (host = nl_open()) < 0) return priv_failed(f, STAGE_CARD, NC_ARG_SOCKET);
  r = container_stages(ct, host, card_taken, f);
  if (host >= 0) sys_close(host);
  return r;
}

/* ------------------------------------------------------------ messages */

static char const *bind_text(svc_container const *ct, int i, char *buf, size_t len)
{
  if (!ct || i < 0 || (size_t)i >= ct->nbinds) return "bind-mount";
  snprintf(buf, len, "bind-mount %s on %s%s", ct->binds[i].src, ct->binds[i].at,
           ct->binds[i].ro ? " (read-only)" : "");
  return buf;
}

/* The namespaces unshare makes, as "create the namespaces ( mount ipc)" */
static void namespaces_text(svc_container const *ct, char *buf, size_t len)
{
  size_t i, n = (size_t)snprintf(buf, len, "create the namespaces (");
  for (i = 0; i < container_ns_kinds_n && n < len; i++)
    if (container_ns_kinds[i].flag && container_ns_kinds[i].own(ct))
      n += (size_t)snprintf(buf + n, len - n, " %s", container_ns_kinds[i].word);
  if (n < len) snprintf(buf + n, len - n, ")");
}

char *container_describe(priv_fail const *f, svc_container const *ct, char *buf, size_t len)
{
  char const *root = ct && ct->root ? ct->root : "the root directory";
  char b[600];
  switch (f->stage) {
    case STAGE_NAMESPACES: namespaces_text(ct, buf, len); break;
    case STAGE_HOSTNAME: snprintf(buf, len, "set the hostname %s", ct && ct->hostname ? ct->hostname : ""); break;
    case STAGE_NETWORK:
      if (ct && ct->network == NET_NAMED) snprintf(buf, len, "join the network namespace %s", ct->netns);
      else snprintf(buf, len, "bring up the loopback interface of a new network namespace");
      break;
    case STAGE_MOUNTS:
      if (f->arg == CT_ARG_PRIVATE) snprintf(buf, len, "make the mount tree private");
      else if (f->arg == CT_ARG_ROOT) snprintf(buf, len, "make %s a mount of its own", root);
      else if (f->arg == CT_ARG_TMP) snprintf(buf, len, "mount a private /tmp");
      else if (f->arg == CT_ARG_VARTMP) snprintf(buf, len, "mount a private /var/tmp");
      else if (f->arg == CT_ARG_DEV) snprintf(buf, len, "make its own /dev");
      else snprintf(buf, len, "%s", bind_text(ct, f->arg, b, sizeof b));
      break;
    case STAGE_ROOT:
      if (f->arg == CT_ARG_DEV) snprintf(buf, len, "make %s/dev", root);
      else if (f->arg == CT_ARG_TMP) snprintf(buf, len, "mount %s/tmp", root);
      else if (f->arg == CT_ARG_PIVOT) snprintf(buf, len, "pivot into %s", root);
      else snprintf(buf, len, "open %s", root);
      break;
    case STAGE_PROC: snprintf(buf, len, "mount a new /proc"); break;
    case STAGE_READONLY:
      if (f->arg == CT_ARG_TREE) snprintf(buf, len, "make the whole tree read-only");
      else if (f->arg == CT_ARG_DEV) snprintf(buf, len, "keep /dev writable");
      else if (f->arg == CT_ARG_PROC) snprintf(buf, len, "keep /proc writable and its kernel settings read-only");
      else if (f->arg == CT_ARG_TMP) snprintf(buf, len, "keep /tmp writable");
      else if (f->arg == CT_ARG_VARTMP) snprintf(buf, len, "keep /var/tmp writable");
      else if (f->arg >= CT_ARG_RW && ct && (size_t)(f->arg - CT_ARG_RW) < ct->nrw)
        snprintf(buf, len, "make %s writable", ct->rw[f->arg - CT_ARG_RW].path);
      else if (ct && f->arg >= 0 && (size_t)f->arg < ct->nbinds)
        snprintf(buf, len, "make the bind on %s %s", ct->binds[f->arg].dst, ct->binds[f->arg].ro ? "read-only" : "writable");
      else snprintf(buf, len, "set the tree's read-only and writable parts");
      break;
    case STAGE_LISTEN:
      if (ct && f->arg >= 0 && (size_t)f->arg < ct->nlisten)
        snprintf(buf, len, "listen on %s (descriptor %d)", ct->listen[f->arg].text, CT_LISTEN_FD + f->arg);
      else snprintf(buf, len, "make the listening sockets");
      break;
    default: snprintf(buf, len, "build the container"); break;
  }
  return buf;
}

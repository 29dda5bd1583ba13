/* supervise/verify_container.c -- capctl verify, for a service with a
 * container: the kernel's view of the running command against what its
 * file declares (conf/container.h).
 *   - /proc/PID/ns/KIND: a namespace of its own where declared, capinit's
 *     own elsewhere (network = netns:NAME: the one /run/netns/NAME holds);
 *   - /proc/PID/mountinfo: / read-only under read-only = yes, the
 *     read-write paths and /dev writable, /proc/sys read-only, each bind
 *     at its target with its declared mode, a tmpfs on /tmp; the
 *     read-write paths, binds and root directory nosuid,nodev unless
 *     allow-suid = yes;
 *   - /proc/PID/root is the root directory;
 *   - its /proc is its PID namespace's own: the command is there, at the
 *     pid that namespace gives it. */
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "../conf/fstab.h"
#include "procfs.h"
#include "verify_container.h"

typedef struct diff_s {
  char *field, *live, *want;
  size_t len;
} diff;

static int differs(diff *d, char const *field, char const *live, char const *want)
{
  snprintf(d->field, d->len, "%s", field);
  snprintf(d->live, d->len, "%s", live);
  snprintf(d->want, d->len, "%s", want);
  return 1;
}

static int ns_of(pid_t pid, char const *kind, char *buf, size_t len)
{
  char path[64];
  ssize_t n;
  snprintf(path, sizeof path, "/proc/%d/ns/%s", (int)pid, kind);
  n = readlink(path, buf, len - 1);
  if (n < 0) return -1;
  buf[n] = 0;
  return 0;
}

static int check_namespaces(svc_container const *ct, pid_t pid, diff *d)
{
  static struct { int flag; char const *kind; } const kinds[] = {
    { CLONE_NEWNS, "mnt" }, { 0, "pid" }, { CLONE_NEWIPC, "ipc" }, { CLONE_NEWUTS, "uts" }, { CLONE_NEWNET, "net" },
  };
  int flags = container_unshare_flags(ct);
  size_t i;
  for (i = 0; i < sizeof kinds / sizeof *kinds; i++) {
    char live[64], ours[64], field[16];
    int own = kinds[i].flag ? (flags & kinds[i].flag) != 0 : ct->private_pids;
    snprintf(field, sizeof field, "ns:%s", kinds[i].kind);
    if (ns_of(pid, kinds[i].kind, live, sizeof live) < 0 || ns_of(getpid(), kinds[i].kind, ours, sizeof ours) < 0)
      return differs(d, field, strerror(errno), own ? "its own" : ours);
    if (kinds[i].flag == CLONE_NEWNET && ct->network == NET_NAMED) {
      struct stat st;
      char want[64];
      if (stat(ct->netns, &st) < 0) return differs(d, field, live, "the namespace of a missing file");
      snprintf(want, sizeof want, "net:[%lu]", (unsigned long)st.st_ino);
      if (strcmp(live, want)) return differs(d, field, live, want);
      continue;
    }
    if (own && !strcmp(live, ours)) return differs(d, field, live, "its own");
    if (!own && strcmp(live, ours)) return differs(d, field, live, ours);
  }
  return 0;
}

/* The mount on top at path in a parsed mountinfo (the last one there, in
 * the kernel's order), or NULL. */
static mountinfo_entry const *mount_at(mountinfo_entry const *v, size_t n, char const *path)
{
  mountinfo_entry const *top = 0;
  size_t i;
  for (i = 0; i < n; i++)
    if (!strcmp(v[i].point, path)) top = &v[i];
  return top;
}

static char const *rw_of(char const *opts)
{
  return !strncmp(opts, "ro", 2) && (opts[2] == ',' || !opts[2]) ? "ro" : "rw";
}

static int check_mount(mountinfo_entry const *v, size_t n, char const *path, char const *want_mode,
                       char const *want_type, diff *d)
{
  mountinfo_entry const *m = mount_at(v, n, path);
  char field[4200];
  snprintf(field, sizeof field, "mount:%s", path);
  if (!m) return differs(d, field, "not a mount", want_type ? want_type : want_mode);
  if (want_mode && strcmp(rw_of(m->options), want_mode)) return differs(d, field, rw_of(m->options), want_mode);
  if (want_type && strcmp(m->type, want_type)) return differs(d, field, m->type, want_type);
  return 0;
}

/* nosuid and nodev among a mount's options ("rw,nosuid,nodev,relatime") */
static int has_opt(char const *opts, char const *opt)
{
  size_t n = strlen(opt);
  for (char const *p = opts; p; p = strchr(p, ',')) {
    if (*p == ',') p++;
    if (!strncmp(p, opt, n) && (p[n] == ',' || !p[n])) return 1;
  }
  return 0;
}

static int check_nosuid(svc_container const *ct, mountinfo_entry const *v, size_t n, char const *path, diff *d)
{
  mountinfo_entry const *m = mount_at(v, n, path);
  char field[4200];
  if (ct->allow_suid || !m || (has_opt(m->options, "nosuid") && has_opt(m->options, "nodev"))) return 0;
  snprintf(field, sizeof field, "mount:%s", path);
  return differs(d, field, m->options, "nosuid,nodev");
}

static char *slurp_mountinfo(pid_t pid, size_t *len)
{
  char path[64];
  char *buf = 0;
  size_t cap = 0;
  ssize_t r;
  int fd;
  *len = 0;
  snprintf(path, sizeof path, "/proc/%d/mountinfo", (int)pid);
  fd = open(path, O_RDONLY | O_CLOEXEC);
  if (fd < 0) return 0;
  for (;;) {
    if (*len + 4096 + 1 > cap) {
      char *nb = realloc(buf, cap ? cap * 2 : 16384);
      if (!nb) break;
      buf = nb;
      cap = cap ? cap * 2 : 16384;
    }
    r = read(fd, buf + *len, cap - *len - 1);
    if (r <= 0) break;
    *len += (size_t)r;
  }
  close(fd);
  if (buf) buf[*len] = 0;
  return buf;
}

static int check_mounts(svc_container const *ct, pid_t pid, diff *d)
{
  mountinfo_entry *v;
  size_t len, n, i;
  char *info;
  int bad = 0;
  if (!container_has_mounts(ct)) return 0;
  info = slurp_mountinfo(pid, &len);
  if (!info) return differs(d, "mountinfo", strerror(errno), "readable");
  n = mountinfo_lines(info, len);
  v = calloc(n + 1, sizeof *v);
  if (!v) {
    free(info);
    return differs(d, "mountinfo", strerror(ENOMEM), "readable");
  }
  n = mountinfo_parse(info, len, v, n);
  if (ct->read_only) {
    bad = check_mount(v, n, "/", "ro", 0, d) || check_mount(v, n, "/proc/sys", "ro", 0, d) ||
          check_mount(v, n, "/dev", "rw", 0, d);
    for (i = 0; !bad && i < ct->nrw; i++)
      bad = check_mount(v, n, ct->rw[i].path, "rw", 0, d) || check_nosuid(ct, v, n, ct->rw[i].path, d);
  }
  for (i = 0; !bad && i < ct->nbinds; i++)
    bad = check_mount(v, n, ct->binds[i].dst, ct->binds[i].ro ? "ro" : ct->read_only ? "rw" : 0, 0, d) ||
          check_nosuid(ct, v, n, ct->binds[i].dst, d);
  if (!bad && ct->root) bad = check_nosuid(ct, v, n, "/", d);
  if (!bad && (ct->private_tmp || ct->root)) bad = check_mount(v, n, "/tmp", "rw", "tmpfs", d);
  if (!bad && (ct->private_pids || ct->root)) bad = check_mount(v, n, "/proc", 0, "proc", d);
  free(v);
  free(info);
  return bad;
}

static int check_root(svc_container const *ct, pid_t pid, diff *d)
{
  struct stat live, want;
  char path[64], l[64], w[64];
  if (!ct->root) return 0;
  snprintf(path, sizeof path, "/proc/%d/root", (int)pid);
  if (stat(path, &live) < 0) return differs(d, "root", strerror(errno), ct->root);
  if (stat(ct->root, &want) < 0) return differs(d, "root", "?", strerror(errno));
  snprintf(l, sizeof l, "%lu:%lu", (unsigned long)live.st_dev, (unsigned long)live.st_ino);
  snprintf(w, sizeof w, "%lu:%lu", (unsigned long)want.st_dev, (unsigned long)want.st_ino);
  if (strcmp(l, w)) return differs(d, "root", l, w);
  return 0;
}

/* The last number of the line KEY of /proc/PID/status (NSpid: the pid in
 * the innermost PID namespace), or -1. */
static long status_last(pid_t pid, char const *key)
{
  char buf[4096], v[256], *p;
  if (procfs_read(pid, "status", buf, sizeof buf) < 0 || procfs_field(buf, key, v, sizeof v) < 0) return -1;
  p = v + strlen(v);
  while (p > v && p[-1] >= '0' && p[-1] <= '9') p--;
  return strtol(p, 0, 10);
}

/* The start time (field 22) of the stat file at path, or 0. */
static unsigned long long start_time(char const *path)
{
  char buf[1024], *p;
  int fd = open(path, O_RDONLY | O_CLOEXEC), field;
  ssize_t n;
  if (fd < 0) return 0;
  n = read(fd, buf, sizeof buf - 1);
  close(fd);
  if (n <= 0) return 0;
  buf[n] = 0;
  p = strrchr(buf, ')');  /* the command's name may hold anything */
  if (!p) return 0;
  for (field = 2; field < 22 && p; field++) p = strchr(p + 1, ' ');
  return p ? strtoull(p + 1, 0, 10) : 0;
}

/* Its /proc is its own PID namespace's: there, at the pid that namespace
 * gives it (the last of NSpid), is the command itself (the same start
 * time).  A /proc of another namespace shows another process at that pid,
 * or none.  (Counting the processes on both sides instead raced with any
 * process starting or ending between the two reads, and counted a zombie,
 * which has no namespace links left, on one side only: a contained shell
 * running a command made verify fail.) */
static int check_process_view(svc_container const *ct, pid_t pid, diff *d)
{
  char path[64], live[64], want[64];
  struct stat st;
  unsigned long long ours;
  long inner;
  if (!ct->private_pids) return 0;
  inner = status_last(pid, "NSpid");
  snprintf(path, sizeof path, "/proc/%d/stat", (int)pid);
  ours = start_time(path);
  if (inner < 1 || !ours) return differs(d, "proc", strerror(errno), "its own processes");
  snprintf(want, sizeof want, "the command at pid %ld", inner);
  snprintf(path, sizeof path, "/proc/%d/root/proc/%ld/stat", (int)pid, inner);
  if (start_time(path) == ours) return 0;
  /* stat, not access(): access() asks as the real uid (peer_shield) */
  snprintf(live, sizeof live, "%s at pid %ld", stat(path, &st) == 0 ? "another process" : "no process", inner);
  return differs(d, "proc", live, want);
}

int container_verify(svc_container const *ct, pid_t pid, char *field, char *live, char *want, size_t len)
{
  diff d = { field, live, want, len };
  if (!ct) return 0;
  return check_namespaces(ct, pid, &d) || check_root(ct, pid, &d) || check_mounts(ct, pid, &d) ||
         check_process_view(ct, pid, &d);
}

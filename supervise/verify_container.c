/* supervise/verify_container.c -- capctl verify, for a service with a
 * container: the kernel's view of the running command against what its
 * file declares (conf/container.h).
 *   - /proc/PID/ns/KIND: a namespace of its own where declared, capinit's
 *     own elsewhere (network = netns:NAME: the one /run/netns/NAME holds);
 *   - /proc/PID/mountinfo: / read-only under read-only = yes, the
 *     read-write paths and /dev writable, /proc/sys read-only, each bind
 *     at its target with its declared mode, a tmpfs on /tmp;
 *   - /proc/PID/root is the root directory;
 *   - its /proc lists exactly the processes of its PID namespace. */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "verify_container.h"

#define LINE_MAX_MI 8192

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

/* The mounts at path in a mountinfo: the last one (the one on top), its
 * per-mount options ("ro,nosuid...") and file system type. */
static int mount_at(char const *info, char const *path, char *opts, size_t olen, char *type, size_t tlen)
{
  char const *line = info;
  int found = 0;
  while (*line) {
    char mp[4096], o[256], ty[64];
    char const *eol = strchr(line, '\n'), *sep = strstr(line, " - ");
    if (!eol) eol = line + strlen(line);
    /* ID PARENT MAJ:MIN ROOT MOUNTPOINT OPTIONS [OPTIONAL...] - TYPE ... */
    if (sep && sep < eol && sscanf(line, "%*s %*s %*s %*s %4095s %255s", mp, o) == 2 &&
        sscanf(sep + 3, "%63s", ty) == 1) {
      /* mountinfo escapes blanks as \040: the paths here have none */
      if (!strcmp(mp, path)) {
        snprintf(opts, olen, "%s", o);
        snprintf(type, tlen, "%s", ty);
        found = 1;
      }
    }
    line = *eol ? eol + 1 : eol;
  }
  return found;
}

static char const *rw_of(char const *opts)
{
  return !strncmp(opts, "ro", 2) && (opts[2] == ',' || !opts[2]) ? "ro" : "rw";
}

static int check_mount(char const *info, char const *path, char const *want_mode, char const *want_type, diff *d)
{
  char opts[256], type[64], field[4200];
  snprintf(field, sizeof field, "mount:%s", path);
  if (!mount_at(info, path, opts, sizeof opts, type, sizeof type))
    return differs(d, field, "not a mount", want_type ? want_type : want_mode);
  if (want_mode && strcmp(rw_of(opts), want_mode)) return differs(d, field, rw_of(opts), want_mode);
  if (want_type && strcmp(type, want_type)) return differs(d, field, type, want_type);
  return 0;
}

static char *slurp_mountinfo(pid_t pid)
{
  char path[64];
  char *buf = 0;
  size_t len = 0, cap = 0;
  ssize_t r;
  int fd;
  snprintf(path, sizeof path, "/proc/%d/mountinfo", (int)pid);
  fd = open(path, O_RDONLY | O_CLOEXEC);
  if (fd < 0) return 0;
  for (;;) {
    if (len + 4096 + 1 > cap) {
      char *nb = realloc(buf, cap ? cap * 2 : 16384);
      if (!nb) break;
      buf = nb;
      cap = cap ? cap * 2 : 16384;
    }
    r = read(fd, buf + len, cap - len - 1);
    if (r <= 0) break;
    len += (size_t)r;
  }
  close(fd);
  if (buf) buf[len] = 0;
  return buf;
}

static int check_mounts(svc_container const *ct, pid_t pid, diff *d)
{
  char *info;
  size_t i;
  int bad = 0;
  if (!container_has_mounts(ct)) return 0;
  info = slurp_mountinfo(pid);
  if (!info) return differs(d, "mountinfo", strerror(errno), "readable");
  if (ct->read_only) {
    bad = check_mount(info, "/", "ro", 0, d) || check_mount(info, "/proc/sys", "ro", 0, d) ||
          check_mount(info, "/dev", "rw", 0, d);
    for (i = 0; !bad && i < ct->nrw; i++) bad = check_mount(info, ct->rw[i].path, "rw", 0, d);
  }
  for (i = 0; !bad && i < ct->nbinds; i++)
    bad = check_mount(info, ct->binds[i].dst, ct->binds[i].ro ? "ro" : ct->read_only ? "rw" : 0, 0, d);
  if (!bad && (ct->private_tmp || ct->root)) bad = check_mount(info, "/tmp", "rw", "tmpfs", d);
  if (!bad && (ct->private_pids || ct->root)) bad = check_mount(info, "/proc", 0, "proc", d);
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

static int numeric(char const *s)
{
  return *s && strspn(s, "0123456789") == strlen(s);
}

/* The processes its /proc lists, and those of its PID namespace as
 * capinit's /proc shows them: the same number. */
static int check_process_view(svc_container const *ct, pid_t pid, diff *d)
{
  char path[64], ns[64], other[64], a[32], b[32];
  DIR *dir;
  struct dirent *e;
  unsigned seen = 0, members = 0;
  if (!ct->private_pids) return 0;
  if (ns_of(pid, "pid", ns, sizeof ns) < 0) return differs(d, "proc", strerror(errno), "its own processes");
  snprintf(path, sizeof path, "/proc/%d/root/proc", (int)pid);
  dir = opendir(path);
  if (!dir) return differs(d, "proc", strerror(errno), "its own processes");
  while ((e = readdir(dir))) seen += numeric(e->d_name);
  closedir(dir);
  dir = opendir("/proc");
  if (!dir) return differs(d, "proc", strerror(errno), "capinit's /proc");
  while ((e = readdir(dir))) {
    char const *n = e->d_name;
    if (!numeric(n)) continue;
    if (ns_of((pid_t)atoi(n), "pid", other, sizeof other) == 0 && !strcmp(other, ns)) members++;
  }
  closedir(dir);
  snprintf(a, sizeof a, "%u processes", seen);
  snprintf(b, sizeof b, "%u processes", members);
  if (!members || seen != members) return differs(d, "proc", a, b);
  return 0;
}

int container_verify(svc_container const *ct, pid_t pid, char *field, char *live, char *want, size_t len)
{
  diff d = { field, live, want, len };
  if (!ct) return 0;
  return check_namespaces(ct, pid, &d) || check_root(ct, pid, &d) || check_mounts(ct, pid, &d) ||
         check_process_view(ct, pid, &d);
}

/* inspect/verify_container.c -- capctl verify, for a service with a
 * container: the kernel's view of the running command against what its
 * file declares (conf/container.h).
 *   - /proc/PID/ns/KIND: a namespace of its own where declared, capinit's
 *     own elsewhere (network = netns:NAME: the one /run/netns/NAME holds);
 *   - /proc/PID/mountinfo: / read-only under read-only = yes, the
 *     read-write paths and /dev writable, /proc/sys read-only, each bind
 *     at its target with its declared mode, a tmpfs on /tmp; the
 *     read-write paths, binds and root directory nosuid,nodev unless
 *     allow-suid = yes;
 *   - a /dev of its own (private-devices) is a tmpfs, nosuid,nodev,
 *     noexec, with its own shm, pts (and mqueue with private-ipc), and
 *     holds capinit's usual devices and those named by devices, no other;
 *   - its /proc is a proc of its own, with the options its plan gives
 *     (hidepid=invisible...: conf/container.c);
 *   - /proc/PID/root is the root directory;
 *   - its /proc is its PID namespace's own: the command is there, at the
 *     pid that namespace gives it;
 *   - a card of its own (network = macvlan:PARENT, ipvlan:PARENT), as the
 *     service sees its network: /proc/PID/net/dev lists lo and eth0 only,
 *     its only address besides loopback's is the file's (net/fib_trie),
 *     its routes are its net's and the default via the gateway
 *     (net/route). */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>
#include <arpa/inet.h>

#include "../conf/fstab.h"
#include "file.h"
#include "mountinfo.h"
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

static int check_namespaces(svc_container const *ct, pid_t pid, pid_t launcher, diff *d)
{
  size_t i;
  for (i = 0; i < container_ns_kinds_n; i++) {
    ct_ns_kind const *k = &container_ns_kinds[i];
    char live[64], ours[64], field[16];
    char const *joined = k->joins ? k->joins(ct) : 0;
    int own = k->own(ct);
    snprintf(field, sizeof field, "ns:%s", k->name);
    if (ns_of(pid, k->name, live, sizeof live) < 0 || ns_of(launcher, k->name, ours, sizeof ours) < 0)
      return differs(d, field, strerror(errno), own ? "its own" : ours);
    if (joined) {
      struct stat st;
      char want[64];
      if (stat(joined, &st) < 0) return differs(d, field, live, "the namespace of a missing file");
      snprintf(want, sizeof want, "%s:[%lu]", k->name, (unsigned long)st.st_ino);
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
  if (!container_nosuid(ct) || !m || (has_opt(m->options, "nosuid") && has_opt(m->options, "nodev"))) return 0;
  snprintf(field, sizeof field, "mount:%s", path);
  return differs(d, field, m->options, "nosuid,nodev");
}

/* A /dev of its own: a tmpfs, nosuid,nodev,noexec; its own shm and pts,
 * its own mqueue with private-ipc */
static int check_own_dev(mountinfo_entry const *v, size_t n, svc_container const *ct, diff *d)
{
  mountinfo_entry const *m = mount_at(v, n, "/dev");
  if (check_mount(v, n, "/dev", "rw", "tmpfs", d)) return 1;
  if (!has_opt(m->options, "nosuid") || !has_opt(m->options, "nodev") || !has_opt(m->options, "noexec"))
    return differs(d, "mount:/dev", m->options, "nosuid,nodev,noexec");
  return check_mount(v, n, "/dev/shm", "rw", "tmpfs", d) || check_mount(v, n, "/dev/pts", "rw", "devpts", d) ||
         (container_own_mqueue(ct) && check_mount(v, n, "/dev/mqueue", "rw", "mqueue", d));
}

/* Its /proc: a proc of its own, with each option the plan gives it
 * (hidepid=invisible...), or its value before Linux 5.8 */
static int check_proc(svc_container const *ct, mountinfo_entry const *v, size_t n, diff *d)
{
  mountinfo_entry const *m = mount_at(v, n, "/proc");
  ct_proc_opt const *o[CT_PROC_OPTS_MAX];
  size_t i, k = container_proc_opts(ct, o);
  if (check_mount(v, n, "/proc", 0, "proc", d)) return 1;
  for (i = 0; i < k; i++) {
    char want[64], older[64];
    snprintf(want, sizeof want, "%s=%s", o[i]->key, o[i]->value);
    snprintf(older, sizeof older, "%s=%s", o[i]->key, o[i]->older ? o[i]->older : o[i]->value);
    if (!has_opt(m->super, want) && !has_opt(m->super, older)) return differs(d, "mount:/proc", m->super, want);
  }
  return 0;
}

static int check_mounts(svc_container const *ct, pid_t pid, diff *d)
{
  mountinfo_entry *v;
  size_t n, i;
  char *info;
  int bad = 0;
  if (!container_has_mounts(ct)) return 0;
  info = mountinfo_read(pid, &v, &n);
  if (!info) return differs(d, "mountinfo", strerror(errno), "readable");
  if (container_read_only(ct)) {
    bad = check_mount(v, n, "/", "ro", 0, d) ||
          (container_proc_knobs(ct) && check_mount(v, n, "/proc/sys", "ro", 0, d)) ||
          check_mount(v, n, "/dev", "rw", 0, d);
    for (i = 0; !bad && i < ct->nrw; i++)
      bad = check_mount(v, n, ct->rw[i].path, "rw", 0, d) || check_nosuid(ct, v, n, ct->rw[i].path, d);
  }
  for (i = 0; !bad && i < ct->nbinds; i++) {
    int mode = container_bind_mode(ct, &ct->binds[i]);
    bad = check_mount(v, n, ct->binds[i].dst, mode == 'r' ? "ro" : mode == 'w' ? "rw" : 0, 0, d) ||
          check_nosuid(ct, v, n, ct->binds[i].dst, d);
  }
  if (!bad && ct->root) bad = check_nosuid(ct, v, n, "/", d);
  if (!bad && container_own_dev(ct)) bad = check_own_dev(v, n, ct, d);
  if (!bad && container_own_tmp(ct)) bad = check_mount(v, n, "/tmp", "rw", "tmpfs", d);
  if (!bad && container_own_proc(ct)) bad = check_proc(ct, v, n, d);
  free(v);
  free(info);
  return bad;
}

/* The devices of capinit's /dev a /dev of its own holds (engine/container.c) */
static char const *const usual_nodes[] = { "null", "zero", "full", "random", "urandom", "tty" };

static int named_device(svc_container const *ct, char const *rel)
{
  size_t i;
  for (i = 0; i < sizeof usual_nodes / sizeof *usual_nodes; i++)
    if (!strcmp(rel, usual_nodes[i])) return 1;
  for (i = 0; i < ct->ndevices; i++)
    if (!strcmp(rel, ct->devices[i].path + 5)) return 1;
  return 0;
}

/* Every device node under dir (rel below its /dev) is one it was given;
 * pts, its own devpts, holds its own terminals.  Depth: devices names at
 * most a few levels (/dev/net/tun, /dev/dri/card0). */
static int walk_dev(svc_container const *ct, int dir, char const *rel, int depth, diff *d)
{
  DIR *dp;
  struct dirent *e;
  int fd, bad = 0;
  fd = openat(dir, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (fd < 0 || !(dp = fdopendir(fd))) {
    if (fd >= 0) close(fd);
    return differs(d, "dev", strerror(errno), "readable");
  }
  while (!bad && (e = readdir(dp))) {
    char sub[512];
    struct stat st;
    if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, "..") || (!*rel && !strcmp(e->d_name, "pts"))) continue;
    snprintf(sub, sizeof sub, "%s%s%s", rel, *rel ? "/" : "", e->d_name);
    /* lstat: a node bound over the tmpfs's empty file is the node */
    if (fstatat(dirfd(dp), e->d_name, &st, AT_SYMLINK_NOFOLLOW) < 0) continue;
    if ((S_ISCHR(st.st_mode) || S_ISBLK(st.st_mode)) && !named_device(ct, sub)) {
      char live[600];
      snprintf(live, sizeof live, "/dev/%s (%s %u:%u)", sub, S_ISBLK(st.st_mode) ? "block" : "char",
               major(st.st_rdev), minor(st.st_rdev));
      bad = differs(d, "dev", live, "only the usual devices and those named by devices");
    } else if (S_ISDIR(st.st_mode) && depth < 4) {
      int sd = openat(dirfd(dp), e->d_name, O_RDONLY | O_DIRECTORY | O_CLOEXEC | O_NOFOLLOW);
      if (sd >= 0) {
        bad = walk_dev(ct, sd, sub, depth + 1, d);
        close(sd);
      }
    }
  }
  closedir(dp);
  return bad;
}

/* A /dev of its own: what it holds, and each device it should hold is
 * capinit's (the same device number). */
static int check_dev(svc_container const *ct, pid_t pid, diff *d)
{
  char path[600];
  size_t i;
  int fd, bad;
  if (!container_own_dev(ct)) return 0;
  snprintf(path, sizeof path, "/proc/%d/root/dev", (int)pid);
  fd = open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (fd < 0) return differs(d, "dev", strerror(errno), "readable");
  bad = walk_dev(ct, fd, "", 0, d);
  for (i = 0; !bad && i < sizeof usual_nodes / sizeof *usual_nodes + ct->ndevices; i++) {
    char const *rel = i < sizeof usual_nodes / sizeof *usual_nodes ? usual_nodes[i]
                                                                   : ct->devices[i - sizeof usual_nodes / sizeof *usual_nodes].path + 5;
    struct stat live, want;
    char host[600];
    snprintf(host, sizeof host, "/dev/%s", rel);
    if (lstat(host, &want) < 0) continue;  /* capinit's /dev lacks it: so does the service's */
    if (fstatat(fd, rel, &live, AT_SYMLINK_NOFOLLOW) < 0 || (live.st_mode & S_IFMT) != (want.st_mode & S_IFMT) ||
        live.st_rdev != want.st_rdev) {
      snprintf(path, sizeof path, "/dev/%s", rel);
      bad = differs(d, "dev", "missing or another device", path);
    }
  }
  close(fd);
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
  int field;
  if (file_read(path, buf, sizeof buf) <= 0) return 0;
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
  if (!container_own_pids(ct)) return 0;
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

/* Append word to list (len bytes), space-separated. */
static void add_word(char *list, size_t len, char const *word)
{
  size_t n = strlen(list);
  snprintf(list + n, len - n, "%s%s", n ? " " : "", word);
}

/* Is word one of list's? */
static int has_word(char const *list, char const *word)
{
  size_t n = strlen(word);
  char const *p;
  for (p = list; (p = strstr(p, word)); p += n)
    if ((p == list || p[-1] == ' ') && (!p[n] || p[n] == ' ')) return 1;
  return 0;
}

/* A line of /proc/PID/net/route (the kernel's hex of each address as it
 * lies in memory) as `ip route` would say it: "DEST/PREFIX [via GW] dev IF" */
static void route_text(char const *iface, unsigned dest, unsigned gw, unsigned mask, char *out, size_t len)
{
  char a[INET_ADDRSTRLEN], g[INET_ADDRSTRLEN];
  struct in_addr x;
  x.s_addr = dest;
  inet_ntop(AF_INET, &x, a, sizeof a);
  x.s_addr = gw;
  inet_ntop(AF_INET, &x, g, sizeof g);
  snprintf(out, len, "%s/%d%s%s dev %s", a, __builtin_popcount(mask), gw ? " via " : "", gw ? g : "", iface);
}

static int check_card(svc_container const *ct, pid_t pid, diff *d)
{
  char buf[16384], live[512], want[256], one[96], last[64] = "", *line, *end;
  uint32_t mask = ct->prefix >= 32 ? ~0u : ~(~0u >> ct->prefix);
  if (!container_card(ct)) return 0;
  live[0] = 0;
  if (procfs_read(pid, "net/dev", buf, sizeof buf) < 0) return differs(d, "net:links", strerror(errno), "lo " CT_CARD_NAME);
  /* two lines of headers, then "  NAME: counters" */
  for (line = strchr(buf, '\n'); line && (line = strchr(line + 1, '\n')) && (end = strchr(line, ':'));) {
    while (*++line == ' ') ;
    snprintf(one, sizeof one, "%.*s", (int)(end - line), line);
    add_word(live, sizeof live, one);
  }
  if (strcmp(live, "lo " CT_CARD_NAME)) return differs(d, "net:links", live, "lo " CT_CARD_NAME);
  /* fib_trie: "|-- A.B.C.D", then "/32 host LOCAL" under a local one
   * (in the main table's part and the local's, when they are merged) */
  live[0] = 0;
  if (procfs_read(pid, "net/fib_trie", buf, sizeof buf) < 0) return differs(d, "net:address", strerror(errno), "");
  for (line = buf; line; line = end ? end + 1 : 0) {
    char *at;
    if ((end = strchr(line, '\n'))) *end = 0;
    if ((at = strstr(line, "|-- "))) snprintf(last, sizeof last, "%s", at + 4);
    else if (!strcmp(line + strspn(line, " "), "/32 host LOCAL") && strncmp(last, "127.", 4) && !has_word(live, last))
      add_word(live, sizeof live, last);
  }
  inet_ntop(AF_INET, &ct->address, want, sizeof want);
  if (strcmp(live, want)) return differs(d, "net:address", live, want);
  /* net/route: a header, then IFACE DEST GATEWAY FLAGS REFCNT USE METRIC MASK ... */
  live[0] = want[0] = 0;
  if (procfs_read(pid, "net/route", buf, sizeof buf) < 0) return differs(d, "net:route", strerror(errno), "");
  for (line = strchr(buf, '\n'); line && (end = strchr(line + 1, '\t')); line = strchr(end + 1, '\n')) {
    unsigned long v[7];
    size_t i;
    *end = 0;
    /* the numbers, all read as hex: only the first two and the last count */
    for (i = 0; i < 7; i++) v[i] = strtoul(end + 1, &end, 16);
    route_text(line + 1, (unsigned)v[0], (unsigned)v[1], (unsigned)v[6], one, sizeof one);
    add_word(live, sizeof live, one);
    strcat(live, ";");
  }
  if (ct->gateway.s_addr) {
    route_text(CT_CARD_NAME, 0, ct->gateway.s_addr, 0, one, sizeof one);
    add_word(want, sizeof want, one);
    strcat(want, ";");
  }
  route_text(CT_CARD_NAME, ct->address.s_addr & htonl(mask), 0, htonl(mask), one, sizeof one);
  add_word(want, sizeof want, one);
  strcat(want, ";");
  if (strcmp(live, want)) return differs(d, "net:route", live, want);
  return 0;
}

int container_verify(svc_container const *ct, pid_t pid, pid_t launcher, char *field, char *live, char *want,
                     size_t len)
{
  diff d = { field, live, want, len };
  if (!ct) return 0;
  return check_namespaces(ct, pid, launcher, &d) || check_root(ct, pid, &d) || check_mounts(ct, pid, &d) ||
         check_dev(ct, pid, &d) || check_process_view(ct, pid, &d) ||
         check_card(ct, pid, &d);
}

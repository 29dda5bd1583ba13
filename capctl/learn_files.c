/* capctl/learn_files.c -- the files a service wrote, from the kernel:
 * a fanotify(7) group of learn's own marks each file system of learn's
 * mount table (FAN_MARK_FILESYSTEM: the superblock, whatever mount of it
 * the service writes through, its own namespace's included) for
 * FAN_CLOSE_WRITE, a file closed after it was opened for writing (made,
 * truncated or written).  Each event carries the writer's pid and a
 * descriptor of the file, whose path /proc/self/fd tells.  A second group
 * (FAN_REPORT_DFID_NAME, Linux 5.9) reports the entries made, removed
 * and renamed (FAN_CREATE, FAN_DELETE, FAN_MOVED_*, directories too) with
 * their directory's handle and their name.  A handle is the file
 * system's, not a mount's: it is opened by open_by_handle_at(2) through
 * each of learn's mounts of that file system, and each path that reaches
 * the directory is a candidate (learn_files_resolve chooses the one the
 * service used, when the evidence says).  Where a file system cannot
 * report a directory (no file handles), only files written are seen
 * there.  The events are every process's: learn_out.c keeps the
 * service's (learn_record.c knows its pids).  The tracepoints of 6.18 give a syscall's path as an address
 * only, and this kernel has no kprobe or eprobe to read it: fanotify is
 * the same on 6.1 and 6.18. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/fanotify.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <unistd.h>

#include "../conf/xalloc.h"
#include "learn_files.h"

/* file systems that no service file makes writable, or that have no
 * files of their own to write */
static char const skip_types[] =
  " proc sysfs tracefs debugfs securityfs cgroup cgroup2 bpf pstore configfs fusectl mqueue binfmt_misc"
  " efivarfs autofs nsfs devpts hugetlbfs rpc_pipefs selinuxfs ";

/* The octal escapes of mountinfo (\040) undone, in place. */
static void unescape(char *s)
{
  char *o = s;
  for (; *s; s++) {
    if (s[0] == '\\' && s[1] >= '0' && s[1] <= '3' && s[2] >= '0' && s[2] <= '7' && s[3] >= '0' && s[3] <= '7') {
      *o++ = (char)((s[1] - '0') * 64 + (s[2] - '0') * 8 + (s[3] - '0'));
      s += 3;
    } else {
      *o++ = *s;
    }
  }
  *o = 0;
}

/* Is path p under (or) d? */
static int under(char const *p, char const *d)
{
  size_t n = strlen(d);
  if (!strcmp(d, "/")) return 1;
  return !strncmp(p, d, n) && (p[n] == '/' || !p[n]);
}

/* The mount fd is of (fdinfo's mnt_id, the ids of mountinfo), or -1. */
static int mount_id(int fd)
{
  char proc[64], buf[512], *m;
  ssize_t n;
  int pfd;
  snprintf(proc, sizeof proc, "/proc/self/fdinfo/%d", fd);
  pfd = open(proc, O_RDONLY | O_CLOEXEC);
  if (pfd < 0) return -1;
  n = read(pfd, buf, sizeof buf - 1);
  close(pfd);
  if (n <= 0) return -1;
  buf[n] = 0;
  m = strstr(buf, "mnt_id:");
  return m ? atoi(m + 7) : -1;
}

/* Mark the file system of the mount id at mp in the group of directories'
 * entries, and keep that mount (to open the handles of its events through
 * it), unless another mount hides it: 1 marked, 0
 * not (the file system cannot report a directory: no file handles).  Every
 * mount of a file system is kept, not its first: a handle opens to a path
 * of the mount it is opened through, and the service may have reached the
 * directory through any (learn_files_resolve). */
static int mark_entries(learn_files *f, char const *mp, int id)
{
  struct statfs sf;
  size_t i;
  int fd, known = 0;
  if (f->dfd < 0) return 0;
  fd = open(mp, O_PATH | O_DIRECTORY | O_CLOEXEC);
  if (fd < 0) return 0;
  if (fstatfs(fd, &sf) < 0) {
    close(fd);
    return 0;
  }
  for (i = 0; i < f->nmnt; i++)
    if (!memcmp(f->mnt[i].fsid, &sf.f_fsid, sizeof f->mnt[i].fsid)) known = 1;
  if (!known && fanotify_mark(f->dfd, FAN_MARK_ADD | FAN_MARK_FILESYSTEM,
                              FAN_CREATE | FAN_DELETE | FAN_MOVED_FROM | FAN_MOVED_TO | FAN_ONDIR, AT_FDCWD, mp) < 0) {
    close(fd);
    return 0;
  }
  if (!known) f->dmarked++;
  /* hidden (another mount over it, or over a directory above it): no
   * path reaches it.  Kept by its path, not a descriptor: a machine may
   * have thousands of mounts (a bind mount for each container's volume),
   * and the events' descriptors need room */
  known = mount_id(fd) == id;
  close(fd);
  if (!known) return 1;
  if (f->nmnt % 16 == 0) f->mnt = xreallocarray(f->mnt, f->nmnt + 16, sizeof *f->mnt);
  f->mnt[f->nmnt].id = id;
  memcpy(f->mnt[f->nmnt].fsid, &sf.f_fsid, sizeof f->mnt[f->nmnt].fsid);
  f->mnt[f->nmnt++].point = xstrdup(mp);
  return 1;
}

/* The path of directory dir (learn's view), or 0. */
static char *start_path(char const *dir)
{
  char proc[64], path[4096];
  ssize_t k;
  int fd = open(dir, O_PATH | O_DIRECTORY | O_CLOEXEC);
  if (fd < 0) return 0;
  snprintf(proc, sizeof proc, "/proc/self/fd/%d", fd);
  k = readlink(proc, path, sizeof path - 1);
  close(fd);
  if (k <= 0 || path[0] != '/') return 0;
  path[k] = 0;
  return xstrdup(path);
}

int learn_files_open(learn_files *f, char const *dir, char *err, size_t errlen)
{
  char line[4096], word[64];
  FILE *mi;
  memset(f, 0, sizeof *f);
  f->dfd = -1;
  /* every process's events are queued, the machine's other writers' too:
   * an unlimited queue (root's), drained every 200 ms, cannot lose the
   * service's */
  f->fd = fanotify_init(FAN_CLASS_NOTIF | FAN_CLOEXEC | FAN_NONBLOCK | FAN_UNLIMITED_QUEUE,
                        O_RDONLY | O_LARGEFILE | O_CLOEXEC | O_NONBLOCK);
  if (f->fd < 0) {
    snprintf(err, errlen, "make a fanotify group: %s", strerror(errno));
    return -1;
  }
  /* none (Linux before 5.9): files written alone */
  f->dfd = fanotify_init(FAN_CLASS_NOTIF | FAN_CLOEXEC | FAN_NONBLOCK | FAN_UNLIMITED_QUEUE | FAN_REPORT_DFID_NAME,
                         O_RDONLY | O_CLOEXEC);
  mi = fopen("/proc/self/mountinfo", "re");
  if (!mi) {
    snprintf(err, errlen, "open /proc/self/mountinfo: %s", strerror(errno));
    return -1;
  }
  /* "ID PARENT MAJ:MIN ROOT MOUNTPOINT OPTIONS [TAGS...] - TYPE SOURCE SUPER" */
  while (fgets(line, sizeof line, mi)) {
    char *mp, *dash, *type, *sp;
    unsigned i;
    int id = atoi(line);
    for (mp = line, i = 0; i < 4 && mp; i++) mp = strchr(mp, ' ') ? strchr(mp, ' ') + 1 : 0;
    dash = strstr(line, " - ");
    if (!mp || !dash) continue;
    type = dash + 3;
    if ((sp = strchr(type, ' '))) *sp = 0;
    snprintf(word, sizeof word, " %s ", type);
    if (strstr(skip_types, word)) continue;
    if ((sp = strchr(mp, ' '))) *sp = 0;
    unescape(mp);
    if (fanotify_mark(f->fd, FAN_MARK_ADD | FAN_MARK_FILESYSTEM, FAN_CLOSE_WRITE, AT_FDCWD, mp) == 0) f->marked++;
    else continue;
    if (!mark_entries(f, mp, id)) f->unmarked++;
  }
  fclose(mi);
  f->start = start_path(dir);
  if (!f->marked) {
    snprintf(err, errlen, "watch a file system for writes (fanotify_mark): none could be");
    return -1;
  }
  return 0;
}

static void add(learn_files *f, pid_t pid, char const *path, unsigned what)
{
  size_t i;
  for (i = 0; i < f->n; i++)
    if (f->file[i].pid == pid && !strcmp(f->file[i].path, path)) {
      f->file[i].what |= what;
      return;
    }
  if (f->n == f->cap) {
    f->cap = f->cap ? 2 * f->cap : 64;
    f->file = xreallocarray(f->file, f->cap, sizeof *f->file);
  }
  f->file[f->n].pid = pid;
  f->file[f->n].what = what;
  f->file[f->n].path = xstrdup(path);
  f->file[f->n].group = 0;
  f->n++;
}

static void written_elsewhere(learn_files *f, pid_t pid, int fd);

/* The files closed after writing. */
static void drain_written(learn_files *f)
{
  char buf[4096] __attribute__((aligned(__alignof__(struct fanotify_event_metadata))));
  for (;;) {
    ssize_t n = read(f->fd, buf, sizeof buf);
    struct fanotify_event_metadata *m;
    if (n <= 0) return;
    for (m = (struct fanotify_event_metadata *)buf; FAN_EVENT_OK(m, n); m = FAN_EVENT_NEXT(m, n)) {
      char proc[64], path[4096];
      struct stat st;
      ssize_t k;
      if (m->mask & FAN_Q_OVERFLOW) f->lost++;
      if (m->fd < 0) continue;
      snprintf(proc, sizeof proc, "/proc/self/fd/%d", m->fd);
      k = readlink(proc, path, sizeof path - 1);
      /* regular files only: a device, a pipe is no path to make writable */
      if (k > 0 && path[0] == '/' && fstat(m->fd, &st) == 0 && S_ISREG(st.st_mode)) {
        struct stat at;
        int gone;
        path[k] = 0;
        gone = k > 10 && !strcmp(path + k - 10, " (deleted)");
        if (gone) path[k - 10] = 0;
        /* a file written through a mount of the service's own (a bind of
         * its container's read-write) reads as a path from that mount's
         * root: its handle, opened through learn's mounts, names it (a
         * file removed since is named as the kernel last knew it) */
        if (gone || (stat(path, &at) == 0 && at.st_dev == st.st_dev && at.st_ino == st.st_ino))
          add(f, (pid_t)m->pid, path, LF_WROTE);
        else
          written_elsewhere(f, (pid_t)m->pid, m->fd);
      }
      close(m->fd);
    }
  }
}

#define LF_CANDIDATES 16

/* An entry of several candidate paths (pid's, what it did): one group of
 * f->alt, or what is ored into the group that has the first already. */
static void add_alt(learn_files *f, pid_t pid, unsigned what, char **cand, size_t k)
{
  size_t i, j;
  for (i = 0; i < f->nalt; i++)
    if (f->alt[i].pid == pid && !strcmp(f->alt[i].path, cand[0])) {
      for (j = i; j < f->nalt && f->alt[j].group == f->alt[i].group; j++) f->alt[j].what |= what;
      for (j = 0; j < k; j++) free(cand[j]);
      return;
    }
  f->groups++;
  for (j = 0; j < k; j++) {
    if (f->nalt == f->capalt) {
      f->capalt = f->capalt ? 2 * f->capalt : 16;
      f->alt = xreallocarray(f->alt, f->capalt, sizeof *f->alt);
    }
    f->alt[f->nalt].pid = pid;
    f->alt[f->nalt].what = what;
    f->alt[f->nalt].path = cand[j];
    f->alt[f->nalt++].group = f->groups;
  }
}

/* One entry's change: its directory's handle (of the file system fsid)
 * opened through each mount of it, each path that reaches that directory
 * with the entry's name a candidate; one, into f; several, into f->alt,
 * for learn_files_resolve. */
static void entry(learn_files *f, pid_t pid, unsigned what, int const *fsid, struct file_handle *h, char const *name)
{
  char proc[64], path[4096], *cand[LF_CANDIDATES];
  size_t i, j, k = 0;
  for (i = 0; i < f->nmnt; i++) {
    struct stat a, b;
    ssize_t len;
    int fd, ok;
    if (memcmp(f->mnt[i].fsid, fsid, sizeof f->mnt[i].fsid)) continue;
    /* not O_PATH: open_by_handle_at refuses it (EBADF) */
    fd = open(f->mnt[i].point, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (fd < 0) continue;
    ok = mount_id(fd) == f->mnt[i].id;  /* or hidden since */
    if (ok) {
      int mfd = fd;
      fd = open_by_handle_at(mfd, h, O_PATH | O_CLOEXEC);
      close(mfd);
    } else {
      close(fd);
      fd = -1;
    }
    if (fd < 0) continue;  /* the directory is gone: its parent's removal is seen */
    snprintf(proc, sizeof proc, "/proc/self/fd/%d", fd);
    len = readlink(proc, path, sizeof path - 1);
    ok = len > 0 && path[0] == '/' && (size_t)len + (name ? strlen(name) : 0) + 2 <= sizeof path && fstat(fd, &a) == 0;
    close(fd);
    if (!ok) continue;
    path[len] = 0;
    /* the path, looked up, must reach that directory: through a mount
     * whose root is not above it, the handle opens to no path of it */
    fd = open(path, O_PATH | (name ? O_DIRECTORY : 0) | O_CLOEXEC);
    if (fd < 0) continue;
    ok = fstat(fd, &b) == 0 && a.st_dev == b.st_dev && a.st_ino == b.st_ino;
    close(fd);
    if (!ok) continue;
    if (name && strcmp(path, "/")) path[len++] = '/';
    if (name) snprintf(path + len, sizeof path - (size_t)len, "%s", name);
    for (j = 0; j < k && strcmp(cand[j], path); j++) {}
    if (j < k || k == LF_CANDIDATES) continue;
    cand[k++] = xstrdup(path);
  }
  if (k == 1) {
    add(f, pid, cand[0], what);
    free(cand[0]);
  } else if (k > 1) {
    add_alt(f, pid, what, cand, k);
  }
}

/* A file written (fd) whose path, read from the descriptor, is not the
 * file in learn's mounts: its own handle opened through each of them, as
 * an entry's directory is (entry, with no name) */
static void written_elsewhere(learn_files *f, pid_t pid, int fd)
{
  char buf[sizeof(struct file_handle) + MAX_HANDLE_SZ] __attribute__((aligned(__alignof__(struct file_handle))));
  struct file_handle *h = (struct file_handle *)buf;
  struct statfs sf;
  int mid;
  h->handle_bytes = MAX_HANDLE_SZ;
  if (fstatfs(fd, &sf) < 0 || name_to_handle_at(fd, "", h, &mid, AT_EMPTY_PATH) < 0) return;
  entry(f, pid, LF_WROTE, (int const *)&sf.f_fsid, h, 0);
}

/* The entries made, removed, renamed. */
static void drain_entries(learn_files *f)
{
  char buf[8192] __attribute__((aligned(__alignof__(struct fanotify_event_metadata))));
  for (;;) {
    ssize_t n = read(f->dfd, buf, sizeof buf);
    struct fanotify_event_metadata *m;
    if (n <= 0) return;
    for (m = (struct fanotify_event_metadata *)buf; FAN_EVENT_OK(m, n); m = FAN_EVENT_NEXT(m, n)) {
      /* the kernel merges the events of one entry queued together */
      unsigned off = m->metadata_len, what = (m->mask & FAN_CREATE ? LF_MADE : 0) | (m->mask & FAN_DELETE ? LF_REMOVED : 0) |
                                             (m->mask & (FAN_MOVED_FROM | FAN_MOVED_TO) ? LF_RENAMED : 0);
      if (m->mask & FAN_Q_OVERFLOW) f->lost++;
      while (off + sizeof(struct fanotify_event_info_fid) <= m->event_len) {
        struct fanotify_event_info_fid *info = (struct fanotify_event_info_fid *)((char *)m + off);
        if (!info->hdr.len) break;
        if (info->hdr.info_type == FAN_EVENT_INFO_TYPE_DFID_NAME) {
          struct file_handle *h = (struct file_handle *)info->handle;
          entry(f, (pid_t)m->pid, what, (int const *)&info->fsid, h, (char const *)h->f_handle + h->handle_bytes);
        }
        off += info->hdr.len;
      }
    }
  }
}

void learn_files_drain(learn_files *f)
{
  if (f->fd >= 0) drain_written(f);
  if (f->dfd >= 0) drain_entries(f);
}

void learn_files_stop(learn_files *f)
{
  if (f->fd >= 0) close(f->fd);
  if (f->dfd >= 0) close(f->dfd);
  f->fd = f->dfd = -1;
}

void learn_files_close(learn_files *f)
{
  size_t i;
  learn_files_stop(f);
  for (i = 0; i < f->n; i++) free(f->file[i].path);
  free(f->file);
  f->file = 0;
  f->n = f->cap = 0;
  for (i = 0; i < f->nalt; i++) free(f->alt[i].path);
  free(f->alt);
  f->alt = 0;
  f->nalt = f->capalt = 0;
  for (i = 0; i < f->nmnt; i++) free(f->mnt[i].point);
  free(f->mnt);
  f->mnt = 0;
  f->nmnt = 0;
  free(f->start);
  f->start = 0;
}

/* How near path p is to a file the service wrote: the length of the
 * longest directory of such a file that p is in or under; 0 when none (a
 * file straight in / says nothing of the way). */
static size_t near_written(learn_files const *f, char const *p, learn_files_mine *mine, void const *data)
{
  size_t i, best = 0;
  for (i = 0; i < f->n; i++) {
    char const *w = f->file[i].path, *slash = strrchr(w, '/');
    size_t n = slash ? (size_t)(slash - w) : 0;
    if (!(f->file[i].what & LF_WROTE) || !n || !mine(data, f->file[i].pid)) continue;
    if (n > best && !strncmp(p, w, n) && p[n] == '/') best = n;
  }
  return best;
}

/* Which mount the service reached a directory through, the kernel does not
 * say for an entry (a handle is a file system's, not a mount's); for a
 * file written it does (the event's descriptor is the service's own, its
 * path the one it took): the candidate nearest a file it wrote (in or
 * under the longest directory of one) is the one, when no other is as
 * near; else the one under the directory it started in, when it is
 * alone.  Otherwise nothing is
 * proposed for it (the less privilege), and the proposal says so. */
size_t learn_files_resolve(learn_files *f, learn_files_mine *mine, void const *data)
{
  size_t i, j, k, n = 0, left = 0;
  for (i = 0; i < f->nalt; i = j) {
    size_t wrote = 0, one = i, started = 0, two = i, best = 0;
    for (j = i; j < f->nalt && f->alt[j].group == f->alt[i].group; j++) {
      size_t near = near_written(f, f->alt[j].path, mine, data);
      if (near && near == best) wrote++;
      if (near > best) best = near, wrote = 1, one = j;
      if (f->start && under(f->alt[j].path, f->start)) started++, two = j;
    }
    /* else the one under the directory it started in: where its relative
     * paths (without "..") lead */
    if (wrote != 1 && started == 1) wrote = 1, one = two;
    if (!mine(data, f->alt[i].pid)) {
      for (k = i; k < j; k++) f->alt[n++] = f->alt[k];
    } else if (wrote == 1) {
      add(f, f->alt[one].pid, f->alt[one].path, f->alt[one].what);
      for (k = i; k < j; k++) free(f->alt[k].path);
    } else {
      left++;
      for (k = i; k < j; k++) {
        f->alt[k].what |= LF_UNSURE;
        f->alt[n++] = f->alt[k];
      }
    }
  }
  f->nalt = n;
  return left;
}

static int by_path(void const *a, void const *b)
{
  return strcmp(*(char *const *)a, *(char *const *)b);
}

/* sorted, then each path under another dropped (an ancestor comes
 * before its descendants, though not always just before: /a, /a-b, /a/b) */
static size_t outermost(char **paths, size_t k)
{
  size_t i, n;
  qsort(paths, k, sizeof *paths, by_path);
  for (i = 0, n = 0; i < k; i++) {
    size_t j;
    for (j = 0; j < n && !under(paths[i], paths[j]); j++) {}
    if (j == n) paths[n++] = paths[i];
  }
  return n;
}

size_t learn_files_dirs(char **paths, size_t n, int *tmp)
{
  size_t i, k = 0;
  int keep = *tmp < 0;
  *tmp = 0;
  for (i = 0; i < n; i++) {
    char *p = paths[i], *slash = strrchr(p, '/');
    if (!slash || p[0] != '/' || under(p, "/dev")) continue;
    if (slash > p) *slash = 0;
    if ((!strcmp(p, "/tmp") || !strcmp(p, "/var/tmp")) && !keep) {
      *tmp = 1;
      continue;
    }
    paths[k++] = p;  /* straight in /: the file itself */
  }
  return outermost(paths, k);
}

/* the directories where the FHS gives each package a directory of its own */
static char const *const trees[] = { "/run", "/srv", "/var/cache", "/var/lib", "/var/log", "/var/mail", "/var/spool", 0 };

size_t learn_files_widen(char **dirs, size_t k)
{
  size_t i, j;
  for (i = 0; i < k; i++)
    for (j = 0; trees[j]; j++) {
      size_t n = strlen(trees[j]);
      char *slash;
      if (!under(dirs[i], trees[j]) || !dirs[i][n]) continue;
      if ((slash = strchr(dirs[i] + n + 1, '/'))) *slash = 0;
      break;
    }
  return outermost(dirs, k);
}

/* supervise/notify.c -- see notify.h. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include "../inspect/clock.h"
#include "log.h"
#include "notify.h"
#include "command.h"

char const *notify_path(service const *s)
{
  static char path[sizeof ((struct sockaddr_un *)0)->sun_path];
  snprintf(path, sizeof path, "%s/notify/%s", sv.rundir, s->spec->name);
  return path;
}

/* RUNDIR/notify (made if missing when make is set), opened with no link
 * at its end: a directory of capinit's uid (or root's).  A service that
 * may write RUNDIR could put a link there, or one at RUNDIR/notify/NAME; the
 * sockets are made and removed relative to this descriptor, so that
 * neither redirects them. */
static int notify_dir(int make)
{
  char dir[4096];
  struct stat st;
  int d;
  if ((size_t)snprintf(dir, sizeof dir, "%s/notify", sv.rundir) >= sizeof dir) {
    errno = ENAMETOOLONG;
    return -1;
  }
  if (make && mkdir(dir, 0755) < 0 && errno != EEXIST) return -1;
  d = open(dir, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
  if (d < 0) return -1;
  if (fstat(d, &st) < 0 || (st.st_uid != geteuid() && st.st_uid != 0)) {
    close(d);
    errno = EPERM;
    return -1;
  }
  return d;
}

/* Whatever is at NAME in d is removed (unlinkat follows no link: a link
 * there is itself removed; a directory stays, and bind fails), and the
 * socket bound at d/NAME through /proc/self/fd/D: no path capinit walks
 * again.  Mode 0666 by the umask, not by a chmod of a path afterwards:
 * any uid may connect (the service may run as any user; the sender's
 * credentials decide, not the path's mode). */
static int bind_in(int fd, int d, char const *name)
{
  struct sockaddr_un sa;
  mode_t old;
  int r, e;
  memset(&sa, 0, sizeof sa);
  sa.sun_family = AF_UNIX;
  if ((size_t)snprintf(sa.sun_path, sizeof sa.sun_path, "/proc/self/fd/%d/%s", d, name) >= sizeof sa.sun_path) {
    errno = ENAMETOOLONG;
    return -1;
  }
  if (unlinkat(d, name, 0) < 0 && errno != ENOENT) return -1;
  old = umask(0111);
  r = bind(fd, (struct sockaddr *)&sa, sizeof sa);
  e = errno;
  umask(old);
  errno = e;
  return r;
}

int notify_open(service *s)
{
  int one = 1, fd, d, r;
  if (s->notify_sock >= 0) return 0;
  /* NOTIFY_SOCKET names it by its path */
  if (strlen(notify_path(s)) + 1 >= sizeof ((struct sockaddr_un *)0)->sun_path) {
    errno = ENAMETOOLONG;
    return -1;
  }
  if ((d = notify_dir(1)) < 0) return -1;
  fd = socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
  r = fd < 0 || setsockopt(fd, SOL_SOCKET, SO_PASSCRED, &one, sizeof one) < 0 ||
      bind_in(fd, d, s->spec->name) < 0 ? -1 : 0;
  close(d);
  if (r < 0) {
    if (fd >= 0) close(fd);
    return -1;
  }
  s->notify_sock = fd;
  return 0;
}

/* Is pid a process of s: its main process, or in the session it made? */
static int belongs(service const *s, pid_t pid)
{
  pid_t sid;
  if (s->pid <= 0) return 0;
  if (pid == s->pid) return 1;
  sid = getsid(pid);
  /* private-pids: the command's session, under the reaper */
  return sid == s->pid || (container_own_pids(s->spec->ct) && sid == service_command_pid(s));
}

/* Foreign and malformed messages are ignored.  Any uid may send them (the
 * socket is 0666), so logging each would let anyone push a service's own
 * lines out of its log: at most one such line a second (for all
 * services), which counts the ones left out since the previous line. */
static void ignored(service *s, int pid, char const *why)
{
  static uint64_t quiet_until;
  static unsigned long left_out;
  uint64_t now = now_ms();
  if (now < quiet_until) {
    left_out++;
    return;
  }
  quiet_until = now + 1000;
  if (left_out)
    log_line(s, "capinit: notify message from pid %d ignored: %s (and %lu more foreign or malformed ones since the last such line)",
             pid, why, left_out);
  else
    log_line(s, "capinit: notify message from pid %d ignored: %s", pid, why);
  left_out = 0;
}

int notify_read(service *s)
{
  int ready = 0;
  char buf[NOTIFY_MSG_MAX + 1];
  union {
    struct cmsghdr h;
    char space[CMSG_SPACE(sizeof(struct ucred))];
  } ctl;
  int budget = 64;
  while (budget-- > 0) {
    struct iovec iov = { buf, sizeof buf };
    struct msghdr mh;
    struct cmsghdr *c;
    struct ucred cred = { 0, (uid_t)-1, (gid_t)-1 };
    notify_msg m;
    ssize_t r;
    memset(&mh, 0, sizeof mh);
    mh.msg_iov = &iov;
    mh.msg_iovlen = 1;
    mh.msg_control = ctl.space;
    mh.msg_controllen = sizeof ctl.space;
    r = recvmsg(s->notify_sock, &mh, MSG_DONTWAIT | MSG_CMSG_CLOEXEC);
    if (r < 0) break;
    for (c = CMSG_FIRSTHDR(&mh); c; c = CMSG_NXTHDR(&mh, c))
      if (c->cmsg_level == SOL_SOCKET && c->cmsg_type == SCM_CREDENTIALS &&
          c->cmsg_len == CMSG_LEN(sizeof cred))
        memcpy(&cred, CMSG_DATA(c), sizeof cred);
    if (!cred.pid || !belongs(s, cred.pid)) {
      ignored(s, (int)cred.pid, "not a process of this service");
      continue;
    }
    if ((mh.msg_flags & MSG_TRUNC) || (size_t)r > NOTIFY_MSG_MAX || notify_parse(buf, (size_t)r, &m) < 0) {
      ignored(s, (int)cred.pid, "malformed");
      continue;
    }
    if (m.has_status && (s->status_text || (s->status_text = malloc(STATUS_TEXT_MAX))))
      memcpy(s->status_text, m.status, STATUS_TEXT_MAX);
    if (m.ready) ready = 1;
    if (m.stopping) log_line(s, "capinit: the service says it is stopping");
  }
  return ready;
}

void notify_close(service *s)
{
  int d;
  if (s->notify_sock < 0) return;
  close(s->notify_sock);
  s->notify_sock = -1;
  if ((d = notify_dir(0)) < 0) return;
  unlinkat(d, s->spec->name, 0);
  close(d);
}

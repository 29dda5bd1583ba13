/* supervise/notify.c -- see notify.h. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include "notify.h"

char const *notify_path(service const *s)
{
  static char path[sizeof ((struct sockaddr_un *)0)->sun_path];
  snprintf(path, sizeof path, "%s/notify/%s", sv.rundir, s->spec->name);
  return path;
}

int notify_open(service *s)
{
  struct sockaddr_un sa;
  char dir[4096];
  int one = 1, fd;
  char const *path;
  if (s->notify_sock >= 0) return 0;
  snprintf(dir, sizeof dir, "%s/notify", sv.rundir);
  if (mkdir(dir, 0755) < 0 && errno != EEXIST) return -1;
  path = notify_path(s);
  if (strlen(path) >= sizeof sa.sun_path) {
    errno = ENAMETOOLONG;
    return -1;
  }
  fd = socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
  if (fd < 0) return -1;
  memset(&sa, 0, sizeof sa);
  sa.sun_family = AF_UNIX;
  strcpy(sa.sun_path, path);
  unlink(path);
  if (setsockopt(fd, SOL_SOCKET, SO_PASSCRED, &one, sizeof one) < 0 ||
      bind(fd, (struct sockaddr *)&sa, sizeof sa) < 0) {
    close(fd);
    return -1;
  }
  /* any uid may connect: the service may run as any user; the sender's
   * credentials decide, not the path's mode */
  chmod(path, 0666);
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
  return sid == s->pid || (s->spec->ct && s->spec->ct->private_pids && sid == service_command_pid(s));
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

void notify_read(service *s)
{
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
    if (r < 0) return;
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
    if (m.ready) service_event(s, EV_READY, 0);
    if (m.stopping) log_line(s, "capinit: the service says it is stopping");
  }
}

void notify_close(service *s)
{
  if (s->notify_sock < 0) return;
  close(s->notify_sock);
  s->notify_sock = -1;
  unlink(notify_path(s));
}

/* supervise/control.c -- the control socket, RUNDIR/control.
 *
 * SOCK_SEQPACKET: a request is one message, "VERB ARG...", at most
 * CONTROL_MSG_MAX bytes (a longer one is refused whole).  The reply is
 * zero or more record messages, then one final message, "ok" or
 * "error: ...".  Who may do what is peer.c's: capinit's own power may
 * change services, uid 0 and the control group may read.  Every client is
 * non-blocking, has a bounded reply queue and an idle deadline: a slow or
 * idle client never holds the loop. */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include "../conf/control_verbs.h"
#include "../inspect/clock.h"
#include "console.h"
#include "control.h"
#include "control_client.h"
#include "peer.h"
#include "supervisor.h"

#define CLIENTS_MAX CONTROL_CLIENTS_MAX  /* served at once */
#define CONNECTIONS_MAX 512  /* served and waiting */
#define KEPT 8               /* of each: for clients that may change services */
#define ACCEPT_PAUSE_MS 100u

static client clients[CLIENTS_MAX];
static size_t nclients;
/* Connections beyond the clients served at once wait here, in order, as
 * they would in the listen backlog: their requests are read once they are
 * served.  Accepted rather than left in the backlog, so that capinit
 * knows who waits and a reader's flood cannot queue root out. */
typedef struct waiting_s {
  int fd;
  unsigned char may_read, may_read_files, may_change, may_power;
} waiting;
static waiting waiters[CONNECTIONS_MAX];
static size_t nwaiters;
/* Out of descriptors, a connection stays queued and poll() would report
 * it again at once: the socket is left out of the poll until then. */
static uint64_t accept_paused_until;
static char sock_path[108];

int control_listen(void)
{
  struct sockaddr_un sa;
  int fd;
  memset(&sa, 0, sizeof sa);
  sa.sun_family = AF_UNIX;
  if ((size_t)snprintf(sock_path, sizeof sock_path, "%s/control", sv.rundir) >= sizeof sock_path) {
    console_say("capinit: fatal: %s/control: path too long for a socket\n", sv.rundir);
    return -1;
  }
  strcpy(sa.sun_path, sock_path);
  fd = socket(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
  if (fd < 0) goto fail;
  {
    /* a socket that answers belongs to a capinit that runs: do not steal it */
    int probe = socket(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0);
    if (probe >= 0 && connect(probe, (struct sockaddr *)&sa, sizeof sa) == 0) {
      close(probe);
      close(fd);
      console_say("capinit: fatal: another capinit is running on %s (use another -r DIR)\n", sock_path);
      return -1;
    }
    if (probe >= 0) close(probe);
  }
  unlink(sock_path);
  {
    /* its mode from the umask, its group without following a link: no
     * change of a path that something else could have put there */
    int group = sv.conf.control_group_set || sv.conf.power_group_set;
    mode_t old = umask(group ? 0117 : 0177);
    int r = bind(fd, (struct sockaddr *)&sa, sizeof sa);
    umask(old);
    if (r < 0) goto fail;
  }
  if (listen(fd, SOMAXCONN) < 0) goto fail;
  if (peer_init() < 0) {
    console_say("capinit: fatal: unable to read capinit's own credentials in /proc/self: %s\n", strerror(errno));
    close(fd);
    return -1;
  }
  /* the control group's; without one, the power group's */
  if (sv.conf.control_group_set || sv.conf.power_group_set) {
    gid_t g = sv.conf.control_group_set ? sv.conf.control_gid : sv.conf.power_gid;
    if (fchownat(AT_FDCWD, sock_path, 0, g, AT_SYMLINK_NOFOLLOW) < 0)
      console_say("capinit: warning: unable to open %s to group %u: %s\n", sock_path,
              (unsigned)g, strerror(errno));
  }
  sv.control = fd;
  return 0;
fail:
  console_say("capinit: fatal: unable to listen on %s: %s\n", sock_path, strerror(errno));
  if (fd >= 0) close(fd);
  return -1;
}

void control_close(void)
{
  size_t i;
  for (i = 0; i < nclients; i++) {
    close(clients[i].fd);
    free(clients[i].q);
  }
  nclients = 0;
  for (i = 0; i < nwaiters; i++) close(waiters[i].fd);
  nwaiters = 0;
  if (sv.control >= 0) close(sv.control);
  sv.control = -1;
  unlink(sock_path);
}

/* ------------------------------------------------------------ the loop */

/* Over CONNECTIONS_MAX (or KEPT short of it, for readers): a final reply
 * at once.  capctl waits and tries again. */
static void busy(int fd)
{
  char c;
  int i;
  send(fd, CONTROL_BUSY, sizeof CONTROL_BUSY - 1, MSG_DONTWAIT | MSG_NOSIGNAL);
  /* a request still unread at close() would reset the connection, and
   * the client would see that before the reply: no more requests (its
   * send fails with EPIPE), and those sent already are read */
  shutdown(fd, SHUT_RD);
  for (i = 0; i < 64 && recv(fd, &c, 1, MSG_DONTWAIT | MSG_TRUNC) > 0; i++) ;
  close(fd);
}

/* Who the peer is (peer.c): capinit's own power may change services,
 * and power off, reboot and halt, as may the power group; uid 0
 * (powerless too) and the control group may read. */
static int peer_rights_of(int fd, waiting *w)
{
  peer_rights r;
  if (peer_of_socket(fd, &r) < 0) return -1;
  w->fd = fd;
  w->may_change = r.may_change;
  w->may_read = r.may_read;
  w->may_read_files = r.may_read_files;
  w->may_power = r.may_power;
  return 0;
}

static size_t readers_served(void)
{
  size_t i, n = 0;
  for (i = 0; i < nclients; i++) n += !clients[i].may_change;
  return n;
}

/* Serve the longest-waiting connections that a slot is free for: the
 * last KEPT slots only for those who may change services, so that
 * readers (the control group, a powerless uid 0) cannot lock them out. */
static void serve_waiters(void)
{
  size_t i = 0, readers = readers_served();
  while (nclients < CLIENTS_MAX && i < nwaiters) {
    waiting const w = waiters[i];
    client *c;
    if (!w.may_change && readers >= CLIENTS_MAX - KEPT) {
      i++;
      continue;
    }
    memmove(waiters + i, waiters + i + 1, (nwaiters - i - 1) * sizeof *waiters);
    nwaiters--;
    readers += !w.may_change;
    c = &clients[nclients++];
    memset(c, 0, sizeof *c);
    c->fd = w.fd;
    c->may_read = w.may_read;
    c->may_read_files = w.may_read_files;
    c->may_change = w.may_change;
    c->may_power = w.may_power;
    c->deadline = now_ms() + CLIENT_IDLE_MS;
  }
}

static void accept_clients(void)
{
  for (;;) {
    waiting w;
    size_t readers;
    int fd = accept4(sv.control, 0, 0, SOCK_CLOEXEC | SOCK_NONBLOCK);
    if (fd < 0) {
      if (errno == EMFILE || errno == ENFILE || errno == ENOBUFS || errno == ENOMEM)
        accept_paused_until = now_ms() + ACCEPT_PAUSE_MS;
      break;
    }
    if (peer_rights_of(fd, &w) < 0 || nclients + nwaiters >= CONNECTIONS_MAX) {
      busy(fd);
      continue;
    }
    if (!w.may_change) {
      size_t i;
      readers = readers_served();
      for (i = 0; i < nwaiters; i++) readers += !waiters[i].may_change;
      if (readers >= CONNECTIONS_MAX - KEPT) {
        busy(fd);
        continue;
      }
    }
    waiters[nwaiters++] = w;
  }
  serve_waiters();
}

/* When capinit stops waiting for the clients that asked for the
 * shutdown to go (0: none asked). */
static uint64_t asker_until;

int control_asker_waiting(void)
{
  size_t i;
  if (!asker_until || now_ms() >= asker_until) return 0;
  for (i = 0; i < nclients; i++)
    if (clients[i].asked_power) return 1;
  return 0;
}

size_t control_fds(struct pollfd *p, size_t max, uint64_t *deadline)
{
  size_t n = 0, i;
  if (sv.control >= 0 && accept_paused_until > now_ms()) {
    if (!*deadline || accept_paused_until < *deadline) *deadline = accept_paused_until;
  } else if (sv.control >= 0 && n < max) {
    p[n].fd = sv.control;
    p[n++].events = POLLIN;
  }
  for (i = 0; i < nclients && n < max; i++) {
    p[n].fd = clients[i].fd;
    p[n++].events = clients[i].qoff < clients[i].qlen ? POLLOUT : POLLIN;
    if (!*deadline || clients[i].deadline < *deadline) *deadline = clients[i].deadline;
    if (clients[i].asked_power && asker_until < *deadline) *deadline = asker_until;
  }
  return n;
}

static void drop_client(size_t i)
{
  close(clients[i].fd);
  free(clients[i].q);
  clients[i] = clients[--nclients];
}

void control_handle(struct pollfd const *p, size_t n)
{
  size_t i, k;
  uint64_t now = now_ms();
  for (k = 0; k < n; k++) {
    if (p[k].fd == sv.control) {
      if (p[k].revents & POLLIN) accept_clients();
      continue;
    }
    for (i = 0; i < nclients && clients[i].fd != p[k].fd; i++) ;
    if (i == nclients || !p[k].revents) continue;
    {
      client *c = &clients[i];
      if (p[k].revents & POLLOUT) client_flush(c);
      if ((p[k].revents & POLLIN) && c->qoff == c->qlen && !c->closing) {
        char buf[CONTROL_MSG_MAX + 1];
        ssize_t r = recv(c->fd, buf, sizeof buf, MSG_DONTWAIT | MSG_TRUNC);
        /* 0 is the end of the connection or an empty message: only the
         * end reads 0 again */
        if (r == 0 && recv(c->fd, buf, 1, MSG_DONTWAIT | MSG_PEEK) == 0) c->closing = 1;
        else if (r >= 0) {
          c->deadline = now + CLIENT_IDLE_MS;
          control_dispatch(c, buf, (size_t)r);
          /* the first to ask for the shutdown starts the wait for them */
          if (c->asked_power && !asker_until) asker_until = now_ms() + CONTROL_ASKER_MS;
          client_flush(c);
        } else if (errno != EAGAIN && errno != EINTR) {
          c->closing = 1;
        }
      }
      if ((p[k].revents & (POLLHUP | POLLERR)) && !(p[k].revents & POLLIN)) c->closing = 1, c->qlen = c->qoff = 0;
    }
  }
  for (i = nclients; i-- > 0;) {
    client *c = &clients[i];
    if (c->deadline <= now && c->qoff < c->qlen && !c->closing) {
      /* a reply waits: try it, and give a reader one more period before
       * dropping it (capinit itself may have been the slow one, stopped
       * or starved, while the client could not read) */
      client_flush(c);
      if (c->deadline <= now && !c->reprieved) {
        c->reprieved = 1;
        c->deadline = now + CLIENT_IDLE_MS;
      }
    }
    if ((c->closing && c->qoff == c->qlen) || c->deadline <= now) drop_client(i);
  }
  serve_waiters();
}

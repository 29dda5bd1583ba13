/* supervise/control_reply.c -- each control client's queue of replies
 * (control_client.h): messages queued whole, written as the socket takes
 * them; a client that does not read is dropped, not waited for. */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>

#include "../conf/control_verbs.h"
#include "../inspect/clock.h"
#include "control_client.h"
#include "../inspect/clock.h"

void client_queue(client *c, char const *msg, size_t len)
{
  uint32_t n = (uint32_t)len;
  if (c->closing) return;
  if (c->qlen - c->qoff + len + 4 > QUEUE_MAX) {
    c->closing = 1;  /* it does not read: drop it */
    c->qlen = c->qoff = 0;
    return;
  }
  if (c->qoff && c->qoff == c->qlen) c->qlen = c->qoff = 0;
  {
    char *q = realloc(c->q, c->qlen + len + 4);
    if (!q) {
      c->closing = 1;
      return;
    }
    c->q = q;
  }
  memcpy(c->q + c->qlen, &n, 4);
  memcpy(c->q + c->qlen + 4, msg, len);
  c->qlen += len + 4;
}

void client_reply(client *c, char const *fmt, ...)
{
  char buf[CONTROL_MSG_MAX];
  va_list ap;
  int n;
  va_start(ap, fmt);
  n = vsnprintf(buf, sizeof buf, fmt, ap);
  va_end(ap);
  if (n < 0) return;
  client_queue(c, buf, (size_t)n < sizeof buf ? (size_t)n : sizeof buf - 1);
}

void client_record(client *c, char const *tag, enum record_field_id const *ids, size_t n,
                   char const *const *values)
{
  char buf[CONTROL_MSG_MAX];
  client_queue(c, buf, record_write(buf, sizeof buf, tag, ids, n, values));
}

void client_flush(client *c)
{
  while (c->qoff < c->qlen) {
    uint32_t n;
    ssize_t w;
    memcpy(&n, c->q + c->qoff, 4);
    w = send(c->fd, c->q + c->qoff + 4, n, MSG_DONTWAIT | MSG_NOSIGNAL);
    if (w < 0) {
      if (errno != EAGAIN && errno != EINTR) c->closing = 1, c->qlen = c->qoff = 0;
      return;
    }
    c->qoff += n + 4;
    c->deadline = now_ms() + CLIENT_IDLE_MS;  /* taking its reply: not idle */
    c->reprieved = 0;
  }
  c->qlen = c->qoff = 0;
}

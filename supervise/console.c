/* supervise/console.c -- capinit's own messages and the lines of the
 * services with log = console, on fd 2 (the console of a machine), in the
 * order they were made.
 *
 * fd 2 is non-blocking (capinit.c): the loop never waits for a serial
 * console at 115200 baud, nor for a pipe nobody reads.  What fd 2 cannot
 * take now waits in a backlog of CONSOLE_BACKLOG bytes, behind which every
 * later message queues (so none overtakes another), and goes out when
 * poll() says fd 2 can take more (console_fd, console_flush).  Only what
 * does not fit in the backlog is dropped; the caller counts it.  Before
 * capinit exits or reboots, console_drain waits for the backlog, bounded. */
#include <errno.h>
#include <poll.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../conf/diag.h"
#include "../inspect/clock.h"
#include "console.h"

#define CONSOLE_FD 2
#define CONSOLE_BACKLOG (64u * 1024u)

static char *backlog;
static size_t queued;

int console_fd(void)
{
  return queued ? CONSOLE_FD : -1;
}

void console_flush(void)
{
  while (queued) {
    ssize_t w = write(CONSOLE_FD, backlog, queued);
    if (w < 0 && errno == EINTR) continue;
    if (w < 0 && errno != EAGAIN) {
      queued = 0;  /* no console any more (EIO, EPIPE): nothing can wait for it */
      return;
    }
    if (w <= 0) return;
    memmove(backlog, backlog + w, queued - (size_t)w);
    queued -= (size_t)w;
  }
}

int console_write(char const *buf, size_t len)
{
  if (!queued) {
    ssize_t w;
    while ((w = write(CONSOLE_FD, buf, len)) < 0 && errno == EINTR) ;
    if (w == (ssize_t)len) return 0;
    if (w < 0 && errno != EAGAIN) return -1;
    if (w > 0) {
      buf += w;
      len -= (size_t)w;
    }
  }
  if (len > CONSOLE_BACKLOG - queued) return -1;
  if (!backlog && !(backlog = malloc(CONSOLE_BACKLOG))) return -1;
  memcpy(backlog + queued, buf, len);
  queued += len;
  return 0;
}

void console_say(char const *fmt, ...)
{
  char text[1024];
  va_list ap;
  int n;
  va_start(ap, fmt);
  n = vsnprintf(text, sizeof text, fmt, ap);
  va_end(ap);
  if (n < 0) return;
  if ((size_t)n >= sizeof text) {  /* cut, but still a line */
    n = sizeof text - 1;
    text[n - 1] = '\n';
  }
  console_write(text, (size_t)n);
}

void console_diags(diag_list *l)
{
  char buf[1024];
  diag_sort(l);
  for (size_t i = 0; i < l->n; i++) console_write(buf, diag_format(&l->v[i], "capinit", buf, sizeof buf));
}

void console_drain(unsigned ms)
{
  uint64_t end = now_ms() + ms;
  for (;;) {
    struct pollfd p = { CONSOLE_FD, POLLOUT, 0 };
    uint64_t now;
    console_flush();
    now = now_ms();
    if (!queued || now >= end) return;
    if (poll(&p, 1, (int)(end - now)) < 0 && errno != EINTR) return;
  }
}

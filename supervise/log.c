/* supervise/log.c -- in-process logging.  Each service's stdout and stderr
 * are one non-blocking pipe, held open by the supervisor across restarts;
 * its lines get a UTC timestamp and go to LOGDIR/NAME.log (rotated by
 * size), the console (console.c: a slow one gets a backlog) or /dev/kmsg.
 * A sink that fails or is full drops the line and counts it: the loop
 * never blocks on a log. */
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "supervisor.h"

#define REOPEN_RETRY_MS 1000u

static int kmsg = -1;

int log_open_pipe(service *s, int *child_end)
{
  int p[2];
  if (s->log.pipe < 0) {
    if (pipe2(p, O_CLOEXEC) < 0) return -1;
    fcntl(p[0], F_SETFL, O_NONBLOCK);
    s->log.pipe = p[0];
    s->log.wpipe = p[1];
  }
  *child_end = s->log.wpipe;
  return 0;
}

static int log_path(service const *s, unsigned k, char *buf, size_t len)
{
  int r = k ? snprintf(buf, len, "%s/%s.log.%u", sv.conf.log_directory, s->spec->name, k)
            : snprintf(buf, len, "%s/%s.log", sv.conf.log_directory, s->spec->name);
  return r < 0 || (size_t)r >= len ? -1 : 0;
}

int log_file_path(service const *s, char *buf, size_t len)
{
  return log_path(s, 0, buf, len);
}

static int open_file(service *s)
{
  char path[4096];
  struct stat st;
  uint64_t now = now_ms();
  if (s->log.file >= 0) return 0;
  if (s->log.retry_at && now < s->log.retry_at) return -1;
  if (log_path(s, 0, path, sizeof path) < 0) return -1;
  s->log.file = open(path, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC | O_NONBLOCK | O_NOCTTY, 0640);
  if (s->log.file < 0) {
    s->log.retry_at = now + REOPEN_RETRY_MS;
    return -1;
  }
  s->log.retry_at = 0;
  s->log.size = fstat(s->log.file, &st) == 0 ? (uint64_t)st.st_size : 0;
  return 0;
}

/* NAME.log -> NAME.log.1 -> ... -> NAME.log.KEEP, the oldest removed. */
static void rotate(service *s)
{
  char from[4096], to[4096];
  unsigned k = sv.conf.log_keep;
  close(s->log.file);
  s->log.file = -1;
  if (!k) {
    if (log_path(s, 0, from, sizeof from) == 0) truncate(from, 0);
    return;
  }
  if (log_path(s, k, to, sizeof to) == 0) unlink(to);
  for (; k > 0; k--) {
    if (log_path(s, k - 1, from, sizeof from) < 0 || log_path(s, k, to, sizeof to) < 0) return;
    rename(from, to);
  }
}

static size_t stamp(char *buf, size_t len)
{
  struct timespec ts;
  struct tm tm;
  clock_gettime(CLOCK_REALTIME, &ts);
  gmtime_r(&ts.tv_sec, &tm);
  return (size_t)snprintf(buf, len, "%04d-%02d-%02dT%02d:%02d:%02d.%03ldZ ",
                          tm.tm_year + 1900, tm.tm_mon + 1, tm.tm_mday, tm.tm_hour,
                          tm.tm_min, tm.tm_sec, ts.tv_nsec / 1000000);
}

/* One line (without its newline) to the service's sink. */
static void sink(service *s, char const *line, size_t n)
{
  char buf[LOG_LINE_MAX + 128 + 64];
  size_t len;
  ssize_t w;
  int fd;

  if (n > LOG_LINE_MAX) n = LOG_LINE_MAX;
  s->log.lines++;
  switch (s->spec->log) {
    case LOG_FILE:
      len = stamp(buf, sizeof buf);
      memcpy(buf + len, line, n);
      len += n;
      buf[len++] = '\n';
      if (open_file(s) < 0) goto drop;
      if (s->log.size + len > sv.conf.log_max_size) {
        rotate(s);
        if (open_file(s) < 0) goto drop;
      }
      fd = s->log.file;
      break;
    case LOG_CONSOLE:
      len = (size_t)snprintf(buf, sizeof buf, "%s: ", s->spec->name);
      memcpy(buf + len, line, n);
      len += n;
      buf[len++] = '\n';
      if (console_write(buf, len) < 0) goto drop;
      return;
    case LOG_KMSG:
      if (kmsg < 0) kmsg = open("/dev/kmsg", O_WRONLY | O_NONBLOCK | O_CLOEXEC | O_NOCTTY);
      if (kmsg < 0) goto drop;
      len = (size_t)snprintf(buf, sizeof buf, "<6>%s: ", s->spec->name);
      memcpy(buf + len, line, n);
      len += n;
      fd = kmsg;
      break;
    default:
      return;
  }
  w = write(fd, buf, len);
  if (w == (ssize_t)len) {
    if (s->spec->log == LOG_FILE) s->log.size += len;
    return;
  }
  if (w > 0 && s->spec->log == LOG_FILE) s->log.size += (size_t)w;
  if (s->spec->log == LOG_FILE && w < 0 && errno != EAGAIN) {
    close(s->log.file);  /* e.g. the file system went read-only: reopen later */
    s->log.file = -1;
    s->log.retry_at = now_ms() + REOPEN_RETRY_MS;
  }
drop:
  s->log.dropped++;
}

void log_read(service *s)
{
  char buf[8192];
  int budget = 16;  /* a chatty service cannot starve the others */
  while (budget-- > 0) {
    ssize_t r = read(s->log.pipe, buf, sizeof buf);
    size_t i, start = 0;
    if (r <= 0) return;
    for (i = 0; i < (size_t)r; i++) {
      if (buf[i] != '\n') continue;
      if (s->log.npartial) {
        size_t room = LOG_LINE_MAX - s->log.npartial, take = i - start;
        if (take > room) take = room;
        memcpy(s->log.partial + s->log.npartial, buf + start, take);
        sink(s, s->log.partial, s->log.npartial + take);
        s->log.npartial = 0;
      } else {
        sink(s, buf + start, i - start);
      }
      start = i + 1;
    }
    if (start < (size_t)r && !s->log.partial && !(s->log.partial = malloc(LOG_LINE_MAX))) {
      sink(s, buf + start, (size_t)r - start);  /* no memory: the piece as a line */
      start = (size_t)r;
    }
    while (start < (size_t)r) {
      size_t room = LOG_LINE_MAX - s->log.npartial, take = (size_t)r - start;
      if (take > room) take = room;
      memcpy(s->log.partial + s->log.npartial, buf + start, take);
      s->log.npartial += take;
      start += take;
      if (s->log.npartial == LOG_LINE_MAX) {
        sink(s, s->log.partial, s->log.npartial);  /* an overlong line, cut */
        s->log.npartial = 0;
      }
    }
  }
}

void log_line(service *s, char const *fmt, ...)
{
  char text[512];
  va_list ap;
  int n;
  va_start(ap, fmt);
  n = vsnprintf(text, sizeof text, fmt, ap);
  va_end(ap);
  if (n < 0) return;
  if (s->spec->log == LOG_CONSOLE || s->spec->log == LOG_NONE) return;  /* stderr has it */
  sink(s, text, (size_t)n < sizeof text ? (size_t)n : sizeof text - 1);
}

void log_close(service *s)
{
  if (s->log.pipe >= 0) {
    log_read(s);
    close(s->log.pipe);
  }
  if (s->log.npartial) {
    sink(s, s->log.partial, s->log.npartial);
    s->log.npartial = 0;
  }
  free(s->log.partial);
  s->log.partial = 0;
  if (s->log.wpipe >= 0) close(s->log.wpipe);
  if (s->log.file >= 0) close(s->log.file);
  s->log.pipe = s->log.wpipe = s->log.file = -1;
}

/* supervise/log.c -- in-process logging.  Each service's stdout and stderr
 * are one non-blocking pipe, held open by the supervisor across restarts;
 * its lines get a UTC timestamp and go to LOGDIR/NAME.log (rotated by
 * size), the console (console.c: a slow one gets a backlog) or /dev/kmsg.
 * A sink that fails or is full drops the line and counts it (a log
 * file's line first goes to the console, below): the loop never blocks
 * on a log.
 *
 * A service may be allowed to write the log directory, and capinit
 * writes with all of root's power: it never follows a link there, writes
 * only a regular file of its own with no other name, and checks every
 * step of a rotation.  A log file that cannot be written so sends the
 * service's lines to the console instead (never elsewhere), until it
 * can be again: the console is told once each way.  The checks cost
 * nothing per line: they are made when the file is opened or rotated. */
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "../inspect/clock.h"
#include "console.h"
#include "log.h"
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

int log_file_path(service const *s, char *buf, size_t len)
{
  int r = snprintf(buf, len, "%s/%s.log", sv.conf.log_directory, s->spec->name);
  return r < 0 || (size_t)r >= len ? -1 : 0;
}

/* NAME.log (k = 0) or NAME.log.K: one component, in the log directory. */
static int log_name(service const *s, unsigned k, char *buf, size_t len)
{
  int r = k ? snprintf(buf, len, "%s.log.%u", s->spec->name, k) : snprintf(buf, len, "%s.log", s->spec->name);
  return r < 0 || (size_t)r >= len ? -1 : 0;
}

/* Why a step failed: errno's text, but a link said as one. */
static char const *reason(int e)
{
  return e == ELOOP ? "a symbolic link (not followed)" : strerror(e);
}

/* The log directory, with no link at its end, owned by capinit's uid (or
 * root's): every name below is opened, renamed and removed relative to
 * it. */
static int log_dir_open(char const **why)
{
  struct stat st;
  int d = open(sv.conf.log_directory, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
  if (d < 0) {
    *why = errno == ENOTDIR ? "the directory is not a directory (a link?)" : reason(errno);
    return -1;
  }
  if (fstat(d, &st) < 0 || (st.st_uid != geteuid() && st.st_uid != 0)) {
    *why = "the directory is not owned by capinit (nor root)";
    close(d);
    return -1;
  }
  return d;
}

/* A service that may write the log directory may put anything at
 * NAME.log: a link (O_NOFOLLOW refuses it), a FIFO or a device, or a hard
 * link to a file of root's elsewhere on the file system, which a uid 0
 * service owns and may link even with fs.protected_hardlinks.  Only a
 * regular file of capinit's uid (or root's) that has no other name is
 * written. */
static char const *not_ours(int fd)
{
  struct stat st;
  if (fstat(fd, &st) < 0) return strerror(errno);
  if (!S_ISREG(st.st_mode) || (st.st_uid != geteuid() && st.st_uid != 0))
    return "not a regular file owned by capinit (a link?)";
  if (st.st_nlink != 1) return "a file with another name (a hard link?)";
  return 0;
}

static int open_file(service *s, char *name, size_t len, char const **why)
{
  off_t end;
  int d, fd;
  if (log_name(s, 0, name, len) < 0) {
    *why = "path too long";
    return -1;
  }
  if ((d = log_dir_open(why)) < 0) return -1;
  fd = openat(d, name, O_WRONLY | O_APPEND | O_CREAT | O_NOFOLLOW | O_CLOEXEC | O_NONBLOCK | O_NOCTTY, 0640);
  close(d);
  if (fd < 0) {
    *why = reason(errno);
    return -1;
  }
  if ((*why = not_ours(fd))) {
    close(fd);
    return -1;
  }
  s->log.file = fd;
  end = lseek(fd, 0, SEEK_END);
  s->log.size = end > 0 ? (uint64_t)end : 0;
  return 0;
}

/* NAME.log -> NAME.log.1 -> ... -> NAME.log.KEEP, the oldest removed;
 * with log-keep = 0, NAME.log opened again as a new one would be and
 * emptied through that descriptor.  A name that is missing is skipped;
 * any other failure (a directory planted at a name makes unlinkat and
 * renameat fail) ends the rotation, names the target in name and says
 * why, and leaves the file closed. */
static int rotate(service *s, char *name, size_t len, char const **why)
{
  char to[512];
  unsigned k = sv.conf.log_keep;
  int d, e = 0;
  close(s->log.file);
  s->log.file = -1;
  if (!k) {
    if (open_file(s, name, len, why) < 0) return -1;
    if (ftruncate(s->log.file, 0) == 0) {
      s->log.size = 0;
      return 0;
    }
    *why = strerror(errno);
    return -1;
  }
  if ((d = log_dir_open(why)) < 0) {
    log_name(s, 0, name, len);
    return -1;
  }
  if (log_name(s, k, name, len) < 0) e = ENAMETOOLONG;
  else if (unlinkat(d, name, 0) < 0 && errno != ENOENT) e = errno;
  for (; !e && k > 0; k--) {
    if (log_name(s, k - 1, to, sizeof to) < 0 || log_name(s, k, name, len) < 0) e = ENAMETOOLONG;
    else if (renameat(d, to, d, name) < 0 && errno != ENOENT) e = errno;
  }
  close(d);
  if (!e) return 0;
  *why = e == EISDIR || e == ENOTEMPTY || e == ENOTDIR || e == EEXIST ? "a directory in the way of the rotation"
                                                                     : strerror(e);
  return -1;
}

/* The file cannot be written: the service's lines go to the console
 * until it can, which the console hears once each way. */
static void divert(service *s, char const *name, char const *why)
{
  if (s->log.file >= 0) close(s->log.file);
  s->log.file = -1;
  s->log.retry_at = now_ms() + REOPEN_RETRY_MS;
  if (s->log.diverted) return;
  s->log.diverted = 1;
  console_say("capinit: service %s: warning: unable to log to %s/%s: %s: its lines go to the console\n",
              s->spec->name, sv.conf.log_directory, name, why);
}

/* The file open, with room for len more bytes after a rotation if
 * needed; -1 (the line goes to the console) when it cannot be, and then
 * not tried again for REOPEN_RETRY_MS. */
static int file_ready(service *s, size_t len)
{
  char name[512] = "";
  char const *why = "";
  if (s->log.file < 0) {
    if (s->log.retry_at && now_ms() < s->log.retry_at) return -1;
    if (open_file(s, name, sizeof name, &why) < 0) goto fail;
  }
  if (s->log.size + len > sv.conf.log_max_size &&
      (rotate(s, name, sizeof name, &why) < 0 || (s->log.file < 0 && open_file(s, name, sizeof name, &why) < 0)))
    goto fail;
  s->log.retry_at = 0;
  if (s->log.diverted) {
    s->log.diverted = 0;
    console_say("capinit: service %s: logging to %s/%s.log again\n", s->spec->name, sv.conf.log_directory,
                s->spec->name);
  }
  return 0;
fail:
  divert(s, name, why);
  return -1;
}

/* The UTC calendar of t seconds since the epoch, into f: year, month
 * (1-12), day, hour, minute, second.  Days are counted in 400-year eras
 * of 146097 days from 0000-03-01, so that the leap day ends each year;
 * musl's gmtime_r would bring its time-zone code into capinit (616 B of
 * arm64's capinit, measured). */
static void utc_fields(long long t, long long f[6])
{
  long long days = t / 86400, sec = t % 86400, era, doe, yoe, doy, mp;
  if (sec < 0) {
    sec += 86400;
    days--;
  }
  days += 719468;  /* 1970-01-01 counted from 0000-03-01 */
  era = (days >= 0 ? days : days - 146096) / 146097;
  doe = days - era * 146097;                                        /* 0..146096 */
  yoe = (doe - doe / 1460 + doe / 36524 - doe / 146096) / 365;      /* 0..399 */
  doy = doe - (365 * yoe + yoe / 4 - yoe / 100);                    /* from March 1 */
  mp = (5 * doy + 2) / 153;                                         /* 0 = March */
  f[2] = doy - (153 * mp + 2) / 5 + 1;
  f[1] = mp < 10 ? mp + 3 : mp - 9;
  f[0] = yoe + era * 400 + (f[1] <= 2);
  f[3] = sec / 3600;
  f[4] = sec / 60 % 60;
  f[5] = sec % 60;
}

static size_t stamp(char *buf, size_t len)
{
  struct timespec ts;
  long long f[6];
  clock_gettime(CLOCK_REALTIME, &ts);
  utc_fields((long long)ts.tv_sec, f);
  return (size_t)snprintf(buf, len, "%04lld-%02lld-%02lldT%02lld:%02lld:%02lld.%03ldZ ", f[0], f[1], f[2], f[3],
                          f[4], f[5], ts.tv_nsec / 1000000);
}

/* "NAME: line" to the console: the sink of log = console, and of
 * log = file while its file cannot be written. */
static int console_line(service const *s, char const *line, size_t n)
{
  char buf[LOG_LINE_MAX + 128 + 64];
  size_t len = (size_t)snprintf(buf, sizeof buf, "%s: ", s->spec->name);
  memcpy(buf + len, line, n);
  len += n;
  buf[len++] = '\n';
  return console_write(buf, len);
}

/* One line (without its newline) to the service's sink.  log_dropped
 * counts the lines that reached no sink: neither the file nor, when it
 * cannot be written, the console. */
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
      if (file_ready(s, len) < 0) goto console;
      fd = s->log.file;
      break;
    case LOG_CONSOLE:
      goto console;
    case LOG_KMSG:
      if (kmsg < 0) kmsg = open("/dev/kmsg", O_WRONLY | O_NONBLOCK | O_CLOEXEC | O_NOCTTY);
      if (kmsg < 0) goto drop;
      len = (size_t)snprintf(buf, sizeof buf, "<6>%s: ", s->spec->name);
      memcpy(buf + len, line, n);
      len += n;
      /* the newline ends the record: without it the kernel keeps it open
       * for a continuation, and no reader sees it until the next one */
      buf[len++] = '\n';
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
    char name[512];
    char const *why = strerror(errno);  /* e.g. the file system went read-only */
    log_name(s, 0, name, sizeof name);
    divert(s, name, why);
    goto console;
  }
drop:
  s->log.dropped++;
  return;
console:
  if (console_line(s, line, n) < 0) s->log.dropped++;
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

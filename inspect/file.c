/* inspect/file.c -- see file.h. */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <unistd.h>

#include "file.h"

/* Read fd into buf until EOF or len bytes: the bytes read, or -1. */
static ssize_t read_all(int fd, char *buf, size_t len)
{
  size_t got = 0;
  while (got < len) {
    ssize_t r = read(fd, buf + got, len - got);
    if (r < 0 && errno == EINTR) continue;
    if (r < 0) return -1;
    if (!r) break;
    got += (size_t)r;
  }
  return (ssize_t)got;
}

ssize_t file_read(char const *path, char *buf, size_t len)
{
  ssize_t r;
  int fd, e;
  if (!len) {
    errno = EINVAL;
    return -1;
  }
  fd = open(path, O_RDONLY | O_CLOEXEC);
  if (fd < 0) return -1;
  r = read_all(fd, buf, len - 1);
  e = errno;
  close(fd);
  errno = e;
  if (r >= 0) buf[r] = 0;
  return r;
}

char *file_slurp(char const *path, size_t max, size_t *len)
{
  size_t cap = max < 16384 ? max : 16384, next;
  char *buf = malloc(cap + 1), *more;
  ssize_t r;
  int fd = open(path, O_RDONLY | O_CLOEXEC), e;
  *len = 0;
  if (fd < 0 || !buf) goto fail;
  for (;;) {
    if ((r = read_all(fd, buf + *len, cap - *len)) < 0) goto fail;
    *len += (size_t)r;
    if (*len < cap || cap == max) break;  /* the end, or as much as asked */
    next = cap < max / 2 ? 2 * cap : max;
    if (!(more = realloc(buf, next + 1))) goto fail;
    buf = more;
    cap = next;
  }
  close(fd);
  buf[*len] = 0;
  return buf;
fail:
  e = errno;
  if (fd >= 0) close(fd);
  free(buf);
  *len = 0;
  errno = e;
  return 0;
}

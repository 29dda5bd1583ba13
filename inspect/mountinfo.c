/* inspect/mountinfo.c -- see mountinfo.h. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>

#include "file.h"
#include "mountinfo.h"

/* Beyond this, a mount table is taken as unreadable rather than read in
 * part (PID 1 would leave mounts out of its shutdown). */
#define MOUNTINFO_MAX (64u << 20)

char *mountinfo_read(pid_t pid, mountinfo_entry **v, size_t *n)
{
  char path[64], *buf;
  size_t len, max;
  *v = 0;
  *n = 0;
  if (pid) snprintf(path, sizeof path, "/proc/%d/mountinfo", (int)pid);
  else snprintf(path, sizeof path, "/proc/self/mountinfo");
  buf = file_slurp(path, MOUNTINFO_MAX, &len);
  if (buf && len == MOUNTINFO_MAX) {
    free(buf);
    errno = EFBIG;
    return 0;
  }
  if (!buf) return 0;
  max = mountinfo_lines(buf, len);
  *v = calloc(max + 1, sizeof **v);
  if (!*v) {
    free(buf);
    errno = ENOMEM;
    return 0;
  }
  *n = mountinfo_parse(buf, len, *v, max);
  return buf;
}

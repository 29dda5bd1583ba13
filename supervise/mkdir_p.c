/* supervise/mkdir_p.c -- mkdir -p for capinit's own directories (its
 * runtime directory, the log directory), which may sit where a service
 * may write. */
#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "mkdir_p.h"

/* One component at a time, each below the directory found or made
 * before it: a link in a parent that exists is followed (the layout of
 * whoever may write there), but not at a component capinit made nor at
 * the end, which must be a directory of capinit's uid (or root's).  The log and
 * runtime directories may sit where a service may write, and capinit
 * works in them with all of root's power: a link put there is not
 * where it works. */
int mkdir_p(char const *path, mode_t mode)
{
  char buf[4096];
  struct stat st;
  size_t i = 0, n = strlen(path), end;
  int d, next, made, e;
  if (n >= sizeof buf) {
    errno = ENAMETOOLONG;
    return -1;
  }
  memcpy(buf, path, n + 1);
  if ((d = open(buf[0] == '/' ? "/" : ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC)) < 0) return -1;
  for (;;) {
    while (buf[i] == '/') i++;
    if (!buf[i]) break;
    for (end = i; buf[end] && buf[end] != '/'; end++) ;
    buf[end] = 0;
    made = mkdirat(d, buf + i, mode) == 0;
    if (!made && errno != EEXIST) goto fail;
    next = openat(d, buf + i, O_RDONLY | O_DIRECTORY | O_CLOEXEC |
                  (made || !path[end + strspn(path + end, "/")] ? O_NOFOLLOW : 0));
    if (next < 0) goto fail;
    close(d);
    d = next;
    i = end < n ? end + 1 : n;
  }
  if (fstat(d, &st) < 0) goto fail;
  close(d);
  if (st.st_uid == geteuid() || st.st_uid == 0) return 0;
  errno = EPERM;  /* not capinit's (nor root's): whoever owns it may plant links there */
  return -1;
fail:
  e = errno;
  close(d);
  errno = e;
  return -1;
}

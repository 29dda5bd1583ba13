/* inspect/procfs.c -- see procfs.h. */
#include <stdio.h>
#include <string.h>

#include "file.h"
#include "procfs.h"

ssize_t procfs_read(pid_t pid, char const *name, char *buf, size_t len)
{
  char path[96];
  ssize_t r;
  if (len < 2) return -1;
  if (pid) snprintf(path, sizeof path, "/proc/%d/%s", (int)pid, name);
  else snprintf(path, sizeof path, "/proc/self/%s", name);
  r = file_read(path, buf, len);
  return r > 0 ? r : -1;
}

int procfs_field(char const *status, char const *key, char *out, size_t len)
{
  size_t kl = strlen(key);
  for (char const *p = status; p && *p; p = strchr(p, '\n'), p = p ? p + 1 : 0) {
    size_t n;
    if (strncmp(p, key, kl) || p[kl] != ':') continue;
    p += kl + 1;
    while (*p == ' ' || *p == '\t') p++;
    n = strcspn(p, "\n");
    if (len && n >= len) n = len - 1;
    while (n && (p[n - 1] == ' ' || p[n - 1] == '\t')) n--;
    if (!len) return 0;
    memcpy(out, p, n);
    out[n] = 0;
    for (char *t = out; *t; t++)
      if (*t == '\t') *t = ' ';
    return 0;
  }
  return -1;
}

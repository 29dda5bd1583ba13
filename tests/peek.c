/* tests/peek.c -- read another process's memory through /proc, as an
 * attacker would, and say what came back: for tests/system/
 * test_attack_reaper.sh.
 *
 *   peek NEEDLES PID...
 *
 * NEEDLES is a file of strings, one a line, searched for in what was read
 * (a file, so that no needle is in the argv of a service capinit starts:
 * a fork of capinit holds its services' argv).  On stdout, first
 *
 *   dumpable N                   PR_GET_DUMPABLE of this process
 *
 * then for each PID (a number, or self), one line each:
 *
 *   PID cmdline ok|ERRNO [TEXT]  /proc/PID/cmdline, NULs shown as spaces
 *   PID environ ok|ERRNO F...    /proc/PID/environ
 *   PID maps ok|ERRNO            /proc/PID/maps
 *   PID mem ok|ERRNO BYTES F...  every readable mapping, through
 *                                /proc/PID/mem
 *
 * where F is "found" or "absent", one per needle in the file's order, and
 * ERRNO is a name (EACCES, EPERM...).  mem reads the mappings maps lists;
 * when maps cannot be read, it opens /proc/PID/mem alone, for its errno.
 * Exits 0, or 2 on bad usage. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <unistd.h>

#define NEEDLES_MAX 8
#define CHUNK 65536

static char *needle[NEEDLES_MAX];
static size_t nneedles, longest;
static int found[NEEDLES_MAX];

static char const *errno_name(int e)
{
  static char num[16];
  switch (e) {
    case EACCES: return "EACCES";
    case EPERM: return "EPERM";
    case ESRCH: return "ESRCH";
    case ENOENT: return "ENOENT";
    case EIO: return "EIO";
  }
  snprintf(num, sizeof num, "E%d", e);
  return num;
}

static void read_needles(char const *path)
{
  static char text[4096];
  char *line, *save = 0;
  int fd = open(path, O_RDONLY);
  ssize_t n = fd < 0 ? -1 : read(fd, text, sizeof text - 1);
  if (n < 0) {
    perror(path);
    exit(2);
  }
  text[n] = 0;
  for (line = strtok_r(text, "\n", &save); line && nneedles < NEEDLES_MAX; line = strtok_r(0, "\n", &save)) {
    needle[nneedles++] = line;
    if (strlen(line) > longest) longest = strlen(line);
  }
}

static void search(char const *buf, size_t len)
{
  size_t i;
  for (i = 0; i < nneedles; i++)
    if (memmem(buf, len, needle[i], strlen(needle[i]))) found[i] = 1;
}

static void print_found(void)
{
  size_t i;
  for (i = 0; i < nneedles; i++) printf(" %s", found[i] ? "found" : "absent");
  memset(found, 0, sizeof found);
}

/* The whole of a /proc file, or -1 with errno. */
static ssize_t slurp(char const *pid, char const *what, char *buf, size_t max)
{
  char path[64];
  size_t len = 0;
  ssize_t r;
  int fd;
  snprintf(path, sizeof path, "/proc/%s/%s", pid, what);
  fd = open(path, O_RDONLY);
  if (fd < 0) return -1;
  while (len < max && (r = read(fd, buf + len, max - len)) > 0) len += (size_t)r;
  if (len == 0 && r < 0) {
    int e = errno;
    close(fd);
    errno = e;
    return -1;
  }
  close(fd);
  return (ssize_t)len;
}

static void peek_cmdline(char const *pid)
{
  static char buf[4096];
  ssize_t i, n = slurp(pid, "cmdline", buf, sizeof buf - 1);
  if (n < 0) {
    printf("%s cmdline %s\n", pid, errno_name(errno));
    return;
  }
  for (i = 0; i < n; i++) if (!buf[i]) buf[i] = ' ';
  buf[n] = 0;
  printf("%s cmdline ok %s\n", pid, buf);
}

static void peek_environ(char const *pid)
{
  static char buf[1 << 20];
  ssize_t n = slurp(pid, "environ", buf, sizeof buf);
  if (n < 0) {
    printf("%s environ %s\n", pid, errno_name(errno));
    return;
  }
  search(buf, (size_t)n);
  printf("%s environ ok", pid);
  print_found();
  putchar('\n');
}

/* One mapping, in chunks that overlap by the longest needle. */
static unsigned long long read_range(int fd, unsigned long long start, unsigned long long end)
{
  static char buf[CHUNK];
  unsigned long long at = start, total = 0;
  while (at < end) {
    size_t want = end - at < CHUNK ? (size_t)(end - at) : CHUNK;
    ssize_t r = pread(fd, buf, want, (off_t)at);
    if (r <= 0) break;
    search(buf, (size_t)r);
    total += (unsigned long long)r;
    if ((size_t)r <= longest) break;
    at += (unsigned long long)r - (longest ? longest - 1 : 0);
  }
  return total;
}

static void peek_maps_mem(char const *pid)
{
  static char maps[1 << 20];
  char path[64], *line, *save = 0;
  unsigned long long total = 0;
  ssize_t n = slurp(pid, "maps", maps, sizeof maps - 1);
  int fd;
  if (n < 0) printf("%s maps %s\n", pid, errno_name(errno));
  else printf("%s maps ok\n", pid);
  snprintf(path, sizeof path, "/proc/%s/mem", pid);
  fd = open(path, O_RDONLY);
  if (fd < 0) {
    printf("%s mem %s\n", pid, errno_name(errno));
    return;
  }
  if (n < 0) {
    printf("%s mem opened, no maps\n", pid);
    close(fd);
    return;
  }
  maps[n] = 0;
  for (line = strtok_r(maps, "\n", &save); line; line = strtok_r(0, "\n", &save)) {
    unsigned long long start, end;
    char perms[8];
    if (sscanf(line, "%llx-%llx %7s", &start, &end, perms) != 3 || perms[0] != 'r') continue;
    total += read_range(fd, start, end);
  }
  close(fd);
  printf("%s mem ok %llu", pid, total);
  print_found();
  putchar('\n');
}

int main(int argc, char **argv)
{
  int i;
  if (argc < 3) {
    fputs("usage: peek NEEDLES PID...\n", stderr);
    return 2;
  }
  read_needles(argv[1]);
  printf("dumpable %d\n", prctl(PR_GET_DUMPABLE, 0, 0, 0, 0));
  for (i = 2; i < argc; i++) {
    peek_cmdline(argv[i]);
    peek_environ(argv[i]);
    peek_maps_mem(argv[i]);
  }
  return 0;
}

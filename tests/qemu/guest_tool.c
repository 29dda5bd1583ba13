/* tests/qemu/guest_tool.c -- what the in-guest test runner needs and
 * busybox does not do quickly or at all:
 *
 *   sigburst PID N SIG...   send N signals to PID, cycling through the
 *                           signals named (HUP, CHLD, WINCH, PIPE, ALRM,
 *                           ...) or numbered (1 to 64; at most 64 given),
 *                           as fast as kill(2) goes; prints the number
 *                           sent
 *   orphans N [BATCH]       make N orphans: fork a child that clones
 *                           BATCH (100) grandchildren and exits; they are
 *                           alive when they become orphans, then all exit
 *                           at once, left to PID 1 (or the nearest
 *                           subreaper) to reap; again until N; prints the
 *                           number made
 *   getcap PATH             print the security.capability xattr of PATH
 *                           in hex, or "none"
 *   zombies                 print the number of zombie processes in /proc,
 *                           then their pids
 *
 * Exits 0, 1 when something failed, 2 on bad usage.  Static, no libcap. */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sched.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <sys/xattr.h>
#include <unistd.h>

static int usage(void)
{
  fputs("usage: guest_tool sigburst PID N SIG... | orphans N [BATCH] | getcap PATH | zombies\n", stderr);
  return 2;
}

static int signum(char const *name)
{
  static struct { char const *name; int sig; } const t[] = {
    { "HUP", SIGHUP }, { "CHLD", SIGCHLD }, { "WINCH", SIGWINCH }, { "PIPE", SIGPIPE },
    { "ALRM", SIGALRM }, { "URG", SIGURG }, { "CONT", SIGCONT },
  };
  size_t i;
  char *end;
  long num = strtol(name, &end, 10);
  if (*name && !*end) return num > 0 && num < 65 ? (int)num : -1;  /* a number: 1 to 64 */
  if (!strncmp(name, "SIG", 3)) name += 3;
  for (i = 0; i < sizeof t / sizeof *t; i++)
    if (!strcmp(t[i].name, name)) return t[i].sig;
  return -1;
}

static int sigburst(int argc, char **argv)
{
  int sigs[64], nsig = 0, i;
  long n, sent = 0, k;
  pid_t pid;
  if (argc < 3 || argc - 2 > 64) return usage();
  pid = (pid_t)atol(argv[0]);
  n = atol(argv[1]);
  for (i = 2; i < argc; i++) {
    sigs[nsig] = signum(argv[i]);
    if (sigs[nsig] < 0) return usage();
    nsig++;
  }
  for (k = 0; k < n; k++) {
    if (kill(pid, sigs[k % nsig]) < 0) {
      fprintf(stderr, "guest_tool: kill %d: %s\n", (int)pid, strerror(errno));
      break;
    }
    sent++;
  }
  printf("%ld\n", sent);
  return sent == n ? 0 : 1;
}

/* A grandchild: a process of its own (its own pid, file table, exit
 * signal SIGCHLD) that shares its parent's memory, which makes it cheap
 * to create under TCG (no page tables to copy).  Raw syscalls only. */
#define STACK 16384
static int waiter(void *arg)
{
  int *p = arg;
  char c;
  syscall(SYS_close, p[1]);
  syscall(SYS_read, p[0], &c, 1);
  syscall(SYS_exit, 0);
  return 0;
}

static int orphans(int argc, char **argv)
{
  long n, made = 0, k, batch;
  if (argc < 1 || argc > 2) return usage();
  n = atol(argv[0]);
  batch = argc > 1 ? atol(argv[1]) : 100;
  if (batch < 1) batch = 1;
  for (k = 0; k < n; k += batch) {
    int status, p[2];
    long want = n - k < batch ? n - k : batch;
    pid_t mid;
    if (pipe(p) < 0) {
      fprintf(stderr, "guest_tool: pipe: %s\n", strerror(errno));
      break;
    }
    mid = fork();
    if (mid < 0) {
      fprintf(stderr, "guest_tool: fork: %s\n", strerror(errno));
      break;
    }
    if (mid == 0) {
      /* the grandchildren wait for the end of the pipe, that is for
       * their parent's exit: they are alive when they become orphans,
       * and then all end at once */
      long j;
      char *stacks = mmap(0, (size_t)want * STACK, PROT_READ | PROT_WRITE,
                          MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
      if (stacks == MAP_FAILED) _exit(1);
      for (j = 0; j < want; j++)
        if (clone(waiter, stacks + (j + 1) * STACK, CLONE_VM | SIGCHLD, p) < 0) _exit(1);
      _exit(0);
    }
    close(p[0]);
    close(p[1]);
    if (waitpid(mid, &status, 0) == mid && WIFEXITED(status) && !WEXITSTATUS(status)) made += want;
  }
  printf("%ld\n", made);
  return made == n ? 0 : 1;
}

static int getcap(int argc, char **argv)
{
  unsigned char buf[64];
  ssize_t r, i;
  if (argc != 1) return usage();
  r = getxattr(argv[0], "security.capability", buf, sizeof buf);
  if (r < 0) {
    if (errno == ENODATA) {
      puts("none");
      return 0;
    }
    fprintf(stderr, "guest_tool: %s: %s\n", argv[0], strerror(errno));
    return 1;
  }
  for (i = 0; i < r; i++) printf("%02x", buf[i]);
  putchar('\n');
  return 0;
}

static int zombies(void)
{
  DIR *d = opendir("/proc");
  struct dirent *e;
  char list[4096];
  size_t w = 0;
  unsigned n = 0;
  if (!d) {
    perror("guest_tool: /proc");
    return 1;
  }
  list[0] = 0;
  while ((e = readdir(d))) {
    char path[300], buf[512], *p;
    int fd;
    ssize_t r;
    if (e->d_name[0] < '0' || e->d_name[0] > '9') continue;
    snprintf(path, sizeof path, "/proc/%s/stat", e->d_name);
    fd = open(path, O_RDONLY);
    if (fd < 0) continue;
    r = read(fd, buf, sizeof buf - 1);
    close(fd);
    if (r <= 0) continue;
    buf[r] = 0;
    p = strrchr(buf, ')');  /* the name may hold anything, even ") Z" */
    if (p && p[1] == ' ' && p[2] == 'Z') {
      n++;
      if (w + strlen(e->d_name) + 2 < sizeof list)
        w += (size_t)snprintf(list + w, sizeof list - w, " %s", e->d_name);
    }
  }
  closedir(d);
  printf("%u%s\n", n, list);
  return 0;
}

int main(int argc, char **argv)
{
  if (argc < 2) return usage();
  setvbuf(stdout, 0, _IOLBF, 0);
  if (!strcmp(argv[1], "sigburst")) return sigburst(argc - 2, argv + 2);
  if (!strcmp(argv[1], "orphans")) return orphans(argc - 2, argv + 2);
  if (!strcmp(argv[1], "getcap")) return getcap(argc - 2, argv + 2);
  if (!strcmp(argv[1], "zombies") && argc == 2) return zombies();
  return usage();
}

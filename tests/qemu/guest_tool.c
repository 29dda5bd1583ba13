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
 *   append ACK READY FILE...
 *                           append numbered records ("record 00000001\n",
 *                           16 bytes, numbered on from what each FILE
 *                           holds) to every FILE, fsync(2) each, then
 *                           write "ack N" to ACK (a path: the result
 *                           port), again until SIGTERM, which ends it
 *                           (status 0) between two records; first
 *                           "start N", the number of the first record;
 *                           after READY records a newline on descriptor 3
 *                           (ready = fd:3).  A FILE whose size is not a
 *                           whole number of records, or files that do
 *                           not hold as many, end it with status 1
 *
 * and, for the attacks on capinit's power (the main scenario's
 * /test/attack.sh), the code an attacker controls, each in this very
 * process (an exec would drop what a user namespace gives):
 *
 *   ask SOCKET REQUEST [uid0] [userns]
 *                           optionally setresuid(0, 0, 0) (a service
 *                           holding cap_setuid), then optionally
 *                           unshare(CLONE_NEWUSER); print "uid U CapEff X"
 *                           as /proc/self/status shows this process after
 *                           each step, send REQUEST on the control socket
 *                           SOCKET (SOCK_SEQPACKET) and print each reply
 *                           until "ok" or "error..."
 *   forge PID SIG CLAIMED_PID
 *                           queue SIG to PID with rt_sigqueueinfo(2),
 *                           si_code SI_QUEUE and a sender of its choice
 *                           (CLAIMED_PID, uid 0); print "sent" or the
 *                           errno's name
 *   peerpidfd SOCKET        connect to SOCKET and ask the kernel for the
 *                           peer's pidfd (SO_PEERPIDFD, Linux 6.5): print
 *                           "yes" or the errno's name (ENOPROTOOPT before
 *                           6.5)
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
#include <sys/stat.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/types.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <sys/xattr.h>
#include <unistd.h>

static int usage(void)
{
  fputs("usage: guest_tool sigburst PID N SIG... | orphans N [BATCH] | getcap PATH | zombies\n"
        "       guest_tool append ACK READY FILE...\n"
        "       guest_tool ask SOCKET REQUEST [uid0] [userns] | forge PID SIG CLAIMED_PID | peerpidfd SOCKET\n",
        stderr);
  return 2;
}

static int signum(char const *name)
{
  static struct { char const *name; int sig; } const t[] = {
    { "HUP", SIGHUP }, { "CHLD", SIGCHLD }, { "WINCH", SIGWINCH }, { "PIPE", SIGPIPE },
    { "ALRM", SIGALRM }, { "URG", SIGURG }, { "CONT", SIGCONT }, { "TERM", SIGTERM },
    { "INT", SIGINT }, { "USR1", SIGUSR1 }, { "USR2", SIGUSR2 }, { "PWR", SIGPWR },
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

#define RECORD 16
#define FILES_MAX 8

static int write_all(int fd, char const *s, size_t n)
{
  while (n) {
    ssize_t w = write(fd, s, n);
    if (w < 0 && errno == EINTR) continue;
    if (w <= 0) return -1;
    s += w;
    n -= (size_t)w;
  }
  return 0;
}

static volatile sig_atomic_t terminated;
static void on_term(int sig) { (void)sig; terminated = 1; }

static int append(int argc, char **argv)
{
  struct sigaction sa;
  int fds[FILES_MAX], ack, i, nfiles = argc - 2;
  long ready, n = -1, written = 0;
  char line[64];
  if (argc < 3 || nfiles > FILES_MAX) return usage();
  ready = atol(argv[1]);
  /* a stop between two records: every file holds the same records */
  memset(&sa, 0, sizeof sa);
  sa.sa_handler = on_term;
  sa.sa_flags = SA_RESTART;
  sigaction(SIGTERM, &sa, 0);
  ack = open(argv[0], O_WRONLY | O_NOCTTY | O_CLOEXEC);
  if (ack < 0) {
    fprintf(stderr, "guest_tool: %s: %s\n", argv[0], strerror(errno));
    return 1;
  }
  for (i = 0; i < nfiles; i++) {
    struct stat st;
    fds[i] = open(argv[i + 2], O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0644);
    if (fds[i] < 0 || fstat(fds[i], &st) < 0) {
      fprintf(stderr, "guest_tool: %s: %s\n", argv[i + 2], strerror(errno));
      return 1;
    }
    if (st.st_size % RECORD || (n >= 0 && st.st_size / RECORD != n)) {
      fprintf(stderr, "guest_tool: %s: %lld bytes: not %ld whole records\n", argv[i + 2], (long long)st.st_size,
              n >= 0 ? n : (long)(st.st_size / RECORD));
      return 1;
    }
    n = st.st_size / RECORD;
  }
  snprintf(line, sizeof line, "start %ld\n", n + 1);
  write_all(ack, line, strlen(line));
  while (!terminated) {
    char rec[32];
    n++;
    snprintf(rec, sizeof rec, "record %08ld\n", n);
    for (i = 0; i < nfiles; i++)
      if (write_all(fds[i], rec, RECORD) < 0 || fsync(fds[i]) < 0) {
        fprintf(stderr, "guest_tool: record %ld to %s: %s\n", n, argv[i + 2], strerror(errno));
        return 1;
      }
    snprintf(line, sizeof line, "ack %ld\n", n);
    write_all(ack, line, strlen(line));
    if (++written == ready) {
      (void)!write(3, "\n", 1);
      close(3);
    }
  }
  return 0;
}

/* The name of an errno value the attacks meet, else "E<number>". */
static char const *errno_name(int e)
{
  static char num[16];
  switch (e) {
    case ENOPROTOOPT: return "ENOPROTOOPT";
    case EINVAL: return "EINVAL";
    case EPERM: return "EPERM";
    case EACCES: return "EACCES";
    case ENOENT: return "ENOENT";
    case ECONNREFUSED: return "ECONNREFUSED";
    case ESRCH: return "ESRCH";
  }
  snprintf(num, sizeof num, "E%d", e);
  return num;
}

/* "uid U CapEff X": the real uid and the effective set, as the kernel
 * shows this process. */
static int say_creds(void)
{
  char buf[4096], *eff;
  int fd = open("/proc/self/status", O_RDONLY | O_CLOEXEC);
  ssize_t r = fd < 0 ? -1 : read(fd, buf, sizeof buf - 1);
  if (fd >= 0) close(fd);
  if (r <= 0) {
    printf("/proc/self/status: %s\n", errno_name(errno));
    return -1;
  }
  buf[r] = 0;
  eff = strstr(buf, "\nCapEff:\t");
  if (!eff) {
    puts("/proc/self/status: no CapEff");
    return -1;
  }
  eff += strlen("\nCapEff:\t");
  eff[strcspn(eff, "\n")] = 0;
  printf("uid %u CapEff %s\n", (unsigned)getuid(), eff);
  return 0;
}

/* A connection to the SOCK_SEQPACKET socket at path, or -1 (said). */
static int dial(char const *path)
{
  struct sockaddr_un a;
  int fd = socket(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0);
  memset(&a, 0, sizeof a);
  a.sun_family = AF_UNIX;
  if (strlen(path) >= sizeof a.sun_path) {
    printf("%s: path too long\n", path);
    return -1;
  }
  strcpy(a.sun_path, path);
  if (fd < 0 || connect(fd, (struct sockaddr *)&a, sizeof a) < 0) {
    printf("connect %s: %s\n", path, errno_name(errno));
    return -1;
  }
  return fd;
}

static int ask(int argc, char **argv)
{
  static char reply[65536];
  int uid0 = 0, userns = 0, fd, i;
  if (argc < 2) return usage();
  for (i = 2; i < argc; i++) {
    if (!strcmp(argv[i], "uid0")) uid0 = 1;
    else if (!strcmp(argv[i], "userns")) userns = 1;
    else return usage();
  }
  if (uid0) {
    if (setresuid(0, 0, 0) < 0) {
      printf("setresuid: %s\n", errno_name(errno));
      return 1;
    }
    if (say_creds() < 0) return 1;
  }
  if (userns && unshare(CLONE_NEWUSER) < 0) {
    printf("unshare: %s\n", errno_name(errno));
    return 1;
  }
  if (say_creds() < 0 || (fd = dial(argv[0])) < 0) return 1;
  if (send(fd, argv[1], strlen(argv[1]), MSG_NOSIGNAL) < 0) {
    printf("send: %s\n", errno_name(errno));
    return 1;
  }
  for (;;) {
    ssize_t r = recv(fd, reply, sizeof reply - 1, 0);
    if (r < 0) {
      printf("recv: %s\n", errno_name(errno));
      return 1;
    }
    reply[r] = 0;
    puts(reply);
    if (r == 0 || !strcmp(reply, "ok") || !strncmp(reply, "error", 5)) return 0;
  }
}

static int forge(int argc, char **argv)
{
  siginfo_t info;
  pid_t pid;
  int sig;
  if (argc != 3 || (sig = signum(argv[1])) < 0) return usage();
  pid = (pid_t)atol(argv[0]);
  memset(&info, 0, sizeof info);
  info.si_signo = sig;
  info.si_code = SI_QUEUE;
  info.si_pid = (pid_t)atol(argv[2]);
  info.si_uid = 0;
  if (syscall(SYS_rt_sigqueueinfo, pid, sig, &info) < 0) {
    puts(errno_name(errno));
    return 1;
  }
  puts("sent");
  return 0;
}

#define SO_PEERPIDFD_ 77  /* Linux 6.5; the libc's headers may not have it */
static int peerpidfd(int argc, char **argv)
{
  int fd, pidfd;
  socklen_t len = sizeof pidfd;
  if (argc != 1) return usage();
  if ((fd = dial(argv[0])) < 0) return 1;
  if (getsockopt(fd, SOL_SOCKET, SO_PEERPIDFD_, &pidfd, &len) == 0) puts("yes");
  else puts(errno_name(errno));
  close(fd);
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
  if (!strcmp(argv[1], "append")) return append(argc - 2, argv + 2);
  if (!strcmp(argv[1], "ask")) return ask(argc - 2, argv + 2);
  if (!strcmp(argv[1], "forge")) return forge(argc - 2, argv + 2);
  if (!strcmp(argv[1], "peerpidfd")) return peerpidfd(argc - 2, argv + 2);
  return usage();
}

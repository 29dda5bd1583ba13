/* tests/svc_helper.c -- a service for the supervisor's tests, one binary
 * with several behaviours, chosen by the first argument:
 *
 *   stamp FILE [DELAY_MS]     append "NAME START_MS" (CLOCK_MONOTONIC, ms) to
 *                             FILE, where NAME is $SVC_NAME, then pause;
 *                             with DELAY_MS, sleep that long first
 *   exit CODE [FILE]          append a stamp to FILE (if given), exit CODE
 *   run MS CODE [FILE]        stamp, run MS milliseconds, exit CODE
 *   fdready N [DELAY_MS]      after DELAY_MS, write "\n" on fd N, pause
 *   notify [DELAY_MS] [STATUS] after DELAY_MS, send STATUS=... and READY=1
 *                             to $NOTIFY_SOCKET, pause
 *   notify-foreign            fork a child that leaves the session
 *                             (setsid) and sends READY=1: not a process
 *                             of the service any more; then pause
 *   ignore-term [FILE]        ignore SIGTERM, pause; with FILE, append
 *                             "NAME-term MS PID" to it at each SIGTERM
 *                             (blocked and taken with sigwait: it still
 *                             does not end the process)
 *   termstamp FILE            stamp FILE, pause; at SIGTERM append
 *                             "NAME-term MS PID", then die of SIGTERM
 *   after FILE MODE ARGS...   wait until FILE exists (polling every 10 ms),
 *                             then behave as MODE ARGS...: a start the
 *                             test releases, rather than a delay
 *   doublefork FILE           fork a grandchild that writes its pid to FILE
 *                             and pauses; the middle process exits; pause
 *   spew BYTES                write BYTES bytes of 100-byte lines to
 *                             stdout, then pause
 *   lines N                   write N numbered lines to stdout, then pause
 *   orphans N FILE            make N orphans, one at a time: a middle
 *                             process forks a grandchild and exits; the
 *                             grandchild waits until it is an orphan (its
 *                             parent gone), then exits for the supervisor
 *                             to reap; write "N ORPHANED" to FILE (ORPHANED:
 *                             grandchildren that saw their parent change;
 *                             each waits at most 60 s), then pause
 *   serve                     accept on the LISTEN_FDS sockets from
 *                             descriptor 3 (the listen key): to each
 *                             connection write "NAME PID LISTEN_PID FD UID"
 *                             and close it; exit 3 if LISTEN_FDS or
 *                             LISTEN_PID is missing
 *
 * Every mode prints nothing else.  Exits 2 on bad usage. */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <poll.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static unsigned long long mono_ms(void)
{
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (unsigned long long)ts.tv_sec * 1000ull + (unsigned long long)ts.tv_nsec / 1000000ull;
}

static void sleep_ms(long ms)
{
  struct timespec ts = { ms / 1000, (ms % 1000) * 1000000L };
  while (nanosleep(&ts, &ts) < 0 && errno == EINTR) ;
}

/* append "NAME[SUFFIX] MS PID" to file, NAME being $SVC_NAME */
static void stamp_as(char const *file, char const *suffix)
{
  char line[160];
  char const *name = getenv("SVC_NAME");
  int fd = open(file, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0666);
  int n;
  if (fd < 0) return;
  n = snprintf(line, sizeof line, "%s%s %llu %d\n", name ? name : "?", suffix, mono_ms(), (int)getpid());
  (void)!write(fd, line, (size_t)n);
  close(fd);
}

static void stamp(char const *file)
{
  stamp_as(file, "");
}

/* SIGTERM blocked; returns when one arrives */
static void wait_term(void)
{
  sigset_t set;
  int sig;
  sigemptyset(&set);
  sigaddset(&set, SIGTERM);
  sigprocmask(SIG_BLOCK, &set, 0);
  while (sigwait(&set, &sig) != 0) ;
}

static void forever(void)
{
  for (;;) pause();
}

static int notify(char const *msg)
{
  char const *path = getenv("NOTIFY_SOCKET");
  struct sockaddr_un sa;
  int fd;
  if (!path || strlen(path) >= sizeof sa.sun_path) return -1;
  memset(&sa, 0, sizeof sa);
  sa.sun_family = AF_UNIX;
  strcpy(sa.sun_path, path);
  fd = socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0);
  if (fd < 0) return -1;
  if (sendto(fd, msg, strlen(msg), 0, (struct sockaddr *)&sa, sizeof sa) < 0) {
    close(fd);
    return -1;
  }
  close(fd);
  return 0;
}

static void serve(void)
{
  char const *fds = getenv("LISTEN_FDS"), *lpid = getenv("LISTEN_PID"), *name = getenv("SVC_NAME");
  struct pollfd p[16];
  int i, n = fds ? atoi(fds) : 0;
  if (n < 1 || n > 16 || !lpid) exit(3);
  for (i = 0; i < n; i++) {
    p[i].fd = 3 + i;
    p[i].events = POLLIN;
  }
  for (;;) {
    if (poll(p, (nfds_t)n, -1) < 0) continue;
    for (i = 0; i < n; i++) {
      char line[160];
      int c, k;
      if (!(p[i].revents & POLLIN)) continue;
      c = accept4(p[i].fd, 0, 0, SOCK_CLOEXEC);
      if (c < 0) continue;
      k = snprintf(line, sizeof line, "%s %d %s %d %u\n", name ? name : "?", (int)getpid(), lpid, p[i].fd,
                   (unsigned)getuid());
      (void)!write(c, line, (size_t)k);
      close(c);
    }
  }
}

int main(int argc, char **argv)
{
  char const *mode = argc > 1 ? argv[1] : "";
  if (!strcmp(mode, "serve")) serve();

  if (!strcmp(mode, "after") && argc >= 4) {
    while (access(argv[2], F_OK) < 0) sleep_ms(10);
    argv += 2;
    argc -= 2;
    mode = argv[1];
  }

  if (!strcmp(mode, "stamp") && argc >= 3) {
    if (argc > 3) sleep_ms(atol(argv[3]));
    stamp(argv[2]);
    forever();
  }
  if (!strcmp(mode, "exit") && argc >= 3) {
    if (argc > 3) stamp(argv[3]);
    return atoi(argv[2]);
  }
  if (!strcmp(mode, "run") && argc >= 4) {
    if (argc > 4) stamp(argv[4]);
    sleep_ms(atol(argv[2]));
    return atoi(argv[3]);
  }
  if (!strcmp(mode, "fdready") && argc >= 3) {
    int fd = atoi(argv[2]);
    if (argc > 3) sleep_ms(atol(argv[3]));
    if (write(fd, "\n", 1) != 1) return 2;
    forever();
  }
  if (!strcmp(mode, "notify")) {
    char msg[256];
    if (argc > 2) sleep_ms(atol(argv[2]));
    snprintf(msg, sizeof msg, "STATUS=%s\nREADY=1\n", argc > 3 ? argv[3] : "ready");
    if (notify(msg) < 0) return 2;
    forever();
  }
  if (!strcmp(mode, "notify-foreign")) {
    pid_t pid = fork();
    if (pid == 0) {
      setsid();
      /* a new session: no longer a process of the service */
      notify("READY=1\n");
      _exit(0);
    }
    forever();
  }
  if (!strcmp(mode, "ignore-term")) {
    if (argc < 3) {
      signal(SIGTERM, SIG_IGN);
      forever();
    }
    for (;;) {
      wait_term();
      stamp_as(argv[2], "-term");
    }
  }
  if (!strcmp(mode, "termstamp") && argc >= 3) {
    sigset_t set;
    stamp(argv[2]);
    wait_term();
    stamp_as(argv[2], "-term");
    sigemptyset(&set);
    sigaddset(&set, SIGTERM);
    signal(SIGTERM, SIG_DFL);
    raise(SIGTERM);
    sigprocmask(SIG_UNBLOCK, &set, 0);
    return 1;
  }
  if (!strcmp(mode, "doublefork") && argc >= 3) {
    pid_t pid = fork();
    if (pid == 0) {
      if (fork() == 0) {
        char line[32];
        int fd = open(argv[2], O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0666);
        int n = snprintf(line, sizeof line, "%d\n", (int)getpid());
        if (fd >= 0) {
          (void)!write(fd, line, (size_t)n);
          close(fd);
        }
        forever();
      }
      _exit(0);
    }
    forever();
  }
  if (!strcmp(mode, "spew") && argc >= 3) {
    long long left = atoll(argv[2]);
    char line[100];
    memset(line, 'x', sizeof line - 1);
    line[sizeof line - 1] = '\n';
    while (left > 0) {
      ssize_t w = write(1, line, left < (long long)sizeof line ? (size_t)left : sizeof line);
      if (w < 0 && errno != EINTR) break;
      if (w > 0) left -= w;
    }
    forever();
  }
  if (!strcmp(mode, "lines") && argc >= 3) {
    long i, n = atol(argv[2]);
    for (i = 1; i <= n; i++) printf("line %ld\n", i);
    fflush(stdout);
    forever();
  }
  if (!strcmp(mode, "orphans") && argc >= 4) {
    long i, n = atol(argv[2]), orphaned = 0;
    int count[2];
    char c, line[64];
    if (pipe2(count, O_CLOEXEC | O_NONBLOCK) < 0) return 2;
    for (i = 0; i < n; i++) {
      pid_t middle = fork();
      if (middle < 0) {
        if (errno == EAGAIN || errno == EINTR) { i--; sleep_ms(1); continue; }
        return 2;
      }
      if (middle == 0) {
        int gate[2];
        pid_t parent = getpid();
        if (pipe2(gate, O_CLOEXEC) < 0 || fork() < 0) _exit(1);
        if (getpid() != parent) {
          /* the grandchild: the end of the gate is its parent's exit */
          close(gate[1]);
          int tries = 0;
          struct timespec tick = { 0, 100000 };
          while (read(gate[0], &c, 1) < 0 && errno == EINTR) ;
          /* the parent closes its files before it is gone: reparenting
           * follows shortly */
          while (getppid() == parent && tries++ < 600000) nanosleep(&tick, 0);
          if (getppid() != parent) (void)!write(count[1], "o", 1);
          _exit(0);
        }
        _exit(0);
      }
      while (waitpid(middle, 0, 0) < 0 && errno == EINTR) ;
      for (;;) {  /* drain as it goes: a full pipe would hold grandchildren */
        ssize_t r = read(count[0], line, sizeof line);
        if (r <= 0) break;
        orphaned += r;
      }
    }
    close(count[1]);
    fcntl(count[0], F_SETFL, 0);
    /* every grandchild has written or exited when the pipe ends */
    for (;;) {
      ssize_t r = read(count[0], line, sizeof line);
      if (r < 0 && errno == EINTR) continue;
      if (r <= 0) break;
      orphaned += r;
    }
    {
      int fd = open(argv[3], O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0666);
      int k = snprintf(line, sizeof line, "%ld %ld\n", n, orphaned);
      if (fd >= 0) {
        (void)!write(fd, line, (size_t)k);
        close(fd);
      }
    }
    forever();
  }
  fprintf(stderr, "usage: svc_helper MODE ARGS (see tests/svc_helper.c)\n");
  return 2;
}

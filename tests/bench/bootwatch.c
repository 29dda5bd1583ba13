/* tests/bench/bootwatch.c -- one QEMU boot of the appliance, timed from
 * the host (tests/bench/run.sh, BENCH_BOOTS).
 *
 *   bootwatch [-o LOG] [-q QUIET_MS] [-T DEADLINE_S] -- COMMAND ARGS...
 *
 * COMMAND is `sh rootfs/qemu.sh boot BUILDDIR IMAGEDIR`, which execs QEMU
 * with the guest's serial console on its stdin and stdout (make boot's
 * command line).  bootwatch gives it a pipe as each, takes a
 * CLOCK_MONOTONIC timestamp (t0) just before the fork, and reads the
 * console (copied to LOG) line by line:
 *   1. the line "capinit: all N services ready X ms after capinit
 *      started": the time it arrives - t0 is the wall time to ready; N and
 *      X (capinit's own clock, in the guest) are kept;
 *   2. once the console has then been quiet for QUIET_MS (300: the console
 *      shell waits at its prompt), it types "poweroff" (busybox: SIGUSR2
 *      to capinit, which stops every service and powers off), again every
 *      5 s, 3 times at most, and waits for QEMU to exit by itself (the end
 *      of its stdout, then its exit status).
 * Results, one "key value..." per line on stdout:
 *   services N, ready_ms X, wall_ready_ns, poweroff_ns (from the first
 *   "poweroff" typed to QEMU's exit), wall_exit_ns (t0 to QEMU's exit),
 *   poweroff_typed (how many times), qemu_rc, qemu_cmdline (the child's
 *   /proc/PID/cmdline once it is QEMU, arguments separated by spaces).
 * Exits 0 when capinit said ready and QEMU exited 0 after the power off;
 * otherwise writes "error MESSAGE" and exits 1.  QEMU (the child, which
 * also dies with bootwatch: PR_SET_PDEATHSIG) is killed after DEADLINE_S
 * (120) seconds. */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define RETYPE_NS 5000000000ull
#define MAX_TYPED 3

static uint64_t now_ns(void)
{
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

static pid_t child;

static void fail(char const *msg)
{
  printf("error %s\n", msg);
  fflush(stdout);
  if (child > 0) {
    kill(child, SIGKILL);
    waitpid(child, 0, 0);
  }
  exit(1);
}

static void usage(void)
{
  fprintf(stderr, "usage: bootwatch [-o LOG] [-q QUIET_MS] [-T DEADLINE_S] -- COMMAND ARGS...\n");
  exit(100);
}

/* the child's command line, once it is QEMU (qemu.sh execs it) */
static void print_cmdline(void)
{
  char path[64], buf[8192];
  ssize_t n, i;
  int fd;
  snprintf(path, sizeof path, "/proc/%d/cmdline", (int)child);
  fd = open(path, O_RDONLY | O_CLOEXEC);
  if (fd < 0) return;
  n = read(fd, buf, sizeof buf - 1);
  close(fd);
  if (n <= 0) return;
  for (i = 0; i < n; i++)
    if (buf[i] == 0 || buf[i] == '\n') buf[i] = ' ';
  while (n > 0 && buf[n - 1] == ' ') n--;
  buf[n] = 0;
  printf("qemu_cmdline %s\n", buf);
}

int main(int argc, char **argv)
{
  char const *logname = 0;
  unsigned quiet_ms = 300, deadline_s = 120;
  int opt, in[2], out[2], logfd = -1, status;
  uint64_t t0, t_ready = 0, t_last, t_typed = 0, t_first_typed = 0, t_exit, deadline;
  unsigned services = 0, ready_ms = 0, typed = 0;
  int ready = 0;
  char line[4096];
  size_t llen = 0;

  while ((opt = getopt(argc, argv, "o:q:T:")) != -1) {
    switch (opt) {
      case 'o': logname = optarg; break;
      case 'q': quiet_ms = (unsigned)strtoul(optarg, 0, 10); break;
      case 'T': deadline_s = (unsigned)strtoul(optarg, 0, 10); break;
      default: usage();
    }
  }
  if (optind >= argc) usage();
  if (logname) {
    logfd = open(logname, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
    if (logfd < 0) fail("unable to open the console log");
  }
  signal(SIGPIPE, SIG_IGN);
  if (pipe2(in, O_CLOEXEC) < 0 || pipe2(out, O_CLOEXEC) < 0) fail("pipe");

  t0 = now_ns();
  child = fork();
  if (child < 0) fail("fork");
  if (child == 0) {
    prctl(PR_SET_PDEATHSIG, SIGKILL);
    if (dup2(in[0], 0) < 0 || dup2(out[1], 1) < 0) _exit(127);
    execvp(argv[optind], argv + optind);
    _exit(127);
  }
  close(in[0]);
  close(out[1]);
  t_last = t0;
  deadline = t0 + (uint64_t)deadline_s * 1000000000ull;

  for (;;) {
    struct pollfd p = { out[0], POLLIN, 0 };
    uint64_t now = now_ns(), wake = deadline;
    int timeout, r;
    if (ready && typed < MAX_TYPED) {
      uint64_t at = typed ? t_typed + RETYPE_NS : t_last + (uint64_t)quiet_ms * 1000000ull;
      if (at < wake) wake = at;
    }
    timeout = wake > now ? (int)((wake - now + 999999) / 1000000) : 0;
    r = poll(&p, 1, timeout);
    if (r < 0) {
      if (errno == EINTR) continue;
      fail("poll");
    }
    now = now_ns();
    if (r == 0) {
      if (now >= deadline) fail(ready ? "QEMU did not exit after poweroff before the deadline" :
                                        "no \"capinit: all N services ready\" line before the deadline");
      if (ready && typed < MAX_TYPED &&
          now >= (typed ? t_typed + RETYPE_NS : t_last + (uint64_t)quiet_ms * 1000000ull)) {
        if (write(in[1], "poweroff\n", 9) != 9) fail("unable to type poweroff");
        t_typed = now;
        if (!typed) t_first_typed = now;
        typed++;
      }
      continue;
    }
    {
      char buf[4096];
      ssize_t n = read(out[0], buf, sizeof buf), i;
      if (n < 0) {
        if (errno == EINTR) continue;
        fail("read");
      }
      if (n == 0) break;  /* QEMU is gone */
      t_last = now;
      if (logfd >= 0 && write(logfd, buf, (size_t)n) != n) fail("unable to write the console log");
      for (i = 0; i < n; i++) {
        char c = buf[i];
        if (c == '\r') continue;
        if (c != '\n') {
          if (llen < sizeof line - 1) line[llen++] = c;
          continue;
        }
        line[llen] = 0;
        llen = 0;
        if (!ready) {
          char const *s = strstr(line, "capinit: all ");
          char tail[64];
          if (s && sscanf(s, "capinit: all %u services ready %u ms after capinit %63s", &services, &ready_ms, tail) == 3 &&
              !strcmp(tail, "started")) {
            ready = 1;
            t_ready = now;
            print_cmdline();
          }
        }
      }
    }
  }
  t_exit = now_ns();
  if (waitpid(child, &status, 0) < 0) fail("waitpid");
  child = 0;
  if (!ready) fail("QEMU exited before capinit said all services ready");
  if (!typed) fail("QEMU exited before poweroff was typed");
  if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) {
    printf("qemu_rc %d\n", WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status));
    fail("QEMU did not exit 0 after the power off");
  }
  printf("services %u\nready_ms %u\nwall_ready_ns %llu\npoweroff_ns %llu\nwall_exit_ns %llu\npoweroff_typed %u\nqemu_rc 0\n",
         services, ready_ms, (unsigned long long)(t_ready - t0), (unsigned long long)(t_exit - t_first_typed),
         (unsigned long long)(t_exit - t0), typed);
  return 0;
}

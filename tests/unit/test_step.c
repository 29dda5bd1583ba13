/* Unit tests: a bounded step (init/step.c), the child PID 1 runs a
 * blocking system call in.
 *
 *   1. the step's answer: 0, fn's errno value, a child killed by a
 *      signal (EINTR); the child is another process (its own pid);
 *   2. the deadline: a child that never ends makes step_run return
 *      STEP_TIMEOUT no sooner than the bound, and the child is then
 *      killed by SIGKILL (its end as waitpid reports it, the kernel's
 *      word) -- the positive control, the same child given time to end
 *      by itself first, answers 0;
 *   3. another child that has ended when a step runs is reaped by it,
 *      as step.h says;
 *   4. no stack is left behind: a hundred steps map less than one more
 *      (/proc/self/maps).
 * Times are only lower bounds (the bound is a promise of step_run's);
 * nothing here asserts that something was quick. */
#include <errno.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "../../init/step.h"
#include "t.h"

static uint64_t now_ms(void)
{
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (uint64_t)t.tv_sec * 1000 + (uint64_t)t.tv_nsec / 1000000;
}

/* The steps below make system calls only, as step.h asks. */
static int give(void const *arg) { return *(int const *)arg; }

/* Writes its pid to the pipe, then returns 0 or waits for ever. */
struct tell {
  int fd;
  int forever;
};

static int tell_pid(void const *arg)
{
  struct tell const *t = arg;
  pid_t me = getpid();
  if (write(t->fd, &me, sizeof me) != (ssize_t)sizeof me) return EIO;
  while (t->forever) pause();
  return 0;
}

static int die_by_signal(void const *arg)
{
  (void)arg;
  kill(getpid(), SIGTERM);
  pause();
  return 0;
}

static int sleep_ms(void const *arg)
{
  struct timespec t = { 0, (long)*(int const *)arg * 1000000L };
  while (nanosleep(&t, &t) < 0 && errno == EINTR) {}
  return 0;
}

/* waitpid with a bound (10 s), so that a child never killed fails the
 * check instead of hanging the test: its pid, or 0 */
static pid_t reap_within(pid_t pid, int *status)
{
  int i;
  for (i = 0; i < 1000; i++) {
    struct timespec t = { 0, 10 * 1000000L };
    pid_t r = waitpid(pid, status, WNOHANG);
    if (r != 0) return r;
    nanosleep(&t, 0);
  }
  kill(pid, SIGKILL);
  waitpid(pid, status, 0);
  return 0;
}

/* A step that never ends (tell_pid with forever set), bounded by ms,
 * with progress on or off: it answers STEP_TIMEOUT no sooner than its
 * bound, its child told its pid, and that child ended by SIGKILL. */
static void stuck_step(struct tell *tell, int rfd, int ms, int progress, char const *how)
{
  uint64_t t0 = now_ms(), took;
  int v = step_run(tell_pid, tell, (unsigned)ms, progress), status = 0;
  pid_t child = 0;
  took = now_ms() - t0;
  t_ueq((uint64_t)(int64_t)v, (uint64_t)(int64_t)STEP_TIMEOUT, "%s: a step that never ends answers STEP_TIMEOUT", how);
  t_ok(took >= (uint64_t)ms, "%s: not before its bound: %llu ms >= %d ms", how, (unsigned long long)took, ms);
  v = read(rfd, &child, sizeof child) == (ssize_t)sizeof child;
  t_ok(v && child > 0, "%s: the stuck child told its pid (%d)", how, (int)child);
  t_ueq(reap_within(child, &status), child, "%s: the stuck child is still ours to reap, and ends within 10 s", how);
  t_ok(WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL, "%s: it ended by SIGKILL (status 0x%x)", how,
       (unsigned)status);
}

/* the bytes this process has mapped, from /proc/self/maps (the count
 * of lines would not do: the kernel merges neighbouring mappings) */
static unsigned long long map_bytes(void)
{
  char line[512];
  unsigned long long n = 0, a, b;
  FILE *f = fopen("/proc/self/maps", "re");
  if (!f) return 0;
  while (fgets(line, sizeof line, f))
    if (sscanf(line, "%llx-%llx", &a, &b) == 2) n += b - a;
  fclose(f);
  return n;
}

int main(void)
{
  int v, p[2], status, i;
  unsigned long long m0;
  pid_t child = 0, other;
  struct tell tell;

  setvbuf(stdout, 0, _IOLBF, 0);
  signal(SIGTERM, SIG_DFL);

  /* 1. answers */
  v = 0;
  t_ueq(step_run(give, &v, 5000, 0), 0, "a step that returns 0 answers 0");
  v = ENOENT;
  t_ueq(step_run(give, &v, 5000, 0), ENOENT, "a step that returns ENOENT answers ENOENT");
  v = EROFS;
  t_ueq(step_run(give, &v, 5000, 1), EROFS, "with progress on, EROFS answers EROFS");
  t_ueq(step_run(die_by_signal, 0, 5000, 0), EINTR, "a step killed by SIGTERM answers EINTR");
  if (pipe(p) < 0) return perror("pipe"), 1;
  tell.fd = p[1];
  tell.forever = 0;
  t_ueq(step_run(tell_pid, &tell, 5000, 0), 0, "the pid-telling step answers 0");
  v = read(p[0], &child, sizeof child) == (ssize_t)sizeof child;
  t_ok(v && child > 0 && child != getpid(), "the step ran in another process (pid %d, this one %d)", (int)child,
       (int)getpid());
  t_ok(waitpid(child, &status, WNOHANG) < 0 && errno == ECHILD, "that child was reaped by step_run");

  /* 2. the deadline: a step that never ends, progress off and on */
  tell.forever = 1;
  stuck_step(&tell, p[0], 300, 0, "progress off");
  /* its control: the same bound, a child that ends by itself in time */
  v = 50;
  t_ueq(step_run(sleep_ms, &v, 3000, 0), 0, "control: a step of 50 ms under a 3000 ms bound answers 0");
  /* progress on and nothing to write back: the same bound holds */
  stuck_step(&tell, p[0], 300, 1, "progress on");

  /* 3. another child, ended meanwhile, is reaped by the step */
  other = fork();
  if (other == 0) _exit(7);
  {
    siginfo_t si;
    memset(&si, 0, sizeof si);
    /* ended, and left unreaped (WNOWAIT): the step must reap it */
    t_ok(other > 0 && waitid(P_PID, (id_t)other, &si, WEXITED | WNOWAIT) == 0 && si.si_status == 7,
         "control: the other child (pid %d) ended with 7 and is not reaped yet", (int)other);
  }
  v = 0;
  t_ueq(step_run(give, &v, 5000, 0), 0, "a step beside the other child's end answers 0");
  t_ok(waitpid(other, &status, WNOHANG) < 0 && errno == ECHILD, "the other child was reaped by the step");

  /* 4. nothing left behind */
  v = 0;
  m0 = map_bytes();
  for (i = 0; i < 100; i++)
    if (step_run(give, &v, 5000, 0) != 0) break;
  t_ueq(i, 100, "a hundred steps answer 0");
  /* one stack left behind would be 64 KiB; qemu-user, which runs the
   * ARM builds of this test, maps a few pages of its own meanwhile */
  {
    unsigned long long m1 = map_bytes();
    t_ok(m1 < m0 + 64 * 1024, "and leave no stack mapped: %llu bytes before, %llu after", m0, m1);
  }

  close(p[0]);
  close(p[1]);
  return t_done();
}

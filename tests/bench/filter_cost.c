/* tests/bench/filter_cost.c -- what the system-call filter (stage filter,
 * engine/filter.c) costs: the benchmark's microbenchmark of issue 34.
 *
 *   filter_cost [ITERATIONS]
 *
 * The spec is a contained service's (mode = noroot, read-only = yes: every
 * default group denied, no user namespace, no set-id modes).  Times
 * (CLOCK_MONOTONIC, fork to waitpid) two kinds of child, interleaved:
 *   bare    fork, _exit;
 *   filter  fork, filter_apply() (the program built on the stack, then
 *           seccomp(2): the kernel checks and translates it), _exit.
 * Then, in one child each, the cost the filter adds to every system call
 * the service makes: getpid() a million times (raw), without and with
 * the filter loaded.  Prints the medians in ns ("filter_bare_ns N"...),
 * the filter's own cost per start (filter_cost_ns: filter - bare) and per
 * call (filter_call_ns).  Must run as root (the filter is loaded without
 * no_new_privs, as capinit does). */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "../../conf/diag.h"
#include "../../conf/svc.h"
#include "../../engine/engine.h"

#define CALLS 1000000

static uint64_t now_ns(void)
{
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (uint64_t)t.tv_sec * 1000000000u + (uint64_t)t.tv_nsec;
}

static int cmp_u64(void const *a, void const *b)
{
  uint64_t x = *(uint64_t const *)a, y = *(uint64_t const *)b;
  return x < y ? -1 : x > y;
}

static uint64_t median(uint64_t *v, size_t n)
{
  qsort(v, n, sizeof *v, cmp_u64);
  return v[n / 2];
}

/* one child: fork, (the filter), _exit; its round trip in ns, or 0 */
static uint64_t child(svc const *s, int with_filter)
{
  uint64_t t0 = now_ns();
  int st;
  pid_t p = fork();
  if (p == 0) {
    priv_fail f;
    _exit(with_filter && filter_apply(s, &f) < 0 ? 1 : 0);
  }
  if (p < 0 || waitpid(p, &st, 0) < 0 || !WIFEXITED(st) || WEXITSTATUS(st)) return 0;
  return now_ns() - t0;
}

/* ns per getpid in a child, with or without the filter (0: it failed) */
static uint64_t per_call(svc const *s, int with_filter)
{
  int fd[2], st;
  uint64_t ns = 0;
  pid_t p;
  if (pipe(fd) < 0) return 0;
  p = fork();
  if (p == 0) {
    priv_fail f;
    uint64_t t0;
    if (with_filter && filter_apply(s, &f) < 0) _exit(1);
    t0 = now_ns();
    for (int i = 0; i < CALLS; i++) syscall(SYS_getpid);
    ns = (now_ns() - t0) / CALLS;
    _exit(write(fd[1], &ns, sizeof ns) == sizeof ns ? 0 : 1);
  }
  close(fd[1]);
  if (p < 0 || read(fd[0], &ns, sizeof ns) != sizeof ns) ns = 0;
  close(fd[0]);
  if (p > 0) waitpid(p, &st, 0);
  return ns;
}

int main(int argc, char **argv)
{
  static char const *const pairs[] = { "command=/bin/true", "mode=noroot", "read-only=yes" };
  diag_list diags = { 0, 0, 0 };
  conf_ctx ctx = { .root = "/", .diags = &diags, .command_optional = 1 };
  size_t n = argc > 1 ? strtoul(argv[1], 0, 10) : 2000, i;
  uint64_t *bare = calloc(n, sizeof *bare), *filt = calloc(n, sizeof *filt), mb, mf, c0, c1;
  svc *s = svc_load_pairs(&ctx, "-k", pairs, 3);
  if (!s || s->refused || !bare || !filt || !n) {
    fprintf(stderr, "filter_cost: unable to make the spec\n");
    return 1;
  }
  for (i = 0; i < n; i++) {
    bare[i] = child(s, 0);
    filt[i] = child(s, 1);
    if (!bare[i] || !filt[i]) {
      fprintf(stderr, "filter_cost: a child failed (root is needed)\n");
      return 1;
    }
  }
  mb = median(bare, n);
  mf = median(filt, n);
  c0 = per_call(s, 0);
  c1 = per_call(s, 1);
  if (!c0 || !c1) {
    fprintf(stderr, "filter_cost: the per-call child failed\n");
    return 1;
  }
  printf("filter_bare_ns %llu\nfilter_load_ns %llu\nfilter_cost_ns %lld\n", (unsigned long long)mb,
         (unsigned long long)mf, (long long)mf - (long long)mb);
  printf("getpid_ns %llu\ngetpid_filtered_ns %llu\nfilter_call_ns %lld\n", (unsigned long long)c0,
         (unsigned long long)c1, (long long)c1 - (long long)c0);
  return 0;
}

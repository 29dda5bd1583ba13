/* tests/bench/privsyscalls.c -- what the kernel's work for a privileged
 * service costs, alone: the benchmark's microbenchmark.
 *
 *   privsyscalls [ITERATIONS]
 *
 * Times (CLOCK_MONOTONIC, fork to waitpid) three kinds of child, interleaved:
 *   bare   fork, _exit;
 *   plain  fork, the privilege syscalls capinit's engine (supervise/
 *          privilege.c, steps 2-10) makes for a plain root service (legacy
 *          mode, no capabilities), _exit;
 *   priv   fork, the engine's syscalls for the benchmark's privileged
 *          service: uid/gid 65534, no supplementary groups, securebits 0x2f,
 *          bounding = inheritable = ambient = cap_net_bind_service -- keep-caps,
 *          setgroups, setresgid, setresuid, capget/capset, one
 *          PR_CAPBSET_DROP per other capability, capset, ambient clear and
 *          raise, securebits, the system-call filter of a contained service
 *          (engine/filter.c's filter_apply for the same spec: mode =
 *          noroot makes it one), capset; the spec asks no no_new_privs
 *          (with it: one more prctl) -- then _exit.
 * Raw syscalls, as in the engine.  Prints the median round trip of each,
 * in ns ("micro_bare_ns N" ...), and the number of calls of the priv
 * sequence.  First, one priv child checks its own /proc/self/status
 * (CapInh..CapAmb = 0000000000000400, Uid and Gid 65534, no groups); any
 * failed syscall or check exits 1.  Must run as root. */
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include <linux/capability.h>

#include "../../conf/diag.h"
#include "../../conf/svc.h"
#include "../../engine/engine.h"
#include "../../engine/sysnum.h"

#define CAP_NBS 10  /* cap_net_bind_service */
#define NOBODY 65534

static unsigned last_cap;
static unsigned priv_calls;
static svc *priv_spec;   /* the privileged service's spec, for its filter */

static uint64_t now_ns(void)
{
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

static int caps(int set, uint64_t eff, uint64_t prm, uint64_t inh, uint64_t *got_eff, uint64_t *got_prm)
{
  struct __user_cap_header_struct h = { _LINUX_CAPABILITY_VERSION_3, 0 };
  struct __user_cap_data_struct d[2] = {
    { (uint32_t)eff, (uint32_t)prm, (uint32_t)inh },
    { (uint32_t)(eff >> 32), (uint32_t)(prm >> 32), (uint32_t)(inh >> 32) },
  };
  if (!set) {
    if (syscall(SYS_capget, &h, d) < 0) return -1;
    *got_eff = d[0].effective | (uint64_t)d[1].effective << 32;
    *got_prm = d[0].permitted | (uint64_t)d[1].permitted << 32;
    return 0;
  }
  return (int)syscall(SYS_capset, &h, d);
}

#define CALL(x) do { n++; if ((x) < 0) _exit(202); } while (0)

/* Engine steps 2-10 for a plain root service: ids unchanged, nothing
 * dropped, nothing raised. */
static unsigned seq_plain(void)
{
  uint64_t e, p;
  unsigned n = 0;
  CALL(prctl(PR_GET_SECUREBITS, 0, 0, 0, 0));
  CALL(syscall(SYS_setgroups, 0, 0));
  CALL(syscall(SYS_setresgid, 0, 0, 0));
  CALL(syscall(SYS_setresuid, 0, 0, 0));
  CALL(caps(0, 0, 0, 0, &e, &p));
  CALL(caps(1, e, p, 0, 0, 0));
  CALL(prctl(PR_CAP_AMBIENT, PR_CAP_AMBIENT_CLEAR_ALL, 0, 0, 0));
  CALL(prctl(PR_GET_SECUREBITS, 0, 0, 0, 0));
  return n;
}

/* Engine steps 2-10 for the privileged service. */
static unsigned seq_priv(void)
{
  uint64_t e, p, want = (uint64_t)1 << CAP_NBS;
  unsigned n = 0, cap;
  CALL(prctl(PR_GET_SECUREBITS, 0, 0, 0, 0));
  CALL(prctl(PR_SET_KEEPCAPS, 1, 0, 0, 0));
  CALL(syscall(SYS_setgroups, 0, 0));
  CALL(syscall(SYS_setresgid, NOBODY, NOBODY, NOBODY));
  CALL(syscall(SYS_setresuid, NOBODY, NOBODY, NOBODY));
  CALL(prctl(PR_SET_KEEPCAPS, 0, 0, 0, 0));
  CALL(caps(0, 0, 0, 0, &e, &p));
  if (e != p) CALL(caps(1, p, p, 0, 0, 0));
  for (cap = 0; cap <= last_cap; cap++)
    if (cap != CAP_NBS) CALL(prctl(PR_CAPBSET_DROP, cap, 0, 0, 0));
  CALL(caps(1, p, p, want, 0, 0));
  CALL(prctl(PR_CAP_AMBIENT, PR_CAP_AMBIENT_CLEAR_ALL, 0, 0, 0));
  CALL(prctl(PR_CAP_AMBIENT, PR_CAP_AMBIENT_RAISE, CAP_NBS, 0, 0));
  CALL(prctl(PR_GET_SECUREBITS, 0, 0, 0, 0));
  CALL(prctl(PR_SET_SECUREBITS, 0x2f, 0, 0, 0));
  {
    priv_fail f;
    CALL(filter_apply(priv_spec, &f));
  }
  CALL(caps(1, want, want, want, 0, 0));
  return n;
}

/* The privileged state as /proc/self/status shows it (before an exec,
 * permitted and effective are already the declared set: step 9). */
static void check_priv(void)
{
  static char const *const keys[] = {
    "CapInh:\t0000000000000400\n", "CapPrm:\t0000000000000400\n", "CapEff:\t0000000000000400\n",
    "CapBnd:\t0000000000000400\n", "CapAmb:\t0000000000000400\n",
    "Uid:\t65534\t65534\t65534\t65534\n", "Gid:\t65534\t65534\t65534\t65534\n", "Seccomp:\t2\n",
  };
  char buf[8192], *g;
  ssize_t r, len = 0;
  size_t i;
  int fd;
  unsigned n = seq_priv();
  fd = open("/proc/self/status", O_RDONLY);
  if (fd < 0) _exit(203);
  while ((r = read(fd, buf + len, sizeof buf - 1 - (size_t)len)) > 0) len += r;
  buf[len] = 0;
  for (i = 0; i < sizeof keys / sizeof *keys; i++)
    if (!strstr(buf, keys[i])) {
      fprintf(stderr, "privsyscalls: fatal: /proc/self/status lacks '%.*s'\n",
              (int)strlen(keys[i]) - 1, keys[i]);
      _exit(204);
    }
  g = strstr(buf, "\nGroups:");
  if (!g) _exit(206);
  for (g += 8; *g == ' ' || *g == '\t'; g++) ;
  if (*g != '\n') {
    fputs("privsyscalls: fatal: /proc/self/status shows supplementary groups\n", stderr);
    _exit(206);
  }
  if (prctl(PR_GET_SECUREBITS, 0, 0, 0, 0) != 0x2f) _exit(205);
  _exit((int)n);  /* the number of calls */
}

/* One child of the given kind; its round trip in ns.  A checking child
 * (kind 3) exits with the number of calls it made, stored in priv_calls. */
static uint64_t once(int kind)
{
  uint64_t t = now_ns();
  int status;
  pid_t pid = fork();
  if (pid < 0) {
    perror("privsyscalls: fatal: fork");
    exit(111);
  }
  if (!pid) {
    if (kind == 1) seq_plain();
    if (kind == 2) seq_priv();
    if (kind == 3) check_priv();
    _exit(0);
  }
  if (kind == 3 && waitpid(pid, &status, 0) == pid && WIFEXITED(status) &&
      WEXITSTATUS(status) > 0 && WEXITSTATUS(status) < 200) {
    priv_calls = (unsigned)WEXITSTATUS(status);
    return 0;
  }
  if (kind == 3 || waitpid(pid, &status, 0) != pid || status) {
    fprintf(stderr, "privsyscalls: fatal: a %s child failed (status 0x%x)\n",
            kind == 3 ? "checking" : kind == 2 ? "priv" : kind == 1 ? "plain" : "bare", status);
    exit(1);
  }
  return now_ns() - t;
}

static int cmp(void const *a, void const *b)
{
  uint64_t x = *(uint64_t const *)a, y = *(uint64_t const *)b;
  return x < y ? -1 : x > y;
}

int main(int argc, char **argv)
{
  int iters = argc > 1 ? atoi(argv[1]) : 2000, i, k;
  uint64_t *t[3];
  FILE *f = fopen("/proc/sys/kernel/cap_last_cap", "r");
  if (!f || fscanf(f, "%u", &last_cap) != 1 || last_cap > 63) {
    fputs("privsyscalls: fatal: unable to read /proc/sys/kernel/cap_last_cap\n", stderr);
    return 111;
  }
  fclose(f);
  {
    static char const *const pairs[] = { "command=/bin/true", "user=65534", "group=65534", "groups=",
                                         "mode=noroot", "capabilities=net_bind_service" };
    static diag_list diags;
    conf_ctx ctx = { .root = "/", .diags = &diags, .command_optional = 1 };
    priv_spec = svc_load_pairs(&ctx, "-k", pairs, sizeof pairs / sizeof *pairs);
    if (!priv_spec || priv_spec->refused) {
      fputs("privsyscalls: fatal: unable to make the privileged service's spec\n", stderr);
      return 111;
    }
  }
  if (iters < 1) iters = 1;
  for (k = 0; k < 3; k++)
    if (!(t[k] = calloc((size_t)iters, sizeof *t[k]))) return 111;
  once(3);
  for (i = 0; i < 50; i++)  /* warm-up */
    for (k = 0; k < 3; k++) once(k);
  for (i = 0; i < iters; i++)
    for (k = 0; k < 3; k++) t[k][i] = once(k);
  for (k = 0; k < 3; k++) qsort(t[k], (size_t)iters, sizeof *t[k], cmp);
  printf("micro_bare_ns %llu\nmicro_plain_ns %llu\nmicro_priv_ns %llu\nmicro_iterations %d\nmicro_priv_calls %u\n",
         (unsigned long long)t[0][iters / 2], (unsigned long long)t[1][iters / 2],
         (unsigned long long)t[2][iters / 2], iters, priv_calls);
  return 0;
}

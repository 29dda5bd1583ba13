/* tests/probe.c -- print this process's credentials as the kernel reports
 * them, as one JSON object whose fields are those of `capctl explain
 * --json` (one per line, in the same order and format):
 *
 *   getresuid, getresgid, getgroups, capget, PR_CAPBSET_READ,
 *   PR_CAP_AMBIENT_IS_SET, PR_GET_SECUREBITS, PR_GET_NO_NEW_PRIVS,
 *   getauxval(AT_SECURE)
 *
 * and cross-check every value /proc/self/status also shows.  A mismatch is
 * reported on stderr and the exit status is 1; on success it is 0 (or the
 * number given with "exit=N" as first argument, for tests that need a
 * distinct status).  Static, so that it runs anywhere and so that
 * AT_SECURE changes nothing in how it is loaded. */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/auxv.h>
#include <sys/prctl.h>
#include <unistd.h>
#include <linux/capability.h>

#include "../engine/sysnum.h"

static int mismatches;

static void mismatch(char const *what, char const *sys, char const *proc)
{
  fprintf(stderr, "probe: %s: the syscalls say '%s', /proc/self/status says '%s'\n", what, sys, proc);
  mismatches++;
}

/* The value of "Key:" in /proc/self/status, blanks folded to one space. */
static int status_field(char const *status, char const *key, char *out, size_t len)
{
  size_t kl = strlen(key), n = 0;
  char const *p = status;
  while (p && *p) {
    if (!strncmp(p, key, kl) && p[kl] == ':') {
      p += kl + 1;
      while (*p == ' ' || *p == '\t') p++;
      while (*p && *p != '\n' && n + 1 < len) {
        if (*p == '\t' || *p == ' ') {
          if (n && out[n - 1] != ' ') out[n++] = ' ';
        } else {
          out[n++] = *p;
        }
        p++;
      }
      while (n && out[n - 1] == ' ') n--;
      out[n] = 0;
      return 0;
    }
    p = strchr(p, '\n');
    if (p) p++;
  }
  return -1;
}

/* The filesystem uid or gid: setfsuid(-1) changes nothing and returns it.
 * It never fails, but on 32-bit systems syscall() takes a return of -4095
 * to -1 (the ids from 4294963201 up) for an error: undo that. */
static unsigned fs_id(long nr)
{
  long v;
  errno = 0;
  v = syscall(nr, -1);
  return (unsigned)(v == -1 && errno ? -errno : v);
}

static int cmp_u32(void const *a, void const *b)
{
  uint32_t x = *(uint32_t const *)a, y = *(uint32_t const *)b;
  return x < y ? -1 : x > y;
}

int main(int argc, char **argv)
{
  static char status[65536];
  char sys[8192], proc[8192];
  unsigned r, e, s, gr, ge, gs;
  uint32_t groups[4096];
  struct __user_cap_header_struct h = { _LINUX_CAPABILITY_VERSION_3, 0 };
  struct __user_cap_data_struct d[2];
  uint64_t inh, prm, eff, bnd = 0, amb = 0;
  long ng, i;
  int bits, nnp, fd, code = 0;
  unsigned long secure;
  ssize_t len;
  size_t w;

  if (argc > 1 && !strncmp(argv[1], "exit=", 5)) code = atoi(argv[1] + 5);

  if (syscall(SYS_getresuid, &r, &e, &s) < 0 || syscall(SYS_getresgid, &gr, &ge, &gs) < 0 ||
      (ng = syscall(SYS_getgroups, 4096, groups)) < 0 || syscall(SYS_capget, &h, d) < 0) {
    perror("probe: reading credentials");
    return 2;
  }
  qsort(groups, (size_t)ng, sizeof groups[0], cmp_u32);
  inh = d[0].inheritable | (uint64_t)d[1].inheritable << 32;
  prm = d[0].permitted | (uint64_t)d[1].permitted << 32;
  eff = d[0].effective | (uint64_t)d[1].effective << 32;
  for (i = 0; i < 64; i++) {
    int b = prctl(PR_CAPBSET_READ, i, 0, 0, 0);
    int a = prctl(PR_CAP_AMBIENT, PR_CAP_AMBIENT_IS_SET, i, 0, 0);
    if (b < 0) break;
    if (b) bnd |= (uint64_t)1 << i;
    if (a > 0) amb |= (uint64_t)1 << i;
  }
  bits = prctl(PR_GET_SECUREBITS, 0, 0, 0, 0);
  nnp = prctl(PR_GET_NO_NEW_PRIVS, 0, 0, 0, 0);
  errno = 0;
  secure = getauxval(AT_SECURE);
  if (bits < 0 || nnp < 0 || errno) {
    perror("probe: prctl/getauxval");
    return 2;
  }

  /* cross-check against the kernel's other account of the same */
  fd = open("/proc/self/status", O_RDONLY);
  len = fd >= 0 ? read(fd, status, sizeof status - 1) : -1;
  if (fd >= 0) close(fd);
  if (len <= 0) {
    perror("probe: /proc/self/status");
    return 2;
  }
  status[len] = 0;
#define CHECK(key, ...) do { \
    snprintf(sys, sizeof sys, __VA_ARGS__); \
    if (status_field(status, key, proc, sizeof proc) < 0) mismatch(key, sys, "(absent)"); \
    else if (strcmp(sys, proc)) mismatch(key, sys, proc); \
  } while (0)
  CHECK("Uid", "%u %u %u %u", r, e, s, fs_id(SYS_setfsuid));
  CHECK("Gid", "%u %u %u %u", gr, ge, gs, fs_id(SYS_setfsgid));
  w = 0;
  sys[0] = 0;
  for (i = 0; i < ng && w < sizeof sys - 16; i++)
    w += (size_t)snprintf(sys + w, sizeof sys - w, "%s%u", i ? " " : "", groups[i]);
  if (status_field(status, "Groups", proc, sizeof proc) < 0 || strcmp(sys, proc)) mismatch("Groups", sys, proc);
  CHECK("CapInh", "%016" PRIx64, inh);
  CHECK("CapPrm", "%016" PRIx64, prm);
  CHECK("CapEff", "%016" PRIx64, eff);
  CHECK("CapBnd", "%016" PRIx64, bnd);
  CHECK("CapAmb", "%016" PRIx64, amb);
  CHECK("NoNewPrivs", "%d", nnp);

  printf("{\n");
  printf("  \"uid\": %u,\n  \"euid\": %u,\n  \"suid\": %u,\n", r, e, s);
  printf("  \"gid\": %u,\n  \"egid\": %u,\n  \"sgid\": %u,\n", gr, ge, gs);
  printf("  \"groups\": [");
  for (i = 0; i < ng; i++) printf("%s%u", i ? ", " : "", groups[i]);
  printf("],\n");
  printf("  \"securebits\": %d,\n", bits);
  printf("  \"cap_inh\": \"%016" PRIx64 "\",\n", inh);
  printf("  \"cap_prm\": \"%016" PRIx64 "\",\n", prm);
  printf("  \"cap_eff\": \"%016" PRIx64 "\",\n", eff);
  printf("  \"cap_bnd\": \"%016" PRIx64 "\",\n", bnd);
  printf("  \"cap_amb\": \"%016" PRIx64 "\",\n", amb);
  printf("  \"no_new_privs\": %s,\n", nnp ? "true" : "false");
  printf("  \"at_secure\": %s\n", secure ? "true" : "false");
  printf("}\n");
  return mismatches ? 1 : code;
}

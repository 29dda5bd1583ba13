/* tests/secbits_try.c -- try to change this process's securebits and
 * keep-caps, and say what the kernel answered.  A test helper for
 * tests/system/test_security.sh; static, like the probe.
 *
 *   secbits_try OP...
 *     set=N        PR_SET_SECUREBITS N
 *     or=N         PR_SET_SECUREBITS (current | N)
 *     keepcaps=N   PR_SET_KEEPCAPS N
 *
 * N in C notation (0x10).  One line per OP, "OP ok" or "OP ERRNAME", then
 * "securebits 0xN" (the value at the end).  Exit 0, or 2 on bad usage. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>

static char const *errname(int e)
{
  static char buf[16];
  switch (e) {
    case EPERM: return "EPERM";
    case EINVAL: return "EINVAL";
  }
  snprintf(buf, sizeof buf, "errno%d", e);
  return buf;
}

int main(int argc, char **argv)
{
  int i, r, bits;
  for (i = 1; i < argc; i++) {
    char *eq = strchr(argv[i], '=');
    unsigned long n;
    if (!eq) {
      fprintf(stderr, "secbits_try: bad operation '%s'\n", argv[i]);
      return 2;
    }
    n = strtoul(eq + 1, 0, 0);
    if (!strncmp(argv[i], "set=", 4)) {
      r = prctl(PR_SET_SECUREBITS, n, 0, 0, 0);
    } else if (!strncmp(argv[i], "or=", 3)) {
      bits = prctl(PR_GET_SECUREBITS, 0, 0, 0, 0);
      r = bits < 0 ? bits : prctl(PR_SET_SECUREBITS, (unsigned long)bits | n, 0, 0, 0);
    } else if (!strncmp(argv[i], "keepcaps=", 9)) {
      r = prctl(PR_SET_KEEPCAPS, n, 0, 0, 0);
    } else {
      fprintf(stderr, "secbits_try: bad operation '%s'\n", argv[i]);
      return 2;
    }
    printf("%s %s\n", argv[i], r < 0 ? errname(errno) : "ok");
  }
  printf("securebits 0x%x\n", prctl(PR_GET_SECUREBITS, 0, 0, 0, 0));
  return 0;
}

/* tests/unit/t.h -- a TAP producer for the unit tests: each check prints
 * "ok N - what" or "not ok N - what" with the expected and actual values;
 * t_done() prints the plan and returns the exit status. */
#ifndef CAPINIT_TESTS_T_H
#define CAPINIT_TESTS_T_H

#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

static unsigned t_n, t_failed;

__attribute__((format(printf, 2, 3)))
static int t_ok(int cond, char const *fmt, ...)
{
  va_list ap;
  t_n++;
  printf("%sok %u - ", cond ? "" : "not ", t_n);
  va_start(ap, fmt);
  vprintf(fmt, ap);
  va_end(ap);
  putchar('\n');
  if (!cond) t_failed++;
  return cond;
}

/* got may be an array: through a function, its address is no constant */
static inline char const *t_str(char const *s) { return s; }
#define t_streq(got, want, ...) \
  (t_ok(t_str(got) && !strcmp(t_str(got), (want)), __VA_ARGS__) ? 1 : \
   (printf("#   want: '%s'\n#    got: '%s'\n", (want), t_str(got) ? t_str(got) : "(null)"), 0))

#define t_ueq(got, want, ...) \
  (t_ok((uint64_t)(got) == (uint64_t)(want), __VA_ARGS__) ? 1 : \
   (printf("#   want: %" PRIu64 " (0x%" PRIx64 ")\n#    got: %" PRIu64 " (0x%" PRIx64 ")\n", \
           (uint64_t)(want), (uint64_t)(want), (uint64_t)(got), (uint64_t)(got)), 0))

static int t_done(void)
{
  printf("1..%u\n", t_n);
  return t_failed ? 1 : 0;
}

#endif

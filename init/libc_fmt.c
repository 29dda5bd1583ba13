/* init/libc_fmt.c -- the printf family's libc names, for capinit's link
 * only: conf/fmt.c's formatter under the names capinit's code and
 * libcap's cap_text.o (sprintf, asprintf) call.  In a static link a
 * symbol defined by an object is never looked for in libc.a, so musl's
 * printf engine (vfprintf.lo, and with it libgcc's long double
 * arithmetic) is not linked at all; the link's --wrap=vfprintf (Makefile)
 * fails it if anything pulls it in again.  capctl, capexec, the tests and
 * the sanitizer build (whose runtime intercepts these names) keep their
 * libc's.  docs/decisions.md has the measured sizes. */
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>

#include "../conf/fmt.h"

int vsnprintf(char *restrict buf, size_t size, char const *restrict fmt, va_list ap)
{
  return fmt_vsnprintf(buf, size, fmt, ap);
}

int snprintf(char *restrict buf, size_t size, char const *restrict fmt, ...)
{
  va_list ap;
  va_start(ap, fmt);
  int r = fmt_vsnprintf(buf, size, fmt, ap);
  va_end(ap);
  return r;
}

/* as musl's: a bound no output reaches (over INT_MAX is an error anyway) */
int vsprintf(char *restrict buf, char const *restrict fmt, va_list ap)
{
  return fmt_vsnprintf(buf, (size_t)INT_MAX + 1, fmt, ap);
}

int sprintf(char *restrict buf, char const *restrict fmt, ...)
{
  va_list ap;
  va_start(ap, fmt);
  int r = vsprintf(buf, fmt, ap);
  va_end(ap);
  return r;
}

int vasprintf(char **res, char const *fmt, va_list ap)
{
  return fmt_vasprintf(res, fmt, ap);
}

int asprintf(char **res, char const *fmt, ...)
{
  va_list ap;
  va_start(ap, fmt);
  int r = fmt_vasprintf(res, fmt, ap);
  va_end(ap);
  return r;
}

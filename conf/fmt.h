/* conf/fmt.h -- snprintf's semantics for the conversions capinit uses,
 * without a libc's printf engine.
 *
 * musl's engine (vfprintf) formats floating point: with it comes, on
 * arm64, libgcc's 128-bit long double arithmetic, about 20 KB of a 200 KB
 * budget for conversions capinit never makes.  capinit's link gives these
 * functions libc's names (init/libc_fmt.c); capctl, capexec and the tests
 * keep their libc's, and the unit test compares the two (test_fmt.c).
 *
 * Understood: the flags - 0 + space #, a width and a precision (digits or
 * `*`), the lengths hh h l ll z j t, and the conversions d i u x X o c s p
 * and %%.  %s of NULL prints "(null)" (cut by a precision) and %p prints
 * as %#lx (NULL as "0"), both as musl does.  Anything else (floating
 * point, %n, %lc, %ls, %Ld, an unknown letter) is copied to the output as
 * written, the whole specification: a floating-point conversion's argument
 * is consumed (so the ones after it still print), %n's pointer too (never
 * written through); for anything else no argument is consumed.  A
 * specification cut by the end of the format is copied as well.
 *
 * Return values as C11's: the length the whole output has (without the
 * NUL), whatever size is; with size > 0 the output is cut to size - 1
 * bytes and ends with a NUL.  A length over INT_MAX is -1, EOVERFLOW. */
#ifndef CAPINIT_CONF_FMT_H
#define CAPINIT_CONF_FMT_H

#include <stdarg.h>
#include <stddef.h>

int fmt_vsnprintf(char *buf, size_t size, char const *fmt, va_list ap)
  __attribute__((format(printf, 3, 0)));
int fmt_snprintf(char *buf, size_t size, char const *fmt, ...)
  __attribute__((format(printf, 3, 4)));
/* vasprintf(3): *res is a new string (malloc); or -1, *res unchanged */
int fmt_vasprintf(char **res, char const *fmt, va_list ap)
  __attribute__((format(printf, 2, 0)));

#endif

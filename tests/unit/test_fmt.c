/* Unit tests: conf/fmt.c, capinit's formatter, against the libc's
 * vsnprintf: musl's here (this binary has no init/libc_fmt.c: the two are
 * independent implementations), glibc's in the sanitizer build.
 *
 *   1. every conversion, flag, width, precision and length capinit's
 *      format strings use, and their extremes (INT_MIN, LLONG_MIN,
 *      ULLONG_MAX, SIZE_MAX, 0 with precision 0, a string that does not
 *      end within the precision), each compared exactly -- text and
 *      return value -- at every buffer size from 0 to its length + 1,
 *      the bytes past the size checked untouched;
 *   2. 20000 random specifications (fixed seed), compared the same way,
 *      and the control: a known difference is seen;
 *   3. what fmt.h promises where libcs differ or C says nothing: NULL for
 *      %s and %p, unsupported specifications copied as written (the
 *      arguments after a floating-point one still right), EOVERFLOW, and
 *      vasprintf. */
#include <errno.h>
#include <limits.h>
#include <stdint.h>
#include <stdlib.h>
#include <sys/types.h>

#include "../../conf/fmt.h"
#include "t.h"

#define BUF 600
#define GUARD '\x7f'  /* what no formatting writes */

static unsigned mismatches;  /* printed in full only for the first few */

/* Both formatters into size bytes of a guarded buffer: 0 if the texts,
 * the return values and the untouched guard bytes all agree. */
static int compare_at(size_t size, char const *fmt, va_list ap)
{
  char want[BUF], got[BUF];
  va_list a, b;
  memset(want, GUARD, sizeof want);
  memset(got, GUARD, sizeof got);
  va_copy(a, ap);
  va_copy(b, ap);
  int wn = vsnprintf(want, size, fmt, a);
  int gn = fmt_vsnprintf(got, size, fmt, b);
  va_end(a);
  va_end(b);
  if (wn == gn && !memcmp(want, got, sizeof want)) return 0;
  if (++mismatches <= 10)
    printf("# '%s' size %zu: want %d '%.*s', got %d '%.*s'\n", fmt, size, wn,
           (int)(size ? strnlen(want, size) : 0), want, gn, (int)(size ? strnlen(got, size) : 0), got);
  return 1;
}

/* Every size from 0 to the output's length + 1. */
static int compare_all(char const *fmt, va_list ap)
{
  va_list a;
  va_copy(a, ap);
  int n = vsnprintf(NULL, 0, fmt, a);
  va_end(a);
  if (n < 0 || n + 2 > BUF) {
    mismatches++;
    printf("# '%s': the libc's length %d, none this test compares\n", fmt, n);
    return 1;
  }
  int bad = 0;
  for (size_t size = 0; size <= (size_t)n + 1 && !bad; size++) bad = compare_at(size, fmt, ap);
  return bad;
}

__attribute__((format(printf, 1, 2)))
static int differ(char const *fmt, ...)
{
  va_list ap;
  va_start(ap, fmt);
  int bad = compare_all(fmt, ap);
  va_end(ap);
  return bad;
}

#define SAME(...) t_ok(!differ(__VA_ARGS__), "same as the libc: %s", #__VA_ARGS__)

/* the conversions as capinit's code writes them (grep of its sources) */
static void as_used(void)
{
  SAME("%s: %s", "capinit", "a message");
  SAME("%u %d %zu %lu %ld %llu %lld %zd", 4000000000u, -5, (size_t)7, 8ul, -9l, 10ull, -11ll, (ssize_t)-12);
  SAME("%.*s|%.3s|%.64s", 2, "abcdef", "abcdef", "short");
  SAME("0x%02x %x %04x %016llx", 7u, 255u, 0xabcu, 0x1234abcdull);
  SAME("%04lld-%02lld-%02lldT%02lld:%02lld:%02lld.%03ldZ", 2026ll, 12ll, 6ll, 1ll, 2ll, 3ll, 45l);
  SAME("set umask %04o", 022u);
  SAME("runlevel %c: x", 'S');
  SAME("%" PRIu64 "\t%" PRIx64, UINT64_MAX, (uint64_t)0xdeadbeef);
  SAME("100%% sure, %s", "really");
}

static void extremes(void)
{
  SAME("%d %d %i", INT_MIN, INT_MAX, 0);
  SAME("%lld %lld", LLONG_MIN, LLONG_MAX);
  SAME("%llu %llx %llo %llX", ULLONG_MAX, ULLONG_MAX, ULLONG_MAX, ULLONG_MAX);
  SAME("%zu %zx %zd", SIZE_MAX, SIZE_MAX, (ssize_t)-1);
  SAME("%ld %lu %lx", LONG_MIN, ULONG_MAX, ULONG_MAX);
  SAME("%jd %ju %td", INTMAX_MIN, UINTMAX_MAX, (ptrdiff_t)PTRDIFF_MIN);
  SAME("%hhd %hhu %hd %hu %hhx", (signed char)SCHAR_MIN, (unsigned char)UCHAR_MAX, (short)SHRT_MIN,
       (unsigned short)USHRT_MAX, (unsigned char)UCHAR_MAX);
  SAME("[%.0d] [%.0u] [%.0x] [%.0o] [%#.0o] [%5.0d] [%-3.0x]", 0, 0u, 0u, 0u, 0u, 0, 0u);
  SAME("[%.0d] [%.1d] [%.0s]", 1, 0, "x");
  SAME("[%s]", "");
}

/* flags that others override (`0` with `-` or a precision, space with
 * `+`) are tested on purpose: gcc's warnings about them are off here */
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wformat"
static void flags_widths(void)
{
  SAME("[%5d] [%-5d] [%05d] [%+d] [% d] [%+ d] [%-+5d] [% 05d]", 42, 42, -42, 42, 42, 42, 42, 7);
  SAME("[%#x] [%#X] [%#o] [%#08x] [%#-8o] [%#.5x] [%#x]", 255u, 255u, 8u, 255u, 8u, 1u, 0u);
  SAME("[%010.3d] [%-010d] [%.10d] [%3.1d] [%+.3d]", 5, -5, -123, 12345, 0);
  SAME("[%*d] [%-*d] [%*d] [%.*d] [%.*d] [%*.*x]", 6, 1, 6, 2, -6, 3, 4, 4, -1, 5, 8, 3, 0xau);
  SAME("[%5c] [%-5c] [%c%c]", 'x', 'y', 'a', 'b');
  SAME("[%10.4s] [%-10.2s] [%*.*s] [%.*s]", "abcdef", "abcdef", -7, 3, "abcdef", -1, "abc");
  SAME("[%p] [%20p] [%-20p] [%#p] [%020p]", (void *)1, (void *)0x1234, (void *)0x10, (void *)0xff, (void *)0xabc);
  SAME("[%hhx] [%hx] [%hho] [%hhi]", 0x1ffu, 0x1ffffu, 0777u, -129);
  SAME("[%tu] [%tx] [%zi] [%jx]", (ptrdiff_t)5, (ptrdiff_t)255, (ssize_t)-3, (uintmax_t)1 << 63);
  SAME("[%c] [%3c]", 0, 0);
}
#pragma GCC diagnostic pop

/* %.3s of a string that does not end within the precision: not read past */
static void unterminated(void)
{
  char s[3] = { 'a', 'b', 'c' };
  SAME("[%.3s] [%.2s] [%.*s]", s, s, 3, s);
}

/* ---- random specifications ------------------------------------------- */

static uint64_t seed = 0x9e3779b97f4a7c15u;

static uint64_t next(void)  /* xorshift64 */
{
  seed ^= seed << 13;
  seed ^= seed >> 7;
  seed ^= seed << 17;
  return seed;
}

static unsigned pick(unsigned n) { return (unsigned)(next() % n); }

/* values around the edges and anywhere between */
static long long random_value(void)
{
  static long long const edge[] = { 0, 1, -1, 9, 10, 255, 256, INT_MIN, INT_MAX, UINT_MAX, LLONG_MIN, LLONG_MAX };
  if (pick(3) == 0) return edge[pick(sizeof edge / sizeof edge[0])];
  long long v = (long long)(next() >> pick(64));
  return pick(2) ? v : -v;
}

/* one conversion with its length: the type its argument is passed as */
enum arg { A_INT, A_LONG, A_LLONG, A_SIZE, A_INTMAX, A_PTRDIFF, A_STR, A_PTR };
static struct { char const *spec; enum arg arg; } const conversions[] = {
  { "d", A_INT }, { "i", A_INT }, { "u", A_INT }, { "x", A_INT }, { "X", A_INT }, { "o", A_INT },
  { "hhd", A_INT }, { "hhu", A_INT }, { "hx", A_INT }, { "hd", A_INT },
  { "ld", A_LONG }, { "lu", A_LONG }, { "lx", A_LONG }, { "lo", A_LONG },
  { "lld", A_LLONG }, { "llu", A_LLONG }, { "llx", A_LLONG }, { "llX", A_LLONG }, { "llo", A_LLONG },
  { "zu", A_SIZE }, { "zd", A_SIZE }, { "zx", A_SIZE },
  { "jd", A_INTMAX }, { "ju", A_INTMAX }, { "jx", A_INTMAX },
  { "td", A_PTRDIFF }, { "ti", A_PTRDIFF },
  { "c", A_INT }, { "s", A_STR }, { "p", A_PTR },
};

/* flags, width and precision at random: digits, `*` or none.  For %p
 * neither a precision nor `+` or space, which C leaves undefined there
 * and libcs answer differently (musl pads to 16 digits, glibc signs):
 * capinit writes no such thing, nor does fmt.h promise any answer. */
static size_t random_spec(char *f, int *stars, int pointer)
{
  size_t n = 0;
  f[n++] = '[';
  f[n++] = '%';
  for (char const *fl = pointer ? "-0#" : "-0+ #"; *fl; fl++)
    if (pick(4) == 0) f[n++] = *fl;
  *stars = 0;
  unsigned w = pick(3), p = pointer ? 0 : pick(4);
  if (w == 1) n += (size_t)sprintf(f + n, "%u", pick(30));
  if (w == 2) { f[n++] = '*'; *stars |= 1; }
  if (p == 1) n += (size_t)sprintf(f + n, ".%u", pick(30));
  if (p == 2) { f[n++] = '.'; f[n++] = '*'; *stars |= 2; }
  if (p == 3) f[n++] = '.';
  return n;
}

/* the argument list for the stars given, then the value as type T */
#define CALL(T, v) \
  (stars == 0 ? differ(f, (T)(v)) : stars == 1 ? differ(f, w, (T)(v)) : \
   stars == 2 ? differ(f, p, (T)(v)) : differ(f, w, p, (T)(v)))

static int random_case(void)
{
  static char const *const strings[] = { "", "a", "hello", "a somewhat longer string" };
  char f[64];
  int stars;
  unsigned c = pick(sizeof conversions / sizeof conversions[0]);
  size_t n = random_spec(f, &stars, conversions[c].arg == A_PTR);
  snprintf(f + n, sizeof f - n, "%s]", conversions[c].spec);
  int w = (int)pick(60) - 30, p = (int)pick(50) - 10;
  long long v = random_value();
  switch (conversions[c].arg) {
    case A_INT: return CALL(int, v);
    case A_LONG: return CALL(long, v);
    case A_LLONG: return CALL(long long, v);
    case A_SIZE: return CALL(size_t, v);
    case A_INTMAX: return CALL(intmax_t, v);
    case A_PTRDIFF: return CALL(ptrdiff_t, v);
    case A_STR: return CALL(char const *, strings[pick(4)]);
    default: return CALL(void *, (uintptr_t)(v ? v : 1));  /* NULL: below */
  }
}

static void random_run(void)
{
  unsigned bad = 0, total = 20000;
  for (unsigned i = 0; i < total; i++) bad += (unsigned)random_case();
  t_ok(bad == 0, "%u random specifications (seed fixed) as the libc's: %u differ", total, bad);
}

/* ---- what fmt.h promises beyond the libc -------------------------------- */

static char const *fmt_of(char const *f) { return f; }  /* unchecked: on purpose */

/* The control: a case where fmt.h differs from every libc (floating
 * point) is seen as a difference, so the comparisons above can fail. */
static void control(void)
{
  unsigned before = mismatches;
  t_ok(differ("[%.1f]", 1.5) && mismatches == before + 1, "a difference is seen as one");
}

/* NULL for %s and %p: musl's answers, which fmt.h promises (glibc's,
 * in the sanitizer build, are "(nil)" and, cut, nothing) */
static void null_pointers(void)
{
  char buf[64];
  fmt_snprintf(buf, sizeof buf, "[%s] [%.2s] [%8s] [%-8s]", (char *)NULL, (char *)NULL, (char *)NULL, (char *)NULL);
  t_streq(buf, "[(null)] [(n] [  (null)] [(null)  ]", "%%s of NULL");
  fmt_snprintf(buf, sizeof buf, "[%p] [%3p] [%-3p]", (void *)0, (void *)0, (void *)0);
  t_streq(buf, "[0] [  0] [0  ]", "%%p of NULL");
}

static void unsupported(void)
{
  char buf[64];
  int n = fmt_snprintf(buf, sizeof buf, fmt_of("%.2f|%d|%Lg|%s|%q|%d"), 1.5, 7, (long double)2, "x", 8);
  t_streq(buf, "%.2f|7|%Lg|x|%q|8", "floating point copied, its argument consumed; %%q copied, none");
  t_ueq(n, strlen("%.2f|7|%Lg|x|%q|8"), "its return value");
  int sink = 5;
  fmt_snprintf(buf, sizeof buf, fmt_of("%n|%d|%ls|%lc"), &sink, 9);
  t_ok(!strcmp(buf, "%n|9|%ls|%lc") && sink == 5, "%%n copied and not written through; %%ls %%lc copied: '%s'", buf);
  n = fmt_snprintf(buf, sizeof buf, fmt_of("a%-5"), 1);
  t_ok(n == 4 && !strcmp(buf, "a%-5"), "a specification cut by the end copied: '%s'", buf);
  fmt_snprintf(buf, sizeof buf, fmt_of("[%5%]"), 1);
  t_streq(buf, "[%]", "%%%% with a width is a %%");
}

__attribute__((format(printf, 2, 3)))
static int asprintf_ours(char **res, char const *fmt, ...)
{
  va_list ap;
  va_start(ap, fmt);
  int n = fmt_vasprintf(res, fmt, ap);
  va_end(ap);
  return n;
}

static void overflow_and_alloc(void)
{
  char buf[8];
  errno = 0;
  int n = fmt_snprintf(buf, sizeof buf, "%*d%*d", INT_MAX, 1, 2, 2);
  t_ok(n == -1 && errno == EOVERFLOW, "a length over INT_MAX is -1, EOVERFLOW (%d)", n);
  t_ueq(fmt_snprintf(buf, sizeof buf, "%*d", INT_MAX, 1), INT_MAX, "INT_MAX itself is a length");
  char *s = NULL;
  n = asprintf_ours(&s, "%s-%05d", "cap", 42);
  t_ok(n == 9 && s && !strcmp(s, "cap-00042"), "vasprintf: '%s' (%d)", s ? s : "(none)", n);
  free(s);
}

int main(void)
{
  as_used();
  extremes();
  flags_widths();
  unterminated();
  random_run();
  control();
  null_pointers();
  unsupported();
  overflow_and_alloc();
  return t_done();
}

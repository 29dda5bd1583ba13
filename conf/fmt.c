/* conf/fmt.c -- see fmt.h.  The output goes through one cursor: bytes are
 * stored while they fit, and counted always, which gives snprintf's
 * return value and its truncation in one place. */
#include <errno.h>
#include <limits.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>

#include "fmt.h"

typedef struct {
  char *buf;
  size_t size;
  size_t len;  /* the whole output's, stored or not */
} out;

/* the flags, in the order of this string: bit 1 << index */
static char const flag_chars[] = "-0+ #";
enum { F_MINUS = 1, F_ZERO = 2, F_PLUS = 4, F_SPACE = 8, F_ALT = 16 };
enum { L_NONE, L_HH, L_H, L_L, L_LL, L_Z, L_J, L_T, L_BIG };

typedef struct {
  unsigned flags;
  int width;   /* >= 0 */
  int prec;    /* -1: none given */
  int len;     /* L_... */
  char conv;   /* '\0': the format ended inside the specification */
} spec;

/* How many more bytes fit before the NUL. */
static size_t room(out const *o)
{
  return o->size && o->len < o->size - 1 ? o->size - 1 - o->len : 0;
}

static void emit(out *o, char const *s, size_t n)
{
  size_t r = room(o);
  if (r) memcpy(o->buf + o->len, s, n < r ? n : r);
  o->len += n;
}

/* n copies of c: counted, not looped over, past the buffer (a width of
 * INT_MAX costs nothing) */
static void fill(out *o, char c, size_t n)
{
  size_t r = room(o);
  if (r) memset(o->buf + o->len, c, n < r ? n : r);
  o->len += n;
}

/* Digits of a width or precision; saturated at INT_MAX, which the length
 * check then refuses. */
static int read_num(char const **f)
{
  int n = 0;
  for (; **f >= '0' && **f <= '9'; (*f)++)
    n = n > (INT_MAX - 9) / 10 ? INT_MAX : n * 10 + (**f - '0');
  return n;
}

static char const *read_flags(char const *f, unsigned *flags)
{
  char const *p;
  *flags = 0;
  for (; *f && (p = strchr(flag_chars, *f)); f++) *flags |= 1u << (p - flag_chars);
  return f;
}

/* A `*` width: a negative one is the `-` flag and its absolute value. */
static char const *read_width(char const *f, spec *s, va_list *ap)
{
  if (*f != '*') {
    s->width = read_num(&f);
    return f;
  }
  int w = va_arg(*ap, int);
  if (w < 0) s->flags |= F_MINUS;
  s->width = w == INT_MIN ? INT_MAX : w < 0 ? -w : w;
  return f + 1;
}

/* A `*` precision that is negative counts as none given. */
static char const *read_prec(char const *f, spec *s, va_list *ap)
{
  s->prec = -1;
  if (*f != '.') return f;
  f++;
  if (*f != '*') {
    s->prec = read_num(&f);
    return f;
  }
  int p = va_arg(*ap, int);
  s->prec = p < 0 ? -1 : p;
  return f + 1;
}

static char const *read_len(char const *f, int *len)
{
  static char const single[] = "hlzjtL";
  static int const code[] = { L_H, L_L, L_Z, L_J, L_T, L_BIG };
  char const *p;
  *len = L_NONE;
  if ((f[0] == 'h' || f[0] == 'l') && f[1] == f[0]) {
    *len = f[0] == 'h' ? L_HH : L_LL;
    return f + 2;
  }
  if (!*f || !(p = strchr(single, *f))) return f;
  *len = code[p - single];
  return f + 1;
}

/* Reads what follows a `%`; returns where the conversion character is. */
static char const *read_spec(char const *f, spec *s, va_list *ap)
{
  f = read_flags(f, &s->flags);
  f = read_width(f, s, ap);
  f = read_prec(f, s, ap);
  f = read_len(f, &s->len);
  s->conv = *f;
  return f;
}

static uintmax_t arg_unsigned(int len, va_list *ap)
{
  switch (len) {
    case L_HH: return (unsigned char)va_arg(*ap, unsigned);
    case L_H: return (unsigned short)va_arg(*ap, unsigned);
    case L_L: return va_arg(*ap, unsigned long);
    case L_LL: return va_arg(*ap, unsigned long long);
    case L_Z: return va_arg(*ap, size_t);
    case L_J: return va_arg(*ap, uintmax_t);
    case L_T: return (size_t)va_arg(*ap, ptrdiff_t);  /* its unsigned type */
    default: return va_arg(*ap, unsigned);
  }
}

static intmax_t arg_signed(int len, va_list *ap)
{
  switch (len) {
    case L_HH: return (signed char)va_arg(*ap, int);
    case L_H: return (short)va_arg(*ap, int);
    case L_L: return va_arg(*ap, long);
    case L_LL: return va_arg(*ap, long long);
    case L_Z: return va_arg(*ap, ssize_t);  /* size_t's signed type */
    case L_J: return va_arg(*ap, intmax_t);
    case L_T: return va_arg(*ap, ptrdiff_t);
    default: return va_arg(*ap, int);
  }
}

/* v's digits, most significant first, ending at end; returns how many
 * (none for 0: the precision decides whether a 0 is printed) */
static size_t digits(char *end, uintmax_t v, unsigned base, int upper)
{
  char const *d = upper ? "0123456789ABCDEF" : "0123456789abcdef";
  size_t n = 0;
  for (; v; v /= base, n++) *--end = d[v % base];
  return n;
}

/* prefix (a sign or 0x), then at least the precision's digits, padded to
 * the width: on the left with spaces, or zeros after the prefix (the `0`
 * flag, unless `-` or a precision is given), or on the right with `-` */
static void put_number(out *o, spec const *s, uintmax_t v, char const *prefix)
{
  char buf[3 * sizeof v];  /* octal needs 22 for 64 bits */
  unsigned base = s->conv == 'o' ? 8 : s->conv == 'x' || s->conv == 'X' || s->conv == 'p' ? 16 : 10;
  size_t n = digits(buf + sizeof buf, v, base, s->conv == 'X');
  size_t prec = s->prec < 0 ? 1 : (size_t)s->prec;
  if (s->conv == 'o' && (s->flags & F_ALT) && prec <= n) prec = n + 1;  /* a leading 0 */
  size_t zeros = prec > n ? prec - n : 0, plen = strlen(prefix);
  size_t body = plen + zeros + n;
  size_t pad = (size_t)s->width > body ? (size_t)s->width - body : 0;
  if ((s->flags & (F_ZERO | F_MINUS)) == F_ZERO && s->prec < 0) {
    zeros += pad;
    pad = 0;
  }
  if (!(s->flags & F_MINUS)) fill(o, ' ', pad);
  emit(o, prefix, plen);
  fill(o, '0', zeros);
  emit(o, buf + sizeof buf - n, n);
  if (s->flags & F_MINUS) fill(o, ' ', pad);
}

static void put_integer(out *o, spec *s, va_list *ap)
{
  uintmax_t v;
  char const *prefix = "";
  if (s->conv == 'd' || s->conv == 'i') {
    intmax_t i = arg_signed(s->len, ap);
    v = i < 0 ? -(uintmax_t)i : (uintmax_t)i;
    prefix = i < 0 ? "-" : s->flags & F_PLUS ? "+" : s->flags & F_SPACE ? " " : "";
  } else if (s->conv == 'p') {
    v = (uintptr_t)va_arg(*ap, void *);
    prefix = v ? "0x" : "";
  } else {
    v = arg_unsigned(s->len, ap);
    if ((s->flags & F_ALT) && v && (s->conv == 'x' || s->conv == 'X')) prefix = s->conv == 'X' ? "0X" : "0x";
  }
  put_number(o, s, v, prefix);
}

/* text of n bytes padded to the width with spaces (`0` is for numbers) */
static void put_text(out *o, spec const *s, char const *text, size_t n)
{
  size_t pad = (size_t)s->width > n ? (size_t)s->width - n : 0;
  if (!(s->flags & F_MINUS)) fill(o, ' ', pad);
  emit(o, text, n);
  if (s->flags & F_MINUS) fill(o, ' ', pad);
}

static void put_string(out *o, spec const *s, va_list *ap)
{
  char const *str = va_arg(*ap, char const *);
  size_t n = 0;
  if (!str) str = "(null)";
  /* never past the precision: the string need not end within it */
  while ((s->prec < 0 || n < (size_t)s->prec) && str[n]) n++;
  put_text(o, s, str, n);
}

/* Whether the conversion and length go together (d i u x X o with any
 * length; c s p % with none). */
static int supported(spec const *s)
{
  if (s->conv && strchr("diuxXo", s->conv)) return s->len != L_BIG;
  return s->conv && strchr("csp%", s->conv) && s->len == L_NONE;
}

/* An unsupported specification is copied; the arguments of those whose
 * type is known are consumed, so that the following ones still print. */
static void put_unsupported(out *o, spec const *s, char const *pct, char const *end, va_list *ap)
{
  if (s->conv && strchr("aAeEfFgG", s->conv)) {
    if (s->len == L_BIG) (void)va_arg(*ap, long double);
    else (void)va_arg(*ap, double);
  } else if (s->conv == 'n') {
    (void)va_arg(*ap, void *);
  }
  emit(o, pct, (size_t)(end - pct) + (s->conv != 0));
}

/* One specification, from its `%`; returns where the format goes on. */
static char const *convert(out *o, char const *pct, va_list *ap)
{
  spec s;
  char const *end = read_spec(pct + 1, &s, ap);
  if (!supported(&s)) put_unsupported(o, &s, pct, end, ap);
  else if (s.conv == 's') put_string(o, &s, ap);
  else if (s.conv == '%') emit(o, "%", 1);
  else if (s.conv == 'c') {
    char c = (char)va_arg(*ap, int);
    put_text(o, &s, &c, 1);
  } else put_integer(o, &s, ap);
  return s.conv ? end + 1 : end;
}

int fmt_vsnprintf(char *buf, size_t size, char const *fmt, va_list ap)
{
  out o = { buf, size, 0 };
  va_list args;  /* a copy: its address can be passed on, on every ABI */
  va_copy(args, ap);
  while (*fmt) {
    char const *pct = strchr(fmt, '%');
    size_t n = pct ? (size_t)(pct - fmt) : strlen(fmt);
    emit(&o, fmt, n);
    fmt = pct ? convert(&o, pct, &args) : fmt + n;
  }
  va_end(args);
  if (size) buf[o.len < size ? o.len : size - 1] = '\0';
  if (o.len > INT_MAX) {
    errno = EOVERFLOW;
    return -1;
  }
  return (int)o.len;
}

int fmt_snprintf(char *buf, size_t size, char const *fmt, ...)
{
  va_list ap;
  va_start(ap, fmt);
  int r = fmt_vsnprintf(buf, size, fmt, ap);
  va_end(ap);
  return r;
}

int fmt_vasprintf(char **res, char const *fmt, va_list ap)
{
  va_list again;
  va_copy(again, ap);
  int n = fmt_vsnprintf(NULL, 0, fmt, ap);
  char *s = n < 0 ? NULL : malloc((size_t)n + 1);
  if (s) fmt_vsnprintf(s, (size_t)n + 1, fmt, again);
  va_end(again);
  if (!s) return -1;
  *res = s;
  return n;
}

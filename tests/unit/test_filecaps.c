/* Unit tests: the filecaps manifest with garbage in it (conf/filecaps.c).
 *
 * Each case is a manifest with bad lines among good ones: the exact
 * problems it must produce ("LINE: message"), and the entries it must keep
 * ("LINE PATH PRM INH EFF": only the good lines, a bad line is skipped
 * whole and names nothing).  Its twin, the same manifest with the bad
 * lines corrected, must parse with no problem: the refusal comes from the
 * garbage, not from the fixture.  Then the file itself: too large, a
 * directory, a FIFO, missing (filecaps_load).  And capinit's own reading
 * of setcap's capability text and of the kernel's capability names,
 * against libcap's (cap_from_text, cap_to_name): the independent tool. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/capability.h>
#include <sys/stat.h>
#include <unistd.h>

#include "../../conf/diag.h"
#include "../../conf/filecaps.h"
#include "../../conf/names.h"
#include "../../conf/parse.h"
#include "t.h"

/* A string literal and its length, NUL bytes included. */
#define TEXT(s) s, sizeof(s) - 1

#define GOOD_A "/bin/a cap_net_raw+ep\n"
#define GOOD_B "/bin/b =\n"
#define KEPT_AB "1 /bin/a 2000 0 1\n3 /bin/b 0 0 0\n"

typedef struct manifest_s {
  char const *what;
  char const *text;
  size_t len;
  char const *want;        /* every problem, in order: "LINE: message\n" */
  char const *kept;        /* every entry kept: "LINE PATH PRM INH EFF\n" */
  char const *twin;        /* the bad lines corrected */
} manifest;

static manifest const cases[] = {
  { "binary bytes", TEXT(GOOD_A "\x01\x02\xff\xfe binary\n" GOOD_B),
    "2: control character in line (binary file?)\n", KEPT_AB, GOOD_A "/bin/x cap_chown+p\n" GOOD_B },
  { "a NUL byte in a capability text", TEXT(GOOD_A "/bin/x cap_net\0_raw+ep\n" GOOD_B),
    "2: control character in line (binary file?)\n", KEPT_AB, GOOD_A "/bin/x cap_net_raw+ep\n" GOOD_B },
  { "a carriage return (CRLF line)", TEXT(GOOD_A "/bin/x cap_chown+p\r\n" GOOD_B),
    "2: control character in line (binary file?)\n", KEPT_AB, GOOD_A "/bin/x cap_chown+p\n" GOOD_B },
  { "a relative path", TEXT(GOOD_A "bin/ping cap_net_raw+ep\n" GOOD_B),
    "2: 'bin/ping': expected an absolute path\n", KEPT_AB, GOOD_A "/bin/ping cap_net_raw+ep\n" GOOD_B },
  { "'..' inside a path", TEXT(GOOD_A "/usr/../bin/ping cap_net_raw+ep\n" GOOD_B),
    "2: '/usr/../bin/ping': '..' is not allowed in a path\n", KEPT_AB, GOOD_A "/bin/ping cap_net_raw+ep\n" GOOD_B },
  { "'..' at the end of a path", TEXT(GOOD_A "/usr/.. cap_net_raw+ep\n" GOOD_B),
    "2: '/usr/..': '..' is not allowed in a path\n", KEPT_AB, GOOD_A "/usr cap_net_raw+ep\n" GOOD_B },
  { "a path alone", TEXT(GOOD_A "/bin/ping\n" GOOD_B),
    "2: expected 'PATH CAPTEXT' (as setcap: cap_net_raw+ep, or = for none)\n", KEPT_AB,
    GOOD_A "/bin/ping =\n" GOOD_B },
  { "two words after the path", TEXT(GOOD_A "/bin/ping cap_net_raw+ep # ping\n" GOOD_B),
    "2: expected one capability text after the path (as setcap: cap_net_raw+ep)\n", KEPT_AB,
    GOOD_A "/bin/ping cap_net_raw+ep\n" GOOD_B },
  { "an unknown capability", TEXT(GOOD_A "/bin/ping cap_net_foo+ep\n" GOOD_B),
    "2: invalid capability text 'cap_net_foo+ep' (as setcap: cap_net_raw+ep)\n", KEPT_AB,
    GOOD_A "/bin/ping cap_net_raw+ep\n" GOOD_B },
  { "capability text garbage", TEXT(GOOD_A "/bin/ping +-=+,,\n" GOOD_B),
    "2: invalid capability text '+-=+,,' (as setcap: cap_net_raw+ep)\n", KEPT_AB,
    GOOD_A "/bin/ping cap_net_raw+p\n" GOOD_B },
  { "an effective flag not covering every capability", TEXT(GOOD_A "/bin/ping cap_net_raw+e\n" GOOD_B),
    "2: 'cap_net_raw+e': the effective flag is one bit for a file: it must cover all its capabilities or none\n",
    KEPT_AB, GOOD_A "/bin/ping cap_net_raw+ep\n" GOOD_B },
  { "the same path twice", TEXT(GOOD_A "/bin/a cap_chown+p\n" GOOD_B),
    "2: '/bin/a' is already listed on line 1\n", KEPT_AB, GOOD_A "/bin/c cap_chown+p\n" GOOD_B },
  { "every kind at once", TEXT("\x7f\n" GOOD_A "x y\n" GOOD_B "/bin/z\n/bin/q cap_nothing+p\n"),
    "1: control character in line (binary file?)\n"
    "3: 'x': expected an absolute path\n"
    "5: expected 'PATH CAPTEXT' (as setcap: cap_net_raw+ep, or = for none)\n"
    "6: invalid capability text 'cap_nothing+p' (as setcap: cap_net_raw+ep)\n",
    "2 /bin/a 2000 0 1\n4 /bin/b 0 0 0\n",
    "# x\n" GOOD_A "/x =\n" GOOD_B "/bin/z =\n/bin/q cap_chown+p\n" },
  { "no newline at the end, blanks and tabs around", TEXT(" \t/bin/a \t cap_net_raw+ep \t\n\n/bin/b =  "),
    "", KEPT_AB, GOOD_A "\n" GOOD_B },
  { "comments and blank lines only", TEXT("# nothing\n\n   \n\t# indented\n"), "", "",
    "# nothing\n" },
  { "an empty manifest", TEXT(""), "", "", "" },
};

static void bail(char const *what, char const *path)
{
  printf("Bail out! %s %s: %s\n", what, path, strerror(errno));
  exit(1);
}

static char *render_diags(diag_list const *l)
{
  char *out = 0;
  size_t len = 0, i;
  FILE *f = open_memstream(&out, &len);
  if (!f) bail("open_memstream", "");
  for (i = 0; i < l->n; i++) fprintf(f, "%u: %s\n", l->v[i].line, l->v[i].text);
  fclose(f);
  return out;
}

static char *render_kept(filecaps const *fc)
{
  char *out = 0;
  size_t len = 0, i;
  FILE *f = open_memstream(&out, &len);
  if (!f) bail("open_memstream", "");
  for (i = 0; i < fc->n; i++)
    fprintf(f, "%u %s %llx %llx %d\n", fc->v[i].line, fc->v[i].path, (unsigned long long)fc->v[i].prm,
            (unsigned long long)fc->v[i].inh, fc->v[i].eff);
  fclose(f);
  return out;
}

static void check_case(manifest const *c)
{
  diag_list d = { 0, 0, 0 };
  filecaps fc = { 0, 0, 0, 0 };
  unsigned errors = filecaps_parse(&d, "filecaps", c->text, c->len, &fc);
  char *got = render_diags(&d), *kept = render_kept(&fc);
  size_t i, nwant = 0;
  for (i = 0; c->want[i]; i++) nwant += c->want[i] == '\n';
  t_streq(got, c->want, "%s: the problems, with their lines", c->what);
  t_ueq(errors, nwant, "%s: %zu errors counted", c->what, nwant);
  t_streq(kept, c->kept, "%s: the good lines are kept, the bad ones skipped whole", c->what);
  for (i = 0; i < fc.n; i++) {
    unsigned char x[20];
    if (filecap_xattr(&fc.v[i], x) != 20 || x[0] != fc.v[i].eff || x[1] || x[2] || x[3] != 2) break;
  }
  t_ok(i == fc.n, "%s: each entry kept gives a 20-byte revision 2 xattr", c->what);
  free(got);
  free(kept);
  filecaps_free(&fc);
  diag_free(&d);

  errors = filecaps_parse(&d, "filecaps", c->twin, strlen(c->twin), &fc);
  got = render_diags(&d);
  t_streq(got, "", "%s: its twin, corrected, parses with no problem", c->what);
  t_ueq(errors, 0, "%s: its twin has 0 errors", c->what);
  free(got);
  filecaps_free(&fc);
  diag_free(&d);
}

/* A valid path on a bad line is remembered (capinit refuses the services
 * it is the command of); a path listed twice keeps its first line and is
 * not refused; a line without a usable path names nothing. */
static void check_refused(void)
{
  static char const text[] =
    "/bin/a cap_net_raw+ep\n"
    "/bin/b cap_bogus+ep\n"
    "/bin/b cap_net_raw+e\n"
    "/bin/c cap_net_raw+ep extra\n"
    "/bin/a cap_chown+p\n"
    "bin/d cap_net_raw+ep\n"
    "/bin/../e cap_net_raw+ep\n"
    "/bin/f\n";
  diag_list d = { 0, 0, 0 };
  filecaps fc = { 0, 0, 0, 0 };
  char buf[256] = "", *names = buf;
  size_t i;
  unsigned errors = filecaps_parse(&d, "filecaps", text, sizeof text - 1, &fc);
  for (i = 0; i < fc.nrefused; i++) {
    strcat(names, i ? " " : "");
    strcat(names, fc.refused[i]);
  }
  t_ueq(errors, 7, "refusals: 7 bad lines");
  t_streq(names, "/bin/b /bin/c /bin/f", "refusals: the valid paths of lines with a bad or no capability text, once each");
  t_ok(fc.n == 1 && !strcmp(fc.v[0].path, "/bin/a") && fc.v[0].line == 1,
       "... /bin/a, listed again, keeps its first line and is not refused");
  filecaps_free(&fc);
  t_ok(fc.nrefused == 0 && !fc.refused, "... filecaps_free() empties the list");
  diag_free(&d);
}

/* After CONF_DIAG_MAX + 1 errors the parser stops: the rest is not read. */
static void check_too_many(void)
{
  size_t n = CONF_DIAG_MAX + 5, i;
  char *buf = malloc(32 * (n + 2)), *p = buf;
  diag_list d = { 0, 0, 0 };
  filecaps fc = { 0, 0, 0, 0 };
  unsigned errors;
  if (!buf) bail("malloc", "");
  p += sprintf(p, "%s", GOOD_A);
  for (i = 0; i < n; i++) p += sprintf(p, "garbage %zu\n", i);
  p += sprintf(p, "%s", GOOD_B);
  errors = filecaps_parse(&d, "filecaps", buf, (size_t)(p - buf), &fc);
  t_ueq(errors, CONF_DIAG_MAX + 1, "%zu garbage lines: the parser stops after %u errors", n, CONF_DIAG_MAX + 1);
  t_ueq(fc.n, 1, "... the good line before them is kept, the one after them is not read");
  t_ok(d.n == CONF_DIAG_MAX + 2 && d.v[d.n - 2].line == CONF_DIAG_MAX + 2,
       "... each error reported with its line (the last on line %u)", d.n > 1 ? d.v[d.n - 2].line : 0);
  t_ok(d.n == CONF_DIAG_MAX + 2 && d.v[d.n - 1].line == CONF_DIAG_MAX + 2 &&
       !strcmp(d.v[d.n - 1].text, "too many problems: the rest of this file is not read"),
       "... then that the rest is not read (as fstab and service files say)");
  free(buf);
  filecaps_free(&fc);
  diag_free(&d);
}

static void check_long_line(void)
{
  size_t n = CONF_LINE_MAX + 1;
  char *buf = malloc(n + 64);
  diag_list d = { 0, 0, 0 };
  filecaps fc = { 0, 0, 0, 0 };
  char *got;
  if (!buf) bail("malloc", "");
  memcpy(buf, "/bin/", 5);
  memset(buf + 5, 'x', n - 5);
  memcpy(buf + n, "\n" GOOD_B, sizeof("\n" GOOD_B) - 1);
  filecaps_parse(&d, "filecaps", buf, n + sizeof("\n" GOOD_B) - 1, &fc);
  got = render_diags(&d);
  t_streq(got, "1: line too long\n", "a line of %zu bytes: too long", n);
  t_ok(fc.n == 1 && !strcmp(fc.v[0].path, "/bin/b"), "... the next line is kept");
  free(got);
  free(buf);
  filecaps_free(&fc);
  diag_free(&d);
}

/* The file itself, through filecaps_load, in a fresh directory. */
static void check_files(void)
{
  char dir[] = "/tmp/capinit-test.XXXXXX", path[128];
  diag_list d = { 0, 0, 0 };
  filecaps fc = { 0, 0, 0, 0 };
  char *got, *buf;
  int fd, r;
  if (!mkdtemp(dir)) bail("mkdtemp", dir);

  snprintf(path, sizeof path, "%s/big", dir);
  buf = malloc(CONF_FILE_MAX + 1);
  if (!buf) bail("malloc", "");
  memset(buf, '#', CONF_FILE_MAX + 1);
  memcpy(buf, GOOD_A, sizeof GOOD_A - 1);
  fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
  if (fd < 0 || write(fd, buf, CONF_FILE_MAX + 1) != CONF_FILE_MAX + 1 || close(fd) < 0) bail("write", path);
  free(buf);
  r = filecaps_load(&d, path, &fc);
  got = render_diags(&d);
  t_streq(got, "0: file too large (1048577 bytes; at most 1048576)\n", "a manifest over 1 MiB: refused whole");
  t_ok(r < 0 && fc.n == 0, "... nothing kept, even its good first line");
  free(got);
  diag_free(&d);
  filecaps_free(&fc);
  unlink(path);

  snprintf(path, sizeof path, "%s/fifo", dir);
  if (mkfifo(path, 0644) < 0) bail("mkfifo", path);
  r = filecaps_load(&d, path, &fc);
  got = render_diags(&d);
  t_streq(got, "0: not a regular file\n", "a FIFO: refused without blocking");
  t_ok(r < 0 && fc.n == 0, "... nothing kept");
  free(got);
  diag_free(&d);
  unlink(path);

  r = filecaps_load(&d, dir, &fc);
  got = render_diags(&d);
  t_streq(got, "0: is a directory, not a file\n", "a directory: refused");
  free(got);
  diag_free(&d);

  snprintf(path, sizeof path, "%s/missing", dir);
  r = filecaps_load(&d, path, &fc);
  got = render_diags(&d);
  t_streq(got, "0: unable to open: No such file or directory\n", "a missing manifest: reported");
  t_ok(r < 0 && fc.n == 0, "... nothing kept");
  free(got);
  diag_free(&d);

  snprintf(path, sizeof path, "%s/ok", dir);
  fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
  if (fd < 0 || write(fd, GOOD_A "\n" GOOD_B, sizeof(GOOD_A "\n" GOOD_B) - 1) < 0 || close(fd) < 0) bail("write", path);
  r = filecaps_load(&d, path, &fc);
  t_ok(r == 0 && d.n == 0 && fc.n == 2, "control: a good manifest file loads (2 entries, no problem)");
  diag_free(&d);
  filecaps_free(&fc);
  unlink(path);
  rmdir(dir);
}

/* libcap's flags of a text as "PRM INH EFF" (EFF: the effective set is
 * all of the permitted and inheritable ones, or empty), or "invalid" */
static void libcap_reading(char const *text, char *out, size_t len)
{
  uint64_t f[3] = { 0, 0, 0 };
  cap_flag_t const which[3] = { CAP_PERMITTED, CAP_INHERITABLE, CAP_EFFECTIVE };
  cap_t c = cap_from_text(text);
  unsigned i, k;
  if (!c) {
    snprintf(out, len, "invalid");
    return;
  }
  for (k = 0; k < 3; k++)
    for (i = 0; i < 64; i++) {
      cap_flag_value_t v = CAP_CLEAR;
      if (cap_get_flag(c, (cap_value_t)i, which[k], &v) < 0) break;
      if (v == CAP_SET) f[k] |= (uint64_t)1 << i;
    }
  cap_free(c);
  if (f[2] && f[2] != (f[0] | f[1])) snprintf(out, len, "invalid");
  else snprintf(out, len, "%llx %llx %d", (unsigned long long)f[0], (unsigned long long)f[1], f[2] != 0);
}

static void ours(char const *text, char *out, size_t len)
{
  char buf[256];
  diag_list d = { 0, 0, 0 };
  filecaps fc = { 0, 0, 0, 0 };
  int n = snprintf(buf, sizeof buf, "/x %s\n", text);
  if (filecaps_parse(&d, "t", buf, (size_t)n, &fc) || fc.n != 1) snprintf(out, len, "invalid");
  else snprintf(out, len, "%llx %llx %d", (unsigned long long)fc.v[0].prm, (unsigned long long)fc.v[0].inh, fc.v[0].eff);
  filecaps_free(&fc);
  diag_free(&d);
}

static void check_against_libcap(void)
{
  /* one word each: the manifest takes one text after the path */
  static char const *const texts[] = {
    "cap_net_raw+ep", "=", "cap_chown+p", "cap_chown,cap_fowner=ep", "CAP_SYS_ADMIN+ip", "all=p", "all=ep",
    "cap_net_raw=eip", "cap_net_raw=eip-e", "cap_setuid,cap_setgid+pi", "cap_net_raw+p-p", "cap_net_raw=",
    "=p", "cap_net_bind_service+eip", "cap_bpf,cap_perfmon+ep", "cap_checkpoint_restore+p",
    "cap_net_raw+ep", "cap_net_raw+e", "cap_net_raw", "+ep", "cap_net_foo+ep", "+-=+,,", "cap_net_raw+x",
    "cap_net_raw,+p", "cap_net_raw+", "cap_net_raw-",
  };
  char want[64], got[64], name[64];
  size_t i;
  unsigned c;
  for (i = 0; i < sizeof texts / sizeof *texts; i++) {
    libcap_reading(texts[i], want, sizeof want);
    ours(texts[i], got, sizeof got);
    t_streq(got, want, "'%s' reads as libcap reads it (%s)", texts[i], want);
  }
  t_ok(cap_names_n == CAP_LAST_CAP + 1, "the table's names: 0 to CAP_LAST_CAP (%d) of the kernel headers", CAP_LAST_CAP);
  for (c = 0; c < cap_names_n; c++) {
    char *lib = cap_to_name((cap_value_t)c);
    unsigned back = 99;
    t_streq(cap_name(c, name, sizeof name), lib, "capability %u is named as libcap names it", c);
    t_ok(cap_from_text_name(lib, &back) == 0 && back == c, "%s reads back as %u", lib, c);
    cap_free(lib);
  }
}

int main(void)
{
  size_t i;
  check_against_libcap();
  for (i = 0; i < sizeof cases / sizeof cases[0]; i++) check_case(&cases[i]);
  check_refused();
  check_too_many();
  check_long_line();
  check_files();
  return t_done();
}

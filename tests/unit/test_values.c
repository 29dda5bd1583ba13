/* Unit tests: value syntaxes and vocabularies (conf/values.c, conf/names.c). */
#include <signal.h>
#include <stdlib.h>
#include <sys/capability.h>
#include <sys/resource.h>

#include "../../conf/names.h"
#include "../../conf/svc.h"
#include "../../conf/values.h"
#include "t.h"

static void durations(void)
{
  static struct { char const *in; long ms; } const ok[] = {
    { "0", 0 }, { "250ms", 250 }, { "10s", 10000 }, { "2m", 120000 },
    { "1h", 3600000 }, { "24h", 86400000 }, { "0s", 0 },
  };
  static char const *const bad[] = {
    "", "5", "10 s", "-1s", "1.5s", "10sec", "s", "25h", "99999999999999999999999ms", "1d",
  };
  size_t i;
  for (i = 0; i < sizeof ok / sizeof ok[0]; i++) {
    uint32_t ms = 12345;
    char const *err = 0;
    int r = value_duration(ok[i].in, &ms, &err);
    t_ok(r == 0 && ms == (uint32_t)ok[i].ms, "duration '%s' = %ld ms (got %d, %u)", ok[i].in, ok[i].ms, r, ms);
  }
  for (i = 0; i < sizeof bad / sizeof bad[0]; i++) {
    uint32_t ms = 7;
    char const *err = 0;
    int r = value_duration(bad[i], &ms, &err);
    t_ok(r == -1 && err && ms == 7, "duration '%s' refused (%s)", bad[i], err ? err : "no message");
  }
}

static void argv_split(void)
{
  static struct { char const *in; char const *want[6]; } const ok[] = {
    { "/bin/true", { "/bin/true" } },
    { "  /bin/echo  a   b ", { "/bin/echo", "a", "b" } },
    { "/bin/echo \"a b\" c", { "/bin/echo", "a b", "c" } },
    { "/bin/echo \"\" x", { "/bin/echo", "", "x" } },
    { "/bin/echo a\"b c\"d", { "/bin/echo", "ab cd" } },
    { "/bin/echo \"say \\\"hi\\\"\"", { "/bin/echo", "say \"hi\"" } },
    { "/bin/echo \\\\ \\n", { "/bin/echo", "\\", "\\n" } },
    { "/bin/sh\t-c\t\"exit 3\"", { "/bin/sh", "-c", "exit 3" } },
  };
  static struct { char const *in, *err; } const bad[] = {
    { "", "empty command" },
    { "   ", "empty command" },
    { "bin/true", "the program must be an absolute path (there is no PATH search)" },
    { "true x", "the program must be an absolute path (there is no PATH search)" },
    { "/bin/echo \"abc", "unterminated quote" },
    { "\"\" x", "the program must be an absolute path (there is no PATH search)" },
  };
  size_t i, j;
  for (i = 0; i < sizeof ok / sizeof ok[0]; i++) {
    char const *err = 0;
    char **v = value_argv(ok[i].in, &err);
    int same = v != 0;
    for (j = 0; same && j < 6; j++) {
      if (!ok[i].want[j]) { same = !v[j]; break; }
      same = v[j] && !strcmp(v[j], ok[i].want[j]);
    }
    t_ok(same, "argv of [%s] (%zu words)", ok[i].in, v ? argv_count(v) : 0);
    free(v);
  }
  for (i = 0; i < sizeof bad / sizeof bad[0]; i++) {
    char const *err = 0;
    char **v = value_argv(bad[i].in, &err);
    t_ok(!v && err && !strcmp(err, bad[i].err), "argv of [%s] refused: %s", bad[i].in, err ? err : "-");
    free(v);
  }
}

static void sizes_and_modes(void)
{
  uint64_t x = 0;
  unsigned u = 0;
  char const *err;
  t_ok(value_size("4096", 1, &x, &err) == 0 && x == 4096, "size 4096");
  t_ok(value_size("8K", 1, &x, &err) == 0 && x == 8192, "size 8K = 8192");
  t_ok(value_size("2M", 1, &x, &err) == 0 && x == 2097152, "size 2M");
  t_ok(value_size("1G", 1, &x, &err) == 0 && x == 1073741824, "size 1G");
  t_ok(value_size("8K", 0, &x, &err) == -1, "count 8K refused");
  t_ok(value_size("8k", 1, &x, &err) == -1, "size 8k (lower case) refused");
  t_ok(value_size("18446744073709551616", 1, &x, &err) == -1, "size 2^64 refused");
  t_ok(value_size("17179869184G", 1, &x, &err) == -1, "size overflow by suffix refused");
  t_ok(value_umask("0022", &u, &err) == 0 && u == 022, "umask 0022");
  t_ok(value_umask("077", &u, &err) == 0 && u == 077, "umask 077");
  t_ok(value_umask("0", &u, &err) == 0 && u == 0, "umask 0");
  t_ok(value_umask("0800", &u, &err) == -1, "umask 0800 refused");
  t_ok(value_umask("01777", &u, &err) == -1, "umask 01777 refused");
  t_ok(value_umask("00022", &u, &err) == -1, "umask of 5 digits refused");
  uint32_t id = 0;
  t_ok(value_id("4294967294", &id) == 0 && id == 4294967294u, "id 4294967294");
  t_ok(value_id("4294967295", &id) == -1, "id -1 (4294967295) refused");
  t_ok(value_id("12a", &id) == -1, "id 12a refused");
  int b = 5;
  t_ok(value_bool("yes", &b) == 0 && b == 1, "yes");
  t_ok(value_bool("no", &b) == 0 && b == 0, "no");
  t_ok(value_bool("true", &b) == -1, "true refused (yes|no only)");
}

static void vocabularies(void)
{
  unsigned c = 99;
  char buf[512];
  t_ok(cap_from_text_name("cap_net_raw", &c) == 0 && c == CAP_NET_RAW, "cap_net_raw");
  t_ok(cap_from_text_name("net_raw", &c) == 0 && c == CAP_NET_RAW, "net_raw");
  t_ok(cap_from_text_name("CAP_NET_BIND_SERVICE", &c) == 0 && c == CAP_NET_BIND_SERVICE, "CAP_NET_BIND_SERVICE");
  t_ok(cap_from_text_name("Sys_Admin", &c) == 0 && c == CAP_SYS_ADMIN, "Sys_Admin");
  t_ok(cap_from_text_name("cap_net_rawx", &c) == -1, "cap_net_rawx refused");
  t_ok(cap_from_text_name("12", &c) == -1, "a number is not a name");
  t_ok(cap_from_text_name("cap_", &c) == -1, "cap_ alone refused");
  t_ok(cap_from_text_name("", &c) == -1, "empty refused");
  t_ok(cap_from_text_name("net-raw", &c) == -1, "net-raw refused");
  t_streq(caps_format(((uint64_t)1 << CAP_CHOWN) | ((uint64_t)1 << CAP_NET_RAW), buf, sizeof buf),
          "cap_chown,cap_net_raw", "caps_format of two");
  t_streq(caps_format(0, buf, sizeof buf), "none", "caps_format of none");
  t_ueq(securebit_from_name("noroot"), 0, "securebit noroot");
  t_ueq(securebit_from_name("no-cap-ambient-raise-locked"), 7, "securebit no-cap-ambient-raise-locked");
  t_ok(securebit_from_name("NOROOT") == -1, "securebit names are lower case");
  t_streq(securebits_format(0x2f, buf, sizeof buf),
          "noroot,noroot-locked,no-setuid-fixup,no-setuid-fixup-locked,keep-caps-locked",
          "0x2f by name");
  t_ueq(signal_from_name("TERM"), SIGTERM, "TERM");
  t_ueq(signal_from_name("sigusr1"), SIGUSR1, "sigusr1");
  t_ueq(signal_from_name("SIGHUP"), SIGHUP, "SIGHUP");
  t_ok(signal_from_name("15") == -1, "15 is not a signal name");
  t_ok(signal_from_name("SIG") == -1, "SIG alone refused");
  t_streq(signal_name(SIGQUIT), "QUIT", "name of SIGQUIT");
  t_ueq(rlimit_from_name("nofile")->resource, RLIMIT_NOFILE, "rlimit nofile");
  t_ok(rlimit_from_name("files") == 0, "rlimit files refused");
}

/* The enum-valued keys' tables: each word to its enum value and back, the
 * message's list, and a word of no table refused. */
static void enum_vocabularies(void)
{
  static struct {
    name_value const *t;
    char const *list;
    char const *words[5];
    int values[5];
  } const v[] = {
    { type_names, "longrun or oneshot", { "longrun", "oneshot" }, { SVC_LONGRUN, SVC_ONESHOT } },
    { mode_names, "legacy or noroot", { "legacy", "noroot" }, { SVC_LEGACY, SVC_NOROOT } },
    { restart_names, "always, on-failure or never", { "always", "on-failure", "never" },
      { RESTART_ALWAYS, RESTART_ON_FAILURE, RESTART_NEVER } },
    { log_names, "file, console, kmsg or none", { "file", "console", "kmsg", "none" },
      { LOG_FILE, LOG_CONSOLE, LOG_KMSG, LOG_NONE } },
  };
  char buf[128];
  for (size_t i = 0; i < sizeof v / sizeof v[0]; i++) {
    t_streq(vocab_list(v[i].t, buf, sizeof buf), v[i].list, "vocabulary list '%s'", v[i].list);
    for (size_t j = 0; v[i].words[j]; j++) {
      t_ok(vocab_value(v[i].t, v[i].words[j]) == v[i].values[j], "'%s' is %d", v[i].words[j], v[i].values[j]);
      t_streq(vocab_name(v[i].t, v[i].values[j]), v[i].words[j], "%d is '%s'", v[i].values[j], v[i].words[j]);
    }
    t_ok(vocab_value(v[i].t, "Oneshot") == -1 && vocab_value(v[i].t, "") == -1,
         "'%s': a word of no table (case counts) is -1", v[i].list);
    t_streq(vocab_name(v[i].t, 99), "?", "'%s': a value of none is '?'", v[i].list);
  }
}

int main(void)
{
  durations();
  argv_split();
  sizes_and_modes();
  vocabularies();
  enum_vocabularies();
  return t_done();
}

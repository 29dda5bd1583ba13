/* Unit tests: capctl import (capctl/unit_parse.c, capctl/import*.c).
 * The unit syntax (sections, continuation lines, comments, the quoting
 * and escapes of commands, the prefixes, the specifiers), then whole
 * imports of small units of our own into exact service files and reports:
 * each directive of the fixtures maps as docs/decisions.md says, and a
 * restriction capinit lacks refuses the unit unless --allow-weaker. */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "../../capctl/import.h"
#include "../../capctl/unit_parse.h"
#include "t.h"

#define ROOT "tests/unit/root"

char const *PROG = "capctl";

static char dir[64];

static void put(char const *name, char const *text)
{
  char path[256];
  FILE *f;
  snprintf(path, sizeof path, "%s/%s", dir, name);
  f = fopen(path, "w");
  fputs(text, f);
  fclose(f);
}

static char *slurp(char const *path)
{
  static char buf[65536];
  FILE *f = fopen(path, "r");
  size_t n = f ? fread(buf, 1, sizeof buf - 1, f) : 0;
  if (f) fclose(f);
  buf[n] = 0;
  return f ? buf : 0;
}

static void test_syntax(void)
{
  static char const text[] =
    "# comment\n[Unit]\nDescription = a \\\n; skipped inside\n  b\n\n[Service]\nnot an assignment\nExecStart=/x\n";
  unit u = { 0 };
  unit_parse_buffer(&u, "x.service", text, sizeof text - 1);
  t_ueq(u.n, 2, "syntax: two assignments");
  t_streq(u.v[0].value, "a    b", "syntax: a continuation line joins, its comment line skipped");
  t_ueq(u.v[0].line, 3, "syntax: the assignment's first line");
  t_streq(u.v[1].section, "Service", "syntax: the section");
  t_ueq(u.nbad, 1, "syntax: a line without '=' is a problem");
  t_ueq(u.bad[0].line, 8, "syntax: ... at its line");
  unit_free(&u);
}

static void test_exec(void)
{
  static struct { char const *line; unsigned flags; char const *words; } const cases[] = {
    { "-/bin/a 'b c' \"d\\\"e\"", EXEC_IGNORE_FAILURE, "/bin/a|b c|d\"e|" },
    { "@/sbin/agetty agetty '-p -- \\\\u'", EXEC_ARGV0, "/sbin/agetty|agetty|-p -- \\u|" },
    { ":+/bin/x \\x41\\101", EXEC_NO_ENV | EXEC_FULL_PRIVILEGE, "/bin/x|AA|" },
    { "!/bin/x $V ${W}", EXEC_NO_CREDENTIALS, "/bin/x|$V|${W}|" },
    { "!!/bin/x", EXEC_AMBIENT_FALLBACK, "/bin/x|" },
  };
  size_t i, j, n;
  for (i = 0; i < sizeof cases / sizeof cases[0]; i++) {
    char const *err;
    unsigned flags;
    char got[256] = "", **argv = unit_exec_split(cases[i].line, &flags, &n, &err);
    for (j = 0; argv && j < n; j++) strcat(strcat(got, argv[j]), "|");
    t_streq(got, cases[i].words, "exec: %s: its words", cases[i].line);
    t_ueq(flags, cases[i].flags, "exec: %s: its prefixes", cases[i].line);
    unit_argv_free(argv);
  }
  {
    char const *err;
    unsigned flags;
    t_ok(!unit_exec_split("/bin/x 'open", &flags, &n, &err) && !strcmp(err, "an unterminated quote"),
         "exec: an unterminated quote is refused");
    t_ok(!unit_exec_split("-", &flags, &n, &err) && !strcmp(err, "no command"), "exec: a prefix alone is refused");
  }
}

static void test_specifiers(void)
{
  unit_names n = { "getty@tty\\x2d1.service", "getty", "tty\\x2d1", "root", "/root" };
  char bad = 0, *s = unit_specifiers("%n %N %p %i %I %f %t %% %u", &n, &bad);
  t_streq(s, "getty@tty\\x2d1.service getty@tty\\x2d1 getty tty\\x2d1 tty-1 /tty-1 /run % root",
          "specifiers: each expanded");
  free(s);
  t_ok(!unit_specifiers("%z", &n, &bad) && bad == 'z', "specifiers: an unknown one is refused, named");
  n.instance = 0;
  t_ok(!unit_specifiers("%i", &n, &bad) && bad == 'i', "specifiers: %%i without an instance is refused");
}

/* want with DIR/ standing for this run's directory */
static char const *with_dir(char const *want)
{
  static char buf[16384];
  char const *p;
  size_t n = 0;
  while ((p = strstr(want, "DIR/"))) {
    n += (size_t)snprintf(buf + n, sizeof buf - n, "%.*s%s/", (int)(p - want), want, dir);
    want = p + 4;
  }
  snprintf(buf + n, sizeof buf - n, "%s", want);
  return buf;
}

static int run(char **argv, int argc, char const *report_path)
{
  int fd = open(report_path, O_WRONLY | O_CREAT | O_TRUNC, 0600), saved = dup(1), rc;
  fflush(stdout);
  dup2(fd, 1);
  optind = 1;
  rc = import_main(argc, argv);
  fflush(stdout);
  dup2(saved, 1);
  close(fd);
  close(saved);
  return rc;
}

static char const web[] =
  "[Unit]\n"
  "Description=web %n\n"
  "After=network.target db.service\n"
  "Requires=db.service\n"
  "\n"
  "[Service]\n"
  "# a comment\n"
  "Type=forking\n"
  "PIDFile=/run/nginx.pid\n"
  "Environment=\"OPTS=-q -t\" NAME=%p\n"
  "ExecStartPre=-/usr/sbin/nginx $OPTS\n"
  "ExecStart=/usr/sbin/nginx -g 'daemon on;' \\\n"
  "  -c ${NAME}.conf\n"
  "ExecStop=/bin/kill -QUIT $MAINPID\n"
  "ExecReload=/bin/kill -HUP $MAINPID\n"
  "ProtectSystem=strict\n"
  "ReadWritePaths=/srv -/nonexistent\n"
  "PrivateTmp=yes\n"
  "LimitNOFILE=1024:4096\n"
  "TimeoutStopSec=1min 30s\n"
  "Restart=on-failure\n"
  "StandardOutput=null\n";
static char const web_dropin[] =
  "[Service]\n"
  "User=www\n"
  "AmbientCapabilities=CAP_NET_BIND_SERVICE\n"
  "NoNewPrivileges=no\n"
  "NoNewPrivileges=yes\n";
static char const db[] =
  "[Service]\n"
  "ExecStart=/usr/bin/db --fg\n"
  "CapabilityBoundingSet=CAP_CHOWN CAP_SETUID\n"
  "CapabilityBoundingSet=CAP_KILL\n"
  "CapabilityBoundingSet=~CAP_SETUID\n"
  "KillMode=process\n";
static char const tty[] =
  "[Service]\n"
  "ExecStart=-@/sbin/agetty agetty-%I '-p -- \\\\u' -\n"
  "StandardInput=tty\n"
  "TTYPath=/dev/%I\n"
  "Restart=always\n"
  "InaccessiblePaths=/home\n"
  "[Install]\n"
  "DefaultInstance=tty1\n";

static char const want_web[] =
  "# web.svc: web.service by capctl import (capctl(8)).  Each comment names the line of\n"
  "# the unit it comes from, and says what capinit does otherwise.\n"
  "description = web web.service\n"
  "# web.service:9: PIDFile=/run/nginx.pid: capinit knows its command's pid: no pid file is read\n"
  "# web.service:8: Type=forking: /usr/sbin/nginx -g \"daemon on;\" -c web.conf stays in the foreground as /usr/sbin/nginx -g \"daemon off;\" -c web.conf, and capinit supervises it\n"
  "command = /bin/sh -c \"{ /usr/sbin/nginx -q -t || :; } && exec /usr/sbin/nginx -g 'daemon off;' -c web.conf\"\n"
  "environment = OPTS=-q -t\n"
  "environment = NAME=web\n"
  "rlimit-nofile = 1024:4096\n"
  "user = www\n"
  "# web.service.d/10-user.conf:5: User= and NoNewPrivileges=yes: no set-id program or file capability gives it anything under systemd either: mode = noroot, with only its ambient capabilities\n"
  "mode = noroot\n"
  "capabilities = cap_net_bind_service\n"
  "no-new-privileges = yes\n"
  "read-only = yes\n"
  "# web.service:17: /nonexistent: does not exist, or is a symbolic link, in tests/unit/root/: left out ('-')\n"
  "read-write = /srv\n"
  "private-tmp = yes\n"
  "# web.service: ProtectSystem=strict leaves the machine's /dev to the service under systemd: private-devices = no (capinit's default with read-only is yes)\n"
  "private-devices = no\n"
  "depends = db\n"
  "# web.service:3: After=network.target: capinit has no target units: no ordering\n"
  "restart = on-failure\n"
  "# web.service:14: ExecStop: capinit sends SIGQUIT itself\n"
  "stop-signal = QUIT\n"
  "stop-timeout = 90s\n"
  "log = none\n"
  "# What has no key of capinit's:\n"
  "# web.service:15: ExecReload=/bin/kill -HUP $MAINPID: capctl signal HUP web\n";
static char const want_db[] =
  "# db.svc: db.service by capctl import (capctl(8)).  Each comment names the line of\n"
  "# the unit it comes from, and says what capinit does otherwise.\n"
  "command = /usr/bin/db --fg\n"
  "# db.service:5: uid 0 with the bounding set of the unit: mode = legacy, as root holds its whole bounding set\n"
  "mode = legacy\n"
  "bounding = cap_chown,cap_kill\n"
  "restart = never\n"
  "# db.service:6: warning: KillMode=process: capinit signals the command's whole process group (what left it, as a login's session, is not signalled), then SIGKILLs the group\n";
static char const want_tty[] =
  "# tty@ttyS0.svc: tty@ttyS0.service by capctl import (capctl(8)).  Each comment names the line of\n"
  "# the unit it comes from, and says what capinit does otherwise.\n"
  "# tty@.service:2: StandardInput=tty: capinit gives no terminal; the program opens /dev/ttyS0 itself\n"
  "# tty@.service:2: warning: '@': capinit cannot give the program another argv[0] (agetty-ttyS0)\n"
  "command = /sbin/agetty \"-p -- \\\\u\" ttyS0\n"
  "environment = TERM=vt220\n"
  "# tty@ttyS0.service: no User= and no CapabilityBoundingSet=: systemd runs it as full root; so does mode = legacy\n"
  "mode = legacy\n"
  "# tty@.service:6: warning: InaccessiblePaths=/home: capinit cannot hide a path of the service's tree (weaker than systemd: --allow-weaker)\n"
  "restart = always\n";
static char const want_report[] =
  "capctl: import: web.service: converted: DIR/out/web.svc\n"
  "db.service:6: warning: KillMode=process: capinit signals the command's whole process group (what left it, as a login's session, is not signalled), then SIGKILLs the group\n"
  "capctl: import: db.service: converted with 1 warning: DIR/out/db.svc\n"
  "tty@.service:6: error: InaccessiblePaths=/home: capinit cannot hide a path of the service's tree (refused: --allow-weaker converts it)\n"
  "tty@.service:2: warning: '@': capinit cannot give the program another argv[0] (agetty-tty1)\n"
  "capctl: import: tty@tty1.service: refused\n"
  "capctl: import: 1 converted, 1 converted with warnings, 1 refused\n";
static char const want_report_weaker[] =
  "tty@.service:6: warning: InaccessiblePaths=/home: capinit cannot hide a path of the service's tree (weaker than systemd: --allow-weaker)\n"
  "tty@.service:2: warning: '@': capinit cannot give the program another argv[0] (agetty-ttyS0)\n"
  "capctl: import: tty@ttyS0.service: converted with 2 warnings: DIR/out/tty@ttyS0.svc\n"
  "capctl: import: 0 converted, 1 converted with warnings, 0 refused\n";

static void test_import(void)
{
  char path[256], out[128], report[128], u1[128], u2[128], u3[128], u4[128];
  char *argv[] = { "import", "-R", ROOT, "-o", out, u1, u2, u3, 0 };
  char *argv2[] = { "import", "--allow-weaker", "-R", ROOT, "-o", out, u4, 0 };
  snprintf(path, sizeof path, "%s/web.service.d", dir);
  mkdir(path, 0755);
  snprintf(out, sizeof out, "%s/out", dir);
  mkdir(out, 0755);
  put("web.service", web);
  put("web.service.d/10-user.conf", web_dropin);
  put("db.service", db);
  put("tty@.service", tty);
  snprintf(report, sizeof report, "%s/report", dir);
  snprintf(u1, sizeof u1, "%s/web.service", dir);
  snprintf(u2, sizeof u2, "%s/db.service", dir);
  snprintf(u3, sizeof u3, "%s/tty@.service", dir);
  snprintf(u4, sizeof u4, "%s/tty@ttyS0.service", dir);
  t_ueq(run(argv, 8, report), 1, "import: exit 1, a unit is refused");
  t_streq(slurp(report), with_dir(want_report), "import: the report");
  snprintf(path, sizeof path, "%s/web.svc", out);
  t_streq(slurp(path), want_web, "import: web.svc: forking with its foreground flag, User= with ambient and nnp,"
          " drop-in, specifiers, variables, sandbox, limits, stop");
  snprintf(path, sizeof path, "%s/db.svc", out);
  t_streq(slurp(path), want_db, "import: db.svc: CapabilityBoundingSet= lines accumulate, '~' removes");
  snprintf(path, sizeof path, "%s/tty@tty1.svc", out);
  t_ok(access(path, F_OK) < 0, "import: the refused unit has no file");
  t_ueq(run(argv2, 7, report), 0, "import --allow-weaker: exit 0");
  t_streq(slurp(report), with_dir(want_report_weaker), "import --allow-weaker: the report");
  snprintf(path, sizeof path, "%s/tty@ttyS0.svc", out);
  t_streq(slurp(path), want_tty, "import: tty@ttyS0.svc: a template's instance, '-' and '@', the terminal");
}

int main(void)
{
  snprintf(dir, sizeof dir, "/tmp/capinit-import.XXXXXX");
  if (!mkdtemp(dir)) return 111;
  test_syntax();
  test_exec();
  test_specifiers();
  test_import();
  {
    char cmd[128];
    snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
    if (system(cmd) != 0) t_ok(0, "remove %s", dir);
  }
  return t_done();
}

/* capctl/import_cmd.c -- the command, stop-command and type of the
 * service file, from a unit's Exec lines.
 *
 * capinit supervises a process that stays in the foreground.  A
 * Type=forking daemon of the table below is given its own foreground
 * flag; any other one becomes a oneshot that starts it, which capinit
 * then does not supervise: the report says so. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../conf/names.h"
#include "../conf/xalloc.h"
#include "import_cmd.h"
#include "import_exec.h"
#include "import_model.h"

static int argv_index(char **argv, char const *s)
{
  int i;
  for (i = 0; argv[i]; i++)
    if (!strcmp(argv[i], s)) return i;
  return -1;
}

static void argv_append(char ***argv, char const *s)
{
  size_t n = 0;
  while ((*argv)[n]) n++;
  *argv = xreallocarray(*argv, n + 2, sizeof **argv);
  (*argv)[n] = xstrdup(s);
  (*argv)[n + 1] = 0;
}

static void argv_set(char **argv, int i, char const *s)
{
  free(argv[i]);
  argv[i] = xstrdup(s);
}

static int fg_flag(char ***argv, char const *flag, char const *or_flag)
{
  if (argv_index(*argv, flag) < 0 && (!or_flag || argv_index(*argv, or_flag) < 0)) argv_append(argv, flag);
  return 0;
}

static int fg_nginx(char ***argv)
{
  int g = argv_index(*argv, "-g");
  char *on, buf[4096];
  if (g < 0 || !(*argv)[g + 1]) {
    argv_append(argv, "-g");
    argv_append(argv, "daemon off;");
    return 0;
  }
  on = strstr((*argv)[g + 1], "daemon on;");
  if (on) snprintf(buf, sizeof buf, "%.*sdaemon off;%s", (int)(on - (*argv)[g + 1]), (*argv)[g + 1], on + 10);
  else if (!strstr((*argv)[g + 1], "daemon off;")) snprintf(buf, sizeof buf, "%s daemon off;", (*argv)[g + 1]);
  else return 0;
  argv_set(*argv, g + 1, buf);
  return 0;
}

/* postmulti -i INSTANCE -p start: the default instance ("-") is postfix
 * start-fg; another one postmulti ... start-fg (postfix(1)) */
static int fg_postmulti(char ***argv)
{
  int i = argv_index(*argv, "-i"), s = argv_index(*argv, "start");
  char path[4096], *slash;
  if (s < 0) return -1;
  if (i >= 0 && (*argv)[i + 1] && !strcmp((*argv)[i + 1], "-")) {
    snprintf(path, sizeof path, "%s", (*argv)[0]);
    slash = strrchr(path, '/');
    snprintf(slash ? slash + 1 : path, sizeof path - (size_t)(slash ? slash + 1 - path : 0), "postfix");
    unit_argv_free(*argv);
    *argv = xcalloc(3, sizeof **argv);
    (*argv)[0] = xstrdup(path);
    (*argv)[1] = xstrdup("start-fg");
    return 0;
  }
  argv_set(*argv, s, "start-fg");
  return 0;
}

static int fg_start_word(char ***argv, char const *word)
{
  int s = argv_index(*argv, "start");
  if (s < 0) return -1;
  argv_set(*argv, s, word);
  return 0;
}

static int fg_row(char const *prog, char ***argv)
{
  if (!strcmp(prog, "nginx")) return fg_nginx(argv);
  if (!strcmp(prog, "postmulti")) return fg_postmulti(argv);
  if (!strcmp(prog, "postfix")) return fg_start_word(argv, "start-fg");
  if (!strcmp(prog, "apachectl") || !strcmp(prog, "apache2ctl")) return fg_start_word(argv, "-DFOREGROUND");
  if (!strcmp(prog, "sshd")) return fg_flag(argv, "-D", 0);
  if (!strcmp(prog, "rsyslogd")) return fg_flag(argv, "-n", 0);
  if (!strcmp(prog, "cron")) return fg_flag(argv, "-f", 0);
  if (!strcmp(prog, "chronyd")) return fg_flag(argv, "-n", "-d");
  if (!strcmp(prog, "dbus-daemon")) return argv_index(*argv, "--fork") >= 0 ? -1 : fg_flag(argv, "--nofork", 0);
  return -1;
}

/* The daemons whose foreground flag import knows (docs/decisions.md). */
static int foreground(imp *m, imp_cmd *c)
{
  char const *slash = strrchr(c->argv[0], '/');
  char *before = import_svc_line(c->argv), *after;
  if (fg_row(slash ? slash + 1 : c->argv[0], &c->argv) < 0) {
    free(before);
    return -1;
  }
  after = import_svc_line(c->argv);
  imp_say(m, IMP_NOTE, IK_COMMAND, m->type_where, "Type=forking: %s stays in the foreground as %s, and capinit"
          " supervises it", before, after);
  free(before);
  free(after);
  return 0;
}

/* "a && b && exec c": the lines of sh, then the command */
static char *script(imp_list const *lines, imp_cmd const *last, int exec_last)
{
  size_t len = 0, i;
  char *s = xstrdup(""), *tail = last ? import_sh_line(last->argv) : 0;
  for (i = 0; i < lines->n; i++) {
    s = xreallocarray(s, len + strlen(lines->v[i]) + 5, 1);
    len += (size_t)sprintf(s + len, "%s%s", i ? " && " : "", lines->v[i]);
  }
  if (tail) {
    s = xreallocarray(s, len + strlen(tail) + 10, 1);
    len += (size_t)sprintf(s + len, "%s%s%s", lines->n ? " && " : "", exec_last ? "exec " : "", tail);
    free(tail);
  }
  return s;
}

static char *sh_command(char const *body)
{
  char *q = svc_quote(body), *s = xmalloc(strlen(q) + 16);
  sprintf(s, "/bin/sh -c %s", q);
  free(q);
  return s;
}

/* One line of sh for a command run before the main one. */
static char *pre_line(imp *m, imp_cmd const *c, int as_root)
{
  char *line = import_sh_line(c->argv), *s;
  if ((c->flags & (EXEC_FULL_PRIVILEGE | EXEC_NO_CREDENTIALS)) && !as_root)
    imp_say(m, IMP_WARNING, IK_COMMAND, c->where, "%s: systemd runs it as root; here it runs with the service's"
            " credentials, and may fail", line);
  if (!(c->flags & EXEC_IGNORE_FAILURE)) return line;
  s = xmalloc(strlen(line) + 12);
  sprintf(s, "{ %s || :; }", line);
  free(line);
  return s;
}

/* The oneshot's commands, or the prelude and the daemon's. */
static void main_command(imp *m, imp_list const *prelude, int as_root)
{
  imp_list lines = { 0, 0 };
  size_t i, last = m->start.n - 1;
  char *body;
  for (i = 0; i < prelude->n; i++) imp_list_add(&lines, prelude->v[i]);
  for (i = 0; i < m->start_pre.n; i++) {
    char *l = pre_line(m, &m->start_pre.v[i], as_root);
    imp_list_add(&lines, l);
    free(l);
  }
  for (i = 0; i < last; i++) {  /* a oneshot's ExecStart= lines but the last */
    char *l = pre_line(m, &m->start.v[i], 1);
    imp_list_add(&lines, l);
    free(l);
  }
  if (!lines.n) {
    body = import_svc_line(m->start.v[last].argv);
    imp_set(m, IK_COMMAND, "%s", body);
  } else {
    char *s = script(&lines, &m->start.v[last], 1);
    body = sh_command(s);
    free(s);
    imp_set(m, IK_COMMAND, "%s", body);
  }
  free(body);
  imp_list_free(&lines);
}

/* The flags of the main command that capinit cannot keep. */
static void main_flags(imp *m, imp_cmd *c)
{
  if (c->flags & EXEC_ARGV0) {
    imp_say(m, IMP_WARNING, IK_COMMAND, c->where, "'@': capinit cannot give the program another argv[0] (%s)", c->argv[1]);
    int i;
    free(c->argv[1]);
    for (i = 1; c->argv[i]; i++) c->argv[i] = c->argv[i + 1];
  }
  if ((c->flags & EXEC_IGNORE_FAILURE) && m->type != T_ONESHOT && (!m->restart || strcmp(m->restart, "always")))
    imp_say(m, IMP_WARNING, IK_COMMAND, c->where, "'-': capinit counts a non-zero exit as a failure (restart = %s)",
            m->restart ? m->restart : "never");
  if ((c->flags & EXEC_IGNORE_FAILURE) && m->type == T_ONESHOT)
    imp_say(m, IMP_WARNING, IK_COMMAND, c->where, "'-': capinit counts a non-zero exit of a oneshot as a failure");
}

/* kill -SIG $MAINPID, or /bin/kill -s SIG $MAINPID: the signal, or NULL */
static char const *kill_mainpid(char **argv)
{
  char const *slash = strrchr(argv[0], '/');
  int n = 0;
  while (argv[n]) n++;
  if (strcmp(slash ? slash + 1 : argv[0], "kill") || strcmp(argv[n - 1], "$MAINPID")) return 0;
  if (n == 3 && argv[1][0] == '-') return argv[1] + 1 + (strncmp(argv[1] + 1, "SIG", 3) ? 0 : 3);
  if (n == 4 && !strcmp(argv[1], "-s")) return argv[2] + (strncmp(argv[2], "SIG", 3) ? 0 : 3);
  return 0;
}

/* start-stop-daemon --stop ... --retry SIG/N...: the signal and the time */
static int ssd_retry(imp *m, char **argv)
{
  char const *slash = strrchr(argv[0], '/');
  int r = argv_index(argv, "--retry");
  char sig[16];
  unsigned secs;
  if (strcmp(slash ? slash + 1 : argv[0], "start-stop-daemon") || argv_index(argv, "--stop") < 0 || r < 0 || !argv[r + 1])
    return -1;
  if (sscanf(argv[r + 1], "%15[A-Z]/%u", sig, &secs) != 2 || signal_from_name(sig) < 0) return -1;
  imp_set_text(&m->stop_signal, sig);
  m->stop_timeout_ms = secs * 1000;
  return 0;
}

static void stop_longrun(imp *m)
{
  size_t i;
  for (i = 0; i < m->stop.n; i++) {
    imp_cmd *c = &m->stop.v[i];
    char const *sig = kill_mainpid(c->argv);
    char *line;
    if (sig && signal_from_name(sig) > 0) {
      imp_set_text(&m->stop_signal, sig);
      imp_say(m, IMP_NOTE, IK_STOP_SIGNAL, c->where, "ExecStop: capinit sends SIG%s itself", sig);
      continue;
    }
    if (ssd_retry(m, c->argv) == 0) {
      imp_say(m, IMP_NOTE, IK_STOP_SIGNAL, c->where, "ExecStop: capinit sends SIG%s itself, and SIGKILL after"
              " stop-timeout", m->stop_signal);
      continue;
    }
    line = import_svc_line(c->argv);
    imp_say(m, IMP_WARNING, IK_STOP_SIGNAL, c->where, "ExecStop=%s: capinit stops a longrun with its stop-signal (%s),"
            " then SIGKILL: the command is not run", line, m->stop_signal ? m->stop_signal : "TERM");
    free(line);
  }
}

static void stop_oneshot(imp *m)
{
  imp_list lines = { 0, 0 };
  size_t i;
  char *body;
  if (!m->stop.n) return;
  if (m->stop.n == 1 && !(m->stop.v[0].flags & EXEC_IGNORE_FAILURE)) {
    body = import_svc_line(m->stop.v[0].argv);
    imp_set(m, IK_STOP_COMMAND, "%s", body);
    free(body);
    return;
  }
  for (i = 0; i < m->stop.n; i++) {
    char *l = pre_line(m, &m->stop.v[i], 1);
    imp_list_add(&lines, l);
    free(l);
  }
  {
    char *s = script(&lines, 0, 0);
    body = sh_command(s);
    free(s);
  }
  imp_set(m, IK_STOP_COMMAND, "%s", body);
  free(body);
  imp_list_free(&lines);
}

static void reload_lines(imp *m)
{
  size_t i;
  for (i = 0; i < m->reload.n; i++) {
    imp_cmd *c = &m->reload.v[i];
    char const *sig = kill_mainpid(c->argv);
    char *line = import_svc_line(c->argv);
    if (sig)
      imp_say(m, IMP_NOTE, IK_NONE, c->where, "ExecReload=%s: capctl signal %s %s", line, sig, m->name);
    else if (strcmp(line, "/bin/true"))
      imp_say(m, IMP_WARNING, IK_NONE, c->where, "ExecReload=%s: capinit has no reload of a service: run it by hand", line);
    free(line);
  }
}

/* Type= into capinit's type and ready; a forking daemon without a known
 * foreground flag becomes a oneshot. */
static void type_of(imp *m)
{
  imp_cmd *c = &m->start.v[m->start.n - 1];
  if (m->type == T_ONESHOT) {
    imp_set(m, IK_TYPE, "oneshot");
    if (!m->remain_after_exit)
      imp_say(m, IMP_NOTE, IK_TYPE, m->type_where, "Type=oneshot: a oneshot of capinit's stays up once it exited 0"
              " (as RemainAfterExit=yes)");
  } else if (m->type == T_NOTIFY) {
    imp_set(m, IK_READY, "notify");
  } else if (m->type == T_FORKING && foreground(m, c) < 0) {
    char *line = import_svc_line(c->argv);
    imp_set(m, IK_TYPE, "oneshot");
    m->type = T_ONESHOT;
    imp_say(m, IMP_WARNING, IK_TYPE, m->type_where, "Type=forking: capctl import knows no foreground flag of %s:"
            " a oneshot starts the daemon, which capinit then neither watches nor restarts%s", line,
            m->stop.n ? "" : "; nothing stops it (no ExecStop=)");
    free(line);
  } else if (m->type == T_DBUS || m->type == T_IDLE) {
    imp_say(m, IMP_NOTE, IK_READY, m->type_where, "Type=%s: ready when executed", m->type == T_DBUS ? "dbus" : "idle");
  }
}

void import_commands(imp *m, imp_list const *prelude, int as_root)
{
  size_t i;
  if (!m->start.n) {
    imp_say(m, IMP_ERROR, IK_COMMAND, m->unit_name, "no ExecStart=: nothing to run");
    return;
  }
  if (m->type != T_ONESHOT && m->start.n > 1) {
    imp_say(m, IMP_ERROR, IK_COMMAND, m->start.v[1].where, "more than one ExecStart= in a service that is not"
            " Type=oneshot: systemd refuses it too");
    return;
  }
  type_of(m);
  main_flags(m, &m->start.v[m->start.n - 1]);
  main_command(m, prelude, as_root);
  for (i = 0; i < m->start_post.n; i++)
    imp_say(m, IMP_WARNING, IK_COMMAND, m->start_post.v[i].where, "ExecStartPost: capinit runs nothing after the"
            " command has started: not run");
  if (m->type == T_ONESHOT) stop_oneshot(m);
  else stop_longrun(m);
  reload_lines(m);
}

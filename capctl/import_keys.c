/* capctl/import_keys.c -- the directives of [Service] that capctl import
 * records, as systemd reads them: lists that accumulate and that an empty
 * assignment resets, the last of a boolean winning.  import_decide.c then
 * chooses capinit's keys. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <linux/capability.h>

#include "../conf/names.h"
#include "../conf/syscalls.h"
#include "../conf/xalloc.h"
#include "import_keys.h"
#include "import_map.h"
#include "import_model.h"

static char **words_of(imp *m, unit_entry const *e, char const *v, size_t *n)
{
  char const *err;
  char **w = unit_words(v, n, &err);
  if (!w) {
    char *where = imp_where(e);
    imp_say(m, IMP_ERROR, IK_NONE, where, "%s=%s: %s", e->key, e->value, err);
    free(where);
  }
  return w;
}

static void env_set(imp *m, char const *assignment)
{
  size_t n = strcspn(assignment, "="), i;
  if (!assignment[n] || !n) return;
  for (i = 0; i < m->env.n; i++)
    if (!strncmp(m->env.v[i], assignment, n + 1)) {
      free(m->env.v[i]);
      m->env.v[i] = xstrdup(assignment);
      return;
    }
  imp_list_add(&m->env, assignment);
}

void h_env(imp *m, unit_entry const *e, char const *v, imp_row const *r)
{
  size_t n, i;
  char **w = words_of(m, e, v, &n);
  (void)r;
  for (i = 0; w && i < n; i++) env_set(m, w[i]);
  unit_argv_free(w);
}

/* An environment file is read now, from the root imported from: capinit
 * reads none, so what it says is written into the service file. */
void h_env_file(imp *m, unit_entry const *e, char const *v, imp_row const *r)
{
  int optional = v[0] == '-';
  char full[4096], line[4096], *w = imp_where(e);
  FILE *f;
  (void)r;
  snprintf(full, sizeof full, "%s%s", m->root, v + optional);
  f = fopen(full, "r");
  if (!f) {
    imp_say(m, optional ? IMP_NOTE : IMP_WARNING, IK_ENVIRONMENT, w, "EnvironmentFile=%s: %s does not exist%s", v,
            v + optional, optional ? "" : ": systemd would not start the service");
    free(w);
    return;
  }
  while (fgets(line, sizeof line, f)) {
    size_t n, k;
    char *s = line, **words;
    char const *err;
    while (*s == ' ' || *s == '\t') s++;
    if (*s == '#' || *s == ';' || !strchr(s, '=')) continue;
    if (!strncmp(s, "export ", 7)) s += 7;
    words = unit_words(s, &n, &err);
    for (k = 0; words && k < n; k++) env_set(m, words[k]);
    unit_argv_free(words);
  }
  fclose(f);
  imp_say(m, IMP_WARNING, IK_ENVIRONMENT, w, "EnvironmentFile=%s: read now (capinit reads no environment file):"
          " import again after changing it", v);
  free(w);
}

void h_user(imp *m, unit_entry const *e, char const *v, imp_row const *r)
{
  (void)r;
  imp_set_text(&m->user, v);
  free(m->user_where);
  m->user_where = imp_where(e);
}

void h_group(imp *m, unit_entry const *e, char const *v, imp_row const *r)
{
  (void)e, (void)r;
  imp_set_text(&m->group, v);
}

void h_groups(imp *m, unit_entry const *e, char const *v, imp_row const *r)
{
  size_t n, i;
  char **w = words_of(m, e, v, &n);
  (void)r;
  if (w && !n) imp_list_free(&m->groups);
  for (i = 0; w && i < n; i++)
    if (!imp_list_has(&m->groups, w[i])) imp_list_add(&m->groups, w[i]);
  unit_argv_free(w);
}

int import_caps(char const *v, uint64_t *mask, int *invert, char const **bad)
{
  static char word[128];
  *mask = 0;
  *invert = *v == '~';
  for (v += *invert; *v;) {
    size_t n;
    unsigned cap;
    while (*v == ' ' || *v == '\t') v++;
    n = strcspn(v, " \t");
    if (!n) break;
    snprintf(word, sizeof word, "%.*s", (int)n, v);
    if (cap_from_text_name(word, &cap) < 0) {
      *bad = word;
      return -1;
    }
    *mask |= (uint64_t)1 << cap;
    v += n;
  }
  return 0;
}

/* systemd's rule for both lists: an empty assignment resets; the first
 * one sets; then lines are ORed, and '~' lines remove. */
static void caps_line(imp *m, unit_entry const *e, char const *v, uint64_t *set, int *is_set)
{
  uint64_t mask, all = cap_names_n >= 64 ? UINT64_MAX : (((uint64_t)1 << cap_names_n) - 1);
  int invert;
  char const *bad;
  if (import_caps(v, &mask, &invert, &bad) < 0) {
    char *w = imp_where(e);
    imp_say(m, IMP_ERROR, IK_BOUNDING, w, "%s=%s: unknown capability '%s'", e->key, e->value, bad);
    free(w);
    return;
  }
  if (!*v) *set = 0;
  else if (invert) *set = (*is_set ? *set : all) & ~mask;
  else *set = (*is_set ? *set : 0) | mask;
  *is_set = 1;
}

void h_bounding(imp *m, unit_entry const *e, char const *v, imp_row const *r)
{
  (void)r;
  caps_line(m, e, v, &m->bounding, &m->bounding_set);
  free(m->bounding_where);
  m->bounding_where = imp_where(e);
}

void h_ambient(imp *m, unit_entry const *e, char const *v, imp_row const *r)
{
  int set = 1;
  (void)r;
  caps_line(m, e, v, &m->ambient, &set);
}

void h_securebits(imp *m, unit_entry const *e, char const *v, imp_row const *r)
{
  size_t n, i;
  char **w = words_of(m, e, v, &n);
  (void)r;
  if (w && !n) imp_list_free(&m->securebits);
  for (i = 0; w && i < n; i++) {
    if (securebit_from_name(w[i]) < 0) {
      char *where = imp_where(e);
      imp_say(m, IMP_ERROR, IK_SECUREBITS, where, "SecureBits=%s: unknown securebit '%s'", v, w[i]);
      free(where);
    } else if (!imp_list_has(&m->securebits, w[i])) {
      imp_list_add(&m->securebits, w[i]);
    }
  }
  unit_argv_free(w);
}

void h_nnp(imp *m, unit_entry const *e, char const *v, imp_row const *r)
{
  (void)r;
  m->nnp = !imp_false(v);
  free(m->nnp_where);
  m->nnp_where = imp_where(e);
}

void h_protect_system(imp *m, unit_entry const *e, char const *v, imp_row const *r)
{
  (void)e, (void)r;
  m->protect_system = !strcmp(v, "strict") ? P_STRICT : !strcmp(v, "full") ? P_FULL : imp_false(v) ? P_NO : P_YES;
}

void h_protect_home(imp *m, unit_entry const *e, char const *v, imp_row const *r)
{
  (void)e, (void)r;
  m->protect_home = !strcmp(v, "read-only") ? 2 : imp_false(v) ? 0 : 1;
}

void h_paths(imp *m, unit_entry const *e, char const *v, imp_row const *r)
{
  imp_paths *p = !strcmp(e->key, "ReadWritePaths") ? &m->read_write : !strcmp(e->key, "ReadOnlyPaths") ? &m->read_only
                 : !strcmp(e->key, "BindPaths") ? &m->binds : &m->binds_ro;
  size_t n, i;
  char **w = words_of(m, e, v, &n), *where = imp_where(e);
  (void)r;
  if (w && !n) p->n = 0;
  for (i = 0; w && i < n; i++) {
    char const *s = w[i] + (w[i][0] == '-');
    if (*s == '+') s++;
    imp_paths_add(p, s, w[i][0] == '-', where);
  }
  unit_argv_free(w);
  free(where);
}

void h_private(imp *m, unit_entry const *e, char const *v, imp_row const *r)
{
  int on = !imp_false(v);
  (void)r;
  if (!strcmp(e->key, "PrivateTmp")) m->private_tmp = on;
  else if (!strcmp(e->key, "PrivateNetwork")) m->private_network = on;
  else m->private_devices = on, m->private_devices_set = 1;
}

void h_proc_subset(imp *m, unit_entry const *e, char const *v, imp_row const *r)
{
  (void)e, (void)r;
  m->proc_subset = !strcmp(v, "pid");
}

/* The Protect*= switches: what capinit can do for each is decided with
 * the others (import_decide.c); the capabilities they take away go now. */
void h_protect(imp *m, unit_entry const *e, char const *v, imp_row const *r)
{
  int on = !imp_false(v) && strcmp(v, "default");
  char const *k = e->key;
  (void)r;
  if (!strcmp(k, "ProtectProc")) m->protect_proc = on;
  else if (!strcmp(k, "ProtectKernelTunables")) m->protect_tunables = on;
  else if (!strcmp(k, "ProtectControlGroups")) m->protect_cgroups = on;
  else if (!strcmp(k, "ProtectHostname")) m->protect_hostname = on;
  else if (!strcmp(k, "RestrictSUIDSGID")) m->restrict_suid = on;
  if (!on) return;
  if (!strcmp(k, "ProtectKernelModules")) {
    m->drop |= (uint64_t)1 << CAP_SYS_MODULE;
    m->syscalls_deny |= 1u << SG_MODULE;
  }
  if (!strcmp(k, "ProtectKernelLogs")) m->drop |= (uint64_t)1 << CAP_SYSLOG;
  if (!strcmp(k, "ProtectClock")) m->drop |= (uint64_t)1 << CAP_SYS_TIME | (uint64_t)1 << CAP_WAKE_ALARM;
}

/* RestrictNamespaces=: yes, no, a list of the kinds allowed, or '~' and
 * the kinds denied.  capinit's filter denies user namespaces only; the
 * others need cap_sys_admin, which import_decide.c looks at. */
void h_restrict_ns(imp *m, unit_entry const *e, char const *v, imp_row const *r)
{
  int invert = v[0] == '~';
  int user = strstr(v, "user") != 0;
  (void)e, (void)r;
  if (!strcmp(v, "yes") || !strcmp(v, "true")) m->restrict_ns = m->restrict_ns_other = 1;
  else if (imp_false(v)) m->restrict_ns = m->restrict_ns_other = 0;
  else {
    m->restrict_ns = invert ? user : !user;
    m->restrict_ns_other = 1;
  }
}

/* SystemCallFilter=: a deny list ('~') of @groups maps where capinit has
 * the group; an allow list cannot be had at all. */
void h_syscall_filter(imp *m, unit_entry const *e, char const *v, imp_row const *r)
{
  int invert = v[0] == '~';
  size_t n, i;
  char **w = words_of(m, e, v + invert, &n), *where = imp_where(e);
  (void)r;
  if (w && !n) m->syscalls_deny = 0;
  else if (w && !invert)
    imp_weaker(m, IK_SYSTEM_CALLS, where, "SystemCallFilter=%s: an allow list: capinit's filter denies groups,"
               " it cannot allow only some calls", e->value);
  for (i = 0; w && invert && i < n; i++) {
    int g = syscall_group_from_name(w[i]);
    if (g >= 0) m->syscalls_deny |= 1u << g;
    else
      imp_say(m, IMP_WARNING, IK_SYSTEM_CALLS, where, "SystemCallFilter=~%s: capinit's filter has no such group%s", w[i],
              w[i][0] == '@' ? " (it has the groups of capinit.svc(5), SYSTEM CALLS)" : ": it denies groups, not calls");
  }
  unit_argv_free(w);
  free(where);
}

void h_syscall_arch(imp *m, unit_entry const *e, char const *v, imp_row const *r)
{
  (void)e, (void)r;
  m->native_only = !strcmp(v, "native");
}

static int dir_kind(char const *key)
{
  static char const *const keys[] = { "Runtime", "State", "Logs", "Cache" };
  int i;
  for (i = 0; i < 4; i++)
    if (!strncmp(key, keys[i], strlen(keys[i]))) return i;
  return 0;
}

/* RuntimeDirectory= and the others: the directories systemd makes for the
 * service; import_decide.c makes them in the command, or says why not. */
void h_dirs(imp *m, unit_entry const *e, char const *v, imp_row const *r)
{
  static char const *const base[] = { "/run", "/var/lib", "/var/log", "/var/cache" };
  int k = dir_kind(e->key);
  size_t n, i;
  char **w = words_of(m, e, v, &n), *where = imp_where(e), path[4096];
  (void)r;
  for (i = 0; w && i < n; i++) {
    snprintf(path, sizeof path, "%s/%s", base[k], w[i]);
    imp_paths_add(&m->made_dirs, path, k, where);
  }
  unit_argv_free(w);
  free(where);
}

void h_dir_mode(imp *m, unit_entry const *e, char const *v, imp_row const *r)
{
  (void)r;
  imp_set_text(&m->dir_mode[dir_kind(e->key)], v);
}

void h_device_policy(imp *m, unit_entry const *e, char const *v, imp_row const *r)
{
  (void)e, (void)r;
  m->device_policy_closed = !strcmp(v, "closed") || !strcmp(v, "strict");
}

void h_device_allow(imp *m, unit_entry const *e, char const *v, imp_row const *r)
{
  char *where = imp_where(e), *s = xmalloc(strlen(where) + strlen(v) + 2);
  (void)r;
  sprintf(s, "%s %s", where, v);
  if (*v) imp_list_add(&m->device_allow, s);
  else imp_list_free(&m->device_allow);
  free(s);
  free(where);
}

void h_umask(imp *m, unit_entry const *e, char const *v, imp_row const *r)
{
  (void)e, (void)r;
  imp_set_text(&m->umask, v);
}

void h_workdir(imp *m, unit_entry const *e, char const *v, imp_row const *r)
{
  char const *p = v + (v[0] == '-');
  (void)e, (void)r;
  imp_set_text(&m->directory, strcmp(p, "~") ? p : m->names.home);
}

void h_rootdir(imp *m, unit_entry const *e, char const *v, imp_row const *r)
{
  (void)e, (void)r;
  imp_set_text(&m->root_dir, v);
}

/* A limit's value in capinit's words: "infinity" is "unlimited"; systemd's
 * K/M/G suffixes are capinit's; time spans and other units are not. */
static int limit_value(char const *v, char *out, size_t len)
{
  size_t i, n = 0;
  for (i = 0; v[i] && n + 10 < len; i++) {
    if (!strncmp(v + i, "infinity", 8)) {
      n += (size_t)snprintf(out + n, len - n, "unlimited");
      i += 7;
    } else if ((v[i] >= '0' && v[i] <= '9') || v[i] == ':' || strchr("KMGT", v[i])) {
      out[n++] = v[i];
    } else {
      return -1;
    }
  }
  out[n] = 0;
  return n ? 0 : -1;
}

void h_limit(imp *m, unit_entry const *e, char const *v, imp_row const *r)
{
  char name[32], value[128], line[192], *where;
  size_t i;
  (void)r;
  snprintf(name, sizeof name, "%s", e->key + 5);
  for (i = 0; name[i]; i++) name[i] = (char)(name[i] | 0x20);
  if (rlimit_from_name(name) && limit_value(v, value, sizeof value) == 0) {
    snprintf(line, sizeof line, "rlimit-%s = %s", name, value);
    imp_list_add(&m->rlimits, line);
    return;
  }
  where = imp_where(e);
  imp_say(m, IMP_WARNING, IK_RLIMIT, where, "%s=%s: not a limit capctl import can write: the service gets capinit's", e->key, v);
  free(where);
}

/* A time span of systemd ("5", "90s", "1min 30s", "infinity") in ms;
 * -1 when it is not one. */
static long long span_ms(char const *v)
{
  static struct { char const *unit; long long ms; } const units[] = {
    { "ms", 1 }, { "msec", 1 }, { "s", 1000 }, { "sec", 1000 }, { "min", 60000 }, { "m", 60000 },
    { "h", 3600000 }, { "hr", 3600000 }, { "d", 86400000 }, { "us", 0 }, { "usec", 0 },
  };
  long long total = 0;
  if (!strcmp(v, "infinity")) return 86400000;
  while (*v) {
    char *end;
    long long x = strtoll(v, &end, 10);
    size_t n, i;
    if (end == v || x < 0) return -1;
    while (*end == ' ') end++;
    n = strcspn(end, "0123456789 ");
    if (!n) x *= 1000;
    for (i = 0; n && i < sizeof units / sizeof units[0]; i++)
      if (strlen(units[i].unit) == n && !strncmp(units[i].unit, end, n)) break;
    if (n && i == sizeof units / sizeof units[0]) return -1;
    if (n) x *= units[i].ms;
    total += x;
    for (v = end + n; *v == ' '; v++) {}
  }
  return total;
}

void h_timeout(imp *m, unit_entry const *e, char const *v, imp_row const *r)
{
  long long ms = span_ms(v);
  char *where = imp_where(e);
  (void)r;
  if (ms < 0 || ms > 86400000) {
    imp_say(m, IMP_WARNING, IK_STOP_TIMEOUT, where, "%s=%s: not a time capinit takes (at most 24h)", e->key, v);
  } else {
    if (!strcmp(v, "infinity") || !ms)
      imp_say(m, IMP_NOTE, IK_STOP_TIMEOUT, where, "%s=%s: capinit waits at most 24h", e->key, v);
    if (!ms) ms = 86400000;
    if (strcmp(e->key, "TimeoutStopSec")) m->start_timeout_ms = (uint32_t)ms;
    if (strcmp(e->key, "TimeoutStartSec")) m->stop_timeout_ms = (uint32_t)ms;
  }
  free(where);
}

void h_restart_sec(imp *m, unit_entry const *e, char const *v, imp_row const *r)
{
  long long ms = span_ms(v);
  char *where = imp_where(e);
  (void)r;
  if (ms < 0 || ms > 30000)
    imp_say(m, IMP_WARNING, IK_RESTART_DELAY, where, "RestartSec=%s: capinit's restart-delay is at most 30s", v);
  else {
    m->restart_delay_ms = (uint32_t)(ms ? ms : 1);
    imp_say(m, IMP_NOTE, IK_RESTART_DELAY, where, "RestartSec=%s: capinit waits this after a quick end, and doubles it"
            " after each further one", v);
  }
  free(where);
}

void h_restart(imp *m, unit_entry const *e, char const *v, imp_row const *r)
{
  char *where = imp_where(e);
  (void)r;
  if (!strcmp(v, "no")) imp_set_text(&m->restart, "never");
  else if (!strcmp(v, "always") || !strcmp(v, "on-failure")) imp_set_text(&m->restart, v);
  else if (!strcmp(v, "on-abnormal") || !strcmp(v, "on-abort") || !strcmp(v, "on-watchdog")) {
    imp_set_text(&m->restart, "on-failure");
    imp_say(m, IMP_WARNING, IK_RESTART, where, "Restart=%s: capinit's on-failure also restarts after a non-zero exit", v);
  } else {
    imp_set_text(&m->restart, "always");
    imp_say(m, IMP_WARNING, IK_RESTART, where, "Restart=%s: capinit has no such policy: always", v);
  }
  free(where);
}

void h_kill_mode(imp *m, unit_entry const *e, char const *v, imp_row const *r)
{
  char *where = imp_where(e);
  (void)r;
  if (!strcmp(v, "process") || !strcmp(v, "none"))
    imp_say(m, IMP_WARNING, IK_STOP_SIGNAL, where, "KillMode=%s: capinit signals the command's whole process group"
            " (what left it, as a login's session, is not signalled), then SIGKILLs the group", v);
  else if (!strcmp(v, "mixed"))
    imp_say(m, IMP_NOTE, IK_STOP_SIGNAL, where, "KillMode=mixed: capinit sends the stop-signal to the whole process"
            " group, not to the main process alone");
  else
    imp_say(m, IMP_NOTE, IK_STOP_SIGNAL, where, "KillMode=%s: capinit signals the process group (it has no control"
            " groups: a process that left the group is not signalled)", v);
  free(where);
}

void h_kill_signal(imp *m, unit_entry const *e, char const *v, imp_row const *r)
{
  char const *name = strncmp(v, "SIG", 3) ? v : v + 3;
  (void)r;
  if (signal_from_name(name) > 0) imp_set_text(&m->stop_signal, name);
  else {
    char *where = imp_where(e);
    imp_say(m, IMP_WARNING, IK_STOP_SIGNAL, where, "KillSignal=%s: not a signal capinit names: TERM", v);
    free(where);
  }
}

void h_stdout(imp *m, unit_entry const *e, char const *v, imp_row const *r)
{
  int null = !strcmp(v, "null");
  (void)r;
  if (!strcmp(e->key, "StandardOutput")) m->stdout_null = null;
  else m->stderr_kind = null ? 1 : !strcmp(v, "inherit") ? 0 : 2;
  if (!null && strncmp(v, "journal", 7) && strcmp(v, "inherit") && strcmp(v, "tty") && strncmp(v, "kmsg", 4)) {
    char *where = imp_where(e);
    imp_say(m, IMP_WARNING, IK_LOG, where, "%s=%s: capinit logs the output (log = file)", e->key, v);
    free(where);
  }
}

void h_stdin(imp *m, unit_entry const *e, char const *v, imp_row const *r)
{
  (void)e, (void)r;
  m->tty_stdin = !strncmp(v, "tty", 3);
}

void h_tty_path(imp *m, unit_entry const *e, char const *v, imp_row const *r)
{
  (void)e, (void)r;
  imp_set_text(&m->tty, v);
}

void h_sockets(imp *m, unit_entry const *e, char const *v, imp_row const *r)
{
  size_t n, i;
  char **w = words_of(m, e, v, &n), *where = imp_where(e), *s;
  (void)r;
  for (i = 0; w && i < n; i++) {
    s = xmalloc(strlen(where) + strlen(w[i]) + 2);
    sprintf(s, "%s %s", where, w[i]);
    imp_list_add(&m->listen, s);
    free(s);
  }
  unit_argv_free(w);
  free(where);
}

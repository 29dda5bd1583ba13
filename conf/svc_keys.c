/* conf/svc_keys.c -- the service-file keys: one table, one handler each.
 *
 * The table below is the language.  The parser, `capctl check` and
 * `capexec -k` use it; a unit test proves that docs/capinit.svc.5.scd
 * documents exactly these keys. */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "keys.h"
#include "names.h"
#include "parse.h"
#include "svc.h"
#include "syscalls.h"
#include "values.h"
#include "xalloc.h"

#define SVC(obj) ((svc *)(obj))

static int bad(conf_where *w, char const *what, char const *v)
{
  return conf_error(w, "%s: expected %s, not '%s'", w->key, what, v);
}

/* an enum-valued key: its word's value, or -1 after "expected a, b or c" */
static int vocab(conf_where *w, name_value const *t, char const *v)
{
  char list[128];
  int x = vocab_value(t, v);
  if (x < 0) bad(w, vocab_list(t, list, sizeof list), v);
  return x;
}

static int set_text(char **slot, char const *v)
{
  free(*slot);
  *slot = xstrdup(v);
  return 0;
}

static int k_description(conf_where *w, void *o, char const *v)
{
  (void)w;
  return set_text(&SVC(o)->description, v);
}

static int k_type(conf_where *w, void *o, char const *v)
{
  int x = vocab(w, type_names, v);
  if (x >= 0) SVC(o)->type = (enum svc_type)x;
  return x < 0 ? -1 : 0;
}

static int set_argv(conf_where *w, char ***slot, char const *v)
{
  char const *err;
  char **argv = value_argv(v, &err);
  if (!argv) return conf_error(w, "%s: %s", w->key, err);
  free(*slot);
  *slot = argv;
  return 0;
}

static int k_command(conf_where *w, void *o, char const *v)
{
  return set_argv(w, &SVC(o)->argv, v);
}

static int k_stop_command(conf_where *w, void *o, char const *v)
{
  return set_argv(w, &SVC(o)->stop_argv, v);
}

static int k_directory(conf_where *w, void *o, char const *v)
{
  char const *err;
  if (value_abspath(v, &err) < 0) return bad(w, "an absolute path", v);
  return set_text(&SVC(o)->directory, v);
}

static int env_name_valid(char const *s, size_t n)
{
  size_t i;
  if (!n || (s[0] >= '0' && s[0] <= '9')) return 0;
  for (i = 0; i < n; i++) {
    char c = s[i];
    if (!(c == '_' || (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') ||
          (c >= '0' && c <= '9')))
      return 0;
  }
  return 1;
}

static int k_environment(conf_where *w, void *o, char const *v)
{
  svc *s = o;
  char const *eq = strchr(v, '=');
  size_t n, i;
  if (!eq) return bad(w, "NAME=VALUE", v);
  n = (size_t)(eq - v);
  if (!env_name_valid(v, n))
    return conf_error(w, "environment: invalid variable name '%.*s' (letters, digits and _, not starting with a digit)",
                      (int)(n > 64 ? 64 : n), v);
  if ((n == 10 && !strncmp(v, "LISTEN_PID", n)) || (n == 10 && !strncmp(v, "LISTEN_FDS", n)) ||
      (n == 14 && !strncmp(v, "LISTEN_FDNAMES", n)))
    return conf_error(w, "environment: %.*s is set by capinit for the sockets of the listen key", (int)n, v);
  for (i = 0; i < s->nenv; i++)
    if (!strncmp(s->env[i], v, n + 1))
      return conf_error(w, "environment: %.*s is set twice", (int)n, v);
  s->env = xreallocarray(s->env, s->nenv + 2, sizeof *s->env);
  s->env[s->nenv++] = xstrdup(v);
  s->env[s->nenv] = 0;
  return 0;
}

static int k_umask(conf_where *w, void *o, char const *v)
{
  char const *err;
  unsigned u;
  if (value_umask(v, &u, &err) < 0) return conf_error(w, "umask: %s, not '%s'", err, v);
  SVC(o)->umask = (mode_t)u;
  return 0;
}

/* A user or group: a name as in /etc/passwd (no blanks, no ':' or ','), or
 * a number.  Resolved in svc_finish(), when all keys are known. */
static int id_syntax(char const *v)
{
  return *v && !strpbrk(v, " \t:,");
}

static int k_user(conf_where *w, void *o, char const *v)
{
  if (!id_syntax(v)) return bad(w, "a user name or uid", v);
  return set_text(&SVC(o)->user, v);
}

static int k_group(conf_where *w, void *o, char const *v)
{
  if (!id_syntax(v)) return bad(w, "a group name or gid", v);
  return set_text(&SVC(o)->group_text, v);
}

static int k_groups(conf_where *w, void *o, char const *v)
{
  (void)w;
  return set_text(&SVC(o)->groups_text, v);
}

static int rlim_value(conf_where *w, rlimit_name const *r, char const *v, rlim_t *out)
{
  char const *err;
  uint64_t x;
  if (!strcmp(v, "unlimited") || !strcmp(v, "infinity")) {
    /* the kernel refuses nofile above fs.nr_open, even for root: the
     * service could never start */
    if (r->resource == RLIMIT_NOFILE)
      return conf_error(w, "%s: cannot be unlimited: the kernel caps open files at fs.nr_open (see /proc/sys/fs/nr_open); give a number", w->key);
    *out = RLIM_INFINITY;
    return 0;
  }
  if (value_size(v, r->unit == RL_BYTES, &x, &err) < 0)
    return conf_error(w, "%s: %s, or 'unlimited', not '%s'", w->key, err, v);
  if (x >= (uint64_t)RLIM_INFINITY)
    return conf_error(w, "%s: %s is too large (use 'unlimited')", w->key, v);
  *out = (rlim_t)x;
  return 0;
}

static int k_rlimit(conf_where *w, void *o, char const *v)
{
  svc *s = o;
  rlimit_name const *r = rlimit_from_name(w->key + sizeof "rlimit-" - 1);
  char soft[64];
  char const *colon;
  rlim_t lo, hi;
  size_t i;
  if (!r) {
    char names[512];
    size_t len = 0;
    for (i = 0; i < rlimit_names_n && len < sizeof names; i++)
      len += (size_t)snprintf(names + len, sizeof names - len, "%s%s", i ? ", " : "",
                              rlimit_names[i].name);
    return conf_error(w, "unknown resource limit '%s' (known: %s)", w->key, names);
  }
  if (SVC_RLIMIT_LINE(s, r->resource))
    return conf_error(w, "duplicate key '%s' (first set on line %u)", w->key,
                      SVC_RLIMIT_LINE(s, r->resource));
  SVC_RLIMIT_LINE(s, r->resource) = w->line;
  colon = strchr(v, ':');
  if (colon) {
    if ((size_t)(colon - v) >= sizeof soft) return bad(w, "SOFT[:HARD]", v);
    memcpy(soft, v, (size_t)(colon - v));
    soft[colon - v] = 0;
    if (rlim_value(w, r, soft, &lo) < 0 || rlim_value(w, r, colon + 1, &hi) < 0) return -1;
    if (lo != RLIM_INFINITY && (hi == RLIM_INFINITY ? 0 : lo > hi))
      return conf_error(w, "%s: the soft limit is above the hard limit", w->key);
    if (lo == RLIM_INFINITY && hi != RLIM_INFINITY)
      return conf_error(w, "%s: the soft limit is above the hard limit", w->key);
  } else {
    if (rlim_value(w, r, v, &lo) < 0) return -1;
    hi = lo;  /* one value sets both, as systemd's Limit*= does */
  }
  if (!s->rlimit) s->rlimit = xcalloc(RLIM_NLIMITS, sizeof *s->rlimit);
  s->rlimit[r->resource].set = 1;
  s->rlimit[r->resource].soft = lo;
  s->rlimit[r->resource].hard = hi;
  return 0;
}

static int k_mode(conf_where *w, void *o, char const *v)
{
  int x = vocab(w, mode_names, v);
  if (x >= 0) SVC(o)->mode = (enum svc_mode)x;
  return x < 0 ? -1 : 0;
}

typedef struct bits_acc_s {
  conf_where *w;
  uint64_t mask;
  int none, all, n;
} bits_acc;

static int one_securebit(char const *item, void *arg)
{
  bits_acc *a = arg;
  int b;
  a->n++;
  if (!strcmp(item, "none")) {
    a->none = 1;
    return 0;
  }
  b = securebit_from_name(item);
  if (b < 0) {
    char known[256];
    size_t i, n = 0;
    for (i = 0; i < securebit_names_n && n < sizeof known; i++)
      n += (size_t)snprintf(known + n, sizeof known - n, "%s%s", i ? ", " : "", securebit_names[i].name);
    return conf_error(a->w, "securebits: unknown securebit '%s' (known: %s)", item, known);
  }
  a->mask |= (uint64_t)1 << b;
  return 0;
}

static int k_securebits(conf_where *w, void *o, char const *v)
{
  bits_acc a = { w, 0, 0, 0, 0 };
  if (value_list(v, one_securebit, &a)) return -1;
  if (a.none && a.n > 1) return conf_error(w, "securebits: 'none' cannot be combined with names");
  SVC(o)->securebits = (unsigned)a.mask;
  return 0;
}

static int one_cap(char const *item, void *arg)
{
  bits_acc *a = arg;
  unsigned c;
  a->n++;
  if (!strcmp(item, "none")) {
    a->none = 1;
    return 0;
  }
  if (!strcmp(item, "all")) {
    a->all = 1;
    return 0;
  }
  if (cap_from_text_name(item, &c) < 0)
    return conf_error(a->w, "%s: unknown capability '%s' (see capabilities(7); 'cap_net_raw' or 'net_raw')",
                      a->w->key, item);
  a->mask |= (uint64_t)1 << c;
  return 0;
}

static int k_capabilities(conf_where *w, void *o, char const *v)
{
  bits_acc a = { w, 0, 0, 0, 0 };
  if (value_list(v, one_cap, &a)) return -1;
  if (a.all)
    return conf_error(w, "capabilities: 'all' is not allowed here: name each capability the service needs");
  if (a.none && a.n > 1) return conf_error(w, "capabilities: 'none' cannot be combined with names");
  SVC(o)->caps = a.mask;
  return 0;
}

static int k_bounding(conf_where *w, void *o, char const *v)
{
  bits_acc a = { w, 0, 0, 0, 0 };
  if (value_list(v, one_cap, &a)) return -1;
  if ((a.none || a.all) && a.n > 1)
    return conf_error(w, "bounding: '%s' cannot be combined with other names", a.all ? "all" : "none");
  SVC(o)->bounding = a.all ? CAPS_ALL : a.mask;
  return 0;
}

static int k_nnp(conf_where *w, void *o, char const *v)
{
  int b;
  if (value_bool(v, &b) < 0) return bad(w, "yes or no", v);
  SVC(o)->no_new_privs = (unsigned char)b;
  return 0;
}

typedef struct names_acc_s {
  conf_where *w;
  svc *s;
  char ***v;
  size_t *n;
} names_acc;

static int one_name(char const *item, void *arg)
{
  names_acc *a = arg;
  size_t i;
  if (!svc_name_valid(item))
    return conf_error(a->w, "%s: invalid service name '%s' (letters, digits, '_', '.', '@', '-'; at most %d; not starting with '.')",
                      a->w->key, item, SVC_NAME_MAX);
  if (!strcmp(item, a->s->name))
    return conf_error(a->w, "%s: a service cannot name itself", a->w->key);
  for (i = 0; i < *a->n; i++)
    if (!strcmp((*a->v)[i], item)) return 0;
  *a->v = xreallocarray(*a->v, *a->n + 1, sizeof **a->v);
  (*a->v)[(*a->n)++] = xstrdup(item);
  return 0;
}

static int k_depends(conf_where *w, void *o, char const *v)
{
  names_acc a = { w, o, &SVC(o)->depends, &SVC(o)->ndepends };
  return value_list(v, one_name, &a) ? -1 : 0;
}

static int k_after(conf_where *w, void *o, char const *v)
{
  names_acc a = { w, o, &SVC(o)->after, &SVC(o)->nafter };
  return value_list(v, one_name, &a) ? -1 : 0;
}

static int k_ready(conf_where *w, void *o, char const *v)
{
  svc *s = o;
  char list[64];
  char const *num;
  uint32_t fd;
  int ready = vocab_prefixed(ready_names, v, &num);
  if (ready < 0) return bad(w, vocab_list(ready_names, list, sizeof list), v);
  if (ready == READY_FD) {
    if (value_id(num, &fd) < 0 || fd > 1023)
      return conf_error(w, "ready: fd:N needs a descriptor number from 3 to 1023, not '%s'", num);
    if (fd < 3)
      return conf_error(w, "ready: fd:%u is stdin, stdout or stderr: use a descriptor of 3 or more", (unsigned)fd);
    s->ready_fd = (unsigned short)fd;
  }
  s->ready = (enum svc_ready)ready;
  return 0;
}

static int duration(conf_where *w, uint32_t *slot, char const *v)
{
  char const *err;
  if (value_duration(v, slot, &err) < 0) return conf_error(w, "%s: %s, not '%s'", w->key, err, v);
  return 0;
}

static int k_ready_timeout(conf_where *w, void *o, char const *v)
{
  return duration(w, &SVC(o)->ready_timeout_ms, v);
}

static int k_restart(conf_where *w, void *o, char const *v)
{
  int x = vocab(w, restart_names, v);
  if (x >= 0) SVC(o)->restart = (enum svc_restart)x;
  return x < 0 ? -1 : 0;
}

static int k_restart_delay(conf_where *w, void *o, char const *v)
{
  return duration(w, &SVC(o)->restart_delay_ms, v);
}

static int k_restart_delay_max(conf_where *w, void *o, char const *v)
{
  return duration(w, &SVC(o)->restart_delay_max_ms, v);
}

static int k_stop_signal(conf_where *w, void *o, char const *v)
{
  int sig = signal_from_name(v);
  if (sig < 0) return bad(w, "a signal name such as TERM, INT, HUP or QUIT", v);
  if (sig == SIGSTOP || sig == SIGTSTP || sig == SIGTTIN || sig == SIGTTOU)
    return conf_error(w, "stop-signal: %s stops a process instead of ending it", v);
  SVC(o)->stop_signal = sig;
  return 0;
}

static int k_stop_timeout(conf_where *w, void *o, char const *v)
{
  return duration(w, &SVC(o)->stop_timeout_ms, v);
}

static int k_log(conf_where *w, void *o, char const *v)
{
  int x = vocab(w, log_names, v);
  if (x >= 0) SVC(o)->log = (enum svc_log)x;
  return x < 0 ? -1 : 0;
}

static int k_enabled(conf_where *w, void *o, char const *v)
{
  int b;
  if (value_bool(v, &b) < 0) return bad(w, "yes or no", v);
  SVC(o)->enabled = (unsigned char)b;
  return 0;
}

static int k_writes_state(conf_where *w, void *o, char const *v)
{
  int b;
  if (value_bool(v, &b) < 0) return bad(w, "yes or no", v);
  SVC(o)->writes_state = (unsigned char)b;
  return 0;
}

static int k_user_namespaces(conf_where *w, void *o, char const *v)
{
  int b;
  if (value_bool(v, &b) < 0) return bad(w, "yes or no", v);
  SVC(o)->user_namespaces = (unsigned char)b;
  return 0;
}

/* system-calls = -@group +@group ...: each item denies (-) or allows (+)
 * one group, against the service's default (svc_finish) */
typedef struct groups_acc_s {
  conf_where *w;
  svc *s;
} groups_acc;

static int one_group(char const *item, void *arg)
{
  conf_where *w = ((groups_acc *)arg)->w;
  svc *s = ((groups_acc *)arg)->s;
  int g = (item[0] == '-' || item[0] == '+') ? syscall_group_from_name(item + 1) : -1;
  char list[256];
  if (g < 0)
    return conf_error(w, "system-calls: expected -@GROUP or +@GROUP, not '%s' (the groups: %s)", item,
                      syscall_groups_format(SG_ALL, list, sizeof list));
  if ((s->syscalls_deny | s->syscalls_allow) & (1u << g))
    return conf_error(w, "system-calls: %s is named twice", item + 1);
  if (item[0] == '-') s->syscalls_deny |= (unsigned short)(1u << g);
  else s->syscalls_allow |= (unsigned short)(1u << g);
  return 0;
}

static int k_system_calls(conf_where *w, void *o, char const *v)
{
  groups_acc a = { w, o };
  SVC(o)->syscalls_deny = SVC(o)->syscalls_allow = 0;
  return value_list(v, one_group, &a) ? -1 : 0;
}

conf_key const svc_keys[] = {
  [K_DESCRIPTION] = { "description", K_DESCRIPTION, 0, k_description },
  [K_TYPE] = { "type", K_TYPE, 0, k_type },
  [K_COMMAND] = { "command", K_COMMAND, 0, k_command },
  [K_STOP_COMMAND] = { "stop-command", K_STOP_COMMAND, 0, k_stop_command },
  [K_DIRECTORY] = { "directory", K_DIRECTORY, 0, k_directory },
  [K_ENVIRONMENT] = { "environment", K_ENVIRONMENT, KEY_REPEAT, k_environment },
  [K_UMASK] = { "umask", K_UMASK, 0, k_umask },
  [K_USER] = { "user", K_USER, 0, k_user },
  [K_GROUP] = { "group", K_GROUP, 0, k_group },
  [K_GROUPS] = { "groups", K_GROUPS, 0, k_groups },
  [K_RLIMIT] = { "rlimit-", K_RLIMIT, KEY_PREFIX, k_rlimit },
  [K_MODE] = { "mode", K_MODE, 0, k_mode },
  [K_SECUREBITS] = { "securebits", K_SECUREBITS, 0, k_securebits },
  [K_CAPABILITIES] = { "capabilities", K_CAPABILITIES, 0, k_capabilities },
  [K_BOUNDING] = { "bounding", K_BOUNDING, 0, k_bounding },
  [K_NO_NEW_PRIVILEGES] = { "no-new-privileges", K_NO_NEW_PRIVILEGES, 0, k_nnp },
  [K_DEPENDS] = { "depends", K_DEPENDS, 0, k_depends },
  [K_AFTER] = { "after", K_AFTER, 0, k_after },
  [K_READY] = { "ready", K_READY, 0, k_ready },
  [K_READY_TIMEOUT] = { "ready-timeout", K_READY_TIMEOUT, 0, k_ready_timeout },
  [K_RESTART] = { "restart", K_RESTART, 0, k_restart },
  [K_RESTART_DELAY] = { "restart-delay", K_RESTART_DELAY, 0, k_restart_delay },
  [K_RESTART_DELAY_MAX] = { "restart-delay-max", K_RESTART_DELAY_MAX, 0, k_restart_delay_max },
  [K_STOP_SIGNAL] = { "stop-signal", K_STOP_SIGNAL, 0, k_stop_signal },
  [K_STOP_TIMEOUT] = { "stop-timeout", K_STOP_TIMEOUT, 0, k_stop_timeout },
  [K_LOG] = { "log", K_LOG, 0, k_log },
  [K_ENABLED] = { "enabled", K_ENABLED, 0, k_enabled },
  [K_READ_ONLY] = { "read-only", K_READ_ONLY, 0, ct_key_read_only },
  [K_READ_WRITE] = { "read-write", K_READ_WRITE, KEY_REPEAT, ct_key_read_write },
  [K_BIND] = { "bind", K_BIND, KEY_REPEAT, ct_key_bind },
  [K_BIND_RO] = { "bind-ro", K_BIND_RO, KEY_REPEAT, ct_key_bind },
  [K_ROOT_DIRECTORY] = { "root-directory", K_ROOT_DIRECTORY, 0, ct_key_root_directory },
  [K_PRIVATE_TMP] = { "private-tmp", K_PRIVATE_TMP, 0, ct_key_private_tmp },
  [K_PRIVATE_PIDS] = { "private-pids", K_PRIVATE_PIDS, 0, ct_key_private_pids },
  [K_NETWORK] = { "network", K_NETWORK, 0, ct_key_network },
  [K_HOSTNAME] = { "hostname", K_HOSTNAME, 0, ct_key_hostname },
  [K_PRIVATE_IPC] = { "private-ipc", K_PRIVATE_IPC, 0, ct_key_private_ipc },
  [K_LISTEN] = { "listen", K_LISTEN, KEY_REPEAT, ct_key_listen },
  [K_WRITES_STATE] = { "writes-capinit-state", K_WRITES_STATE, 0, k_writes_state },
  [K_USER_NAMESPACES] = { "user-namespaces", K_USER_NAMESPACES, 0, k_user_namespaces },
  [K_SYSTEM_CALLS] = { "system-calls", K_SYSTEM_CALLS, 0, k_system_calls },
  [K_ALLOW_SUID] = { "allow-suid", K_ALLOW_SUID, 0, ct_key_allow_suid },
  [K_PRIVATE_DEVICES] = { "private-devices", K_PRIVATE_DEVICES, 0, ct_key_private_devices },
  [K_DEVICES] = { "devices", K_DEVICES, 0, ct_key_devices },
  [K_PROC_SUBSET] = { "proc-subset", K_PROC_SUBSET, 0, ct_key_proc_subset },
  [K_ADDRESS] = { "address", K_ADDRESS, 0, ct_key_address },
  [K_GATEWAY] = { "gateway", K_GATEWAY, 0, ct_key_gateway },
};
size_t const svc_keys_n = sizeof svc_keys / sizeof svc_keys[0];
/* every key id has its row, at its index (the designators above) */
_Static_assert(sizeof svc_keys / sizeof svc_keys[0] == K_COUNT, "a key id without a row in svc_keys");

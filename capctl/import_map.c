/* capctl/import_map.c -- the directives of systemd's units, one row each:
 * how it maps to capinit, or why it cannot.  A directive not in the table
 * is refused: import cannot tell whether it restricts the service.
 *
 * The rows only record what the unit says (into imp); import_decide.c
 * chooses the keys once every line is read, since systemd's own result
 * depends on several lines at once (User= with ExecStart=!, repeated
 * CapabilityBoundingSet=, the last NoNewPrivileges=). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../conf/names.h"
#include "../conf/syscalls.h"
#include "../conf/xalloc.h"
#include "import_exec.h"
#include "import_keys.h"
#include "import_map.h"
#include "import_model.h"

/* "KEY=VALUE: the row's text" in the report, at level */
static void imp_say_row(imp *m, unit_entry const *e, imp_row const *r, enum imp_level level)
{
  char *w = imp_where(e);
  imp_say(m, level, r->out, w, "%s=%s: %s", e->key, e->value, r->text);
  free(w);
}

static void h_quiet(imp *m, unit_entry const *e, char const *v, imp_row const *r)
{
  (void)m, (void)e, (void)v, (void)r;
}

static void h_note(imp *m, unit_entry const *e, char const *v, imp_row const *r)
{
  (void)v;
  imp_say_row(m, e, r, IMP_NOTE);
}

static void h_warn(imp *m, unit_entry const *e, char const *v, imp_row const *r)
{
  (void)v;
  imp_say_row(m, e, r, IMP_WARNING);
}

/* A restriction capinit cannot make: refused, unless --allow-weaker, or
 * unless the value turns it off. */
static void h_weaker(imp *m, unit_entry const *e, char const *v, imp_row const *r)
{
  char *w;
  if (imp_false(v)) return;
  w = imp_where(e);
  imp_weaker(m, r->out, w, "%s=%s: %s", e->key, e->value, r->text);
  free(w);
}

/* A hardening of the kernel's surface that capinit has no key for: the
 * service's privilege is the same without it; a warning. */
static void h_surface(imp *m, unit_entry const *e, char const *v, imp_row const *r)
{
  if (!imp_false(v)) imp_say_row(m, e, r, IMP_WARNING);
}

static void h_description(imp *m, unit_entry const *e, char const *v, imp_row const *r)
{
  (void)e, (void)r;
  imp_set_text(&m->description, v);
}

/* The services a dependency names: X.service gives X; the other kinds of
 * unit (targets, sockets, mounts) have no service of capinit's. */
static void each_unit(imp *m, unit_entry const *e, char const *v, void (*fn)(imp *, unit_entry const *, char const *))
{
  char const *err;
  size_t n, i;
  char **w = unit_words(v, &n, &err);
  for (i = 0; w && i < n; i++) fn(m, e, w[i]);
  unit_argv_free(w);
}

static char *service_of(char const *u)
{
  size_t n = strlen(u);
  if (n <= 8 || strcmp(u + n - 8, ".service")) return 0;
  return xstrndup(u, n - 8);
}

static void after_one(imp *m, unit_entry const *e, char const *u)
{
  char *s = service_of(u), *w = imp_where(e);
  if (s && !imp_list_has(&m->after, s)) imp_list_add(&m->after, s);
  else if (!s) imp_say(m, IMP_NOTE, IK_AFTER, w, "After=%s: capinit has no %s units: no ordering", u, strrchr(u, '.') ? strrchr(u, '.') + 1 : u);
  free(s);
  free(w);
}

static void h_after(imp *m, unit_entry const *e, char const *v, imp_row const *r)
{
  (void)r;
  each_unit(m, e, v, after_one);
}

static void requires_one(imp *m, unit_entry const *e, char const *u)
{
  char *s = service_of(u), *w = imp_where(e);
  size_t n = strlen(u);
  if (s) {
    if (!imp_list_has(&m->depends, s)) imp_list_add(&m->depends, s);
  } else if (n > 7 && !strcmp(u + n - 7, ".socket")) {
    char *item = xmalloc(strlen(u) + strlen(w) + 2);  /* "WHERE UNIT", read in import_decide.c */
    sprintf(item, "%s %s", w, u);
    imp_list_add(&m->listen, item);
    free(item);
  } else {
    imp_say(m, IMP_NOTE, IK_DEPENDS, w, "%s=%s: capinit has no such unit: nothing to wait for", e->key, u);
  }
  free(s);
  free(w);
}

static void h_requires(imp *m, unit_entry const *e, char const *v, imp_row const *r)
{
  (void)r;
  each_unit(m, e, v, requires_one);
}

static void wants_one(imp *m, unit_entry const *e, char const *u)
{
  char *s = service_of(u), *w = imp_where(e);
  size_t n = strlen(u);
  if (n > 7 && !strcmp(u + n - 7, ".socket")) requires_one(m, e, u);
  else if (s) {
    imp_say(m, IMP_NOTE, IK_AFTER, w, "%s=%s: capinit starts no service for another: ordered after it only", e->key, u);
    if (!imp_list_has(&m->after, s)) imp_list_add(&m->after, s);
  } else {
    imp_say(m, IMP_NOTE, IK_AFTER, w, "%s=%s: capinit has no such unit", e->key, u);
  }
  free(s);
  free(w);
}

static void h_wants(imp *m, unit_entry const *e, char const *v, imp_row const *r)
{
  (void)r;
  each_unit(m, e, v, wants_one);
}

/* ConditionPathExists=[!]PATH, judged now in the root imported from:
 * capinit has no conditions.  A path of a file system made at boot
 * (/dev, /run, /proc, /sys) cannot be judged from here. */
static void h_condition_path(imp *m, unit_entry const *e, char const *v, imp_row const *r)
{
  char full[4096], *w = imp_where(e);
  int neg = v[0] == '!', now;
  char const *p = v + neg;
  (void)r;
  if (!strncmp(p, "/dev", 4) || !strncmp(p, "/run", 4) || !strncmp(p, "/proc", 5) || !strncmp(p, "/sys", 4)) {
    imp_say(m, IMP_NOTE, IK_ENABLED, w, "%s=%s: capinit has no conditions; a path made at boot: the service starts", e->key, v);
    free(w);
    return;
  }
  snprintf(full, sizeof full, "%s%s", m->root, p);
  now = (access(full, F_OK) == 0) != neg;
  if (now)
    imp_say(m, IMP_NOTE, IK_ENABLED, w, "%s=%s: capinit has no conditions; true now: the service starts even if it changes", e->key, v);
  else {
    m->enabled = 0;
    imp_say(m, IMP_WARNING, IK_ENABLED, w, "%s=%s: capinit has no conditions; false now: enabled = no", e->key, v);
  }
  free(w);
}

static void h_type(imp *m, unit_entry const *e, char const *v, imp_row const *r)
{
  static char const *const types[] = { "simple", "exec", "notify", "forking", "oneshot", "idle", "dbus", 0 };
  size_t i;
  (void)r;
  for (i = 0; types[i] && strcmp(types[i], v); i++) {}
  if (!types[i]) {
    char *w = imp_where(e);
    imp_weaker(m, IK_TYPE, w, "Type=%s: a type capctl import does not know", v);
    free(w);
    return;
  }
  m->type = (enum imp_type)i;
  free(m->type_where);
  m->type_where = imp_where(e);
}

static void h_remain(imp *m, unit_entry const *e, char const *v, imp_row const *r)
{
  (void)e, (void)r;
  m->remain_after_exit = !imp_false(v);
}

static void h_exec(imp *m, unit_entry const *e, char const *v, imp_row const *r)
{
  imp_cmds *lists[] = { &m->start, &m->start_pre, &m->start_post, &m->stop, &m->reload };
  static char const *const keys[] = { "ExecStart", "ExecStartPre", "ExecStartPost", "ExecStop", "ExecReload" };
  size_t i;
  (void)r;
  for (i = 0; i < 5; i++)
    if (!strcmp(e->key, keys[i])) import_exec_line(m, lists[i], e, v);
}

#define NOTE(s, k, o, t) { s, k, h_note, o, t }
#define WARN(s, k, o, t) { s, k, h_warn, o, t }
#define WEAKER(s, k, o, t) { s, k, h_weaker, o, t }
#define SURFACE(k, t) { "Service", k, h_surface, IK_SYSTEM_CALLS, t }
#define QUIET(s, k) { s, k, h_quiet, IK_NONE, "" }
#define KEY(s, k, fn, o) { s, k, fn, o, "" }
#define NO_CGROUPS "capinit has no control groups: no limit on the service's processes together (rlimit-* are per process)"

/* The order matters only for prefixes ("Condition*" after the conditions
 * judged one by one). */
static imp_row const rows[] = {
  KEY("Unit", "Description", h_description, IK_DESCRIPTION),
  QUIET("Unit", "Documentation"),
  KEY("Unit", "After", h_after, IK_AFTER),
  NOTE("Unit", "Before", IK_AFTER, "capinit has no 'before': the other service's file says after = this one"),
  KEY("Unit", "Requires", h_requires, IK_DEPENDS),
  KEY("Unit", "BindsTo", h_requires, IK_DEPENDS),
  KEY("Unit", "Requisite", h_requires, IK_DEPENDS),
  KEY("Unit", "Wants", h_wants, IK_AFTER),
  NOTE("Unit", "PartOf", IK_DEPENDS, "capinit stops a service with what it depends on, not with another"),
  NOTE("Unit", "Conflicts", IK_NONE, "capinit has no conflicts: stop the other service yourself"),
  QUIET("Unit", "DefaultDependencies"),
  QUIET("Unit", "IgnoreOnIsolate"),
  QUIET("Unit", "AllowIsolate"),
  NOTE("Unit", "RefuseManualStop", IK_NONE, "capctl stop stops any service"),
  WARN("Unit", "StopWhenUnneeded", IK_NONE, "capinit stops a service only when asked, or with what it depends on"),
  NOTE("Unit", "ReloadPropagatedFrom", IK_NONE, "capinit has no reload of a service"),
  NOTE("Unit", "RequiresMountsFor", IK_DEPENDS, "capinit mounts /etc/fstab's file systems before any service starts"),
  WARN("Unit", "OnFailure", IK_NONE, "capinit starts nothing when a service fails"),
  QUIET("Unit", "OnFailureJobMode"),
  WARN("Unit", "SuccessAction", IK_NONE, "capinit takes no action when a service ends"),
  WARN("Unit", "FailureAction", IK_NONE, "capinit takes no action when a service fails"),
  NOTE("Unit", "StartLimit*", IK_RESTART, "capinit never gives up: the delay doubles up to restart-delay-max"),
  KEY("Unit", "ConditionPathExists", h_condition_path, IK_ENABLED),
  KEY("Unit", "AssertPathExists", h_condition_path, IK_ENABLED),
  NOTE("Unit", "ConditionCapability", IK_ENABLED,
       "capinit has no conditions: a capability capinit lacks fails the start (capctl check warns)"),
  WARN("Unit", "Condition*", IK_ENABLED, "capinit has no conditions: not judged, the service starts"),
  WARN("Unit", "Assert*", IK_ENABLED, "capinit has no assertions: not judged, the service starts"),
  NOTE("Unit", "JobTimeoutSec", IK_NONE, "capinit has no jobs"),

  KEY("Service", "Type", h_type, IK_TYPE),
  KEY("Service", "RemainAfterExit", h_remain, IK_TYPE),
  KEY("Service", "ExecStart", h_exec, IK_COMMAND),
  KEY("Service", "ExecStartPre", h_exec, IK_COMMAND),
  KEY("Service", "ExecStartPost", h_exec, IK_COMMAND),
  KEY("Service", "ExecStop", h_exec, IK_STOP_COMMAND),
  KEY("Service", "ExecReload", h_exec, IK_NONE),
  WARN("Service", "ExecStopPost", IK_STOP_COMMAND, "capinit runs nothing after a service has stopped"),
  WARN("Service", "ExecCondition", IK_COMMAND, "capinit runs no condition command: the service starts"),
  NOTE("Service", "PIDFile", IK_COMMAND, "capinit knows its command's pid: no pid file is read"),
  QUIET("Service", "GuessMainPID"),
  KEY("Service", "Environment", h_env, IK_ENVIRONMENT),
  KEY("Service", "EnvironmentFile", h_env_file, IK_ENVIRONMENT),
  NOTE("Service", "PassEnvironment", IK_ENVIRONMENT, "capinit passes none of its own environment"),
  NOTE("Service", "UnsetEnvironment", IK_ENVIRONMENT, "a service of capinit's starts with PATH only, and its own variables"),
  KEY("Service", "KillMode", h_kill_mode, IK_STOP_SIGNAL),
  KEY("Service", "KillSignal", h_kill_signal, IK_STOP_SIGNAL),
  NOTE("Service", "RestartKillSignal", IK_STOP_SIGNAL, "capinit stops a service the same way for a restart"),
  NOTE("Service", "SendSIGHUP", IK_STOP_SIGNAL, "capinit sends no SIGHUP after the stop-signal"),
  WARN("Service", "SendSIGKILL", IK_STOP_TIMEOUT, "capinit always ends a stop that times out with SIGKILL"),
  KEY("Service", "TimeoutSec", h_timeout, IK_STOP_TIMEOUT),
  KEY("Service", "TimeoutStartSec", h_timeout, IK_READY_TIMEOUT),
  KEY("Service", "TimeoutStopSec", h_timeout, IK_STOP_TIMEOUT),
  KEY("Service", "Restart", h_restart, IK_RESTART),
  KEY("Service", "RestartSec", h_restart_sec, IK_RESTART_DELAY),
  WARN("Service", "RestartPreventExitStatus", IK_RESTART, "capinit restarts whatever the exit status"),
  WARN("Service", "RestartForceExitStatus", IK_RESTART, "capinit restarts by its restart key only"),
  WARN("Service", "SuccessExitStatus", IK_RESTART, "capinit counts only exit status 0 as success"),
  KEY("Service", "User", h_user, IK_USER),
  KEY("Service", "Group", h_group, IK_GROUP),
  KEY("Service", "SupplementaryGroups", h_groups, IK_GROUPS),
  WEAKER("Service", "DynamicUser", IK_USER, "capinit has no dynamic users: name a user of the system (User=)"),
  WARN("Service", "PAMName", IK_USER, "capinit opens no PAM session (no limits, environment or records from PAM)"),
  KEY("Service", "CapabilityBoundingSet", h_bounding, IK_BOUNDING),
  KEY("Service", "AmbientCapabilities", h_ambient, IK_CAPABILITIES),
  KEY("Service", "SecureBits", h_securebits, IK_SECUREBITS),
  KEY("Service", "NoNewPrivileges", h_nnp, IK_NNP),
  KEY("Service", "ProtectSystem", h_protect_system, IK_READ_ONLY),
  KEY("Service", "ProtectHome", h_protect_home, IK_BIND_RO),
  KEY("Service", "ReadWritePaths", h_paths, IK_READ_WRITE),
  KEY("Service", "ReadOnlyPaths", h_paths, IK_BIND_RO),
  KEY("Service", "BindPaths", h_paths, IK_BIND),
  KEY("Service", "BindReadOnlyPaths", h_paths, IK_BIND_RO),
  WEAKER("Service", "InaccessiblePaths", IK_BIND_RO, "capinit cannot hide a path of the service's tree"),
  WEAKER("Service", "TemporaryFileSystem", IK_BIND_RO, "capinit mounts no tmpfs but /tmp (private-tmp)"),
  WEAKER("Service", "NoExecPaths", IK_READ_ONLY, "capinit has no noexec mounts in a service's tree"),
  KEY("Service", "PrivateTmp", h_private, IK_PRIVATE_TMP),
  KEY("Service", "PrivateDevices", h_private, IK_PRIVATE_DEVICES),
  KEY("Service", "PrivateNetwork", h_private, IK_NETWORK),
  WEAKER("Service", "PrivateUsers", IK_MODE, "capinit gives no service a user namespace of its own"),
  NOTE("Service", "PrivateMounts", IK_READ_ONLY, "capinit gives a mount namespace with any key of the file tree"),
  KEY("Service", "ProtectProc", h_protect, IK_PROC_SUBSET),
  KEY("Service", "ProcSubset", h_proc_subset, IK_PROC_SUBSET),
  KEY("Service", "ProtectKernelTunables", h_protect, IK_READ_ONLY),
  KEY("Service", "ProtectKernelModules", h_protect, IK_BOUNDING),
  KEY("Service", "ProtectKernelLogs", h_protect, IK_BOUNDING),
  KEY("Service", "ProtectClock", h_protect, IK_BOUNDING),
  KEY("Service", "ProtectControlGroups", h_protect, IK_READ_ONLY),
  KEY("Service", "ProtectHostname", h_protect, IK_BOUNDING),
  KEY("Service", "RestrictSUIDSGID", h_protect, IK_SYSTEM_CALLS),
  KEY("Service", "RestrictNamespaces", h_restrict_ns, IK_USER_NAMESPACES),
  SURFACE("RestrictRealtime", "capinit's filter has no rule for real-time scheduling"),
  SURFACE("RestrictAddressFamilies", "capinit's filter does not restrict socket families"),
  SURFACE("LockPersonality", "capinit's filter does not lock personality(2)"),
  SURFACE("MemoryDenyWriteExecute", "capinit's filter does not refuse writable executable memory"),
  KEY("Service", "SystemCallFilter", h_syscall_filter, IK_SYSTEM_CALLS),
  KEY("Service", "SystemCallArchitectures", h_syscall_arch, IK_SYSTEM_CALLS),
  NOTE("Service", "SystemCallErrorNumber", IK_SYSTEM_CALLS, "capinit's filter fails a denied call with EPERM"),
  KEY("Service", "RuntimeDirectory", h_dirs, IK_COMMAND),
  KEY("Service", "StateDirectory", h_dirs, IK_COMMAND),
  KEY("Service", "LogsDirectory", h_dirs, IK_COMMAND),
  KEY("Service", "CacheDirectory", h_dirs, IK_COMMAND),
  KEY("Service", "RuntimeDirectoryMode", h_dir_mode, IK_COMMAND),
  KEY("Service", "StateDirectoryMode", h_dir_mode, IK_COMMAND),
  KEY("Service", "LogsDirectoryMode", h_dir_mode, IK_COMMAND),
  KEY("Service", "CacheDirectoryMode", h_dir_mode, IK_COMMAND),
  NOTE("Service", "RuntimeDirectoryPreserve", IK_COMMAND, "capinit removes nothing a service made"),
  NOTE("Service", "ConfigurationDirectory", IK_READ_ONLY, "capinit makes no directory in /etc: the package made it"),
  WARN("Service", "RemoveIPC", IK_NONE, "capinit removes no IPC object when the service stops"),
  NOTE("Service", "KeyringMode", IK_NONE, "capinit gives each service a session keyring of its own"),
  KEY("Service", "DevicePolicy", h_device_policy, IK_PRIVATE_DEVICES),
  KEY("Service", "DeviceAllow", h_device_allow, IK_DEVICES),
  WEAKER("Service", "IPAddressDeny", IK_NETWORK, "capinit has no per-service IP filter (network = none is all or nothing)"),
  NOTE("Service", "IPAddressAllow", IK_NETWORK, "an exception to IPAddressDeny="),
  KEY("Service", "UMask", h_umask, IK_UMASK),
  KEY("Service", "WorkingDirectory", h_workdir, IK_DIRECTORY),
  KEY("Service", "RootDirectory", h_rootdir, IK_ROOT_DIRECTORY),
  KEY("Service", "Limit*", h_limit, IK_RLIMIT),
  WARN("Service", "OOMScoreAdjust", IK_NONE, "capinit sets no OOM score: the kernel's default"),
  NOTE("Service", "OOMPolicy", IK_NONE, "capinit has no control groups: the kernel's OOM killer picks a process"),
  WARN("Service", "Nice", IK_NONE, "capinit sets no scheduling: the service gets capinit's"),
  WARN("Service", "IOScheduling*", IK_NONE, "capinit sets no scheduling: the service gets capinit's"),
  WARN("Service", "CPUScheduling*", IK_NONE, "capinit sets no scheduling: the service gets capinit's"),
  KEY("Service", "StandardOutput", h_stdout, IK_LOG),
  KEY("Service", "StandardError", h_stdout, IK_LOG),
  KEY("Service", "StandardInput", h_stdin, IK_LOG),
  NOTE("Service", "Syslog*", IK_LOG, "capinit logs the output itself (log = file)"),
  KEY("Service", "TTYPath", h_tty_path, IK_COMMAND),
  NOTE("Service", "TTYReset", IK_COMMAND, "capinit does not reset the terminal"),
  NOTE("Service", "TTYVHangup", IK_COMMAND, "capinit does not hang the terminal up"),
  NOTE("Service", "TTYVTDisallocate", IK_COMMAND, "capinit does not clear the terminal"),
  NOTE("Service", "Utmp*", IK_COMMAND, "capinit writes no utmp record (agetty and login do)"),
  NOTE("Service", "IgnoreSIGPIPE", IK_NONE, "capinit starts every service with SIGPIPE's default action"),
  NOTE("Service", "NotifyAccess", IK_READY, "capinit accepts READY=1 from any process of the service"),
  WARN("Service", "WatchdogSec", IK_READY, "capinit has no watchdog: a hung service is not restarted"),
  KEY("Service", "Sockets", h_sockets, IK_LISTEN),
  NOTE("Service", "BusName", IK_READY, "capinit does not watch the bus"),
  NOTE("Service", "FileDescriptorStoreMax", IK_NONE, "capinit keeps no descriptors for a service"),
  NOTE("Service", "Slice", IK_NONE, "capinit has no control groups"),
  NOTE("Service", "Delegate", IK_NONE, "capinit has no control groups"),
  WARN("Service", "TasksMax", IK_RLIMIT, NO_CGROUPS),
  WARN("Service", "Memory*", IK_RLIMIT, NO_CGROUPS),
  WARN("Service", "CPUQuota", IK_RLIMIT, NO_CGROUPS),
  WARN("Service", "LoadCredential", IK_ENVIRONMENT, "capinit passes no credentials ($CREDENTIALS_DIRECTORY)"),

  QUIET("Install", "WantedBy"),
  QUIET("Install", "RequiredBy"),
  QUIET("Install", "Also"),
  QUIET("Install", "DefaultInstance"),
  NOTE("Install", "Alias", IK_NONE, "capinit knows a service by one name"),
};

static imp_row const *row_find(char const *section, char const *key)
{
  size_t i;
  for (i = 0; i < sizeof rows / sizeof rows[0]; i++) {
    size_t n = strlen(rows[i].key);
    if (strcmp(rows[i].section, section)) continue;
    if (rows[i].key[n - 1] == '*' ? !strncmp(rows[i].key, key, n - 1) : !strcmp(rows[i].key, key)) return &rows[i];
  }
  return 0;
}

void import_entry(imp *m, unit_entry const *e)
{
  imp_row const *r = row_find(e->section, e->key);
  char bad = 0, *v, *w;
  if (!strncmp(e->section, "X-", 2) || !strncmp(e->key, "X-", 2)) return;
  if (!r) {
    w = imp_where(e);
    imp_weaker(m, IK_NONE, w, "%s=%s: [%s] %s is not a directive capctl import knows: it cannot tell whether it restricts the service",
               e->key, e->value, e->section, e->key);
    free(w);
    return;
  }
  v = unit_specifiers(e->value, &m->names, &bad);
  if (!v) {
    w = imp_where(e);
    imp_say(m, IMP_ERROR, r->out, w, "%s=%s: the specifier %%%c is unknown, or has no value here", e->key, e->value, bad);
    free(w);
    return;
  }
  r->fn(m, e, v, r);
  free(v);
}

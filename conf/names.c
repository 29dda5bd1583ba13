/* conf/names.c -- see names.h. */
#include <ctype.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/resource.h>

#include "names.h"
#include "svc.h"

#define N(a) (sizeof(a) / sizeof((a)[0]))

name_value const type_names[] = { { "longrun", SVC_LONGRUN }, { "oneshot", SVC_ONESHOT }, { 0, 0 } };
name_value const mode_names[] = { { "legacy", SVC_LEGACY }, { "noroot", SVC_NOROOT }, { 0, 0 } };
name_value const restart_names[] = {
  { "always", RESTART_ALWAYS }, { "on-failure", RESTART_ON_FAILURE }, { "never", RESTART_NEVER }, { 0, 0 },
};
name_value const log_names[] = {
  { "file", LOG_FILE }, { "console", LOG_CONSOLE }, { "kmsg", LOG_KMSG }, { "none", LOG_NONE }, { 0, 0 },
};

name_value const ready_names[] = {
  { "exec", READY_EXEC }, { "fd:N", READY_FD }, { "notify", READY_NOTIFY }, { 0, 0 },
};
name_value const network_names[] = {
  { "host", NET_HOST }, { "none", NET_NONE }, { "netns:NAME", NET_NAMED },
  { "macvlan:PARENT", NET_MACVLAN }, { "ipvlan:PARENT", NET_IPVLAN }, { 0, 0 },
};

/* The length of a prefix word ("fd:N": 3, with its colon), 0 for a word. */
static size_t prefix_len(char const *name)
{
  char const *colon = strchr(name, ':');
  return colon ? (size_t)(colon - name) + 1 : 0;
}

int vocab_prefixed(name_value const *t, char const *s, char const **rest)
{
  *rest = 0;
  for (; t->name; t++) {
    size_t n = prefix_len(t->name);
    if (!n && !strcmp(s, t->name)) return t->value;
    if (n && !strncmp(s, t->name, n)) {
      *rest = s + n;
      return t->value;
    }
  }
  return -1;
}

char *vocab_format(name_value const *t, int v, char const *arg, char *buf, size_t len)
{
  for (; t->name && t->value != v; t++) ;
  if (!t->name) snprintf(buf, len, "?");
  else if (prefix_len(t->name)) snprintf(buf, len, "%.*s%s", (int)prefix_len(t->name), t->name, arg);
  else snprintf(buf, len, "%s", t->name);
  return buf;
}

int vocab_value(name_value const *t, char const *s)
{
  for (; t->name; t++)
    if (!strcmp(s, t->name)) return t->value;
  return -1;
}

char const *vocab_name(name_value const *t, int v)
{
  for (; t->name; t++)
    if (t->value == v) return t->name;
  return "?";
}

char *vocab_list(name_value const *t, char *buf, size_t len)
{
  size_t w = 0;
  if (!len) return buf;
  buf[0] = 0;
  for (size_t i = 0; t[i].name && w < len; i++)
    w += (size_t)snprintf(buf + w, len - w, "%s%s", !i ? "" : t[i + 1].name ? ", " : " or ", t[i].name);
  return buf;
}

name_value const securebit_names[] = {
  { "noroot", 0 },
  { "noroot-locked", 1 },
  { "no-setuid-fixup", 2 },
  { "no-setuid-fixup-locked", 3 },
  { "keep-caps", 4 },
  { "keep-caps-locked", 5 },
  { "no-cap-ambient-raise", 6 },
  { "no-cap-ambient-raise-locked", 7 },
};
size_t const securebit_names_n = N(securebit_names);

int securebit_from_name(char const *s)
{
  size_t i;
  for (i = 0; i < securebit_names_n; i++)
    if (!strcmp(s, securebit_names[i].name)) return securebit_names[i].value;
  return -1;
}

char *securebits_format(unsigned bits, char *buf, size_t len)
{
  size_t i, w = 0;
  if (!len) return buf;
  buf[0] = 0;
  if (!bits) {
    snprintf(buf, len, "none");
    return buf;
  }
  for (i = 0; i < securebit_names_n; i++) {
    if (!(bits & (1u << securebit_names[i].value))) continue;
    int r = snprintf(buf + w, len - w, "%s%s", w ? "," : "", securebit_names[i].name);
    if (r < 0 || (size_t)r >= len - w) break;
    w += (size_t)r;
  }
  return buf;
}

name_value const signal_names[] = {
  { "HUP", SIGHUP }, { "INT", SIGINT }, { "QUIT", SIGQUIT },
  { "ILL", SIGILL }, { "TRAP", SIGTRAP }, { "ABRT", SIGABRT },
  { "BUS", SIGBUS }, { "FPE", SIGFPE }, { "KILL", SIGKILL },
  { "USR1", SIGUSR1 }, { "SEGV", SIGSEGV }, { "USR2", SIGUSR2 },
  { "PIPE", SIGPIPE }, { "ALRM", SIGALRM }, { "TERM", SIGTERM },
  { "STKFLT", SIGSTKFLT }, { "CHLD", SIGCHLD }, { "CONT", SIGCONT },
  { "STOP", SIGSTOP }, { "TSTP", SIGTSTP }, { "TTIN", SIGTTIN },
  { "TTOU", SIGTTOU }, { "URG", SIGURG }, { "XCPU", SIGXCPU },
  { "XFSZ", SIGXFSZ }, { "VTALRM", SIGVTALRM }, { "PROF", SIGPROF },
  { "WINCH", SIGWINCH }, { "IO", SIGIO }, { "PWR", SIGPWR },
  { "SYS", SIGSYS },
};
size_t const signal_names_n = N(signal_names);

int signal_from_name(char const *s)
{
  size_t i;
  if (!strncasecmp(s, "SIG", 3)) s += 3;
  for (i = 0; i < signal_names_n; i++)
    if (!strcasecmp(s, signal_names[i].name)) return signal_names[i].value;
  return -1;
}

char const *signal_name(int sig)
{
  size_t i;
  for (i = 0; i < signal_names_n; i++)
    if (signal_names[i].value == sig) return signal_names[i].name;
  return 0;
}

rlimit_name const rlimit_names[] = {
  { "as", RLIMIT_AS, RL_BYTES },
  { "core", RLIMIT_CORE, RL_BYTES },
  { "cpu", RLIMIT_CPU, RL_SECONDS },
  { "data", RLIMIT_DATA, RL_BYTES },
  { "fsize", RLIMIT_FSIZE, RL_BYTES },
  { "locks", RLIMIT_LOCKS, RL_COUNT },
  { "memlock", RLIMIT_MEMLOCK, RL_BYTES },
  { "msgqueue", RLIMIT_MSGQUEUE, RL_BYTES },
  { "nice", RLIMIT_NICE, RL_COUNT },
  { "nofile", RLIMIT_NOFILE, RL_COUNT },
  { "nproc", RLIMIT_NPROC, RL_COUNT },
  { "rss", RLIMIT_RSS, RL_BYTES },
  { "rtprio", RLIMIT_RTPRIO, RL_COUNT },
  { "rttime", RLIMIT_RTTIME, RL_MICROSECONDS },
  { "sigpending", RLIMIT_SIGPENDING, RL_COUNT },
  { "stack", RLIMIT_STACK, RL_BYTES },
};
size_t const rlimit_names_n = N(rlimit_names);

rlimit_name const *rlimit_from_name(char const *s)
{
  size_t i;
  for (i = 0; i < rlimit_names_n; i++)
    if (!strcmp(s, rlimit_names[i].name)) return &rlimit_names[i];
  return 0;
}

rlimit_name const *rlimit_from_resource(int resource)
{
  size_t i;
  for (i = 0; i < rlimit_names_n; i++)
    if (rlimit_names[i].resource == resource) return &rlimit_names[i];
  return 0;
}

/* The kernel's capabilities by number (linux/capability.h, through
 * Linux 6.x): the names setcap, capsh and /proc show, without "cap_".
 * Our own table rather than libcap's text functions: those pull its name
 * hash and stdio into a static PID 1, which has neither otherwise. */
static char const *const cap_names[] = {
  "chown", "dac_override", "dac_read_search", "fowner", "fsetid", "kill", "setgid", "setuid",
  "setpcap", "linux_immutable", "net_bind_service", "net_broadcast", "net_admin", "net_raw",
  "ipc_lock", "ipc_owner", "sys_module", "sys_rawio", "sys_chroot", "sys_ptrace", "sys_pacct",
  "sys_admin", "sys_boot", "sys_nice", "sys_resource", "sys_time", "sys_tty_config", "mknod",
  "lease", "audit_write", "audit_control", "setfcap", "mac_override", "mac_admin", "syslog",
  "wake_alarm", "block_suspend", "audit_read", "perfmon", "bpf", "checkpoint_restore",
};
unsigned const cap_names_n = N(cap_names);

/* A capability's name, any case, with or without "cap_"; exact (no
 * prefix of a name, no number). */
int cap_from_text_name(char const *s, unsigned *cap)
{
  unsigned i;
  if (!strncasecmp(s, "cap_", 4)) s += 4;
  for (i = 0; i < N(cap_names); i++)
    if (!strcasecmp(s, cap_names[i])) {
      *cap = i;
      return 0;
    }
  return -1;
}

/* "cap_NAME", or the number for one the table does not know yet */
char *cap_name(unsigned cap, char *buf, size_t len)
{
  if (cap < N(cap_names)) snprintf(buf, len, "cap_%s", cap_names[cap]);
  else snprintf(buf, len, "%u", cap);
  return buf;
}

char *caps_format(uint64_t mask, char *buf, size_t len)
{
  size_t w = 0;
  unsigned c;
  char one[64];
  if (!len) return buf;
  buf[0] = 0;
  if (!mask) {
    snprintf(buf, len, "none");
    return buf;
  }
  for (c = 0; c < 64; c++) {
    if (!(mask & ((uint64_t)1 << c))) continue;
    int r = snprintf(buf + w, len - w, "%s%s", w ? "," : "", cap_name(c, one, sizeof one));
    if (r < 0 || (size_t)r >= len - w) {
      if (len > 4) snprintf(buf + len - 4, 4, "...");
      break;
    }
    w += (size_t)r;
  }
  return buf;
}

/* conf/names.c -- see names.h. */
#include <ctype.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/capability.h>
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
  { "host", NET_HOST }, { "none", NET_NONE }, { "netns:NAME", NET_NAMED }, { 0, 0 },
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

/* libcap's cap_from_name() accepts a prefix ("cap_net_rawx" reads as
 * cap_net_raw) and numbers; a name is accepted here only when libcap's own
 * spelling of the result is the whole normalised input. */
int cap_from_text_name(char const *s, unsigned *cap)
{
  char want[64], got[64];
  size_t i, n = strlen(s);
  cap_value_t v;

  if (!n || n > 40) return -1;
  if (!strncasecmp(s, "cap_", 4)) {
    s += 4;
    n -= 4;
  }
  memcpy(want, "cap_", 4);
  for (i = 0; i < n; i++) {
    unsigned char c = (unsigned char)s[i];
    if (!isalpha(c) && c != '_') return -1;
    want[4 + i] = (char)tolower(c);
  }
  want[4 + n] = 0;
  if (cap_from_name(want, &v) < 0 || v < 0 || (unsigned)v > 63) return -1;
  if (strcmp(cap_name((unsigned)v, got, sizeof got), want)) return -1;
  *cap = (unsigned)v;
  return 0;
}

char *cap_name(unsigned cap, char *buf, size_t len)
{
  char *t = cap_to_name((cap_value_t)cap);
  snprintf(buf, len, "%s", t ? t : "?");
  if (t) cap_free(t);
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

/* engine/privilege.c -- see privilege.h.
 *
 * Raw syscalls, not libc's setgroups()/setresuid(): musl broadcasts those
 * to every thread with locks held, which a child of fork() or vfork() must
 * not depend on.  Capability sets are read and written with capget/capset
 * directly (libcap would allocate). */
#include <errno.h>
#include <fcntl.h>
#include <linux/keyctl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>
#include <linux/capability.h>
#include <linux/securebits.h>

#include "../conf/names.h"
#include "engine.h"
#include "sysnum.h"

#ifdef PRIV_FAULT
int priv_fault_stage = -1;
#endif

int priv_caps_get(priv_caps *c)
{
  struct __user_cap_header_struct h = { _LINUX_CAPABILITY_VERSION_3, 0 };
  struct __user_cap_data_struct d[2];
  if (syscall(SYS_capget, &h, d) < 0) return -1;
  c->eff = d[0].effective | (uint64_t)d[1].effective << 32;
  c->prm = d[0].permitted | (uint64_t)d[1].permitted << 32;
  c->inh = d[0].inheritable | (uint64_t)d[1].inheritable << 32;
  return 0;
}

static int caps_set(priv_caps const *c)
{
  struct __user_cap_header_struct h = { _LINUX_CAPABILITY_VERSION_3, 0 };
  struct __user_cap_data_struct d[2] = {
    { (uint32_t)c->eff, (uint32_t)c->prm, (uint32_t)c->inh },
    { (uint32_t)(c->eff >> 32), (uint32_t)(c->prm >> 32), (uint32_t)(c->inh >> 32) },
  };
  return (int)syscall(SYS_capset, &h, d);
}

unsigned priv_last_cap(void)
{
  char buf[16];
  unsigned c;
  ssize_t r;
  int fd = open("/proc/sys/kernel/cap_last_cap", O_RDONLY | O_CLOEXEC);
  if (fd >= 0) {
    r = read(fd, buf, sizeof buf - 1);
    close(fd);
    if (r > 0) {
      buf[r] = 0;
      c = (unsigned)strtoul(buf, 0, 10);
      if (c > 0 && c < 64) return c;
    }
  }
  /* no /proc: the highest cap the bounding set knows of */
  for (c = 0; c < 63 && prctl(PR_CAPBSET_READ, c + 1, 0, 0, 0) >= 0; c++) ;
  return c;
}

int priv_failed(priv_fail *f, int stage, int arg)
{
  f->stage = stage;
  f->err = errno;
  f->arg = arg;
  return -1;
}

/* A stage skips what is already true, read from the kernel, so that
 * capexec runs unprivileged for a spec that changes nothing, and capinit
 * in a container that gave it only what its services need (issue 39). */
static int same_groups(svc const *s)
{
  gid_t cur[4096];
  long n = syscall(SYS_getgroups, 4096, cur);
  size_t i, j;
  if (n < 0 || (size_t)n != s->ngroups) return 0;
  for (i = 0; i < s->ngroups; i++) {
    for (j = 0; j < (size_t)n && cur[j] != s->groups[i]; j++) ;
    if (j == (size_t)n) return 0;
  }
  return 1;
}

static int same_ids(int uid, uint32_t want)
{
  unsigned r, e, sv;
  long rc = syscall(uid ? SYS_getresuid : SYS_getresgid, &r, &e, &sv);
  return rc == 0 && r == want && e == want && sv == want;
}

uint64_t priv_signals_to_reset = UINT64_MAX;

/* Raw rt_sigaction and rt_sigprocmask: libc's wrappers keep state (musl's
 * SIGABRT lock), and the engine may run in a child that shares capinit's
 * memory.  Only the signals of priv_signals_to_reset get SIG_DFL: execve
 * resets caught signals itself and keeps ignored ones. */
int priv_reset_signals(void)
{
  struct k_sigaction dfl = { SIG_DFL, 0, 0, { 0, 0 } };
  uint64_t none = 0;
  int sig;
  for (sig = 1; sig < 65; sig++) {
    if (sig == SIGKILL || sig == SIGSTOP || !(priv_signals_to_reset & (UINT64_C(1) << (sig - 1)))) continue;
    if (syscall(SYS_rt_sigaction, sig, &dfl, 0, sizeof dfl.mask) < 0 && errno != EINVAL) return -1;
  }
  return (int)syscall(SYS_rt_sigprocmask, SIG_SETMASK, &none, 0, sizeof none);
}

#define STAGE(x) STAGE_START(f, x)

/* 1. the process itself: session, signals; the container, while the
 * child still holds capinit's privilege (the service's directory is in
 * it); directory, umask, rlimits */
static int apply_process(svc const *s, unsigned flags, priv_fail *f)
{
  STAGE(STAGE_SESSION);
  if ((flags & PRIV_SESSION) && syscall(SYS_setsid) < 0) return priv_failed(f, STAGE_SESSION, -1);
  /* and a session keyring of its own (systemd's KeyringMode=private):
   * nothing of capinit's, nor of another service's (a kernel without
   * keys has none to share) */
  if ((flags & PRIV_SESSION) && syscall(SYS_keyctl, KEYCTL_JOIN_SESSION_KEYRING, 0) < 0 && errno != ENOSYS)
    return priv_failed(f, STAGE_SESSION, -1);
  STAGE(STAGE_SIGNALS);
  if ((flags & PRIV_SIGNALS) && priv_reset_signals() < 0) return priv_failed(f, STAGE_SIGNALS, -1);
  if (container_apply(s->ct, flags & PRIV_CARD_TAKEN, f) < 0) return -1;
  STAGE(STAGE_DIRECTORY);
  if ((s->directory || (flags & PRIV_DEFAULTS)) && syscall(SYS_chdir, s->directory ? s->directory : "/") < 0)
    return priv_failed(f, STAGE_DIRECTORY, -1);
  STAGE(STAGE_UMASK);
  if (s->umask_set || (flags & PRIV_DEFAULTS)) syscall(SYS_umask, s->umask);
  STAGE(STAGE_RLIMITS);
  for (int i = 0; s->rlimit && i < RLIM_NLIMITS; i++) {
    struct rlimit rl;
    if (!s->rlimit[i].set) continue;
    rl.rlim_cur = s->rlimit[i].soft;
    rl.rlim_max = s->rlimit[i].hard;
    if (syscall(SYS_prlimit64, 0, i, &rl, 0) < 0) return priv_failed(f, STAGE_RLIMITS, i);
  }
  return 0;
}

/* 2. keep the permitted set across the switch away from uid 0 (not needed,
 * and maybe locked, when no-setuid-fixup is already on); 3. the ids */
static int apply_ids(svc const *s, priv_fail *f)
{
  int bits, kept = 0;
  STAGE(STAGE_KEEPCAPS);
  bits = prctl(PR_GET_SECUREBITS, 0, 0, 0, 0);
  if (bits < 0) return priv_failed(f, STAGE_KEEPCAPS, -1);
  if (geteuid() == 0 && s->uid != 0 && !(bits & (1 << SECURE_NO_SETUID_FIXUP))) {
    if (prctl(PR_SET_KEEPCAPS, 1, 0, 0, 0) < 0) return priv_failed(f, STAGE_KEEPCAPS, -1);
    kept = 1;
  }
  STAGE(STAGE_GROUPS);
  if (!same_groups(s) && syscall(SYS_setgroups, s->ngroups, s->groups) < 0) return priv_failed(f, STAGE_GROUPS, -1);
  STAGE(STAGE_GID);
  if (!same_ids(0, s->gid) && syscall(SYS_setresgid, s->gid, s->gid, s->gid) < 0)
    return priv_failed(f, STAGE_GID, -1);
  STAGE(STAGE_UID);
  if (!same_ids(1, s->uid) && syscall(SYS_setresuid, s->uid, s->uid, s->uid) < 0)
    return priv_failed(f, STAGE_UID, -1);
  /* keep-caps is a securebit: left on, step 8 would need CAP_SETPCAP to
   * clear it for a spec that wants it off (a launcher without setpcap) */
  if (kept && prctl(PR_SET_KEEPCAPS, 0, 0, 0, 0) < 0) return priv_failed(f, STAGE_UID, -1);
  return 0;
}

/* 4. the uid change cleared the effective set: effective := permitted;
 * 5. bounding; 6. inheritable; 7. ambient: exactly the declared set,
 * whatever was inherited.  c: the sets after 6. */
static int apply_sets(svc const *s, unsigned last_cap, priv_caps *c, priv_fail *f)
{
  unsigned cap;
  STAGE(STAGE_EFFECTIVE);
  if (priv_caps_get(c) < 0) return priv_failed(f, STAGE_EFFECTIVE, -1);
  if (c->eff != c->prm) {
    c->eff = c->prm;
    if (caps_set(c) < 0) return priv_failed(f, STAGE_EFFECTIVE, -1);
  }
  STAGE(STAGE_BOUNDING);
  for (cap = 0; cap <= last_cap; cap++) {
    if ((s->bounding & ((uint64_t)1 << cap)) || prctl(PR_CAPBSET_READ, cap, 0, 0, 0) == 0) continue;
    if (prctl(PR_CAPBSET_DROP, cap, 0, 0, 0) < 0) return priv_failed(f, STAGE_BOUNDING, (int)cap);
  }
  STAGE(STAGE_INHERITABLE);
  if (c->inh != s->caps) {
    c->inh = s->caps;
    if (caps_set(c) < 0) return priv_failed(f, STAGE_INHERITABLE, -1);
  }
  STAGE(STAGE_AMBIENT);
  if (prctl(PR_CAP_AMBIENT, PR_CAP_AMBIENT_CLEAR_ALL, 0, 0, 0) < 0)
    return priv_failed(f, STAGE_AMBIENT, -1);
  for (cap = 0; cap < 64; cap++) {
    if (!(s->caps & ((uint64_t)1 << cap))) continue;
    if (prctl(PR_CAP_AMBIENT, PR_CAP_AMBIENT_RAISE, cap, 0, 0) < 0)
      return priv_failed(f, STAGE_AMBIENT, (int)cap);
  }
  return 0;
}

/* 8. securebits, after the ambient raise (no-cap-ambient-raise is valid
 * with capabilities); 9. no launcher privilege survives into a service
 * that is not legacy-mode root (F2: nnp only bounds P' by the launcher's
 * P); 10. no_new_privs */
static int apply_lock(svc const *s, priv_caps *c, priv_fail *f)
{
  int bits, legacy_root = s->uid == 0 && !(s->securebits & (1u << SECURE_NOROOT));
  STAGE(STAGE_SECUREBITS);
  bits = prctl(PR_GET_SECUREBITS, 0, 0, 0, 0);
  if (bits < 0) return priv_failed(f, STAGE_SECUREBITS, -1);
  if ((unsigned)bits != s->securebits && prctl(PR_SET_SECUREBITS, s->securebits, 0, 0, 0) < 0)
    return priv_failed(f, STAGE_SECUREBITS, -1);
  /* the last stage that holds capinit's cap_sys_admin: loading the
   * filter then needs no no_new_privs (file capabilities keep working) */
  STAGE(STAGE_FILTER);
  if (filter_apply(s, f) < 0) return -1;
  STAGE(STAGE_CAPS);
  if (!legacy_root) {
    c->eff = c->prm = c->inh = s->caps;
    if (caps_set(c) < 0) return priv_failed(f, STAGE_CAPS, -1);
  }
  STAGE(STAGE_NNP);
  if (s->no_new_privs && prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) < 0)
    return priv_failed(f, STAGE_NNP, -1);
  return 0;
}

int priv_apply(svc const *s, unsigned flags, unsigned last_cap, priv_fail *f)
{
  priv_caps c;
  if (apply_process(s, flags, f) < 0 || apply_ids(s, f) < 0 || apply_sets(s, last_cap, &c, f) < 0 ||
      apply_lock(s, &c, f) < 0)
    return -1;
  return 0;
}

static void listen_pid(char *const *envp);

void priv_exec_only(char *const *argv, char *const *envp, priv_fail *f)
{
  listen_pid(envp);
  if (!PRIV_FAULT_HIT(STAGE_EXEC)) syscall(SYS_execve, argv[0], argv, envp);
  priv_failed(f, STAGE_EXEC, -1);
}

void priv_exec(svc const *s, unsigned flags, unsigned last_cap,
               char *const *argv, char *const *envp, priv_fail *f)
{
  if (priv_apply(s, flags, last_cap, f) < 0) return;
  priv_exec_only(argv, envp, f);
}

char *priv_fail_describe(priv_fail const *f, svc const *s, char *buf, size_t len)
{
  char what[256];
  rlimit_name const *rl;
  switch (f->stage) {
    case STAGE_SESSION:
      if (f->arg == PRIV_ARG_STDIO) snprintf(buf, len, "set up the standard descriptors (0, 1, 2) and the readiness descriptor");
      else snprintf(buf, len, "create a new session");
      break;
    case STAGE_SIGNALS: snprintf(buf, len, "reset signal dispositions and mask"); break;
    case STAGE_NAMESPACES: case STAGE_HOSTNAME: case STAGE_NETWORK: case STAGE_MOUNTS:
    case STAGE_ROOT: case STAGE_PROC: case STAGE_READONLY: case STAGE_LISTEN:
      container_describe(f, s->ct, buf, len);
      break;
    case STAGE_CARD: case STAGE_ADDRESS: case STAGE_ROUTE: netcard_describe(f, s->ct, buf, len); break;
    case STAGE_DIRECTORY:
      snprintf(buf, len, "change directory to %s", s->directory ? s->directory : "/");
      break;
    case STAGE_UMASK: snprintf(buf, len, "set umask %04o", (unsigned)s->umask); break;
    case STAGE_RLIMITS:
      rl = f->arg >= 0 ? rlimit_from_resource(f->arg) : 0;
      if (rl) snprintf(buf, len, "set rlimit-%s", rl->name);
      else snprintf(buf, len, "set resource limits");
      break;
    case STAGE_KEEPCAPS: snprintf(buf, len, "set keep-caps before leaving uid 0"); break;
    case STAGE_GROUPS: snprintf(buf, len, "set the supplementary groups (%zu)", s->ngroups); break;
    case STAGE_GID: snprintf(buf, len, "set gid %u", (unsigned)s->gid); break;
    case STAGE_UID: snprintf(buf, len, "set uid %u", (unsigned)s->uid); break;
    case STAGE_EFFECTIVE: snprintf(buf, len, "raise the effective set to the permitted set"); break;
    case STAGE_BOUNDING:
      snprintf(buf, len, "drop %s from the bounding set",
               f->arg >= 0 ? cap_name((unsigned)f->arg, what, sizeof what) : "a capability");
      break;
    case STAGE_INHERITABLE:
      snprintf(buf, len, "set inheritable capabilities %s", caps_format(s->caps, what, sizeof what));
      break;
    case STAGE_AMBIENT:
      if (f->arg >= 0) snprintf(buf, len, "raise ambient %s", cap_name((unsigned)f->arg, what, sizeof what));
      else snprintf(buf, len, "clear ambient capabilities");
      break;
    case STAGE_SECUREBITS:
      snprintf(buf, len, "set securebits %s (0x%x)",
               securebits_format(s->securebits, what, sizeof what), s->securebits);
      break;
    case STAGE_CAPS:
      snprintf(buf, len, "set permitted, effective and inheritable capabilities to %s",
               caps_format(s->caps, what, sizeof what));
      break;
    case STAGE_FILTER: snprintf(buf, len, "load the system-call filter"); break;
    case STAGE_NNP: snprintf(buf, len, "set no_new_privs"); break;
    case STAGE_EXEC: snprintf(buf, len, "execute %s", s->argv ? s->argv[0] : "the command"); break;
    default: snprintf(buf, len, "start"); break;
  }
  return buf;
}

/* The capability a stage needs to change anything (inheritable: the
 * service's own), and what the service's file can say instead. */
static struct { unsigned char cap; char const *instead; } const lacks_row[STAGE_COUNT] = {
  [STAGE_NAMESPACES] = { CAP_SYS_ADMIN, "drop its container keys from" },
  [STAGE_GROUPS] = { CAP_SETGID, "give capinit's own groups to" },
  [STAGE_GID] = { CAP_SETGID, "give capinit's own group to" },
  [STAGE_UID] = { CAP_SETUID, "give capinit's own user to" },
  [STAGE_BOUNDING] = { CAP_SETPCAP, "set bounding = all in" },
  [STAGE_INHERITABLE] = { 64, "drop it from capabilities in" },
  [STAGE_SECUREBITS] = { CAP_SETPCAP, "drop securebits from" },
};

char *priv_lacks_text(int stage, svc const *s, uint64_t bnd, char *buf, size_t len)
{
  char name[64];
  uint64_t want;
  if (stage < 0 || stage >= STAGE_COUNT || !lacks_row[stage].instead) return 0;
  want = lacks_row[stage].cap < 64 ? (uint64_t)1 << lacks_row[stage].cap : s->caps;
  if (!(want &= ~bnd)) return 0;
  /* the file is NAME.svc; a -k spec has no name */
  snprintf(buf, len, "capinit holds no %s (the container's bounding set): add it to the container, or %s %s%s",
           cap_name((unsigned)__builtin_ctzll(want), name, sizeof name), lacks_row[stage].instead,
           s->name[0] ? s->name : "the spec given with -k", s->name[0] ? ".svc" : "");
  return buf;
}

char *priv_fail_reason(priv_fail const *f, svc const *s, char *buf, size_t len)
{
  static char const unable[] = "unable to ";
  size_t n;
  if (f->err == EPERM && priv_lacks_text(f->stage, s, svc_own_bounding(), buf, len)) return buf;
  memcpy(buf, unable, sizeof unable - 1);
  priv_fail_describe(f, s, buf + sizeof unable - 1, len - (sizeof unable - 1));
  n = strlen(buf);
  snprintf(buf + n, len - n, ": %s", strerror(f->err));
  return buf;
}

int priv_fail_exit_code(priv_fail const *f)
{
  if (f->stage == STAGE_EXEC && f->err == ENOENT) return 127;
  return stage_exit_status(f->stage);
}

char **priv_environment(svc const *s, char const *extra)
{
  static char const path[] = "PATH=/usr/sbin:/usr/bin:/sbin:/bin";
  size_t n = 0, i, has_path = 0, nlisten = s->ct ? s->ct->nlisten : 0, slots = s->nenv + 5;
  char **env, *text;
  for (i = 0; i < s->nenv; i++) has_path |= !strncmp(s->env[i], "PATH=", 5);
  /* the pointers, then the text of LISTEN_PID (filled by priv_exec_only)
   * and LISTEN_FDS: one block, one free() */
  env = calloc(1, slots * sizeof *env + 2 * PRIV_LISTEN_TEXT);
  if (!env) return 0;
  if (nlisten) {
    text = (char *)(env + slots);
    memcpy(text, PRIV_LISTEN_PID, sizeof PRIV_LISTEN_PID - 1);
    env[n++] = text;
    text += PRIV_LISTEN_TEXT;
    snprintf(text, PRIV_LISTEN_TEXT, "LISTEN_FDS=%zu", nlisten);
    env[n++] = text;
  }
  if (!has_path) env[n++] = (char *)path;
  for (i = 0; i < s->nenv; i++) env[n++] = s->env[i];
  if (extra) env[n++] = (char *)extra;
  env[n] = 0;
  return env;
}

/* LISTEN_PID is the pid of the process that executes the command, which
 * only that process knows (under a reaper, its pid in the namespace). */
static void listen_pid(char *const *envp)
{
  char *p = envp[0], digits[24];
  long pid;
  size_t n = 0, i;
  if (!p || strncmp(p, PRIV_LISTEN_PID, sizeof PRIV_LISTEN_PID - 1) || p[sizeof PRIV_LISTEN_PID - 1]) return;
  for (pid = syscall(SYS_getpid); pid > 0 && n < sizeof digits; pid /= 10) digits[n++] = (char)('0' + pid % 10);
  p += sizeof PRIV_LISTEN_PID - 1;
  for (i = 0; i < n; i++) p[i] = digits[n - 1 - i];
  p[n] = 0;
}

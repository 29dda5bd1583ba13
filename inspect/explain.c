/* inspect/explain.c -- see explain.h.
 *
 * Two models, each following the kernel's own decisions step by step:
 * the engine's syscalls (capset's and prctl's permission rules, the setuid
 * fixups of capabilities(7)), then exec (bprm_fill_uid and the commoncap
 * exec rule).  Tests compare every prediction with what a probe started by
 * capexec reports from the kernel. */
#include <stdarg.h>
#include <stdio.h>
#include <arpa/inet.h>
#include <string.h>
#include <sys/stat.h>
#include <linux/capability.h>
#include <linux/securebits.h>

#include "explain.h"
#include "../conf/names.h"
#include "../conf/syscalls.h"

#define BIT(c) ((uint64_t)1 << (c))
#define HAS(set, c) (((set) & BIT(c)) != 0)

static uint64_t all_caps(unsigned last_cap)
{
  return last_cap >= 63 ? UINT64_MAX : BIT(last_cap + 1) - 1;
}

static void say(prediction *p, char const *fmt, ...) __attribute__((format(printf, 2, 3)));
static void say(prediction *p, char const *fmt, ...)
{
  va_list ap;
  if (p->nexposure >= EXPLAIN_LINES_MAX) return;
  va_start(ap, fmt);
  vsnprintf(p->exposure[p->nexposure++], sizeof p->exposure[0], fmt, ap);
  va_end(ap);
}

static void refuse(prediction *p, int stage, char const *fmt, ...) __attribute__((format(printf, 3, 4)));
static void refuse(prediction *p, int stage, char const *fmt, ...)
{
  va_list ap;
  if (p->refused) return;
  p->refused = 1;
  p->stage = stage;
  va_start(ap, fmt);
  vsnprintf(p->reason, sizeof p->reason, fmt, ap);
  va_end(ap);
}

static int in_groups(cred_state const *c, uint32_t gid)
{
  size_t i;
  if (c->egid == gid) return 1;
  for (i = 0; i < c->ngroups; i++)
    if (c->groups[i] == gid) return 1;
  return 0;
}

static int same_group_list(cred_state const *c, svc const *s)
{
  size_t i, j;
  if (c->ngroups != s->ngroups) return 0;
  for (i = 0; i < s->ngroups; i++) {
    for (j = 0; j < c->ngroups && c->groups[j] != s->groups[i]; j++) ;
    if (j == c->ngroups) return 0;
  }
  return 1;
}

/* setres[ug]id without the capability: each new id must be one of the
 * current three. */
static int ids_allowed(uint32_t r, uint32_t e, uint32_t sv, uint32_t want)
{
  return want == r || want == e || want == sv;
}

/* The engine, stage by stage (engine/privilege.c), on a model of the
 * process: a function for each group of stages, each 0, or -1 after
 * refuse(). */

/* namespaces and mounts need cap_sys_admin */
static int model_container(svc const *s, cred_state const *x, prediction *p)
{
  if (container_enters_namespaces(s->ct) && !HAS(x->eff, CAP_SYS_ADMIN)) {
    refuse(p, STAGE_NAMESPACES, "the container's namespaces need cap_sys_admin, which the launcher lacks");
    return -1;
  }
  return 0;
}

/* keepcaps, set only across the uid switch: *kept says it was */
static int model_keepcaps(svc const *s, cred_state *x, prediction *p, int *kept)
{
  *kept = 0;
  if (x->euid != 0 || s->uid == 0 || (x->securebits & (1u << SECURE_NO_SETUID_FIXUP))) return 0;
  if (x->securebits & (1u << SECURE_KEEP_CAPS_LOCKED)) {
    refuse(p, STAGE_KEEPCAPS, "keep-caps is locked in the launcher");
    return -1;
  }
  x->securebits |= 1u << SECURE_KEEP_CAPS;
  *kept = 1;
  return 0;
}

static int model_groups_gid(svc const *s, cred_state *x, prediction *p)
{
  size_t i;
  if (!HAS(x->eff, CAP_SETGID) && !same_group_list(x, s)) {
    refuse(p, STAGE_GROUPS, "setting supplementary groups needs cap_setgid, which the launcher lacks");
    return -1;
  }
  if (s->ngroups > EXPLAIN_GROUPS_MAX) {
    refuse(p, STAGE_GROUPS, "more than %d groups: not modelled", EXPLAIN_GROUPS_MAX);
    return -1;
  }
  for (i = 0; i < s->ngroups; i++) x->groups[i] = s->groups[i];
  x->ngroups = s->ngroups;
  if (!HAS(x->eff, CAP_SETGID) && !ids_allowed(x->rgid, x->egid, x->sgid, s->gid)) {
    refuse(p, STAGE_GID, "setting gid %u needs cap_setgid, which the launcher lacks", (unsigned)s->gid);
    return -1;
  }
  x->rgid = x->egid = x->sgid = s->gid;
  return 0;
}

/* the uid, and what the kernel does to the capabilities then (F7) */
static int model_uid(svc const *s, cred_state *x, prediction *p, int kept)
{
  int old_root = x->ruid == 0 || x->euid == 0 || x->suid == 0, old_euid0 = x->euid == 0;
  if (!HAS(x->eff, CAP_SETUID) && !ids_allowed(x->ruid, x->euid, x->suid, s->uid)) {
    refuse(p, STAGE_UID, "setting uid %u needs cap_setuid, which the launcher lacks", (unsigned)s->uid);
    return -1;
  }
  x->ruid = x->euid = x->suid = s->uid;
  if (!(x->securebits & (1u << SECURE_NO_SETUID_FIXUP))) {
    /* capabilities(7), "Effect of user ID changes on capabilities" */
    if (old_root && s->uid != 0) {
      if (!(x->securebits & (1u << SECURE_KEEP_CAPS))) x->prm = x->eff = 0;
      x->amb = 0;
    }
    if (old_euid0 && s->uid != 0) x->eff = 0;
    if (!old_euid0 && s->uid == 0) x->eff = x->prm;
  }
  if (kept) x->securebits &= ~(1u << SECURE_KEEP_CAPS);
  x->eff = x->prm;  /* effective := permitted */
  return 0;
}

/* the bounding set, then the inheritable set (capset's rules) */
static int model_bounding_inheritable(svc const *s, cred_state *x, uint64_t mask, prediction *p)
{
  uint64_t drop = x->bnd & ~s->bounding & mask;
  char name[64];
  if (drop && !HAS(x->eff, CAP_SETPCAP)) {
    refuse(p, STAGE_BOUNDING, "dropping from the bounding set needs cap_setpcap, which the launcher lacks");
    return -1;
  }
  x->bnd &= ~drop;
  if (!HAS(x->eff, CAP_SETPCAP) && (s->caps & ~(x->inh | x->prm))) {
    refuse(p, STAGE_INHERITABLE, "%s: not in the launcher's permitted set",
           caps_format(s->caps & ~(x->inh | x->prm), name, sizeof name));
    return -1;
  }
  if (s->caps & ~(x->inh | x->bnd)) {
    refuse(p, STAGE_INHERITABLE, "%s: not in the bounding set",
           caps_format(s->caps & ~(x->inh | x->bnd), name, sizeof name));
    return -1;
  }
  x->inh = s->caps;
  x->amb &= x->prm & x->inh;
  return 0;
}

static int model_ambient(svc const *s, cred_state *x, prediction *p)
{
  char name[64];
  x->amb = 0;
  for (unsigned c = 0; c < 64; c++) {
    if (!HAS(s->caps, c)) continue;
    if (!HAS(x->prm, c) || (x->securebits & (1u << SECURE_NO_CAP_AMBIENT_RAISE))) {
      refuse(p, STAGE_AMBIENT, "raising ambient %s: %s", cap_name(c, name, sizeof name),
             HAS(x->prm, c) ? "no-cap-ambient-raise is set" : "not in the permitted set");
      return -1;
    }
    x->amb |= BIT(c);
  }
  return 0;
}

static int model_securebits(svc const *s, cred_state *x, prediction *p)
{
  unsigned old = x->securebits, locks = old & 0xaau;
  if (old == s->securebits) return 0;
  if (!HAS(x->eff, CAP_SETPCAP) || ((locks >> 1) & (old ^ s->securebits)) || (locks & ~s->securebits)) {
    refuse(p, STAGE_SECUREBITS, "changing securebits from 0x%x to 0x%x: %s", old, s->securebits,
           HAS(x->eff, CAP_SETPCAP) ? "locked bits cannot change" : "needs cap_setpcap");
    return -1;
  }
  x->securebits = s->securebits;
  return 0;
}

/* the filter (a launcher without cap_sys_admin sets no_new_privs to load
 * it), the final sets (not for legacy root, which keeps root's),
 * no_new_privs */
static int model_caps(svc const *s, cred_state *x, prediction *p, int legacy_root)
{
  if (syscalls_filtered(s->syscalls_deny, s->user_namespaces, s->suid_refused) && !HAS(x->eff, CAP_SYS_ADMIN)) x->nnp = 1;
  if (!legacy_root) {
    if (s->caps & ~x->prm) {
      refuse(p, STAGE_CAPS, "capabilities outside the permitted set");
      return -1;
    }
    x->prm = x->eff = x->inh = s->caps;
    x->amb &= x->prm & x->inh;
  }
  if (s->no_new_privs) x->nnp = 1;
  return 0;
}

static int engine(svc const *s, cred_state *x, kernel_facts const *k, prediction *p)
{
  int legacy_root = s->uid == 0 && !(s->securebits & (1u << SECURE_NOROOT)), kept;
  if (model_container(s, x, p) < 0 || model_keepcaps(s, x, p, &kept) < 0 || model_groups_gid(s, x, p) < 0 ||
      model_uid(s, x, p, kept) < 0 || model_bounding_inheritable(s, x, all_caps(k->last_cap), p) < 0 ||
      model_ambient(s, x, p) < 0 || model_securebits(s, x, p) < 0 || model_caps(s, x, p, legacy_root) < 0)
    return -1;
  return 0;
}

static int may_execute(cred_state const *x, exec_target const *t)
{
  mode_t m = t->mode;
  if (!S_ISREG(m)) return 0;
  if (x->euid == 0 && !(x->securebits & (1u << SECURE_NOROOT)) && HAS(x->eff, CAP_DAC_OVERRIDE))
    return (m & 0111) != 0;
  if (HAS(x->eff, CAP_DAC_OVERRIDE)) return (m & 0111) != 0;
  if (x->euid == t->uid) return (m & 0100) != 0;
  if (in_groups(x, t->gid)) return (m & 0010) != 0;
  return (m & 0001) != 0;
}

int explain_needs_setgid_rule(svc const *s, cred_state const *launcher, exec_target const *t)
{
  (void)launcher;
  if (t->err || t->nosuid || s->no_new_privs || !s->caps) return 0;
  if (!(t->mode & S_ISGID) || !(t->mode & S_IXGRP)) return 0;
  if (t->gid == s->gid) return 0;
  {
    size_t i;
    for (i = 0; i < s->ngroups; i++)
      if (s->groups[i] == t->gid) return 1;
  }
  return 0;
}

/* exec: bprm_fill_uid(), then the capability rule. */
static void exec_rule(cred_state *x, exec_target const *t, kernel_facts const *k, prediction *p)
{
  cred_state old = *x;
  uint64_t newp = 0, newa;
  int effective = 0, has_fcap = 0, is_setid, id_changed, gained;
  char a[320], b[64];

  if (!t->nosuid && !x->nnp) {
    if (t->mode & S_ISUID) x->euid = t->uid;
    if ((t->mode & S_ISGID) && (t->mode & S_IXGRP)) x->egid = t->gid;
  }
  if (t->fcaps && !t->nosuid && !(t->fcaps == 3 && t->f_rootid != 0)) {
    if (t->fcaps_bad) {
      refuse(p, STAGE_EXEC, "%s: its security.capability attribute is invalid", t->path);
      return;
    }
    effective = t->f_eff;
    has_fcap = 1;
    newp = (old.bnd & t->f_prm) | (old.inh & t->f_inh);
    if (effective && (t->f_prm & ~newp)) {
      refuse(p, STAGE_EXEC, "%s has file capabilities %s+ep outside what the service may hold (bounding set): execve fails with EPERM (F5)",
             t->path, caps_format(t->f_prm & ~newp, b, sizeof b));
      return;
    }
  }
  if (!(old.securebits & (1u << SECURE_NOROOT))) {
    int suid_root = x->ruid != 0 && x->euid == 0;
    if (!(has_fcap && suid_root)) {
      if (x->euid == 0 || x->ruid == 0) newp = old.bnd | old.inh;
      if (x->euid == 0) effective = 1;
    }
  }
  gained = (newp & ~old.prm) != 0;
  id_changed = x->euid != old.ruid || x->egid != old.rgid;
  is_setid = x->euid != old.ruid ||
             (x->egid != old.rgid &&
              (k->setgid_rule != SETGID_RULE_KEEPS || !in_groups(&old, x->egid)));
  if ((is_setid || gained) && x->nnp) {
    x->euid = x->ruid;
    x->egid = x->rgid;
    newp &= old.prm;
  }
  x->suid = x->euid;
  x->sgid = x->egid;
  newa = (has_fcap || is_setid) ? 0 : old.amb;
  newp |= newa;
  x->prm = newp;
  x->eff = effective ? newp : newa;
  x->amb = newa;
  x->securebits &= ~(1u << SECURE_KEEP_CAPS);
  p->at_secure = id_changed || (x->ruid != 0 && (effective || (newp & ~newa)));
  (void)a;
}

/* Its /dev, in words: its own (what it holds), or capinit's under a
 * read-only tree (the warning: that one is writable). */
static void dev_words(svc_container const *ct, prediction *p)
{
  char list[1024];
  size_t i, n = 0;
  list[0] = 0;
  for (i = 0; i < ct->ndevices && n < sizeof list; i++)
    n += (size_t)snprintf(list + n, sizeof list - n, ", %s", ct->devices[i].path);
  if (container_own_dev(ct))
    say(p, "its own /dev (a small tmpfs, nosuid,nodev,noexec): null, zero, full, random, urandom, tty, its own pts and "
           "shm%s%s, and this system's /dev/log: no disk, no /dev/kmsg, no console, and a node it makes there opens nothing",
        container_own_mqueue(ct) ? ", its own mqueue" : "", list);
  else if (container_read_only(ct))
    say(p, "private-devices = no: this system's /dev stays writable for it: the disks root owns, /dev/kmsg, the console");
}

/* Its writable mounts (read-write paths, binds, root directory) are
 * nosuid,nodev, unless allow-suid = yes (filter_words warns then). */
static void writable_words(svc_container const *ct, prediction *p)
{
  size_t i;
  int writable = ct->root != 0 || (container_read_only(ct) && ct->nrw);
  for (i = 0; i < ct->nbinds; i++) writable |= !ct->binds[i].ro;
  if (writable && container_nosuid(ct))
    say(p, "its writable paths%s are nosuid,nodev: a set-id program or a device node there works as a plain file",
        ct->root ? " and its root directory" : "");
}

/* Its own /proc: its options, and what each does. */
static void proc_words(svc_container const *ct, prediction *p)
{
  ct_proc_opt const *o[CT_PROC_OPTS_MAX];
  char opts[256], why[1024];
  size_t i, k, n = 0;
  if (!container_own_proc(ct)) return;
  k = container_proc_opts(ct, o);
  why[0] = 0;
  for (i = 0; i < k && n < sizeof why; i++) n += (size_t)snprintf(why + n, sizeof why - n, "%s%s", i ? "; " : "", o[i]->why);
  say(p, "its own /proc, %s: %s", container_proc_text(ct, opts, sizeof opts), why);
}

/* What the container changes, in words. */
static void container_words(svc_container const *ct, prediction *p)
{
  char list[1024];
  size_t i, n;
  if (!ct) return;
  if (ct->root) {
    n = (size_t)snprintf(list, sizeof list, "%s", ct->nbinds ? ", and the binds" : "");
    say(p, "its / is %s: it sees nothing else of this system but a fresh /proc, a minimal /dev, an empty /tmp%s",
        ct->root, list);
  }
  if (container_read_only(ct)) {
    n = 0;
    list[0] = 0;
    for (i = 0; i < ct->nrw && n < sizeof list; i++)
      n += (size_t)snprintf(list + n, sizeof list - n, "%s%s", i ? ", " : "", ct->rw[i].path);
    for (i = 0; i < ct->nbinds && n < sizeof list; i++)
      if (!ct->binds[i].ro) n += (size_t)snprintf(list + n, sizeof list - n, "%s%s", n ? ", " : "", ct->binds[i].dst);
    say(p, "read-only file tree: writes fail with EROFS, whatever its uid and capabilities, but in %s/dev, its own /proc files%s%s%s",
        container_own_dev(ct) ? "its own " : "", container_own_tmp(ct) ? ", its own /tmp" : "", n ? " and " : "", list);
  }
  for (i = 0; i < ct->nbinds; i++)
    say(p, "%s of this system is mounted on %s, %s", ct->binds[i].src, ct->binds[i].dst,
        ct->binds[i].ro ? "read-only" : "writable");
  if (container_own_tmp(ct) && !ct->root) say(p, "its own empty /tmp: nothing in it is shared with other services");
  dev_words(ct, p);
  writable_words(ct, p);
  if (container_own_pids(ct))
    say(p, "its own PID namespace: it sees only its own processes, and can signal no other (its PID 1 is capinit's reaper)");
  proc_words(ct, p);
  if (ct->network == NET_NONE) say(p, "no network: its own network namespace, with only the loopback interface");
  else if (ct->network == NET_NAMED) say(p, "the network of %s (another service sets it up)", ct->netns);
  else if (container_card(ct)) {
    char a[INET_ADDRSTRLEN], g[INET_ADDRSTRLEN];
    inet_ntop(AF_INET, &ct->address, a, sizeof a);
    inet_ntop(AF_INET, &ct->gateway, g, sizeof g);
    say(p, "a card of its own: %s %s on the host's %s, address %s/%u, %s%s; with lo, nothing else in its own network namespace",
        ct->network == NET_IPVLAN ? "ipvlan" : "macvlan", CT_CARD_NAME, ct->parent, a, ct->prefix,
        ct->gateway.s_addr ? "default route via " : "no default route", ct->gateway.s_addr ? g : "");
  }
  if (ct->hostname) say(p, "its own host name: %s", ct->hostname);
  if (ct->private_ipc) say(p, "its own IPC namespace: no System V IPC or POSIX message queue is shared");
  if (ct->nlisten) {
    n = 0;
    list[0] = 0;
    for (i = 0; i < ct->nlisten && n < sizeof list; i++)
      n += (size_t)snprintf(list + n, sizeof list - n, "%s%s as descriptor %d", i ? ", " : "", ct->listen[i].text,
                            CT_LISTEN_FD + (int)i);
    say(p, "listening sockets made by capinit before the privilege drop (it needs no capability to bind them): "
           "%s (LISTEN_FDS=%zu)", list, ct->nlisten);
  }
}

/* The system-call filter, in words; a contained service without one is
 * warned about. */
static void filter_words(svc const *s, prediction *p)
{
  char list[256];
  int contained = container_contained(s);
  if (!syscalls_filtered(s->syscalls_deny, s->user_namespaces, s->suid_refused)) {
    if (contained)
      say(p, "user-namespaces = yes and no system-call filter: in a user namespace of its own it holds every capability, and reaches the kernel's namespaced code as root");
    return;
  }
  say(p, "system-call filter: %s; denied (EPERM): %s;%s a call through another ABI than the native one kills it",
      s->user_namespaces ? "user namespaces allowed"
                         : "no user namespace (unshare, clone and setns of one: EPERM; clone3: ENOSYS)",
      syscall_groups_format(s->syscalls_deny, list, sizeof list),
      s->suid_refused ? " no set-user-ID or set-group-ID mode can be given to a file (EPERM; openat2: ENOSYS);" : "");
  if (!container_nosuid(s->ct))
    say(p, "allow-suid = yes: it may make set-user-ID files, root's for a uid 0, in what it can write, and they work there: the next user who runs one is that file's owner");
  if (contained && !(s->syscalls_deny & (1u << SG_KEYRING)))
    say(p, "keyring calls allowed: a session keyring of its own, but the user keyring (@u) of uid %u is shared with "
           "every process of that uid",
        (unsigned)p->after.euid);
  if (s->user_namespaces && contained)
    say(p, "user-namespaces = yes: in a user namespace of its own it holds every capability, and reaches the kernel's namespaced code as root");
}

static char const *const root_equivalent[] = {
  "cap_sys_admin", "cap_sys_module", "cap_sys_rawio", "cap_sys_ptrace", "cap_setuid",
  "cap_setgid", "cap_setfcap", "cap_dac_override", "cap_fowner", "cap_chown",
  "cap_bpf", "cap_sys_boot", "cap_mknod",
};

/* What its capabilities and uid amount to. */
static void power_words(svc const *s, cred_state const *x, uint64_t mask, int legacy_root, prediction *p)
{
  char buf[1024];
  if (legacy_root && s->bounding == CAPS_ALL && (x->eff & mask) == mask)
    say(p, "legacy root with full bounding set: full root");
  else if (legacy_root && s->bounding == CAPS_ALL && x->eff)
    say(p, "legacy root with full bounding set: full root (but for %s, which the launcher's bounding set lacks)",
        caps_format(mask & ~x->eff, buf, sizeof buf));
  else if (legacy_root && x->eff)
    say(p, "legacy root: holds every capability of its bounding set (%s)", caps_format(x->eff, buf, sizeof buf));
  else if (legacy_root)
    say(p, "legacy root with no capabilities: uid 0 owns root's files, but has no privilege");
  else if (x->euid == 0 && !x->prm && !(x->bnd & mask))
    say(p, "uid 0 in a %snoroot tree with an empty bounding set: root without power",
        (x->securebits & (1u << SECURE_NOROOT_LOCKED)) ? "locked " : "");
  else if (!x->prm)
    say(p, "no capabilities: runs with the rights of uid %u only", (unsigned)x->euid);
  else
    say(p, "holds %s", caps_format(x->prm, buf, sizeof buf));
  if (x->euid == 0 && !legacy_root && !container_read_only(s->ct))
    say(p, "uid 0 still passes the kernel's uid checks: root-owned files, /proc/sys (kernel.core_pattern) and /sys stay writable unless mounted read-only");
  else if (x->euid == 0 && !legacy_root)
    say(p, "uid 0 still passes the kernel's uid checks, but its file tree is read-only: root's files, /proc/sys and /sys cannot be written");
}

/* What the command's file adds: file capabilities, set-id bits. */
static void file_words(cred_state const *x, exec_target const *t, prediction *p)
{
  char buf[1024];
  if (t->fcaps && !t->nosuid && !(t->fcaps == 3 && t->f_rootid != 0) && (t->f_prm | t->f_inh)) {
    uint64_t got = (t->f_prm | t->f_inh) & x->prm;
    if (t->multicall && got)
      say(p, "file capability on a multi-call binary (%s): every applet gets %s",
          t->multicall, caps_format(got, buf, sizeof buf));
    else if (got)
      say(p, "the file capabilities of %s give %s", t->path, caps_format(got, buf, sizeof buf));
    else if (x->nnp)
      say(p, "the file capabilities of %s are blocked by no-new-privileges", t->path);
  }
  if ((t->mode & S_ISUID) && !t->nosuid) {
    if (x->nnp) say(p, "%s is setuid: ignored under no-new-privileges", t->path);
    else if (t->uid == 0 && (x->securebits & (1u << SECURE_NOROOT)))
      say(p, "%s is setuid root: euid 0, but noroot gives it no capability", t->path);
    else if (t->uid == 0)
      say(p, "%s is setuid root: it runs as root", t->path);
    else
      say(p, "%s is setuid to uid %u", t->path, (unsigned)t->uid);
  }
  if ((t->mode & S_ISGID) && (t->mode & S_IXGRP) && !t->nosuid && !x->nnp)
    say(p, "%s is setgid to gid %u", t->path, (unsigned)t->gid);
}

static void exposure(svc const *s, cred_state const *x, exec_target const *t,
                     kernel_facts const *k, prediction *p)
{
  uint64_t mask = all_caps(k->last_cap);
  int legacy_root = x->euid == 0 && !(x->securebits & (1u << SECURE_NOROOT));
  char one[64];
  size_t i;

  power_words(s, x, mask, legacy_root, p);
  container_words(s->ct, p);
  if (x->euid == 0 && !legacy_root && container_view(s->ct) && !container_own_pids(s->ct))
    say(p, "private-pids = no: to the kernel it is the same user as every other uid-0 process: it can signal the "
           "powerless ones, ptrace them, and write through /proc/PID/root into their trees");
  filter_words(s, p);

  for (i = 0; i < container_escapes_n; i++) {
    char const *how = container_escape(s, container_escapes[i].cap);
    if (how) say(p, "%s opens a way out of its container: %s", cap_name((unsigned)container_escapes[i].cap, one, sizeof one), how);
  }
  for (i = 0; i < sizeof root_equivalent / sizeof root_equivalent[0]; i++) {
    unsigned c;
    if (cap_from_text_name(root_equivalent[i], &c) < 0) continue;
    if (HAS(x->eff, c) && !legacy_root)
      say(p, "%s is root-equivalent in practice", cap_name(c, one, sizeof one));
  }
  file_words(x, t, p);
  if (!s->no_new_privs && !x->nnp) {
    if (x->securebits & (1u << SECURE_NOROOT))
      say(p, "noroot without no-new-privileges: file-capability binaries can raise privilege");
    else if (!legacy_root)
      say(p, "without no-new-privileges, setuid-root and file-capability binaries can raise privilege");
  }
  if (k->setgid_rule == SETGID_RULE_UNKNOWN && explain_needs_setgid_rule(s, x, t))
    say(p, "the kernel's rule for ambient capabilities across a setgid exec could not be detected (run as root): assumed they are cleared");
}

void explain_predict(svc const *s, cred_state const *launcher, exec_target const *t,
                     kernel_facts const *k, prediction *p)
{
  cred_state x = *launcher;
  memset(p, 0, sizeof *p);
  if (s->refused) {
    refuse(p, STAGE_NONE, "the service file has errors (capctl check)");
    p->after = x;
    return;
  }
  if (engine(s, &x, k, p) == 0) {
    p->launched = x;
    if (t->err) refuse(p, STAGE_EXEC, "%s: %s", t->path, strerror(t->err));
    else if (!may_execute(&x, t)) refuse(p, STAGE_EXEC, "%s: permission denied (not executable for uid %u)", t->path, (unsigned)x.euid);
    else exec_rule(&x, t, k, p);
  }
  p->after = x;
  if (!p->refused) exposure(s, &x, t, k, p);
}

int explain_parse_fcaps(unsigned char const *v, size_t len, exec_target *t)
{
  uint32_t magic, w[5];
  size_t i;
  if (len < 4) return -1;
  for (i = 0; i < 5 && 4 * (i + 1) <= len; i++)
    w[i] = (uint32_t)v[4 * i] | (uint32_t)v[4 * i + 1] << 8 | (uint32_t)v[4 * i + 2] << 16 |
           (uint32_t)v[4 * i + 3] << 24;
  magic = w[0];
  t->f_eff = (magic & VFS_CAP_FLAGS_EFFECTIVE) != 0;
  switch (magic & VFS_CAP_REVISION_MASK) {
    case VFS_CAP_REVISION_1:
      if (len != XATTR_CAPS_SZ_1) return -1;
      t->fcaps = 1;
      t->f_prm = w[1];
      t->f_inh = w[2];
      return 0;
    case VFS_CAP_REVISION_2:
      if (len != XATTR_CAPS_SZ_2) return -1;
      t->fcaps = 2;
      break;
    case VFS_CAP_REVISION_3:
      if (len != XATTR_CAPS_SZ_3) return -1;
      t->fcaps = 3;
      t->f_rootid = (uint32_t)v[20] | (uint32_t)v[21] << 8 | (uint32_t)v[22] << 16 | (uint32_t)v[23] << 24;
      break;
    default:
      return -1;
  }
  {
    uint32_t w2[5];
    for (i = 0; i < 5; i++)
      w2[i] = (uint32_t)v[4 * i] | (uint32_t)v[4 * i + 1] << 8 | (uint32_t)v[4 * i + 2] << 16 |
              (uint32_t)v[4 * i + 3] << 24;
    t->f_prm = w2[1] | (uint64_t)w2[3] << 32;
    t->f_inh = w2[2] | (uint64_t)w2[4] << 32;
  }
  return 0;
}

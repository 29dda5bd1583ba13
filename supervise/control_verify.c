/* supervise/control_verify.c -- capctl verify (control_client.h): every
 * process of a running service against explain's prediction of its
 * command, and its container against the kernel's view. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../inspect/explain.h"
#include "../conf/syscalls.h"
#include "../inspect/verdict.h"
#include "../conf/control_verbs.h"
#include "control_client.h"
#include "../inspect/creds.h"
#include "../inspect/procfs.h"
#include "service.h"
#include "command.h"
#include "../inspect/verify_container.h"

#define VERIFY_PROCS_MAX 4096  /* processes of one service looked at */

/* One process of a service against the prediction of its command: a
 * record "process=PID ..." (capctl verify -p shows them), and its
 * verdict.  -1 when it is gone (it ended since /proc was read). */
static int verify_process(client *c, service *s, proc_entry const *e, cred_state const *want, verdict *v)
{
  char buf[4096], fields[128], name[SVC_NAME_MAX + 1];
  char uid[64], gid[64], groups[VERDICT_TEXT_MAX], eff[20], prm[20], bnd[20];
  live_creds live;
  ssize_t r;
  size_t w = 0;
  int f;
  r = procfs_read(e->pid, "status", buf, sizeof buf);
  if (r <= 0 || live_creds_parse(buf, (size_t)r, &live) < 0) return -1;
  verdict_judge(&live, want, v);
  fields[0] = 0;
  for (f = 0; f < VF_COUNT; f++)
    if (v->differ & 1u << f) w += (size_t)snprintf(fields + w, sizeof fields - w, "%s%s", w ? "," : "", verdict_field_names[f]);
  verdict_format(VF_UID, &live.c, live.fsuid, live.fsgid, uid, sizeof uid);
  verdict_format(VF_GID, &live.c, live.fsuid, live.fsgid, gid, sizeof gid);
  verdict_format(VF_GROUPS, &live.c, live.fsuid, live.fsgid, groups, sizeof groups);
  verdict_format(VF_CAPPRM, &live.c, 0, 0, prm, sizeof prm);
  verdict_format(VF_CAPEFF, &live.c, 0, 0, eff, sizeof eff);
  verdict_format(VF_CAPBND, &live.c, 0, 0, bnd, sizeof bnd);
  {
    char comm[sizeof e->comm];
    memcpy(comm, e->comm, sizeof comm);
    record_clean(comm);
    client_reply(c, "process=%d\tname=%s\tppid=%d\tcomm=%s\tresult=%s\tfields=%s\tuid=%s\tgid=%s\tgroups=%s"
                 "\tcap_prm=%s\tcap_eff=%s\tcap_bnd=%s\tno_new_privs=%d",
                 (int)e->pid, record_name(s, name, sizeof name), (int)e->ppid, comm,
                 v->result == VERDICT_SAME ? "same" : v->result == VERDICT_DROPPED ? "dropped" : "more",
                 fields[0] ? fields : "-", uid, gid, groups[0] ? groups : "-", prm, eff, bnd, live.c.nnp);
  }
  return 0;
}

/* The prediction for s (capctl explain's), from capinit's credentials and
 * its command's file as its tree holds it.  -1 after the reply (an error,
 * or refused: a service that runs though its prediction says it cannot). */
static int predict(client *c, service *s, char const *name, pid_t pid, prediction *p)
{
  static enum setgid_rule rule = SETGID_RULE_UNKNOWN;  /* a fact of the kernel: once known, kept */
  cred_state launcher;
  exec_target t;
  kernel_facts k = { sv.last_cap, SETGID_RULE_UNKNOWN };
  char live_root[64];  /* a container's tree is the one its command sees */
  snprintf(live_root, sizeof live_root, "/proc/%d/root", (int)pid);
  if (creds_launcher(&launcher) < 0 || creds_target_in(container_has_mounts(s->spec->ct) ? live_root : 0, s->spec->argv[0], &t) < 0) {
    client_reply(c, "name=%s\tresult=error\treason=%s", name, strerror(errno));
    return -1;
  }
  if (rule == SETGID_RULE_UNKNOWN && explain_needs_setgid_rule(s->spec, &launcher, &t))
    rule = creds_setgid_rule();
  k.setgid_rule = rule;
  explain_predict(s->spec, &launcher, &t, &k, p);
  if (p->refused) {
    client_reply(c, "name=%s\tresult=differs\tfield=launch\tlive=running\tpredicted=refused: %s", name, p->reason);
    return -1;
  }
  return 0;
}

/* What the processes of a service hold, against the prediction */
typedef struct members_verdict_s {
  size_t seen, dropped;
  verdict worst;           /* the first that holds more, else VERDICT_SAME */
  pid_t worst_pid;
  char worst_comm[sizeof ((proc_entry *)0)->comm];
} members_verdict;

/* every process of the service, its command first (the reaper of a
 * private-pids service leads it, with the service's credentials too) */
static void judge_members(client *c, service *s, proc_table const *procs, prediction const *p, members_verdict *m)
{
  static size_t members[VERIFY_PROCS_MAX];
  size_t i, n = proc_members(procs, s->pid, members, VERIFY_PROCS_MAX);
  verdict v;
  if (n > VERIFY_PROCS_MAX) n = VERIFY_PROCS_MAX;
  memset(m, 0, sizeof *m);
  m->worst.result = VERDICT_SAME;
  for (i = 0; i < n; i++) {
    proc_entry const *e = &procs->v[members[i]];
    /* the reaper never executes the command: it holds what the engine
     * left, not what the exec gives (file capabilities, set-id) */
    int reaper = e->pid == s->pid && container_own_pids(s->spec->ct);
    if (verify_process(c, s, e, reaper ? &p->launched : &p->after, &v) < 0) continue;
    m->seen++;
    m->dropped += v.result == VERDICT_DROPPED;
    if (v.result == VERDICT_MORE && m->worst.result != VERDICT_MORE) {
      m->worst = v;
      m->worst_pid = e->pid;
      memcpy(m->worst_comm, e->comm, sizeof m->worst_comm);
      record_clean(m->worst_comm);
    }
  }
}

/* The container's own facts (namespaces, mounts): 1 after the reply if
 * they differ from the file. */
static int container_differs(client *c, service *s, char const *name, pid_t pid)
{
  char field[4200], lv[4200], wv[4200];
  if (!container_verify(s->spec->ct, pid, field, lv, wv, sizeof field)) return 0;
  record_clean(field);
  record_clean(lv);
  record_clean(wv);
  client_reply(c, "name=%s\tresult=differs\tfield=%s\tlive=%s\tpredicted=%s", name, field, lv, wv);
  return 1;
}

/* Seccomp and Seccomp_filters of /proc/PID/status (filters -1 where the
 * kernel does not write the line), or -1. */
static int seccomp_of(pid_t pid, long *mode, long *filters)
{
  char buf[4096], v[16];
  if (procfs_read(pid, "status", buf, sizeof buf) < 0 || procfs_field(buf, "Seccomp", v, sizeof v) < 0) return -1;
  *mode = strtol(v, 0, 10);
  *filters = procfs_field(buf, "Seccomp_filters", v, sizeof v) < 0 ? -1 : strtol(v, 0, 10);
  return 0;
}

/* The system-call filter: a service that has one is in filter mode (2)
 * with at least one filter more than capinit; one without, in capinit's
 * mode with at least its filters.  At least: a program may add its own
 * (chronyd -F 1), never remove one.  Not checked where the kernel has no
 * seccomp (CAPINIT_SECCOMP=if-available). */
static int filter_differs(client *c, service *s, char const *name, pid_t pid)
{
  long mode, n, want_mode, want_n;
  if (!sv.seccomp || seccomp_of(pid, &mode, &n) < 0 || seccomp_of(getpid(), &want_mode, &want_n) < 0) return 0;
  if (syscalls_filtered(s->spec->syscalls_deny, s->spec->user_namespaces, s->spec->suid_refused)) {
    want_mode = 2;
    if (want_n >= 0) want_n++;
  }
  if ((mode == want_mode || (mode == 2 && want_mode == 0)) && n >= want_n) return 0;
  client_reply(c, "name=%s\tresult=differs\tfield=seccomp\tlive=%ld:%ld\tpredicted=%ld:%ld or more", name, mode, n,
               want_mode, want_n);
  return 1;
}

int control_verify_one(client *c, service *s, proc_table const *procs)
{
  prediction p;
  members_verdict m;
  pid_t pid = service_command_pid(s);
  char name[SVC_NAME_MAX + 1];
  record_name(s, name, sizeof name);
  if (s->state != ST_UP || pid <= 0 || s->spec->type != SVC_LONGRUN) {
    client_reply(c, "name=%s\tresult=skipped\treason=not running", name);
    return 0;
  }
  if (predict(c, s, name, pid, &p) < 0) return 1;
  judge_members(c, s, procs, &p, &m);
  if (!m.seen) {
    client_reply(c, "name=%s\tresult=error\treason=no process of it could be read in /proc", name);
    return 1;
  }
  if (m.worst.result == VERDICT_MORE) {
    client_reply(c, "name=%s\tresult=differs\tfield=%s\tlive=%s\tpredicted=%s\tpid=%d\tcomm=%s\tprocesses=%zu",
                 name, verdict_field_names[m.worst.field], m.worst.live, m.worst.want, (int)m.worst_pid,
                 m.worst_comm, m.seen);
    return 1;
  }
  if (container_differs(c, s, name, pid)) return 1;
  if (filter_differs(c, s, name, pid)) return 1;
  if (m.dropped) client_reply(c, "name=%s\tresult=dropped\tprocesses=%zu\tdropped=%zu", name, m.seen, m.dropped);
  else client_reply(c, "name=%s\tresult=ok\tprocesses=%zu", name, m.seen);
  return 0;
}

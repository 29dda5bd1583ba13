/* capctl/capctl_verify.c -- `capctl verify`: every process of a running
 * service against explain's prediction of its command, and its container
 * against the kernel's view.
 *
 * capinit says what only it knows (verify-facts: each service's state,
 * command pid and the digest of the spec it runs; its own pid, securebits
 * and whether its services are filtered); capctl judges, looking at the
 * system as capinit does: from capinit's mount namespace, root and
 * directory, through capinit's /proc.  A service whose file is no longer
 * the one it was started from is not judged against it. */
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <skalibs/strerr.h>

#include "../conf/control_verbs.h"
#include "../conf/names.h"
#include "../conf/record.h"
#include "../conf/svc.h"
#include "../conf/syscalls.h"
#include "../engine/privilege.h"
#include "../engine/sysnum.h"
#include "../inspect/creds.h"
#include "../inspect/explain.h"
#include "../inspect/procfs.h"
#include "../inspect/procs.h"
#include "../inspect/verdict.h"
#include "../inspect/verify_container.h"
#include "capctl.h"
#include "capctl_live.h"

#define VERIFY_PROCS_MAX 4096  /* processes of one service looked at */

/* What capinit said of one service */
typedef struct fact_s {
  char name[SVC_NAME_MAX + 1], state[16], type[16], path[4096], digest[SVC_DIGEST_TEXT];
  pid_t pid;               /* the command's */
  pid_t main;              /* the main process: a private-pids service's reaper */
} fact;

/* capinit's reply, and what verify reads of capinit itself */
typedef struct facts_s {
  pid_t capinit;           /* its pid, in its own PID namespace */
  int seccomp;             /* its services get a system-call filter */
  unsigned securebits;
  fact *v;
  size_t n;
  int processes;           /* -p: print the process records */
  cred_state launcher;     /* capinit's credentials */
  unsigned last_cap;
} facts;

static facts *out_facts;   /* say()'s: whether to print process records */

/* One record, as capinit's control socket carried them (cut at its
 * message size): a process's only with -p. */
static void say(char const *fmt, ...) __attribute__((format(printf, 1, 2)));
static void say(char const *fmt, ...)
{
  char buf[CONTROL_MSG_MAX];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(buf, sizeof buf, fmt, ap);
  va_end(ap);
  if (strncmp(buf, "process=", 8) || out_facts->processes) puts(buf);
}

static long number(char const *rec, enum record_field_id id)
{
  char v[24];
  return strtol(record_get(rec, id, v, sizeof v), 0, 10);
}

static void take_fact(char *rec, void *arg)
{
  facts *a = arg;
  fact *f;
  if (!strncmp(rec, FACTS_CAPINIT_TAG "\t", sizeof FACTS_CAPINIT_TAG)) {
    a->capinit = (pid_t)number(rec, RF_PID);
    a->seccomp = number(rec, RF_SECCOMP) == 1;
    a->securebits = (unsigned)number(rec, RF_SECUREBITS);
    return;
  }
  a->v = realloc(a->v, (a->n + 1) * sizeof *a->v);
  if (!a->v) strerr_diefu1sys(111, "allocate memory");
  f = &a->v[a->n++];
  record_get(rec, RF_NAME, f->name, sizeof f->name);
  record_get(rec, RF_STATE, f->state, sizeof f->state);
  record_get(rec, RF_TYPE, f->type, sizeof f->type);
  record_get(rec, RF_PATH, f->path, sizeof f->path);
  record_get(rec, RF_SPEC_DIGEST, f->digest, sizeof f->digest);
  f->pid = (pid_t)number(rec, RF_PID);
  f->main = (pid_t)number(rec, RF_MAIN_PID);
}

/* ------------------------------------------------ capinit's view */

/* capinit, as the kernel names the peer of the answered connection: its
 * own pidfd (SO_PEERPIDFD, Linux 6.5), else one opened for its pid. */
static int capinit_pidfd(void)
{
  int sock = live_answered_fd(), fd;
  struct ucred cred;
  socklen_t len = sizeof fd;
  if (getsockopt(sock, SOL_SOCKET, SO_PEERPIDFD, &fd, &len) == 0) return fd;
  len = sizeof cred;
  if (getsockopt(sock, SOL_SOCKET, SO_PEERCRED, &cred, &len) < 0) return -1;
  if (cred.pid <= 0) return errno = ESRCH, -1;
  return (int)syscall(SYS_pidfd_open, cred.pid, 0);
}

/* The pid of pidfd's process in this /proc (its fdinfo): 0 when it is
 * not in that /proc's PID namespace, -1 when it ended or cannot be read. */
static pid_t pid_here(int pidfd)
{
  char name[32], buf[1024], v[24];
  snprintf(name, sizeof name, "fdinfo/%d", pidfd);
  if (procfs_read(0, name, buf, sizeof buf) < 0 || procfs_field(buf, "Pid", v, sizeof v) < 0) return -1;
  return (pid_t)strtol(v, 0, 10);
}

static int same_file(struct stat const *a, struct stat const *b)
{
  return a->st_dev == b->st_dev && a->st_ino == b->st_ino;
}

/* /proc/N/NAME of capinit (pid n here), opened; dies when it cannot */
static int capinit_open(pid_t n, char const *name, int flags)
{
  char path[64];
  int fd;
  snprintf(path, sizeof path, "/proc/%d/%s", (int)n, name);
  fd = open(path, flags | O_CLOEXEC);
  if (fd < 0)
    strerr_diefu3sys(111, "look at capinit through ", path, " (verify reads the system as capinit sees it: run it as root)");
  return fd;
}

/* Stand at capinit's root and in its directory: its service files, its
 * commands' files and its /proc are then the ones capinit sees.  Its
 * root is entered by chroot, not setns: a path walked from a root in
 * another mount namespace crosses that namespace's mounts, and chroot
 * works where setns(CLONE_NEWNS) refuses a process that shares its
 * filesystem context with a thread (EINVAL; qemu-user is one).  Dies
 * when it cannot. */
static void look_as_capinit(pid_t n)
{
  struct stat own, its;
  int mnt = capinit_open(n, "ns/mnt", O_RDONLY), root = capinit_open(n, "root", O_PATH | O_DIRECTORY),
      cwd = capinit_open(n, "cwd", O_PATH | O_DIRECTORY), moved;
  if (stat("/proc/self/ns/mnt", &own) < 0 || fstat(mnt, &its) < 0) strerr_diefu1sys(111, "compare mount namespaces");
  moved = !same_file(&own, &its);
  if (stat("/", &own) < 0 || fstat(root, &its) < 0) strerr_diefu1sys(111, "compare root directories");
  if (moved || !same_file(&own, &its)) {
    if (fchdir(root) < 0 || chroot(".") < 0) strerr_diefu1sys(111, "enter capinit's root directory");
  }
  if (fchdir(cwd) < 0) strerr_diefu1sys(111, "enter capinit's directory");
  close(mnt);
  close(root);
  close(cwd);
}

/* From capinit's place; its credentials from its /proc (the launcher of
 * the prediction), checked to be its: /proc numbers it as it numbers
 * itself. */
static void capinit_view(facts *a)
{
  char buf[4096];
  live_creds live;
  ssize_t r;
  pid_t n;
  int pidfd = capinit_pidfd();
  if (pidfd < 0) strerr_diefu1sys(111, "name capinit (the peer of its control socket)");
  n = pid_here(pidfd);
  if (n <= 0) strerr_dief1x(111, "capinit is not in this /proc: run capctl verify in capinit's PID namespace");
  look_as_capinit(n);
  if (pid_here(pidfd) != a->capinit || a->capinit <= 0)
    strerr_dief1x(111, "capinit's /proc does not show capctl and capinit as capinit sees them:"
                       " run capctl verify in capinit's PID namespace (nsenter -t PID -p)");
  r = procfs_read(a->capinit, "status", buf, sizeof buf);
  if (r <= 0 || live_creds_parse(buf, (size_t)r, &live) < 0) strerr_diefu1sys(111, "read capinit's /proc/PID/status");
  a->launcher = live.c;
  a->launcher.securebits = a->securebits;  /* /proc does not show them */
  a->last_cap = priv_last_cap();
  close(pidfd);
}

/* ------------------------------------------------ one service */

/* The service's file, parsed as capinit parses it, if it is the one the
 * service was started from; NULL after the record that says why not. */
static svc *spec_of(fact const *f)
{
  diag_list diags = { 0, 0, 0 };
  conf_ctx ctx = { .root = "/", .diags = &diags, .command_optional = 0, .live = 1 };
  char now[SVC_DIGEST_TEXT];
  svc *s = svc_load_file(&ctx, f->path);
  size_t i;
  int parsed = 0;
  for (i = 0; i < SVC_DIGEST_LEN; i++) parsed |= s->digest[i];
  if (!parsed) {
    say("name=%s\tresult=error\treason=%s: %s", f->name, f->path, diags.n ? diags.v[0].text : "unreadable");
  } else if (strcmp(svc_digest_text(s, now), f->digest)) {
    say("name=%s\tresult=error\treason=it runs another version of %s (the file changed, or was reloaded, since it"
        " started): restart it (capctl restart %s) to verify it against this one", f->name, f->path, f->name);
  } else if (s->refused) {
    say("name=%s\tresult=error\treason=%s has errors now (capctl check)", f->name, f->path);
  } else {
    diag_free(&diags);
    return s;
  }
  diag_free(&diags);
  svc_free(s);
  return 0;
}

/* One process of a service against the prediction of its command: a
 * record "process=PID ..." (capctl verify -p shows them), and its
 * verdict.  -1 when it is gone (it ended since /proc was read). */
static int verify_process(fact const *s, proc_entry const *e, cred_state const *want, verdict *v)
{
  char buf[4096], fields[128], comm[sizeof e->comm];
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
  memcpy(comm, e->comm, sizeof comm);
  record_clean(comm);
  say("process=%d\tname=%s\tppid=%d\tcomm=%s\tresult=%s\tfields=%s\tuid=%s\tgid=%s\tgroups=%s"
      "\tcap_prm=%s\tcap_eff=%s\tcap_bnd=%s\tno_new_privs=%d",
      (int)e->pid, s->name, (int)e->ppid, comm,
      v->result == VERDICT_SAME ? "same" : v->result == VERDICT_DROPPED ? "dropped" : "more",
      fields[0] ? fields : "-", uid, gid, groups[0] ? groups : "-", prm, eff, bnd, live.c.nnp);
  return 0;
}

/* The prediction for spec (capctl explain's), from capinit's credentials
 * and its command's file as its tree holds it.  -1 after the record (an
 * error, or refused: a service that runs though its prediction says it
 * cannot). */
static int predict(facts const *a, svc const *spec, char const *name, pid_t pid, prediction *p)
{
  static enum setgid_rule rule = SETGID_RULE_UNKNOWN;  /* a fact of the kernel: once known, kept */
  exec_target t;
  kernel_facts k = { a->last_cap, SETGID_RULE_UNKNOWN };
  char live_root[64];  /* a container's tree is the one its command sees */
  snprintf(live_root, sizeof live_root, "/proc/%d/root", (int)pid);
  if (creds_target_in(container_has_mounts(spec->ct) ? live_root : 0, spec->argv[0], &t) < 0) {
    say("name=%s\tresult=error\treason=%s", name, strerror(errno));
    return -1;
  }
  if (rule == SETGID_RULE_UNKNOWN && explain_needs_setgid_rule(spec, &a->launcher, &t))
    rule = creds_setgid_rule();
  k.setgid_rule = rule;
  explain_predict(spec, &a->launcher, &t, &k, p);
  if (p->refused) {
    say("name=%s\tresult=differs\tfield=launch\tlive=running\tpredicted=refused: %s", name, p->reason);
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
static void judge_members(fact const *s, svc const *spec, proc_table const *procs, prediction const *p,
                          members_verdict *m)
{
  static size_t members[VERIFY_PROCS_MAX];
  size_t i, n = proc_members(procs, s->main, members, VERIFY_PROCS_MAX);
  verdict v;
  if (n > VERIFY_PROCS_MAX) n = VERIFY_PROCS_MAX;
  memset(m, 0, sizeof *m);
  m->worst.result = VERDICT_SAME;
  for (i = 0; i < n; i++) {
    proc_entry const *e = &procs->v[members[i]];
    /* the reaper never executes the command: it holds what the engine
     * left, not what the exec gives (file capabilities, set-id) */
    int reaper = e->pid == s->main && container_own_pids(spec->ct);
    if (verify_process(s, e, reaper ? &p->launched : &p->after, &v) < 0) continue;
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

/* The container's own facts (namespaces, mounts): 1 after the record if
 * they differ from the file. */
static int container_differs(facts const *a, svc const *spec, char const *name, pid_t pid)
{
  char field[4200], lv[4200], wv[4200];
  if (!container_verify(spec->ct, pid, a->capinit, field, lv, wv, sizeof field)) return 0;
  record_clean(field);
  record_clean(lv);
  record_clean(wv);
  say("name=%s\tresult=differs\tfield=%s\tlive=%s\tpredicted=%s", name, field, lv, wv);
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
 * (chronyd -F 1), never remove one.  Not checked where capinit's services
 * get no filter (CAPINIT_SECCOMP=if-available on a kernel without). */
static int filter_differs(facts const *a, svc const *spec, char const *name, pid_t pid)
{
  long mode, n, want_mode, want_n;
  if (!a->seccomp || seccomp_of(pid, &mode, &n) < 0 || seccomp_of(a->capinit, &want_mode, &want_n) < 0) return 0;
  if (syscalls_filtered(spec->syscalls_deny, spec->user_namespaces, spec->suid_refused)) {
    want_mode = 2;
    if (want_n >= 0) want_n++;
  }
  if ((mode == want_mode || (mode == 2 && want_mode == 0)) && n >= want_n) return 0;
  say("name=%s\tresult=differs\tfield=seccomp\tlive=%ld:%ld\tpredicted=%ld:%ld or more", name, mode, n,
      want_mode, want_n);
  return 1;
}

/* 1 when it differs or cannot be judged */
static int verify_one(facts const *a, fact const *s, proc_table const *procs)
{
  prediction p;
  members_verdict m;
  svc *spec;
  int bad = 1;
  if (strcmp(s->state, "up") || s->pid <= 0 || strcmp(s->type, vocab_name(type_names, SVC_LONGRUN))) {
    say("name=%s\tresult=skipped\treason=not running", s->name);
    return 0;
  }
  if (!(spec = spec_of(s))) return 1;
  if (predict(a, spec, s->name, s->pid, &p) < 0) goto done;
  judge_members(s, spec, procs, &p, &m);
  if (!m.seen) {
    say("name=%s\tresult=error\treason=no process of it could be read in /proc", s->name);
    goto done;
  }
  if (m.worst.result == VERDICT_MORE) {
    say("name=%s\tresult=differs\tfield=%s\tlive=%s\tpredicted=%s\tpid=%d\tcomm=%s\tprocesses=%zu",
        s->name, verdict_field_names[m.worst.field], m.worst.live, m.worst.want, (int)m.worst_pid,
        m.worst_comm, m.seen);
    goto done;
  }
  if (container_differs(a, spec, s->name, s->pid) || filter_differs(a, spec, s->name, s->pid)) goto done;
  if (m.dropped) say("name=%s\tresult=dropped\tprocesses=%zu\tdropped=%zu", s->name, m.seen, m.dropped);
  else say("name=%s\tresult=ok\tprocesses=%zu", s->name, m.seen);
  bad = 0;
done:
  svc_free(spec);
  return bad;
}

int verify_main(int processes, int argc, char **argv)
{
  static facts a;
  char final[128];
  proc_table procs;
  unsigned bad = 0;
  size_t i;
  char const *r;
  a.processes = processes;
  out_facts = &a;
  r = live_transact(live_join("verify-facts", argc, argv), take_fact, &a);
  if (live_final(r)) return 1;
  capinit_view(&a);
  if (proc_table_read(&procs) < 0) {
    snprintf(final, sizeof final, "error: unable to read /proc: %s", strerror(errno));
    return live_final(final);
  }
  for (i = 0; i < a.n; i++) bad += (unsigned)verify_one(&a, &a.v[i], &procs);
  proc_table_free(&procs);
  if (!bad) return 0;
  snprintf(final, sizeof final, "error: %u service%s differ%s from the prediction", bad, bad == 1 ? "" : "s",
           bad == 1 ? "s" : "");
  return live_final(final);
}

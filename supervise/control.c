/* supervise/control.c -- the control socket, RUNDIR/control.
 *
 * SOCK_SEQPACKET: a request is one message, "VERB ARG...", at most
 * CONTROL_MSG_MAX bytes (a longer one is refused whole).  The reply is
 * zero or more record messages, then one final message, "ok" or
 * "error: ...".  The peer is known by SO_PEERCRED and SO_PEERGROUPS: root
 * may change services, the control-group may read.  Every client is
 * non-blocking, has a bounded reply queue and an idle deadline: a slow or
 * idle client never holds the loop. */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/reboot.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <unistd.h>

#include "../conf/explain.h"
#include "../conf/names.h"
#include "../conf/verdict.h"
#include "control.h"
#include "creds.h"
#include "privilege.h"
#include "procs.h"
#include "supervisor.h"
#include "verify_container.h"

#define CLIENTS_MAX CONTROL_CLIENTS_MAX  /* served at once */
#define CONNECTIONS_MAX 512  /* served and waiting */
#define KEPT 8               /* of each: for clients that may change services */
#define CLIENT_IDLE_MS 10000u
#define QUEUE_MAX (8u << 20)  /* bytes of replies waiting for one client */
#define ACCEPT_PAUSE_MS 100u

typedef struct client_s {
  int fd;
  int may_read, may_change, may_power;
  uint64_t deadline;
  char *q;                 /* queued messages: [u32 length][bytes]... */
  size_t qlen, qoff;
  int closing;             /* close once the queue is written */
  int reprieved;           /* its deadline passed once with a reply queued */
} client;

static client clients[CLIENTS_MAX];
static size_t nclients;
/* Connections beyond the clients served at once wait here, in order, as
 * they would in the listen backlog: their requests are read once they are
 * served.  Accepted rather than left in the backlog, so that capinit
 * knows who waits and a reader's flood cannot queue root out. */
typedef struct waiting_s {
  int fd;
  unsigned char may_read, may_change, may_power;
} waiting;
static waiting waiters[CONNECTIONS_MAX];
static size_t nwaiters;
/* Out of descriptors, a connection stays queued and poll() would report
 * it again at once: the socket is left out of the poll until then. */
static uint64_t accept_paused_until;
static char sock_path[108];

int control_listen(void)
{
  struct sockaddr_un sa;
  int fd;
  memset(&sa, 0, sizeof sa);
  sa.sun_family = AF_UNIX;
  if ((size_t)snprintf(sock_path, sizeof sock_path, "%s/control", sv.rundir) >= sizeof sock_path) {
    fprintf(stderr, "capinit: fatal: %s/control: path too long for a socket\n", sv.rundir);
    return -1;
  }
  strcpy(sa.sun_path, sock_path);
  fd = socket(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
  if (fd < 0) goto fail;
  {
    /* a socket that answers belongs to a capinit that runs: do not steal it */
    int probe = socket(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0);
    if (probe >= 0 && connect(probe, (struct sockaddr *)&sa, sizeof sa) == 0) {
      close(probe);
      close(fd);
      fprintf(stderr, "capinit: fatal: another capinit is running on %s (use another -r DIR)\n", sock_path);
      return -1;
    }
    if (probe >= 0) close(probe);
  }
  unlink(sock_path);
  {
    mode_t old = umask(0177);
    int r = bind(fd, (struct sockaddr *)&sa, sizeof sa);
    umask(old);
    if (r < 0) goto fail;
  }
  if (listen(fd, SOMAXCONN) < 0) goto fail;
  /* the control group's; without one, the power group's */
  if (sv.conf.control_group_set || sv.conf.power_group_set) {
    gid_t g = sv.conf.control_group_set ? sv.conf.control_gid : sv.conf.power_gid;
    if (chown(sock_path, 0, g) < 0 || chmod(sock_path, 0660) < 0)
      fprintf(stderr, "capinit: warning: unable to open %s to group %u: %s\n", sock_path,
              (unsigned)g, strerror(errno));
  }
  sv.control = fd;
  return 0;
fail:
  fprintf(stderr, "capinit: fatal: unable to listen on %s: %s\n", sock_path, strerror(errno));
  if (fd >= 0) close(fd);
  return -1;
}

void control_close(void)
{
  size_t i;
  for (i = 0; i < nclients; i++) {
    close(clients[i].fd);
    free(clients[i].q);
  }
  nclients = 0;
  for (i = 0; i < nwaiters; i++) close(waiters[i].fd);
  nwaiters = 0;
  if (sv.control >= 0) close(sv.control);
  sv.control = -1;
  unlink(sock_path);
}

/* ------------------------------------------------------------ replies */

static void queue(client *c, char const *msg, size_t len)
{
  uint32_t n = (uint32_t)len;
  if (c->closing) return;
  if (c->qlen - c->qoff + len + 4 > QUEUE_MAX) {
    c->closing = 1;  /* it does not read: drop it */
    c->qlen = c->qoff = 0;
    return;
  }
  if (c->qoff && c->qoff == c->qlen) c->qlen = c->qoff = 0;
  {
    char *q = realloc(c->q, c->qlen + len + 4);
    if (!q) {
      c->closing = 1;
      return;
    }
    c->q = q;
  }
  memcpy(c->q + c->qlen, &n, 4);
  memcpy(c->q + c->qlen + 4, msg, len);
  c->qlen += len + 4;
}

static void reply(client *c, char const *fmt, ...) __attribute__((format(printf, 2, 3)));
static void reply(client *c, char const *fmt, ...)
{
  char buf[CONTROL_MSG_MAX];
  va_list ap;
  int n;
  va_start(ap, fmt);
  n = vsnprintf(buf, sizeof buf, fmt, ap);
  va_end(ap);
  if (n < 0) return;
  queue(c, buf, (size_t)n < sizeof buf ? (size_t)n : sizeof buf - 1);
}

static void flush(client *c)
{
  while (c->qoff < c->qlen) {
    uint32_t n;
    ssize_t w;
    memcpy(&n, c->q + c->qoff, 4);
    w = send(c->fd, c->q + c->qoff + 4, n, MSG_DONTWAIT | MSG_NOSIGNAL);
    if (w < 0) {
      if (errno != EAGAIN && errno != EINTR) c->closing = 1, c->qlen = c->qoff = 0;
      return;
    }
    c->qoff += n + 4;
    c->deadline = now_ms() + CLIENT_IDLE_MS;  /* taking its reply: not idle */
    c->reprieved = 0;
  }
  c->qlen = c->qoff = 0;
}

/* ------------------------------------------------------------ records */

/* A value goes into a record as is, minus what would break the format. */
static void clean(char *s)
{
  for (; *s; s++)
    if (*s == '\t' || *s == '\n' || (unsigned char)*s < 0x20) *s = ' ';
}

static void proc_field(pid_t pid, char const *key, char *out, size_t len)
{
  char path[64], buf[4096];
  ssize_t r;
  int fd;
  size_t kl = strlen(key);
  char *p;
  snprintf(out, len, "-");
  if (pid <= 0) return;
  snprintf(path, sizeof path, "/proc/%d/status", (int)pid);
  fd = open(path, O_RDONLY | O_CLOEXEC);
  if (fd < 0) return;
  r = read(fd, buf, sizeof buf - 1);
  close(fd);
  if (r <= 0) return;
  buf[r] = 0;
  for (p = buf; p && *p; p = strchr(p, '\n'), p = p ? p + 1 : 0) {
    if (strncmp(p, key, kl) || p[kl] != ':') continue;
    p += kl + 1;
    while (*p == ' ' || *p == '\t') p++;
    {
      size_t n = strcspn(p, "\n");
      if (n >= len) n = len - 1;
      while (n && (p[n - 1] == ' ' || p[n - 1] == '\t')) n--;  /* "Groups:\t0 \n" */
      memcpy(out, p, n);
      out[n] = 0;
      for (char *t = out; *t; t++)
        if (*t == '\t') *t = ' ';
    }
    return;
  }
}

/* A service's name in a record: a refused file's name may hold a tab or a
 * newline, which must not add fields or records. */
static char const *record_name(service const *s, char *buf, size_t len)
{
  snprintf(buf, len, "%s", s->spec->name);
  clean(buf);
  return buf;
}

static void last_exit(service const *s, char *buf, size_t len)
{
  int st = s->last_status;
  if (st < 0) snprintf(buf, len, "-");
  else if (WIFEXITED(st)) snprintf(buf, len, "exit %d", WEXITSTATUS(st));
  else if (WIFSIGNALED(st)) snprintf(buf, len, "signal %s", signal_name(WTERMSIG(st)) ? signal_name(WTERMSIG(st)) : "?");
  else snprintf(buf, len, "-");
}

/* A time of capinit's clock as ms since capinit started, "-" for none. */
static char const *since_start(uint64_t t, char *buf, size_t len)
{
  if (!t || t < sv.started_ms) return "-";
  snprintf(buf, len, "%" PRIu64, t - sv.started_ms);
  return buf;
}

/* When the current (or last) run was spawned, and became ready. */
static void run_times(service const *s, char *sp, char *rd, size_t len)
{
  if (*since_start(s->spawned_at, sp, len) == '-') strcpy(sp, "-");
  if (s->up_at < s->spawned_at || *since_start(s->up_at, rd, len) == '-') strcpy(rd, "-");
}

static void status_record(client *c, service *s)
{
  char sp[24], rd[24];
  char le[64], uid[64], gid[64], groups[512], inh[32], prm[32], eff[32], bnd[32], amb[32], nnp[8];
  char text[STATUS_TEXT_MAX], fail[256], what[200], name[SVC_NAME_MAX + 1];
  uint64_t now = now_ms(), since = s->state == ST_UP ? s->up_at : s->state == ST_STARTING ||
                                   s->state == ST_STOPPING ? s->spawned_at : s->down_at;
  pid_t pid = service_command_pid(s);
  last_exit(s, le, sizeof le);
  proc_field(pid, "Uid", uid, sizeof uid);
  proc_field(pid, "Gid", gid, sizeof gid);
  proc_field(pid, "Groups", groups, sizeof groups);
  proc_field(pid, "CapInh", inh, sizeof inh);
  proc_field(pid, "CapPrm", prm, sizeof prm);
  proc_field(pid, "CapEff", eff, sizeof eff);
  proc_field(pid, "CapBnd", bnd, sizeof bnd);
  proc_field(pid, "CapAmb", amb, sizeof amb);
  proc_field(pid, "NoNewPrivs", nnp, sizeof nnp);
  if (s->status_text) memcpy(text, s->status_text, sizeof text);
  else text[0] = 0;
  clean(text);
  fail[0] = 0;
  if (s->state == ST_FAILED && s->fail_stage >= 0) {
    priv_fail f = { s->fail_stage, s->fail_errno, s->fail_arg };
    snprintf(fail, sizeof fail, "stage %s: unable to %s: %s", stage_name(s->fail_stage),
             priv_fail_describe(&f, s->spec, what, sizeof what), strerror(s->fail_errno));
  } else if (s->state == ST_FAILED && s->failure) {
    snprintf(fail, sizeof fail, "%s", s->failure);
  } else if (s->state == ST_FAILED && s->last_status >= 0) {
    snprintf(fail, sizeof fail, "%s", le);
  }
  clean(fail);
  run_times(s, sp, rd, sizeof sp);
  reply(c,
        "name=%s\tstate=%s\twanted=%s\tpid=%d\tsince_ms=%" PRIu64 "\trestarts=%u\tlast_exit=%s"
        "\tstatus=%s\tfailure=%s\tuser=%u\tmode=%s\ttype=%s\tlog_lines=%" PRIu64 "\tlog_dropped=%" PRIu64
        "\tuid=%s\tgid=%s\tgroups=%s\tcap_inh=%s\tcap_prm=%s\tcap_eff=%s\tcap_bnd=%s\tcap_amb=%s\tno_new_privs=%s"
        "\tspawned_ms=%s\tready_ms=%s",
        record_name(s, name, sizeof name), state_names[s->state], s->wanted_up ? "up" : "down", (int)pid,
        since ? now - since : 0, s->restarts, le, text, fail, (unsigned)s->spec->uid,
        s->spec->mode == SVC_NOROOT ? "noroot" : "legacy",
        s->spec->type == SVC_ONESHOT ? "oneshot" : "longrun", s->log.lines, s->log.dropped,
        uid, gid, groups, inh, prm, eff, bnd, amb, nnp, sp, rd);
}

/* ------------------------------------------------------------ verify */

#define VERIFY_PROCS_MAX 4096  /* processes of one service looked at */

/* One process of a service against the prediction of its command: a
 * record "process=PID ..." (capctl verify -p shows them), and its
 * verdict.  -1 when it is gone (it ended since /proc was read). */
static int verify_process(client *c, service *s, proc_entry const *e, cred_state const *want, verdict *v)
{
  char path[64], buf[4096], fields[128], name[SVC_NAME_MAX + 1];
  char uid[64], gid[64], groups[VERDICT_TEXT_MAX], eff[20], prm[20], bnd[20];
  live_creds live;
  ssize_t r;
  size_t w = 0;
  int fd, f;
  snprintf(path, sizeof path, "/proc/%d/status", (int)e->pid);
  fd = open(path, O_RDONLY | O_CLOEXEC);
  if (fd < 0) return -1;
  r = read(fd, buf, sizeof buf - 1);
  close(fd);
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
    clean(comm);
    reply(c, "process=%d\tname=%s\tppid=%d\tcomm=%s\tresult=%s\tfields=%s\tuid=%s\tgid=%s\tgroups=%s"
          "\tcap_prm=%s\tcap_eff=%s\tcap_bnd=%s\tno_new_privs=%d",
          (int)e->pid, record_name(s, name, sizeof name), (int)e->ppid, comm,
          v->result == VERDICT_SAME ? "same" : v->result == VERDICT_DROPPED ? "dropped" : "more",
          fields[0] ? fields : "-", uid, gid, groups[0] ? groups : "-", prm, eff, bnd, live.c.nnp);
  }
  return 0;
}

static int verify_one(client *c, service *s, proc_table const *procs)
{
  static enum setgid_rule rule = SETGID_RULE_UNKNOWN;  /* a fact of the kernel: once known, kept */
  static size_t members[VERIFY_PROCS_MAX];
  cred_state launcher;
  exec_target t;
  kernel_facts k = { sv.last_cap, SETGID_RULE_UNKNOWN };
  prediction p;
  verdict v, worst;
  size_t i, n, seen = 0, dropped = 0;
  pid_t pid = service_command_pid(s), worst_pid = 0;
  char worst_comm[sizeof procs->v[0].comm] = "";
  char name[SVC_NAME_MAX + 1];
  char live_root[64];  /* a container's tree is the one its command sees */
  record_name(s, name, sizeof name);
  snprintf(live_root, sizeof live_root, "/proc/%d/root", (int)pid);
  if (s->state != ST_UP || pid <= 0 || s->spec->type != SVC_LONGRUN) {
    reply(c, "name=%s\tresult=skipped\treason=not running", name);
    return 0;
  }
  if (creds_launcher(&launcher) < 0 || creds_target_in(container_has_mounts(s->spec->ct) ? live_root : 0, s->spec->argv[0], &t) < 0) {
    reply(c, "name=%s\tresult=error\treason=%s", name, strerror(errno));
    return 1;
  }
  if (rule == SETGID_RULE_UNKNOWN && explain_needs_setgid_rule(s->spec, &launcher, &t))
    rule = creds_setgid_rule();
  k.setgid_rule = rule;
  explain_predict(s->spec, &launcher, &t, &k, &p);
  if (p.refused) {
    reply(c, "name=%s\tresult=differs\tfield=launch\tlive=running\tpredicted=refused: %s", name, p.reason);
    return 1;
  }
  /* every process of the service, its command first (the reaper of a
   * private-pids service leads it, with the service's credentials too) */
  n = proc_members(procs, s->pid, members, VERIFY_PROCS_MAX);
  if (n > VERIFY_PROCS_MAX) n = VERIFY_PROCS_MAX;
  memset(&worst, 0, sizeof worst);
  worst.result = VERDICT_SAME;
  for (i = 0; i < n; i++) {
    proc_entry const *e = &procs->v[members[i]];
    if (verify_process(c, s, e, &p.after, &v) < 0) continue;
    seen++;
    dropped += v.result == VERDICT_DROPPED;
    if (v.result == VERDICT_MORE && worst.result != VERDICT_MORE) {
      worst = v;
      worst_pid = e->pid;
      memcpy(worst_comm, e->comm, sizeof worst_comm);
      clean(worst_comm);
    }
  }
  if (!seen) {
    reply(c, "name=%s\tresult=error\treason=no process of it could be read in /proc", name);
    return 1;
  }
  if (worst.result == VERDICT_MORE) {
    reply(c, "name=%s\tresult=differs\tfield=%s\tlive=%s\tpredicted=%s\tpid=%d\tcomm=%s\tprocesses=%zu",
          name, verdict_field_names[worst.field], worst.live, worst.want, (int)worst_pid, worst_comm, seen);
    return 1;
  }
  {
    char field[4200], lv[4200], wv[4200];
    if (container_verify(s->spec->ct, pid, field, lv, wv, sizeof field)) {
      clean(field);
      clean(lv);
      clean(wv);
      reply(c, "name=%s\tresult=differs\tfield=%s\tlive=%s\tpredicted=%s", name, field, lv, wv);
      return 1;
    }
  }
  if (dropped) reply(c, "name=%s\tresult=dropped\tprocesses=%zu\tdropped=%zu", name, seen, dropped);
  else reply(c, "name=%s\tresult=ok\tprocesses=%zu", name, seen);
  return 0;
}

/* ------------------------------------------------------------ requests */

static int find_all(client *c, char **args, size_t n, service **out)
{
  size_t i;
  for (i = 0; i < n; i++) {
    out[i] = service_by_name(args[i]);
    if (!out[i]) {
      reply(c, "error: unknown service '%.64s'", args[i]);
      return -1;
    }
  }
  return 0;
}

static void request(client *c, char const *msg, size_t len)
{
  static control_request r;
  service *targets[CONTROL_ARGS_MAX];
  char err[256];
  char **args;
  char const *verb;
  size_t n, i;

  if (control_parse(msg, len, &r, err, sizeof err) < 0) {
    reply(c, "%s", err);
    return;
  }
  if (r.verb->changes ? !c->may_change && !(r.verb->changes == VERB_POWER && c->may_power) : !c->may_read) {
    reply(c, "error: permission denied: %s",
          r.verb->changes == VERB_POWER ? "only root or the power group may power off, reboot or halt"
          : r.verb->changes ? "only root may change services" : "not in the control group");
    return;
  }
  verb = r.verb->name;
  n = (size_t)r.argc - 1;  /* arguments after the verb */
  args = r.argv;
  if (find_all(c, args + 1, (!strcmp(verb, "signal") && n) ? 0 : n, targets) < 0) return;

  if (!strcmp(verb, "status")) {
    if (!n) for (i = 0; i < sv.n; i++) status_record(c, sv.v[i]);
    for (i = 0; i < n; i++) status_record(c, targets[i]);
    reply(c, "ok");
  } else if (!strcmp(verb, "start")) {
    for (i = 0; i < n; i++) {
      if (targets[i]->spec->refused) {
        reply(c, "error: service '%s' is refused: its file has errors (capctl check)", targets[i]->spec->name);
        return;
      }
    }
    for (i = 0; i < n; i++) service_want(targets[i], 1);
    reply(c, "ok");
  } else if (!strcmp(verb, "stop")) {
    for (i = 0; i < n; i++) service_want(targets[i], 0);
    reply(c, "ok");
  } else if (!strcmp(verb, "restart")) {
    for (i = 0; i < n; i++) {
      service *s = targets[i];
      if (s->spec->refused) continue;
      if (s->state == ST_UP || s->state == ST_STARTING) {
        s->wanted_up = 1;
        s->explicit_down = 0;
        service_event(s, EV_STOP, 0);  /* wanted up: it starts again once down */
      } else {
        service_want(s, 1);
      }
    }
    reply(c, "ok");
  } else if (!strcmp(verb, "signal")) {
    int sig = signal_from_name(args[1]);
    if (sig < 0) {
      reply(c, "error: unknown signal '%.32s'", args[1]);
      return;
    }
    if (find_all(c, args + 2, n - 1, targets) < 0) return;
    for (i = 0; i + 1 < n; i++)
      if (targets[i]->pid > 0) service_signal(targets[i], sig);
    reply(c, "ok");
  } else if (!strcmp(verb, "reload")) {
    if (supervisor_load(0) < 0) reply(c, "error: unable to read %s/services", sv.confdir);
    else reply(c, "ok");
  } else if (!strcmp(verb, "log")) {
    char path[4096];
    if (log_file_path(targets[0], path, sizeof path) < 0) reply(c, "error: log path too long");
    else {
      reply(c, "path=%s\tlog=%s", path,
            targets[0]->spec->log == LOG_FILE ? "file" : targets[0]->spec->log == LOG_CONSOLE ? "console" :
            targets[0]->spec->log == LOG_KMSG ? "kmsg" : "none");
      reply(c, "ok");
    }
  } else if (!strcmp(verb, "poweroff") || !strcmp(verb, "reboot") || !strcmp(verb, "halt")) {
    char why[64];
    snprintf(why, sizeof why, "capctl %s", verb);
    supervisor_shutdown(!strcmp(verb, "poweroff") ? RB_POWER_OFF : !strcmp(verb, "halt") ? RB_HALT_SYSTEM : RB_AUTOBOOT, why);
    reply(c, "ok");
  } else if (!strcmp(verb, "blame")) {
    char a[24], b[24];
    reply(c, "boot\tkernel_ms=%" PRIu64 "\tready_ms=%s", sv.started_ms, since_start(sv.ready_ms, a, sizeof a));
    for (i = 0; i < sv.nphases; i++)
      reply(c, "phase=%s\tstart_ms=%s\tend_ms=%s", sv.phases[i].name, since_start(sv.phases[i].start, a, sizeof a),
            since_start(sv.phases[i].end, b, sizeof b));
    for (i = 0; i < sv.n; i++) {
      char name[SVC_NAME_MAX + 1];
      run_times(sv.v[i], a, b, sizeof a);
      reply(c, "name=%s\tstate=%s\ttype=%s\tspawned_ms=%s\tready_ms=%s", record_name(sv.v[i], name, sizeof name),
            state_names[sv.v[i]->state], sv.v[i]->spec->type == SVC_ONESHOT ? "oneshot" : "longrun", a, b);
    }
    reply(c, "ok");
  } else if (!strcmp(verb, "verify")) {
    unsigned bad = 0;
    proc_table procs;
    if (proc_table_read(&procs) < 0) {
      reply(c, "error: unable to read /proc: %s", strerror(errno));
      return;
    }
    if (!n) for (i = 0; i < sv.n; i++) bad += (unsigned)verify_one(c, sv.v[i], &procs);
    for (i = 0; i < n; i++) bad += (unsigned)verify_one(c, targets[i], &procs);
    proc_table_free(&procs);
    if (bad) reply(c, "error: %u service%s differ%s from the prediction", bad, bad == 1 ? "" : "s", bad == 1 ? "s" : "");
    else reply(c, "ok");
  }
}

/* Whoever changes services can start any of them, legacy root included:
 * only a peer that already holds every capability capinit holds may.  A
 * uid 0 without power (a noroot console) may read, not change.  (The pid
 * is the connecting process's, read once at accept time.) */
static int holds_our_caps(pid_t pid)
{
  char eff[32];
  /* a peer outside capinit's PID namespace (pid 0 here) is in an ancestor
   * namespace, which already has power over capinit */
  if (pid == 0) return 1;
  unsigned long long theirs, ours;
  char *end;
  proc_field(pid, "CapEff", eff, sizeof eff);
  theirs = strtoull(eff, &end, 16);
  if (end == eff || *end) return 0;
  proc_field(getpid(), "CapEff", eff, sizeof eff);
  ours = strtoull(eff, &end, 16);
  if (end == eff || *end) return 0;
  return (ours & ~theirs) == 0;
}

/* ------------------------------------------------------------ the loop */

/* Over CONNECTIONS_MAX (or KEPT short of it, for readers): a final reply
 * at once.  capctl waits and tries again. */
static void busy(int fd)
{
  char c;
  int i;
  send(fd, CONTROL_BUSY, sizeof CONTROL_BUSY - 1, MSG_DONTWAIT | MSG_NOSIGNAL);
  /* a request still unread at close() would reset the connection, and
   * the client would see that before the reply: no more requests (its
   * send fails with EPIPE), and those sent already are read */
  shutdown(fd, SHUT_RD);
  for (i = 0; i < 64 && recv(fd, &c, 1, MSG_DONTWAIT | MSG_TRUNC) > 0; i++) ;
  close(fd);
}

/* Whether the peer has group g, as its group or a supplementary one. */
static int peer_in_group(int fd, struct ucred const *cred, gid_t g)
{
  gid_t groups[256];
  socklen_t glen = sizeof groups;
  size_t i;
  if (cred->gid == g) return 1;
  if (getsockopt(fd, SOL_SOCKET, SO_PEERGROUPS, groups, &glen) < 0) return 0;
  for (i = 0; i < glen / sizeof groups[0]; i++)
    if (groups[i] == g) return 1;
  return 0;
}

/* Who the peer is: root with every capability capinit holds may change
 * services, and power off, reboot and halt, as may the power group; root
 * (powerless too) and the control group may read. */
static int peer_rights(int fd, waiting *w)
{
  struct ucred cred;
  socklen_t len = sizeof cred;
  if (getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &cred, &len) < 0) return -1;
  w->fd = fd;
  w->may_change = cred.uid == 0 && holds_our_caps(cred.pid);
  w->may_read = cred.uid == 0 || (sv.conf.control_group_set && peer_in_group(fd, &cred, sv.conf.control_gid));
  w->may_power = sv.conf.power_group_set && peer_in_group(fd, &cred, sv.conf.power_gid);
  return 0;
}

static size_t readers_served(void)
{
  size_t i, n = 0;
  for (i = 0; i < nclients; i++) n += !clients[i].may_change;
  return n;
}

/* Serve the longest-waiting connections that a slot is free for: the
 * last KEPT slots only for those who may change services, so that
 * readers (the control group, a powerless uid 0) cannot lock them out. */
static void serve_waiters(void)
{
  size_t i = 0, readers = readers_served();
  while (nclients < CLIENTS_MAX && i < nwaiters) {
    waiting const w = waiters[i];
    client *c;
    if (!w.may_change && readers >= CLIENTS_MAX - KEPT) {
      i++;
      continue;
    }
    memmove(waiters + i, waiters + i + 1, (nwaiters - i - 1) * sizeof *waiters);
    nwaiters--;
    readers += !w.may_change;
    c = &clients[nclients++];
    memset(c, 0, sizeof *c);
    c->fd = w.fd;
    c->may_read = w.may_read;
    c->may_change = w.may_change;
    c->may_power = w.may_power;
    c->deadline = now_ms() + CLIENT_IDLE_MS;
  }
}

static void accept_clients(void)
{
  for (;;) {
    waiting w;
    size_t readers;
    int fd = accept4(sv.control, 0, 0, SOCK_CLOEXEC | SOCK_NONBLOCK);
    if (fd < 0) {
      if (errno == EMFILE || errno == ENFILE || errno == ENOBUFS || errno == ENOMEM)
        accept_paused_until = now_ms() + ACCEPT_PAUSE_MS;
      break;
    }
    if (peer_rights(fd, &w) < 0 || nclients + nwaiters >= CONNECTIONS_MAX) {
      busy(fd);
      continue;
    }
    if (!w.may_change) {
      size_t i;
      readers = readers_served();
      for (i = 0; i < nwaiters; i++) readers += !waiters[i].may_change;
      if (readers >= CONNECTIONS_MAX - KEPT) {
        busy(fd);
        continue;
      }
    }
    waiters[nwaiters++] = w;
  }
  serve_waiters();
}

size_t control_fds(struct pollfd *p, size_t max, uint64_t *deadline)
{
  size_t n = 0, i;
  if (sv.control >= 0 && accept_paused_until > now_ms()) {
    if (!*deadline || accept_paused_until < *deadline) *deadline = accept_paused_until;
  } else if (sv.control >= 0 && n < max) {
    p[n].fd = sv.control;
    p[n++].events = POLLIN;
  }
  for (i = 0; i < nclients && n < max; i++) {
    p[n].fd = clients[i].fd;
    p[n++].events = clients[i].qoff < clients[i].qlen ? POLLOUT : POLLIN;
    if (!*deadline || clients[i].deadline < *deadline) *deadline = clients[i].deadline;
  }
  return n;
}

static void drop_client(size_t i)
{
  close(clients[i].fd);
  free(clients[i].q);
  clients[i] = clients[--nclients];
}

void control_handle(struct pollfd const *p, size_t n)
{
  size_t i, k;
  uint64_t now = now_ms();
  for (k = 0; k < n; k++) {
    if (p[k].fd == sv.control) {
      if (p[k].revents & POLLIN) accept_clients();
      continue;
    }
    for (i = 0; i < nclients && clients[i].fd != p[k].fd; i++) ;
    if (i == nclients || !p[k].revents) continue;
    {
      client *c = &clients[i];
      if (p[k].revents & POLLOUT) flush(c);
      if ((p[k].revents & POLLIN) && c->qoff == c->qlen && !c->closing) {
        char buf[CONTROL_MSG_MAX + 1];
        ssize_t r = recv(c->fd, buf, sizeof buf, MSG_DONTWAIT | MSG_TRUNC);
        /* 0 is the end of the connection or an empty message: only the
         * end reads 0 again */
        if (r == 0 && recv(c->fd, buf, 1, MSG_DONTWAIT | MSG_PEEK) == 0) c->closing = 1;
        else if (r >= 0) {
          c->deadline = now + CLIENT_IDLE_MS;
          request(c, buf, (size_t)r);
          flush(c);
        } else if (errno != EAGAIN && errno != EINTR) {
          c->closing = 1;
        }
      }
      if ((p[k].revents & (POLLHUP | POLLERR)) && !(p[k].revents & POLLIN)) c->closing = 1, c->qlen = c->qoff = 0;
    }
  }
  for (i = nclients; i-- > 0;) {
    client *c = &clients[i];
    if (c->deadline <= now && c->qoff < c->qlen && !c->closing) {
      /* a reply waits: try it, and give a reader one more period before
       * dropping it (capinit itself may have been the slow one, stopped
       * or starved, while the client could not read) */
      flush(c);
      if (c->deadline <= now && !c->reprieved) {
        c->reprieved = 1;
        c->deadline = now + CLIENT_IDLE_MS;
      }
    }
    if ((c->closing && c->qoff == c->qlen) || c->deadline <= now) drop_client(i);
  }
  serve_waiters();
}

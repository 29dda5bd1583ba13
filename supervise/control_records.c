/* supervise/control_records.c -- the records of capctl status and blame
 * (control_client.h): one line of tab-separated NAME=VALUE fields per
 * service, from capinit's own state and the service's /proc. */
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "../conf/names.h"
#include "../conf/control_verbs.h"
#include "control_client.h"
#include "../engine/privilege.h"
#include "../inspect/procfs.h"
#include "../inspect/clock.h"
#include "service.h"
#include "command.h"

void record_clean(char *s)
{
  for (; *s; s++)
    if (*s == '\t' || *s == '\n' || (unsigned char)*s < 0x20) *s = ' ';
}

void proc_field(pid_t pid, char const *key, char *out, size_t len)
{
  char buf[4096];
  snprintf(out, len, "-");
  if (pid > 0 && procfs_read(pid, "status", buf, sizeof buf) > 0) procfs_field(buf, key, out, len);
}

/* a refused file's name may hold a tab or a newline, which must not add
 * fields or records */
char const *record_name(service const *s, char *buf, size_t len)
{
  snprintf(buf, len, "%s", s->spec->name);
  record_clean(buf);
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

void record_status(client *c, service *s)
{
  char sp[24], rd[24];
  char le[64], uid[64], gid[64], groups[512], inh[32], prm[32], eff[32], bnd[32], amb[32], nnp[8];
  char text[STATUS_TEXT_MAX], fail[256], what[200], name[SVC_NAME_MAX + 1];
  uint64_t now = now_ms(), since = s->state == ST_UP ? s->up_at : s->state == ST_STARTING ||
                                   s->state == ST_STOPPING || s->state == ST_ABORTING ? s->spawned_at : s->down_at;
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
  record_clean(text);
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
  record_clean(fail);
  run_times(s, sp, rd, sizeof sp);
  client_reply(c, "name=%s\tstate=%s\twanted=%s\tpid=%d\tsince_ms=%" PRIu64 "\trestarts=%u\tlast_exit=%s"
               "\tstatus=%s\tfailure=%s\tuser=%u\tmode=%s\ttype=%s\tlog_lines=%" PRIu64 "\tlog_dropped=%" PRIu64
               "\tuid=%s\tgid=%s\tgroups=%s\tcap_inh=%s\tcap_prm=%s\tcap_eff=%s\tcap_bnd=%s\tcap_amb=%s\tno_new_privs=%s"
               "\tspawned_ms=%s\tready_ms=%s",
               record_name(s, name, sizeof name), state_names[s->state], s->wanted_up ? "up" : "down", (int)pid,
               since ? now - since : 0, s->restarts, le, text, fail, (unsigned)s->spec->uid,
               vocab_name(mode_names, (int)s->spec->mode),
               vocab_name(type_names, (int)s->spec->type), s->log.lines, s->log.dropped,
               uid, gid, groups, inh, prm, eff, bnd, amb, nnp, sp, rd);
}

void record_blame(client *c)
{
  char a[24], b[24];
  size_t i;
  client_reply(c, "boot\tkernel_ms=%" PRIu64 "\tready_ms=%s", sv.started_ms, since_start(sv.ready_ms, a, sizeof a));
  for (i = 0; i < sv.nphases; i++)
    client_reply(c, "phase=%s\tstart_ms=%s\tend_ms=%s", sv.phases[i].name,
                 since_start(sv.phases[i].start, a, sizeof a), since_start(sv.phases[i].end, b, sizeof b));
  for (i = 0; i < sv.n; i++) {
    char name[SVC_NAME_MAX + 1];
    run_times(sv.v[i], a, b, sizeof a);
    client_reply(c, "name=%s\tstate=%s\ttype=%s\tspawned_ms=%s\tready_ms=%s", record_name(sv.v[i], name, sizeof name),
                 state_names[sv.v[i]->state], vocab_name(type_names, (int)sv.v[i]->spec->type), a, b);
  }
}

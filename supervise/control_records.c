/* supervise/control_records.c -- the records of capctl status, blame
 * and verify (control_client.h): one line of tab-separated NAME=VALUE fields per
 * service (the fields of conf/record.h), from capinit's own state and the
 * service's /proc. */
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>
#include <sys/prctl.h>
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

char const *proc_field(pid_t pid, char const *key, char *out, size_t len)
{
  char buf[4096];
  snprintf(out, len, "-");
  if (pid > 0 && procfs_read(pid, "status", buf, sizeof buf) > 0) procfs_field(buf, key, out, len);
  return out;
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

/* The text of a status record's values, each in a buffer of its own. */
typedef struct status_text_s {
  char name[SVC_NAME_MAX + 1], pid[16], since[24], restarts[16], last_exit[64], text[STATUS_TEXT_MAX];
  char failure[256], user[16], log_lines[24], log_dropped[24], spawned[24], ready[24];
  char uid[64], gid[64], groups[512], inh[32], prm[32], eff[32], bnd[32], amb[32], nnp[8];
} status_text;

/* Why a failed service failed: the stage, the reason it was given, or its
 * last exit; nothing for a service that has not failed. */
static void status_failure(service const *s, char const *last, char *buf, size_t len)
{
  char what[256];
  buf[0] = 0;
  if (s->state == ST_FAILED && s->fail_stage >= 0) {
    priv_fail f = { s->fail_stage, s->fail_errno, s->fail_arg };
    snprintf(buf, len, "stage %s: %s", stage_name(s->fail_stage), priv_fail_reason(&f, s->spec, what, sizeof what));
  } else if (s->state == ST_FAILED && s->failure) {
    snprintf(buf, len, "%s", s->failure);
  } else if (s->state == ST_FAILED && s->last_status >= 0) {
    snprintf(buf, len, "%s", last);
  }
  record_clean(buf);
}

/* The command's credentials, as /proc/PID/status says them. */
static void status_proc(pid_t pid, status_text *t, char const **v)
{
  v[RF_UID] = proc_field(pid, "Uid", t->uid, sizeof t->uid);
  v[RF_GID] = proc_field(pid, "Gid", t->gid, sizeof t->gid);
  v[RF_GROUPS] = proc_field(pid, "Groups", t->groups, sizeof t->groups);
  v[RF_CAP_INH] = proc_field(pid, "CapInh", t->inh, sizeof t->inh);
  v[RF_CAP_PRM] = proc_field(pid, "CapPrm", t->prm, sizeof t->prm);
  v[RF_CAP_EFF] = proc_field(pid, "CapEff", t->eff, sizeof t->eff);
  v[RF_CAP_BND] = proc_field(pid, "CapBnd", t->bnd, sizeof t->bnd);
  v[RF_CAP_AMB] = proc_field(pid, "CapAmb", t->amb, sizeof t->amb);
  v[RF_NO_NEW_PRIVS] = proc_field(pid, "NoNewPrivs", t->nnp, sizeof t->nnp);
}

/* What capinit knows of the service: its state, counters and file. */
static void status_own(service const *s, pid_t pid, status_text *t, char const **v)
{
  uint64_t now = now_ms(), since = s->state == ST_UP ? s->up_at : s->state == ST_STARTING ||
                                   s->state == ST_STOPPING || s->state == ST_ABORTING ? s->spawned_at : s->down_at;
  last_exit(s, t->last_exit, sizeof t->last_exit);
  snprintf(t->pid, sizeof t->pid, "%d", (int)pid);
  snprintf(t->since, sizeof t->since, "%" PRIu64, since ? now - since : 0);
  snprintf(t->restarts, sizeof t->restarts, "%u", s->restarts);
  snprintf(t->user, sizeof t->user, "%u", (unsigned)s->spec->uid);
  snprintf(t->log_lines, sizeof t->log_lines, "%" PRIu64, s->log.lines);
  snprintf(t->log_dropped, sizeof t->log_dropped, "%" PRIu64, s->log.dropped);
  if (s->status_text) memcpy(t->text, s->status_text, sizeof t->text);
  else t->text[0] = 0;
  record_clean(t->text);
  status_failure(s, t->last_exit, t->failure, sizeof t->failure);
  run_times(s, t->spawned, t->ready, sizeof t->spawned);
  v[RF_NAME] = record_name(s, t->name, sizeof t->name);
  v[RF_STATE] = state_names[s->state];
  v[RF_WANTED] = s->wanted_up ? "up" : "down";
  v[RF_PID] = t->pid;
  v[RF_SINCE_MS] = t->since;
  v[RF_RESTARTS] = t->restarts;
  v[RF_LAST_EXIT] = t->last_exit;
  v[RF_STATUS] = t->text;
  v[RF_FAILURE] = t->failure;
  v[RF_USER] = t->user;
  v[RF_MODE] = vocab_name(mode_names, (int)s->spec->mode);
  v[RF_TYPE] = vocab_name(type_names, (int)s->spec->type);
  v[RF_LOG_LINES] = t->log_lines;
  v[RF_LOG_DROPPED] = t->log_dropped;
  v[RF_SPAWNED_MS] = t->spawned;
  v[RF_READY_MS] = t->ready;
}

void record_status(client *c, service *s)
{
  status_text t;
  char const *v[RF_COUNT] = { 0 };
  pid_t pid = service_command_pid(s);
  status_own(s, pid, &t, v);
  status_proc(pid, &t, v);
  client_record(c, 0, 0, STATUS_FIELDS_N, v);
}

void record_blame(client *c)
{
  char a[24], b[24];
  char const *v[RF_COUNT] = { 0 };
  size_t i;
  snprintf(a, sizeof a, "%" PRIu64, sv.started_ms);
  v[RF_KERNEL_MS] = a;
  v[RF_READY_MS] = since_start(sv.ready_ms, b, sizeof b);
  client_record(c, BLAME_BOOT_TAG, blame_boot_fields, 2, v);
  for (i = 0; i < sv.nphases; i++) {
    v[RF_PHASE] = sv.phases[i].name;
    v[RF_START_MS] = since_start(sv.phases[i].start, a, sizeof a);
    v[RF_END_MS] = since_start(sv.phases[i].end, b, sizeof b);
    client_record(c, 0, blame_phase_fields, 3, v);
  }
  for (i = 0; i < sv.n; i++) {
    char name[SVC_NAME_MAX + 1];
    run_times(sv.v[i], a, b, sizeof a);
    v[RF_NAME] = record_name(sv.v[i], name, sizeof name);
    v[RF_STATE] = state_names[sv.v[i]->state];
    v[RF_TYPE] = vocab_name(type_names, (int)sv.v[i]->spec->type);
    v[RF_SPAWNED_MS] = a;
    v[RF_READY_MS] = b;
    client_record(c, 0, blame_service_fields, 5, v);
  }
}

void record_facts_capinit(client *c)
{
  char pid[16], bits[16];
  char const *v[RF_COUNT] = { 0 };
  snprintf(pid, sizeof pid, "%d", (int)getpid());
  snprintf(bits, sizeof bits, "%d", prctl(PR_GET_SECUREBITS, 0, 0, 0, 0));
  v[RF_PID] = pid;
  v[RF_SECCOMP] = sv.seccomp ? "1" : "0";
  v[RF_SECUREBITS] = bits;
  client_record(c, FACTS_CAPINIT_TAG, facts_capinit_fields, 3, v);
}

/* What capctl verify needs of a service and only capinit knows: the
 * command's pid, and which spec it runs (not a reload's next one) */
void record_facts(client *c, service const *s)
{
  char name[SVC_NAME_MAX + 1], pid[16], main[16], path[4096], digest[SVC_DIGEST_TEXT];
  char const *v[RF_COUNT] = { 0 };
  snprintf(pid, sizeof pid, "%d", (int)service_command_pid(s));
  snprintf(main, sizeof main, "%d", (int)s->pid);
  snprintf(path, sizeof path, "%s", s->spec->file);
  record_clean(path);
  v[RF_NAME] = record_name(s, name, sizeof name);
  v[RF_STATE] = state_names[s->state];
  v[RF_TYPE] = vocab_name(type_names, (int)s->spec->type);
  v[RF_PID] = pid;
  v[RF_MAIN_PID] = main;
  v[RF_PATH] = path;
  v[RF_SPEC_DIGEST] = svc_digest_text(s->spec, digest);
  client_record(c, 0, facts_service_fields, 7, v);
}

/* capctl/learn_trace.c -- tracefs for capctl learn: an instance of its
 * own (instances/capctl-learn-PID), never the global trace; removed at the
 * end.  Where tracefs is not mounted, a mount of it that is attached
 * nowhere (fsopen(2), fsmount(2)): no namespace sees it, and it is gone
 * with its descriptor. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "learn_kprobe.h"
#include "learn_trace.h"

#define TRACEFS_MAGIC 0x74726163
#ifndef FSCONFIG_CMD_CREATE
#define FSCONFIG_CMD_CREATE 6
#endif

/* capability:cap_capable: "cred %p, target_ns %p, capable_ns %p, cap %d,
 * ret %d" (include/trace/events/capability.h).  It has no opts field: a
 * check the kernel made quietly (CAP_OPT_NOAUDIT) looks like any other. */
static int tp_parse_check(char const *event, char const *fields, learn_event *e)
{
  char const *c;
  if (strcmp(event, "cap_capable")) return -1;
  c = strstr(fields, " cap ");
  if (!c || sscanf(c, " cap %d, ret %d", &e->cap, &e->ret) != 2) return -1;
  e->opts = -1;
  e->kind = LK_CHECK;
  return 0;
}

static char const *const tp_events[] = { "capability/cap_capable", "raw_syscalls/sys_enter",
                                          "sched/sched_process_exec", "sched/sched_process_fork", 0 };

learn_source const learn_sources[] = {
  { "tracepoint capability:cap_capable", "events/capability/cap_capable", tp_events, 0, 0, tp_parse_check },
  { "kprobe on cap_capable", "kprobe_events", learn_kprobe_events, learn_kprobe_define, learn_kprobe_undefine, learn_kprobe_parse_check },
};
size_t const learn_sources_n = sizeof learn_sources / sizeof learn_sources[0];

static int fail(char *err, size_t errlen, char const *what, char const *obj)
{
  int e = errno;
  snprintf(err, errlen, "%s %s: %s", what, obj, strerror(e));
  errno = e;
  return -1;
}

static int write_at(int dir, char const *path, char const *text, char *err, size_t errlen)
{
  int fd = openat(dir, path, O_WRONLY | O_TRUNC | O_CLOEXEC);
  size_t n = strlen(text);
  if (fd < 0) return fail(err, errlen, "open", path);
  if (write(fd, text, n) != (ssize_t)n) {
    int e = errno;
    close(fd);
    errno = e;
    return fail(err, errlen, "write", path);
  }
  return close(fd);
}

static int tracefs_open(learn_trace *t, char *err, size_t errlen)
{
  struct statfs sf;
  int fd = open("/sys/kernel/tracing", O_PATH | O_DIRECTORY | O_CLOEXEC), fs, mnt;
  t->where = "/sys/kernel/tracing";
  if (fd >= 0 && fstatfs(fd, &sf) == 0 && sf.f_type == TRACEFS_MAGIC) return fd;
  t->where = "a mount of its own, attached nowhere";
  if (fd >= 0) close(fd);
  fs = (int)syscall(SYS_fsopen, "tracefs", 1 /* FSOPEN_CLOEXEC */);
  if (fs < 0) return fail(err, errlen, "open a file system of type", "tracefs");
  if (syscall(SYS_fsconfig, fs, FSCONFIG_CMD_CREATE, 0, 0, 0) < 0) {
    int e = errno;
    close(fs);
    errno = e;
    return fail(err, errlen, "create", "tracefs");
  }
  mnt = (int)syscall(SYS_fsmount, fs, 1 /* FSMOUNT_CLOEXEC */, 0);
  close(fs);
  if (mnt < 0) return fail(err, errlen, "mount", "tracefs");
  return mnt;
}

int learn_trace_open(learn_trace *t, char *err, size_t errlen)
{
  char path[128];
  size_t i;
  struct stat st;
  memset(t, 0, sizeof *t);
  t->inst = t->pipe = -1;
  t->tracefs = tracefs_open(t, err, errlen);
  if (t->tracefs < 0) return -1;
  snprintf(t->name, sizeof t->name, "capctl-learn-%ld", (long)getpid());
  snprintf(path, sizeof path, "instances/%s", t->name);
  if (mkdirat(t->tracefs, path, 0700) < 0) return fail(err, errlen, "make the tracing instance", path);
  t->inst = openat(t->tracefs, path, O_PATH | O_DIRECTORY | O_CLOEXEC);
  if (t->inst < 0) return fail(err, errlen, "open", path);
  for (i = 0; i < learn_sources_n; i++) {
    if (fstatat(t->tracefs, learn_sources[i].probe, &st, 0) < 0) continue;
    t->src = &learn_sources[i];
    if (!t->src->define) return 0;
    snprintf(t->group, sizeof t->group, "capctl_learn_%ld", (long)getpid());
    if ((t->capset = t->src->define(t->tracefs, t->group, err, errlen)) < 0) return -1;
    t->defined = 1;
    return 0;
  }
  errno = ENOENT;
  snprintf(err, errlen, "this kernel has neither the tracepoint capability:cap_capable nor kprobe events");
  return -1;
}

int learn_trace_start(learn_trace *t, pid_t pid, char *err, size_t errlen)
{
  char text[32], path[128];
  size_t i;
  /* a daemon that makes a syscall per request fills the default buffer
   * between two reads; a lost record is a refusal (learn_main.c) */
  if (write_at(t->inst, "buffer_size_kb", "8192", err, errlen) < 0) return -1;
  if (write_at(t->inst, "options/event-fork", "1", err, errlen) < 0) return -1;
  snprintf(text, sizeof text, "%ld", (long)pid);
  if (write_at(t->inst, "set_event_pid", text, err, errlen) < 0) return -1;
  t->pipe = openat(t->inst, "trace_pipe", O_RDONLY | O_NONBLOCK | O_CLOEXEC);
  if (t->pipe < 0) return fail(err, errlen, "open", "trace_pipe");
  for (i = 0; t->src->events[i]; i++) {
    char event[96];
    snprintf(event, sizeof event, t->src->events[i], t->group);
    snprintf(path, sizeof path, "events/%s/enable", event);
    if (write_at(t->inst, path, "1", err, errlen) < 0) return -1;
  }
  snprintf(path, sizeof path, "events/%s/cap_capset/enable", t->group);
  if (t->capset && write_at(t->inst, path, "1", err, errlen) < 0) return -1;
  return write_at(t->inst, "tracing_on", "1", err, errlen);
}

int learn_trace_close(learn_trace *t, char *err, size_t errlen)
{
  char path[128];
  int r = 0;
  if (t->inst >= 0) {
    write_at(t->inst, "tracing_on", "0", err, errlen);
    write_at(t->inst, "events/enable", "0", err, errlen);
    close(t->inst);
  }
  if (t->pipe >= 0) close(t->pipe);
  if (t->tracefs >= 0 && t->name[0]) {
    snprintf(path, sizeof path, "instances/%s", t->name);
    if (unlinkat(t->tracefs, path, AT_REMOVEDIR) < 0 && errno != ENOENT)
      r = fail(err, errlen, "remove the tracing instance", path);
  }
  /* the events made are the machine's, not the instance's: removed once
   * no instance has them enabled (ours is gone) */
  if (t->defined) t->src->undefine(t->tracefs, t->group);
  t->defined = 0;
  if (t->tracefs >= 0) close(t->tracefs);
  t->inst = t->pipe = t->tracefs = -1;
  return r;
}

/* "           comm-123     [001] ..... 91081.158497: cap_capable: cred ..."
 * The command name may hold blanks and dashes: the pid is the digits after
 * the last dash before the CPU's bracket, the last '[' before the event
 * (the flags and the time hold none). */
void learn_trace_parse(learn_trace const *t, char *line, learn_event *e)
{
  char *colon, *event, *fields, *bracket, *dash, *start, *end;
  memset(e, 0, sizeof *e);
  e->kind = LK_OTHER;
  if (strstr(line, "LOST") && strstr(line, "EVENTS]")) {
    e->kind = LK_LOST;
    return;
  }
  /* the event's name ends at ": " after the time's ':' */
  colon = strstr(line, ": ");
  if (!colon) return;
  event = colon + 2;
  fields = strstr(event, ": ");
  if (!fields) return;
  *fields = 0;
  fields += 2;
  *colon = 0;
  bracket = strrchr(line, '[');
  if (!bracket) return;
  for (end = bracket; end > line && end[-1] == ' '; end--) {}
  *end = 0;
  dash = strrchr(line, '-');
  if (!dash) return;
  *dash = 0;
  e->pid = (pid_t)strtol(dash + 1, 0, 10);
  for (start = line; *start == ' '; start++) {}
  snprintf(e->comm, sizeof e->comm, "%s", start);
  if (!strcmp(event, "sys_enter")) {
    if (sscanf(fields, "NR %ld (%lx, %lx, %lx, %lx, %lx, %lx)", &e->nr, &e->args[0], &e->args[1], &e->args[2],
               &e->args[3], &e->args[4], &e->args[5]) >= 1)
      e->kind = LK_SYSCALL;
  } else if (!strcmp(event, "sched_process_exec")) {
    char *sp;
    if (strncmp(fields, "filename=", 9)) return;
    e->filename = fields + 9;
    sp = strstr(fields + 9, " pid=");
    if (sp) *sp = 0;
    e->kind = LK_EXEC;
  } else if (!strcmp(event, "sched_process_fork")) {
    /* "comm=%s pid=%d child_comm=%s child_pid=%d" */
    char *cc = strstr(fields, " child_comm="), *cp = strstr(fields, " child_pid=");
    if (!cc || !cp || cp < cc) return;
    *cp = 0;
    snprintf(e->comm, sizeof e->comm, "%s", cc + 12);
    e->child = (pid_t)strtol(cp + 11, 0, 10);
    e->kind = LK_FORK;
  } else {
    t->src->parse_check(event, fields, e);
  }
}

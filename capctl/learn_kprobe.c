/* capctl/learn_kprobe.c -- a kprobe on cap_capable(cred, ns, cap, opts),
 * its third and fourth arguments fetched ($arg3, $arg4: the kernel's
 * calling convention, no BPF), and a kretprobe for its result: a check
 * is the two records of one process, in order (cap_capable calls no
 * other check).  Unlike the tracepoint, opts tells a quiet check
 * (CAP_OPT_NOAUDIT).  The probes are the machine's, in a group of our own
 * (capctl_learn_PID), enabled only in our instance, removed at the end. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "learn_kprobe.h"

char const *const learn_kprobe_events[] = { "%s/cap_capable", "%s/cap_capable_ret", "raw_syscalls/sys_enter",
                                      "sched/sched_process_exec", "sched/sched_process_fork", 0 };

/* One line appended to kprobe_events (never truncated: that would remove
 * every probe of the machine).  0, or -1. */
static int learn_kprobe_write(int tracefs, char const *text)
{
  int fd = openat(tracefs, "kprobe_events", O_WRONLY | O_APPEND | O_CLOEXEC), e;
  ssize_t n;
  if (fd < 0) return -1;
  n = write(fd, text, strlen(text));
  e = errno;
  close(fd);
  errno = e;
  return n == (ssize_t)strlen(text) ? 0 : -1;
}

int learn_kprobe_define(int tracefs, char const *group, char *err, size_t errlen)
{
  char line[256];
  snprintf(line, sizeof line, "p:%s/cap_capable cap_capable cap=$arg3:s32 opts=$arg4:u32\n", group);
  if (learn_kprobe_write(tracefs, line) < 0) {
    snprintf(err, errlen, "make the kprobe %s/cap_capable: %s", group, strerror(errno));
    return -1;
  }
  snprintf(line, sizeof line, "r:%s/cap_capable_ret cap_capable ret=$retval:s32\n", group);
  if (learn_kprobe_write(tracefs, line) < 0) {
    int e = errno;
    learn_kprobe_undefine(tracefs, group);
    snprintf(err, errlen, "make the kretprobe %s/cap_capable_ret: %s", group, strerror(e));
    return -1;
  }
  return 0;
}

void learn_kprobe_undefine(int tracefs, char const *group)
{
  char line[128];
  snprintf(line, sizeof line, "-:%s/cap_capable_ret\n", group);
  learn_kprobe_write(tracefs, line);
  snprintf(line, sizeof line, "-:%s/cap_capable\n", group);
  learn_kprobe_write(tracefs, line);
}

int learn_kprobe_parse_check(char const *event, char const *fields, learn_event *e)
{
  char const *p;
  unsigned opts;
  if (!strcmp(event, "cap_capable")) {
    p = strstr(fields, " cap=");
    if (!p || sscanf(p, " cap=%d opts=%u", &e->cap, &opts) != 2) return -1;
    e->opts = (int)opts;
    e->kind = LK_CAP_ENTRY;
    return 0;
  }
  if (!strcmp(event, "cap_capable_ret")) {
    p = strstr(fields, " ret=");
    if (!p || sscanf(p, " ret=%d", &e->ret) != 1) return -1;
    e->kind = LK_CAP_RET;
    return 0;
  }
  return -1;
}

/* capctl/learn_kprobe.c -- a kprobe on cap_capable(cred, ns, cap, opts),
 * its third and fourth arguments fetched ($arg3, $arg4: the kernel's
 * calling convention, no BPF), and a kretprobe for its result: a check
 * is the two records of one process, in order (cap_capable calls no
 * other check).  Unlike the tracepoint, opts tells a quiet check
 * (CAP_OPT_NOAUDIT).  A third kprobe, on cap_capset(new, old, effective,
 * inheritable, permitted), reads what a process asks of capset(2), which
 * checks no capability (the sets asked must be within those it has): the
 * sets asked ($arg3, $arg5), and from the old credentials ($arg2) its
 * euid and the sets it had, where the kernel's BTF says they are.  The
 * probes are the machine's, in a group of our own (capctl_learn_PID),
 * enabled only in our instance, removed at the end. */
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
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

/* The byte offsets of struct cred's euid, cap_permitted and cap_effective
 * (include/linux/cred.h), from the kernel's own BTF: they move between
 * kernels (Debian's 6.1 has the stable backport that made its usage an
 * atomic_long_t: euid at 24, cap_permitted at 52; 4 bytes less before;
 * more with CONFIG_DEBUG_CREDENTIALS).  0, or -1 (no BTF, or no such
 * struct).  The types follow the header one after another, each with
 * what its kind (bits 24-28 of info) and vlen (bits 0-15) add. */
static int cred_offsets(unsigned off[3])
{
  static char const *const want[3] = { "euid", "cap_permitted", "cap_effective" };
  uint32_t hdr[6], *t, *end, info, kind, vlen, i, j;
  char *buf, *strs;
  unsigned found = 0;
  struct stat st;
  int fd = open("/sys/kernel/btf/vmlinux", O_RDONLY | O_CLOEXEC);
  ssize_t n = 0, k = 1;
  if (fd < 0 || fstat(fd, &st) < 0 || st.st_size < 24 || st.st_size > (64 << 20)) {
    if (fd >= 0) close(fd);
    return -1;
  }
  /* sysfs gives a binary file a page or so at a time */
  buf = malloc((size_t)st.st_size);
  while (buf && n < st.st_size && (k = read(fd, buf + n, (size_t)(st.st_size - n))) > 0) n += k;
  close(fd);
  if (!buf || n != st.st_size) goto fail;
  /* magic 0xeb9f (16 bits), version, flags; hdr_len, type_off, type_len,
   * str_off, str_len */
  memcpy(hdr, buf, sizeof hdr);
  if ((hdr[0] & 0xffff) != 0xeb9f || (uint64_t)hdr[1] + hdr[4] + hdr[5] > (uint64_t)n ||
      (uint64_t)hdr[1] + hdr[2] + hdr[3] > (uint64_t)n || (hdr[1] + hdr[2]) % 4)
    goto fail;
  t = (uint32_t *)(void *)(buf + hdr[1] + hdr[2]);
  end = (uint32_t *)(void *)(buf + hdr[1] + hdr[2] + hdr[3]);
  strs = buf + hdr[1] + hdr[4];
  /* each type: name_off, info, size or type; then its kind's own */
  for (; t + 3 <= end; t += 3) {
    info = t[1];
    kind = info >> 24 & 0x1f;
    vlen = info & 0xffff;
    if (kind == 4 && t[0] < hdr[5] && !strcmp(strs + t[0], "cred") && t + 3 + 3 * vlen <= end) {
      /* its members: name_off, type, bit offset (the low 24 bits with
       * kind_flag) */
      for (i = 0; i < vlen; i++)
        for (j = 0; j < 3; j++)
          if (t[3 + 3 * i] < hdr[5] && !strcmp(strs + t[3 + 3 * i], want[j])) {
            off[j] = (info >> 31 ? t[5 + 3 * i] & 0xffffff : t[5 + 3 * i]) / 8;
            found |= 1u << j;
          }
      break;
    }
    switch (kind) {
      case 1: case 14: case 17: t += 1; break;             /* int, var, decl tag */
      case 3: t += 3; break;                                /* array */
      case 4: case 5: case 15: case 19: t += 3 * vlen; break;  /* struct, union, datasec, enum64 */
      case 6: case 13: t += 2 * vlen; break;               /* enum, func proto */
      case 2: case 7: case 8: case 9: case 10: case 11: case 12: case 16: case 18: break;
      default: goto fail;
    }
  }
  free(buf);
  return found == 7 ? 0 : -1;
fail:
  free(buf);
  return -1;
}

int learn_kprobe_define(int tracefs, char const *group, char *err, size_t errlen)
{
  char line[512];
  unsigned off[3];
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
  /* the sets asked ($arg3, $arg5) and the old credentials' ($arg2).  A
   * kernel_cap_t is two __u32 in 6.1 (a u64 from 6.3): the low word at
   * +0, the high at +4 either way on a little-endian machine.
   * tests/qemu/test_learn_kprobe.sh checks them by their effect: the set
   * learned, the one the proposal's process holds in /proc. */
  if (cred_offsets(off) < 0) return 0;
  snprintf(line, sizeof line, "p:%s/cap_capset cap_capset euid=+%u($arg2):u32 had_p0=+%u($arg2):x32"
           " had_p1=+%u($arg2):x32 had_e0=+%u($arg2):x32 had_e1=+%u($arg2):x32 e0=+0($arg3):x32 e1=+4($arg3):x32"
           " p0=+0($arg5):x32 p1=+4($arg5):x32\n", group, off[0], off[1], off[1] + 4, off[2], off[2] + 4);
  if (learn_kprobe_write(tracefs, line) < 0) {
    int e = errno;
    learn_kprobe_undefine(tracefs, group);
    snprintf(err, errlen, "make the kprobe %s/cap_capset: %s", group, strerror(e));
    return -1;
  }
  return 1;
}

void learn_kprobe_undefine(int tracefs, char const *group)
{
  char line[128];
  snprintf(line, sizeof line, "-:%s/cap_capset\n", group);
  learn_kprobe_write(tracefs, line);
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
  if (!strcmp(event, "cap_capset")) {
    unsigned w[8];
    p = strstr(fields, " euid=");
    if (!p || sscanf(p, " euid=%u had_p0=%x had_p1=%x had_e0=%x had_e1=%x e0=%x e1=%x p0=%x p1=%x", &e->euid, &w[0],
                     &w[1], &w[2], &w[3], &w[4], &w[5], &w[6], &w[7]) != 9)
      return -1;
    e->had_perm = (uint64_t)w[1] << 32 | w[0];
    e->had_eff = (uint64_t)w[3] << 32 | w[2];
    e->ask_eff = (uint64_t)w[5] << 32 | w[4];
    e->ask_perm = (uint64_t)w[7] << 32 | w[6];
    e->kind = LK_CAPSET;
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

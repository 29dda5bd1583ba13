/* capctl/learn_record.c -- the records of a traced run into what each
 * capability was checked for.  The service begins with the first program
 * executed that is not capexec: the checks before it are capexec's own,
 * applying the file (setgid, setpcap...), not the service's.  A check
 * belongs to the last system call its process entered before it. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/syscall.h>

#include "../conf/xalloc.h"
#include "learn_record.h"

/* The calls that check capabilities, and the common ones around them, by
 * name (the numbers differ between architectures: <sys/syscall.h>). */
#define S(n) { SYS_##n, #n }
static struct { long nr; char const *name; } const syscall_names[] = {
  S(read), S(write), S(openat), S(close), S(ioctl), S(mprotect), S(brk), S(execve), S(execveat),
  S(socket), S(bind), S(listen), S(connect), S(accept4), S(setsockopt), S(sendto), S(sendmsg),
  S(fchown), S(fchownat), S(fchmod), S(fchmodat), S(unlinkat), S(renameat2), S(mkdirat), S(mknodat),
  S(linkat), S(symlinkat), S(utimensat), S(setxattr), S(lsetxattr), S(fsetxattr), S(removexattr),
  S(truncate), S(ftruncate), S(fallocate),
  S(kill), S(tkill), S(tgkill), S(ptrace), S(process_vm_readv), S(process_vm_writev), S(kcmp),
  S(setuid), S(setgid), S(setreuid), S(setregid), S(setresuid), S(setresgid), S(setgroups),
  S(setfsuid), S(setfsgid), S(capset), S(prctl),
  S(setpriority), S(sched_setscheduler), S(sched_setparam), S(sched_setaffinity), S(setrlimit), S(prlimit64),
  S(mount), S(umount2), S(unshare), S(setns), S(clone), S(clone3), S(pivot_root), S(chroot),
  S(sethostname), S(setdomainname), S(reboot), S(init_module), S(finit_module), S(delete_module),
  S(adjtimex), S(clock_adjtime), S(mlock), S(mlockall), S(mlock2),
  S(bpf), S(perf_event_open), S(syslog), S(quotactl), S(swapon), S(swapoff), S(acct), S(keyctl), S(add_key),
  S(fanotify_init), S(name_to_handle_at), S(open_by_handle_at), S(madvise), S(msgctl), S(shmctl), S(semctl),
  S(ioprio_set), S(migrate_pages), S(move_pages), S(mbind), S(set_mempolicy), S(vhangup), S(fsopen),
  S(fsmount), S(move_mount), S(open_tree), S(mount_setattr), S(pidfd_getfd), S(pidfd_send_signal),
#ifdef SYS_open
  S(open), S(chown), S(lchown), S(chmod), S(unlink), S(rename), S(mkdir), S(mknod), S(link), S(symlink),
#endif
  /* where 32-bit architectures (armhf) have other calls, or none */
#ifdef SYS_mmap
  S(mmap),
#endif
#ifdef SYS_mmap2
  S(mmap2),
#endif
#ifdef SYS_settimeofday
  S(settimeofday),
#endif
#ifdef SYS_clock_settime
  S(clock_settime),
#endif
#ifdef SYS_clock_settime64
  S(clock_settime64),
#endif
#ifdef SYS_ioperm
  S(ioperm), S(iopl),
#endif
};
#undef S

char const *learn_syscall_name(long nr)
{
  size_t i;
  for (i = 0; i < sizeof syscall_names / sizeof syscall_names[0]; i++)
    if (syscall_names[i].nr == nr) return syscall_names[i].name;
  return 0;
}

/* The checks the kernel makes with CAP_OPT_NOAUDIT only to decide how it
 * does something, never whether: the tracepoint cannot tell them (it has
 * no opts field), their system calls can.  The kernel's
 * cap_vm_enough_memory checks cap_sys_admin for every writable private
 * mapping, to let an administrator's process use the admin reserve under
 * strict overcommit: every program that maps memory. */
static struct { int cap; char const *calls; char const *why; } const quiet[] = {
  { 21, " mmap mmap2 brk mremap mprotect shmat shmget execve execveat ",
    "the memory accounting's (cap_vm_enough_memory): a reserve, not a permission" },
};

char const *learn_quiet(int cap, long nr, int opts)
{
  char const *name = learn_syscall_name(nr);
  char word[40];
  size_t i;
  /* CAP_OPT_NOAUDIT, BIT(1) of include/linux/security.h's options */
  if (opts >= 0) return opts & 2 ? "the kernel's quiet check (CAP_OPT_NOAUDIT)" : 0;
  if (!name) return 0;
  snprintf(word, sizeof word, " %s ", name);
  for (i = 0; i < sizeof quiet / sizeof quiet[0]; i++)
    if (quiet[i].cap == cap && strstr(quiet[i].calls, word)) return quiet[i].why;
  return 0;
}

/* The slot of pid in the set of size cap (a power of 2): its own, or the
 * free one where it would go. */
static size_t seen_slot(pid_t const *set, size_t cap, pid_t pid)
{
  size_t i = ((size_t)pid * 2654435761u) & (cap - 1);
  while (set[i] && set[i] != pid) i = (i + 1) & (cap - 1);
  return i;
}

static void seen_add(learn_record *r, pid_t pid)
{
  size_t i;
  if (pid <= 0 || learn_record_has(r, pid)) return;
  if (2 * (r->nseen + 1) > r->seencap) {
    size_t cap = r->seencap ? 2 * r->seencap : 512;
    pid_t *set = xcalloc(cap, sizeof *set);
    for (i = 0; i < r->seencap; i++)
      if (r->seen[i]) set[seen_slot(set, cap, r->seen[i])] = r->seen[i];
    free(r->seen);
    r->seen = set;
    r->seencap = cap;
  }
  r->seen[seen_slot(r->seen, r->seencap, pid)] = pid;
  r->nseen++;
}

/* pid's process (the oldest one reused when full), made when make. */
static learn_proc *proc_of(learn_record *r, pid_t pid, int make)
{
  unsigned i;
  for (i = 0; i < r->nproc; i++)
    if (r->proc[i].pid == pid) return &r->proc[i];
  if (!make) return 0;
  seen_add(r, pid);
  if (r->nproc < LEARN_PIDS) i = r->nproc++;
  else i = (unsigned)pid % LEARN_PIDS;
  memset(&r->proc[i], 0, sizeof r->proc[i]);
  r->proc[i].pid = pid;
  r->proc[i].nr = -1;
  r->proc[i].pend_cap = -1;
  return &r->proc[i];
}

static void add_where(learn_where *w, unsigned *n, learn_proc const *p, char const *comm)
{
  long nr = p ? p->nr : -1;
  unsigned i;
  for (i = 0; i < *n; i++)
    if (w[i].nr == nr && !strcmp(w[i].comm, comm)) return;
  if (*n == LEARN_WHERE) return;
  w[*n].nr = nr;
  snprintf(w[*n].comm, sizeof w[*n].comm, "%s", comm);
  w[*n].obj[0] = 0;
  if (p) learn_object(nr, p->args, w[*n].obj, sizeof w[*n].obj);
  (*n)++;
}

/* The command a process of the service runs: its program's name (what
 * the kernel keeps, 15 bytes), from its exec or its parent; the trace's
 * own (looked up when the trace is read) otherwise. */
static char const *comm_of(learn_proc const *p, learn_event const *e)
{
  return p && p->comm[0] ? p->comm : e->comm;
}

/* One check of the service's (e's cap, ret and opts) into r. */
static void count_check(learn_record *r, learn_event const *e)
{
  learn_proc *p;
  learn_cap *c;
  char const *why;
  if (!r->started || e->cap < 0 || e->cap >= LEARN_CAPS) return;
  p = proc_of(r, e->pid, 0);
  c = &r->cap[e->cap];
  why = learn_quiet(e->cap, p ? p->nr : -1, e->opts);
  if (why) {
    c->quiet++;
    c->quiet_why = why;
    add_where(c->qwhere, &c->nqwhere, p, comm_of(p, e));
    return;
  }
  if (e->ret == 0) c->granted++;
  else c->refused++;
  add_where(c->where, &c->nwhere, p, comm_of(p, e));
}

uint64_t learn_capset(learn_event const *e)
{
  if (!e->euid || e->ask_perm == e->had_perm) return 0;
  return e->ask_perm & e->had_perm;
}

/* A capset(2) of the service's (LK_CAPSET) into r. */
static void count_capset(learn_record *r, learn_event const *e, learn_proc const *p)
{
  uint64_t asked = learn_capset(e);
  unsigned i;
  if (!r->started) return;
  if (!asked) {
    if (!r->capset_root[0]) snprintf(r->capset_root, sizeof r->capset_root, "%s", comm_of(p, e));
    return;
  }
  for (i = 0; i < LEARN_CAPS; i++) {
    learn_cap *c = &r->cap[i];
    if (!(asked >> i & 1)) continue;
    if (!c->asked++) snprintf(c->asked_by, sizeof c->asked_by, "%s", comm_of(p, e));
  }
}

void learn_record_line(char *line, void *record)
{
  learn_record *r = record;
  learn_event e;
  learn_proc *p;
  char const *slash;
  learn_trace_parse(r->trace, line, &e);
  switch (e.kind) {
    case LK_LOST: r->lost++; break;
    case LK_EXEC:
      if (strcmp(e.filename, r->capexec)) r->started = 1;
      p = proc_of(r, e.pid, 1);
      slash = strrchr(e.filename, '/');
      snprintf(p->comm, 16, "%s", slash ? slash + 1 : e.filename);
      break;
    case LK_FORK:
      p = proc_of(r, e.child, 1);
      snprintf(p->comm, sizeof p->comm, "%s", e.comm);
      break;
    case LK_SYSCALL:
      p = proc_of(r, e.pid, 1);
      p->nr = e.nr;
      memcpy(p->args, e.args, sizeof p->args);
      /* keep-caps asked (no capability is checked for it): the service's,
       * once its command ran (capexec sets it for a user) */
      if (r->started && !r->keepcaps[0] && e.nr == SYS_prctl &&
          ((e.args[0] == PR_SET_KEEPCAPS && e.args[1]) || e.args[0] == PR_SET_SECUREBITS))
        snprintf(r->keepcaps, sizeof r->keepcaps, "%s", p->comm[0] ? p->comm : "?");
      /* a capset whose sets this source does not read */
      if (r->started && !r->capset_unread[0] && e.nr == SYS_capset && r->trace && !r->trace->capset)
        snprintf(r->capset_unread, sizeof r->capset_unread, "%s", comm_of(p, &e));
      break;
    case LK_CAPSET: count_capset(r, &e, proc_of(r, e.pid, 1)); break;
    case LK_CAP_ENTRY:
      p = proc_of(r, e.pid, 1);
      p->pend_cap = e.cap;
      p->pend_opts = e.opts;
      break;
    case LK_CAP_RET:
      p = proc_of(r, e.pid, 0);
      if (!p || p->pend_cap < 0) break;
      e.cap = p->pend_cap;
      e.opts = p->pend_opts;
      p->pend_cap = -1;
      count_check(r, &e);
      break;
    case LK_CHECK: count_check(r, &e); break;
    case LK_OTHER: break;
  }
}

int learn_record_has(learn_record const *r, pid_t pid)
{
  return pid > 0 && r->seencap && r->seen[seen_slot(r->seen, r->seencap, pid)] == pid;
}

char const *learn_record_comm(learn_record const *r, pid_t pid)
{
  learn_proc const *p = proc_of((learn_record *)r, pid, 0);
  return p && p->comm[0] ? p->comm : "?";
}

uint64_t learn_granted(learn_record const *r)
{
  uint64_t m = 0;
  unsigned i;
  for (i = 0; i < LEARN_CAPS; i++)
    if (r->cap[i].granted || r->cap[i].asked) m |= 1ULL << i;
  return m;
}

uint64_t learn_refused_only(learn_record const *r)
{
  uint64_t m = 0;
  unsigned i;
  for (i = 0; i < LEARN_CAPS; i++)
    if (r->cap[i].refused && !r->cap[i].granted && !r->cap[i].asked) m |= 1ULL << i;
  return m;
}

/* The calls whose arguments name what they act on by value: which ones
 * (their indexes, in the order shown) and how.  A path, a socket address,
 * a struct is an address in the service's memory, which the trace does
 * not read: the port of a bind, the file of a chown are not known. */
enum { O_INT, O_UINT, O_OCT, O_HEX, O_DOMAIN, O_TYPE };
#define A(i, k, label) { i, k, label }
static struct {
  char const *call;
  struct { signed char i; unsigned char kind; char const *label; } a[3];
} const objects[] = {
  { "fchown", { A(0, O_INT, "fd"), A(1, O_INT, "uid"), A(2, O_INT, "gid") } },
  { "chown", { A(1, O_INT, "uid"), A(2, O_INT, "gid"), A(-1, 0, 0) } },
  { "lchown", { A(1, O_INT, "uid"), A(2, O_INT, "gid"), A(-1, 0, 0) } },
  { "fchownat", { A(2, O_INT, "uid"), A(3, O_INT, "gid"), A(-1, 0, 0) } },
  { "fchmod", { A(0, O_INT, "fd"), A(1, O_OCT, "mode"), A(-1, 0, 0) } },
  { "chmod", { A(1, O_OCT, "mode"), A(-1, 0, 0), A(-1, 0, 0) } },
  { "fchmodat", { A(2, O_OCT, "mode"), A(-1, 0, 0), A(-1, 0, 0) } },
  { "mknodat", { A(2, O_OCT, "mode"), A(3, O_HEX, "dev"), A(-1, 0, 0) } },
  { "mknod", { A(1, O_OCT, "mode"), A(2, O_HEX, "dev"), A(-1, 0, 0) } },
  { "socket", { A(0, O_DOMAIN, 0), A(1, O_TYPE, 0), A(2, O_INT, "protocol") } },
  { "setsockopt", { A(0, O_INT, "fd"), A(1, O_INT, "level"), A(2, O_INT, "option") } },
  { "ioctl", { A(0, O_INT, "fd"), A(1, O_HEX, "request"), A(-1, 0, 0) } },
  { "setpriority", { A(0, O_INT, "which"), A(1, O_INT, "who"), A(2, O_INT, "nice") } },
  { "sched_setscheduler", { A(0, O_INT, "pid"), A(1, O_INT, "policy"), A(-1, 0, 0) } },
  { "sched_setaffinity", { A(0, O_INT, "pid"), A(-1, 0, 0), A(-1, 0, 0) } },
  { "ioprio_set", { A(0, O_INT, "which"), A(1, O_INT, "who"), A(2, O_HEX, "ioprio") } },
  { "setrlimit", { A(0, O_INT, "resource"), A(-1, 0, 0), A(-1, 0, 0) } },
  { "prlimit64", { A(0, O_INT, "pid"), A(1, O_INT, "resource"), A(-1, 0, 0) } },
  { "kill", { A(0, O_INT, "pid"), A(1, O_INT, "signal"), A(-1, 0, 0) } },
  { "tkill", { A(0, O_INT, "tid"), A(1, O_INT, "signal"), A(-1, 0, 0) } },
  { "tgkill", { A(0, O_INT, "pid"), A(1, O_INT, "tid"), A(2, O_INT, "signal") } },
  { "ptrace", { A(0, O_INT, "request"), A(1, O_INT, "pid"), A(-1, 0, 0) } },
  { "setuid", { A(0, O_INT, "uid"), A(-1, 0, 0), A(-1, 0, 0) } },
  { "setgid", { A(0, O_INT, "gid"), A(-1, 0, 0), A(-1, 0, 0) } },
  { "setreuid", { A(0, O_INT, "ruid"), A(1, O_INT, "euid"), A(-1, 0, 0) } },
  { "setregid", { A(0, O_INT, "rgid"), A(1, O_INT, "egid"), A(-1, 0, 0) } },
  { "setresuid", { A(0, O_INT, "ruid"), A(1, O_INT, "euid"), A(2, O_INT, "suid") } },
  { "setresgid", { A(0, O_INT, "rgid"), A(1, O_INT, "egid"), A(2, O_INT, "sgid") } },
  { "setgroups", { A(0, O_INT, "groups"), A(-1, 0, 0), A(-1, 0, 0) } },
  { "unshare", { A(0, O_HEX, "flags"), A(-1, 0, 0), A(-1, 0, 0) } },
  { "setns", { A(0, O_INT, "fd"), A(1, O_HEX, "nstype"), A(-1, 0, 0) } },
  { "mount", { A(3, O_HEX, "flags"), A(-1, 0, 0), A(-1, 0, 0) } },
  { "umount2", { A(1, O_HEX, "flags"), A(-1, 0, 0), A(-1, 0, 0) } },
  { "mlock", { A(1, O_UINT, "bytes"), A(-1, 0, 0), A(-1, 0, 0) } },
  { "mlockall", { A(0, O_HEX, "flags"), A(-1, 0, 0), A(-1, 0, 0) } },
  { "reboot", { A(2, O_HEX, "cmd"), A(-1, 0, 0), A(-1, 0, 0) } },
  { "prctl", { A(0, O_INT, "option"), A(1, O_UINT, "arg"), A(-1, 0, 0) } },
  { "bpf", { A(0, O_INT, "cmd"), A(-1, 0, 0), A(-1, 0, 0) } },
  { "perf_event_open", { A(1, O_INT, "pid"), A(2, O_INT, "cpu"), A(-1, 0, 0) } },
};
#undef A

/* the address families and socket types services use, by name */
static char const *domain_name(unsigned long d)
{
  switch (d) {
    case 1: return "AF_UNIX";
    case 2: return "AF_INET";
    case 10: return "AF_INET6";
    case 16: return "AF_NETLINK";
    case 17: return "AF_PACKET";
    default: return 0;
  }
}

static char const *type_name(unsigned long t)
{
  switch (t & 0xf) {  /* without SOCK_NONBLOCK, SOCK_CLOEXEC */
    case 1: return "SOCK_STREAM";
    case 2: return "SOCK_DGRAM";
    case 3: return "SOCK_RAW";
    case 5: return "SOCK_SEQPACKET";
    default: return 0;
  }
}

char *learn_object(long nr, unsigned long const *args, char *buf, size_t len)
{
  char const *name = learn_syscall_name(nr), *s;
  size_t i, j, n = 0;
  buf[0] = 0;
  if (!name) return buf;
  for (i = 0; i < sizeof objects / sizeof objects[0] && strcmp(objects[i].call, name); i++) {}
  if (i == sizeof objects / sizeof objects[0]) return buf;
  for (j = 0; j < 3 && objects[i].a[j].i >= 0 && n < len; j++) {
    unsigned long v = args[(int)objects[i].a[j].i];
    char const *sep = j ? ", " : "", *label = objects[i].a[j].label;
    switch (objects[i].a[j].kind) {
      case O_INT: n += (size_t)snprintf(buf + n, len - n, "%s%s %d", sep, label, (int)v); break;
      case O_UINT: n += (size_t)snprintf(buf + n, len - n, "%s%s %lu", sep, label, v); break;
      case O_OCT: n += (size_t)snprintf(buf + n, len - n, "%s%s %lo", sep, label, v & 07777); break;
      case O_HEX: n += (size_t)snprintf(buf + n, len - n, "%s%s %#lx", sep, label, v); break;
      case O_DOMAIN:
        s = domain_name(v);
        n += s ? (size_t)snprintf(buf + n, len - n, "%s%s", sep, s) : (size_t)snprintf(buf + n, len - n, "%sfamily %lu", sep, v);
        break;
      case O_TYPE:
        s = type_name(v);
        n += s ? (size_t)snprintf(buf + n, len - n, "%s%s", sep, s) : (size_t)snprintf(buf + n, len - n, "%stype %lu", sep, v);
        break;
    }
  }
  return buf;
}

char *learn_objects_format(learn_where const *w, unsigned nw, char *buf, size_t len)
{
  size_t n = 0;
  unsigned i;
  buf[0] = 0;
  for (i = 0; i < nw && n < len; i++) {
    char const *name = learn_syscall_name(w[i].nr);
    if (!w[i].obj[0] || !name) continue;
    n += (size_t)snprintf(buf + n, len - n, "%s%s (%s): %s", n ? "; " : "", name, w[i].comm, w[i].obj);
  }
  return buf;
}

char *learn_where_format(learn_where const *w, unsigned nw, char *buf, size_t len)
{
  size_t n = 0;
  unsigned i;
  buf[0] = 0;
  for (i = 0; i < nw && n < len; i++) {
    char const *name = learn_syscall_name(w[i].nr);
    char num[32];
    if (!name) {
      snprintf(num, sizeof num, w[i].nr < 0 ? "no syscall" : "syscall %ld", w[i].nr);
      name = num;
    }
    n += (size_t)snprintf(buf + n, len - n, "%s%s (%s)", i ? ", " : "", name, w[i].comm);
  }
  return buf;
}

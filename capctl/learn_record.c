/* capctl/learn_record.c -- the records of a traced run into what each
 * capability was checked for.  The service begins with the first program
 * executed that is not capexec: the checks before it are capexec's own,
 * applying the file (setgid, setpcap...), not the service's.  A check
 * belongs to the last system call its process entered before it. */
#include <stdio.h>
#include <string.h>
#include <sys/syscall.h>

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

/* pid's process (the oldest one reused when full), made when make. */
static learn_proc *proc_of(learn_record *r, pid_t pid, int make)
{
  unsigned i;
  for (i = 0; i < r->nproc; i++)
    if (r->proc[i].pid == pid) return &r->proc[i];
  if (!make) return 0;
  if (r->nproc < LEARN_PIDS) i = r->nproc++;
  else i = (unsigned)pid % LEARN_PIDS;
  memset(&r->proc[i], 0, sizeof r->proc[i]);
  r->proc[i].pid = pid;
  r->proc[i].nr = -1;
  r->proc[i].pend_cap = -1;
  return &r->proc[i];
}

static void add_where(learn_where *w, unsigned *n, long nr, char const *comm)
{
  unsigned i;
  for (i = 0; i < *n; i++)
    if (w[i].nr == nr && !strcmp(w[i].comm, comm)) return;
  if (*n == LEARN_WHERE) return;
  w[*n].nr = nr;
  snprintf(w[*n].comm, sizeof w[*n].comm, "%s", comm);
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
    add_where(c->qwhere, &c->nqwhere, p ? p->nr : -1, comm_of(p, e));
    return;
  }
  if (e->ret == 0) c->granted++;
  else c->refused++;
  add_where(c->where, &c->nwhere, p ? p->nr : -1, comm_of(p, e));
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
      proc_of(r, e.pid, 1)->nr = e.nr;
      break;
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

uint64_t learn_granted(learn_record const *r)
{
  uint64_t m = 0;
  unsigned i;
  for (i = 0; i < LEARN_CAPS; i++)
    if (r->cap[i].granted) m |= 1ULL << i;
  return m;
}

uint64_t learn_refused_only(learn_record const *r)
{
  uint64_t m = 0;
  unsigned i;
  for (i = 0; i < LEARN_CAPS; i++)
    if (r->cap[i].refused && !r->cap[i].granted) m |= 1ULL << i;
  return m;
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

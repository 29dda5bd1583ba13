/* Unit tests: capctl learn's reading of the trace (capctl/learn_trace.c,
 * learn_record.c): records in the kernel's text format of trace_pipe
 * (the print formats of the events, as 6.18 writes them), and what a run
 * of them makes: the service begins after capexec, a check belongs to
 * the last system call of its process, quiet checks are set apart. */
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>

#include "../../capctl/learn_files.h"
#include "../../capctl/learn_record.h"
#include "../../capctl/learn_trace.h"
#include "t.h"

static learn_trace tr;

static learn_event parse(char const *text)
{
  static char line[512];
  learn_event e;
  snprintf(line, sizeof line, "%s", text);
  learn_trace_parse(&tr, line, &e);
  return e;
}

static void feed(learn_record *r, char const *fmt, long a)
{
  char line[512];
  snprintf(line, sizeof line, fmt, a);
  learn_record_line(line, r);
}

static void test_parse(void)
{
  learn_event e;
  char line[256];
  e = parse("               a-7775    [001] ..... 91081.158497: cap_capable: cred 00000000683b3517, target_ns "
            "00000000212ddc64, capable_ns 00000000212ddc64, cap 6, ret 0");
  t_ok(e.kind == LK_CHECK && e.pid == 7775 && e.cap == 6 && e.ret == 0, "a check: pid 7775, cap 6, ret 0");
  t_streq(e.comm, "a", "its command");
  e = parse("  my-daemon x-42     [000] d..1. 5.000001: cap_capable: cred 0, target_ns 0, capable_ns 0, cap 12, ret -1");
  t_ok(e.kind == LK_CHECK && e.pid == 42 && e.cap == 12 && e.ret == -1, "a refused check: ret -1");
  t_streq(e.comm, "my-daemon x", "a command with a dash and a blank");
  e = parse("          true-9 [001] ..... 1.5: sys_enter: NR 49 (3, 7ffc, 10, 0, 0, 0)");
  t_ok(e.kind == LK_SYSCALL && e.pid == 9 && e.nr == 49, "a system call: NR 49 of pid 9");
  snprintf(line, sizeof line, "   capexec-100 [001] ..... 1.0: sched_process_exec: filename=/x/learn try pid=100 old_pid=100");
  e = parse(line);
  t_ok(e.kind == LK_EXEC && e.pid == 100, "an exec of pid 100");
  t_streq(e.filename, "/x/learn try", "its file name, blank included");
  e = parse("   sh-5 [000] ..... 1.0: sched_process_fork: comm=sh pid=5 child_comm=sh child_pid=6");
  t_ok(e.kind == LK_FORK && e.pid == 5 && e.child == 6, "a fork: 5 makes 6");
  t_streq(e.comm, "sh", "the child's command");
  e = parse("CPU:1 [LOST 12 EVENTS]");
  t_ok(e.kind == LK_LOST, "records lost");
  e = parse("# tracer: nop");
  t_ok(e.kind == LK_OTHER, "a comment: nothing");
}

static void test_record(void)
{
  static learn_record r;
  char where[256];
  r.capexec = "/b/capexec";
  r.trace = &tr;
  feed(&r, "  sh-100 [000] ..... 1.0: sched_process_exec: filename=/b/capexec pid=100 old_pid=%ld", 100);
  feed(&r, "  capexec-100 [000] ..... 1.1: sys_enter: NR %ld (0, 0, 0, 0, 0, 0)", SYS_setgroups);
  feed(&r, "  capexec-100 [000] ..... 1.2: cap_capable: cred 0, target_ns 0, capable_ns 0, cap %ld, ret 0", 6);
  t_ueq(learn_granted(&r), 0, "capexec's own checks, before the service's program: not counted");
  feed(&r, "  capexec-100 [000] ..... 1.3: sched_process_exec: filename=/b/httpd pid=100 old_pid=%ld", 100);
  feed(&r, "  capexec-100 [000] ..... 1.4: sys_enter: NR %ld (3, 7ffc, 10, 0, 0, 0)", SYS_bind);
  feed(&r, "  capexec-100 [000] ..... 1.5: cap_capable: cred 0, target_ns 0, capable_ns 0, cap %ld, ret 0", 10);
  t_ueq(learn_granted(&r), 1ULL << 10, "the service's check of cap_net_bind_service: granted");
  t_streq(learn_where_format(r.cap[10].where, r.cap[10].nwhere, where, sizeof where), "bind (httpd)",
          "in bind, of httpd (its program's name, not the trace's stale capexec)");
#ifdef SYS_mmap
  feed(&r, "  httpd-100 [000] ..... 1.6: sys_enter: NR %ld (0, 0, 0, 0, 0, 0)", SYS_mmap);
#else
  feed(&r, "  httpd-100 [000] ..... 1.6: sys_enter: NR %ld (0, 0, 0, 0, 0, 0)", SYS_mmap2);  /* armhf */
#endif
  feed(&r, "  httpd-100 [000] ..... 1.7: cap_capable: cred 0, target_ns 0, capable_ns 0, cap %ld, ret 0", 21);
  t_ueq(learn_granted(&r), 1ULL << 10, "cap_sys_admin in mmap: quiet, not granted");
  t_ueq(r.cap[21].quiet, 1, "counted as quiet");
  feed(&r, "  httpd-100 [000] ..... 1.8: sched_process_fork: comm=httpd pid=100 child_comm=httpd child_pid=%ld", 101);
  feed(&r, "  <...>-101 [001] ..... 1.9: cap_capable: cred 0, target_ns 0, capable_ns 0, cap %ld, ret -1", 13);
  t_ueq(learn_refused_only(&r), 1ULL << 13, "the child's refused cap_net_raw: refused only");
  t_streq(learn_where_format(r.cap[13].where, r.cap[13].nwhere, where, sizeof where), "no syscall (httpd)",
          "the child: no system call seen yet, its command from the fork");
  feed(&r, "  httpd-101 [001] ..... 2.0: sys_enter: NR %ld (0, 0, 0, 0, 0, 0)", SYS_sched_setscheduler);
  feed(&r, "  httpd-101 [001] ..... 2.1: cap_capable: cred 0, target_ns 0, capable_ns 0, cap %ld, ret 0", 21);
  t_ueq(learn_granted(&r), (1ULL << 10) | (1ULL << 21), "cap_sys_admin outside the memory calls: granted");
  t_ueq(r.lost, 0, "nothing lost");
  learn_record_line((char[]){ "CPU:0 [LOST 3 EVENTS]" }, &r);
  t_ueq(r.lost, 1, "a lost record counted");
}

/* the kprobe's records, as 6.1 writes them: a check in two, and opts */
static void test_kprobe(void)
{
  static learn_record r;
  learn_trace kt = { .src = &learn_sources[1] };
  learn_event e;
  char line[256];
  t_streq(learn_sources[1].name, "kprobe on cap_capable", "the second source is the kprobe");
  snprintf(line, sizeof line, "  ls-7 [000] ..... 3.0: cap_capable: (cap_capable+0x0/0xa0) cap=21 opts=2");
  learn_trace_parse(&kt, line, &e);
  t_ok(e.kind == LK_CAP_ENTRY && e.pid == 7 && e.cap == 21 && e.opts == 2, "its start: cap 21, opts 2");
  snprintf(line, sizeof line, "  ls-7 [000] ..... 3.1: cap_capable_ret: (security_capable+0x3d/0x60 <- cap_capable) ret=-1");
  learn_trace_parse(&kt, line, &e);
  t_ok(e.kind == LK_CAP_RET && e.pid == 7 && e.ret == -1, "its result: ret -1");
  r.capexec = "/b/capexec";
  r.trace = &kt;
  r.started = 1;
  feed(&r, "  nginx-7 [000] ..... 3.0: sys_enter: NR %ld (0, 0, 0, 0, 0, 0)", SYS_bind);
  feed(&r, "  nginx-7 [000] ..... 3.1: cap_capable: (cap_capable+0x0/0xa0) cap=10 opts=%ld", 0);
  t_ueq(learn_granted(&r), 0, "a start alone counts nothing");
  feed(&r, "  nginx-7 [000] ..... 3.2: cap_capable_ret: (security_capable+0x3d/0x60 <- cap_capable) ret=%ld", 0);
  t_ueq(learn_granted(&r), 1ULL << 10, "with its result: cap_net_bind_service granted");
  feed(&r, "  nginx-7 [000] ..... 3.3: sys_enter: NR %ld (0, 0, 0, 0, 0, 0)", SYS_openat);
  feed(&r, "  nginx-7 [000] ..... 3.4: cap_capable: (cap_capable+0x0/0xa0) cap=19 opts=%ld", 2);
  feed(&r, "  nginx-7 [000] ..... 3.5: cap_capable_ret: (security_capable+0x3d/0x60 <- cap_capable) ret=%ld", -1);
  t_ok(r.cap[19].quiet == 1 && !r.cap[19].refused && !r.cap[19].granted,
       "CAP_OPT_NOAUDIT: quiet, whatever the system call (openat)");
  t_streq(r.cap[19].quiet_why, "the kernel's quiet check (CAP_OPT_NOAUDIT)", "said so");
  feed(&r, "  nginx-7 [000] ..... 3.6: cap_capable_ret: (security_capable+0x3d/0x60 <- cap_capable) ret=%ld", 0);
  t_ueq(learn_granted(&r), 1ULL << 10, "a result without its start: nothing");
}

/* the kprobe on cap_capset (6.1): the sets asked and had, and what the
 * proposal must keep of them (learn_capset) */
static void test_capset(void)
{
  static learn_record r;
  learn_trace kt = { .src = &learn_sources[1], .capset = 1 };
  learn_event e;
  char line[384];
  snprintf(line, sizeof line, "  chronyd-9 [000] ..... 4.0: cap_capset: (cap_capset+0x0/0x120) euid=100"
           " had_p0=0xffffffff had_p1=0x1ff had_e0=0x0 had_e1=0x0 e0=0x2000400 e1=0x0 p0=0x2000400 p1=0x0");
  learn_trace_parse(&kt, line, &e);
  t_ok(e.kind == LK_CAPSET && e.pid == 9 && e.euid == 100, "a capset of pid 9, as euid 100");
  t_ok(e.had_perm == 0x1ffffffffffULL && e.had_eff == 0 && e.ask_perm == 0x2000400 && e.ask_eff == 0x2000400,
       "the sets it had and asked, both words");
  t_ueq(learn_capset(&e), (1ULL << 10) | (1ULL << 25), "after its switch it names net_bind_service and sys_time: both");
  e.ask_perm = e.had_perm;
  t_ueq(learn_capset(&e), 0, "control: its permitted set as it was (its effective made of it): nothing");
  e.ask_perm = 0x2000400;
  e.euid = 0;
  t_ueq(learn_capset(&e), 0, "control: as uid 0, nothing (it asks no switch to keep them across)");
  e.euid = 100;
  e.had_perm = 1ULL << 25;
  t_ueq(learn_capset(&e), 1ULL << 25, "what it asked beyond what it had is not proposed (capset refused it)");
  r.capexec = "/b/capexec";
  r.trace = &kt;
  feed(&r, "  chronyd-9 [000] ..... 3.0: sys_enter: NR %ld (0, 0, 0, 0, 0, 0)", SYS_capset);
  feed(&r, "  chronyd-9 [000] ..... 3.1: cap_capset: (cap_capset+0x0/0x120) euid=%ld had_p0=0xffffffff had_p1=0x1ff"
           " had_e0=0x0 had_e1=0x0 e0=0x2000000 e1=0x0 p0=0x2000000 p1=0x0", 100);
  t_ueq(learn_granted(&r), 0, "before the service's program ran: capexec's, not counted");
  r.started = 1;
  feed(&r, "  chronyd-9 [000] ..... 4.1: cap_capset: (cap_capset+0x0/0x120) euid=%ld had_p0=0xffffffff had_p1=0x1ff"
           " had_e0=0x0 had_e1=0x0 e0=0x2000400 e1=0x0 p0=0x2000400 p1=0x0", 100);
  t_ueq(learn_granted(&r), (1ULL << 10) | (1ULL << 25), "the service's: proposed, as granted ones are");
  t_ok(r.cap[25].asked == 1 && !r.cap[25].granted && !strcmp(r.cap[25].asked_by, "chronyd") && !r.capset_unread[0],
       "asked once, by chronyd; the sets were read");
  kt.capset = 0;
  feed(&r, "  chronyd-9 [000] ..... 4.2: sys_enter: NR %ld (0, 0, 0, 0, 0, 0)", SYS_capset);
  t_streq(r.capset_unread, "chronyd", "without the kprobe on cap_capset: the call seen, its sets not read, said");
}

/* the read-write proposal's directories: each file's parent, an ancestor
 * alone, /dev left out, files straight in /tmp a private tmp's */
static void test_dirs(void)
{
  char a[] = "/var/lib/x/a", b[] = "/var/lib/x/sub/b", c[] = "/var/lib/x-y/c", d[] = "/dev/shm/s", e[] = "/tmp/t",
       f[] = "/srv/www/log", g[] = "/top", h[] = "/var/tmp/v", i[] = "/tmp/dir/z", j[] = "/var/lib/x/a";
  char *p[] = { b, a, c, d, e, f, g, h, i, j };
  char out[256] = "";
  size_t n, k;
  int tmp = 0;
  n = learn_files_dirs(p, sizeof p / sizeof p[0], &tmp);
  for (k = 0; k < n; k++) snprintf(out + strlen(out), sizeof out - strlen(out), "%s%s", k ? " " : "", p[k]);
  t_streq(out, "/srv/www /tmp/dir /top /var/lib/x /var/lib/x-y", "read-write: parents, /var/lib/x/sub in /var/lib/x");
  t_ok(tmp == 1, "files straight in /tmp, /var/tmp: a private tmp's");
  {
    char q1[] = "/srv/a/f", q2[] = "/tmp/t", q3[] = "/tmp/d/f";
    char *q[] = { q1 }, *r[] = { q2, q3 };
    n = learn_files_dirs(q, 1, &tmp);
    t_ok(n == 1 && tmp == 0 && !strcmp(q[0], "/srv/a"), "control: one file, no tmp");
    tmp = -1;
    n = learn_files_dirs(r, 2, &tmp);
    t_ok(n == 1 && tmp == 0 && !strcmp(r[0], "/tmp"), "*tmp negative: files straight in /tmp kept, /tmp");
  }
}

/* an entry whose directory several mounts reach (/srv/x bound at /run/b
 * too): the candidate nearest a file the service wrote, else the one under
 * the directory it started in; else none, said (LF_UNSURE) */
static int mine_pid(void const *data, pid_t pid)
{
  (void)data;
  return pid == 10;
}

static void push(learn_file **a, size_t *n, pid_t pid, unsigned what, char const *path, unsigned group)
{
  *a = realloc(*a, (*n + 1) * sizeof **a);
  (*a)[*n].pid = pid;
  (*a)[*n].what = what;
  (*a)[*n].path = strdup(path);
  (*a)[(*n)++].group = group;
}

static char const *resolved(char const *wrote, pid_t wpid, char const *start, size_t *left)
{
  static char out[512];
  learn_files f;
  size_t i;
  memset(&f, 0, sizeof f);
  f.fd = f.dfd = -1;
  if (start) f.start = strdup(start);
  if (wrote) push(&f.file, &f.n, wpid, LF_WROTE, wrote, 0);
  push(&f.file, &f.n, 10, LF_WROTE, "/tmp/t", 0);  /* near neither: /tmp is no candidate's */
  push(&f.alt, &f.nalt, 10, LF_REMOVED, "/srv/x/d/gone", 1);
  push(&f.alt, &f.nalt, 10, LF_REMOVED, "/run/b/d/gone", 1);
  push(&f.alt, &f.nalt, 11, LF_MADE, "/srv/x/other", 2);  /* not the service's */
  push(&f.alt, &f.nalt, 11, LF_MADE, "/run/b/other", 2);
  f.cap = f.n;
  f.capalt = f.nalt;
  f.groups = 2;
  *left = learn_files_resolve(&f, mine_pid, 0);
  out[0] = 0;
  for (i = 0; i < f.n; i++)
    if (f.file[i].what & LF_REMOVED) snprintf(out + strlen(out), sizeof out - strlen(out), "[%s]", f.file[i].path);
  for (i = 0; i < f.nalt; i++)
    snprintf(out + strlen(out), sizeof out - strlen(out), "%s%s", f.alt[i].what & LF_UNSURE ? " ?" : " ",
             f.alt[i].path);
  learn_files_close(&f);
  return out;
}

static void test_resolve(void)
{
  size_t left;
  t_streq(resolved("/run/b/d/log", 10, 0, &left), "[/run/b/d/gone] /srv/x/other /run/b/other",
          "a file written in the same directory through /run/b: /run/b's path; another process's left as is");
  t_ok(left == 0, "nothing left undecided");
  t_streq(resolved("/run/b/log", 10, "/srv", &left), "[/run/b/d/gone] /srv/x/other /run/b/other",
          "a file written above it through /run/b: /run/b's, before the directory it started in");
  t_streq(resolved("/run/b/d/log", 11, "/srv", &left), "[/srv/x/d/gone] /srv/x/other /run/b/other",
          "control: another process's file is no evidence; under the directory it started in: /srv's");
  t_streq(resolved("/log", 10, "/", &left), " ?/srv/x/d/gone ?/run/b/d/gone /srv/x/other /run/b/other",
          "a file straight in /, and / to start in: undecided, none proposed");
  t_ok(left == 1, "one entry left undecided");
  t_streq(resolved(0, 0, "/run/b/d", &left), "[/run/b/d/gone] /srv/x/other /run/b/other",
          "no file written: the one under the directory it started in");
}

/* the service's pids: every one the trace showed, past the table of
 * processes (LEARN_PIDS, which forgets the oldest) */
static void test_seen(void)
{
  static learn_record r;
  char line[128];
  long pid;
  r.trace = &tr;
  for (pid = 1000; pid < 1000 + 4 * LEARN_PIDS; pid++) {
    snprintf(line, sizeof line, "  a-%ld [000] ..... 1.0: sys_enter: NR 0 (0, 0, 0, 0, 0, 0)", pid);
    learn_record_line(line, &r);
  }
  t_ok(learn_record_has(&r, 1000) && learn_record_has(&r, 1000 + 4 * LEARN_PIDS - 1),
       "the first and the last pid of 1024: the service's");
  t_ok(!learn_record_has(&r, 999) && !learn_record_has(&r, 1000 + 4 * LEARN_PIDS) && !learn_record_has(&r, 0),
       "control: a pid never shown, and 0, are not");
}

/* what a call acted on, from its arguments' values */
static void test_object(void)
{
  unsigned long chown_args[6] = { 3, 1234, (unsigned long)-1, 0, 0, 0 }, sock[6] = { 10, 2 | 02000000, 17, 0, 0, 0 },
                bind_args[6] = { 3, 0x7ffc, 16, 0, 0, 0 }, chmod_args[6] = { (unsigned long)-100, 0x7ffc, 04755, 0, 0, 0 };
  char buf[64];
  learn_where w[2] = { { SYS_fchown, "a", "" }, { SYS_bind, "b", "" } };
  t_streq(learn_object(SYS_fchown, chown_args, buf, sizeof buf), "fd 3, uid 1234, gid -1", "fchown: fd, uid, gid");
  t_streq(learn_object(SYS_socket, sock, buf, sizeof buf), "AF_INET6, SOCK_DGRAM, protocol 17",
          "socket: the family and type by name, without SOCK_CLOEXEC");
  t_streq(learn_object(SYS_fchmodat, chmod_args, buf, sizeof buf), "mode 4755", "fchmodat: the mode, in octal");
  t_streq(learn_object(SYS_bind, bind_args, buf, sizeof buf), "", "bind: nothing (its address is in memory)");
  t_streq(learn_object(-1, bind_args, buf, sizeof buf), "", "no call: nothing");
  learn_object(SYS_fchown, chown_args, w[0].obj, sizeof w[0].obj);
  t_streq(learn_objects_format(w, 2, buf, sizeof buf), "fchown (a): fd 3, uid 1234, gid -1",
          "the calls with an object, bind's left out");
}

int main(void)
{
  tr.src = &learn_sources[0];
  test_parse();
  test_record();
  test_kprobe();
  test_capset();
  test_dirs();
  test_resolve();
  test_object();
  test_seen();
  return t_done();
}

/* Unit tests: capctl learn's reading of the trace (capctl/learn_trace.c,
 * learn_record.c): records in the kernel's text format of trace_pipe
 * (the print formats of the events, as 6.18 writes them), and what a run
 * of them makes: the service begins after capexec, a check belongs to
 * the last system call of its process, quiet checks are set apart. */
#include <stdlib.h>
#include <sys/syscall.h>

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

int main(void)
{
  tr.src = &learn_sources[0];
  test_parse();
  test_record();
  test_kprobe();
  return t_done();
}

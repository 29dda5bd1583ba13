/* tests/bench/nsrun.c -- one benchmark run: the clock that starts it, and
 * the collector that measures it, inside the PID namespace.
 *
 *   unshare --pid --fork --mount-proc nsrun [OPTIONS] -- SUPERVISOR ARGS...
 *
 * nsrun must be PID 1 of a fresh PID namespace.  It forks the collector,
 * waits until the collector holds the records' FIFO open, takes a
 * CLOCK_MONOTONIC timestamp (t0) and execs the supervisor as PID 1: the
 * supervisor's exec is the start of the cold start.  Every service
 * (svc_record) writes "PID NS" to the FIFO when it starts.
 *
 * The collector, a child of the supervisor from then on:
 *   1. reads records until N distinct services have written one: cold
 *      start = the latest record's timestamp - t0;
 *   2. checks one service's /proc/PID/status (-p: the privileged state,
 *      uid/gid 65534, no groups, every capability set = cap_net_bind_service);
 *   unless -c (cold start only):
 *   3. after a settle time, the idle window: context switches (voluntary +
 *      involuntary) and CPU time (schedstat) of the supervision tree (every
 *      process of the namespace but the collector and the services) over
 *      the window; no record may arrive;
 *   4. the tree's memory: Pss (smaps_rollup) and page tables (VmPTE of
 *      status), summed;
 *   5. restart trials: SIGKILL the service that has run longest (waiting
 *      until it has run >= 1.2 s: s6-supervise and runsv delay restarts
 *      after shorter runs), latency = its replacement's record - the
 *      timestamp taken just before kill().
 * Results, one "key value..." per line, go to OUT (a FIFO the caller reads,
 * opened before t0); a failed sanity check writes "error MESSAGE" and the
 * collector exits 1.  Every wait has a deadline.
 *
 * Options: -n N (required), -f FIFO, -o OUT, -l LOG (the supervisor's
 * stdout and stderr), -c, -p, -s SETTLE_MS (500), -i IDLE_MS (10000),
 * -k TRIALS (30), -T COLD_DEADLINE_S (300). */
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define MIN_UP_NS 1200000000ull
#define TRIAL_GAP_NS 10000000ull

static FILE *out;
static int fifo = -1;
static char rbuf[1 << 16];
static size_t rlen;

static uint64_t now_ns(void)
{
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

static void sleep_until(uint64_t t)
{
  uint64_t n;
  while ((n = now_ns()) < t) {
    struct timespec ts = { (time_t)((t - n) / 1000000000ull), (long)((t - n) % 1000000000ull) };
    nanosleep(&ts, 0);
  }
}

static void fail(char const *fmt, ...) __attribute__((format(printf, 1, 2), noreturn));
static void fail(char const *fmt, ...)
{
  va_list ap;
  char msg[512];
  va_start(ap, fmt);
  vsnprintf(msg, sizeof msg, fmt, ap);
  va_end(ap);
  fprintf(stderr, "nsrun: fatal: %s\n", msg);
  if (out) {
    fprintf(out, "error %s\n", msg);
    fflush(out);
  }
  _exit(1);
}

/* One record, or 0 if none came before the deadline (0: wait forever,
 * 1: do not wait). */
static int next_record(uint64_t deadline, long *pid, uint64_t *ts)
{
  for (;;) {
    char *nl = memchr(rbuf, '\n', rlen);
    if (nl) {
      char *end;
      *nl = 0;
      *pid = strtol(rbuf, &end, 10);
      *ts = strtoull(end, 0, 10);
      rlen -= (size_t)(nl + 1 - rbuf);
      memmove(rbuf, nl + 1, rlen);
      if (*pid <= 0 || !*ts) fail("malformed record");
      return 1;
    }
    {
      struct pollfd p = { fifo, POLLIN, 0 };
      uint64_t n = now_ns();
      int timeout = deadline == 1 ? 0 : n >= deadline ? 0 : (int)((deadline - n) / 1000000u) + 1;
      ssize_t r;
      if (poll(&p, 1, timeout) <= 0) {
        if (deadline != 1 && now_ns() < deadline) continue;
        return 0;
      }
      r = read(fifo, rbuf + rlen, sizeof rbuf - rlen);
      if (r < 0 && errno == EINTR) continue;
      if (r <= 0) fail("read the FIFO: %s", r < 0 ? strerror(errno) : "end of file");
      rlen += (size_t)r;
    }
  }
}

static int read_file(char const *path, char *buf, size_t len)
{
  int fd = open(path, O_RDONLY | O_CLOEXEC);
  ssize_t r, n = 0;
  if (fd < 0) return -1;
  while ((size_t)n < len - 1 && (r = read(fd, buf + n, len - 1 - (size_t)n)) > 0) n += r;
  close(fd);
  buf[n] = 0;
  return (int)n;
}

/* The value after "key:" in a /proc file, blanks folded; "" if absent. */
static char *field(char const *text, char const *key, char *val, size_t len)
{
  size_t kl = strlen(key), n = 0;
  char const *p = text;
  val[0] = 0;
  while (p && *p) {
    if (!strncmp(p, key, kl) && p[kl] == ':') {
      p += kl + 1;
      while (*p == ' ' || *p == '\t') p++;
      while (*p && *p != '\n' && n + 1 < len) {
        if (*p == ' ' || *p == '\t') {
          while (p[1] == ' ' || p[1] == '\t') p++;
          val[n++] = ' ';
        } else {
          val[n++] = *p;
        }
        p++;
      }
      while (n && val[n - 1] == ' ') n--;
      val[n] = 0;
      return val;
    }
    p = strchr(p, '\n');
    if (p) p++;
  }
  return val;
}

static void check_service(long pid, int privileged)
{
  static char const *const caps[] = { "CapInh", "CapPrm", "CapEff", "CapBnd", "CapAmb" };
  char path[64], st[8192], v[256], comm[64];
  size_t i;
  snprintf(path, sizeof path, "/proc/%ld/comm", pid);
  if (read_file(path, comm, sizeof comm) <= 0) fail("service %ld: no %s", pid, path);
  comm[strcspn(comm, "\n")] = 0;
  if (strcmp(comm, "svc_record")) fail("service %ld is '%s', not svc_record", pid, comm);
  snprintf(path, sizeof path, "/proc/%ld/status", pid);
  if (read_file(path, st, sizeof st) <= 0) fail("service %ld: no %s", pid, path);
  if (!privileged) {
    fprintf(out, "check plain pid=%ld Uid=%s\n", pid, field(st, "Uid", v, sizeof v));
    return;
  }
  for (i = 0; i < sizeof caps / sizeof *caps; i++)
    if (strcmp(field(st, caps[i], v, sizeof v), "0000000000000400"))
      fail("privileged service %ld: %s is %s, not 0000000000000400", pid, caps[i], v);
  if (strcmp(field(st, "Uid", v, sizeof v), "65534 65534 65534 65534"))
    fail("privileged service %ld: Uid is '%s', not 65534 x4", pid, v);
  if (strcmp(field(st, "Gid", v, sizeof v), "65534 65534 65534 65534"))
    fail("privileged service %ld: Gid is '%s', not 65534 x4", pid, v);
  if (strcmp(field(st, "Groups", v, sizeof v), ""))
    fail("privileged service %ld: Groups is '%s', not empty", pid, v);
  fprintf(out, "check privileged pid=%ld CapInh=CapPrm=CapEff=CapBnd=CapAmb=0000000000000400 Uid=Gid=65534 Groups=none\n", pid);
}

/* ------------------------------------------------ the supervision tree */

typedef struct proc_s {
  long pid;
  char comm[32];
  uint64_t ctxt, cpu_ns;
} proc;

static long *svc_pid;      /* table: service index -> current pid */
static uint64_t *svc_ts;   /* table: its record's timestamp */
static size_t nsvc;

static int is_service(long pid)
{
  size_t i;
  for (i = 0; i < nsvc; i++)
    if (svc_pid[i] == pid) return 1;
  return 0;
}

/* Every process of the namespace but the collector and the services. */
static size_t tree(proc **v)
{
  DIR *d = opendir("/proc");
  struct dirent *e;
  size_t n = 0, cap = 0;
  long self = getpid();
  if (!d) fail("opendir /proc: %s", strerror(errno));
  *v = 0;
  while ((e = readdir(d))) {
    char path[64], buf[512];
    long pid;
    if (!isdigit((unsigned char)e->d_name[0])) continue;
    pid = atol(e->d_name);
    if (pid == self || is_service(pid)) continue;
    snprintf(path, sizeof path, "/proc/%ld/stat", pid);
    if (read_file(path, buf, sizeof buf) <= 0) continue;
    {
      char *rp = strrchr(buf, ')');
      if (rp && rp[1] == ' ' && rp[2] == 'Z') continue;  /* a zombie */
    }
    if (n == cap) {
      cap = cap ? 2 * cap : 64;
      *v = realloc(*v, cap * sizeof **v);
      if (!*v) fail("out of memory");
    }
    memset(&(*v)[n], 0, sizeof **v);
    (*v)[n].pid = pid;
    snprintf(path, sizeof path, "/proc/%ld/comm", pid);
    if (read_file(path, (*v)[n].comm, sizeof (*v)[n].comm) > 0)
      (*v)[n].comm[strcspn((*v)[n].comm, "\n")] = 0;
    n++;
  }
  closedir(d);
  return n;
}

static void sample(proc *p)
{
  char path[64], buf[8192], v[64];
  snprintf(path, sizeof path, "/proc/%ld/status", p->pid);
  p->ctxt = 0;
  if (read_file(path, buf, sizeof buf) > 0)
    p->ctxt = strtoull(field(buf, "voluntary_ctxt_switches", v, sizeof v), 0, 10) +
              strtoull(field(buf, "nonvoluntary_ctxt_switches", v, sizeof v), 0, 10);
  snprintf(path, sizeof path, "/proc/%ld/schedstat", p->pid);
  p->cpu_ns = read_file(path, buf, sizeof buf) > 0 ? strtoull(buf, 0, 10) : 0;
}

static void memory(void)
{
  proc *v;
  size_t n = tree(&v), i, j;
  uint64_t pss = 0, pte = 0;
  char names[1024] = "";
  for (i = 0; i < n; i++) {
    char path[64], buf[8192], val[64];
    snprintf(path, sizeof path, "/proc/%ld/smaps_rollup", v[i].pid);
    if (read_file(path, buf, sizeof buf) > 0) pss += strtoull(field(buf, "Pss", val, sizeof val), 0, 10);
    snprintf(path, sizeof path, "/proc/%ld/status", v[i].pid);
    if (read_file(path, buf, sizeof buf) > 0) pte += strtoull(field(buf, "VmPTE", val, sizeof val), 0, 10);
  }
  /* "comm:count" for each distinct name */
  for (i = 0; i < n; i++) {
    size_t count = 0;
    for (j = 0; j < i && strcmp(v[j].comm, v[i].comm); j++) ;
    if (j < i) continue;
    for (j = i; j < n; j++) count += !strcmp(v[j].comm, v[i].comm);
    snprintf(names + strlen(names), sizeof names - strlen(names), "%s%s:%zu", names[0] ? "," : "",
             v[i].comm, count);
  }
  fprintf(out, "tree_procs %zu %s\nmem_pss_kb %llu\nmem_pte_kb %llu\n", n, names,
          (unsigned long long)pss, (unsigned long long)pte);
  free(v);
}

static void idle(uint64_t window_ns)
{
  proc *a, *b;
  size_t na = tree(&a), nb, i, j, gone = 0;
  uint64_t ctxt = 0, cpu = 0, t, t1;
  long pid;
  for (i = 0; i < na; i++) sample(&a[i]);
  t = now_ns();
  sleep_until(t + window_ns);
  nb = tree(&b);
  for (i = 0; i < nb; i++) sample(&b[i]);
  t1 = now_ns();
  for (i = 0; i < na; i++) {
    for (j = 0; j < nb && b[j].pid != a[i].pid; j++) ;
    if (j == nb) { gone++; continue; }
    ctxt += b[j].ctxt - a[i].ctxt;
    cpu += b[j].cpu_ns - a[i].cpu_ns;
  }
  if (gone || na != nb) fail("the supervision tree changed during the idle window (%zu -> %zu processes)", na, nb);
  if (next_record(1, &pid, &t)) fail("a service (pid %ld) started during the idle window", pid);
  fprintf(out, "idle_window_ns %llu\nidle_wakeups %llu\nidle_cpu_ns %llu\n",
          (unsigned long long)(t1 - t), (unsigned long long)ctxt, (unsigned long long)cpu);
  free(a);
  free(b);
}

static void restarts(int trials)
{
  int k;
  fprintf(out, "restart_ns");
  for (k = 0; k < trials; k++) {
    size_t i, oldest = 0;
    long pid;
    uint64_t ts, tk;
    for (i = 1; i < nsvc; i++)
      if (svc_ts[i] < svc_ts[oldest]) oldest = i;
    sleep_until(svc_ts[oldest] + MIN_UP_NS);
    tk = now_ns();
    if (kill((pid_t)svc_pid[oldest], SIGKILL) < 0) fail("kill %ld: %s", svc_pid[oldest], strerror(errno));
    for (;;) {
      if (!next_record(now_ns() + 30000000000ull, &pid, &ts))
        fail("trial %d: no replacement for service %ld within 30 s", k, svc_pid[oldest]);
      if (!is_service(pid)) break;
    }
    svc_pid[oldest] = pid;
    svc_ts[oldest] = ts;
    fprintf(out, " %llu", (unsigned long long)(ts - tk));
    sleep_until(now_ns() + TRIAL_GAP_NS);
  }
  fprintf(out, "\n");
}

static void collect(size_t n, int cold_only, int privileged, uint64_t settle_ns, uint64_t idle_ns,
                    int trials, uint64_t cold_deadline_ns, uint64_t volatile const *t0)
{
  uint64_t last = 0, deadline = now_ns() + cold_deadline_ns, first = 0;
  long pid;
  uint64_t ts;
  svc_pid = calloc(n, sizeof *svc_pid);
  svc_ts = calloc(n, sizeof *svc_ts);
  if (!svc_pid || !svc_ts) fail("out of memory");
  while (nsvc < n) {
    if (!next_record(deadline, &pid, &ts))
      fail("only %zu of %zu services started within %llu s", nsvc, n,
           (unsigned long long)(cold_deadline_ns / 1000000000ull));
    if (is_service(pid)) fail("service %ld started twice during the cold start", pid);
    svc_pid[nsvc] = pid;
    svc_ts[nsvc++] = ts;
    if (ts > last) last = ts;
    if (!first || ts < first) first = ts;
  }
  if (!*t0 || last < *t0) fail("no exec timestamp");
  fprintf(out, "services %zu\ncold_ns %llu\nfirst_ns %llu\n", nsvc, (unsigned long long)(last - *t0),
          (unsigned long long)(first - *t0));
  check_service(svc_pid[0], privileged);
  if (!cold_only) {
    sleep_until(last + settle_ns);
    if (next_record(1, &pid, &ts)) fail("a service (pid %ld) restarted after the cold start", pid);
    idle(idle_ns);
    memory();  /* after the window: the steady state */
    restarts(trials);
  }
  fprintf(out, "done\n");
  fflush(out);
  _exit(ferror(out) ? 1 : 0);
}

int main(int argc, char **argv)
{
  char const *fifo_path = 0, *out_path = 0, *log_path = "/dev/null";
  size_t n = 0;
  int cold_only = 0, privileged = 0, trials = 30, opt, hs[2];
  uint64_t settle_ms = 500, idle_ms = 10000, cold_s = 300;
  uint64_t volatile *t0;
  pid_t pid;
  char c;

  while ((opt = getopt(argc, argv, "n:f:o:l:cps:i:k:T:")) != -1) {
    switch (opt) {
      case 'n': n = strtoul(optarg, 0, 10); break;
      case 'f': fifo_path = optarg; break;
      case 'o': out_path = optarg; break;
      case 'l': log_path = optarg; break;
      case 'c': cold_only = 1; break;
      case 'p': privileged = 1; break;
      case 's': settle_ms = strtoull(optarg, 0, 10); break;
      case 'i': idle_ms = strtoull(optarg, 0, 10); break;
      case 'k': trials = atoi(optarg); break;
      case 'T': cold_s = strtoull(optarg, 0, 10); break;
      default: return 100;
    }
  }
  if (!n || !fifo_path || !out_path || optind >= argc) {
    fputs("nsrun: usage: nsrun -n N -f FIFO -o OUT [-l LOG] [-c] [-p] [-s MS] [-i MS] [-k TRIALS] [-T S] -- SUPERVISOR ARGS...\n", stderr);
    return 100;
  }
  if (getpid() != 1) {
    fputs("nsrun: fatal: not PID 1: run me with unshare --pid --fork --mount-proc\n", stderr);
    return 100;
  }
  t0 = mmap(0, 4096, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
  if (t0 == MAP_FAILED || pipe2(hs, O_CLOEXEC) < 0) return 111;
  *t0 = 0;

  pid = fork();
  if (pid < 0) return 111;
  if (pid == 0) {
    int o;
    close(hs[0]);
    o = open(out_path, O_WRONLY | O_CLOEXEC);  /* a FIFO: waits for the reader */
    if (o < 0 || !(out = fdopen(o, "w"))) fail("open %s: %s", out_path, strerror(errno));
    fifo = open(fifo_path, O_RDWR | O_CLOEXEC);  /* never an end of file */
    if (fifo < 0) fail("open %s: %s", fifo_path, strerror(errno));
    if (write(hs[1], "x", 1) != 1) fail("handshake: %s", strerror(errno));
    close(hs[1]);
    collect(n, cold_only, privileged, settle_ms * 1000000ull, idle_ms * 1000000ull, trials,
            cold_s * 1000000000ull, t0);
  }
  close(hs[1]);
  if (read(hs[0], &c, 1) != 1) {
    fputs("nsrun: fatal: the collector did not start\n", stderr);
    return 111;
  }
  close(hs[0]);
  {
    int nul = open("/dev/null", O_RDONLY), log = open(log_path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
    if (nul < 0 || log < 0 || dup2(nul, 0) < 0 || dup2(log, 1) < 0 || dup2(log, 2) < 0) return 111;
    if (nul > 2) close(nul);
    if (log > 2) close(log);
  }
  *t0 = now_ns();
  execv(argv[optind], argv + optind);
  *t0 = 0;
  fprintf(stderr, "nsrun: fatal: exec %s: %s\n", argv[optind], strerror(errno));
  return 127;
}

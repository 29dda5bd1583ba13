/* tests/bench/nsrun.c -- one benchmark run: the clock that starts it, and
 * the collector that measures it, inside the PID namespace.
 *
 *   unshare --pid --fork --mount-proc nsrun [OPTIONS] -- SUPERVISOR ARGS...
 *
 * nsrun must be PID 1 of a fresh PID namespace.  It forks the collector,
 * waits until the collector holds the records' FIFO open, takes a
 * CLOCK_MONOTONIC timestamp (t0) and execs the supervisor as PID 1: the
 * supervisor's exec is the start of the cold start.  Every service
 * (svc_record) writes "PID NS" to the FIFO when it starts, or "PID NS
 * PIDNS" (the inode of its PID namespace): a service in a PID namespace
 * of its own is known by both, and its pid in the collector's namespace is
 * found in /proc (its ns/pid link and the last NSpid of its status).
 *
 * The collector, a child of the supervisor from then on:
 *   1. reads records until N distinct services have written one: cold
 *      start = the latest record's timestamp - t0; with -G (the run is in
 *      a cgroup of its own, cgroup v2), also the CPU time that all its
 *      processes used until then (cpu.stat: exited ones included) and the
 *      time some of them were runnable but waiting for a CPU taken by
 *      other work (cpu.pressure, "some": the machine's load);
 *   2. checks one service's /proc/PID/status (-p: the privileged state,
 *      uid/gid 65534, no groups, every capability set = cap_net_bind_service);
 *      -C LIST (contained: LIST of mnt,pid,ipc,uts,net): every service is in
 *      namespaces of its own of these types (not the collector's, and no two
 *      services share one), and in the collector's of the others; for one
 *      service, with pid: its /proc lists exactly the processes of its PID
 *      namespace as /proc outside counts them; -H NAME: its host name is
 *      NAME (read in its UTS namespace); -L: its network namespace has only
 *      the interface lo, and lo is up (read in its network namespace);
 *   -M (cold start and memory): after a settle time, step 4 only;
 *   unless -c or -M:
 *   3. after a settle time, the idle window: context switches (voluntary +
 *      involuntary) and CPU time (schedstat) of the supervision tree (every
 *      process of the namespace but the collector and the services) over
 *      the window; no record may arrive;
 *   4. the tree's memory: Pss (smaps_rollup) and page tables (VmPTE of
 *      status), summed; and apart, the supervisor's own (PID 1: Rss, Pss,
 *      Uss = Private_Clean + Private_Dirty, Anonymous, VmPTE) and the other
 *      processes' (capinit's reapers of private-pids services, the
 *      waiting unshare of the reference chain: their count, the sum of
 *      their Pss, medians of their Rss, Uss and VmPTE); and the CPU time
 *      (schedstat) the supervisor, the other processes of the tree and the
 *      services have used since they started;
 *   5. restart trials: SIGKILL the service that has run longest (waiting
 *      until it has run >= 1.2 s: s6-supervise and runsv delay restarts
 *      after shorter runs), latency = its replacement's record - the
 *      timestamp taken just before kill().
 * Results, one "key value..." per line, go to OUT (a FIFO the caller reads,
 * opened before t0); a failed sanity check writes "error MESSAGE" and the
 * collector exits 1.  Every wait has a deadline.
 *
 * Options: -n N (required), -f FIFO, -o OUT, -l LOG (the supervisor's
 * stdout and stderr), -c, -M, -p, -C LIST, -H NAME, -L, -G, -s SETTLE_MS (500),
 * -i IDLE_MS (10000), -k TRIALS (30), -T COLD_DEADLINE_S (300). */
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
#include <net/if.h>
#include <sched.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/stat.h>
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
 * 1: do not wait).  *pidns is 0 when the record has none. */
static int next_record(uint64_t deadline, long *pid, uint64_t *ts, uint64_t *pidns)
{
  for (;;) {
    char *nl = memchr(rbuf, '\n', rlen);
    if (nl) {
      char *end;
      *nl = 0;
      *pid = strtol(rbuf, &end, 10);
      *ts = strtoull(end, &end, 10);
      *pidns = strtoull(end, 0, 10);
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

/* ------------------------------------------------------------ the cgroup */

/* The file name of the collector's cgroup (cgroup v2: the mount point of
 * cgroup2 + the "0::" path of /proc/self/cgroup), or 0. */
static char const *cg_file(char const *name)
{
  static char path[1024];
  char buf[8192], cg[512] = "", *p;
  int n = 0;
  if (read_file("/proc/self/cgroup", buf, sizeof buf) <= 0) return 0;
  for (p = buf; p; p = strchr(p, '\n') ? strchr(p, '\n') + 1 : 0)
    if (!strncmp(p, "0::", 3)) {
      n = (int)strcspn(p + 3, "\n");
      snprintf(cg, sizeof cg, "%.*s", n, p + 3);
      break;
    }
  if (!cg[0] || !strcmp(cg, "/")) return 0;
  if (read_file("/proc/self/mountinfo", buf, sizeof buf) <= 0) return 0;
  for (p = buf; p; p = strchr(p, '\n') ? strchr(p, '\n') + 1 : 0) {
    char mnt[512];
    char *sep = strstr(p, " - cgroup2 ");
    if (!sep || (strchr(p, '\n') && sep > strchr(p, '\n'))) continue;
    if (sscanf(p, "%*s %*s %*s %*s %511s", mnt) != 1) continue;
    snprintf(path, sizeof path, "%s%s/%s", mnt, cg, name);
    return path;
  }
  return 0;
}

/* CPU time used by the cgroup and time stalled waiting for a CPU (the
 * "some" total of cpu.pressure), in µs; -1 if not readable. */
static int cg_cpu(uint64_t *cpu_us, uint64_t *stall_us)
{
  char buf[1024], v[64], *t;
  char const *f = cg_file("cpu.stat");
  if (!f || read_file(f, buf, sizeof buf) <= 0) return -1;
  for (t = buf; *t; t++) if (*t == ' ') *t = ':';  /* "key value" as "key:value" for field() */
  *cpu_us = strtoull(field(buf, "usage_usec", v, sizeof v), 0, 10);
  f = cg_file("cpu.pressure");
  if (!f || read_file(f, buf, sizeof buf) <= 0 || strncmp(buf, "some ", 5) || !(t = strstr(buf, "total=")))
    return -1;
  *stall_us = strtoull(t + 6, 0, 10);
  return 0;
}

/* ------------------------------------------------ the supervision tree */

typedef struct proc_s {
  long pid;
  char comm[32];
  uint64_t ctxt, cpu_ns;
} proc;

static long *svc_pid;      /* table: service index -> current pid */
static uint64_t *svc_ts;   /* table: its record's timestamp */
static long *svc_inner;    /* the pid its record gave (in its own namespace) */
static uint64_t *svc_pidns; /* the inode of that namespace, 0: the collector's */
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

static int ucmp(void const *a, void const *b)
{
  uint64_t x = *(uint64_t const *)a, y = *(uint64_t const *)b;
  return x < y ? -1 : x > y;
}

static uint64_t median(uint64_t *v, size_t n)
{
  if (!n) return 0;
  qsort(v, n, sizeof *v, ucmp);
  return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

/* ------------------------------------------------ services in namespaces */

/* The inode of /proc/PID/ns/TYPE (pid 0: the collector's own), 0 if gone. */
static uint64_t ns_ino(long pid, char const *type)
{
  char path[64];
  struct stat st;
  if (pid) snprintf(path, sizeof path, "/proc/%ld/ns/%s", pid, type);
  else snprintf(path, sizeof path, "/proc/self/ns/%s", type);
  return stat(path, &st) < 0 ? 0 : (uint64_t)st.st_ino;
}

/* The last pid of NSpid in /proc/PID/status: the pid in its own
 * namespace; the number of levels in *levels. */
static long inner_pid(long pid, int *levels)
{
  char path[64], buf[8192], v[256], *p, *end;
  long last = 0;
  *levels = 0;
  snprintf(path, sizeof path, "/proc/%ld/status", pid);
  if (read_file(path, buf, sizeof buf) <= 0) return 0;
  for (p = field(buf, "NSpid", v, sizeof v); *p; p = end) {
    long x = strtol(p, &end, 10);
    if (end == p) break;
    last = x;
    ++*levels;
  }
  return last;
}

static int is_pid_dir(char const *name)
{
  if (!*name) return 0;
  for (; *name; name++)
    if (!isdigit((unsigned char)*name)) return 0;
  return 1;
}

/* Each service's pid in the collector's namespace: its own for a record
 * without PID namespace (or with the collector's), else the process of
 * /proc whose ns/pid and last NSpid are the record's. */
static void resolve_pids(void)
{
  uint64_t own = ns_ino(0, "pid");
  size_t i, left = 0, found = 0;
  DIR *d;
  struct dirent *e;
  for (i = 0; i < nsvc; i++) {
    if (!svc_pidns[i] || svc_pidns[i] == own) svc_pid[i] = svc_inner[i];
    else svc_pid[i] = 0, left++;
  }
  if (!left) return;
  if (!(d = opendir("/proc"))) fail("opendir /proc: %s", strerror(errno));
  while ((e = readdir(d)) && found < left) {
    long pid, in;
    int levels;
    uint64_t ino;
    if (!is_pid_dir(e->d_name)) continue;
    pid = atol(e->d_name);
    ino = ns_ino(pid, "pid");
    if (!ino || ino == own) continue;
    in = inner_pid(pid, &levels);
    for (i = 0; i < nsvc; i++)
      if (!svc_pid[i] && svc_pidns[i] == ino && svc_inner[i] == in) {
        svc_pid[i] = pid;
        found++;
        break;
      }
  }
  closedir(d);
  for (i = 0; i < nsvc; i++)
    if (!svc_pid[i])
      fail("service %zu (pid %ld of PID namespace %llu) is not in /proc", i, svc_inner[i],
           (unsigned long long)svc_pidns[i]);
}

static char const *const ns_types[] = { "mnt", "pid", "ipc", "uts", "net" };
#define NS_TYPES (sizeof ns_types / sizeof *ns_types)

static int in_list(char const *list, char const *word)
{
  size_t n = strlen(word);
  char const *p = list;
  while ((p = strstr(p, word))) {
    if ((p == list || p[-1] == ',') && (p[n] == ',' || !p[n])) return 1;
    p += n;
  }
  return 0;
}

/* Run f in the namespace /proc/PID/ns/TYPE of a service, then come back. */
static void in_ns(long pid, char const *type, int nstype, void (*f)(long, void *), void *arg)
{
  char path[64];
  int mine, theirs;
  snprintf(path, sizeof path, "/proc/self/ns/%s", type);
  mine = open(path, O_RDONLY | O_CLOEXEC);
  snprintf(path, sizeof path, "/proc/%ld/ns/%s", pid, type);
  theirs = open(path, O_RDONLY | O_CLOEXEC);
  if (mine < 0 || theirs < 0) fail("service %ld: open its %s namespace: %s", pid, type, strerror(errno));
  if (setns(theirs, nstype) < 0) fail("service %ld: setns %s: %s", pid, type, strerror(errno));
  f(pid, arg);
  if (setns(mine, nstype) < 0) fail("setns back to the collector's %s namespace: %s", type, strerror(errno));
  close(mine);
  close(theirs);
}

static void read_hostname(long pid, void *arg)
{
  char *name = arg;
  if (gethostname(name, 256) < 0) fail("service %ld: gethostname: %s", pid, strerror(errno));
  name[255] = 0;
}

static void read_lo_flags(long pid, void *arg)
{
  struct ifreq ifr;
  int s = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
  if (s < 0) fail("service %ld: socket in its network namespace: %s", pid, strerror(errno));
  memset(&ifr, 0, sizeof ifr);
  memcpy(ifr.ifr_name, "lo", 3);
  if (ioctl(s, SIOCGIFFLAGS, &ifr) < 0) fail("service %ld: the flags of lo: %s", pid, strerror(errno));
  *(int *)arg = ifr.ifr_flags;
  close(s);
}

/* The processes of /proc/PID/root/proc (the service's own /proc, through
 * its root) and, from the collector's /proc, the processes of its PID
 * namespace: the same count, or its /proc is not its own. */
static void check_own_proc(long pid, uint64_t pidns, size_t *inside, size_t *outside)
{
  char path[64];
  DIR *d;
  struct dirent *e;
  *inside = *outside = 0;
  snprintf(path, sizeof path, "/proc/%ld/root/proc", pid);
  if (!(d = opendir(path))) fail("service %ld: opendir %s: %s", pid, path, strerror(errno));
  while ((e = readdir(d))) *inside += is_pid_dir(e->d_name);
  closedir(d);
  if (!(d = opendir("/proc"))) fail("opendir /proc: %s", strerror(errno));
  while ((e = readdir(d)))
    if (is_pid_dir(e->d_name) && ns_ino(atol(e->d_name), "pid") == pidns) ++*outside;
  closedir(d);
}

/* The interfaces of the service's network namespace (/proc/PID/net/dev,
 * after its two header lines), blank-separated. */
static void interfaces(long pid, char *list, size_t len)
{
  char path[64], buf[8192], *p;
  int line = 0;
  size_t n = 0;
  snprintf(path, sizeof path, "/proc/%ld/net/dev", pid);
  if (read_file(path, buf, sizeof buf) <= 0) fail("service %ld: no %s", pid, path);
  list[0] = 0;
  for (p = buf; *p; p = strchr(p, '\n') ? strchr(p, '\n') + 1 : p + strlen(p)) {
    char *c;
    if (++line <= 2) continue;
    while (*p == ' ') p++;
    c = strchr(p, ':');
    if (!c) break;
    n += (size_t)snprintf(list + n, n < len ? len - n : 0, "%s%.*s", n ? " " : "", (int)(c - p), p);
  }
}

/* Every service in namespaces of its own of the types in own (none
 * shared), in the collector's for the others; then one service in detail. */
static void check_contained(char const *own, char const *hostname, int lo)
{
  uint64_t mine[NS_TYPES], *seen;
  size_t t, i;
  long pid = svc_pid[0];
  char val[512];
  int levels;
  long inner;
  seen = calloc(nsvc, sizeof *seen);
  if (!seen) fail("out of memory");
  for (t = 0; t < NS_TYPES; t++) {
    int separate = in_list(own, ns_types[t]);
    mine[t] = ns_ino(0, ns_types[t]);
    if (!mine[t]) fail("no /proc/self/ns/%s", ns_types[t]);
    for (i = 0; i < nsvc; i++) {
      seen[i] = ns_ino(svc_pid[i], ns_types[t]);
      if (!seen[i]) fail("service %ld: no /proc/%ld/ns/%s", svc_pid[i], svc_pid[i], ns_types[t]);
      if (separate && seen[i] == mine[t])
        fail("service %ld is in the supervisor's %s namespace, not one of its own", svc_pid[i], ns_types[t]);
      if (!separate && seen[i] != mine[t])
        fail("service %ld is in a %s namespace of its own, which was not asked for", svc_pid[i], ns_types[t]);
    }
    if (!separate) continue;
    qsort(seen, nsvc, sizeof *seen, ucmp);
    for (i = 1; i < nsvc; i++)
      if (seen[i] == seen[i - 1]) fail("two services share the %s namespace %llu", ns_types[t], (unsigned long long)seen[i]);
  }
  free(seen);
  fprintf(out, "check contained every service: own %s namespaces, none shared, the supervisor's others", own);
  inner = inner_pid(pid, &levels);
  if (in_list(own, "pid")) {
    size_t inside, outside;
    if (levels < 2) fail("service %ld: NSpid has %d level(s), not 2 or more", pid, levels);
    check_own_proc(pid, ns_ino(pid, "pid"), &inside, &outside);
    if (inside != outside || inside < 1)
      fail("service %ld: its /proc lists %zu processes, its PID namespace has %zu", pid, inside, outside);
    fprintf(out, "; pid %ld is pid %ld inside, its /proc lists the %zu process(es) of its namespace", pid, inner, inside);
  }
  if (hostname) {
    in_ns(pid, "uts", CLONE_NEWUTS, read_hostname, val);
    if (strcmp(val, hostname)) fail("service %ld: host name '%s', not '%s'", pid, val, hostname);
    fprintf(out, "; host name %s", val);
  }
  if (lo) {
    int flags = 0;
    interfaces(pid, val, sizeof val);
    if (strcmp(val, "lo")) fail("service %ld: interfaces '%s', not just 'lo'", pid, val);
    in_ns(pid, "net", CLONE_NEWNET, read_lo_flags, &flags);
    if (!(flags & IFF_UP)) fail("service %ld: lo is down", pid);
    fprintf(out, "; interfaces: lo, up");
  }
  fprintf(out, "\n");
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

/* One process's memory, in KiB. */
typedef struct procmem_s {
  uint64_t rss, pss, uss, anon, pte;
} procmem;

static procmem proc_memory(long pid)
{
  char path[64], buf[8192], val[64];
  procmem m;
  memset(&m, 0, sizeof m);
  snprintf(path, sizeof path, "/proc/%ld/smaps_rollup", pid);
  if (read_file(path, buf, sizeof buf) > 0) {
    m.rss = strtoull(field(buf, "Rss", val, sizeof val), 0, 10);
    m.pss = strtoull(field(buf, "Pss", val, sizeof val), 0, 10);
    m.uss = strtoull(field(buf, "Private_Clean", val, sizeof val), 0, 10) +
            strtoull(field(buf, "Private_Dirty", val, sizeof val), 0, 10);
    m.anon = strtoull(field(buf, "Anonymous", val, sizeof val), 0, 10);
  }
  snprintf(path, sizeof path, "/proc/%ld/status", pid);
  if (read_file(path, buf, sizeof buf) > 0) m.pte = strtoull(field(buf, "VmPTE", val, sizeof val), 0, 10);
  return m;
}

/* CPU time a process has used (schedstat), ns. */
static uint64_t cpu_ns(long pid)
{
  char path[64], buf[256];
  snprintf(path, sizeof path, "/proc/%ld/schedstat", pid);
  return read_file(path, buf, sizeof buf) > 0 ? strtoull(buf, 0, 10) : 0;
}

static void memory(void)
{
  proc *v;
  size_t n = tree(&v), i, j, nh = 0;
  uint64_t pss = 0, pte = 0, hpss = 0, *hrss, *huss, *hpte, cpu_sup = 0, cpu_h = 0, cpu_s = 0;
  procmem sup;
  char names[1024] = "";
  memset(&sup, 0, sizeof sup);
  hrss = calloc(n + 1, sizeof *hrss);
  huss = calloc(n + 1, sizeof *huss);
  hpte = calloc(n + 1, sizeof *hpte);
  if (!hrss || !huss || !hpte) fail("out of memory");
  for (i = 0; i < n; i++) {
    procmem m = proc_memory(v[i].pid);
    pss += m.pss;
    pte += m.pte;
    if (v[i].pid == 1) {
      sup = m;
      cpu_sup = cpu_ns(1);
    } else {
      cpu_h += cpu_ns(v[i].pid);
      hpss += m.pss;
      hrss[nh] = m.rss;
      huss[nh] = m.uss;
      hpte[nh++] = m.pte;
    }
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
  fprintf(out, "sup_rss_kb %llu\nsup_pss_kb %llu\nsup_uss_kb %llu\nsup_anon_kb %llu\nsup_pte_kb %llu\n",
          (unsigned long long)sup.rss, (unsigned long long)sup.pss, (unsigned long long)sup.uss,
          (unsigned long long)sup.anon, (unsigned long long)sup.pte);
  for (i = 0; i < nsvc; i++) cpu_s += cpu_ns(svc_pid[i]);
  fprintf(out, "cpu_sup_ns %llu\ncpu_helpers_ns %llu\ncpu_services_ns %llu\n", (unsigned long long)cpu_sup,
          (unsigned long long)cpu_h, (unsigned long long)cpu_s);
  fprintf(out, "helpers %zu\nhelper_pss_kb %llu\n", nh, (unsigned long long)hpss);
  if (nh)
    fprintf(out, "helper_rss_kb %llu\nhelper_uss_kb %llu\nhelper_pte_kb %llu\n",
            (unsigned long long)median(hrss, nh), (unsigned long long)median(huss, nh),
            (unsigned long long)median(hpte, nh));
  free(hrss);
  free(huss);
  free(hpte);
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
  if (next_record(1, &pid, &t, &t)) fail("a service (pid %ld) started during the idle window", pid);
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
    uint64_t ts, tk, pidns;
    for (i = 1; i < nsvc; i++)
      if (svc_ts[i] < svc_ts[oldest]) oldest = i;
    sleep_until(svc_ts[oldest] + MIN_UP_NS);
    tk = now_ns();
    if (kill((pid_t)svc_pid[oldest], SIGKILL) < 0) fail("kill %ld: %s", svc_pid[oldest], strerror(errno));
    for (;;) {
      if (!next_record(now_ns() + 30000000000ull, &pid, &ts, &pidns))
        fail("trial %d: no replacement for service %ld within 30 s", k, svc_pid[oldest]);
      if (pidns && pidns != ns_ino(0, "pid")) fail("restart trials need services in the collector's PID namespace");
      if (!is_service(pid)) break;
    }
    svc_pid[oldest] = pid;
    svc_ts[oldest] = ts;
    fprintf(out, " %llu", (unsigned long long)(ts - tk));
    sleep_until(now_ns() + TRIAL_GAP_NS);
  }
  fprintf(out, "\n");
}

typedef struct options_s {
  size_t n;
  int cold_only, mem_only, privileged, trials, lo, cgroup;
  uint64_t cpu0_us, stall0_us;  /* -G: the cgroup's at the handshake */
  char const *own, *hostname;  /* -C, -H: 0 if not given */
  uint64_t settle_ns, idle_ns, cold_deadline_ns;
} options;

static int known_record(long pid, uint64_t pidns)
{
  size_t i;
  for (i = 0; i < nsvc; i++)
    if (svc_inner[i] == pid && svc_pidns[i] == pidns) return 1;
  return 0;
}

static void collect(options const *o, uint64_t volatile const *t0)
{
  uint64_t last = 0, deadline = now_ns() + o->cold_deadline_ns, first = 0;
  long pid;
  uint64_t ts, pidns;
  svc_pid = calloc(o->n, sizeof *svc_pid);
  svc_ts = calloc(o->n, sizeof *svc_ts);
  svc_inner = calloc(o->n, sizeof *svc_inner);
  svc_pidns = calloc(o->n, sizeof *svc_pidns);
  if (!svc_pid || !svc_ts || !svc_inner || !svc_pidns) fail("out of memory");
  while (nsvc < o->n) {
    if (!next_record(deadline, &pid, &ts, &pidns))
      fail("only %zu of %zu services started within %llu s", nsvc, o->n,
           (unsigned long long)(o->cold_deadline_ns / 1000000000ull));
    if (known_record(pid, pidns)) fail("service %ld started twice during the cold start", pid);
    svc_inner[nsvc] = pid;
    svc_pidns[nsvc] = pidns;
    svc_ts[nsvc++] = ts;
    if (ts > last) last = ts;
    if (!first || ts < first) first = ts;
  }
  if (!*t0 || last < *t0) fail("no exec timestamp");
  fprintf(out, "services %zu\ncold_ns %llu\nfirst_ns %llu\n", nsvc, (unsigned long long)(last - *t0),
          (unsigned long long)(first - *t0));
  if (o->cgroup) {
    uint64_t cpu, stall;
    if (cg_cpu(&cpu, &stall) < 0) fail("-G: no cpu.stat or cpu.pressure for the run's cgroup");
    fprintf(out, "cold_cpu_us %llu\ncold_stall_us %llu\n", (unsigned long long)(cpu - o->cpu0_us),
            (unsigned long long)(stall - o->stall0_us));
  }
  resolve_pids();
  check_service(svc_pid[0], o->privileged);
  if (o->own) check_contained(o->own, o->hostname, o->lo);
  if (!o->cold_only) {
    sleep_until(last + o->settle_ns);
    if (next_record(1, &pid, &ts, &pidns)) fail("a service (pid %ld) restarted after the cold start", pid);
    if (!o->mem_only) idle(o->idle_ns);
    memory();  /* after the window: the steady state */
    if (!o->mem_only) restarts(o->trials);
  }
  fprintf(out, "done\n");
  fflush(out);
  _exit(ferror(out) ? 1 : 0);
}

int main(int argc, char **argv)
{
  char const *fifo_path = 0, *out_path = 0, *log_path = "/dev/null";
  options o;
  int opt, hs[2];
  uint64_t settle_ms = 500, idle_ms = 10000, cold_s = 300;
  uint64_t volatile *t0;
  pid_t pid;
  char c;

  memset(&o, 0, sizeof o);
  o.trials = 30;
  while ((opt = getopt(argc, argv, "n:f:o:l:cMpC:H:LGs:i:k:T:")) != -1) {
    switch (opt) {
      case 'n': o.n = strtoul(optarg, 0, 10); break;
      case 'f': fifo_path = optarg; break;
      case 'o': out_path = optarg; break;
      case 'l': log_path = optarg; break;
      case 'c': o.cold_only = 1; break;
      case 'M': o.mem_only = 1; break;
      case 'p': o.privileged = 1; break;
      case 'C': o.own = optarg; break;
      case 'H': o.hostname = optarg; break;
      case 'L': o.lo = 1; break;
      case 'G': o.cgroup = 1; break;
      case 's': settle_ms = strtoull(optarg, 0, 10); break;
      case 'i': idle_ms = strtoull(optarg, 0, 10); break;
      case 'k': o.trials = atoi(optarg); break;
      case 'T': cold_s = strtoull(optarg, 0, 10); break;
      default: return 100;
    }
  }
  if (!o.n || !fifo_path || !out_path || optind >= argc) {
    fputs("nsrun: usage: nsrun -n N -f FIFO -o OUT [-l LOG] [-c | -M] [-p] [-C LIST [-H NAME] [-L]] [-G] [-s MS] [-i MS] [-k TRIALS] [-T S] -- SUPERVISOR ARGS...\n", stderr);
    return 100;
  }
  o.settle_ns = settle_ms * 1000000ull;
  o.idle_ns = idle_ms * 1000000ull;
  o.cold_deadline_ns = cold_s * 1000000000ull;
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
    int fd;
    close(hs[0]);
    fd = open(out_path, O_WRONLY | O_CLOEXEC);  /* a FIFO: waits for the reader */
    if (fd < 0 || !(out = fdopen(fd, "w"))) fail("open %s: %s", out_path, strerror(errno));
    fifo = open(fifo_path, O_RDWR | O_CLOEXEC);  /* never an end of file */
    if (fifo < 0) fail("open %s: %s", fifo_path, strerror(errno));
    if (o.cgroup && cg_cpu(&o.cpu0_us, &o.stall0_us) < 0) fail("-G: no cpu.stat or cpu.pressure for the run's cgroup");
    if (write(hs[1], "x", 1) != 1) fail("handshake: %s", strerror(errno));
    close(hs[1]);
    collect(&o, t0);
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

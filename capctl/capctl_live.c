/* capctl/capctl_live.c -- capctl's live verbs: a request on capinit's
 * control socket, the reply records printed as text or JSON. */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/inotify.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/time.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

#include <skalibs/strerr.h>

#include "../conf/record.h"
#include "capctl.h"
#include "capctl_live.h"
#include "../conf/control_verbs.h"
#include "../inspect/clock.h"

#define REPLY_TIMEOUT_S 30
#define REPLY_TIMEOUT_MS (REPLY_TIMEOUT_S * 1000)
#define STRINGIFY_(x) #x
#define STRINGIFY(x) STRINGIFY_(x)
#define REPLY_TIMEOUT_TEXT STRINGIFY(REPLY_TIMEOUT_S) " s"

static char const *rundir = "/run/capinit";

/* Connected, or -1 with errno EAGAIN when capinit's listen backlog stayed
 * full until the deadline. */
static int connect_control(uint64_t deadline)
{
  struct sockaddr_un sa;
  uint64_t left = deadline - now_ms();
  struct timeval tv = { (time_t)(left / 1000), (suseconds_t)(left % 1000) * 1000 };
  int fd = socket(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0);
  memset(&sa, 0, sizeof sa);
  sa.sun_family = AF_UNIX;
  if ((size_t)snprintf(sa.sun_path, sizeof sa.sun_path, "%s/control", rundir) >= sizeof sa.sun_path)
    strerr_dief2x(100, rundir, "/control: path too long");
  if (fd < 0) strerr_diefu1sys(111, "create a socket");
  /* a full backlog makes connect() wait, until this */
  setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof tv);
  if (connect(fd, (struct sockaddr *)&sa, sizeof sa) == 0) return fd;
  if (errno == EAGAIN || errno == EINPROGRESS || errno == EINTR) {
    close(fd);
    errno = EAGAIN;
    return -1;
  }
  strerr_diefu3sys(111, "connect to ", sa.sun_path, " (is capinit running? -r DIR names its runtime directory)");
}

static void pause_ms(unsigned ms)
{
  struct timespec t = { ms / 1000, (long)(ms % 1000) * 1000000L };
  while (nanosleep(&t, &t) < 0 && errno == EINTR) ;
}

/* One try: 0 with the final message in buf, 1 when capinit has too many
 * clients just now (nothing was done: try again). */
static int transact_once(int fd, char const *req, size_t len, char *buf, uint64_t deadline,
                         void (*fn)(char *rec, void *arg), void *arg)
{
  int first = 1;
  if (send(fd, req, len, MSG_NOSIGNAL) < 0) {
    if (errno == EPIPE || errno == ECONNRESET) return 1;  /* refused before it read */
    strerr_diefu1sys(111, "send the request");
  }
  for (;;) {
    struct pollfd p = { fd, POLLIN, 0 };
    uint64_t now = now_ms();
    ssize_t r;
    int pr = poll(&p, 1, now >= deadline ? 0 : (int)(deadline - now));
    if (pr == 0) strerr_dief1x(111, "no reply from capinit in " REPLY_TIMEOUT_TEXT);
    if (pr < 0 && errno == EINTR) continue;
    r = recv(fd, buf, CONTROL_MSG_MAX, 0);
    /* a reset comes before the messages queued ahead of it: read them */
    if (r < 0 && (errno == EINTR || errno == ECONNRESET)) continue;
    if (r <= 0) strerr_dief1x(111, "capinit closed the connection without a final reply");
    buf[r] = 0;
    if (first && !strcmp(buf, CONTROL_BUSY)) return 1;
    first = 0;
    if (!strcmp(buf, "ok") || !strncmp(buf, "error: ", 7)) return 0;
    if (fn) fn(buf, arg);
  }
}

/* The connection of the request answered last, left open: the end of
 * this process closes it.  After a poweroff, reboot or halt, capinit
 * waits for the asker's connection to close (CONTROL_ASKER_MS at most),
 * then ends, and with it every process of its PID namespace: a close
 * made by the exit comes after the exit status is fixed, so capctl is
 * never killed between its answer and its end (a close of its own, then
 * the exit, left a window for that). */
static int answered = -1;

int live_answered_fd(void)
{
  return answered;
}

static void answered_close(void)
{
  if (answered >= 0) close(answered);
  answered = -1;
}

/* Send one request; call fn on each record; return the final message
 * (static), "ok" or "error: ...".  A capinit with too many clients at
 * once (a burst of scripts) is asked again, with a growing pause, until
 * REPLY_TIMEOUT_MS have passed: the request waits, it does not fail. */
char const *live_transact(char const *req, void (*fn)(char *rec, void *arg), void *arg)
{
  static char buf[CONTROL_MSG_MAX + 1];
  uint64_t deadline = now_ms() + REPLY_TIMEOUT_MS;
  size_t len = strlen(req);
  unsigned pause = 5;
  if (len > CONTROL_MSG_MAX) strerr_dief1x(100, "request too long");
  answered_close();
  for (;;) {
    int fd = connect_control(deadline), busy = 1;
    if (fd >= 0) {
      busy = transact_once(fd, req, len, buf, deadline, fn, arg);
      if (!busy) {
        answered = fd;
        return buf;
      }
      close(fd);
    }
    if (now_ms() + pause >= deadline) strerr_dief1x(111, "capinit had too many clients for " REPLY_TIMEOUT_TEXT);
    pause_ms(pause);
    if (pause < 200) pause *= 2;
  }
}

typedef struct status_acc_s {
  int json, count, not_up, named;
} status_acc;

/* A value as JSON, by its field's kind (a field capctl does not know is
 * a string). */
static void json_value(record_field const *f, char const *v)
{
  enum record_kind kind = f ? f->kind : RK_TEXT;
  if (kind == RK_FLAG) printf("%s", !strcmp(v, "1") ? "true" : !strcmp(v, "0") ? "false" : "null");
  else if (kind == RK_NUMBER) printf("%s", v[0] && strspn(v, "0123456789") == strlen(v) ? v : "null");
  else json_string(stdout, v);
}

static void status_json(char *rec, status_acc *a)
{
  char *save = 0, *kv;
  int first = 1;
  printf("%s\n  {", a->count ? "," : "");
  for (kv = strtok_r(rec, "\t", &save); kv; kv = strtok_r(0, "\t", &save)) {
    char *eq = strchr(kv, '=');
    if (!eq) continue;
    *eq = 0;
    printf("%s\n    ", first ? "" : ",");
    json_string(stdout, kv);
    printf(": ");
    json_value(record_field_find(kv, (size_t)(eq - kv)), eq + 1);
    first = 0;
  }
  printf("\n  }");
}

static void uptime(char const *ms, char *buf, size_t len)
{
  unsigned long long t = strtoull(ms, 0, 10) / 1000;
  if (t < 60) snprintf(buf, len, "%llus", t);
  else if (t < 3600) snprintf(buf, len, "%llum%llus", t / 60, t % 60);
  else if (t < 86400) snprintf(buf, len, "%lluh%llum", t / 3600, t / 60 % 60);
  else snprintf(buf, len, "%llud%lluh", t / 86400, t / 3600 % 24);
}

static void status_line(char *rec, void *arg)
{
  status_acc *a = arg;
  char name[80], state[16], wanted[8], pid[16], since[32], restarts[16], eff[32], user[16], mode[16];
  char failure[256], status[160], up[32];
  record_get(rec, RF_STATE, state, sizeof state);
  record_get(rec, RF_WANTED, wanted, sizeof wanted);
  /* a service named is up or not; of all, only those meant to be up count */
  if (strcmp(state, "up") && (a->named || strcmp(wanted, "down") || !strcmp(state, "failed"))) a->not_up++;
  if (a->json) {
    status_json(rec, a);
    a->count++;
    return;
  }
  if (!a->count++)
    printf("%-20s %-9s %-7s %-8s %-8s %-6s %-7s %s\n", "NAME", "STATE", "PID", "SINCE", "RESTARTS", "USER", "MODE", "EFFECTIVE CAPS");
  record_get(rec, RF_NAME, name, sizeof name);
  record_get(rec, RF_PID, pid, sizeof pid);
  record_get(rec, RF_SINCE_MS, since, sizeof since);
  record_get(rec, RF_RESTARTS, restarts, sizeof restarts);
  record_get(rec, RF_CAP_EFF, eff, sizeof eff);
  record_get(rec, RF_USER, user, sizeof user);
  record_get(rec, RF_MODE, mode, sizeof mode);
  record_get(rec, RF_FAILURE, failure, sizeof failure);
  record_get(rec, RF_STATUS, status, sizeof status);
  uptime(since, up, sizeof up);
  printf("%-20s %-9s %-7s %-8s %-8s %-6s %-7s %s\n", name, state, strcmp(pid, "0") ? pid : "-", up,
         restarts, user, mode, eff);
  if (failure[0] && strcmp(failure, "-")) printf("%-20s   failed: %s\n", "", failure);
  if (status[0] && strcmp(status, "-")) printf("%-20s   status: %s\n", "", status);
}

char *live_join(char const *verb, int argc, char **argv)
{
  static char buf[CONTROL_MSG_MAX + 1];
  size_t n = (size_t)snprintf(buf, sizeof buf, "%s", verb);
  int i;
  for (i = 0; i < argc; i++) {
    if (strchr(argv[i], ' ') || !argv[i][0]) strerr_dief3x(100, "invalid argument '", argv[i], "'");
    n += (size_t)snprintf(buf + n, sizeof buf - n, " %s", argv[i]);
    if (n >= sizeof buf - 1) strerr_dief1x(100, "request too long");
  }
  return buf;
}

/* 0 when capinit's final reply r is "ok"; else, after what was printed
 * of the records, its error on standard error, and 1. */
int live_final(char const *r)
{
  if (!strcmp(r, "ok")) return 0;
  fflush(stdout);
  fprintf(stderr, "capctl: %s\n", r);
  return 1;
}

static int status_main(int json, int argc, char **argv)
{
  status_acc a = { json, 0, 0, argc > 0 };
  char const *r;
  if (a.json) printf("[");
  r = live_transact(live_join("status", argc, argv), status_line, &a);
  if (a.json) printf("%s]\n", a.count ? "\n" : "");
  if (live_final(r)) return 1;
  return a.not_up ? 3 : 0;
}

static void print_record(char *rec, void *arg)
{
  (void)arg;
  puts(rec);
}

/* ------------------------------------------------------------ blame */

#define BLAME_MAX 4096

typedef struct blame_row_s {
  char name[80], state[16], type[16];
  long long start, end;    /* ms since capinit started; -1: none */
  int phase;
} blame_row;

typedef struct blame_acc_s {
  long long kernel_ms, ready_ms;
  blame_row *v;
  size_t n;
} blame_acc;

static long long ms_field(char const *rec, enum record_field_id key)
{
  char v[32];
  record_get(rec, key, v, sizeof v);
  return v[0] >= '0' && v[0] <= '9' ? atoll(v) : -1;
}

static void blame_record(char *rec, void *arg)
{
  blame_acc *a = arg;
  blame_row *r;
  if (!strncmp(rec, BLAME_BOOT_TAG "\t", sizeof BLAME_BOOT_TAG)) {
    a->kernel_ms = ms_field(rec, RF_KERNEL_MS);
    a->ready_ms = ms_field(rec, RF_READY_MS);
    return;
  }
  if (a->n == BLAME_MAX) return;
  r = &a->v[a->n++];
  r->phase = record_begins(rec, RF_PHASE);
  record_get(rec, r->phase ? RF_PHASE : RF_NAME, r->name, sizeof r->name);
  record_get(rec, RF_STATE, r->state, sizeof r->state);
  record_get(rec, RF_TYPE, r->type, sizeof r->type);
  r->start = ms_field(rec, r->phase ? RF_START_MS : RF_SPAWNED_MS);
  r->end = ms_field(rec, r->phase ? RF_END_MS : RF_READY_MS);
}

static long long duration(blame_row const *r)
{
  return r->start >= 0 && r->end >= r->start ? r->end - r->start : -1;
}

/* Longest first, as systemd-analyze blame; those without a duration last. */
static int by_duration(void const *x, void const *y)
{
  long long a = duration(x), b = duration(y);
  return a != b ? (a < b ? 1 : -1) : strcmp(((blame_row const *)x)->name, ((blame_row const *)y)->name);
}

static char const *secs(long long ms, char *buf, size_t len)
{
  if (ms < 0) return "-";
  snprintf(buf, len, "%lld.%03llds", ms / 1000, ms % 1000);
  return buf;
}

/* "KEY": MS (null for none), KEY a field's name */
static void json_ms(enum record_field_id key, long long ms)
{
  printf("\"%s\": ", record_fields[key].name);
  if (ms < 0) printf("null");
  else printf("%lld", ms);
}

static void json_text(enum record_field_id key, char const *v)
{
  printf("\"%s\": ", record_fields[key].name);
  json_string(stdout, v);
}

/* capctl blame --json: the boot's phases, then the services */
static void blame_json(blame_acc const *a)
{
  size_t i;
  int first;
  printf("{\n  ");
  json_ms(RF_KERNEL_MS, a->kernel_ms);
  printf(",\n  ");
  json_ms(RF_READY_MS, a->ready_ms);
  printf(",\n  \"phases\": [");
  for (i = 0, first = 1; i < a->n; i++) {
    if (!a->v[i].phase) continue;
    printf("%s\n    { ", first ? "" : ",");
    json_text(RF_NAME, a->v[i].name);
    printf(", ");
    json_ms(RF_START_MS, a->v[i].start);
    printf(", ");
    json_ms(RF_END_MS, a->v[i].end);
    printf(" }");
    first = 0;
  }
  printf("%s],\n  \"services\": [", first ? "" : "\n  ");
  for (i = 0, first = 1; i < a->n; i++) {
    if (a->v[i].phase) continue;
    printf("%s\n    { ", first ? "" : ",");
    json_text(RF_NAME, a->v[i].name);
    printf(", ");
    json_text(RF_STATE, a->v[i].state);
    printf(", ");
    json_text(RF_TYPE, a->v[i].type);
    printf(", ");
    json_ms(RF_SPAWNED_MS, a->v[i].start);
    printf(", ");
    json_ms(RF_READY_MS, a->v[i].end);
    printf(" }");
    first = 0;
  }
  printf("%s]\n}\n", first ? "" : "\n  ");
}

static int blame_main(int json)
{
  static blame_row rows[BLAME_MAX];
  blame_acc a = { -1, -1, rows, 0 };
  char const *r = live_transact("blame", blame_record, &a);
  char b1[32], b2[32], b3[32];
  size_t i;
  if (live_final(r)) return 1;
  if (json) {
    blame_json(&a);
    return 0;
  }
  printf("capinit started %s after the kernel; ", secs(a.kernel_ms, b1, sizeof b1));
  if (a.ready_ms >= 0) printf("every service ready (or failed) %s after that\n", secs(a.ready_ms, b1, sizeof b1));
  else printf("not every service is ready yet\n");
  qsort(a.v, a.n, sizeof *a.v, by_duration);
  printf("%10s %10s %10s  %s\n", "TIME", "FROM", "TO", "NAME");
  for (i = 0; i < a.n; i++) {
    blame_row const *x = &a.v[i];
    printf("%10s %10s %10s  %s%s", secs(duration(x), b1, sizeof b1), secs(x->start, b2, sizeof b2),
           secs(x->end, b3, sizeof b3), x->phase ? "(boot) " : "", x->name);
    if (!x->phase && strcmp(x->state, "up")) printf(" (%s)", x->state);
    putchar('\n');
  }
  return 0;
}

static void take_path(char *rec, void *arg)
{
  char log[16];
  record_get(rec, RF_PATH, (char *)arg, 4096);
  record_get(rec, RF_LOG, log, sizeof log);
  if (strcmp(log, "file"))
    strerr_dief3x(1, "this service logs to ", log, ", not to a file");
}

/* Print the last n lines of fd's file; return its end.  They start after
 * the n-th newline from the end, not counting a newline that ends the file. */
static off_t tail_lines(int fd, long n)
{
  struct stat st;
  off_t end, pos;
  char buf[8192];
  long seen = 0;
  if (fstat(fd, &st) < 0) return 0;
  end = pos = st.st_size;
  if (!n) return end;
  while (pos > 0) {
    size_t chunk = pos > (off_t)sizeof buf ? sizeof buf : (size_t)pos;
    ssize_t r, i;
    pos -= (off_t)chunk;
    r = pread(fd, buf, chunk, pos);
    if (r <= 0) break;
    for (i = r; i-- > 0;) {
      if (buf[i] == '\n' && (pos + i + 1 != end) && ++seen == n) {
        pos += i + 1;
        goto found;
      }
    }
  }
  pos = 0;
found:
  while (pos < end) {
    size_t chunk = end - pos > (off_t)sizeof buf ? sizeof buf : (size_t)(end - pos);
    ssize_t r = pread(fd, buf, chunk, pos);
    if (r <= 0) break;
    fwrite(buf, 1, (size_t)r, stdout);
    pos += r;
  }
  fflush(stdout);
  return end;
}

/* Copy what fd holds from *pos to stdout; *pos moves on. */
static void copy_from(int fd, off_t *pos)
{
  char buf[8192];
  ssize_t got;
  while ((got = pread(fd, buf, sizeof buf, *pos)) > 0) {
    fwrite(buf, 1, (size_t)got, stdout);
    *pos += got;
  }
}

/* capctl log -f: follow the file from pos, and its successor after a
 * rotation (or a truncation: the new one from its start).  Never returns. */
static void follow_log(char const *path, int fd, off_t pos) __attribute__((noreturn));
static void follow_log(char const *path, int fd, off_t pos)
{
  char dir[4096], *slash;
  int in = inotify_init1(IN_CLOEXEC);
  snprintf(dir, sizeof dir, "%s", path);
  slash = strrchr(dir, '/');
  if (slash) *slash = 0;
  if (in < 0 || inotify_add_watch(in, slash ? dir : ".", IN_MODIFY | IN_CREATE | IN_MOVED_TO) < 0)
    strerr_diefu2sys(111, "watch ", dir);
  for (;;) {
    char ev[4096];
    struct stat a, b;
    ssize_t k = read(in, ev, sizeof ev);
    if (k < 0 && errno == EINTR) continue;
    if (k < 0) strerr_diefu1sys(111, "read inotify events");
    if (stat(path, &a) == 0 && (fd < 0 || (fstat(fd, &b) == 0 && (a.st_ino != b.st_ino || a.st_size < pos)))) {
      /* rotated or truncated: finish the old file, then the new one from its start */
      if (fd >= 0) {
        copy_from(fd, &pos);
        close(fd);
      }
      fd = open(path, O_RDONLY | O_CLOEXEC);
      pos = 0;
    }
    if (fd < 0) continue;
    copy_from(fd, &pos);
    fflush(stdout);
  }
}

static int log_main(int argc, char **argv)
{
  char path[4096];
  long n = 10;
  int follow = 0, c, fd;
  off_t pos;
  optind = 1;
  while ((c = getopt(argc, argv, "+n:f")) != -1) {
    switch (c) {
      case 'n': {
        char *end;
        n = strtol(optarg, &end, 10);
        if (!*optarg || *end || n < 0) strerr_dief3x(100, "-n needs a number of lines, not '", optarg, "'");
        break;
      }
      case 'f': follow = 1; break;
      default: strerr_dieusage(100, "capctl log [-n N] [-f] NAME");
    }
  }
  if (argc - optind != 1) strerr_dieusage(100, "capctl log [-n N] [-f] NAME");
  path[0] = 0;
  if (live_final(live_transact(live_join("log", 1, argv + optind), take_path, path))) return 1;
  answered_close();  /* a follower may stay for days: its client slot is freed now */
  fd = open(path, O_RDONLY | O_CLOEXEC);
  if (fd < 0 && !(follow && errno == ENOENT)) strerr_diefu2sys(111, "open ", path);
  pos = fd >= 0 ? tail_lines(fd, n) : 0;
  if (follow) follow_log(path, fd, pos);
  return 0;
}

static int simple(char const *verb, int argc, char **argv)
{
  return live_final(live_transact(live_join(verb, argc, argv), print_record, 0));
}

int live_main(int argc, char **argv)
{
  char const *verb = argv[0];
  char const *env = getenv("CAPINIT_RUNDIR");
  int i, k = 1, json = 0, processes = 0;
  if (env && *env) rundir = env;
  if (!control_verb_find(verb) && strcmp(verb, "verify")) strerr_dief3x(100, "unknown verb '", verb, "' (capctl --help lists them)");
  /* -r DIR may stand anywhere before the names, and before "--" */
  for (i = 1; i < argc; i++) {
    if (!strcmp(argv[i], "--")) {
      if (!strcmp(verb, "log")) argv[k++] = argv[i];  /* getopt's */
      while (++i < argc) argv[k++] = argv[i];
      break;
    }
    if (!strcmp(argv[i], "-r")) {
      if (++i == argc) strerr_dief1x(100, "option -r needs a value");
      rundir = argv[i];
    } else if (!strcmp(argv[i], "--json") && (!strcmp(verb, "status") || !strcmp(verb, "blame"))) {
      json = 1;
    } else if (!strcmp(argv[i], "-p") && !strcmp(verb, "verify")) {
      processes = 1;
    } else if (argv[i][0] == '-' && argv[i][1] && strcmp(verb, "log")) {
      strerr_dief5x(100, "unknown option '", argv[i], "' for ", verb, " (capctl --help lists them)");
    } else {
      argv[k++] = argv[i];
    }
  }
  argc = k;
  argv[argc] = 0;
  if (!strcmp(verb, "status")) return status_main(json, argc - 1, argv + 1);
  if (!strcmp(verb, "verify")) return verify_main(processes, argc - 1, argv + 1);
  if (!strcmp(verb, "blame")) {
    if (argc > 1) strerr_dieusage(100, "capctl blame [--json]");
    return blame_main(json);
  }
  if (!strcmp(verb, "log")) return log_main(argc, argv);
  if (argc - 1 < (int)control_verb_find(verb)->min_args) {
    char u[256];
    snprintf(u, sizeof u, "capctl %s %s", verb, control_verb_find(verb)->usage);
    strerr_dieusage(100, u);
  }
  return simple(verb, argc - 1, argv + 1);
}

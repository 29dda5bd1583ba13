/* capctl/learn.c -- `capctl learn [--time SECONDS] [--check CMD] FILE.svc`:
 * run the service with the privilege its file gives, traced (learn_run.c,
 * learn_trace.c), and print a proposed file with the capabilities the
 * kernel granted it (learn_out.c) on standard output, a report on
 * standard error.  With --check, prove the proposal: the check passes with
 * the file as it is (the control), then with the proposal, then with each
 * capability taken away in turn: one whose removal still passes is
 * unnecessary, and left out.
 *
 * Exit codes: 0 a proposal (proven, with --check); 1 the service's
 * command never ran, or the check failed with the file as it is or with
 * the proposal; 100 wrong usage or a refused file; 111 a system call
 * failed (tracing, a temporary file), records were lost, or learn was
 * interrupted; 127 capexec was not found. */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <pwd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <skalibs/strerr.h>

#include "../conf/container.h"
#include "../conf/diag.h"
#include "../conf/names.h"
#include "../conf/svc.h"
#include "../conf/xalloc.h"
#include "learn.h"
#include "learn_files.h"
#include "learn_out.h"
#include "learn_record.h"
#include "learn_run.h"
#include "learn_trace.h"

#define USAGE "capctl learn [--time SECONDS] [--check CMD] [--fresh PATH]... FILE.svc"

static void help(void)
{
  fputs(
"usage: " USAGE "\n"
"\n"
"Run the service of FILE.svc under capexec with the privilege the file\n"
"gives (legacy root when it says nothing), trace every capability the\n"
"kernel checks for its processes and the paths they write, and print the\n"
"file with mode = noroot, the capabilities it was granted, each with the\n"
"system calls that needed it, read-only = yes and read-write for the\n"
"directories it wrote into, on standard output; a report on standard\n"
"error.\n"
"\n"
"  --time SECONDS  stop the service (TERM) after this long (default 10)\n"
"  --check CMD     prove the proposal: /bin/sh -c CMD must pass with the\n"
"                  file as it is, with the proposal, and decides for each\n"
"                  capability whether it is needed, and for a uid 0 file\n"
"                  left with none whether user = nobody will do\n"
"                  (CAPCTL_LEARN_EXIT: the service's exit status, or\n"
"                  \"running\"; it has --time seconds too)\n"
"  --fresh PATH    remove PATH (an absolute path; a directory with what it\n"
"                  holds) before each run of the service, so that each is\n"
"                  a first start, as after a boot (repeatable)\n"
"  -h, --help, -V, --version\n"
"\n"
"Exit status: 0 a proposal; 1 the check failed; 100 usage or a refused\n"
"file; 111 tracing or another system call failed.  See capctl(8), LEARN.\n", stdout);
}

/* capexec: beside this program (the build tree), then PREFIX/sbin for
 * PREFIX/lib/capinit (make install, the package) */
static char *find_capexec(void)
{
  char self[4096], paths[2][4200];
  char *cut;
  ssize_t n = readlink("/proc/self/exe", self, sizeof self - 1);
  size_t i;
  if (n <= 0) strerr_diefu1sys(111, "read /proc/self/exe");
  self[n] = 0;
  cut = strrchr(self, '/');
  *cut = 0;
  snprintf(paths[0], sizeof paths[0], "%s/capexec", self);
  /* PREFIX of PREFIX/lib/capinit */
  for (i = 0; i < 2 && (cut = strrchr(self, '/')); i++) *cut = 0;
  snprintf(paths[1], sizeof paths[1], "%s/sbin/capexec", self);
  for (i = 0; i < 2; i++)
    if (access(paths[i], X_OK) == 0) return xstrdup(paths[i]);
  strerr_dief5x(127, "learn needs capexec (", paths[0], ", ", paths[1], "): not found");
}

static char *read_text(char const *path)
{
  FILE *f = fopen(path, "r");
  char *buf;
  long n;
  if (!f) strerr_diefu2sys(111, "open ", path);
  fseek(f, 0, SEEK_END);
  n = ftell(f);
  rewind(f);
  if (n < 0 || n > (1 << 20)) strerr_dief2x(100, path, ": not a service file (over 1 MiB)");
  buf = xmalloc((size_t)n + 1);
  if (fread(buf, 1, (size_t)n, f) != (size_t)n) strerr_diefu2sys(111, "read ", path);
  buf[n] = 0;
  fclose(f);
  return buf;
}

/* A trial's file: the proposal with caps, written to path. */
static void write_trial(char const *path, char const *text, uint64_t caps, learn_record const *r)
{
  FILE *f = fopen(path, "w");
  if (!f) strerr_diefu2sys(111, "write ", path);
  learn_propose(f, text, caps, r);
  if (fclose(f) != 0) strerr_diefu2sys(111, "write ", path);
}

/* 1 the check passes, 0 it fails, -1 learn could not tell (err filled) */
static int passes(learn_run const *run, char const *check, char *err, size_t errlen)
{
  int st = learn_run_check(run, check, err, errlen);
  if (learn_interrupted()) {
    snprintf(err, errlen, "learn: interrupted by signal %d", learn_interrupted());
    return -1;
  }
  if (st == -1) return -1;
  return WIFEXITED(st) && WEXITSTATUS(st) == 0;
}

/* A trial of prove's proposal: its securebits (0 keep-caps locked, 1
 * root's), and its file system (when the files were learned): the
 * directories learned, each widened (learn_files_widen), the file's own
 * keys */
typedef struct { unsigned sb, fs; } trial_of;
enum { FS_LEARNED, FS_WIDENED, FS_OWN };

static void trial_say(trial_of t, unsigned marked)
{
  static char const *const fs[] = {
    ", read-only = yes and the read-write paths learned",
    ", read-only = yes and the read-write paths learned, each widened to its package's directory",
    ", the file's own file-system keys",
  };
  fputs(t.sb ? "noroot, noroot-locked (0x03)" : "noroot, noroot-locked, keep-caps-locked (0x23)", stderr);
  if (marked) fputs(fs[t.fs], stderr);
}

/* The proof: the control, the proposal, each capability's removal, into
 * caps (the capabilities still needed).  0; 1 when the control or the
 * proposal fails (said); -1 when a run could not be made (err filled). */
static int prove(learn_run *run, char const *file, char const *check, char const *text, uint64_t *capsp,
                 learn_record *r, char const *trial, char *err, size_t errlen)
{
  char name[64];
  uint64_t caps = *capsp;
  unsigned i, t, n, marked;
  trial_of trials[6];
  int p = 0, widens;
  run->file = file;
  if ((p = passes(run, check, err, errlen)) <= 0) {
    if (!p) strerr_warnw1x("learn: the check fails with the file as it is: it cannot prove anything");
    return p ? -1 : 1;
  }
  run->file = trial;
  /* keep-caps locked, then, when the check fails so, root's securebits;
   * each with the file system learned, then with its directories widened
   * (when that changes them), then with the file's own keys (a write the
   * kernel refused before any event, as an unlink of a missing file under
   * read-only = yes, is not seen) */
  marked = r->files.marked;
  r->files_widened = r->files_dropped = 0;
  widens = marked && learn_propose_widens(r);
  for (t = 0, n = 0; t < 6; t++)
    if (t < 2 || (marked && (t >= 4 || widens))) trials[n].sb = t % 2, trials[n++].fs = t / 2;
  for (t = 0; t < n; t++) {
    r->securebits = trials[t].sb ? LEARN_SECUREBITS_ROOT : LEARN_SECUREBITS_LOCKED;
    r->files.marked = trials[t].fs != FS_OWN ? marked : 0;
    r->files_widened = trials[t].fs == FS_WIDENED;
    r->files_dropped = trials[t].fs == FS_OWN;
    write_trial(trial, text, caps, r);
    if ((p = passes(run, check, err, errlen)) < 0) return -1;
    if (p) break;
    fputs("capctl: learn: the check fails with the proposal under securebits ", stderr);
    trial_say(trials[t], marked);
    if (t + 1 < n) {
      fputs(": trying ", stderr);
      trial_say(trials[t + 1], marked);
    }
    fputs("\n", stderr);
  }
  if (!p) {
    strerr_warnw1x("learn: the check fails with every proposal");
    return 1;
  }
  r->securebits_why = r->securebits == LEARN_SECUREBITS_LOCKED ? LEARN_SB_PROVEN : LEARN_SB_KEEPCAPS;
  fputs("capctl: learn: the check passes with the proposal, securebits ", stderr);
  trial_say(trials[t], marked);
  fputs("\n", stderr);
  for (i = 0; i < LEARN_CAPS; i++) {
    if (!(caps >> i & 1)) continue;
    write_trial(trial, text, caps & ~(1ULL << i), r);
    if ((p = passes(run, check, err, errlen)) < 0) return -1;
    cap_name(i, name, sizeof name);
    if (p) {
      caps &= ~(1ULL << i);
      fprintf(stderr, "capctl: learn: %s: checked, but unnecessary: the check passes without it\n", name);
    } else {
      fprintf(stderr, "capctl: learn: %s: necessary: the check fails without it\n", name);
    }
  }
  *capsp = caps;
  return 0;
}

/* Could uid, gid write path (a directory: add and remove its entries) by
 * its mode alone? */
static int writable(char const *path, int dir, uid_t uid, gid_t gid)
{
  struct stat st;
  mode_t need;
  if (stat(path, &st) < 0) return 0;
  need = st.st_uid == uid ? S_IWUSR | (dir ? S_IXUSR : 0) : st.st_gid == gid ? S_IWGRP | (dir ? S_IXGRP : 0)
                                                                             : S_IWOTH | (dir ? S_IXOTH : 0);
  return (st.st_mode & need) == need;
}

/* The user trial (a uid 0 file without a user, every capability proven
 * unnecessary): nobody, when by their modes it could write every file the
 * service wrote but did not make, and every directory whose entries it
 * changed, and the check passes with user = nobody.  Sets r->user, or r->no_user. */
static int prove_user(learn_run *run, char const *check, char const *text, learn_record *r, char const *trial,
                      char *err, size_t errlen)
{
  static char why[4200];
  struct passwd *pw = getpwnam("nobody");
  learn_files const *f = &r->files;
  size_t i;
  int p;
  if (!pw || !pw->pw_uid) {
    r->no_user = "there is no user nobody";
    return 0;
  }
  for (i = 0; i < f->n; i++) {
    char dir[4096], *slash;
    if (!learn_record_has(r, f->file[i].pid)) continue;
    /* a file it made would be nobody's: its directory is what counts */
    if ((f->file[i].what & (LF_WROTE | LF_MADE)) == LF_WROTE && !writable(f->file[i].path, 0, pw->pw_uid, pw->pw_gid)) {
      snprintf(why, sizeof why, "nobody could not write %s (its owner and mode)", f->file[i].path);
      r->no_user = why;
      return 0;
    }
    snprintf(dir, sizeof dir, "%s", f->file[i].path);
    slash = strrchr(dir, '/');
    if (!(f->file[i].what & (LF_MADE | LF_REMOVED | LF_RENAMED)) || !slash) continue;
    slash[slash == dir] = 0;
    if (!writable(dir, 1, pw->pw_uid, pw->pw_gid)) {
      snprintf(why, sizeof why, "nobody could not change the entries of %s (its owner and mode)", dir);
      r->no_user = why;
      return 0;
    }
  }
  r->user = "nobody";
  write_trial(trial, text, 0, r);
  p = passes(run, check, err, errlen);
  if (p <= 0) r->user = 0;
  if (p < 0) return -1;
  if (!p) r->no_user = "the check fails as nobody";
  else fprintf(stderr, "capctl: learn: the check passes as nobody\n");
  return 0;
}

static void report(learn_record const *r, learn_end const *end)
{
  char name[64], where[1024];
  unsigned i;
  if (end->running) fprintf(stderr, "capctl: learn: the service ran until its time was up, then was stopped\n");
  else if (WIFEXITED(end->status)) fprintf(stderr, "capctl: learn: the service exited %d\n", WEXITSTATUS(end->status));
  else fprintf(stderr, "capctl: learn: the service was killed by signal %d\n", WTERMSIG(end->status));
  for (i = 0; i < LEARN_CAPS; i++) {
    learn_cap const *c = &r->cap[i];
    if (c->granted || c->refused) {
      fprintf(stderr, "capctl: learn: %s: granted %lu, refused %lu: %s\n", cap_name(i, name, sizeof name), c->granted,
              c->refused, learn_where_format(c->where, c->nwhere, where, sizeof where));
      if (learn_objects_format(c->where, c->nwhere, where, sizeof where)[0])
        fprintf(stderr, "capctl: learn: what %s was checked for: %s\n", name, where);
    }
    if (c->asked)
      fprintf(stderr, "capctl: learn: %s: asked of capset(2) %lu times, in the permitted set to keep after a switch"
                      " from uid 0: %s\n", cap_name(i, name, sizeof name), c->asked, c->asked_by);
    if (c->quiet)
      fprintf(stderr, "capctl: learn: %s: quiet %lu, not proposed (%s): %s\n", cap_name(i, name, sizeof name), c->quiet,
              c->quiet_why, learn_where_format(c->qwhere, c->nqwhere, where, sizeof where));
  }
  if (r->capset_unread[0])
    fprintf(stderr, "capctl: learn: %s called capset(2), and learn cannot read the sets it asked: this kernel's"
                    " tracepoints give only their addresses (raw_syscalls:sys_enter), and the kprobe on"
                    " cap_capset needs kprobe events and the kernel's BTF (/sys/kernel/btf/vmlinux): a"
                    " capability it asked to keep across a uid switch, and no check saw, is missing from the"
                    " proposal\n", r->capset_unread);
  if (r->capset_root[0])
    fprintf(stderr, "capctl: learn: %s called capset(2) as uid 0, or left its permitted set as it was: nothing"
                    " proposed for it\n", r->capset_root);
  if (learn_refused_only(r))
    fprintf(stderr, "capctl: learn: the capabilities only refused are not proposed: the service went on without"
                    " them, or failed (the check tells)\n");
}

/* The options into run (seconds) and check; the file's path is the
 * operand, at argv[optind] on return. */
static void options(int argc, char **argv, learn_run *run, char const **check)
{
  static struct option const longs[] = {
    { "time", required_argument, 0, 't' }, { "check", required_argument, 0, 'c' },
    { "fresh", required_argument, 0, 'f' }, { "help", no_argument, 0, 'h' },
    { "version", no_argument, 0, 'V' }, { 0, 0, 0, 0 },
  };
  unsigned long seconds = 10;
  char *end;
  int c;
  run->fresh = 0;
  run->nfresh = 0;
  while ((c = getopt_long(argc, argv, "+hV", longs, 0)) != -1) {
    switch (c) {
      case 't':
        errno = 0;
        seconds = strtoul(optarg, &end, 10);
        if (errno || *end || !optarg[0] || !seconds || seconds > 86400)
          strerr_dief3x(100, "--time: '", optarg, "' is not a number of seconds from 1 to 86400");
        break;
      case 'c': *check = optarg; break;
      case 'f':
        if (optarg[0] != '/' || !optarg[1]) strerr_dief3x(100, "--fresh: '", optarg, "' is not an absolute path under /");
        run->fresh = xreallocarray(run->fresh, run->nfresh + 1, sizeof *run->fresh);
        run->fresh[run->nfresh++] = optarg;
        break;
      case 'h': help(); exit(0);
      case 'V': puts("capctl-learn " CAPINIT_VERSION); exit(0);
      default: strerr_dieusage(100, USAGE);
    }
  }
  if (argc - optind != 1) strerr_dieusage(100, USAGE);
  run->file = argv[optind];
  run->seconds = (unsigned)seconds;
}

/* Is pid the service's? */
static int mine(void const *rec, pid_t pid)
{
  return learn_record_has(rec, pid);
}

/* The traced run, into rec; the report.  Exits unless the service ran
 * and every record was read. */
static void learn_traced(learn_run const *run, char const *check, learn_record *rec)
{
  char err[256], err2[256];
  size_t left;
  learn_trace t;
  learn_end end;
  if (learn_trace_open(&t, err, sizeof err) < 0) {
    learn_trace_close(&t, err2, sizeof err2);
    strerr_diefu2x(111, "trace capability checks: ", err);
  }
  fprintf(stderr, "capctl: learn: %s (tracefs: %s), with %s\n", t.src->name, t.where, run->file);
  if (learn_files_open(&rec->files, rec->dir, err, sizeof err) < 0) {
    learn_files_close(&rec->files);
    rec->files.marked = 0;
    fprintf(stderr, "capctl: learn: warning: the files it writes are not learned (%s): no read-write proposal\n", err);
  } else {
    t.files = &rec->files;
    if (rec->files.unmarked)
      fprintf(stderr, "capctl: learn: %u of %u file systems cannot report a directory's entries made, removed or"
                      " renamed: there, only the files written are learned\n", rec->files.unmarked, rec->files.marked);
  }
  rec->capexec = run->capexec;
  rec->trace = &t;
  if (learn_run_traced(run, check, &t, learn_record_line, rec, &end, err, sizeof err) < 0) {
    learn_trace_close(&t, err2, sizeof err2);
    strerr_diefu2x(111, "run the service traced: ", err);
  }
  if (learn_trace_close(&t, err, sizeof err) < 0) strerr_warnwu1x(err);
  rec->trace = 0;
  if (learn_interrupted()) {
    char sig[16];
    snprintf(sig, sizeof sig, "%d", learn_interrupted());
    strerr_dief2x(111, "learn: interrupted by signal ", sig);
  }
  if (rec->lost) strerr_dief1x(111, "learn: the kernel dropped trace records: the proposal could miss a capability");
  if (rec->files.lost) strerr_dief1x(111, "learn: the kernel dropped file events: the proposal could miss a file it wrote");
  /* the last events were drained; no more are needed */
  learn_files_stop(&rec->files);
  if ((left = learn_files_resolve(&rec->files, mine, rec)))
    fprintf(stderr, "capctl: learn: %zu entries made, removed or renamed in a directory that several mounts reach,"
                    " none of them alone nearest a file it wrote, or under the directory it started in: not in"
                    " read-write (the proposal names them)\n", left);
  if (!rec->started) strerr_dief1x(1, "learn: the service's command never ran (see capexec's message)");
  report(rec, &end);
}

int learn_main(int argc, char **argv)
{
  char const *check = 0;
  char dir[] = "/tmp/capctl-learn.XXXXXX", trial[4200], err[256], *text;
  diag_list diags = { 0, 0, 0 };
  conf_ctx ctx = { .root = "/", .diags = &diags, .command_optional = 0, .live = 1 };
  static learn_record rec;
  learn_run run;
  uint64_t caps;
  int proven;
  svc *s;

  options(argc, argv, &run, &check);
  run.capexec = find_capexec();
  s = svc_load_file(&ctx, run.file);
  diag_sort(&diags);
  diag_print(&diags, "capctl", 2);
  if (s->refused) strerr_dief2x(100, run.file, ": refused: nothing run");
  text = read_text(run.file);
  rec.uid0 = s->uid == 0;
  rec.dir = s->directory ? s->directory : ".";
  rec.own_tmp = s->ct && container_own_tmp(s->ct);
  learn_traced(&run, check, &rec);
  caps = learn_granted(&rec);
  /* without --check: keep-caps locked unless the trace saw a process ask
   * for keep-caps (prctl); with it, the check decides (prove) */
  rec.securebits = rec.keepcaps[0] ? LEARN_SECUREBITS_ROOT : LEARN_SECUREBITS_LOCKED;
  if (rec.keepcaps[0])
    fprintf(stderr, "capctl: learn: %s asked to keep its capabilities across a uid switch (prctl): not proposed"
                    " under keep-caps-locked without --check\n", rec.keepcaps);
  if (check) {
    if (!mkdtemp(dir)) strerr_diefu1sys(111, "make a temporary directory");
    snprintf(trial, sizeof trial, "%s/%s.svc", dir, s->name);
    proven = prove(&run, argv[optind], check, text, &caps, &rec, trial, err, sizeof err);
    /* a user, where uid 0 was used for nothing the trace and the files show */
    if (!proven && !caps && rec.uid0 && !s->user && rec.files.marked &&
        prove_user(&run, check, text, &rec, trial, err, sizeof err) < 0)
      proven = -1;
    if (rec.no_user) fprintf(stderr, "capctl: learn: no user proposed: %s\n", rec.no_user);
    unlink(trial);
    rmdir(dir);
    if (proven < 0) strerr_dief1x(111, err);
    if (proven) return 1;
  }
  /* capinit refuses an uncontained noroot uid 0 that could write its
   * state (capinit.svc(5)): the proposal has read-only = yes when the
   * files written were learned */
  if (s->uid == 0 && !rec.files.marked && !(s->ct && container_read_only(s->ct)))
    fprintf(stderr, "capctl: learn: note: uid 0 without read-only = yes could write capinit's state:"
                    " capctl check refuses the proposal until it has read-only = yes and read-write paths,"
                    " or a user\n");
  learn_propose(stdout, text, caps, &rec);
  if (fflush(stdout) != 0) strerr_diefu1sys(111, "write the proposal");
  learn_files_close(&rec.files);
  free(text);
  svc_free(s);
  diag_free(&diags);
  return 0;
}

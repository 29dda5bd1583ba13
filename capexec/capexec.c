/* capexec/capexec.c -- apply one service's spec to this process and exec
 * its command: a fail-closed replacement for setpriv and capsh in other
 * supervisors' run scripts.  Same keys and same engine as capinit.
 *
 * Exit codes: 100 wrong usage or an invalid spec; 111 a process setup
 * stage failed (directory, rlimits...); 112 an id stage (keepcaps, groups,
 * gid, uid); 113 a capability stage (effective, bounding, inheritable,
 * ambient, caps); 114 securebits or no_new_privs; 126 the command could
 * not be executed; 127 it was not found.  Otherwise, the command's. */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <skalibs/strerr.h>

#include "../conf/diag.h"
#include "../conf/svc.h"
#include "../conf/xalloc.h"
#include "../engine/privilege.h"
#include "../engine/reaper.h"

char const *PROG = "capexec";

#define USAGE "capexec -f FILE.svc [-- CMD ARGS...] | capexec -k key=value... -- CMD ARGS..."

static void help(void)
{
  fputs(
"usage: capexec -f FILE.svc [-- CMD [ARGS...]]\n"
"       capexec -k key=value [-k key=value...] [-- CMD [ARGS...]]\n"
"\n"
"Apply a service's privilege (user, groups, securebits, bounding set,\n"
"inheritable and ambient capabilities, no_new_privs), environment, umask,\n"
"directory and resource limits to this process, then execute its command,\n"
"or CMD.  Keys are those of service files (capinit.svc(5)).  Any failure\n"
"stops before exec, names the stage, and exits non-zero.\n"
"\n"
"  -f FILE   read the keys from a service file\n"
"  -k K=V    one key (repeatable)\n"
"  -h, --help, -V, --version\n"
"\n"
"Exit status: 100 usage or invalid spec, 111 setup, 112 ids, 113 capabilities,\n"
"114 securebits or no_new_privs, 126 cannot execute, 127 not found.\n"
"See capexec(8).\n", stdout);
}

static void print_diags(diag_list *d)
{
  diag_sort(d);
  diag_print(d, "capexec", 2);
}

#ifdef PRIV_FAULT
static void fault_from_env(void)
{
  char const *want = getenv("CAPINIT_FAULT_STAGE");
  int i;
  if (!want) return;
  if (!strcmp(want, "list")) {
    /* the stage table, for tests/system/test_faults.sh */
    for (i = 0; i < STAGE_COUNT; i++) printf("%s %d\n", stage_name(i), stage_exit_status(i));
    exit(0);
  }
  priv_fault_stage = stage_from_name(want);
  if (priv_fault_stage < 0) strerr_dief3x(100, "unknown stage '", want, "' in CAPINIT_FAULT_STAGE");
}
#endif

static void die_at(svc const *s, char **cmd, priv_fail const *f) __attribute__((noreturn));
static void die_at(svc const *s, char **cmd, priv_fail const *f)
{
  char what[512];
  errno = f->err;
  if (f->stage == STAGE_EXEC) snprintf(what, sizeof what, "execute %s", cmd[0]);
  else priv_fail_describe(f, s, what, sizeof what);
  strerr_diefu4sys(priv_fail_exit_code(f), what, " (stage ", stage_name(f->stage), ")");
}

/* The reaper's copy of capexec holds its caller's environment and its
 * options (the strings before the command): zeroed there.  The spec the
 * options made (and the command's envp points into) stays. */
static char **options_begin, **options_end;

static void reaper_scrub(void *unused)
{
  char **p;
  (void)unused;
  for (p = environ; p && *p; p++) reaper_wipe(*p);
  for (p = options_begin; p < options_end; p++) reaper_wipe(*p);
}

/* private-pids: the command runs under a reaper, the first process of a
 * new PID namespace (engine/reaper.h); capexec waits for it, as
 * unshare --fork does, passes on every signal it gets to the command, and
 * ends as the command ended (its exit status, or its signal). */
static void pidns_main(svc const *s, char **cmd, char **env) __attribute__((noreturn));
static void pidns_main(svc const *s, char **cmd, char **env)
{
  sigset_t all;
  reaper_report r;
  priv_fail f;
  int rep[2];
  pid_t pid;
  ssize_t n;

  sigfillset(&all);
  sigprocmask(SIG_SETMASK, &all, 0);
  if (pipe2(rep, O_CLOEXEC) < 0) strerr_diefu1sys(111, "create a pipe");
  pid = reaper_fork();
  if (pid < 0) {
    f.stage = STAGE_NAMESPACES;
    f.err = errno;
    f.arg = -1;
    die_at(s, cmd, &f);
  }
  if (pid == 0) {
    close(rep[0]);
    if (priv_apply(s, 0, priv_last_cap(), &f) < 0) reaper_fail(rep[1], &f);
    reaper_run(cmd, env, rep[1], -1, reaper_scrub, 0);
  }
  close(rep[1]);
  while ((n = read(rep[0], &r, sizeof r)) < 0 && errno == EINTR) ;
  if (n == (ssize_t)sizeof r && r.kind == REAPER_FAILED) {
    waitpid(pid, 0, 0);
    die_at(s, cmd, &r.f);
  }
  if (n != (ssize_t)sizeof r) strerr_dief1x(111, "the reaper of the new PID namespace ended without a word");
  for (;;) {
    siginfo_t si;
    int sig = sigwaitinfo(&all, &si), st;
    if (sig < 0) continue;
    if (sig != SIGCHLD) {
      sigqueue(pid, sig, (union sigval){ .sival_int = REAPER_SIGNAL_MAIN });
      continue;
    }
    if (waitpid(pid, &st, WNOHANG) != pid) continue;
    if (read(rep[0], &r, sizeof r) == (ssize_t)sizeof r && r.kind == REAPER_EXITED) st = r.status;
    if (WIFSIGNALED(st)) {
      signal(WTERMSIG(st), SIG_DFL);
      sigprocmask(SIG_UNBLOCK, &all, 0);
      kill(getpid(), WTERMSIG(st));
    }
    _exit(WIFEXITED(st) ? WEXITSTATUS(st) : 111);
  }
}

/* The options: -f FILE (returned) or -k key=value (into pairs); -h and
 * -V answer and exit. */
static char const *options(int argc, char **argv, char const **pairs, size_t *npairs)
{
  char const *file = 0;
  int c;
  while ((c = getopt(argc, argv, "+f:k:hV")) != -1) {
    switch (c) {
      case 'f':
        if (file) strerr_dief1x(100, "-f given twice");
        file = optarg;
        break;
      case 'k': pairs[(*npairs)++] = optarg; break;
      case 'h': help(); exit(0);
      case 'V': puts("capexec " CAPINIT_VERSION); exit(0);
      default: strerr_dieusage(100, USAGE);
    }
  }
  if (file && *npairs) strerr_dief1x(100, "use -f FILE or -k key=value, not both");
  if (!file && !*npairs) strerr_dieusage(100, USAGE);
  return file;
}

int main(int argc, char **argv)
{
  char const *file;
  char const **pairs;
  size_t npairs = 0;
  diag_list diags = { 0, 0, 0 };
  /* live: warn when the spec names a capability this process's bounding
   * set lacks (it could not be given back) */
  conf_ctx ctx = { .root = "/", .diags = &diags, .command_optional = 1, .live = 1 };
  char **cmd, **env;
  priv_fail f;
  svc *s;

  xalloc_name(PROG);
  if (argc > 1 && (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h"))) {
    help();
    return 0;
  }
  if (argc > 1 && (!strcmp(argv[1], "--version") || !strcmp(argv[1], "-V"))) {
    puts("capexec " CAPINIT_VERSION);
    return 0;
  }
  /* until the exec, this memory holds the caller's environment: only
   * cap_sys_ptrace may read it, not a process of the command's uid and
   * capabilities (the command's exec makes its own memory dumpable) */
  prctl(PR_SET_DUMPABLE, 0, 0, 0, 0);
#ifdef PRIV_FAULT
  fault_from_env();
#endif
  filter_configure();
  pairs = calloc((size_t)argc + 1, sizeof *pairs);
  if (!pairs) strerr_diefu1sys(111, "allocate memory");
  file = options(argc, argv, pairs, &npairs);
  cmd = argv + optind;
  options_begin = argv;
  options_end = cmd;

  s = file ? svc_load_file(&ctx, file) : svc_load_pairs(&ctx, "-k", pairs, npairs);
  print_diags(&diags);
  if (s->refused) strerr_dief1x(100, "invalid spec: nothing executed");
  if (!*cmd) {
    if (!s->argv) strerr_dief1x(100, "no command: give 'command' or -- CMD ARGS");
    cmd = s->argv;
  } else if (cmd[0][0] != '/') {
    strerr_dief3x(100, "the program must be an absolute path (there is no PATH search): '", cmd[0], "'");
  }
  env = priv_environment(s, 0);
  if (!env) strerr_diefu1sys(111, "allocate memory");

  /* a chain-loader: no new session; directory and umask only when set */
  if (container_own_pids(s->ct)) pidns_main(s, cmd, env);
  priv_exec(s, PRIV_SIGNALS, priv_last_cap(), cmd, env, &f);
  die_at(s, cmd, &f);
}

/* capctl/capctl.c -- capinit's control and inspection command.
 *
 * Exit codes: 0 success; 1 check found problems; 100 wrong usage;
 * 111 a system call failed (a directory could not be read...). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <skalibs/strerr.h>

#include "../conf/diag.h"
#include "../conf/state_guard.h"
#include "../conf/svc.h"
#include "../conf/xalloc.h"
#include "capctl.h"
#include "capctl_args.h"
#include "../conf/control_verbs.h"

char const *PROG = "capctl";

#define USAGE "capctl check [-R ROOT] [-r DIR] [-c DIR | FILE...]"

/* what help() prints */
static char const help_text[] =
"usage: capctl [OPTIONS] VERB [OPTIONS] [ARGS...]\n"
"\n"
"Live (talk to a running capinit; -r DIR or $CAPINIT_RUNDIR names its\n"
"runtime directory, default /run/capinit):\n"
"  status [--json] [NAME...]  state, pid, restarts, and the live credentials\n"
"                             of each service; exit 3 unless all are up\n"
"  start NAME...              start (with what they depend on)\n"
"  stop NAME...               stop (with what depends on them)\n"
"  restart NAME...            stop and start again\n"
"  signal SIG NAME...         send SIG (TERM, HUP, USR1...) to the command\n"
"  reload                     reread the configuration directory\n"
"  log [-n N] [-f] NAME       the last N lines of the service's log; -f follows\n"
"  verify [-p] [NAME...]      compare the credentials of every process of each\n"
"                             running service (/proc) with explain's\n"
"                             prediction: ok, dropped (holds less) or differs\n"
"                             (holds more: exit 1); -p: one line per process\n"
"  blame [--json]             each service's spawn and ready times and the\n"
"                             boot's phases, longest first\n"
"  poweroff | reboot | halt   stop every service, then power off, reboot or\n"
"                             halt (capinit as PID 1) or exit (otherwise)\n"
"\n"
"Offline (no capinit needs to run):\n"
"  check [-R ROOT] [-r DIR] [-c DIR]\n"
"                             validate DIR/capinit.conf and DIR/services/*.svc\n"
"  check [-R ROOT] [-r DIR] FILE...\n"
"                             validate service files (their siblings are read\n"
"                             to resolve dependencies)\n"
"  explain [--json] [-c DIR] NAME|FILE... [-- CMD]\n"
"  explain [--json] -k key=value... [--] CMD [ARGS]\n"
"                             predict each service's credentials after exec\n"
"                             (ids, securebits, capability sets, AT_SECURE)\n"
"                             and say in words what it can do\n"
"  import [-R ROOT] [-o DIR] [--allow-weaker] UNIT...\n"
"                             systemd units into DIR/NAME.svc (default .),\n"
"                             never with more privilege; a report of what\n"
"                             changed, as UNIT:LINE: warning|error: text\n"
"  learn [--time S] [--check CMD] FILE.svc\n"
"                             run the service traced, propose mode = noroot\n"
"                             and the capabilities the kernel granted it;\n"
"                             --check proves each one needed\n"
"\n"
"Options (before or after the verb):\n"
"  -r DIR    capinit's runtime directory (default /run/capinit); check:\n"
"            the one no service may write\n"
"  -c DIR    configuration directory (default /etc/capinit)\n"
"  -R ROOT   check: look users and groups up in ROOT/etc/passwd and\n"
"            ROOT/etc/group, to check an image's configuration (default /);\n"
"            import: read units, environment files and users from ROOT\n"
"  -o DIR    import: where the service files go (default .)\n"
"  --allow-weaker  import: convert a unit even where capinit cannot make\n"
"            one of its restrictions (a warning instead of a refusal)\n"
"  -k K=V    explain: one key of a spec, as capexec -k\n"
"  -h, --help      this text\n"
"  -V, --version   print the version\n"
"\n"
"check prints every problem on standard output, as\n"
"capctl: FILE:LINE: error: message (or warning:).\n"
"Exit status: 0 success; 1 check found problems, explain predicts a refused\n"
"launch, verify found a difference, or capinit answered with an error; 3\n"
"status: a service is not up; 100 wrong usage; 111 a system call failed (the\n"
"services directory unreadable, capinit not reachable).\n"
"See capctl(8), capinit(8) and capinit.svc(5).\n";

static void help(void)
{
  fputs(help_text, stdout);
}

static int is_named(char *const *files, size_t n, char const *path)
{
  size_t i;
  for (i = 0; i < n; i++)
    if (!strcmp(files[i], path)) return 1;
  return 0;
}

/* Load the *.svc files beside each named file as context, quietly: a
 * dependency names a service of the same directory. */
static void load_siblings(conf_ctx *quiet, svc_set *set, char *const *files, size_t n)
{
  size_t i, j;
  for (i = 0; i < n; i++) {
    char dir[4096];
    char const *slash = strrchr(files[i], '/');
    svc_set more = { 0, 0 };
    if (!slash) snprintf(dir, sizeof dir, ".");
    else if (slash == files[i]) snprintf(dir, sizeof dir, "/");
    else snprintf(dir, sizeof dir, "%.*s", (int)(slash - files[i]), files[i]);
    if (svc_set_load_services(quiet, &more, dir) < 0) continue;
    for (j = 0; j < more.n; j++) {
      if (svc_set_find(set, more.v[j]->name)) {
        svc_free(more.v[j]);
        continue;
      }
      set->v = realloc(set->v, (set->n + 1) * sizeof *set->v);
      if (!set->v) strerr_diefu1sys(111, "allocate memory");
      set->v[set->n++] = more.v[j];
    }
    free(more.v);
  }
}

/* DIR's capinit.conf (its group names are checked), into conf */
static void load_conf(conf_ctx *ctx, capinit_conf *conf, char const *dir)
{
  char path[4096];
  snprintf(path, sizeof path, "%s/capinit.conf", dir);
  capinit_conf_defaults(conf);
  if (access(path, F_OK) == 0 || errno != ENOENT) capinit_conf_load(ctx, conf, path);
}

/* The configuration directory of service files named on the command
 * line: DIR of DIR/services/NAME.svc, as capinit reads them; otherwise
 * capinit's default.  Into buf. */
static char const *files_confdir(char const *file, char *buf, size_t len)
{
  char const *slash = strrchr(file, '/'), *dir;
  size_t n;
  if (!slash) return CAPINIT_CONFDIR_DEFAULT;
  for (dir = slash; dir > file && dir[-1] != '/'; dir--) {}
  if ((size_t)(slash - dir) != 8 || strncmp(dir, "services", 8)) return CAPINIT_CONFDIR_DEFAULT;
  n = (size_t)(dir - file);
  if (n > 1) n--;  /* the '/' before services, unless it is the root */
  if (!n) return ".";
  snprintf(buf, len, "%.*s", (int)n, file);
  return buf;
}

/* The problems of what was asked for (all of DIR, or the FILEs named:
 * their siblings are context), then the summary line.  The errors. */
static size_t check_report(diag_list const *diags, svc_set const *set, int all, char **argv, size_t argc)
{
  diag_list shown = { 0, 0, 0 };
  size_t i, refused = 0, nerr, nwarn;
  for (i = 0; i < diags->n; i++) {
    diag const *d = &diags->v[i];
    if (all || is_named(argv, argc, d->file)) diag_add(&shown, d->level, d->file, d->line, "%s", d->text);
  }
  diag_sort(&shown);
  diag_print(&shown, "capctl", 1);
  for (i = 0; i < set->n; i++)
    refused += set->v[i]->refused && (all || is_named(argv, argc, set->v[i]->file));
  nerr = diag_count(&shown, DIAG_ERROR);
  nwarn = diag_count(&shown, DIAG_WARNING);
  if (nerr || nwarn) {
    fflush(stdout);
    fprintf(stderr, "capctl: %zu error%s, %zu warning%s; %zu service%s refused\n", nerr, nerr == 1 ? "" : "s",
            nwarn, nwarn == 1 ? "" : "s", refused, refused == 1 ? "" : "s");
  }
  diag_free(&shown);
  return nerr;
}

static int check_main(int argc, char **argv)
{
  char const *dir = 0, *root = "/", *rundir = CAPINIT_RUNDIR_DEFAULT;
  char confdir[4096];
  capinit_conf conf;
  capinit_state state;
  diag_list diags = { 0, 0, 0 }, scratch = { 0, 0, 0 };
  conf_ctx ctx = { .root = "/", .diags = &diags, .command_optional = 0, .live = 1 };
  conf_ctx quiet = { .root = "/", .diags = &scratch, .command_optional = 0, .live = 1 };
  svc_set set = { 0, 0 };
  size_t nerr;
  int c;

  while ((c = getopt(argc, argv, "+c:r:R:h")) != -1) {
    switch (c) {
      case 'c': dir = optarg; break;
      case 'r': rundir = optarg; break;
      case 'R': root = optarg; break;
      case 'h': help(); return 0;
      default: strerr_dieusage(100, USAGE);
    }
  }
  argc -= optind;
  argv += optind;
  if (dir && argc) strerr_dief1x(100, "check takes -c DIR or FILE arguments, not both");
  if (!root[0]) strerr_dief1x(100, "-R needs a directory");
  ctx.root = quiet.root = root;
  ctx.live = quiet.live = !strcmp(root, "/");
  /* capinit's own paths, as capinit started with -c DIR -r DIR would
   * have them: the services are judged against them */
  if (!dir) dir = argc ? files_confdir(argv[0], confdir, sizeof confdir) : CAPINIT_CONFDIR_DEFAULT;
  load_conf(argc ? &quiet : &ctx, &conf, dir);
  state.confdir = dir;
  state.rundir = rundir;
  state.logdir = conf.log_directory;
  ctx.state = &state;
  if (argc) {
    for (int i = 0; i < argc; i++) svc_set_add_file(&ctx, &set, argv[i]);
    load_siblings(&quiet, &set, argv, (size_t)argc);
  } else if (svc_set_load_dir(&ctx, &set, dir) < 0) {
    strerr_diefu3sys(111, "read directory ", dir, "/services");
  }
  svc_set_validate(&ctx, &set);
  if (ctx.live) explain_check_launch(&diags, &set);
  capinit_conf_free(&conf);
  nerr = check_report(&diags, &set, !argc, argv, (size_t)argc);
  /* a configuration with nothing to check is valid, but not silently:
   * it is what the package installs, and capinit would start nothing */
  if (!argc && !set.n)
    printf("capctl: no service files in %s/services: capinit would start no service"
           " (one NAME.svc file each, capinit.svc(5))\n", dir);
  svc_set_free(&set);
  diag_free(&diags);
  diag_free(&scratch);
  return nerr ? 1 : 0;
}

/* The verbs import and learn are the programs capctl-import and
 * capctl-learn, which capctl does not carry (docs/decisions.md): beside
 * capctl's own file (the build tree, or an installation that puts them
 * together), then PREFIX/lib/capinit for capctl in PREFIX/sbin (make
 * install; the package's /usr/lib/capinit).  argv is the verb's, the verb
 * first; it ends with NULL.  Never returns. */
static void helper_exec(char **argv)
{
  char self[4096], dir[4096], prog[64], paths[2][4200];
  char const *cut;
  ssize_t n = readlink("/proc/self/exe", self, sizeof self - 1);
  size_t i;
  if (n > 0) self[n] = 0;
  else snprintf(self, sizeof self, "%s", "/usr/sbin/capctl");  /* no /proc: the package's */
  snprintf(prog, sizeof prog, "capctl-%s", argv[0]);
  cut = strrchr(self, '/');
  snprintf(dir, sizeof dir, "%.*s", cut ? (int)(cut - self) : 0, self);
  snprintf(paths[0], sizeof paths[0], "%s/%s", dir, prog);
  cut = strrchr(dir, '/');
  snprintf(paths[1], sizeof paths[1], "%.*s/lib/capinit/%s", cut ? (int)(cut - dir) : 0, dir, prog);
  char *verb = argv[0];
  argv[0] = prog;
  for (i = 0; i < 2; i++) {
    execv(paths[i], argv);
    if (errno != ENOENT) strerr_diefu2sys(126, "execute ", paths[i]);
  }
  strerr_dief8x(127, verb, " needs ", prog, " (", paths[0], ", ", paths[1], "): not found");
}

void explain_help(void)
{
  help();
}

int main(int argc, char **argv)
{
  capctl_args a;
  char err[160];
  xalloc_name(PROG);
  if (capctl_args_parse(argc, argv, &a, err, sizeof err) < 0) {
    if (argc < 2) strerr_dieusage(100, "capctl VERB [ARGS...] (capctl --help)");
    strerr_dief1x(100, err);
  }
  /* capctl-import and capctl-learn answer their own --help and --version */
  if (a.verb && (!strcmp(a.verb, "import") || !strcmp(a.verb, "learn"))) helper_exec(a.argv);
  if (a.help || (a.verb && !strcmp(a.verb, "help"))) {
    help();
    return 0;
  }
  if (a.version) {
    puts("capctl " CAPINIT_VERSION);
    return 0;
  }
  if (!strcmp(a.verb, "check")) return check_main(a.argc, a.argv);
  if (!strcmp(a.verb, "explain")) return explain_main(a.argc, a.argv);
  if (control_verb_find(a.verb) || !strcmp(a.verb, "verify")) return live_main(a.argc, a.argv);
  strerr_dief3x(100, "unknown verb '", a.verb, "' (capctl --help lists them)");
}

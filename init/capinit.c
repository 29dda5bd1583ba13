/* init/capinit.c -- main of capinit.
 *
 * As PID 1 of a real machine it boots and shuts the machine down (the
 * PID 1 part); with --container, as PID 1 of a PID namespace (detected:
 * reboot(2) refuses RB_DISABLE_CAD there), or when it is not PID 1 at
 * all, it only supervises: no mounts, no reboot; it
 * becomes a child subreaper when not PID 1 so that every orphan of its
 * services is reaped, and on SIGTERM or SIGINT it stops every service in
 * reverse dependency order and exits 0.
 *
 * With -- CMD (issue 39) it runs CMD beside the services, as tini and
 * dumb-init run their child, and ends when CMD ends (supervise/maincmd.c).
 *
 * Exit codes: 0 stopped cleanly; 100 wrong usage; 111 could not start
 * (control socket, configuration directory...); with CMD, CMD's code. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <sys/reboot.h>

#include "../conf/xalloc.h"
#include "../engine/privilege.h"
#include "../inspect/clock.h"
#include "../supervise/console.h"
#include "../supervise/mkdir_p.h"
#include "../supervise/supervisor.h"
#include "boot.h"
#include "shutdown.h"

/* --help and --version: on fd 1 with write(2), as all of capinit's output
 * (stdio's stdout would bring its buffering code along, for two lines). */
static void say_stdout(char const *s)
{
  size_t len = strlen(s);
  while (len) {
    ssize_t w = write(1, s, len);
    if (w < 0 && errno == EINTR) continue;
    if (w <= 0) return;
    s += w;
    len -= (size_t)w;
  }
}

static void help(void)
{
  say_stdout(
"usage: capinit [--container] [-c DIR] [-r DIR]\n"
"       capinit --container [-c DIR] [-r DIR] [-g] [-e CODE]... -- CMD [ARG]...\n"
"\n"
"Supervise the services of DIR/services/*.svc, each started with exactly\n"
"the privilege its file declares (capinit.svc(5)).\n"
"\n"
"  -c DIR        configuration directory (default /etc/capinit)\n"
"  -r DIR        runtime directory: control socket, notify sockets\n"
"                (default /run/capinit; created if missing)\n"
"  --container   supervise only (no mounts, no reboot), also as PID 1\n"
"  -- CMD ARG... the main command, beside the services: capinit passes the\n"
"                signals it accepts on to it, stops the services when it\n"
"                ends, and exits with its code (128+N: killed by signal N;\n"
"                exec failure 127 not found, 126 other)\n"
"  -g            pass the signals to CMD's process group (tini -g)\n"
"  -e CODE       CMD's exit code CODE becomes 0 (tini -e; repeatable)\n"
"  -h, --help, -V, --version\n"
"\n"
"Supervising (--container, or not PID 1): SIGTERM, SIGINT, SIGUSR1, SIGUSR2\n"
"and SIGPWR stop every service in reverse dependency order, then capinit\n"
"exits 0.  As PID 1 of a machine: SIGTERM and SIGINT reboot, SIGUSR2 and\n"
"SIGPWR power off, SIGUSR1 halts (busybox's reboot, poweroff, halt).\n"
"SIGHUP rereads the configuration.  Control it with capctl(8).  See\n"
"capinit(8).\n");
}

/* capinit's messages and the services with log = console go to fd 2: a
 * full console or pipe must drop them, not stop the loop.  A new open
 * file description of the same file, non-blocking, leaves whoever shares
 * the old one as it was. */
static void stderr_nonblocking(void)
{
  int fd = open("/proc/self/fd/2", O_WRONLY | O_APPEND | O_NONBLOCK | O_NOCTTY);
  if (fd < 0) return;  /* no /proc, or a socket: keep it as it is */
  if (fd != 2) {
    dup2(fd, 2);
    close(fd);
  }
}

#ifndef CLOSE_RANGE_CLOEXEC
#define CLOSE_RANGE_CLOEXEC (1U << 2)
#endif

/* Descriptors capinit inherited (from a shell, a container runtime...)
 * are not the services': close-on-exec, so that no service, whatever its
 * user, gets one. */
static void inherited_cloexec(void)
{
  struct rlimit rl;
  int fd, max = 65536;
  if (syscall(SYS_close_range, 3, ~0U, CLOSE_RANGE_CLOEXEC) == 0) return;
  if (getrlimit(RLIMIT_NOFILE, &rl) == 0 && rl.rlim_cur < (rlim_t)max) max = (int)rl.rlim_cur;
  for (fd = 3; fd < max; fd++) fcntl(fd, F_SETFD, FD_CLOEXEC);
}

static int usage(char const *what, char const *arg)
{
  console_say("capinit: fatal: %s '%s'\ncapinit: usage: capinit [--container] [-c DIR] [-r DIR] "
              "[-g] [-e CODE]... [-- CMD [ARG]...]\n", what, arg);
  return -1;
}

/* -e CODE: 0 to 255, decimal. */
static int exit_code_arg(char const *s)
{
  int n = 0;
  if (!*s || strlen(s) > 3) return -1;
  for (; *s; s++) {
    if (*s < '0' || *s > '9') return -1;
    n = n * 10 + (*s - '0');
  }
  return n > 255 ? -1 : n;
}

/* -1: an argument capinit does not know (said); 1: --help or --version
 * (answered); 0: go on. */
static int arguments(int argc, char **argv, int *container)
{
  int i, options = 0, code;
  sv.confdir = "/etc/capinit";
  sv.rundir = "/run/capinit";
  sv.main.err = -1;
  for (i = 1; i < argc; i++) {
    if (!strcmp(argv[i], "--container")) *container = 1;
    else if (!strcmp(argv[i], "--")) {
      if (i + 1 == argc) return usage("no command after", "--");
      if (!*container) return usage("a main command needs --container:", argv[i + 1]);
      sv.main.argv = argv + i + 1;
      break;
    }
    else if (!strcmp(argv[i], "-g")) sv.main.group = options = 1;
    else if (!strcmp(argv[i], "-e") && i + 1 < argc) {
      if ((code = exit_code_arg(argv[++i])) < 0) return usage("-e: not an exit code from 0 to 255:", argv[i]);
      sv.main.zero[code / 8] |= (unsigned char)(1u << (code % 8));
      options = 1;
    }
    else if (!strcmp(argv[i], "-h") || !strcmp(argv[i], "--help")) { help(); return 1; }
    else if (!strcmp(argv[i], "-V") || !strcmp(argv[i], "--version")) { say_stdout("capinit " CAPINIT_VERSION "\n"); return 1; }
    else if (!strcmp(argv[i], "-c") && i + 1 < argc) sv.confdir = argv[++i];
    else if (!strcmp(argv[i], "-r") && i + 1 < argc) sv.rundir = argv[++i];
    else return usage("unknown argument", argv[i]);
  }
  /* fail closed: -g or -e without CMD would be silently meaningless */
  if (options && !sv.main.argv) return usage("-g and -e need a main command:", "--");
  return 0;
}

/* capinit.conf's settings that PID 1 needs before the supervisor loads it
 * (the emergency shell, the unmount timeout); then the services' directory
 * must be there.  Its problems are said once, when the supervisor loads
 * it: not here. */
static void boot_settings(void)
{
  capinit_conf conf;
  char path[4096];
  diag_list diags = { 0, 0, 0 };
  conf_ctx ctx = { .root = "/", .diags = &diags, .command_optional = 0, .live = 0 };
  capinit_conf_defaults(&conf);
  snprintf(path, sizeof path, "%s/capinit.conf", sv.confdir);
  if (access(path, F_OK) == 0) capinit_conf_load(&ctx, &conf, path);
  diag_free(&diags);
  sv.emergency_shell = conf.emergency_shell;  /* kept: the rest is freed */
  conf.emergency_shell = 0;
  boot_unmount_timeout(conf.unmount_timeout_ms);
  capinit_conf_free(&conf);
  snprintf(path, sizeof path, "%s/services", sv.confdir);
  if (access(path, F_OK) < 0) {
    char why[4200];
    snprintf(why, sizeof why, "no configuration: %s: %s", path, strerror(errno));
    boot_emergency(why, sv.emergency_shell);
  }
}

/* Phase 1 of PID 1 of a machine, each step a boot phase: anything fatal
 * here runs the emergency shell. */
static void boot_machine(void)
{
  char path[4096], why[8800];
  uint64_t t = sv.started_ms;
  boot_mounts();
  boot_phase_done("mounts", t);
  t = now_ms();
  if (boot_console() < 0) boot_emergency("no /dev/console", 0);
  /* RB_DISABLE_CAD is in force: Ctrl-Alt-Del sends SIGINT to PID 1 */
  console_say("capinit %s: booting\n", CAPINIT_VERSION);
  boot_hostname();
  sv.last_cap = priv_last_cap();
  boot_kernel_support();
  boot_settings();
  boot_phase_done("console", t);
  t = now_ms();
  snprintf(path, sizeof path, "%s/modules", sv.confdir);
  boot_modules(path);
  boot_phase_done("modules", t);
  /* after the modules (file systems, disk drivers), before the file
   * capabilities (on a root the fstab may make writable) */
  t = now_ms();
  if (boot_fstab("/etc/fstab", why, sizeof why) < 0) boot_emergency(why, sv.emergency_shell);
  boot_phase_done("fstab", t);
  t = now_ms();
  snprintf(path, sizeof path, "%s/filecaps", sv.confdir);
  boot_filecaps(path);
  boot_phase_done("filecaps", t);
}

/* A subreaper when not PID 1, the descriptor limit raised (the services
 * get back the one capinit started with), the runtime directory. */
static int supervisor_ground(void)
{
  struct rlimit rl;
  if (getpid() != 1 && prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0) < 0) {
    console_say("capinit: fatal: unable to become a child subreaper: %s\n", strerror(errno));
    return -1;
  }
  if (getrlimit(RLIMIT_NOFILE, &rl) == 0) {
    sv.nofile = rl;
    rl.rlim_cur = rl.rlim_max;
    setrlimit(RLIMIT_NOFILE, &rl);
  }
  if (mkdir_p(sv.rundir, 0755) < 0) {
    console_say("capinit: fatal: unable to create %s: %s\n", sv.rundir, strerror(errno));
    if (sv.machine) boot_emergency("no runtime directory", sv.emergency_shell);
    return -1;
  }
  return 0;
}

int main(int argc, char **argv)
{
  int container = 0, rc;

  xalloc_name("capinit");
  rc = arguments(argc, argv, &container);
  if (rc) return rc < 0 ? 100 : 0;
  /* A spawn's child shares capinit's memory from its privilege drop to its
   * exec: a process of the service's uid and capabilities could open its
   * /proc/PID/mem then, and keep reading capinit's memory (every service's
   * environment) after the exec.  Non-dumpable memory needs cap_sys_ptrace
   * to be read; the command's exec gets its own, dumpable again. */
  prctl(PR_SET_DUMPABLE, 0, 0, 0, 0);
  inherited_cloexec();
  /* CMD gets the standard error capinit got, not capinit's non-blocking one */
  if (sv.main.argv) sv.main.err = fcntl(2, F_DUPFD_CLOEXEC, 3);
  sv.started_ms = now_ms();
  sv.control = sv.initctl = -1;
  /* PID 1 of a container: the kernel says so, since reboot(2) outside the
   * initial PID namespace refuses every command but the reboot ones
   * (EINVAL), and without CAP_SYS_BOOT refuses all (EPERM) */
  sv.machine = getpid() == 1 && !container && reboot(RB_DISABLE_CAD) == 0;
  if (sv.machine) boot_machine();
  else sv.last_cap = priv_last_cap();  /* PID 1 of a machine read it before its kernel report */
  stderr_nonblocking();
  if (!(sv.seccomp = filter_configure()))
    console_say("capinit: warning: this kernel has no seccomp: %s\n",
                priv_filter_optional ? "contained services run without their system-call filter (CAPINIT_SECCOMP=if-available)"
                                     : "contained services are refused at stage filter (CAPINIT_SECCOMP=if-available runs them without it)");
  if (supervisor_ground() < 0) return 111;
  rc = supervisor_run();
  if (!sv.machine) {
    console_drain(CONSOLE_DRAIN_MS);
    return rc || !sv.main.argv ? rc : maincmd_exit_code(&sv.main);
  }
  /* phase 2 is over: PID 1 never exits */
  if (rc) boot_emergency("the supervisor could not start", sv.emergency_shell);
  boot_final(sv.action ? sv.action : RB_AUTOBOOT);
}

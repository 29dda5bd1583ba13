/* supervise/supervisor.c -- the event loop, its signals and the boot's
 * phases (loading the configuration is load.c's).
 *
 * One poll() over the signalfd, the control socket and its
 * clients, and each service's log pipe, readiness pipe
 * and notify socket; one deadline, the earliest of all timers.  Nothing
 * wakes the loop when nothing happens. */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/reboot.h>
#include <sys/signalfd.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "../conf/names.h"
#include "../inspect/clock.h"
#include "command.h"
#include "console.h"
#include "control.h"
#include "initctl.h"
#include "load.h"
#include "lookup.h"
#include "log.h"
#include "../conf/state_guard.h"
#include "notify.h"
#include "order.h"
#include "peer.h"
#include "../engine/privilege.h"
#include "service.h"
#include "supervisor.h"
#include "../engine/sysnum.h"

supervisor sv;

void boot_phase_done(char const *name, uint64_t start)
{
  if (sv.nphases == BOOT_PHASES_MAX) return;
  sv.phases[sv.nphases].name = name;
  sv.phases[sv.nphases].start = start;
  sv.phases[sv.nphases++].end = now_ms();
}

static void reap(void)
{
  int status;
  pid_t pid;
  while ((pid = waitpid(-1, &status, WNOHANG)) > 0) {
    service *s;
    if (pid == sv.main.pid) {
      maincmd_ended(&sv.main, status);
      order_shutdown(&sv, 0, "the main command ended");
      continue;
    }
    s = service_by_pid(pid);
    if (!s) continue;  /* an orphan: reaped, nothing more */
    if (s->log.pipe >= 0) log_read(s);
    if (pid == s->pid || pid == s->stop_pid) status = service_command_status(s, status);
    service_event(s, EV_EXITED, status);
    /* a restart now, before the next waitpid() looks at every child */
    service_settle(&sv, s);
  }
}

static void ready_read(service *s)
{
  char buf[256];
  ssize_t r = read(s->ready_pipe, buf, sizeof buf);
  if (r < 0 && (errno == EAGAIN || errno == EINTR)) return;
  if (r > 0 && memchr(buf, '\n', (size_t)r)) service_event(s, EV_READY, 0);
  if (r > 0 && !memchr(buf, '\n', (size_t)r)) return;
  close(s->ready_pipe);  /* ready, or the service closed its fd: done either way */
  s->ready_pipe = -1;
}

/* Which signals order something: reload, or the shutdown (the power
 * group may ask for that one over the control socket too). */
static int is_order(int sig)
{
  return sig == SIGHUP || sig == SIGTERM || sig == SIGINT || sig == SIGUSR1 || sig == SIGUSR2 ||
         sig == SIGPWR;
}

/* An order from a sender that may not give it is said once, naming the
 * sender (the same sender's flood of it is that one line), and dropped. */
static void order_refused(int sig, uint32_t pid, char const *who)
{
  static int last_sig;
  static uint32_t last_pid;
  char const *name = signal_name(sig);
  if (sig == last_sig && pid == last_pid) return;
  last_sig = sig;
  last_pid = pid;
  console_say("capinit: warning: ignored SIG%s from %s: only the kernel, capinit's own power%s may order it "
              "(capinit(8), SIGNALS)\n",
              name ? name : "?", who, sig == SIGHUP ? "" : " or the power group");
}

static void handle_signal(int sig)
{
  switch (sig) {
    case SIGCHLD: reap(); break;
    /* busybox's reboot, poweroff and halt send TERM, USR2 and USR1;
     * Ctrl-Alt-Del sends INT; a power event PWR */
    case SIGTERM: order_shutdown(&sv, RB_AUTOBOOT, sv.machine ? "SIGTERM (reboot)" : "SIGTERM"); break;
    case SIGINT: order_shutdown(&sv, RB_AUTOBOOT, sv.machine ? "SIGINT (reboot)" : "SIGINT"); break;
    case SIGUSR2: order_shutdown(&sv, RB_POWER_OFF, sv.machine ? "SIGUSR2 (power off)" : "SIGUSR2"); break;
    case SIGPWR: order_shutdown(&sv, RB_POWER_OFF, sv.machine ? "SIGPWR (power off)" : "SIGPWR"); break;
    case SIGUSR1: order_shutdown(&sv, RB_HALT_SYSTEM, sv.machine ? "SIGUSR1 (halt)" : "SIGUSR1"); break;
    case SIGHUP:
      console_say("capinit: SIGHUP: reloading %s\n", sv.confdir);
      load_services(&sv, 0);
      break;
    default: break;  /* blocked so that it does nothing (signals_trap) */
  }
}

/* Every signal waiting on the signalfd, each judged by its sender (a
 * SIGCHLD orders nothing: capinit looks at its children itself). */
static void handle_signals(int sigfd)
{
  struct signalfd_siginfo si;
  char who[128];
  while (read(sigfd, &si, sizeof si) == (ssize_t)sizeof si) {
    int sig = (int)si.ssi_signo;
    /* with a main command, every signal capinit accepts is CMD's (the
     * runtime's docker stop, a terminal's SIGWINCH): judged as an order */
    if (sv.main.argv && sig != SIGCHLD) {
      if (peer_of_signal(&si, 1, is_order(sig) && sig != SIGHUP, who, sizeof who)) maincmd_signal(&sv.main, sig);
      else order_refused(sig, si.ssi_pid, who);
      continue;
    }
    if (is_order(sig) && !peer_of_signal(&si, !sv.machine, sig != SIGHUP, who, sizeof who)) {
      order_refused(sig, si.ssi_pid, who);
      continue;
    }
    handle_signal(sig);
  }
}

static int all_down(void)
{
  size_t i;
  for (i = 0; i < sv.n; i++)
    if (!service_is_settled_down(sv.v[i])) return 0;
  return 1;
}

/* Once, when every service that is wanted up first is: the boot-to-ready
 * time on capinit's own clock. */
static void report_ready(void)
{
  size_t i, n = 0, failed = 0;
  for (i = 0; i < sv.n; i++) {
    service const *s = sv.v[i];
    if (!s->wanted_up) continue;
    if (s->state == ST_FAILED) failed++;
    else if (s->state != ST_UP) return;
    n++;
  }
  sv.ready_reported = 1;
  sv.ready_ms = now_ms();
  if (failed)
    console_say("capinit: all %zu services settled %llu ms after capinit started: %zu ready, %zu failed\n",
            n, (unsigned long long)(now_ms() - sv.started_ms), n - failed, failed);
  else
    console_say("capinit: all %zu services ready %llu ms after capinit started\n", n,
            (unsigned long long)(now_ms() - sv.started_ms));
}

/* Every signal gets a deliberate disposition (capinit(8), SIGNALS): a
 * stray signal must not kill or stop the supervisor.  The faults (a real
 * one must not be ignored) keep their default, SIGPIPE is ignored, KILL
 * and STOP cannot be changed; all others are blocked and read from the
 * signalfd, where handle_signals() acts on its seven and drops the rest.
 * Blocked, not ignored: the child's mask reset undoes it, and execve()
 * would keep an ignored disposition. */
static int is_fault_signal(int sig)
{
  return sig == SIGSEGV || sig == SIGBUS || sig == SIGILL || sig == SIGFPE || sig == SIGABRT ||
         sig == SIGTRAP || sig == SIGSYS;
}

/* The signalfd of every blocked signal, or -1. */
static int signals_trap(void)
{
  sigset_t set;
  unsigned long *word = (unsigned long *)(void *)&set;
  unsigned const bits = 8 * sizeof *word;
  int sig;
  sigemptyset(&set);
  /* bit by bit: libc's sigaddset() refuses its own signals (32-34) */
  for (sig = 1; sig < 65; sig++) {
    if (sig == SIGKILL || sig == SIGSTOP || sig == SIGPIPE || is_fault_signal(sig)) continue;
    word[(sig - 1) / bits] |= 1UL << ((sig - 1) % bits);
  }
  /* glibc's sigprocmask() leaves its own signals out of the mask: block
   * them with the system call (musl passes the mask through) */
  if (syscall(SYS_rt_sigprocmask, SIG_BLOCK, &set, 0, 8) < 0) return -1;
  /* blocked, their dispositions do not matter to capinit: SIG_DFL, as
   * documented, whatever the caller ignored (a shell's background job
   * ignores INT and QUIT); then the child has only SIGPIPE to reset.  A
   * zeroed kernel sigaction is SIG_DFL on every architecture. */
  for (sig = 1; sig < 65; sig++) {
    struct k_sigaction dfl;
    if (!(word[(sig - 1) / bits] & (1UL << ((sig - 1) % bits)))) continue;
    memset(&dfl, 0, sizeof dfl);
    if (syscall(SYS_rt_sigaction, sig, &dfl, 0, 8) < 0) return -1;
  }
  if (signal(SIGPIPE, SIG_IGN) == SIG_ERR) return -1;
  /* a signalfd rather than a selfpipe: each signal comes with its sender */
  return (int)syscall(SYS_signalfd4, -1, &set, 8, SFD_NONBLOCK | SFD_CLOEXEC);
}

/* The signals whose disposition is not SIG_DFL in capinit (SIGPIPE, and
 * whatever its caller ignored): the only ones a service's child must
 * reset.  capinit catches none (signalfd). */
static uint64_t non_default_signals(void)
{
  struct k_sigaction sa;
  uint64_t m = 0;
  int sig;
  for (sig = 1; sig < 65; sig++) {
    if (sig == SIGKILL || sig == SIGSTOP) continue;
    /* raw: musl refuses to show its own signals 32 to 34 */
    if (syscall(SYS_rt_sigaction, sig, 0, &sa, sizeof sa.mask) < 0 || sa.handler != SIG_DFL)
      m |= UINT64_C(1) << (sig - 1);
  }
  return m;
}

enum { FD_SELF, FD_CONSOLE, FD_LOG, FD_READY, FD_NOTIFY, FD_CONTROL, FD_INITCTL };

/* What one poll() waits for: pollfds, and for each its kind and service,
 * in one block that holds what is open now (an idle capinit polls few). */
typedef struct pollset_s {
  void *block;
  struct pollfd *p;
  service **who;
  unsigned char *kind;
  size_t cap, n, first_control;
} pollset;

static void pollset_add(pollset *ps, int fd, short events, int kind, service *s)
{
  ps->p[ps->n].fd = fd;
  ps->p[ps->n].events = events;
  ps->kind[ps->n] = (unsigned char)kind;
  ps->who[ps->n++] = s;
}

/* Fill ps for this turn (and the earliest deadline of a service or a
 * client).  -1: out of memory for the arrays. */
static int pollset_build(pollset *ps, int self, uint64_t *deadline)
{
  size_t want = 3 + CONTROL_FDS_MAX, i;
  for (i = 0; i < sv.n; i++)
    want += (sv.v[i]->log.pipe >= 0) + (sv.v[i]->ready_pipe >= 0) + (sv.v[i]->notify_sock >= 0);
  if (want > ps->cap || want < ps->cap / 4) {
    size_t c = want + want / 4;
    void *nb = realloc(ps->block, c * (sizeof *ps->p + sizeof *ps->who + 1));
    if (!nb && want > ps->cap) return -1;
    if (nb) {
      ps->block = nb;
      ps->cap = c;
      ps->p = nb;
      ps->who = (service **)(ps->p + c);
      ps->kind = (unsigned char *)(ps->who + c);
    }
  }
  ps->n = 0;
  pollset_add(ps, self, POLLIN, FD_SELF, 0);
  if (console_fd() >= 0) pollset_add(ps, console_fd(), POLLOUT, FD_CONSOLE, 0);
  if (sv.initctl >= 0) pollset_add(ps, sv.initctl, POLLIN, FD_INITCTL, 0);
  for (i = 0; i < sv.n; i++) {
    service *s = sv.v[i];
    if (s->log.pipe >= 0) pollset_add(ps, s->log.pipe, POLLIN, FD_LOG, s);
    if (s->ready_pipe >= 0) pollset_add(ps, s->ready_pipe, POLLIN, FD_READY, s);
    if (s->notify_sock >= 0) pollset_add(ps, s->notify_sock, POLLIN, FD_NOTIFY, s);
    if (s->deadline && (!*deadline || s->deadline < *deadline)) *deadline = s->deadline;
  }
  ps->first_control = ps->n;
  ps->n += control_fds(ps->p + ps->n, ps->cap - ps->n, deadline);
  for (i = ps->first_control; i < ps->n; i++) {
    ps->kind[i] = FD_CONTROL;
    ps->who[i] = 0;
  }
  return 0;
}

/* What poll() found, but the control socket's (control_handle).  A
 * service's descriptor is checked again: an earlier one of this turn may
 * have closed it. */
static void pollset_dispatch(pollset const *ps)
{
  for (size_t i = 0; i < ps->first_control; i++) {
    service *s = ps->who[i];
    int fd = ps->p[i].fd;
    if (!ps->p[i].revents) continue;
    switch (ps->kind[i]) {
      case FD_SELF: handle_signals(fd); break;
      case FD_CONSOLE: console_flush(); break;
      case FD_INITCTL: initctl_read(fd); break;
      case FD_LOG: if (s->log.pipe == fd) log_read(s); break;
      case FD_READY: if (s->ready_pipe == fd) ready_read(s); break;
      case FD_NOTIFY: if (s->notify_sock == fd && notify_read(s)) service_event(s, EV_READY, 0); break;
    }
  }
}

/* Once the configuration is loaded: the control socket, /run/initctl. */
static int supervisor_open(void)
{
  uint64_t t = now_ms();
  if (load_services(&sv, 1) < 0) return -1;
  if (control_listen() < 0) return -1;
  /* Debian's poweroff, reboot, halt fall back on sysvinit's FIFO */
  sv.initctl = sv.machine ? initctl_open() : -1;
  boot_phase_done("services", t);
  return 0;
}

/* Services' deadlines, their starts and stops, the readiness report, the
 * services a reload removed once they are down. */
static void supervisor_turn(void)
{
  uint64_t now = now_ms();
  size_t i;
  for (i = 0; i < sv.n; i++)
    if (sv.v[i]->deadline && sv.v[i]->deadline <= now) service_event(sv.v[i], EV_TIMEOUT, 0);
  service_settle_all(&sv);
  if (!sv.ready_reported && !sv.shutting_down) report_ready();
  for (i = sv.n; i-- > 0;)
    if (sv.v[i]->removed && service_is_settled_down(sv.v[i])) service_forget(&sv, i);
}

int supervisor_run(void)
{
  pollset ps = { 0, 0, 0, 0, 0, 0, 0 };
  int self = signals_trap();

  if (self < 0) {
    console_say("capinit: fatal: unable to trap signals: %s\n", strerror(errno));
    return 111;
  }
  priv_signals_to_reset = non_default_signals();
  /* the configuration first: it names the socket's control-group */
  if (supervisor_open() < 0) return 111;
  /* before the shield: CMD gets capinit's real and saved uid */
  if (sv.main.argv && maincmd_start(&sv.main) < 0) {
    console_say("capinit: fatal: unable to fork the main command: %s\n", strerror(errno));
    return 111;
  }
  if (peer_shield() < 0 && geteuid() == 0)
    console_say("capinit: warning: unable to take uid 4294967294 as its real and saved uid (%s): every uid 0 "
                "may signal capinit, which judges each sender (capinit(8), SIGNALS)\n", strerror(errno));
  /* a whole turn, not just the starts: services ready at exec are up
   * when it returns, and the readiness report must not wait for an event */
  supervisor_turn();

  while (!(sv.shutting_down && all_down() && !control_asker_waiting() && sv.main.pid <= 0)) {
    uint64_t deadline = 0, now;
    int timeout, r;
    if (pollset_build(&ps, self, &deadline) < 0) {
      console_say("capinit: fatal: out of memory\n");
      peer_unshield();
      return 111;
    }
    now = now_ms();
    timeout = !deadline ? -1 : deadline <= now ? 0 : deadline - now > 86400000u ? 86400000 : (int)(deadline - now);
    r = poll(ps.p, ps.n, timeout);
    if (r < 0 && errno != EINTR) {
      console_say("capinit: warning: poll: %s\n", strerror(errno));
      continue;
    }
    if (r > 0) pollset_dispatch(&ps);
    /* also on a timeout (no revents): a client's deadline is one of the
     * timers, and one left unhandled would make every poll return at once */
    if (r >= 0) control_handle(ps.p + ps.first_control, ps.n - ps.first_control);
    supervisor_turn();
  }
  control_close();
  peer_unshield();
  for (size_t i = 0; i < sv.n; i++) {
    log_close(sv.v[i]);   /* the last lines, even without a newline */
    notify_close(sv.v[i]);
  }
  free(ps.block);
  console_say("capinit: every service is down\n");
  return 0;
}


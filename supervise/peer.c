/* supervise/peer.c -- see peer.h.
 *
 * A process is judged through a pidfd: the connection's own
 * (SO_PEERPIDFD, Linux 6.5), or one opened for the pid the kernel gives
 * (SO_PEERCRED's, a signal's).  Its /proc entry is read, and only then is
 * the pidfd asked whether the process has been reaped (a signal 0
 * through it): a pid is never reused before, so what was read is the
 * process of the pidfd (a zombie too: its credentials stay until it is
 * reaped).
 *
 * While capinit supervises as uid 0, its real and saved uid are
 * SHIELD_UID (peer_shield): the kernel lets a process signal another only
 * when one of its uids is the target's real or saved uid, or when it holds
 * cap_kill over it; no process has that uid, so a uid 0 without cap_kill
 * (a noroot service) can no longer signal capinit at all.  Its effective
 * uid stays 0: files and /proc look the same to it. */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "peer.h"
#include "../engine/sysnum.h"
#include "../inspect/procfs.h"
#include "supervisor.h"

#ifndef SYS_pidfd_send_signal
#define SYS_pidfd_send_signal 424
#endif
#ifndef SI_KERNEL
#define SI_KERNEL 0x80
#endif

/* the highest uid, (uid_t)-2: no service's (capinit(8), SIGNALS) */
#define SHIELD_UID 4294967294u

static uint64_t our_caps;
static struct stat our_userns;
static int shielded;
static int proc_ours;   /* /proc numbers processes as capinit's PID namespace does */

/* What /proc says of one process. */
typedef struct facts_s {
  char status[4096];
  uid_t ruid, euid;
  uint64_t caps;             /* CapEff */
  int in_our_userns;
  unsigned long long start;  /* clock ticks after boot */
} facts;

static int hex_field(char const *status, char const *key, uint64_t *v)
{
  char text[32], *end;
  if (procfs_field(status, key, text, sizeof text) < 0) return -1;
  *v = strtoull(text, &end, 16);
  return end == text || *end ? -1 : 0;
}

int peer_init(void)
{
  char status[4096], self[24];
  ssize_t n = readlink("/proc/self", self, sizeof self - 1);
  if (procfs_read(0, "status", status, sizeof status) < 0 ||
      hex_field(status, "CapEff", &our_caps) < 0 || stat("/proc/self/ns/user", &our_userns) < 0)
    return -1;
  self[n > 0 ? n : 0] = 0;
  proc_ours = strtol(self, 0, 10) == (long)getpid();
  return 0;
}

/* The pid of pidfd in capinit's /proc (fdinfo's "Pid:"): 0 when it has
 * none there (another PID namespace), -1 once it has been reaped. */
static pid_t pidfd_pid(int pidfd)
{
  char name[40], buf[512], pid[24];
  snprintf(name, sizeof name, "fdinfo/%d", pidfd);
  if (procfs_read(0, name, buf, sizeof buf) < 0 || procfs_field(buf, "Pid", pid, sizeof pid) < 0) return -1;
  return (pid_t)strtol(pid, 0, 10);
}

/* Not reaped yet (a zombie is not): its pid is still its own. */
static int unreaped(int pidfd)
{
  return syscall(SYS_pidfd_send_signal, pidfd, 0, 0, 0) == 0;
}

/* The start time, field 22 of /proc/PID/stat, counted after the
 * command's ")". */
static int start_time(pid_t pid, unsigned long long *start)
{
  char buf[1024], *p;
  int field;
  if (procfs_read(pid, "stat", buf, sizeof buf) < 0 || !(p = strrchr(buf, ')'))) return -1;
  for (field = 2; field < 22 && p; field++) p = strchr(p + 1, ' ');
  if (!p) return -1;
  *start = strtoull(p + 1, 0, 10);
  return 0;
}

/* The real and effective ids of a "Uid:" or "Gid:" line (no sscanf: its
 * code would be most of this file's weight in a static capinit). */
static int ids(char const *status, char const *key, unsigned *real, unsigned *eff)
{
  char text[96], *end;
  if (procfs_field(status, key, text, sizeof text) < 0) return -1;
  *real = (unsigned)strtoul(text, &end, 10);
  if (end == text || *end != ' ') return -1;
  *eff = (unsigned)strtoul(end + 1, &end, 10);
  return *end == ' ' || !*end ? 0 : -1;
}

enum { FACTS_OK = 0, FACTS_UNSEEN = -1, FACTS_GONE = -2 };

/* Fill f for the process of pidfd, whose pid the kernel said was pid in
 * capinit's PID namespace (0: unknown), and its start time when start is
 * set: FACTS_OK; FACTS_GONE when it was reaped before everything was
 * read (what was read may then be another process's: a pid is reused only
 * once reaped); FACTS_UNSEEN when it has no entry in capinit's /proc
 * (another PID namespace) or could not be read. */
static int facts_of(int pidfd, pid_t pid, facts *f, int start)
{
  char path[40];
  struct stat ns;
  unsigned ruid, euid;
  int ok;
  if (!proc_ours || pid <= 0) pid = pidfd_pid(pidfd);
  if (pid < 0) return FACTS_GONE;
  if (pid == 0) return FACTS_UNSEEN;
  ok = procfs_read(pid, "status", f->status, sizeof f->status) > 0 && ids(f->status, "Uid", &ruid, &euid) == 0 &&
       hex_field(f->status, "CapEff", &f->caps) == 0;
  snprintf(path, sizeof path, "/proc/%d/ns/user", (int)pid);
  ok = ok && stat(path, &ns) == 0 && (!start || start_time(pid, &f->start) == 0);
  if (!unreaped(pidfd)) return FACTS_GONE;
  if (!ok) return FACTS_UNSEEN;
  f->ruid = ruid;
  f->euid = euid;
  f->in_our_userns = ns.st_dev == our_userns.st_dev && ns.st_ino == our_userns.st_ino;
  return FACTS_OK;
}

/* capinit's own power: euid 0 in capinit's user namespace with every
 * capability capinit holds. */
static int powerful(facts const *f)
{
  return f->in_our_userns && f->euid == 0 && (our_caps & ~f->caps) == 0;
}

/* Now in /proc's clock ticks after boot: USER_HZ, 100 on every
 * architecture (sysconf(_SC_CLK_TCK) would weigh more than it says). */
#define USER_HZ 100ull

static unsigned long long boot_ticks(void)
{
  struct timespec ts;
  clock_gettime(CLOCK_BOOTTIME, &ts);
  return (unsigned long long)ts.tv_sec * USER_HZ + (unsigned long long)ts.tv_nsec / (1000000000ull / USER_HZ);
}

/* The pidfd of the connection's peer.  Without SO_PEERPIDFD (before 6.5:
 * ENOPROTOOPT, the only error that means so; any other is a peer that
 * has gone) it is opened for SO_PEERCRED's pid, which may have been
 * reused by then: *exact says which. */
static int socket_pidfd(int fd, pid_t pid, int *exact)
{
  int pidfd;
  socklen_t len = sizeof pidfd;
  *exact = 1;
  if (getsockopt(fd, SOL_SOCKET, SO_PEERPIDFD, &pidfd, &len) == 0) return pidfd;
  if (errno != ENOPROTOOPT) return -1;
  *exact = 0;
  if (pid <= 0) return -1;
  return (int)syscall(SYS_pidfd_open, pid, 0);
}

static int socket_in_group(int fd, struct ucred const *cred, gid_t g)
{
  gid_t groups[256];
  socklen_t glen = sizeof groups;
  size_t i;
  if (cred->gid == g) return 1;
  if (getsockopt(fd, SOL_SOCKET, SO_PEERGROUPS, groups, &glen) < 0) return 0;
  for (i = 0; i < glen / sizeof groups[0]; i++)
    if (groups[i] == g) return 1;
  return 0;
}

int peer_of_socket(int fd, peer_rights *r)
{
  struct ucred cred;
  socklen_t len = sizeof cred;
  unsigned long long accepted = boot_ticks();
  int pidfd, exact;
  facts f;
  if (getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &cred, &len) < 0) return -1;
  r->may_read = cred.uid == 0 || (sv.conf.control_group_set && socket_in_group(fd, &cred, sv.conf.control_gid));
  r->may_read_files = cred.uid == 0;
  r->may_power = sv.conf.power_group_set && socket_in_group(fd, &cred, sv.conf.power_gid);
  r->may_change = 0;
  if (cred.uid != 0 || (pidfd = socket_pidfd(fd, cred.pid, &exact)) < 0) return 0;
  /* a pidfd opened late is the connecting process only if that process
   * started before the connection was accepted */
  if (facts_of(pidfd, cred.pid, &f, !exact) == FACTS_OK && (exact || f.start <= accepted))
    r->may_change = (unsigned char)powerful(&f);
  close(pidfd);
  return 0;
}

static int status_in_group(char const *status, gid_t g)
{
  char text[1024], *p, *end;
  unsigned rgid, egid;
  if (ids(status, "Gid", &rgid, &egid) == 0 && egid == g) return 1;
  if (procfs_field(status, "Groups", text, sizeof text) < 0) return 0;
  for (p = text; *p; p = end) {
    unsigned long v = strtoul(p, &end, 10);
    if (end == p) return 0;
    if (v == g) return 1;
  }
  return 0;
}

int peer_of_signal(struct signalfd_siginfo const *si, int container, int power_verb, char *who, size_t len)
{
  int pidfd, r, ok = 0;
  facts f;
  if (si->ssi_code == SI_KERNEL) {
    snprintf(who, len, "the kernel");
    return 1;
  }
  /* the kernel fills in the sender of kill() and tgkill() itself; any
   * other code (sigqueue's) carries the pid and uid its sender chose */
  if (si->ssi_code != SI_USER && si->ssi_code != SI_TKILL) {
    snprintf(who, len, "a sender that named itself pid %u (uid %u, code %d)", si->ssi_pid, si->ssi_uid,
             si->ssi_code);
    return 0;
  }
  if (si->ssi_pid == 0) {
    snprintf(who, len, "a process outside capinit's PID namespace (uid %u)", si->ssi_uid);
    return container;
  }
  snprintf(who, len, "pid %u (uid %u)", si->ssi_pid, si->ssi_uid);
  pidfd = (int)syscall(SYS_pidfd_open, (pid_t)si->ssi_pid, 0);
  r = pidfd < 0 ? (errno == ESRCH ? FACTS_GONE : FACTS_UNSEEN) : facts_of(pidfd, (pid_t)si->ssi_pid, &f, 0);
  if (pidfd >= 0) close(pidfd);
  /* the pid is the sender's only while its real uid is the one it sent with */
  if (r == FACTS_OK && f.ruid == si->ssi_uid)
    ok = powerful(&f) || (power_verb && sv.conf.power_group_set && status_in_group(f.status, sv.conf.power_gid));
  /* reaped before capinit could look (busybox's reboot does not wait):
   * under the shield, the kernel let it signal capinit only with cap_kill */
  if (r == FACTS_GONE && shielded) {
    snprintf(who, len, "pid %u (uid %u), ended before capinit looked: cap_kill let it send", si->ssi_pid,
             si->ssi_uid);
    ok = 1;
  }
  return ok;
}

int peer_shield(void)
{
  if (geteuid() != 0 || setresuid(SHIELD_UID, 0, SHIELD_UID) < 0) return -1;
  shielded = 1;
  return 0;
}

void peer_unshield(void)
{
  if (shielded && setresuid(0, 0, 0) == 0) shielded = 0;
}

/* init/shutdown.c -- the end of a machine, once the supervisor has
 * stopped every service (or the emergency shell was told to leave):
 *
 *   1. SIGTERM and SIGCONT to every process left, up to 2 s for them to
 *      end; SIGKILL, up to 1 s;
 *   2. swapoff every swap area of /proc/swaps;
 *   3. unmount every file system in the reverse order of
 *      /proc/self/mountinfo, but the root and the API file systems (see
 *      api_mount); detach every loop device no one holds; again, as long
 *      as a round frees something (a loop device's backing file keeps its
 *      file system busy until the loop device is detached);
 *   4. remount read-only what stays busy, then the root;
 *   5. sync;
 *   6. reboot(2).
 *
 * Every system call of 2 to 5 is made by a child that PID 1 waits for
 * (init/step.c), for at most unmount-timeout without write-back progress:
 * a dead disk or server costs that long, and then PID 1 goes on (an
 * unmount that does not finish is replaced by a lazy one, MNT_DETACH).
 * Each step says what it did on the console, "capinit: ...". */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mount.h>
#include <sys/reboot.h>
#include <sys/stat.h>
#include <sys/swap.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include <linux/loop.h>

#include "../conf/fstab.h"
#include "../inspect/clock.h"
#include "../inspect/file.h"
#include "../inspect/mountinfo.h"
#include "boot.h"
#include "shutdown.h"
#include "step.h"
#include "../supervise/console.h"

#ifndef UMOUNT_NOFOLLOW
#define UMOUNT_NOFOLLOW 8
#endif
/* rounds of unmounting and loop detaching: each must free something */
#define ROUNDS_MAX 16
/* mounts whose unmount and lazy unmount both hung: not tried again */
#define STUCK_MAX 64

static unsigned step_ms = 10000;

void boot_unmount_timeout(unsigned ms)
{
  step_ms = ms ? ms : 1;
}

/* ------------------------------------------------------------ processes */

/* Reap for up to ms; 1 when no child is left (every process is gone:
 * orphans are PID 1's children), 0 otherwise. */
static int reap_for(unsigned ms)
{
  uint64_t end = now_ms() + ms;
  for (;;) {
    sigset_t set;
    struct timespec left;
    uint64_t now;
    pid_t p;
    while ((p = waitpid(-1, 0, WNOHANG)) > 0) ;
    if (p < 0 && errno == ECHILD) return 1;
    now = now_ms();
    if (now >= end) return 0;
    left.tv_sec = (time_t)((end - now) / 1000);
    left.tv_nsec = (long)((end - now) % 1000) * 1000000L;
    sigemptyset(&set);
    sigaddset(&set, SIGCHLD);
    sigtimedwait(&set, 0, &left);
  }
}

static void kill_everything(void)
{
  console_say("capinit: sending SIGTERM to every process left\n");
  kill(-1, SIGTERM);
  kill(-1, SIGCONT);
  reap_for(2000);
  console_say("capinit: sending SIGKILL to every process left\n");
  kill(-1, SIGKILL);
  if (!reap_for(1000))
    console_say("capinit: warning: processes are left after SIGKILL (blocked in the kernel?): going on\n");
}

/* ------------------------------------------------------------ the steps */

static int do_umount(void const *p) { return umount2(p, UMOUNT_NOFOLLOW) < 0 ? errno : 0; }
static int do_detach(void const *p) { return umount2(p, MNT_DETACH | UMOUNT_NOFOLLOW) < 0 ? errno : 0; }
static int do_swapoff(void const *p) { return swapoff(p) < 0 ? errno : 0; }
static int do_sync(void const *p) { (void)p; sync(); return 0; }

static int do_readonly(void const *p)
{
  return mount(0, p, 0, MS_REMOUNT | MS_RDONLY, 0) < 0 ? errno : 0;
}

static int do_loop_detach(void const *p)
{
  int fd = open(p, O_RDONLY | O_CLOEXEC), r = 0;
  if (fd < 0) return errno;
  if (ioctl(fd, LOOP_CLR_FD, 0) < 0) r = errno;
  close(fd);
  return r;
}

static char const *step_error(int r)
{
  return r == STEP_TIMEOUT ? "no progress" : strerror(r);
}

/* ------------------------------------------------------------ swap */

static void swapoff_all(void)
{
  char buf[16384], *line, *save = 0;
  if (file_read("/proc/swaps", buf, sizeof buf) <= 0) return;
  /* "Filename Type Size Used Priority", the file name escaped as in mountinfo */
  line = strtok_r(buf, "\n", &save);
  for (line = strtok_r(0, "\n", &save); line; line = strtok_r(0, "\n", &save)) {
    int e;
    line[strcspn(line, " \t")] = 0;
    if (fstab_unescape(line) < 0 || !*line) continue;
    e = step_run(do_swapoff, line, step_ms, 1);
    if (!e) console_say("capinit: swapoff %s\n", line);
    else console_say("capinit: warning: unable to swapoff %s: %s\n", line, step_error(e));
  }
}

/* ------------------------------------------------------------ unmounting */

/* The API file systems stay: /proc, /sys, /dev, /run and what is mounted
 * below /proc, /sys and /dev (devpts, mqueue, cgroup...).  They have
 * nothing to lose, and PID 1 reads /proc, /sys and the console to the
 * end.  Below /run, a disk (a USB stick in /run/media) is unmounted. */
static int api_mount(char const *p)
{
  static char const *const top[] = { "/proc", "/sys", "/dev", "/run" };
  size_t i;
  for (i = 0; i < sizeof top / sizeof top[0]; i++) {
    size_t n = strlen(top[i]);
    if (!strncmp(p, top[i], n) && (!p[n] || (p[n] == '/' && i < 3))) return 1;
  }
  return 0;
}

static unsigned stuck[STUCK_MAX], nstuck;

/* Not to be unmounted: the root, the API file systems, and a mount on
 * which PID 1 already left a child blocked in the kernel. */
static int kept(mountinfo_entry const *m)
{
  unsigned i;
  for (i = 0; i < nstuck; i++)
    if (stuck[i] == m->id) return 1;
  return !strcmp(m->point, "/") || api_mount(m->point);
}

/* One unmount; a lazy one when it makes no progress.  1 when the mount
 * is gone from the tree. */
static int unmount_one(mountinfo_entry const *m, int *err)
{
  int r = step_run(do_umount, m->point, step_ms, 1);
  *err = r;
  if (!r) {
    console_say("capinit: unmounted %s (%s)\n", m->point, m->type);
    return 1;
  }
  if (r != STEP_TIMEOUT) return 0;
  console_say("capinit: warning: unmounting %s (%s): no progress for %u ms: detaching it (MNT_DETACH), its data may be lost\n",
          m->point, m->type, step_ms);
  r = step_run(do_detach, m->point, step_ms, 0);
  if (!r || r == EINVAL) return 1;  /* EINVAL: the stuck unmount took it out already */
  console_say("capinit: warning: unable to detach %s: %s: left as it is\n", m->point, step_error(r));
  if (nstuck < STUCK_MAX) stuck[nstuck++] = m->id;
  return 0;
}

/* One round over the mounts, newest first.  Returns how many went. */
static unsigned unmount_round(void)
{
  mountinfo_entry *v;
  size_t n, i;
  unsigned gone = 0;
  char *buf = mountinfo_read(0, &v, &n);
  if (!buf) {
    console_say("capinit: warning: unable to read /proc/self/mountinfo: %s\n", strerror(errno));
    return 0;
  }
  for (i = n; i-- > 0;) {
    int err;
    if (!kept(&v[i])) gone += (unsigned)unmount_one(&v[i], &err);
  }
  free(v);
  free(buf);
  return gone;
}

/* Detach every loop device whose backing file no one else holds (the
 * kernel defers the others: LO_FLAGS_AUTOCLEAR).  Returns how many. */
static unsigned detach_loops(int report_busy)
{
  DIR *d = opendir("/sys/block");
  struct dirent *e;
  unsigned gone = 0;
  if (!d) return 0;
  while ((e = readdir(d))) {
    char sys[300], dev[300], backing[4096];
    int err;
    if (strncmp(e->d_name, "loop", 4)) continue;
    snprintf(sys, sizeof sys, "/sys/block/%s/loop/backing_file", e->d_name);
    if (file_read(sys, backing, sizeof backing) < 0) {
      if (errno == ENOENT) continue;  /* not bound to a file */
      backing[0] = 0;
    }
    backing[strcspn(backing, "\n")] = 0;
    snprintf(dev, sizeof dev, "/dev/%s", e->d_name);
    if (report_busy) {
      console_say("capinit: warning: %s (%s) is still in use: the kernel detaches it when it is released\n",
              dev, backing);
      continue;
    }
    err = step_run(do_loop_detach, dev, step_ms, 1);
    if (err) {
      console_say("capinit: warning: unable to detach %s (%s): %s\n", dev, backing, step_error(err));
    } else if (access(sys, F_OK) < 0) {
      console_say("capinit: detached %s (%s)\n", dev, backing);
      gone++;
    }
  }
  closedir(d);
  return gone;
}

static void remount_readonly(char const *point, char const *type)
{
  int r = step_run(do_readonly, point, step_ms, 1);
  if (!r) console_say("capinit: remounted %s read-only\n", point);
  else console_say("capinit: warning: unable to remount %s (%s) read-only: %s\n", point, type, step_error(r));
}

/* What stays busy after the rounds: one more try for its error, then
 * read-only; the root last. */
static void readonly_what_stays(void)
{
  mountinfo_entry *v;
  size_t n, i;
  char *buf = mountinfo_read(0, &v, &n);
  if (!buf) return;
  for (i = n; i-- > 0;) {
    int err;
    if (kept(&v[i]) || unmount_one(&v[i], &err)) continue;
    if (err != STEP_TIMEOUT)
      console_say("capinit: warning: unable to unmount %s (%s): %s\n", v[i].point, v[i].type, step_error(err));
    if (!kept(&v[i])) remount_readonly(v[i].point, v[i].type);
  }
  for (i = 0; i < n; i++)
    if (!strcmp(v[i].point, "/")) break;
  remount_readonly("/", i < n ? v[i].type : "root");
  free(v);
  free(buf);
}

static void unmount_everything(void)
{
  unsigned round;
  for (round = 0; round < ROUNDS_MAX; round++) {
    unsigned gone = unmount_round();
    gone += detach_loops(0);
    if (!gone) break;
  }
  detach_loops(1);
  readonly_what_stays();
}

/* ------------------------------------------------------------ the end */

void boot_final(int how)
{
  char const *what = how == (int)RB_POWER_OFF ? "power off" : how == (int)RB_HALT_SYSTEM ? "halt" : "reboot";
  sigset_t set;
  int r;
  sigemptyset(&set);
  sigaddset(&set, SIGCHLD);
  sigprocmask(SIG_BLOCK, &set, 0);
  kill_everything();
  swapoff_all();
  unmount_everything();
  r = step_run(do_sync, 0, step_ms, 1);
  if (r) console_say("capinit: warning: sync: %s for %u ms: going on\n", step_error(r), step_ms);
  else console_say("capinit: synced\n");
  console_say("capinit: %s\n", what);
  console_drain(CONSOLE_DRAIN_MS);
  reboot(how);
  /* only a kernel refusal gets here: PID 1 must not exit */
  console_say("capinit: fatal: reboot(2) failed: %s\n", strerror(errno));
  for (;;) pause();
}

/* rootfs/lockdown.c -- the appliance's lockdown, run once at boot by
 * lockdown.svc (uid 0, noroot, cap_sys_admin only), installed as
 * /usr/libexec/appliance/lockdown.
 *
 * The kernel's uid-0 checks on /proc/sys and /sys are not capability
 * checks: a uid 0 without capabilities could still write core_pattern or
 * uevent_helper, and make the kernel run a program as full root.  So
 * /proc/sys, /proc/sysrq-trigger, /proc/irq and /sys are read-only for
 * everyone, /tmp is a tmpfs, and nobody without cap_sys_admin may make a
 * user namespace.  /etc/fstab does the mounts before any service starts
 * (capinit mounts it, and makes the /sys it mounted itself read-only),
 * and the kernel's command line turns user namespaces off
 * (sysctl.kernel.unprivileged_userns_clone=0): then this only checks.
 * What a changed fstab or command line left out, it does here; what it
 * cannot do, it fails on, exit 1 (the console depends on it and does not
 * start).  A kernel without Debian's sysctl gets user.max_user_namespaces
 * = 0 instead: no user namespace at all, root's included (nothing of the
 * appliance makes one).  Writing it takes cap_sys_resource, which
 * lockdown.svc does not give (the appliance's Debian kernel has its knob):
 * there the kernel's command line sets sysctl.user.max_user_namespaces=0,
 * and this checks it.  Its last line names what it checked, as the kernel
 * reported it, and nothing else.  One process, no shell: each process
 * started costs tens of milliseconds of the boot under TCG. */
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <unistd.h>

#include "capeff.h"

/* Debian's knob: 0 = user namespaces for holders of cap_sys_admin only */
#define USERNS_DEBIAN "/proc/sys/kernel/unprivileged_userns_clone"
/* any kernel's: how many user namespaces (in this one): 0 = none */
#define USERNS_MAX "/proc/sys/user/max_user_namespaces"

static void fatal(char const *fmt, ...) __attribute__((noreturn, format(printf, 1, 2)));
static void fatal(char const *fmt, ...)
{
  va_list ap;
  va_start(ap, fmt);
  fputs("lockdown: fatal: ", stderr);
  vfprintf(stderr, fmt, ap);
  fputc('\n', stderr);
  va_end(ap);
  exit(1);
}

/* Can path be opened for writing?  Nothing is written.  A read-only
 * mount says EROFS to any uid; a file that is not there is not writable. */
static int writable(char const *path)
{
  int fd = open(path, O_WRONLY | O_APPEND | O_CLOEXEC | O_NOCTTY);
  if (fd < 0) return 0;
  close(fd);
  return 1;
}

/* The options ("ro,nosuid...") and type of the last mount on point in
 * /proc/mounts, or "" when nothing is mounted there. */
static void mount_options(char const *point, char *out, size_t len, char *fstype, size_t typelen)
{
  char line[4096], dev[1024], dir[1024], type[64], opts[1024];
  FILE *f = fopen("/proc/mounts", "re");
  *out = *fstype = 0;
  if (!f) fatal("unable to read %s: %s", "/proc/mounts", strerror(errno));
  while (fgets(line, sizeof line, f))
    if (sscanf(line, "%1023s %1023s %63s %1023s", dev, dir, type, opts) == 4 && !strcmp(dir, point)) {
      snprintf(out, len, "%s", opts);
      snprintf(fstype, typelen, "%s", type);
    }
  fclose(f);
}

/* The first line of a sysctl file, or fatal. */
static void read_knob(char const *path, char *out, size_t len)
{
  int fd = open(path, O_RDONLY | O_CLOEXEC);
  ssize_t n = fd < 0 ? -1 : read(fd, out, len - 1);
  if (n < 0) fatal("unable to read %s: %s", path, strerror(errno));
  close(fd);
  out[n] = 0;
  out[strcspn(out, "\n")] = 0;
}

/* User namespaces off: Debian's knob where the kernel has it, else the
 * limit.  Written only when it is not 0 yet, then read back; what was
 * checked goes into said ("kernel.unprivileged_userns_clone = 0"). */
static void userns_off(char *said, size_t len)
{
  int debian = access(USERNS_DEBIAN, F_OK) == 0;
  char const *path = debian ? USERNS_DEBIAN : USERNS_MAX;
  char const *name = debian ? "kernel.unprivileged_userns_clone" : "user.max_user_namespaces";
  char v[32];
  int fd;
  read_knob(path, v, sizeof v);
  if (strcmp(v, "0")) {
    fd = open(path, O_WRONLY | O_CLOEXEC);
    if (fd < 0 || write(fd, "0\n", 2) != 2)
      fatal("unable to write %s (%s = %s): %s: add sysctl.%s=0 to the kernel's command line",
            path, name, v, strerror(errno), name);
    close(fd);
    read_knob(path, v, sizeof v);
  }
  if (strcmp(v, "0"))
    fatal("%s are on (%s = %s): add sysctl.%s=0 to the kernel's command line",
          debian ? "unprivileged user namespaces" : "user namespaces", name, v, name);
  snprintf(said, len, "%s user namespaces (%s = 0)", debian ? "no unprivileged" : "no", name);
}

static void must_mount(char const *src, char const *dst, char const *type, unsigned long flags, char const *data)
{
  if (mount(src, dst, type, flags, data) < 0) fatal("unable to mount %s: %s", dst, strerror(errno));
}

/* What must be read-only, and the file whose write tells: a mount point
 * lockdown binds over itself read-only when the file is writable.  A file
 * the kernel does not have (no magic SysRq) is not claimed checked.  /sys,
 * mounted by capinit, is remounted instead, and checked by its mount
 * options (and uevent_helper's write, where the kernel has one). */
static char const *const ro[][2] = {
  { "/proc/sys", "/proc/sys/kernel/core_pattern" },
  { "/proc/sysrq-trigger", "/proc/sysrq-trigger" },
  { "/proc/irq", "/proc/irq/default_smp_affinity" },
};
#define NRO (sizeof ro / sizeof ro[0])
#define UEVENT_HELPER "/sys/kernel/uevent_helper"

static void append(char *out, size_t len, char const *what)
{
  size_t n = strlen(out);
  snprintf(out + n, len - n, "%s%s", n ? " " : "", what);
}

int main(int argc, char **argv)
{
  char opts[1024], type[64], eff[32], userns[128], done[256] = "", absent[256] = "";
  size_t i;

  if (argc > 1) {
    int help = !strcmp(argv[1], "--help") || !strcmp(argv[1], "-h");
    fprintf(help ? stdout : stderr, "usage: %s (no arguments: run once at boot by lockdown.svc)\n", argv[0]);
    return help ? 0 : 100;
  }
  /* before /proc/sys is read-only */
  userns_off(userns, sizeof userns);
  mount_options("/tmp", opts, sizeof opts, type, sizeof type);
  if (!*opts) must_mount("tmpfs", "/tmp", "tmpfs", MS_NOSUID | MS_NODEV, "mode=1777,size=16m");
  for (i = 0; i < NRO; i++)
    if (writable(ro[i][1])) {
      must_mount(ro[i][0], ro[i][0], 0, MS_BIND, 0);
      must_mount(0, ro[i][0], 0, MS_REMOUNT | MS_BIND | MS_RDONLY, 0);
    }
  mount_options("/sys", opts, sizeof opts, type, sizeof type);
  if (strncmp(opts, "ro,", 3)) must_mount(0, "/sys", 0, MS_REMOUNT | MS_BIND | MS_RDONLY, 0);

  /* the state, as the kernel reports it */
  for (i = 0; i < NRO; i++) {
    if (writable(ro[i][1])) fatal("%s is still writable", ro[i][1]);
    append(access(ro[i][1], F_OK) == 0 ? done : absent, sizeof done, ro[i][0]);
  }
  if (writable(UEVENT_HELPER)) fatal("%s is still writable", UEVENT_HELPER);
  mount_options("/sys", opts, sizeof opts, type, sizeof type);
  if (strncmp(opts, "ro,", 3)) fatal("/sys is still mounted read-write (%s)", opts);
  append(done, sizeof done, "/sys");
  mount_options("/tmp", opts, sizeof opts, type, sizeof type);
  if (!*type) fatal("nothing is mounted on /tmp");
  cap_eff(eff, sizeof eff);
  printf("lockdown: %s read-only%s%s%s, /tmp a %s, %s (CapEff:\t%s)\n", done, *absent ? " (the kernel has no " : "",
         absent, *absent ? ")" : "", type, userns, eff);
  return 0;
}

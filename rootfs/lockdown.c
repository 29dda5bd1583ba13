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
 * start).  One process, no shell: each process started costs tens of
 * milliseconds of the boot under TCG. */
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <unistd.h>

#include "capeff.h"

#define USERNS "/proc/sys/kernel/unprivileged_userns_clone"

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

/* The options of the last mount on point in /proc/mounts ("ro,nosuid..."),
 * or "" when nothing is mounted there. */
static void mount_options(char const *point, char *out, size_t len)
{
  char line[4096], dev[1024], dir[1024], type[64], opts[1024];
  FILE *f = fopen("/proc/mounts", "re");
  *out = 0;
  if (!f) fatal("unable to read %s: %s", "/proc/mounts", strerror(errno));
  while (fgets(line, sizeof line, f))
    if (sscanf(line, "%1023s %1023s %63s %1023s", dev, dir, type, opts) == 4 && !strcmp(dir, point))
      snprintf(out, len, "%s", opts);
  fclose(f);
}

static void must_mount(char const *src, char const *dst, char const *type, unsigned long flags, char const *data)
{
  if (mount(src, dst, type, flags, data) < 0) fatal("unable to mount %s: %s", dst, strerror(errno));
}

int main(int argc, char **argv)
{
  static char const *const ro[][2] = {
    { "/proc/sys", "/proc/sys/kernel/core_pattern" },
    { "/proc/sysrq-trigger", "/proc/sysrq-trigger" },
    { "/proc/irq", "/proc/irq/default_smp_affinity" },
  };
  static char const *const checked[] = {
    "/proc/sys/kernel/core_pattern", "/proc/sysrq-trigger", "/proc/irq/default_smp_affinity",
    "/sys/kernel/uevent_helper",
  };
  char opts[1024], eff[32], userns[16];
  size_t i;
  int fd;
  ssize_t n;

  if (argc > 1) {
    int help = !strcmp(argv[1], "--help") || !strcmp(argv[1], "-h");
    fprintf(help ? stdout : stderr, "usage: %s (no arguments: run once at boot by lockdown.svc)\n", argv[0]);
    return help ? 0 : 100;
  }
  if (writable(USERNS)) {
    fd = open(USERNS, O_WRONLY | O_CLOEXEC);
    if (fd < 0 || write(fd, "0\n", 2) != 2) fatal("unable to write %s: %s", USERNS, strerror(errno));
    close(fd);
  }
  mount_options("/tmp", opts, sizeof opts);
  if (!*opts) must_mount("tmpfs", "/tmp", "tmpfs", MS_NOSUID | MS_NODEV, "mode=1777,size=16m");
  for (i = 0; i < sizeof ro / sizeof ro[0]; i++)
    if (writable(ro[i][1])) {
      must_mount(ro[i][0], ro[i][0], 0, MS_BIND, 0);
      must_mount(0, ro[i][0], 0, MS_REMOUNT | MS_BIND | MS_RDONLY, 0);
    }
  mount_options("/sys", opts, sizeof opts);
  if (strncmp(opts, "ro,", 3)) must_mount(0, "/sys", 0, MS_REMOUNT | MS_BIND | MS_RDONLY, 0);

  /* the state, as the kernel reports it */
  for (i = 0; i < sizeof checked / sizeof checked[0]; i++)
    if (writable(checked[i])) fatal("%s is still writable", checked[i]);
  fd = open(USERNS, O_RDONLY | O_CLOEXEC);
  if (fd >= 0) {
    n = read(fd, userns, sizeof userns - 1);
    close(fd);
    userns[n > 0 ? n : 0] = 0;
    userns[strcspn(userns, "\n")] = 0;
    if (strcmp(userns, "0"))
      fatal("unprivileged user namespaces are on (kernel.unprivileged_userns_clone = %s): add %s to the kernel's command line",
            userns, "sysctl.kernel.unprivileged_userns_clone=0");
  }
  cap_eff(eff, sizeof eff);
  printf("lockdown: /sys /proc/sys /proc/sysrq-trigger /proc/irq read-only, /tmp a tmpfs, no unprivileged user namespaces (CapEff:\t%s)\n",
         eff);
  return 0;
}

/* init/boot.c -- what capinit does as PID 1 of a machine before the
 * supervisor starts (mounts, console, hostname, kernel support, modules,
 * the file-capability manifest), and the emergency shell.  /etc/fstab:
 * init/fstab.c; the shutdown: init/shutdown.c. */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mount.h>
#include <sys/prctl.h>
#include <sys/reboot.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/utsname.h>
#include <sys/wait.h>
#include <sys/xattr.h>
#include <time.h>
#include <unistd.h>
#include <linux/securebits.h>

#include "../conf/filecaps.h"
#include "../supervise/console.h"
#include "../supervise/load.h"
#include "../inspect/file.h"
#include "../supervise/supervisor.h"
#include "boot.h"
#include "shutdown.h"

/* ------------------------------------------------------------ mounts */

/* Is path a mount point?  (Its device differs from its parent's, or it
 * is the root of a bind mount: then /proc/self/mountinfo would tell, but
 * at boot nothing is bind-mounted yet.) */
static int mounted(char const *path)
{
  struct stat a, b;
  char parent[256];
  if (stat(path, &a) < 0) return 0;
  snprintf(parent, sizeof parent, "%s/..", path);
  if (stat(parent, &b) < 0) return 0;
  return a.st_dev != b.st_dev || a.st_ino == b.st_ino;
}

static void mount_one(char const *what, char const *where, char const *type,
                      unsigned long flags, char const *data)
{
  mkdir(where, 0755);
  if (mounted(where)) return;
  if (mount(what, where, type, flags, data) < 0)
    console_say("capinit: warning: unable to mount %s on %s: %s\n", type, where, strerror(errno));
}

void boot_mounts(void)
{
  mount_one("proc", "/proc", "proc", MS_NOSUID | MS_NODEV | MS_NOEXEC, 0);
  mount_one("sysfs", "/sys", "sysfs", MS_NOSUID | MS_NODEV | MS_NOEXEC, 0);
  mount_one("devtmpfs", "/dev", "devtmpfs", MS_NOSUID, "mode=0755");
  mount_one("devpts", "/dev/pts", "devpts", MS_NOSUID | MS_NOEXEC, "gid=5,mode=0620,ptmxmode=0666");
  mount_one("tmpfs", "/dev/shm", "tmpfs", MS_NOSUID | MS_NODEV, "mode=1777");
  mount_one("tmpfs", "/run", "tmpfs", MS_NOSUID | MS_NODEV, "mode=0755");
}

/* stdin, stdout, stderr on /dev/console.  Returns -1 when there is none. */
int boot_console(void)
{
  int fd = open("/dev/console", O_RDWR | O_NOCTTY | O_CLOEXEC);
  if (fd < 0) return -1;
  dup2(fd, 0);
  dup2(fd, 1);
  dup2(fd, 2);
  if (fd > 2) close(fd);
  return 0;
}

void boot_hostname(void)
{
  char name[65];
  if (file_read("/etc/hostname", name, sizeof name) <= 0) return;
  name[strcspn(name, " \t\r\n")] = 0;
  if (name[0] && sethostname(name, strlen(name)) < 0)
    console_say("capinit: warning: unable to set the hostname %s: %s\n", name, strerror(errno));
}

/* One line: what the kernel offers the privilege engine. */
void boot_kernel_support(void)
{
  struct utsname u;
  int bits = prctl(PR_GET_SECUREBITS, 0, 0, 0, 0);
  int amb = prctl(PR_CAP_AMBIENT, PR_CAP_AMBIENT_IS_SET, 0, 0, 0);
  uname(&u);
  sv.no_securebits = bits < 0;
  sv.no_ambient = amb < 0;
  console_say("capinit: kernel %s: securebits %s, ambient capabilities %s, last capability %u%s\n",
          u.release, bits < 0 ? "MISSING" : "yes", amb < 0 ? "MISSING" : "yes", sv.last_cap,
          bits < 0 || amb < 0 ? ": noroot services and ambient capabilities will be refused" : "");
}

/* ------------------------------------------------------------ modules */

/* The path of module NAME from modules.dep ("kernel/x/NAME.ko: deps"). */
static int module_path(char const *dep, char const *name, char *out, size_t len)
{
  size_t nl = strlen(name);
  char const *p = dep;
  while (*p) {
    char const *colon = strchr(p, ':'), *eol = strchr(p, '\n');
    if (!eol) eol = p + strlen(p);
    if (colon && colon < eol) {
      char const *base = colon;
      while (base > p && base[-1] != '/') base--;
      /* NAME.ko, NAME.ko.xz...; '-' and '_' are the same in module names */
      if ((size_t)(colon - base) > nl + 2 && !strncmp(base + nl, ".ko", 3)) {
        size_t i;
        int same = 1;
        for (i = 0; i < nl && same; i++) {
          char a = base[i] == '-' ? '_' : base[i], b = name[i] == '-' ? '_' : name[i];
          same = a == b;
        }
        if (same) {
          snprintf(out, len, "%.*s", (int)(colon - p), p);
          return 0;
        }
      }
    }
    p = *eol ? eol + 1 : eol;
  }
  return -1;
}

/* Load the modules listed in FILE, in order, with finit_module(2): no
 * modprobe, dependencies are listed first by whoever writes the file. */
void boot_modules(char const *file)
{
  struct utsname u;
  char dir[256], depfile[300];
  char *list, *dep, *line, *save = 0;
  unsigned n = 0, loaded = 0;
  size_t len;
  list = file_slurp(file, 1u << 20, &len);
  if (!list) return;
  uname(&u);
  snprintf(dir, sizeof dir, "/lib/modules/%s", u.release);
  snprintf(depfile, sizeof depfile, "%s/modules.dep", dir);
  dep = file_slurp(depfile, 16u << 20, &len);
  if (!dep) {
    console_say("capinit: warning: unable to read %s: %s: no module loaded\n", depfile, strerror(errno));
    free(list);
    return;
  }
  for (line = strtok_r(list, "\n", &save); line; line = strtok_r(0, "\n", &save)) {
    char rel[512], path[1024];
    int fd;
    line += strspn(line, " \t");
    line[strcspn(line, " \t#")] = 0;
    if (!*line) continue;
    n++;
    if (module_path(dep, line, rel, sizeof rel) < 0) {
      console_say("capinit: warning: module %s: not in %s\n", line, depfile);
      continue;
    }
    snprintf(path, sizeof path, "%s/%s", dir, rel);
    fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0 || (syscall(SYS_finit_module, fd, "", 0) < 0 && errno != EEXIST)) {
      console_say("capinit: warning: unable to load module %s (%s): %s\n", line, path, strerror(errno));
    } else {
      loaded++;
    }
    if (fd >= 0) close(fd);
  }
  console_say("capinit: modules: %u of %u loaded\n", loaded, n);
  free(list);
  free(dep);
}

/* ------------------------------------------------------------ filecaps */

/* Set each file's security.capability (revision 2) where the root is
 * writable, verify it otherwise.  A file that cannot be made to match is
 * remembered: services whose command it is are refused. */
void boot_filecaps(char const *file)
{
  diag_list diags = { 0, 0, 0 };
  filecaps f = { 0, 0, 0, 0 };
  size_t i, ok = 0;
  if (access(file, F_OK) < 0) return;
  filecaps_load(&diags, file, &f);
  console_diags(&diags);
  diag_free(&diags);
  for (i = 0; i < f.n; i++) {
    unsigned char want[20], got[64];
    size_t n = filecap_xattr(&f.v[i], want);
    ssize_t g;
    if (setxattr(f.v[i].path, "security.capability", want, n, 0) == 0) {
      ok++;
      continue;
    }
    if (errno == EROFS) {
      g = getxattr(f.v[i].path, "security.capability", got, sizeof got);
      if (g == (ssize_t)n && !memcmp(got, want, n)) {
        ok++;
        continue;
      }
      console_say("capinit: warning: %s: read-only, and its file capabilities differ from %s:%u\n",
              f.v[i].path, file, f.v[i].line);
    } else {
      console_say("capinit: warning: unable to set the file capabilities of %s (%s:%u): %s\n",
              f.v[i].path, file, f.v[i].line, strerror(errno));
    }
    load_refuse_command(f.v[i].path, "its command's file capabilities do not match the filecaps manifest");
  }
  for (i = 0; i < f.nrefused; i++) {
    console_say("capinit: warning: %s is named on a bad line of %s: services it is the command of are refused\n",
            f.refused[i], file);
    load_refuse_command(f.refused[i], "its command is named on a bad line of the filecaps manifest");
  }
  console_say("capinit: filecaps: %zu of %zu files as the manifest says\n", ok, f.n);
  filecaps_free(&f);
}

/* ------------------------------------------------------------ emergency */

static void ioctl_set_ctty(void)
{
  ioctl(0, TIOCSCTTY, 1);
}

/* Run the emergency shell on the console, again each time it exits (a
 * second later); SIGTERM/SIGINT reboot, SIGUSR2/SIGPWR power off, SIGUSR1
 * halts, as always.  Never returns. */
void boot_emergency(char const *why, char **shell)
{
  static char *fallback[] = { (char *)"/bin/sh", 0 };
  sigset_t set;
  pid_t pid = 0;
  console_say("capinit: fatal: %s\ncapinit: starting the emergency shell %s (reboot, poweroff or halt to leave)\n",
          why, shell && shell[0] ? shell[0] : fallback[0]);
  console_drain(CONSOLE_DRAIN_MS);  /* before the shell shares the console */
  sigfillset(&set);
  sigprocmask(SIG_SETMASK, &set, 0);
  for (;;) {
    siginfo_t si;
    struct timespec one = { 1, 0 };
    int sig;
    if (!pid) {
      pid = fork();
      if (pid == 0) {
        sigset_t none;
        char *envp[] = { (char *)"PATH=/usr/sbin:/usr/bin:/sbin:/bin", (char *)"HOME=/", 0 };
        int con = open("/dev/console", O_RDWR | O_NOCTTY);
        sigemptyset(&none);
        sigprocmask(SIG_SETMASK, &none, 0);
        if (con >= 0) {
          /* a blocking console of its own for the shell */
          dup2(con, 0);
          dup2(con, 1);
          dup2(con, 2);
          if (con > 2) close(con);
        }
        setsid();
        ioctl_set_ctty();
        execve(shell && shell[0] ? shell[0] : fallback[0], shell && shell[0] ? shell : fallback, envp);
        execve(fallback[0], fallback, envp);
        console_say("capinit: unable to run a shell: %s\n", strerror(errno));
        _exit(127);
      }
      if (pid < 0) pid = 0;
    }
    sig = sigtimedwait(&set, &si, &one);
    if (sig == SIGCHLD || sig < 0) {
      pid_t p;
      while ((p = waitpid(-1, 0, WNOHANG)) > 0)
        if (p == pid) pid = 0;
      if (!pid && sig == SIGCHLD) {
        /* wait a second before the next shell, so that a shell that
         * cannot start does not spin */
        struct timespec t = one;
        while (sigtimedwait(&set, &si, &t) == SIGCHLD) while (waitpid(-1, 0, WNOHANG) > 0) ;
      }
    } else if (sig == SIGTERM || sig == SIGINT) {
      boot_final(RB_AUTOBOOT);
    } else if (sig == SIGUSR2 || sig == SIGPWR) {
      boot_final(RB_POWER_OFF);
    } else if (sig == SIGUSR1) {
      boot_final(RB_HALT_SYSTEM);
    }
  }
}

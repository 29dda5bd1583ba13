/* supervise/initctl.c -- /run/initctl, sysvinit's control FIFO, as PID 1
 * of a machine: what Debian's poweroff, reboot, halt and shutdown (all
 * systemctl) write to when no systemd answers them.
 *
 * A request is sysvinit's struct init_request, 384 bytes: magic
 * 0x03091969, command 1 (change runlevel), the runlevel as a character.
 * Runlevel 0 powers off (systemctl sends it for halt too), 6 reboots;
 * anything else is refused with a message.  A FIFO says nothing of its
 * writer, so the FIFO is mode 0000: only a process that may override
 * file permissions (cap_dac_override: root with root's power) can open
 * it to write; a uid 0 in a noroot tree cannot. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/reboot.h>
#include <sys/stat.h>
#include <unistd.h>

#include "console.h"
#include "initctl.h"
#include "order.h"
#include "supervisor.h"

#define INITCTL_PATH "/run/initctl"
#define INIT_MAGIC 0x03091969
#define INIT_REQUEST_SIZE 384

/* Made before the first service starts (supervisor_open), so that no
 * service can yet have put anything at the path nor hold a FIFO of its
 * own open there: whatever is at /run/initctl (a FIFO of an earlier
 * capinit, or a thing left by a service of an earlier boot on a /run that
 * is not a tmpfs) is removed without following a link, the FIFO made in
 * its place, and opened without following one.  What was opened must be
 * that FIFO: a FIFO of capinit's uid, mode 0000, with no other name --
 * no chmod of a path, which would follow a link. */
static char const *not_ours(int fd)
{
  struct stat st;
  if (fstat(fd, &st) < 0) return strerror(errno);
  if (!S_ISFIFO(st.st_mode) || st.st_uid != geteuid() || (st.st_mode & 07777) || st.st_nlink != 1)
    return "not the FIFO capinit made (mode 0000, its own, no other name)";
  return 0;
}

int initctl_open(void)
{
  char const *why = 0;
  int fd = -1;
  if ((unlink(INITCTL_PATH) < 0 && errno != ENOENT) || mkfifo(INITCTL_PATH, 0) < 0 ||
      (fd = open(INITCTL_PATH, O_RDWR | O_NONBLOCK | O_CLOEXEC | O_NOFOLLOW)) < 0)
    why = strerror(errno);
  else if ((why = not_ours(fd))) {
    close(fd);
    fd = -1;
  }
  if (fd < 0)
    console_say("capinit: warning: unable to make %s (poweroff, reboot and halt will need capctl): %s\n",
                INITCTL_PATH, why);
  return fd;
}

void initctl_read(int fd)
{
  union {
    unsigned char b[INIT_REQUEST_SIZE];
    int w[3];
  } r;
  ssize_t n;
  /* one request per write (a FIFO keeps writes of up to PIPE_BUF whole) */
  while ((n = read(fd, r.b, sizeof r.b)) > 0) {
    if (n != INIT_REQUEST_SIZE || r.w[0] != INIT_MAGIC || r.w[1] != 1) {
      console_say("capinit: warning: %s: not a runlevel request (%zd bytes): ignored\n", INITCTL_PATH, n);
      continue;
    }
    if (r.w[2] == '0') order_shutdown(&sv, RB_POWER_OFF, INITCTL_PATH ": runlevel 0 (power off)");
    else if (r.w[2] == '6') order_shutdown(&sv, RB_AUTOBOOT, INITCTL_PATH ": runlevel 6 (reboot)");
    else
      console_say("capinit: warning: %s: runlevel %c: capinit has none (0 powers off, 6 reboots)\n",
              INITCTL_PATH, r.w[2] > 32 && r.w[2] < 127 ? r.w[2] : '?');
  }
}

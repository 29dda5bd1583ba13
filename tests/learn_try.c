/* tests/learn_try.c -- one privileged operation, for capctl learn's test
 * (tests/system/test_learn.sh): each needs exactly one capability, and
 * none needs none.  Static, like the probe.
 *
 *   learn_try bind PORT        bind 127.0.0.1:PORT (below 1024:
 *                              cap_net_bind_service)
 *   learn_try serve PORT       bind as above, listen, and wait for a signal (a
 *                              daemon: learn stops it)
 *   learn_try chown FILE UID   make FILE anew and give it to UID (cap_chown)
 *   learn_try raw              open a raw ICMP socket (cap_net_raw)
 *   learn_try nice             lower its own nice value to -5 (cap_sys_nice)
 *   learn_try try-nice         try nice -5, and succeed without it too (a
 *                              daemon that goes on at its own priority)
 *   learn_try none FILE        write FILE, a file of its own (no capability)
 *   learn_try write DIR        write DIR/out.new and rename it DIR/out.log,
 *                              write DIR/sub/state (sub made when missing),
 *                              and a temporary file straight in /tmp,
 *                              removed (no capability)
 *   learn_try rm FILE          remove FILE, and write nothing
 *   learn_try switch           switch its uids and gids to 65534, print
 *                              "switch PID", and wait for a signal (a
 *                              daemon's worker: no capability after)
 *   learn_try keep-bind PORT   prctl(PR_SET_KEEPCAPS, 1), switch to 65534,
 *                              raise cap_net_bind_service into its
 *                              effective set, bind and listen as serve does,
 *                              print "keep-bind PID", and wait for a signal
 *   learn_try keep-time        prctl(PR_SET_KEEPCAPS, 1), switch to 65534,
 *                              then capset(2) its permitted and effective
 *                              sets to cap_sys_time alone (as chronyd's
 *                              cap_set_proc does: a set named, not the one
 *                              it had), which no capability check sees and
 *                              it never uses; print "keep-time PID", and
 *                              wait for a signal
 *
 * Prints "OP ok" and exits 0, or "OP ERRNO" and exits 1; 2 on bad usage. */
#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

/* a TCP socket bound to 127.0.0.1:port, or -1 */
static int bound(char const *port)
{
  struct sockaddr_in a;
  int s = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (s < 0) return -1;
  memset(&a, 0, sizeof a);
  a.sin_family = AF_INET;
  a.sin_port = htons((unsigned short)atoi(port));
  a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  return bind(s, (struct sockaddr *)&a, sizeof a) < 0 ? -1 : s;
}

static int op_bind(char const *port)
{
  return bound(port) < 0 ? -1 : 0;
}

/* made anew: a file of another uid from a run before would need
 * cap_dac_override to be opened */
static int op_serve(char const *port)
{
  int s = bound(port);
  if (s < 0 || listen(s, 1) < 0) return -1;
  printf("serve listening\n");
  fflush(stdout);
  for (;;) pause();
}

static int op_chown(char const *file, char const *uid)
{
  int fd;
  if (unlink(file) < 0 && errno != ENOENT) return -1;
  fd = open(file, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
  if (fd < 0) return -1;
  return fchown(fd, (uid_t)atol(uid), (gid_t)-1);
}

static int op_raw(void)
{
  return socket(AF_INET, SOCK_RAW | SOCK_CLOEXEC, IPPROTO_ICMP) < 0 ? -1 : 0;
}

static int op_nice(void)
{
  return setpriority(PRIO_PROCESS, 0, -5);
}

static int op_none(char const *file)
{
  int fd = open(file, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
  if (fd < 0) return -1;
  return write(fd, "x\n", 2) == 2 ? close(fd) : -1;
}

static int op_write(char const *dir)
{
  char path[4096];
  int r;
  char to[4096];
  snprintf(path, sizeof path, "%s/out.new", dir);
  snprintf(to, sizeof to, "%s/out.log", dir);
  if (op_none(path) < 0 || rename(path, to) < 0) return -1;
  snprintf(path, sizeof path, "%s/sub", dir);
  if (mkdir(path, 0755) < 0 && errno != EEXIST) return -1;
  snprintf(path, sizeof path, "%s/sub/state", dir);
  if (op_none(path) < 0) return -1;
  snprintf(path, sizeof path, "/tmp/learn_try.%ld", (long)getpid());
  r = op_none(path);
  unlink(path);
  return r;
}

/* the uids and gids 65534 (nobody), from uid 0 */
static int to_nobody(void)
{
  if (setgroups(0, 0) < 0 || setresgid(65534, 65534, 65534) < 0) return -1;
  return setresuid(65534, 65534, 65534);
}

static _Noreturn void waiting(char const *op)
{
  printf("%s %ld\n", op, (long)getpid());
  fflush(stdout);
  for (;;) pause();
}

static int op_switch(void)
{
  if (to_nobody() < 0) return -1;
  waiting("switch");
}

/* capget/capset by hand (no libcap): the effective set := the permitted
 * set, which keep-caps kept across the switch */
static int op_keep_bind(char const *port)
{
  struct { unsigned version; int pid; } h = { 0x20080522, 0 };  /* _LINUX_CAPABILITY_VERSION_3 */
  struct { unsigned eff, prm, inh; } d[2];
  int s;
  if (prctl(PR_SET_KEEPCAPS, 1, 0, 0, 0) < 0 || to_nobody() < 0) return -1;
  if (syscall(SYS_capget, &h, d) < 0) return -1;
  d[0].eff = d[0].prm;
  d[1].eff = d[1].prm;
  if (syscall(SYS_capset, &h, d) < 0) return -1;
  s = bound(port);
  if (s < 0 || listen(s, 1) < 0) return -1;
  waiting("keep-bind");
}

/* the sets named, not made from capget's: cap_sys_time (25) alone */
static int op_keep_time(void)
{
  struct { unsigned version; int pid; } h = { 0x20080522, 0 };
  struct { unsigned eff, prm, inh; } d[2] = { { 1u << 25, 1u << 25, 0 }, { 0, 0, 0 } };
  if (prctl(PR_SET_KEEPCAPS, 1, 0, 0, 0) < 0 || to_nobody() < 0) return -1;
  if (syscall(SYS_capset, &h, d) < 0) return -1;
  waiting("keep-time");
}

int main(int argc, char **argv)
{
  int r;
  if (argc == 3 && !strcmp(argv[1], "bind")) r = op_bind(argv[2]);
  else if (argc == 3 && !strcmp(argv[1], "serve")) r = op_serve(argv[2]);
  else if (argc == 4 && !strcmp(argv[1], "chown")) r = op_chown(argv[2], argv[3]);
  else if (argc == 2 && !strcmp(argv[1], "raw")) r = op_raw();
  else if (argc == 2 && !strcmp(argv[1], "nice")) r = op_nice();
  else if (argc == 2 && !strcmp(argv[1], "try-nice")) { op_nice(); r = 0; }
  else if (argc == 3 && !strcmp(argv[1], "none")) r = op_none(argv[2]);
  else if (argc == 3 && !strcmp(argv[1], "write")) r = op_write(argv[2]);
  else if (argc == 3 && !strcmp(argv[1], "rm")) r = unlink(argv[2]);
  else if (argc == 2 && !strcmp(argv[1], "switch")) r = op_switch();
  else if (argc == 3 && !strcmp(argv[1], "keep-bind")) r = op_keep_bind(argv[2]);
  else if (argc == 2 && !strcmp(argv[1], "keep-time")) r = op_keep_time();
  else {
    fprintf(stderr, "usage: learn_try bind PORT | serve PORT | chown FILE UID | raw | nice | try-nice | none FILE | write DIR\n"
                    "       | rm FILE | switch | keep-bind PORT | keep-time\n");
    return 2;
  }
  if (r < 0) {
    printf("%s %s\n", argv[1], strerror(errno));
    return 1;
  }
  printf("%s ok\n", argv[1]);
  return 0;
}

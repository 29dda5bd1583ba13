/* tests/syscall_try.c -- try system calls as a contained service's code
 * would, and say what the kernel answered: for tests/system/
 * test_filter.sh.
 *
 *   syscall_try NAME...
 *
 * One line on stdout for each NAME: "NAME ok" or "NAME ERRNO" (EPERM,
 * ENOSYS...), or "NAME killed SIG" when the call killed the process that
 * made it.  Each call is made in a child of its own (a forked copy), so a
 * kill or a new namespace does not touch the next one.  The names:
 *
 *   unshare-user   unshare(CLONE_NEWUSER)
 *   unshare-net    unshare(CLONE_NEWNET): a control, no user namespace
 *   clone-user     clone(CLONE_NEWUSER | SIGCHLD), the child exits at once
 *   clone3         clone3 with no flags, the child exits at once
 *   setns-any      setns(open("/proc/self/ns/user"), 0)
 *   keyctl         keyctl(KEYCTL_GET_KEYRING_ID, KEY_SPEC_USER_KEYRING)
 *   add-key        add_key("user", "syscall_try", ...) to the session keyring
 *   file-handle    name_to_handle_at("/") then open_by_handle_at
 *   io-uring       io_uring_setup(1)
 *   userfaultfd    userfaultfd(0)
 *   ptrace         ptrace(PTRACE_TRACEME)
 *   getpid         getpid(): the control of every filter
 *   session-key    prints "session-key SERIAL": the serial number of
 *                  the session keyring (keyctl KEYCTL_GET_KEYRING_ID)
 *   i386           getpid through int 0x80 (x86-64 only: the i386 ABI)
 *   x32            getpid with the x32 bit (x86-64 only)
 *
 * Exits 0, or 2 on an unknown name. */
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ptrace.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

static char const *errno_name(int e)
{
  static char buf[16];
  switch (e) {
    case EPERM: return "EPERM";
    case ENOSYS: return "ENOSYS";
    case EACCES: return "EACCES";
    case EINVAL: return "EINVAL";
    case ENOENT: return "ENOENT";
    case EOPNOTSUPP: return "EOPNOTSUPP";
    case EBADF: return "EBADF";
    case ESTALE: return "ESTALE";
    case EFAULT: return "EFAULT";
  }
  snprintf(buf, sizeof buf, "E%d", e);
  return buf;
}

/* a child made by a raw clone: it leaves at once */
static long child_or(long r)
{
  if (r == 0) syscall(SYS_exit, 0);
  if (r > 0) waitpid((pid_t)r, 0, 0);
  return r < 0 ? -1 : 0;
}

static long file_handle(void)
{
  struct { unsigned bytes; int type; unsigned char h[128]; } fh;
  int mnt;
  fh.bytes = sizeof fh.h;
  if (syscall(SYS_name_to_handle_at, AT_FDCWD, "/", &fh, &mnt, 0) < 0) return -1;
  long fd = syscall(SYS_open_by_handle_at, AT_FDCWD, &fh, O_RDONLY);
  return fd < 0 ? -1 : 0;
}

static long try_call(char const *name)
{
  if (!strcmp(name, "unshare-user")) return syscall(SYS_unshare, CLONE_NEWUSER);
  if (!strcmp(name, "unshare-net")) return syscall(SYS_unshare, CLONE_NEWNET);
  if (!strcmp(name, "clone-user")) return child_or(syscall(SYS_clone, CLONE_NEWUSER | SIGCHLD, 0, 0, 0, 0));
  if (!strcmp(name, "clone3")) {
    unsigned long long args[11] = { 0, 0, 0, 0, SIGCHLD, 0, 0, 0, 0, 0, 0 };
    return child_or(syscall(SYS_clone3, args, sizeof args));
  }
  if (!strcmp(name, "setns-any")) {
    int fd = open("/proc/self/ns/user", O_RDONLY);
    return fd < 0 ? -1 : syscall(SYS_setns, fd, 0);
  }
  if (!strcmp(name, "keyctl")) return syscall(SYS_keyctl, 0 /* KEYCTL_GET_KEYRING_ID */, -4 /* @u */, 0);
  if (!strcmp(name, "add-key")) return syscall(SYS_add_key, "user", "syscall_try", "x", 1, -3 /* @s */);
  if (!strcmp(name, "file-handle")) return file_handle();
  if (!strcmp(name, "io-uring")) {
    unsigned char params[120];
    memset(params, 0, sizeof params);
    return syscall(SYS_io_uring_setup, 1, params);
  }
  if (!strcmp(name, "userfaultfd")) return syscall(SYS_userfaultfd, 0);
  if (!strcmp(name, "ptrace")) return syscall(SYS_ptrace, PTRACE_TRACEME, 0, 0, 0);
  if (!strcmp(name, "getpid")) return syscall(SYS_getpid);
  if (!strcmp(name, "session-key")) {
    long id = syscall(SYS_keyctl, 0 /* KEYCTL_GET_KEYRING_ID */, -3 /* @s */, 0);
    if (id < 0) return -1;
    printf("session-key %ld\n", id);
    exit(0);
  }
#ifdef __x86_64__
  if (!strcmp(name, "i386")) {
    long r;
    __asm__ volatile("int $0x80" : "=a"(r) : "a"(20L) : "memory");  /* i386 getpid */
    return r < 0 ? (errno = (int)-r, -1) : 0;
  }
  if (!strcmp(name, "x32")) return syscall(0x40000000L | SYS_getpid);
#endif
  fprintf(stderr, "syscall_try: unknown call %s\n", name);
  exit(2);
}

int main(int argc, char **argv)
{
  int i;
  for (i = 1; i < argc; i++) {
    int st;
    pid_t p;
    fflush(stdout);
    p = fork();
    if (p == 0) {
      long r = try_call(argv[i]);
      if (r < 0) printf("%s %s\n", argv[i], errno_name(errno));
      else printf("%s ok\n", argv[i]);
      fflush(stdout);
      _exit(0);
    }
    if (p < 0 || waitpid(p, &st, 0) < 0) return 1;
    if (WIFSIGNALED(st)) printf("%s killed %s\n", argv[i], WTERMSIG(st) == SIGSYS ? "SIGSYS" : strsignal(WTERMSIG(st)));
    else if (WEXITSTATUS(st) == 2) return 2;
  }
  return 0;
}

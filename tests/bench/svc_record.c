/* tests/bench/svc_record.c -- the service of the benchmark.
 *
 *   svc_record [FIFO [ns]]
 *
 * Takes a CLOCK_MONOTONIC timestamp as its first action, writes one record
 * "PID NS\n" to FIFO (the argument, or $BENCH_FIFO) in a single write (at
 * most PIPE_BUF bytes: atomic among thousands of writers), then pause()s
 * until it is killed.  The pid is the one of the PID namespace it runs in.
 * With "ns" after the FIFO, the record is "PID NS PIDNS": PIDNS is the
 * inode of that PID namespace (/proc/self/ns/pid), so that services in
 * PID namespaces of their own (where each one may be PID 1 or 2) stay
 * distinct for the collector, which finds their pids in its own namespace
 * from it.  Static: no loader work after exec.  Exits 111 if it cannot
 * write its record. */
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

static char *put_u64(char *p, unsigned long long v)
{
  char tmp[24];
  int n = 0;
  do tmp[n++] = (char)('0' + v % 10); while ((v /= 10));
  while (n) *p++ = tmp[--n];
  return p;
}

int main(int argc, char **argv)
{
  struct timespec ts;
  char rec[64], *p = rec;
  char const *fifo;
  int fd;

  clock_gettime(CLOCK_MONOTONIC, &ts);
  fifo = argc > 1 ? argv[1] : getenv("BENCH_FIFO");
  if (!fifo) return 111;
  p = put_u64(p, (unsigned long long)getpid());
  *p++ = ' ';
  p = put_u64(p, (unsigned long long)ts.tv_sec * 1000000000ull + (unsigned long long)ts.tv_nsec);
  if (argc > 2 && !strcmp(argv[2], "ns")) {
    struct stat st;
    if (stat("/proc/self/ns/pid", &st) < 0) return 111;
    *p++ = ' ';
    p = put_u64(p, (unsigned long long)st.st_ino);
  }
  *p++ = '\n';
  fd = open(fifo, O_WRONLY | O_CLOEXEC);
  if (fd < 0 || write(fd, rec, (size_t)(p - rec)) != p - rec) return 111;
  close(fd);
  for (;;) pause();
}

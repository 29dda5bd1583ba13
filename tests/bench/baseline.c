/* tests/bench/baseline.c -- the physical limit of a supervisor, for the
 * benchmark: no configuration language, no state, no logging, no control.
 *
 *   baseline LIST
 *
 * LIST has one service per line: its argv, words separated by blanks
 * (argv[0] an absolute path).  baseline posix_spawn()s every service (musl's
 * posix_spawn is a vfork-style clone), then waits for SIGCHLD and respawns
 * whatever died, at once.  Its only bookkeeping is a table of pids.  It
 * sleeps in sigwaitinfo() when nothing happens.  Exits 111 if LIST cannot
 * be read or a spawn fails. */
#include <errno.h>
#include <signal.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

extern char **environ;

static char ***argvs;
static pid_t *pids;
static size_t n;
static posix_spawnattr_t attr;

static void die(char const *what)
{
  fprintf(stderr, "baseline: fatal: %s: %s\n", what, strerror(errno));
  exit(111);
}

static void load(char const *path)
{
  FILE *f = fopen(path, "r");
  char *line = 0;
  size_t cap = 0, nalloc = 0;
  if (!f) die(path);
  while (getline(&line, &cap, f) > 0) {
    char **v = 0, *w, *save = 0;
    size_t k = 0;
    for (w = strtok_r(line, " \t\n", &save); w; w = strtok_r(0, " \t\n", &save)) {
      v = realloc(v, (k + 2) * sizeof *v);
      if (!v || !(v[k++] = strdup(w))) die("realloc");
    }
    if (!k) continue;
    v[k] = 0;
    if (n == nalloc) {
      nalloc = nalloc ? 2 * nalloc : 64;
      argvs = realloc(argvs, nalloc * sizeof *argvs);
      if (!argvs) die("realloc");
    }
    argvs[n++] = v;
  }
  free(line);
  fclose(f);
  pids = calloc(n ? n : 1, sizeof *pids);
  if (!pids) die("calloc");
}

static void spawn(size_t i)
{
  int e = posix_spawn(&pids[i], argvs[i][0], 0, &attr, argvs[i], environ);
  if (e) {
    errno = e;
    die(argvs[i][0]);
  }
}

int main(int argc, char **argv)
{
  sigset_t chld, none;
  size_t i;

  if (argc != 2) {
    fputs("baseline: usage: baseline LIST\n", stderr);
    return 100;
  }
  sigemptyset(&chld);
  sigaddset(&chld, SIGCHLD);
  sigemptyset(&none);
  sigprocmask(SIG_BLOCK, &chld, 0);
  posix_spawnattr_init(&attr);
  posix_spawnattr_setsigmask(&attr, &none);
  posix_spawnattr_setflags(&attr, POSIX_SPAWN_SETSIGMASK);
  load(argv[1]);
  for (i = 0; i < n; i++) spawn(i);
  for (;;) {
    siginfo_t si;
    int status;
    pid_t pid;
    if (sigwaitinfo(&chld, &si) < 0) continue;
    while ((pid = waitpid(-1, &status, WNOHANG)) > 0)
      for (i = 0; i < n; i++)
        if (pids[i] == pid) {
          spawn(i);
          break;
        }
  }
}

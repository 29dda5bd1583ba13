/* inspect/procs.c -- the processes of a service, for capctl verify.
 *
 * capinit has no cgroups: a service's processes are found from what the
 * kernel says of each process in /proc/PID/stat.  The command is a
 * session leader (capinit's child calls setsid()), so everything it
 * starts is in its session, unless it makes a session of its own (sshd
 * does, for each connection); then it is still a descendant, through
 * PPid.  A process that leaves the session and whose parent then exits
 * is reparented to capinit, and can no longer be told from another
 * service's orphan: it is not found (capinit(8), verify). */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "procfs.h"
#include "procs.h"

/* pid, ppid, session and command name from /proc/PID/stat: "PID (COMM)
 * STATE PPID PGRP SESSION ...", where COMM may hold anything, even ") ". */
static int stat_read(pid_t pid, proc_entry *e)
{
  char buf[1024], *open_paren, *close_paren;
  long ppid, sid;
  char *p;
  size_t n;
  if (procfs_read(pid, "stat", buf, sizeof buf) < 0) return -1;
  open_paren = strchr(buf, '(');
  close_paren = strrchr(buf, ')');
  if (!open_paren || !close_paren || close_paren < open_paren) return -1;
  /* ") S PPID PGRP SESSION" (no scanf: capinit's size budget) */
  p = close_paren + 1;
  if (p[0] != ' ' || !p[1] || p[2] != ' ') return -1;
  ppid = strtol(p + 3, &p, 10);
  if (*p != ' ') return -1;
  strtol(p + 1, &p, 10);
  if (*p != ' ') return -1;
  sid = strtol(p + 1, &p, 10);
  if (*p != ' ') return -1;
  n = (size_t)(close_paren - open_paren - 1);
  if (n >= sizeof e->comm) n = sizeof e->comm - 1;
  memcpy(e->comm, open_paren + 1, n);
  e->comm[n] = 0;
  e->pid = pid;
  e->ppid = (pid_t)ppid;
  e->sid = (pid_t)sid;
  return 0;
}

int proc_table_read(proc_table *t)
{
  DIR *d = opendir("/proc");
  struct dirent *de;
  size_t cap = 0;
  t->v = 0;
  t->n = 0;
  if (!d) return -1;
  while ((de = readdir(d))) {
    char *end;
    long pid = strtol(de->d_name, &end, 10);
    if (*end || pid <= 0) continue;
    if (t->n == cap) {
      size_t c = cap ? 2 * cap : 256;
      proc_entry *v = realloc(t->v, c * sizeof *v);
      if (!v) {
        closedir(d);
        proc_table_free(t);
        errno = ENOMEM;
        return -1;
      }
      t->v = v;
      cap = c;
    }
    /* gone since readdir: not a process any more */
    if (stat_read((pid_t)pid, &t->v[t->n]) == 0) t->n++;
  }
  closedir(d);
  return 0;
}

void proc_table_free(proc_table *t)
{
  free(t->v);
  t->v = 0;
  t->n = 0;
}

static proc_table const *sort_table;
static int by_pid(void const *a, void const *b)
{
  pid_t x = sort_table->v[*(size_t const *)a].pid, y = sort_table->v[*(size_t const *)b].pid;
  return x < y ? -1 : x > y;
}

/* The index of pid in t (order: indices sorted by pid), or -1. */
static long index_of(proc_table const *t, size_t const *order, pid_t pid)
{
  size_t lo = 0, hi = t->n;
  while (lo < hi) {
    size_t mid = lo + (hi - lo) / 2;
    pid_t p = t->v[order[mid]].pid;
    if (p == pid) return (long)order[mid];
    if (p < pid) lo = mid + 1;
    else hi = mid;
  }
  return -1;
}

enum { UNKNOWN, IN, OUT };

size_t proc_members(proc_table const *t, pid_t leader, size_t *out, size_t max)
{
  unsigned char *state = calloc(t->n ? t->n : 1, 1);
  size_t *order = malloc((t->n ? t->n : 1) * sizeof *order);
  size_t *chain = malloc((t->n ? t->n : 1) * sizeof *chain);
  size_t i, n = 0;
  if (!state || !order || !chain) {
    free(state), free(order), free(chain);
    return 0;
  }
  for (i = 0; i < t->n; i++) {
    order[i] = i;
    state[i] = t->v[i].pid == leader || t->v[i].sid == leader ? IN : UNKNOWN;
  }
  sort_table = t;
  qsort(order, t->n, sizeof *order, by_pid);
  /* each unknown process: up its PPid chain to one whose fate is known
   * (or to a parent /proc does not show: out), then the whole chain
   * shares it.  A chain longer than the table is a loop: out. */
  for (i = 0; i < t->n; i++) {
    size_t k = 0, j = i;
    unsigned char fate = OUT;
    while (state[j] == UNKNOWN && k < t->n) {
      long p;
      chain[k++] = j;
      p = index_of(t, order, t->v[j].ppid);
      if (p < 0) break;
      j = (size_t)p;
    }
    if (state[j] != UNKNOWN) fate = state[j];
    while (k) state[chain[--k]] = fate;
  }
  for (i = 0; i < t->n; i++)
    if (state[i] == IN && t->v[i].pid == leader) {
      if (n < max) out[n] = i;
      n++;
    }
  for (i = 0; i < t->n; i++)
    if (state[i] == IN && t->v[i].pid != leader) {
      if (n < max) out[n] = i;
      n++;
    }
  free(state), free(order), free(chain);
  return n;
}

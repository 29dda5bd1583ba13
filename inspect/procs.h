/* inspect/procs.h -- which processes belong to a service (procs.c). */
#ifndef CAPINIT_INSPECT_PROCS_H
#define CAPINIT_INSPECT_PROCS_H

#include <stddef.h>
#include <sys/types.h>

typedef struct proc_entry_s {
  pid_t pid, ppid, sid;
  char comm[17];
} proc_entry;

/* Every process /proc shows, read once (a snapshot). */
typedef struct proc_table_s {
  proc_entry *v;
  size_t n;
} proc_table;

/* Read /proc.  0, or -1 (errno) when it cannot be read at all. */
int proc_table_read(proc_table *t);
void proc_table_free(proc_table *t);

/* The processes of the service whose main process is leader: leader
 * itself, every process of the session it leads (capinit made it a
 * session leader), and the descendants of all of those, through PPid.
 * Writes their indices in t->v to out (at most max), leader's first;
 * returns how many there are (which may be more than max). */
size_t proc_members(proc_table const *t, pid_t leader, size_t *out, size_t max);

#endif

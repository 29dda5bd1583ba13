/* inspect/procfs.h -- a process's files in /proc, for capinit and
 * capctl: one reader, and one parser of the "Key:\tvalue" lines of a
 * status file. */
#ifndef CAPINIT_INSPECT_PROCFS_H
#define CAPINIT_INSPECT_PROCFS_H

#include <stddef.h>
#include <sys/types.h>

/* /proc/PID/NAME ("status", "stat", "task/PID/children"...; pid 0:
 * /proc/self/NAME) into buf, at most len - 1 bytes, NUL-terminated: its
 * length, or -1 (errno; an empty file is -1 too). */
ssize_t procfs_read(pid_t pid, char const *name, char *buf, size_t len);

/* The value of KEY in a status file's text, without the blanks around it
 * and with tabs made spaces ("Groups:\t0 27 \n" is "0 27"), into out (cut
 * to len - 1 bytes): 0, or -1 with out untouched when KEY is not there. */
int procfs_field(char const *status, char const *key, char *out, size_t len);

#endif

/* inspect/mountinfo.h -- a process's mounts as the kernel shows them
 * (/proc/PID/mountinfo, parsed by conf/fstab.c): the one reader of PID
 * 1's file systems and of capctl verify's containers (mountinfo.c). */
#ifndef CAPINIT_INSPECT_MOUNTINFO_H
#define CAPINIT_INSPECT_MOUNTINFO_H

#include <stddef.h>
#include <sys/types.h>

#include "../conf/fstab.h"

/* /proc/PID/mountinfo (pid 0: /proc/self/mountinfo), parsed into *v, *n
 * entries in the kernel's order: the buffer they point into, to free
 * with *v.  NULL (errno) when it cannot be read or held; then *v is
 * NULL and *n 0. */
char *mountinfo_read(pid_t pid, mountinfo_entry **v, size_t *n);

#endif

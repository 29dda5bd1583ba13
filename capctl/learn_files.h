/* capctl/learn_files.h -- the files a service wrote, as the kernel saw
 * them (fanotify(7): each file closed after being opened for writing), for
 * capctl learn's read-write proposal. */
#ifndef CAPINIT_CAPCTL_LEARN_FILES_H
#define CAPINIT_CAPCTL_LEARN_FILES_H

#include <stddef.h>
#include <sys/types.h>

/* A file one of the service's processes wrote: its path as learn sees it. */
typedef struct learn_file_s {
  pid_t pid;
  char *path;
} learn_file;

typedef struct learn_files_s {
  int fd;                  /* the fanotify group, or -1 */
  unsigned marked;         /* file systems watched */
  unsigned long lost;      /* the queue overflowed: writes unseen */
  learn_file *file;        /* every write seen, of any process; distinct (pid, path) */
  size_t n, cap;
} learn_files;

/* Watch every file system of learn's mount table (not /proc, /sys and
 * their kind: no service file makes them writable) for files closed after
 * writing.  0, or -1 (err filled). */
int learn_files_open(learn_files *f, char *err, size_t errlen);
/* The events queued into f->file. */
void learn_files_drain(learn_files *f);
void learn_files_close(learn_files *f);

/* The proposal's directories, in place: each of the n paths (strings of
 * the caller's, cut) becomes its parent (the path itself when that is /);
 * paths under /dev (writable under read-only = yes) and files straight in
 * /tmp or /var/tmp (a private tmp's: *tmp set) are dropped, unless *tmp
 * was negative (then kept: their directory, /tmp); any path under another
 * is dropped; sorted.  The number left. */
size_t learn_files_dirs(char **paths, size_t n, int *tmp);

#endif

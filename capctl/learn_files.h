/* capctl/learn_files.h -- the files a service wrote, as the kernel saw
 * them (fanotify(7): each file closed after being opened for writing), for
 * capctl learn's read-write proposal. */
#ifndef CAPINIT_CAPCTL_LEARN_FILES_H
#define CAPINIT_CAPCTL_LEARN_FILES_H

#include <stddef.h>
#include <sys/types.h>

/* What a process did to a path: LF_WROTE, a file closed after writing
 * (the path is the file's); the others, an entry of a directory (the
 * path is DIR/NAME: DIR was written) */
#define LF_WROTE 1
#define LF_MADE 2
#define LF_REMOVED 4
#define LF_RENAMED 8
#define LF_MOUNTS 64       /* file systems whose entries' changes are watched */

/* A path one of the service's processes wrote: as learn sees it. */
typedef struct learn_file_s {
  pid_t pid;
  unsigned what;           /* LF_*, ored */
  char *path;
} learn_file;

typedef struct learn_files_s {
  int fd;                  /* the group of files written, or -1 */
  int dfd;                 /* the group of directories' entries, or -1 */
  unsigned marked;         /* file systems watched for files written */
  unsigned dmarked;        /* and for entries */
  unsigned unmarked;       /* those that cannot be, for entries */
  struct { int fsid[2]; int fd; } mnt[LF_MOUNTS];  /* of dmarked, to open a handle */
  unsigned long lost;      /* a queue overflowed: writes unseen */
  learn_file *file;        /* every write seen, of any process; distinct (pid, path) */
  size_t n, cap;
} learn_files;

/* Watch every file system of learn's mount table (not /proc, /sys and
 * their kind: no service file makes them writable) for files closed after
 * writing, and those that can report a directory (FAN_REPORT_DFID_NAME)
 * for entries made, removed or renamed.  0, or -1 (err filled). */
int learn_files_open(learn_files *f, char *err, size_t errlen);
/* The events queued into f->file. */
void learn_files_drain(learn_files *f);
/* The groups closed, what they showed kept; then that freed too. */
void learn_files_stop(learn_files *f);
void learn_files_close(learn_files *f);

/* The proposal's directories, in place: each of the n paths (strings of
 * the caller's, cut) becomes its parent (the path itself when that is /);
 * paths under /dev (writable under read-only = yes) and files straight in
 * /tmp or /var/tmp (a private tmp's: *tmp set) are dropped, unless *tmp
 * was negative (then kept: their directory, /tmp); any path under another
 * is dropped; sorted.  The number left. */
size_t learn_files_dirs(char **paths, size_t n, int *tmp);

#endif

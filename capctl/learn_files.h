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

/* A path one of the service's processes wrote: as learn sees it. */
typedef struct learn_file_s {
  pid_t pid;
  unsigned what;           /* LF_*, ored */
  char *path;
  unsigned group;          /* alt: the entry it is a candidate path of */
} learn_file;

/* A mount of a file system watched for entries, in learn's mount table,
 * reachable by its mount point (not hidden under another). */
typedef struct learn_mount_s {
  int id;                  /* mountinfo's, fdinfo's mnt_id */
  int fsid[2];
  char *point;             /* where it is, to open a handle through it */
} learn_mount;

typedef struct learn_files_s {
  int fd;                  /* the group of files written, or -1 */
  int dfd;                 /* the group of directories' entries, or -1 */
  unsigned marked;         /* file systems watched for files written */
  unsigned dmarked;        /* and for entries */
  unsigned unmarked;       /* those that cannot be, for entries */
  learn_mount *mnt;        /* the mounts of those, to open a handle through */
  size_t nmnt;
  char *start;             /* the directory the service starts in (its
                            * path, as learn sees it), or 0 */
  unsigned long lost;      /* a queue overflowed: writes unseen */
  learn_file *file;        /* every write seen, of any process; distinct (pid, path) */
  size_t n, cap;
  /* an entry whose directory's handle opened to more than one path (one
   * file system reached through several mounts): each candidate, grouped,
   * until learn_files_resolve */
  learn_file *alt;
  size_t nalt, capalt;
  unsigned groups;
} learn_files;

/* Watch every file system of learn's mount table (not /proc, /sys and
 * their kind: no service file makes them writable) for files closed after
 * writing, and those that can report a directory (FAN_REPORT_DFID_NAME)
 * for entries made, removed or renamed; the path of dir, the directory
 * the service starts in, is kept (start).  0, or -1 (err filled). */
int learn_files_open(learn_files *f, char const *dir, char *err, size_t errlen);
/* The events queued into f->file. */
void learn_files_drain(learn_files *f);
/* The groups closed, what they showed kept; then that freed too. */
void learn_files_stop(learn_files *f);
void learn_files_close(learn_files *f);

/* The entries of several candidate paths (alt) decided, for the
 * processes mine says are the service's: the candidate nearest a file the
 * service wrote (in or under the longest directory of one), when no other
 * is as near; else the one under the directory it started in (start),
 * when exactly one is;
 * such a candidate becomes an entry of f->file.
 * Those left undecided stay in alt, a candidate each, their group's what
 * ored with LF_UNSURE.  The number of groups left undecided. */
#define LF_UNSURE 16
typedef int learn_files_mine(void const *data, pid_t pid);
size_t learn_files_resolve(learn_files *f, learn_files_mine *mine, void const *data);

/* The proposal's directories, in place: each of the n paths (strings of
 * the caller's, cut) becomes its parent (the path itself when that is /);
 * paths under /dev (writable under read-only = yes) and files straight in
 * /tmp or /var/tmp (a private tmp's: *tmp set) are dropped, unless *tmp
 * was negative (then kept: their directory, /tmp); any path under another
 * is dropped; sorted.  The number left. */
size_t learn_files_dirs(char **paths, size_t n, int *tmp);

/* learn_files_dirs's k directories, in place, each under one of the
 * trees where the FHS gives a package a directory of its own (/run,
 * /srv, /var/cache, /var/lib, /var/log, /var/mail, /var/spool) widened
 * to that directory (/var/spool/postfix/active: /var/spool/postfix); the
 * others as they are; any under another dropped; sorted.  The number
 * left. */
size_t learn_files_widen(char **dirs, size_t k);

#endif

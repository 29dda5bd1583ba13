/* inspect/file.h -- a file of the live system read whole: /proc, /sys,
 * /etc/hostname, the lists of modules (file.c).  The one reader of
 * capinit and capctl (the engine, in its child, makes its own calls). */
#ifndef CAPINIT_INSPECT_FILE_H
#define CAPINIT_INSPECT_FILE_H

#include <stddef.h>
#include <sys/types.h>

/* The file at path into buf, at most len - 1 bytes (the rest is not
 * read), NUL-terminated: the number of bytes read, 0 for an empty file,
 * or -1 (errno) when it cannot be opened or read. */
ssize_t file_read(char const *path, char *buf, size_t len);

/* The file at path, up to max bytes (the rest is not read: then *len is
 * max), in a NUL-terminated buffer of malloc's that grows as it fills,
 * since procfs gives no size; its length in *len.  0 (errno) when it
 * cannot be opened, read or held. */
char *file_slurp(char const *path, size_t max, size_t *len);

#endif

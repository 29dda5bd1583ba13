/* conf/parse.h -- the "key = value" line reader shared by service files
 * and capinit.conf: one table of keys, one parser, one set of messages. */
#ifndef CAPINIT_CONF_PARSE_H
#define CAPINIT_CONF_PARSE_H

#include <stddef.h>

#include "diag.h"

#define CONF_FILE_MAX (1u << 20)     /* bytes in one file */
#define CONF_LINE_MAX 65536u         /* bytes in one line */
#define CONF_DIAG_MAX 20u            /* problems reported per file */

/* Where a value came from, for messages. */
typedef struct conf_where_s {
  diag_list *diags;
  char const *file;
  unsigned line;
  char const *key;
  unsigned errors;         /* errors reported for this file so far */
} conf_where;

enum { KEY_REPEAT = 1, KEY_PREFIX = 2 };

typedef struct conf_key_s {
  char const *name;        /* with KEY_PREFIX: "rlimit-" */
  int id;                  /* index into the lines array */
  unsigned flags;
  /* Returns 0, or -1 after reporting with conf_error(). */
  int (*set)(conf_where *w, void *obj, char const *value);  /* w->key: the key as written */
} conf_key;

int conf_error(conf_where *w, char const *fmt, ...)
  __attribute__((format(printf, 2, 3)));
void conf_warning(conf_where *w, char const *fmt, ...)
  __attribute__((format(printf, 2, 3)));

/* Parse a buffer of lines into obj.  lines[id] gets the line each key was
 * first set on.  Returns the number of errors. */
unsigned conf_parse_buffer(diag_list *diags, char const *file,
                           char const *buf, size_t len,
                           conf_key const *keys, size_t nkeys,
                           unsigned *lines, void *obj);

/* The same for one "key=value" pair (capexec -k): line is its position. */
unsigned conf_parse_pair(diag_list *diags, char const *file, unsigned line,
                         char const *pair, conf_key const *keys, size_t nkeys,
                         unsigned *lines, void *obj);

/* The lines of a line-oriented file (filecaps, fstab): each one free of
 * control characters and at most CONF_LINE_MAX bytes goes to fn as a
 * NUL-terminated copy it may change; the others are errors here.  fn
 * returns -1 for an error (it said what).  After CONF_DIAG_MAX errors the
 * rest is not read (and that is said).  Returns the number of errors. */
typedef int conf_line_fn(diag_list *diags, char const *file, unsigned line, char *s, void *arg);
unsigned conf_each_line(diag_list *diags, char const *file, char const *buf, size_t len,
                        conf_line_fn *fn, void *arg);

/* conf_each_line over the file at path (read by conf_read_file below):
 * 0, or -1 when it could not be read or a line was in error. */
int conf_each_line_of(diag_list *diags, char const *path, conf_line_fn *fn, void *arg);

/* Read a whole configuration file (regular, at most CONF_FILE_MAX bytes;
 * FIFOs and devices are refused without blocking).  Returns a malloc'd
 * buffer, or NULL after reporting "FILE: message". */
char *conf_read_file(diag_list *diags, char const *path, size_t *len);

#endif

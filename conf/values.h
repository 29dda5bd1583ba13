/* conf/values.h -- the value syntaxes shared by every key: booleans,
 * durations, sizes, octal modes, lists, command lines. Each returns 0 on
 * success or -1 with a message in err (a static string or errbuf). */
#ifndef CAPINIT_CONF_VALUES_H
#define CAPINIT_CONF_VALUES_H

#include <stddef.h>
#include <stdint.h>

#define DURATION_MAX_MS (24u * 3600u * 1000u)

int value_bool(char const *v, int *out);
/* "250ms", "10s", "2m", "1h", "0". */
int value_duration(char const *v, uint32_t *ms, char const **err);
/* Decimal, with an optional K, M, G or T suffix (powers of 1024). */
int value_size(char const *v, int suffixes, uint64_t *out, char const **err);
/* "0022", "022", "0": at most 4 octal digits, at most 0777. */
int value_umask(char const *v, unsigned *out, char const **err);
/* A decimal id (uid or gid): 0 to 4294967294. */
int value_id(char const *v, uint32_t *out);

/* Split a list on blanks and commas; empty items are skipped.  Calls
 * fn(item, arg) for each; stops at and returns the first non-zero result. */
int value_list(char const *v, int (*fn)(char const *item, void *arg), void *arg);

/* Split a command line: blanks separate words, "..." groups, \" and \\
 * are escapes (other backslashes are kept).  Returns a NULL-terminated
 * malloc'd vector (one block) or NULL with err set. */
char **value_argv(char const *v, char const **err);
size_t argv_count(char *const *argv);

int value_abspath(char const *v, char const **err);

#endif

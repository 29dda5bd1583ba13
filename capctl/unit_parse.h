/* capctl/unit_parse.h -- systemd's unit file syntax, read for capctl
 * import: sections, key=value lines, continuation lines, comments, the
 * quoting of command lines and of lists, and the % specifiers.  Pure: no
 * file is opened here, nothing is printed; the unit tests drive it. */
#ifndef CAPINIT_CAPCTL_UNIT_PARSE_H
#define CAPINIT_CAPCTL_UNIT_PARSE_H

#include <stddef.h>

/* One assignment, as written (continuation lines joined), with where it
 * was: file is the name the report uses ("ssh.service",
 * "ssh.service.d/local.conf"), line the first line of the assignment. */
typedef struct unit_entry_s {
  char *section;           /* "Service", without the brackets */
  char *key;
  char *value;             /* blanks at both ends removed; may be "" */
  char const *file;
  unsigned line;
} unit_entry;

/* A line of the file that is not an assignment systemd would take. */
typedef struct unit_problem_s {
  char const *file;
  unsigned line;
  char *text;
} unit_problem;

typedef struct unit_s {
  unit_entry *v;
  size_t n;
  unit_problem *bad;
  size_t nbad;
  char **files;            /* the report names of the files read */
  size_t nfiles;
} unit;

/* Append the assignments of one file (len bytes of buf) to u, in order:
 * the main unit first, then each drop-in, as systemd reads them. */
void unit_parse_buffer(unit *u, char const *file, char const *buf, size_t len);
void unit_free(unit *u);

/* The prefixes of an Exec line (systemd.service(5)): - @ : + ! and !! */
enum {
  EXEC_IGNORE_FAILURE = 1,   /* - */
  EXEC_ARGV0 = 2,            /* @: the second word is argv[0] */
  EXEC_NO_ENV = 4,           /* :: no $VAR expansion */
  EXEC_FULL_PRIVILEGE = 8,   /* + */
  EXEC_NO_CREDENTIALS = 16,  /* ! */
  EXEC_AMBIENT_FALLBACK = 32 /* !!: ignored where ambient capabilities exist */
};

/* An Exec line into its prefixes and words, unquoted ("..." and '...')
 * with C escapes (\n, \t, \\, \", \xHH, \NNN octal...), $ left as it is.
 * A NULL-terminated malloc'd argv (*argc words), or NULL with *err. */
char **unit_exec_split(char const *v, unsigned *flags, size_t *argc, char const **err);

/* The words of a list value (Environment=, CapabilityBoundingSet=, paths):
 * separated by blanks, "..." and '...' quoting, C escapes.  As above. */
char **unit_words(char const *v, size_t *n, char const **err);

/* What the specifiers of one unit stand for. */
typedef struct unit_names_s {
  char const *full;        /* %n: "getty@tty1.service" */
  char const *prefix;      /* %p: "getty" */
  char const *instance;    /* %i: "tty1", NULL for no instance */
  char const *user;        /* %u: User= or "root" */
  char const *home;        /* %h */
} unit_names;

/* v with %n %N %p %P %i %I %f %j %J %u %h %t %S %C %L %E %T %V %%
 * expanded into a malloc'd string; NULL with *bad the specifier's letter
 * when one is unknown (or %i without an instance, as systemd refuses). */
char *unit_specifiers(char const *v, unit_names const *names, char *bad);

/* systemd's unescaping of a name part: "-" is "/", "\xHH" that byte. */
char *unit_unescape(char const *s);

void unit_argv_free(char **argv);

#endif

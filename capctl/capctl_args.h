/* capctl/capctl_args.h -- capctl's options before or after the verb. */
#ifndef CAPINIT_SUPERVISE_CAPCTL_ARGS_H
#define CAPINIT_SUPERVISE_CAPCTL_ARGS_H

#include <stddef.h>

typedef struct capctl_args_s {
  char const *verb;   /* NULL when only -h or -V was given */
  int help, version;  /* -h/--help, -V/--version anywhere before "--" */
  int argc;           /* argv[0] is the verb, then the options that stood */
  char **argv;        /* before it, then what followed it */
} capctl_args;

/* Reorders argv in place.  0, or -1 with a message in err (wrong usage:
 * exit 100). */
int capctl_args_parse(int argc, char **argv, capctl_args *a, char *err, size_t errlen);

#endif

/* conf/control_verbs.h -- the control protocol, shared by capinit (server)
 * and capctl (client): one table of verbs. */
#ifndef CAPINIT_CONF_CONTROL_VERBS_H
#define CAPINIT_CONF_CONTROL_VERBS_H

#include <stddef.h>


#define CONTROL_MSG_MAX 4096u
#define CONTROL_ARGS_MAX 257
/* The one final reply that means "nothing was done, ask again": capinit
 * serves too many clients at once just now. */
#define CONTROL_BUSY "error: too many clients"

/* control_verb.changes: 0 reads, 1 changes services, VERB_POWER powers
 * off, reboots or halts, VERB_ROOT_READS reads what only uid 0 may */
#define VERB_POWER 2
#define VERB_ROOT_READS 3

typedef struct control_verb_s {
  char const *name;
  int changes;             /* root only; VERB_POWER: the power-group too;
                              VERB_ROOT_READS: uid 0, powerless too */
  size_t min_args;
  char const *usage;
} control_verb;

typedef struct control_request_s {
  control_verb const *verb;
  int argc;                /* words, the verb included: argv[0] */
  char *argv[CONTROL_ARGS_MAX];
  char buf[CONTROL_MSG_MAX + 1];
} control_request;

/* Parse one request message (len bytes, not NUL-terminated): words
 * separated by blanks, a known verb, enough arguments.  Returns 0, or -1
 * with "error: ..." in err.  Pure (fuzzed: tests/fuzz/fuzz_control.c). */
int control_parse(char const *msg, size_t len, control_request *r, char *err, size_t errlen);

extern control_verb const control_verbs[];
extern size_t const control_verbs_n;
control_verb const *control_verb_find(char const *name);

#endif

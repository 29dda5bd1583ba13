/* supervise/control.h -- the control protocol, shared by capinit (server)
 * and capctl (client): one table of verbs. */
#ifndef CAPINIT_SUPERVISE_CONTROL_H
#define CAPINIT_SUPERVISE_CONTROL_H

#include <stddef.h>

#include "../conf/explain.h"

#define CONTROL_MSG_MAX 4096u
#define CONTROL_ARGS_MAX 257

typedef struct control_verb_s {
  char const *name;
  int changes;             /* root only */
  size_t min_args;
  char const *usage;
} control_verb;

extern control_verb const control_verbs[];
extern size_t const control_verbs_n;
control_verb const *control_verb_find(char const *name);

/* The credentials of this process, and what explain needs to know of a
 * command's file (set-id bits, file capabilities, multi-call). */
int control_launcher(cred_state *c);
int control_target(char const *path, exec_target *t);

#endif

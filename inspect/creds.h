/* inspect/creds.h -- what capctl explain and verify need to know of
 * the launcher (this process's credentials) and of a command's file
 * (set-id bits, file capabilities, multi-call), looked up as the service
 * will see it. */
#ifndef CAPINIT_INSPECT_CREDS_H
#define CAPINIT_INSPECT_CREDS_H

#include "../conf/container.h"
#include "explain.h"

/* The credentials of this process, and what explain needs to know of a
 * command's file (set-id bits, file capabilities, multi-call). */
int creds_launcher(cred_state *c);
int creds_target(char const *path, exec_target *t);
/* The same for a service with a root directory: path as it sees it
 * (root NULL: creds_target()). */
int creds_target_in(char const *root, char const *path, exec_target *t);
/* The same as the service will see it: inside its root directory, with
 * its binds mounted (in a child of its own mount namespace). */
int creds_target_view(svc_container const *ct, char const *path, exec_target *t);
/* F6 on the running kernel (exec'ing a setgid copy of this program);
 * SETGID_RULE_UNKNOWN if it cannot tell (not root, no suid filesystem). */
enum setgid_rule creds_setgid_rule(void);

#endif

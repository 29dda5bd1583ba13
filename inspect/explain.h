/* inspect/explain.h -- predict a service's credentials after execve(): first
 * what the privilege engine leaves (from the launcher's credentials and the
 * spec, with every check the kernel makes on the way), then the kernel's
 * exec rule of capabilities(7) applied to the target file's set-id bits and
 * file capabilities.  Pure: the caller reads the launcher, the file and the
 * kernel's facts; this only computes. */
#ifndef CAPINIT_INSPECT_EXPLAIN_H
#define CAPINIT_INSPECT_EXPLAIN_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "../conf/stages.h"
#include "../conf/svc.h"

#define EXPLAIN_GROUPS_MAX 256
#define EXPLAIN_LINES_MAX 16
#define STAGE_NONE (-1)

typedef struct cred_state_s {
  uint32_t ruid, euid, suid, rgid, egid, sgid;
  uint32_t groups[EXPLAIN_GROUPS_MAX];
  size_t ngroups;
  unsigned securebits;
  uint64_t inh, prm, eff, bnd, amb;
  int nnp;
} cred_state;

typedef struct exec_target_s {
  char const *path;
  int err;                 /* stat()'s errno, 0 when the file exists */
  mode_t mode;
  uint32_t uid, gid;
  int nosuid;              /* on a nosuid mount: set-id bits and file caps ignored */
  int fcaps;               /* security.capability revision: 0 none, 2 or 3 */
  int fcaps_bad;           /* an xattr the kernel would refuse (exec fails) */
  uint64_t f_prm, f_inh;
  int f_eff;
  uint32_t f_rootid;       /* revision 3 */
  char const *multicall;   /* "BusyBox", "toybox"... or NULL */
} exec_target;

/* F6: does exec of a setgid file whose group is already one of the
 * process's groups count as an id change (and clear ambient)? */
enum setgid_rule { SETGID_RULE_UNKNOWN, SETGID_RULE_CLEARS, SETGID_RULE_KEEPS };

typedef struct kernel_facts_s {
  unsigned last_cap;
  enum setgid_rule setgid_rule;
} kernel_facts;

typedef struct prediction_s {
  int refused;
  int stage;               /* the stage that would fail (stages.h), or
                              STAGE_NONE: the service file itself */
  char reason[256];
  cred_state after;        /* after exec */
  cred_state launched;     /* after the engine, before exec: what a
                              private-pids service's reaper holds */
  int at_secure;
  char exposure[EXPLAIN_LINES_MAX][1200];
  size_t nexposure;
} prediction;

/* Does this prediction depend on the F6 rule?  (Then the caller should
 * detect it before calling explain_predict.) */
int explain_needs_setgid_rule(svc const *s, cred_state const *launcher, exec_target const *t);

void explain_predict(svc const *s, cred_state const *launcher, exec_target const *t,
                     kernel_facts const *k, prediction *p);

/* Parse a security.capability xattr value (revision 1, 2 or 3) into t. */
int explain_parse_fcaps(unsigned char const *v, size_t len, exec_target *t);

#endif

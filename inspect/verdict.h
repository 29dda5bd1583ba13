/* inspect/verdict.h -- capctl verify's judgement of one process: its live
 * credentials (/proc/PID/status) against what explain predicts for its
 * service's command.
 *
 * A process holds exactly the prediction (SAME); or less, or other
 * credentials it could have taken by itself from the predicted ones
 * (DROPPED: a daemon that gave up its groups, a child that switched to
 * its user with the cap_setuid it was given, an effective capability
 * raised from the permitted set); or something it could not have had
 * from there (MORE: the error verify exists to find).  Pure: the caller
 * reads /proc; this only parses and compares. */
#ifndef CAPINIT_INSPECT_VERDICT_H
#define CAPINIT_INSPECT_VERDICT_H

#include <stddef.h>

#include "explain.h"

enum verdict_result { VERDICT_SAME, VERDICT_DROPPED, VERDICT_MORE };

/* The fields verify compares, in this order: the keys of /proc/PID/status. */
enum verdict_field {
  VF_UID, VF_GID, VF_GROUPS, VF_CAPINH, VF_CAPPRM, VF_CAPEFF, VF_CAPBND, VF_CAPAMB, VF_NNP,
  VF_COUNT
};
extern char const *const verdict_field_names[VF_COUNT];

typedef struct live_creds_s {
  cred_state c;            /* groups, capability sets, nnp; securebits unknown */
  uint32_t fsuid, fsgid;
  unsigned seen;           /* a bit per verdict_field found in the text */
} live_creds;

#define VERDICT_TEXT_MAX 1200

typedef struct verdict_s {
  enum verdict_result result;
  unsigned differ;         /* a bit per field that is not as predicted */
  int field;               /* MORE: the first field beyond what is allowed */
  char live[VERDICT_TEXT_MAX], want[VERDICT_TEXT_MAX];  /* its values, as /proc writes them */
} verdict;

/* Parse the text of /proc/PID/status (len bytes).  0, or -1 when a field
 * verify compares is missing or malformed (the process is gone, or this
 * is not a status file). */
int live_creds_parse(char const *text, size_t len, live_creds *out);

/* Judge a process against the prediction of its service's command. */
void verdict_judge(live_creds const *live, cred_state const *want, verdict *v);

/* The field's value as /proc/PID/status writes it ("0 0 0 0",
 * "000001ffffffffff", "1"...); the fs ids of a prediction are its
 * effective ones. */
void verdict_format(enum verdict_field f, cred_state const *c, uint32_t fsuid, uint32_t fsgid,
                    char *out, size_t len);

#endif

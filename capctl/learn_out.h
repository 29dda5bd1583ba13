/* capctl/learn_out.h -- the proposed service file of capctl learn. */
#ifndef CAPINIT_CAPCTL_LEARN_OUT_H
#define CAPINIT_CAPCTL_LEARN_OUT_H

#include <stdint.h>
#include <stdio.h>

#include "learn_record.h"

/* The file text (NUL-terminated) with its privilege keys replaced by
 * mode = noroot and capabilities = caps, each with the calls that needed
 * it as a comment, onto out. */
void learn_propose(FILE *out, char const *text, uint64_t caps, learn_record const *r);

/* 1 when widening the read-write directories learned (learn_files_widen)
 * changes them: a trial with r->files_widened would differ. */
int learn_propose_widens(learn_record const *r);

#endif

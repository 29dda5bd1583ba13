/* supervise/clock.h -- the one clock of the supervisor (clock.c). */
#ifndef CAPINIT_SUPERVISE_CLOCK_H
#define CAPINIT_SUPERVISE_CLOCK_H

#include <stdint.h>

/* The monotonic clock, in ms (since the kernel's start): every timer of
 * the supervisor, and the times status shows. */
uint64_t now_ms(void);

#endif

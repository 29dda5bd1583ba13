/* inspect/clock.h -- the monotonic clock in milliseconds, on which every
 * deadline of capinit and capctl is counted (clock.c). */
#ifndef CAPINIT_INSPECT_CLOCK_H
#define CAPINIT_INSPECT_CLOCK_H

#include <stdint.h>

/* CLOCK_MONOTONIC: the milliseconds since the kernel's start, never set
 * back (the time of day may be). */
uint64_t now_ms(void);

#endif

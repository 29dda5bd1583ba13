/* supervise/console.h -- capinit's messages and the lines of services with
 * log = console, on fd 2 (the console of a machine), in the order they
 * were made.  fd 2 is non-blocking: what it cannot take now waits in a
 * backlog (console.c), and console_write returns -1 only for what does not
 * fit there (dropped: the caller counts it).  console_fd is fd 2 while the
 * backlog holds something (the loop polls it for POLLOUT), else -1. */
#ifndef CAPINIT_SUPERVISE_CONSOLE_H
#define CAPINIT_SUPERVISE_CONSOLE_H

#include <stddef.h>

#define CONSOLE_DRAIN_MS 2000u  /* the most capinit waits for it, at its end */

int console_write(char const *buf, size_t len);
void console_say(char const *fmt, ...) __attribute__((format(printf, 1, 2)));
/* A list of configuration problems, sorted, as "capinit: FILE:LINE:
 * error: text" (conf/diag.h). */
struct diag_list_s;
void console_diags(struct diag_list_s *l);
int console_fd(void);
void console_flush(void);
/* Wait (at most ms) until the backlog is out: before capinit exits,
 * reboots, or gives the console to the emergency shell. */
void console_drain(unsigned ms);

#endif

/* supervise/control.h -- the control socket and its loop (control.c; the
 * other control_*.c files serve its requests: control_client.h). */
#ifndef CAPINIT_SUPERVISE_CONTROL_H
#define CAPINIT_SUPERVISE_CONTROL_H

#include <stddef.h>
#include <stdint.h>

#define CONTROL_CLIENTS_MAX 64
#define CONTROL_FDS_MAX (1 + CONTROL_CLIENTS_MAX)  /* the socket and its clients */
struct pollfd;
int control_listen(void);
size_t control_fds(struct pollfd *p, size_t max, uint64_t *deadline);
void control_handle(struct pollfd const *p, size_t n);
void control_close(void);
/* Whether a client that asked for the shutdown (capctl poweroff, reboot,
 * halt) is still connected, within CONTROL_ASKER_MS of its request:
 * capinit ends only once it has read its reply and gone, so that the
 * end (PID 1's last signals, a PID namespace's end) cannot kill it. */
#define CONTROL_ASKER_MS 5000u
int control_asker_waiting(void);

#endif

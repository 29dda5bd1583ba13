/* supervise/peer.h -- who may command capinit: the peer of a control
 * connection and the sender of a signal, judged from what the kernel says
 * of that very process (a pidfd), never from a pid looked up later.
 *
 * Power is capinit's own: effective uid 0 in capinit's user namespace,
 * holding every capability capinit holds there.  A process that made a
 * user namespace of its own holds every capability in it, and none of
 * them counts: its namespace is not capinit's.  docs/security.md has the
 * whole policy. */
#ifndef CAPINIT_SUPERVISE_PEER_H
#define CAPINIT_SUPERVISE_PEER_H

#include <stddef.h>
#include <sys/signalfd.h>

typedef struct peer_rights_s {
  unsigned char may_read;    /* status, log, blame: uid 0 or the control group */
  unsigned char may_read_files; /* verify-facts: uid 0, who may read the
                                   service files whose digests it gives */
  unsigned char may_change;  /* every verb: capinit's own power */
  unsigned char may_power;   /* poweroff, reboot, halt: the power group */
} peer_rights;

/* capinit's effective set and user namespace, read once before the first
 * peer is judged: 0, or -1 with errno. */
int peer_init(void);

/* The rights of the peer of the control connection fd, called as soon as
 * it is accepted.  -1 when the socket names no peer. */
int peer_of_socket(int fd, peer_rights *r);

/* Whether capinit obeys the signal si: sent by the kernel, by the runtime
 * outside capinit's PID namespace (container mode, container = 1), or by a
 * process that could ask the same over the control socket (power_verb: a
 * shutdown, which the power group may ask), or, under the shield, by one
 * that was reaped before capinit could look (it held cap_kill).  who gets the sender in words
 * either way ("pid 42 (uid 0)", "the kernel"). */
int peer_of_signal(struct signalfd_siginfo const *si, int container, int power_verb, char *who, size_t len);

/* While capinit supervises as uid 0: its real and saved uid become one no
 * process has, so that only holders of cap_kill in its user namespace can
 * signal it (its effective uid stays 0).  0, or -1 with errno (not uid 0,
 * or that uid is not mapped in its user namespace: the kernel then lets
 * every uid 0 signal capinit, and peer_of_signal judges them alone). */
int peer_shield(void);
/* Real and saved uid 0 again (before the emergency shell or an exit). */
void peer_unshield(void);

#endif

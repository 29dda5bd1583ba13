/* engine/engine.h -- what the engine's files share (privilege.c, the
 * identity and capability stages; container.c, the container stages):
 * the failure record and the fault-injection hook of test builds. */
#ifndef CAPINIT_SUPERVISE_ENGINE_H
#define CAPINIT_SUPERVISE_ENGINE_H

#include "privilege.h"

/* Fill *f with stage, errno and arg; returns -1. */
int priv_failed(priv_fail *f, int stage, int arg);
/* Stage signals alone: default dispositions for priv_signals_to_reset,
 * an empty mask. */
int priv_reset_signals(void);
/* Stage exec alone; returns only on failure, with *f filled. */
void priv_exec_only(char *const *argv, char *const *envp, priv_fail *f);

#ifdef PRIV_FAULT
#define PRIV_FAULT_HIT(stage) (priv_fault_stage == (stage) ? (errno = EPERM, 1) : 0)
#else
#define PRIV_FAULT_HIT(stage) 0
#endif
/* Test builds: every stage can be forced to fail at its start, whether or
 * not it has anything to do for this service. */
#define STAGE_START(f, x) do { if (PRIV_FAULT_HIT(x)) return priv_failed((f), (x), -1); } while (0)

/* priv_fail.arg of the container stages: a bind's index (0 to
 * CT_BINDS_MAX - 1), CT_ARG_RW + a read-write path's index, or one of
 * these. */
enum {
  CT_ARG_PRIVATE = -10,    /* private mount propagation */
  CT_ARG_ROOT = -11,       /* the root directory as a mount of its own */
  CT_ARG_TMP = -12,        /* a tmpfs on /tmp */
  CT_ARG_VARTMP = -13,     /* a tmpfs on /var/tmp */
  CT_ARG_DEV = -14,        /* /dev */
  CT_ARG_PIVOT = -15,      /* pivot_root */
  CT_ARG_TREE = -16,       /* the whole tree read-only */
  CT_ARG_PROC = -17,       /* /proc writable, its knobs read-only */
  CT_ARG_RW = 100,
};

/* priv_fail.arg of stages card and address: the host's netlink socket,
 * bringing eth0 up, having it announce its address (arp_notify), or
 * (stage card) the service's socket, finding the new
 * card with it and naming it eth0; (stage address) the address already
 * taken: on PARENT itself or on another link of capinit's network, or by
 * another running service's card (PRIV_CARD_TAKEN). */
enum {
  NC_ARG_SOCKET = -20, NC_ARG_UP = -21, NC_ARG_NAME = -22,
  NC_ARG_ON_PARENT = -23, NC_ARG_ON_HOST = -24, NC_ARG_SERVICE = -25,
  NC_ARG_ANNOUNCE = -26,
};

/* Stages card, address and route (engine/netcard.c), after unshare:
 * host is a NETLINK_ROUTE socket opened in capinit's network before it
 * (nl_open), for a service with a card (container_card). */
int netcard_apply(svc_container const *ct, int host, int taken, priv_fail *f);
char *netcard_describe(priv_fail const *f, svc_container const *ct, char *buf, size_t len);

/* Stage filter: the spec's system-call filter, when it has one
 * (filter_needed); 0, or -1 with *f filled. */
int filter_needed(svc const *s);
int filter_apply(svc const *s, priv_fail *f);

/* Stages namespaces to readonly; ct may be NULL (nothing to do). */
int container_apply(svc_container const *ct, int card_taken, priv_fail *f);
/* What a container stage failed to do, for "unable to %s". */
char *container_describe(priv_fail const *f, svc_container const *ct, char *buf, size_t len);

#endif

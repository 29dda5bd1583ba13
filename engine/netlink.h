/* engine/netlink.h -- the project's own NETLINK_ROUTE requests: one
 * message at a time, built in a buffer on the caller's stack, sent, and
 * its acknowledgement read back with the kernel's error.  Only system
 * calls: it runs in the vfork-style child (engine/privilege.h). */
#ifndef CAPINIT_ENGINE_NETLINK_H
#define CAPINIT_ENGINE_NETLINK_H

#include <stddef.h>
#include <netinet/in.h>
#include <linux/netlink.h>
#include <linux/rtnetlink.h>

#define NL_MSG_MAX 512

typedef struct nl_msg_s {
  union {
    struct nlmsghdr h;
    char bytes[NL_MSG_MAX];
  } u;
} nl_msg;

/* A NETLINK_ROUTE socket of the caller's network namespace, for good:
 * it keeps talking to that namespace after the caller leaves it. */
int nl_open(void);
/* Start a request of type (RTM_*) with flags besides NLM_F_REQUEST and
 * NLM_F_ACK, and its fixed header (ifinfomsg, ifaddrmsg, rtmsg): len bytes
 * of body. */
void nl_start(nl_msg *m, int type, int flags, void const *body, size_t len);
/* Append an attribute; returns it (for nl_end when it is a nest). */
struct rtattr *nl_put(nl_msg *m, int type, void const *data, size_t len);
/* Close a nest that nl_put opened with no data. */
void nl_end(nl_msg *m, struct rtattr *nest);
/* Send m and read its acknowledgement: 0, or -1 with errno the kernel's
 * reason (EEXIST, ENODEV, EOPNOTSUPP...). */
int nl_talk(int fd, nl_msg *m);
/* The index of the link that holds the IPv4 address a in the namespace
 * of fd's socket (an RTM_GETADDR dump), 0 if none does, or -1 (errno). */
int nl_address_link(int fd, struct in_addr a);
/* The index of the link name in the namespace of fd's socket, or -1. */
int nl_index(int fd, char const *name);

#endif

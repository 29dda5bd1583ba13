/* engine/netlink.c -- NETLINK_ROUTE requests and their acknowledgements
 * (netlink.h), with raw system calls. */
#include <errno.h>
#include <string.h>
#include <net/if.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "netlink.h"

int nl_open(void)
{
  return (int)syscall(SYS_socket, AF_NETLINK, SOCK_RAW | SOCK_CLOEXEC, NETLINK_ROUTE);
}

void nl_start(nl_msg *m, int type, int flags, void const *body, size_t len)
{
  memset(m, 0, sizeof *m);
  m->u.h.nlmsg_len = (unsigned)NLMSG_LENGTH(len);
  m->u.h.nlmsg_type = (unsigned short)type;
  m->u.h.nlmsg_flags = (unsigned short)(NLM_F_REQUEST | NLM_F_ACK | flags);
  /* one request at a time on a socket: its type tells its answer */
  m->u.h.nlmsg_seq = (unsigned)type;
  memcpy(NLMSG_DATA(&m->u.h), body, len);
}

struct rtattr *nl_put(nl_msg *m, int type, void const *data, size_t len)
{
  struct rtattr *a = (struct rtattr *)(m->u.bytes + NLMSG_ALIGN(m->u.h.nlmsg_len));
  a->rta_type = (unsigned short)type;
  a->rta_len = (unsigned short)RTA_LENGTH(len);
  if (len) memcpy(RTA_DATA(a), data, len);
  m->u.h.nlmsg_len = NLMSG_ALIGN(m->u.h.nlmsg_len) + RTA_ALIGN(a->rta_len);
  return a;
}

void nl_end(nl_msg *m, struct rtattr *nest)
{
  nest->rta_len = (unsigned short)(m->u.bytes + m->u.h.nlmsg_len - (char *)nest);
}

int nl_talk(int fd, nl_msg *m)
{
  /* an error echoes the request (at most NL_MSG_MAX) after its header */
  union {
    struct nlmsghdr h;
    char bytes[NL_MSG_MAX + 256];
  } r;
  struct nlmsgerr const *e;
  long n;
  if (syscall(SYS_sendto, fd, m->u.bytes, m->u.h.nlmsg_len, 0, 0, 0) < 0) return -1;
  do n = syscall(SYS_recvfrom, fd, r.bytes, sizeof r.bytes, 0, 0, 0);
  while (n >= (long)sizeof r.h && r.h.nlmsg_seq != m->u.h.nlmsg_seq);
  if (n < 0) return -1;
  if (n < (long)NLMSG_LENGTH(sizeof *e) || r.h.nlmsg_type != NLMSG_ERROR) {
    errno = EPROTO;
    return -1;
  }
  e = NLMSG_DATA(&r.h);
  if (!e->error) return 0;
  errno = -e->error;
  return -1;
}

int nl_index(int fd, char const *name)
{
  struct ifreq ifr;
  memset(&ifr, 0, sizeof ifr);
  strncpy(ifr.ifr_name, name, IFNAMSIZ - 1);
  if (syscall(SYS_ioctl, fd, SIOCGIFINDEX, &ifr) < 0) return -1;
  return ifr.ifr_ifindex;
}

/* One RTM_GETADDR dump (IPv4), read to its end (NLMSG_DONE), each
 * address's IFA_LOCAL compared with a: the first match's link. */
int nl_address_link(int fd, struct in_addr a)
{
  union {
    struct nlmsghdr h;
    char bytes[8192];  /* a dump's part: at most a page (NLMSG_GOODSIZE) */
  } r;
  struct ifaddrmsg ifa;
  nl_msg m;
  int found = 0;
  long n;
  memset(&ifa, 0, sizeof ifa);
  ifa.ifa_family = AF_INET;
  nl_start(&m, RTM_GETADDR, NLM_F_DUMP, &ifa, sizeof ifa);
  m.u.h.nlmsg_flags &= (unsigned short)~NLM_F_ACK;
  if (syscall(SYS_sendto, fd, m.u.bytes, m.u.h.nlmsg_len, 0, 0, 0) < 0) return -1;
  for (;;) {
    struct nlmsghdr *h = &r.h;
    unsigned left;
    if ((n = syscall(SYS_recvfrom, fd, r.bytes, sizeof r.bytes, 0, 0, 0)) < 0) return -1;
    for (left = (unsigned)n; NLMSG_OK(h, left); h = NLMSG_NEXT(h, left)) {
      struct ifaddrmsg const *am = NLMSG_DATA(h);
      struct rtattr const *at;
      int len;
      if (h->nlmsg_seq != m.u.h.nlmsg_seq) continue;
      if (h->nlmsg_type == NLMSG_DONE) return found;
      if (h->nlmsg_type == NLMSG_ERROR) {
        struct nlmsgerr const *e = NLMSG_DATA(h);
        errno = e->error ? -e->error : EPROTO;
        return -1;
      }
      if (h->nlmsg_type != RTM_NEWADDR || am->ifa_family != AF_INET) continue;
      len = (int)IFA_PAYLOAD(h);
      for (at = IFA_RTA(am); RTA_OK(at, len); at = RTA_NEXT(at, len))
        if (at->rta_type == IFA_LOCAL && RTA_PAYLOAD(at) == 4 && !memcmp(RTA_DATA(at), &a, 4) && !found)
          found = (int)am->ifa_index;
    }
  }
}

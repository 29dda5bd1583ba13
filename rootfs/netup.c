/* rootfs/netup.c -- the appliance's network, up at boot and down at
 * shutdown, by one process: what `ip link set lo up; ip addr add ADDR dev
 * IF; ip link set IF up; ip route add default via GW` do, the same
 * rtnetlink requests, without a shell and four programs (each process
 * costs tens of milliseconds of the boot under TCG).
 *
 *   netup up [IFACE ADDRESS/PREFIX GATEWAY]
 *   netup down [IFACE ADDRESS/PREFIX GATEWAY]
 *
 * up: loopback up; then, when IFACE is there (/sys/class/net/IFACE), its
 * address (no broadcast, as ip's), the link up, the default route.  One
 * line on standard output says what was done and what it held (CapEff);
 * a failure is said on standard error.
 * down: the reverse, each step's failure ignored (what is not there is
 * not taken down).  Needs cap_net_admin and nothing else; exit 0, 1 when
 * a step of up failed (the line says which, with the kernel's reason),
 * 100 for a usage error.  Static, numeric IPv4 addresses only. */
#include <arpa/inet.h>
#include <errno.h>
#include <linux/netlink.h>
#include <linux/rtnetlink.h>
#include <net/if.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "capeff.h"

#define USAGE "usage: netup up|down [IFACE ADDRESS/PREFIX GATEWAY]\n"

static void usage(void)
{
  fputs(USAGE, stderr);
  exit(100);
}

typedef struct req_s {
  struct nlmsghdr h;
  union {
    struct ifinfomsg link;
    struct ifaddrmsg addr;
    struct rtmsg route;
  } u;
  char attrs[64];
} req;

static int nl = -1;
static uint32_t seq;

/* Append one attribute to r. */
static void attr(req *r, unsigned short type, void const *data, size_t len)
{
  struct rtattr *a = (struct rtattr *)((char *)r + NLMSG_ALIGN(r->h.nlmsg_len));
  a->rta_type = type;
  a->rta_len = (unsigned short)RTA_LENGTH(len);
  memcpy(RTA_DATA(a), data, len);
  r->h.nlmsg_len = NLMSG_ALIGN(r->h.nlmsg_len) + RTA_ALIGN(a->rta_len);
}

/* Send r and read the kernel's answer: 0, or the errno value it gives. */
static int talk(req *r)
{
  char buf[1024];
  struct nlmsghdr *h;
  ssize_t n;
  r->h.nlmsg_flags |= NLM_F_REQUEST | NLM_F_ACK;
  r->h.nlmsg_seq = ++seq;
  if (send(nl, r, r->h.nlmsg_len, 0) < 0) return errno;
  for (;;) {
    n = recv(nl, buf, sizeof buf, 0);
    if (n < 0) {
      if (errno == EINTR) continue;
      return errno;
    }
    for (h = (struct nlmsghdr *)buf; NLMSG_OK(h, (size_t)n); h = NLMSG_NEXT(h, n)) {
      if (h->nlmsg_seq != seq || h->nlmsg_type != NLMSG_ERROR) continue;
      return -((struct nlmsgerr *)NLMSG_DATA(h))->error;
    }
  }
}

static void start(req *r, unsigned short type, unsigned short flags, size_t body)
{
  memset(r, 0, sizeof *r);
  r->h.nlmsg_len = (uint32_t)NLMSG_LENGTH(body);
  r->h.nlmsg_type = type;
  r->h.nlmsg_flags = flags;
}

static int link_set(int index, int up)
{
  req r;
  start(&r, RTM_NEWLINK, 0, sizeof r.u.link);
  r.u.link.ifi_family = AF_UNSPEC;
  r.u.link.ifi_index = index;
  r.u.link.ifi_flags = up ? IFF_UP : 0;
  r.u.link.ifi_change = IFF_UP;
  return talk(&r);
}

static int addr_set(int index, struct in_addr a, unsigned prefix, int add)
{
  req r;
  start(&r, add ? RTM_NEWADDR : RTM_DELADDR, add ? NLM_F_CREATE | NLM_F_EXCL : 0, sizeof r.u.addr);
  r.u.addr.ifa_family = AF_INET;
  r.u.addr.ifa_prefixlen = (unsigned char)prefix;
  r.u.addr.ifa_scope = RT_SCOPE_UNIVERSE;
  r.u.addr.ifa_index = (unsigned)index;
  attr(&r, IFA_LOCAL, &a, sizeof a);
  attr(&r, IFA_ADDRESS, &a, sizeof a);
  return talk(&r);
}

static int default_route(struct in_addr gw, int add)
{
  req r;
  start(&r, add ? RTM_NEWROUTE : RTM_DELROUTE, add ? NLM_F_CREATE | NLM_F_EXCL : 0, sizeof r.u.route);
  r.u.route.rtm_family = AF_INET;
  r.u.route.rtm_table = RT_TABLE_MAIN;
  r.u.route.rtm_protocol = RTPROT_BOOT;
  r.u.route.rtm_scope = RT_SCOPE_UNIVERSE;
  r.u.route.rtm_type = RTN_UNICAST;
  attr(&r, RTA_GATEWAY, &gw, sizeof gw);
  return talk(&r);
}

/* "10.0.2.15/24" */
static int parse_prefix(char const *s, struct in_addr *a, unsigned *prefix)
{
  char host[INET_ADDRSTRLEN], *end;
  char const *slash = strchr(s, '/');
  unsigned long p;
  if (!slash || (size_t)(slash - s) >= sizeof host) return -1;
  memcpy(host, s, (size_t)(slash - s));
  host[slash - s] = 0;
  errno = 0;
  p = strtoul(slash + 1, &end, 10);
  if (errno || end == slash + 1 || *end || p > 32) return -1;
  *prefix = (unsigned)p;
  return inet_pton(AF_INET, host, a) == 1 ? 0 : -1;
}

static int fail(char const *what, int err)
{
  fprintf(stderr, "net: fatal: unable to %s: %s\n", what, strerror(err));
  return 1;
}

int main(int argc, char **argv)
{
  struct sockaddr_nl me = { .nl_family = AF_NETLINK };
  struct in_addr addr = { 0 }, gw = { 0 };
  unsigned prefix = 0;
  char const *iface = 0;
  char eff[32], what[128];
  int up, lo, dev = 0, r;

  if (argc == 2 && (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h"))) {
    fputs(USAGE, stdout);
    return 0;
  }
  if (argc != 2 && argc != 5) usage();
  if (!strcmp(argv[1], "up")) up = 1;
  else if (!strcmp(argv[1], "down")) up = 0;
  else usage();
  if (argc == 5) {
    iface = argv[2];
    if (strlen(iface) >= IFNAMSIZ || strchr(iface, '/') || parse_prefix(argv[3], &addr, &prefix) < 0 ||
        inet_pton(AF_INET, argv[4], &gw) != 1)
      usage();
  }
  setvbuf(stdout, 0, _IOLBF, 0);
  nl = socket(AF_NETLINK, SOCK_RAW | SOCK_CLOEXEC, NETLINK_ROUTE);
  if (nl < 0 || bind(nl, (struct sockaddr *)&me, sizeof me) < 0) return fail("open a netlink socket", errno);
  lo = (int)if_nametoindex("lo");
  if (iface) dev = (int)if_nametoindex(iface); /* 0: no such interface */
  if (!up) {
    if (dev) {
      default_route(gw, 0);
      link_set(dev, 0);
      addr_set(dev, addr, prefix, 0);
    }
    if (lo) link_set(lo, 0);
    return 0;
  }
  if (!lo) return fail("find lo", ENODEV);
  if ((r = link_set(lo, 1))) return fail("bring lo up", r);
  cap_eff(eff, sizeof eff);
  if (!dev) {
    printf("net: lo up, no %s (CapEff:\t%s)\n", iface ? iface : "other interface", eff);
    return 0;
  }
  if ((r = addr_set(dev, addr, prefix, 1))) {
    snprintf(what, sizeof what, "add %s to %s", argv[3], iface);
    return fail(what, r);
  }
  if ((r = link_set(dev, 1))) {
    snprintf(what, sizeof what, "bring %s up", iface);
    return fail(what, r);
  }
  if ((r = default_route(gw, 1))) {
    snprintf(what, sizeof what, "add the default route via %s", argv[4]);
    return fail(what, r);
  }
  printf("net: lo up, %s %s via %s (CapEff:\t%s)\n", iface, argv[3], argv[4], eff);
  return 0;
}

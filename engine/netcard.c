/* engine/netcard.c -- stages card, address and route (conf/stages.h): a
 * service's card of its own (network = macvlan:PARENT or ipvlan:PARENT).
 *
 * The host's socket is opened before unshare(CLONE_NEWNET) and keeps
 * talking to the host's namespace: there it finds PARENT and makes the
 * link, created directly in the service's new namespace (IFLA_NET_NS_PID,
 * the child's own pid: no /proc needed).  Its first name is ciPID, not
 * eth0: Linux 6.1 refuses a new link whose name its parent's namespace
 * already has (EEXIST, though the link is born in another; measured on
 * Debian's 6.1 with a parent named eth0, which 6.18 allows), so a socket
 * of the new namespace renames it eth0 there, where only lo is.  A link
 * born there dies with the namespace, so a failure at any later step
 * leaves nothing behind.  Then eth0 gets its address, goes up, and gets
 * the default route.  It goes up with arp_notify on: the kernel announces
 * the address (a gratuitous ARP) as it does, so that a neighbour which
 * knew it at another MAC learns the new one at once: QEMU's user network
 * otherwise kept sending a restarted service's traffic to the card of its
 * previous run, gone with that run's namespace. */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <arpa/inet.h>
#include <net/if.h>
#include <sys/syscall.h>
#include <unistd.h>
#include <linux/if_link.h>
#include <linux/ip.h>

#include "engine.h"
#include "netlink.h"

#ifndef IPVLAN_MODE_L2
#define IPVLAN_MODE_L2 0
#endif

static int put_u32(nl_msg *m, int type, unsigned v)
{
  return nl_put(m, type, &v, sizeof v) ? 0 : -1;
}

/* the card's first name, ciPID: the child's pid in its own PID namespace.
 * Two children may share one (ci2, under private-pids) without a clash:
 * each link is born in its own child's namespace, under the kernel's
 * rtnl lock; only a link of that name in capinit's network clashes. */
static void first_name(char *name, size_t len)
{
  snprintf(name, len, "ci%ld", (long)syscall(SYS_getpid));
}

/* RTM_NEWLINK: KIND on the host's PARENT, ciPID in our namespace */
static int make_link(svc_container const *ct, int host)
{
  char name[IFNAMSIZ];
  struct ifinfomsg ifi;
  struct rtattr *info, *data;
  nl_msg m;
  int macvlan = ct->network == NET_MACVLAN, parent = nl_index(host, ct->parent);
  unsigned short ipvlan_mode = IPVLAN_MODE_L2;
  if (parent < 0) return -1;
  memset(&ifi, 0, sizeof ifi);
  nl_start(&m, RTM_NEWLINK, NLM_F_CREATE | NLM_F_EXCL, &ifi, sizeof ifi);
  put_u32(&m, IFLA_LINK, (unsigned)parent);
  first_name(name, sizeof name);
  nl_put(&m, IFLA_IFNAME, name, strlen(name) + 1);
  put_u32(&m, IFLA_NET_NS_PID, (unsigned)syscall(SYS_getpid));
  info = nl_put(&m, IFLA_LINKINFO, 0, 0);
  nl_put(&m, IFLA_INFO_KIND, macvlan ? "macvlan" : "ipvlan", macvlan ? 8 : 7);
  data = nl_put(&m, IFLA_INFO_DATA, 0, 0);
  if (macvlan) put_u32(&m, IFLA_MACVLAN_MODE, MACVLAN_MODE_BRIDGE);
  else nl_put(&m, IFLA_IPVLAN_MODE, &ipvlan_mode, sizeof ipvlan_mode);
  nl_end(&m, data);
  nl_end(&m, info);
  return nl_talk(host, &m);
}

/* In our namespace: ciPID's index, and the name eth0 (the link is down) */
static int name_card(int fd)
{
  char name[IFNAMSIZ];
  struct ifinfomsg ifi;
  nl_msg m;
  int index;
  first_name(name, sizeof name);
  if ((index = nl_index(fd, name)) < 0) return -1;
  memset(&ifi, 0, sizeof ifi);
  ifi.ifi_index = index;
  nl_start(&m, RTM_NEWLINK, 0, &ifi, sizeof ifi);
  nl_put(&m, IFLA_IFNAME, CT_CARD_NAME, sizeof CT_CARD_NAME);
  return nl_talk(fd, &m) < 0 ? -1 : index;
}

/* RTM_NEWLINK: IFLA_AF_SPEC, AF_INET, IFLA_INET_CONF, ARP_NOTIFY = 1.
 * Before the link goes up: the kernel announces at NETDEV_UP, and applies
 * a message's flags before its IFLA_AF_SPEC. */
static int announce(int fd, int index)
{
  struct ifinfomsg ifi;
  struct rtattr *spec, *inet, *conf;
  nl_msg m;
  memset(&ifi, 0, sizeof ifi);
  ifi.ifi_index = index;
  nl_start(&m, RTM_NEWLINK, 0, &ifi, sizeof ifi);
  spec = nl_put(&m, IFLA_AF_SPEC, 0, 0);
  inet = nl_put(&m, AF_INET, 0, 0);
  conf = nl_put(&m, IFLA_INET_CONF, 0, 0);
  put_u32(&m, IPV4_DEVCONF_ARP_NOTIFY, 1);
  nl_end(&m, conf);
  nl_end(&m, inet);
  nl_end(&m, spec);
  return nl_talk(fd, &m);
}

/* The address, unless it is known to be taken: by another running
 * service's card (capinit found it: taken), or in capinit's own network
 * (on PARENT or another link: the host socket's dump).  The kernel
 * refuses neither for a macvlan, whose address lives in a namespace of
 * its own; then RTM_NEWADDR, arp_notify, and RTM_NEWLINK with IFF_UP. */
static int give_address(svc_container const *ct, int host, int taken, int fd, int index, priv_fail *f)
{
  struct ifaddrmsg ifa = { AF_INET, ct->prefix, 0, RT_SCOPE_UNIVERSE, (unsigned)index };
  struct ifinfomsg ifi;
  nl_msg m;
  int on;
  if (taken) {
    errno = EADDRINUSE;
    return priv_failed(f, STAGE_ADDRESS, NC_ARG_SERVICE);
  }
  if ((on = nl_address_link(host, ct->address)) < 0) return priv_failed(f, STAGE_ADDRESS, NC_ARG_ON_HOST);
  if (on) {
    errno = EADDRINUSE;
    return priv_failed(f, STAGE_ADDRESS, on == nl_index(host, ct->parent) ? NC_ARG_ON_PARENT : NC_ARG_ON_HOST);
  }
  nl_start(&m, RTM_NEWADDR, NLM_F_CREATE | NLM_F_EXCL, &ifa, sizeof ifa);
  nl_put(&m, IFA_LOCAL, &ct->address, 4);
  nl_put(&m, IFA_ADDRESS, &ct->address, 4);
  if (nl_talk(fd, &m) < 0) return priv_failed(f, STAGE_ADDRESS, -1);
  if (announce(fd, index) < 0) return priv_failed(f, STAGE_ADDRESS, NC_ARG_ANNOUNCE);
  memset(&ifi, 0, sizeof ifi);
  ifi.ifi_index = index;
  ifi.ifi_flags = ifi.ifi_change = IFF_UP;
  nl_start(&m, RTM_NEWLINK, 0, &ifi, sizeof ifi);
  if (nl_talk(fd, &m) < 0) return priv_failed(f, STAGE_ADDRESS, NC_ARG_UP);
  return 0;
}

static int add_route(svc_container const *ct, int fd, int index)
{
  struct rtmsg rt = { AF_INET, 0, 0, 0, RT_TABLE_MAIN, RTPROT_BOOT, RT_SCOPE_UNIVERSE, RTN_UNICAST, 0 };
  nl_msg m;
  nl_start(&m, RTM_NEWROUTE, NLM_F_CREATE | NLM_F_EXCL, &rt, sizeof rt);
  nl_put(&m, RTA_GATEWAY, &ct->gateway, 4);
  put_u32(&m, RTA_OIF, (unsigned)index);
  return nl_talk(fd, &m);
}

static int netcard_stages(svc_container const *ct, int host, int taken, int *own, priv_fail *f)
{
  int index = -1;
  STAGE_START(f, STAGE_CARD);
  if (container_card(ct)) {
    if (make_link(ct, host) < 0) return priv_failed(f, STAGE_CARD, -1);
    if ((*own = nl_open()) < 0 || (index = name_card(*own)) < 0) return priv_failed(f, STAGE_CARD, NC_ARG_NAME);
  }
  STAGE_START(f, STAGE_ADDRESS);
  if (container_card(ct) && give_address(ct, host, taken, *own, index, f) < 0) return -1;
  STAGE_START(f, STAGE_ROUTE);
  if (container_card(ct) && ct->gateway.s_addr && add_route(ct, *own, index) < 0)
    return priv_failed(f, STAGE_ROUTE, -1);
  return 0;
}

int netcard_apply(svc_container const *ct, int host, int taken, priv_fail *f)
{
  int own = -1, r = netcard_stages(ct, host, taken, &own, f);
  if (own >= 0) {
    int e = errno;
    syscall(SYS_close, own);
    errno = e;
  }
  return r;
}

char *netcard_describe(priv_fail const *f, svc_container const *ct, char *buf, size_t len)
{
  char a[INET_ADDRSTRLEN] = "", g[INET_ADDRSTRLEN] = "";
  char const *kind = ct && ct->network == NET_IPVLAN ? "ipvlan" : "macvlan", *parent = ct ? ct->parent : 0;
  if (!parent) parent = "?";
  if (ct) {
    inet_ntop(AF_INET, &ct->address, a, sizeof a);
    inet_ntop(AF_INET, &ct->gateway, g, sizeof g);
  }
  if (f->stage == STAGE_CARD && f->arg == NC_ARG_SOCKET)
    snprintf(buf, len, "open a netlink socket in capinit's network");
  else if (f->stage == STAGE_CARD && f->arg == NC_ARG_NAME)
    snprintf(buf, len, "name the new %s card %s in the service's network", kind, CT_CARD_NAME);
  else if (f->stage == STAGE_CARD)
    snprintf(buf, len, "make the %s card %s on %s%s%s%s", kind, CT_CARD_NAME, parent,
             f->err == ENODEV ? " (capinit's network has no link " : "", f->err == ENODEV ? parent : "",
             f->err == ENODEV ? ": name one that `ip link` lists)"
             : f->err == EEXIST ? " (capinit's network has a link of the card's first name, ci and the pid: rename it)"
             : f->err == EBUSY ? " (it carries cards of the other kind: macvlan and ipvlan cards cannot share a parent)"
             : f->err == EOPNOTSUPP && ct && ct->network == NET_IPVLAN ? " (the kernel has no ipvlan: use macvlan or load the module)"
             : f->err == EOPNOTSUPP ? " (the kernel has no macvlan: use ipvlan or load the module)" : "");
  else if (f->stage == STAGE_ADDRESS && f->arg == NC_ARG_UP) snprintf(buf, len, "bring %s up", CT_CARD_NAME);
  else if (f->stage == STAGE_ADDRESS && f->arg == NC_ARG_ANNOUNCE)
    snprintf(buf, len, "have %s announce its address (arp_notify)", CT_CARD_NAME);
  else if (f->stage == STAGE_ADDRESS && f->arg == NC_ARG_ON_HOST && f->err != EADDRINUSE)
    snprintf(buf, len, "list the addresses of capinit's network");
  else if (f->stage == STAGE_ADDRESS && f->err == EADDRINUSE)
    snprintf(buf, len, "give %s the address %s/%u (%s%s%s has it: give the service a free address)", CT_CARD_NAME, a,
             ct ? ct->prefix : 0,
             f->arg == NC_ARG_ON_PARENT ? "capinit's network, on the parent "
             : f->arg == NC_ARG_ON_HOST ? "capinit's network, on a link other than "
             : f->arg == NC_ARG_SERVICE ? "another running service's card on " : "another ipvlan card on ",
             parent, f->arg == NC_ARG_ON_HOST ? " (`ip -4 addr` says which)," : f->arg == NC_ARG_ON_PARENT ? "," : "");
  else if (f->stage == STAGE_ADDRESS)
    snprintf(buf, len, "give %s the address %s/%u", CT_CARD_NAME, a, ct ? ct->prefix : 0);
  else snprintf(buf, len, "add the default route via %s on %s", g, CT_CARD_NAME);
  return buf;
}

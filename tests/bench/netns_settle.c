/* tests/bench/netns_settle.c -- wait until the kernel has torn down every
 * network namespace released before it started.
 *
 *   netns_settle [-T TIMEOUT_S]
 *
 * The last reference to a network namespace only queues it: the kernel
 * tears namespaces down later, in batches, in one ordered work queue
 * (cleanup_net: unhash, every subsystem's exit, the loopback device's
 * unregistration, RCU grace periods).  A benchmark that ends a run of
 * 1000 namespaces would otherwise leave that work to the next run.
 *
 * There is no count of namespaces being torn down to read, so this asks
 * the kernel itself.  Each namespace the kernel tears down loses its ids
 * in the other namespaces, and each lost id is announced (RTM_DELNSID) to
 * the listeners of RTNLGRP_NSID there.  So: a sentinel namespace, with an
 * id in ours, is released; its RTM_DELNSID arrives when the batch that
 * holds it starts, and that batch holds everything released before it
 * (or an earlier batch did).  Then a second sentinel: it is released after
 * the first batch began, so it is in a later one, which starts only when
 * the first has ended.  Its RTM_DELNSID means that every namespace
 * released before this program started is gone.
 *
 * Prints "netns_settle_ns NS", its own run time (two namespaces made and
 * torn down: its cost with nothing to wait for is what a benchmark
 * subtracts).  Exits 111 on a failed system call, 1 if the deadline
 * (-T, 300 s) passes first. */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <sched.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>
#include <linux/net_namespace.h>
#include <linux/netlink.h>
#include <linux/rtnetlink.h>

static uint64_t now_ns(void)
{
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

static void die(char const *what)
{
  fprintf(stderr, "netns_settle: fatal: unable to %s: %s\n", what, strerror(errno));
  exit(111);
}

/* A new network namespace, held only by the returned descriptor; the
 * process stays in its own. */
static int sentinel(void)
{
  int mine = open("/proc/self/ns/net", O_RDONLY | O_CLOEXEC), fd;
  if (mine < 0) die("open /proc/self/ns/net");
  if (unshare(CLONE_NEWNET) < 0) die("create a network namespace");
  fd = open("/proc/self/ns/net", O_RDONLY | O_CLOEXEC);
  if (fd < 0) die("open the new /proc/self/ns/net");
  if (setns(mine, CLONE_NEWNET) < 0) die("return to the network namespace");
  close(mine);
  return fd;
}

static void put_attr(struct nlmsghdr *h, unsigned short type, void const *data, unsigned short len)
{
  struct nlattr *a = (struct nlattr *)((char *)h + NLMSG_ALIGN(h->nlmsg_len));
  a->nla_type = type;
  a->nla_len = (unsigned short)(NLA_HDRLEN + len);
  memcpy((char *)a + NLA_HDRLEN, data, len);
  h->nlmsg_len = NLMSG_ALIGN(h->nlmsg_len) + NLA_ALIGN(a->nla_len);
}

/* The NETNSA_NSID of an RTM_NEWNSID or RTM_DELNSID message, or -1. */
static int nsid_of(struct nlmsghdr const *h)
{
  struct nlattr const *a = (struct nlattr const *)((char const *)NLMSG_DATA(h) + NLMSG_ALIGN(sizeof(struct rtgenmsg)));
  int left = (int)h->nlmsg_len - (int)NLMSG_LENGTH(NLMSG_ALIGN(sizeof(struct rtgenmsg)));
  while (left >= NLA_HDRLEN && a->nla_len >= NLA_HDRLEN && a->nla_len <= left) {
    if ((a->nla_type & NLA_TYPE_MASK) == NETNSA_NSID && a->nla_len >= NLA_HDRLEN + 4) {
      int32_t id;
      memcpy(&id, (char const *)a + NLA_HDRLEN, 4);
      return id;
    }
    left -= NLA_ALIGN(a->nla_len);
    a = (struct nlattr const *)((char const *)a + NLA_ALIGN(a->nla_len));
  }
  return -1;
}

/* Wait for a message: type RTM_NEWNSID with sequence seq (the echo of
 * our request: *id is its nsid), or RTM_DELNSID of id.  Returns 0 when
 * found, -1 at the deadline. */
static int wait_for(int s, int type, uint32_t seq, int *id, uint64_t deadline)
{
  static char buf[32768] __attribute__((aligned(8)));
  for (;;) {
    struct pollfd p = { s, POLLIN, 0 };
    uint64_t t = now_ns();
    ssize_t n;
    struct nlmsghdr *h;
    if (t >= deadline) return -1;
    if (poll(&p, 1, (int)((deadline - t) / 1000000u) + 1) < 0) {
      if (errno == EINTR) continue;
      die("poll the netlink socket");
    }
    if (!p.revents) continue;
    n = recv(s, buf, sizeof buf, 0);
    if (n < 0) {
      if (errno == EINTR) continue;
      if (errno == ENOBUFS) die("read the netlink socket (messages lost)");
      die("read the netlink socket");
    }
    for (h = (struct nlmsghdr *)buf; NLMSG_OK(h, (unsigned)n); h = NLMSG_NEXT(h, n)) {
      if (h->nlmsg_type == NLMSG_ERROR) {
        struct nlmsgerr const *e = NLMSG_DATA(h);
        if (h->nlmsg_seq == seq && e->error) {
          errno = -e->error;
          die("give the sentinel namespace an id (RTM_NEWNSID)");
        }
        continue;
      }
      if (h->nlmsg_type != type) continue;
      if (type == RTM_NEWNSID && h->nlmsg_seq == seq) {
        *id = nsid_of(h);
        if (*id < 0) {
          errno = EPROTO;
          die("read the sentinel's id");
        }
        return 0;
      }
      if (type == RTM_DELNSID && nsid_of(h) == *id) return 0;
    }
  }
}

/* One sentinel: made, given an id in our namespace, released; returns
 * when the kernel has dropped that id, -1 at the deadline. */
static int one_sentinel(int s, uint32_t seq, uint64_t deadline)
{
  struct {
    struct nlmsghdr h;
    struct rtgenmsg g;
    char attrs[64];
  } req;
  int ns = sentinel(), id = -1;
  uint32_t fd = (uint32_t)ns;
  int32_t any = -1;
  memset(&req, 0, sizeof req);
  req.h.nlmsg_len = NLMSG_LENGTH(sizeof req.g);
  req.h.nlmsg_type = RTM_NEWNSID;
  req.h.nlmsg_flags = NLM_F_REQUEST | NLM_F_ACK | NLM_F_ECHO;
  req.h.nlmsg_seq = seq;
  req.g.rtgen_family = AF_UNSPEC;
  put_attr(&req.h, NETNSA_FD, &fd, sizeof fd);
  put_attr(&req.h, NETNSA_NSID, &any, sizeof any);
  if (send(s, &req, req.h.nlmsg_len, 0) < 0) die("send RTM_NEWNSID");
  if (wait_for(s, RTM_NEWNSID, seq, &id, deadline) < 0) return -1;
  close(ns);  /* the last reference: queued for teardown */
  return wait_for(s, RTM_DELNSID, 0, &id, deadline);
}

int main(int argc, char **argv)
{
  uint64_t t0 = now_ns(), timeout_s = 300, deadline;
  struct sockaddr_nl a;
  int s, opt, group = RTNLGRP_NSID;

  while ((opt = getopt(argc, argv, "T:")) != -1) {
    if (opt == 'T') timeout_s = strtoull(optarg, 0, 10);
    else {
      fputs("netns_settle: usage: netns_settle [-T TIMEOUT_S]\n", stderr);
      return 100;
    }
  }
  deadline = t0 + timeout_s * 1000000000ull;
  s = socket(AF_NETLINK, SOCK_RAW | SOCK_CLOEXEC, NETLINK_ROUTE);
  if (s < 0) die("open a netlink socket");
  memset(&a, 0, sizeof a);
  a.nl_family = AF_NETLINK;
  if (bind(s, (struct sockaddr *)&a, sizeof a) < 0) die("bind the netlink socket");
  if (setsockopt(s, SOL_NETLINK, NETLINK_ADD_MEMBERSHIP, &group, sizeof group) < 0)
    die("listen to RTNLGRP_NSID");
  if (one_sentinel(s, 1, deadline) < 0 || one_sentinel(s, 2, deadline) < 0) {
    fprintf(stderr, "netns_settle: network namespaces still being torn down after %llu s\n",
            (unsigned long long)timeout_s);
    return 1;
  }
  printf("netns_settle_ns %llu\n", (unsigned long long)(now_ns() - t0));
  return 0;
}

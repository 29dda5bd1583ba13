/* rootfs/pinger.c -- the appliance's uplink monitor: sends an ICMP echo
 * request to one IPv4 address every INTERVAL seconds and prints one line
 * per answer (or per timeout) on its standard output, which capinit logs.
 *
 *   pinger [-i SECONDS] [-c COUNT] [-W SECONDS] ADDRESS
 *
 * -i the interval (10), -c stop after COUNT requests (0: never; then exit
 * 0 if any answer came), -W how long to wait for each answer (1).
 *
 * It opens a raw ICMP socket, which needs cap_net_raw and nothing else.
 * In the appliance that capability comes only from the file itself
 * (/etc/capinit/filecaps: cap_net_raw+ep); its service file grants none.
 * A single-purpose program, so that the file capability gives exactly
 * this, unlike a multi-call binary where every applet would get it.
 * Static, no DNS, no libcap: numeric addresses only. */
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <netinet/ip.h>
#include <netinet/ip_icmp.h>
#include <poll.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

static void usage(void)
{
  fputs("usage: pinger [-i SECONDS] [-c COUNT] [-W SECONDS] ADDRESS\n", stderr);
  exit(100);
}

static long number(char const *s)
{
  char *end;
  long v;
  errno = 0;
  v = strtol(s, &end, 10);
  if (errno || end == s || *end || v < 0 || v > 86400) usage();
  return v;
}

static uint16_t checksum(void const *data, size_t len)
{
  unsigned char const *p = data;
  uint32_t sum = 0;
  for (; len > 1; p += 2, len -= 2) sum += (uint32_t)p[0] << 8 | p[1];
  if (len) sum += (uint32_t)p[0] << 8;
  while (sum >> 16) sum = (sum & 0xffff) + (sum >> 16);
  return htons((uint16_t)~sum);
}

static int64_t now_us(void)
{
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (int64_t)ts.tv_sec * 1000000 + ts.tv_nsec / 1000;
}

/* Wait until DEADLINE for the echo reply (ID, SEQ).  Returns its TTL, or
 * -1 on a timeout. */
static int wait_reply(int fd, struct in_addr to, uint16_t id, uint16_t seq, int64_t deadline)
{
  unsigned char buf[1500];
  for (;;) {
    int64_t left = deadline - now_us();
    struct pollfd p = { fd, POLLIN, 0 };
    struct sockaddr_in from;
    socklen_t fl = sizeof from;
    ssize_t n;
    struct ip const *iph;
    struct icmphdr const *ic;
    size_t hl;
    if (left <= 0) return -1;
    if (poll(&p, 1, (int)((left + 999) / 1000)) <= 0) continue;
    n = recvfrom(fd, buf, sizeof buf, 0, (struct sockaddr *)&from, &fl);
    if (n < (ssize_t)sizeof(struct ip)) continue;
    iph = (struct ip const *)buf;
    hl = (size_t)iph->ip_hl * 4;
    if ((size_t)n < hl + sizeof *ic || from.sin_addr.s_addr != to.s_addr) continue;
    ic = (struct icmphdr const *)(buf + hl);
    if (ic->type == ICMP_ECHOREPLY && ic->un.echo.id == htons(id) && ic->un.echo.sequence == htons(seq))
      return iph->ip_ttl;
  }
}

/* One echo request, sequence seq, and its reply within wait_s seconds,
 * each said in one line; *t0 is when it was sent.  1 if it was answered. */
static int ping_once(int fd, struct sockaddr_in const *to, char const *name, uint16_t id, uint16_t seq,
                     long wait_s, int64_t *t0)
{
  struct {
    struct icmphdr h;
    char payload[32];
  } req;
  int ttl;
  memset(&req, 0, sizeof req);
  req.h.type = ICMP_ECHO;
  req.h.un.echo.id = htons(id);
  req.h.un.echo.sequence = htons(seq);
  memcpy(req.payload, "capinit appliance pinger", 24);
  req.h.checksum = checksum(&req, sizeof req);
  *t0 = now_us();
  if (sendto(fd, &req, sizeof req, 0, (struct sockaddr const *)to, sizeof *to) < 0) {
    printf("unable to send to %s: seq=%u: %s\n", name, seq, strerror(errno));
  } else if ((ttl = wait_reply(fd, to->sin_addr, id, seq, *t0 + wait_s * 1000000)) >= 0) {
    int64_t us = now_us() - *t0;
    printf("reply from %s: seq=%u ttl=%d time=%lld.%03lld ms\n", name, seq, ttl,
           (long long)(us / 1000), (long long)(us % 1000));
    return 1;
  } else {
    printf("no reply from %s: seq=%u (waited %ld s)\n", name, seq, wait_s);
  }
  return 0;
}

static void sleep_until_us(int64_t next)
{
  int64_t left;
  while ((left = next - now_us()) > 0) {
    struct timespec ts = { (time_t)(left / 1000000), (long)(left % 1000000) * 1000 };
    nanosleep(&ts, 0);
  }
}

int main(int argc, char **argv)
{
  long interval = 10, count = 0, wait_s = 1, sent = 0, answered = 0;
  struct sockaddr_in to;
  uint16_t id = (uint16_t)getpid();
  int c, fd;

  while ((c = getopt(argc, argv, "i:c:W:")) != -1) {
    switch (c) {
      case 'i': interval = number(optarg); break;
      case 'c': count = number(optarg); break;
      case 'W': wait_s = number(optarg); break;
      default: usage();
    }
  }
  if (optind != argc - 1 || wait_s < 1) usage();
  memset(&to, 0, sizeof to);
  to.sin_family = AF_INET;
  if (inet_pton(AF_INET, argv[optind], &to.sin_addr) != 1) {
    fprintf(stderr, "pinger: fatal: not an IPv4 address: %s\n", argv[optind]);
    return 100;
  }
  setvbuf(stdout, 0, _IOLBF, 0);

  fd = socket(AF_INET, SOCK_RAW | SOCK_CLOEXEC, IPPROTO_ICMP);
  if (fd < 0) {
    fprintf(stderr, "pinger: fatal: unable to open a raw ICMP socket: %s (it needs cap_net_raw)\n", strerror(errno));
    return 111;
  }
  printf("pinger: raw ICMP socket open; pinging %s every %ld s\n", argv[optind], interval);

  for (;;) {
    int64_t t0;
    uint16_t seq = (uint16_t)++sent;
    answered += ping_once(fd, &to, argv[optind], id, seq, wait_s, &t0);
    if (count && sent >= count) return answered ? 0 : 1;
    sleep_until_us(t0 + (int64_t)interval * 1000000);
  }
}

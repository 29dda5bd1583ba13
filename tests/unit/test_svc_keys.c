/* Unit tests: every key of the service-file table round-trips into the
 * exact struct field it sets (conf/svc_keys.c, conf/svc.c); the defaults;
 * capexec's "key=value" pairs (svc_load_pairs); capinit.conf
 * (conf/capinit_conf.c).
 *
 * A key added to svc_keys[] or capinit_conf_keys[] without a case here
 * fails the coverage checks at the end. */
#include <errno.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/capability.h>
#include <sys/resource.h>
#include <arpa/inet.h>
#include <unistd.h>

#include "../../conf/diag.h"
#include "../../conf/keys.h"
#include "../../conf/parse.h"
#include "../../conf/svc.h"
#include "../../conf/syscalls.h"
#include "t.h"

#define ROOT "tests/unit/root"
#define OK "command = /bin/true\n"
#define BIT(c) ((uint64_t)1 << (c))

static char *tmpdir;

static void bail(char const *what, char const *path)
{
  printf("Bail out! %s %s: %s\n", what, path, strerror(errno));
  exit(1);
}

static void write_file(char const *path, char const *text)
{
  FILE *f = fopen(path, "w");
  size_t len = strlen(text);
  if (!f || fwrite(text, 1, len, f) != len || fclose(f)) bail("write", path);
}

static char *render(diag_list const *l)
{
  char *out = 0;
  size_t len = 0, i;
  FILE *f = open_memstream(&out, &len);
  if (!f) bail("open_memstream", "");
  for (i = 0; i < l->n; i++)
    fprintf(f, "%s:%u: %s%s\n", l->v[i].file, l->v[i].line,
            l->v[i].level == DIAG_WARNING ? "warning: " : "", l->v[i].text);
  fclose(f);
  return out;
}

/* ---- comparisons of whole fields ------------------------------------------ */

static void argv_is(char *const *got, char const *const *want, char const *what)
{
  size_t i;
  int same = got != 0;
  for (i = 0; same && want[i]; i++) same = got[i] && !strcmp(got[i], want[i]);
  same = same && !got[i];
  t_ok(same, "%s", what);
  if (!same) {
    printf("#   got:");
    for (i = 0; got && got[i]; i++) printf(" [%s]", got[i]);
    printf("%s\n", got ? "" : " (null)");
  }
}

static void gids_are(svc const *s, gid_t const *want, size_t n, char const *what)
{
  size_t i;
  int same = s->ngroups == n;
  for (i = 0; same && i < n; i++) same = s->groups[i] == want[i];
  t_ok(same, "%s", what);
  if (!same) {
    printf("#   got %zu groups:", s->ngroups);
    for (i = 0; i < s->ngroups; i++) printf(" %u", (unsigned)s->groups[i]);
    printf("\n");
  }
}

static void ids_are(svc const *s, uid_t uid, gid_t gid, gid_t const *groups, size_t n, char const *what)
{
  char buf[256];
  snprintf(buf, sizeof buf, "%s: uid", what);
  t_ueq(s->uid, uid, "%s", buf);
  snprintf(buf, sizeof buf, "%s: gid", what);
  t_ueq(s->gid, gid, "%s", buf);
  snprintf(buf, sizeof buf, "%s: supplementary groups", what);
  gids_are(s, groups, n, buf);
}

static void rlimit_is(svc const *s, int res, rlim_t soft, rlim_t hard, char const *what)
{
  static svc_rlimit const none;
  svc_rlimit const *r = s->rlimit ? &s->rlimit[res] : &none;
  size_t i, others = 0;
  t_ok(r->set == 1 && r->soft == soft && r->hard == hard,
       "%s: set %u, soft %llu, hard %llu", what, r->set, (unsigned long long)r->soft,
       (unsigned long long)r->hard);
  for (i = 0; s->rlimit && i < RLIM_NLIMITS; i++) others += (int)i != res && s->rlimit[i].set;
  t_ueq(others, 0, "%s: no other limit set", what);
}

static void names_are(char *const *got, size_t n, char const *const *want, char const *what)
{
  size_t i, nwant = 0;
  int same;
  while (want[nwant]) nwant++;
  same = n == nwant;
  for (i = 0; same && i < n; i++) same = !strcmp(got[i], want[i]);
  t_ok(same, "%s (%zu names)", what, n);
}

/* ---- round trips of svc_keys[] ------------------------------------------- */

typedef struct roundtrip_s {
  char const *key;         /* the key this case is about, as written */
  char const *text;        /* the whole service file, x.svc */
  void (*check)(svc const *s, char const *what);
} roundtrip;

static void description_trimmed(svc const *s, char const *what)
{
  t_streq(s->description, "web server, no root", "%s", what);
}

static void type_oneshot(svc const *s, char const *what)
{
  t_ueq(s->type, SVC_ONESHOT, "%s: type", what);
  t_ueq(s->restart, RESTART_NEVER, "%s: restart defaults to never", what);
}

static void type_longrun(svc const *s, char const *what)
{
  t_ueq(s->type, SVC_LONGRUN, "%s: type", what);
  t_ueq(s->restart, RESTART_ALWAYS, "%s: restart defaults to always", what);
}

static void command_words(svc const *s, char const *what)
{
  static char const *const want[] = { "/bin/echo", "a b", "c\\d", "say \"x\"", "", 0 };
  argv_is(s->argv, want, what);
}

static void stop_command_words(svc const *s, char const *what)
{
  static char const *const want[] = { "/bin/umount", "-a", "-r", 0 };
  static char const *const cmd[] = { "/bin/mount", "-a", 0 };
  argv_is(s->stop_argv, want, what);
  argv_is(s->argv, cmd, "stop-command: command unchanged");
}

static void directory_path(svc const *s, char const *what)
{
  t_streq(s->directory, "/srv/www", "%s", what);
}

static void environment_in_order(svc const *s, char const *what)
{
  static char const *const want[] = { "B=2", "A=x=y", "EMPTY=", "MSG=hello  world", 0 };
  t_ueq(s->nenv, 4, "%s: count", what);
  argv_is(s->env, want, what);
}

static void umask_077(svc const *s, char const *what) { t_ueq(s->umask, 077, "%s", what); }
static void umask_0(svc const *s, char const *what) { t_ueq(s->umask, 0, "%s", what); }

static void user_www(svc const *s, char const *what)
{
  static gid_t const g[] = { 33, 29 };
  ids_are(s, 33, 33, g, 2, what);
  t_streq(s->user, "www", "%s: as written", what);
}

static void user_alice(svc const *s, char const *what)
{
  static gid_t const g[] = { 1000, 29, 44 };
  ids_are(s, 1000, 1000, g, 3, what);
}

static void user_root(svc const *s, char const *what)
{
  static gid_t const g[] = { 0, 10 };
  ids_are(s, 0, 0, g, 2, what);
}

static void user_5000_group_5000(svc const *s, char const *what)
{
  static gid_t const g[] = { 5000 };
  ids_are(s, 5000, 5000, g, 1, what);
}

static void group_audio(svc const *s, char const *what)
{
  static gid_t const g[] = { 29 };
  ids_are(s, 33, 29, g, 1, what);
  t_streq(s->group_text, "audio", "%s: as written", what);
}

static void group_44(svc const *s, char const *what)
{
  static gid_t const g[] = { 44, 29 };
  ids_are(s, 33, 44, g, 2, what);
}

static void groups_empty(svc const *s, char const *what)
{
  ids_are(s, 33, 33, 0, 0, what);
}

static void groups_listed(svc const *s, char const *what)
{
  static gid_t const g[] = { 44, 10, 5000 };
  ids_are(s, 1000, 1000, g, 3, what);
}

static void groups_none(svc const *s, char const *what)
{
  ids_are(s, 0, 0, 0, 0, what);
}

static void rlimit_100_200(svc const *s, char const *what)
{
  rlimit_is(s, RLIMIT_NOFILE, 100, 200, what);
}

static void rlimit_unlimited(svc const *s, char const *what)
{
  rlimit_is(s, RLIMIT_NPROC, RLIM_INFINITY, RLIM_INFINITY, what);
}

static void rlimit_one_value(svc const *s, char const *what)
{
  rlimit_is(s, RLIMIT_NOFILE, 1024, 1024, what);
}

static void rlimit_zero(svc const *s, char const *what)
{
  rlimit_is(s, RLIMIT_NOFILE, 0, 0, what);
}

static void rlimit_core_bytes(svc const *s, char const *what)
{
  rlimit_is(s, RLIMIT_CORE, 8u << 20, RLIM_INFINITY, what);
}

static void rlimit_nproc_infinity(svc const *s, char const *what)
{
  rlimit_is(s, RLIMIT_NPROC, RLIM_INFINITY, RLIM_INFINITY, what);
}

static void rlimit_two(svc const *s, char const *what)
{
  t_ok(s->rlimit[RLIMIT_STACK].set && s->rlimit[RLIMIT_STACK].soft == 2u << 30 &&
       s->rlimit[RLIMIT_STACK].hard == 2u << 30, "%s: stack 2G", what);
  t_ok(s->rlimit[RLIMIT_NOFILE].set && s->rlimit[RLIMIT_NOFILE].soft == 64 &&
       s->rlimit[RLIMIT_NOFILE].hard == 64, "%s: nofile 64", what);
  t_ueq(SVC_RLIMIT_LINE(s, RLIMIT_STACK), 2, "%s: stack set on line 2", what);
  t_ueq(SVC_RLIMIT_LINE(s, RLIMIT_NOFILE), 3, "%s: nofile set on line 3", what);
}

static void mode_noroot(svc const *s, char const *what)
{
  t_ueq(s->mode, SVC_NOROOT, "%s: mode", what);
  t_ueq(s->securebits, 0x2f, "%s: securebits 0x2f", what);
  t_ueq(s->caps, BIT(CAP_NET_BIND_SERVICE), "%s: capabilities", what);
  t_ueq(s->bounding, BIT(CAP_NET_BIND_SERVICE), "%s: bounding = capabilities", what);
}

static void mode_noroot_nothing(svc const *s, char const *what)
{
  t_ueq(s->securebits, 0x2f, "%s: securebits 0x2f", what);
  t_ueq(s->bounding, 0, "%s: bounding = capabilities = none", what);
}

static void mode_legacy(svc const *s, char const *what)
{
  t_ueq(s->mode, SVC_LEGACY, "%s: mode", what);
  t_ueq(s->securebits, 0, "%s: securebits 0", what);
  t_ueq(s->bounding, CAPS_ALL, "%s: bounding all", what);
}

static void securebits_override(svc const *s, char const *what)
{
  t_ueq(s->mode, SVC_NOROOT, "%s: mode", what);
  t_ueq(s->securebits, 0x50, "%s: keep-caps (0x10) and no-cap-ambient-raise (0x40) only", what);
}

static void securebits_none(svc const *s, char const *what)
{
  t_ueq(s->securebits, 0, "%s", what);
}

static void securebits_all_eight(svc const *s, char const *what)
{
  t_ueq(s->securebits, 0xff, "%s", what);
  t_ueq(s->mode, SVC_LEGACY, "%s: mode stays legacy", what);
}

static void capabilities_three(svc const *s, char const *what)
{
  t_ueq(s->caps, BIT(CAP_NET_RAW) | BIT(CAP_NET_BIND_SERVICE) | BIT(CAP_SYS_TIME), "%s", what);
  t_ueq(s->bounding, CAPS_ALL, "%s: legacy bounding stays all", what);
}

static void capabilities_empty(svc const *s, char const *what)
{
  t_ueq(s->caps, 0, "%s", what);
}

static void bounding_all(svc const *s, char const *what)
{
  t_ueq(s->bounding, CAPS_ALL, "%s", what);
  t_ueq(s->securebits, 0x2f, "%s: noroot securebits kept", what);
}

static void bounding_none(svc const *s, char const *what)
{
  t_ueq(s->bounding, 0, "%s", what);
}

static void bounding_two(svc const *s, char const *what)
{
  t_ueq(s->bounding, BIT(CAP_CHOWN) | BIT(CAP_NET_RAW), "%s", what);
  t_ueq(s->caps, BIT(CAP_NET_RAW), "%s: capabilities", what);
}

static void nnp_yes(svc const *s, char const *what) { t_ueq(s->no_new_privs, 1, "%s", what); }
static void nnp_no(svc const *s, char const *what) { t_ueq(s->no_new_privs, 0, "%s", what); }

static void depends_deduplicated(svc const *s, char const *what)
{
  static char const *const want[] = { "b", "c", "net@eth0", 0 };
  names_are(s->depends, s->ndepends, want, what);
  t_ueq(s->nafter, 0, "%s: no after", what);
}

static void after_deduplicated(svc const *s, char const *what)
{
  static char const *const want[] = { "net", "b.2", 0 };
  names_are(s->after, s->nafter, want, what);
  t_ueq(s->ndepends, 0, "%s: no depends", what);
}

static void ready_fd5(svc const *s, char const *what)
{
  t_ueq(s->ready, READY_FD, "%s: kind", what);
  t_ueq(s->ready_fd, 5, "%s: descriptor", what);
}

static void ready_fd3(svc const *s, char const *what)
{
  t_ok(s->ready == READY_FD && s->ready_fd == 3, "%s", what);
}

static void ready_fd1023(svc const *s, char const *what)
{
  t_ok(s->ready == READY_FD && s->ready_fd == 1023, "%s", what);
}

static void ready_notify(svc const *s, char const *what) { t_ueq(s->ready, READY_NOTIFY, "%s", what); }
static void ready_exec(svc const *s, char const *what) { t_ueq(s->ready, READY_EXEC, "%s", what); }

static void ready_timeout_250ms(svc const *s, char const *what) { t_ueq(s->ready_timeout_ms, 250, "%s", what); }
static void ready_timeout_0(svc const *s, char const *what) { t_ueq(s->ready_timeout_ms, 0, "%s", what); }

static void restart_on_failure(svc const *s, char const *what) { t_ueq(s->restart, RESTART_ON_FAILURE, "%s", what); }
static void restart_never(svc const *s, char const *what) { t_ueq(s->restart, RESTART_NEVER, "%s", what); }
static void restart_always(svc const *s, char const *what)
{
  t_ueq(s->restart, RESTART_ALWAYS, "%s", what);
  t_ueq(s->type, SVC_ONESHOT, "%s: of a oneshot", what);
}

static void restart_delay_1s(svc const *s, char const *what)
{
  t_ueq(s->restart_delay_ms, 1000, "%s", what);
  t_ueq(s->restart_delay_max_ms, 30000, "%s: max unchanged", what);
}

static void restart_delay_0(svc const *s, char const *what) { t_ueq(s->restart_delay_ms, 0, "%s", what); }

static void restart_delay_max_1h(svc const *s, char const *what)
{
  t_ueq(s->restart_delay_max_ms, 3600000, "%s", what);
  t_ueq(s->restart_delay_ms, 120000, "%s: with restart-delay 2m", what);
}

static void stop_signal_int(svc const *s, char const *what) { t_ueq(s->stop_signal, SIGINT, "%s", what); }
static void stop_signal_quit(svc const *s, char const *what) { t_ueq(s->stop_signal, SIGQUIT, "%s", what); }
static void stop_signal_kill(svc const *s, char const *what) { t_ueq(s->stop_signal, SIGKILL, "%s", what); }

static void stop_timeout_24h(svc const *s, char const *what) { t_ueq(s->stop_timeout_ms, 86400000, "%s", what); }
static void stop_timeout_2m(svc const *s, char const *what) { t_ueq(s->stop_timeout_ms, 120000, "%s", what); }

static void log_console(svc const *s, char const *what) { t_ueq(s->log, LOG_CONSOLE, "%s", what); }
static void log_kmsg(svc const *s, char const *what) { t_ueq(s->log, LOG_KMSG, "%s", what); }
static void log_none(svc const *s, char const *what) { t_ueq(s->log, LOG_NONE, "%s", what); }
static void log_file(svc const *s, char const *what) { t_ueq(s->log, LOG_FILE, "%s", what); }

static void enabled_no(svc const *s, char const *what) { t_ueq(s->enabled, 0, "%s", what); }
static void enabled_yes(svc const *s, char const *what) { t_ueq(s->enabled, 1, "%s", what); }

/* The container keys: paths resolve under ROOT (tests/unit/root), which
 * has /srv/www, /data and a root directory /ct with proc, dev, tmp. */
static void read_only_rw(svc const *s, char const *what)
{
  t_ok(s->ct && s->ct->read_only, "%s: read-only", what);
  t_ueq(s->ct ? s->ct->nrw : 9, 2, "%s: 2 read-write paths", what);
  if (s->ct && s->ct->nrw == 2) {
    t_streq(s->ct->rw[0].path, "/data", "%s: the first, as written", what);
    t_streq(s->ct->rw[1].path, "/srv/www", "%s: the second", what);
  }
}

static void read_only_no(svc const *s, char const *what)
{
  t_ok(s->ct && !s->ct->read_only && !container_has_mounts(s->ct), "%s: no file tree of its own", what);
  t_ueq(container_unshare_flags(s->ct), 0, "%s: no namespace", what);
}

static void binds_two(svc const *s, char const *what)
{
  t_ueq(s->ct ? s->ct->nbinds : 9, 2, "%s: 2 binds", what);
  if (!s->ct || s->ct->nbinds != 2) return;
  t_streq(s->ct->binds[0].src, "/data", "%s: bind source", what);
  t_streq(s->ct->binds[0].dst, "/srv/www", "%s: bind target", what);
  t_streq(s->ct->binds[0].at, "/srv/www", "%s: attached at the target (no root-directory)", what);
  t_ueq(s->ct->binds[0].ro, 0, "%s: bind is writable", what);
  t_streq(s->ct->binds[1].src, "/srv/www", "%s: bind-ro source", what);
  t_streq(s->ct->binds[1].dst, "/data", "%s: bind-ro target", what);
  t_ueq(s->ct->binds[1].ro, 1, "%s: bind-ro is read-only", what);
}

static void root_ct(svc const *s, char const *what)
{
  t_streq(s->ct ? s->ct->root : "", "/ct", "%s", what);
  t_ok(s->ct && s->ct->nbinds == 1 && s->ct->binds[0].at && !strcmp(s->ct->binds[0].at, "/ct/srv/www") &&
       !strcmp(s->ct->binds[0].dst, "/srv/www"),
       "%s: bind-ro /srv/www (no :DST) is attached under the root directory", what);
  t_ueq(container_unshare_flags(s->ct), CLONE_NEWNS, "%s: a mount namespace", what);
}

static void private_tmp_yes(svc const *s, char const *what)
{
  t_ok(s->ct && s->ct->private_tmp, "%s", what);
  t_ueq(container_unshare_flags(s->ct), CLONE_NEWNS, "%s: a mount namespace", what);
}

static void private_pids_yes(svc const *s, char const *what)
{
  t_ok(s->ct && s->ct->private_pids, "%s", what);
  t_ueq(container_unshare_flags(s->ct), CLONE_NEWNS, "%s: a mount namespace (for its /proc)", what);
}

static void private_ipc_yes(svc const *s, char const *what)
{
  t_ok(s->ct && s->ct->private_ipc, "%s", what);
  t_ueq(container_unshare_flags(s->ct), CLONE_NEWIPC, "%s: an IPC namespace only", what);
}

static void writes_state_yes(svc const *s, char const *what)
{
  t_ueq(s->writes_state, 1, "%s", what);
  t_ok(!s->ct, "%s: no container key", what);
}

static void writes_state_no(svc const *s, char const *what)
{
  t_ueq(s->writes_state, 0, "%s", what);
}

static void network_none(svc const *s, char const *what)
{
  t_ueq(s->ct ? s->ct->network : 9, NET_NONE, "%s", what);
  t_ueq(container_unshare_flags(s->ct), CLONE_NEWNET, "%s: a network namespace only", what);
}

static void network_netns(svc const *s, char const *what)
{
  t_ueq(s->ct ? s->ct->network : 9, NET_NAMED, "%s", what);
  t_streq(s->ct ? s->ct->netns : "", "/run/netns/blue-1", "%s: the namespace's file", what);
  t_ueq(container_unshare_flags(s->ct), 0, "%s: joins one, makes none", what);
}

static void network_host(svc const *s, char const *what)
{
  t_ok(s->ct && s->ct->network == NET_HOST && !s->ct->netns, "%s", what);
}

static void card_macvlan(svc const *s, char const *what)
{
  t_ueq(s->ct ? s->ct->network : 9, NET_MACVLAN, "%s", what);
  t_streq(s->ct && s->ct->parent ? s->ct->parent : "", "enp0s3", "%s: the parent", what);
  t_ueq(s->ct ? ntohl(s->ct->address.s_addr) : 0, 0x0a000214, "%s: the address, 10.0.2.20", what);
  t_ueq(s->ct ? s->ct->prefix : 0, 24, "%s: the prefix", what);
  t_ueq(s->ct ? ntohl(s->ct->gateway.s_addr) : 0, 0x0a000202, "%s: the gateway, 10.0.2.2", what);
  t_ueq(container_unshare_flags(s->ct), CLONE_NEWNET, "%s: a network namespace only", what);
}

static void card_ipvlan(svc const *s, char const *what)
{
  t_ueq(s->ct ? s->ct->network : 9, NET_IPVLAN, "%s", what);
  t_ueq(s->ct ? ntohl(s->ct->gateway.s_addr) : 1, 0, "%s: no gateway", what);
  t_ueq(s->ct ? s->ct->prefix : 0, 32, "%s: the prefix", what);
}

static void hostname_box(svc const *s, char const *what)
{
  t_streq(s->ct ? s->ct->hostname : "", "box.example", "%s", what);
  t_ueq(container_unshare_flags(s->ct), CLONE_NEWUTS, "%s: a UTS namespace only", what);
}

/* listen: the addresses as the kernel takes them, in the order written */
static void listen_three(svc const *s, char const *what)
{
  ct_listen const *l = s->ct ? s->ct->listen : 0;
  char a[64] = "";
  t_ueq(s->ct ? s->ct->nlisten : 9, 4, "%s: 4 sockets", what);
  if (!l || s->ct->nlisten != 4) return;
  t_ueq(l[0].addr.sa.sa_family, AF_INET6, "%s: a bare port is IPv6", what);
  t_ok(!memcmp(&l[0].addr.in6.sin6_addr, &in6addr_any, 16) && ntohs(l[0].addr.in6.sin6_port) == 80 && !l[0].v6only,
       "%s: ... on ::, port 80, IPv4 too (v6only off)", what);
  t_ueq(l[1].addr.sa.sa_family, AF_INET, "%s: A.B.C.D:PORT is IPv4", what);
  inet_ntop(AF_INET, &l[1].addr.in.sin_addr, a, sizeof a);
  t_streq(a, "127.0.0.1", "%s: ... its address", what);
  t_ueq(ntohs(l[1].addr.in.sin_port), 8080, "%s: ... its port", what);
  t_ueq(l[1].addrlen, sizeof l[1].addr.in, "%s: ... its length", what);
  inet_ntop(AF_INET6, &l[2].addr.in6.sin6_addr, a, sizeof a);
  t_ok(l[2].addr.sa.sa_family == AF_INET6 && !strcmp(a, "fe80::1") && ntohs(l[2].addr.in6.sin6_port) == 443 &&
       l[2].v6only, "%s: [fe80::1]:443 is IPv6 only", what);
  t_ok(l[3].addr.sa.sa_family == AF_UNIX && !strcmp(l[3].addr.un.sun_path, "/run/x.sock") &&
       l[3].addrlen == offsetof(struct sockaddr_un, sun_path) + 12, "%s: /run/x.sock, a Unix socket", what);
  t_streq(l[1].text, "127.0.0.1:8080", "%s: the text as written", what);
  t_ok(!container_view(s->ct) && !container_unshare_flags(s->ct), "%s: no container view, no namespace", what);
}

/* the filter: contained (noroot) without keys, then with them */
static void userns_default_noroot(svc const *s, char const *what)
{
  t_ueq(s->user_namespaces, 0, "%s: no user namespaces", what);
  t_ueq(s->syscalls_deny, SG_ALL & ~(1u << SG_MODULE), "%s: every group denied but @module (cap_sys_module)", what);
}
static void userns_yes(svc const *s, char const *what)
{
  t_ueq(s->user_namespaces, 1, "%s: user namespaces", what);
}
static void system_calls_some(svc const *s, char const *what)
{
  t_ueq(s->syscalls_deny, SG_ALL & ~(1u << SG_KEYRING) & ~(1u << SG_DEBUG),
        "%s: the default, with @keyring and @debug allowed and @module denied (named too)", what);
  t_ueq(s->syscalls_allow, (1u << SG_KEYRING) | (1u << SG_DEBUG), "%s: the groups allowed", what);
}
static void system_calls_legacy(svc const *s, char const *what)
{
  t_ueq(s->syscalls_deny, 1u << SG_IO_URING, "%s: a legacy service: only the group it denies", what);
  t_ueq(s->user_namespaces, 1, "%s: and user namespaces", what);
}

static void allow_suid_yes(svc const *s, char const *what)
{
  t_ok(s->ct && s->ct->allow_suid && !s->suid_refused, "%s: set-id modes allowed, and not refused by the filter", what);
}
static void allow_suid_default(svc const *s, char const *what)
{
  t_ok(s->ct && !s->ct->allow_suid && s->suid_refused, "%s: a contained service's filter refuses set-id modes", what);
}

static void pids_no(svc const *s, char const *what)
{
  t_ok(s->ct && !s->ct->private_pids, "%s: private-pids = no is kept", what);
}

static void private_devices_no(svc const *s, char const *what)
{
  t_ok(s->ct && s->ct->read_only && !s->ct->private_devices, "%s: read-only, capinit's /dev kept", what);
}
static void devices_two(svc const *s, char const *what)
{
  t_ok(s->ct && s->ct->private_devices && s->ct->ndevices == 2 && !strcmp(s->ct->devices[0].path, "/dev/null") &&
       !strcmp(s->ct->devices[1].path, "/dev/zero"), "%s: a /dev of its own (read-only's default), /dev/null and /dev/zero", what);
}

/* proc-subset = pid: a /proc of its own (a mount namespace) with subset=pid */
static void proc_subset_pid(svc const *s, char const *what)
{
  char opts[64];
  t_ok(s->ct && s->ct->proc_subset && container_own_proc(s->ct) && !container_proc_knobs(s->ct),
       "%s: its own /proc, without the kernel's files", what);
  t_streq(container_proc_text(s->ct, opts, sizeof opts), "hidepid=invisible,subset=pid", "%s: its options", what);
}
static void proc_subset_all(svc const *s, char const *what)
{
  t_ok(!container_view(s->ct), "%s: alone, no container", what);
}

static roundtrip const roundtrips[] = {
  { "proc-subset", OK "proc-subset = pid\n", proc_subset_pid },
  { "proc-subset", OK "proc-subset = all\n", proc_subset_all },
  { "private-devices", OK "read-only = yes\nprivate-devices = no\n", private_devices_no },
  { "devices", OK "read-only = yes\ndevices = /dev/null, /dev/zero\n", devices_two },
  { "private-pids", OK "mode = noroot\nprivate-pids = no\n", pids_no },
  { "allow-suid", OK "read-only = yes\nallow-suid = yes\n", allow_suid_yes },
  { "allow-suid", OK "read-only = yes\nallow-suid = no\n", allow_suid_default },
  { "user-namespaces", OK "mode = noroot\nuser-namespaces = yes\n", userns_yes },
  { "system-calls", OK "read-only = yes\nsystem-calls = +@keyring, -@module +@debug\ncapabilities = net_raw\n", system_calls_some },
  { "system-calls", OK "system-calls = -@io-uring\n", system_calls_legacy },
  { "listen", OK "listen = 80 127.0.0.1:8080\nlisten = [fe80::1]:443 /run/x.sock\n", listen_three },
  { "read-only", OK "read-only = yes\nread-write = /data\nread-write = /srv/www /data\n", read_only_rw },
  { "read-write", OK "read-only = yes\nread-write = /data, /srv/www\n", read_only_rw },
  { "read-only", OK "read-only = no\n", read_only_no },
  { "bind", OK "bind = /data:/srv/www\nbind-ro = /srv/www:/data\n", binds_two },
  { "bind-ro", OK "bind = /data:/srv/www\nbind-ro = /srv/www:/data\n", binds_two },
  { "root-directory", OK "root-directory = /ct\nbind-ro = /srv/www\n", root_ct },
  { "private-tmp", OK "private-tmp = yes\n", private_tmp_yes },
  { "private-pids", OK "private-pids = yes\n", private_pids_yes },
  { "private-ipc", OK "private-ipc = yes\n", private_ipc_yes },
  { "writes-capinit-state", OK "writes-capinit-state = yes\n", writes_state_yes },
  { "writes-capinit-state", OK "writes-capinit-state = no\n", writes_state_no },
  { "network", OK "network = none\n", network_none },
  { "network", OK "network = netns:blue-1\n", network_netns },
  { "network", OK "network = host\n", network_host },
  { "address", OK "network = macvlan:enp0s3\naddress = 10.0.2.20/24\ngateway = 10.0.2.2\n", card_macvlan },
  { "gateway", OK "network = macvlan:enp0s3\naddress = 10.0.2.20/24\ngateway = 10.0.2.2\n", card_macvlan },
  { "network", OK "network = ipvlan:eth1\naddress = 192.168.1.9/32\n", card_ipvlan },
  { "hostname", OK "hostname = box.example\n", hostname_box },
  { "description", OK "description =   web server, no root  \n", description_trimmed },
  { "type", "type = oneshot\n" OK, type_oneshot },
  { "type", "type = longrun\n" OK, type_longrun },
  { "command", "command = /bin/echo \"a b\" c\\\\d \"say \\\"x\\\"\" \"\"\n", command_words },
  { "stop-command", "type = oneshot\ncommand = /bin/mount -a\nstop-command = /bin/umount -a -r\n",
    stop_command_words },
  { "directory", OK "directory = /srv/www\n", directory_path },
  { "environment", OK "environment = B=2\nenvironment = A=x=y\nenvironment = EMPTY=\n"
    "environment = MSG=hello  world\n", environment_in_order },
  { "umask", OK "umask = 077\n", umask_077 },
  { "umask", OK "umask = 0\n", umask_0 },
  { "user", OK "user = www\n", user_www },
  { "user", OK "user = alice\n", user_alice },
  { "user", OK "user = 1000\n", user_alice },
  { "user", OK "user = root\n", user_root },
  { "user", OK "user = 5000\ngroup = 5000\n", user_5000_group_5000 },
  { "group", OK "user = www\ngroup = audio\n", group_audio },
  { "group", OK "user = www\ngroup = 44\n", group_44 },
  { "groups", OK "user = www\ngroups =\n", groups_empty },
  { "groups", OK "user = alice\ngroups = video, wheel 10 5000 video\n", groups_listed },
  { "groups", OK "groups = none\n", groups_none },
  { "rlimit-nofile", OK "rlimit-nofile = 100:200\n", rlimit_100_200 },
  { "rlimit-nproc", OK "rlimit-nproc = unlimited\n", rlimit_unlimited },
  { "rlimit-nofile", OK "rlimit-nofile = 1024\n", rlimit_one_value },
  { "rlimit-nofile", OK "rlimit-nofile = 0\n", rlimit_zero },
  { "rlimit-core", OK "rlimit-core = 8M:unlimited\n", rlimit_core_bytes },
  { "rlimit-nproc", OK "rlimit-nproc = infinity\n", rlimit_nproc_infinity },
  { "rlimit-stack", OK "rlimit-stack = 2G\nrlimit-nofile = 64\n", rlimit_two },
  { "mode", OK "mode = noroot\ncapabilities = net_bind_service\n", mode_noroot },
  { "mode", OK "mode = noroot\n", mode_noroot_nothing },
  { "mode", OK "mode = legacy\n", mode_legacy },
  { "securebits", OK "mode = noroot\nsecurebits = keep-caps, no-cap-ambient-raise\n", securebits_override },
  { "securebits", OK "mode = noroot\nsecurebits = none\n", securebits_none },
  { "securebits", OK "securebits = noroot noroot-locked no-setuid-fixup no-setuid-fixup-locked "
    "keep-caps keep-caps-locked no-cap-ambient-raise no-cap-ambient-raise-locked\n", securebits_all_eight },
  { "capabilities", OK "capabilities = cap_net_raw, NET_BIND_SERVICE\tsys_time net_raw\n", capabilities_three },
  { "capabilities", OK "capabilities =\n", capabilities_empty },
  { "capabilities", OK "capabilities = none\n", capabilities_empty },
  { "bounding", OK "mode = noroot\nbounding = all\n", bounding_all },
  { "bounding", OK "bounding = none\n", bounding_none },
  { "bounding", OK "capabilities = net_raw\nbounding = net_raw chown\n", bounding_two },
  { "no-new-privileges", OK "no-new-privileges = yes\n", nnp_yes },
  { "no-new-privileges", OK "no-new-privileges = no\n", nnp_no },
  { "depends", OK "depends = b, c b\tc,net@eth0\n", depends_deduplicated },
  { "after", OK "after = net b.2 net\n", after_deduplicated },
  { "ready", OK "ready = fd:5\n", ready_fd5 },
  { "ready", OK "ready = fd:3\n", ready_fd3 },
  { "ready", OK "ready = fd:1023\n", ready_fd1023 },
  { "ready", OK "ready = notify\n", ready_notify },
  { "ready", "type = oneshot\n" OK "ready = exec\n", ready_exec },
  { "ready-timeout", OK "ready-timeout = 250ms\n", ready_timeout_250ms },
  { "ready-timeout", OK "ready-timeout = 0\n", ready_timeout_0 },
  { "restart", OK "restart = on-failure\n", restart_on_failure },
  { "restart", OK "restart = never\n", restart_never },
  { "restart", "type = oneshot\n" OK "restart = always\n", restart_always },
  { "restart-delay", OK "restart-delay = 1s\n", restart_delay_1s },
  { "restart-delay", OK "restart-delay = 0\n", restart_delay_0 },
  { "restart-delay-max", OK "restart-delay-max = 1h\nrestart-delay = 2m\n", restart_delay_max_1h },
  { "stop-signal", OK "stop-signal = SIGINT\n", stop_signal_int },
  { "stop-signal", OK "stop-signal = quit\n", stop_signal_quit },
  { "stop-signal", OK "stop-signal = KILL\n", stop_signal_kill },
  { "stop-timeout", OK "stop-timeout = 24h\n", stop_timeout_24h },
  { "stop-timeout", OK "stop-timeout = 2m\n", stop_timeout_2m },
  { "log", OK "log = console\n", log_console },
  { "log", OK "log = kmsg\n", log_kmsg },
  { "log", OK "log = none\n", log_none },
  { "log", OK "log = file\n", log_file },
  { "enabled", OK "enabled = no\n", enabled_no },
  { "enabled", OK "enabled = yes\n", enabled_yes },
};

/* The svc_keys[] entry that reads key. */
static conf_key const *svc_key(char const *key)
{
  size_t i;
  for (i = 0; i < svc_keys_n; i++) {
    if (svc_keys[i].flags & KEY_PREFIX) {
      if (!strncmp(key, svc_keys[i].name, strlen(svc_keys[i].name))) return &svc_keys[i];
    } else if (!strcmp(key, svc_keys[i].name)) {
      return &svc_keys[i];
    }
  }
  return 0;
}

/* The first line of text that sets a key of entry k, or 0. */
static unsigned first_line_of(char const *text, conf_key const *k)
{
  unsigned line = 0;
  while (*text) {
    size_t n = strcspn(text, "=\n"), kn = n;
    line++;
    while (kn && (text[kn - 1] == ' ' || text[kn - 1] == '\t')) kn--;
    if (text[n] == '=' && (k->flags & KEY_PREFIX ? !strncmp(text, k->name, strlen(k->name))
                                                 : kn == strlen(k->name) && !strncmp(text, k->name, kn)))
      return line;
    text += strcspn(text, "\n");
    if (*text) text++;
  }
  return 0;
}

static svc *load_text(char const *text, diag_list *diags)
{
  conf_ctx ctx = { .root = ROOT, .diags = diags, .command_optional = 0, .live = 0 };
  char path[4096];
  snprintf(path, sizeof path, "%s/x.svc", tmpdir);
  write_file(path, text);
  return svc_load_file(&ctx, path);
}

static void check_roundtrip(roundtrip const *c, size_t i)
{
  diag_list diags = { 0, 0, 0 };
  conf_key const *k = svc_key(c->key);
  svc *s = load_text(c->text, &diags);
  char what[128];
  char *got = render(&diags);
  unsigned line = k ? first_line_of(c->text, k) : 0;

  snprintf(what, sizeof what, "%s (case %zu)", c->key, i + 1);
  t_streq(got, "", "%s: loads with no problem", what);
  t_ueq(s->refused, 0, "%s: not refused", what);
  t_ok(k && line, "%s: is a key of svc_keys[] and is set in the file", what);
  if (k) t_ueq(s->line[k->id], line, "%s: its line is recorded", what);
  c->check(s, what);
  free(got);
  svc_free(s);
  diag_free(&diags);
}

/* Every key of svc_keys[] has at least one round trip.  A prefix key is
 * covered by an example name, so that a new prefix key needs a new case. */
static void check_coverage(void)
{
  static char const *const examples[][2] = { { "rlimit-", "rlimit-nofile" } };
  size_t i, j;
  for (i = 0; i < svc_keys_n; i++) {
    char const *name = svc_keys[i].name;
    int covered = 0;
    if (svc_keys[i].flags & KEY_PREFIX) {
      char const *example = 0;
      for (j = 0; j < sizeof examples / sizeof examples[0]; j++)
        if (!strcmp(examples[j][0], name)) example = examples[j][1];
      if (!t_ok(example != 0, "prefix key '%s' has an example name", name)) continue;
      name = example;
    }
    for (j = 0; j < sizeof roundtrips / sizeof roundtrips[0]; j++)
      covered |= !strcmp(roundtrips[j].key, name);
    t_ok(covered, "key '%s' has a round-trip case", name);
  }
  t_ueq(svc_keys_n, K_COUNT, "svc_keys[] has one entry per line slot (K_COUNT)");
}

/* ---- defaults -------------------------------------------------------------- */

/* A contained service's defaults, which follow from its other keys (the
 * round trips above need the key in the file): a PID namespace for uid 0
 * only, and the group its capability asks for left out of the denied
 * ones (with the way-out warning it earns). */
static void contained_defaults(void)
{
  diag_list diags = { 0, 0, 0 };
  svc *s = load_text(OK "mode = noroot\nread-only = yes\n", &diags);
  t_ok(s->ct && s->ct->private_pids, "contained defaults: uid 0 gets its own PID namespace");
  svc_free(s);
  s = load_text(OK "mode = noroot\nuser = nobody\nread-only = yes\n", &diags);
  t_ok(s->ct && !s->ct->private_pids, "contained defaults: uid 65534 does not");
  svc_free(s);
  s = load_text(OK "user = nobody\n", &diags);
  t_ok(!s->ct, "contained defaults: an uncontained service gets no container");
  svc_free(s);
  s = load_text(OK "mode = noroot\nread-only = yes\ncapabilities = sys_module\n", &diags);
  userns_default_noroot(s, "contained defaults: cap_sys_module");
  svc_free(s);
  diag_free(&diags);
}

static void defaults(void)
{
  static char const *const cmd[] = { "/bin/true", 0 };
  static gid_t const root_groups[] = { 0, 10 };
  diag_list diags = { 0, 0, 0 };
  svc *s = load_text(OK, &diags);
  char *got = render(&diags);
  size_t i, lines = 0, rlimits = 0;

  t_streq(got, "", "defaults: a file with only a command loads");
  free(got);
  t_streq(s->name, "x", "defaults: named after the file");
  argv_is(s->argv, cmd, "defaults: command");
  t_ok(!s->description && !s->stop_argv && !s->directory && !s->env && !s->nenv,
       "defaults: no description, stop-command, directory (/), environment");
  t_ueq(s->type, SVC_LONGRUN, "defaults: type longrun");
  t_ueq(s->restart, RESTART_ALWAYS, "defaults: restart always (longrun)");
  t_ueq(s->umask, 022, "defaults: umask 022");
  t_ok(!s->user && !s->group_text && !s->groups_text, "defaults: no user, group, groups as written");
  ids_are(s, 0, 0, root_groups, 2, "defaults: root, with root's groups");
  for (i = 0; i < RLIM_NLIMITS; i++) rlimits += (s->rlimit && s->rlimit[i].set) || SVC_RLIMIT_LINE(s, i);
  t_ueq(rlimits, 0, "defaults: no resource limit");
  t_ueq(s->mode, SVC_LEGACY, "defaults: mode legacy");
  t_ueq(s->securebits, 0, "defaults: securebits 0");
  t_ueq(s->caps, 0, "defaults: no capabilities");
  t_ueq(s->bounding, CAPS_ALL, "defaults: bounding all");
  t_ueq(s->no_new_privs, 0, "defaults: no-new-privileges no");
  t_ok(s->user_namespaces && !s->syscalls_deny, "defaults: legacy: user namespaces, no group denied (no filter)");
  t_ok(!s->depends && !s->ndepends && !s->after && !s->nafter, "defaults: no depends, no after");
  t_ueq(s->ready, READY_EXEC, "defaults: ready exec");
  t_ueq(s->ready_fd, 0, "defaults: no ready fd");
  t_ueq(s->ready_timeout_ms, 30000, "defaults: ready-timeout 30s");
  t_ueq(s->restart_delay_ms, 100, "defaults: restart-delay 100ms");
  t_ueq(s->restart_delay_max_ms, 30000, "defaults: restart-delay-max 30s");
  t_ueq(s->stop_signal, SIGTERM, "defaults: stop-signal TERM");
  t_ueq(s->stop_timeout_ms, 10000, "defaults: stop-timeout 10s");
  t_ueq(s->log, LOG_FILE, "defaults: log file");
  t_ueq(s->enabled, 1, "defaults: enabled yes");
  t_ueq(s->refused, 0, "defaults: not refused");
  for (i = 0; i < K_COUNT; i++) lines += s->line[i] != 0;
  t_ok(lines == 1 && s->line[K_COMMAND] == 1, "defaults: only the command's line is recorded");
  svc_free(s);
  diag_free(&diags);

  s = load_text("type = oneshot\n" OK, &diags);
  t_ok(diags.n == 0 && s->restart == RESTART_NEVER, "defaults: restart never (oneshot)");
  svc_free(s);
  diag_free(&diags);
}

/* ---- capexec -k: svc_load_pairs ------------------------------------------ */

static void pairs(void)
{
  static char const *const good[] = { "user=www", "mode = noroot", "capabilities=net_raw", "environment=A=1=2" };
  static char const *const env[] = { "A=1=2", 0 };
  static gid_t const www_groups[] = { 33, 29 };
  static char const *const bad[] = { "user=www", "bogus=1", "ready=fd:2" };
  static char const *const ctl[] = { "description=a\tb", "description=a\033b" };
  diag_list diags = { 0, 0, 0 };
  conf_ctx ctx = { .root = ROOT, .diags = &diags, .command_optional = 1, .live = 0 };
  svc *s;
  char *got;

  s = svc_load_pairs(&ctx, "-k", good, 4);
  got = render(&diags);
  t_streq(got, "", "pairs: four keys load");
  t_ueq(s->refused, 0, "pairs: not refused");
  t_streq(s->name, "", "pairs: a -k spec has no name (nothing to depend on)");
  ids_are(s, 33, 33, www_groups, 2, "pairs: user=www");
  t_ueq(s->securebits, 0x2f, "pairs: mode = noroot");
  t_ueq(s->caps, BIT(CAP_NET_RAW), "pairs: capabilities");
  t_ueq(s->bounding, BIT(CAP_NET_RAW), "pairs: bounding = capabilities");
  argv_is(s->env, env, "pairs: environment");
  t_ok(!s->argv, "pairs: no command (it comes after --)");
  t_ok(s->line[K_USER] == 1 && s->line[K_MODE] == 2 && s->line[K_CAPABILITIES] == 3,
       "pairs: each pair's position is its line");
  free(got);
  svc_free(s);
  diag_free(&diags);

  s = svc_load_pairs(&ctx, "-k", bad, 3);
  got = render(&diags);
  t_streq(got, "-k:2: unknown key 'bogus'\n"
               "-k:3: ready: fd:2 is stdin, stdout or stderr: use a descriptor of 3 or more\n",
          "pairs: problems name the pair's position");
  t_ueq(s->refused, 1, "pairs: refused");
  free(got);
  svc_free(s);
  diag_free(&diags);

  s = svc_load_pairs(&ctx, "-k", ctl, 2);
  got = render(&diags);
  t_streq(got, "-k:2: control character in 'key=value'\n", "pairs: a control character (a tab is allowed)");
  t_ueq(s->refused, 1, "pairs: with a control character: refused");
  free(got);
  svc_free(s);
  diag_free(&diags);

  ctx.command_optional = 0;
  s = svc_load_pairs(&ctx, "-k", good, 1);
  got = render(&diags);
  t_streq(got, "-k:0: missing required key 'command'\n", "pairs: without -- CMD, command is required");
  t_ueq(s->refused, 1, "pairs: without a command: refused");
  free(got);
  svc_free(s);
  diag_free(&diags);
}

/* ---- capinit.conf ---------------------------------------------------------- */

typedef struct conf_case_s {
  char const *key;
  char const *text;
  char const *want;        /* problems, "LINE: text\n"; "" for none */
} conf_case;

static conf_case const conf_errors[] = {
  { "log-directory", "log-directory = var/log\n", "1: log-directory: expected an absolute path, not 'var/log'\n" },
  { "log-max-size", "log-max-size = 4095\n", "1: log-max-size: at least 4K, not '4095'\n" },
  { "log-max-size", "log-max-size = 1k\n",
    "1: log-max-size: expected a number, optionally with K, M, G or T, not '1k'\n" },
  { "log-keep", "log-keep = 1001\n", "1: log-keep: expected a number of old logs from 0 to 1000, not '1001'\n" },
  { "log-keep", "log-keep = 2K\n", "1: log-keep: expected a number of old logs from 0 to 1000, not '2K'\n" },
  { "control-group", "# admins\ncontrol-group = staff\n",
    "2: control-group: unknown group 'staff' (not in " ROOT "/etc/group)\n" },
  { "control-group", "control-group = a b\n", "1: control-group: expected a group name or gid, not 'a b'\n" },
  { "control-group", "control-group = 4294967295\n", "1: control-group: invalid gid '4294967295'\n" },
  { "power-group", "power-group = staff\n", "1: power-group: unknown group 'staff' (not in " ROOT "/etc/group)\n" },
  { "power-group", "power-group = a,b\n", "1: power-group: expected a group name or gid, not 'a,b'\n" },
  { "power-group", "control-group = 10\npower-group = 4294967295\n", "2: power-group: invalid gid '4294967295'\n" },
  { "emergency-shell", "emergency-shell = sh -l\n",
    "1: emergency-shell: the program must be an absolute path (there is no PATH search)\n" },
  { "unmount-timeout", "unmount-timeout = 10\n",
    "1: unmount-timeout: a duration needs a unit: ms, s, m or h (as in 10s), not '10'\n" },
  { "unmount-timeout", "unmount-timeout = 99ms\n", "1: unmount-timeout: at least 100ms, not '99ms'\n" },
  { "unmount-timeout", "unmount-timeout = 25h\n", "1: unmount-timeout: duration too large (at most 24h), not '25h'\n" },
  { 0, "log_keep = 3\n", "1: unknown key 'log_keep' (did you mean 'log-keep'?)\n" },
  { 0, "log-keep = 3\nlog-keep = 4\n", "2: duplicate key 'log-keep' (first set on line 1)\n" },
};

static char *render_lines(diag_list const *l)
{
  char *out = 0;
  size_t len = 0, i;
  FILE *f = open_memstream(&out, &len);
  if (!f) bail("open_memstream", "");
  for (i = 0; i < l->n; i++) fprintf(f, "%u: %s\n", l->v[i].line, l->v[i].text);
  fclose(f);
  return out;
}

static int load_conf(char const *root, char const *text, capinit_conf *c, diag_list *diags)
{
  conf_ctx ctx = { .root = root, .diags = diags, .command_optional = 0, .live = 0 };
  char path[4096];
  snprintf(path, sizeof path, "%s/capinit.conf", tmpdir);
  write_file(path, text);
  capinit_conf_defaults(c);
  return capinit_conf_load(&ctx, c, path);
}

static void capinit_conf_keys_round_trip(void)
{
  static char const *const sh[] = { "/bin/sh", 0 };
  static char const *const ash[] = { "/bin/busybox", "ash", "-l", 0 };
  diag_list diags = { 0, 0, 0 };
  capinit_conf c;
  char *got;
  int r;
  size_t i, j;

  r = load_conf(ROOT, "", &c, &diags);
  t_ok(r == 0 && diags.n == 0, "capinit.conf: an empty file loads (%d)", r);
  t_streq(c.log_directory, "/var/log/capinit", "capinit.conf default: log-directory");
  t_ueq(c.log_max_size, 1u << 20, "capinit.conf default: log-max-size 1M");
  t_ueq(c.log_keep, 5, "capinit.conf default: log-keep 5");
  t_ok(!c.control_group && !c.control_group_set, "capinit.conf default: no control-group");
  t_ok(!c.power_group && !c.power_group_set, "capinit.conf default: no power-group");
  argv_is(c.emergency_shell, sh, "capinit.conf default: emergency-shell /bin/sh");
  t_ueq(c.unmount_timeout_ms, 10000, "capinit.conf default: unmount-timeout 10s");
  capinit_conf_free(&c);

  r = load_conf(ROOT, "log-directory = /srv/log\nlog-max-size = 4K\nlog-keep = 0\n"
                "control-group = audio\nemergency-shell = /bin/busybox ash -l\nunmount-timeout = 100ms\n"
                "power-group = audio\n", &c, &diags);
  got = render_lines(&diags);
  t_ok(r == 0, "capinit.conf: every key set: loads (%d)", r);
  t_streq(got, "", "capinit.conf: every key set: no problem");
  t_streq(c.log_directory, "/srv/log", "capinit.conf: log-directory");
  t_ueq(c.log_max_size, 4096, "capinit.conf: log-max-size = 4K (the smallest)");
  t_ueq(c.log_keep, 0, "capinit.conf: log-keep = 0");
  t_streq(c.control_group, "audio", "capinit.conf: control-group as written");
  t_ok(c.control_group_set && c.control_gid == 29, "capinit.conf: control-group audio = gid 29 (%u)",
       (unsigned)c.control_gid);
  t_ok(c.power_group_set && c.power_gid == 29 && !strcmp(c.power_group, "audio"),
       "capinit.conf: power-group audio = gid 29 (%u)", (unsigned)c.power_gid);
  argv_is(c.emergency_shell, ash, "capinit.conf: emergency-shell");
  t_ueq(c.unmount_timeout_ms, 100, "capinit.conf: unmount-timeout = 100ms (the smallest)");
  free(got);
  capinit_conf_free(&c);
  diag_free(&diags);

  r = load_conf(ROOT, "log-max-size = 2M\nlog-keep = 1000\ncontrol-group = 10\npower-group = 0\n", &c, &diags);
  t_ok(r == 0 && diags.n == 0, "capinit.conf: numbers load (%d)", r);
  t_ueq(c.log_max_size, 2u << 20, "capinit.conf: log-max-size = 2M");
  t_ueq(c.log_keep, 1000, "capinit.conf: log-keep = 1000 (the largest)");
  t_ok(c.control_group_set && c.control_gid == 10, "capinit.conf: control-group = 10 (%u)", (unsigned)c.control_gid);
  t_ok(c.power_group_set && c.power_gid == 0, "capinit.conf: power-group = 0 (%u)", (unsigned)c.power_gid);
  capinit_conf_free(&c);
  diag_free(&diags);

  for (i = 0; i < sizeof conf_errors / sizeof conf_errors[0]; i++) {
    conf_case const *e = &conf_errors[i];
    r = load_conf(ROOT, e->text, &c, &diags);
    got = render_lines(&diags);
    t_ok(r == -1, "capinit.conf error %zu (%s): load returns -1 (%d)", i + 1, e->key ? e->key : "syntax", r);
    t_streq(got, e->want, "capinit.conf error %zu (%s): exactly the expected problem", i + 1,
            e->key ? e->key : "syntax");
    free(got);
    capinit_conf_free(&c);
    diag_free(&diags);
  }

  /* a group file that cannot be read is not an "unknown group" */
  r = load_conf(tmpdir, "control-group = audio\n", &c, &diags);
  got = render_lines(&diags);
  {
    char want[4200];
    snprintf(want, sizeof want,
             "1: control-group: unable to look up group 'audio': %s/etc/group: No such file or directory\n", tmpdir);
    t_ok(r == -1, "capinit.conf: no group file: load returns -1");
    t_streq(got, want, "capinit.conf: no group file: the reason, not 'unknown group'");
  }
  free(got);
  capinit_conf_free(&c);
  diag_free(&diags);

  for (i = 0; i < capinit_conf_keys_n; i++) {
    int covered = 0;
    for (j = 0; j < sizeof conf_errors / sizeof conf_errors[0]; j++)
      covered |= conf_errors[j].key && !strcmp(conf_errors[j].key, capinit_conf_keys[i].name);
    t_ok(covered, "capinit.conf key '%s' has an error case", capinit_conf_keys[i].name);
  }
  t_ueq(capinit_conf_keys_n, C_COUNT, "capinit_conf_keys[] has one entry per line slot (C_COUNT)");
}

int main(void)
{
  size_t i;
  char buf[] = "/tmp/capinit-test.XXXXXX";
  if (!mkdtemp(buf)) bail("mkdtemp", buf);
  tmpdir = buf;

  for (i = 0; i < sizeof roundtrips / sizeof roundtrips[0]; i++) check_roundtrip(&roundtrips[i], i);
  check_coverage();
  defaults();
  contained_defaults();
  pairs();
  capinit_conf_keys_round_trip();

  {
    char path[4096];
    snprintf(path, sizeof path, "%s/x.svc", tmpdir);
    unlink(path);
    snprintf(path, sizeof path, "%s/capinit.conf", tmpdir);
    unlink(path);
    if (rmdir(tmpdir) < 0) bail("rmdir", tmpdir);
  }
  return t_done();
}

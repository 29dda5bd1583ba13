/* conf/container.c -- the container keys of a service file, and the checks
 * that need the whole file (container.h). */
#include <errno.h>
#include <limits.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <arpa/inet.h>
#include <linux/capability.h>

#include "container.h"
#include "keys.h"
#include "names.h"
#include "svc.h"
#include "syscalls.h"
#include "values.h"
#include "xalloc.h"

#define SVC(obj) ((svc *)(obj))

static svc_container *ct_of(void *obj)
{
  svc *s = obj;
  if (!s->ct) s->ct = xcalloc(1, sizeof *s->ct);
  return s->ct;
}

int container_has_mounts(svc_container const *ct)
{
  return ct && (ct->read_only || ct->nrw || ct->nbinds || ct->root || ct->private_tmp || ct->private_pids ||
                ct->private_devices || ct->proc_subset);
}

int container_own_tmp(svc_container const *ct)
{
  return ct && (ct->private_tmp || ct->root);
}

int container_own_var_tmp(svc_container const *ct)
{
  return ct && ct->private_tmp && !ct->root;
}

int container_own_dev(svc_container const *ct)
{
  return ct && ct->private_devices;
}

int container_own_pids(svc_container const *ct)
{
  return ct && ct->private_pids;
}

int container_own_proc(svc_container const *ct)
{
  return container_has_mounts(ct);
}

static int proc_subset_pid(svc_container const *ct)
{
  return ct && ct->proc_subset;
}

int container_proc_knobs(svc_container const *ct)
{
  return container_own_proc(ct) && !proc_subset_pid(ct);
}

int container_own_mqueue(svc_container const *ct)
{
  return container_own_dev(ct) && ct->private_ipc;
}

int container_read_only(svc_container const *ct)
{
  return ct && ct->read_only;
}

int container_bind_mode(svc_container const *ct, ct_bind const *b)
{
  if (b->ro) return 'r';
  return container_read_only(ct) ? 'w' : 0;
}

int container_nosuid(svc_container const *ct)
{
  return !(ct && ct->allow_suid);
}

static int own_ipc(svc_container const *ct)
{
  return ct && ct->private_ipc;
}

static int own_uts(svc_container const *ct)
{
  return ct && ct->hostname;
}

int container_card(svc_container const *ct)
{
  return ct && (ct->network == NET_MACVLAN || ct->network == NET_IPVLAN) ? ct->network : 0;
}

static int own_net(svc_container const *ct)
{
  return ct && (ct->network == NET_NONE || container_card(ct));
}

static char const *joins_net(svc_container const *ct)
{
  return ct && ct->network == NET_NAMED ? ct->netns : 0;
}

ct_ns_kind const container_ns_kinds[] = {
  { CLONE_NEWNS, "mnt", "mount", container_has_mounts, 0 },
  { 0, "pid", "pid", container_own_pids, 0 },
  { CLONE_NEWIPC, "ipc", "ipc", own_ipc, 0 },
  { CLONE_NEWUTS, "uts", "uts", own_uts, 0 },
  { CLONE_NEWNET, "net", "network", own_net, joins_net },
};
size_t const container_ns_kinds_n = sizeof container_ns_kinds / sizeof *container_ns_kinds;

int container_unshare_flags(svc_container const *ct)
{
  size_t i;
  int f = 0;
  for (i = 0; i < container_ns_kinds_n; i++)
    if (container_ns_kinds[i].own(ct)) f |= container_ns_kinds[i].flag;
  return f;
}

int container_enters_namespaces(svc_container const *ct)
{
  size_t i;
  for (i = 0; i < container_ns_kinds_n; i++) {
    ct_ns_kind const *k = &container_ns_kinds[i];
    if (k->own(ct) || (k->joins && k->joins(ct))) return 1;
  }
  return 0;
}

/* hidepid=invisible (systemd's ProtectProc=invisible) for every service
 * with a /proc of its own, whether or not it has a PID namespace: a
 * process it may not trace (another uid, more capabilities: other
 * services, capinit, the reaper's copy of capinit while it scrubs) is not
 * even listed.  A kernel before 5.8 knows only the numbers: 2 is the same
 * rule.  subset=pid with proc-subset = pid (systemd's ProcSubset=pid):
 * Linux 5.8 and later only, with no older value: without it the stage
 * fails. */
static ct_proc_opt const proc_opts[] = {
  { "hidepid", "invisible", "2", "a process it may not ptrace is not even listed", 0 },
  { "subset", "pid", 0, "only the processes' files are there: no /proc/meminfo, /proc/sys, /proc/net or other file of the kernel's",
    proc_subset_pid },
};

size_t container_proc_opts(svc_container const *ct, ct_proc_opt const **out)
{
  size_t i, n = 0;
  for (i = 0; i < sizeof proc_opts / sizeof *proc_opts && n < CT_PROC_OPTS_MAX; i++)
    if (!proc_opts[i].wanted || proc_opts[i].wanted(ct)) out[n++] = &proc_opts[i];
  return n;
}

char *container_proc_text(svc_container const *ct, char *buf, size_t len)
{
  ct_proc_opt const *o[CT_PROC_OPTS_MAX];
  size_t i, n = container_proc_opts(ct, o), k = 0;
  buf[0] = 0;
  for (i = 0; i < n && k < len; i++)
    k += (size_t)snprintf(buf + k, len - k, "%s%s=%s", i ? "," : "", o[i]->key, o[i]->value);
  return buf;
}

int container_view(svc_container const *ct)
{
  return container_has_mounts(ct) || (ct && (ct->private_ipc || ct->hostname || ct->network != NET_HOST));
}

int container_contained(struct svc_s const *s)
{
  return s->mode == SVC_NOROOT || container_view(s->ct);
}

ct_escape const container_escapes[] = {
  { CAP_DAC_READ_SEARCH, "open_by_handle_at opens any file of a file system by its number, past every mount and root-directory" },
  { CAP_SYS_ADMIN, "mount, remount and mount_setattr undo a read-only tree; setns joins any namespace" },
  { CAP_SYS_PTRACE, "ptrace and /proc/PID/mem reach any process it can see, of any uid, capinit's children included" },
  { CAP_SYS_MODULE, "a kernel module runs as the kernel" },
  { CAP_SYS_RAWIO, "/dev/mem, I/O ports and raw SCSI commands reach the machine under every mount" },
  { CAP_MKNOD, "a device node of the disk, made where it may write, opens the whole file system" },
  { CAP_SETFCAP, "file capabilities set on a file it may write give them to whoever runs it" },
  { CAP_SETUID, "any uid: every other service's files and processes" },
  { CAP_SETGID, "any group: every group-owned file" },
  { CAP_KILL, "signals to any process, capinit included" },
  { CAP_SYS_BOOT, "reboot, or kexec another kernel" },
  { CAP_BPF, "BPF programs and maps read kernel memory" },
  { CAP_NET_ADMIN, "the machine's own network: its interfaces, routes and firewall" },
  { CAP_SYS_CHROOT, "chroot out of a root-directory made by chroot (on an initramfs, which cannot be pivoted away)" },
};
size_t const container_escapes_n = sizeof container_escapes / sizeof *container_escapes;

char const *container_escape(struct svc_s const *s, int cap)
{
  size_t i;
  if (!container_contained(s) || !(s->caps & ((uint64_t)1 << cap))) return 0;
  if (cap == CAP_DAC_READ_SEARCH && (s->syscalls_deny & (1u << SG_FILE_HANDLES))) return 0;
  if (cap == CAP_NET_ADMIN && own_net(s->ct)) return 0;
  if (cap == CAP_SYS_CHROOT && !(s->ct && s->ct->root)) return 0;
  for (i = 0; i < container_escapes_n; i++)
    if (container_escapes[i].cap == cap) return container_escapes[i].how;
  return 0;
}


/* An absolute path with no "." or ".." component, no empty one ("//"), no
 * trailing '/' (but "/"): what a mount target or source is written as, so
 * that the path in the file is the path the kernel sees. */
static char const *path_problem(char const *v)
{
  char const *p;
  if (v[0] != '/') return "expected an absolute path";
  if (strlen(v) >= PATH_MAX) return "path too long";
  if (!v[1]) return 0;
  for (p = v; *p; ) {
    size_t n;
    p++;  /* the '/' */
    n = strcspn(p, "/");
    if (!n) return "an empty component ('//' or a trailing '/')";
    if ((n == 1 && p[0] == '.') || (n == 2 && p[0] == '.' && p[1] == '.'))
      return "a '.' or '..' component";
    p += n;
  }
  return 0;
}

static int bool_key(conf_where *w, unsigned char *slot, char const *v)
{
  int b;
  if (value_bool(v, &b) < 0) return conf_error(w, "%s: expected yes or no, not '%s'", w->key, v);
  *slot = (unsigned char)b;
  return 0;
}

int ct_key_read_only(conf_where *w, void *o, char const *v)
{
  return bool_key(w, &ct_of(o)->read_only, v);
}

int ct_key_private_tmp(conf_where *w, void *o, char const *v)
{
  return bool_key(w, &ct_of(o)->private_tmp, v);
}

int ct_key_private_pids(conf_where *w, void *o, char const *v)
{
  return bool_key(w, &ct_of(o)->private_pids, v);
}

int ct_key_allow_suid(conf_where *w, void *o, char const *v)
{
  return bool_key(w, &ct_of(o)->allow_suid, v);
}

int ct_key_private_devices(conf_where *w, void *o, char const *v)
{
  return bool_key(w, &ct_of(o)->private_devices, v);
}

int ct_key_private_ipc(conf_where *w, void *o, char const *v)
{
  return bool_key(w, &ct_of(o)->private_ipc, v);
}

int ct_key_proc_subset(conf_where *w, void *o, char const *v)
{
  svc_container *ct = ct_of(o);
  if (!strcmp(v, "pid")) ct->proc_subset = 1;
  else if (!strcmp(v, "all")) ct->proc_subset = 0;
  else return conf_error(w, "proc-subset: expected pid or all, not '%s'", v);
  return 0;
}

typedef struct list_acc_s {
  conf_where *w;
  svc_container *ct;
  int ro;                  /* bind-ro */
} list_acc;

static int one_rw(char const *item, void *arg)
{
  list_acc *a = arg;
  char const *why = path_problem(item);
  size_t i;
  if (why) return conf_error(a->w, "read-write: %s, not '%s'", why, item);
  for (i = 0; i < a->ct->nrw; i++)
    if (!strcmp(a->ct->rw[i].path, item)) return 0;
  if (a->ct->nrw >= CT_RW_MAX) return conf_error(a->w, "read-write: more than %d paths", CT_RW_MAX);
  a->ct->rw = xreallocarray(a->ct->rw, a->ct->nrw + 1, sizeof *a->ct->rw);
  a->ct->rw[a->ct->nrw].path = xstrdup(item);
  a->ct->rw[a->ct->nrw++].line = a->w->line;
  return 0;
}

int ct_key_read_write(conf_where *w, void *o, char const *v)
{
  list_acc a = { w, ct_of(o), 0 };
  return value_list(v, one_rw, &a) ? -1 : 0;
}

/* devices = /dev/PATH...: device nodes of capinit's /dev, passed through */
static int one_device(char const *item, void *arg)
{
  list_acc *a = arg;
  char const *why = path_problem(item);
  size_t i;
  if (why) return conf_error(a->w, "devices: %s, not '%s'", why, item);
  if (strncmp(item, "/dev/", 5) || !item[5] || !strncmp(item, "/dev/pts/", 9) || !strncmp(item, "/dev/shm/", 9))
    return conf_error(a->w, "devices: '%s' is not a device of /dev (its pts and shm are its own)", item);
  for (i = 0; i < a->ct->ndevices; i++)
    if (!strcmp(a->ct->devices[i].path, item)) return 0;
  if (a->ct->ndevices >= CT_DEVICES_MAX) return conf_error(a->w, "devices: more than %d devices", CT_DEVICES_MAX);
  a->ct->devices = xreallocarray(a->ct->devices, a->ct->ndevices + 1, sizeof *a->ct->devices);
  a->ct->devices[a->ct->ndevices].path = xstrdup(item);
  a->ct->devices[a->ct->ndevices++].line = a->w->line;
  return 0;
}

int ct_key_devices(conf_where *w, void *o, char const *v)
{
  list_acc a = { w, ct_of(o), 0 };
  return value_list(v, one_device, &a) ? -1 : 0;
}

static int one_bind(char const *item, void *arg)
{
  list_acc *a = arg;
  svc_container *ct = a->ct;
  char const *colon = strchr(item, ':'), *why;
  char *src, *dst;
  size_t i;
  src = colon ? xstrndup(item, (size_t)(colon - item)) : xstrdup(item);
  dst = xstrdup(colon ? colon + 1 : item);
  if ((why = path_problem(src)) || (why = path_problem(dst))) {
    conf_error(a->w, "%s: %s, not '%s' (SRC or SRC:DST, absolute paths)", a->w->key, why, item);
    goto bad;
  }
  if (!strcmp(dst, "/")) {
    conf_error(a->w, "%s: '%s' would cover the whole tree: use root-directory", a->w->key, item);
    goto bad;
  }
  for (i = 0; i < ct->nbinds; i++) {
    if (!strcmp(ct->binds[i].dst, dst)) {
      conf_error(a->w, "%s: %s is already a bind target (line %u)", a->w->key, dst, ct->binds[i].line);
      goto bad;
    }
  }
  if (ct->nbinds >= CT_BINDS_MAX) {
    conf_error(a->w, "%s: more than %d binds", a->w->key, CT_BINDS_MAX);
    goto bad;
  }
  ct->binds = xreallocarray(ct->binds, ct->nbinds + 1, sizeof *ct->binds);
  ct->binds[ct->nbinds].src = src;
  ct->binds[ct->nbinds].dst = dst;
  ct->binds[ct->nbinds].at = 0;
  ct->binds[ct->nbinds].ro = (unsigned char)a->ro;
  ct->binds[ct->nbinds++].line = a->w->line;
  return 0;
bad:
  free(src);
  free(dst);
  return -1;
}

int ct_key_bind(conf_where *w, void *o, char const *v)
{
  list_acc a = { w, ct_of(o), !strcmp(w->key, "bind-ro") };
  return value_list(v, one_bind, &a) ? -1 : 0;
}

int ct_key_root_directory(conf_where *w, void *o, char const *v)
{
  svc_container *ct = ct_of(o);
  char const *why = path_problem(v);
  if (why) return conf_error(w, "root-directory: %s, not '%s'", why, v);
  if (!strcmp(v, "/")) return conf_error(w, "root-directory: '/' is the tree the service has anyway: leave the key out");
  free(ct->root);
  ct->root = xstrdup(v);
  return 0;
}

/* A name of /run/netns (as `ip netns add` makes them) or of the UTS
 * namespace: letters, digits, '-', '_' and '.', not "." or "..". */
static int plain_name(char const *v, size_t max, int underscore)
{
  size_t i, n = strlen(v);
  if (!n || n > max || !strcmp(v, ".") || !strcmp(v, "..")) return 0;
  for (i = 0; i < n; i++) {
    char c = v[i];
    if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '-' ||
          c == '.' || (underscore && c == '_')))
      return 0;
  }
  return 1;
}

int ct_key_network(conf_where *w, void *o, char const *v)
{
  svc_container *ct = ct_of(o);
  char list[64], path[128];
  char const *name;
  int net = vocab_prefixed(network_names, v, &name);
  free(ct->netns);
  free(ct->parent);
  ct->netns = ct->parent = 0;
  if (net < 0) return conf_error(w, "network: expected %s, not '%s'", vocab_list(network_names, list, sizeof list), v);
  if (net == NET_MACVLAN || net == NET_IPVLAN) {
    /* the kernel's limit: IFNAMSIZ - 1 */
    if (!plain_name(name, 15, 1))
      return conf_error(w, "network: invalid link name '%s' (letters, digits, '-', '_', '.'; at most 15)", name);
    ct->parent = xstrdup(name);
  }
  if (net == NET_NAMED) {
    if (!plain_name(name, 64, 1))
      return conf_error(w, "network: invalid namespace name '%s' (letters, digits, '-', '_', '.'; at most 64)", name);
    snprintf(path, sizeof path, CT_NETNS_DIR "/%s", name);
    ct->netns = xstrdup(path);
  }
  ct->network = (enum ct_network)net;
  return 0;
}

/* address = A.B.C.D/PREFIX: a host's address, not its net's first or
 * (below /31) last one. */
int ct_key_address(conf_where *w, void *o, char const *v)
{
  svc_container *ct = ct_of(o);
  char host[16];
  char const *slash = strchr(v, '/');
  char *end;
  unsigned long p;
  uint32_t a, mask;
  if (!slash || (size_t)(slash - v) >= sizeof host)
    return conf_error(w, "address: expected A.B.C.D/PREFIX (IPv4, e.g. 10.0.2.20/24), not '%s'", v);
  memcpy(host, v, (size_t)(slash - v));
  host[slash - v] = 0;
  errno = 0;
  p = strtoul(slash + 1, &end, 10);
  if (inet_pton(AF_INET, host, &ct->address) != 1 || slash[1] < '0' || slash[1] > '9' || *end || errno || p < 1 || p > 32)
    return conf_error(w, "address: expected A.B.C.D/PREFIX (IPv4, prefix 1 to 32), not '%s'", v);
  ct->prefix = (unsigned char)p;
  a = ntohl(ct->address.s_addr);
  mask = p == 32 ? ~0u : ~(~0u >> p);
  if (p < 31 && ((a & ~mask) == 0 || (a & ~mask) == ~mask))
    return conf_error(w, "address: %s is the %s address of its net: name a host's", v,
                      (a & ~mask) ? "broadcast" : "network");
  return 0;
}

int ct_key_gateway(conf_where *w, void *o, char const *v)
{
  svc_container *ct = ct_of(o);
  if (inet_pton(AF_INET, v, &ct->gateway) != 1 || !ct->gateway.s_addr)
    return conf_error(w, "gateway: expected an IPv4 address (A.B.C.D), not '%s'", v);
  return 0;
}

int ct_key_hostname(conf_where *w, void *o, char const *v)
{
  svc_container *ct = ct_of(o);
  if (!plain_name(v, 64, 0) || v[0] == '-' || v[0] == '.' || v[strlen(v) - 1] == '-' || v[strlen(v) - 1] == '.')
    return conf_error(w, "hostname: invalid host name '%s' (letters, digits, '-' and '.'; at most 64)", v);
  free(ct->hostname);
  ct->hostname = xstrdup(v);
  return 0;
}

/* listen: PORT (IPv6 and IPv4 on every address), A.B.C.D:PORT, [V6]:PORT
 * (IPv6 only) or an absolute path (a Unix stream socket); see
 * capinit.svc(5).  0 and *l filled, or the reason. */
static char const *listen_parse(char const *v, ct_listen *l)
{
  char host[64];
  char const *colon = strrchr(v, ':'), *port = colon ? colon + 1 : v;
  size_t n = colon ? (size_t)(colon - v) : 0;
  unsigned long p;
  char *end;
  memset(&l->addr, 0, sizeof l->addr);
  l->v6only = 0;
  if (v[0] == '/') {
    char const *why = path_problem(v);
    if (why) return why;
    if (strlen(v) >= sizeof l->addr.un.sun_path) return "path too long for a socket (at most 107 bytes)";
    if (!v[1]) return "'/' is a directory, not a socket's path";
    /* bound as /proc/self/fd/N/NAME (engine/container.c) */
    if (strlen(strrchr(v, '/') + 1) > 80) return "the socket's name (after the last '/') is longer than 80 bytes";
    l->addr.un.sun_family = AF_UNIX;
    strcpy(l->addr.un.sun_path, v);
    l->addrlen = (unsigned)(offsetof(struct sockaddr_un, sun_path) + strlen(v) + 1);
    return 0;
  }
  if (v[0] == '[' && (!colon || colon[-1] != ']')) return "an IPv6 address goes in brackets: [ADDRESS]:PORT";
  if (*port < '0' || *port > '9') return "expected PORT, ADDRESS:PORT, [ADDRESS]:PORT or an absolute path";
  errno = 0;
  p = strtoul(port, &end, 10);
  if (*end || errno || p < 1 || p > 65535) return "the port must be 1 to 65535";
  if (!colon) {
    l->addr.in6.sin6_family = AF_INET6;
    l->addr.in6.sin6_addr = in6addr_any;
    l->addr.in6.sin6_port = htons((unsigned short)p);
    l->addrlen = sizeof l->addr.in6;
    return 0;
  }
  if (n >= sizeof host) return "address too long";
  if (v[0] == '[') {
    if (n < 2 || v[n - 1] != ']') return "an IPv6 address goes in brackets: [ADDRESS]:PORT";
    memcpy(host, v + 1, n - 2);
    host[n - 2] = 0;
    if (inet_pton(AF_INET6, host, &l->addr.in6.sin6_addr) != 1) return "not an IPv6 address";
    l->addr.in6.sin6_family = AF_INET6;
    l->addr.in6.sin6_port = htons((unsigned short)p);
    l->addrlen = sizeof l->addr.in6;
    l->v6only = 1;
    return 0;
  }
  memcpy(host, v, n);
  host[n] = 0;
  if (inet_pton(AF_INET, host, &l->addr.in.sin_addr) != 1)
    return "not an IPv4 address (an IPv6 one goes in brackets: [ADDRESS]:PORT)";
  l->addr.in.sin_family = AF_INET;
  l->addr.in.sin_port = htons((unsigned short)p);
  l->addrlen = sizeof l->addr.in;
  return 0;
}

static int one_listen(char const *item, void *arg)
{
  list_acc *a = arg;
  svc_container *ct = a->ct;
  ct_listen l;
  char const *why = listen_parse(item, &l);
  size_t i;
  if (why) return conf_error(a->w, "listen: %s, not '%s'", why, item);
  for (i = 0; i < ct->nlisten; i++)
    if (ct->listen[i].addrlen == l.addrlen && !memcmp(&ct->listen[i].addr, &l.addr, l.addrlen))
      return conf_error(a->w, "listen: %s is already listed (line %u)", item, ct->listen[i].line);
  if (ct->nlisten >= CT_LISTEN_MAX) return conf_error(a->w, "listen: more than %d sockets", CT_LISTEN_MAX);
  l.text = xstrdup(item);
  l.line = a->w->line;
  ct->listen = xreallocarray(ct->listen, ct->nlisten + 1, sizeof *ct->listen);
  ct->listen[ct->nlisten++] = l;
  return 0;
}

int ct_key_listen(conf_where *w, void *o, char const *v)
{
  list_acc a = { w, ct_of(o), 0 };
  return value_list(v, one_listen, &a) ? -1 : 0;
}

void container_free(svc_container *ct)
{
  size_t i;
  if (!ct) return;
  free(ct->netns);
  free(ct->parent);
  free(ct->hostname);
  free(ct->root);
  for (i = 0; i < ct->nrw; i++) free(ct->rw[i].path);
  free(ct->rw);
  for (i = 0; i < ct->ndevices; i++) free(ct->devices[i].path);
  free(ct->devices);
  for (i = 0; i < ct->nbinds; i++) {
    free(ct->binds[i].src);
    free(ct->binds[i].dst);
    free(ct->binds[i].at);
  }
  free(ct->binds);
  for (i = 0; i < ct->nlisten; i++) free(ct->listen[i].text);
  free(ct->listen);
  free(ct);
}

/* ------------------------------------------------------------ the file */

/* prefix + path must exist and be itself: no symbolic link on the way (a
 * mount on a link's target is where a tree escapes).  *st gets what it
 * is.  0, or -1 after reporting. */
static int real_path(conf_where *w, char const *key, char const *prefix, char const *path, struct stat *st)
{
  char full[PATH_MAX + 1], real[PATH_MAX], base[PATH_MAX];
  size_t n;
  int inside;
  if ((size_t)snprintf(full, sizeof full, "%s%s", prefix, path) >= sizeof full)
    return conf_error(w, "%s: %s%s: path too long", key, prefix, path);
  if (lstat(full, st) < 0) {
    if (errno == ENOENT) return conf_error(w, "%s: %s does not exist", key, full);
    return conf_error(w, "%s: %s: %s", key, full, strerror(errno));
  }
  if (!realpath(full, real)) return conf_error(w, "%s: %s: %s", key, full, strerror(errno));
  if (!*prefix) {
    if (!strcmp(real, full)) return 0;
    return conf_error(w, "%s: %s is, or lies under, a symbolic link (to %s): name the real path", key, full, real);
  }
  /* checking an image (capctl check -R ROOT): where it leads, in ROOT's terms */
  if (!realpath(prefix, base)) return conf_error(w, "%s: %s: %s", key, prefix, strerror(errno));
  n = strlen(base);
  inside = !strncmp(real, base, n) && (real[n] == '/' || !real[n]);
  if (inside && !strcmp(real + n, path)) return 0;
  return conf_error(w, "%s: %s is, or lies under, a symbolic link (to %s%s): name the real path", key, full,
                    inside ? (real[n] ? real + n : "/") : real, inside ? "" : ", outside the tree");
  return 0;
}

/* The root-directory must hold the mount points of what the engine puts
 * in it: proc, dev and tmp. */
static void check_root(conf_where *w, char const *prefix, char const *root)
{
  static char const *const dirs[] = { "/proc", "/dev", "/tmp" };
  struct stat st;
  size_t i;
  if (real_path(w, "root-directory", prefix, root, &st) < 0) return;
  if (!S_ISDIR(st.st_mode)) {
    conf_error(w, "root-directory: %s%s is not a directory", prefix, root);
    return;
  }
  for (i = 0; i < sizeof dirs / sizeof *dirs; i++) {
    char in[PATH_MAX];
    snprintf(in, sizeof in, "%s%s", root, dirs[i]);
    if (real_path(w, "root-directory", prefix, in, &st) < 0) continue;
    if (!S_ISDIR(st.st_mode))
      conf_error(w, "root-directory: %s%s is not a directory (the service's %s is mounted there)", prefix, in, dirs[i]);
  }
}

static int under(char const *path, char const *dir)
{
  size_t n = strlen(dir);
  return !strncmp(path, dir, n) && (!path[n] || path[n] == '/');
}

/* The mounts the engine makes itself (a private /tmp and /var/tmp; the
 * root directory's /tmp; a /proc for every mount namespace; a /dev of
 * its own) come after the binds and would hide one made under them: the
 * directory that covers path, or NULL.  Called with the defaults made. */
static char const *covered(svc_container const *ct, char const *path)
{
  if (container_own_tmp(ct) && under(path, "/tmp")) return "/tmp";
  if (container_own_var_tmp(ct) && under(path, "/var/tmp")) return "/var/tmp";
  if (container_own_proc(ct) && under(path, "/proc")) return "/proc";
  if (container_own_dev(ct) && under(path, "/dev")) return "/dev";
  return 0;
}

static void check_binds(conf_where *w, char const *prefix, svc_container *ct)
{
  size_t i;
  for (i = 0; i < ct->nbinds; i++) {
    ct_bind *b = &ct->binds[i];
    char const *key = b->ro ? "bind-ro" : "bind", *hidden = covered(ct, b->dst);
    struct stat s, d;
    char at[PATH_MAX + 1];
    w->line = b->line;
    if (hidden) {
      conf_error(w, "%s: %s is in the service's own %s, mounted after the binds: it would be hidden", key,
                 b->dst, hidden);
      continue;
    }
    if ((size_t)snprintf(at, sizeof at, "%s%s", ct->root ? ct->root : "", b->dst) >= sizeof at) {
      conf_error(w, "%s: %s%s: path too long", key, ct->root ? ct->root : "", b->dst);
      continue;
    }
    free(b->at);
    b->at = xstrdup(at);
    if (real_path(w, key, prefix, b->src, &s) < 0 || real_path(w, key, prefix, at, &d) < 0) continue;
    if (S_ISDIR(s.st_mode) != S_ISDIR(d.st_mode))
      conf_error(w, "%s: %s is %s and %s is not: a bind needs the same kind on both sides", key,
                 b->src, S_ISDIR(s.st_mode) ? "a directory" : "a file", at);
  }
}

/* To the kernel, every uid-0 process is the same user: a uid 0 in a
 * container (a read-only tree...) that could see another service's
 * processes could signal them, ptrace them (pidfd_getfd takes their
 * descriptors) and write through /proc/PID/root into their tree, a
 * writable one included: out of its container.  Not a noroot uid 0
 * without one (it writes root's files, /proc/sys included, anyway: there
 * is no container to leave), nor legacy root (every capability). */
void container_defaults(struct svc_s *s)
{
  if (container_needs_pids(s)) s->ct->private_pids = 1;
  /* read-only left capinit's /dev writable: its disks, /dev/kmsg, the
   * console; a root directory has a /dev of its own anyway */
  if (!s->line[K_PRIVATE_DEVICES] && s->ct && s->ct->read_only && !s->ct->root) s->ct->private_devices = 1;
  if (s->ct && s->ct->root) s->ct->private_devices = 1;
}

int container_needs_pids(struct svc_s const *s)
{
  int noroot = s->securebits & 1u;  /* SECURE_NOROOT: final by now */
  return !s->line[K_PRIVATE_PIDS] && s->uid == 0 && noroot && container_view(s->ct);
}

/* A card needs its address; address and gateway need a card, the gateway
 * on the address's net (the kernel could not reach it otherwise). */
static void check_card(struct svc_s *s, conf_where *w)
{
  svc_container *ct = s->ct;
  char const *kind = ct->network == NET_IPVLAN ? "ipvlan" : "macvlan";
  uint32_t mask = ct->prefix >= 32 ? ~0u : ~(~0u >> ct->prefix);
  char gw[80];
  if (!container_card(ct)) {
    w->line = s->line[K_ADDRESS] ? s->line[K_ADDRESS] : s->line[K_GATEWAY];
    if (w->line)
      conf_error(w, "%s: needs a card of its own (network = macvlan:PARENT or ipvlan:PARENT), not network = %s",
                 s->line[K_ADDRESS] ? "address" : "gateway",
                 vocab_format(network_names, ct->network, ct->netns ? strrchr(ct->netns, '/') + 1 : "", gw, sizeof gw));
    return;
  }
  w->line = s->line[K_NETWORK];
  if (!s->line[K_ADDRESS]) {
    conf_error(w, "network: %s:%s needs address = A.B.C.D/PREFIX", kind, ct->parent);
    return;
  }
  if (!s->line[K_GATEWAY]) return;
  w->line = s->line[K_GATEWAY];
  if (ct->gateway.s_addr == ct->address.s_addr)
    conf_error(w, "gateway: is the service's own address");
  else if (((ntohl(ct->gateway.s_addr) ^ ntohl(ct->address.s_addr)) & mask) || ct->prefix >= 32)
    conf_error(w, "gateway: %s is outside the card's net (address, line %u): the kernel could not reach it",
               inet_ntop(AF_INET, &ct->gateway, gw, sizeof gw), s->line[K_ADDRESS]);
}

void container_finish(struct conf_ctx_s *ctx, struct svc_s *s, conf_where *w)
{
  svc_container *ct = s->ct;
  char const *prefix = strcmp(ctx->root, "/") ? ctx->root : "";
  size_t i;
  struct stat st;
  if (!ct) return;
  check_card(s, w);
  if (ct->root) {
    w->line = s->line[K_ROOT_DIRECTORY];
    check_root(w, prefix, ct->root);
    if (s->ready == READY_NOTIFY) {
      w->line = s->line[K_READY];
      conf_error(w, "ready: notify needs capinit's socket in the service's tree, which root-directory hides: use fd:N");
    }
  }
  check_binds(w, prefix, ct);
  for (i = 0; i < ct->nrw; i++) {
    char in[PATH_MAX + 1];
    char const *own = covered(ct, ct->rw[i].path);
    w->line = ct->rw[i].line;
    if (own) {
      conf_error(w, "read-write: %s is in the service's own %s, which it gets writable anyway", ct->rw[i].path, own);
      continue;
    }
    snprintf(in, sizeof in, "%s%s", ct->root ? ct->root : "", ct->rw[i].path);
    real_path(w, "read-write", prefix, in, &st);
  }
  for (i = 0; i < ct->nlisten; i++) {
    if (s->ready == READY_FD && s->ready_fd == CT_LISTEN_FD + (int)i) {
      w->line = s->line[K_READY];
      conf_error(w, "ready: descriptor %d is the socket of listen = %s (line %u): use another", s->ready_fd,
                 ct->listen[i].text, ct->listen[i].line);
    }
  }
  /* an image's /dev is made at boot (devtmpfs): checked on this machine only */
  for (i = 0; !*prefix && i < ct->ndevices; i++) {
    w->line = ct->devices[i].line;
    if (real_path(w, "devices", prefix, ct->devices[i].path, &st) == 0 && !S_ISCHR(st.st_mode) && !S_ISBLK(st.st_mode))
      conf_error(w, "devices: %s is not a device node", ct->devices[i].path);
  }
  if (ct->ndevices && !ct->root && !(s->line[K_PRIVATE_DEVICES] ? ct->private_devices : ct->read_only)) {
    w->line = ct->devices[0].line;
    conf_warning(w, "devices: has no effect without a /dev of its own (read-only, private-devices or root-directory)");
  }
  if (ct->nrw && !ct->read_only) {
    w->line = ct->rw[0].line;
    conf_warning(w, "read-write: has no effect without read-only = yes");
  }
}

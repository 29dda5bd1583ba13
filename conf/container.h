/* conf/container.h -- a service's application container, as its file
 * declares it: its own file tree (read-only, writable paths, binds, a root
 * directory, a private /tmp), process view, network, hostname and IPC.
 * The engine builds it in the child before the privilege stages
 * (engine/container.c); explain describes it; verify checks it.
 * Everything the child needs is here, resolved in the parent. */
#ifndef CAPINIT_CONF_CONTAINER_H
#define CAPINIT_CONF_CONTAINER_H

#include <stddef.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <netinet/in.h>

#include "parse.h"

/* NET_MACVLAN and NET_IPVLAN: a card of its own (network = macvlan:PARENT,
 * ipvlan:PARENT), a link on the host's PARENT made in its own namespace. */
enum ct_network { NET_HOST, NET_NONE, NET_NAMED, NET_MACVLAN, NET_IPVLAN };

#define CT_BINDS_MAX 64      /* bind and bind-ro, together */
#define CT_RW_MAX 64         /* read-write paths */
#define CT_DEVICES_MAX 32    /* devices */
#define CT_NETNS_DIR "/run/netns"   /* where `ip netns add NAME` puts NAME */

typedef struct ct_bind_s {
  char *src;               /* absolute, in capinit's tree */
  char *dst;               /* absolute, as the service sees it */
  char *at;                /* where it is attached before the pivot:
                              root-directory + dst, or dst itself */
  unsigned char ro;        /* bind-ro */
  unsigned line;           /* for messages while loading */
} ct_bind;

typedef struct ct_path_s {
  char *path;              /* absolute, as the service sees it */
  unsigned line;           /* for messages while loading */
} ct_path;

/* A listening socket the engine makes for the service (listen): bound
 * while the child still holds capinit's privilege, in the service's own
 * network and file tree, and passed as descriptor CT_LISTEN_FD + its
 * index, with LISTEN_FDS and LISTEN_PID (the protocol of systemd's socket
 * activation, sd_listen_fds(3)). */
#define CT_LISTEN_MAX 16
#define CT_LISTEN_FD 3

typedef struct ct_listen_s {
  char *text;              /* as written */
  union {
    struct sockaddr sa;
    struct sockaddr_in in;
    struct sockaddr_in6 in6;
    struct sockaddr_un un;
  } addr;
  unsigned addrlen;
  unsigned char v6only;    /* [ADDR]:PORT is IPv6 only; a bare PORT both */
  unsigned line;           /* for messages while loading */
} ct_listen;

typedef struct container_s {
  unsigned char read_only, private_tmp, private_pids, private_ipc;
  unsigned char allow_suid;  /* allow-suid = yes: writable paths, binds and the
                                root directory keep set-id bits and devices */
  unsigned char private_devices;  /* a /dev of its own (final: container_defaults) */
  unsigned char proc_subset;  /* proc-subset = pid: its /proc holds processes only */
  ct_path *devices;        /* devices: passed through to it, under /dev */
  size_t ndevices;
  unsigned char network;   /* enum ct_network */
  char *netns;             /* network = netns:NAME: CT_NETNS_DIR/NAME */
  char *parent;            /* a card's: the host's link it is made on */
  struct in_addr address, gateway;  /* address = A/PREFIX, gateway = G
                              (0.0.0.0 when absent), network byte order */
  unsigned char prefix;
  char *hostname;
  char *root;              /* root-directory */
  ct_path *rw;             /* read-write paths */
  size_t nrw;
  ct_bind *binds;
  size_t nbinds;
  ct_listen *listen;
  size_t nlisten;
} svc_container;

/* ------------------------------------------------------------ the plan
 * Every question about what a service's container is gets its answer
 * here, once: the engine builds what these say, explain and capctl's
 * JSON describe it, verify checks it.  ct may be NULL (no container). */

/* Does the service have a view of its own (any container key but listen)? */
int container_view(svc_container const *ct);
/* Does the service need a file tree of its own (a mount namespace)? */
int container_has_mounts(svc_container const *ct);
/* Its own /tmp (private-tmp, or the root directory's), its own /var/tmp
 * (private-tmp without a root directory: a root directory's /var is its
 * own), its own /dev (private-devices, final once container_defaults
 * ran: a root directory implies it), its own PID namespace (and /proc of
 * it), its own /proc (every mount namespace). */
int container_own_tmp(svc_container const *ct);
int container_own_var_tmp(svc_container const *ct);
int container_own_dev(svc_container const *ct);
int container_own_pids(svc_container const *ct);
int container_own_proc(svc_container const *ct);
/* Does its own /proc hold the kernel's files (/proc/sys, the knobs the
 * engine keeps read-only under a read-only tree)? */
int container_proc_knobs(svc_container const *ct);
/* Its own mqueue in its own /dev: with an IPC namespace of its own. */
int container_own_mqueue(svc_container const *ct);
/* Is its whole tree read-only (read-only = yes)? */
int container_read_only(svc_container const *ct);
/* The mode of a bind in its tree: 'r' read-only (bind-ro), 'w' made
 * writable (a bind under read-only = yes), 0 as its source's mount is. */
int container_bind_mode(svc_container const *ct, ct_bind const *b);
/* Are its writable mounts (read-write paths, binds, root directory)
 * nosuid,nodev (no allow-suid = yes)? */
int container_nosuid(svc_container const *ct);

/* The kinds of namespace, in the order the engine, verify and explain
 * list them: a service makes its own of a kind when own says so; joins
 * names the file of one it joins instead (network = netns:NAME), or
 * NULL. */
typedef struct ct_ns_kind_s {
  int flag;                /* CLONE_NEW*; 0 for pid, which the spawn makes
                              (a new PID namespace is for the children of
                              the process that makes it) */
  char const *name;        /* /proc/PID/ns/NAME, and explain's JSON */
  char const *word;        /* in the engine's message */
  int (*own)(svc_container const *ct);
  char const *(*joins)(svc_container const *ct);
} ct_ns_kind;
extern ct_ns_kind const container_ns_kinds[];
extern size_t const container_ns_kinds_n;
/* The namespaces the child creates with unshare (CLONE_NEW* flags). */
int container_unshare_flags(svc_container const *ct);
/* Does it make or join any namespace (the PID namespace included)? */
int container_enters_namespaces(svc_container const *ct);

/* The options of its own /proc, each key=value (older: the value a
 * kernel before 5.8 knows, which the engine tries when the first is
 * refused with EINVAL; NULL: none, the stage fails) and what it does,
 * in explain's words.  At most CT_PROC_OPTS_MAX. */
#define CT_PROC_OPTS_MAX 4
typedef struct ct_proc_opt_s {
  char const *key, *value, *older;
  char const *why;
  int (*wanted)(svc_container const *ct);  /* NULL: always */
} ct_proc_opt;
size_t container_proc_opts(svc_container const *ct, ct_proc_opt const **out);
/* Them as the mount shows them: "hidepid=invisible,..." */
char *container_proc_text(svc_container const *ct, char *buf, size_t len);

struct svc_s;
/* A card of its own: NET_MACVLAN or NET_IPVLAN, or 0 (none).  Its name in
 * the service's namespace is CT_CARD_NAME. */
int container_card(svc_container const *ct);
#define CT_CARD_NAME "eth0"

/* Is the service contained: mode = noroot, or a view of its own (any
 * container key but listen)?  Its filter and defaults follow. */
int container_contained(struct svc_s const *s);

/* The capabilities that open a way out of a container, each with how:
 * capctl check warns and explain says so for a contained service that
 * holds one. */
typedef struct ct_escape_s {
  int cap;
  char const *how;
} ct_escape;
extern ct_escape const container_escapes[];
extern size_t const container_escapes_n;
/* How cap opens a way out of s's container, or NULL: s contained, and
 * not made harmless by its own file (file handles its filter denies, the
 * network of a namespace of its own). */
char const *container_escape(struct svc_s const *s, int cap);

/* The keys (conf/svc_keys.c's table calls these). */
int ct_key_read_only(conf_where *w, void *svc, char const *v);
int ct_key_read_write(conf_where *w, void *svc, char const *v);
int ct_key_bind(conf_where *w, void *svc, char const *v);
int ct_key_root_directory(conf_where *w, void *svc, char const *v);
int ct_key_private_tmp(conf_where *w, void *svc, char const *v);
int ct_key_private_pids(conf_where *w, void *svc, char const *v);
int ct_key_network(conf_where *w, void *svc, char const *v);
int ct_key_hostname(conf_where *w, void *svc, char const *v);
int ct_key_private_ipc(conf_where *w, void *svc, char const *v);
int ct_key_listen(conf_where *w, void *svc, char const *v);
int ct_key_allow_suid(conf_where *w, void *svc, char const *v);
int ct_key_private_devices(conf_where *w, void *svc, char const *v);
int ct_key_devices(conf_where *w, void *svc, char const *v);
int ct_key_proc_subset(conf_where *w, void *svc, char const *v);
int ct_key_address(conf_where *w, void *svc, char const *v);
int ct_key_gateway(conf_where *w, void *svc, char const *v);

struct svc_s;
struct conf_ctx_s;
/* The checks that need the whole file (called by svc_finish): paths that
 * must exist, be what they say (no symbolic link on the way) and fit
 * together; the keys that need others. */
void container_finish(struct conf_ctx_s *ctx, struct svc_s *s, conf_where *w);
/* The defaults that follow from the rest of the file (called by
 * svc_finish once the ids and securebits are final): a noroot uid 0 with
 * a container (a view of its own) gets a PID namespace of its own unless
 * its file says private-pids = no; a read-only tree gets a /dev of its own unless it
 * says private-devices = no. */
void container_defaults(struct svc_s *s);
/* Would s get that PID namespace (noroot uid 0 with a view of its own,
 * private-pids not said)?  For explain's warning too. */
int container_needs_pids(struct svc_s const *s);

void container_free(svc_container *ct);

#endif

/* conf/container.h -- a service's application container, as its file
 * declares it: its own file tree (read-only, writable paths, binds, a root
 * directory, a private /tmp), process view, network, hostname and IPC.
 * The engine builds it in the child before the privilege stages
 * (supervise/container.c); explain describes it; verify checks it.
 * Everything the child needs is here, resolved in the parent. */
#ifndef CAPINIT_CONF_CONTAINER_H
#define CAPINIT_CONF_CONTAINER_H

#include <stddef.h>

#include "parse.h"

enum ct_network { NET_HOST, NET_NONE, NET_NAMED };

#define CT_BINDS_MAX 64      /* bind and bind-ro, together */
#define CT_RW_MAX 64         /* read-write paths */
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

typedef struct container_s {
  unsigned char read_only, private_tmp, private_pids, private_ipc;
  unsigned char network;   /* enum ct_network */
  char *netns;             /* network = netns:NAME: CT_NETNS_DIR/NAME */
  char *hostname;
  char *root;              /* root-directory */
  ct_path *rw;             /* read-write paths */
  size_t nrw;
  ct_bind *binds;
  size_t nbinds;
} svc_container;

/* The namespaces the child creates (CLONE_NEW* flags): the PID namespace
 * comes from the spawn itself (a new PID namespace is for the children of
 * the process that makes it). */
int container_unshare_flags(svc_container const *ct);
/* Does the service need a file tree of its own (a mount namespace)? */
int container_has_mounts(svc_container const *ct);

/* The keys (conf/svc_keys.c's table calls these). */
int ct_key_read_only(conf_where *w, void *svc, char const *k, char const *v);
int ct_key_read_write(conf_where *w, void *svc, char const *k, char const *v);
int ct_key_bind(conf_where *w, void *svc, char const *k, char const *v);
int ct_key_root_directory(conf_where *w, void *svc, char const *k, char const *v);
int ct_key_private_tmp(conf_where *w, void *svc, char const *k, char const *v);
int ct_key_private_pids(conf_where *w, void *svc, char const *k, char const *v);
int ct_key_network(conf_where *w, void *svc, char const *k, char const *v);
int ct_key_hostname(conf_where *w, void *svc, char const *k, char const *v);
int ct_key_private_ipc(conf_where *w, void *svc, char const *k, char const *v);

struct svc_s;
struct conf_ctx_s;
/* The checks that need the whole file (called by svc_finish): paths that
 * must exist, be what they say (no symbolic link on the way) and fit
 * together; the keys that need others. */
void container_finish(struct conf_ctx_s *ctx, struct svc_s *s, conf_where *w);

void container_free(svc_container *ct);

#endif

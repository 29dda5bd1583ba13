/* conf/state_guard.c -- no service may write capinit's own state
 * (state_guard.h).
 *
 * The rule, as capinit.svc(5) says it.  A service "can write" a path of
 * capinit's state when both hold:
 *   - its file tree leaves the path writable: the path is seen, through
 *     the mounts the engine makes (root-directory, bind, bind-ro, a
 *     private /tmp, read-write under read-only = yes), on a writable one;
 *     or one of its writable read-write or bind paths lies inside it.
 *     The machine's own mounts are taken as writable: a read-only root
 *     is one remount away, and an image checked with -R has no mounts.
 *   - its credentials pass the kernel's permission check, on the path
 *     itself or on a directory above it inside that writable mount (who
 *     may write a directory may rename what it holds, unless the
 *     directory is sticky and it owns neither): cap_dac_override,
 *     cap_fowner, cap_chown and cap_setuid (it can become the owner) pass
 *     any check; otherwise the owner, group
 *     or other write bit, chosen by the kernel's order.  A noroot uid 0
 *     holds no capability, but it still owns root's files.
 * A path that does not exist yet is judged as capinit will make it: a
 * directory of root's, mode 0755, under the nearest one that exists.
 * The state: the configuration directory, its services/, capinit.conf,
 * filecaps and every service file writable by more than its directory;
 * the runtime directory; the log directory; the program (command and
 * stop-command) of every legacy service but the judged one itself. */
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <linux/capability.h>

#include "names.h"
#include "parse.h"
#include "state_guard.h"
#include "svc.h"
#include "xalloc.h"

/* ------------------------------------------------------------- paths */

/* Is path dir itself or inside it? */
static int under(char const *path, char const *dir)
{
  size_t n = strlen(dir);
  if (!strcmp(dir, "/")) return path[0] == '/';
  return !strncmp(path, dir, n) && (!path[n] || path[n] == '/');
}

/* path, which lies under from, as it is seen under to. */
static void rebase(char *out, size_t len, char const *path, char const *from, char const *to)
{
  char const *rest = strcmp(from, "/") ? path + strlen(from) : path;
  if (!strcmp(to, "/")) snprintf(out, len, "%s", *rest ? rest : "/");
  else snprintf(out, len, "%s%s", to, strcmp(rest, "/") ? rest : "");
}

/* The real path of path (no symbolic link on the way), in the terms of
 * the tree under pre ("" or an image's real directory): the part that
 * exists resolved, the rest appended.  A link leading out of the image
 * leaves path as it was written. */
static char *resolve(char const *pre, char const *path)
{
  char head[PATH_MAX], full[PATH_MAX + PATH_MAX], real[PATH_MAX], out[PATH_MAX + PATH_MAX];
  char const *rest, *base;
  size_t n = strlen(pre);
  snprintf(head, sizeof head, "%s", path);
  for (;;) {
    char *slash;
    snprintf(full, sizeof full, "%s%s", pre, head);
    if (realpath(full, real)) break;
    slash = strrchr(head, '/');
    if (!slash || slash == head) {
      if (!strcmp(head, "/")) return xstrdup(path);
      strcpy(head, "/");
      continue;
    }
    *slash = 0;
  }
  rest = path + (strcmp(head, "/") ? strlen(head) : 0);
  if (!strcmp(rest, "/")) rest = "";
  if (n && !(!strncmp(real, pre, n) && (!real[n] || real[n] == '/'))) return xstrdup(path);
  base = real[n] ? real + n : "/";
  if (!*rest) snprintf(out, sizeof out, "%s", base);
  else snprintf(out, sizeof out, "%s%s", strcmp(base, "/") ? base : "", rest);
  return xstrdup(out);
}

/* ------------------------------------------------------------ targets */

/* One directory or file on a target's path, as lstat found it. */
typedef struct node_s {
  size_t len;              /* of its path: a prefix of the target's */
  uid_t uid;
  gid_t gid;
  mode_t mode;
  unsigned char missing;   /* judged as capinit makes it: root's, 0755 */
} node;

typedef struct target_s {
  char *path;              /* in the checked tree's terms */
  char const *pre;         /* where its files are read: "" or the image */
  char const *what;        /* "capinit's log directory" */
  svc const *of;           /* the service whose file or program it is */
  int program;             /* a legacy service's program */
  int shared;              /* a program of more than one service */
  char const *matters;
  node *nodes;             /* "/", each directory down, the path itself */
  size_t nnodes;
} target;

typedef struct targets_s {
  target *v;
  size_t n;
} targets;

static void node_read(node *d, char const *pre, char const *path, size_t len, int parent_missing)
{
  char full[PATH_MAX + PATH_MAX];
  struct stat st;
  d->len = len;
  snprintf(full, sizeof full, "%s%.*s", pre, (int)len, path);
  if (!parent_missing && lstat(full, &st) == 0) {
    d->uid = st.st_uid;
    d->gid = st.st_gid;
    /* a link's bits mean nothing (always rwx): only its directory says
     * who may replace it */
    d->mode = S_ISLNK(st.st_mode) ? S_IFLNK : st.st_mode;
    d->missing = 0;
    return;
  }
  d->uid = 0;
  d->gid = 0;
  d->mode = S_IFDIR | 0755;
  d->missing = 1;
}

static void target_nodes(target *t)
{
  size_t i, n = 1;
  char const *p = t->path;
  for (i = 1; p[i]; i++) n += p[i] == '/';
  if (p[1]) n++;
  t->nodes = xcalloc(n, sizeof *t->nodes);
  node_read(&t->nodes[0], t->pre, "/", 1, 0);
  t->nnodes = 1;
  for (i = 1; p[1] && i <= strlen(p); i++) {
    if (p[i] && p[i] != '/') continue;
    node_read(&t->nodes[t->nnodes], t->pre, p, i, t->nodes[t->nnodes - 1].missing);
    t->nnodes++;
  }
}

static target *target_add(targets *ts, char *path, char const *pre, char const *what, svc const *of,
                          char const *matters)
{
  target *t;
  ts->v = xreallocarray(ts->v, ts->n + 1, sizeof *ts->v);
  t = &ts->v[ts->n++];
  memset(t, 0, sizeof *t);
  t->path = path;
  t->pre = pre;
  t->what = what;
  t->of = of;
  t->matters = matters;
  target_nodes(t);
  return t;
}

static void targets_free(targets *ts)
{
  size_t i;
  for (i = 0; i < ts->n; i++) {
    free(ts->v[i].path);
    free(ts->v[i].nodes);
  }
  free(ts->v);
}

/* Where the paths of the checking machine and of the checked tree meet. */
typedef struct trees_s {
  char image[PATH_MAX];    /* the real path of ctx->root; "" when "/" */
} trees;

/* A path of the checking machine (-c DIR, a service file named on the
 * command line): inside the image, in its terms; outside, judged where
 * it is. */
static char *machine_path(trees const *tr, char const *path, char const **pre)
{
  char *p = resolve("", path);
  size_t n = strlen(tr->image);
  *pre = "";
  if (n && !strncmp(p, tr->image, n) && (!p[n] || p[n] == '/')) {
    char *in = xstrdup(p[n] ? p + n : "/");
    free(p);
    *pre = tr->image;
    return in;
  }
  return p;
}

static char const MATTERS_CONF[] = "a service file written there runs as full root at the next reload";

static void add_config(targets *ts, trees const *tr, capinit_state const *st)
{
  static struct { char const *name, *what, *matters; } const parts[] = {
    { "", "capinit's configuration directory", MATTERS_CONF },
    { "/services", "capinit's services directory", MATTERS_CONF },
    { "/capinit.conf", "capinit.conf", "capinit's settings: its log directory, who may control it" },
    { "/filecaps", "capinit's filecaps", "the file capabilities capinit gives at boot" },
  };
  size_t i;
  for (i = 0; i < sizeof parts / sizeof *parts; i++) {
    char path[PATH_MAX], *p;
    char const *pre;
    snprintf(path, sizeof path, "%s%s", st->confdir, parts[i].name);
    p = machine_path(tr, path, &pre);
    target_add(ts, p, pre, parts[i].what, 0, parts[i].matters);
  }
  target_add(ts, resolve(tr->image, st->rundir), tr->image, "capinit's runtime directory",
             0, "its control socket and what it keeps of each service");
  target_add(ts, resolve(tr->image, st->logdir), tr->image, "capinit's log directory",
             0, "capinit writes the logs there as root: a link planted there redirects its writes");
}

/* Does the file's node let anyone write it whom its directory does not
 * let write there?  Only then is it a target of its own: who may write
 * the directory may replace the file anyway. */
static int writable_beyond_directory(target const *t)
{
  node const *f = &t->nodes[t->nnodes - 1], *d = &t->nodes[t->nnodes - 2];
  if (t->nnodes < 2 || f->missing) return 0;
  return f->uid != d->uid || f->gid != d->gid || (f->mode & 0222 & ~d->mode);
}

/* The index in targets of the services directory (add_config's order). */
#define SERVICES_DIR 1

static void add_service_files(targets *ts, trees const *tr, svc_set const *set)
{
  size_t i;
  for (i = 0; i < set->n; i++) {
    char const *pre;
    char *p = machine_path(tr, set->v[i]->file, &pre);
    target *t = target_add(ts, p, pre, "the service file", set->v[i],
                           "capinit runs what it says at the next reload");
    char *slash = strrchr(p, '/');
    int in_services = slash && (size_t)(slash - p) == strlen(ts->v[SERVICES_DIR].path) &&
                      !strncmp(p, ts->v[SERVICES_DIR].path, (size_t)(slash - p));
    node const *f = &t->nodes[t->nnodes - 1];
    /* a device or a FIFO is never read as a service (refused): writing
     * one changes no service */
    int not_a_file = !f->missing && !S_ISREG(f->mode) && !S_ISLNK(f->mode);
    if (not_a_file || (in_services && !writable_beyond_directory(t))) {
      free(t->path);
      free(t->nodes);
      ts->n--;
    }
  }
}

static int by_path(void const *a, void const *b)
{
  return strcmp(((target const *)a)->path, ((target const *)b)->path);
}

/* The programs of legacy services, each once (sorted, merged). */
static void add_programs(targets *ts, trees const *tr, svc_set const *set)
{
  targets progs = { 0, 0 };
  size_t i, j, k;
  for (i = 0; i < set->n; i++) {
    svc const *s = set->v[i];
    char **argv[2];
    if (s->mode != SVC_LEGACY) continue;
    argv[0] = s->argv;
    argv[1] = s->stop_argv;
    for (k = 0; k < 2; k++) {
      target *t;
      if (!argv[k] || !argv[k][0] || argv[k][0][0] != '/') continue;
      progs.v = xreallocarray(progs.v, progs.n + 1, sizeof *progs.v);
      t = &progs.v[progs.n++];
      memset(t, 0, sizeof *t);
      t->path = resolve(tr->image, argv[k][0]);
      t->of = s;
    }
  }
  if (progs.n > 1) qsort(progs.v, progs.n, sizeof *progs.v, by_path);
  for (i = 0; i < progs.n; i = j) {
    int shared = 0;
    target *t;
    for (j = i + 1; j < progs.n && !strcmp(progs.v[j].path, progs.v[i].path); j++) {
      shared |= progs.v[j].of != progs.v[i].of;
      free(progs.v[j].path);
    }
    t = target_add(ts, progs.v[i].path, tr->image, "the program of legacy service", progs.v[i].of,
                   progs.v[i].of->uid ? "it runs outside noroot, with that service's privileges"
                                      : "it runs as full root");
    t->program = 1;
    t->shared = shared;
  }
  free(progs.v);
}

/* ---------------------------------------------------------- the view */

/* A mount of the service's file tree: what is seen at view comes from
 * host (NULL: a fresh tmpfs, /proc or /dev), as engine/container.c
 * makes them, in order. */
typedef struct vmount_s {
  char const *view, *host;
} vmount;

typedef struct view_s {
  svc_container const *ct;
  vmount m[CT_BINDS_MAX + 8];
  size_t n;
} view;

static void view_add(view *v, char const *at, char const *host)
{
  v->m[v->n].view = at;
  v->m[v->n++].host = host;
}

static void view_build(view *v, svc_container const *ct)
{
  size_t i;
  v->ct = ct;
  v->n = 0;
  view_add(v, "/", ct && ct->root ? ct->root : "/");
  if (!ct) return;
  for (i = 0; i < ct->nbinds; i++) view_add(v, ct->binds[i].dst, ct->binds[i].src);
  if (container_own_dev(ct)) view_add(v, "/dev", 0);
  if (container_own_tmp(ct)) view_add(v, "/tmp", 0);
  if (container_own_var_tmp(ct)) view_add(v, "/var/tmp", 0);
  if (container_own_proc(ct)) view_add(v, "/proc", 0);
}

/* The host path seen at at: 0, or -1 when the mount there is none. */
static int view_host(view const *v, char const *at, char *out, size_t len)
{
  size_t i = v->n;
  while (i-- > 0) {
    if (!under(at, v->m[i].view)) continue;
    if (!v->m[i].host) return -1;
    rebase(out, len, at, v->m[i].view, v->m[i].host);
    return 0;
  }
  return -1;
}

/* Is the mount at at writable?  The engine's order: read-only = yes for
 * the whole tree, then each read-write path writable again, then each
 * bind as it says (the last one over at wins). */
static int view_writable(view const *v, char const *at)
{
  svc_container const *ct = v->ct;
  size_t i;
  int w;
  if (!ct) return 1;
  w = !container_read_only(ct);
  for (i = 0; container_read_only(ct) && i < ct->nrw; i++)
    if (under(at, ct->rw[i].path)) w = 1;
  for (i = 0; i < ct->nbinds; i++)
    if (under(at, ct->binds[i].dst)) w = !ct->binds[i].ro;
  return w;
}

/* ------------------------------------------------- the permission check */

typedef struct creds_s {
  svc const *s;
  uint64_t override;       /* cap_dac_override, cap_fowner, cap_chown, cap_setuid it holds */
} creds;

enum grant { G_NONE, G_CAPS, G_OWNER, G_GROUP, G_OTHER };

static int in_groups(svc const *s, gid_t g)
{
  size_t i;
  if (s->gid == g) return 1;
  for (i = 0; i < s->ngroups; i++)
    if (s->groups[i] == g) return 1;
  return 0;
}

/* The kernel's order: the owner's bits for the owner, the group's for a
 * member, the others' for the rest (not the best of them). */
static enum grant may_write(creds const *c, node const *d)
{
  if (c->override) return G_CAPS;
  if (d->uid == c->s->uid) return d->mode & 0200 ? G_OWNER : G_NONE;
  if (in_groups(c->s, d->gid)) return d->mode & 0020 ? G_GROUP : G_NONE;
  return d->mode & 0002 ? G_OTHER : G_NONE;
}

/* May who writes directory d rename or remove its entry e?  Not in a
 * sticky directory, unless it owns one of them (or holds cap_fowner,
 * or cap_chown to make one its own); an entry not made yet it makes. */
static int may_replace(creds const *c, node const *d, node const *e)
{
  if (e->missing || !(d->mode & S_ISVTX)) return 1;
  if (c->override & ((1ull << CAP_FOWNER) | (1ull << CAP_CHOWN) | (1ull << CAP_SETUID))) return 1;
  return c->s->uid == d->uid || c->s->uid == e->uid;
}

/* Through which node of t may the service change it, inside a writable
 * mount whose top is top_len long: the path itself, or a directory above
 * it that lets it replace what is below.  Its index, or -1. */
static long writable_node(creds const *c, target const *t, size_t top_len, enum grant *g)
{
  size_t k = t->nnodes - 1;
  if ((*g = may_write(c, &t->nodes[k]))) return (long)k;
  while (k-- > 0 && t->nodes[k].len >= top_len) {
    node const *d = &t->nodes[k];
    if (!S_ISDIR(d->mode)) continue;
    if ((*g = may_write(c, d)) && may_replace(c, d, &t->nodes[k + 1])) return (long)k;
  }
  return -1;
}

/* ---------------------------------------------------------- the verdict */

/* A writable part of the service's tree: from top down. */
typedef struct region_s {
  char const *top;         /* in the service's view */
  unsigned line;           /* the key that makes it writable; 0: the tree */
  ct_bind const *bind;     /* the bind that makes it, or NULL */
} region;

/* What the service could write through one region. */
typedef struct hit_s {
  target const *t;
  char path[PATH_MAX];     /* the node it may write */
  node n;
  enum grant g;
  size_t more;             /* other targets written through the region */
} hit;

/* Does region r let the service write target t?  1 and h filled. */
static int region_writes(creds const *c, view const *v, region const *r, char const *host,
                         target const *t, hit *h)
{
  char at[PATH_MAX], seen[PATH_MAX];
  enum grant g;
  if (under(t->path, host)) {
    long k;
    rebase(at, sizeof at, t->path, host, r->top);
    if (view_host(v, at, seen, sizeof seen) < 0 || strcmp(seen, t->path) || !view_writable(v, at)) return 0;
    k = writable_node(c, t, strlen(host), &g);
    if (k < 0) return 0;
    h->n = t->nodes[k];
    snprintf(h->path, sizeof h->path, "%.*s", (int)t->nodes[k].len, t->path);
  } else if (under(host, t->path)) {
    /* a writable path inside the state: what it holds is the state's */
    node_read(&h->n, t->pre, host, strlen(host), 0);
    if (!(g = may_write(c, &h->n))) return 0;
    snprintf(h->path, sizeof h->path, "%s", host);
  } else {
    return 0;
  }
  h->t = t;
  h->g = g;
  return 1;
}

static char const *grant_text(creds const *c, hit const *h, char *buf, size_t len)
{
  char caps[256];
  char const *made = h->n.missing ? ", as capinit makes it" : "";
  switch (h->g) {
    case G_CAPS:
      snprintf(buf, len, "it holds %s", caps_format(c->override, caps, sizeof caps));
      break;
    case G_OWNER:
      snprintf(buf, len, "uid %u owns %s%s", (unsigned)c->s->uid, h->path, made);
      break;
    case G_GROUP:
      snprintf(buf, len, "%s is writable by its group %u, one of the service's", h->path, (unsigned)h->n.gid);
      break;
    default:
      snprintf(buf, len, "%s is writable by everyone", h->path);
      break;
  }
  return buf;
}

/* The line to point at for the whole tree: what makes it writable. */
static unsigned tree_line(svc const *s, enum grant g)
{
  if (s->ct && s->ct->root) return s->line[K_ROOT_DIRECTORY];
  if (s->line[K_READ_ONLY]) return s->line[K_READ_ONLY];
  if (g == G_CAPS && s->line[K_CAPABILITIES]) return s->line[K_CAPABILITIES];
  if (s->line[K_USER]) return s->line[K_USER];
  if (s->line[K_MODE]) return s->line[K_MODE];
  return 1;
}

/* What makes region r writable, in the file's words. */
static void region_text(svc const *s, region const *r, char *buf, size_t len)
{
  if (r->bind && strcmp(r->bind->src, r->bind->dst))
    snprintf(buf, len, "bind = %s:%s", r->bind->src, r->bind->dst);
  else if (r->bind)
    snprintf(buf, len, "bind = %s", r->bind->src);
  else if (r->line)
    snprintf(buf, len, "read-write = %s", r->top);
  else if (s->ct && s->ct->root)
    snprintf(buf, len, "root-directory = %s is writable (no read-only = yes)", s->ct->root);
  else
    snprintf(buf, len, "the service's file tree is writable (no read-only = yes)");
}

static void report(conf_ctx *ctx, svc *s, creds const *c, region const *r, hit const *h)
{
  conf_where w = { ctx->diags, s->file, r->line ? r->line : tree_line(s, h->g), 0, 0 };
  char why[PATH_MAX + 128], whose[SVC_NAME_MAX + 16] = "", more[64] = "", text[2 * PATH_MAX + 64];
  int through = strcmp(h->path, h->t->path) != 0;
  if (h->t->of) snprintf(whose, sizeof whose, " %s", h->t->of->name);
  if (h->more) snprintf(more, sizeof more, "; and %zu more of capinit's paths", h->more);
  grant_text(c, h, why, sizeof why);
  region_text(s, r, text, sizeof text);
  if (s->writes_state) {
    conf_warning(&w, "%s: it could write %s%s %s (%s%s): %s%s; accepted by writes-capinit-state = yes (line %u)",
                 text, h->t->what, whose, h->t->path, why, through ? ", which holds it" : "",
                 h->t->matters, more, s->line[K_WRITES_STATE]);
    return;
  }
  conf_error(&w, "%s: it could write %s%s %s (%s%s): %s%s; refused: make it read-only (read-only = yes, a read-write "
             "or bind that does not cover it), run the service as a user that may not write it, or accept it "
             "with writes-capinit-state = yes",
             text, h->t->what, whose, h->t->path, why, through ? ", which holds it" : "", h->t->matters, more);
  s->refused = 1;
}

/* The writable regions of s's tree. */
static size_t regions_of(svc const *s, region *rv, size_t max)
{
  svc_container const *ct = s->ct;
  size_t n = 0, i;
  if (!container_read_only(ct)) rv[n++] = (region){ "/", 0, 0 };
  for (i = 0; container_read_only(ct) && i < ct->nrw && n < max; i++)
    rv[n++] = (region){ ct->rw[i].path, ct->rw[i].line, 0 };
  for (i = 0; ct && i < ct->nbinds && n < max; i++)
    if (!ct->binds[i].ro) rv[n++] = (region){ ct->binds[i].dst, ct->binds[i].line, &ct->binds[i] };
  return n;
}

static void judge(conf_ctx *ctx, svc *s, targets const *ts)
{
  /* cap_setuid makes it any uid, the owner of anything included */
  static uint64_t const overriding =
    (1ull << CAP_DAC_OVERRIDE) | (1ull << CAP_FOWNER) | (1ull << CAP_CHOWN) | (1ull << CAP_SETUID);
  region rv[1 + CT_RW_MAX + CT_BINDS_MAX];
  creds c = { s, s->caps & s->bounding & overriding };
  view v;
  size_t nr = regions_of(s, rv, sizeof rv / sizeof *rv), i, j;

  view_build(&v, s->ct);
  for (i = 0; i < nr; i++) {
    char host[PATH_MAX];
    hit first, h;
    int found = 0;
    if (!view_writable(&v, rv[i].top) || view_host(&v, rv[i].top, host, sizeof host) < 0) continue;
    for (j = 0; j < ts->n; j++) {
      target const *t = &ts->v[j];
      /* its own program: what a service does to it, it does to itself */
      if (t->program && t->of == s && !t->shared) continue;
      if (!region_writes(&c, &v, &rv[i], host, t, &h)) continue;
      if (found++) {
        first.more++;
        continue;
      }
      first = h;
      first.more = 0;
    }
    if (found) report(ctx, s, &c, &rv[i], &first);
  }
}

/* Is the service judged?  A legacy root one holds everything anyway. */
static int judged(svc const *s)
{
  return !s->refused && !(s->mode == SVC_LEGACY && s->uid == 0);
}

void state_guard(conf_ctx *ctx, svc_set *set)
{
  capinit_state const *st = ctx->state;
  targets ts = { 0, 0 };
  trees tr;
  size_t i;
  if (!st) return;
  for (i = 0; i < set->n && !judged(set->v[i]); i++) {}
  if (i == set->n) return;
  tr.image[0] = 0;
  if (strcmp(ctx->root, "/") && !realpath(ctx->root, tr.image)) snprintf(tr.image, sizeof tr.image, "%s", ctx->root);
  add_config(&ts, &tr, st);
  add_service_files(&ts, &tr, set);
  add_programs(&ts, &tr, set);
  for (i = 0; i < set->n; i++)
    if (judged(set->v[i])) judge(ctx, set->v[i], &ts);
  targets_free(&ts);
}

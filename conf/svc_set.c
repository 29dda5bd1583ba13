/* conf/svc_set.c -- all the services of a configuration, and the checks
 * across them: unknown dependencies, cycles, dependencies on refused
 * services, shared uids and card addresses. */
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <arpa/inet.h>

#include "parse.h"
#include "state_guard.h"
#include "svc.h"
#include "xalloc.h"

svc *svc_set_find(svc_set const *set, char const *name)
{
  size_t i;
  for (i = 0; i < set->n; i++)
    if (!strcmp(set->v[i]->name, name)) return set->v[i];
  return 0;
}

static void set_append(svc_set *set, svc *s)
{
  set->v = xreallocarray(set->v, set->n + 1, sizeof *set->v);
  set->v[set->n++] = s;
}

/* The first `check` services of set are compared with the new one. */
static void add_file(conf_ctx *ctx, svc_set *set, char const *path, size_t check)
{
  svc *s = svc_load_file(ctx, path);
  size_t i;
  for (i = 0; s->name[0] && i < check; i++) {
    if (strcmp(set->v[i]->name, s->name)) continue;
    diag_add(ctx->diags, DIAG_ERROR, path, 0, "service '%s' is already defined by %s",
             s->name, set->v[i]->file);
    svc_free(s);
    return;
  }
  set_append(set, s);
}

int svc_set_add_file(conf_ctx *ctx, svc_set *set, char const *path)
{
  add_file(ctx, set, path, set->n);
  return 0;
}

static int by_name(void const *a, void const *b)
{
  return strcmp(*(char *const *)a, *(char *const *)b);
}

int svc_set_load_dir(conf_ctx *ctx, svc_set *set, char const *dir)
{
  char path[4096];
  snprintf(path, sizeof path, "%s/services", dir);
  return svc_set_load_services(ctx, set, path);
}

int svc_set_load_services(conf_ctx *ctx, svc_set *set, char const *dir)
{
  char path[4096];
  char **names = 0;
  size_t n = 0, i, first;
  struct dirent *d;
  DIR *dp;

  dp = opendir(dir);
  if (!dp) return -1;
  while ((errno = 0, d = readdir(dp))) {
    size_t len = strlen(d->d_name);
    /* dot files are hidden (editors' and package managers' leftovers) */
    if (d->d_name[0] == '.' || len < 5 || strcmp(d->d_name + len - 4, ".svc")) continue;
    names = xreallocarray(names, n + 1, sizeof *names);
    names[n++] = xstrdup(d->d_name);
  }
  if (errno) {
    int e = errno;
    closedir(dp);
    for (i = 0; i < n; i++) free(names[i]);
    free(names);
    errno = e;
    return -1;
  }
  closedir(dp);
  /* no *.svc file: names is NULL, and qsort(NULL, 0, ...) is undefined */
  if (n > 1) qsort(names, n, sizeof *names, by_name);
  /* one directory's files have distinct names: each new service is only
   * compared with the ones the set held before (linear in the files) */
  first = set->n;
  for (i = 0; i < n; i++) {
    snprintf(path, sizeof path, "%s/%s", dir, names[i]);
    add_file(ctx, set, path, first);
    free(names[i]);
  }
  free(names);
  return 0;
}

/* The graph: an edge s -> t when s depends on or comes after t. */
typedef struct graph_s {
  svc_set const *set;
  size_t *order;            /* indexes of set->v, sorted by name */
  long **adj;               /* per service, -1 terminated */
  long *index, *low, *stack, *comp;
  char *onstack;
  long counter, sp, ncomp;
} graph;

static svc_set const *sort_set;
static int by_index_name(void const *a, void const *b)
{
  return strcmp(sort_set->v[*(size_t const *)a]->name, sort_set->v[*(size_t const *)b]->name);
}

/* The index in set->v of the service called name, or -1: a binary search
 * of g->order (names are unique in a set). */
static long find_index(graph const *g, char const *name)
{
  size_t lo = 0, hi = g->set->n;
  while (lo < hi) {
    size_t mid = lo + (hi - lo) / 2;
    int c = strcmp(g->set->v[g->order[mid]]->name, name);
    if (!c) return (long)g->order[mid];
    if (c < 0) lo = mid + 1;
    else hi = mid;
  }
  return -1;
}

static svc *find(graph const *g, char const *name)
{
  long i = find_index(g, name);
  return i < 0 ? 0 : g->set->v[i];
}

static void graph_build(graph *g, svc_set const *set)
{
  size_t i, j;
  g->set = set;
  g->order = xcalloc(set->n + 1, sizeof *g->order);
  for (i = 0; i < set->n; i++) g->order[i] = i;
  sort_set = set;
  qsort(g->order, set->n, sizeof *g->order, by_index_name);
  g->adj = xcalloc(set->n, sizeof *g->adj);
  for (i = 0; i < set->n; i++) {
    svc const *s = set->v[i];
    size_t k = 0;
    g->adj[i] = xcalloc(s->ndepends + s->nafter + 1, sizeof **g->adj);
    for (j = 0; j < s->ndepends + s->nafter; j++) {
      char const *t = j < s->ndepends ? s->depends[j] : s->after[j - s->ndepends];
      long x = find_index(g, t);
      if (x >= 0) g->adj[i][k++] = x;
    }
    g->adj[i][k] = -1;
  }
  g->index = xcalloc(set->n, sizeof *g->index);
  g->low = xcalloc(set->n, sizeof *g->low);
  g->stack = xcalloc(set->n, sizeof *g->stack);
  g->comp = xcalloc(set->n, sizeof *g->comp);
  g->onstack = xcalloc(set->n, 1);
  for (i = 0; i < set->n; i++) g->index[i] = -1;
  g->counter = g->sp = g->ncomp = 0;
}

static void graph_free(graph *g)
{
  size_t i;
  for (i = 0; i < g->set->n; i++) free(g->adj[i]);
  free(g->adj);
  free(g->order);
  free(g->index);
  free(g->low);
  free(g->stack);
  free(g->comp);
  free(g->onstack);
}

/* Tarjan's strongly connected components; depth is bounded by the number
 * of services. */
static void strongconnect(graph *g, long v)
{
  long const *e;
  g->index[v] = g->low[v] = g->counter++;
  g->stack[g->sp++] = v;
  g->onstack[v] = 1;
  for (e = g->adj[v]; *e >= 0; e++) {
    if (g->index[*e] < 0) {
      strongconnect(g, *e);
      if (g->low[*e] < g->low[v]) g->low[v] = g->low[*e];
    } else if (g->onstack[*e] && g->index[*e] < g->low[v]) {
      g->low[v] = g->index[*e];
    }
  }
  if (g->low[v] == g->index[v]) {
    long w;
    do {
      w = g->stack[--g->sp];
      g->onstack[w] = 0;
      g->comp[w] = g->ncomp;
    } while (w != v);
    g->ncomp++;
  }
}

static int depends_on(svc const *s, char const *name)
{
  size_t i;
  for (i = 0; i < s->ndepends; i++)
    if (!strcmp(s->depends[i], name)) return 1;
  return 0;
}

/* Report the shortest cycle from v back to itself, inside its component. */
static void report_cycle(conf_ctx *ctx, graph *g, long v)
{
  size_t n = g->set->n, len = 0, cap = 0;
  long *prev = xcalloc(n, sizeof *prev), *queue = xcalloc(n, sizeof *queue);
  long head = 0, tail = 0, x, first;
  char *text = 0;
  size_t i;
  svc *s = g->set->v[v];
  conf_where w = { ctx->diags, s->file, 0, 0, 0 };

  for (i = 0; i < n; i++) prev[i] = -2;
  queue[tail++] = v;
  while (head < tail) {
    long u = queue[head++];
    long const *e;
    for (e = g->adj[u]; *e >= 0; e++) {
      if (g->comp[*e] != g->comp[v] || prev[*e] != -2) continue;
      prev[*e] = u;
      if (*e == v) goto found;
      queue[tail++] = *e;
    }
  }
found:
  /* walk back from v to v, then print forwards */
  {
    long path[n + 1];
    size_t k = 0;
    x = v;
    do {
      path[k++] = x;
      x = prev[x];
    } while (x != v && k < n);
    path[k++] = v;
    first = path[k - 2];
    for (i = k; i-- > 0;) {
      char const *name = g->set->v[path[i]]->name;
      size_t add = strlen(name) + 5;
      if (len + add >= cap) {
        cap = 2 * (len + add) + 64;
        text = xreallocarray(text, cap, 1);
      }
      len += (size_t)snprintf(text + len, cap - len, "%s%s", i + 1 < k ? " -> " : "", name);
    }
  }
  w.line = depends_on(s, g->set->v[first]->name) ? s->line[K_DEPENDS] : s->line[K_AFTER];
  conf_error(&w, "dependency cycle: %s", text);
  free(text);
  free(prev);
  free(queue);
}

/* Two services of one uid see each other's processes unless one has a
 * PID namespace of its own: to the kernel they are the same user, and each
 * may signal and ptrace the other's.  Each such service but a legacy root
 * one (which may anyway) is warned, with the other it shares its uid
 * with.  Sorted by uid: capinit loads thousands of files. */
static svc_set const *by_uid_set;
static int by_uid(void const *a, void const *b)
{
  svc const *x = by_uid_set->v[*(size_t const *)a], *y = by_uid_set->v[*(size_t const *)b];
  if (x->uid != y->uid) return x->uid < y->uid ? -1 : 1;
  return *(size_t const *)a < *(size_t const *)b ? -1 : 1;
}

static int sees_others(svc const *s)
{
  return !s->refused && !container_own_pids(s->ct);
}

static void shared_uid_warn(conf_ctx *ctx, svc_set const *set)
{
  size_t *v = xcalloc(set->n + 1, sizeof *v), n = 0, i, j;
  for (i = 0; i < set->n; i++)
    if (sees_others(set->v[i])) v[n++] = i;
  by_uid_set = set;
  qsort(v, n, sizeof *v, by_uid);
  for (i = 0; i < n; i++) {
    svc *s = set->v[v[i]];
    int legacy_root = s->uid == 0 && !(s->securebits & 1u);
    if (legacy_root) continue;
    j = i > 0 && set->v[v[i - 1]]->uid == s->uid ? i - 1 : i + 1 < n && set->v[v[i + 1]]->uid == s->uid ? i + 1 : i;
    if (j == i) continue;
    conf_where w = { ctx->diags, s->file, s->line[K_PRIVATE_PIDS], 0, 0 };
    conf_warning(&w, "uid %u is also service %s's, and neither has private-pids: each can signal and ptrace "
                     "the other's processes (the kernel's same user)", (unsigned)s->uid, set->v[v[j]]->name);
  }
  free(v);
}

/* Two cards with one address on one PARENT: the kernel takes both for
 * macvlan (IPv4 has no duplicate address detection), and a peer reaches
 * whichever answered its ARP last.  capinit refuses the second at stage
 * address while the first runs; check and explain warn each file, with
 * the other.  Cards are few: every pair of them. */
void svc_address_warn(conf_ctx *ctx, svc const *s, svc_set const *set)
{
  size_t j;
  if (s->refused || !container_card(s->ct)) return;
  for (j = 0; j < set->n; j++) {
    svc_container const *o = set->v[j]->ct;
    char a[INET_ADDRSTRLEN];
    if (!strcmp(set->v[j]->name, s->name) || set->v[j]->refused || !container_card(o) ||
        o->address.s_addr != s->ct->address.s_addr || strcmp(o->parent, s->ct->parent))
      continue;
    conf_where w = { ctx->diags, s->file, s->line[K_ADDRESS], 0, 0 };
    inet_ntop(AF_INET, &o->address, a, sizeof a);
    conf_warning(&w, "address: %s on %s is also service %s's: the two cannot run at once (the second to start "
                     "fails at stage address)", a, o->parent, set->v[j]->name);
    return;
  }
}

void svc_set_validate(conf_ctx *ctx, svc_set *set)
{
  size_t i, j;
  long *size;
  graph g;
  int changed;

  state_guard(ctx, set);
  shared_uid_warn(ctx, set);
  for (i = 0; i < set->n; i++) svc_address_warn(ctx, set->v[i], set);
  graph_build(&g, set);
  for (i = 0; i < set->n; i++) {
    svc *s = set->v[i];
    conf_where w = { ctx->diags, s->file, 0, 0, 0 };
    for (j = 0; j < s->ndepends; j++) {
      if (find(&g, s->depends[j])) continue;
      w.line = s->line[K_DEPENDS];
      conf_error(&w, "depends: unknown service '%s'", s->depends[j]);
      s->refused = 1;
    }
    for (j = 0; j < s->nafter; j++) {
      if (find(&g, s->after[j])) continue;
      w.line = s->line[K_AFTER];
      conf_warning(&w, "after: no service '%s' here; the ordering is ignored", s->after[j]);
    }
  }

  for (i = 0; i < set->n; i++)
    if (g.index[i] < 0) strongconnect(&g, (long)i);
  /* a component of more than one service is a cycle */
  size = xcalloc(g.ncomp + 1, sizeof *size);
  for (i = 0; i < set->n; i++) size[g.comp[i]]++;
  for (i = 0; i < set->n; i++) {
    if (size[g.comp[i]] < 2) continue;
    report_cycle(ctx, &g, (long)i);
    set->v[i]->refused = 1;
  }
  free(size);

  do {
    changed = 0;
    for (i = 0; i < set->n; i++) {
      svc *s = set->v[i];
      if (s->refused) continue;
      for (j = 0; j < s->ndepends; j++) {
        svc *d = find(&g, s->depends[j]);
        if (!d || !d->refused) continue;
        conf_where w = { ctx->diags, s->file, s->line[K_DEPENDS], 0, 0 };
        conf_error(&w, "depends on '%s', which is refused", d->name);
        s->refused = 1;
        changed = 1;
        break;
      }
    }
  } while (changed);
  graph_free(&g);
}

void svc_set_free(svc_set *set)
{
  size_t i;
  for (i = 0; i < set->n; i++) svc_free(set->v[i]);
  free(set->v);
  set->v = 0;
  set->n = 0;
}

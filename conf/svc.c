/* conf/svc.c -- one service: defaults, loading, and the checks that need
 * every key of the file at once. */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>

#include <skalibs/sha256.h>

#include "ids.h"
#include "keys.h"
#include "names.h"
#include "parse.h"
#include "svc.h"
#include "syscalls.h"
#include "values.h"
#include "xalloc.h"

int svc_name_valid(char const *name)
{
  size_t i;
  if (!name[0] || name[0] == '.') return 0;
  for (i = 0; name[i]; i++) {
    char c = name[i];
    if (i >= SVC_NAME_MAX) return 0;
    if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
          c == '_' || c == '.' || c == '@' || c == '-'))
      return 0;
  }
  return 1;
}

static unsigned const no_lines[K_COUNT + RLIM_NLIMITS];

/* The room NAME takes in the block of file (with its NUL): what
 * name_from_path() may copy. */
static size_t name_room(char const *path)
{
  char const *base = strrchr(path, '/');
  size_t n;
  base = base ? base + 1 : path;
  n = strlen(base);
  if (n < 4 || strcmp(base + n - 4, ".svc") || n - 4 > SVC_NAME_MAX) return 1;
  return n - 4 + 1;
}

static svc *svc_new(char const *file)
{
  svc *s = xcalloc(1, sizeof *s);
  size_t len = strlen(file);
  s->file = xmalloc(len + 1 + name_room(file));
  memcpy(s->file, file, len + 1);
  s->name = s->file + len + 1;
  s->name[0] = 0;
  s->line = xcalloc(K_COUNT + RLIM_NLIMITS, sizeof *s->line);
  s->type = SVC_LONGRUN;
  s->umask = 022;
  s->mode = SVC_LEGACY;
  s->ready = READY_EXEC;
  s->ready_timeout_ms = 30000;
  s->restart_delay_ms = 100;
  s->restart_delay_max_ms = 30000;
  s->stop_signal = SIGTERM;
  s->stop_timeout_ms = 10000;
  s->log = LOG_FILE;
  s->enabled = 1;
  return s;
}

void svc_drop_lines(svc *s)
{
  if (s->line == no_lines) return;
  free(s->line);
  /* read-only: a write after this point faults instead of corrupting */
  s->line = (unsigned *)no_lines;
}

void svc_free(svc *s)
{
  size_t i;
  if (!s) return;
  svc_drop_lines(s);
  free(s->file);
  free(s->description);
  free(s->argv);
  free(s->stop_argv);
  free(s->directory);
  for (i = 0; i < s->nenv; i++) {
    explicit_bzero(s->env[i], strlen(s->env[i]));
    free(s->env[i]);
  }
  free(s->env);
  free(s->user);
  free(s->group_text);
  free(s->groups_text);
  free(s->groups);
  free(s->rlimit);
  for (i = 0; i < s->ndepends; i++) free(s->depends[i]);
  free(s->depends);
  for (i = 0; i < s->nafter; i++) free(s->after[i]);
  free(s->after);
  container_free(s->ct);
  free(s);
}

/* The name of a service file: NAME.svc, NAME valid. */
static int name_from_path(svc *s, char const *path)
{
  char const *base = strrchr(path, '/');
  size_t n;
  base = base ? base + 1 : path;
  n = strlen(base);
  if (n < 4 || strcmp(base + n - 4, ".svc")) return -1;
  n -= 4;
  if (n > SVC_NAME_MAX) return -2;
  memcpy(s->name, base, n);
  s->name[n] = 0;
  return svc_name_valid(s->name) ? 0 : -2;
}

static char const *etc_file(conf_ctx *ctx, char const *which, char *buf, size_t len)
{
  snprintf(buf, len, "%s/etc/%s", strcmp(ctx->root, "/") ? ctx->root : "", which);
  return buf;
}

typedef struct groups_acc_s {
  conf_ctx *ctx;
  conf_where *w;
  svc *s;
} groups_acc;

/* Resolve a group name or number; 0, or -1 after reporting. */
static int resolve_group(conf_ctx *ctx, conf_where *w, char const *text, gid_t *gid)
{
  uint32_t n;
  char path[4096];
  int r;
  if (text[0] >= '0' && text[0] <= '9') {
    if (value_id(text, &n) < 0) return conf_error(w, "%s: invalid gid '%s'", w->key, text);
    *gid = n;
    return 0;
  }
  r = ids_group_by_name(ctx->root, text, gid);
  if (r > 0) return 0;
  etc_file(ctx, "group", path, sizeof path);
  if (r < 0) return conf_error(w, "%s: unable to look up group '%s': %s: %s", w->key, text, path, strerror(errno));
  return conf_error(w, "%s: unknown group '%s' (not in %s)", w->key, text, path);
}

static int one_group(char const *item, void *arg)
{
  groups_acc *a = arg;
  gid_t g;
  size_t i;
  if (!strcmp(item, "none")) return 0;
  if (resolve_group(a->ctx, a->w, item, &g) < 0) return -1;
  for (i = 0; i < a->s->ngroups; i++)
    if (a->s->groups[i] == g) return 0;
  if (a->s->ngroups >= 65536) return conf_error(a->w, "groups: too many groups");
  a->s->groups = xreallocarray(a->s->groups, a->s->ngroups + 1, sizeof *a->s->groups);
  a->s->groups[a->s->ngroups++] = g;
  return 0;
}

/* user: its uid and primary group (u filled when passwd has it): 1 with
 * an entry, 0 without, -1 after an error. */
static int resolve_user(conf_ctx *ctx, svc *s, conf_where *w, ids_user *u)
{
  char path[4096];
  uint32_t n;
  int r;
  etc_file(ctx, "passwd", path, sizeof path);
  w->line = s->line[K_USER];
  w->key = "user";
  if (!s->user) {
    s->uid = 0;
    s->gid = 0;
    return ids_user_by_uid(ctx->root, 0, u) > 0;
  }
  if (s->user[0] >= '0' && s->user[0] <= '9') {
    if (value_id(s->user, &n) < 0) return conf_error(w, "user: invalid uid '%s'", s->user), -1;
    s->uid = n;
    if (ids_user_by_uid(ctx->root, n, u) > 0) {
      s->gid = u->gid;
      return 1;
    }
    if (s->group_text) return 0;
    conf_error(w, "user: uid %s has no entry in %s, so it has no primary group: set 'group' too", s->user, path);
    return -1;
  }
  r = ids_user_by_name(ctx->root, s->user, u);
  if (r < 0) return conf_error(w, "user: unable to look up user '%s': %s: %s", s->user, path, strerror(errno)), -1;
  if (!r) return conf_error(w, "user: unknown user '%s' (not in %s)", s->user, path), -1;
  s->uid = u->uid;
  s->gid = u->gid;
  return 1;
}

static void resolve_ids(conf_ctx *ctx, svc *s, conf_where *w)
{
  char path[4096];
  ids_user u;
  int r, have_user = resolve_user(ctx, s, w, &u);
  if (have_user < 0) return;
  if (s->group_text) {
    w->line = s->line[K_GROUP];
    w->key = "group";
    if (resolve_group(ctx, w, s->group_text, &s->gid) < 0) return;
  }
  if (s->line[K_GROUPS]) {
    groups_acc a = { ctx, w, s };
    w->line = s->line[K_GROUPS];
    w->key = "groups";
    value_list(s->groups_text, one_group, &a);
  } else {
    gid_t *v;
    r = ids_user_groups(ctx->root, have_user ? u.name : 0, s->gid, &v);
    if (r < 0 && errno == ENOENT) r = ids_user_groups(ctx->root, 0, s->gid, &v);
    if (r < 0) {
      w->line = s->line[K_USER];
      etc_file(ctx, "group", path, sizeof path);
      conf_error(w, "unable to read %s for the user's groups: %s", path, strerror(errno));
      return;
    }
    s->groups = v;
    s->ngroups = (size_t)r;
  }
}

uint64_t svc_own_bounding(void)
{
  uint64_t m = 0;
  unsigned c;
  for (c = 0; c < 64; c++) {
    int r = prctl(PR_CAPBSET_READ, c, 0, 0, 0);
    if (r < 0) break;
    if (r) m |= (uint64_t)1 << c;
  }
  return m;
}

/* The errors already reported about this file: the checks of svc_finish()
 * continue the parser's count, so that the "too many problems" cut-off
 * holds for the whole file. */
static unsigned file_errors(diag_list const *d, char const *file)
{
  unsigned n = 0;
  size_t i;
  for (i = 0; i < d->n; i++)
    n += d->v[i].level == DIAG_ERROR && !strcmp(d->v[i].file, file);
  return n;
}

/* The system-call filter: a contained service (noroot, or with a
 * container key) makes no user namespace and is denied the groups its
 * capabilities do not ask for, unless its file says otherwise. */
static void filter_finish(svc *s)
{
  int contained = container_contained(s);
  unsigned deny = contained ? syscalls_default_deny(s->caps) : 0;
  if (!s->line[K_USER_NAMESPACES]) s->user_namespaces = !contained;
  s->suid_refused = contained && container_nosuid(s->ct);
  s->syscalls_deny = (unsigned short)((deny | s->syscalls_deny) & ~s->syscalls_allow);
}

/* capctl check: a contained service given a capability that opens a way
 * out of its container (conf/container.h) is told so, one line each */
static void escapes_warn(svc const *s, conf_where *w)
{
  char name[64];
  size_t i;
  w->line = s->line[K_CAPABILITIES];
  for (i = 0; i < container_escapes_n; i++) {
    char const *how = container_escape(s, container_escapes[i].cap);
    if (how)
      conf_warning(w, "capabilities: %s opens a way out of its container: %s",
                   cap_name((unsigned)container_escapes[i].cap, name, sizeof name), how);
  }
}

void svc_finish(conf_ctx *ctx, svc *s)
{
  conf_where w = { ctx->diags, s->file, 0, 0, file_errors(ctx->diags, s->file) };
  char buf[1024];

  if (!s->line[K_COMMAND] && !ctx->command_optional) {
    conf_error(&w, "missing required key 'command'");
  }
  if (s->stop_argv && s->type != SVC_ONESHOT) {
    w.line = s->line[K_STOP_COMMAND];
    conf_error(&w, "stop-command: only a oneshot service has one (a longrun is stopped with stop-signal)");
  }
  if (s->type == SVC_ONESHOT && s->ready != READY_EXEC) {
    w.line = s->line[K_READY];
    conf_error(&w, "ready: a oneshot is ready when it exits 0; 'ready' applies to longrun services");
  }
  s->umask_set = s->line[K_UMASK] != 0;
  if (!s->line[K_RESTART]) s->restart = s->type == SVC_ONESHOT ? RESTART_NEVER : RESTART_ALWAYS;
  if (s->restart_delay_ms > s->restart_delay_max_ms) {
    w.line = s->line[K_RESTART_DELAY] ? s->line[K_RESTART_DELAY] : s->line[K_RESTART_DELAY_MAX];
    conf_error(&w, "restart-delay (%ums) is longer than restart-delay-max (%ums)",
               (unsigned)s->restart_delay_ms, (unsigned)s->restart_delay_max_ms);
  }

  resolve_ids(ctx, s, &w);
  if (!s->line[K_SECUREBITS]) s->securebits = s->mode == SVC_NOROOT ? SECBITS_NOROOT_MODE : 0;
  if (!s->line[K_BOUNDING]) s->bounding = s->mode == SVC_NOROOT ? s->caps : CAPS_ALL;
  /* the defaults first: the container's checks see the mounts they add */
  container_defaults(s);
  container_finish(ctx, s, &w);
  filter_finish(s);
  escapes_warn(s, &w);
  if (s->caps & ~s->bounding) {
    w.line = s->line[K_CAPABILITIES];
    conf_error(&w, "capabilities: %s not in the bounding set (line %u): add it to 'bounding' or remove it here",
               caps_format(s->caps & ~s->bounding, buf, sizeof buf), s->line[K_BOUNDING]);
  }
  if (ctx->live) {
    uint64_t named = s->caps | (s->bounding == CAPS_ALL ? 0 : s->bounding), own = 0;
    if (named) {
      /* read once per load: 64 prctl calls are dear (capinit loads
       * thousands of files) */
      if (!ctx->bounding_read) {
        ctx->bounding = svc_own_bounding();
        ctx->bounding_read = 1;
      }
      own = ctx->bounding;
    }
    if (named & ~own) {
      w.line = s->line[K_CAPABILITIES] && (s->caps & ~own) ? s->line[K_CAPABILITIES]
                                                           : s->line[K_BOUNDING];
      conf_warning(&w, "%s not in this system's bounding set: %s",
                   caps_format(named & ~own, buf, sizeof buf),
                   (s->caps & ~own) ? "the service would fail to start"
                                    : "the service gets the intersection");
    }
  }
}

static unsigned errors_of(diag_list const *d, size_t from)
{
  unsigned n = 0;
  for (; from < d->n; from++) n += d->v[from].level == DIAG_ERROR;
  return n;
}

/* A new service named after path (problems with the name reported). */
static svc *named(conf_ctx *ctx, char const *path)
{
  svc *s = svc_new(path);
  int r = name_from_path(s, path);
  if (r == -1)
    diag_add(ctx->diags, DIAG_ERROR, path, 0, "a service file's name must end in .svc");
  else if (r < 0)
    diag_add(ctx->diags, DIAG_ERROR, path, 0,
             "invalid service name (letters, digits, '_', '.', '@', '-'; at most %d; not starting with '.')",
             SVC_NAME_MAX);
  return s;
}

/* svc.digest: the file's bytes, then the ids its names resolved to (the
 * user database may change while the file does not) */
static void digest(svc *s, char const *buf, size_t len)
{
  SHA256Schedule h = SHA256_INIT();
  sha256_update(&h, buf, len);
  sha256_update(&h, (char const *)&s->uid, sizeof s->uid);
  sha256_update(&h, (char const *)&s->gid, sizeof s->gid);
  if (s->ngroups) sha256_update(&h, (char const *)s->groups, s->ngroups * sizeof *s->groups);
  sha256_final(&h, (char *)s->digest);
}

char const *svc_digest_text(svc const *s, char *text)
{
  static char const hex[] = "0123456789abcdef";
  size_t i;
  for (i = 0; i < SVC_DIGEST_LEN; i++) {
    text[2 * i] = hex[s->digest[i] >> 4];
    text[2 * i + 1] = hex[s->digest[i] & 15];
  }
  text[2 * i] = 0;
  return text;
}

/* Parse the file's text (NULL: unreadable, already reported). */
static svc *parsed(conf_ctx *ctx, svc *s, size_t first, char const *buf, size_t len)
{
  if (buf) {
    conf_parse_buffer(ctx->diags, s->file, buf, len, svc_keys, svc_keys_n, s->line, s);
    svc_finish(ctx, s);
    digest(s, buf, len);
  }
  s->refused = errors_of(ctx->diags, first) > 0;
  return s;
}

svc *svc_load_file(conf_ctx *ctx, char const *path)
{
  size_t first = ctx->diags->n, len = 0;
  svc *s = named(ctx, path);
  char *buf = conf_read_file(ctx->diags, path, &len);
  parsed(ctx, s, first, buf, len);
  /* the text has the environment's values: no stale copy (conf/parse.c) */
  if (buf) explicit_bzero(buf, len);
  free(buf);
  return s;
}

svc *svc_load_buffer(conf_ctx *ctx, char const *path, char const *buf, size_t len)
{
  size_t first = ctx->diags->n;
  svc *s = named(ctx, path);
  if (len > CONF_FILE_MAX) {
    diag_add(ctx->diags, DIAG_ERROR, path, 0, "file too large (%zu bytes; at most %u)", len, CONF_FILE_MAX);
    buf = 0;
  }
  return parsed(ctx, s, first, buf, len);
}

svc *svc_load_pairs(conf_ctx *ctx, char const *file, char const *const *pairs, size_t n)
{
  size_t first = ctx->diags->n, i;
  svc *s = svc_new(file);
  /* no name: a -k spec has no file to be named after */
  for (i = 0; i < n; i++)
    conf_parse_pair(ctx->diags, file, (unsigned)i + 1, pairs[i], svc_keys, svc_keys_n, s->line, s);
  svc_finish(ctx, s);
  s->refused = errors_of(ctx->diags, first) > 0;
  return s;
}

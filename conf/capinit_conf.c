/* conf/capinit_conf.c -- capinit.conf, the global settings: the same
 * "key = value" language as service files, with its own key table. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ids.h"
#include "keys.h"
#include "parse.h"
#include "svc.h"
#include "values.h"
#include "xalloc.h"

#define CONF(obj) ((capinit_conf *)(obj))

static int c_log_directory(conf_where *w, void *o, char const *v)
{
  char const *err;
  if (value_abspath(v, &err) < 0) return conf_error(w, "log-directory: expected an absolute path, not '%s'", v);
  free(CONF(o)->log_directory);
  CONF(o)->log_directory = xstrdup(v);
  return 0;
}

static int c_log_max_size(conf_where *w, void *o, char const *v)
{
  char const *err;
  uint64_t x;
  if (value_size(v, 1, &x, &err) < 0) return conf_error(w, "log-max-size: %s, not '%s'", err, v);
  if (x < 4096) return conf_error(w, "log-max-size: at least 4K, not '%s'", v);
  CONF(o)->log_max_size = x;
  return 0;
}

static int c_log_keep(conf_where *w, void *o, char const *v)
{
  char const *err;
  uint64_t x;
  if (value_size(v, 0, &x, &err) < 0 || x > 1000)
    return conf_error(w, "log-keep: expected a number of old logs from 0 to 1000, not '%s'", v);
  CONF(o)->log_keep = (unsigned)x;
  return 0;
}

static int c_group(conf_where *w, char **to, char const *v)
{
  if (!*v || strpbrk(v, " \t:,")) return conf_error(w, "%s: expected a group name or gid, not '%s'", w->key, v);
  free(*to);
  *to = xstrdup(v);
  return 0;
}

static int c_control_group(conf_where *w, void *o, char const *v)
{
  return c_group(w, &CONF(o)->control_group, v);
}

static int c_power_group(conf_where *w, void *o, char const *v)
{
  return c_group(w, &CONF(o)->power_group, v);
}

static int c_emergency_shell(conf_where *w, void *o, char const *v)
{
  char const *err;
  char **argv = value_argv(v, &err);
  if (!argv) return conf_error(w, "emergency-shell: %s", err);
  free(CONF(o)->emergency_shell);
  CONF(o)->emergency_shell = argv;
  return 0;
}

static int c_unmount_timeout(conf_where *w, void *o, char const *v)
{
  char const *err;
  uint32_t ms;
  if (value_duration(v, &ms, &err) < 0) return conf_error(w, "unmount-timeout: %s, not '%s'", err, v);
  if (ms < 100) return conf_error(w, "unmount-timeout: at least 100ms, not '%s'", v);
  CONF(o)->unmount_timeout_ms = ms;
  return 0;
}

conf_key const capinit_conf_keys[] = {
  [C_LOG_DIRECTORY] = { "log-directory", C_LOG_DIRECTORY, 0, c_log_directory },
  [C_LOG_MAX_SIZE] = { "log-max-size", C_LOG_MAX_SIZE, 0, c_log_max_size },
  [C_LOG_KEEP] = { "log-keep", C_LOG_KEEP, 0, c_log_keep },
  [C_CONTROL_GROUP] = { "control-group", C_CONTROL_GROUP, 0, c_control_group },
  [C_EMERGENCY_SHELL] = { "emergency-shell", C_EMERGENCY_SHELL, 0, c_emergency_shell },
  [C_UNMOUNT_TIMEOUT] = { "unmount-timeout", C_UNMOUNT_TIMEOUT, 0, c_unmount_timeout },
  [C_POWER_GROUP] = { "power-group", C_POWER_GROUP, 0, c_power_group },
};
size_t const capinit_conf_keys_n = sizeof capinit_conf_keys / sizeof capinit_conf_keys[0];
_Static_assert(sizeof capinit_conf_keys / sizeof capinit_conf_keys[0] == C_COUNT,
               "a key id without a row in capinit_conf_keys");

void capinit_conf_defaults(capinit_conf *c)
{
  static char const *const shell[] = { "/bin/sh", 0 };
  memset(c, 0, sizeof *c);
  c->log_directory = xstrdup("/var/log/capinit");
  c->log_max_size = 1u << 20;
  c->log_keep = 5;
  c->unmount_timeout_ms = 10000;
  c->emergency_shell = xmalloc(sizeof shell + sizeof "/bin/sh");
  c->emergency_shell[0] = (char *)(c->emergency_shell + 2);
  c->emergency_shell[1] = 0;
  memcpy(c->emergency_shell[0], shell[0], sizeof "/bin/sh");
}

/* A group key's value, a name or a gid, into *gid (and *set), or an
 * error on its line. */
static void resolve_group(conf_ctx *ctx, char const *path, unsigned line, char const *key,
                          char const *name, gid_t *gid, int *set)
{
  conf_where w = { ctx->diags, path, line, key, 0 };
  char group[4096];
  uint32_t n;
  int r, e;
  if (!name) return;
  if (name[0] >= '0' && name[0] <= '9') {
    if (value_id(name, &n) < 0) {
      conf_error(&w, "%s: invalid gid '%s'", key, name);
      return;
    }
    *gid = n;
    *set = 1;
    return;
  }
  if ((r = ids_group_by_name(ctx->root, name, gid)) > 0) {
    *set = 1;
    return;
  }
  e = errno;
  snprintf(group, sizeof group, "%s/etc/group", strcmp(ctx->root, "/") ? ctx->root : "");
  if (r < 0)
    conf_error(&w, "%s: unable to look up group '%s': %s: %s", key, name, group, strerror(e));
  else
    conf_error(&w, "%s: unknown group '%s' (not in %s)", key, name, group);
}

int capinit_conf_load(conf_ctx *ctx, capinit_conf *c, char const *path)
{
  unsigned lines[C_COUNT] = { 0 };
  size_t first = ctx->diags->n, len, i;
  char *buf;
  int errors = 0;
  free(c->file);
  c->file = xstrdup(path);
  buf = conf_read_file(ctx->diags, path, &len);
  if (buf) {
    conf_parse_buffer(ctx->diags, path, buf, len, capinit_conf_keys, capinit_conf_keys_n, lines, c);
    free(buf);
  }
  resolve_group(ctx, path, lines[C_CONTROL_GROUP], "control-group", c->control_group, &c->control_gid,
                &c->control_group_set);
  resolve_group(ctx, path, lines[C_POWER_GROUP], "power-group", c->power_group, &c->power_gid,
                &c->power_group_set);
  for (i = first; i < ctx->diags->n; i++) errors += ctx->diags->v[i].level == DIAG_ERROR;
  return errors ? -1 : 0;
}

void capinit_conf_free(capinit_conf *c)
{
  free(c->file);
  free(c->log_directory);
  free(c->control_group);
  free(c->power_group);
  free(c->emergency_shell);
  memset(c, 0, sizeof *c);
}

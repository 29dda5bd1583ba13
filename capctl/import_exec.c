/* capctl/import_exec.c -- the command lines of a unit: ExecStart= and
 * the lines around it, their prefixes and variables, a forking daemon's
 * foreground flag, and the one command of capinit's service file.
 *
 * capinit runs one command.  What systemd runs before it (ExecStartPre=,
 * the directories it makes) goes into a /bin/sh -c script that ends by
 * executing the command itself, so that the service's process is still
 * the daemon, with the service's credentials. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../conf/names.h"
#include "../conf/xalloc.h"
#include "import_exec.h"
#include "import_model.h"

void import_exec_line(imp *m, imp_cmds *list, unit_entry const *e, char const *v)
{
  char const *err;
  unsigned flags;
  size_t argc;
  char **argv;
  if (!*v) {  /* an empty assignment resets the list */
    list->n = 0;
    return;
  }
  argv = unit_exec_split(v, &flags, &argc, &err);
  if (!argv) {
    char *w = imp_where(e);
    imp_say(m, IMP_ERROR, IK_COMMAND, w, "%s=%s: %s", e->key, e->value, err);
    free(w);
    return;
  }
  list->v = xreallocarray(list->v, list->n + 1, sizeof *list->v);
  list->v[list->n].argv = argv;
  list->v[list->n].flags = flags;
  list->v[list->n++].where = imp_where(e);
}

static char const *env_get(imp const *m, char const *name, size_t n)
{
  size_t i;
  for (i = 0; i < m->env.n; i++)
    if (!strncmp(m->env.v[i], name, n) && m->env.v[i][n] == '=') return m->env.v[i] + n + 1;
  return 0;
}

static size_t var_name(char const *s)
{
  size_t n = 0;
  while (s[n] == '_' || (s[n] >= 'A' && s[n] <= 'Z') || (s[n] >= 'a' && s[n] <= 'z') || (n && s[n] >= '0' && s[n] <= '9')) n++;
  return n;
}

/* ${NAME} (and $NAME inside a word) replaced by its value; $MAINPID kept
 * for the reload and stop lines, which import reads; $$ is $. */
static char *expand_word(imp const *m, char const *w)
{
  size_t cap = strlen(w) + 1, n = 0;
  char *out = xmalloc(cap);
  while (*w) {
    int brace = w[0] == '$' && w[1] == '{';
    size_t k = w[0] == '$' ? var_name(w + 1 + brace) : 0;
    char const *val;
    if (w[0] == '$' && w[1] == '$') { out[n++] = '$'; w += 2; continue; }
    if (!k || (brace && w[2 + k] != '}') || (k == 7 && !strncmp(w + 1 + brace, "MAINPID", 7))) { out[n++] = *w++; continue; }
    val = env_get(m, w + 1 + brace, k);
    if (!val) val = "";
    cap += strlen(val);
    out = xreallocarray(out, cap, 1);
    memcpy(out + n, val, strlen(val));
    n += strlen(val);
    w += 1 + brace + k + brace;
  }
  out[n] = 0;
  return out;
}

/* One command's words with the environment in: a word that is just $NAME
 * becomes the value's words (none for an empty value), as systemd does. */
static void expand_cmd(imp const *m, imp_cmd *c)
{
  char **out = xcalloc(1, sizeof *out);
  size_t n = 0, i, k;
  for (i = 0; c->argv[i]; i++) {
    char const *w = c->argv[i];
    size_t len = w[0] == '$' ? var_name(w + 1) : 0;
    if (len && !w[1 + len] && strcmp(w, "$MAINPID")) {
      char const *err, *val = env_get(m, w + 1, len);
      char **words = unit_words(val ? val : "", &k, &err);
      for (k = 0; words && words[k]; k++) {
        out = xreallocarray(out, n + 2, sizeof *out);
        out[n++] = xstrdup(words[k]);
      }
      unit_argv_free(words);
    } else {
      out = xreallocarray(out, n + 2, sizeof *out);
      out[n++] = expand_word(m, w);
    }
    out[n] = 0;
  }
  unit_argv_free(c->argv);
  c->argv = out;
}

/* A program named without a path: systemd looks for it in a fixed
 * search path (systemd.service(5)); so does import, in the root. */
static void resolve_program(imp *m, imp_cmd *c)
{
  static char const *const dirs[] = { "/usr/local/sbin", "/usr/local/bin", "/usr/sbin", "/usr/bin", "/sbin", "/bin" };
  char full[4096], path[4096];
  size_t i;
  if (c->argv[0][0] == '/') return;
  for (i = 0; i < sizeof dirs / sizeof dirs[0]; i++) {
    snprintf(path, sizeof path, "%s/%s", dirs[i], c->argv[0]);
    snprintf(full, sizeof full, "%s%s", m->root, path);
    if (access(full, X_OK) == 0) {
      free(c->argv[0]);
      c->argv[0] = xstrdup(path);
      return;
    }
  }
  imp_say(m, IMP_ERROR, IK_COMMAND, c->where, "%s: not in systemd's search path of programs, in %s/", c->argv[0], m->root);
}

void import_exec_expand(imp *m)
{
  imp_cmds *lists[] = { &m->start, &m->start_pre, &m->start_post, &m->stop, &m->reload };
  size_t i, j;
  for (i = 0; i < sizeof lists / sizeof lists[0]; i++)
    for (j = 0; j < lists[i]->n; j++) {
      if (!(lists[i]->v[j].flags & EXEC_NO_ENV)) expand_cmd(m, &lists[i]->v[j]);
      if (lists[i]->v[j].argv[0]) resolve_program(m, &lists[i]->v[j]);
    }
}

char *svc_quote(char const *word)
{
  char *out = xmalloc(2 * strlen(word) + 3), *o = out;
  if (*word && !strpbrk(word, " \t\"\\")) {
    strcpy(out, word);
    return out;
  }
  *o++ = '"';
  for (; *word; word++) {
    if (*word == '"' || *word == '\\') *o++ = '\\';
    *o++ = *word;
  }
  *o++ = '"';
  *o = 0;
  return out;
}

/* A word for sh: as it is when nothing in it is special to the shell. */
static void sh_quote_into(char **s, size_t *len, char const *word)
{
  size_t need = 4 * strlen(word) + 3;
  char *o;
  *s = xreallocarray(*s, *len + need + 2, 1);
  o = *s + *len;
  if (*word && strspn(word, "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_./:=@%+,-") == strlen(word)) {
    o += sprintf(o, "%s", word);
  } else {
    *o++ = '\'';
    for (; *word; word++) {
      if (*word == '\'') o += sprintf(o, "'\\''");
      else *o++ = *word;
    }
    *o++ = '\'';
  }
  *o = 0;
  *len = (size_t)(o - *s);
}

/* argv as one line of sh */
char *import_sh_line(char *const *argv)
{
  char *s = xstrdup("");
  size_t len = 0, i;
  for (i = 0; argv[i]; i++) {
    if (i) {
      s = xreallocarray(s, len + 2, 1);
      s[len++] = ' ';
      s[len] = 0;
    }
    sh_quote_into(&s, &len, argv[i]);
  }
  return s;
}

/* argv as capinit's command value */
char *import_svc_line(char *const *argv)
{
  char *s = xstrdup("");
  size_t len = 0, i;
  for (i = 0; argv[i]; i++) {
    char *q = svc_quote(argv[i]);
    s = xreallocarray(s, len + strlen(q) + 2, 1);
    len += (size_t)sprintf(s + len, "%s%s", i ? " " : "", q);
    free(q);
  }
  return s;
}

/* capctl/import_model.c -- what capctl import knows of one unit (imp,
 * import_model.h): the report's lines and the file's comments, the values
 * of the keys chosen, the lists the rows fill, and freeing it all. */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <skalibs/strerr.h>

#include "../conf/fmt.h"
#include "../conf/xalloc.h"
#include "import_model.h"

static char *vformat(char const *fmt, va_list ap)
{
  char *s = 0;
  if (fmt_vasprintf(&s, fmt, ap) < 0) strerr_diefu1sys(111, "allocate memory");
  return s;
}

static void note_add(imp *m, enum imp_level level, enum imp_key key, char const *where, char *text)
{
  m->notes = xreallocarray(m->notes, m->nnotes + 1, sizeof *m->notes);
  m->notes[m->nnotes].level = level;
  m->notes[m->nnotes].key = key;
  m->notes[m->nnotes].where = xstrdup(where ? where : m->unit_name);
  m->notes[m->nnotes++].text = text;
  m->counts[level]++;
}

void imp_say(imp *m, enum imp_level level, enum imp_key key, char const *where, char const *fmt, ...)
{
  va_list ap;
  va_start(ap, fmt);
  note_add(m, level, key, where, vformat(fmt, ap));
  va_end(ap);
}

void imp_weaker(imp *m, enum imp_key key, char const *where, char const *fmt, ...)
{
  va_list ap;
  char *text, *s;
  va_start(ap, fmt);
  text = vformat(fmt, ap);
  va_end(ap);
  s = xmalloc(strlen(text) + 64);
  sprintf(s, "%s (%s)", text, m->allow_weaker ? "weaker than systemd: --allow-weaker" : "refused: --allow-weaker converts it");
  free(text);
  note_add(m, m->allow_weaker ? IMP_WARNING : IMP_ERROR, key, where, s);
}

static void out_push(imp *m, enum imp_key key, int replace, char const *fmt, va_list ap)
{
  char *s = vformat(fmt, ap);
  if (replace) imp_list_free(&m->out[key]);
  imp_list_add(&m->out[key], s);
  free(s);
}

void imp_set(imp *m, enum imp_key key, char const *fmt, ...)
{
  va_list ap;
  va_start(ap, fmt);
  out_push(m, key, 1, fmt, ap);
  va_end(ap);
}

void imp_add(imp *m, enum imp_key key, char const *fmt, ...)
{
  va_list ap;
  va_start(ap, fmt);
  out_push(m, key, 0, fmt, ap);
  va_end(ap);
}

char *imp_where(unit_entry const *e)
{
  char *s = xmalloc(strlen(e->file) + 16);
  sprintf(s, "%s:%u", e->file, e->line);
  return s;
}

void imp_list_add(imp_list *l, char const *s)
{
  l->v = xreallocarray(l->v, l->n + 1, sizeof *l->v);
  l->v[l->n++] = xstrdup(s);
}

int imp_list_has(imp_list const *l, char const *s)
{
  size_t i;
  for (i = 0; i < l->n; i++)
    if (!strcmp(l->v[i], s)) return 1;
  return 0;
}

int imp_list_has_name(imp_list const *l, char const *name)
{
  size_t i, n = strlen(name);
  for (i = 0; i < l->n; i++)
    if (!strncmp(l->v[i], name, n) && l->v[i][n] == '=') return 1;
  return 0;
}

void imp_list_free(imp_list *l)
{
  size_t i;
  for (i = 0; i < l->n; i++) free(l->v[i]);
  free(l->v);
  l->v = 0;
  l->n = 0;
}

void imp_paths_add(imp_paths *p, char const *path, int optional, char const *where)
{
  p->v = xreallocarray(p->v, p->n + 1, sizeof *p->v);
  p->v[p->n].path = xstrdup(path);
  p->v[p->n].optional = optional;
  p->v[p->n++].where = xstrdup(where);
}

static void paths_free(imp_paths *p)
{
  size_t i;
  for (i = 0; i < p->n; i++) free(p->v[i].path), free(p->v[i].where);
  free(p->v);
}

static void cmds_free(imp_cmds *c)
{
  size_t i;
  for (i = 0; i < c->n; i++) unit_argv_free(c->v[i].argv), free(c->v[i].where);
  free(c->v);
}

void imp_free(imp *m)
{
  imp_list *lists[] = { &m->env, &m->groups, &m->securebits, &m->rlimits, &m->after, &m->depends, &m->listen, &m->device_allow };
  imp_paths *paths[] = { &m->read_write, &m->read_only, &m->binds, &m->binds_ro, &m->made_dirs };
  imp_cmds *cmds[] = { &m->start, &m->start_pre, &m->start_post, &m->stop, &m->reload };
  char *texts[] = { m->description, m->type_where, m->user, m->group, m->user_where, m->bounding_where, m->nnp_where,
                    m->kill_mode, m->restart, m->stop_signal, m->umask, m->directory, m->root_dir, m->tty,
                    m->dir_mode[0], m->dir_mode[1], m->dir_mode[2], m->dir_mode[3] };
  size_t i;
  for (i = 0; i < sizeof lists / sizeof lists[0]; i++) imp_list_free(lists[i]);
  for (i = 0; i < sizeof paths / sizeof paths[0]; i++) paths_free(paths[i]);
  for (i = 0; i < sizeof cmds / sizeof cmds[0]; i++) cmds_free(cmds[i]);
  for (i = 0; i < sizeof texts / sizeof texts[0]; i++) free(texts[i]);
  for (i = 0; i < IK_COUNT; i++) imp_list_free(&m->out[i]);
  for (i = 0; i < m->nnotes; i++) free(m->notes[i].where), free(m->notes[i].text);
  free(m->notes);
  free(m->unit_name), free(m->name), free(m->dir);
}

int imp_false(char const *v)
{
  return !strcmp(v, "no") || !strcmp(v, "false") || !strcmp(v, "0") || !strcmp(v, "off") || !*v;
}

void imp_set_text(char **slot, char const *v)
{
  free(*slot);
  *slot = xstrdup(v);
}

/* capctl/import.c -- `capctl import UNIT...`: systemd units into capinit
 * service files, one per unit (a template's instance is a unit of its
 * own), and a report: every change of behaviour and every directive
 * without an equivalent, as UNIT:LINE: warning|error: text.
 *
 * It reads files only (the units, their drop-ins and sockets, the
 * environment files and users of the root imported from) and writes only
 * DIR/NAME.svc; it runs nothing. */
#include <dirent.h>
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <skalibs/strerr.h>

#include "../conf/fmt.h"
#include "../conf/xalloc.h"
#include "import.h"
#include "import_decide.h"
#include "import_files.h"
#include "import_map.h"
#include "import_model.h"
#include "import_out.h"

#define USAGE "capctl import [-R ROOT] [-o DIR] [--allow-weaker] UNIT..."

/* ------------------------------------------------------------- a unit */

typedef struct import_args_s {
  char const *root, *outdir;
  int allow_weaker;
  imp **v;                 /* each unit given, in order: NULL when it was */
  char **refusals;         /* refused before it was read, with why */
  size_t n;
  size_t counts[3];        /* converted, with warnings, refused */
} import_args;

static int name_valid(char const *s)
{
  size_t n = strlen(s);
  return n && n <= 64 && s[0] != '.' && strspn(s, "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_.@-") == n;
}

/* The unit's name from an argument: the file's name, or the argument. */
static char *unit_name_of(char const *arg)
{
  char const *slash = strrchr(arg, '/');
  return xstrdup(slash ? slash + 1 : arg);
}

/* "getty@tty1.service" -> prefix "getty", instance "tty1"; a template
 * "getty@.service" has instance "" until DefaultInstance= gives one. */
static void split_name(char *full, char **prefix, char **instance)
{
  char *at = strchr(full, '@'), *dot = strrchr(full, '.');
  *prefix = xstrndup(full, (size_t)((at ? at : dot) - full));
  *instance = at ? xstrndup(at + 1, (size_t)(dot - at - 1)) : 0;
}

/* A unit refused before it was read: its report, for finish(). */
static void refuse(import_args *a, char const *unit_name, char const *fmt, char const *arg)
{
  char text[1024], *s;
  snprintf(text, sizeof text, fmt, arg);
  s = xmalloc(strlen(text) + 2 * strlen(unit_name) + 64);
  sprintf(s, "%s: error: %s\ncapctl: import: %s: refused\n", unit_name, text, unit_name);
  a->refusals[a->n] = s;
}

/* A link in a unit directory: to /dev/null, a masked unit; to another
 * name, an alias.  NULL when path is the unit itself. */
static char const *link_problem(char const *path, char const *unit_name, char *buf, size_t len)
{
  ssize_t n = readlink(path, buf, len - 1);
  char const *base;
  if (n < 0) return 0;
  buf[n] = 0;
  if (!strcmp(buf, "/dev/null")) return "masked (a link to %s): nothing to import";
  base = strrchr(buf, '/') ? strrchr(buf, '/') + 1 : buf;
  if (strcmp(base, unit_name)) {
    memmove(buf, base, strlen(base) + 1);
    return "an alias of %s: import that one";
  }
  return 0;
}

/* The unit's file: the path given, or the unit's (or its template's) in
 * ROOT's unit directories.  *file_name: the name of the file read. */
static char *locate(import_args *a, char const *arg, char const *unit_name, char const *prefix, char const *instance,
                    char **file_name)
{
  char tmpl[512], *path;
  if (strchr(arg, '/')) path = import_is_file(arg) ? xstrdup(arg) : 0;
  else path = import_find_unit(a->root, 0, unit_name);
  *file_name = xstrdup(unit_name);
  if (path || !instance || !*instance) return path;
  snprintf(tmpl, sizeof tmpl, "%s@.service", prefix);
  if (strchr(arg, '/')) {
    char dir[4096];
    snprintf(dir, sizeof dir, "%.*s", (int)(strrchr(arg, '/') - arg), arg);
    path = import_find_unit(a->root, dir, tmpl);
  } else {
    path = import_find_unit(a->root, 0, tmpl);
  }
  free(*file_name);
  *file_name = xstrdup(tmpl);
  return path;
}

static char const *entry_value(unit const *u, char const *section, char const *key)
{
  size_t i;
  char const *v = 0;
  for (i = 0; i < u->n; i++)
    if (!strcmp(u->v[i].section, section) && !strcmp(u->v[i].key, key)) v = u->v[i].value;
  return v;
}

/* The report of one unit: its warnings and errors, then what became of it. */
static void report(import_args *a, imp const *m, char const *out)
{
  static char const *const words[] = { "note", "warning", "error" };
  size_t i;
  for (i = 0; i < m->nnotes; i++)
    if (m->notes[i].level != IMP_NOTE) printf("%s: %s: %s\n", m->notes[i].where, words[m->notes[i].level], m->notes[i].text);
  if (m->counts[IMP_ERROR]) {
    printf("capctl: import: %s: refused\n", m->unit_name);
    a->counts[2]++;
  } else if (m->counts[IMP_WARNING]) {
    printf("capctl: import: %s: converted with %zu warning%s: %s\n", m->unit_name, m->counts[IMP_WARNING],
           m->counts[IMP_WARNING] == 1 ? "" : "s", out);
    a->counts[1]++;
  } else {
    printf("capctl: import: %s: converted: %s\n", m->unit_name, out);
    a->counts[0]++;
  }
}

/* Every line of u through the table, the keys decided. */
static void convert(unit const *u, imp *m)
{
  size_t i;
  for (i = 0; i < u->nbad; i++) {
    char where[4200];
    snprintf(where, sizeof where, "%s:%u", u->bad[i].file, u->bad[i].line);
    imp_say(m, IMP_WARNING, IK_NONE, where, "%s", u->bad[i].text);
  }
  for (i = 0; i < u->n; i++) import_entry(m, &u->v[i]);
  import_decide(m);
}

/* Once every unit is read: the dependencies among those converted, then
 * each file and its report, in the order given. */
static void finish(import_args *a)
{
  imp_list converted = { 0, 0 };
  char out[4096];
  size_t i;
  for (i = 0; i < a->n; i++)
    if (a->v[i] && !a->v[i]->counts[IMP_ERROR]) imp_list_add(&converted, a->v[i]->name);
  for (i = 0; i < a->n; i++) {
    imp *m = a->v[i];
    if (!m) {
      fputs(a->refusals[i], stdout);
      a->counts[2]++;
      continue;
    }
    import_deps(m, &converted);
    snprintf(out, sizeof out, "%s/%s.svc", a->outdir, m->name);
    if (!m->counts[IMP_ERROR] && import_write(m, out) < 0) strerr_diefu2sys(111, "write ", out);
    report(a, m, out);
  }
  imp_list_free(&converted);
}

static void imp_init(imp *m, import_args const *a, char *unit_name, char *name, char *dir)
{
  memset(m, 0, sizeof *m);
  m->root = a->root;
  m->unit_name = unit_name;
  m->name = name;
  m->dir = dir;
  m->outdir = a->outdir;
  m->allow_weaker = a->allow_weaker;
  m->nnp = -1;
  m->enabled = 1;
}

/* A template without an instance takes its DefaultInstance=. */
static int instance_of(import_args *a, unit const *u, char **unit_name, char const *prefix, char **instance)
{
  char const *def = entry_value(u, "Install", "DefaultInstance");
  if (!*instance || **instance) return 0;
  if (!def) {
    refuse(a, *unit_name, "a template without DefaultInstance=: name an instance, as %s@INSTANCE.service", prefix);
    return -1;
  }
  free(*instance);
  *instance = xstrdup(def);
  free(*unit_name);
  *unit_name = xmalloc(strlen(prefix) + strlen(def) + 10);
  sprintf(*unit_name, "%s@%s.service", prefix, def);
  return 0;
}

static void import_unit(import_args *a, unit const *u, char const *unit_name, char const *prefix, char const *instance,
                        char const *dir)
{
  char *name = xstrndup(unit_name, strlen(unit_name) - 8);
  char const *user = entry_value(u, "Service", "User");
  imp *m;
  if (!name_valid(name)) {
    refuse(a, unit_name, "%s is not a service name of capinit's (letters, digits, _ . @ -; at most 64)", name);
    free(name);
    return;
  }
  m = xcalloc(1, sizeof *m);
  imp_init(m, a, xstrdup(unit_name), name, xstrdup(dir));
  m->names.full = m->unit_name;
  m->names.prefix = prefix;
  m->names.instance = instance;
  m->names.user = user ? user : "root";
  m->names.home = user ? "/nonexistent" : "/root";
  convert(u, m);
  m->names.prefix = m->names.instance = m->names.user = 0;
  a->v[a->n] = m;
}

static void import_one(import_args *a, char const *arg)
{
  char *unit_name = unit_name_of(arg), *prefix = 0, *instance = 0, *file_name = 0, *path, *dir = 0, link[4096];
  char const *problem, *names[2] = { 0, 0 };
  unit u = { 0 };
  size_t n = strlen(unit_name);
  if (n <= 8 || strcmp(unit_name + n - 8, ".service")) {
    refuse(a, unit_name, "%s", "not a .service unit: capctl import reads services");
    free(unit_name);
    return;
  }
  split_name(unit_name, &prefix, &instance);
  path = locate(a, arg, unit_name, prefix, instance, &file_name);
  if (!path) refuse(a, unit_name, "%s", "no such unit");
  else if ((problem = link_problem(path, file_name, link, sizeof link))) refuse(a, unit_name, problem, link);
  else {
    dir = xstrndup(path, (size_t)(strrchr(path, '/') - path));
    import_read_file(&u, path, file_name);
    names[0] = unit_name;
    names[1] = strcmp(file_name, unit_name) ? file_name : 0;
    import_read_dropins(&u, a->root, dir, names);
    if (instance_of(a, &u, &unit_name, prefix, &instance) == 0) import_unit(a, &u, unit_name, prefix, instance, dir);
  }
  unit_free(&u);
  free(dir), free(path), free(file_name), free(prefix), free(instance), free(unit_name);
}

static void help(void)
{
  fputs(
"usage: capctl import [-R ROOT] [-o DIR] [--allow-weaker] UNIT...\n"
"       (capctl-import [-R ROOT] [-o DIR] [--allow-weaker] UNIT...)\n"
"\n"
"systemd units (a name, found in systemd's unit directories, or a file)\n"
"into DIR/NAME.svc, never with more privilege than systemd gives them; a\n"
"report of what changed, as UNIT:LINE: note|warning|error: text.\n"
"\n"
"  -R ROOT         read units, environment files and users from ROOT\n"
"  -o DIR          where the service files go (default .)\n"
"  --allow-weaker  convert a unit even where capinit cannot make one of its\n"
"                  restrictions (a warning instead of a refusal)\n"
"  -h, --help      this text\n"
"  -V, --version   print the version\n"
"\n"
"Exit status: 0 every unit converted; 1 one was refused; 100 wrong usage;\n"
"111 a system call failed.  See capctl(8), IMPORT.\n", stdout);
}

/* --allow-weaker, --help and --version (getopt's are short) out of argv,
 * up to "--": a flag for the first, 'h' or 'V' for the others, or 0 */
static int long_options(int *argc, char **argv, int *allow_weaker)
{
  int i, said = 0;
  for (i = 1; i < *argc && strcmp(argv[i], "--"); i++) {
    if (!strcmp(argv[i], "--help")) said = said ? said : 'h';
    else if (!strcmp(argv[i], "--version")) said = said ? said : 'V';
    else if (!strcmp(argv[i], "--allow-weaker")) *allow_weaker = 1;
    else continue;
    memmove(argv + i, argv + i + 1, (size_t)(*argc - i) * sizeof *argv);
    (*argc)--, i--;
  }
  return said;
}

int import_main(int argc, char **argv)
{
  import_args a = { .root = "", .outdir = "." };
  int i, c = long_options(&argc, argv, &a.allow_weaker);
  if (c == 'h') return help(), 0;
  if (c == 'V') return puts("capctl-import " CAPINIT_VERSION), 0;
  while ((c = getopt(argc, argv, "+R:o:hV")) != -1) {
    switch (c) {
      case 'R': a.root = strcmp(optarg, "/") ? optarg : ""; break;
      case 'o': a.outdir = optarg; break;
      case 'h': help(); return 0;
      case 'V': puts("capctl-import " CAPINIT_VERSION); return 0;
      default: strerr_dieusage(100, USAGE);
    }
  }
  if (optind == argc) strerr_dieusage(100, USAGE);
  a.v = xcalloc((size_t)(argc - optind), sizeof *a.v);
  a.refusals = xcalloc((size_t)(argc - optind), sizeof *a.refusals);
  for (i = optind; i < argc; i++, a.n++) import_one(&a, argv[i]);
  finish(&a);
  printf("capctl: import: %zu converted, %zu converted with warnings, %zu refused\n", a.counts[0], a.counts[1], a.counts[2]);
  for (i = 0; i < (int)a.n; i++) {
    if (a.v[i]) imp_free(a.v[i]);
    free(a.v[i]), free(a.refusals[i]);
  }
  free(a.v), free(a.refusals);
  return a.counts[2] ? 1 : 0;
}

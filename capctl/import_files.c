/* capctl/import_files.c -- the files of a unit: where one is (beside the
 * unit that names it, or in systemd's unit directories under the root
 * imported from, first first), and reading it and its drop-ins, in the
 * order systemd applies them. */
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "../conf/xalloc.h"
#include "import_files.h"

/* Where systemd looks for units, first first (systemd.unit(5)). */
static char const *const unit_dirs[] = { "/etc/systemd/system", "/run/systemd/system", "/lib/systemd/system",
                                         "/usr/lib/systemd/system" };

/* A unit's file, or a link in its place (a masked unit, an alias). */
int import_is_file(char const *path)
{
  struct stat st;
  return lstat(path, &st) == 0 && (S_ISREG(st.st_mode) || S_ISLNK(st.st_mode));
}

char *import_find_unit(char const *root, char const *dir, char const *name)
{
  char path[4096];
  size_t i;
  if (dir) {
    snprintf(path, sizeof path, "%s/%s", dir, name);
    if (import_is_file(path)) return xstrdup(path);
  }
  for (i = 0; i < sizeof unit_dirs / sizeof unit_dirs[0]; i++) {
    snprintf(path, sizeof path, "%s%s/%s", root, unit_dirs[i], name);
    if (import_is_file(path)) return xstrdup(path);
  }
  return 0;
}

static char *read_all(char const *path, size_t *len)
{
  FILE *f = fopen(path, "r");
  char *buf;
  if (!f) return 0;
  buf = xmalloc(1u << 20);
  *len = fread(buf, 1, (1u << 20) - 1, f);
  fclose(f);
  return buf;
}

void import_read_file(unit *u, char const *path, char const *report_name)
{
  size_t len = 0;
  char *buf = read_all(path, &len);
  if (buf) unit_parse_buffer(u, report_name, buf, len);
  free(buf);
}

typedef struct dropin_s {
  char *base, *path, *report;
} dropin;

static int dropin_cmp(void const *a, void const *b)
{
  return strcmp(((dropin const *)a)->base, ((dropin const *)b)->base);
}

/* NAME.d/ *.conf of one directory, unless a file of that name came first */
static void dropins_of(char const *dir, char const *name, dropin **v, size_t *n)
{
  char path[4096];
  DIR *d;
  struct dirent *de;
  snprintf(path, sizeof path, "%s/%s.d", dir, name);
  if (!(d = opendir(path))) return;
  while ((de = readdir(d))) {
    size_t k = strlen(de->d_name), i;
    if (k < 6 || strcmp(de->d_name + k - 5, ".conf")) continue;
    for (i = 0; i < *n && strcmp((*v)[i].base, de->d_name); i++) {}
    if (i < *n) continue;
    *v = xreallocarray(*v, *n + 1, sizeof **v);
    (*v)[*n].base = xstrdup(de->d_name);
    snprintf(path, sizeof path, "%s/%s.d/%s", dir, name, de->d_name);
    (*v)[*n].path = xstrdup(path);
    snprintf(path, sizeof path, "%s.d/%s", name, de->d_name);
    (*v)[(*n)++].report = xstrdup(path);
  }
  closedir(d);
}

/* The drop-ins of the unit (and of its template), in the order of their
 * file names across every unit directory, as systemd applies them. */
void import_read_dropins(unit *u, char const *root, char const *dir, char const *const names[2])
{
  dropin *v = 0;
  size_t n = 0, i, j;
  char path[4096];
  for (j = 0; j < 2 && names[j]; j++) {
    if (dir) dropins_of(dir, names[j], &v, &n);
    for (i = 0; i < sizeof unit_dirs / sizeof unit_dirs[0]; i++) {
      snprintf(path, sizeof path, "%s%s", root, unit_dirs[i]);
      if (!dir || strcmp(path, dir)) dropins_of(path, names[j], &v, &n);
    }
  }
  qsort(v, n, sizeof *v, dropin_cmp);
  for (i = 0; i < n; i++) {
    import_read_file(u, v[i].path, v[i].report);
    free(v[i].base), free(v[i].path), free(v[i].report);
  }
  free(v);
}

/* conf/ids.c -- see ids.h. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "ids.h"
#include "values.h"
#include "xalloc.h"

#define IDS_FILE_MAX (16u << 20)

/* One cached copy of each file per root: check reads them once per run. */
typedef struct idsfile_s {
  char *root;
  char *data;              /* NUL-terminated, or NULL when unreadable */
  int err;
} idsfile;

static idsfile cache[2];   /* 0: passwd, 1: group */

static char *slurp(char const *path, int *err)
{
  int fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
  struct stat st;
  char *buf;
  size_t len = 0;
  if (fd < 0) {
    *err = errno;
    return 0;
  }
  if (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode) || st.st_size > (off_t)IDS_FILE_MAX) {
    *err = fstat(fd, &st) < 0 ? errno : S_ISREG(st.st_mode) ? EFBIG : EINVAL;
    close(fd);
    return 0;
  }
  buf = xmalloc((size_t)st.st_size + 1);
  while (len < (size_t)st.st_size) {
    ssize_t r = read(fd, buf + len, (size_t)st.st_size - len);
    if (r < 0 && errno == EINTR) continue;
    if (r < 0) {
      *err = errno;
      free(buf);
      close(fd);
      return 0;
    }
    if (!r) break;
    len += (size_t)r;
  }
  close(fd);
  buf[len] = 0;
  return buf;
}

static char const *file_data(char const *root, int which)
{
  idsfile *f = &cache[which];
  char path[4096];
  if (f->root && !strcmp(f->root, root)) {
    errno = f->err;
    return f->data;
  }
  free(f->root);
  free(f->data);
  f->root = xstrdup(root);
  f->err = 0;
  snprintf(path, sizeof path, "%s%s", strcmp(root, "/") ? root : "",
           which ? "/etc/group" : "/etc/passwd");
  f->data = slurp(path, &f->err);
  errno = f->err;
  return f->data;
}

/* Split one line into at most max ':'-separated fields (in place copy). */
static size_t fields(char const *line, size_t len, char *copy, char **f, size_t max)
{
  size_t n = 0, i;
  memcpy(copy, line, len);
  copy[len] = 0;
  f[n++] = copy;
  for (i = 0; i < len && n < max; i++)
    if (copy[i] == ':') {
      copy[i] = 0;
      f[n++] = copy + i + 1;
    }
  return n;
}

/* Call fn on each line's fields; stop when it returns non-zero. */
static int each_line(char const *data, size_t nf,
                     int (*fn)(char **f, size_t n, void *arg), void *arg)
{
  char copy[4096];
  char *f[8];
  while (*data) {
    char const *nl = strchr(data, '\n');
    size_t len = nl ? (size_t)(nl - data) : strlen(data);
    if (len < sizeof copy && len && data[0] != '#') {
      size_t n = fields(data, len, copy, f, nf);
      int r = fn(f, n, arg);
      if (r) return r;
    }
    data += len + (nl ? 1 : 0);
  }
  return 0;
}

typedef struct user_q_s {
  char const *name;
  uid_t uid;
  ids_user *out;
} user_q;

static int user_match(char **f, size_t n, void *arg)
{
  user_q *q = arg;
  uint32_t uid, gid;
  if (n < 4 || value_id(f[2], &uid) < 0 || value_id(f[3], &gid) < 0) return 0;
  if (q->name ? strcmp(f[0], q->name) : uid != q->uid) return 0;
  if (strlen(f[0]) >= sizeof q->out->name) return 0;
  strcpy(q->out->name, f[0]);
  q->out->uid = uid;
  q->out->gid = gid;
  return 1;
}

int ids_user_by_name(char const *root, char const *name, ids_user *u)
{
  char const *d = file_data(root, 0);
  user_q q = { name, 0, u };
  if (!d) return -1;
  return each_line(d, 7, user_match, &q);
}

int ids_user_by_uid(char const *root, uid_t uid, ids_user *u)
{
  char const *d = file_data(root, 0);
  user_q q = { 0, uid, u };
  if (!d) return -1;
  return each_line(d, 7, user_match, &q);
}

typedef struct group_q_s {
  char const *name;
  gid_t gid;
} group_q;

static int group_match(char **f, size_t n, void *arg)
{
  group_q *q = arg;
  uint32_t gid;
  if (n < 3 || value_id(f[2], &gid) < 0 || strcmp(f[0], q->name)) return 0;
  q->gid = gid;
  return 1;
}

int ids_group_by_name(char const *root, char const *name, gid_t *gid)
{
  char const *d = file_data(root, 1);
  group_q q = { name, 0 };
  int r;
  if (!d) return -1;
  r = each_line(d, 4, group_match, &q);
  if (r > 0) *gid = q.gid;
  return r;
}

typedef struct member_q_s {
  char const *user;
  gid_t *v;
  size_t n;
} member_q;

static void add_gid(member_q *q, gid_t g)
{
  size_t i;
  for (i = 0; i < q->n; i++)
    if (q->v[i] == g) return;
  q->v = xreallocarray(q->v, q->n + 1, sizeof *q->v);
  q->v[q->n++] = g;
}

static int member_match(char **f, size_t n, void *arg)
{
  member_q *q = arg;
  uint32_t gid;
  size_t ul = strlen(q->user);
  char const *m;
  if (n < 4 || value_id(f[2], &gid) < 0) return 0;
  for (m = f[3]; *m;) {
    size_t len = strcspn(m, ",");
    if (len == ul && !memcmp(m, q->user, ul)) {
      add_gid(q, gid);
      break;
    }
    m += len + (m[len] ? 1 : 0);
  }
  return 0;
}

int ids_user_groups(char const *root, char const *user, gid_t gid, gid_t **out)
{
  member_q q = { user, 0, 0 };
  char const *d;
  add_gid(&q, gid);
  if (user && *user) {
    d = file_data(root, 1);
    if (!d) {
      free(q.v);
      return -1;
    }
    each_line(d, 4, member_match, &q);
  }
  *out = q.v;
  return (int)q.n;
}

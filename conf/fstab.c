/* conf/fstab.c -- see fstab.h. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/swap.h>

#include "fstab.h"
#include "parse.h"
#include "xalloc.h"

#ifndef MS_NOSYMFOLLOW
#define MS_NOSYMFOLLOW 256
#endif
#ifndef MS_LAZYTIME
#define MS_LAZYTIME (1 << 25)
#endif
#ifndef SWAP_FLAG_DISCARD_ONCE
#define SWAP_FLAG_DISCARD_ONCE 0x20000
#endif
#ifndef SWAP_FLAG_DISCARD_PAGES
#define SWAP_FLAG_DISCARD_PAGES 0x40000
#endif

/* mount(2)'s data is one page, NUL included */
#define FSTAB_DATA_MAX 4095

static int isblank_(char c) { return c == ' ' || c == '\t'; }

/* ------------------------------------------------------------ options */

enum opt_kind {
  O_FLAG,                  /* set and clear mount(2) flags */
  O_PROPAGATION,           /* a propagation type: a second mount(2) */
  O_AUTO, O_NOAUTO, O_NOFAIL, O_NETDEV, O_REQUIRED,
  O_USER,                  /* mount(8)'s user, users, owner, group: no meaning
                              for PID 1 but the flags they imply */
  O_NONE,                  /* defaults, nouser, sw: nothing to do */
  O_REFUSED,               /* a mount(8) feature capinit does not have */
};

typedef struct opt_s {
  char const *name;
  enum opt_kind kind;
  unsigned long set, clear;
  unsigned swap : 1;       /* allowed for a swap area too */
} opt;

/* mount(8)'s words, once: what each means to PID 1.  A word not here
 * (and not x-..., comment=...) is the file system's, for mount(2)'s data. */
static opt const opts[] = {
  { "defaults", O_NONE, 0, 0, 1 },
  { "ro", O_FLAG, MS_RDONLY, 0, 0 },
  { "rw", O_FLAG, 0, MS_RDONLY, 0 },
  { "nosuid", O_FLAG, MS_NOSUID, 0, 0 },
  { "suid", O_FLAG, 0, MS_NOSUID, 0 },
  { "nodev", O_FLAG, MS_NODEV, 0, 0 },
  { "dev", O_FLAG, 0, MS_NODEV, 0 },
  { "noexec", O_FLAG, MS_NOEXEC, 0, 0 },
  { "exec", O_FLAG, 0, MS_NOEXEC, 0 },
  { "sync", O_FLAG, MS_SYNCHRONOUS, 0, 0 },
  { "async", O_FLAG, 0, MS_SYNCHRONOUS, 0 },
  { "dirsync", O_FLAG, MS_DIRSYNC, 0, 0 },
  { "noatime", O_FLAG, MS_NOATIME, 0, 0 },
  { "atime", O_FLAG, 0, MS_NOATIME, 0 },
  { "nodiratime", O_FLAG, MS_NODIRATIME, 0, 0 },
  { "diratime", O_FLAG, 0, MS_NODIRATIME, 0 },
  { "relatime", O_FLAG, MS_RELATIME, 0, 0 },
  { "norelatime", O_FLAG, 0, MS_RELATIME, 0 },
  { "strictatime", O_FLAG, MS_STRICTATIME, 0, 0 },
  { "nostrictatime", O_FLAG, 0, MS_STRICTATIME, 0 },
  { "lazytime", O_FLAG, MS_LAZYTIME, 0, 0 },
  { "nolazytime", O_FLAG, 0, MS_LAZYTIME, 0 },
  { "mand", O_FLAG, MS_MANDLOCK, 0, 0 },
  { "nomand", O_FLAG, 0, MS_MANDLOCK, 0 },
  { "silent", O_FLAG, MS_SILENT, 0, 0 },
  { "loud", O_FLAG, 0, MS_SILENT, 0 },
  { "symfollow", O_FLAG, 0, MS_NOSYMFOLLOW, 0 },
  { "nosymfollow", O_FLAG, MS_NOSYMFOLLOW, 0, 0 },
  { "bind", O_FLAG, MS_BIND, 0, 0 },
  { "rbind", O_FLAG, MS_BIND | MS_REC, 0, 0 },
  { "shared", O_PROPAGATION, MS_SHARED, 0, 0 },
  { "rshared", O_PROPAGATION, MS_SHARED | MS_REC, 0, 0 },
  { "slave", O_PROPAGATION, MS_SLAVE, 0, 0 },
  { "rslave", O_PROPAGATION, MS_SLAVE | MS_REC, 0, 0 },
  { "private", O_PROPAGATION, MS_PRIVATE, 0, 0 },
  { "rprivate", O_PROPAGATION, MS_PRIVATE | MS_REC, 0, 0 },
  { "unbindable", O_PROPAGATION, MS_UNBINDABLE, 0, 0 },
  { "runbindable", O_PROPAGATION, MS_UNBINDABLE | MS_REC, 0, 0 },
  { "auto", O_AUTO, 0, 0, 1 },
  { "noauto", O_NOAUTO, 0, 0, 1 },
  { "nofail", O_NOFAIL, 0, 0, 1 },
  { "_netdev", O_NETDEV, 0, 0, 0 },
  { "x-capinit.required", O_REQUIRED, 0, 0, 0 },
  /* mount(8): user and users imply noexec, nosuid, nodev; owner and
   * group nosuid, nodev (unless a later word says otherwise) */
  { "user", O_USER, MS_NOEXEC | MS_NOSUID | MS_NODEV, 0, 0 },
  { "users", O_USER, MS_NOEXEC | MS_NOSUID | MS_NODEV, 0, 0 },
  { "owner", O_USER, MS_NOSUID | MS_NODEV, 0, 0 },
  { "group", O_USER, MS_NOSUID | MS_NODEV, 0, 0 },
  { "nouser", O_NONE, 0, 0, 0 },
  { "sw", O_NONE, 0, 0, 1 },
  { "loop", O_REFUSED, 0, 0, 0 },
  { "remount", O_REFUSED, 0, 0, 0 },
  { "move", O_REFUSED, 0, 0, 0 },
};

static opt const *opt_find(char const *word)
{
  size_t i;
  for (i = 0; i < sizeof opts / sizeof opts[0]; i++)
    if (!strcmp(opts[i].name, word)) return &opts[i];
  return 0;
}

static int has_prefix(char const *s, char const *prefix)
{
  return !strncmp(s, prefix, strlen(prefix));
}

/* A swap area's priority, 0 to 32767 (mount(8) allows -1: no priority). */
static int swap_priority(char const *v, int *flags)
{
  long x = 0;
  size_t i;
  if (!strcmp(v, "-1")) return 0;
  if (!*v || strlen(v) > 5) return -1;
  for (i = 0; v[i]; i++) {
    if (v[i] < '0' || v[i] > '9') return -1;
    x = x * 10 + (v[i] - '0');
  }
  if (x > SWAP_FLAG_PRIO_MASK) return -1;
  *flags = (*flags & ~(SWAP_FLAG_PREFER | SWAP_FLAG_PRIO_MASK)) |
           SWAP_FLAG_PREFER | (int)((x << SWAP_FLAG_PRIO_SHIFT) & SWAP_FLAG_PRIO_MASK);
  return 0;
}

static int swap_word(char const *w, fstab_entry *e)
{
  if (has_prefix(w, "pri=")) return swap_priority(w + 4, &e->swapflags);
  if (!strcmp(w, "discard")) e->swapflags |= SWAP_FLAG_DISCARD;
  else if (!strcmp(w, "discard=once")) e->swapflags |= SWAP_FLAG_DISCARD | SWAP_FLAG_DISCARD_ONCE;
  else if (!strcmp(w, "discard=pages")) e->swapflags |= SWAP_FLAG_DISCARD | SWAP_FLAG_DISCARD_PAGES;
  else return -1;
  return 0;
}

/* The next option word of *p (commas inside "..." do not split, as in
 * context="a,b"), into word; *p moves past its comma. */
static size_t next_word(char const **p, char *word)
{
  char const *s = *p;
  size_t n = 0;
  int quoted = 0;
  while (*s && (quoted || *s != ',')) {
    if (*s == '"') quoted = !quoted;
    word[n++] = *s++;
  }
  word[n] = 0;
  *p = *s ? s + 1 : s;
  return n;
}

/* A word of the option table: 0, or -1 (why) for one refused here. */
static int known_option(opt const *o, char const *word, fstab_entry *e, char *why, size_t whylen)
{
  if (e->swap && !o->swap) {
    snprintf(why, whylen, "'%s' is not a swap option (pri=N, discard, nofail, noauto)", word);
    return -1;
  }
  switch (o->kind) {
    case O_FLAG: case O_USER: e->flags = (e->flags | o->set) & ~o->clear; break;
    case O_PROPAGATION: e->propagation = o->set; break;
    case O_AUTO: e->noauto = 0; break;
    case O_NOAUTO: e->noauto = 1; break;
    case O_NOFAIL: e->nofail = 1; break;
    case O_NETDEV: e->netdev = 1; break;
    case O_REQUIRED: e->required = 1; break;
    case O_NONE: break;
    case O_REFUSED:
      if (!strcmp(word, "loop"))
        snprintf(why, whylen, "'loop': capinit sets up no loop device: name a block device");
      else
        snprintf(why, whylen, "'%s' is a command of mount(8), not an fstab option", word);
      return -1;
  }
  return 0;
}

/* A word the table does not know: 1 if it is the file system's (mount's
 * data), 0 if taken here, -1 (why) if refused. */
static int other_option(char const *word, fstab_entry *e, char *why, size_t whylen)
{
  /* mount(8)'s own: comments and options for other programs (x-systemd...) */
  if (has_prefix(word, "x-") || has_prefix(word, "comment=")) return 0;
  if (has_prefix(word, "loop=") || has_prefix(word, "offset=") || has_prefix(word, "sizelimit=") ||
      has_prefix(word, "encryption=")) {
    snprintf(why, whylen, "'%.*s': capinit sets up no loop device: name a block device",
             (int)(strchr(word, '=') - word), word);
    return -1;
  }
  if (!e->swap) return 1;
  if (swap_word(word, e) < 0) {
    snprintf(why, whylen, "'%s' is not a swap option (pri=N, discard, nofail, noauto)", word);
    return -1;
  }
  return 0;
}

int fstab_options(char const *options, fstab_entry *e, char *why, size_t whylen)
{
  size_t len = strlen(options), dlen = 0;
  char *word = xmalloc(len + 1), *data = xmalloc(len + 1);
  char const *p = options;
  int r = -1;
  data[0] = 0;
  while (*p) {
    opt const *o;
    int k;
    if (!next_word(&p, word)) continue;  /* "defaults," and ",," name nothing */
    o = opt_find(word);
    k = o ? known_option(o, word, e, why, whylen) : other_option(word, e, why, whylen);
    if (k < 0) goto out;
    if (!k) continue;
    if (dlen) data[dlen++] = ',';
    memcpy(data + dlen, word, strlen(word) + 1);
    dlen += strlen(word);
  }
  if (dlen > FSTAB_DATA_MAX) {
    snprintf(why, whylen, "the file system's options are %zu bytes: mount(2) takes at most %d", dlen,
             FSTAB_DATA_MAX);
    goto out;
  }
  if (e->nofail && e->required) {
    snprintf(why, whylen, "'nofail' and 'x-capinit.required' contradict each other");
    goto out;
  }
  free(e->data);
  e->data = data;
  data = 0;
  r = 0;
out:
  free(word);
  free(data);
  return r;
}

char const *fstab_flag_words(unsigned long flags, char *out, size_t len)
{
  size_t i, n = 0;
  if (len) *out = 0;
  for (i = 0; i < sizeof opts / sizeof opts[0] && n < len; i++)
    if (opts[i].kind == O_FLAG && opts[i].set && (opts[i].set & flags) == opts[i].set)
      n += (size_t)snprintf(out + n, len - n, "%s%s", n ? "," : "", opts[i].name);
  return out;
}

/* ------------------------------------------------------------ fields */

static int isoctal(char c) { return c >= '0' && c <= '7'; }

/* \ooo from \000 to \377 is a byte; any other backslash is itself. */
int fstab_unescape(char *s)
{
  char *w = s;
  int r = 0;
  while (*s) {
    if (s[0] == '\\' && s[1] >= '0' && s[1] <= '3' && isoctal(s[2]) && isoctal(s[3])) {
      unsigned v = (unsigned)(s[1] - '0') * 64 + (unsigned)(s[2] - '0') * 8 + (unsigned)(s[3] - '0');
      if (!v) r = -1;
      *w++ = (char)v;
      s += 4;
    } else {
      *w++ = *s++;
    }
  }
  *w = 0;
  return r;
}

/* A decimal number of at most 9 digits. */
static int small_number(char const *s, unsigned *out)
{
  unsigned x = 0;
  size_t i;
  if (!*s || strlen(s) > 9) return -1;
  for (i = 0; s[i]; i++) {
    if (s[i] < '0' || s[i] > '9') return -1;
    x = x * 10 + (unsigned)(s[i] - '0');
  }
  *out = x;
  return 0;
}

/* A ".." component anywhere in an absolute path. */
static int has_dotdot(char const *p)
{
  size_t n = strlen(p);
  return strstr(p, "/../") || (n >= 3 && !strcmp(p + n - 3, "/.."));
}

static void entry_free(fstab_entry *e)
{
  free(e->spec);
  free(e->file);
  free(e->type);
  free(e->options);
  free(e->data);
}

#define FIELDS_MAX 6

static char const *const field_names[FIELDS_MAX] = {
  "the device", "the mount point", "the type", "the options", "the dump frequency", "the fsck pass",
};

/* A bad line: reported; when it is the root's, remembered (fatal). */
static int bad_line(fstab *out, int root, unsigned line)
{
  if (root && !out->bad_root) out->bad_root = line;
  return -1;
}

/* The fields of a line, at blanks: FIELDS_MAX + 1 of them says too many.
 * *escapes: 1 + the first field with a \000, or 0. */
static size_t split_fields(char *s, char **f, int *escapes)
{
  size_t n = 0, i;
  while (*s && n <= FIELDS_MAX) {
    f[n++] = s;
    while (*s && !isblank_(*s)) s++;
    while (isblank_(*s)) *s++ = 0;
  }
  *escapes = 0;
  for (i = 0; i < n; i++)
    if (fstab_unescape(f[i]) < 0 && !*escapes) *escapes = (int)i + 1;
  return n;
}

/* The mount point of a file system (not swap): absolute, no "..", no
 * trailing slash ("/data/" is /data, as the kernel shows it). */
static int mount_point(diag_list *diags, char const *file, unsigned line, char *point)
{
  size_t len;
  if (point[0] != '/') {
    diag_add(diags, DIAG_ERROR, file, line, "'%s': the mount point must be an absolute path", point);
    return -1;
  }
  if (has_dotdot(point)) {
    diag_add(diags, DIAG_ERROR, file, line, "'%s': '..' is not allowed in a mount point", point);
    return -1;
  }
  for (len = strlen(point); len > 1 && point[len - 1] == '/'; ) point[--len] = 0;
  return 0;
}

/* dump and pass are numbers; a tag names something.  -1 after diag_add. */
static int other_fields(diag_list *diags, char const *file, unsigned line, char **f, size_t n, fstab_entry *e)
{
  static char const *const tags[] = { "LABEL=", "UUID=", "PARTLABEL=", "PARTUUID=" };
  if (n > 4 && small_number(f[4], &e->freq) < 0) {
    diag_add(diags, DIAG_ERROR, file, line, "'%s': expected a number (the dump frequency)", f[4]);
    return -1;
  }
  if (n > 5 && small_number(f[5], &e->passno) < 0) {
    diag_add(diags, DIAG_ERROR, file, line, "'%s': expected a number (the fsck pass)", f[5]);
    return -1;
  }
  for (size_t i = 0; i < sizeof tags / sizeof tags[0]; i++) {
    if (!strcmp(f[0], tags[i])) {
      diag_add(diags, DIAG_ERROR, file, line, "'%s' names no device: a value must follow the '='", f[0]);
      return -1;
    }
  }
  return 0;
}

static int parse_line(diag_list *diags, char const *file, unsigned line, char *s, void *arg)
{
  fstab *out = arg;
  char *f[FIELDS_MAX + 1];
  size_t n;
  int escapes, root;
  fstab_entry e;
  char why[256];

  while (isblank_(*s)) s++;
  if (!*s || *s == '#') return 0;
  n = split_fields(s, f, &escapes);
  root = n > 1 && !strcmp(f[1], "/") && (n < 3 || strcmp(f[2], "swap"));
  if (n > FIELDS_MAX) {
    diag_add(diags, DIAG_ERROR, file, line, "more than 6 fields (a comment must be a line of its own)");
    return bad_line(out, root, line);
  }
  if (escapes) {
    diag_add(diags, DIAG_ERROR, file, line, "%s: \\000 is not allowed (no name holds a NUL byte)",
             field_names[escapes - 1]);
    return bad_line(out, root, line);
  }
  if (n < 3) {
    diag_add(diags, DIAG_ERROR, file, line, "expected DEVICE MOUNTPOINT TYPE [OPTIONS [DUMP [PASS]]]");
    return bad_line(out, root, line);
  }
  memset(&e, 0, sizeof e);
  e.line = line;
  e.swap = !strcmp(f[2], "swap");
  if (!e.swap) {
    if (mount_point(diags, file, line, f[1]) < 0) return -1;
    root = !strcmp(f[1], "/");
  }
  if (other_fields(diags, file, line, f, n, &e) < 0) return bad_line(out, root, line);
  if (fstab_options(n > 3 ? f[3] : "defaults", &e, why, sizeof why) < 0) {
    diag_add(diags, DIAG_ERROR, file, line, "%s", why);
    free(e.data);
    return bad_line(out, root, line);
  }
  e.spec = xstrdup(f[0]);
  e.file = xstrdup(f[1]);
  e.type = xstrdup(f[2]);
  e.options = xstrdup(n > 3 ? f[3] : "defaults");
  out->v = xreallocarray(out->v, out->n + 1, sizeof *out->v);
  out->v[out->n++] = e;
  return 0;
}

unsigned fstab_parse(diag_list *diags, char const *file, char const *buf, size_t len, fstab *out)
{
  return conf_each_line(diags, file, buf, len, parse_line, out);
}

int fstab_load(diag_list *diags, char const *path, fstab *out)
{
  return conf_each_line_of(diags, path, parse_line, out);
}

void fstab_free(fstab *f)
{
  size_t i;
  for (i = 0; i < f->n; i++) entry_free(&f->v[i]);
  free(f->v);
  f->v = 0;
  f->n = 0;
  f->bad_root = 0;
}

/* ------------------------------------------------------------ mountinfo */

size_t mountinfo_lines(char const *buf, size_t len)
{
  size_t n = 0, i;
  for (i = 0; i < len; i++) n += buf[i] == '\n';
  return n + (len && buf[len - 1] != '\n');
}

/* The next blank-separated field of *s, cut with a NUL; 0 at the end. */
static char *field(char **s)
{
  char *p = *s, *start;
  while (*p == ' ') p++;
  if (!*p) return 0;
  start = p;
  while (*p && *p != ' ') p++;
  if (*p) *p++ = 0;
  *s = p;
  return start;
}

static int number(char const *s, unsigned *out)
{
  return small_number(s, out);
}

/* 36 35 98:0 /mnt1 /mnt2 rw,noatime master:1 - ext3 /dev/root rw,errors=continue */
static int mountinfo_line(char *s, mountinfo_entry *m)
{
  char *id = field(&s), *parent = field(&s), *dev = field(&s), *colon, *sep;
  if (!id || !parent || !dev || number(id, &m->id) < 0 || number(parent, &m->parent) < 0) return -1;
  colon = strchr(dev, ':');
  if (!colon) return -1;
  *colon = 0;
  if (number(dev, &m->major) < 0 || number(colon + 1, &m->minor) < 0) return -1;
  m->root = field(&s);
  m->point = field(&s);
  m->options = field(&s);
  if (!m->root || !m->point || !m->options) return -1;
  /* optional fields (shared:N, master:N...) up to a lone "-" */
  do sep = field(&s); while (sep && strcmp(sep, "-"));
  if (!sep) return -1;
  m->type = field(&s);
  m->source = field(&s);
  m->super = field(&s);
  if (!m->type || !m->source || !m->super || field(&s)) return -1;
  if (fstab_unescape(m->root) < 0 || fstab_unescape(m->point) < 0 || fstab_unescape(m->source) < 0) return -1;
  return 0;
}

size_t mountinfo_parse(char *buf, size_t len, mountinfo_entry *v, size_t max)
{
  size_t n = 0;
  while (len && n < max) {
    char *nl = memchr(buf, '\n', len);
    size_t l = nl ? (size_t)(nl - buf) : len;
    int clean = !memchr(buf, 0, l);
    if (nl) *nl = 0;
    if (clean && mountinfo_line(buf, &v[n]) == 0) n++;
    len -= l + (nl ? 1 : 0);
    buf += l + (nl ? 1 : 0);
  }
  return n;
}

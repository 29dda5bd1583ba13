/* init/fstab.c -- PID 1 mounts what /etc/fstab lists, at boot, after the
 * API file systems and the modules, before the file capabilities and the
 * services: in order, each with its options, every mount(2) and swapon(2)
 * made by a child that PID 1 waits for with a deadline (init/step.c).
 * The root's entry remounts / with its options; an entry whose mount
 * point is mounted already adds its restrictions (ro, nosuid...) to that
 * mount and mounts nothing.  The root's failure, or that of
 * an entry marked x-capinit.required, stops the boot (the emergency
 * shell); any other failure is reported as FILE:LINE: and the boot goes
 * on.  The parser is conf/fstab.c. */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <sys/swap.h>
#include <time.h>
#include <unistd.h>

#include "../conf/fstab.h"
#include "../inspect/clock.h"
#include "../inspect/file.h"
#include "../inspect/mountinfo.h"
#include "boot.h"
#include "step.h"
#include "../supervise/console.h"

#ifndef MS_NOSYMFOLLOW
#define MS_NOSYMFOLLOW 256
#endif
#ifndef ST_NOSYMFOLLOW
#define ST_NOSYMFOLLOW 8192
#endif
#ifndef ST_RELATIME
#define ST_RELATIME 4096
#endif

/* What a line may add to a mount point that is mounted already: the
 * restrictions, never their opposites. */
#define TIGHTEN_FLAGS (MS_RDONLY | MS_NOSUID | MS_NODEV | MS_NOEXEC | MS_NOSYMFOLLOW)

/* A mount at boot may replay a journal: generous, as systemd's default
 * start timeout. */
#define MOUNT_S 90
#define MOUNT_MS (MOUNT_S * 1000u)
#define STRINGIFY_(x) #x
#define STRINGIFY(x) STRINGIFY_(x)
#define MOUNT_TEXT STRINGIFY(MOUNT_S) " s"
/* How long the boot waits, in all, for device nodes that are not there
 * yet (a disk the kernel is still probing). */
#define DEVICE_WAIT_MS 10000u

/* ------------------------------------------------------------ mountinfo */

/* Is something mounted on path (as the kernel shows it)? */
static int is_mount_point(mountinfo_entry const *v, size_t n, char const *path)
{
  size_t i;
  for (i = 0; i < n; i++)
    if (!strcmp(v[i].point, path)) return 1;
  return 0;
}

/* ------------------------------------------------------------ the steps */

typedef struct mount_args_s {
  char const *source, *target, *type, *data;
  unsigned long flags;
} mount_args;

static int do_mount(void const *p)
{
  mount_args const *a = p;
  return mount(a->source, a->target, a->type, a->flags, a->data) < 0 ? errno : 0;
}

static int do_swapon(void const *p)
{
  mount_args const *a = p;
  return swapon(a->source, (int)a->flags) < 0 ? errno : 0;
}

/* The per-mount flags of the mount at target, as statvfs(3) reports
 * them (the ST_ values are not all the MS_ ones), atime's included. */
static unsigned long mount_flags_of(struct statvfs const *v)
{
  static struct { unsigned long st, ms; } const map[] = {
    { ST_RDONLY, MS_RDONLY }, { ST_NOSUID, MS_NOSUID }, { ST_NODEV, MS_NODEV },
    { ST_NOEXEC, MS_NOEXEC }, { ST_NOSYMFOLLOW, MS_NOSYMFOLLOW },
    { ST_NODIRATIME, MS_NODIRATIME },
  };
  unsigned long f = 0;
  size_t i;
  for (i = 0; i < sizeof map / sizeof map[0]; i++)
    if (v->f_flag & map[i].st) f |= map[i].ms;
  /* the kernel takes relatime when a remount names none of the three */
  if (v->f_flag & ST_NOATIME) f |= MS_NOATIME;
  else if (v->f_flag & ST_RELATIME) f |= MS_RELATIME;
  else f |= MS_STRICTATIME;
  return f;
}

/* Add the restrictions of mount_args' flags to the mount on target: a
 * remount of that mount alone (MS_BIND), which keeps its other flags and
 * leaves its file system as it is.  Nothing when it has them all. */
static int do_tighten(void const *p)
{
  mount_args const *a = p;
  struct statvfs v;
  unsigned long have;
  if (statvfs(a->target, &v) < 0) return errno;
  have = mount_flags_of(&v);
  if ((have & a->flags) == a->flags) return 0;
  return mount(0, a->target, 0, MS_REMOUNT | MS_BIND | have | a->flags, 0) < 0 ? errno : 0;
}

/* One mount(2) in a child, within MOUNT_MS. */
static int mount_bounded(char const *source, char const *target, char const *type,
                         unsigned long flags, char const *data)
{
  mount_args a = { source, target, type, data && *data ? data : 0, flags };
  return step_run(do_mount, &a, MOUNT_MS, 0);
}

static char const *step_error(int r)
{
  return r == STEP_TIMEOUT ? "no answer within " MOUNT_TEXT " (left to finish or hang in the kernel)" : strerror(r);
}

/* ------------------------------------------------------------ devices */

/* LABEL=, UUID=, PARTLABEL=, PARTUUID=: udev's links in /dev/disk (made
 * by the initramfs's udev, or by udev itself): capinit reads no
 * superblock.  udev writes the characters of a name that are not
 * [A-Za-z0-9#+-.:=@_] as \xHH. */
static int device_path(char const *spec, char *out, size_t len)
{
  static struct { char const *tag, *dir; } const tags[] = {
    { "LABEL=", "by-label" }, { "UUID=", "by-uuid" }, { "PARTLABEL=", "by-partlabel" }, { "PARTUUID=", "by-partuuid" },
  };
  size_t i, w;
  for (i = 0; i < sizeof tags / sizeof tags[0]; i++) {
    size_t tl = strlen(tags[i].tag);
    char const *v;
    if (strncmp(spec, tags[i].tag, tl)) continue;
    w = (size_t)snprintf(out, len, "/dev/disk/%s/", tags[i].dir);
    for (v = spec + tl; *v && w + 5 < len; v++) {
      unsigned char c = (unsigned char)*v;
      if ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || strchr("#+-.:=@_", c))
        out[w++] = (char)c;
      else
        w += (size_t)snprintf(out + w, len - w, "\\x%02x", c);
    }
    out[w] = 0;
    return 1;
  }
  snprintf(out, len, "%s", spec);
  return 0;
}

/* Wait for a device node until *deadline (set at the first wait: one
 * bound for the whole boot), looking ten times a second.  0 when it is
 * there. */
static int device_wait(char const *path, uint64_t *deadline)
{
  struct stat st;
  struct timespec tenth = { 0, 100000000L };
  if (stat(path, &st) == 0) return 0;
  if (!*deadline) *deadline = now_ms() + DEVICE_WAIT_MS;
  while (now_ms() < *deadline) {
    nanosleep(&tenth, 0);
    if (stat(path, &st) == 0) return 0;
  }
  return -1;
}

/* ------------------------------------------------------------ entries */

/* Try each block file system type the kernel has (/proc/filesystems,
 * without "nodev"), as busybox's and util-linux's mount do for "auto". */
static int mount_auto(char const *source, fstab_entry const *e)
{
  char buf[8192], *line, *save = 0;
  ssize_t r = file_read("/proc/filesystems", buf, sizeof buf);
  int err = ENODEV;
  if (r < 0) return errno;
  if (!r) return ENODEV;
  for (line = strtok_r(buf, "\n", &save); line; line = strtok_r(0, "\n", &save)) {
    if (!strncmp(line, "nodev", 5)) continue;
    line += strspn(line, " \t");
    err = mount_bounded(source, e->file, line, e->flags, e->data);
    if (err == 0 || err == STEP_TIMEOUT) return err;
  }
  return err;
}

static int mount_entry(char const *source, fstab_entry const *e)
{
  int r;
  if (!strcmp(e->type, "auto")) r = mount_auto(source, e);
  else r = mount_bounded(source, e->file, e->type, e->flags, e->data);
  if (r) return r;
  /* a bind mount takes only MS_REC: its other flags need a remount of
   * the new mount itself */
  if ((e->flags & MS_BIND) && (e->flags & ~(MS_BIND | MS_REC)))
    r = mount_bounded(0, e->file, 0, MS_REMOUNT | MS_BIND | (e->flags & ~MS_REC), 0);
  if (!r && e->propagation) r = mount_bounded(0, e->file, 0, e->propagation, 0);
  return r;
}

/* An entry failed: said as FILE:LINE (an error; a warning for nofail).
 * The root's and a required one's are fatal: -1 with why. */
static int failed(char const *file, fstab_entry const *e, char const *what, int err, char *why, size_t len)
{
  int root = !strcmp(e->file, "/");
  console_say("capinit: %s:%u: %s: %s%s: %s\n", file, e->line, e->nofail ? "warning" : "error", what,
              e->nofail ? " (nofail)" : "", step_error(err));
  if (!(root || e->required) || e->nofail || e->swap) return 0;
  if (root) snprintf(why, len, "unable to remount / as %s:%u says", file, e->line);
  else snprintf(why, len, "unable to mount %s as %s:%u requires (x-capinit.required)", e->file, file, e->line);
  return -1;
}

enum { LINE_DONE, LINE_LEFT, LINE_FAILED };

/* One line of the fstab: swapon, remount /, or mount.  LINE_DONE,
 * LINE_LEFT (nothing to do, or a note said why), or LINE_FAILED with what
 * failed in what and the error in *err. */
static int apply_line(char const *file, fstab_entry const *e, mountinfo_entry const *mi, size_t nmi,
                      uint64_t *deadline, char *what, size_t wlen, int *err)
{
  char source[4096], words[64];
  struct stat st;
  int r;
  device_path(e->spec, source, sizeof source);
  /* a mount point with anything on it is not mounted again (an fstab
   * that lists /proc or /dev/shm mounts nothing twice), but what the
   * line restricts is restricted: "sysfs /sys sysfs ro" makes the /sys
   * that capinit mounted read-only */
  if (!e->swap && strcmp(e->file, "/") && is_mount_point(mi, nmi, e->file)) {
    mount_args a = { 0, e->file, 0, 0, e->flags & TIGHTEN_FLAGS };
    if (!a.flags) return LINE_DONE;
    r = step_run(do_tighten, &a, MOUNT_MS, 0);
    if (!r) return LINE_DONE;
    snprintf(what, wlen, "unable to add %s to the mount on %s", fstab_flag_words(a.flags, words, sizeof words), e->file);
    *err = r;
    return LINE_FAILED;
  }
  if (!strncmp(source, "/dev/", 5) && !(e->flags & MS_BIND)) {
    if (e->nofail && stat(source, &st) < 0) {
      console_say("capinit: %s:%u: warning: %s is not there (nofail): %s not %s\n", file, e->line, source, e->file,
              e->swap ? "used" : "mounted");
      return LINE_LEFT;
    }
    if (!e->nofail && device_wait(source, deadline) < 0) {
      snprintf(what, wlen, "no device %s after %u s", source, DEVICE_WAIT_MS / 1000);
      *err = ENOENT;
      return LINE_FAILED;
    }
  }
  if (e->swap) {
    mount_args a = { source, 0, 0, 0, (unsigned long)e->swapflags };
    r = step_run(do_swapon, &a, MOUNT_MS, 0);
    if (r == 0 || r == EBUSY) return LINE_DONE;  /* EBUSY: it is on already */
    snprintf(what, wlen, "unable to swapon %s", source);
  } else if (!strcmp(e->file, "/")) {
    r = mount_bounded(0, "/", 0, MS_REMOUNT | e->flags, e->data);
    if (!r) return LINE_DONE;
    snprintf(what, wlen, "unable to remount / (%s)", e->options);
  } else if (stat(e->file, &st) < 0) {
    r = errno;
    snprintf(what, wlen, "mount point %s", e->file);
  } else {
    r = mount_entry(source, e);
    if (!r) return LINE_DONE;
    snprintf(what, wlen, "unable to mount %s on %s (%s)", source, e->file, e->type);
  }
  *err = r;
  return LINE_FAILED;
}

/* The fstab, read: its problems said; -1 with why when it cannot be used
 * at all (unreadable, or its root's line is bad). */
static int fstab_read(char const *file, fstab *f, char *why, size_t whylen)
{
  diag_list diags = { 0, 0, 0 };
  int r = 0;
  fstab_load(&diags, file, f);
  console_diags(&diags);  /* sorted: a problem of the whole file first */
  if (diags.n && !diags.v[0].line) {
    snprintf(why, whylen, "unable to use %s: %s", file, diags.v[0].text);
    r = -1;
  } else if (f->bad_root) {
    snprintf(why, whylen, "unable to remount /: its entry, %s:%u, is not valid", file, f->bad_root);
    r = -1;
  }
  diag_free(&diags);
  return r;
}

int boot_fstab(char const *file, char *why, size_t whylen)
{
  fstab f = { 0, 0, 0 };
  mountinfo_entry *mi = 0;
  size_t nmi = 0, i;
  char *mbuf;
  unsigned lines[2] = { 0, 0 }, done[2] = { 0, 0 };  /* [0] mounts, [1] swap areas */
  uint64_t deadline = 0;
  int fatal;

  if (access(file, F_OK) < 0) return 0;
  fatal = fstab_read(file, &f, why, whylen);
  mbuf = mountinfo_read(0, &mi, &nmi);
  for (i = 0; i < f.n && !fatal; i++) {
    fstab_entry const *e = &f.v[i];
    char what[8400];
    int err = 0;
    if (e->noauto) continue;
    if (e->netdev) {
      console_say("capinit: %s:%u: warning: %s needs the network (_netdev), which services bring up: not mounted at boot\n",
              file, e->line, e->file);
      continue;
    }
    lines[e->swap]++;
    switch (apply_line(file, e, mi, nmi, &deadline, what, sizeof what, &err)) {
      case LINE_DONE: done[e->swap]++; break;
      case LINE_LEFT: break;
      case LINE_FAILED: fatal = failed(file, e, what, err, why, whylen); break;
    }
  }
  free(mi);
  free(mbuf);
  if (!fatal && lines[1])
    console_say("capinit: fstab: %u of %u mounted, %u of %u swap areas on\n", done[0], lines[0], done[1], lines[1]);
  else if (!fatal)
    console_say("capinit: fstab: %u of %u mounted\n", done[0], lines[0]);
  fstab_free(&f);
  return fatal;
}

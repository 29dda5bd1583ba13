/* conf/fstab.h -- the mount tables: /etc/fstab (fstab(5)) and the
 * kernel's /proc/self/mountinfo (proc(5)).  Parsing only: inspect/mountinfo.c
 * reads a mount table, PID 1 mounts and unmounts (init/fstab.c,
 * init/shutdown.c).
 *
 * An fstab line is DEVICE MOUNTPOINT TYPE [OPTIONS [DUMP [PASS]]],
 * separated by blanks; '#' starts a comment line; a blank, a tab, a
 * newline or a backslash inside a field is written as its three-digit
 * octal escape (\040, \011, \012, \134), as in /proc/self/mountinfo.
 * OPTIONS are mount(8)'s words: those that are mount(2) flags (ro,
 * nosuid, relatime...) become flags, those that only tell what to do
 * (noauto, nofail, _netdev, user, x-...) are kept aside, every other word
 * goes to the file system as mount(2)'s data (size=16m, errors=remount-ro). */
#ifndef CAPINIT_CONF_FSTAB_H
#define CAPINIT_CONF_FSTAB_H

#include <stddef.h>

#include "diag.h"

typedef struct fstab_entry_s {
  char *spec;              /* what: a device, LABEL=..., UUID=..., or a name (tmpfs) */
  char *file;              /* the mount point ("/" for the root); for swap, as written */
  char *type;              /* "swap" for a swap area, "auto" to try the kernel's */
  char *options;           /* OPTIONS as written (unescaped), for messages */
  char *data;              /* mount(2)'s data: the file system's own options, "" for none */
  unsigned long flags;     /* mount(2)'s MS_* flags */
  unsigned long propagation; /* MS_SHARED, MS_PRIVATE...: a second mount(2) */
  int swapflags;           /* swapon(2)'s flags (priority, discard) */
  unsigned line;
  unsigned freq, passno;   /* read, and not used: capinit runs no fsck */
  unsigned noauto : 1;     /* not mounted at boot */
  unsigned nofail : 1;     /* its failure is a note, its device is not waited for */
  unsigned netdev : 1;     /* _netdev: needs the network, which services bring */
  unsigned required : 1;  /* x-capinit.required: its failure stops the boot, as for / */
  unsigned swap : 1;       /* a swap area (TYPE swap) */
} fstab_entry;

typedef struct fstab_s {
  fstab_entry *v;
  size_t n;
  /* The line of a bad line whose mount point is "/", or 0: the root's
   * entry could not be read, which is as fatal as its failure. */
  unsigned bad_root;
} fstab;

/* Parse an fstab held in buf.  Problems go to diags as FILE:LINE:
 * message; a bad line is skipped, the others are kept, in order.
 * Returns the number of errors. */
unsigned fstab_parse(diag_list *diags, char const *file, char const *buf, size_t len, fstab *out);
int fstab_load(diag_list *diags, char const *path, fstab *out);
void fstab_free(fstab *f);

/* OPTIONS (fstab's fourth field, unescaped) into e's flags, data,
 * propagation, swap flags and switches, as fstab_parse does (e->swap
 * says which options are allowed).  e->data is allocated.  Returns 0, or
 * -1 with the reason in why. */
int fstab_options(char const *options, fstab_entry *e, char *why, size_t whylen);

/* The words of mount(8) that set the MS_* flags of flags, in the order
 * of the option table ("ro,nosuid"), into out; returns out. */
char const *fstab_flag_words(unsigned long flags, char *out, size_t len);

/* Decode the octal escapes of s in place: \ and three octal digits from
 * \000 to \377; any other backslash stays.  Returns 0, or -1 when one of
 * them is \000 (no name holds a NUL byte). */
int fstab_unescape(char *s);

/* One line of /proc/self/mountinfo, its fields pointing into the
 * buffer given to mountinfo_parse (unescaped in place). */
typedef struct mountinfo_entry_s {
  unsigned id, parent;
  unsigned major, minor;
  char *root;              /* the directory of the file system mounted there */
  char *point;             /* the mount point, relative to the reader's root */
  char *options;           /* per-mount options (rw,nosuid,relatime) */
  char *type;
  char *source;
  char *super;             /* the file system's options (rw,errors=remount-ro) */
} mountinfo_entry;

/* The number of lines in buf: enough entries for mountinfo_parse. */
size_t mountinfo_lines(char const *buf, size_t len);
/* Parse buf[0..len), where buf[len] is a NUL byte, in place (fields are
 * cut with NUL bytes and unescaped) into at most max entries, in the kernel's order, which is
 * the order of the mounts.  A line that is not a mountinfo line is
 * skipped.  Returns the number of entries.  Allocates nothing: PID 1
 * reads it at shutdown, when it must not fail for want of memory. */
size_t mountinfo_parse(char *buf, size_t len, mountinfo_entry *v, size_t max);

#endif

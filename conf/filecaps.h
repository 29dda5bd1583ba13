/* conf/filecaps.h -- the file-capability manifest, /etc/capinit/filecaps:
 * one "PATH CAPTEXT" per line, CAPTEXT in setcap's syntax
 * ("cap_net_raw+ep", "cap_chown,cap_fowner=p"), "=" for an empty set (an
 * xattr with no capabilities, not a removal).  '#' comment lines and blank
 * lines are allowed.  Parsing only: applying is PID 1's job. */
#ifndef CAPINIT_CONF_FILECAPS_H
#define CAPINIT_CONF_FILECAPS_H

#include <stddef.h>
#include <stdint.h>

#include "diag.h"

typedef struct filecap_s {
  char *path;
  unsigned line;
  uint64_t prm, inh;
  int eff;                 /* the effective flag: all of prm, or nothing */
} filecap;

typedef struct filecaps_s {
  filecap *v;
  size_t n;
  /* Paths named on a bad line (a valid path with a bad capability text):
   * their file capabilities are neither set nor verified, so capinit
   * refuses the services they are the command of (fail closed).  A path
   * listed again keeps its first line, as systemd-tmpfiles does. */
  char **refused;
  size_t nrefused;
} filecaps;

/* Parse a manifest held in buf.  Problems go to diags as FILE:LINE:
 * message; a bad line is skipped, the others are kept.  Returns the
 * number of errors. */
unsigned filecaps_parse(diag_list *diags, char const *file, char const *buf, size_t len, filecaps *out);
int filecaps_load(diag_list *diags, char const *path, filecaps *out);
void filecaps_free(filecaps *f);

/* The security.capability value for an entry, revision 2 (no namespace
 * root id): 20 bytes into buf. */
size_t filecap_xattr(filecap const *f, unsigned char buf[20]);

#endif

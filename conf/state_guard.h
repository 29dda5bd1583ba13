/* conf/state_guard.h -- no service may write capinit's own state.
 *
 * A service that could write capinit's configuration directory could add
 * a legacy service and wait for a reload; one that could write its
 * runtime or log directory could plant links where capinit writes as
 * root; one that could write the program of a legacy service replaces
 * what runs as full root.  So every service but a legacy root one (which
 * holds everything anyway, by the file that declares it) is judged: if
 * its file tree (the container keys) leaves one of those paths writable
 * AND its credentials pass the file permission check there, it is
 * refused, unless its file says writes-capinit-state = yes (then a
 * warning).  capinit's loader and capctl check run this same code. */
#ifndef CAPINIT_CONF_STATE_GUARD_H
#define CAPINIT_CONF_STATE_GUARD_H

struct conf_ctx_s;
struct svc_set_s;

/* capinit's own paths, as capinit is started with them. */
typedef struct capinit_state_s {
  char const *confdir;     /* -c DIR: capinit.conf, filecaps, services/ */
  char const *rundir;      /* -r DIR */
  char const *logdir;      /* capinit.conf's log-directory */
} capinit_state;

#define CAPINIT_CONFDIR_DEFAULT "/etc/capinit"
#define CAPINIT_RUNDIR_DEFAULT "/run/capinit"

/* Judge each service of set that is not refused yet against
 * ctx->state: an error on the line of the key that makes the state
 * writable (and the service refused), or a warning when the file accepts
 * it.  ctx->root is the tree the paths are in (capctl check -R). */
void state_guard(struct conf_ctx_s *ctx, struct svc_set_s *set);

#endif

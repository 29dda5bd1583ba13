/* conf/stages.h -- the privilege engine's stages, one row each, in the
 * order the engine runs them.  The engine (engine/privilege.c) applies
 * them, explain (inspect/explain.c) predicts them, capexec exits with the
 * row's status when one fails (capexec(8), EXIT STATUS), and the logs,
 * status, the tests and the docs name them.  A new stage is one row here,
 * plus its apply and describe code in the engine and its prediction.
 *
 *   X(ID, name, exit status of capexec) */
#ifndef CAPINIT_CONF_STAGES_H
#define CAPINIT_CONF_STAGES_H

#define PRIV_STAGES(X) \
  X(SESSION, "session", 111) \
  X(SIGNALS, "signals", 111) \
  X(NAMESPACES, "namespaces", 115) \
  X(HOSTNAME, "hostname", 115) \
  X(NETWORK, "network", 115) \
  X(CARD, "card", 115) \
  X(ADDRESS, "address", 115) \
  X(ROUTE, "route", 115) \
  X(MOUNTS, "mounts", 115) \
  X(ROOT, "root", 115) \
  X(PROC, "proc", 115) \
  X(READONLY, "readonly", 115) \
  X(LISTEN, "listen", 111) \
  X(DIRECTORY, "directory", 111) \
  X(UMASK, "umask", 111) \
  X(RLIMITS, "rlimits", 111) \
  X(KEEPCAPS, "keepcaps", 112) \
  X(GROUPS, "groups", 112) \
  X(GID, "gid", 112) \
  X(UID, "uid", 112) \
  X(EFFECTIVE, "effective", 113) \
  X(BOUNDING, "bounding", 113) \
  X(INHERITABLE, "inheritable", 113) \
  X(AMBIENT, "ambient", 113) \
  X(SECUREBITS, "securebits", 114) \
  X(FILTER, "filter", 114) \
  X(CAPS, "caps", 113) \
  X(NNP, "nnp", 114) \
  X(EXEC, "exec", 126)

enum priv_stage {
#define STAGE_ENUM(id, name, status) STAGE_##id,
  PRIV_STAGES(STAGE_ENUM)
#undef STAGE_ENUM
  STAGE_COUNT
};

/* The stage's name ("ambient"), or "?" for a number out of range. */
char const *stage_name(int stage);
/* STAGE_..., or -1 for an unknown name. */
int stage_from_name(char const *name);
/* capexec's exit status when the stage fails (exec: 126, or 127 when the
 * command is not found, which the caller decides). */
int stage_exit_status(int stage);

#endif

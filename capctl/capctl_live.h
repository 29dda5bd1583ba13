/* capctl/capctl_live.h -- capinit's control socket as capctl's live
 * verbs use it (capctl_live.c). */
#ifndef CAPINIT_CAPCTL_CAPCTL_LIVE_H
#define CAPINIT_CAPCTL_CAPCTL_LIVE_H

/* Send one request; call fn on each record; return the final message
 * (static), "ok" or "error: ...". */
char const *live_transact(char const *req, void (*fn)(char *rec, void *arg), void *arg);
/* verb and its arguments as one request (static); wrong usage dies. */
char *live_join(char const *verb, int argc, char **argv);
/* 0 when the final reply r is "ok"; else, after what was printed of the
 * records, its error on standard error, and 1. */
int live_final(char const *r);
/* The connection of the request answered last, open until capctl ends. */
int live_answered_fd(void);

#endif

/* supervise/maincmd.h -- the main command of capinit --container -- CMD
 * (maincmd.c): started beside the services with capinit's own
 * credentials, environment and standard descriptors; the signals capinit
 * accepts are passed on to it; its end stops the services, and its
 * status becomes capinit's. */
#ifndef CAPINIT_SUPERVISE_MAINCMD_H
#define CAPINIT_SUPERVISE_MAINCMD_H

#include <sys/types.h>

typedef struct maincmd_s {
  char **argv;             /* CMD ARGS..., NULL-terminated; NULL: no main command */
  int err;                 /* capinit's standard error as it got it (blocking), -1 */
  int group;               /* -g: signals go to CMD's process group */
  int status;              /* wait status once it ended, -1 before */
  pid_t pid;               /* while it runs (not reaped yet), else 0 */
  unsigned char zero[32];  /* -e CODE: bit CODE set, that exit code becomes 0 */
} maincmd;

/* Fork and execute CMD: its own process group (the terminal's foreground
 * one when capinit's was), default signals.  An exec failure is said on
 * its standard error, and it exits 127 (not found) or 126.  0, or -1
 * (errno) when no child could be made. */
int maincmd_start(maincmd *m);
/* Pass sig on to CMD (its process group with -g), while it runs. */
void maincmd_signal(maincmd const *m, int sig);
/* CMD was reaped with this wait status: said on the console. */
void maincmd_ended(maincmd *m, int status);
/* capinit's exit code: CMD's exit code, or 128 + the signal that ended
 * it; 0 instead when -e names that code. */
int maincmd_exit_code(maincmd const *m);

#endif

/* capctl/capctl.h -- the verbs of capctl, one file each. */
#ifndef CAPINIT_CAPCTL_CAPCTL_H
#define CAPINIT_CAPCTL_CAPCTL_H

#include <stdio.h>

int explain_main(int argc, char **argv);
/* status, start, stop, restart, signal, reload, log, verify */
int live_main(int argc, char **argv);
/* verify, with -p (capctl_verify.c) */
int verify_main(int processes, int argc, char **argv);
void explain_help(void);
/* s as a JSON string, quotes and escapes included (capctl_explain.c) */
void json_string(FILE *f, char const *s);

#endif

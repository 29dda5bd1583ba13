/* supervise/capctl.h -- the verbs of capctl, one file each. */
#ifndef CAPINIT_SUPERVISE_CAPCTL_H
#define CAPINIT_SUPERVISE_CAPCTL_H

int explain_main(int argc, char **argv);
/* status, start, stop, restart, signal, reload, log, verify */
int live_main(int argc, char **argv);
void explain_help(void);

#endif

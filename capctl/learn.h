/* capctl/learn.h -- `capctl learn`: the program capctl-learn. */
#ifndef CAPINIT_CAPCTL_LEARN_H
#define CAPINIT_CAPCTL_LEARN_H

/* argv[0] is the verb; exit status of capctl(8) LEARN. */
int learn_main(int argc, char **argv);

#endif

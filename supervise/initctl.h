/* supervise/initctl.h -- /run/initctl, sysvinit's FIFO, for PID 1 of a
 * machine (initctl.c). */
#ifndef CAPINIT_SUPERVISE_INITCTL_H
#define CAPINIT_SUPERVISE_INITCTL_H

int initctl_open(void);
void initctl_read(int fd);

#endif

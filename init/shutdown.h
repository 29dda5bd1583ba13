/* init/shutdown.h -- the end of a machine (init/shutdown.c). */
#ifndef CAPINIT_INIT_SHUTDOWN_H
#define CAPINIT_INIT_SHUTDOWN_H

/* How long each file-system step of the shutdown may go on without
 * write-back progress (capinit.conf's unmount-timeout). */
void boot_unmount_timeout(unsigned ms);
/* Kill what is left, swapoff, unmount, read-only, sync, then reboot(2);
 * how: RB_AUTOBOOT, RB_POWER_OFF or RB_HALT_SYSTEM.  Never returns. */
void boot_final(int how) __attribute__((noreturn));

#endif

/* init/boot.h -- PID 1's own work, before and after the supervisor. */
#ifndef CAPINIT_INIT_BOOT_H
#define CAPINIT_INIT_BOOT_H

#include <stddef.h>

void boot_mounts(void);
int boot_console(void);
void boot_hostname(void);
void boot_kernel_support(void);
void boot_modules(char const *file);
void boot_filecaps(char const *file);
/* Mount what FILE (/etc/fstab) lists (init/fstab.c).  Returns 0, or -1
 * with why set when the boot must stop: the root's entry, or one marked
 * x-capinit.required, failed. */
int boot_fstab(char const *file, char *why, size_t whylen);
/* How long each file-system step of the shutdown may go on without
 * write-back progress (capinit.conf's unmount-timeout). */
void boot_unmount_timeout(unsigned ms);
/* Kill what is left, swapoff, unmount, read-only, sync, then reboot(2)
 * (init/shutdown.c); how: RB_AUTOBOOT, RB_POWER_OFF or RB_HALT_SYSTEM.
 * Never returns. */
void boot_final(int how) __attribute__((noreturn));
void boot_emergency(char const *why, char **shell) __attribute__((noreturn));

#endif

/* init/boot.h -- PID 1's own work before the supervisor (the end of the
 * machine, after it: shutdown.h). */
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
void boot_emergency(char const *why, char **shell) __attribute__((noreturn));

#endif

/* init/boot.h -- PID 1's own work, before and after the supervisor. */
#ifndef CAPINIT_INIT_BOOT_H
#define CAPINIT_INIT_BOOT_H

void boot_mounts(void);
int boot_console(void);
void boot_hostname(void);
void boot_kernel_support(void);
void boot_modules(char const *file);
void boot_filecaps(char const *file);
/* how: RB_AUTOBOOT, RB_POWER_OFF or RB_HALT_SYSTEM.  Never returns. */
void boot_final(int how) __attribute__((noreturn));
void boot_emergency(char const *why, char **shell) __attribute__((noreturn));

#endif

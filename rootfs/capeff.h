/* The appliance's programs say on their last line what they held:
 * CapEff as the kernel reports it in /proc/self/status (16 hex digits),
 * or "?" when it cannot be read.  One static function, for the programs
 * of rootfs/ (each is one object). */
#ifndef CAPINIT_ROOTFS_CAPEFF_H
#define CAPINIT_ROOTFS_CAPEFF_H

#include <stdio.h>
#include <string.h>

static void cap_eff(char *out, size_t len)
{
  char line[256];
  FILE *f = fopen("/proc/self/status", "re");
  snprintf(out, len, "?");
  if (!f) return;
  while (fgets(line, sizeof line, f))
    if (!strncmp(line, "CapEff:\t", 8)) {
      line[strcspn(line, "\n")] = 0;
      snprintf(out, len, "%.16s", line + 8);
    }
  fclose(f);
}

#endif

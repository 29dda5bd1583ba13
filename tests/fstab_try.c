/* tests/fstab_try.c -- capinit's own code for /etc/fstab and
 * /proc/self/mountinfo, run outside PID 1, for tests/system/test_fstab.sh:
 *
 *   fstab_try mount FILE   what PID 1 does with /etc/fstab at boot
 *                          (boot_fstab, init/fstab.c), with FILE; exits 0,
 *                          or 1 after printing the fatal line
 *   fstab_try mountinfo    /proc/self/mountinfo as capinit reads it
 *                          (inspect/mountinfo.c, conf/fstab.c's parser),
 *                          one mount a line: ID PARENT MAJ:MIN FSROOT
 *                          TARGET FSTYPE SOURCE OPTIONS SUPER, separated
 *                          by tabs (a tab, newline or backslash in a name
 *                          shown as \t, \n, \\)
 *
 * It mounts: run it in a mount namespace of its own (unshare --mount), and
 * never with an fstab that names / or a swap area. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../conf/fstab.h"
#include "../init/boot.h"
#include "../inspect/mountinfo.h"

static void put(char const *s, char end)
{
  for (; *s; s++) {
    if (*s == '\t') fputs("\\t", stdout);
    else if (*s == '\n') fputs("\\n", stdout);
    else if (*s == '\\') fputs("\\\\", stdout);
    else putchar(*s);
  }
  putchar(end);
}

int main(int argc, char **argv)
{
  if (argc == 3 && !strcmp(argv[1], "mount")) {
    char why[8800];
    setvbuf(stderr, 0, _IOLBF, 0);
    if (boot_fstab(argv[2], why, sizeof why) < 0) {
      fprintf(stderr, "capinit: fatal: %s\n", why);
      return 1;
    }
    return 0;
  }
  if (argc == 2 && !strcmp(argv[1], "mountinfo")) {
    mountinfo_entry *v;
    size_t n, i;
    char *buf = mountinfo_read(0, &v, &n);
    if (!buf) {
      perror("fstab_try: /proc/self/mountinfo");
      return 1;
    }
    for (i = 0; i < n; i++) {
      printf("%u\t%u\t%u:%u\t", v[i].id, v[i].parent, v[i].major, v[i].minor);
      put(v[i].root, '\t');
      put(v[i].point, '\t');
      put(v[i].type, '\t');
      put(v[i].source, '\t');
      put(v[i].options, '\t');
      put(v[i].super, '\n');
    }
    free(v);
    free(buf);
    return 0;
  }
  fputs("usage: fstab_try mount FILE | mountinfo\n", stderr);
  return 100;
}

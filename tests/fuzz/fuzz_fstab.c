/* tests/fuzz/fuzz_fstab.c -- the fstab and mountinfo parsers (conf/fstab.c).
 * The input is read as an fstab, then as /proc/self/mountinfo; every entry
 * kept must be one PID 1 can use as it is. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "../../conf/diag.h"
#include "../../conf/fstab.h"

int LLVMFuzzerTestOneInput(uint8_t const *data, size_t size);

int LLVMFuzzerTestOneInput(uint8_t const *data, size_t size)
{
  diag_list diags = { 0, 0, 0 };
  fstab f = { 0, 0, 0 };
  mountinfo_entry *v;
  char *buf;
  size_t i, n, max;
  fstab_parse(&diags, "fstab", (char const *)data, size, &f);
  for (i = 0; i < f.n; i++) {
    fstab_entry const *e = &f.v[i];
    if (!e->spec[0] || !e->type[0] || !e->line) abort();
    if (!e->swap && (e->file[0] != '/' || strstr(e->file, "/../"))) abort();
    if (!e->swap && strlen(e->file) > 1 && e->file[strlen(e->file) - 1] == '/') abort();
    if (strlen(e->data) > 4095 || (e->nofail && e->required)) abort();
    if (e->swap && (e->flags || e->data[0])) abort();
  }
  if (f.bad_root && !diags.n) abort();
  fstab_free(&f);
  diag_free(&diags);

  buf = malloc(size + 1);
  if (!buf) return 0;
  memcpy(buf, data, size);
  buf[size] = 0;
  max = mountinfo_lines(buf, size);
  v = malloc((max ? max : 1) * sizeof *v);
  if (v) {
    n = mountinfo_parse(buf, size, v, max);
    if (n > max) abort();
    for (i = 0; i < n; i++)
      if (!v[i].point || !v[i].type || !v[i].source || !v[i].super || !v[i].root || !v[i].options) abort();
  }
  free(v);
  free(buf);
  return 0;
}

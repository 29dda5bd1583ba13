/* tests/fuzz/fuzz_filecaps.c -- the file-capability manifest parser. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "../../conf/diag.h"
#include "../../conf/filecaps.h"

int LLVMFuzzerTestOneInput(uint8_t const *data, size_t size);

int LLVMFuzzerTestOneInput(uint8_t const *data, size_t size)
{
  diag_list diags = { 0, 0, 0 };
  filecaps f = { 0, 0, 0, 0 };
  size_t i;
  unsigned char x[20];
  filecaps_parse(&diags, "filecaps", (char const *)data, size, &f);
  for (i = 0; i < f.n; i++) {
    if (f.v[i].path[0] != '/') abort();
    if (f.v[i].eff && !(f.v[i].prm | f.v[i].inh) && 0) abort();
    if (filecap_xattr(&f.v[i], x) != 20) abort();
  }
  filecaps_free(&f);
  diag_free(&diags);
  return 0;
}

/* tests/fuzz/fuzz_notify.c -- the sd_notify message parser. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "../../supervise/notify.h"

int LLVMFuzzerTestOneInput(uint8_t const *data, size_t size);

int LLVMFuzzerTestOneInput(uint8_t const *data, size_t size)
{
  notify_msg m;
  size_t i;
  if (notify_parse((char const *)data, size, &m) == 0 && m.has_status) {
    size_t n = strlen(m.status);
    if (n >= sizeof m.status) abort();
    for (i = 0; i < n; i++)
      if ((unsigned char)m.status[i] < 0x20) abort();  /* status is shown on a terminal */
  }
  return 0;
}

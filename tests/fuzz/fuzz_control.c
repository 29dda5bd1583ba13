/* tests/fuzz/fuzz_control.c -- the control-protocol request parser. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "../../conf/control_verbs.h"

int LLVMFuzzerTestOneInput(uint8_t const *data, size_t size);

int LLVMFuzzerTestOneInput(uint8_t const *data, size_t size)
{
  control_request r;
  char err[256];
  int i, ok = control_parse((char const *)data, size, &r, err, sizeof err);
  if (ok < 0) {
    if (strncmp(err, "error: ", 7)) abort();  /* every refusal is a protocol error */
    return 0;
  }
  if (!r.verb || r.argc > CONTROL_ARGS_MAX || r.argc - 1 < (int)r.verb->min_args) abort();
  if (strcmp(r.argv[0], r.verb->name)) abort();
  for (i = 0; i < r.argc; i++)
    if (!r.argv[i][0] || strchr(r.argv[i], ' ')) abort();
  return 0;
}

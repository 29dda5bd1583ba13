/* tests/fuzz/fuzz_svc.c -- the service-file parser and validator.
 * The input is up to three service files separated by a line "---"
 * (a.svc, b.svc, c.svc), so that dependencies and cycles across services
 * are exercised too.  Every problem must be reported, none may crash or
 * leak, and a refused service must have at least one error. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "../../conf/diag.h"
#include "../../conf/svc.h"

int LLVMFuzzerTestOneInput(uint8_t const *data, size_t size);

int LLVMFuzzerTestOneInput(uint8_t const *data, size_t size)
{
  static char const *const names[] = { "a.svc", "b.svc", "c.svc" };
  diag_list diags = { 0, 0, 0 };
  conf_ctx ctx = { .root = "tests/unit/root", .diags = &diags, .command_optional = 0, .live = 0 };
  svc_set set = { 0, 0 };
  char const *p = (char const *)data, *end = p + size;
  size_t i;

  for (i = 0; i < 3 && p <= end; i++) {
    char const *sep = 0, *q;
    size_t before = diags.n;
    svc *s;
    for (q = p; q + 4 <= end; q++)
      if (!memcmp(q, "\n---", 4) && (q + 4 == end || q[4] == '\n')) {
        sep = q;
        break;
      }
    s = svc_load_buffer(&ctx, names[i], p, (size_t)((sep ? sep : end) - p));
    if (s->refused && diag_count(&diags, DIAG_ERROR) == 0) abort();
    if (!s->refused && diags.n > before && diag_count(&diags, DIAG_ERROR)) {
      size_t k;
      for (k = before; k < diags.n; k++)
        if (diags.v[k].level == DIAG_ERROR) abort();  /* an error, yet accepted */
    }
    set.v = realloc(set.v, (set.n + 1) * sizeof *set.v);
    set.v[set.n++] = s;
    if (!sep) break;
    p = sep + 4;
  }
  svc_set_validate(&ctx, &set);
  for (i = 0; i < set.n; i++) {
    svc const *s = set.v[i];
    if (!s->refused && (s->caps & ~s->bounding)) abort();  /* F4 must be enforced */
    if (!s->refused && !s->argv) abort();
  }
  svc_set_free(&set);
  diag_free(&diags);
  return 0;
}

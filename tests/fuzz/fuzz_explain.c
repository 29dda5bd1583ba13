/* tests/fuzz/fuzz_explain.c -- explain on random specs, launchers and
 * target files.  The first 64 bytes choose the launcher's credentials and
 * the target file's mode and file capabilities; the rest are "key=value"
 * lines of the spec.  The prediction must keep the kernel's invariants. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "../../conf/diag.h"
#include "../../inspect/explain.h"
#include "../../conf/svc.h"

int LLVMFuzzerTestOneInput(uint8_t const *data, size_t size);

static uint64_t take64(uint8_t const *p)
{
  uint64_t x = 0;
  int i;
  for (i = 0; i < 8; i++) x = x << 8 | p[i];
  return x;
}

int LLVMFuzzerTestOneInput(uint8_t const *data, size_t size)
{
  diag_list diags = { 0, 0, 0 };
  conf_ctx ctx = { .root = "tests/unit/root", .diags = &diags, .command_optional = 1, .live = 0 };
  char const *pairs[64];
  char *text;
  size_t n = 0;
  cred_state l;
  exec_target t;
  kernel_facts k = { 40, SETGID_RULE_UNKNOWN };
  prediction p;
  uint64_t all = ((uint64_t)1 << 41) - 1;
  svc *s;
  char *save = 0, *line;

  if (size < 64) return 0;
  memset(&l, 0, sizeof l);
  memset(&t, 0, sizeof t);
  l.bnd = take64(data) & all;
  l.prm = take64(data + 8) & all;
  l.eff = l.prm & take64(data + 16);
  l.inh = take64(data + 24) & (l.prm | l.bnd);
  l.amb = l.prm & l.inh & take64(data + 32);
  l.securebits = data[40];
  l.ruid = l.euid = l.suid = data[41] & 1 ? 0 : 1000u * data[42];
  l.rgid = l.egid = l.sgid = data[43];
  l.nnp = data[44] & 1;
  k.setgid_rule = (enum setgid_rule)(data[44] >> 1 & 3) % 3;
  t.path = "/target";
  t.mode = S_IFREG | 0755 | (data[45] & 1 ? S_ISUID : 0) | (data[45] & 2 ? S_ISGID : 0);
  t.uid = data[45] & 4 ? 0 : 33;
  t.gid = data[46];
  t.nosuid = data[45] & 8 ? 1 : 0;
  t.fcaps = data[47] % 4 == 3 ? 3 : data[47] % 4 == 2 ? 2 : 0;
  t.f_prm = take64(data + 48) & all;
  t.f_inh = t.f_prm ^ (take64(data + 56) & all);
  t.f_eff = data[47] >> 7;
  t.f_rootid = data[47] & 0x40 ? 1000 : 0;

  text = malloc(size - 64 + 1);
  memcpy(text, data + 64, size - 64);
  text[size - 64] = 0;
  for (line = strtok_r(text, "\n", &save); line && n < 64; line = strtok_r(0, "\n", &save)) pairs[n++] = line;
  s = svc_load_pairs(&ctx, "-k", pairs, n);
  explain_predict(s, &l, &t, &k, &p);
  if (!p.refused) {
    cred_state const *a = &p.after;
    if (a->eff & ~a->prm) abort();                   /* E is within P */
    if (a->amb & ~(a->prm & a->inh)) abort();        /* A is within P and I */
    if (a->bnd & ~l.bnd) abort();                    /* bounding only shrinks */
    if (a->inh != s->caps) abort();                  /* I is the spec's */
    if (a->nnp && a->euid != a->ruid) abort();       /* nnp: no set-id */
    if ((s->securebits & 1) && a->prm & ~(a->inh | (t.f_prm & a->bnd))) abort(); /* noroot: no root caps */
  }
  svc_free(s);
  free(text);
  diag_free(&diags);
  return 0;
}

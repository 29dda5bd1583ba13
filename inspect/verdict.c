/* inspect/verdict.c -- a process's live credentials against its service's
 * prediction (verdict.h).
 *
 * What a process could have taken by itself from the predicted state,
 * without an exec that grants privilege (the kernel's rules of
 * setresuid(2), setgroups(2), capset(2) and prctl(2)):
 *   - any of its real, effective and saved ids as any of them, and any id
 *     at all with cap_setuid (cap_setgid for groups) in its permitted set;
 *   - fewer supplementary groups, and any with cap_setgid;
 *   - a permitted or bounding set that is a subset of the predicted one;
 *     an effective set within the permitted one;
 *   - inheritable capabilities from its permitted set (from its bounding
 *     set with cap_setpcap), ambient ones in both permitted and
 *     inheritable;
 *   - no_new_privs set, never cleared. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <linux/capability.h>

#include "verdict.h"

char const *const verdict_field_names[VF_COUNT] = {
  "Uid", "Gid", "Groups", "CapInh", "CapPrm", "CapEff", "CapBnd", "CapAmb", "NoNewPrivs",
};

#define BIT(cap) ((uint64_t)1 << (cap))

/* The value after "KEY:" on a line of its own, or NULL. */
static char const *value_of(char const *text, size_t len, char const *key, size_t *vlen)
{
  size_t kl = strlen(key), i = 0;
  while (i < len) {
    char const *line = text + i, *nl = memchr(line, '\n', len - i);
    size_t ll = nl ? (size_t)(nl - line) : len - i;
    if (ll > kl && !memcmp(line, key, kl) && line[kl] == ':') {
      size_t s = kl + 1;
      while (s < ll && (line[s] == ' ' || line[s] == '\t')) s++;
      *vlen = ll - s;
      return line + s;
    }
    i += ll + 1;
  }
  return 0;
}

/* Up to max decimal numbers separated by blanks; -1 on anything else. */
static long numbers(char const *v, size_t len, uint32_t *out, size_t max)
{
  size_t i = 0, n = 0;
  while (i < len) {
    unsigned long long x = 0;
    size_t digits = 0;
    while (i < len && (v[i] == ' ' || v[i] == '\t')) i++;
    if (i == len) break;
    while (i < len && v[i] >= '0' && v[i] <= '9' && digits < 11) x = x * 10 + (unsigned)(v[i++] - '0'), digits++;
    if (!digits || x > 0xffffffffull || (i < len && v[i] != ' ' && v[i] != '\t') || n == max) return -1;
    out[n++] = (uint32_t)x;
  }
  return (long)n;
}

static int hex64(char const *v, size_t len, uint64_t *out)
{
  size_t i;
  uint64_t x = 0;
  if (len != 16) return -1;
  for (i = 0; i < len; i++) {
    char c = v[i];
    unsigned d = c >= '0' && c <= '9' ? (unsigned)(c - '0') : c >= 'a' && c <= 'f' ? (unsigned)(c - 'a' + 10) : 16;
    if (d == 16) return -1;
    x = x << 4 | d;
  }
  *out = x;
  return 0;
}

int live_creds_parse(char const *text, size_t len, live_creds *out)
{
  uint32_t ids[4];
  uint64_t *sets[5];
  size_t vlen, i;
  char const *v;
  memset(out, 0, sizeof *out);
  sets[0] = &out->c.inh, sets[1] = &out->c.prm, sets[2] = &out->c.eff, sets[3] = &out->c.bnd, sets[4] = &out->c.amb;
  if (!(v = value_of(text, len, "Uid", &vlen)) || numbers(v, vlen, ids, 4) != 4) return -1;
  out->c.ruid = ids[0], out->c.euid = ids[1], out->c.suid = ids[2], out->fsuid = ids[3];
  if (!(v = value_of(text, len, "Gid", &vlen)) || numbers(v, vlen, ids, 4) != 4) return -1;
  out->c.rgid = ids[0], out->c.egid = ids[1], out->c.sgid = ids[2], out->fsgid = ids[3];
  {
    long n;
    if (!(v = value_of(text, len, "Groups", &vlen)) ||
        (n = numbers(v, vlen, out->c.groups, EXPLAIN_GROUPS_MAX)) < 0)
      return -1;
    out->c.ngroups = (size_t)n;
  }
  for (i = 0; i < 5; i++) {
    if (!(v = value_of(text, len, verdict_field_names[VF_CAPINH + i], &vlen)) || hex64(v, vlen, sets[i]) < 0) return -1;
  }
  if (!(v = value_of(text, len, "NoNewPrivs", &vlen)) || vlen != 1 || (*v != '0' && *v != '1')) return -1;
  out->c.nnp = *v == '1';
  out->seen = (1u << VF_COUNT) - 1;
  return 0;
}

void verdict_format(enum verdict_field f, cred_state const *c, uint32_t fsuid, uint32_t fsgid,
                    char *out, size_t len)
{
  size_t i, w = 0;
  uint64_t const sets[5] = { c->inh, c->prm, c->eff, c->bnd, c->amb };
  out[0] = 0;
  switch (f) {
    case VF_UID: snprintf(out, len, "%u %u %u %u", c->ruid, c->euid, c->suid, fsuid); break;
    case VF_GID: snprintf(out, len, "%u %u %u %u", c->rgid, c->egid, c->sgid, fsgid); break;
    case VF_GROUPS:
      for (i = 0; i < c->ngroups && w + 12 < len; i++)
        w += (size_t)snprintf(out + w, len - w, "%s%u", i ? " " : "", c->groups[i]);
      break;
    case VF_NNP: snprintf(out, len, "%d", c->nnp ? 1 : 0); break;
    case VF_COUNT: break;
    default: snprintf(out, len, "%016llx", (unsigned long long)sets[f - VF_CAPINH]); break;
  }
}

static int has_group(cred_state const *c, uint32_t g)
{
  size_t i;
  for (i = 0; i < c->ngroups; i++)
    if (c->groups[i] == g) return 1;
  return 0;
}

/* Same set of groups, whatever the order. */
static int same_groups(cred_state const *a, cred_state const *b)
{
  size_t i;
  for (i = 0; i < a->ngroups; i++)
    if (!has_group(b, a->groups[i])) return 0;
  for (i = 0; i < b->ngroups; i++)
    if (!has_group(a, b->groups[i])) return 0;
  return 1;
}

static int id_reachable(uint32_t id, uint32_t r, uint32_t e, uint32_t s, int any)
{
  return any || id == r || id == e || id == s;
}

void verdict_judge(live_creds const *live, cred_state const *want, verdict *v)
{
  cred_state const *l = &live->c;
  int const setuid = (want->prm & BIT(CAP_SETUID)) != 0, setgid = (want->prm & BIT(CAP_SETGID)) != 0;
  uint64_t const inh_ok = want->inh | (want->prm & BIT(CAP_SETPCAP) ? want->bnd : want->prm);
  int allowed[VF_COUNT];
  size_t i;
  int f;

  memset(v, 0, sizeof *v);
  v->field = -1;
  if (l->ruid != want->ruid || l->euid != want->euid || l->suid != want->suid || live->fsuid != want->euid)
    v->differ |= 1u << VF_UID;
  if (l->rgid != want->rgid || l->egid != want->egid || l->sgid != want->sgid || live->fsgid != want->egid)
    v->differ |= 1u << VF_GID;
  if (!same_groups(l, want)) v->differ |= 1u << VF_GROUPS;
  if (l->inh != want->inh) v->differ |= 1u << VF_CAPINH;
  if (l->prm != want->prm) v->differ |= 1u << VF_CAPPRM;
  if (l->eff != want->eff) v->differ |= 1u << VF_CAPEFF;
  if (l->bnd != want->bnd) v->differ |= 1u << VF_CAPBND;
  if (l->amb != want->amb) v->differ |= 1u << VF_CAPAMB;
  if (!l->nnp != !want->nnp) v->differ |= 1u << VF_NNP;

  allowed[VF_UID] = id_reachable(l->ruid, want->ruid, want->euid, want->suid, setuid) &&
                    id_reachable(l->euid, want->ruid, want->euid, want->suid, setuid) &&
                    id_reachable(l->suid, want->ruid, want->euid, want->suid, setuid) &&
                    id_reachable(live->fsuid, want->ruid, want->euid, want->suid, setuid);
  allowed[VF_GID] = id_reachable(l->rgid, want->rgid, want->egid, want->sgid, setgid) &&
                    id_reachable(l->egid, want->rgid, want->egid, want->sgid, setgid) &&
                    id_reachable(l->sgid, want->rgid, want->egid, want->sgid, setgid) &&
                    id_reachable(live->fsgid, want->rgid, want->egid, want->sgid, setgid);
  allowed[VF_GROUPS] = 1;
  for (i = 0; i < l->ngroups && !setgid; i++)
    if (!has_group(want, l->groups[i])) allowed[VF_GROUPS] = 0;
  allowed[VF_CAPINH] = !(l->inh & ~inh_ok);
  allowed[VF_CAPPRM] = !(l->prm & ~want->prm);
  allowed[VF_CAPEFF] = !(l->eff & ~want->prm);
  allowed[VF_CAPBND] = !(l->bnd & ~want->bnd);
  allowed[VF_CAPAMB] = !(l->amb & ~(inh_ok & want->prm));
  allowed[VF_NNP] = l->nnp || !want->nnp;

  if (!v->differ) {
    v->result = VERDICT_SAME;
    return;
  }
  v->result = VERDICT_DROPPED;
  for (f = 0; f < VF_COUNT; f++) {
    if (!(v->differ & 1u << f) || allowed[f]) continue;
    v->result = VERDICT_MORE;
    v->field = f;
    verdict_format((enum verdict_field)f, l, live->fsuid, live->fsgid, v->live, sizeof v->live);
    verdict_format((enum verdict_field)f, want, want->euid, want->egid, v->want, sizeof v->want);
    return;
  }
}

/* Unit tests: capctl verify's judgement of a process (inspect/verdict.c):
 * /proc/PID/status parsed (this process's own, against the system calls
 * that read the same credentials), and each kind of difference: the same
 * credentials, less (dropped), and more than the prediction allows, each
 * "more" case beside the "dropped" one that differs from it by one fact. */
#include <fcntl.h>
#include <stdlib.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <unistd.h>
#include <linux/capability.h>

#include "../../inspect/verdict.h"
#include "t.h"

#define BIT(c) ((uint64_t)1 << (c))

static char const *result_name(enum verdict_result r)
{
  return r == VERDICT_SAME ? "same" : r == VERDICT_DROPPED ? "dropped" : "more";
}

static void own_status(void)
{
  char buf[8192];
  live_creds l;
  uid_t r, e, s;
  gid_t g[256];
  long ng, i;
  int fd = open("/proc/self/status", O_RDONLY), ok;
  ssize_t n = fd >= 0 ? read(fd, buf, sizeof buf) : -1;
  uint64_t bnd = 0;
  unsigned cap;
  if (fd >= 0) close(fd);
  t_ok(n > 0 && live_creds_parse(buf, (size_t)n, &l) == 0, "parses /proc/self/status");
  getresuid(&r, &e, &s);
  t_ok(l.c.ruid == r && l.c.euid == e && l.c.suid == s && l.fsuid == e, "Uid as getresuid() says (fs = effective)");
  ng = syscall(SYS_getgroups, 256, g);
  ok = ng == (long)l.c.ngroups;
  for (i = 0; ok && i < ng; i++) ok = l.c.groups[i] == g[i];
  t_ok(ok, "Groups as getgroups() says (%ld)", ng);
  for (cap = 0; cap < 64 && prctl(PR_CAPBSET_READ, cap, 0, 0, 0) >= 0; cap++)
    if (prctl(PR_CAPBSET_READ, cap, 0, 0, 0) == 1) bnd |= BIT(cap);
  t_ueq(l.c.bnd, bnd, "CapBnd as PR_CAPBSET_READ says");
  t_ok(l.c.nnp == (prctl(PR_GET_NO_NEW_PRIVS, 0, 0, 0, 0) == 1), "NoNewPrivs as PR_GET_NO_NEW_PRIVS says");
}

static char const good[] =
  "Name:\tsshd\nUmask:\t0022\nState:\tS (sleeping)\n"
  "Uid:\t0\t0\t0\t0\nGid:\t0\t0\t0\t0\nFDSize:\t64\nGroups:\t0 4 \n"
  "CapInh:\t0000000000000000\nCapPrm:\t000001ffffffffff\nCapEff:\t000001ffffffffff\n"
  "CapBnd:\t000001ffffffffff\nCapAmb:\t0000000000000000\nNoNewPrivs:\t0\nSeccomp:\t0\n";

static void parsing(void)
{
  static struct { char const *from, *to, *what; } const bad[] = {
    { "Uid:\t0\t0\t0\t0\n", "", "no Uid line" },
    { "Uid:\t0\t0\t0\t0\n", "Uid:\t0\t0\t0\n", "three uids" },
    { "Gid:\t0\t0\t0\t0\n", "Gid:\t0\tx\t0\t0\n", "a gid that is not a number" },
    { "Groups:\t0 4 \n", "Groups:\t0 99999999999 \n", "a group beyond 32 bits" },
    { "CapEff:\t000001ffffffffff\n", "CapEff:\t1ffffffffff\n", "a capability set of 11 digits" },
    { "CapAmb:\t0000000000000000\n", "CapAmb:\t000000000000000g\n", "a capability set with a g" },
    { "NoNewPrivs:\t0\n", "NoNewPrivs:\t2\n", "NoNewPrivs 2" },
    { "NoNewPrivs:\t0\n", "", "no NoNewPrivs line" },
  };
  live_creds l;
  size_t i;
  t_ok(live_creds_parse(good, sizeof good - 1, &l) == 0 && l.c.ngroups == 2 && l.c.groups[1] == 4 &&
       l.c.prm == 0x1ffffffffffull && !l.c.nnp, "control: a status text parses (groups 0 4, full permitted)");
  {
    live_creds e;
    t_ok(live_creds_parse("Groups:\t\n", 9, &e) < 0, "a text without ids is refused");
  }
  for (i = 0; i < sizeof bad / sizeof bad[0]; i++) {
    char text[sizeof good + 64], *at;
    snprintf(text, sizeof text, "%s", good);
    at = strstr(text, bad[i].from);
    memmove(at + strlen(bad[i].to), at + strlen(bad[i].from), strlen(at + strlen(bad[i].from)) + 1);
    memcpy(at, bad[i].to, strlen(bad[i].to));
    t_ok(live_creds_parse(text, strlen(text), &l) < 0, "refused: %s", bad[i].what);
  }
  {
    char text[sizeof good + 8];
    snprintf(text, sizeof text, "%s", good);
    *strstr(text, "Groups:\t0 4 \n") = 0;
    strcat(text, "Groups:\t\n");  /* no group at all */
    strcat(text, strstr(good, "CapInh"));
    t_ok(live_creds_parse(text, strlen(text), &l) == 0 && l.c.ngroups == 0, "an empty Groups line is no group");
  }
}

/* A prediction: root, legacy (full), groups 0. */
static cred_state root_full(void)
{
  cred_state c;
  memset(&c, 0, sizeof c);
  c.ngroups = 1;
  c.groups[0] = 0;
  c.prm = c.eff = c.bnd = 0x1ffffffffffull;
  return c;
}

/* uid 0 in a noroot tree with these capabilities (postfix's master). */
static cred_state noroot(uint64_t caps)
{
  cred_state c = root_full();
  c.inh = c.prm = c.eff = c.bnd = c.amb = caps;
  c.securebits = 0x2f;
  return c;
}

static live_creds as_live(cred_state const *c)
{
  live_creds l;
  memset(&l, 0, sizeof l);
  l.c = *c;
  l.fsuid = c->euid;
  l.fsgid = c->egid;
  return l;
}

static void judge(live_creds const *l, cred_state const *want, enum verdict_result r, int field, char const *what)
{
  verdict v;
  verdict_judge(l, want, &v);
  if (!t_ok(v.result == r && (r != VERDICT_MORE || v.field == field), "%s: %s%s%s", what, result_name(r),
            r == VERDICT_MORE ? " on " : "", r == VERDICT_MORE ? verdict_field_names[field] : ""))
    printf("#   got %s%s%s (live %s, predicted %s)\n", result_name(v.result), v.field >= 0 ? " on " : "",
           v.field >= 0 ? verdict_field_names[v.field] : "", v.live, v.want);
}

static void judgements(void)
{
  cred_state want = root_full(), pf = noroot(BIT(CAP_SETUID) | BIT(CAP_SETGID) | BIT(CAP_SYS_CHROOT) | BIT(CAP_NET_BIND_SERVICE));
  live_creds l;
  verdict v;

  l = as_live(&want);
  judge(&l, &want, VERDICT_SAME, -1, "the prediction itself");
  l.c.groups[0] = 0;
  l.c.ngroups = 0;
  judge(&l, &want, VERDICT_DROPPED, -1, "sshd: no supplementary group where 0 was predicted");
  verdict_judge(&l, &want, &v);
  t_ok(v.differ == 1u << VF_GROUPS, "... and Groups is the one field that differs (0x%x)", v.differ);

  /* groups */
  {
    cred_state w = noroot(BIT(CAP_NET_BIND_SERVICE));
    w.ruid = w.euid = w.suid = 33;
    w.rgid = w.egid = w.sgid = 33;
    w.groups[0] = 33;
    l = as_live(&w);
    l.c.groups[l.c.ngroups++] = 4;
    judge(&l, &w, VERDICT_MORE, VF_GROUPS, "one more group, without cap_setgid");
    w.prm |= BIT(CAP_SETGID);
    l.c.prm |= BIT(CAP_SETGID);
    l.c.eff = w.eff;
    judge(&l, &w, VERDICT_DROPPED, -1, "control: the same group, with cap_setgid predicted");
  }
  /* ids */
  {
    cred_state w = root_full();
    w.prm = w.eff = w.bnd = BIT(CAP_NET_BIND_SERVICE);
    w.ruid = w.euid = w.suid = 33;
    l = as_live(&w);
    l.c.euid = l.fsuid = 34;
    judge(&l, &w, VERDICT_MORE, VF_UID, "euid 34 where 33 was predicted, without cap_setuid");
    w.suid = 34;
    judge(&l, &w, VERDICT_DROPPED, -1, "control: euid 34 when the saved uid is 34");
    w.suid = 33;
    l.fsuid = 33;
    l.c.euid = 33;
    judge(&l, &w, VERDICT_SAME, -1, "control: back to 33");
    l.fsuid = 0;
    judge(&l, &w, VERDICT_MORE, VF_UID, "fsuid 0 alone, without cap_setuid");
    l.fsuid = 33;
    l.c.egid = l.fsgid = 5;
    judge(&l, &w, VERDICT_MORE, VF_GID, "egid 5 without cap_setgid");
  }
  /* postfix: uid 0 noroot with setuid and setgid; a child as postfix */
  l = as_live(&pf);
  judge(&l, &pf, VERDICT_SAME, -1, "postfix's master: as predicted");
  l.c.ruid = l.c.euid = l.c.suid = l.fsuid = 107;
  l.c.rgid = l.c.egid = l.c.sgid = l.fsgid = 113;
  l.c.groups[0] = 113;
  l.c.prm = l.c.eff = l.c.amb = 0;
  judge(&l, &pf, VERDICT_DROPPED, -1, "postfix's smtpd: switched to postfix with cap_setuid, no capability left");
  l.c.eff = BIT(CAP_SYS_CHROOT);
  judge(&l, &pf, VERDICT_DROPPED, -1, "... holding cap_sys_chroot in CapEff but not CapPrm is still within the prediction");
  l.c.eff = BIT(CAP_SYS_ADMIN);
  judge(&l, &pf, VERDICT_MORE, VF_CAPEFF, "... cap_sys_admin in CapEff: more");

  /* capability sets */
  {
    cred_state w = noroot(BIT(CAP_NET_BIND_SERVICE));
    l = as_live(&w);
    l.c.eff = 0;
    judge(&l, &w, VERDICT_DROPPED, -1, "an empty effective set");
    l.c.eff = BIT(CAP_NET_RAW);
    judge(&l, &w, VERDICT_MORE, VF_CAPEFF, "cap_net_raw effective, outside the permitted set");
    l = as_live(&w);
    l.c.prm |= BIT(CAP_NET_RAW);
    judge(&l, &w, VERDICT_MORE, VF_CAPPRM, "cap_net_raw permitted");
    l = as_live(&w);
    l.c.bnd |= BIT(CAP_NET_RAW);
    judge(&l, &w, VERDICT_MORE, VF_CAPBND, "cap_net_raw in the bounding set");
    l = as_live(&w);
    l.c.bnd = 0;
    judge(&l, &w, VERDICT_DROPPED, -1, "control: an empty bounding set");
    l = as_live(&w);
    l.c.amb |= BIT(CAP_NET_RAW);
    judge(&l, &w, VERDICT_MORE, VF_CAPAMB, "cap_net_raw ambient");
    l = as_live(&w);
    l.c.amb = 0;
    judge(&l, &w, VERDICT_DROPPED, -1, "control: no ambient capability");
    /* inheritable: from the permitted set; from the bounding set with setpcap */
    w.inh = w.amb = 0;
    w.bnd |= BIT(CAP_NET_RAW);
    l = as_live(&w);
    l.c.inh = BIT(CAP_NET_BIND_SERVICE);
    judge(&l, &w, VERDICT_DROPPED, -1, "inheritable raised from the permitted set");
    l.c.inh = BIT(CAP_NET_RAW);
    judge(&l, &w, VERDICT_MORE, VF_CAPINH, "inheritable cap_net_raw, in the bounding set but not permitted");
    w.prm |= BIT(CAP_SETPCAP);
    l.c.prm = w.prm;
    judge(&l, &w, VERDICT_DROPPED, -1, "control: the same with cap_setpcap permitted");
  }
  /* no_new_privs */
  {
    cred_state w = root_full();
    l = as_live(&w);
    l.c.nnp = 1;
    judge(&l, &w, VERDICT_DROPPED, -1, "no_new_privs set by the daemon (chronyd's seccomp)");
    w.nnp = 1;
    l.c.nnp = 0;
    judge(&l, &w, VERDICT_MORE, VF_NNP, "no_new_privs predicted, not set");
  }
  /* the text of a difference */
  {
    cred_state w = noroot(BIT(CAP_NET_BIND_SERVICE));
    l = as_live(&w);
    l.c.prm = BIT(CAP_NET_BIND_SERVICE) | BIT(CAP_NET_RAW);
    verdict_judge(&l, &w, &v);
    t_ok(!strcmp(v.live, "0000000000002400") && !strcmp(v.want, "0000000000000400"),
         "a difference is shown as /proc writes it (%s, %s)", v.live, v.want);
  }
}

int main(void)
{
  own_status();
  parsing();
  judgements();
  return t_done();
}

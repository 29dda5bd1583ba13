/* capctl/capctl_explain.c -- `capctl explain`: read what the prediction
 * needs (the launcher's credentials, the command's file, the kernel's
 * rules), let inspect/explain.c predict, print it as text or JSON.
 *
 * The launcher is capctl itself: run it with capinit's credentials (root,
 * full capabilities) to predict what capinit will start. */
#include <errno.h>
#include <sched.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <sys/xattr.h>
#include <unistd.h>
#include <arpa/inet.h>
#include <linux/capability.h>

#include <skalibs/strerr.h>

#include "../conf/diag.h"
#include "../inspect/explain.h"
#include "../conf/names.h"
#include "../conf/svc.h"
#include "../conf/syscalls.h"
#include "capctl.h"
#include "../conf/control_verbs.h"
#include "../inspect/creds.h"
#include "../engine/privilege.h"

static char const *rule_name(enum setgid_rule r)
{
  return r == SETGID_RULE_KEEPS ? "keeps" : r == SETGID_RULE_CLEARS ? "clears" : "unknown";
}

void json_string(FILE *f, char const *s)
{
  fputc('"', f);
  for (; *s; s++) {
    unsigned char c = (unsigned char)*s;
    if (c == '"' || c == '\\') fprintf(f, "\\%c", c);
    else if (c < 0x20) fprintf(f, "\\u%04x", c);
    else fputc(c, f);
  }
  fputc('"', f);
}

static int cmp_u32(void const *a, void const *b)
{
  uint32_t x = *(uint32_t const *)a, y = *(uint32_t const *)b;
  return x < y ? -1 : x > y;
}

static void json_bool(FILE *f, char const *key, int v)
{
  fprintf(f, "      \"%s\": %s,\n", key, v ? "true" : "false");
}

/* "key": ["path", ...] of the container's object */
static void json_paths(FILE *f, char const *key, ct_path const *v, size_t n)
{
  size_t i;
  fprintf(f, "      \"%s\": [", key);
  for (i = 0; i < n; i++) {
    fprintf(f, "%s", i ? ", " : "");
    json_string(f, v[i].path);
  }
  fprintf(f, "],\n");
}

/* "listen": each socket's address and descriptor */
static void print_json_listen(FILE *f, svc_container const *ct)
{
  size_t i;
  fprintf(f, "    \"listen\": [");
  for (i = 0; ct && i < ct->nlisten; i++) {
    fprintf(f, "%s{\"address\": ", i ? ", " : "");
    json_string(f, ct->listen[i].text);
    fprintf(f, ", \"fd\": %d}", CT_LISTEN_FD + (int)i);
  }
  fprintf(f, "],\n");
}

/* "card": null, or the card of its own: kind, parent, interface, address
 * (A/PREFIX), gateway (or null) */
static void print_json_card(FILE *f, svc_container const *ct)
{
  char a[INET_ADDRSTRLEN], g[INET_ADDRSTRLEN];
  fprintf(f, ",\n      \"card\": ");
  if (!container_card(ct)) {
    fprintf(f, "null");
    return;
  }
  inet_ntop(AF_INET, &ct->address, a, sizeof a);
  inet_ntop(AF_INET, &ct->gateway, g, sizeof g);
  fprintf(f, "{\"kind\": \"%s\", \"parent\": ", ct->network == NET_IPVLAN ? "ipvlan" : "macvlan");
  json_string(f, ct->parent);
  fprintf(f, ", \"interface\": \"%s\", \"address\": \"%s/%u\", \"gateway\": ", CT_CARD_NAME, a, ct->prefix);
  if (ct->gateway.s_addr) fprintf(f, "\"%s\"}", g);
  else fprintf(f, "null}");
}

/* "listen", then "container": what the service's own namespaces and tree
 * are; null when it has none (the same values as an empty container). */
static void print_json_container(FILE *f, svc_container const *ct)
{
  char opts[256], net[128];
  int first = 1;
  size_t i;
  print_json_listen(f, ct);
  if (!container_view(ct)) {
    fprintf(f, "    \"container\": null,\n");
    return;
  }
  fprintf(f, "    \"container\": {\n      \"namespaces\": [");
  for (i = 0; i < container_ns_kinds_n; i++) {
    if (!container_ns_kinds[i].own(ct)) continue;
    fprintf(f, "%s\"%s\"", first ? "" : ", ", container_ns_kinds[i].name);
    first = 0;
  }
  fprintf(f, "],\n");
  json_bool(f, "read_only", container_read_only(ct));
  json_paths(f, "read_write", ct->rw, ct->nrw);
  fprintf(f, "      \"binds\": [");
  for (i = 0; i < ct->nbinds; i++) {
    fprintf(f, "%s{\"src\": ", i ? ", " : "");
    json_string(f, ct->binds[i].src);
    fprintf(f, ", \"dst\": ");
    json_string(f, ct->binds[i].dst);
    fprintf(f, ", \"read_only\": %s}", ct->binds[i].ro ? "true" : "false");
  }
  fprintf(f, "],\n      \"root_directory\": ");
  if (ct->root) json_string(f, ct->root);
  else fprintf(f, "null");
  fprintf(f, ",\n");
  json_bool(f, "private_tmp", container_own_tmp(ct));
  json_bool(f, "private_pids", container_own_pids(ct));
  /* its own /proc: the mount's options, or null for capinit's */
  fprintf(f, "      \"proc\": ");
  if (container_own_proc(ct)) json_string(f, container_proc_text(ct, opts, sizeof opts));
  else fprintf(f, "null");
  fprintf(f, ",\n");
  json_bool(f, "private_devices", container_own_dev(ct));
  json_paths(f, "devices", ct->devices, ct->ndevices);
  json_bool(f, "nosuid", container_nosuid(ct));
  fprintf(f, "      \"network\": ");
  /* the key's own word: netns:NAME, NAME the file's in CT_NETNS_DIR */
  fprintf(f, "\"%s\"", vocab_format(network_names, (int)ct->network,
                                     ct->parent ? ct->parent : ct->netns ? strrchr(ct->netns, '/') + 1 : "", net, sizeof net));
  print_json_card(f, ct);
  fprintf(f, ",\n      \"hostname\": ");
  if (ct->hostname) json_string(f, ct->hostname);
  else fprintf(f, "null");
  fprintf(f, ",\n      \"private_ipc\": %s\n    },\n", ct->private_ipc ? "true" : "false");
}

/* "filter": null, or what it does: user_namespaces, denied groups */
static void print_json_filter(FILE *f, svc const *s)
{
  int g, n = 0;
  if (!syscalls_filtered(s->syscalls_deny, s->user_namespaces, s->suid_refused)) {
    fprintf(f, "    \"filter\": null,\n");
    return;
  }
  fprintf(f, "    \"filter\": {\"user_namespaces\": %s, \"set_id_modes\": %s, \"denied\": [",
          s->user_namespaces ? "true" : "false", s->suid_refused ? "false" : "true");
  for (g = 0; g < SG_COUNT; g++) {
    if (!(s->syscalls_deny & (1u << g))) continue;
    fprintf(f, "%s", n++ ? ", " : "");
    json_string(f, syscall_groups[g].name);
  }
  fprintf(f, "]},\n");
}

/* "escapes": the capabilities that open a way out of its container */
static void print_json_escapes(FILE *f, svc const *s)
{
  char name[64];
  size_t i;
  int n = 0;
  fprintf(f, "    \"escapes\": [");
  for (i = 0; i < container_escapes_n; i++) {
    if (!container_escape(s, container_escapes[i].cap)) continue;
    fprintf(f, "%s", n++ ? ", " : "");
    json_string(f, cap_name((unsigned)container_escapes[i].cap, name, sizeof name));
  }
  fprintf(f, "],\n");
}

static void print_json(FILE *f, svc const *s, char const *target, prediction *p, int last)
{
  cred_state *a = &p->after;
  size_t i;
  qsort(a->groups, a->ngroups, sizeof a->groups[0], cmp_u32);
  fprintf(f, "  {\n    \"name\": ");
  json_string(f, strcmp(s->file, "-k") ? s->name : "");
  fprintf(f, ",\n    \"file\": ");
  json_string(f, s->file);
  fprintf(f, ",\n    \"command\": ");
  json_string(f, target ? target : "");
  fprintf(f, ",\n    \"launch\": \"%s\",\n", p->refused ? "refused" : "ok");
  if (p->refused) {
    fprintf(f, "    \"stage\": \"%s\",\n    \"reason\": ", p->stage == STAGE_NONE ? "spec" : stage_name(p->stage));
    json_string(f, p->reason);
    fprintf(f, ",\n");
  }
  fprintf(f, "    \"uid\": %u,\n    \"euid\": %u,\n    \"suid\": %u,\n", a->ruid, a->euid, a->suid);
  fprintf(f, "    \"gid\": %u,\n    \"egid\": %u,\n    \"sgid\": %u,\n", a->rgid, a->egid, a->sgid);
  fprintf(f, "    \"groups\": [");
  for (i = 0; i < a->ngroups; i++) fprintf(f, "%s%u", i ? ", " : "", a->groups[i]);
  fprintf(f, "],\n");
  fprintf(f, "    \"securebits\": %u,\n", a->securebits);
  fprintf(f, "    \"cap_inh\": \"%016" PRIx64 "\",\n", a->inh);
  fprintf(f, "    \"cap_prm\": \"%016" PRIx64 "\",\n", a->prm);
  fprintf(f, "    \"cap_eff\": \"%016" PRIx64 "\",\n", a->eff);
  fprintf(f, "    \"cap_bnd\": \"%016" PRIx64 "\",\n", a->bnd);
  fprintf(f, "    \"cap_amb\": \"%016" PRIx64 "\",\n", a->amb);
  fprintf(f, "    \"no_new_privs\": %s,\n", a->nnp ? "true" : "false");
  fprintf(f, "    \"at_secure\": %s,\n", p->at_secure ? "true" : "false");
  print_json_container(f, s->ct);
  print_json_filter(f, s);
  /* a session keyring of its own, always; the user keyring (@u) of its
   * uid, shared with that uid's every process unless the filter denies
   * the keyring calls */
  fprintf(f, "    \"keyring\": {\"session\": \"own\", \"user\": \"%s\"},\n",
          s->syscalls_deny & (1u << SG_KEYRING) ? "denied" : "shared");
  print_json_escapes(f, s);
  fprintf(f, "    \"exposure\": [");
  for (i = 0; i < p->nexposure; i++) {
    fprintf(f, "%s\n      ", i ? "," : "");
    json_string(f, p->exposure[i]);
  }
  fprintf(f, "%s]\n  }%s\n", p->nexposure ? "\n    " : "", last ? "" : ",");
}

/* A set as names; a large one as "all" or "all except ...". */
static char *set_text(uint64_t set, unsigned last_cap, char *buf, size_t len)
{
  uint64_t all = last_cap >= 63 ? UINT64_MAX : ((uint64_t)1 << (last_cap + 1)) - 1;
  size_t n;
  if ((set & all) == all) {
    snprintf(buf, len, "all");
  } else if (__builtin_popcountll(set & all) > __builtin_popcountll(all) / 2) {
    n = (size_t)snprintf(buf, len, "all except ");
    if (n < len) caps_format(all & ~set, buf + n, len - n);
  } else {
    caps_format(set, buf, len);
  }
  return buf;
}

static void print_text(FILE *f, svc const *s, char const *target, prediction *p, unsigned last_cap)
{
  cred_state *a = &p->after;
  char buf[1024];
  size_t i;
  qsort(a->groups, a->ngroups, sizeof a->groups[0], cmp_u32);
  if (!strcmp(s->file, "-k")) fprintf(f, "the spec given with -k\n");
  else fprintf(f, "%s (%s)\n", s->name[0] ? s->name : s->file, s->file);
  fprintf(f, "  command      %s\n", target ? target : "(none)");
  if (p->refused) {
    fprintf(f, "  launch       REFUSED at stage %s: %s\n\n", p->stage == STAGE_NONE ? "spec" : stage_name(p->stage), p->reason);
    return;
  }
  fprintf(f, "  launch       ok\n");
  fprintf(f, "  uid          %u (euid %u, suid %u)\n", a->ruid, a->euid, a->suid);
  fprintf(f, "  gid          %u (egid %u, sgid %u)\n", a->rgid, a->egid, a->sgid);
  fprintf(f, "  groups      ");
  for (i = 0; i < a->ngroups; i++) fprintf(f, " %u", a->groups[i]);
  fprintf(f, "%s\n", a->ngroups ? "" : " none");
  fprintf(f, "  securebits   %s (0x%x)\n", securebits_format(a->securebits, buf, sizeof buf), a->securebits);
  fprintf(f, "  bounding     %s\n", set_text(a->bnd, last_cap, buf, sizeof buf));
  fprintf(f, "  inheritable  %s\n", set_text(a->inh, last_cap, buf, sizeof buf));
  fprintf(f, "  permitted    %s\n", set_text(a->prm, last_cap, buf, sizeof buf));
  fprintf(f, "  effective    %s\n", set_text(a->eff, last_cap, buf, sizeof buf));
  fprintf(f, "  ambient      %s\n", set_text(a->amb, last_cap, buf, sizeof buf));
  fprintf(f, "  no_new_privs %s\n", a->nnp ? "yes" : "no");
  fprintf(f, "  AT_SECURE    %s\n", p->at_secure ? "yes" : "no");
  for (i = 0; i < p->nexposure; i++) fprintf(f, "  exposure     %s\n", p->exposure[i]);
  fputc('\n', f);
}

#define USAGE "capctl explain [--json] [-c DIR] NAME|FILE... [-- CMD] | capctl explain [--json] -k key=value... -- CMD"

/* What capctl explain was asked: services by NAME or FILE (names), or
 * -k key=value (pairs); the command of -- CMD, or of -k's CMD ARGS. */
typedef struct explain_args_s {
  char const *dir;
  int json;
  char **names, **cmd;
  int nnames;
  char const **pairs;
  size_t npairs;
} explain_args;

/* --json may stand anywhere before "--": taken out of argv */
static int take_json(int argc, char **argv, int *json)
{
  int i, j;
  for (i = 1, j = 1; i < argc; i++) {
    if (!strcmp(argv[i], "--")) {
      while (i < argc) argv[j++] = argv[i++];
      break;
    }
    if (!strcmp(argv[i], "--json")) *json = 1;
    else argv[j++] = argv[i];
  }
  argv[j] = 0;
  return j;
}

/* After the options: NAME|FILE..., then maybe -- CMD ARGS */
static void split_command(explain_args *a, int argc, char **argv)
{
  if (optind > 1 && !strcmp(argv[optind - 1], "--")) {
    /* getopt took the "--": all that follows is the command */
    a->cmd = argv + optind;
    return;
  }
  a->names = argv + optind;
  a->nnames = argc - optind;
  for (int i = 0; i < a->nnames; i++) {
    if (!strcmp(a->names[i], "--")) {
      a->cmd = a->names + i + 1;
      a->nnames = i;
      break;
    }
  }
  if (a->npairs && a->nnames) {
    /* as capexec: -k key=value... CMD ARGS, without "--" */
    a->cmd = a->names;
    a->nnames = 0;
  }
}

/* 1: --help answered; 0: a is filled (usage errors die). */
static int explain_arguments(int argc, char **argv, explain_args *a)
{
  int c;
  memset(a, 0, sizeof *a);
  a->dir = "/etc/capinit";
  if (argc > 1 && !strcmp(argv[1], "--help")) {
    explain_help();
    return 1;
  }
  argc = take_json(argc, argv, &a->json);
  a->pairs = calloc((size_t)argc + 1, sizeof *a->pairs);
  if (!a->pairs) strerr_diefu1sys(111, "allocate memory");
  while ((c = getopt(argc, argv, "+c:k:h")) != -1) {
    switch (c) {
      case 'c': a->dir = optarg; break;
      case 'k': a->pairs[a->npairs++] = optarg; break;
      case 'h': explain_help(); return 1;
      default: strerr_dieusage(100, USAGE);
    }
  }
  split_command(a, argc, argv);
  if (!a->nnames && !a->npairs) strerr_dieusage(100, USAGE);
  if (a->nnames && a->npairs) strerr_dief1x(100, "use NAME|FILE or -k key=value, not both");
  if (a->cmd && (!*a->cmd || a->cmd[0][0] != '/')) strerr_dief1x(100, "the command must be an absolute path");
  return 0;
}

/* A card's file is judged beside the others of its directory, as check
 * judges them: the same address on the same PARENT is warned. */
static void explain_siblings_warn(conf_ctx *ctx, svc const *s)
{
  diag_list scratch = { 0, 0, 0 };
  conf_ctx quiet = *ctx;
  svc_set set = { 0, 0 };
  char dir[4096];
  char const *slash = s->file ? strrchr(s->file, '/') : 0;
  if (!container_card(s->ct) || !slash) return;
  snprintf(dir, sizeof dir, "%.*s", (int)(slash - s->file), s->file);
  quiet.diags = &scratch;
  if (svc_set_load_services(&quiet, &set, dir) == 0) svc_address_warn(ctx, s, &set);
  svc_set_free(&set);
  diag_free(&scratch);
}

/* The services asked for (their problems printed); *n of them. */
static svc **explain_load(explain_args const *a, size_t *n)
{
  diag_list diags = { 0, 0, 0 };
  /* the file's own command is required unless another one is given */
  conf_ctx ctx = { .root = "/", .diags = &diags, .command_optional = a->npairs || a->cmd, .live = 0 };
  svc **chosen = calloc((size_t)a->nnames + 1, sizeof *chosen);
  if (!chosen) strerr_diefu1sys(111, "allocate memory");
  *n = 0;
  if (a->npairs) chosen[(*n)++] = svc_load_pairs(&ctx, "-k", a->pairs, a->npairs);
  for (int i = 0; i < a->nnames; i++) {
    char const *x = a->names[i];
    char path[4096];
    if (strchr(x, '/') || (strlen(x) > 4 && !strcmp(x + strlen(x) - 4, ".svc"))) {
      chosen[(*n)++] = svc_load_file(&ctx, x);
      continue;
    }
    if (!svc_name_valid(x)) strerr_dief3x(100, "invalid service name '", x, "'");
    snprintf(path, sizeof path, "%s/services/%s.svc", a->dir, x);
    chosen[(*n)++] = svc_load_file(&ctx, path);
  }
  for (size_t i = 0; i < *n; i++) explain_siblings_warn(&ctx, chosen[i]);
  diag_sort(&diags);
  diag_print(&diags, "capctl", 2);
  diag_free(&diags);
  return chosen;
}

/* A stage refused because the launcher's bounding set lacks its
 * capability (capctl inside capinit's container): in the words of
 * capinit's log, whatever the model's reason (the kernel refuses it for
 * that alone).  1 when it is. */
static int lacks_words(svc const *s, cred_state const *launcher, prediction *p)
{
  return p->refused && priv_lacks_text(p->stage, s, launcher->bnd, p->reason, sizeof p->reason);
}

void explain_check_launch(diag_list *diags, svc_set const *set)
{
  cred_state launcher;
  kernel_facts k = { priv_last_cap(), SETGID_RULE_UNKNOWN };
  exec_target t;
  prediction p;
  size_t i;
  if (creds_launcher(&launcher) < 0) return;
  /* the engine's stages only: any executable file will do */
  memset(&t, 0, sizeof t);
  t.path = "";
  t.mode = S_IFREG | 0755;
  for (i = 0; i < set->n; i++) {
    if (set->v[i]->refused) continue;
    explain_predict(set->v[i], &launcher, &t, &k, &p);
    if (lacks_words(set->v[i], &launcher, &p))
      diag_add(diags, DIAG_WARNING, set->v[i]->file, 0, "start would fail at stage %s: %s", stage_name(p.stage), p.reason);
  }
}

int explain_main(int argc, char **argv)
{
  explain_args a;
  cred_state launcher;
  kernel_facts k;
  int any_refused = 0, detected = 0;
  svc **chosen;
  size_t n, j;

  if (explain_arguments(argc, argv, &a)) return 0;
  chosen = explain_load(&a, &n);
  if (creds_launcher(&launcher) < 0) strerr_diefu1sys(111, "read this process's credentials");
  k.last_cap = priv_last_cap();
  k.setgid_rule = SETGID_RULE_UNKNOWN;
  if (a.json) printf("[\n");
  for (j = 0; j < n; j++) {
    svc *s = chosen[j];
    char const *target = a.cmd ? a.cmd[0] : s->argv ? s->argv[0] : 0;
    exec_target t;
    prediction p;
    creds_target_view(s->ct, target ? target : "", &t);
    if (!target) t.err = ENOENT;
    if (!detected && explain_needs_setgid_rule(s, &launcher, &t)) {
      k.setgid_rule = creds_setgid_rule();
      detected = 1;
    }
    explain_predict(s, &launcher, &t, &k, &p);
    lacks_words(s, &launcher, &p);
    any_refused |= p.refused;
    if (a.json) print_json(stdout, s, target, &p, j + 1 == n);
    else print_text(stdout, s, target, &p, k.last_cap);
  }
  if (a.json) printf("]\n");
  if (detected && !a.json && k.setgid_rule != SETGID_RULE_UNKNOWN)
    printf("kernel: exec of a setgid file whose group is one of the process's groups %s ambient capabilities (detected on this kernel)\n",
           rule_name(k.setgid_rule));
  for (j = 0; j < n; j++) svc_free(chosen[j]);
  free(chosen);
  free(a.pairs);
  return any_refused ? 1 : 0;
}

/* Unit test: docs/capinit.svc.5.scd documents exactly the keys of the two
 * key tables (svc_keys[], capinit_conf_keys[]) and every rlimit and
 * securebit name, so that the page cannot drift from the language.
 *
 * How the page documents a key, the rule this test reads it by:
 *   - a section runs from its header line ("# KEYS", "# CAPINIT.CONF") to
 *     the next "# " header; its "## " subsections belong to it;
 *   - a key is a definition term: a line that is exactly "*name*", at the
 *     start of the line, name made of letters, digits and '-';
 *   - lines inside ``` literal blocks are never terms or headers;
 *   - a prefix key is documented as the prefix and "NAME" (rlimit-NAME);
 *   - a term's text runs to the next term or to the end of its section.
 *
 * Runs with the repository root as the current directory. */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../conf/keys.h"
#include "../../conf/names.h"
#include "../../conf/syscalls.h"
#include "t.h"

#define PAGE "docs/capinit.svc.5.scd"
#define TERMS_MAX 128
#define NAME_LEN 64

typedef struct terms_s {
  int found;                     /* the section header was seen */
  size_t n;
  char name[TERMS_MAX][NAME_LEN];
  char const *text[TERMS_MAX];   /* from the term line on */
  size_t len[TERMS_MAX];
} terms;

static char *slurp(char const *path)
{
  FILE *f = fopen(path, "r");
  char *buf = 0;
  size_t len = 0, cap = 0, r;
  if (!f) return 0;
  do {
    if (cap - len < 4096) {
      cap = cap ? 2 * cap : 65536;
      buf = realloc(buf, cap + 1);
      if (!buf) abort();
    }
    r = fread(buf + len, 1, cap - len, f);
    len += r;
  } while (r);
  fclose(f);
  buf[len] = 0;
  return buf;
}

static int is_term(char const *line, size_t n, char *name)
{
  size_t i;
  if (n < 3 || n - 2 >= NAME_LEN || line[0] != '*' || line[n - 1] != '*') return 0;
  for (i = 1; i < n - 1; i++)
    if (!isalnum((unsigned char)line[i]) && line[i] != '-') return 0;
  memcpy(name, line + 1, n - 2);
  name[n - 2] = 0;
  return 1;
}

/* The definition terms of the section whose header line is header. */
static void section_terms(char const *page, char const *header, terms *t)
{
  char const *line = page, *end;
  int inside = 0, literal = 0;
  size_t hlen = strlen(header);
  memset(t, 0, sizeof *t);
  for (; *line; line = *end ? end + 1 : end) {
    size_t n;
    char name[NAME_LEN];
    end = strchr(line, '\n');
    if (!end) end = line + strlen(line);
    n = (size_t)(end - line);
    if (n >= 3 && !strncmp(line, "```", 3)) {
      literal = !literal;
      continue;
    }
    if (literal) continue;
    if (n >= 2 && !strncmp(line, "# ", 2)) {
      if (inside) break;
      inside = n == hlen && !strncmp(line, header, hlen);
      t->found |= inside;
      continue;
    }
    if (!inside) continue;
    if (is_term(line, n, name) && t->n < TERMS_MAX) {
      strcpy(t->name[t->n], name);
      t->text[t->n] = line;
      t->len[t->n] = 0;
      t->n++;
    }
    /* the current term's text grows to the end of this line */
    if (t->n) t->len[t->n - 1] = (size_t)(end - t->text[t->n - 1]);
  }
}

static void append(char *msg, size_t cap, char const *what, char const *name)
{
  size_t len = strlen(msg);
  snprintf(msg + len, cap - len, "%s%s '%s'", len ? "; " : "", what, name);
}

/* The documented names against the wanted ones: every mismatch is named
 * in msg; returns the number of mismatches. */
static unsigned compare(terms const *t, char want[][NAME_LEN], size_t nwant,
                        char *msg, size_t cap)
{
  unsigned bad = 0;
  size_t i, j;
  msg[0] = 0;
  for (i = 0; i < nwant; i++) {
    size_t seen = 0;
    for (j = 0; j < t->n; j++) seen += !strcmp(t->name[j], want[i]);
    if (seen != 1) {
      append(msg, cap, seen ? "documented twice:" : "undocumented", want[i]);
      bad++;
    }
  }
  for (j = 0; j < t->n; j++) {
    for (i = 0; i < nwant && strcmp(t->name[j], want[i]); i++) {}
    if (i == nwant) {
      append(msg, cap, "not a key:", t->name[j]);
      bad++;
    }
  }
  if (!bad) snprintf(msg, cap, "%zu keys", nwant);
  return bad;
}

/* The names a key table documents: a prefix key as PREFIX + "NAME". */
static size_t table_names(conf_key const *keys, size_t n, char out[][NAME_LEN])
{
  size_t i;
  for (i = 0; i < n && i < TERMS_MAX; i++)
    snprintf(out[i], NAME_LEN, "%s%s", keys[i].name, keys[i].flags & KEY_PREFIX ? "NAME" : "");
  return i;
}

static int name_char(char c)
{
  return isalnum((unsigned char)c) || c == '-' || c == '_';
}

/* word occurs in s[0..len) as a whole name: "keep-caps" does not occur in
 * "keep-caps-locked". */
static int has_word(char const *s, size_t len, char const *word)
{
  size_t w = strlen(word), i;
  for (i = 0; i + w <= len; i++)
    if (!memcmp(s + i, word, w) && (i == 0 || !name_char(s[i - 1])) &&
        (i + w == len || !name_char(s[i + w])))
      return 1;
  return 0;
}

/* The index of a term, or t->n. */
static size_t term_index(terms const *t, char const *name)
{
  size_t k;
  for (k = 0; k < t->n && strcmp(t->name[k], name); k++) {}
  return k;
}

/* Every name of a vocabulary occurs in the text of one term; the missing
 * ones are named in msg.  Returns how many are missing (-1: no such term). */
static int vocabulary_in_item(terms const *t, char const *term, char const *const *names,
                              size_t n, char *msg, size_t cap)
{
  size_t k, i;
  int missing = 0;
  msg[0] = 0;
  k = term_index(t, term);
  if (k == t->n) {
    snprintf(msg, cap, "no term '%s'", term);
    return -1;
  }
  for (i = 0; i < n; i++) {
    if (has_word(t->text[k], t->len[k], names[i])) continue;
    append(msg, cap, "missing", names[i]);
    missing++;
  }
  if (!missing) snprintf(msg, cap, "all %zu names", n);
  return missing;
}

static char want_svc[TERMS_MAX][NAME_LEN], want_conf[TERMS_MAX][NAME_LEN];
static size_t nwant_svc, nwant_conf;
static char const *rlimits[64], *securebits[64];
static char msg[4096];

static void page_against_tables(char const *page)
{
  terms t;
  int r;

  section_terms(page, "# KEYS", &t);
  t_ok(t.found, "the page has a '# KEYS' section");
  t_ok(compare(&t, want_svc, nwant_svc, msg, sizeof msg) == 0,
       "documented service-file keys = svc_keys[]: %s", msg);
  t_ueq(t.n, svc_keys_n, "one term per service-file key");

  r = vocabulary_in_item(&t, "rlimit-NAME", rlimits, rlimit_names_n, msg, sizeof msg);
  t_ok(r == 0, "rlimit-NAME lists every name of rlimit_names[]: %s", msg);
  r = vocabulary_in_item(&t, "securebits", securebits, securebit_names_n, msg, sizeof msg);
  t_ok(r == 0, "securebits lists every name of securebit_names[]: %s", msg);

  section_terms(page, "# CAPINIT.CONF", &t);
  t_ok(t.found, "the page has a '# CAPINIT.CONF' section");
  t_ok(compare(&t, want_conf, nwant_conf, msg, sizeof msg) == 0,
       "documented capinit.conf keys = capinit_conf_keys[]: %s", msg);
}

/* A small page in the real page's shape, from the table, with one key left
 * out (skip), and extra lines added at the end of the KEYS section. */
static char *fake_page(char const *skip, char const *extra)
{
  size_t cap = 65536, len = 0, i;
  char *p = malloc(cap);
  if (!p) abort();
  len += (size_t)snprintf(p + len, cap - len, "x(5)\n\n# NAME\n\nx\n\n# KEYS\n\n## Some\n\n");
  for (i = 0; i < nwant_svc; i++) {
    if (skip && !strcmp(want_svc[i], skip)) continue;
    len += (size_t)snprintf(p + len, cap - len, "*%s*\n\tText about *%s*.\n\n", want_svc[i], want_svc[i]);
  }
  len += (size_t)snprintf(p + len, cap - len, "%s\n# CAPINIT.CONF\n\n", extra ? extra : "");
  for (i = 0; i < nwant_conf; i++)
    len += (size_t)snprintf(p + len, cap - len, "*%s*\n\tText.\n\n", want_conf[i]);
  snprintf(p + len, cap - len, "# EXAMPLES\n\n```\n# KEYS\n*bogus*\n```\n");
  return p;
}

static void controls(void)
{
  char const *skip = want_svc[nwant_svc / 2];
  char want_msg[256], extra[512];
  terms t;
  char *p;

  p = fake_page(0, 0);
  section_terms(p, "# KEYS", &t);
  t_ok(compare(&t, want_svc, nwant_svc, msg, sizeof msg) == 0,
       "control: a complete fake page passes: %s", msg);
  section_terms(p, "# CAPINIT.CONF", &t);
  t_ok(compare(&t, want_conf, nwant_conf, msg, sizeof msg) == 0,
       "control: its capinit.conf section passes: %s", msg);
  free(p);

  p = fake_page(skip, 0);
  section_terms(p, "# KEYS", &t);
  snprintf(want_msg, sizeof want_msg, "undocumented '%s'", skip);
  t_ok(compare(&t, want_svc, nwant_svc, msg, sizeof msg) == 1 && !strcmp(msg, want_msg),
       "control: a page without '%s' is caught: %s", skip, msg);
  free(p);

  /* a key only in a literal block, indented, or in bold inside a sentence
   * is not documented */
  snprintf(extra, sizeof extra, "```\n*%s*\n```\n\t*%s*\nSee *%s* here.\n", skip, skip, skip);
  p = fake_page(skip, extra);
  section_terms(p, "# KEYS", &t);
  t_ok(compare(&t, want_svc, nwant_svc, msg, sizeof msg) == 1 && !strcmp(msg, want_msg),
       "control: literal, indented and inline mentions are not terms: %s", msg);
  free(p);

  p = fake_page(0, "*bogus-key*\n\ttext\n\n*type*\n\tagain\n");
  section_terms(p, "# KEYS", &t);
  t_ok(compare(&t, want_svc, nwant_svc, msg, sizeof msg) == 2 &&
       !strcmp(msg, "documented twice: 'type'; not a key: 'bogus-key'"),
       "control: an extra and a repeated key are caught: %s", msg);
  free(p);

  section_terms("# OTHER\n*type*\n", "# KEYS", &t);
  t_ok(!t.found && t.n == 0, "control: a page without the section has no terms");

  {
    static char const text[] =
      "*securebits*\n\t*keep-caps-locked*, *noroot-locked* and *rttimes*\n";
    terms one;
    char const *names[] = { "keep-caps", "noroot", "rttime", "keep-caps-locked" };
    memset(&one, 0, sizeof one);
    one.n = 1;
    strcpy(one.name[0], "securebits");
    one.text[0] = text;
    one.len[0] = sizeof text - 1;
    t_ok(vocabulary_in_item(&one, "securebits", names, 4, msg, sizeof msg) == 3 &&
         !strcmp(msg, "missing 'keep-caps'; missing 'noroot'; missing 'rttime'"),
         "control: a name is found only as a whole word: %s", msg);
    t_ok(vocabulary_in_item(&one, "rlimit-NAME", names, 4, msg, sizeof msg) == -1,
         "control: a missing term is caught: %s", msg);
  }
}

/* Each table row sits at its key id (designated initializers): a row
 * left out would be a zero row with no name. */
static void rows_at_their_ids(conf_key const *keys, size_t n, char const *what)
{
  size_t bad = 0, i;
  for (i = 0; i < n; i++) bad += !keys[i].name || !keys[i].set || keys[i].id != (int)i;
  t_ok(n > 0 && !bad, "%s: each of the %zu rows has a name and a handler and sits at its id (%zu do not)", what, n, bad);
}

/* The system-call groups' table of the page: one row per group of
 * syscall_groups[] ("|  *@name*", then the calls, then the capability
 * that allows it by default, or "-"), and no other row.  Returns the
 * number of mismatches, named in msg. */
static unsigned groups_table(char const *page, char *out, size_t cap)
{
  unsigned bad = 0, rows = 0;
  char const *line;
  int g;
  out[0] = 0;
  for (line = strstr(page, "\n|  *@"); line; line = strstr(line + 1, "\n|  *@")) rows++;
  for (g = 0; g < SG_COUNT; g++) {
    char row[96], capline[96], capname[64];
    char const *at, *third;
    snprintf(row, sizeof row, "\n|  *%s*\n", syscall_groups[g].name);
    at = strstr(page, row);
    if (!at || strstr(at + 1, row)) {
      append(out, cap, at ? "listed twice:" : "not listed", syscall_groups[g].name);
      bad++;
      continue;
    }
    third = strchr(at + strlen(row), '\n');  /* the end of the calls' line */
    if (syscall_groups[g].cap < 0) snprintf(capname, sizeof capname, "-");
    else cap_name((unsigned)syscall_groups[g].cap, capname, sizeof capname);
    snprintf(capline, sizeof capline, "\n:  %s\n", capname);
    if (!third || strncmp(third, capline, strlen(capline))) {
      append(out, cap, "wrong capability for", syscall_groups[g].name);
      bad++;
    }
  }
  if (rows != SG_COUNT) {
    append(out, cap, "a row that is no group:", "?");
    bad++;
  }
  if (!bad) snprintf(out, cap, "%d groups", SG_COUNT);
  return bad;
}

static void groups_against_page(char const *page)
{
  char *fake, *cut;
  t_ok(groups_table(page, msg, sizeof msg) == 0, "the page's system-call groups = syscall_groups[]: %s", msg);
  /* control: the same page without the row of @keyring */
  fake = strdup(page);
  if (!fake) abort();
  cut = strstr(fake, "\n|  *@keyring*\n");
  if (cut) memcpy(cut + 5, "@xeyring", 8);
  t_ok(cut && groups_table(fake, msg, sizeof msg) == 1 && !strcmp(msg, "not listed '@keyring'"),
       "control: a page whose row is @xeyring is caught: %s", msg);
  free(fake);
}

int main(void)
{
  char *page;
  size_t i;

  rows_at_their_ids(svc_keys, svc_keys_n, "svc_keys");
  rows_at_their_ids(capinit_conf_keys, capinit_conf_keys_n, "capinit_conf_keys");

  nwant_svc = table_names(svc_keys, svc_keys_n, want_svc);
  nwant_conf = table_names(capinit_conf_keys, capinit_conf_keys_n, want_conf);
  for (i = 0; i < rlimit_names_n && i < 64; i++) rlimits[i] = rlimit_names[i].name;
  for (i = 0; i < securebit_names_n && i < 64; i++) securebits[i] = securebit_names[i].name;

  page = slurp(PAGE);
  if (t_ok(page != 0, "read %s (run from the repository root)", PAGE)) {
    page_against_tables(page);
    groups_against_page(page);
  }
  free(page);
  controls();
  return t_done();
}

/* Unit tests: capctl's command line (capctl/capctl_args.c): options
 * before the verb, after it, or both; -h and -V anywhere; wrong usage. */
#include <stdlib.h>

#include "../../capctl/capctl_args.h"
#include "t.h"

#define MAXARGS 16

/* Parse the blank-separated words of line; the result as one line:
 * "VERB ARG...", "help", "version", or "error: ...". */
static char const *run(char const *line)
{
  static char out[512], words[512];
  char *argv[MAXARGS + 1], *save = 0, *w;
  char err[160];
  int argc = 0, i;
  size_t n;
  capctl_args a;
  snprintf(words, sizeof words, "capctl %s", line);
  for (w = strtok_r(words, " ", &save); w && argc < MAXARGS; w = strtok_r(0, " ", &save)) argv[argc++] = w;
  argv[argc] = 0;
  if (capctl_args_parse(argc, argv, &a, err, sizeof err) < 0) {
    snprintf(out, sizeof out, "error: %s", err);
    return out;
  }
  if (a.help) return "help";
  if (a.version) return "version";
  n = 0;
  out[0] = 0;
  for (i = 0; i < a.argc && n < sizeof out; i++)
    n += (size_t)snprintf(out + n, sizeof out - n, "%s%s", i ? " " : "", a.argv[i]);
  if (a.argv[a.argc]) return "error: argv not terminated";
  return out;
}

int main(void)
{
  static struct { char const *in, *want; } const cases[] = {
    /* the three orderings */
    { "-r /x status", "status -r /x" },
    { "status -r /x", "status -r /x" },
    { "-c /etc/c check", "check -c /etc/c" },
    /* several options before, more after, operands kept in order */
    { "-r /x --json status web db", "status -r /x --json web db" },
    { "--json -r /x status -r /y web", "status --json -r /x -r /y web" },
    { "-R /img -c /img/etc/capinit check", "check -R /img -c /img/etc/capinit" },
    { "-c /d explain --json web", "explain -c /d --json web" },
    { "-n 5 log web", "log -n 5 web" },
    { "-r /x log -f web", "log -r /x -f web" },
    { "status", "status" },
    { "stop web", "stop web" },
    { "-r /run/a poweroff", "poweroff -r /run/a" },
    /* an option's value is not an option */
    { "-r -h status", "status -r -h" },
    { "-c -V check", "check -c -V" },
    { "status -r -h", "status -r -h" },
    /* -h and -V anywhere */
    { "-h", "help" },
    { "--help", "help" },
    { "-V", "version" },
    { "--version", "version" },
    { "status -h", "help" },
    { "-r /x status web --help", "help" },
    { "check -c /d -V", "version" },
    { "-V status", "version" },
    /* ... but not after "--", nor among explain -k's command and arguments */
    { "explain -k user=www -- /bin/prog -h", "explain -k user=www -- /bin/prog -h" },
    { "explain -k user=www /bin/prog -V", "explain -k user=www /bin/prog -V" },
    { "-k user=www explain /bin/prog -h", "explain -k user=www /bin/prog -h" },
    { "status -- -h", "status -- -h" },
    /* wrong usage */
    { "", "error: no verb (capctl --help lists them)" },
    { "-r /x", "error: no verb (capctl --help lists them)" },
    { "-x status", "error: unknown option '-x' (capctl --help lists them)" },
    { "--jsn status", "error: unknown option '--jsn' (capctl --help lists them)" },
    { "-r", "error: option -r needs a value" },
    { "-c", "error: option -c needs a value" },
    { "-n", "error: option -n needs a value" },
  };
  size_t i;
  for (i = 0; i < sizeof cases / sizeof cases[0]; i++)
    t_streq(run(cases[i].in), cases[i].want, "capctl %s", cases[i].in);
  return t_done();
}

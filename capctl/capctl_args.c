/* capctl/capctl_args.c -- capctl's command line, before any verb runs.
 *
 * Options may stand before the verb as well as after it (`capctl -r DIR
 * status`, `capctl status -r DIR`: git -C, systemctl -H).  This parser
 * moves the ones before the verb to just after it, where the verb's own
 * parser (which knows what each option means to it) takes them, and finds
 * -h/--help and -V/--version anywhere before a "--".  Pure: no output, no
 * exit; the unit tests drive it with every ordering. */
#include <stdio.h>
#include <string.h>

#include "capctl_args.h"

/* Every option of every verb, and whether it takes a value: needed to
 * tell a value ("-r -h") from an option. */
static struct { char const *name; unsigned char value; } const options[] = {
  { "-r", 1 }, { "-c", 1 }, { "-R", 1 }, { "-k", 1 }, { "-n", 1 },
  { "-f", 0 }, { "-p", 0 }, { "--json", 0 }, { "-o", 1 }, { "--allow-weaker", 0 },
  { "--time", 1 }, { "--check", 1 },
  { "-h", 0 }, { "--help", 0 }, { "-V", 0 }, { "--version", 0 },
};

static int option_find(char const *arg)
{
  size_t i;
  for (i = 0; i < sizeof options / sizeof options[0]; i++)
    if (!strcmp(arg, options[i].name)) return (int)i;
  return -1;
}

static void mark_help_version(char const *arg, capctl_args *a)
{
  if (!strcmp(arg, "-h") || !strcmp(arg, "--help")) a->help = 1;
  if (!strcmp(arg, "-V") || !strcmp(arg, "--version")) a->version = 1;
}

int capctl_args_parse(int argc, char **argv, capctl_args *a, char *err, size_t errlen)
{
  int i, k, first, command_follows = 0;
  memset(a, 0, sizeof *a);
  a->argv = argv;
  /* the options before the verb */
  for (i = 1; i < argc && argv[i][0] == '-'; i++) {
    int o = option_find(argv[i]);
    if (o < 0) {
      snprintf(err, errlen, "unknown option '%.64s' (capctl --help lists them)", argv[i]);
      return -1;
    }
    mark_help_version(argv[i], a);
    if (!strcmp(argv[i], "-k")) command_follows = 1;
    if (options[o].value && ++i >= argc) {
      snprintf(err, errlen, "option %s needs a value", options[o].name);
      return -1;
    }
  }
  if (i == argc) {
    if (a->help || a->version) return 0;
    snprintf(err, errlen, "no verb (capctl --help lists them)");
    return -1;
  }
  a->verb = argv[i];
  /* argv becomes: capctl VERB [options before it] [what followed it] */
  first = i;
  {
    char *verb = argv[first];
    memmove(argv + 2, argv + 1, (size_t)(first - 1) * sizeof *argv);
    argv[1] = verb;
  }
  a->argc = argc - 1;
  a->argv = argv + 1;
  /* -h and -V after the verb, up to "--" (skipping option values); with
   * explain -k, the first operand starts the command and its arguments */
  for (k = first + 1; k < argc && strcmp(argv[k], "--"); k++) {
    int o = option_find(argv[k]);
    if (o < 0) {
      if (command_follows) break;
      continue;
    }
    mark_help_version(argv[k], a);
    if (!strcmp(argv[k], "-k") && !strcmp(a->verb, "explain")) command_follows = 1;
    if (options[o].value) k++;
  }
  return 0;
}

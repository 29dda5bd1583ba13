/* supervise/control_verbs.c -- the verbs of the control socket. */
#include <string.h>

#include "control.h"

control_verb const control_verbs[] = {
  { "status", 0, 0, "[NAME...]" },
  { "start", 1, 1, "NAME..." },
  { "stop", 1, 1, "NAME..." },
  { "restart", 1, 1, "NAME..." },
  { "signal", 1, 2, "SIG NAME..." },
  { "reload", 1, 0, "" },
  { "log", 0, 1, "NAME" },
  { "verify", 0, 0, "[NAME...]" },
  { "poweroff", 1, 0, "" },
  { "reboot", 1, 0, "" },
  { "halt", 1, 0, "" },
};
size_t const control_verbs_n = sizeof control_verbs / sizeof control_verbs[0];

control_verb const *control_verb_find(char const *name)
{
  size_t i;
  for (i = 0; i < control_verbs_n; i++)
    if (!strcmp(control_verbs[i].name, name)) return &control_verbs[i];
  return 0;
}

/* conf/control_verbs.c -- the verbs of the control socket. */
#include <stdio.h>
#include <string.h>

#include "control_verbs.h"

control_verb const control_verbs[] = {
  { "status", 0, 0, "[NAME...]" },
  { "start", 1, 1, "NAME..." },
  { "stop", 1, 1, "NAME..." },
  { "restart", 1, 1, "NAME..." },
  { "signal", 1, 2, "SIG NAME..." },
  { "reload", 1, 0, "" },
  { "log", 0, 1, "NAME" },
  /* capctl verify's: what only capinit knows of each service, among it a
   * digest of its file, which only uid 0 reads (docs/security.md) */
  { "verify-facts", VERB_ROOT_READS, 0, "[NAME...]" },
  { "blame", 0, 0, "" },
  { "poweroff", VERB_POWER, 0, "" },
  { "reboot", VERB_POWER, 0, "" },
  { "halt", VERB_POWER, 0, "" },
};
size_t const control_verbs_n = sizeof control_verbs / sizeof control_verbs[0];

control_verb const *control_verb_find(char const *name)
{
  size_t i;
  for (i = 0; i < control_verbs_n; i++)
    if (!strcmp(control_verbs[i].name, name)) return &control_verbs[i];
  return 0;
}

int control_parse(char const *msg, size_t len, control_request *r, char *err, size_t errlen)
{
  size_t i;
  char *p;
  memset(r, 0, sizeof *r - sizeof r->buf);
  if (len > CONTROL_MSG_MAX) {
    snprintf(err, errlen, "error: request too long (%zu bytes; at most %u): nothing done", len, CONTROL_MSG_MAX);
    return -1;
  }
  while (len && msg[len - 1] == '\n') len--;
  for (i = 0; i < len; i++) {
    unsigned char c = (unsigned char)msg[i];
    if (!c) {
      snprintf(err, errlen, "error: NUL byte in request: nothing done");
      return -1;
    }
    if (c < 0x20 || c == 0x7f) {
      snprintf(err, errlen, "error: control character 0x%02x in request: nothing done", c);
      return -1;
    }
  }
  memcpy(r->buf, msg, len);
  r->buf[len] = 0;
  for (p = r->buf; *p;) {
    while (*p == ' ') *p++ = 0;
    if (!*p) break;
    if (r->argc == CONTROL_ARGS_MAX) {
      snprintf(err, errlen, "error: too many arguments (at most %d)", CONTROL_ARGS_MAX - 1);
      return -1;
    }
    r->argv[r->argc++] = p;
    while (*p && *p != ' ') p++;
  }
  if (!r->argc) {
    snprintf(err, errlen, "error: empty request");
    return -1;
  }
  r->verb = control_verb_find(r->argv[0]);
  if (!r->verb) {
    snprintf(err, errlen, "error: unknown verb '%.32s'", r->argv[0]);
    return -1;
  }
  if ((size_t)r->argc - 1 < r->verb->min_args) {
    snprintf(err, errlen, "error: usage: %s %s", r->verb->name, r->verb->usage);
    return -1;
  }
  return 0;
}

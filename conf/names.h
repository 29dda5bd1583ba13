/* conf/names.h -- the vocabularies of the service file, one table each:
 * capability names (through libcap), securebit names, signal names, rlimit
 * names, and the words of the enum-valued keys (type, mode, restart, log,
 * ready, network).  Parsers, check, explain, the man page and the tests
 * all use these. */
#ifndef CAPINIT_CONF_NAMES_H
#define CAPINIT_CONF_NAMES_H

#include <stddef.h>
#include <stdint.h>

typedef struct name_value_s {
  char const *name;
  int value;
} name_value;

/* The words of the enum-valued keys, each table in the order of its enum
 * (svc.h) and ended by { 0, 0 }: the parser, the messages ("expected a, b
 * or c"), capctl's records and the tests all take them from here. */
extern name_value const type_names[];     /* enum svc_type */
extern name_value const mode_names[];     /* enum svc_mode */
extern name_value const restart_names[];  /* enum svc_restart */
extern name_value const log_names[];      /* enum svc_log */
int vocab_value(name_value const *t, char const *s);   /* value, or -1 */
char const *vocab_name(name_value const *t, int v);    /* "?" if none */
/* "a, b or c" into buf; returns buf. */
char *vocab_list(name_value const *t, char *buf, size_t len);

/* ready and network: a word, or a prefix that a number or a name follows
 * (fd:N, netns:NAME), spelt in the table with its placeholder so that
 * vocab_list says it whole ("exec, fd:N or notify"). */
extern name_value const ready_names[];    /* enum svc_ready */
extern name_value const network_names[];  /* enum ct_network (container.h) */
/* The value of the word s, or of the prefix s begins with (*rest: what
 * follows the prefix, else NULL); -1 if none. */
int vocab_prefixed(name_value const *t, char const *s, char const **rest);
/* The word of v, or its prefix followed by arg, into buf; returns buf. */
char *vocab_format(name_value const *t, int v, char const *arg, char *buf, size_t len);

/* Securebits: name -> bit number, in kernel order. */
extern name_value const securebit_names[];
extern size_t const securebit_names_n;
int securebit_from_name(char const *s);          /* bit, or -1 */
/* "noroot,noroot-locked,..." into buf; returns buf ("none" for 0). */
char *securebits_format(unsigned bits, char *buf, size_t len);

/* Signals: "TERM", "SIGTERM", "term" -> SIGTERM; names without SIG. */
extern name_value const signal_names[];
extern size_t const signal_names_n;
int signal_from_name(char const *s);              /* signo, or -1 */
char const *signal_name(int sig);                 /* NULL if unknown */

/* Resource limits: "nofile" -> RLIMIT_NOFILE, with the unit its numbers
 * are in (sizes accept K/M/G/T suffixes). */
enum rlimit_unit { RL_COUNT, RL_BYTES, RL_SECONDS, RL_MICROSECONDS };
typedef struct rlimit_name_s {
  char const *name;
  int resource;
  enum rlimit_unit unit;
} rlimit_name;
extern rlimit_name const rlimit_names[];
extern size_t const rlimit_names_n;
rlimit_name const *rlimit_from_name(char const *s);
rlimit_name const *rlimit_from_resource(int resource);

/* Capabilities: "cap_net_raw", "net_raw", "CAP_NET_RAW" -> CAP_NET_RAW.
 * Only the kernel's names (cap_names_n of them, 0 to cap_names_n - 1);
 * numbers are not names. */
extern unsigned const cap_names_n;
int cap_from_text_name(char const *s, unsigned *cap);  /* 0, or -1 */
/* "cap_net_raw" (the spelling of setcap and capsh) into buf; a number
 * beyond the table, as digits. */
char *cap_name(unsigned cap, char *buf, size_t len);
/* "cap_chown,cap_net_raw" or "none" into buf (truncated with "..."). */
char *caps_format(uint64_t mask, char *buf, size_t len);

#endif

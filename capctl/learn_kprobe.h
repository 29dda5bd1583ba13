/* capctl/learn_kprobe.h -- capctl learn's second event source: a kprobe
 * and a kretprobe on cap_capable, for kernels without the tracepoint
 * capability:cap_capable (Debian 12's 6.1). */
#ifndef CAPINIT_CAPCTL_LEARN_KPROBE_H
#define CAPINIT_CAPCTL_LEARN_KPROBE_H

#include <stddef.h>

#include "learn_trace.h"

/* events/GROUP/cap_capable, events/GROUP/cap_capable_ret and
 * events/GROUP/cap_capset */
extern char const *const learn_kprobe_events[];
/* Make them in tracefs's kprobe_events: 0, or -1 (err filled). */
int learn_kprobe_define(int tracefs, char const *group, char *err, size_t errlen);
/* Remove them. */
void learn_kprobe_undefine(int tracefs, char const *group);
/* "cap_capable: (cap_capable+0x0/0x80) cap=21 opts=2" is LK_CAP_ENTRY,
 * "cap_capable_ret: (security_capable+0x3d/0x60 <- cap_capable) ret=0"
 * LK_CAP_RET, "cap_capset: (cap_capset+0x0/0x...) euid=100 had_p0=0xffffffff
 * had_p1=0x1ff had_e0=0x0 had_e1=0x0 e0=0x2000400 e1=0x0 p0=0x2000400
 * p1=0x0" LK_CAPSET: 0, or -1 (not ours). */
int learn_kprobe_parse_check(char const *event, char const *fields, learn_event *e);

#endif

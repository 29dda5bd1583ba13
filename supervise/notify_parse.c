/* supervise/notify_parse.c -- the sd_notify message parser, pure (fuzzed
 * on its own: tests/fuzz/fuzz_notify.c). */
#include <string.h>

#include "notify.h"

int notify_parse(char const *buf, size_t len, notify_msg *m)
{
  size_t i = 0;
  memset(m, 0, sizeof *m);
  if (memchr(buf, 0, len)) return -1;
  while (i < len) {
    char const *line = buf + i, *nl = memchr(line, '\n', len - i);
    size_t n = nl ? (size_t)(nl - line) : len - i;
    char const *eq = memchr(line, '=', n);
    i += n + 1;
    if (!n) continue;
    if (!eq) return -1;
    if (n == 7 && !memcmp(line, "READY=1", 7)) m->ready = 1;
    else if (n == 10 && !memcmp(line, "STOPPING=1", 10)) m->stopping = 1;
    else if (n == 11 && !memcmp(line, "RELOADING=1", 11)) m->reloading = 1;
    else if (n >= 7 && !memcmp(line, "STATUS=", 7)) {
      size_t k, w = 0;
      for (k = 7; k < n && w + 1 < sizeof m->status; k++) {
        unsigned char c = (unsigned char)line[k];
        m->status[w++] = c < 0x20 || c == 0x7f ? ' ' : (char)c;
      }
      m->status[w] = 0;
      m->has_status = 1;
    }
  }
  return 0;
}

/* conf/record.c -- see record.h. */
#include <stdio.h>
#include <string.h>

#include "record.h"

record_field const record_fields[RF_COUNT] = {
  [RF_NAME] = { "name", RK_TEXT },
  [RF_STATE] = { "state", RK_TEXT },
  [RF_WANTED] = { "wanted", RK_TEXT },
  [RF_PID] = { "pid", RK_NUMBER },
  [RF_SINCE_MS] = { "since_ms", RK_NUMBER },
  [RF_RESTARTS] = { "restarts", RK_NUMBER },
  [RF_LAST_EXIT] = { "last_exit", RK_TEXT },
  [RF_STATUS] = { "status", RK_TEXT },
  [RF_FAILURE] = { "failure", RK_TEXT },
  [RF_USER] = { "user", RK_NUMBER },
  [RF_MODE] = { "mode", RK_TEXT },
  [RF_TYPE] = { "type", RK_TEXT },
  [RF_LOG_LINES] = { "log_lines", RK_NUMBER },
  [RF_LOG_DROPPED] = { "log_dropped", RK_NUMBER },
  [RF_UID] = { "uid", RK_TEXT },
  [RF_GID] = { "gid", RK_TEXT },
  [RF_GROUPS] = { "groups", RK_TEXT },
  [RF_CAP_INH] = { "cap_inh", RK_TEXT },
  [RF_CAP_PRM] = { "cap_prm", RK_TEXT },
  [RF_CAP_EFF] = { "cap_eff", RK_TEXT },
  [RF_CAP_BND] = { "cap_bnd", RK_TEXT },
  [RF_CAP_AMB] = { "cap_amb", RK_TEXT },
  [RF_NO_NEW_PRIVS] = { "no_new_privs", RK_FLAG },
  [RF_SPAWNED_MS] = { "spawned_ms", RK_NUMBER },
  [RF_READY_MS] = { "ready_ms", RK_NUMBER },
  [RF_KERNEL_MS] = { "kernel_ms", RK_NUMBER },
  [RF_PHASE] = { "phase", RK_TEXT },
  [RF_START_MS] = { "start_ms", RK_NUMBER },
  [RF_END_MS] = { "end_ms", RK_NUMBER },
  [RF_PATH] = { "path", RK_TEXT },
  [RF_LOG] = { "log", RK_TEXT },
  [RF_SECCOMP] = { "seccomp", RK_FLAG },
  [RF_SECUREBITS] = { "securebits", RK_NUMBER },
  [RF_MAIN_PID] = { "main_pid", RK_NUMBER },
  [RF_SPEC_DIGEST] = { "spec_digest", RK_TEXT },
};

enum record_field_id const blame_boot_fields[2] = { RF_KERNEL_MS, RF_READY_MS };
enum record_field_id const blame_phase_fields[3] = { RF_PHASE, RF_START_MS, RF_END_MS };
enum record_field_id const blame_service_fields[5] = { RF_NAME, RF_STATE, RF_TYPE, RF_SPAWNED_MS, RF_READY_MS };
enum record_field_id const log_fields[2] = { RF_PATH, RF_LOG };
enum record_field_id const facts_capinit_fields[3] = { RF_PID, RF_SECCOMP, RF_SECUREBITS };
enum record_field_id const facts_service_fields[7] = { RF_NAME, RF_STATE, RF_TYPE, RF_PID, RF_MAIN_PID, RF_PATH,
                                                       RF_SPEC_DIGEST };

void record_clean(char *s)
{
  for (; *s; s++)
    if (*s == '\t' || *s == '\n' || (unsigned char)*s < 0x20) *s = ' ';
}

record_field const *record_field_find(char const *name, size_t n)
{
  size_t i;
  for (i = 0; i < RF_COUNT; i++)
    if (!strncmp(record_fields[i].name, name, n) && !record_fields[i].name[n]) return &record_fields[i];
  return 0;
}

size_t record_write(char *buf, size_t len, char const *tag, enum record_field_id const *ids, size_t n,
                    char const *const *values)
{
  size_t i, w = 0;
  if (!len) return 0;
  buf[0] = 0;
  if (tag) w = (size_t)snprintf(buf, len, "%s", tag);
  for (i = 0; i < n && w < len; i++) {
    enum record_field_id id = ids ? ids[i] : (enum record_field_id)i;
    int r = snprintf(buf + w, len - w, "%s%s=%s", tag || i ? "\t" : "", record_fields[id].name, values[id]);
    if (r < 0) break;
    w += (size_t)r;
  }
  return w < len ? w : len - 1;
}

int record_begins(char const *rec, enum record_field_id id)
{
  size_t n = strlen(record_fields[id].name);
  return !strncmp(rec, record_fields[id].name, n) && rec[n] == '=';
}

char const *record_get(char const *rec, enum record_field_id id, char *out, size_t len)
{
  char const *key = record_fields[id].name, *p = rec;
  size_t kl = strlen(key);
  while (p && *p) {
    if (!strncmp(p, key, kl) && p[kl] == '=') {
      size_t n = strcspn(p + kl + 1, "\t");
      if (n >= len) n = len - 1;
      memcpy(out, p + kl + 1, n);
      out[n] = 0;
      return out;
    }
    p = strchr(p, '\t');
    if (p) p++;
  }
  snprintf(out, len, "-");
  return out;
}

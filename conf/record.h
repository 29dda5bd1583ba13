/* conf/record.h -- the records of capinit's control socket that capctl
 * reads (status, blame, log): one line of NAME=VALUE fields separated by
 * tabs.  Every field's name and kind is defined once, in record_fields[]:
 * capinit writes its records from it, capctl reads them back and prints
 * their JSON by it. */
#ifndef CAPINIT_CONF_RECORD_H
#define CAPINIT_CONF_RECORD_H

#include <stddef.h>

/* How capctl --json prints a value: a string; a number (null when it is
 * not one, "-"); a flag, "1" or "0" (true, false, null otherwise). */
enum record_kind { RK_TEXT, RK_NUMBER, RK_FLAG };

typedef struct record_field_s {
  char const *name;
  enum record_kind kind;
} record_field;

/* Every field of every record, in the order of record_fields[]. */
enum record_field_id {
  /* status: one record a service, every field from RF_NAME to RF_READY_MS */
  RF_NAME, RF_STATE, RF_WANTED, RF_PID, RF_SINCE_MS, RF_RESTARTS, RF_LAST_EXIT, RF_STATUS,
  RF_FAILURE, RF_USER, RF_MODE, RF_TYPE, RF_LOG_LINES, RF_LOG_DROPPED, RF_UID, RF_GID,
  RF_GROUPS, RF_CAP_INH, RF_CAP_PRM, RF_CAP_EFF, RF_CAP_BND, RF_CAP_AMB, RF_NO_NEW_PRIVS,
  RF_SPAWNED_MS, RF_READY_MS,
  /* blame's own: when capinit started, and each phase of the boot */
  RF_KERNEL_MS, RF_PHASE, RF_START_MS, RF_END_MS,
  /* log: where the service's log file is, and where its lines go */
  RF_PATH, RF_LOG,
  /* verify-facts, capctl verify's: capinit's own (its pid, whether its
   * services get a system-call filter, its securebits, which /proc does
   * not show), a service's main process (a private-pids service's reaper)
   * and the digest of the spec it runs (conf/svc.h) */
  RF_SECCOMP, RF_SECUREBITS, RF_MAIN_PID, RF_SPEC_DIGEST,
  RF_COUNT
};
extern record_field const record_fields[RF_COUNT];

/* The fields of each record, in their order on the wire; the status
 * record's are the first STATUS_FIELDS_N of the table. */
#define STATUS_FIELDS_N (RF_READY_MS + 1)
extern enum record_field_id const blame_boot_fields[2];
extern enum record_field_id const blame_phase_fields[3];
extern enum record_field_id const blame_service_fields[5];
extern enum record_field_id const log_fields[2];
#define BLAME_BOOT_TAG "boot"   /* the blame record of the boot begins so */
/* verify-facts: capinit's record, then one a service (its command's pid,
 * its main process's, its file: RF_PATH) */
extern enum record_field_id const facts_capinit_fields[3];
extern enum record_field_id const facts_service_fields[7];
#define FACTS_CAPINIT_TAG "capinit"

/* A value as a record field: tabs, newlines and control bytes become
 * spaces. */
void record_clean(char *s);

/* The field named name (n bytes), or NULL. */
record_field const *record_field_find(char const *name, size_t n);

/* The record of fields ids[0..n) (NULL: the table's first n) into buf:
 * an optional tag, then NAME=VALUE for each, values[id] its value,
 * separated by tabs; cut to len - 1 bytes.  Returns its length. */
size_t record_write(char *buf, size_t len, char const *tag, enum record_field_id const *ids, size_t n,
                    char const *const *values);

/* Whether rec's first field is id (a phase's blame record begins with
 * its name). */
int record_begins(char const *rec, enum record_field_id id);

/* The value of field id in rec, copied into out (cut to fit); "-" when
 * rec has no such field.  Returns out. */
char const *record_get(char const *rec, enum record_field_id id, char *out, size_t len);

#endif

/* supervise/control_client.h -- what the files of the control socket
 * share: control.c (the socket, its loop and who the peer is),
 * control_reply.c (each client's queue of replies), control_records.c
 * (status, blame and verify-facts records, and what they read of /proc)
 * and control_dispatch.c (a request's verb). */
#ifndef CAPINIT_SUPERVISE_CONTROL_CLIENT_H
#define CAPINIT_SUPERVISE_CONTROL_CLIENT_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "../conf/record.h"
#include "supervisor.h"

#define CLIENT_IDLE_MS 10000u
#define QUEUE_MAX (8u << 20)  /* bytes of replies waiting for one client */

typedef struct client_s {
  int fd;
  int may_read, may_read_files, may_change, may_power;
  uint64_t deadline;
  char *q;                 /* queued messages: [u32 length][bytes]... */
  size_t qlen, qoff;
  int closing;             /* close once the queue is written */
  int reprieved;           /* its deadline passed once with a reply queued */
  int asked_power;         /* it asked for the shutdown: capinit ends once it is
                              gone, or CONTROL_ASKER_MS after the first such
                              request (control.c, control_asker_waiting) */
} client;

/* control_reply.c: queue one message (a client that does not read is
 * dropped at QUEUE_MAX), formatted, or a record of fields ids[0..n)
 * (conf/record.h's record_write); write what the socket takes. */
void client_queue(client *c, char const *msg, size_t len);
void client_reply(client *c, char const *fmt, ...) __attribute__((format(printf, 2, 3)));
void client_record(client *c, char const *tag, enum record_field_id const *ids, size_t n,
                   char const *const *values);
void client_flush(client *c);

/* control_records.c (record_clean: conf/record.h) */
/* The service's name, cleaned, in buf. */
char const *record_name(service const *s, char *buf, size_t len);
/* One field of /proc/PID/status ("-" when unreadable), in out. */
char const *proc_field(pid_t pid, char const *key, char *out, size_t len);
/* The status record of a service; the blame records of the boot;
 * verify-facts' records: capinit's own, and a service's. */
void record_status(client *c, service *s);
void record_blame(client *c);
void record_facts_capinit(client *c);
void record_facts(client *c, service const *s);

/* control_dispatch.c: one request, its replies queued. */
void control_dispatch(client *c, char const *msg, size_t len);

#endif

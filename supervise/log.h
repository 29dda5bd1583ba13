/* supervise/log.h -- a service's output: its pipe, its log file or the
 * console (log.c). */
#ifndef CAPINIT_SUPERVISE_LOG_H
#define CAPINIT_SUPERVISE_LOG_H

#include <stddef.h>

#include "supervisor.h"

int log_open_pipe(service *s, int *child_end);
void log_read(service *s);
void log_close(service *s);
void log_line(service *s, char const *fmt, ...) __attribute__((format(printf, 2, 3)));
int log_file_path(service const *s, char *buf, size_t len);

#endif

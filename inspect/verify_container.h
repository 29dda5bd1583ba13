/* inspect/verify_container.h -- capctl verify for a service's container
 * (verify_container.c). */
#ifndef CAPINIT_INSPECT_VERIFY_CONTAINER_H
#define CAPINIT_INSPECT_VERIFY_CONTAINER_H

#include <stddef.h>
#include <sys/types.h>

#include "../conf/container.h"

/* 0 when the running command pid is contained as ct declares; 1 with the
 * first difference in field, live and want (len bytes each).  ct NULL: 0.
 * launcher is the process whose namespaces it shares where it has none
 * of its own (capinit). */
int container_verify(svc_container const *ct, pid_t pid, pid_t launcher, char *field, char *live, char *want,
                     size_t len);

#endif

/* conf/syscalls.h -- the system-call groups of the keys system-calls and
 * user-namespaces: their names (after systemd's @-sets where one
 * matches), their members on the architecture this is built for, and
 * which of them a service is denied by default.  The parser, explain and
 * the engine's filter (engine/filter.c) take them from here; capinit.svc(5)
 * lists them, and a unit test proves it lists exactly these. */
#ifndef CAPINIT_CONF_SYSCALLS_H
#define CAPINIT_CONF_SYSCALLS_H

#include <stddef.h>
#include <stdint.h>

enum syscall_group {
  SG_BPF, SG_DEBUG, SG_FILE_HANDLES, SG_IO_URING, SG_KEYRING, SG_MODULE,
  SG_MOUNT, SG_REBOOT, SG_SWAP, SG_USERFAULTFD,
  SG_COUNT
};
#define SG_ALL ((1u << SG_COUNT) - 1)

typedef struct syscall_group_info_s {
  char const *name;        /* "@keyring" */
  int cap;                 /* a capability the file may give that asks for
                              the group (it is then not denied by default),
                              or -1: denied to every contained service */
} syscall_group_info;
extern syscall_group_info const syscall_groups[SG_COUNT];

/* The group of "@name", or -1. */
int syscall_group_from_name(char const *s);

/* The members, on this build's architecture: group, then number (a call
 * the architecture lacks is not listed). */
typedef struct syscall_member_s {
  unsigned char group;
  short nr;
} syscall_member;
extern syscall_member const syscall_members[];
extern size_t const syscall_members_n;

/* The groups a contained service is denied when its file says nothing:
 * every group, less those whose capability is in caps. */
unsigned syscalls_default_deny(uint64_t caps);

/* Does a service with these final values get a filter at all?  (A legacy
 * service whose file names neither key does not.) */
static inline int syscalls_filtered(unsigned deny, int user_namespaces, int suid_refused)
{
  return deny || !user_namespaces || suid_refused;
}

/* "@debug,@keyring" or "none" into buf; returns buf. */
char *syscall_groups_format(unsigned mask, char *buf, size_t len);

#endif

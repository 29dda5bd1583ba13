/* conf/ids.h -- users and groups from ROOT/etc/passwd and ROOT/etc/group.
 *
 * capinit is static: there is no NSS, so the files are read directly, the
 * way the kernel-side tools of small systems (busybox) do. */
#ifndef CAPINIT_CONF_IDS_H
#define CAPINIT_CONF_IDS_H

#include <stddef.h>
#include <sys/types.h>

typedef struct ids_user_s {
  char name[64];
  uid_t uid;
  gid_t gid;
} ids_user;

/* 1 found, 0 not found, -1 the file cannot be read (errno set). */
int ids_user_by_name(char const *root, char const *name, ids_user *u);
int ids_user_by_uid(char const *root, uid_t uid, ids_user *u);
int ids_group_by_name(char const *root, char const *name, gid_t *gid);
/* The groups of a login: gid, then every group listing user as a member,
 * without repeats, as initgroups(3) does.  Returns the count, -1 on error. */
int ids_user_groups(char const *root, char const *user, gid_t gid, gid_t **out);

#endif

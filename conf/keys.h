/* conf/keys.h -- the key tables of the two file formats. */
#ifndef CAPINIT_CONF_KEYS_H
#define CAPINIT_CONF_KEYS_H

#include <stddef.h>

#include "parse.h"

extern conf_key const svc_keys[];
extern size_t const svc_keys_n;

enum capinit_conf_key_id {
  C_LOG_DIRECTORY, C_LOG_MAX_SIZE, C_LOG_KEEP, C_CONTROL_GROUP,
  C_EMERGENCY_SHELL, C_UNMOUNT_TIMEOUT, C_POWER_GROUP, C_COUNT
};
extern conf_key const capinit_conf_keys[];
extern size_t const capinit_conf_keys_n;

#endif

/* capctl/import_out.c -- the service file capctl import writes: the keys
 * in a fixed order, each under the comments that say where it comes from
 * and what changed, then what has no key. */
#include <stdio.h>
#include <string.h>

#include "import_model.h"
#include "import_out.h"

static struct { char const *name; char join; } const keys[IK_COUNT] = {
  [IK_DESCRIPTION] = { "description", 0 }, [IK_TYPE] = { "type", 0 }, [IK_COMMAND] = { "command", 0 },
  [IK_STOP_COMMAND] = { "stop-command", 0 }, [IK_READY] = { "ready", 0 }, [IK_DIRECTORY] = { "directory", 0 },
  [IK_ENVIRONMENT] = { "environment", 0 }, [IK_UMASK] = { "umask", 0 }, [IK_RLIMIT] = { 0, 0 },
  [IK_USER] = { "user", 0 }, [IK_GROUP] = { "group", 0 }, [IK_GROUPS] = { "groups", 0 }, [IK_MODE] = { "mode", 0 },
  [IK_SECUREBITS] = { "securebits", 0 }, [IK_BOUNDING] = { "bounding", 0 }, [IK_CAPABILITIES] = { "capabilities", 0 },
  [IK_NNP] = { "no-new-privileges", 0 }, [IK_READ_ONLY] = { "read-only", 0 }, [IK_READ_WRITE] = { "read-write", 0 },
  [IK_BIND] = { "bind", 0 }, [IK_BIND_RO] = { "bind-ro", 0 }, [IK_ROOT_DIRECTORY] = { "root-directory", 0 },
  [IK_PRIVATE_TMP] = { "private-tmp", 0 }, [IK_PRIVATE_DEVICES] = { "private-devices", 0 },
  [IK_DEVICES] = { "devices", ',' }, [IK_PROC_SUBSET] = { "proc-subset", 0 }, [IK_NETWORK] = { "network", 0 },
  [IK_USER_NAMESPACES] = { "user-namespaces", 0 }, [IK_SYSTEM_CALLS] = { "system-calls", 0 },
  [IK_LISTEN] = { "listen", 0 }, [IK_DEPENDS] = { "depends", ',' }, [IK_AFTER] = { "after", ',' },
  [IK_READY_TIMEOUT] = { "ready-timeout", 0 }, [IK_RESTART] = { "restart", 0 },
  [IK_RESTART_DELAY] = { "restart-delay", 0 }, [IK_STOP_SIGNAL] = { "stop-signal", 0 },
  [IK_STOP_TIMEOUT] = { "stop-timeout", 0 }, [IK_LOG] = { "log", 0 }, [IK_ENABLED] = { "enabled", 0 },
  [IK_NONE] = { 0, 0 },
};

static char const *const level_word[] = { "", "warning: ", "not converted: " };

static void comments(FILE *f, imp const *m, enum imp_key key)
{
  size_t i;
  for (i = 0; i < m->nnotes; i++)
    if (m->notes[i].key == key)
      fprintf(f, "# %s: %s%s\n", m->notes[i].where, level_word[m->notes[i].level], m->notes[i].text);
}

static void values(FILE *f, imp_list const *l, enum imp_key key)
{
  size_t i;
  if (!l->n) return;
  if (key == IK_RLIMIT) {  /* "rlimit-nofile = 16384", whole */
    for (i = 0; i < l->n; i++) fprintf(f, "%s\n", l->v[i]);
    return;
  }
  if (keys[key].join) {
    fprintf(f, "%s = ", keys[key].name);
    for (i = 0; i < l->n; i++) fprintf(f, "%s%s", i ? ", " : "", l->v[i]);
    fputc('\n', f);
    return;
  }
  for (i = 0; i < l->n; i++) fprintf(f, "%s = %s\n", keys[key].name, l->v[i]);
}

int import_write(imp const *m, char const *path)
{
  FILE *f = fopen(path, "w");
  int k;
  if (!f) return -1;
  fprintf(f, "# %s.svc: %s by capctl import (capctl(8)).  Each comment names the line of\n"
             "# the unit it comes from, and says what capinit does otherwise.\n", m->name, m->unit_name);
  for (k = 0; k < IK_NONE; k++) {
    comments(f, m, (enum imp_key)k);
    values(f, &m->out[k], (enum imp_key)k);
  }
  for (k = 0; k < (int)m->nnotes && m->notes[k].key != IK_NONE; k++) {}
  if (k < (int)m->nnotes) fprintf(f, "# What has no key of capinit's:\n");
  comments(f, m, IK_NONE);
  if (fclose(f) == EOF) return -1;
  return 0;
}

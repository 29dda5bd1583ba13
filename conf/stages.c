/* conf/stages.c -- the stage table's names and exit statuses (stages.h). */
#include <string.h>

#include "stages.h"

static struct { char const *name; unsigned char status; } const stages[] = {
#define STAGE_ROW(id, name, status) [STAGE_##id] = { name, status },
  PRIV_STAGES(STAGE_ROW)
#undef STAGE_ROW
};

_Static_assert(sizeof stages / sizeof *stages == STAGE_COUNT, "one row per stage");

char const *stage_name(int stage)
{
  return stage >= 0 && stage < STAGE_COUNT ? stages[stage].name : "?";
}

int stage_from_name(char const *name)
{
  int i;
  for (i = 0; i < STAGE_COUNT; i++)
    if (!strcmp(name, stages[i].name)) return i;
  return -1;
}

int stage_exit_status(int stage)
{
  return stage >= 0 && stage < STAGE_COUNT ? stages[stage].status : 111;
}

/* supervise/lookup.c -- finding a service by its name or a pid. */
#include <string.h>

#include "lookup.h"

/* sv.v is sorted by name (merge_fresh keeps it so). */
service *service_by_name(char const *name)
{
  size_t lo = 0, hi = sv.n;
  while (lo < hi) {
    size_t mid = lo + (hi - lo) / 2;
    int c = strcmp(sv.v[mid]->spec->name, name);
    if (!c) return sv.v[mid];
    if (c < 0) lo = mid + 1;
    else hi = mid;
  }
  return 0;
}

service *service_by_pid(pid_t pid)
{
  size_t i;
  for (i = 0; i < sv.n; i++)
    if (sv.v[i]->pid == pid || sv.v[i]->stop_pid == pid) return sv.v[i];
  return 0;
}

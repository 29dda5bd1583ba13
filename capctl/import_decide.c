/* capctl/import_decide.c -- capinit's keys for a unit, once every line of
 * it is read: the privilege systemd would give its command, never more;
 * its file tree and filter; the directories systemd makes for it.  The
 * principles are in docs/decisions.md, "capctl import (issue 37)". */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>
#include <linux/capability.h>

#include "../conf/ids.h"
#include "../conf/names.h"
#include "../conf/syscalls.h"
#include "../conf/xalloc.h"
#include "import_cmd.h"
#include "import_decide.h"
#include "import_exec.h"
#include "import_files.h"
#include "import_model.h"

#define BIT(c) ((uint64_t)1 << (c))

static uint64_t caps_all(void)
{
  return cap_names_n >= 64 ? UINT64_MAX : BIT(cap_names_n) - 1;
}

static void set_caps(imp *m, enum imp_key key, uint64_t mask)
{
  char buf[2048];
  if (key == IK_BOUNDING && (mask & caps_all()) == caps_all()) imp_set(m, key, "all");
  else imp_set(m, key, "%s", mask ? caps_format(mask, buf, sizeof buf) : "none");
}

static int is_root_name(char const *u)
{
  return !u || !strcmp(u, "root") || !strcmp(u, "0");
}

/* The supplementary groups systemd gives User=: its login's (initgroups),
 * then SupplementaryGroups=; capinit's groups key replaces, so both. */
static void user_groups(imp *m, ids_user const *u)
{
  gid_t *gids = 0;
  char buf[4096];
  size_t n = 0, i;
  int k = ids_user_groups(m->root, u->name, u->gid, &gids);
  for (i = 0; k > 0 && i < (size_t)k; i++) n += (size_t)snprintf(buf + n, sizeof buf - n, "%s%u", n ? ", " : "", (unsigned)gids[i]);
  for (i = 0; i < m->groups.n; i++) n += (size_t)snprintf(buf + n, sizeof buf - n, "%s%s", n ? ", " : "", m->groups.v[i]);
  free(gids);
  imp_set(m, IK_GROUPS, "%s", buf);
}

/* User= (not root): the user, its groups, and whether it exists where the
 * unit is imported from. */
static void as_user(imp *m)
{
  ids_user u;
  gid_t g;
  if (ids_user_by_name(m->root, m->user, &u) != 1) {
    imp_say(m, IMP_ERROR, IK_USER, m->user_where, "User=%s: no such user in %s/etc/passwd (systemd-sysusers or the"
            " package makes it): capinit needs it when it reads the file", m->user, m->root);
    return;
  }
  imp_set(m, IK_USER, "%s", m->user);
  if (m->group) {
    if (ids_group_by_name(m->root, m->group, &g) != 1)
      imp_say(m, IMP_ERROR, IK_GROUP, m->user_where, "Group=%s: no such group in %s/etc/group", m->group, m->root);
    imp_set(m, IK_GROUP, "%s", m->group);
  }
  if (m->groups.n) user_groups(m, &u);
}

static void root_privilege(imp *m, uint64_t bset, int noroot)
{
  imp_set(m, IK_MODE, noroot ? "noroot" : "legacy");
  if (!noroot && (bset & caps_all()) == caps_all())
    imp_say(m, IMP_NOTE, IK_MODE, m->unit_name, "no User= and no CapabilityBoundingSet=: systemd runs it as full"
            " root; so does mode = legacy");
  else if (!noroot)
    imp_say(m, IMP_NOTE, IK_MODE, m->bounding_where ? m->bounding_where : m->unit_name, "uid 0 with the bounding set"
            " of the unit: mode = legacy, as root holds its whole bounding set");
  if ((bset & caps_all()) != caps_all() || noroot) set_caps(m, IK_BOUNDING, bset);
  if (noroot) set_caps(m, IK_CAPABILITIES, m->ambient & bset);
  else if (m->ambient)
    imp_say(m, IMP_NOTE, IK_CAPABILITIES, m->unit_name, "AmbientCapabilities=: uid 0 holds its bounding set anyway");
}

static void user_privilege(imp *m, uint64_t bset)
{
  uint64_t caps = m->ambient & bset;
  as_user(m);
  if (m->nnp == 1) {
    imp_set(m, IK_MODE, "noroot");
    imp_say(m, IMP_NOTE, IK_MODE, m->nnp_where, "User= and NoNewPrivileges=yes: no set-id program or file capability"
            " gives it anything under systemd either: mode = noroot, with only its ambient capabilities");
  } else {
    imp_set(m, IK_MODE, "legacy");
    if ((bset & caps_all()) != caps_all()) set_caps(m, IK_BOUNDING, bset);
  }
  set_caps(m, IK_CAPABILITIES, caps);
}

/* The credentials of the main command.  Returns whether it runs as uid 0. */
static int privilege(imp *m)
{
  unsigned fl = m->start.n ? m->start.v[m->start.n - 1].flags : 0;
  char const *where = m->start.n ? m->start.v[m->start.n - 1].where : m->unit_name;
  uint64_t bset = (m->bounding_set ? m->bounding : caps_all()) & ~m->drop;
  int noroot = imp_list_has(&m->securebits, "noroot"), as_root = is_root_name(m->user);
  size_t i;
  if (fl & EXEC_FULL_PRIVILEGE) {
    imp_say(m, IMP_NOTE, IK_MODE, where, "'+': systemd runs the command as full root, outside the unit's sandbox:"
            " mode = legacy, nothing else");
    imp_set(m, IK_MODE, "legacy");
    return 1;
  }
  if ((fl & EXEC_NO_CREDENTIALS) && !as_root)
    imp_say(m, IMP_NOTE, IK_USER, where, "'!': systemd runs the command as root, not as %s (the daemon changes user"
            " itself): no user key", m->user);
  as_root = as_root || (fl & EXEC_NO_CREDENTIALS);
  if (as_root) root_privilege(m, bset, noroot);
  else user_privilege(m, bset);
  if (m->securebits.n) {
    char buf[256];
    size_t n = 0;
    for (i = 0; i < m->securebits.n; i++) n += (size_t)snprintf(buf + n, sizeof buf - n, "%s%s", i ? ", " : "", m->securebits.v[i]);
    imp_set(m, IK_SECUREBITS, "%s", buf);
  }
  if (m->nnp == 1) imp_set(m, IK_NNP, "yes");
  return as_root;
}

/* path exists in the root imported from, as itself (no link on the way,
 * which capinit refuses for a path of the file tree) */
static int real_dir(imp const *m, char const *path)
{
  char full[4096], real[4096], base[4096];
  struct stat st;
  snprintf(full, sizeof full, "%s%s", m->root, path);
  if (lstat(full, &st) < 0 || !realpath(full, real)) return 0;
  if (!*m->root) return !strcmp(real, full);
  if (!realpath(m->root, base)) return 0;
  return !strncmp(real, base, strlen(base)) && !strcmp(real + strlen(base), path);
}

static int covered(imp_list const *rw, char const *path)
{
  size_t i;
  for (i = 0; i < rw->n; i++) {
    size_t n = strlen(rw->v[i]);
    if (!strcmp(rw->v[i], "/") || (!strncmp(rw->v[i], path, n) && (path[n] == '/' || !path[n]))) return 1;
  }
  return 0;
}

/* The paths of one list into a key, those that exist as themselves. */
static void paths_into(imp *m, imp_paths const *p, enum imp_key key, imp_list *seen)
{
  size_t i;
  for (i = 0; i < p->n; i++) {
    if (!real_dir(m, p->v[i].path))
      imp_say(m, p->v[i].optional ? IMP_NOTE : IMP_WARNING, key, p->v[i].where, "%s: does not exist, or is a"
              " symbolic link, in %s/: left out%s", p->v[i].path, m->root,
              p->v[i].optional ? " ('-')" : " (systemd would not start the service)");
    else if (!covered(seen, p->v[i].path)) {
      imp_list_add(seen, p->v[i].path);
      imp_add(m, key, "%s", p->v[i].path);
    }
  }
}

static void protect_paths(imp *m, imp_list *seen_ro)
{
  static char const *const sys[] = { "/usr", "/boot", "/efi", "/etc" };
  static char const *const home[] = { "/home", "/root", "/run/user" };
  size_t i;
  for (i = 0; m->protect_system == P_YES || m->protect_system == P_FULL ? i < 3 + (m->protect_system == P_FULL) : 0; i++)
    if (real_dir(m, sys[i])) imp_add(m, IK_BIND_RO, "%s", sys[i]), imp_list_add(seen_ro, sys[i]);
  if (m->protect_system == P_YES || m->protect_system == P_FULL)
    imp_say(m, IMP_NOTE, IK_BIND_RO, m->unit_name, "ProtectSystem=%s: those of /usr, /boot, /efi%s that exist, read-only",
            m->protect_system == P_FULL ? "full" : "yes", m->protect_system == P_FULL ? ", /etc" : "");
  for (i = 0; m->protect_home && i < 3; i++)
    if (real_dir(m, home[i]) && !covered(seen_ro, home[i])) imp_add(m, IK_BIND_RO, "%s", home[i]), imp_list_add(seen_ro, home[i]);
  if (m->protect_home == 1)
    imp_say(m, IMP_WARNING, IK_BIND_RO, m->unit_name, "ProtectHome=yes: capinit cannot hide /home, /root and"
            " /run/user: read-only instead (the service can still read them)");
}

/* DeviceAllow= and DevicePolicy=: a /dev of the service's own, with the
 * nodes named; a class of devices has no node to name. */
static void devices(imp *m, int read_only)
{
  size_t i;
  int closed = m->private_devices || m->device_policy_closed || m->device_allow.n;
  if (!closed) {
    if (read_only && !m->private_devices_set) {
      imp_set(m, IK_PRIVATE_DEVICES, "no");
      imp_say(m, IMP_NOTE, IK_PRIVATE_DEVICES, m->unit_name, "ProtectSystem=strict leaves the machine's /dev to the"
              " service under systemd: private-devices = no (capinit's default with read-only is yes)");
    }
    return;
  }
  imp_set(m, IK_PRIVATE_DEVICES, "yes");
  for (i = 0; i < m->device_allow.n; i++) {
    char *sp = strchr(m->device_allow.v[i], ' '), *where = xstrndup(m->device_allow.v[i], (size_t)(sp - m->device_allow.v[i]));
    char node[256];
    sscanf(sp + 1, "%255s", node);
    if (!strncmp(node, "/dev/", 5) && strcmp(node, "/dev/null") && strcmp(node, "/dev/zero") && strcmp(node, "/dev/full")
        && strncmp(node, "/dev/u", 6) && strcmp(node, "/dev/random") && strcmp(node, "/dev/tty"))
      imp_add(m, IK_DEVICES, "%s", node);
    else if (strncmp(node, "/dev/", 5))
      imp_say(m, IMP_WARNING, IK_DEVICES, where, "DeviceAllow=%s: capinit passes device nodes by name, not a class:"
              " the service's /dev has none of them", sp + 1);
    free(where);
  }
}

/* What a Protect*= switch becomes, given the tree. */
static void protections(imp *m, int read_only, int mount_ns, uint64_t bset)
{
  if (m->protect_proc)
    imp_say(m, mount_ns ? IMP_NOTE : IMP_WARNING, IK_PROC_SUBSET, m->unit_name, mount_ns
            ? "ProtectProc=: the service's own /proc is hidepid=invisible" : "ProtectProc=: capinit mounts a /proc of the"
            " service's own (hidepid=invisible) only with a key of the file tree: not here");
  if (m->protect_tunables)
    imp_say(m, read_only ? IMP_NOTE : IMP_WARNING, IK_READ_ONLY, m->unit_name, read_only
            ? "ProtectKernelTunables=: /proc/sys stays read-only under read-only" : "ProtectKernelTunables=: capinit"
            " keeps /proc/sys read-only only with read-only = yes: not here");
  if (m->protect_cgroups)
    imp_say(m, read_only ? IMP_NOTE : IMP_WARNING, IK_READ_ONLY, m->unit_name, read_only
            ? "ProtectControlGroups=: /sys stays read-only under read-only" : "ProtectControlGroups=: /sys is writable"
            " without read-only = yes");
  if (m->protect_hostname)
    imp_say(m, bset & BIT(CAP_SYS_ADMIN) ? IMP_WARNING : IMP_NOTE, IK_BOUNDING, m->unit_name, bset & BIT(CAP_SYS_ADMIN)
            ? "ProtectHostname=: capinit gives no UTS namespace without a host name to set: cap_sys_admin may change it"
            : "ProtectHostname=: changing the host name needs cap_sys_admin, which the service lacks");
}

/* The system-call filter's keys. */
static void filter(imp *m, int contained, uint64_t bset)
{
  char buf[512];
  size_t n = 0;
  int g, filtered;
  if (m->restrict_ns) imp_set(m, IK_USER_NAMESPACES, "no");
  if (m->restrict_ns_other && (bset & BIT(CAP_SYS_ADMIN)))
    imp_weaker(m, IK_USER_NAMESPACES, m->unit_name, "RestrictNamespaces=: capinit's filter refuses user namespaces only;"
               " with cap_sys_admin the service can make the other kinds");
  for (g = 0; g < SG_COUNT; g++)
    if (m->syscalls_deny & (1u << g)) n += (size_t)snprintf(buf + n, sizeof buf - n, "%s-%s", n ? " " : "", syscall_groups[g].name);
  if (n) imp_set(m, IK_SYSTEM_CALLS, "%s", buf);
  filtered = contained || n || m->restrict_ns;
  if (m->native_only)
    imp_say(m, filtered ? IMP_NOTE : IMP_WARNING, IK_SYSTEM_CALLS, m->unit_name, filtered
            ? "SystemCallArchitectures=native: capinit's filter allows the native ABI only"
            : "SystemCallArchitectures=native: this service gets no filter of capinit's: other ABIs are allowed");
  if (m->restrict_suid)
    imp_say(m, contained ? IMP_NOTE : IMP_WARNING, IK_SYSTEM_CALLS, m->unit_name, contained
            ? "RestrictSUIDSGID=: the filter of a contained service refuses set-id modes"
            : "RestrictSUIDSGID=: only a contained service's filter refuses set-id modes: not this one");
}

/* The file tree, namespaces and filter; rw gets the writable paths.
 * Returns whether the tree is read-only. */
static int container(imp *m, int noroot, uint64_t bset, imp_list *rw)
{
  imp_list ro = { 0, 0 }, b = { 0, 0 };
  int read_only = m->protect_system == P_STRICT, mount_ns;
  if (read_only) imp_set(m, IK_READ_ONLY, "yes");
  if (read_only) paths_into(m, &m->read_write, IK_READ_WRITE, rw);
  else if (m->read_write.n)
    imp_say(m, IMP_NOTE, IK_READ_WRITE, m->read_write.v[0].where, "ReadWritePaths=: no effect without ProtectSystem=strict,"
            " as under systemd");
  protect_paths(m, &ro);
  paths_into(m, &m->read_only, IK_BIND_RO, &ro);
  paths_into(m, &m->binds_ro, IK_BIND_RO, &ro);
  paths_into(m, &m->binds, IK_BIND, &b);
  if (m->root_dir) imp_set(m, IK_ROOT_DIRECTORY, "%s", m->root_dir);
  if (m->private_tmp) imp_set(m, IK_PRIVATE_TMP, "yes");
  devices(m, read_only);
  if (m->proc_subset) imp_set(m, IK_PROC_SUBSET, "pid");
  if (m->private_network) imp_set(m, IK_NETWORK, "none");
  mount_ns = read_only || ro.n || b.n || m->private_tmp || m->proc_subset || m->root_dir || m->out[IK_PRIVATE_DEVICES].n;
  protections(m, read_only, mount_ns, bset);
  filter(m, noroot || mount_ns || m->private_network, bset);
  imp_list_free(&ro);
  imp_list_free(&b);
  return read_only;
}

/* The nearest directory above path that exists, into buf. */
static char const *existing_parent(imp const *m, char const *path, char *buf, size_t len)
{
  char *slash;
  snprintf(buf, len, "%s", path);
  while ((slash = strrchr(buf, '/')) && slash != buf) {
    *slash = 0;
    if (real_dir(m, buf)) return buf;
  }
  return "/";
}

/* One directory systemd makes for the service (kind: 0 runtime, 1 state,
 * 2 logs, 3 cache): made by the command's script when it runs as root,
 * and writable under read-only. */
static void one_dir(imp *m, imp_path const *d, int as_root, int read_only, imp_list *rw, imp_list *prelude)
{
  char line[8192], parent[4096];
  char const *mode = m->dir_mode[d->optional] ? m->dir_mode[d->optional] : "0755", *target;
  int exists = d->optional != 0 && real_dir(m, d->path);
  if (!exists && as_root) {
    int n = snprintf(line, sizeof line, "mkdir -p -m %s %s", mode, d->path);
    if (m->user && !is_root_name(m->user))
      snprintf(line + n, sizeof line - (size_t)n, " && chown %s:%s %s", m->user, m->group ? m->group : "", d->path);
    imp_list_add(prelude, line);
    imp_say(m, IMP_NOTE, IK_COMMAND, d->where, "%s: made by the command's script at each start, as systemd makes it", d->path);
  } else if (!exists) {
    imp_say(m, IMP_WARNING, IK_COMMAND, d->where, "%s: capinit makes no directory, and %s may not make it: make it"
            " before the service starts (a oneshot of root's)", d->path, m->user);
  }
  if (!read_only || covered(rw, d->path)) return;
  target = exists ? d->path : existing_parent(m, d->path, parent, sizeof parent);
  if (!exists)
    imp_say(m, IMP_WARNING, IK_READ_WRITE, d->where, "%s: a read-write path must exist when capinit reads the file:"
            " the whole of %s is writable instead", d->path, target);
  if (!covered(rw, target)) {
    imp_list_add(rw, target);
    imp_add(m, IK_READ_WRITE, "%s", target);
  }
}

static void dirs(imp *m, int as_root, int read_only, imp_list *rw, imp_list *prelude)
{
  size_t i;
  for (i = 0; i < m->made_dirs.n; i++) one_dir(m, &m->made_dirs.v[i], as_root, read_only, rw, prelude);
}

/* agetty - (the terminal on standard input, StandardInput=tty): capinit
 * gives no terminal, so agetty opens TTYPath= itself; TERM as systemd
 * sets it for a terminal. */
static void terminal(imp *m)
{
  imp_cmd *c = m->start.n ? &m->start.v[m->start.n - 1] : 0;
  char const *tty = m->tty ? m->tty : "/dev/console";
  int i;
  if (!m->tty_stdin || !c) return;
  for (i = 1; c->argv[i] && strcmp(c->argv[i], "-"); i++) {}
  if (!c->argv[i]) {
    imp_say(m, IMP_WARNING, IK_COMMAND, c->where, "StandardInput=tty: capinit gives the service no terminal");
    return;
  }
  free(c->argv[i]);
  c->argv[i] = xstrdup(tty + (strncmp(tty, "/dev/", 5) ? 0 : 5));
  imp_say(m, IMP_NOTE, IK_COMMAND, c->where, "StandardInput=tty: capinit gives no terminal; the program opens %s itself", tty);
}

static void socket_entry(imp *m, unit_entry const *e, char const *sock)
{
  char *w = imp_where(e), parent[4096];
  char const *v = e->value;
  if (!strcmp(e->key, "ListenStream")) {
    snprintf(parent, sizeof parent, "%.*s", v[0] == '/' ? (int)(strrchr(v, '/') - v) : 0, v);
    if (v[0] == '/' && parent[0] && !real_dir(m, parent))
      imp_say(m, IMP_WARNING, IK_LISTEN, w, "ListenStream=%s: capinit binds it at each start: %s must exist then"
              " (systemd makes it)", v, parent);
    if ((v[0] >= '0' && v[0] <= '9') || v[0] == '[' || v[0] == '/') imp_add(m, IK_LISTEN, "%s", v);
    else imp_say(m, IMP_WARNING, IK_LISTEN, w, "ListenStream=%s: not an address capinit's listen takes", v);
  } else if (!strncmp(e->key, "Listen", 6)) {
    imp_say(m, IMP_WARNING, IK_LISTEN, w, "%s=%s: capinit's listen makes stream sockets only: the service gets none"
            " (a daemon that then makes its own, as rsyslog's imuxsock, binds it itself)", e->key, v);
  } else if (!strcmp(e->key, "Accept") && !imp_false(v)) {
    imp_say(m, IMP_ERROR, IK_LISTEN, w, "Accept=yes: capinit starts no service per connection");
  } else if (!strcmp(e->key, "SocketMode") && strcmp(v, "0666")) {
    imp_say(m, IMP_WARNING, IK_LISTEN, w, "SocketMode=%s: capinit's Unix sockets are mode 0666, owned by root", v);
  } else if (!strcmp(e->key, "SocketUser") || !strcmp(e->key, "SocketGroup")) {
    imp_say(m, IMP_WARNING, IK_LISTEN, w, "%s=%s: capinit's Unix sockets are owned by root", e->key, v);
  }
  (void)sock;
  free(w);
}

/* The sockets the unit asks for (Requires=, Wants=, Sockets=). */
static void sockets(imp *m)
{
  size_t i, j;
  for (i = 0; i < m->listen.n; i++) {
    char *sp = strchr(m->listen.v[i], ' '), *where = xstrndup(m->listen.v[i], (size_t)(sp - m->listen.v[i]));
    char *path = import_find_unit(m->root, m->dir, sp + 1), *buf = 0;
    unit u = { 0 };
    size_t len = 0;
    FILE *f = path ? fopen(path, "r") : 0;
    if (f) {
      buf = xmalloc(1 << 20);
      len = fread(buf, 1, (1 << 20) - 1, f);
      fclose(f);
    }
    if (!f) imp_say(m, IMP_WARNING, IK_LISTEN, where, "%s: no such socket unit: the service gets no socket", sp + 1);
    else {
      unit_parse_buffer(&u, sp + 1, buf, len);
      for (j = 0; j < u.n; j++)
        if (!strcmp(u.v[j].section, "Socket")) socket_entry(m, &u.v[j], sp + 1);
      imp_say(m, IMP_NOTE, IK_LISTEN, where, "%s: capinit makes its sockets at each start, for the service alone", sp + 1);
    }
    unit_free(&u);
    free(buf);
    free(path);
    free(where);
  }
}

/* depends = only a service of capinit's: one converted in this run, or
 * already in the directory written; otherwise after, which starts
 * nothing. */
void import_deps(imp *m, imp_list const *converted)
{
  char path[4096];
  size_t i;
  for (i = 0; i < m->depends.n; i++) {
    char const *d = m->depends.v[i];
    snprintf(path, sizeof path, "%s/%s.svc", m->outdir, d);
    if (imp_list_has(converted, d) || access(path, F_OK) == 0) imp_add(m, IK_DEPENDS, "%s", d);
    else {
      imp_say(m, IMP_WARNING, IK_DEPENDS, m->unit_name, "Requires=%s.service: not a service of capinit's (import it"
              " too): after = %s orders only", d, d);
      if (!imp_list_has(&m->after, d)) imp_list_add(&m->after, d);
    }
  }
  for (i = 0; i < m->after.n; i++)
    if (strcmp(m->after.v[i], m->name) && !imp_list_has(&m->out[IK_DEPENDS], m->after.v[i]))
      imp_add(m, IK_AFTER, "%s", m->after.v[i]);
}

static void duration(imp *m, enum imp_key key, uint32_t ms)
{
  if (!ms) return;
  if (ms % 1000) imp_set(m, key, "%ums", (unsigned)ms);
  else imp_set(m, key, "%us", (unsigned)(ms / 1000));
}

/* Restart, stop, log, environment and the process's settings. */
static void run_keys(imp *m)
{
  size_t i;
  if (m->description) imp_set(m, IK_DESCRIPTION, "%s", m->description);
  if (m->type != T_ONESHOT) imp_set(m, IK_RESTART, "%s", m->restart ? m->restart : "never");
  else if (m->restart && strcmp(m->restart, "never")) imp_set(m, IK_RESTART, "%s", m->restart);
  duration(m, IK_RESTART_DELAY, m->restart_delay_ms);
  duration(m, IK_READY_TIMEOUT, m->start_timeout_ms);
  duration(m, IK_STOP_TIMEOUT, m->stop_timeout_ms);
  if (m->stop_signal) imp_set(m, IK_STOP_SIGNAL, "%s", m->stop_signal);
  if (m->stdout_null && m->stderr_kind != 2) imp_set(m, IK_LOG, "none");
  if (!m->enabled) imp_set(m, IK_ENABLED, "no");
  for (i = 0; i < m->env.n; i++) imp_add(m, IK_ENVIRONMENT, "%s", m->env.v[i]);
  if (m->umask) imp_set(m, IK_UMASK, "%s", m->umask);
  if (m->directory) imp_set(m, IK_DIRECTORY, "%s", m->directory);
  for (i = 0; i < m->rlimits.n; i++) imp_add(m, IK_RLIMIT, "%s", m->rlimits.v[i]);
}

void import_decide(imp *m)
{
  imp_list rw = { 0, 0 }, prelude = { 0, 0 };
  uint64_t bset = (m->bounding_set ? m->bounding : caps_all()) & ~m->drop;
  int as_root, read_only, full;
  if (m->tty_stdin && !imp_list_has_name(&m->env, "TERM"))
    imp_list_add(&m->env, m->tty && !strncmp(m->tty, "/dev/tty", 8) && m->tty[8] >= '0' && m->tty[8] <= '9'
                          ? "TERM=linux" : "TERM=vt220");
  import_exec_expand(m);
  terminal(m);
  as_root = privilege(m);
  full = m->start.n && (m->start.v[m->start.n - 1].flags & EXEC_FULL_PRIVILEGE);
  read_only = full ? 0 : container(m, imp_list_has(&m->securebits, "noroot") || (m->out[IK_MODE].n && !strcmp(m->out[IK_MODE].v[0], "noroot")), bset, &rw);
  dirs(m, as_root, read_only, &rw, &prelude);
  import_commands(m, &prelude, as_root);
  sockets(m);
  run_keys(m);
  imp_list_free(&rw);
  imp_list_free(&prelude);
}

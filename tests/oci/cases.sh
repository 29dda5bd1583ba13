# tests/oci/cases.sh -- the cases of the oci tier, for the runtime RT
# (test_runc.sh, test_crun.sh source it with B and RT set).  What the
# kernel says of each process is read inside the container from
# /proc/PID/status and decoded here by capsh; capinit's own words only
# name the pids and states.
. tests/lib.sh
. tests/oci/oci_lib.sh
oci_require

HTTPD_CAPS=cap_net_bind_service

# Both services up; httpd with exactly net_bind_service in its effective,
# permitted and bounding sets, health with none; both no_new_privs (their
# files say so).
services_as_declared() { # NAME WHAT
  got=$(state_of "$1" httpd)\ $(state_of "$1" health)
  t_eq "$got" "up up" "$RT $2: httpd and health up (capctl status inside)"
  [ "$got" = "up up" ] || sed 's/^/# capinit: /' "$T/$1/err"
  p=$(pid_of "$1" httpd)
  q=$(pid_of "$1" health)
  for f in CapEff CapPrm CapBnd; do
    t_eq "$(decoded "$1" "$p" $f)" "$HTTPD_CAPS" "$RT $2: httpd's $f (/proc, capsh --decode)"
    t_eq "$(decoded "$1" "$q" $f)" "" "$RT $2: health's $f is empty"
  done
  t_eq "$(field "$1" "$p" NoNewPrivs) $(field "$1" "$q" NoNewPrivs)" "1 1" "$RT $2: httpd's and health's NoNewPrivs"
  t_eq "$(field "$1" "$p" Uid)" 80 "$RT $2: httpd runs as www (80)"
  t_eq "$(x "$1" /bin/wget -q -O - http://127.0.0.1/ | head -n 1)" "<!DOCTYPE html>" "$RT $2: httpd serves port 80"
}

# ---- a. Docker's default capability set -----------------------------------
bundle docker
start docker
settled docker
t_ok $? "$RT docker: capinit says every service settled"
t_eq "$(decoded docker 1 CapEff)" "$(set_of "$CAPS_DOCKER")" "$RT docker: control: capinit holds Docker's set (/proc/1)"
t_eq "$(field docker 1 NoNewPrivs)" 0 "$RT docker: control: capinit has no no_new_privs"
services_as_declared docker docker

# ---- f. stopped by the runtime: SIGTERM, then the SIGKILL control ----------
stop_and_wait docker TERM
t_eq "$rc" 0 "$RT kill TERM: capinit exits 0 (capinit(8), supervisor mode)"
t_ok "$([ "$took" -lt 10000 ] && echo 0)" "$RT kill TERM: done in $took ms, within the runtime's 10 s"
order=$(grep -o 'service [a-z]*: stop[a-z]*' "$T/docker/err" | paste -sd/ -)
t_eq "$order" "service health: stopping/service health: stopped/service httpd: stopping/service httpd: stopped" \
  "$RT kill TERM: health (the dependent) stopped before httpd starts stopping"
t_eq "$(tail -n 1 "$T/docker/err")" "capinit: every service is down" "$RT kill TERM: capinit's last word"

bundle kill
start kill
settled kill
t_eq "$(state_of kill httpd)" up "$RT kill KILL: control: httpd was up"
stop_and_wait kill KILL
t_eq "$rc" 137 "$RT kill KILL: the container ends with 128 + 9"
t_eq "$(grep -c 'stopping' "$T/kill/err")" 0 "$RT kill KILL: nothing was stopped in order"
t_eq "$(rt list -q | grep -c "^$(ctid kill)\$")" 0 "$RT kill KILL: the container is gone ($RT list)"

# ---- b. only what the services need --------------------------------------
bundle minimal
caps minimal "$CAPS_MINIMAL"
start minimal
settled minimal
t_eq "$(decoded minimal 1 CapBnd)" "$(set_of "$CAPS_MINIMAL")" "$RT minimal: capinit's bounding set is exactly $CAPS_MINIMAL"
t_eq "$(decoded minimal 1 CapEff)" "$(set_of "$CAPS_MINIMAL")" "$RT minimal: capinit's effective set is the same"
services_as_declared minimal minimal
stop_and_wait minimal TERM
t_eq "$rc" 0 "$RT minimal: capinit exits 0 on TERM"

# control: one less (setuid), and httpd cannot become www
bundle nosetuid
caps nosetuid "CAP_SETGID CAP_SETPCAP CAP_KILL CAP_NET_BIND_SERVICE"
start nosetuid
settled nosetuid
t_eq "$(state_of nosetuid httpd) $(state_of nosetuid health)" "failed down" "$RT minimal without setuid: httpd failed, health never started"
t_eq "$(grep -c "^capinit: service httpd: fatal: start failed at stage uid: capinit holds no cap_setuid (the container's bounding set): add it to the container, or give capinit's own user to httpd.svc$" "$T/nosetuid/err")" 1 \
  "$RT minimal without setuid: the stage and the capability the container lacks, said once"
stop_and_wait nosetuid TERM

# runc's own default set: what runs there today is a service that asks for
# nothing capinit would have to change: root (capinit's user), no
# supplementary group (capinit has none from runc), legacy mode (no
# bounding drop, no securebits).  It gets, as root does, its whole
# bounding set: exactly runc's set.  The example's httpd needs user www,
# and fails at its first stage that needs privilege.
bundle runcset
caps runcset "$CAPS_RUNC"
svc runcset rootweb <<'EOF2'
command = /bin/busybox httpd -f -p 8080 -h /srv/www
groups = none
log = console
EOF2
start runcset
settled runcset
t_eq "$(state_of runcset rootweb) $(state_of runcset httpd) $(state_of runcset health)" "up failed down" \
  "$RT runc's default set: root with groups = none up, the example's httpd failed, health not started"
t_eq "$(decoded runcset "$(pid_of runcset rootweb)" CapEff)" "$(set_of "$CAPS_RUNC")" "$RT runc's default set: the root service holds exactly it (/proc, capsh)"
t_eq "$(grep -c '^capinit: service httpd: fatal: start failed at stage groups: ' "$T/runcset/err")" 1 "$RT runc's default set: httpd fails at stage groups, said once"
stop_and_wait runcset TERM
t_eq "$rc" 0 "$RT runc's default set: capinit exits 0 on TERM"

# The example's own services under runc's default set cannot run: httpd
# names user www (setgid, setuid) and mode noroot (setpcap), changes no
# stage can skip.  What capinit says is the container's part: the
# capability it lacks, by name (engine/privilege.c, docs/containers.md).
t_eq "$(sed -n 's/^capinit: service httpd: fatal: start failed at stage groups: //p' "$T/runcset/err")" \
  "capinit holds no cap_setgid (the container's bounding set): add it to the container, or give capinit's own groups to httpd.svc" \
  "$RT runc's default set: httpd's failure names cap_setgid as the container's"

# ---- c. a read-only root with a tmpfs /run -------------------------------
bundle ro
edit ro '.root.readonly = true | .mounts += [{destination: "/run", type: "tmpfs", source: "tmpfs", options: ["nosuid", "nodev", "mode=755"]}]'
start ro
settled ro
services_as_declared ro "read-only root"
t_eq "$(x ro /bin/sh -c 'echo x > /etc/x' 2>&1)" "/bin/sh: can't create /etc/x: Read-only file system" "$RT read-only root: control: / is read-only"
stop_and_wait ro TERM
t_eq "$rc" 0 "$RT read-only root: capinit exits 0 on TERM"

# control: read-only without /run of its own, and capinit cannot make its
# runtime directory
bundle rorun
edit rorun '.root.readonly = true'
start rorun
wait "$run_pid"
t_eq "$?" 111 "$RT read-only root, no tmpfs /run: capinit exits 111"
t_eq "$(grep -c '^capinit: fatal: unable to create /run/capinit: Read-only file system' "$T/rorun/err")" 1 "$RT read-only root, no tmpfs /run: it says why"

# ---- d. a non-root container user ----------------------------------------
# As Kubernetes' runAsUser gives it: Docker's bounding set, nothing
# effective; /run a tmpfs the user owns (an emptyDir).  capinit runs as
# that user, holds nothing, and a service that must change its identity
# fails at its first stage that needs privilege.
bundle user
caps user "$CAPS_DOCKER" ""
edit user '.process.user = {uid: 65534, gid: 65534} | .mounts += [{destination: "/run", type: "tmpfs", source: "tmpfs", options: ["nosuid", "nodev", "mode=755", "uid=65534", "gid=65534"]}]'
start user
settled user
t_eq "$(x user /bin/cat /proc/1/status | awk '$1 == "Uid:" { print $2, $3, $4, $5 }')" "65534 65534 65534 65534" "$RT user 65534: capinit runs as 65534 (/proc/1)"
t_eq "$(decoded user 1 CapEff)" "" "$RT user 65534: capinit holds no capability"
t_eq "$(grep -c '^capinit: service httpd: fatal: start failed at stage groups: unable to set the supplementary groups (1): Operation not permitted' "$T/user/err")" 1 \
  "$RT user 65534: httpd fails at stage groups, said once"
t_eq "$(grep -c '^capinit: /etc/capinit/services/health.svc:5: error: the service.s file tree is writable' "$T/user/err")" 1 \
  "$RT user 65534: health (capinit's own uid) is refused: it could write capinit's runtime directory"
t_eq "$(grep -c 'all 1 services settled .*: 0 ready, 1 failed' "$T/user/err")" 1 "$RT user 65534: 0 ready, 1 failed"
t_eq "$(x user /bin/ps -o user,args | tr -s ' ' | awk 'NR > 1 && $2 != "/bin/ps"' | paste -sd/ -)" "nobody /sbin/capinit --container -c /etc/capinit" \
  "$RT user 65534: no service process runs beside capinit"
stop_and_wait user TERM
t_eq "$rc" 0 "$RT user 65534: capinit exits 0 on TERM"

# ---- e. noNewPrivileges in config.json -----------------------------------
bundle nnp
edit nnp '.process.noNewPrivileges = true'
start nnp
settled nnp
t_eq "$(field nnp 1 NoNewPrivs)" 1 "$RT noNewPrivileges: capinit's NoNewPrivs is 1"
services_as_declared nnp noNewPrivileges
stop_and_wait nnp TERM

# ---- g. zombies reaped ---------------------------------------------------
# orphans: a subshell starts a short child and exits at once, every 0.2 s;
# the child's parent is gone, capinit (PID 1) inherits it.  Control:
# a parent that lives and never waits keeps its child a zombie, which the
# same count sees.
bundle zombie
svc zombie orphans <<'EOF'
command = /bin/sh -c "while :; do ( /bin/sleep 0.1 & ); /bin/sleep 0.2; done"
user = nobody
group = nogroup
mode = noroot
log = console
EOF
svc zombie keeper <<'EOF'
command = /bin/sh -c "/bin/sleep 0 & exec /bin/sleep 1000"
user = www
mode = noroot
log = console
EOF
start zombie
settled zombie
sleep 2
zombies() { # NAME: the pids in state Z, and their parents' command names
  x "$1" /bin/sh -c 'for s in /proc/[0-9]*/stat; do read -r p c st pp r < $s; [ "$st" = Z ] && echo "$c<$(cat /proc/$pp/comm)"; done' 2>/dev/null
}
t_eq "$(zombies zombie | paste -sd/ -)" "(sleep)<sleep" "$RT zombies: only the control's child of a live parent is a zombie, none of the orphans'"
t_eq "$(state_of zombie orphans)" up "$RT zombies: the orphan maker ran all along"
stop_and_wait zombie TERM
t_eq "$rc" 0 "$RT zombies: capinit exits 0 on TERM"

t_done

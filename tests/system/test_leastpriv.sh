#!/bin/sh
# tests/system/test_leastpriv.sh -- capinit in a container that gives it
# only some capabilities (issue 39): capinit runs as root under the
# bounding set a runtime gives (setpriv, as runc or Docker would), its
# groups those of root; a stage with nothing to do needs no capability, a
# stage that needs one capinit lacks fails with a line that names it as
# the container's, and capctl explain and check, run under the same set,
# predict the same.  The running services are read from the kernel
# (/proc/PID/status, decoded by capsh), never from capinit.
#
#   runc's default set (runc spec): audit_write, kill, net_bind_service
#   Docker's default set: the fourteen of DOCKER below
#   the issue's container: runc's set and no supplementary group
B=${1:-build}
. tests/lib.sh
. tests/supervise_lib.sh

command -v setpriv >/dev/null && command -v capsh >/dev/null || { echo "1..0 # SKIP no setpriv or capsh"; exit 0; }
[ "$(id -u)" = 0 ] || { echo "1..0 # SKIP needs root"; exit 0; }

RUNC=audit_write,kill,net_bind_service
DOCKER=chown,dac_override,fowner,fsetid,kill,setgid,setuid,setpcap,net_bind_service,net_raw,sys_chroot,mknod,audit_write,setfcap
REAL_CAPINIT=$CAPINIT
sv_init

# capinit and capctl as a runtime starts a container's process: root, the
# bounding set given (so its permitted and effective sets are that set),
# only root's group, nothing inherited
bounding_arg() { # SET: setpriv's --bounding-set value
  echo "-all,+$(echo "$1" | sed 's/,/,+/g')"
}
in_set() { # SET CMD ARGS
  set_=$1
  shift
  setpriv --bounding-set "$(bounding_arg "$set_")" --groups 0 --inh-caps -all --ambient-caps -all -- "$@"
}
cat >"$T/capinit-in-set" <<EOF
#!/bin/sh
exec setpriv --bounding-set "\$LP_BOUNDING" \$LP_GROUPS --inh-caps -all --ambient-caps -all -- "$REAL_CAPINIT" "\$@"
EOF
chmod 755 "$T/capinit-in-set"
CAPINIT=$T/capinit-in-set
start_in() { # SET [GROUPS]: capinit under SET, as PID 1 of its own PID
  # namespace, with setpriv's GROUPS option (--groups 0: root's group)
  LP_BOUNDING=$(bounding_arg "$1")
  LP_GROUPS=${2:---groups 0}
  export LP_BOUNDING LP_GROUPS
  sv_start
}

# uid 0, only root's group: nothing for groups, gid, uid to change
svc plain <<EOF
command = $HELPER stamp /dev/null
capabilities = net_bind_service
no-new-privileges = yes
writes-capinit-state = yes
EOF
# noroot: drops audit_write and kill from the bounding set (cap_setpcap)
svc web <<EOF
command = $HELPER stamp /dev/null
mode = noroot
capabilities = net_bind_service
no-new-privileges = yes
writes-capinit-state = yes
EOF
# noroot keeping the bounding set: only the securebits need cap_setpcap
svc sb <<EOF
command = $HELPER stamp /dev/null
mode = noroot
bounding = all
capabilities = net_bind_service
no-new-privileges = yes
writes-capinit-state = yes
EOF
# uid 0 with one more group (cap_setgid)
svc grp <<EOF
command = $HELPER stamp /dev/null
groups = root,tty
bounding = all
no-new-privileges = yes
writes-capinit-state = yes
EOF
# another user (cap_setgid for its groups, cap_setuid)
svc usr <<EOF
command = $HELPER stamp /dev/null
user = nobody
group = nogroup
groups = nogroup
capabilities = net_bind_service
no-new-privileges = yes
EOF

line() { # SERVICE STAGE CAP HOW: the line of a refused start, after "NAME: fatal: "
  echo "start failed at stage $2: capinit holds no $3 (the container's bounding set): add it to the container, or $4 $1.svc"
}

# capinit under SET; each NAME:STAGE:CAP:HOW refused, each other one up
run_set() { # LABEL SET REFUSED...
  label=$1
  set=$2
  shift 2
  start_in "$set"
  for name in plain web sb grp usr; do
    want=up
    for r in "$@"; do [ "${r%%:*}" = "$name" ] && want=failed; done
    sv_wait "$name" "$want" 20
    t_eq "$(sv_field "$name" state)" "$want" "$label: $name is $want"
  done
  for r in "$@"; do
    name=${r%%:*}; rest=${r#*:}; stage=${rest%%:*}; rest=${rest#*:}; cap=${rest%%:*}; how=${rest#*:}
    want=$(line "$name" "$stage" "$cap" "$how")
    t_eq "$(grep -c "^capinit: service $name: fatal: " "$T/capinit.out")" 1 "$label: $name: one line in capinit's log"
    t_eq "$(sed -n "s/^capinit: service $name: fatal: //p" "$T/capinit.out")" "$want" "$label: $name: the line names $cap as the container's"
    t_eq "$(in_set "$set" "$CAPCTL" explain -c "$T/c" "$name" | sed -n 's/^  launch *//p')" \
      "REFUSED at stage ${want#start failed at stage }" "$label: $name: explain under the same set predicts the same words"
    t_eq "$(in_set "$set" "$CAPCTL" check -c "$T/c" 2>/dev/null | grep -F "/$name.svc: warning: start would fail" | sed 's/^.*: warning: //')" \
      "start would fail at stage ${want#start failed at stage }" "$label: $name: check under the same set warns the same words"
  done
  sv_stop
}

# the kernel's view of a running service: FIELD of /proc/PID/status
live() { # NAME FIELD
  sv_in sed -n "s/^$2:[[:space:]]*//p" "/proc/$(sv_field "$1" pid)/status" | sed 's/[[:space:]]*$//'
}
# a capability field as capsh decodes it (its names, sorted)
caps_of() { # NAME FIELD
  capsh --decode="$(live "$1" "$2")" | sed 's/^[^=]*=*//' | tr ',' '\n' | sort | paste -sd' '
}

# 1. runc's default set: uid 0 with root's groups needs no cap_setgid
#    and runs; noroot needs cap_setpcap (the bounding set, the
#    securebits), other groups cap_setgid: refused, in the container's
#    words
run_set runc "$RUNC" \
  "web:bounding:cap_setpcap:set bounding = all in" \
  "sb:securebits:cap_setpcap:drop securebits from" \
  "grp:groups:cap_setgid:give capinit's own groups to" \
  "usr:groups:cap_setgid:give capinit's own groups to"

# the one that ran: legacy root keeps capinit's three, as the kernel says
start_in "$RUNC"
sv_wait plain up 20
t_eq "$(capsh --decode="$(sv_in sed -n 's/^CapBnd:[[:space:]]*//p' /proc/1/status)" | sed 's/^[^=]*=*//')|$(sv_in sed -n 's/^Groups:[[:space:]]*//p' /proc/1/status | sed 's/[[:space:]]*$//')" \
  "cap_kill,cap_net_bind_service,cap_audit_write|0" "runc: capinit itself runs with runc's bounding set and root's group only (the fixture)"
t_eq "$(caps_of plain CapEff)|$(caps_of plain CapBnd)|$(caps_of plain CapAmb)|$(live plain NoNewPrivs)|$(live plain Groups)" \
  "cap_audit_write cap_kill cap_net_bind_service|cap_audit_write cap_kill cap_net_bind_service|cap_net_bind_service|1|0" \
  "runc: plain runs with the container's set, ambient net_bind_service, no_new_privs, groups 0 (kernel, capsh)"
t_eq "$(in_set "$RUNC" "$CAPCTL" explain -c "$T/c" plain | sed -n 's/^  launch *//p')" ok "runc: explain predicts that plain runs"
t_eq "$(in_set "$RUNC" "$CAPCTL" check -c "$T/c" 2>/dev/null | grep -c 'start would fail')" 4 \
  "runc: check warns of the four refused, not of plain"
sv_stop

# 2. controls: runc's set with cap_setpcap and cap_setgid: web, sb and
#    grp run; usr needs cap_setuid
run_set runc+setpcap,setgid "$RUNC,setpcap,setgid" \
  "usr:uid:cap_setuid:give capinit's own user to"
start_in "$RUNC,setpcap,setgid"
for n in web sb grp; do sv_wait "$n" up 20; done
t_eq "$(caps_of web CapEff)|$(caps_of web CapPrm)|$(caps_of web CapBnd)|$(live web NoNewPrivs)|$(live web Groups)" \
  "cap_net_bind_service|cap_net_bind_service|cap_net_bind_service|1|0" \
  "runc+setpcap: web holds exactly net_bind_service, bounding too, no_new_privs (kernel, capsh)"
t_eq "$(caps_of sb CapEff)|$(caps_of sb CapBnd)|$(live sb NoNewPrivs)" \
  "cap_net_bind_service|cap_audit_write cap_kill cap_net_bind_service cap_setgid cap_setpcap|1" \
  "runc+setpcap: sb holds net_bind_service in capinit's whole bounding set (bounding = all)"
t_eq "$(live grp Groups)|$(caps_of grp CapEff)" "0 $(getent group tty | cut -d: -f3)|cap_audit_write cap_kill cap_net_bind_service cap_setgid cap_setpcap" \
  "runc+setgid: grp has groups root and tty, legacy root with capinit's set"
sv_stop

# 3. Docker's default set: everything runs, usr as nobody with exactly
#    net_bind_service
run_set docker "$DOCKER"
start_in "$DOCKER"
sv_wait usr up 20
t_eq "$(live usr Uid | tr -s '\t ' ' ')|$(live usr Groups)|$(caps_of usr CapEff)|$(caps_of usr CapPrm)|$(caps_of usr CapAmb)|$(live usr NoNewPrivs)" \
  "65534 65534 65534 65534|$(getent group nogroup | cut -d: -f3)|cap_net_bind_service|cap_net_bind_service|cap_net_bind_service|1" \
  "docker: usr runs as nobody with exactly net_bind_service and no_new_privs (kernel, capsh)"
t_eq "$(caps_of web CapEff)|$(caps_of web CapBnd)|$(live web NoNewPrivs)" "cap_net_bind_service|cap_net_bind_service|1" \
  "docker: web holds exactly net_bind_service, as the issue saw"
t_eq "$(in_set "$DOCKER" "$CAPCTL" check -c "$T/c" 2>/dev/null | grep -c 'start would fail')" 0 "docker: check warns of nothing"
sv_stop

# 4. the issue's container: runc's set and no supplementary group at all
#    (runc's default). A service's default list is its user's primary
#    group, 0: not the same to the kernel, so it needs cap_setgid; with
#    groups = none it asks for the empty list it already has, and runs
rm -f "$T"/c/services/*.svc
svc rootgroups <<EOF
command = $HELPER stamp /dev/null
bounding = all
writes-capinit-state = yes
EOF
svc nogroups <<EOF
command = $HELPER stamp /dev/null
groups = none
bounding = all
writes-capinit-state = yes
EOF
start_in "$RUNC" --clear-groups
sv_wait rootgroups failed 20
sv_wait nogroups up 20
t_eq "$(sv_in sed -n 's/^Groups:[[:space:]]*//p' /proc/1/status | sed 's/[[:space:]]*$//')" "" "runc, no group: capinit itself has no supplementary group (the fixture)"
t_eq "$(sed -n 's/^capinit: service rootgroups: fatal: //p' "$T/capinit.out")" "$(line rootgroups groups cap_setgid "give capinit's own groups to")" \
  "runc, no group: the default group list (0) needs cap_setgid, and the line says the container lacks it"
t_eq "$(sv_field nogroups state)|$(live nogroups Groups)|$(live nogroups Gid | tr -s '\t ' ' ')" "up||0 0 0 0" \
  "runc, no group: groups = none asks for what capinit has, and runs with no group (kernel)"
rg=$(line rootgroups groups cap_setgid "give capinit's own groups to")
t_eq "$(setpriv --bounding-set "$(bounding_arg "$RUNC")" --clear-groups --inh-caps -all --ambient-caps -all -- "$CAPCTL" explain -c "$T/c" rootgroups nogroups | sed -n 's/^  launch *//p' | tr '\n' '|')" \
  "REFUSED at stage groups: ${rg#start failed at stage groups: }|ok|" "runc, no group: explain under the same credentials predicts both"
sv_stop

t_done

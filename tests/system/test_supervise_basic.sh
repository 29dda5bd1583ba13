#!/bin/sh
# The supervisor's basic life: start in dependency order, status with live
# credentials, stop on SIGTERM in reverse order, exit 0.
B=${1:-build}
. tests/lib.sh
. tests/supervise_lib.sh
sv_init
: > "$T/order"
chmod 666 "$T/order"   # web writes to it as nobody

# net: an uncontained noroot uid 0, which owns root's files, capinit's
# among them: its file says so (capinit.svc(5), "capinit's own state")
svc net <<EOF
type = oneshot
command = $HELPER exit 0 $T/order
stop-command = $HELPER exit 0 $T/stoporder
mode = noroot
capabilities = net_admin
writes-capinit-state = yes
EOF
svc web <<EOF
command = $HELPER stamp $T/order
user = nobody
mode = noroot
capabilities = net_bind_service
no-new-privileges = yes
depends = net
EOF

sv_start
t_ok $? "capinit starts and listens on its control socket"
sv_wait web up
t_ok $? "web reaches up"
# up at its exec: web's stamp, its first act, may follow
i=0
while [ "$(wc -l < "$T/order")" -lt 2 ] && [ $i -lt 1200 ]; do sleep 0.05; i=$((i + 1)); done
t_eq "$(cut -d' ' -f1 "$T/order" | tr '\n' ' ')" "net web " "net ran before web (depends)"
t_eq "$(sv_field web cap_eff)" "0000000000000400" "web's live effective set is cap_net_bind_service"
t_eq "$(sv_field web uid)" "65534 65534 65534 65534" "web runs as nobody"
t_eq "$(sv_field web no_new_privs)" "true" "web has no_new_privs"
t_eq "$(sv_field net state)" "up" "the oneshot net is up (exited 0)"
pid=$(sv_field web pid)
t_eq "$(sv_in cat /proc/"$pid"/cmdline | tr '\0' ' ')" "$HELPER stamp $T/order " \
  "status pid is the command itself"
sv_ctl verify >/dev/null
t_eq "$?" 0 "capctl verify: the live credentials equal the prediction"
sv_stop
t_eq "$sv_rc" 0 "SIGTERM: capinit stops everything and exits 0"
t_eq "$(cut -d' ' -f1 "$T/stoporder")" "net" "the oneshot's stop-command ran at shutdown"
t_done

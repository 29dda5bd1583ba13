#!/bin/sh
# power-group (capinit.conf): its members may power off, reboot and halt
# through the control socket, and nothing else; the socket is theirs when
# no control-group is set.  Each refusal next to its positive control;
# the rights come from the peer's credentials as the kernel gives them
# (setpriv sets them, SO_PEERCRED and SO_PEERGROUPS read them).
B=${1:-build}
. tests/lib.sh
. tests/supervise_lib.sh
sv_init
NOBODY="setpriv --reuid=65534 --regid=65534"
AUDIO=$(getent group audio | cut -d: -f3)
# uid 0 with no capability at all, in capinit's PID namespace (a peer
# outside it is an ancestor, which has power over capinit anyway): a
# locked noroot tree with an empty bounding set, as the appliance's console
POWERLESS="setpriv --securebits=+noroot,+noroot_locked --bounding-set=-all --inh-caps=-all"
powerless() { sv_in $POWERLESS "$@"; }
terms() { grep -c '^web-term ' "$T/web" 2>/dev/null; }

svc web <<EOF
command = $HELPER termstamp $T/web
EOF
printf 'power-group = audio\n' >> "$T/c/capinit.conf"
sv_start
t_ok $? "capinit starts with power-group = audio (no control-group)"
sv_wait web up
t_ok $? "web is up"
web_pid=$(sv_field web pid)
t_eq "$(stat -c '%a %U %G' "$T/run/control")" "660 root audio" "the socket is 0660 root:audio (the power group's)"

out=$($NOBODY --clear-groups "$CAPCTL" poweroff -r "$T/run" 2>&1)
t_eq "$?:$(echo "$out" | sed 's/.*: //')" "111:Permission denied" "uid 65534 without the group cannot connect (exit 111)"
out=$($NOBODY --groups="$AUDIO" "$CAPCTL" status web -r "$T/run" 2>&1)
t_eq "$?:$out" "1:capctl: error: permission denied: not in the control group" \
  "uid 65534 in the power group: status refused (the control group reads; exit 1)"
out=$($NOBODY --groups="$AUDIO" "$CAPCTL" stop web -r "$T/run" 2>&1)
t_eq "$?:$out" "1:capctl: error: permission denied: only root with capinit's own power, in its user and PID namespaces, may change services" \
  "... stop refused (exit 1)"
out=$($NOBODY --groups="$AUDIO" "$CAPCTL" reload -r "$T/run" 2>&1)
t_eq "$?:$out" "1:capctl: error: permission denied: only root with capinit's own power, in its user and PID namespaces, may change services" "... reload too"
out=$(powerless --clear-groups -- "$CAPCTL" reboot -r "$T/run" 2>&1)
t_eq "$?:$out" "1:capctl: error: permission denied: only root or the power group may power off, reboot or halt" \
  "uid 0 without capabilities and without the group: reboot refused (exit 1)"
out=$(powerless --clear-groups -- "$CAPCTL" status web -r "$T/run" 2>&1)
t_eq "$?:$(echo "$out" | sed -n '2s/ .*//p')" "0:web" "control: that uid 0 may read (exit 0)"
t_eq "$(sv_field web state) $(sv_field web pid) $(terms)" "up $web_pid 0" \
  "web is still up with the same pid, never signalled"
t_eq "$(grep -c 'stopping every service' "$T/capinit.out")" 0 "no shutdown began"

# the member of the power group, powerless otherwise: poweroff is obeyed
out=$($NOBODY --groups="$AUDIO" "$CAPCTL" poweroff -r "$T/run" 2>&1)
t_eq "$?:$out" "0:" "uid 65534 in the power group: capctl poweroff (exit 0)"
sv_wait_exit
t_eq "$sv_rc" 0 "capinit stopped every service and exited 0"
t_eq "$(grep -c '^capinit: capctl poweroff: stopping every service$' "$T/capinit.out")" 1 \
  "capinit says who asked: 'capctl poweroff: stopping every service'"
t_eq "$(terms)" 1 "web got its stop signal once"

# the appliance's console: uid 0 without power, in the power group
rm -f "$T/web"
sv_start
t_ok $? "capinit starts again"
sv_wait web up
t_ok $? "web is up"
out=$(powerless --groups="$AUDIO" -- "$CAPCTL" stop web -r "$T/run" 2>&1)
t_eq "$?:$out" "1:capctl: error: permission denied: only root with capinit's own power, in its user and PID namespaces, may change services" \
  "a powerless uid 0 in the power group: stop refused (exit 1)"
t_eq "$(sv_field web state) $(terms)" "up 0" "web is still up, never signalled"
# traced from outside the namespace (a tracer in it would end with it)
out=$(strace -f -qq -e trace=connect,close,exit_group -o "$T/strace" \
  nsenter -t "$sv_nspid" -p -m -i -r -w $POWERLESS --groups="$AUDIO" -- "$CAPCTL" reboot -r "$T/run" 2>&1)
t_eq "$?:$out" "0:" "... capctl reboot (exit 0)"
# capctl leaves the connection open for its end to close: capinit, which
# waits for that close, can end (and kill its namespace) only once
# capctl's exit status is fixed.  strace's word: the connect, no close of
# that descriptor after it, then exit_group(0)
t_eq "$(awk '$2 ~ /^connect\(/ && /AF_UNIX/ && / = 0$/ { pid = $1; fd = substr($2, 9); sub(/,.*/, "", fd); got = "connect"; next }
  got && $1 == pid && $2 == "close(" fd ")" { closed = " closed" }
  got && $1 == pid && $2 ~ /^exit_group\(/ { end = $2 }
  END { print got (closed ? closed : " held") " " end }' "$T/strace")" "connect held exit_group(0)" \
  "... capctl held its connection to capinit until exit_group(0) (strace)"
sv_wait_exit
t_eq "$sv_rc:$(grep -c '^capinit: capctl reboot: stopping every service$' "$T/capinit.out"):$(terms)" "0:1:1" \
  "capinit stopped web (one stop signal) and exited 0, saying 'capctl reboot: stopping every service'"

# capinit ends only once the client that asked has read its answer and
# gone, or CONTROL_ASKER_MS (5 s) after its request: the capctl reboot
# above, in capinit's PID namespace, was not killed by the namespace's
# end (exit 0, every run).  The bound: a client that reads the answer
# and keeps the connection open delays the end by 5 s, no more; capinit
# can exit no sooner than that, so the lower bound is exact.
rm -f "$T/web" "$T/answered"
sv_start
t_ok $? "capinit starts a third time"
sv_wait web up
t_ok $? "web is up"
t0=$(date +%s%3N)
# shellcheck disable=SC2016
powerless --groups="$AUDIO" -- python3 -c '
import socket, sys, time
s = socket.socket(socket.AF_UNIX, socket.SOCK_SEQPACKET)
s.connect(sys.argv[1])
s.send(b"poweroff")
open(sys.argv[2], "w").write(s.recv(100).decode())
time.sleep(600)' "$T/run/control" "$T/answered" &
asker=$!
sv_wait_exit
t1=$(date +%s%3N)
{ wait "$asker"; } 2>/dev/null
asker_rc=$?
t_eq "$sv_rc:$(cat "$T/answered" 2>/dev/null):$(terms)" "0:ok:1" \
  "a client that holds its connection after the answer ok: web stopped, capinit exited 0"
t_eq "$asker_rc" 137 "... the client, in capinit's PID namespace, ended with it (SIGKILL)"
t_eq "$([ $((t1 - t0)) -ge 5000 ] && echo yes || echo "no: $((t1 - t0)) ms")" yes \
  "... capinit ended no sooner than 5 s after the request ($((t1 - t0)) ms)"
echo "# summary: power-group: 6 refusals (no group; status, stop, reload by a member; a powerless uid 0 not in it; stop by a powerless uid 0 in it), poweroff and reboot by members obeyed; the end waits for the client that asked ($((t1 - t0)) ms for one that never leaves)"
t_done

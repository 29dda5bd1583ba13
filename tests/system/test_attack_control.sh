#!/bin/sh
# Attacks on capinit's power from a service's own code (docs/security.md:
# the control socket, signals to capinit, a peer outside its PID
# namespace).  Each attack runs inside a service under capinit, as the
# code an attacker controls would, and is judged from ground truth: the
# victim's pid and state, a file the forbidden service would have written,
# capinit still running.  Each has a positive control (the same request
# from a peer the policy allows is obeyed) and runs beside a negative
# twin (a legacy root service's request is obeyed), so that refusing
# everyone would fail the test.
B=${1:-build}
. tests/lib.sh
. tests/supervise_lib.sh
sv_init
PY=/usr/bin/python3
[ -x "$PY" ] || PY=python3
OUT=$T/out
mkdir -m 1777 "$OUT"
UNSHARE=$(command -v unshare)
SETPRIV=$(command -v setpriv)
# every capability the running kernel knows: what a new user namespace gives
ALL=$(printf '%016x' $(( (1 << ($(cat /proc/sys/kernel/cap_last_cap) + 1)) - 1 )))

# the attacker's code: one attack per argument, each result in $OUT
ATTACK=$(pwd)/tests/attack.py
cat > "$T/attack.sh" <<EOF
#!/bin/sh
att() { "$PY" "$ATTACK" "\$@" 2>&1; echo "exit \$?"; }
case \$1 in
  userns)    # a user namespace of its own: every capability, in there
    att ask "$T/run/control" "stop victim" userns > "$OUT/userns.stop"
    att ask "$T/run/control" "start legacy-bad" userns > "$OUT/userns.start"
    att ask "$T/run/control" "stop victim" > "$OUT/plain.stop" ;;
  setuid)    # uid 65534 with cap_setuid: uid 0, then a user namespace
    att ask "$T/run/control" "stop victim" uid0 userns > "$OUT/setuid.stop" ;;
  signals)   # uid 0 as capinit's effective uid: the kernel looks at its real one
    for s in HUP TERM INT USR1 USR2 PWR; do kill -\$s 1; echo "\$s \$?"; done > "$OUT/signals.sent"
    # sigqueue() names its sender itself: a legacy root service's pid
    att forge 1 HUP "\$(cat "$OUT/legacy.pid")" > "$OUT/forged.sent" ;;
  killer)    # cap_kill: the kernel lets it; capinit judges it, alive
    for s in HUP TERM INT USR1 USR2 PWR; do kill -\$s 1; echo "\$s \$?"; done > "$OUT/killer.sent"
    att forge 1 HUP "\$(cat "$OUT/legacy.pid")" > "$OUT/killer.forged"
    echo \$\$ > "$OUT/killer.pid"
    exec sleep 600 ;;
  gone)      # a legacy root's kill(1) that exits at once, as busybox's reboot does
    reloads() { grep -c "SIGHUP: reloading" "$T/capinit.out"; }
    for i in 1 2 3 4 5 6 7 8 9 10; do
      n=\$(reloads)
      /bin/kill -s HUP 1
      k=0
      while [ "\$(reloads)" -le "\$n" ] && [ \$k -lt 600 ]; do sleep 0.1; k=\$((k + 1)); done
    done
    echo "\$(reloads)" > "$OUT/gone.done"
    exec sleep 600 ;;
  legacy)    # the negative twin: a legacy root service may
    echo \$\$ > "$OUT/legacy.pid"
    "$CAPCTL" stop other -r "$T/run" > "$OUT/legacy.stop" 2>&1; echo "exit \$?" >> "$OUT/legacy.stop"
    kill -HUP 1; echo "HUP \$?" > "$OUT/legacy.hup"
    exec sleep 600 ;;
esac
exit 0
EOF
chmod 755 "$T/attack.sh"

# private-pids = no: the attackers share capinit's PID namespace, so that
# capinit's own judgement is what they meet (with a PID namespace of
# their own, the default for a contained uid 0, they could not even name
# capinit's pid)
CONTAIN="mode = noroot
private-pids = no
no-new-privileges = yes
read-only = yes
read-write = $OUT
private-ipc = yes
network = none
hostname = attacker"
svc victim <<EOF
command = $HELPER stamp $OUT/victim.stamps
EOF
svc other <<EOF
command = $HELPER stamp $OUT/other.stamps
EOF
svc legacy-bad <<EOF
description = a disabled legacy root service: full root if anyone starts it
enabled = no
command = /bin/sh -c "echo ran > $OUT/legacy-bad.ran; exec sleep 600"
EOF
# the two user-namespace attackers are allowed their namespace
# (user-namespaces = yes): the filter of a contained service would stop
# them at unshare (test_filter.sh), and what is attacked here is the
# control socket's own judgement, the second wall
svc attacker <<EOF
type = oneshot
enabled = no
bounding = none
command = /bin/sh $T/attack.sh userns
$CONTAIN
user-namespaces = yes
EOF
svc attacker-setuid <<EOF
type = oneshot
enabled = no
user = 65534
group = 65534
mode = noroot
capabilities = setuid
bounding = setuid
no-new-privileges = yes
read-only = yes
read-write = $OUT
user-namespaces = yes
command = /bin/sh $T/attack.sh setuid
EOF
svc signaller <<EOF
type = oneshot
enabled = no
bounding = none
command = /bin/sh $T/attack.sh signals
$CONTAIN
EOF
svc killer <<EOF
description = cap_kill: the kernel lets it signal capinit
enabled = no
capabilities = kill
bounding = kill
command = /bin/sh $T/attack.sh killer
$CONTAIN
EOF
svc gone <<EOF
description = legacy root: kill(1) by a process that exits at once
enabled = no
command = /bin/sh $T/attack.sh gone
EOF
svc legacy <<EOF
description = the negative twin: legacy root, capinit's own power
enabled = no
command = /bin/sh $T/attack.sh legacy
EOF
sv_start || { t_ok 1 "capinit starts"; t_done; exit 1; }
sv_wait victim up && sv_wait other up
t_ok $? "victim and other are up"
victim=$(sv_field victim pid)

# ------------------------------------------------ a user namespace of its own
sv_ctl start attacker >/dev/null
sv_wait attacker up
t_eq "$(sv_field attacker state)/$(sv_field attacker last_exit)" "up/exit 0" "attacker (noroot uid 0, every container key) ran its attacks"
DENIED="error: permission denied: only root with capinit's own power, in its user and PID namespaces, may change services"
# (unmapped in there, its uid reads 65534; SO_PEERCRED still says 0 to capinit)
t_eq "$(cat "$OUT/userns.stop")" "uid 65534 CapEff $ALL
$DENIED
exit 0" "control: in a user namespace of its own the attacker holds every capability ($ALL); 'stop victim' from there is refused"
t_eq "$(cat "$OUT/userns.start")" "uid 65534 CapEff $ALL
$DENIED
exit 0" "control: 'start legacy-bad' from there is refused"
t_eq "$(cat "$OUT/plain.stop")" "uid 0 CapEff 0000000000000000
$DENIED
exit 0" "control: 'stop victim' as the plain powerless uid 0 is refused"
t_eq "$(sv_field victim state) $(sv_field victim pid)" "up $victim" "victim: still up, same pid ($victim)"
t_eq "$(sv_field legacy-bad state) $(test -e "$OUT/legacy-bad.ran" && echo ran || echo 'never ran')" \
  "down never ran" "legacy-bad: down, its command never ran"

# ------------------------------------------------ setuid(0), then a user namespace
sv_ctl start attacker-setuid >/dev/null
sv_wait attacker-setuid up
t_eq "$(cat "$OUT/setuid.stop")" "uid 0 CapEff $(printf '%016x' $((1 << 7)))
uid 65534 CapEff $ALL
$DENIED
exit 0" "control: uid 65534 with cap_setuid, after setuid(0) and in a user namespace of its own: 'stop victim' refused"
t_eq "$(sv_field victim state) $(sv_field victim pid)" "up $victim" "victim: still up, same pid"

# ------------------------------------------------ a peer outside capinit's PID namespace
out=$("$CAPCTL" stop victim -r "$T/run" 2>&1)
t_eq "$?:$out" "1:capctl: $DENIED" "control: host root outside capinit's PID namespace (pid 0 there) is refused 'stop victim'"
out=$("$SETPRIV" --bounding-set=-all --inh-caps=-all --ambient-caps=-all -- "$CAPCTL" stop victim -r "$T/run" 2>&1)
t_eq "$?:$out" "1:capctl: $DENIED" "control: a powerless uid 0 outside it is refused too"
"$CAPCTL" status victim -r "$T/run" >/dev/null 2>&1
t_eq "$?" 0 "control: ... and may still read (status victim, exit 0)"
t_eq "$(sv_field victim state) $(sv_field victim pid)" "up $victim" "victim: still up, same pid"

# ------------------------------------------------ the negative twin, then the positive control
sv_ctl start legacy >/dev/null
n=0
while [ ! -s "$OUT/legacy.hup" ] && [ $n -lt 1200 ]; do sleep 0.05; n=$((n + 1)); done
t_eq "$(cat "$OUT/legacy.stop")" "exit 0" "twin: a legacy root service's 'stop other' is obeyed"
sv_wait other down
t_ok $? "twin: ... other goes down"
out=$(sv_ctl stop victim 2>&1)
t_eq "$?:$out" "0:" "positive control: root inside capinit's PID namespace: 'stop victim' (exit 0)"
sv_wait victim down
t_ok $? "positive control: ... victim goes down"
sv_ctl start victim other >/dev/null
sv_wait victim up && sv_wait other up
t_ok $? "victim and other up again"
victim=$(sv_field victim pid)

# ------------------------------------------------ signals to capinit
# A reload would load newcomer, which says so in a file.
svc newcomer <<EOF
type = oneshot
command = /bin/sh -c "echo ran >> $OUT/newcomer.ran"
EOF
pid1=$(sv_pid)
# the twin's SIGHUP above came before newcomer existed: wait for that
# reload, so that what follows is judged alone
n=0
while ! grep -q "SIGHUP: reloading" "$T/capinit.out" && [ $n -lt 1200 ]; do sleep 0.05; n=$((n + 1)); done
t_eq "$(cat "$OUT/legacy.hup")" "HUP 0" "twin: a legacy root service's SIGHUP to PID 1 is delivered"
t_eq "$(grep -c 'SIGHUP: reloading' "$T/capinit.out")" 1 "twin: ... and capinit reloads"
sv_ctl start signaller >/dev/null
sv_wait signaller up
t_eq "$(tr '\n' ' ' < "$OUT/signals.sent")" "HUP 1 TERM 1 INT 1 USR1 1 USR2 1 PWR 1 " \
  "signals: the kernel refuses HUP TERM INT USR1 USR2 PWR from the powerless uid 0 (capinit's real uid is not 0)"
t_eq "$(cat "$OUT/forged.sent")" "Operation not permitted
exit 1" "signals: and a SIGHUP queued with a forged sender (EPERM)"
t_eq "$(sed -n 's/^Uid:[[:space:]]*//p' /proc/"$pid1"/status | tr '\t' ' ')" "4294967294 0 4294967294 0" \
  "signals: capinit's real and saved uid are 4294967294, its effective uid 0 (/proc)"
# cap_kill lets the kernel deliver them: capinit judges the sender, alive
sv_ctl start killer >/dev/null
n=0
while [ ! -s "$OUT/killer.pid" ] && [ $n -lt 1200 ]; do sleep 0.05; n=$((n + 1)); done
kpid=$(cat "$OUT/killer.pid")
t_eq "$(tr '\n' ' ' < "$OUT/killer.sent")" "HUP 0 TERM 0 INT 0 USR1 0 USR2 0 PWR 0 " \
  "signals: with cap_kill, the kernel delivers all six"
t_eq "$(cat "$OUT/killer.forged")" "sent
exit 0" "signals: and the forged SIGHUP"
n=0
while [ "$(grep -c "ignored SIG.* from pid $kpid (uid 0)" "$T/capinit.out")" -lt 6 ] && [ $n -lt 1200 ]; do
  sleep 0.05; n=$((n + 1))
done
t_eq "$(sed -n "s/.*ignored SIG\([A-Z0-9]*\) from pid $kpid (uid 0).*/\1/p" "$T/capinit.out" | sort | tr '\n' ' ')" \
  "HUP INT PWR TERM USR1 USR2 " "signals: capinit ignores each, naming the sender once (pid $kpid, uid 0)"
lpid=$(cat "$OUT/legacy.pid")
n=0
while ! grep -q "ignored SIGHUP from a sender that named itself pid $lpid" "$T/capinit.out" && [ $n -lt 1200 ]; do
  sleep 0.05; n=$((n + 1))
done
t_eq "$(grep -c "ignored SIGHUP from a sender that named itself pid $lpid (uid 0, code -1)" "$T/capinit.out")" 1 \
  "signals: the forged SIGHUP (claiming the legacy service's pid $lpid) is ignored, said as such"
t_eq "$(kill -0 "$pid1" 2>/dev/null && echo alive) $(grep -c 'SIGHUP: reloading' "$T/capinit.out") $(test -e "$OUT/newcomer.ran" && echo ran || echo absent)" \
  "alive 1 absent" "signals: capinit runs on, did not reload (newcomer never ran)"
t_eq "$(sv_field victim state) $(sv_field victim pid)" "up $victim" "signals: victim still up, same pid"
# the positive control: the runtime outside capinit's PID namespace
kill -HUP "$pid1"
n=0
while [ ! -s "$OUT/newcomer.ran" ] && [ $n -lt 1200 ]; do sleep 0.05; n=$((n + 1)); done
t_eq "$(cat "$OUT/newcomer.ran" 2>/dev/null)" "ran" "positive control: SIGHUP from outside capinit's PID namespace reloads (newcomer ran)"
r0=$(grep -c "SIGHUP: reloading" "$T/capinit.out")
sv_ctl start gone >/dev/null
n=0
while [ ! -s "$OUT/gone.done" ] && [ $n -lt 1800 ]; do sleep 0.05; n=$((n + 1)); done
t_eq "$(($(cat "$OUT/gone.done" 2>/dev/null || echo 0) - r0))" 10 \
  "positive control: 10 SIGHUPs from a legacy root's /bin/kill, which exits at once (reaped or not when capinit looks): 10 reloads"
sv_stop
t_eq "$sv_rc" 0 "positive control: SIGTERM from outside stops capinit (exit 0)"
t_done

#!/bin/sh
# Stopping: stop-signal, then SIGKILL to the group after stop-timeout; the
# stop signal reaches each process once; a double-forked grandchild dies
# with its service's process group and is reaped; orphans reparented to
# capinit are reaped: no zombie is left in the namespace.  Durations are
# figures; the checks are orders and states (that SIGKILL comes only
# after stop-timeout is a lower bound, which load only makes longer).
B=${1:-build}
. tests/lib.sh
. tests/supervise_lib.sh
sv_init

count() { # FILE: lines, 0 when missing
  if [ -e "$1" ]; then wc -l < "$1" | tr -d ' '; else echo 0; fi
}
nsh() { sv_in sh -c "$1"; }
ms() { "$HELPER" exit 0 "$T/.mono" && tail -n 1 "$T/.mono" | cut -d' ' -f2; }  # CLOCK_MONOTONIC, as capinit's
# pstat FIELD PID: a field of /proc/PID/stat in the namespace (3 = state,
# 4 = ppid, 5 = pgrp, 6 = session), or "gone"
pstat() {
  nsh "cat /proc/$2/stat 2>/dev/null" | sed 's/^.*) //' | awk -v f="$1" '{ print $(f - 2); x = 1 } END { if (!x) print "gone" }'
}
# zombies: one line "PID PPID" per zombie in the namespace
zombies() {
  nsh 'for f in /proc/[0-9]*/stat; do cat "$f" 2>/dev/null; echo; done' |
    sed -n 's/^\([0-9]*\) .*) Z \([0-9]*\) .*/\1 \2/p'
}
stop_timed() { # NAME: capctl stop, then ms until it is down (polling every 20 ms)
  t0=$(ms)
  sv_ctl stop "$1" >/dev/null
  n=3000
  while [ "$(sv_field "$1" state)" != down ] && [ $n -gt 0 ]; do sleep 0.02; n=$((n - 1)); done
  echo $(( $(ms) - t0 ))
}

svc stubborn <<EOF
command = $HELPER ignore-term $T/stubborn.terms
stop-timeout = 500ms
EOF
svc polite <<EOF
command = $HELPER stamp $T/polite
stop-timeout = 500ms
EOF
svc df <<EOF
command = $HELPER doublefork $T/df.pid
EOF
svc dfcrash <<EOF
command = $HELPER doublefork $T/dfcrash.pid
EOF
# an orphan: the subshell exits at once, its background sleep is
# reparented to PID 1 (capinit); the test ends it
svc orphan <<EOF
command = /bin/sh -c "(sleep 60 & echo \$! > $T/orphan.pid); exec $HELPER stamp $T/orphan"
restart = never
EOF
# ten services that count the stop signals they get
for i in 0 1 2 3 4 5 6 7 8 9; do
  svc term$i <<EOF
command = /bin/sh -c "trap 'echo \$\$ >> $T/terms; $HELPER run 100 0; exit 0' TERM; $HELPER fdready 3 0 & wait"
ready = fd:3
EOF
done

sv_start
t_ok $? "capinit starts"
ok=0
for n in stubborn polite df dfcrash orphan term0 term1 term2 term3 term4 term5 term6 term7 term8 term9; do
  sv_wait $n up && ok=$((ok + 1))
done
t_eq "$ok" 15 "all 15 services are up"

# --- escalation
pid=$(sv_field stubborn pid)
t0=$(ms)
sv_ctl stop stubborn >/dev/null
n=3000
while [ "$(sv_field stubborn state)" != down ] && [ $n -gt 0 ]; do sleep 0.02; n=$((n - 1)); done
el=$(( $(ms) - t0 ))
t_eq "$(cat "$T/stubborn.terms" 2>/dev/null | wc -l)" 1 "stubborn: got the SIGTERM (and lived on)"
t_eq "$(sv_field stubborn state) $(sv_field stubborn last_exit)" "down signal KILL" "stubborn: down, killed by SIGKILL"
# the SIGTERM came after t0, the SIGKILL 500 ms after it at the soonest;
# both clocks count whole ms (2 ms of rounding)
[ "$el" -ge 498 ]
t_ok $? "stubborn: SIGKILL only after the 500 ms stop-timeout (down $el ms after the stop)"
t_eq "$(pstat 3 "$pid")" "gone" "stubborn: its process is gone (and reaped)"
grep -q 'service stubborn: warning: still running 500 ms after SIGTERM: sending SIGKILL to its process group' "$T/capinit.out"
t_ok $? "stubborn: capinit says why it sent SIGKILL"
el_polite=$(stop_timed polite)
t_eq "$(sv_field polite state) $(sv_field polite last_exit)" "down signal TERM" "control: polite is down, ended by SIGTERM ($el_polite ms)"
t_eq "$(grep -c 'service polite: warning: still running' "$T/capinit.out")" 0 "control: no SIGKILL for polite"

# --- a double-forked grandchild
n=0
while [ ! -s "$T/df.pid" ] && [ $n -lt 1200 ]; do sleep 0.05; n=$((n + 1)); done
g=$(cat "$T/df.pid")
dpid=$(sv_field df pid)
# the grandchild wrote its pid; its parent, the middle process, exits
# after the fork: wait for it to be a zombie (and the grandchild an orphan)
middle_gone() { [ -n "$(zombies | awk -v p="$dpid" '$2 == p { print $1 }')" ] && [ "$(pstat 4 "$g")" = 1 ]; }
n=0
while ! middle_gone && [ $n -lt 1200 ]; do sleep 0.05; n=$((n + 1)); done
t_eq "$(pstat 3 "$g") $(pstat 4 "$g") $(pstat 5 "$g")" "S 1 $dpid" \
  "doublefork: the grandchild ($g) runs, reparented to capinit (ppid 1), in the service's group ($dpid)"
mid=$(zombies | awk -v p="$dpid" '$2 == p { print $1 }')
t_ok "$([ -n "$mid" ]; echo $?)" "doublefork: the middle process ($mid) is a zombie of the service's own process, which does not reap it"
t_eq "$(zombies | awk '$2 == 1' | wc -l)" 0 "no zombie of capinit (ppid 1) while they run"
el_df=$(stop_timed df)
t_eq "$(sv_field df state)" "down" "doublefork: the service is down ($el_df ms)"
t_eq "$(pstat 3 "$g")" "gone" "doublefork: the grandchild is gone, killed with the group and reaped (not a zombie)"
t_eq "$(pstat 3 "$mid")" "gone" "doublefork: the middle zombie, reparented to capinit, is reaped too"

# the main process dies on its own: nothing of the service outlives it
n=0
while [ ! -s "$T/dfcrash.pid" ] && [ $n -lt 1200 ]; do sleep 0.05; n=$((n + 1)); done
g2=$(cat "$T/dfcrash.pid")
t_eq "$(pstat 3 "$g2")" "S" "doublefork (main killed): the grandchild ($g2) runs"
sv_ctl signal KILL dfcrash >/dev/null
n=1200
while [ "$(pstat 3 "$g2")" != gone ] && [ $n -gt 0 ]; do sleep 0.05; n=$((n - 1)); done
t_eq "$(pstat 3 "$g2")" "gone" "doublefork (main killed): its grandchild is killed and reaped with it"
sv_wait dfcrash up
t_ok $? "doublefork (main killed): the service restarts"
n=1200
while { [ ! -s "$T/dfcrash.pid" ] || [ "$(cat "$T/dfcrash.pid")" = "$g2" ]; } && [ $n -gt 0 ]; do sleep 0.05; n=$((n - 1)); done
t_eq "$(pstat 3 "$(cat "$T/dfcrash.pid")")" "S" "doublefork (main killed): with a new grandchild"

# --- an orphan that exits is reaped by capinit
# (up at its exec: the subshell writes the pid, then exits: wait for both)
orphaned() { [ -s "$T/orphan.pid" ] && [ "$(pstat 4 "$(cat "$T/orphan.pid")")" = 1 ]; }
n=0
while ! orphaned && [ $n -lt 1200 ]; do sleep 0.05; n=$((n + 1)); done
o=$(cat "$T/orphan.pid")
t_eq "$(pstat 3 "$o") $(pstat 4 "$o")" "S 1" "orphan: the background sleep ($o) was reparented to capinit (ppid 1)"
nsh "kill -TERM $o"
n=1200
while [ "$(pstat 3 "$o")" != gone ] && [ $n -gt 0 ]; do sleep 0.05; n=$((n - 1)); done
t_eq "$(pstat 3 "$o")" "gone" "orphan: once it exits (SIGTERM from the test), capinit reaps it: no zombie"
t_eq "$(sv_field orphan state)" "up" "orphan: its service is untouched"
t_eq "$(zombies | awk '$2 == 1' | wc -l)" 0 "no zombie of capinit is left in the namespace"

# --- the stop signal reaches each service once
sv_stop
t_eq "$sv_rc" 0 "SIGTERM: capinit exits 0"
t_eq "$(count "$T/terms") $(sort -u "$T/terms" | wc -l)" "10 10" \
  "SIGTERM: each of the 10 counting services got one stop signal, not two"
echo "# summary: SIGKILL escalation vs a clean stop, double fork killed and reaped, orphans reaped, one stop signal each: $t_n checks; stop to down: stubborn $el ms (stop-timeout 500 ms), polite $el_polite ms"
t_done

#!/bin/sh
# Restart policy, timed from the services' own stamps (CLOCK_MONOTONIC ms):
# a longrun that ran >= 1 s restarts at once; quicker deaths wait
# restart-delay, doubling up to restart-delay-max; a healthy run resets the
# delay; restart = never and on-failure; a start that fails at a privilege
# stage is failed, names the stage, is not retried, and capctl start tries
# again.
#
# The delays capinit chooses are checked exactly, from its log; the
# services' stamps show that each was honoured (a start never comes sooner
# than its delay after the death).  How much later it comes depends on the
# machine's load: a figure (# summary), bounded only by a generous 10 s,
# which catches a restart that waits for something else than its timer.
B=${1:-build}
. tests/lib.sh
. tests/supervise_lib.sh
sv_init

at() { # FILE NAME [N]: the Nth stamp of NAME, or -1
  awk -v n="$2" -v k="${3:-1}" '$1 == n { c++; if (c == k) { print $2; f = 1; exit } }
    END { if (!f) print -1 }' "$1"
}
count() { # FILE: lines, 0 when missing
  if [ -e "$1" ]; then wc -l < "$1" | tr -d ' '; else echo 0; fi
}
gaps() { # FILE: the differences between consecutive stamps
  awk 'NR > 1 { printf "%s%d", (NR > 2 ? " " : ""), $2 - p } { p = $2 } END { print "" }' "$1"
}
in_range() { [ "$1" -ge "$2" ] && [ "$1" -lt "$3" ]; }
wait_lines() { # FILE N SECONDS: until FILE has N lines
  n=$(( $3 * 20 ))
  while [ "$(count "$1")" -lt "$2" ] && [ $n -gt 0 ]; do sleep 0.05; n=$((n - 1)); done
  [ "$(count "$1")" -ge "$2" ]
}
# delays LOG N: the first N restart delays capinit chose, from the
# service's log: D for "died after ... ms: restarting in D ms" (a quick
# death), 0 for "exited ... after N ms" with N >= 1000 (restarted at once)
delays() {
  awk '/capinit: died after [0-9]+ ms: restarting in [0-9]+ ms$/ { print $(NF - 1) }
       /capinit: exited [0-9]+ after [0-9]+ ms$/ && $(NF - 1) >= 1000 { print 0 }' "$1" |
    head -n "$2" | tr '\n' ' '
}
# late "GAPS" "MINIMA": each gap minus its minimum
late() {
  printf '%s\n' "$1" | tr ' ' '\n' | grep . > "$T/g"
  printf '%s\n' "$2" | tr ' ' '\n' | grep . > "$T/m"
  paste -d' ' "$T/g" "$T/m" | awk '{ printf "%s%d", (NR > 1 ? " " : ""), $1 - $2 } END { print "" }'
}
# A gap between two start stamps is never shorter than the delay (the
# delay starts after the death, which is after the stamp, and both clocks
# count whole ms): the lower bound is exact.  It is longer by the exit,
# the reap, the fork and exec of the next start: 1-5 ms on an idle
# machine, 150 ms and more when other work shares it.  SLACK is far above
# that: a restart later than that did not come from its timer.
SLACK=10000
all_within() { # "LATENESS..."
  for x in $1; do in_range "$x" 0 $SLACK || return 1; done
}

# the crash loop: dies at once, every time
svc crash <<EOF
command = $HELPER exit 1 $T/crash
restart-delay = 100ms
restart-delay-max = 800ms
EOF
# runs 1.2 s then fails: restarted at once (its restart-delay is 20 s, so
# a delayed restart would show, beyond SLACK)
svc healthy <<EOF
command = $HELPER run 1200 1 $T/healthy
restart-delay = 20s
EOF
# dies at once three times, then runs 1.2 s (a healthy run), then dies at
# once again: the delay is back to 100 ms
svc reset <<EOF
command = /bin/sh -c "n=0; while read -r l; do n=\$((n + 1)); done < $T/reset; if [ \$n = 3 ]; then exec $HELPER run 1200 1 $T/reset; fi; exec $HELPER exit 1 $T/reset"
restart-delay = 100ms
restart-delay-max = 800ms
EOF
: > "$T/reset"
# restart = never / on-failure
svc nev0 <<EOF
command = $HELPER exit 0 $T/nev0
restart = never
EOF
svc nev3 <<EOF
command = $HELPER exit 3 $T/nev3
restart = never
EOF
svc onf0 <<EOF
command = $HELPER exit 0 $T/onf0
restart = on-failure
EOF
svc onf1 <<EOF
command = $HELPER exit 1 $T/onf1
restart = on-failure
EOF
# a privilege stage that fails: a capability outside capinit's bounding set
bnd=$(sed -n 's/^CapBnd:[[:space:]]*//p' /proc/self/status)
missing=
for c in sys_resource:24 sys_module:16 sys_rawio:17 sys_boot:22 wake_alarm:35; do
  bit=${c#*:}
  [ $(( (0x$bnd >> bit) & 1 )) = 0 ] && { missing=${c%:*}; break; }
done
if [ -n "$missing" ]; then
  svc priv <<EOF
command = $HELPER stamp $T/priv
capabilities = $missing
EOF
else
  echo "# the bounding set ($bnd) has every capability tried: priv uses sys_resource anyway"
  missing=sys_resource
  svc priv <<EOF
command = $HELPER stamp $T/priv
capabilities = $missing
EOF
fi
svc privok <<EOF
command = $HELPER stamp $T/privok
capabilities = net_admin
EOF

sv_start
t_ok $? "capinit starts"

# --- the crash loop: 7 starts, 6 gaps
wait_lines "$T/crash" 7 60
t_ok $? "crash loop: 7 starts"
t_eq "$(delays "$T/log/crash.log" 6)" "100 200 400 800 800 800 " \
  "crash loop: capinit's delays double from restart-delay (100 ms) to restart-delay-max (800 ms), then stay"
g=$(head -n 7 "$T/crash" | gaps /dev/stdin)
l=$(late "$g" "100 200 400 800 800 800")
all_within "$l"
t_ok $? "crash loop: start-to-start gaps $g ms: each at least its delay (late by $l)"
crash_late=$l
# crash spends most of its time in backoff, a moment starting: a state,
# its restarts and its starts, read when the starts did not change around
# the status read, and in state backoff (every start has died)
backoff_read() {
  n=$(count "$T/crash")
  set -- $(sv_ctl status --json crash | sed -n 's/^    "\(state\|restarts\|last_exit\)": "*\([^",]*\)"*,*$/\2/p')
  st=$1 r=$2 le="$3 $4"
  [ "$st" = backoff ] && [ "$(count "$T/crash")" = "$n" ]
}
i=0
while ! backoff_read && [ $i -lt 1200 ]; do sleep 0.05; i=$((i + 1)); done
t_eq "$st" "backoff" "crash loop: waiting in state backoff"
t_eq "$r" "$n" "crash loop: restarts counts every death ($n starts so far)"
t_eq "$le" "exit 1" "crash loop: last_exit"

# --- restart at once after a run of >= 1 s
wait_lines "$T/healthy" 3 60
t_ok $? "healthy: started three times"
t_eq "$(delays "$T/log/healthy.log" 2)" "0 0 " "healthy: capinit restarts it at once after each 1.2 s run"
g=$(head -n 3 "$T/healthy" | gaps /dev/stdin)
l=$(late "$g" "1200 1200")
all_within "$l"
t_ok $? "healthy: gaps $g ms: 1.2 s of run, restarted $l ms after the death, not after its restart-delay of 20 s"

# --- reset after a healthy run
wait_lines "$T/reset" 7 60
t_ok $? "reset: 7 starts"
t_eq "$(delays "$T/log/reset.log" 6)" "100 200 400 0 100 200 " \
  "reset: delays 100, 200, 400, then at once after the 1.2 s run, then 100, 200 again (not 800)"
g=$(head -n 7 "$T/reset" | gaps /dev/stdin)
l=$(late "$g" "100 200 400 1200 100 200")
all_within "$l"
t_ok $? "reset: gaps $g ms: each at least its delay (or the 1.2 s run) (late by $l)"
reset_late=$l

# --- restart = never, on-failure: once onf1 (restart-delay 100 ms, as the
# others) has been restarted twice, a restart of the others would have come
sv_wait nev0 down && sv_wait nev3 failed && sv_wait onf0 down
wait_lines "$T/onf1" 3 60
t_eq "$(sv_field nev0 state) $(sv_field nev0 wanted) $(count "$T/nev0")" "down down 1" \
  "restart = never: exit 0: down, no longer wanted, started once"
t_eq "$(sv_field nev3 state) $(sv_field nev3 failure) $(count "$T/nev3")" "failed exit 3 1" \
  "restart = never: exit 3: failed (exit 3), started once"
t_eq "$(sv_field onf0 state) $(sv_field onf0 wanted) $(count "$T/onf0")" "down down 1" \
  "restart = on-failure: exit 0: down, not restarted"
n=$(count "$T/onf1")
[ "$n" -ge 3 ]
t_ok $? "restart = on-failure: exit 1: restarted ($n starts)"
t_eq "$(sv_field nev0 restarts) $(sv_field nev3 restarts) $(sv_field onf0 restarts)" "0 0 0" \
  "restart = never, on-failure after exit 0: no restart counted"

# --- a privilege stage fails
sv_wait privok up
t_ok $? "privilege control: the same service with net_admin is up"
sv_wait priv failed
t_ok $? "privilege: with $missing (outside the bounding set $bnd) it is failed"
f=$(sv_field priv failure)
case $f in
  "stage inheritable: capinit holds no cap_$missing (the container's bounding set): add it to the container, or drop it from capabilities in priv.svc") r=0 ;;
  *) r=1 ;;
esac
t_ok $r "privilege: status names the stage, what and why: '$f'"
t_eq "$(count "$T/priv") $(sv_field priv pid) $(sv_field priv restarts)" "0 0 0" \
  "privilege: the command never ran; no process; no restart"
# a retry would come after restart-delay (100 ms); crash, restarted every
# 800 ms by now, starts twice meanwhile
wait_lines "$T/crash" $(($(count "$T/crash") + 2)) 60
t_eq "$(grep -c 'service priv: fatal: start failed at stage inheritable' "$T/capinit.out") $(sv_field priv state)" "1 failed" \
  "privilege: tried once, not retried (while crash started twice more)"
sv_ctl start priv >/dev/null
t_eq "$?" 0 "capctl start priv: ok"
n=1200
while [ "$(grep -c 'service priv: fatal: start failed' "$T/capinit.out")" -lt 2 ] && [ $n -gt 0 ]; do sleep 0.05; n=$((n - 1)); done
t_eq "$(grep -c 'service priv: fatal: start failed at stage inheritable' "$T/capinit.out")" 2 \
  "privilege: capctl start tries again (a second attempt)"
sv_wait priv failed
t_ok $? "privilege: and it fails the same way"

sv_stop
t_eq "$sv_rc" 0 "SIGTERM: capinit exits 0"
echo "# summary: backoff 100..800 (6 gaps), at-once after >= 1 s, reset, never/on-failure, privilege stage not retried: $t_n checks; restarts later than their delay by: crash $crash_late, reset $reset_late ms"
t_done

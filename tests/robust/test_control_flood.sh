#!/bin/sh
# Load: 16 concurrent control clients flood capinit for ROBUST_FLOOD_SECONDS
# (make check: 5; make robustness: 300) with a rotation of requests (tests/robust/flood.py): status of all
# and of some, log, verify-facts, restart, signal, and bad ones (garbage, 5000
# bytes, a NUL byte, an unknown service), half on new connections, half on
# kept ones.  Every reply must be whole and right; capinit's descriptors
# and RSS at rest after the flood equal those before; the service nobody
# asked to change keeps its pid.  (tests/system/test_supervise_control.sh
# has the short version: 16 clients x 3 s of status.)
B=${1:-build}
. tests/lib.sh
. tests/supervise_lib.sh
. tests/robust/robust_lib.sh
PY=/usr/bin/python3
[ -x "$PY" ] || PY=python3
SECS=$(rb_knob ROBUST_FLOOD_SECONDS 5)
CLIENTS=16
sv_init

svc steady <<EOF
command = $HELPER stamp /dev/null
EOF
svc flip <<EOF
command = $HELPER stamp /dev/null
EOF
svc crash <<EOF
command = $HELPER run 50 1
restart-delay = 20ms
restart-delay-max = 200ms
EOF
k=0
while [ $k -lt 17 ]; do
  svc "extra$k" <<EOF
command = $HELPER stamp /dev/null
log = none
EOF
  k=$((k + 1))
done
NSVC=20

sv_start
t_ok $? "capinit starts with $NSVC services"
sv_wait steady up && sv_wait flip up
pid=$(sv_pid)
steady_pid=$(sv_field steady pid)
# warm-up: one client for 2 s, so that first-use allocations are done
sv_peer "$PY" tests/robust/flood.py "$T/run/control" 2 $NSVC 99 > /dev/null 2>&1
sv_ctl stop crash flip
sv_wait crash down && sv_wait flip down
fds0=$(rb_fds_rest "$pid") rss0=$(rb_rss "$pid")
sv_ctl start crash flip

cpu0=$(rb_cpu "$pid")
k=0 pids=
while [ $k -lt $CLIENTS ]; do
  sv_peer timeout $((SECS + 300)) "$PY" tests/robust/flood.py "$T/run/control" "$SECS" $NSVC $k > "$T/out.$k" 2> "$T/err.$k" &
  pids="$pids $!"
  k=$((k + 1))
done
for p in $pids; do wait "$p"; done
cpu1=$(rb_cpu "$pid")
total=$(cat "$T"/out.* | awk '{ n += $2 } END { print n + 0 }')
bad=$(cat "$T"/out.* | awk '{ n += $4 } END { print n + 0 }')
tmo=$(cat "$T"/out.* | awk '{ n += $6 } END { print n + 0 }')
worst=$(cat "$T"/out.* | awk '$8 > m { m = $8 } END { print m + 0 }')
retries=$(cat "$T"/out.* | awk '{ n += $10 } END { print n + 0 }')
done_clients=$(cat "$T"/out.* | awk 'NF == 10 && $2 > 0' | wc -l)
t_eq "$done_clients" $CLIENTS "$CLIENTS clients each completed requests for ${SECS}s"
t_eq "$bad $tmo" "0 0" "all $total replies whole and right, no timeout (slowest $worst ms)"
[ "$bad" = 0 ] || cat "$T"/err.* | sort | uniq -c | sort -rn | head -n 5 | sed 's/^/#   /'
t_eq "$(sv_field steady state) $(sv_field steady pid)" "up $steady_pid" "steady (only signalled CONT) kept its pid"
sv_ctl stop crash flip
sv_wait crash down && sv_wait flip down
fds1=$(rb_fds_rest "$pid") rss1=$(rb_rss "$pid")
t_eq "$fds1" "$fds0" "capinit's descriptors at rest: $fds0 before, $fds1 after"
rb_rss_flat "$rss0" "$rss1" 64 "capinit's RSS at rest: $rss0 kB before, $rss1 kB after (at most +64 kB)"
t_eq "$(grep -c -e warning -e fatal "$T/capinit.out")" 0 "no warning from capinit"
sv_stop
t_eq "$sv_rc" 0 "capinit exits 0"
cpu_pct=$(awk -v c=$((cpu1 - cpu0)) -v s="$SECS" -v hz="$(getconf CLK_TCK)" 'BEGIN { printf "%d", c * 100 / hz / s }')
rb_figure clients=$CLIENTS seconds=$SECS requests=$total rate=$((total / SECS)) cpu_pct=$cpu_pct wrong=$bad \
  timeouts=$tmo slowest_ms=$worst retries=$retries fds="$fds0/$fds1" rss="$rss0/$rss1"
echo "# summary: control flood: $CLIENTS clients x ${SECS} s: $total requests ($((total / SECS))/s, capinit at ${cpu_pct}% CPU), $bad wrong, $tmo timeouts, $retries retries (backlog full or too many clients), slowest $worst ms; descriptors $fds0 = $fds1, RSS $rss0 -> $rss1 kB"
t_done

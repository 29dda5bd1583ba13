#!/bin/sh
# Load: a service writes ROBUST_LOG_MB MB (100, in make check too) to its
# log while four others are killed in turn and restarted (restart-delay =
# 0ms): the writer must not hold the restarts back.  That is an order:
# restarts complete while the write goes on (at least 10 of them, each
# followed by a status that shows spew still writing; about 200 on an idle
# machine), and every kill is followed by its restart.  Their latency
# (kill to the new process's first act), alone and during the write, is a
# figure (# summary), not a test: it depends on the machine's load.
# Every line written reaches the log (none dropped), the log rotates
# within its bounds, capinit's descriptors are the same after.  (The short
# version, 50 MB and one service, is in tests/system/test_supervise_logs.sh.)
B=${1:-build}
. tests/lib.sh
. tests/supervise_lib.sh
. tests/robust/robust_lib.sh
PY=/usr/bin/python3
[ -x "$PY" ] || PY=python3
MB=$(rb_knob ROBUST_LOG_MB 100)
BYTES=$((MB * 1048576))
LINES=$((BYTES / 100))
NSVC=4
sv_init
printf 'log-max-size = 10M\nlog-keep = 3\n' >> "$T/c/capinit.conf"

k=0
while [ $k -lt $NSVC ]; do
  svc "h$k" <<EOF
command = $HELPER stamp $T/stamps.$k
restart-delay = 0ms
EOF
  k=$((k + 1))
done
svc spew <<EOF
command = $HELPER spew $BYTES
enabled = no
EOF
cp tests/robust/restart_latency.py "$T/"

sv_start
t_ok $? "capinit starts"
for k in $(seq 0 $((NSVC - 1))); do sv_wait "h$k" up || echo "# h$k not up"; done
pid=$(sv_pid)
sv_in timeout 600 "$PY" "$T/restart_latency.py" "$CAPCTL" "$T/run" "$T" $NSVC control 100 > "$T/lat.control"
t_ok $? "100 restart latencies measured alone"
fds0=$(rb_fds_rest "$pid")
cpu0=$(rb_cpu "$pid")
sv_in timeout 900 "$PY" "$T/restart_latency.py" "$CAPCTL" "$T/run" "$T" $NSVC load $LINES > "$T/lat.load"
t_ok $? "restart latencies measured while spew writes $MB MB"
cpu1=$(rb_cpu "$pid")
grep -v '^latencies' "$T/lat.control" | sed 's/^/# alone: /'
grep -v '^latencies' "$T/lat.load" | sed 's/^/# during the write: /'
set -- $(sed -n 's/^median \([0-9]*\) p90 \([0-9]*\) max \([0-9]*\)$/\1 \2 \3/p' "$T/lat.control")
c_med=$1 c_p90=$2 c_max=$3
set -- $(sed -n 's/^median \([0-9]*\) p90 \([0-9]*\) max \([0-9]*\)$/\1 \2 \3/p' "$T/lat.load")
l_med=$1 l_p90=$2 l_max=$3
n_load=$(sed -n 's/^samples //p' "$T/lat.load")
n_during=$(sed -n 's/^during //p' "$T/lat.load")
set -- $(sed -n 's/^spew_lines \([0-9]*\) spew_dropped \([0-9]*\) spew_ms \([0-9]*\)$/\1 \2 \3/p' "$T/lat.load")
s_lines=$1 s_dropped=$2 s_ms=$3
t_eq "$s_lines $s_dropped" "$LINES 0" "every line of the $MB MB reached the log: $LINES lines, 0 dropped"
t_ok $([ "${n_during:-0}" -ge 10 ] && echo 0 || echo 1) \
  "restarts complete while the write goes on: $n_during of $n_load seen before a status that shows spew still writing (at least 10)"
restarts=0
for k in $(seq 0 $((NSVC - 1))); do restarts=$((restarts + $(sv_field "h$k" restarts))); done
t_eq "$restarts" "$((100 + n_load))" "each kill restarted its service once ($restarts), none gave up or backed off"
n_logs=$(ls "$T/log" | grep -c '^spew\.log')
big=$(find "$T/log" -name 'spew.log*' -size +10240k | wc -l)
t_ok $([ "$n_logs" -le 4 ] && [ "$n_logs" -ge $(( MB >= 40 ? 4 : 1 )) ] && [ "$big" = 0 ] && echo 0 || echo 1) \
  "spew's log rotated within its bounds: $n_logs files (at most 1 + log-keep 3), none over log-max-size (10 MB)"
sv_ctl stop spew
sv_wait spew down
# spew's log pipe (both ends) and log file stay open across its restarts:
# 3 more; the 4 restarted services, restarted hundreds of times, add none
t_eq "$(rb_fds_rest "$pid")" "$((fds0 + 3))" "capinit's descriptors: $fds0 before the write, + 3 for spew's log after it"
t_eq "$(grep -c -e warning -e fatal "$T/capinit.out")" 0 "no warning from capinit"
sv_stop
t_eq "$sv_rc" 0 "capinit exits 0"
mbps=$(awk -v b="$BYTES" -v ms="$s_ms" 'BEGIN { printf "%.0f", ms ? b / 1048576 / (ms / 1000) : 0 }')
cpu=$(awk -v c=$((cpu1 - cpu0)) -v hz="$(getconf CLK_TCK)" 'BEGIN { printf "%.1f", c / hz }')
rb_figure mb=$MB ms=$s_ms mbps=$mbps lines=$s_lines dropped=$s_dropped alone="$c_med/$c_p90/$c_max" \
  loaded="$l_med/$l_p90/$l_max" restarts=$n_load during=$n_during
echo "# summary: log: $MB MB written in $s_ms ms ($mbps MB/s, capinit ${cpu} s CPU), $s_lines lines, $s_dropped dropped; restart latency alone median $c_med / p90 $c_p90 / max $c_max ms, during the write median $l_med / p90 $l_p90 / max $l_max ms ($n_load restarts)"
t_done

#!/bin/sh
# Soak: a crash-looping service (restart-delay = 0ms: restarted as soon as
# it dies) restarted ROBUST_RESTARTS times (make check: 3000; make
# robustness: 100 000), within ROBUST_RESTART_SECONDS (1800).  capinit's descriptors and resident memory
# must be flat: both are sampled at rest (the crashing service stopped,
# nothing being spawned) after 1000 restarts and again at the end, and must
# be equal (descriptors) and within 16 kB (RSS).  A steady service beside
# it keeps its pid, no zombie is left, the log rotates within its bounds.
B=${1:-build}
. tests/lib.sh
. tests/supervise_lib.sh
. tests/robust/robust_lib.sh
N=$(rb_knob ROBUST_RESTARTS 3000)
LIMIT=$(rb_knob ROBUST_RESTART_SECONDS 1800)
WARM=1000
[ "$N" -gt $((WARM * 2)) ] || WARM=$((N / 2))
RSS_SLACK=16
sv_init

svc crash <<EOF
command = $HELPER exit 1 $T/crash.stamps
restart-delay = 0ms
restart-delay-max = 0ms
EOF
svc steady <<EOF
command = $HELPER stamp $T/steady
EOF

restarts() { sv_field crash restarts; }
at_least() { [ "$(restarts)" -ge "$1" ] 2>/dev/null; }
# capinit at rest: crash stopped, down; the sample; crash started again
# (but after the last one: the zombie count is taken at rest too)
rest_sample() { # [last] -> "FDS RSS"
  sv_ctl stop crash
  sv_wait crash down || echo "# crash did not go down" >&2
  echo "$(rb_fds_rest "$pid") $(rb_rss "$pid")"
  [ "${1:-}" = last ] || sv_ctl start crash
}

sv_start
t_ok $? "capinit starts"
sv_wait steady up
pid=$(sv_pid)
steady_pid=$(sv_field steady pid)
t_start=$(date +%s)

rb_until "$LIMIT" at_least $WARM
t_ok $? "crash restarted $WARM times (warm-up)"
first=$(rest_sample)
first_restarts=$(restarts)
cpu0=$(rb_cpu "$pid")
echo "# at rest after $first_restarts restarts: $(echo "$first" | awk '{ print $1 " descriptors, RSS " $2 " kB" }')"

# while it runs: a sample at each tenth (descriptors vary by the spawn in
# flight: exec pipe, /dev/null)
series=
step=$(( (N - first_restarts) / 10 ))
[ $step -gt 0 ] || step=1
next=$((first_restarts + step))
end=$((t_start + LIMIT))
while :; do
  r=$(restarts)
  [ "$r" -ge "$N" ] 2>/dev/null && break
  [ "$(date +%s)" -ge "$end" ] && break
  if [ "$r" -ge "$next" ] 2>/dev/null; then
    series="$series $r:$(rb_fds "$pid")/$(rb_rss "$pid")"
    next=$((next + step))
  fi
  kill -0 "$pid" 2>/dev/null || break
  sleep 0.5
done
secs=$(($(date +%s) - t_start))
reached=$(restarts)
t_ok $([ "$reached" -ge "$N" ] && echo 0 || echo 1) "crash restarted $N times within ${LIMIT}s ($reached in ${secs}s)"
cpu1=$(rb_cpu "$pid")
last=$(rest_sample last)
echo "# running (restarts:descriptors/RSS kB):$series"
echo "# at rest after $reached restarts: $(echo "$last" | awk '{ print $1 " descriptors, RSS " $2 " kB" }')"
t_eq "${last% *}" "${first% *}" "descriptors at rest: the same after $first_restarts and $reached restarts"
rss0=${first#* } rss1=${last#* }
rb_rss_flat "$rss0" "$rss1" $RSS_SLACK \
  "RSS at rest: $rss0 kB -> $rss1 kB (at most +$RSS_SLACK kB)"

t_eq "$(sv_field steady state) $(sv_field steady pid) $(sv_field steady restarts)" "up $steady_pid 0" \
  "steady was untouched: up, same pid, 0 restarts"
zombies=$(rb_zombies)
t_eq "$zombies" 0 "no zombie in capinit's namespace (crash down: every death reaped)"
ran=$(wc -l < "$T/crash.stamps")
t_ok $([ "$ran" -ge "$reached" ] && echo 0 || echo 1) "crash's command really ran each time ($ran executions)"
n_logs=$(ls "$T/log" | grep -c '^crash\.log')
big=$(find "$T/log" -name 'crash.log*' -size +1024k | wc -l)
t_ok $([ "$n_logs" -le 6 ] && [ "$big" = 0 ] && echo 0 || echo 1) \
  "crash's log stays within its bounds: $n_logs files (at most 1 + log-keep 5), none over log-max-size (1 MiB)"
other=$(grep -v -e '^capinit: service crash: exited 1 after [0-9]* ms$' \
  -e '^capinit: service crash: died after [0-9]* ms: restarting in 0 ms$' \
  -e '^capinit: service crash: stopp' -e '^capinit: all .* ready' "$T/capinit.out" | wc -l)
t_eq "$other" 0 "capinit said nothing else (no warning, no error)"
[ "$other" = 0 ] || grep -v -e 'exited 1 after' -e 'died after' "$T/capinit.out" | head -n 5 | sed 's/^/#   /'
sv_stop
t_eq "$sv_rc" 0 "capinit exits 0"
rate=$(( (reached - first_restarts) / (secs > 0 ? secs : 1) ))
per=$(awk -v c=$((cpu1 - cpu0)) -v r=$((reached - first_restarts)) -v hz="$(getconf CLK_TCK)" \
  'BEGIN { printf "%.1f", r ? c * 1e6 / hz / r : 0 }')
rb_figure restarts=$reached seconds=$secs rate=$rate cpu_us=$per fds="${first% *}/${last% *}" rss="$rss0/$rss1" zombies=$zombies
echo "# summary: crash loop: $reached restarts in ${secs} s ($rate/s, capinit ${per} us CPU each); at rest after $first_restarts and $reached: ${first% *} = ${last% *} descriptors, RSS $rss0 -> $rss1 kB"
t_done

#!/bin/sh
# Soak: ROBUST_ORPHANS orphans reaped (make check: 10 000; make
# robustness: 100 000), within ROBUST_ORPHAN_SECONDS (900).  A service makes them one
# at a time (svc_helper orphans: a middle process forks a grandchild and
# exits; the grandchild waits until it has been reparented, to capinit,
# PID 1 of the namespace, then exits); capinit must reap every one: no
# zombie left, the process count back to what it was, capinit's
# descriptors and RSS unchanged, the other services untouched.
B=${1:-build}
. tests/lib.sh
. tests/supervise_lib.sh
. tests/robust/robust_lib.sh
N=$(rb_knob ROBUST_ORPHANS 10000)
LIMIT=$(rb_knob ROBUST_ORPHAN_SECONDS 900)
sv_init

svc steady <<EOF
command = $HELPER stamp $T/steady
EOF
svc orphans <<EOF
command = $HELPER orphans $N $T/orphans.out
enabled = no
EOF

sv_start
t_ok $? "capinit starts"
sv_wait steady up
pid=$(sv_pid)
steady_pid=$(sv_field steady pid)
procs0=$(rb_procs)
t0=$(rb_ms)
cpu0=$(rb_cpu "$pid")
sv_ctl start orphans
sv_wait orphans up
orphans_pid=$(sv_field orphans pid)
# capinit's own resources once the maker runs (its log pipe is open): the
# orphans need none
fds0=$(rb_fds_rest "$pid") rss0=$(rb_rss "$pid")
rb_until "$LIMIT" test -s "$T/orphans.out"
t_ok $? "the service made its $N orphans within ${LIMIT}s"
t1=$(rb_ms)
cpu1=$(rb_cpu "$pid")
read -r made reparented < "$T/orphans.out"
t_eq "$made $reparented" "$N $N" "$N orphans made, all $N reparented (to capinit) before they exited"
# the last ones may still be exiting
settled() { [ "$(rb_zombies)" = 0 ] && [ "$(rb_procs)" = $((procs0 + 1)) ]; }
rb_until 60 settled
zombies=$(rb_zombies)
t_eq "$zombies" 0 "no zombie left in capinit's namespace"
t_eq "$(rb_procs)" $((procs0 + 1)) "processes: what there were before, plus the orphan maker ($((procs0 + 1)))"
t_eq "$(sv_field orphans state) $(sv_field orphans pid) $(sv_field orphans restarts)" "up $orphans_pid 0" \
  "the orphan maker is up, never restarted: its orphans were never taken for it"
t_eq "$(sv_field steady state) $(sv_field steady pid) $(sv_field steady restarts)" "up $steady_pid 0" \
  "steady was untouched"
fds1=$(rb_fds_rest "$pid")
t_eq "$fds1" "$fds0" "capinit's descriptors: $fds0 before, the same after"
rss1=$(rb_rss "$pid")
rb_rss_flat "$rss0" "$rss1" 16 "capinit's RSS: $rss0 kB -> $rss1 kB (at most +16 kB)"
t_eq "$(grep -c warning "$T/capinit.out")" 0 "no warning from capinit"
sv_stop
t_eq "$sv_rc" 0 "capinit exits 0"
ms=$((t1 - t0))
per=$(awk -v c=$((cpu1 - cpu0)) -v n="$N" -v hz="$(getconf CLK_TCK)" 'BEGIN { printf "%.1f", c * 1e6 / hz / n }')
rb_figure orphans=$N reaped=$reparented ms=$ms rate=$((N * 1000 / (ms > 0 ? ms : 1))) cpu_us=$per zombies=$zombies \
  fds="$fds0/$fds1" rss="$rss0/$rss1"
echo "# summary: orphans: $reparented of $N reaped by capinit in $ms ms ($((N * 1000 / (ms > 0 ? ms : 1)))/s, capinit ${per} us CPU each), $zombies zombies; descriptors $fds0 = $fds1, RSS $rss0 -> $rss1 kB"
t_done

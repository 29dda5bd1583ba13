#!/bin/sh
# Soak: ROBUST_SERVICES (1000) services stopped and started through capctl,
# ROBUST_ROUNDS times (make check: 2; make robustness: 100) or as many
# rounds as fit ROBUST_STARTSTOP_SECONDS (1800).  A round: `capctl stop`
# every service (in requests of 250 names), wait until all are down,
# `capctl start` them, wait until all are up.  After every round: all up,
# each with a live pid, nothing else running (no leftover process, no
# zombie); capinit's descriptors at the end of the last round equal those
# at the end of the first, its RSS within 64 kB.  First, a status of all
# of them read while capinit is busy (stopped) for longer than the idle
# limit of a client: every record arrives.
B=${1:-build}
. tests/lib.sh
. tests/supervise_lib.sh
. tests/robust/robust_lib.sh
PY=/usr/bin/python3
[ -x "$PY" ] || PY=python3
N=$(rb_knob ROBUST_SERVICES 1000)
ROUNDS=$(rb_knob ROBUST_ROUNDS 2)
LIMIT=$(rb_knob ROBUST_STARTSTOP_SECONDS 1800)
sv_init

i=0
while [ $i -lt $N ]; do
  name=$(printf 's%04d' $i)
  log=file
  [ $((i % 2)) = 1 ] && log=none
  printf 'command = %s stamp /dev/null\nlog = %s\n' "$HELPER" "$log" > "$T/c/services/$name.svc"
  i=$((i + 1))
done
# the names, 250 to a line: one request each
i=0
while [ $i -lt $N ]; do printf 's%04d\n' $i; i=$((i + 1)); done | paste -d' ' $(printf -- '- %.0s' $(seq 250)) > "$T/batches"

count() { # STATE: services in it
  sv_ctl status | awk -v s="$1" 'NR > 1 && !/^ / && $2 == s' | wc -l
}
all_in() { [ "$(count "$1")" = "$N" ]; }
batch() { # VERB: every service, 250 names a request; 0 if every request said ok
  rc=0
  while read -r names; do
    # shellcheck disable=SC2086
    sv_ctl "$1" $names || rc=1
  done < "$T/batches"
  return $rc
}

sv_start
t_ok $? "capinit starts with $N services"
rb_until 300 all_in up
t_ok $? "all $N up"
pid=$(sv_pid)
procs_up=$(rb_procs)
t_eq "$procs_up" $((N + 1)) "$N service processes and capinit in the namespace"
# a reply of $N records is larger than the socket takes at once: a client
# reading it must get all of it even when capinit was busy (here stopped)
# for longer than the 10 s after which an idle client is dropped
t_eq "$("$PY" tests/robust/hostile.py paused "$T/run/control" "$pid" 11)" "$N ok" \
  "a client reading a $N-record status while capinit is busy for 11 s gets every record"

t_start=$(date +%s)
end=$((t_start + LIMIT))
round=0 bad=0 req_fail=0 fds1= rss1= down_ms=0 up_ms=0 worst_round=0 series=
while [ $round -lt "$ROUNDS" ] && [ "$(date +%s)" -lt "$end" ]; do
  round=$((round + 1))
  r0=$(rb_ms)
  batch stop || req_fail=$((req_fail + 1))
  rb_until 300 all_in down || { bad=$((bad + 1)); echo "# round $round: not all down: $(count down) of $N"; }
  r1=$(rb_ms)
  if [ "$(rb_procs)" != 1 ]; then
    bad=$((bad + 1))
    echo "# round $round: $(($(rb_procs) - 1)) processes left besides capinit when all are down"
  fi
  batch start || req_fail=$((req_fail + 1))
  rb_until 300 all_in up || { bad=$((bad + 1)); echo "# round $round: not all up: $(count up) of $N"; }
  r2=$(rb_ms)
  down_ms=$((down_ms + r1 - r0))
  up_ms=$((up_ms + r2 - r1))
  [ $((r2 - r0)) -gt $worst_round ] && worst_round=$((r2 - r0))
  if [ "$(rb_procs)" != $((N + 1)) ] || [ "$(rb_zombies)" != 0 ]; then
    bad=$((bad + 1))
    echo "# round $round: $(rb_procs) processes, $(rb_zombies) zombies"
  fi
  if [ $round = 1 ]; then
    fds1=$(rb_fds_rest "$pid") rss1=$(rb_rss "$pid")
  fi
  series="$series $(rb_rss "$pid")"
done
echo "# capinit's RSS (kB) at the end of each round:$series"
secs=$(($(date +%s) - t_start))
fdsN=$(rb_fds_rest "$pid") rssN=$(rb_rss "$pid")
t_ok $([ $round -ge "$ROUNDS" ] && echo 0 || echo 1) "$ROUNDS rounds within ${LIMIT}s ($round in ${secs}s)"
t_eq "$bad" 0 "every round: all $N down (no process left), then all up with $N processes, no zombie"
t_eq "$req_fail" 0 "every capctl request answered ok ($((round * 2 * $(wc -l < "$T/batches"))) requests)"
t_eq "$(sv_ctl status --json | grep -c '"pid": [1-9]')" "$N" "after the last round: $N services with a pid"
t_eq "$fdsN" "$fds1" "capinit's descriptors after round 1 and after round $round: $fds1 = $fdsN"
# a status of $N services is a reply of ~450 kB, queued whole for a slow
# reader: the allocator's high-water mark may rise by a step or two (a
# leak would rise every round: the series above shows which)
rb_rss_flat "$rss1" "$rssN" 64 "capinit's RSS after round 1 and round $round: $rss1 -> $rssN kB (at most +64 kB)"
t_eq "$(grep -c -e warning -e fatal "$T/capinit.out")" 0 "no warning from capinit"
sv_stop
t_eq "$sv_rc" 0 "capinit exits 0"
r=$((round > 0 ? round : 1))
rb_figure services=$N rounds=$round seconds=$secs down_ms=$((down_ms / r)) up_ms=$((up_ms / r)) worst_ms=$worst_round \
  bad=$bad fds="$fds1/$fdsN" rss="$rss1/$rssN"
echo "# summary: $N services stopped and started through capctl $round times in ${secs} s: all down in $((down_ms / r)) ms, all up in $((up_ms / r)) ms (mean), slowest round $worst_round ms; descriptors $fds1 = $fdsN, RSS $rss1 -> $rssN kB"
t_done

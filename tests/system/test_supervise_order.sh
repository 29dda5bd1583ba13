#!/bin/sh
# Dependency order, seen from the services' own clocks (CLOCK_MONOTONIC ms
# stamps, the same clock in every process): a chain and a diamond start
# each service only once its dependencies are ready, independent services
# start together, `after` orders without pulling in, refused files and a
# cycle do not start while the rest runs, `capctl stop` of a dependency
# stops its dependents first, `capctl start` of a dependent starts its
# dependencies, and SIGTERM stops everything in reverse order.
#
# Every check is an order between stamps, never a duration: "B started
# after A was ready" (A stamps $T/ready just before it tells capinit),
# "B was stopped after A had exited" (A stamps $T/exited just before it
# exits).  What must happen at the same time is proven by gates: left
# becomes ready only once right has started, and right only once left has
# started; a capinit that started one after the other would wait for ever
# (then the ready-timeout, and a second start, which the checks see).  The
# same for the 5 independent services, and, at SIGTERM, for the services
# that stop together (each exits only once all of them got their signal;
# one after the other would end in stop-timeout's SIGKILL, no $T/exited
# stamp).  The delays between the stamps are figures (# summary).
B=${1:-build}
. tests/lib.sh
. tests/supervise_lib.sh
sv_init
: > "$T/start"
: > "$T/ready"
: > "$T/stop"
: > "$T/exited"

# The child of a waiter: once every GATE name has started, wait READY_MS,
# stamp $T/ready, then tell capinit (fd 3 or notify: from a process of the
# service).  Gates are waited for at most 120 s (then it goes on: the
# checks then fail on the order).
cat > "$T/child.sh" <<EOC
kind=\$1 ms=\$2
shift 2
for g in "\$@"; do
  i=0
  until grep -q "^\$g " "$T/start" || [ \$i -ge 6000 ]; do sleep 0.02; i=\$((i + 1)); done
done
$HELPER run "\$ms" 0
$HELPER exit 0 "$T/ready"
case \$kind in
  fd) exec $HELPER fdready 3 0 ;;
  notify) exec $HELPER notify 0 ;;
esac
EOC
# What a waiter does on SIGTERM: stamp $T/stop; wait for the names in
# $T/stopgate.NAME, if any, to have got theirs; take 200 ms to exit (so
# that a dependency stopped before its dependent has exited would show);
# stamp $T/exited.
cat > "$T/stopped.sh" <<EOC
$HELPER exit 0 "$T/stop"
if [ -e "$T/stopgate.\$SVC_NAME" ]; then
  for g in \$(cat "$T/stopgate.\$SVC_NAME"); do
    i=0
    until grep -q "^\$g " "$T/stop" || [ \$i -ge 6000 ]; do sleep 0.02; i=\$((i + 1)); done
  done
fi
$HELPER run 200 0
$HELPER exit 0 "$T/exited"
EOC

# A longrun that stamps $T/start when it starts, and is ready READY_MS
# after its gates (if any) have opened.
waiter() { # NAME fd|notify READY_MS [GATE...], more service lines on stdin
  n=$1 kind=$2 ms=$3
  shift 3
  case $kind in
    fd) ready='ready = fd:3' ;;
    notify) ready='ready = notify' ;;
  esac
  {
    echo "command = /bin/sh -c \"trap 'sh $T/stopped.sh; exit 0' TERM; $HELPER exit 0 $T/start; sh $T/child.sh $kind $ms $* & wait\""
    echo "$ready"
    cat
  } | svc "$n"
}

# at FILE NAME [N]: the Nth stamp of NAME (1 = first, 0 = last), or -1
at() {
  awk -v n="$2" -v k="${3:-1}" '$1 == n { c++; v = $2; if (c == k) { print v; f = 1; exit } }
    END { if (!f) print (k == 0 && c ? v : -1) }' "$1"
}
# order FILE K NAME...: the names sorted by their Kth stamp
order() {
  f=$1 k=$2
  shift 2
  for n in "$@"; do echo "$(at "$f" "$n" "$k") $n"; done | sort -n | cut -d' ' -f2 | tr '\n' ' '
}
# not_before A B: stamp A is at or after stamp B, both present
not_before() { [ "$2" -ge 0 ] && [ "$1" -ge "$2" ]; }
# before A B: stamp A is before stamp B, both present
before() { [ "$1" -ge 0 ] && [ "$1" -lt "$2" ]; }
# the largest and the smallest of the arguments
max() { printf '%s\n' "$@" | sort -n | tail -n 1; }
min() { printf '%s\n' "$@" | sort -n | head -n 1; }
# stamps FILE K NAME...: the Kth stamp of each name
stamps() {
  f=$1 k=$2
  shift 2
  for n in "$@"; do at "$f" "$n" "$k"; done
}
# lines FILE NAME...: how many stamps each name has, "NAME:N ..."
lines() {
  f=$1
  shift
  for n in "$@"; do printf '%s:%s ' "$n" "$(grep -c "^$n " "$f")"; done
}

# chain: cc depends on cb depends on ca; each ready 300 ms after its start
waiter ca fd 300 </dev/null
waiter cb fd 300 <<EOF
depends = ca
EOF
waiter cc fd 300 <<EOF
depends = cb
EOF
# diamond: top depends on left and right, both depend on bottom; left and
# right are each ready only once the other has started (then 300 and 600
# ms later)
waiter bottom notify 300 </dev/null
waiter left notify 300 right <<EOF
depends = bottom
EOF
waiter right notify 600 left <<EOF
depends = bottom
EOF
waiter top notify 300 <<EOF
depends = left right
EOF
# five independent services, each ready only once all five have started
for i in 1 2 3 4 5; do waiter p$i fd 100 p1 p2 p3 p4 p5 </dev/null; done
# after: az after aw (enabled, slow); ax after ay (not enabled)
waiter aw fd 300 </dev/null
waiter az fd 0 <<EOF
after = aw
EOF
waiter ay fd 0 <<EOF
enabled = no
EOF
waiter ax fd 0 <<EOF
after = ay
EOF
# refused: a file with an error, a cycle, and a dependent of the bad file
svc bad <<EOF
command = $HELPER stamp $T/refused
restart = sometimes
EOF
svc cyc1 <<EOF
command = $HELPER stamp $T/refused
depends = cyc2
EOF
svc cyc2 <<EOF
command = $HELPER stamp $T/refused
depends = cyc1
EOF
svc needbad <<EOF
command = $HELPER stamp $T/refused
depends = bad
EOF
running="ca cb cc bottom left right top p1 p2 p3 p4 p5 aw az ax"

sv_start
t_ok $? "capinit starts"
ok=0
for n in $running; do sv_wait "$n" up && ok=$((ok + 1)); done
t_eq "$ok" 15 "all 15 valid, enabled services reach up"
# shellcheck disable=SC2086
t_eq "$(lines "$T/start" $running)" "$(for n in $running; do printf '%s:1 ' $n; done)" \
  "each started once (a gate that never opened would have meant a ready-timeout and a second start)"

# --- chain
t_eq "$(order "$T/start" 1 cc ca cb)" "ca cb cc " "chain: started in dependency order ca, cb, cc"
not_before "$(at "$T/start" cb)" "$(at "$T/ready" ca)"
t_ok $? "chain: cb starts once ca is ready (+$(( $(at "$T/start" cb) - $(at "$T/ready" ca) )) ms after ca's readiness)"
not_before "$(at "$T/start" cc)" "$(at "$T/ready" cb)"
t_ok $? "chain: cc starts once cb is ready (+$(( $(at "$T/start" cc) - $(at "$T/ready" cb) )) ms)"
chain_lag="$(( $(at "$T/start" cb) - $(at "$T/ready" ca) )) $(( $(at "$T/start" cc) - $(at "$T/ready" cb) ))"

# --- diamond
b=$(at "$T/start" bottom) l=$(at "$T/start" left) r=$(at "$T/start" right) tp=$(at "$T/start" top)
rb=$(at "$T/ready" bottom) rl=$(at "$T/ready" left) rr=$(at "$T/ready" right)
t_eq "$(order "$T/start" 1 top right left bottom | sed 's/right left/left right/')" "bottom left right top " \
  "diamond: bottom, then left and right, then top"
not_before "$l" "$rb" && not_before "$r" "$rb"
t_ok $? "diamond: left and right start once bottom is ready (+$((l - rb)), +$((r - rb)) ms)"
before "$l" "$rr" && before "$r" "$rl"
t_ok $? "diamond: left and right start in parallel: each started before the other was ready (which waits for it)"
not_before "$tp" "$rl" && not_before "$tp" "$rr"
t_ok $? "diamond: top starts once both left and right are ready (+$((tp - $(max "$rl" "$rr"))) ms after the later)"

# --- independent services
p_start=$(max $(stamps "$T/start" 1 p1 p2 p3 p4 p5))
p_ready=$(min $(stamps "$T/ready" 1 p1 p2 p3 p4 p5))
before "$p_start" "$p_ready"
t_ok $? "5 independent services start together: all 5 started before any was ready (each waits for all 5)"

# --- after
not_before "$(at "$T/start" az)" "$(at "$T/ready" aw)"
t_ok $? "after: az starts once aw (enabled) has finished starting (+$(( $(at "$T/start" az) - $(at "$T/ready" aw) )) ms)"
t_eq "$(at "$T/start" ay)" "-1" "after: ay (not enabled) is not pulled in: it never started"
t_eq "$(sv_field ay state) $(sv_field ay wanted)" "down down" "after: ay stays down, not wanted"
t_eq "$(sv_field ax state)" "up" "after: ax, after a service that is not enabled, starts without it"

# --- refused files and the cycle
for n in bad cyc1 cyc2 needbad; do
  t_eq "$(sv_field $n state) $(sv_field $n pid) $(sv_field $n wanted)" "failed 0 down" "refused: $n is failed, has no process, is not wanted"
done
t_eq "$(sv_field bad failure)" "invalid service file (capctl check)" "refused: status says why"
t_ok "$([ ! -e "$T/refused" ]; echo $?)" "refused: none of the refused commands ever ran"
grep -q "dependency cycle: cyc[12] -> cyc[12] -> cyc[12]" "$T/capinit.out"
t_ok $? "refused: capinit reports the dependency cycle"
grep -q "needbad.svc:[0-9]*: error: depends on 'bad', which is refused" "$T/capinit.out"
t_ok $? "refused: capinit reports the dependent of the refused file"
out=$(sv_ctl start bad 2>&1)
t_eq "$?:$out" "1:capctl: error: service 'bad' is refused: its file has errors (capctl check)" \
  "refused: capctl start of a refused service is an error"

# --- capctl stop of a dependency: its dependents stop first
sv_ctl stop ca >/dev/null
t_eq "$?" 0 "capctl stop ca: ok"
sv_wait ca down
t_ok $? "ca goes down"
t_eq "$(sv_field cc state) $(sv_field cb state) $(sv_field ca state)" "down down down" \
  "cc and cb, which depend on ca, are down too"
t_eq "$(sv_field cc wanted) $(sv_field cb wanted) $(sv_field ca wanted)" "down down down" \
  "and none of the three is wanted up"
t_eq "$(order "$T/stop" 1 ca cb cc)" "cc cb ca " "stop order: cc, then cb, then ca"
not_before "$(at "$T/stop" cb)" "$(at "$T/exited" cc)" && not_before "$(at "$T/stop" ca)" "$(at "$T/exited" cb)"
t_ok $? "each stops only after its dependent has exited (+$(( $(at "$T/stop" cb) - $(at "$T/exited" cc) )), +$(( $(at "$T/stop" ca) - $(at "$T/exited" cb) )) ms)"
t_eq "$(sv_field top state)" "up" "control: the diamond is not touched by stopping the chain"

# --- capctl start of a dependent: its dependencies start first
sv_ctl start cc >/dev/null
t_eq "$?" 0 "capctl start cc: ok"
sv_wait cc up
t_ok $? "cc comes up"
t_eq "$(sv_field ca state) $(sv_field cb state) $(sv_field ca wanted) $(sv_field cb wanted)" "up up up up" \
  "ca and cb were started for it, and are wanted up"
t_eq "$(order "$T/start" 2 cc cb ca)" "ca cb cc " "second start: ca, cb, cc in order"
not_before "$(at "$T/start" cb 2)" "$(at "$T/ready" ca 2)" && not_before "$(at "$T/start" cc 2)" "$(at "$T/ready" cb 2)"
t_ok $? "each started once its dependency was ready (+$(( $(at "$T/start" cb 2) - $(at "$T/ready" ca 2) )), +$(( $(at "$T/start" cc 2) - $(at "$T/ready" cb 2) )) ms)"

# --- SIGTERM: reverse dependency order, independent ones in parallel
# this stop's stamps in new files; left and right each exit only once the
# other got its signal, and so do the 9 services nothing depends on
mv "$T/stop" "$T/stop1"
mv "$T/exited" "$T/exited1"
: > "$T/stop"
: > "$T/exited"
leaves="cc top p1 p2 p3 p4 p5 az ax"
echo right > "$T/stopgate.left"
echo left > "$T/stopgate.right"
for n in $leaves; do echo $leaves > "$T/stopgate.$n"; done
sv_stop
t_eq "$sv_rc" 0 "SIGTERM: capinit exits 0"
# shellcheck disable=SC2086
t_eq "$(lines "$T/stop" $running)" "$(for n in $running; do printf '%s:1 ' $n; done)" \
  "SIGTERM: each of the 15 running services got its stop signal once"
# shellcheck disable=SC2086
t_eq "$(lines "$T/exited" $running)" "$(for n in $running; do printf '%s:1 ' $n; done)" \
  "SIGTERM: and each exited by itself (none waited for a SIGKILL)"
t_eq "$(order "$T/stop" 1 ca cb cc)" "cc cb ca " "SIGTERM: chain stops cc, cb, ca"
not_before "$(at "$T/stop" cb)" "$(at "$T/exited" cc)" && not_before "$(at "$T/stop" ca)" "$(at "$T/exited" cb)"
t_ok $? "SIGTERM: each after its dependent exited (+$(( $(at "$T/stop" cb) - $(at "$T/exited" cc) )), +$(( $(at "$T/stop" ca) - $(at "$T/exited" cb) )) ms)"
b=$(at "$T/stop" bottom) l=$(at "$T/stop" left) r=$(at "$T/stop" right) tp=$(at "$T/stop" top)
xb=$(at "$T/exited" bottom) xl=$(at "$T/exited" left) xr=$(at "$T/exited" right) xt=$(at "$T/exited" top)
t_eq "$(order "$T/stop" 1 bottom left right top | sed 's/right left/left right/')" "top left right bottom " \
  "SIGTERM: diamond stops top, then left and right, then bottom"
not_before "$l" "$xt" && not_before "$r" "$xt"
t_ok $? "SIGTERM: left and right once top exited (+$((l - xt)), +$((r - xt)) ms)"
before "$l" "$xr" && before "$r" "$xl"
t_ok $? "SIGTERM: left and right stop in parallel: each got its signal before the other exited (which waits for it)"
not_before "$b" "$xl" && not_before "$b" "$xr"
t_ok $? "SIGTERM: bottom once both exited (+$((b - $(max "$xl" "$xr"))) ms)"
not_before "$(at "$T/stop" aw)" "$(at "$T/exited" az)"
t_ok $? "SIGTERM: aw stops after az, which comes after it, has exited (+$(( $(at "$T/stop" aw) - $(at "$T/exited" az) )) ms)"
# shellcheck disable=SC2086
before "$(max $(stamps "$T/stop" 1 $leaves))" "$(min $(stamps "$T/exited" 1 $leaves))"
t_ok $? "SIGTERM: the 9 services nothing depends on stop together: all 9 got their signal before any exited"
# shellcheck disable=SC2086
echo "# summary: chain, diamond, 5 parallel, after, 4 refused, stop/start through deps, SIGTERM order: $t_n checks; start after readiness +$chain_lag ms (chain), 9 leaves signalled within $(( $(max $(stamps "$T/stop" 1 $leaves)) - $(min $(stamps "$T/stop" 1 $leaves)) )) ms"
t_done

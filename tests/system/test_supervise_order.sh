#!/bin/sh
# Dependency order, seen from the services' own clocks (CLOCK_MONOTONIC ms
# stamps, the same clock in every process): a chain and a diamond start
# each service only once its dependencies are ready, independent services
# start together, `after` orders without pulling in, refused files and a
# cycle do not start while the rest runs, `capctl stop` of a dependency
# stops its dependents first, `capctl start` of a dependent starts its
# dependencies, and SIGTERM stops everything in reverse order.
B=${1:-build}
. tests/lib.sh
. tests/supervise_lib.sh
sv_init
: > "$T/start"
: > "$T/stop"

# A longrun that stamps $T/start when it starts, becomes ready READY_MS
# later (fd:3 or notify, sent by its child: a process of the service), and
# on SIGTERM stamps $T/stop, then takes 200 ms to exit: so a dependency
# that stops before its dependent has exited would show in the stamps.
waiter() { # NAME fd|notify READY_MS, more service lines on stdin
  case $2 in
    fd) ready='ready = fd:3' child="$HELPER fdready 3 $3" ;;
    notify) ready='ready = notify' child="$HELPER notify $3" ;;
  esac
  {
    echo "command = /bin/sh -c \"trap '$HELPER exit 0 $T/stop; $HELPER run 200 0; exit 0' TERM; $HELPER exit 0 $T/start; $child & wait\""
    echo "$ready"
    cat
  } | svc "$1"
}

# at FILE NAME [N]: the Nth stamp of NAME (1 = first, 0 = last), or -1
at() {
  awk -v n="$2" -v k="${3:-1}" '$1 == n { c++; v = $2; if (c == k) { print v; f = 1; exit } }
    END { if (!f) print (k == 0 && c ? v : -1) }' "$1"
}
# in_range VALUE LOW HIGH: LOW <= VALUE < HIGH
in_range() { [ "$1" -ge "$2" ] && [ "$1" -lt "$3" ]; }
# order FILE K NAME...: the names sorted by their Kth stamp
order() {
  f=$1 k=$2
  shift 2
  for n in "$@"; do echo "$(at "$f" "$n" "$k") $n"; done | sort -n | cut -d' ' -f2 | tr '\n' ' '
}
spread() { # the largest minus the smallest of the arguments
  printf '%s\n' "$@" | sort -n | sed -n '1p;$p' | tr '\n' ' ' | awk '{ print $2 - $1 }'
}

# chain: cc depends on cb depends on ca; each ready 300 ms after its start
waiter ca fd 300 </dev/null
waiter cb fd 300 <<EOF
depends = ca
EOF
waiter cc fd 300 <<EOF
depends = cb
EOF
# diamond: top depends on left and right, both depend on bottom; right is
# the slower one (600 ms)
waiter bottom notify 300 </dev/null
waiter left notify 300 <<EOF
depends = bottom
EOF
waiter right notify 600 <<EOF
depends = bottom
EOF
waiter top notify 300 <<EOF
depends = left right
EOF
# five independent services, each ready after 500 ms
for i in 1 2 3 4 5; do waiter p$i fd 500 </dev/null; done
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
for n in $running; do sv_wait "$n" up 10 && ok=$((ok + 1)); done
t_eq "$ok" 15 "all 15 valid, enabled services reach up"

# --- chain
t_eq "$(order "$T/start" 1 cc ca cb)" "ca cb cc " "chain: started in dependency order ca, cb, cc"
g1=$(( $(at "$T/start" cb) - $(at "$T/start" ca) ))
g2=$(( $(at "$T/start" cc) - $(at "$T/start" cb) ))
in_range "$g1" 300 600
t_ok $? "chain: cb starts once ca is ready, 300 ms after ca's start (and promptly): $g1 ms"
in_range "$g2" 300 600
t_ok $? "chain: cc starts once cb is ready: $g2 ms after cb"

# --- diamond
b=$(at "$T/start" bottom) l=$(at "$T/start" left) r=$(at "$T/start" right) tp=$(at "$T/start" top)
t_eq "$(order "$T/start" 1 top right left bottom | sed 's/right left/left right/')" "bottom left right top " \
  "diamond: bottom, then left and right, then top"
in_range $((l - b)) 300 600 && in_range $((r - b)) 300 600
t_ok $? "diamond: left and right start once bottom is ready (+$((l - b)), +$((r - b)) ms)"
d=$(spread "$l" "$r")
in_range "$d" 0 300
t_ok $? "diamond: left and right start in parallel ($d ms apart; one after the other would be >= 300)"
in_range $((tp - r)) 600 900
t_ok $? "diamond: top waits for the slower dependency, right (ready 600 ms after its start): top +$((tp - r)) ms"

# --- independent services
d=$(spread $(for i in 1 2 3 4 5; do at "$T/start" p$i; done))
in_range "$d" 0 1000
t_ok $? "5 independent services (ready after 500 ms each) start within $d ms of each other (one after another would take >= 2000)"

# --- after
g=$(( $(at "$T/start" az) - $(at "$T/start" aw) ))
in_range "$g" 300 600
t_ok $? "after: az starts once aw (enabled) has finished starting: +$g ms"
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
grep -q "needbad.svc:[0-9]*: depends on 'bad', which is refused" "$T/capinit.out"
t_ok $? "refused: capinit reports the dependent of the refused file"
out=$(sv_ctl start bad 2>&1)
t_eq "$?:$out" "1:capctl: error: service 'bad' is refused: its file has errors (capctl check)" \
  "refused: capctl start of a refused service is an error"

# --- capctl stop of a dependency: its dependents stop first
sv_ctl stop ca >/dev/null
t_eq "$?" 0 "capctl stop ca: ok"
sv_wait ca down 10
t_ok $? "ca goes down"
t_eq "$(sv_field cc state) $(sv_field cb state) $(sv_field ca state)" "down down down" \
  "cc and cb, which depend on ca, are down too"
t_eq "$(sv_field cc wanted) $(sv_field cb wanted) $(sv_field ca wanted)" "down down down" \
  "and none of the three is wanted up"
t_eq "$(order "$T/stop" 1 ca cb cc)" "cc cb ca " "stop order: cc, then cb, then ca"
g1=$(( $(at "$T/stop" cb) - $(at "$T/stop" cc) ))
g2=$(( $(at "$T/stop" ca) - $(at "$T/stop" cb) ))
in_range "$g1" 200 500 && in_range "$g2" 200 500
t_ok $? "each stops only after its dependent has exited (200 ms to exit): +$g1, +$g2 ms"
t_eq "$(sv_field top state)" "up" "control: the diamond is not touched by stopping the chain"

# --- capctl start of a dependent: its dependencies start first
sv_ctl start cc >/dev/null
t_eq "$?" 0 "capctl start cc: ok"
sv_wait cc up 10
t_ok $? "cc comes up"
t_eq "$(sv_field ca state) $(sv_field cb state) $(sv_field ca wanted) $(sv_field cb wanted)" "up up up up" \
  "ca and cb were started for it, and are wanted up"
t_eq "$(order "$T/start" 2 cc cb ca)" "ca cb cc " "second start: ca, cb, cc in order"
g1=$(( $(at "$T/start" cb 2) - $(at "$T/start" ca 2) ))
g2=$(( $(at "$T/start" cc 2) - $(at "$T/start" cb 2) ))
in_range "$g1" 300 600 && in_range "$g2" 300 600
t_ok $? "each started once its dependency was ready: +$g1, +$g2 ms"

# --- SIGTERM: reverse dependency order, independent ones in parallel
lines_before=$(wc -l < "$T/stop")
sv_stop
t_eq "$sv_rc" 0 "SIGTERM: capinit exits 0"
tail -n +$((lines_before + 1)) "$T/stop" > "$T/stop2"
t_eq "$(wc -l < "$T/stop2")" 15 "SIGTERM: each of the 15 running services got its stop signal once"
t_eq "$(order "$T/stop2" 1 ca cb cc)" "cc cb ca " "SIGTERM: chain stops cc, cb, ca"
g1=$(( $(at "$T/stop2" cb) - $(at "$T/stop2" cc) ))
g2=$(( $(at "$T/stop2" ca) - $(at "$T/stop2" cb) ))
in_range "$g1" 200 500 && in_range "$g2" 200 500
t_ok $? "SIGTERM: each after its dependent exited: +$g1, +$g2 ms"
b=$(at "$T/stop2" bottom) l=$(at "$T/stop2" left) r=$(at "$T/stop2" right) tp=$(at "$T/stop2" top)
t_eq "$(order "$T/stop2" 1 bottom left right top | sed 's/right left/left right/')" "top left right bottom " \
  "SIGTERM: diamond stops top, then left and right, then bottom"
in_range $((l - tp)) 200 500 && in_range $((r - tp)) 200 500
t_ok $? "SIGTERM: left and right once top exited (+$((l - tp)), +$((r - tp)) ms)"
d=$(spread "$l" "$r")
in_range "$d" 0 200
t_ok $? "SIGTERM: left and right stop in parallel ($d ms apart; one after the other would be >= 200)"
m=$l
[ "$r" -gt "$m" ] && m=$r
in_range $((b - m)) 200 500
t_ok $? "SIGTERM: bottom once both exited (+$((b - m)) ms)"
g=$(( $(at "$T/stop2" aw) - $(at "$T/stop2" az) ))
in_range "$g" 200 500
t_ok $? "SIGTERM: aw stops after az, which comes after it (+$g ms)"
d=$(spread $(for n in cc top p1 p2 p3 p4 p5 az ax; do at "$T/stop2" $n; done))
in_range "$d" 0 200
t_ok $? "SIGTERM: the 9 services nothing depends on stop together (within $d ms; < 200)"
echo "# summary: chain, diamond, 5 parallel, after, 4 refused, stop/start through deps, SIGTERM order: $t_n checks"
t_done

#!/bin/sh
# Where the time goes: capinit records each service's spawn and ready
# times (ms since capinit started) and its boot phases; capctl status
# --json carries the times, capctl blame lists them, longest first, and
# blame --json carries them all.
#
#   stamp    ready = exec; svc_helper writes its own CLOCK_MONOTONIC time
#            at its start: capinit's spawn time (plus capinit's own start,
#            kernel_ms) is no later than that, and not long before
#   slow     a oneshot that runs 300 ms (sleep 0.3): at least 300 ms from
#            spawn to ready
#   late     depends on slow, ready on fd 3 after 200 ms: spawned no
#            earlier than slow was ready, at least 200 ms to ready
#   never    enabled = no: no times ("-", null)
B=${1:-build}
. tests/lib.sh
. tests/supervise_lib.sh
PY=python3
sv_init
: > "$T/stamps"
chmod 666 "$T/stamps"

svc stamp <<EOF
command = $HELPER stamp $T/stamps
EOF
svc slow <<EOF
type = oneshot
command = /bin/sleep 0.3
EOF
svc late <<EOF
command = $HELPER fdready 3 200
ready = fd:3
depends = slow
EOF
svc never <<EOF
command = /bin/sleep 1000
enabled = no
EOF

sv_start
t_ok $? "capinit starts"
sv_wait stamp up 10 && sv_wait late up 10
t_ok $? "stamp and late are up"
sv_ctl status --json > "$T/status.json"
sv_ctl blame --json > "$T/blame.json"
t_eq "$?" 0 "capctl blame --json exits 0"
j() { # FILE EXPRESSION: a value of the JSON in FILE
  $PY -c 'import json, sys; d = json.load(open(sys.argv[1])); print(eval(sys.argv[2]))' "$@"
}
t_eq "$(j "$T/status.json" '" ".join(str(type(s["spawned_ms"]).__name__) + "/" + str(type(s["ready_ms"]).__name__) for s in sorted(d, key=lambda s: s["name"]))')" \
  "int/int NoneType/NoneType int/int int/int" \
  "status --json: spawned_ms and ready_ms are numbers, null for the service that never ran (late, never, slow, stamp)"
st() { j "$T/status.json" "[s for s in d if s['name'] == '$1'][0]['$2']"; }
bl() { j "$T/blame.json" "[s for s in d['services'] if s['name'] == '$1'][0]['$2']"; }
t_eq "$(bl late spawned_ms) $(bl late ready_ms) $(bl slow ready_ms)" "$(st late spawned_ms) $(st late ready_ms) $(st slow ready_ms)" \
  "blame --json has the same times as status --json"
kernel=$(j "$T/blame.json" 'd["kernel_ms"]')
stamp=$(cut -d' ' -f2 "$T/stamps" | head -n 1)
sp=$(st stamp spawned_ms)
t_ok $([ $((kernel + sp)) -le "$stamp" ] && [ $((stamp - kernel - sp)) -le 5000 ] && echo 0 || echo 1) \
  "stamp: spawned at $sp ms; its own clock says it started at $((stamp - kernel)) ms (capinit started at $kernel ms on the monotonic clock)"
t_ok $([ "$(st stamp ready_ms)" -ge "$(st stamp spawned_ms)" ] && echo 0 || echo 1) \
  "stamp: ready = exec, ready ($(st stamp ready_ms) ms) once the spawn returned ($(st stamp spawned_ms) ms)"
t_ok $([ $(( $(st slow ready_ms) - $(st slow spawned_ms) )) -ge 300 ] && echo 0 || echo 1) \
  "slow: a 300 ms oneshot, $(( $(st slow ready_ms) - $(st slow spawned_ms) )) ms from spawn to ready"
t_ok $([ "$(st late spawned_ms)" -ge "$(st slow ready_ms)" ] && echo 0 || echo 1) \
  "late: spawned ($(st late spawned_ms) ms) no earlier than slow, its dependency, was ready ($(st slow ready_ms) ms)"
t_ok $([ $(( $(st late ready_ms) - $(st late spawned_ms) )) -ge 200 ] && echo 0 || echo 1) \
  "late: ready on fd 3 after 200 ms: $(( $(st late ready_ms) - $(st late spawned_ms) )) ms"
t_ok $([ "$(j "$T/blame.json" 'd["ready_ms"]')" -ge "$(st late ready_ms)" ] && echo 0 || echo 1) \
  "blame: every service ready at $(j "$T/blame.json" 'd["ready_ms"]') ms, not before the last one"
t_eq "$(j "$T/blame.json" '" ".join(p["name"] for p in d["phases"])')" "services" \
  "not PID 1: one phase, reading the services and listening"

sv_ctl blame > "$T/blame.txt"
t_eq "$?" 0 "capctl blame exits 0"
t_eq "$(head -n 2 "$T/blame.txt" | tail -n 1 | tr -s ' ')" " TIME FROM TO NAME" "blame: a heading"
t_eq "$(sed -n '3,$p' "$T/blame.txt" | awk '{ t = $1 == "-" ? -1 : $1 + 0; if (NR > 1 && t > last) bad++; last = t } END { print NR, bad + 0 }')" \
  "5 0" "blame: 5 rows (4 services, 1 phase), longest first, those without a time last"
t_eq "$(grep -c '^ *- *- *-  never (down)$' "$T/blame.txt")" 1 "blame: never has no time, and is down"
t_eq "$(awk '$4 == "slow" { print $2 }' "$T/blame.txt")" \
  "$(awk -v s="$(st slow spawned_ms)" 'BEGIN { printf "%d.%03ds", s / 1000, s % 1000 }')" \
  "blame: slow's spawn time in seconds, as status has it"
sed 's/^/#   /' "$T/blame.txt"
t_eq "$(sv_ctl blame extra 2>&1; echo $?)" "capctl: usage: capctl blame [--json]
100" "blame takes no argument (exit 100)"

sv_stop
t_eq "$sv_rc" 0 "capinit exits 0"
t_done

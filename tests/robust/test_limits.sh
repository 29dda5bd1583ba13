#!/bin/sh
# Fork failure and descriptor exhaustion: a service that needs restarting
# while capinit cannot spawn backs off (restart-delay, doubling up to
# restart-delay-max) instead of failing for good or spinning; capinit stays
# up, answers, and leaves a steady service alone; once the resource is back
# the service runs again, with no manual action.
#   1. EMFILE in capinit: RLIMIT_NOFILE (soft) at its lowest free
#      descriptor: pipe2 fails before the fork.  A control client waiting
#      meanwhile must not make capinit spin, and is answered once the limit
#      is raised.
#   2. EMFILE in the child, between fork and exec (the limit at the third
#      lowest free descriptor: the parent gets its pipe, the child cannot
#      open /dev/null): a shortage, not a refusal.
#   3. RLIMIT_NPROC: never enforced for uid 0 (the kernel exempts root), so
#      capinit runs as uid 4242 with every capability but cap_sys_admin and
#      cap_sys_resource (through capexec), its soft RLIMIT_NPROC lowered to 1:
#      clone fails with EAGAIN.
#   4. pids.max (cgroup v1 pids controller, if mounted): root capinit's
#      cgroup full: clone fails with EAGAIN.
# Only the soft limits are changed: this environment has no
# cap_sys_resource, so a lowered hard limit could not be raised again.
B=${1:-build}
. tests/lib.sh
. tests/supervise_lib.sh
. tests/robust/robust_lib.sh
CAPEXEC=$(pwd)/$B/bin/capexec
HZ=$(getconf CLK_TCK)
sv_init

svc crash <<EOF
command = $HELPER run 500 1 $T/crash.stamps
restart-delay = 100ms
restart-delay-max = 400ms
EOF
svc steady <<EOF
command = $HELPER stamp /dev/null
EOF

ran() { wc -l < "$T/crash.stamps" 2>/dev/null || echo 0; }
said() { grep -c -- "$1" "$T/capinit.out"; }
said_at_least() { [ "$(said "$2")" -ge "$1" ]; }
ran_more_than() { [ "$(ran)" -gt "$1" ]; }
# wait until crash is up (its command running) and hold still: no spawn in
# flight, so capinit's descriptors are those of its rest
crash_up_quiet() {
  rb_until 10 sh -c "[ \"\$('$CAPCTL' status crash -r '$T/run' | awk 'NR == 2 { print \$2 }')\" = up ]" || return 1
  sleep 0.1
}
# the Nth free descriptor of capinit, once it holds still: the same
# children (no spawn in flight) and the same answer twice, 50 ms apart
quiet_free_fd() { # N
  k=0
  while [ $k -lt 50 ]; do
    c1=$(cat /proc/"$pid"/task/"$pid"/children) l1=$(free_fd "$pid" "$1")
    sleep 0.05
    c2=$(cat /proc/"$pid"/task/"$pid"/children) l2=$(free_fd "$pid" "$1")
    [ "$c1" = "$c2" ] && [ "$l1" = "$l2" ] && { echo "$l1"; return; }
    k=$((k + 1))
  done
  echo "$l2"
}
free_fd() { # PID N: the Nth lowest descriptor number PID does not use
  l=0 k=0
  while :; do
    if [ ! -e /proc/"$1"/fd/$l ]; then k=$((k + 1)); [ $k = "$2" ] && break; fi
    l=$((l + 1))
  done
  echo $l
}
spin_ticks() { # PID SECONDS: capinit's CPU ticks over that time
  c0=$(rb_cpu "$1")
  sleep "$2"
  echo $(($(rb_cpu "$1") - c0))
}
as4242() { setpriv --reuid=4242 --regid=4242 --clear-groups "$@"; }

# ------------------------------------------------ 1. EMFILE in capinit
sv_start
t_ok $? "capinit starts"
sv_wait steady up 5
pid=$(sv_pid)
steady_pid=$(sv_field steady pid)
rb_until 10 said_at_least 1 'crash: exited 1'
crash_up_quiet
L=$(quiet_free_fd 1)
soft=$(prlimit --pid "$pid" --nofile --noheadings -o SOFT)
prlimit --pid "$pid" --nofile="$L":
t_eq "$(prlimit --pid "$pid" --nofile --noheadings -o SOFT | tr -d ' ')" "$L" "capinit's RLIMIT_NOFILE lowered to its lowest free descriptor ($L)"
n0=$(said "crash: warning: unable to spawn: $EMFILE_TEXT")
rb_until 10 said_at_least $((n0 + 3)) "crash: warning: unable to spawn: $EMFILE_TEXT"
t_ok $? "crash cannot be spawned: 'warning: unable to spawn: No file descriptors available', 3 times"
t_eq "$(grep 'crash: died after 0 ms: restarting in' "$T/capinit.out" | tail -n 3 | sed 's/.*restarting in //' | tr '\n' ' ')" \
  "400 ms 400 ms 400 ms " "... each time it backs off (restart-delay-max 400 ms), it does not fail for good"
ticks=$(spin_ticks "$pid" 2)
t_ok $([ "$ticks" -le $((HZ / 10)) ] && echo 0 || echo 1) "... and capinit does not spin (${ticks} ticks of CPU in 2 s)"
timeout 20 "$CAPCTL" status steady -r "$T/run" > "$T/client.out" 2>&1 &
client=$!
ticks=$(spin_ticks "$pid" 2)
t_ok $([ "$ticks" -le $((HZ / 10)) ] && echo 0 || echo 1) \
  "a control client waiting while capinit has no descriptor left does not make it spin (${ticks} ticks of CPU in 2 s)"
t_eq "$(sv_in sh -c "kill -0 $steady_pid && echo alive")" alive "steady is still running"
before=$(ran)
prlimit --pid "$pid" --nofile="$soft":
wait "$client"
t_eq "$?:$(awk 'NR == 2 { print $1, $2 }' "$T/client.out")" "0:steady up" "limit raised: the waiting client gets its answer (steady up)"
rb_until 10 ran_more_than "$before"
t_ok $? "limit raised: crash runs again by itself ($before -> $(ran) runs)"
t_eq "$(sv_field steady pid) $(sv_field steady restarts)" "$steady_pid 0" "steady kept its pid through it all"
sv_stop
t_eq "$sv_rc" 0 "capinit exits 0"

# ------------------------------------------------ 2. EMFILE in the child
: > "$T/capinit.out"
sv_start
sv_wait steady up 5
pid=$(sv_pid)
steady_pid=$(sv_field steady pid)
rb_until 10 said_at_least 1 'crash: exited 1'
crash_up_quiet
# the parent's exec-status pipe takes the 2 lowest free descriptors; the
# child's /dev/null would take the third
L=$(quiet_free_fd 3)
soft=$(prlimit --pid "$pid" --nofile --noheadings -o SOFT)
prlimit --pid "$pid" --nofile="$L":
rb_until 10 said_at_least 1 "crash: .*start failed at stage session.*$EMFILE_TEXT"
t_ok $? "the child cannot set up its stdio: start failed at stage session (No file descriptors available)"
sleep 1.5
st=$(sv_field crash state)
t_ok $([ "$st" = backoff ] || [ "$st" = starting ] && echo 0 || echo 1) \
  "... a shortage, not a refusal: crash backs off and retries (state $st, not failed)"
t_ok $([ "$(said 'crash: .*start failed at stage session')" -ge 2 ] && echo 0 || echo 1) \
  "... it was retried ($(said 'crash: .*start failed at stage session') attempts in 1.5 s)"
before=$(ran)
prlimit --pid "$pid" --nofile="$soft":
rb_until 10 ran_more_than "$before"
t_ok $? "limit raised: crash runs again by itself ($before -> $(ran) runs)"
t_eq "$(sv_field steady pid) $(sv_field steady restarts)" "$steady_pid 0" "steady kept its pid"
sv_stop
t_eq "$sv_rc" 0 "capinit exits 0"

# ------------------------------------------------ 3. RLIMIT_NPROC
# every capability this process has, but cap_sys_admin and cap_sys_resource
caps=$(capsh --decode="$(sed -n 's/^CapEff:\t//p' /proc/self/status)" | sed 's/.*=//' | tr ',' '\n' |
  grep -v -e '^cap_sys_admin$' -e '^cap_sys_resource$' | paste -sd, -)
: > "$T/capinit.out"
t_eq "$(ps -o pid= -u 4242 | wc -l)" 0 "control: no process of uid 4242 before"
unshare --pid --fork --mount-proc "$CAPEXEC" -k user=4242 -k group=4242 -k groups= -k "capabilities=$caps" -- \
  "$CAPINIT" --container -c "$T/c" -r "$T/run" > "$T/capinit.out" 2>&1 &
sv_unshare=$!
rb_until 10 test -S "$T/run/control"
sv_nspid=$(cat /proc/"$sv_unshare"/task/*/children 2>/dev/null | tr ' ' '\n' | head -n 1)
pid=$sv_nspid
sv_wait steady up 5
t_eq "$(sed -n 's/^Uid:\t//p' /proc/"$pid"/status | tr '\t' ' ')" "4242 4242 4242 4242" "capinit runs as uid 4242"
steady_pid=$(sv_field steady pid)
rb_until 10 said_at_least 1 'crash: exited 1'
as4242 prlimit --pid "$pid" --nproc=1:
t_eq "$(as4242 prlimit --pid "$pid" --nproc --noheadings -o SOFT | tr -d ' ')" 1 "capinit's soft RLIMIT_NPROC lowered to 1 (uid 4242 has 1 process: capinit)"
rb_until 10 said_at_least 3 'crash: warning: unable to spawn: Resource temporarily unavailable'
t_ok $? "crash cannot be spawned: 'warning: unable to spawn: Resource temporarily unavailable', 3 times"
t_eq "$(grep 'crash: died after 0 ms: restarting in' "$T/capinit.out" | tail -n 1 | sed 's/.*restarting in //')" \
  "400 ms" "... it backs off (restart-delay-max 400 ms)"
ticks=$(spin_ticks "$pid" 2)
t_ok $([ "$ticks" -le $((HZ / 10)) ] && echo 0 || echo 1) "... capinit does not spin (${ticks} ticks of CPU in 2 s)"
t_eq "$(sv_ctl status steady | awk 'NR == 2 { print $2 }')" up "... and answers: steady is up"
before=$(ran)
as4242 prlimit --pid "$pid" --nproc="$(as4242 prlimit --pid "$pid" --nproc --noheadings -o HARD | tr -d ' ')":
rb_until 10 ran_more_than "$before"
t_ok $? "limit raised: crash runs again by itself ($before -> $(ran) runs)"
t_eq "$(sv_field steady pid) $(sv_field steady restarts)" "$steady_pid 0" "steady kept its pid"
sv_stop
t_eq "$sv_rc" 0 "capinit exits 0"

# ------------------------------------------------ 4. pids.max
CG=/sys/fs/cgroup/pids
if [ -w "$CG/cgroup.procs" ] && mkdir "$CG/capinit-robust.$$" 2>/dev/null; then
  cg=$CG/capinit-robust.$$
  : > "$T/capinit.out"
  # capinit joins the cgroup before it starts anything: SV_SETUP runs in
  # the namespace's first process, which then becomes capinit
  SV_SETUP="echo \$\$ > $cg/cgroup.procs" sv_start
  sv_wait steady up 5
  pid=$(sv_pid)
  steady_pid=$(sv_field steady pid)
  rb_until 10 said_at_least 1 'crash: exited 1'
  crash_up_quiet
  cur=$(cat "$cg/pids.current")
  echo $((cur - 1)) > "$cg/pids.max"
  t_eq "$cur $(cat "$cg/pids.max")" "3 2" "capinit, steady and crash in the cgroup (3); pids.max 2: no room once crash exits"
  rb_until 10 said_at_least 3 'crash: warning: unable to spawn: Resource temporarily unavailable'
  t_ok $? "root capinit cannot spawn crash: 'unable to spawn: Resource temporarily unavailable', 3 times"
  ticks=$(spin_ticks "$pid" 2)
  t_ok $([ "$ticks" -le $((HZ / 10)) ] && echo 0 || echo 1) "... capinit does not spin (${ticks} ticks of CPU in 2 s) and backs off"
  before=$(ran)
  echo max > "$cg/pids.max"
  rb_until 10 ran_more_than "$before"
  t_ok $? "pids.max raised: crash runs again by itself ($before -> $(ran) runs)"
  t_eq "$(sv_field steady pid) $(sv_field steady restarts)" "$steady_pid 0" "steady kept its pid"
  sv_stop
  t_eq "$sv_rc" 0 "capinit exits 0"
  rmdir "$cg" 2>/dev/null || { sleep 1; rmdir "$cg"; }
else
  t_ok 0 "pids.max # SKIP no writable cgroup v1 pids controller at $CG"
fi

echo "# summary: limits: EMFILE in capinit and in the child, RLIMIT_NPROC (uid 4242), pids.max: the service backed off and ran again once the limit was raised, capinit never spun, the steady service kept its pid"
t_done

#!/bin/sh
# Descriptor and process shortages: a service that needs restarting while
# capinit cannot spawn it, or while its child cannot reach the command,
# backs off (restart-delay, doubling up to restart-delay-max) instead of
# failing for good or spinning; capinit stays up, answers, and leaves a
# steady service alone; once the resource is back the service runs again,
# with no manual action.
#   1. EMFILE in capinit: RLIMIT_NOFILE (soft) at its lowest free
#      descriptor.  capinit runs as a uid of its own (U_CAPINIT, as in 3.):
#      a root capinit's real and saved uid are not 0 (its signal shield),
#      and prlimit(2) on it would need cap_sys_resource, which this
#      environment lacks.  A spawn opens a descriptor only for what capinit does
#      not hold yet: one /dev/null serves every service, a service's log
#      pipe (and ready = notify's socket) is kept across its restarts, but
#      a ready = fd:N service gets a new readiness pipe at each spawn.  So
#      crash (ready = fd:3) cannot be spawned: pipe2 fails before the
#      clone.  A control client waiting meanwhile must not make capinit
#      spin, and is answered once the limit is raised.  Positive control,
#      at the same limit: services that have run once, with log = file
#      (their pipe exists) and log = none, still restart: neither the spawn
#      nor its child opens a descriptor.
#   2. A shortage in the child, between clone and exec: RLIMIT_NPROC of the
#      service's uid.  The service runs as a uid of its own (U_NPROC,
#      below) with rlimit-nproc = 1 while two other processes of that uid
#      run.  setresuid does not fail (the kernel never refuses it for
#      RLIMIT_NPROC); it sets
#      PF_NPROC_EXCEEDED, and execve then fails with EAGAIN: "start failed
#      at stage exec: ... Resource temporarily unavailable", a warning.  A
#      shortage, not a refusal: the service backs off and retries (starting
#      or backoff, never failed) and runs once those processes are gone.
#      Two of them, not one: the kernel (checked on 6.18) flags the switch
#      only when the uid already has more processes than the limit (1 > 1
#      is false: with one, the service runs).
#   3. RLIMIT_NPROC: never enforced for uid 0 (the kernel exempts root), so
#      capinit runs as another uid of its own (U_CAPINIT) with every
#      capability but cap_sys_admin and cap_sys_resource (through
#      capexec), its soft RLIMIT_NPROC lowered to 1: clone fails with
#      EAGAIN.
#   4. pids.max (cgroup v1 pids controller, if mounted): root capinit's
#      cgroup full: clone fails with EAGAIN.
# Only capinit's soft limits are changed: this environment has no
# cap_sys_resource, so a lowered hard limit could not be raised again.
B=${1:-build}
. tests/lib.sh
. tests/supervise_lib.sh
# Two uids of this run's own, with no passwd entry and no process on the
# machine: RLIMIT_NPROC counts a uid's processes machine-wide, so another
# test run at the same time (a second checkout's make check) must not
# share them.  From a base taken from this shell's pid, the first free ones.
free_uid() { # FROM: the first uid from FROM on with no passwd entry and no process
  u=$1
  while getent passwd "$u" >/dev/null || [ "$(ps -o pid= -u "$u" | wc -l)" != 0 ]; do u=$((u + 1)); done
  echo "$u"
}
U_CAPINIT=$(free_uid $((40000 + $$ % 10000 * 2)))
U_NPROC=$(free_uid $((U_CAPINIT + 1)))
. tests/robust/robust_lib.sh
CAPEXEC=$(pwd)/$B/bin/capexec
HZ=$(getconf CLK_TCK)
sv_init

# crash is ready when it writes a newline to fd 3, then runs 500 ms and
# exits 1: every spawn makes a readiness pipe in capinit
svc crash <<EOF
command = /bin/sh -c "echo >&3; exec $HELPER run 500 1 $T/crash.stamps"
ready = fd:3
restart-delay = 100ms
restart-delay-max = 400ms
EOF
svc steady <<EOF
command = $HELPER stamp /dev/null
EOF

ran() { # [NAME]: how many times NAME (crash) has run: its stamps
  if [ -e "$T/${1:-crash}.stamps" ]; then wc -l < "$T/${1:-crash}.stamps"; else echo 0; fi
}
said() { grep -c -- "$1" "$T/capinit.out"; }
said_at_least() { [ "$(said "$2")" -ge "$1" ]; }
ran_more_than() { [ "$(ran)" -gt "$1" ]; }
ran_at_least() { [ "$(ran "$1")" -ge "$2" ]; } # NAME N
# wait until crash is up (ready: its readiness pipe read and closed) and
# hold still: no spawn in flight, so capinit's descriptors are those of its
# rest
crash_up_quiet() {
  rb_until 60 sh -c "[ \"\$('$CAPCTL' status crash -r '$T/run' | awk 'NR == 2 { print \$2 }')\" = up ]" || return 1
  rb_until 60 rb_no_conns   # that client's connection closed by capinit
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
as_capinit() { setpriv --reuid=$U_CAPINIT --regid=$U_CAPINIT --clear-groups "$@"; }
kill_blockers() {
  [ -n "${blocker1:-}" ] && kill "$blocker1" "$blocker2" 2>/dev/null && wait "$blocker1" "$blocker2" 2>/dev/null
  blocker1='' blocker2=''
}

# every capability this process has, but cap_sys_admin and cap_sys_resource
caps=$(capsh --decode="$(sed -n 's/^CapEff:\t//p' /proc/self/status)" | sed 's/.*=//' | tr ',' '\n' |
  grep -v -e '^cap_sys_admin$' -e '^cap_sys_resource$' | paste -sd, -)
start_as_capinit() { # capinit as uid U_CAPINIT with those capabilities, as sv_start would
  unshare --pid --ipc --fork --mount-proc "$CAPEXEC" -k user=$U_CAPINIT -k group=$U_CAPINIT -k groups= \
    -k "capabilities=$caps" -- "$CAPINIT" --container -c "$T/c" -r "$T/run" > "$T/capinit.out" 2>&1 &
  sv_unshare=$!
  rb_until 60 test -S "$T/run/control" || return 1
  sv_nspid=$(cat /proc/"$sv_unshare"/task/*/children 2>/dev/null | tr ' ' '\n' | head -n 1)
  sv_pidns=1
}

# ------------------------------------------------ 1. EMFILE in capinit
# the positive control: restarts that need no descriptor (section 1 only)
svc logged <<EOF
command = $HELPER run 300 1 $T/logged.stamps
log = file
restart-delay = 100ms
restart-delay-max = 400ms
EOF
svc mute <<EOF
command = $HELPER run 300 1 $T/mute.stamps
log = none
restart-delay = 100ms
restart-delay-max = 400ms
EOF
start_as_capinit
t_ok $? "capinit starts (uid $U_CAPINIT)"
sv_wait steady up
pid=$(sv_pid)
steady_pid=$(sv_field steady pid)
# each has run (and exited) once: crash's and logged's pipes and log files
# are open, /dev/null too
rb_until 60 said_at_least 1 'crash: exited 1'
rb_until 60 said_at_least 1 'logged: exited 1'
rb_until 60 said_at_least 1 'mute: exited 1'
t_eq "$(ls "$T/log")" "crash.log
logged.log" "control: crash and logged have run once (their log files exist), mute (log = none) too"
crash_up_quiet
L=$(quiet_free_fd 1)
soft=$(as_capinit prlimit --pid "$pid" --nofile --noheadings -o SOFT)
as_capinit prlimit --pid "$pid" --nofile="$L":
t_eq "$(as_capinit prlimit --pid "$pid" --nofile --noheadings -o SOFT | tr -d ' ')" "$L" "capinit's RLIMIT_NOFILE lowered to its lowest free descriptor ($L)"
l0=$(ran logged) m0=$(ran mute)
n0=$(said "crash: warning: unable to spawn: $EMFILE_TEXT") d0=$(said 'crash: died after 0 ms')
# each failure is two lines: "unable to spawn", then "died after 0 ms"
rb_until 60 said_at_least $((n0 + 3)) "crash: warning: unable to spawn: $EMFILE_TEXT" &&
  rb_until 60 said_at_least $((d0 + 3)) 'crash: died after 0 ms'
t_ok $? "crash (a readiness pipe per spawn) cannot be spawned: 'warning: unable to spawn: No file descriptors available', 3 times"
t_eq "$(grep 'crash: died after 0 ms: restarting in' "$T/capinit.out" | tail -n 3 | sed 's/.*restarting in //' | tr '\n' ' ')" \
  "400 ms 400 ms 400 ms " "... each time it backs off (restart-delay-max 400 ms), it does not fail for good"
ticks=$(spin_ticks "$pid" 2)
t_ok $([ "$ticks" -le $((HZ / 10)) ] && echo 0 || echo 1) "... and capinit does not spin (${ticks} ticks of CPU in 2 s)"
t_eq "$(sv_in sh -c "kill -0 $steady_pid && echo alive")" alive "steady is still running"
# the same limit, all along: logged and mute restart by themselves
rb_until 60 ran_at_least logged $((l0 + 3)) && rb_until 60 ran_at_least mute $((m0 + 3))
t_ok $? "at the same limit, logged (log = file, its pipe held) and mute (log = none) restart: $l0 -> $(ran logged) and $m0 -> $(ran mute) runs"
t_eq "$(grep -c -e 'logged: .*unable to spawn' -e 'logged: .*start failed' -e 'mute: .*unable to spawn' -e 'mute: .*start failed' "$T/capinit.out")" 0 \
  "... no 'unable to spawn' or 'start failed' for either: the spawn and its child open no descriptor"
rb_until 60 said_at_least $((n0 + 4)) "crash: warning: unable to spawn: $EMFILE_TEXT"
n1=$(said "crash: warning: unable to spawn: $EMFILE_TEXT")
t_ok $([ "$(as_capinit prlimit --pid "$pid" --nofile --noheadings -o SOFT | tr -d ' ')" = "$L" ] && [ "$n1" -gt $((n0 + 3)) ] && echo 0 || echo 1) \
  "... while the limit was still $L and crash still could not be spawned ($((n1 - n0)) times)"
# a client that cannot even be accepted waits (in the listen backlog; capctl
# gives up after 30 s, so it comes last, and the limit is raised 2 s later)
"$CAPCTL" status steady -r "$T/run" > "$T/client.out" 2>&1 &
client=$!
ticks=$(spin_ticks "$pid" 2)
t_ok $([ "$ticks" -le $((HZ / 10)) ] && echo 0 || echo 1) \
  "a control client waiting while capinit has no descriptor left does not make it spin (${ticks} ticks of CPU in 2 s)"
t_eq "$(kill -0 "$client" 2>/dev/null && echo waiting)" waiting "... and it is still waiting for its answer"
before=$(ran)
as_capinit prlimit --pid "$pid" --nofile="$soft":
wait "$client"
t_eq "$?:$(awk 'NR == 2 { print $1, $2 }' "$T/client.out")" "0:steady up" "limit raised: the waiting client gets its answer (steady up)"
rb_until 60 ran_more_than "$before"
t_ok $? "limit raised: crash runs again by itself ($before -> $(ran) runs)"
sv_wait crash up
t_ok $? "... and is up again (ready on its fd 3)"
t_eq "$(sv_field steady pid) $(sv_field steady restarts)" "$steady_pid 0" "steady kept its pid through it all"
sv_stop
t_eq "$sv_rc" 0 "capinit exits 0"
rm -f "$T/c/services/logged.svc" "$T/c/services/mute.svc"

# what capinit made as uid $U_CAPINIT: a root capinit takes no directory
# or log file of another uid's (one it could not trust)
rm -rf "$T/run" "$T"/log/*

# ------------------------------------------------ 2. RLIMIT_NPROC in the child
# uid $U_NPROC: no passwd entry, no process; two processes of it hold its
# count above the service's rlimit-nproc = 1
mv "$T/c/services/crash.svc" "$T/crash.svc.off"
svc nproc <<EOF
command = $HELPER stamp $T/nproc.stamps
user = $U_NPROC
group = $U_NPROC
groups =
rlimit-nproc = 1
restart-delay = 100ms
restart-delay-max = 400ms
EOF
t_eq "$(ps -o pid= -u $U_NPROC | wc -l)" 0 "control: no process of uid $U_NPROC before"
: > "$T/nproc.stamps"
chmod 666 "$T/nproc.stamps"  # the service's uid may write its stamps
setpriv --reuid=$U_NPROC --regid=$U_NPROC --clear-groups sleep 900 &
blocker1=$!
setpriv --reuid=$U_NPROC --regid=$U_NPROC --clear-groups sleep 900 &
blocker2=$!
trap 'kill_blockers; sv_cleanup' EXIT
# shellcheck disable=SC2016
rb_until 60 sh -c '[ "$(ps -o pid= -u "$1" | wc -l)" = 2 ]' sh "$U_NPROC"
t_ok $? "two processes of uid $U_NPROC run (sleep, through setpriv)"
: > "$T/capinit.out"
sv_start
sv_wait steady up
pid=$(sv_pid)
steady_pid=$(sv_field steady pid)
NPROC_FAIL="nproc: warning: start failed at stage exec: unable to execute $HELPER: Resource temporarily unavailable"
rb_until 60 said_at_least 3 "$NPROC_FAIL"
t_ok $? "the child cannot execute the command: 'warning: start failed at stage exec: ... Resource temporarily unavailable', 3 times"
t_eq "$(grep -e 'nproc: .*start failed' -e 'nproc: .*unable to spawn' -e 'nproc: fatal' "$T/capinit.out" | grep -cvF "$NPROC_FAIL")" 0 \
  "... every failure is that one (setresuid succeeded), none fatal, the clone itself never failed"
rb_until 60 said_at_least 4 'nproc: died after'
t_eq "$(grep 'nproc: died after' "$T/capinit.out" | head -n 4 | sed 's/.*: died after [0-9]* ms: restarting in //' | tr '\n' ' ')" \
  "100 ms 200 ms 400 ms 400 ms " "... each time it backs off: 100, 200, 400, 400 ms (restart-delay, doubling up to restart-delay-max)"
# nproc's lines: each failure, then the child's exit 126 (the last exit
# may not be written yet)
t_eq "$(grep 'service nproc: ' "$T/capinit.out" | awk -v f="$NPROC_FAIL" '
  p { if ($0 !~ /nproc: exited 126 after [0-9]* ms$/) bad++; p = 0 }
  index($0, f) { n++; p = 1 }
  END { print bad + 0, (n - p >= 3) }')" "0 1" \
  "... each failure followed by the child's exit 126"
states='' k=0
a0=$(said "$NPROC_FAIL")
while [ $k -lt 30 ]; do
  states="$states $(sv_field nproc state)"
  sleep 0.05
  k=$((k + 1))
done
# shellcheck disable=SC2086
states=$(printf '%s\n' $states | sort -u | paste -sd' ' -)
t_ok $(case " $states " in "  " | *" failed "* | *" up "* | *" down "* | *" stopping "*) echo 1 ;; *) echo 0 ;; esac) \
  "... a shortage, not a refusal: over 1.5 s nproc is only ever: $states (starting or backoff, never failed)"
rb_until 60 said_at_least $((a0 + 1)) "$NPROC_FAIL"
t_ok $? "... and is retried meanwhile ($a0 -> $(said "$NPROC_FAIL") attempts)"
t_eq "$(ran nproc) $(kill -0 "$blocker1" "$blocker2" && echo alive)" "0 alive" "... its command never ran (no stamp); the two processes of uid $U_NPROC still run"
ticks=$(spin_ticks "$pid" 2)
t_ok $([ "$ticks" -le $((HZ / 10)) ] && echo 0 || echo 1) "... capinit does not spin (${ticks} ticks of CPU in 2 s)"
kill_blockers
sv_wait nproc up
t_ok $? "the two processes gone: nproc runs by itself (up)"
nproc_pid=$(sv_field nproc pid)
rb_until 60 ran_at_least nproc 1
t_eq "$(ran nproc) $(cut -d' ' -f3 "$T/nproc.stamps" 2>/dev/null) $(sv_in sed -n 's/^Uid:\t//p' /proc/"$nproc_pid"/status | tr '\t' ' ')" \
  "1 $nproc_pid $U_NPROC $U_NPROC $U_NPROC $U_NPROC" "... once, as uid $U_NPROC"
t_eq "$(sv_field steady pid) $(sv_field steady restarts)" "$steady_pid 0" "steady kept its pid"
sv_stop
t_eq "$sv_rc" 0 "capinit exits 0"
rm -f "$T/c/services/nproc.svc"
mv "$T/crash.svc.off" "$T/c/services/crash.svc"

# ------------------------------------------------ 3. RLIMIT_NPROC
: > "$T/capinit.out"
t_eq "$(ps -o pid= -u $U_CAPINIT | wc -l)" 0 "control: no process of uid $U_CAPINIT before"
start_as_capinit
pid=$sv_nspid
sv_wait steady up
t_eq "$(sed -n 's/^Uid:\t//p' /proc/"$pid"/status | tr '\t' ' ')" "$U_CAPINIT $U_CAPINIT $U_CAPINIT $U_CAPINIT" "capinit runs as uid $U_CAPINIT"
steady_pid=$(sv_field steady pid)
rb_until 60 said_at_least 1 'crash: exited 1'
as_capinit prlimit --pid "$pid" --nproc=1:
t_eq "$(as_capinit prlimit --pid "$pid" --nproc --noheadings -o SOFT | tr -d ' ')" 1 "capinit's soft RLIMIT_NPROC lowered to 1 (uid $U_CAPINIT has 1 process: capinit)"
rb_until 60 said_at_least 3 'crash: warning: unable to spawn: Resource temporarily unavailable' &&
  rb_until 60 said_at_least 3 'crash: died after 0 ms'
t_ok $? "crash cannot be spawned: 'warning: unable to spawn: Resource temporarily unavailable', 3 times"
t_eq "$(grep 'crash: died after 0 ms: restarting in' "$T/capinit.out" | tail -n 1 | sed 's/.*restarting in //')" \
  "400 ms" "... it backs off (restart-delay-max 400 ms)"
ticks=$(spin_ticks "$pid" 2)
t_ok $([ "$ticks" -le $((HZ / 10)) ] && echo 0 || echo 1) "... capinit does not spin (${ticks} ticks of CPU in 2 s)"
t_eq "$(sv_ctl status steady | awk 'NR == 2 { print $2 }')" up "... and answers: steady is up"
before=$(ran)
as_capinit prlimit --pid "$pid" --nproc="$(as_capinit prlimit --pid "$pid" --nproc --noheadings -o HARD | tr -d ' ')":
rb_until 60 ran_more_than "$before"
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
  sv_wait steady up
  pid=$(sv_pid)
  steady_pid=$(sv_field steady pid)
  rb_until 60 said_at_least 1 'crash: exited 1'
  crash_up_quiet
  # crash runs 500 ms at a time: it may be gone (or back) by the time
  # pids.current is read; capinit (1) and steady stay (their pids as
  # capinit's namespace sees them)
  echo 2 > "$cg/pids.max"
  t_eq "$(sv_in cat "$cg/cgroup.procs" | grep -cx -e 1 -e "$(sv_field steady pid)") $(cat "$cg/pids.max")" "2 2" \
    "capinit and steady in the cgroup; pids.max 2: no room for crash once it exits"
  rb_until 60 said_at_least 3 'crash: warning: unable to spawn: Resource temporarily unavailable'
  t_ok $? "root capinit cannot spawn crash: 'unable to spawn: Resource temporarily unavailable', 3 times"
  ticks=$(spin_ticks "$pid" 2)
  t_ok $([ "$ticks" -le $((HZ / 10)) ] && echo 0 || echo 1) "... capinit does not spin (${ticks} ticks of CPU in 2 s) and backs off"
  before=$(ran)
  echo max > "$cg/pids.max"
  rb_until 60 ran_more_than "$before"
  t_ok $? "pids.max raised: crash runs again by itself ($before -> $(ran) runs)"
  t_eq "$(sv_field steady pid) $(sv_field steady restarts)" "$steady_pid 0" "steady kept its pid"
  sv_stop
  t_eq "$sv_rc" 0 "capinit exits 0"
  rb_until 60 rmdir "$cg" 2>/dev/null   # once the last processes are gone
else
  t_ok 0 "pids.max # SKIP no writable cgroup v1 pids controller at $CG"
fi

echo "# summary: limits: EMFILE in capinit (a readiness pipe per spawn; log = file and log = none restarts need no descriptor), RLIMIT_NPROC of a service's uid (execve EAGAIN in the child), RLIMIT_NPROC of capinit (uid $U_CAPINIT), pids.max: the service backed off and ran again once the limit was raised, capinit never spun, the steady service kept its pid"
t_done

#!/bin/sh
# Every signal a supervising capinit can receive (capinit(8), SIGNALS):
# each of 1 to 64 but KILL, STOP and the faults (SEGV BUS ILL FPE ABRT TRAP
# SYS keep their default), 50 times, to capinit as a plain child (a
# subreaper under this shell) and as PID 1 of a PID namespace.  The ones
# without an action must change nothing: capinit stays up, answers
# capctl status, every service keeps its pid.  HUP reloads.  TERM, INT,
# USR1, USR2 and PWR each stop every service and make capinit exit 0, each
# checked in a run of its own.  The kernel tells capinit's dispositions
# (/proc/PID/status SigBlk, SigIgn, SigCgt) and that its services start
# with none of them.  (The QEMU main scenario sends them to PID 1.)
B=${1:-build}
. tests/lib.sh
. tests/supervise_lib.sh
sv_init

REPEAT=50
ACTIONS="1 2 10 12 15 30"              # HUP INT USR1 USR2 TERM PWR
FAULTS="4 5 6 7 8 11 31"               # ILL TRAP ABRT BUS FPE SEGV SYS
INERT=
sig=1
while [ $sig -le 64 ]; do
  case " 9 19 $ACTIONS $FAULTS " in *" $sig "*) ;; *) INERT="$INERT $sig" ;; esac
  sig=$((sig + 1))
done
n_inert=$(echo $INERT | wc -w)

# capinit's mask as /proc shows it: every signal but KILL STOP PIPE and
# the faults blocked (read from its signalfd); only PIPE ignored
mask() { # SIGNALS: the 16-digit hex mask of /proc/PID/status
  lo=0 hi=0
  for s in "$@"; do
    if [ "$s" -le 32 ]; then lo=$((lo | (1 << (s - 1)))); else hi=$((hi | (1 << (s - 33)))); fi
  done
  printf '%08x%08x\n' "$hi" "$lo"
}
BLOCKED=$(mask $(echo $INERT | tr ' ' '\n' | grep -vx 13) $ACTIONS)
proc_sig() { # PID KEY: of a process in capinit's PID namespace
  sv_in cat "/proc/$1/status" | sed -n "s/^$2:[[:space:]]*//p"
}

# control: the default action of these signals is real (ALRM ends a sleep)
sleep 100 &
kill -ALRM $!
wait $!
t_eq $? $((128 + 14)) "control: SIGALRM ends a process that keeps its default disposition"

svc steady <<EOF
command = $HELPER stamp /dev/null
EOF
svc confined <<EOF
command = $HELPER stamp /dev/null
user = nobody
mode = noroot
EOF

# "NAME STATE PID RESTARTS" of every service, in one request
snapshot() {
  sv_ctl status --json 2>/dev/null | awk -F'"' '
    $2 == "name" { name = $4 } $2 == "state" { state = $4 }
    $2 == "pid" || $2 == "restarts" { v = $3; gsub(/[^0-9]/, "", v); a[$2] = v }
    /^  }/ { print name, state, a["pid"], a["restarts"] }'
}

# Start capinit MODE (plain: a child of this shell; pidns: PID 1 of a new
# PID namespace), wait for both services.
start() {
  rm -f "$T/c/services/late.svc"
  if [ "$1" = plain ]; then
    sv_start_plain
  else
    sv_start
  fi
  sv_wait steady up && sv_wait confined up
}

burst() { # PID SIGNAL: REPEAT times
  k=0
  while [ $k -lt $REPEAT ]; do
    kill -"$2" "$1" 2>/dev/null || return 1
    k=$((k + 1))
  done
}

for mode in plain pidns; do
  start $mode
  t_ok $? "$mode: capinit up, both services up"
  pid=$(sv_pid)
  t_eq "$(sed -n 's/^Sig\(Blk\|Ign\|Cgt\):[[:space:]]*//p' "/proc/$pid/status" | tr '\n' ' ')" \
    "$BLOCKED 0000000000001000 0000000000000000 " \
    "$mode: capinit blocks every signal but KILL STOP PIPE and the faults, ignores only PIPE, catches none"
  spid=$(sv_field confined pid)
  t_eq "$(proc_sig "$spid" SigBlk) $(proc_sig "$spid" SigIgn) $(proc_sig "$spid" SigCgt)" \
    "0000000000000000 0000000000000000 0000000000000000" \
    "$mode: a service starts with no signal blocked, ignored or caught"
  before=$(snapshot)
  t_eq "$(echo "$before" | awk '$2 == "up" && $3 > 0 && $4 == 0' | wc -l)" 2 "$mode: 2 services running, none restarted"
  bad=
  for sig in $INERT; do
    burst "$pid" "$sig" || { bad="$bad $sig(capinit gone)"; break; }
    now=$(snapshot)
    [ "$now" = "$before" ] || bad="$bad $sig"
  done
  t_eq "${bad:-none}" none "$mode: $n_inert signals x $REPEAT: after each, capinit answers and every service has its pid"
  t_eq "$(grep -c -e fatal -e warning "$T/capinit.out")" 0 "$mode: ... and capinit logged no warning"

  # HUP: a reload (a new file starts), the others keep their pids
  svc late <<EOF
command = $HELPER stamp /dev/null
EOF
  burst "$pid" HUP
  sv_wait late up
  t_ok $? "$mode: SIGHUP x $REPEAT: the configuration is reread (a new service starts)"
  t_eq "$(snapshot | grep -v '^late ')" "$before" "$mode: ... and the others keep their pids"
  t_ok "$([ "$(grep -c 'SIGHUP: reloading' "$T/capinit.out")" -ge 1 ]; echo $?)" "$mode: ... capinit says it reloads"
  sv_stop
  t_eq "$sv_rc" 0 "$mode: capinit exits 0 (SIGTERM)"

  # the shutdown signals, one run each
  for sig in TERM INT USR1 USR2 PWR; do
    start $mode
    pid=$(sv_pid)
    burst "$pid" $sig
    sv_wait_exit 120
    t_eq "$sv_rc $(grep -c "SIG$sig: stopping every service" "$T/capinit.out") $(grep -c -e 'service steady: stopped$' -e 'service confined: stopped$' "$T/capinit.out") $(tail -n 1 "$T/capinit.out")" \
      "0 1 2 capinit: every service is down" \
      "$mode: SIG$sig x $REPEAT: capinit stops every service and exits 0 (said once)"
  done
done

t_done

#!/bin/sh
# An idle supervisor does not wake up; capinit's own descriptor limit is
# raised, its services get back the one it started with.
B=${1:-build}
. tests/lib.sh
. tests/supervise_lib.sh
sv_init

for n in a b c; do
  svc $n <<EOF
command = $HELPER stamp $T/stamps
user = nobody
mode = noroot
EOF
done
: > "$T/stamps"
chmod 666 "$T/stamps"

hard=$(ulimit -Hn)
soft=1024
[ "$hard" -gt 2048 ] || soft=$((hard / 2))
ulimit -Sn "$soft"
sv_start
t_ok $? "capinit started with a soft limit of $soft open files (hard $hard)"
sv_wait c up 10 && sv_wait b up 10 && sv_wait a up 10
t_ok $? "three services up"

pid=$(sv_pid)
t_eq "$(sed -n 's/^Max open files *\([0-9]*\) .*/\1/p' /proc/"$pid"/limits)" "$hard" \
  "capinit raised its own soft limit to the hard limit"
spid=$(sv_field a pid)
t_eq "$(sv_in sed -n 's/^Max open files *\([0-9]*\) .*/\1/p' /proc/"$spid"/limits)" "$soft" \
  "a service gets the limit capinit started with"

# no control client connected, no timer pending: capinit must sleep
sleep 1
before=$(sed -n 's/^voluntary_ctxt_switches:[[:space:]]*//p' /proc/"$pid"/status)
sleep 5
after=$(sed -n 's/^voluntary_ctxt_switches:[[:space:]]*//p' /proc/"$pid"/status)
t_eq "$((after - before))" 0 "no wake-up in 5 s of idleness (voluntary context switches $before -> $after)"
echo "# summary: idle wake-ups over 5 s: $((after - before))"

# control: a service event does wake it
kill -KILL "$(cat /proc/"$pid"/task/*/children | tr ' ' '\n' | head -n 1)"
sleep 0.5
after2=$(sed -n 's/^voluntary_ctxt_switches:[[:space:]]*//p' /proc/"$pid"/status)
[ "$after2" -gt "$after" ]
t_ok $? "control: a service's death wakes it ($after -> $after2)"

sv_stop
t_eq "$sv_rc" 0 "stops cleanly"
t_done

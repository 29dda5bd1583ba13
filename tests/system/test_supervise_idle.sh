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
sv_wait c up && sv_wait b up && sv_wait a up
t_ok $? "three services up"

pid=$(sv_pid)
t_eq "$(sed -n 's/^Max open files *\([0-9]*\) .*/\1/p' /proc/"$pid"/limits)" "$hard" \
  "capinit raised its own soft limit to the hard limit"
spid=$(sv_field a pid)
t_eq "$(sv_in sed -n 's/^Max open files *\([0-9]*\) .*/\1/p' /proc/"$spid"/limits)" "$soft" \
  "a service gets the limit capinit started with"

# no control client connected, no timer pending: capinit must sleep.
# The last capctl above has exited, but capinit closes its connection at
# its next turn, which a loaded machine may delay: the 5 s window starts
# once capinit is asleep (state S) and has not woken for a whole second.
switches() { sed -n 's/^voluntary_ctxt_switches:[[:space:]]*//p' /proc/"$pid"/status; }
asleep() { [ "$(sed 's/^.*) //' /proc/"$pid"/stat | cut -d' ' -f1)" = S ]; }
settle() {
  i=0
  while [ $i -lt 60 ]; do
    w0=$(switches)
    sleep 1
    asleep && [ "$(switches)" = "$w0" ] && break
    i=$((i + 1))
  done
}
settle
before=$(switches)
sleep 5
after=$(switches)
t_eq "$((after - before))" 0 "no wake-up in 5 s of idleness (voluntary context switches $before -> $after)"
echo "# summary: idle wake-ups over 5 s: $((after - before)) (after $i s of settling)"

# control: a service event does wake it
kill -KILL "$(cat /proc/"$pid"/task/*/children | tr ' ' '\n' | head -n 1)"
woken() { [ "$(switches)" -gt "$after" ]; }
i=0
while ! woken && [ $i -lt 1200 ]; do sleep 0.05; i=$((i + 1)); done
after2=$(switches)
[ "$after2" -gt "$after" ]
t_ok $? "control: a service's death wakes it ($after -> $after2)"

# an idle control client: dropped after its 10 s, and then capinit sleeps
# again (its expired deadline once made every poll return at once: a spin)
PY=/usr/bin/python3
"$PY" -c '
import socket, sys, time
s = socket.socket(socket.AF_UNIX, socket.SOCK_SEQPACKET)
s.connect(sys.argv[1])
s.settimeout(60)
t0 = time.monotonic()
print("eof" if s.recv(64) == b"" else "data", int(time.monotonic() - t0 >= 9.5))
' "$T/run/control" > "$T/idle.out"
t_eq "$(cat "$T/idle.out")" "eof 1" "an idle client is dropped after 10 s, not before"
# the client has its EOF once capinit has closed the connection; what
# capinit does after the close (its log line, the next poll's deadline)
# may still be running then, on a loaded machine or under qemu-user: the
# 3 s window starts once it is asleep again, as above
settle
cpu() { awk '{ print $14 + $15 }' /proc/"$pid"/stat; }
c0=$(cpu) v0=$(sed -n 's/^voluntary_ctxt_switches:[[:space:]]*//p' /proc/"$pid"/status)
sleep 3
c1=$(cpu) v1=$(sed -n 's/^voluntary_ctxt_switches:[[:space:]]*//p' /proc/"$pid"/status)
t_eq "$((c1 - c0)) $((v1 - v0))" "0 0" "after the drop: no CPU time and no wake-up in 3 s (clock ticks $c0 -> $c1)"

sv_stop
t_eq "$sv_rc" 0 "stops cleanly"
t_done

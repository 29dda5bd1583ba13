#!/bin/sh
# Load: a burst of legitimate clients, as monitoring scripts make them
# (xargs -P): 500 `capctl status` started at once as root, then 500 as a
# member of the control group (uid 65534), against 3 services.  Clients
# beyond the 64 served at once wait (capinit holds up to 512 connections,
# the listen backlog the rest, and capctl asks again when told "too many
# clients"): every one exits 0 with the 3 services in its answer, none
# sees a connection closed without a final reply.  (test_hostile.sh proves
# that a reader's flood cannot lock root out.)
B=${1:-build}
. tests/lib.sh
. tests/supervise_lib.sh
. tests/robust/robust_lib.sh
N=500
GID=4242
sv_init
printf 'control-group = %s\n' "$GID" >> "$T/c/capinit.conf"
for s in a b c; do
  svc $s <<EOF
command = $HELPER stamp /dev/null
log = none
EOF
done
sv_start
t_ok $? "capinit starts"
sv_wait a up && sv_wait b up && sv_wait c up
t_ok $? "3 services up"
pid=$(sv_pid)
fds0=$(rb_fds_rest "$pid")

# burst WHO: N capctl status at once; prints "EXITED0 WHOLE", WHOLE being
# the outputs that list the 3 services under the header
burst() {
  mkdir -p "$T/burst.$1"
  k=0 pids=
  while [ $k -lt $N ]; do
    if [ "$1" = root ]; then
      "$CAPCTL" status -r "$T/run" > "$T/burst.$1/$k.out" 2> "$T/burst.$1/$k.err" &
    else
      setpriv --reuid=65534 --regid=65534 --groups="$GID" \
        "$CAPCTL" status -r "$T/run" > "$T/burst.$1/$k.out" 2> "$T/burst.$1/$k.err" &
    fi
    pids="$pids $!"
    k=$((k + 1))
  done
  ok=0
  for p in $pids; do wait "$p" && ok=$((ok + 1)); done
  whole=0
  for f in "$T/burst.$1"/*.out; do
    [ "$(awk 'NR > 1 && $2 == "up" { print $1 }' "$f" | tr '\n' ' ')" = "a b c " ] && whole=$((whole + 1))
  done
  echo "$ok $whole"
}

# control: the group member is a reader only because of the group
setpriv --reuid=65534 --regid=65534 --groups=4243 "$CAPCTL" status -r "$T/run" > /dev/null 2> "$T/nogroup.err"
t_eq "$? $(cat "$T/nogroup.err")" \
  "111 capctl: fatal: unable to connect to $T/run/control (is capinit running? -r DIR names its runtime directory): Permission denied" \
  "control: uid 65534 outside the control group cannot connect (the socket is 0660 root:$GID)"

t0=$(rb_ms)
got=$(burst root)
t1=$(rb_ms)
t_eq "$got" "$N $N" "$N concurrent capctl status as root: all exit 0 with the 3 services ($((t1 - t0)) ms)"
t_eq "$(cat "$T"/burst.root/*.err | sort | uniq -c | sed 's/^ *//')" "" "... no error printed"
t0=$(rb_ms)
got=$(burst group)
t1=$(rb_ms)
t_eq "$got" "$N $N" "$N concurrent capctl status from the control group: all exit 0 with the 3 services ($((t1 - t0)) ms)"
t_eq "$(cat "$T"/burst.group/*.err | sort | uniq -c | sed 's/^ *//')" "" "... no error printed"
t_eq "$(rb_fds_rest "$pid")" "$fds0" "capinit holds no descriptor of them afterwards ($fds0)"
t_eq "$(grep -c -e warning -e fatal "$T/capinit.out")" 0 "no warning from capinit"
sv_stop
t_eq "$sv_rc" 0 "capinit exits 0"
echo "# summary: control burst: $N capctl status at once as root, then $N from the control group: every one answered whole"
t_done

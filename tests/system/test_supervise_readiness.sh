#!/bin/sh
# Readiness: exec (execve succeeded), fd:N (a newline on fd N), notify
# (READY=1 from a process of the service; STATUS= shown by status), a
# notify message from a process that left the service's session ignored,
# and ready-timeout: a service not ready in time is stopped, and its end
# counts as a failed run (restart with backoff, or failed with restart =
# never).  Each negative next to a positive control in the same capinit.
B=${1:-build}
. tests/lib.sh
. tests/supervise_lib.sh
sv_init

at() { # FILE NAME [N]: the Nth stamp of NAME, or -1
  awk -v n="$2" -v k="${3:-1}" '$1 == n { c++; if (c == k) { print $2; f = 1; exit } }
    END { if (!f) print -1 }' "$1"
}
count() { # FILE: lines, 0 when missing
  if [ -e "$1" ]; then wc -l < "$1" | tr -d ' '; else echo 0; fi
}
in_range() { [ "$1" -ge "$2" ] && [ "$1" -lt "$3" ]; }
nsh() { sv_in sh -c "$1"; }

# exec: up as soon as execve succeeded, long before the command does anything
svc ex <<EOF
command = $HELPER stamp $T/ex 5000
EOF
svc exbad <<EOF
command = $T/no-such-program
EOF
# fd:5: starting until the newline, 1000 ms after the start
svc fd <<EOF
command = $HELPER fdready 5 1000
ready = fd:5
EOF
svc fdnone <<EOF
command = $HELPER stamp $T/fdnone
ready = fd:5
EOF
# notify: READY=1 and STATUS= from the main process, 1000 ms after the start
svc nt <<EOF
command = $HELPER notify 1000 "warming up done"
ready = notify
EOF
svc ntnone <<EOF
command = $HELPER stamp $T/ntnone
ready = notify
EOF
# notify from a child: same session (accepted) or a new session (ignored)
svc nchild <<EOF
command = /bin/sh -c "$HELPER notify 0 from-child & wait"
ready = notify
EOF
svc nf <<EOF
command = $HELPER notify-foreign
ready = notify
ready-timeout = 2s
restart = never
EOF
# ready-timeout: never ready within 500 ms
svc rt <<EOF
command = $HELPER stamp $T/rt
ready = fd:3
ready-timeout = 500ms
restart-delay = 100ms
restart-delay-max = 800ms
EOF
svc rtnever <<EOF
command = $HELPER stamp $T/rtnever
ready = fd:3
ready-timeout = 500ms
restart = never
EOF
svc oshang <<EOF
type = oneshot
command = $HELPER run 3000 0 $T/oshang
ready-timeout = 500ms
EOF
svc rtok <<EOF
command = /bin/sh -c "$HELPER exit 0 $T/rtok; exec $HELPER fdready 3 200"
ready = fd:3
ready-timeout = 1s
EOF

sv_start
t_ok $? "capinit starts"
t0=$(date +%s%N)

# --- exec
sv_wait ex up 2
t_ok $? "exec: ex is up"
t_eq "$(count "$T/ex")" 0 "exec: ex was up before its command did anything (it stamps after 5 s)"
sv_wait exbad failed 2
t_ok $? "exec: a command that cannot be executed never becomes up: failed"
t_eq "$(sv_field exbad failure)" "stage exec: unable to execute $T/no-such-program: No such file or directory" \
  "exec: the failure names the exec stage and the errno"

# --- before any readiness at 1000 ms: starting (sampled at 400..900 ms)
sleep 0.4
for n in fd nt; do
  t_eq "$(sv_field $n state)" "starting" "$n: starting before its readiness message"
done
t_eq "$(sv_field nt status)" "" "notify: no status text yet"
el=$(( ($(date +%s%N) - t0) / 1000000 ))
in_range "$el" 0 950
t_ok $? "(those samples were taken $el ms after capinit listened, before the 1000 ms readiness)"
pid=$(sv_field nt pid)
t_eq "$(nsh "tr '\\0' '\\n' < /proc/$pid/environ" | grep '^NOTIFY_SOCKET=')" "NOTIFY_SOCKET=$T/run/notify/nt" \
  "notify: the service gets NOTIFY_SOCKET, its own socket"

# --- then up
sv_wait fd up 3
t_ok $? "fd:5: up after the newline on fd 5"
sv_wait nt up 3
t_ok $? "notify: up after READY=1"
t_eq "$(sv_field nt status)" "warming up done" "notify: STATUS= is shown by capctl status"
t_eq "$(sv_field fd restarts) $(sv_field nt restarts)" "0 0" "fd and notify services were not restarted"
t_eq "$(sv_field fdnone state) $(sv_field ntnone state)" "starting starting" \
  "control: the same kinds, never told ready, are still starting"
t_eq "$(count "$T/fdnone") $(count "$T/ntnone")" "1 1" "control: and run (one start each)"

# --- notify from a child of the service vs from a process that left its session
sv_wait nchild up 3
t_ok $? "notify: READY=1 from a child in the service's session is accepted"
t_eq "$(sv_field nchild status)" "from-child" "notify: and its STATUS= too"
t_eq "$(sv_field nf state)" "starting" "notify-foreign: READY=1 from another session is ignored: still starting"
line=$(grep 'notify message from pid' "$T/log/nf.log" | head -n 1)
fpid=$(echo "$line" | sed -n 's/.*notify message from pid \([0-9]*\) ignored: not a process of this service$/\1/p')
t_ok "$([ -n "$fpid" ]; echo $?)" "notify-foreign: the log says the message was ignored, and from which pid ($fpid)"
nfpid=$(sv_field nf pid)
sid=$(nsh "cat /proc/$fpid/stat" | sed 's/^.*) //' | cut -d' ' -f4)
t_eq "$sid" "$fpid" "notify-foreign: the sender ($fpid) leads its own session, not the service's ($nfpid)"
kp=$(sv_field nchild pid)
kid=$(nsh "cat /proc/$kp/task/$kp/children" | tr -d ' ')
ksid=$(nsh "cat /proc/$kid/stat" | sed 's/^.*) //' | cut -d' ' -f4)
t_eq "$ksid" "$kp" "control: the accepted sender ($kid) is in the session of the service ($kp)"
t_eq "$(sv_field nf status)" "" "notify-foreign: no status taken from it"

# --- ready-timeout
sv_wait rtok up 3
t_ok $? "ready-timeout control: ready after 200 ms of a 1 s timeout: up"
sv_wait nf failed 4
t_ok $? "notify-foreign: after its ready-timeout (2 s) it is stopped; restart = never: failed"
t_eq "$(sv_field nf failure) $(sv_field nf pid) $(sv_field nf restarts)" "not ready within ready-timeout 0 0" \
  "notify-foreign: failure says why; no process; not restarted"
grep -q 'capinit: warning: not ready after 2000 ms: stopping it' "$T/log/nf.log"
t_ok $? "notify-foreign: the log says it was not ready after 2000 ms"
t_eq "$(sv_field rtnever state) $(sv_field rtnever failure)" "failed not ready within ready-timeout" \
  "ready-timeout, restart = never: failed, and why"
t_eq "$(sv_field rtnever last_exit)" "signal TERM" "ready-timeout: it was stopped with its stop-signal"
sleep 1
t_eq "$(count "$T/rtnever") $(sv_field rtnever state)" "1 failed" "ready-timeout, restart = never: started once, not again"
t_eq "$(sv_field oshang state) $(sv_field oshang failure) $(count "$T/oshang")" "failed not ready within ready-timeout 1" \
  "ready-timeout, a oneshot (restart never) not finished in time: failed, run once"
# rt: 500 ms to fail its start, then backoff 100, 200, 400 ms before the next
n=0
while [ "$(count "$T/rt")" -lt 4 ] && [ $n -lt 100 ]; do sleep 0.05; n=$((n + 1)); done
t_eq "$(sed -n 's/.*capinit: died after [0-9]* ms: restarting in \([0-9]*\) ms$/\1/p' "$T/log/rt.log" | head -n 3 | tr '\n' ' ')" \
  "100 200 400 " "ready-timeout: each failed start is followed by the backoff of a quick death: 100, 200, 400 ms"
g1=$(( $(at "$T/rt" rt 2) - $(at "$T/rt" rt 1) - 600 ))
g2=$(( $(at "$T/rt" rt 3) - $(at "$T/rt" rt 2) - 700 ))
g3=$(( $(at "$T/rt" rt 4) - $(at "$T/rt" rt 3) - 900 ))
# each gap: 500 ms to the timeout, counted from the spawn (a few ms before
# the stamp), the stop, then the backoff; -50 ms for the spawn-to-stamp
# time, +150 ms for exits, reaps, forks and a busy machine
in_range "$g1" -50 150 && in_range "$g2" -50 150 && in_range "$g3" -50 150
t_ok $? "ready-timeout: start-to-start gaps are 500 ms + the delay (off by $g1, $g2, $g3 ms)"
r=$(sv_field rt restarts)
in_range "$r" 3 5
t_ok $? "ready-timeout: each counts as a restart ($r)"
k=$(grep -c 'capinit: warning: not ready after 500 ms: stopping it' "$T/log/rt.log")
[ "$k" -ge 3 ]
t_ok $? "ready-timeout: the log says so each time ($k)"
t_eq "$(sv_field rtok restarts) $(count "$T/rtok")" "0 1" "ready-timeout control: not restarted"

sv_stop
t_eq "$sv_rc" 0 "SIGTERM: capinit exits 0"
echo "# summary: exec, fd:5, notify (main, child, foreign), ready-timeout (always, never, control): $t_n checks"
t_done

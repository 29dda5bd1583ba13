#!/bin/sh
# Readiness: exec (execve succeeded), fd:N (a newline on fd N), notify
# (READY=1 from a process of the service; STATUS= shown by status), a
# notify message from a process that left the service's session ignored,
# and ready-timeout: a service not ready in time is stopped, and its end
# counts as a failed run (restart with backoff, or failed with restart =
# never).  Each negative next to a positive control in the same capinit.
# No check depends on how fast the machine is: readiness that must not
# have come yet is held back by a file the test creates (svc_helper
# after), and what must not happen again is checked once a control in the
# same capinit has shown that it would have.
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
nsh() { sv_in sh -c "$1"; }

# exec: up as soon as execve succeeded, long before the command does
# anything (it stamps after an hour; capinit stops it before)
svc ex <<EOF
command = $HELPER stamp $T/ex 3600000
EOF
svc exbad <<EOF
command = $T/no-such-program
EOF
# fd:5: starting until the newline, once the test creates go.fd.  Their
# ready-timeout is an hour, not the 30 s default: however long the steps
# before go.fd take (under qemu-user, the wait for exbad alone can reach
# sv_wait's 60 s), no start of theirs may time out
svc fd <<EOF
command = $HELPER after $T/go.fd fdready 5 0
ready = fd:5
ready-timeout = 1h
EOF
svc fdnone <<EOF
command = $HELPER stamp $T/fdnone
ready = fd:5
ready-timeout = 1h
EOF
# notify: READY=1 and STATUS= from the main process, once go.nt exists
svc nt <<EOF
command = $HELPER after $T/go.nt notify 0 "warming up done"
ready = notify
ready-timeout = 1h
EOF
svc ntnone <<EOF
command = $HELPER stamp $T/ntnone
ready = notify
ready-timeout = 1h
EOF
# notify from a child: same session (accepted) or a new session (ignored)
svc nchild <<EOF
command = /bin/sh -c "$HELPER notify 0 from-child & wait"
ready = notify
EOF
svc nf <<EOF
command = $HELPER notify-foreign
ready = notify
ready-timeout = 10s
restart = never
EOF
# ready-timeout: not ready within 500 ms, four times (it stamps the
# SIGTERM that stops it: termstamp), then ready at its fifth start
svc rt <<EOF
command = /bin/sh -c "n=\$(cat $T/rt 2>/dev/null | grep -c '^rt '); if [ \$n -ge 4 ]; then $HELPER exit 0 $T/rt; exec $HELPER fdready 3 0; fi; exec $HELPER termstamp $T/rt"
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
restart-delay = 100ms
EOF
svc oshang <<EOF
type = oneshot
command = $HELPER run 3000 0 $T/oshang
ready-timeout = 500ms
EOF
svc rtok <<EOF
command = /bin/sh -c "$HELPER exit 0 $T/rtok; exec $HELPER fdready 3 200"
ready = fd:3
ready-timeout = 30s
EOF

sv_start
t_ok $? "capinit starts"

# --- notify from a process that left the service's session, first: its
# READY=1 must be read (the log says it was ignored), and the sender seen,
# while nf is still within its 10 s ready-timeout (then its group is
# killed, and the sender, a zombie of it, reaped)
ignored_line() { grep -q 'notify message from pid' "$T/log/nf.log" 2>/dev/null; }
i=0
while ! ignored_line && [ $i -lt 1200 ]; do sleep 0.05; i=$((i + 1)); done
t_eq "$(sv_field nf state)" "starting" "notify-foreign: READY=1 from another session is ignored: still starting"
line=$(grep 'notify message from pid' "$T/log/nf.log" | head -n 1)
fpid=$(echo "$line" | sed -n 's/.*notify message from pid \([0-9]*\) ignored: not a process of this service$/\1/p')
nfpid=$(sv_field nf pid)
sid=$(nsh "cat /proc/$fpid/stat" | sed 's/^.*) //' | cut -d' ' -f4)

# --- exec
sv_wait ex up
t_ok $? "exec: ex is up"
t_eq "$(count "$T/ex")" 0 "exec: ex was up before its command did anything (it stamps after an hour)"
sv_wait exbad failed
t_ok $? "exec: a command that cannot be executed never becomes up: failed"
t_eq "$(sv_field exbad failure)" "stage exec: unable to execute $T/no-such-program: No such file or directory" \
  "exec: the failure names the exec stage and the errno"

# --- before any readiness (held back until go.fd and go.nt exist): starting
for n in fd nt; do
  t_eq "$(sv_field $n state)" "starting" "$n: starting before its readiness message"
done
t_eq "$(sv_field nt status)" "" "notify: no status text yet"
pid=$(sv_field nt pid)
t_eq "$(nsh "tr '\\0' '\\n' < /proc/$pid/environ" | grep '^NOTIFY_SOCKET=')" "NOTIFY_SOCKET=$T/run/notify/nt" \
  "notify: the service gets NOTIFY_SOCKET, its own socket"

# --- then up
touch "$T/go.fd" "$T/go.nt"
sv_wait fd up
t_ok $? "fd:5: up after the newline on fd 5"
sv_wait nt up
t_ok $? "notify: up after READY=1"
t_eq "$(sv_field nt status)" "warming up done" "notify: STATUS= is shown by capctl status"
t_eq "$(sv_field fd restarts) $(sv_field nt restarts)" "0 0" "fd and notify services were not restarted"
t_eq "$(sv_field fdnone state) $(sv_field ntnone state)" "starting starting" \
  "control: the same kinds, never told ready, are still starting"
# (up at their exec: the stamp, their first act, may come a little later)
stamped() { [ "$(count "$T/fdnone")" -ge 1 ] && [ "$(count "$T/ntnone")" -ge 1 ]; }
i=0
while ! stamped && [ $i -lt 1200 ]; do sleep 0.05; i=$((i + 1)); done
t_eq "$(count "$T/fdnone") $(count "$T/ntnone")" "1 1" "control: and run (one start each)"

# --- notify from a child of the service vs from a process that left its session
sv_wait nchild up
t_ok $? "notify: READY=1 from a child in the service's session is accepted"
t_eq "$(sv_field nchild status)" "from-child" "notify: and its STATUS= too"
t_ok "$([ -n "$fpid" ]; echo $?)" "notify-foreign: the log says the message was ignored, and from which pid ($fpid)"
t_eq "$sid" "$fpid" "notify-foreign: the sender ($fpid) leads its own session, not the service's ($nfpid)"
kp=$(sv_field nchild pid)
kid=$(nsh "cat /proc/$kp/task/$kp/children" | tr -d ' ')
ksid=$(nsh "cat /proc/$kid/stat" | sed 's/^.*) //' | cut -d' ' -f4)
t_eq "$ksid" "$kp" "control: the accepted sender ($kid) is in the session of the service ($kp)"
t_eq "$(sv_field nf status)" "" "notify-foreign: no status taken from it"

# --- ready-timeout
sv_wait rtok up
t_ok $? "ready-timeout control: ready after 200 ms of a 30 s timeout: up"
sv_wait nf failed
t_ok $? "notify-foreign: after its ready-timeout (10 s) it is stopped; restart = never: failed"
t_eq "$(sv_field nf failure) $(sv_field nf pid) $(sv_field nf restarts)" "not ready within ready-timeout 0 0" \
  "notify-foreign: failure says why; no process; not restarted"
t_eq "$(sed -n -e 's/.*\(notify message from pid\).*/\1/p' -e 's/.*capinit: warning: \(not ready after 10000 ms: stopping it\)$/\1/p' "$T/log/nf.log" | tr '\n' ,)" \
  "notify message from pid,not ready after 10000 ms: stopping it," \
  "notify-foreign: the log says the message was ignored, then that it was not ready after 10000 ms"
# rt: 500 ms to fail each of its first 4 starts, then backoff 100, 200,
# 400, 800 ms before the next; ready at the fifth
sv_wait rt up
t_ok $? "ready-timeout: rt, not ready in time at its first 4 starts, is up at its fifth"
t_eq "$(grep -c '^rt ' "$T/rt") $(grep -c '^rt-term ' "$T/rt") $(sv_field rt restarts)" "5 4 4" \
  "ready-timeout: 5 starts, 4 stopped with SIGTERM, each counted as a restart"
t_eq "$(grep -c 'capinit: warning: not ready after 500 ms: stopping it' "$T/log/rt.log")" 4 \
  "ready-timeout: the log says so each time (4)"
t_eq "$(sed -n 's/.*capinit: died after [0-9]* ms: restarting in \([0-9]*\) ms$/\1/p' "$T/log/rt.log" | tr '\n' ' ')" \
  "100 200 400 800 " "ready-timeout: each failed start is followed by the backoff of a quick death: 100, 200, 400, 800 ms"
# each next start comes at least the delay after the SIGTERM that ended
# the previous one (the delay counts from its death, which follows the
# stamp; both clocks count whole ms): exact; how much later is a figure
gaps= late=0
k=1
for d in 100 200 400 800; do
  g=$(( $(at "$T/rt" rt $((k + 1))) - $(at "$T/rt" rt-term $k) ))
  gaps="$gaps $g"
  [ "$(at "$T/rt" rt-term $k)" -ge 0 ] && [ "$g" -ge "$d" ] || late=1
  k=$((k + 1))
done
t_ok $late "ready-timeout: each start comes at least its delay after the SIGTERM that ended the one before (SIGTERM to next start:$gaps ms)"
# rtnever has the same timeout and first delay: by the time rt has been
# restarted 4 times, a restart of rtnever would have come
t_eq "$(sv_field rtnever state) $(sv_field rtnever failure)" "failed not ready within ready-timeout" \
  "ready-timeout, restart = never: failed, and why"
t_eq "$(sv_field rtnever last_exit)" "signal TERM" "ready-timeout: it was stopped with its stop-signal"
t_eq "$(count "$T/rtnever") $(sv_field rtnever state) $(sv_field rtnever restarts)" "1 failed 0" \
  "ready-timeout, restart = never: started once, not again (while rt was restarted 4 times)"
sv_wait oshang failed
t_eq "$(sv_field oshang state) $(sv_field oshang failure) $(count "$T/oshang")" "failed not ready within ready-timeout 1" \
  "ready-timeout, a oneshot (restart never) not finished in time: failed, run once"
t_eq "$(sv_field rtok restarts) $(count "$T/rtok")" "0 1" "ready-timeout control: not restarted"

sv_stop
t_eq "$sv_rc" 0 "SIGTERM: capinit exits 0"
echo "# summary: exec, fd:5, notify (main, child, foreign), ready-timeout (always, never, control): $t_n checks; ready-timeout SIGTERM to next start:$gaps ms (delays 100 200 400 800)"
t_done

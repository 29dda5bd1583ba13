#!/bin/sh
# capinit --container -- CMD (issue 39): CMD's exit code is capinit's
# (128+N for a death by signal N), an exec failure is 127 or 126 with its
# message, -e CODE makes that code 0; a signal to capinit reaches CMD (-g:
# its process group too) and not the services, which stop after CMD in
# reverse dependency order; orphans of CMD are reaped.  As PID 1 of a PID
# namespace (unshare) and as a plain process (a subreaper).  The exit
# codes are compared with the host's sh running the same command, the
# states with /proc.
B=${1:-build}
. tests/lib.sh
. tests/supervise_lib.sh
sv_init
export T HELPER

# plain: capinit as a child of this shell; pid1: as PID 1 of a namespace
# each run its own runtime directory: sv_start waits for a control socket
plain() { rm -rf "$T/run"; "$CAPINIT" --container -c "$T/c" -r "$T/run" "$@" 2>"$T/err"; }
pid1() { rm -rf "$T/run"; unshare --pid --fork --mount-proc "$CAPINIT" --container -c "$T/c" -r "$T/run" "$@" 2>"$T/err"; }
direct() { sh -c "$1" 2>/dev/null; echo $?; }
# zombies: "PID PPID" of each zombie whose parent is $1, in capinit's namespace
zombies() {
  sv_in sh -c 'for f in /proc/[0-9]*/stat; do cat "$f" 2>/dev/null; echo; done' |
    sed -n "s/^\([0-9]*\) .*) Z $1 .*/\1 $1/p"
}
wait_file() { # FILE: at most 60 s
  n=1200
  while [ ! -e "$1" ] && [ $n -gt 0 ]; do sleep 0.05; n=$((n - 1)); done
  [ -e "$1" ]
}

# exit codes, against the host's sh running the same command
for how in plain pid1; do
  for cmd in 'exit 0' 'exit 1' 'exit 255' 'kill -TERM $$' 'kill -HUP $$' 'kill -KILL $$'; do
    want=$(direct "$cmd")
    $how -- /bin/sh -c "$cmd"
    t_eq "$?" "$want" "$how: $cmd: capinit exits $want, as sh"
  done
done
t_eq "$(direct 'kill -TERM $$') $(direct 'kill -HUP $$') $(direct 'kill -KILL $$')" "143 129 137" \
  "the reference: sh's codes for TERM, HUP, KILL"

# exec failures: 127 not found, 126 found but not executable
printf '#!/bin/sh\nexit 0\n' > "$T/noexec"
chmod 644 "$T/noexec"
plain -- "$T/nonexistent"
t_eq "$?" 127 "not found: 127"
t_eq "$(grep fatal "$T/err")" "capinit: fatal: unable to execute $T/nonexistent: No such file or directory" \
  "not found: the message"
plain -- "$T/noexec"
t_eq "$?" 126 "not executable: 126"
t_eq "$(grep fatal "$T/err")" "capinit: fatal: unable to execute $T/noexec: Permission denied" \
  "not executable: the message"
chmod 755 "$T/noexec"
plain -- "$T/noexec"
t_eq "$?" 0 "control: the same file executable: 0"
pid1 -- no-such-command-on-path
t_eq "$?" 127 "pid1: a name not on PATH: 127"

# CMD as tini runs its child: capinit's credentials (those of this
# shell, its parent), environment; default
# signals; its own process group, in capinit's session
creds() { grep -E '^(Uid|Gid|Groups|CapInh|CapPrm|CapEff|CapBnd|CapAmb|NoNewPrivs)' "/proc/$1/status" | tr '\t\n' '  '; }
MAINMODE_VAR=seen plain -- /bin/sh -c '
  grep -E "^(Uid|Gid|Groups|CapInh|CapPrm|CapEff|CapBnd|CapAmb|NoNewPrivs)" /proc/$$/status | tr "\t\n" "  " > "$T/cmd.creds"
  sed -n "s/^\(SigBlk\|SigIgn\):[[:space:]]*//p" /proc/$$/status | tr "\n" " " > "$T/cmd.sigs"
  echo "$MAINMODE_VAR" > "$T/cmd.env"
  cut -d" " -f1,5,6 /proc/$$/stat > "$T/cmd.stat"
  cut -d" " -f6 /proc/$PPID/stat > "$T/capinit.session"' </dev/null
t_eq "$(cat "$T/cmd.creds")" "$(creds $$)" "CMD's uids, gids, capabilities and no_new_privs are capinit's caller's"
t_eq "$(cat "$T/cmd.sigs")" "0000000000000000 0000000000000000 " "CMD's signals: none blocked, none ignored"
t_eq "$(cat "$T/cmd.env")" "seen" "CMD has capinit's environment"
read -r cpid cpgrp csess < "$T/cmd.stat"
t_eq "$cpgrp $csess" "$cpid $(cat "$T/capinit.session")" "CMD leads its own process group, in capinit's session"

# descriptors 0, 1, 2 only: CMD's /proc/PID/fd (sleep opens none)
rm -rf "$T/run"
sv_start_plain -- sleep 1000 3</dev/null
cmdpid=$(cat /proc/"$sv_nspid"/task/*/children | tr -d ' ')
sleep_exe=$(readlink -f "$(command -v sleep)")
n=1200; while [ "$(readlink /proc/"$cmdpid"/exe)" != "$sleep_exe" ] && [ $n -gt 0 ]; do sleep 0.05; n=$((n - 1)); done
t_eq "$(ls /proc/"$cmdpid"/fd | tr '\n' ' ')" "0 1 2 " "CMD (sleep) has descriptors 0, 1, 2 only (capinit got 3 too)"
t_eq "$(readlink /proc/"$cmdpid"/exe)" "$sleep_exe" "control: that pid is CMD, sleep"
kill -TERM "$sv_nspid"
sv_wait_exit
t_eq "$sv_rc" 143 "sleep killed by the forwarded SIGTERM: 143"

# -e CODE
plain -e 3 -- /bin/sh -c 'exit 3'
t_eq "$?" 0 "-e 3: exit 3 is 0"
plain -e 3 -- /bin/sh -c 'exit 4'
t_eq "$?" 4 "control: -e 3: exit 4 stays 4"
plain -e 143 -e 3 -- /bin/sh -c 'kill -TERM $$'
t_eq "$?" 0 "-e 143: a death by SIGTERM is 0"
# usage errors stay 100
plain -- ; t_eq "$?" 100 "-- without CMD: 100"
"$CAPINIT" -c "$T/c" -r "$T/run" -- /bin/true 2>/dev/null; t_eq "$?" 100 "-- without --container: 100"
plain -g; t_eq "$?" 100 "-g without CMD: 100"
plain -e 256 -- /bin/true; t_eq "$?" 100 "-e 256: 100"
rm -rf "$T/c2"
"$CAPINIT" --container -c "$T/c2" -r "$T/run" -- /bin/true 2>/dev/null; t_eq "$?" 111 "no DIR/services: 111, CMD not run"

# SIGTERM to capinit: CMD's, not the services'; then the services stop
# after CMD, in reverse dependency order, each before its stop-timeout
svc a <<EOF
command = $HELPER termstamp $T/order
EOF
svc b <<EOF
command = $HELPER termstamp $T/order
depends = a
stop-timeout = 20s
EOF
cat > "$T/main.sh" <<'EOF'
#!/bin/sh
trap 'SVC_NAME=cmd-term "$HELPER" exit 0 "$T/order"; kill $!; exit 7' TERM
"$HELPER" exit 0 "$T/main.started"
sleep 1000 & wait
EOF
chmod 755 "$T/main.sh"
rm -rf "$T/run"
sv_start -- "$T/main.sh"
t_ok $? "pid1: capinit with CMD and two services"
sv_wait b up; t_ok $? "b is up beside CMD"
wait_file "$T/main.started"; t_ok $? "CMD runs"
apid=$(sv_field a pid)
t_eq "$(sv_in sh -c "sed -n 's/^\(State\|PPid\):[[:space:]]*//p' /proc/$apid/status | tr '\n' ' '")" \
  "S (sleeping) 1 " "a's /proc/PID/status while CMD runs: sleeping, child of capinit (pid 1)"
kill -TERM "$sv_nspid"
sv_wait_exit
t_eq "$sv_rc" 7 "SIGTERM reached CMD, which exited 7: capinit exits 7"
# (the start stamps are each service's own, written after its exec: not
# an order)
t_eq "$(sed -n 's/^\([a-z]*-term\) .*/\1/p' "$T/order" | tr '\n' ' ')" "cmd-term b-term a-term " \
  "SIGTERM: CMD stops, then b, then a (reverse dependency order)"
t_eq "$(sed -n 's/^\([a-z]*\) .*/\1/p' "$T/order" | sort | tr '\n' ' ')" "a b " "a and b each started once"
t_eq "$(grep -c SIGKILL "$T/capinit.out")" 0 "no SIGKILL: every service stopped within its stop-timeout"
t_eq "$(grep -c 'main command .*exited 7: exit code 7' "$T/capinit.out")" 1 "capinit says CMD's end"
rm -f "$T/c/services/a.svc" "$T/c/services/b.svc" "$T/order"

# a signal from a service is not CMD's: refused, said
svc killer <<EOF
command = /bin/sh -c "kill -USR1 1; exec sleep 1000"
mode = noroot
capabilities = kill
writes-capinit-state = yes
EOF
cat > "$T/usr1.sh" <<'EOF'
#!/bin/sh
trap 'echo usr1 >> "$T/usr1"' USR1
trap 'kill $!; exit 0' TERM
"$HELPER" exit 0 "$T/main.started"
while :; do sleep 1000 & wait; done
EOF
chmod 755 "$T/usr1.sh"
rm -rf "$T/main.started" "$T/usr1" "$T/run"
sv_start -- "$T/usr1.sh"
t_ok $? "pid1: CMD and a service that signals capinit"
wait_file "$T/main.started"
sv_wait killer up
n=1200; while ! grep -q 'ignored SIGUSR1' "$T/capinit.out" && [ $n -gt 0 ]; do sleep 0.05; n=$((n - 1)); done
t_eq "$(grep -c 'ignored SIGUSR1 from pid' "$T/capinit.out")" 1 "a service's SIGUSR1 (cap_kill, alive) is refused and said"
t_eq "$(cat "$T/usr1" 2>/dev/null)" "" "CMD did not get it"
kill -USR1 "$sv_nspid"
wait_file "$T/usr1"
t_eq "$(cat "$T/usr1")" "usr1" "control: the runtime's SIGUSR1 reaches CMD"
sv_ctl poweroff >/dev/null 2>&1
sv_wait_exit
t_eq "$sv_rc" 0 "capctl poweroff: SIGTERM to CMD, which exits 0: capinit 0"
t_eq "$(grep -c '^capinit: capctl poweroff: SIGTERM to the main command$' "$T/capinit.out")" 1 "capinit says it"
rm -f "$T/c/services/killer.svc"

# -g: SIGUSR1 reaches CMD's process group (a grandchild); without, CMD alone
cat > "$T/group.sh" <<'EOF'
#!/bin/sh
/bin/sh -c 'trap "echo gc >> \"\$T/gc\"" USR1; trap "exit 0" TERM; touch "$T/gc.ready"; while :; do sleep 1000 & wait; done' &
trap 'echo cmd >> "$T/cmd"' USR1
trap 'kill $! 2>/dev/null; exit 0' TERM
while :; do sleep 1000 & wait; done
EOF
chmod 755 "$T/group.sh"
for g in -g ""; do
  rm -rf "$T/gc" "$T/cmd" "$T/gc.ready" "$T/run"
  # shellcheck disable=SC2086
  sv_start_plain $g -- "$T/group.sh"
  wait_file "$T/gc.ready"
  kill -USR1 "$sv_nspid"
  wait_file "$T/cmd"
  sleep 1
  t_eq "$(cat "$T/cmd")" cmd "plain ${g:-without -g}: CMD got SIGUSR1"
  t_eq "$(cat "$T/gc" 2>/dev/null)" "$([ -n "$g" ] && echo gc)" "plain ${g:-without -g}: the grandchild $([ -n "$g" ] && echo got || echo 'did not get') it"
  kill -TERM "$sv_nspid"
  sv_wait_exit
  t_eq "$sv_rc" 0 "plain ${g:-without -g}: capinit exits 0"
done

# orphans of CMD are reaped, as PID 1 and as a subreaper
for how in pid1 plain; do
  rm -rf "$T/orph" "$T/run"
  if [ $how = pid1 ]; then sv_start -- "$HELPER" orphans 3 "$T/orph"; me=1
  else sv_start_plain -- "$HELPER" orphans 3 "$T/orph"; me=$sv_nspid; fi
  wait_file "$T/orph"
  t_eq "$(cat "$T/orph")" "3 3" "$how: CMD made 3 orphans, each saw its parent change"
  n=1200; while [ -n "$(zombies "$me")" ] && [ $n -gt 0 ]; do sleep 0.05; n=$((n - 1)); done
  t_eq "$(zombies "$me")" "" "$how: no zombie left under capinit"
  kill -TERM "$sv_nspid"
  sv_wait_exit
  t_eq "$sv_rc" 143 "$how: CMD (the helper) killed by the forwarded SIGTERM: 143"
done

# a terminal: capinit's group is its foreground one (script(1) gives capinit
# a pty it leads), so CMD's group becomes it: CMD's pgid is the terminal's
# foreground group.  The child used to ask whether capinit was in the
# foreground after the parent had already moved it to its own group, and
# left CMD in the background (stopped by SIGTTIN at its first read: dumb-init's
# tty tests, docs/decisions.md "The peers' suites"): 5 tries out of 5.
if command -v script >/dev/null; then
  for i in 1 2 3 4 5; do
    rm -rf "$T/run"
    script -qec "'$CAPINIT' --container -c '$T/c' -r '$T/run' -- sh -c 'ps -o pgid=,tpgid= -p \$\$'" /dev/null \
      </dev/null 2>/dev/null | grep -v capinit | tr -d '\r' >"$T/tty$i"
    read -r pg tp <"$T/tty$i" || pg=none
    t_eq "$pg" "${tp:-}" "a terminal ($i/5): CMD's group is the terminal's foreground group"
  done
else
  for i in 1 2 3 4 5; do t_ok true "a terminal ($i/5) # SKIP no script(1) (util-linux)"; done
fi

t_done

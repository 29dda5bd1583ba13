#!/bin/sh
# Issue 33: a private-pids service reads its reaper (PID 1 of its own PID
# namespace, a fork of capinit or capexec that never executes) through
# /proc: its environ, maps and mem.  The reaper is non-dumpable, so that a
# uid-0 noroot service and a service of another uid both get EACCES; one
# that declares cap_sys_ptrace reads its memory, and finds none of the
# secrets the reaper dropped: another service's environment values,
# capinit's own environment, capexec's caller's environment.  The attack
# is tests/peek.c; the needles it looks for are in a file that capinit
# never reads, so that no attacker carries them in its own service file.
# Positive control: the same reads of a same-uid, dumpable process of the
# attacker's namespace that holds the secret find it.  Negative twin: the
# command the reaper starts is dumpable and has its own environment.
B=${1:-build}
. tests/lib.sh
. tests/supervise_lib.sh
sv_init
PEEK=$(pwd)/$B/tests/peek
CAPEXEC=$(pwd)/$B/bin/capexec

rand() { od -An -N12 -tx1 /dev/urandom | tr -d ' \n'; }
SECRET=victim-$(rand)
CAPMARK=capinit-$(rand)
OWNMARK=own-$(rand)
printf '%s\n%s\n' "$SECRET" "$CAPMARK" > "$T/needles"
printf '%s\n' "$OWNMARK" > "$T/needles.own"
chmod 644 "$T/needles" "$T/needles.own"

# what a service wrote: its log without the timestamps
out() { sed -e 's/^[^ ]* //' "$T/log/$1.log" 2>/dev/null; }
wait_out() { # NAME: until its last line is written (60 s at most)
  n=1200
  while [ $n -gt 0 ] && ! out "$1" | grep -q "$2"; do sleep 0.05; n=$((n - 1)); done
}

svc victim <<EOF
command = $HELPER stamp $T/victim.stamp
environment = SECRET_TOKEN=$SECRET
EOF
# the attackers: uid 0 noroot, uid 65534, uid 0 with cap_sys_ptrace
for a in root nobody ptrace; do
  {
    printf 'type = oneshot\nmode = noroot\nread-only = yes\nprivate-pids = yes\nenvironment = OWN=%s\n' "$OWNMARK"
    printf 'command = %s %s 1\n' "$PEEK" "$T/needles"
    case $a in
      nobody) echo 'user = nobody' ;;
      ptrace) echo 'capabilities = cap_sys_ptrace' ;;
    esac
  } | svc "atk-$a"
done
# the twin: the command's own environment, read by itself
svc own <<EOF
type = oneshot
private-pids = yes
environment = OWN=$OWNMARK
command = $PEEK $T/needles.own self
EOF
# the control: a process of the attacker's namespace, of its uid, that
# holds the secret in its environment (read from the file), read the same way
cat > "$T/control.sh" <<EOF
read s < $T/needles
SECRET_TOKEN=\$s /bin/sleep 60 &
while [ "\$(cat /proc/\$!/comm)" != sleep ]; do :; done
$PEEK $T/needles \$!
kill \$!
EOF
svc control <<EOF
type = oneshot
private-pids = yes
command = /bin/sh $T/control.sh
EOF

CAPINIT_MARK=$CAPMARK
export CAPINIT_MARK
sv_start
t_ok $? "capinit starts (its own environment has CAPINIT_MARK)"
unset CAPINIT_MARK
t_eq "$(tr '\0' '\n' < /proc/"$sv_nspid"/environ | grep -c "^CAPINIT_MARK=$CAPMARK\$")" 1 \
  "capinit's environment holds the marker (the secret it must not lend)"
for s in atk-root atk-nobody atk-ptrace own control; do wait_out $s ' mem '; done

t_eq "$(out atk-root | grep -v cmdline)" "dumpable 1
1 environ EACCES
1 maps EACCES
1 mem EACCES" "uid 0 noroot: the reaper's environ, maps and mem are refused (EACCES); its command is dumpable"
t_eq "$(out atk-nobody | grep -v cmdline)" "dumpable 1
1 environ ENOENT
1 maps ENOENT
1 mem ENOENT" "uid 65534: the reaper is not even listed in its /proc (hidepid=invisible: ENOENT)"
t_eq "$(out atk-ptrace | grep -v cmdline | sed 's/mem ok [0-9]* /mem ok BYTES /')" "dumpable 1
1 environ ok absent absent
1 maps ok
1 mem ok BYTES absent absent" \
  "cap_sys_ptrace reads the reaper: neither the victim's secret nor capinit's environment, in environ or any mapping"
bytes=$(out atk-ptrace | sed -n 's/^1 mem ok \([0-9]*\) .*/\1/p')
t_ok "$([ "${bytes:-0}" -gt 65536 ]; echo $?)" "cap_sys_ptrace: the reaper's memory was read ($bytes bytes)"
t_eq "$(out atk-root | sed -n 's/^1 cmdline ok //p')" "$CAPINIT --container -c $T/c -r $T/run " \
  "the reaper's cmdline, readable by anyone: capinit's argv (its paths), no secret"
t_eq "$(out control | grep -v cmdline | sed -e 's/^[0-9]* //' -e 's/mem ok [0-9]* /mem ok BYTES /')" "dumpable 1
environ ok found absent
maps ok
mem ok BYTES found absent" \
  "control: a dumpable same-uid process of the namespace holding the secret: read, and the secret found"
t_eq "$(out own | grep -v -e cmdline -e '^self m')" "dumpable 1
self environ ok found" "twin: the command has its own environment value, and is dumpable"
t_eq "$(sv_field own last_exit), $(sv_field atk-root last_exit)" "exit 0, exit 0" \
  "the reaper reports its commands' exit status"
t_eq "$(sv_field victim state)" "up" "the victim runs"

# capexec: the caller's environment, and its options, stay in the caller
CSECRET=caller-$(rand)
printf '%s\n%s\n' "$CSECRET" "$OWNMARK" > "$T/needles.capexec"
capexec_peek() { # KEYS...
  env CALLER_SECRET="$CSECRET" "$CAPEXEC" -k private-pids=yes -k "environment=OWN=$OWNMARK" "$@" \
    -- "$PEEK" "$T/needles.capexec" 1 self 2>&1 |
    grep -v -e cmdline -e '^self m' -e ': warning: capabilities: ' | sed 's/mem ok [0-9]* /mem ok BYTES /'
}
t_eq "$(capexec_peek -k mode=noroot)" "dumpable 1
1 environ EACCES
1 maps EACCES
1 mem EACCES
self environ ok absent found" \
  "capexec, uid 0 noroot: the reaper refused (EACCES); the command is dumpable, with its own environment, not the caller's"
t_eq "$(capexec_peek -k mode=noroot -k capabilities=cap_sys_ptrace)" "dumpable 1
1 environ ok absent absent
1 maps ok
1 mem ok BYTES absent found
self environ ok absent found" \
  "capexec, cap_sys_ptrace: the reaper's memory holds no caller's environment (CALLER_SECRET); the command's own environment value stays (its envp)"
# the control: a noroot uid-0 process that holds the secret in its
# environment (capexec without private-pids executes the command itself),
# read by another
"$CAPEXEC" -k mode=noroot -k private-pids=no -k "environment=CALLER_SECRET=$CSECRET" -- /bin/sleep 60 &
held=$!
n=1200
while [ $n -gt 0 ] && [ "$(cat /proc/$held/comm)" != sleep ]; do sleep 0.05; n=$((n - 1)); done
t_eq "$("$CAPEXEC" -k mode=noroot -k private-pids=no -- "$PEEK" "$T/needles.capexec" $held | grep -v -e cmdline -e dumpable |
      sed -e 's/^[0-9]* //' -e 's/mem ok [0-9]* /mem ok BYTES /')" "environ ok found absent
maps ok
mem ok BYTES found absent" "control: a noroot process holding the secret: read, the secret found"
kill $held
wait $held 2>/dev/null

sv_stop
t_done

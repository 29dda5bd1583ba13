# /test/attacks.sh -- sourced by runner.sh (legacy root, capinit's own
# power): issue 33, no service borrows capinit's power, on Debian 12's
# kernel (6.1) with capinit as PID 1.  That kernel has no SO_PEERPIDFD, so
# capinit judges a control socket peer by a pidfd it opens for
# SO_PEERCRED's pid (a process that started before the connection was
# accepted): the fallback that only this tier runs.  Each attack is a
# service (/test/attack.sh, the code an attacker controls) the runner
# starts; the results are judged from ground truth: the victim's pid and
# state, the file legacy-bad would write, a service file only a reload
# would load; the host checks capinit's console lines (test_boot.sh).
# Positive controls and twins: the runner's own stop/start and SIGHUP are
# obeyed; a dumpable process of the attacker's uid is read.
O=/var/attack
DENIED="error: permission denied: only root with capinit's own power, in its user and PID namespaces, may change services"
echo $$ > $O/runner.pid
od -An -N12 -tx1 /dev/urandom | tr -d ' \n' > $O/needles
echo >> $O/needles

# run SERVICE: start a disabled oneshot and wait until it has exited
run() {
  capctl start "$1" >/dev/null
  i=0
  until [ "$(field "$1" state)" = up ] || [ "$(field "$1" state)" = failed ] || [ $i -ge 600 ]; do
    sleep 0.1; i=$((i + 1))
  done
  t_eq "$(field "$1" state)/$(field "$1" last_exit)" "up/exit 0" "$1: the attacker's code ran to its end"
}
# wait_state SERVICE STATE: a minute at most
wait_state() {
  i=0
  until [ "$(field "$1" state)" = "$2" ] || [ $i -ge 600 ]; do sleep 0.1; i=$((i + 1)); done
}

last_cap=$(cat /proc/sys/kernel/cap_last_cap)
# every capability the kernel knows: what a new user namespace gives
ALL=$(printf '%016x' $(( (1 << (last_cap + 1)) - 1 )))
t_eq "$ALL" "$FULL" "every capability of the kernel (0 to $last_cap) is PID 1's bounding set"
t_eq "$(/test/tool peerpidfd /run/capinit/control)" ENOPROTOOPT \
  "the kernel has no SO_PEERPIDFD (ENOPROTOOPT): capinit opens a pidfd for SO_PEERCRED's pid"
echo "unprivileged_userns_clone $(cat /proc/sys/kernel/unprivileged_userns_clone 2>&1)," \
  "user.max_user_namespaces $(cat /proc/sys/user/max_user_namespaces)," \
  "yama.ptrace_scope $(cat /proc/sys/kernel/yama/ptrace_scope 2>&1)" | diag
victim=$(field victim pid)
t_eq "$(field victim state) $([ "${victim:-0}" -gt 1 ] && echo pid)" "up pid" "victim is up (pid $victim)"

# -- the control socket: a user namespace of its own
t0=$(uptime_ms)
run attacker
# (unmapped in there, its uid reads 65534; SO_PEERCRED still says 0)
t_eq "$(cat $O/userns.stop)" "uid 65534 CapEff $ALL
$DENIED
exit 0" "control socket: uid 0 noroot in a user namespace of its own holds every capability there ($ALL); its 'stop victim' is refused"
t_eq "$(cat $O/userns.start)" "uid 65534 CapEff $ALL
$DENIED
exit 0" "control socket: its 'start legacy-bad' from there is refused"
t_eq "$(cat $O/plain.stop)" "uid 0 CapEff 0000000000000000
$DENIED
exit 0" "control socket: the plain powerless uid 0's 'stop victim' is refused"
t_eq "$(cat $O/plain.kill)" "HUP 1" "signals: the plain powerless uid 0's kill -HUP 1 is refused by the kernel (EPERM)"
t_eq "$(sed -n 's/^Uid:[[:space:]]*//p' /proc/1/status | tr '\t' ' ')" "4294967294 0 4294967294 0" \
  "signals: capinit's real and saved uid are 4294967294 (no process's), its effective uid 0"
run attacker-setuid
t_eq "$(cat $O/setuid.stop)" "uid 0 CapEff $(printf '%016x' $((1 << 7)))
uid 65534 CapEff $ALL
$DENIED
exit 0" "control socket: user nobody with cap_setuid, after setresuid(0) and in a user namespace of its own: 'stop victim' refused"
t_eq "$(field victim state) $(field victim pid)" "up $victim" "victim: still up, same pid"
t_eq "$(field legacy-bad state) $([ -e $O/legacy-bad.ran ] && echo ran || echo 'never ran')" "down never ran" \
  "legacy-bad: down, its command never ran"
# the positive control: the runner's own stop and start
out=$(capctl stop victim 2>&1)
t_eq "$?:$out" "0:" "positive control: the runner (legacy root) 'capctl stop victim' is obeyed"
wait_state victim down
t_eq "$(field victim state) $(kill -0 "$victim" 2>/dev/null && echo alive || echo gone)" "down gone" \
  "positive control: victim is down, its process gone"
capctl start victim >/dev/null
wait_state victim up
t_eq "$(field victim state)" up "positive control: 'capctl start victim' is obeyed"
victim=$(field victim pid)

# -- signals to PID 1 (the host checks that capinit said it ignored each)
cat > /etc/capinit/services/newcomer.svc <<EON
description = added by the runner: only a reload loads it
type = oneshot
command = /bin/busybox sh -c "echo ran >> $O/newcomer.ran"
EON
run signaller
t_eq "$(tr '\n' ' ' < $O/signals.sent)" "HUP 0 TERM 0 INT 0 USR1 0 USR2 0 PWR 0 " \
  "signals: the kernel delivers HUP TERM INT USR1 USR2 PWR from uid 0 noroot with cap_kill to PID 1"
# the forged SIGHUP comes once the signaller's has been read (a second
# SIGHUP waiting to be read would be no new signal)
run forger
t_eq "$(cat $O/forged.sent)" "sent
exit 0" "signals: a SIGHUP queued with a forged sender (the runner's pid $$) by cap_kill is delivered too"
# (capinit reads every signal waiting before it answers a request made
# after them: the forged one has been judged)
capctl status newcomer >/dev/null 2>&1
t_eq "$? $([ -e $O/newcomer.ran ] && echo ran || echo absent)" "1 absent" \
  "signals: capinit did not reload (newcomer.svc, added before them, is not loaded)"
t_eq "$(field victim state) $(field victim pid) $(field runner state)" "up $victim up" \
  "signals: nothing stopped (victim up with the same pid, the runner up)"
echo "attack pids: signaller $(cat $O/signaller.pid), runner $$"
# the twin: the runner's own SIGHUP reloads
kill -HUP 1
i=0
while [ ! -s $O/newcomer.ran ] && [ $i -lt 600 ]; do sleep 0.1; i=$((i + 1)); done
t_eq "$(cat $O/newcomer.ran 2>/dev/null)" ran "positive control: the runner's (legacy root) SIGHUP reloads: newcomer ran"

# -- /proc/1: capinit, and a private-pids service's reaper
for p in reaper init; do
  run peek-$p
  c=$(cat $O/peek.$p.control)
  t_eq "$(grep '^1 ' $O/peek.$p | grep -v cmdline)" "1 environ EACCES
1 maps EACCES
1 mem EACCES" "/proc/1 of uid 0 noroot ($([ $p = init ] && echo capinit || echo 'its private-pids reaper')): environ, maps, mem refused (EACCES)"
  t_eq "$(grep "^$c " $O/peek.$p | grep -v cmdline | sed -e "s/^$c //" -e 's/mem ok [0-9]* /mem ok BYTES /')" "environ ok found
maps ok
mem ok BYTES found" "positive control ($p): a dumpable process of the same uid holding the needle: read, found"
done
# -- log files: links planted where capinit writes as root
printf 'secret\n' > $O/lvictim
printf 'secret\n' > /var/log/hvictim  # root's, beside the log directory
run linker
t_eq "$(cat $O/links.planted)" "l-" "logs: a symbolic link and a hard link planted at talker.log and talker2.log"
run talker
run talker2
run talker-ok
t_eq "$(cat $O/lvictim) $(cat /var/log/hvictim) $(stat -c %h /var/log/hvictim)" "secret secret 2" \
  "logs: capinit wrote through neither link (both victims hold what they held)"
t_eq "$(grep -c ' talk [1-5]$' /var/log/capinit/talker-ok.log)" 5 "positive control: talker-ok's five lines are in its own log file"
# -- the system-call filter (issue 34), on Debian's kernel: i386's int
# 0x80 works there (IA32 emulation), x32 does not (ENOSYS)
run filtered
run unfiltered
t_eq "$(tr '\n' ' ' < $O/filtered.out)" "unshare-user EPERM clone-user EPERM clone3 ENOSYS setns-any EPERM keyctl EPERM add-key EPERM file-handle EPERM io-uring EPERM userfaultfd EPERM ptrace EPERM getpid ok i386 killed SIGSYS x32 killed SIGSYS " \
  "filter: a contained service's user namespace, keyring, file-handle, io_uring, userfaultfd and ptrace calls refused; another ABI killed"
t_eq "$(tr '\n' ' ' < $O/unfiltered.out)" "unshare-user ok clone-user ok clone3 ok setns-any EINVAL keyctl ok add-key ok file-handle ok io-uring ok userfaultfd ok ptrace ok getpid ok i386 ok x32 ENOSYS " \
  "positive control: the same calls from a legacy root service reach the kernel"
echo "attacks: $(( $(uptime_ms) - t0 )) ms guest time" | diag

# /test/attacks.sh -- sourced by runner.sh (legacy root, capinit's own
# power): issue 33, no service borrows capinit's power, and issue 34, a
# contained service stays contained (at the end), on Debian 12's
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
# -- the system-call filter (issue 34: attacks 1, a user namespace; 5,
# file handles; 6, keyrings), on Debian's kernel: i386's int
# 0x80 works there (IA32 emulation), x32 does not (ENOSYS)
run filtered
run unfiltered
t_eq "$(tr '\n' ' ' < $O/filtered.out)" "unshare-user EPERM clone-user EPERM clone3 ENOSYS setns-any EPERM keyctl EPERM add-key EPERM file-handle EPERM io-uring EPERM userfaultfd EPERM ptrace EPERM getpid ok i386 killed SIGSYS x32 killed SIGSYS " \
  "filter: a contained service's user namespace, keyring, file-handle, io_uring, userfaultfd and ptrace calls refused; another ABI killed"
t_eq "$(grep -v '^session-key ' $O/unfiltered.out | tr '\n' ' ')" "unshare-user ok clone-user ok clone3 ok setns-any EINVAL keyctl ok add-key ok file-handle ok io-uring ok userfaultfd ok ptrace ok getpid ok i386 ok x32 ENOSYS " \
  "positive control: the same calls from a legacy root service reach the kernel"

# -- issue 34: a contained service stays contained.  Each attack is a
# contained uid 0 (noroot, bounding none, no_new_privs, read-only, its own
# IPC, no network) and its control the same file with one key changed;
# the ground truth is the machine's: its /dev, /dev/shm and kernel log,
# a loop device's backing file, another service's writable path, file
# modes, what another user gets from running a file.
# 1, 5, 6: the filter's user namespaces, file handles and keyrings are
# above (filtered, unfiltered); each service's session keyring is its own
t_eq "$(sh -c '/test/syscall_try session-key')" "$(/test/syscall_try session-key)" \
  "positive control: a child shares its parent's session keyring (the runner's)"
t_eq "$(grep -c '^session-key [0-9]' $O/unfiltered.out) $(grep -c "^$(/test/syscall_try session-key)\$" $O/unfiltered.out)" "1 0" \
  "keyrings: the unfiltered service's session keyring is its own, not the runner's"

# 2: another service's processes: victim0, uid 0 in capinit's PID
# namespace, writable /var/victim
v0=$(field victim0 pid)
echo "$v0" > $O/victim0.pid
run reacher
run reacher-shared
t_eq "$(cat $O/reach.reacher)" "proc no
kill 1 No such process
root 1 No such file or directory
write 1 nonexistent directory" \
  "other services: a contained uid 0 (its own PID namespace by default) does not see victim0 (pid $v0), cannot signal it nor reach its tree through /proc/PID/root"
t_eq "$(cat $O/reach.reacher-shared)" "proc yes
kill 0 
root 0 
write 0 " "positive control: with private-pids = no, it sees victim0, signals it (kill -0), lists and writes its tree through /proc/PID/root"
t_eq "$(ls /var/victim | tr '\n' ' ')$(cat /var/victim/from-reacher-shared 2>/dev/null)" "from-reacher-shared from reacher-shared" \
  "other services: only the control's file is in victim0's /var/victim (the machine's)"
t_eq "$(field victim0 state) $(field victim0 pid)" "up $v0" "other services: victim0 still up, same pid"
rm -f /var/victim/from-*

# 3: /dev.  A loop device over a scratch file of the runner's (/run,
# which no attacker may write), a file in /dev and one in /dev/shm
dd if=/dev/zero of=/run/q34-disk bs=1024 count=64 2>/dev/null
losetup /dev/loop0 /run/q34-disk
t_eq "$?:$(stat -c %F /dev/loop0)" "0:block special file" "/dev: the runner's loop0 is attached to /run/q34-disk"
echo /dev/loop0 > $O/loopdev
: > /dev/q34-victim
: > /dev/shm/q34-host
blocks=$(find /dev -type b | wc -l)
kmsg_has() { dmesg | grep -c "capinit-q34 kmsg from $1\$"; }
run devs
t_eq "$(cat $O/dev.devs)" "fstype tmpfs
ls fd full log mqueue null ptmx pts random shm stderr stdin stdout tty urandom zero 
block 0
kmsg No such file or directory
console No such file or directory
ttyS0 No such file or directory
loop0 No such file or directory
q34-victim No such file or directory
shm/q34-host No such file or directory
kmsg-write 0 
disk-write 0
create 0 
remove 1 No such file or directory
shm-create 0 
mknod 1 Operation not permitted" \
  "/dev: a read-only service's /dev is a tmpfs of its own: no block device, no kmsg, no console, no tty but its own, not the machine's files or /dev/shm; what it writes lands there"
t_eq "$(kmsg_has devs) $(grep -c 'capinit-q34' /run/q34-disk)" "0 0" \
  "/dev: nothing of it reached the kernel log (dmesg) nor the loop device's backing file"
t_eq "$(ls /dev/q34-* | tr '\n' ' ')$(ls /dev/shm | tr '\n' ' ')" "/dev/q34-victim q34-host " \
  "/dev: the machine's /dev and /dev/shm unchanged (its file not made, the runner's not removed)"
host_ls=$(ls /dev | tr '\n' ' ')
run devs-host
t_eq "$(cat $O/dev.devs-host)" "fstype devtmpfs
ls $host_ls
block $blocks
kmsg character special file
console character special file
ttyS0 character special file
loop0 block special file
q34-victim regular empty file
shm/q34-host regular empty file
kmsg-write 0 
disk-write 0
create 0 
remove 0 
shm-create 0 
mknod 1 Operation not permitted" \
  "positive control: with private-devices = no, the machine's /dev: its $blocks block devices, kmsg, the console, its ttys, its files and /dev/shm (mknod needs cap_mknod either way)"
t_eq "$(kmsg_has devs-host) $(grep -c 'capinit-q34 disk from devs-host' /run/q34-disk)" "1 1" \
  "positive control: its line is in the kernel log, and on the loop device's backing file"
t_eq "$(ls /dev/q34-* | tr '\n' ' ')$(ls /dev/shm | tr '\n' ' ')" "/dev/q34-from-devs-host q34-from-devs-host q34-host " \
  "positive control: the machine's /dev: its file made, the runner's removed; its file in the machine's /dev/shm"
losetup -d /dev/loop0
rm -f /run/q34-disk /dev/q34-* /dev/shm/q34-*

# 4: set-user-ID files in what a contained service may write; the
# ground truth: the mode on the machine, and what user nobody gets from
# running the copy (the probe's euid)
run suid
run suid-allowed
t_eq "$(cat $O/suid.suid.out)" "chmod 1 Operation not permitted
mkdir 1 Operation not permitted
mount rw,nosuid,nodev" \
  "set-id: a contained uid 0: chmod 4755 and mkdir -m 2755 refused (its filter); its read-write path is nosuid,nodev"
capexec -k user=nobody -- $O/suid.suid > /run/q34.suid 2>&1
# (busybox mkdir -m makes the directory, then its chmod is refused)
t_eq "$(stat -c %a $O/suid.suid) $(json /run/q34.suid euid) $(stat -c %a $O/sgid.suid)" "755 65534 755" \
  "set-id: the copy stays 0755 on the machine: user nobody who runs it stays 65534; the directory is 0755"
t_eq "$(cat $O/suid.suid-allowed.out)" "chmod 0 
mkdir 0 
mount rw" "positive control: allow-suid = yes: chmod 4755 and mkdir -m 2755 work, the path keeps set-id bits"
capexec -k user=nobody -- $O/suid.suid-allowed > /run/q34.suid-allowed 2>&1
t_eq "$(stat -c %a $O/suid.suid-allowed) $(json /run/q34.suid-allowed euid) $(stat -c %a $O/sgid.suid-allowed)" "4755 0 2755" \
  "positive control: the copy is set-user-ID root on the machine: user nobody who runs it gets euid 0"
rm -rf $O/suid.* $O/sgid.* /run/q34.suid*

# 7: network = netns:NAME, a link planted at /run/netns/NAME
mkdir -p /run/netns
ln -s /proc/self/ns/net /run/netns/q34-link
: > /run/netns/q34
unshare --net=/run/netns/q34 true
named=$(stat -L -c %i /run/netns/q34)
t_eq "$(stat -c %F /run/netns/q34-link) $([ "net:[$named]" != "$(readlink /proc/self/ns/net)" ] && echo other)" "symbolic link other" \
  "netns: /run/netns/q34-link is a link to /proc/self/ns/net, /run/netns/q34 another network namespace (busybox unshare --net=FILE)"
capctl start netns-link >/dev/null 2>&1
wait_state netns-link failed
t_eq "$(field netns-link state): $(field netns-link failure)" \
  "failed: stage network: unable to join the network namespace /run/netns/q34-link: Symbolic link loop" \
  "netns: the link is refused: netns-link failed at stage network"
t_eq "$([ -e $O/netns.netns-link ] && echo ran || echo 'never ran') $(cut -d' ' -f2- /var/log/capinit/netns-link.log)" \
  "never ran capinit: fatal: start failed at stage network: unable to join the network namespace /run/netns/q34-link: Symbolic link loop" \
  "netns: its command never ran; its log has only capinit's line"
run netns-named
t_eq "$(cat $O/netns.netns-named)" "net:[$named]" "positive control: netns-named runs in the namespace /run/netns/q34 holds"
umount /run/netns/q34
rm -f /run/netns/q34 /run/netns/q34-link
echo "attacks: $(( $(uptime_ms) - t0 )) ms guest time" | diag

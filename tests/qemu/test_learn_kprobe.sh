#!/bin/sh
# tests/qemu/test_learn_kprobe.sh BUILDDIR -- capctl learn's second event
# source, the kprobe on cap_capable, on a kernel without the tracepoint
# capability:cap_capable: Debian's stock 6.1 (unpacked in BUILDDIR/debs),
# booted in QEMU (TCG) on a minimal initramfs of busybox, capctl,
# capctl-learn, capexec and tests/learn_try, whose /init runs capctl learn
# --check on each program, prints what it said, and powers off.  The same
# answers as tests/system/test_learn.sh's on this machine's kernel: exactly
# the one capability, necessary by the removal trial; try-nice's proven
# unnecessary; and the probes and the instance removed after.  And what
# 6.18's tracepoints cannot show (tests/system/test_learn.sh): the sets a
# process asks of capset(2), read by the kprobe on cap_capset.  keep-time
# keeps cap_sys_time alone across its switch to uid 65534 and never uses
# it: the proposal has it, said "asked of capset(2)", necessary by the
# removal trial; under capexec the proposal's process holds exactly it
# (/proc/PID/status), and without it the same program's capset fails
# (EPERM).  keep-bind, whose capset makes its effective set of the
# permitted one it had, asks nothing more (the control).
B=${1:-build}
. tests/lib.sh
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
. tests/qemu/mini.sh
mini_kernel test_learn_kprobe "$B/bin/capctl" "$B/bin/capctl-learn" "$B/bin/capexec" "$B/tests/learn_try"
mini_root sh mount ip cat ls poweroff printf test true sed grep sleep kill tr
cp "$B/bin/capctl" "$B/bin/capctl-learn" "$B/bin/capexec" "$B/tests/learn_try" "$R/b/"
cat >"$R/init" <<'EOF2'
#!/bin/sh
mount -t proc proc /proc
mount -t sysfs sys /sys
mount -t devtmpfs dev /dev
ip link set lo up
echo "KERNEL $(cat /proc/sys/kernel/osrelease)"
mount -t tracefs none /sys/kernel/tracing
ls -d /sys/kernel/tracing/events/capability 2>/dev/null || echo "NO_TRACEPOINT"
umount /sys/kernel/tracing
for op in "bind 80" "chown /tmp/f 1234" raw nice "none /tmp/n" try-nice; do
  printf 'description = t\ncommand = /b/learn_try %s\n' "$op" >/tmp/s.svc
  /b/capctl learn --check 'test "$CAPCTL_LEARN_EXIT" = 0' /tmp/s.svc >/tmp/out 2>/tmp/err
  rc=$?
  echo "RESULT ${op%% *} rc=$rc caps=$(sed -n 's/^capabilities = //p' /tmp/out)"
  sed "s/^/REPORT ${op%% *} /" /tmp/err
done
# the files written (fanotify): a directory of its own, a file straight
# in /tmp; a removal alone
mkdir /w /r
: >/r/gone
# (rm learned alone: the file it removes is gone for a second run)
for op in "write /w" "rm /r/gone"; do
  printf 'description = t\ncommand = /b/learn_try %s\n' "$op" >/tmp/s.svc
  if [ "$op" = "rm /r/gone" ]; then
    /b/capctl learn /tmp/s.svc >/tmp/out 2>/tmp/err
  else
    /b/capctl learn --check 'test "$CAPCTL_LEARN_EXIT" = 0' /tmp/s.svc >/tmp/out 2>/tmp/err
  fi
  rc=$?
  echo "FILES ${op%% *} rc=$rc $(grep '^read-only = \|^read-write = \|^private-tmp = ' /tmp/out | tr '\n' '|')"
  sed "s/^/REPORT ${op%% *} /" /tmp/err
done
# capset(2): the proposal learned, proven; then run under capexec
printf 'description = kt\ncommand = /b/learn_try keep-time\n' >/tmp/kt.svc
/b/capctl learn --time 3 --check 'test "$CAPCTL_LEARN_EXIT" = running' /tmp/kt.svc >/tmp/kt.out 2>/tmp/kt.err
echo "KT rc=$? $(grep '^securebits = \|^capabilities = \|^# cap_sys_time' /tmp/kt.out | tr '\n' '|')"
sed 's/^/REPORT kt /' /tmp/kt.err
/b/capctl learn --time 3 /tmp/kt.svc >/tmp/kt.nc 2>/dev/null
echo "KTNC rc=$? $(grep '^capabilities = ' /tmp/kt.nc)"
printf 'description = kb\ncommand = /b/learn_try keep-bind 80\n' >/tmp/kb.svc
/b/capctl learn --time 3 /tmp/kb.svc >/tmp/kb.out 2>/tmp/kb.err
echo "KB rc=$? $(grep '^capabilities = ' /tmp/kb.out)"
sed 's/^/REPORT kb /' /tmp/kb.err
# under FILE: the switched learn_try's CapPrm:CapEff:Uid, from the kernel
under() {
  /b/capexec -f "$1" -- /b/learn_try keep-time >/tmp/run 2>&1 &
  c=$! n=0 p=
  while [ $n -lt 100 ] && ! grep -q '^keep-time ' /tmp/run; do sleep 0.1; n=$((n + 1)); done
  for s in /proc/[0-9]*/status; do
    grep -q '^Name:.learn_try$' "$s" && grep -q '^Uid:.65534' "$s" && p=${s%/status}
  done
  [ -n "$p" ] && echo "$(sed -n 's/^CapPrm:.//p' "$p/status"):$(sed -n 's/^CapEff:.//p' "$p/status"):$(sed -n 's/^Uid:.\([0-9]*\).*/\1/p' "$p/status")"
  [ -n "$p" ] && kill "${p#/proc/}"
  kill "$c" 2>/dev/null
  wait "$c" 2>/dev/null
}
sed '/^command = /d' /tmp/kt.out >/tmp/kt.prop.svc
echo "UNDER $(under /tmp/kt.prop.svc)"
sed 's/^capabilities = .*/capabilities = cap_setgid,cap_setuid/' /tmp/kt.prop.svc >/tmp/kt.neg.svc
/b/capexec -f /tmp/kt.neg.svc -- /b/learn_try keep-time >/tmp/neg 2>/dev/null
echo "NEG rc=$? $(grep -c '^capabilities = cap_setgid,cap_setuid$' /tmp/kt.neg.svc) $(cat /tmp/neg)"
printf 'description = t\ncommand = /bin/sh -c "mount -t tracefs none /sys/kernel/tracing; cat /sys/kernel/tracing/kprobe_events"\n' >/tmp/s.svc
/b/capctl learn /tmp/s.svc >/dev/null 2>/tmp/err
echo "DURING $(grep -c '^[pr][0-9]*:capctl_learn_[0-9]*/cap_cap' /tmp/err)"
umount /sys/kernel/tracing
mount -t tracefs none /sys/kernel/tracing
echo "PROBES $(cat /sys/kernel/tracing/kprobe_events | wc -l) INSTANCES $(ls /sys/kernel/tracing/instances | wc -l)"
echo DONE
poweroff -f
EOF2
mini_boot 512
t_eq "$(echo "$C" | sed -n 's/^KERNEL \(6\.1\.\).*/\1/p'):$(echo "$C" | grep -c '^NO_TRACEPOINT$')" "6.1.:1" \
  "Debian's 6.1, without the tracepoint capability:cap_capable"
t_eq "$(echo "$C" | grep -c '^REPORT raw capctl: learn: kprobe on cap_capable (tracefs: a mount of its own, attached nowhere), with /tmp/s.svc$')" 1 \
  "learn chose the kprobe"
while read -r op want call; do
  t_eq "$(echo "$C" | grep "^RESULT $op ")" "RESULT $op rc=0 caps=$want" "$op: learned and proven: exactly $want"
  [ "$want" = none ] && continue
  t_eq "$(echo "$C" | grep "^REPORT $op capctl: learn: $want: ")" \
    "REPORT $op capctl: learn: $want: granted 1, refused 0: $call (learn_try)
REPORT $op capctl: learn: $want: necessary: the check fails without it" "$op: $want in $call, necessary"
done <<EOF2
bind cap_net_bind_service bind
chown cap_chown fchown
raw cap_net_raw socket
nice cap_sys_nice setpriority
none none -
EOF2
t_eq "$(echo "$C" | grep '^RESULT try-nice '):$(echo "$C" | grep -c '^REPORT try-nice capctl: learn: cap_sys_nice: checked, but unnecessary: the check passes without it$')" \
  "RESULT try-nice rc=0 caps=none:1" "try-nice: cap_sys_nice granted, proven unnecessary"
t_eq "$(echo "$C" | grep '^REPORT chown capctl: learn: what ')" \
  "REPORT chown capctl: learn: what cap_chown was checked for: fchown (learn_try): fd 3, uid 1234, gid -1" \
  "chown: what fchown acted on, from sys_enter's arguments"
# the files on 6.1: fanotify as on 6.18, the initramfs's tmpfs reports a
# directory's entries (the removal alone is seen)
t_eq "$(echo "$C" | grep '^FILES ')" "FILES write rc=0 read-only = yes|read-write = /w|private-tmp = yes|
FILES rm rc=0 read-only = yes|read-write = /r|" \
  "write: read-only, its directory read-write, a private /tmp, proven; rm: the directory it removed from"
t_eq "$(echo "$C" | grep -c '^REPORT write capctl: learn: the check passes with the proposal, securebits noroot, noroot-locked, keep-caps-locked (0x23), read-only = yes and the read-write paths learned$'):$(echo "$C" | grep -c 'cannot report')" \
  "1:0" "write's proposal passes the check; every file system reports entries"
t_eq "$(echo "$C" | grep '^KT ')" \
  "KT rc=0 securebits = noroot, noroot-locked|# cap_sys_time: asked of capset(2) (learn_try)|capabilities = cap_setgid,cap_setuid,cap_sys_time|" \
  "keep-time: cap_sys_time, which no check saw, in the proposal, asked of capset(2); proven under 0x03"
t_eq "$(echo "$C" | grep '^REPORT kt capctl: learn: cap_sys_time: ')" \
  "REPORT kt capctl: learn: cap_sys_time: asked of capset(2) 1 times, in the permitted set to keep after a switch from uid 0: learn_try
REPORT kt capctl: learn: cap_sys_time: necessary: the check fails without it" \
  "keep-time: the report says where cap_sys_time came from; the removal trial finds it necessary"
t_eq "$(echo "$C" | grep -c '^REPORT kt .*called capset(2)')" 0 "keep-time: no capset(2) left unread or unproposed"
t_eq "$(echo "$C" | grep '^KTNC ')" "KTNC rc=0 capabilities = cap_setgid,cap_setuid,cap_sys_time" \
  "keep-time without --check: cap_sys_time proposed too"
t_eq "$(echo "$C" | grep '^UNDER ')" "UNDER 0000000002000000:0000000002000000:65534" \
  "the proposal under capexec: as uid 65534 it holds exactly cap_sys_time (CapPrm, CapEff), the one it kept"
t_eq "$(echo "$C" | grep '^NEG ')" "NEG rc=1 1 keep-time Operation not permitted" \
  "control: the proposal without cap_sys_time: its capset(2) fails (EPERM)"
t_eq "$(echo "$C" | grep '^KB '):$(echo "$C" | grep -c '^REPORT kb capctl: learn: learn_try called capset(2) as uid 0, or left its permitted set as it was: nothing proposed for it$')" \
  "KB rc=0 capabilities = cap_setgid,cap_setuid,cap_net_bind_service:1" \
  "control: keep-bind's capset(2) keeps the permitted set it had: nothing asked, only the three checked"
t_eq "$(echo "$C" | grep '^DURING ')" "DURING 3" "control: while learn runs, its kprobes and kretprobe are there"
t_eq "$(echo "$C" | grep '^PROBES ')" "PROBES 0 INSTANCES 0" "the kprobes and the instance removed after"
t_done

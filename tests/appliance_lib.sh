# tests/appliance_lib.sh -- what the appliance boots of every architecture
# check alike: tests/qemu/test_appliance.sh (x86) and tests/cross/appliance.sh
# (arm64, armhf).  Source it after tests/lib.sh, with B the build directory
# and AP the prefix of every check's name ("" on x86, "arm64 " and so on).
#
#   app_init            a run directory $out (kept when a check fails), $T
#   app_images OVERLAY WHAT
#                       the demo image (rootfs/ + rootfs/demo/ + OVERLAY) as
#                       an initramfs and as an ext4 disk; the 3 MB budget
#   app_boot            both booted at once (rootfs/qemu.sh run)
#   app_ran F           QEMU's exit and the demo runner's DONE; rec and has
#                       read that boot's records and console from then on
#   app_common F ROOTFSTYPE ROOT-MODE
#                       the records every image has: credentials from /proc,
#                       the oneshots', httpd and pinger at work, every
#                       console refusal with its control, capctl verify, the
#                       files and the mounts
#   app_shutdown F      capctl poweroff, the stop order, the last word
#   app_ready F NOTE    the boot-to-ready time, for the summary
#   app_end HEAD        the summary lines, the run directory removed when
#                       every check passed; t_done
# The demo runner's records, one per line on /dev/ttyS1: rootfs/demo/.

ms() { date +%s%3N; }

# /proc/PID/status masks: none, every capability of a 40-capability kernel,
# and the four the appliance's services hold
Z=0000000000000000
FULL=000001ffffffffff
B10=0000000000000400   # cap_net_bind_service
B12=0000000000001000   # cap_net_admin
B13=0000000000002000   # cap_net_raw
B21=0000000000200000   # cap_sys_admin

app_init() {
  summary=
  mkdir -p "$B/qemu"
  out=$(mktemp -d "$B/qemu/run.XXXXXX")
  out=$(cd "$out" && pwd)
  T=$out/tmp
  mkdir -p "$T"
  t_start=$(ms)
}

app_images() { # OVERLAY WHAT
  for f in cpio ext4; do
    sh rootfs/build.sh -f $f -o rootfs/demo -o "$1" -m dummy "$B" "$out/$f" >"$T/build-$f.out" 2>&1
    st=$?
    t_ok $st "image: the $AP$f demo image is built$2"
    [ $st = 0 ] || sed 's/^/#   /' "$T/build-$f.out"
  done
  rep=$out/cpio/report.txt
  nomod=$(sed -n 's/.*without the kernel modules \([0-9]*\) bytes.*/\1/p' "$rep")
  [ -n "$nomod" ] && [ "$nomod" -le 3145728 ]
  t_ok $? "image: the compressed initramfs without kernel modules is at most 3 MB (${nomod:-?} bytes)"
  summary="${summary}${AP}image: initramfs.cpio.gz $(stat -c %s "$out/cpio/initramfs.cpio.gz" 2>/dev/null) bytes ($nomod without modules); rootfs.ext4 $(stat -c %s "$out/ext4/rootfs.ext4" 2>/dev/null) bytes + stage1.cpio.gz $(stat -c %s "$out/ext4/stage1.cpio.gz" 2>/dev/null) bytes
"
}

app_boot() { # both at once: two TCG vCPUs on two cores
  t_images=$(ms)
  for f in cpio ext4; do
    RUN_TIMEOUT=${RUN_TIMEOUT:-600} sh rootfs/qemu.sh run "$B" "$out/$f" "$out/$f/run" >"$T/run-$f.line" 2>&1 &
    eval "pid_$f=\$!"
  done
  wait "$pid_cpio"
  rc_cpio=$?
  wait "$pid_ext4"
  rc_ext4=$?
}

rec() { sed -n "s|^$1 ||p" "$res" | head -n 1; }
has() { grep -Eq "$2" "$con"; t_ok $? "$AP$f: $1"; }
at() { grep -nF "$1" "$con" | head -n 1 | cut -d: -f1; }

app_ran() { # F
  f=$1
  dir=$out/$f/run
  con=$dir/console.txt
  res=$dir/results.txt
  eval "rc=\$rc_$f"
  line=$(cat "$T/run-$f.line")
  t_eq "$rc $(echo "$line" | sed -n 's/^run: \(end=[a-z]* qemu_rc=[0-9]*\).*/\1/p')" "0 end=exit qemu_rc=0" \
    "$AP$f: QEMU exited 0 by itself ($line)"
  tr -d '\r' < "$res" > "$res.txt" 2>/dev/null
  res=$res.txt
  grep -qx DONE "$res"
  st=$?
  t_ok $st "$AP$f: the demo runner wrote DONE"
  [ $st = 0 ] || tail -n 20 "$con" 2>/dev/null | sed 's/^/#   console: /'
}

app_common() { # F ROOTFSTYPE ROOT-MODE
  p="$AP$1"
  has "the filecaps manifest holds (set at boot, or verified on the read-only disk)" \
    '^capinit: filecaps: 1 of 1 files as the manifest says$'
  # UID GID INH PRM EFF BND AMB NNP, from /proc/PID/status
  t_eq "$(rec "creds console")" "0 0 $Z $Z $Z $Z $Z 1" "$p: console: uid 0, no capability in any set, empty bounding set, nnp"
  t_eq "$(rec "creds httpd")" "80 80 $B10 $B10 $B10 $B10 $B10 1" "$p: httpd: uid 80 (www), cap_net_bind_service in every set, nnp"
  t_eq "$(rec "creds pinger")" "81 81 $Z $B13 $B13 $B13 $Z 0" \
    "$p: pinger: uid 81 (ping), cap_net_raw permitted and effective from its file, not ambient, bounding net_raw"
  t_eq "$(rec "creds syslogd")" "0 0 $Z $FULL $FULL $FULL $Z 0" "$p: syslogd: legacy root, full root (the declared exception)"
  t_eq "$(rec "creds demo")" "0 0 $Z $FULL $FULL $FULL $Z 0" "$p: demo runner: legacy root"
  # Seccomp of /proc/PID/status: 2 is a filter, 0 none
  t_eq "$(rec "seccomp httpd") $(rec "seccomp console") $(rec "seccomp pinger") $(rec "seccomp syslogd") $(rec "seccomp demo")" "2 2 2 0 0" \
    "$p: httpd, console and pinger (contained) run under their system-call filter; syslogd and the demo runner (legacy, the control) under none"
  t_eq "$(rec "oneshot net")" "$B12" "$p: net (oneshot) ran with cap_net_admin only (CapEff it logged)"
  t_eq "$(rec "oneshot lockdown")" "$B21" "$p: lockdown (oneshot) ran with cap_sys_admin only"
  t_eq "$(rec "console self")" "0  $Z $Z $Z" "$p: the console shell's own /proc/self/status: uid 0, CapPrm CapEff CapBnd empty"
  probe=$(rec "console probe")
  t_eq "$(echo "$probe" | sed -n 's/.*"securebits":\([0-9]*\).*/\1/p') $(echo "$probe" | sed -n 's/.*"no_new_privs":\([a-z]*\).*/\1/p')" \
    "47 true" "$p: a command of the console shell: securebits 0x2f (locked noroot tree), no_new_privs"

  t_eq "$(rec http)" "hello from busybox httpd, user www, capability cap_net_bind_service only" \
    "$p: httpd (www) serves port 80 on its own card: wget http://10.0.2.16/ from its network namespace"
  t_eq "$(rec "card httpd")" "lo eth0 | 10.0.2.16/24 | 10.0.2.2 | a MAC address of its own | ping 0" \
    "$p: httpd's card (macvlan:eth0): its network holds lo and eth0 only (/proc/PID/net/dev), 10.0.2.16/24, the default route via 10.0.2.2, a MAC of its own, QEMU's gateway answers its ping"
  t_eq "$(rec "card machine")" "lo 127.0.0.1/8 eth0 10.0.2.15/24 " \
    "$p: the machine's network (every other service's but the sandbox's) has only its own addresses: no 10.0.2.16"
  echo "$(rec pinger-log)" | grep -Eq '^reply from 10\.0\.2\.2: seq=[0-9]+ ttl=[0-9]+ time=[0-9]+\.[0-9]{3} ms$'
  t_ok $? "$p: pinger's log: a reply from the gateway ($(rec pinger-log))"
  t_eq "$(rec pinger-copy)" "111 pinger: fatal: unable to open a raw ICMP socket: Operation not permitted (it needs cap_net_raw)" \
    "$p: pinger's spec on a copy without the file capability: no raw socket"

  t_eq "$(rec "console mount")" "1 mount: permission denied (are you root?)" "$p: console: mount is refused"
  t_eq "$(rec "control mount")" 0 "$p: control: the same mount works from legacy root"
  t_eq "$(rec "console insmod")" \
    "1 insmod: can't insert '/lib/modules/$(sed -n 's/^kernel: .* (\(.*\))$/\1/p' "$out/$1/report.txt")/kernel/drivers/net/dummy.ko': Operation not permitted" \
    "$p: console: insmod is refused"
  t_eq "$(rec "control insmod")" "0 yes" "$p: control: the same insmod works from legacy root (/sys/module/dummy)"
  t_eq "$(rec "console bind80")" "1 nc: bind: Permission denied" "$p: console: binding port 80 is refused (httpd, the control, binds it on its card)"
  t_eq "$(rec "console pinger")" "126 /usr/sbin/pinger: Operation not permitted" \
    "$p: console: pinger's +ep file capability is outside its bounding set: execve fails (F5)"
  t_eq "$(rec "console etc")" "1 sh: can't create /etc/capinit/services/httpd.svc: Read-only file system" \
    "$p: console: root's files are read-only (its container)"
  t_eq "$(rec "console sysctl")" "1 sh: can't create /proc/sys/kernel/core_pattern: Read-only file system" \
    "$p: console: /proc/sys is read-only (lockdown, and its container)"
  # (or that number is one of the console's own processes there: the shell,
  # or busybox timeout's watcher that outlives the nc of "console bind80"
  # by up to a second; never busybox, which is httpd's own name)
  kill_rec=$(rec "console kill")
  echo "$kill_rec" | grep -Eq "^1 sh: can't kill pid [0-9]+: No such process$|^2 pid [0-9]+ is this namespace's own \((sh|timeout)\): httpd is not in it$"
  kill_st=$?
  t_ok $kill_st "$p: console: cannot even reach httpd's pid (its own PID namespace)"
  [ $kill_st = 0 ] || echo "#   got: $kill_rec"
  t_eq "$(rec "console stop")" "1 capctl: error: permission denied: only root with capinit's own power, in its user and PID namespaces, may change services" \
    "$p: console: capctl stop httpd is refused (its power-group may power off, reboot, halt, and no more)"

  t_eq "$(rec verify)" "0 " "$p: capctl verify: every running service matches its prediction"
  t_eq "$(rec setid)" none "$p: no set-user-ID or set-group-ID file in the image (find / -xdev -perm /6000)"
  t_eq "$(rec "xattr /usr/sbin/pinger")" 0100000200200000000000000000000000000000 \
    "$p: /usr/sbin/pinger has security.capability revision 2, cap_net_raw+ep"
  t_eq "$(rec "xattr /bin/busybox")" none "$p: busybox has no file capability"
  t_eq "$(rec rootmount)" "$2 $3" "$p: the root is $2, $3"
  t_eq "$(rec procsys)" ro "$p: /proc/sys is read-only"
  t_eq "$(rec sysfs)" ro,nosuid,nodev,noexec,relatime "$p: /sys is read-only, nosuid, nodev, noexec (the fstab's line for it)"
}

app_shutdown() { # F
  has "capctl poweroff from the demo" '^capinit: capctl poweroff: stopping every service$'
  a=$(at "service httpd: stopped")
  b=$(at "service net: stopping (stop-command)")
  [ -n "$a" ] && [ -n "$b" ] && [ "$a" -lt "$b" ]
  t_ok $? "$AP$1: httpd (depends net) stopped before net's stop-command"
  t_eq "$(grep '^capinit: ' "$con" | tail -n 1)" "capinit: power off" "$AP$1: capinit's last word is 'power off'"
  has "the kernel powered down" 'reboot: Power down$'
}

app_ready() { # F NOTE
  ready=$(sed -n 's/^capinit: all [0-9]* services ready \([0-9]*\) ms after capinit started$/\1/p' "$con" | head -n 1)
  wall=$(echo "$line" | sed -n 's/.* wall_ms=\([0-9]*\).*/\1/p')
  summary="$summary$AP$1: boot-to-ready ${ready:-?} ms (capinit's clock$2), QEMU wall $(awk -v w="${wall:-0}" 'BEGIN { printf "%.1f", w / 1000 }') s (two boots at once)
"
}

app_end() { # HEAD: what the time line says before the images' time
  summary="${summary}time: $1two images $(( (t_images - ${t_builder:-$t_start}) / 1000 )) s, two boots and checks $(( ($(ms) - t_images) / 1000 )) s
"
  printf '%s' "$summary" | sed 's/^/# summary: /'
  if [ "$t_failed" = 0 ]; then rm -rf "$out"; else echo "# the images, consoles and results are kept in $out"; fi
  t_done
}

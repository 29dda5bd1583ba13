#!/bin/sh
# tests/qemu/test_appliance.sh BUILDDIR -- the root-free appliance
# (rootfs/, issue 7): what make demo shows, asserted with exact values.
#
#   builder    rootfs/build.sh refuses a setuid file, a setgid file, a
#              world-writable file, a world-writable directory without the
#              sticky bit, a filecaps line for a missing file or for a
#              multi-call binary, a module listed before its dependencies,
#              naming every problem at once; and the fixed overlays pass
#              every check (the positive controls)
#   images     the demo image (rootfs/ + rootfs/demo/) as an initramfs and
#              as an ext4 disk, with the credentials probe and guest_tool
#              in /test; report.txt; the 3 MB budget
#   boots      both booted at once (rootfs/qemu.sh run); the demo runner's
#              records on /dev/ttyS1: every service up with exactly its
#              capability sets in /proc, the oneshots' own, httpd serving
#              port 80 as www, pinger's raw ICMP from its file capability
#              (and not without it), every console refusal with its
#              control, capctl verify, no set-id file, the xattr bytes,
#              the read-only root; then capctl poweroff, QEMU's exit 0,
#              the shutdown order
#
# Needs root (the builder sets file capabilities and chroots).  About
# 25 s: two boots at once, each killed after RUN_TIMEOUT (600) s (a bound
# only a hung boot reaches: TCG on a loaded machine is slow).
B=${1:-build}
. tests/lib.sh

summary=
mkdir -p "$B/qemu"
out=$(mktemp -d "$B/qemu/run.XXXXXX")
out=$(cd "$out" && pwd)
T=$out/tmp
mkdir -p "$T"

for f in "$B/tests/probe" "$B/tests/qemu_tool" "$B/rootfs/pinger" "$B/rootfs/netup" "$B/rootfs/lockdown" "$B/bin/capinit"; do
  [ -x "$f" ] || { echo "Bail out! $f is missing (make check builds it)"; exit 1; }
done

ms() { date +%s%3N; }
t_start=$(ms)
# ---------------------------------------------------------------- builder
build() { # NAME [-n]: the appliance with the overlay $T/NAME, into $T/out-NAME
  sh rootfs/build.sh $2 -o "$T/$1" "$B" "$T/out-$1" >"$T/$1.out" 2>&1
}
refused() { # NAME WHAT PATTERN...: the build fails, names each problem, writes nothing
  n=$1 what=$2
  shift 2
  build "$n"
  t_eq "$?" 1 "builder: refuses $what (exit 1)"
  for pat in "$@"; do
    grep -q "$pat" "$T/$n.out"
    st=$?
    t_ok $st "builder: says: $pat"
    [ $st = 0 ] || sed 's/^/#   /' "$T/$n.out"
  done
  t_eq "$(ls -A "$T/out-$n")" "" "builder: $what: nothing written"
}
accepted() { # NAME WHAT: every check passes (-n: check only)
  build "$1" -n
  st=$?
  t_eq "$st" 0 "builder: control: $2 passes every check"
  [ $st = 0 ] || sed 's/^/#   /' "$T/$1.out"
}
mk() { # OVERLAY FILE MODE
  mkdir -p "$T/$1/$(dirname "$2")"
  echo "#!/bin/sh" > "$T/$1/$2"
  chmod "$3" "$T/$1/$2"
}

# file modes: every problem at once, then the same files without them
mk modes usr/bin/suid-file 4755
mk modes usr/bin/sgid-file 2755
mk modes srv/www/ww-file 0666
mkdir -p "$T/modes/var/spool"
chmod 0777 "$T/modes/var/spool"
refused modes "a setuid file, a setgid file, a world-writable file and directory" \
  'refused: /usr/bin/suid-file is set-user-ID or set-group-ID (-rwsr-xr-x)' \
  'refused: /usr/bin/sgid-file is set-user-ID or set-group-ID (-rwxr-sr-x)' \
  'refused: /srv/www/ww-file is world-writable (-rw-rw-rw-)' \
  'refused: /var/spool is world-writable (drwxrwxrwx)'
mk modes-fixed usr/bin/suid-file 0755
mk modes-fixed usr/bin/sgid-file 0755
mk modes-fixed srv/www/ww-file 0644
mkdir -p "$T/modes-fixed/var/spool"
chmod 1777 "$T/modes-fixed/var/spool"
accepted modes-fixed "the same files without set-id bits, and the directory sticky (like /tmp)"

# the manifest and the module list
mkdir -p "$T/lists/etc/capinit"
{ cat rootfs/skel/etc/capinit/filecaps; echo "/usr/sbin/not-shipped cap_net_raw+ep"; echo "/bin/busybox cap_net_raw+ep"; } \
  > "$T/lists/etc/capinit/filecaps"
printf 'virtio_net\n' > "$T/lists/etc/capinit/modules"
refused lists "a filecaps line for a missing file or a multi-call binary, a module before its dependencies" \
  'refused: /etc/capinit/filecaps:[0-9]*: /usr/sbin/not-shipped is not a regular file of the image' \
  'refused: /etc/capinit/filecaps:[0-9]*: /bin/busybox is a multi-call binary: every applet would get cap_net_raw+ep' \
  'refused: /etc/capinit/modules: module virtio_net depends on virtio_ring: list virtio_ring before it'
mkdir -p "$T/lists-fixed/usr/sbin" "$T/lists-fixed/etc/capinit"
{ cat rootfs/skel/etc/capinit/filecaps; echo "/usr/sbin/not-shipped cap_net_raw+ep"; } > "$T/lists-fixed/etc/capinit/filecaps"
cp "$B/rootfs/pinger" "$T/lists-fixed/usr/sbin/not-shipped"
printf 'virtio_ring\nvirtio\nfailover\nnet_failover\nvirtio_net\n' > "$T/lists-fixed/etc/capinit/modules"
accepted lists-fixed "the manifest once the image has the file, the modules in order"

t_builder=$(ms)
# ---------------------------------------------------------------- images
# the demo image, with the credentials probe and guest_tool in /test
mkdir -p "$T/test/test"
cp "$B/tests/probe" "$T/test/test/probe"
cp "$B/tests/qemu_tool" "$T/test/test/tool"
for f in cpio ext4; do
  sh rootfs/build.sh -f $f -o rootfs/demo -o "$T/test" -m dummy "$B" "$out/$f" >"$T/build-$f.out" 2>&1
  st=$?
  t_ok $st "image: the $f demo image is built"
  [ $st = 0 ] || sed 's/^/#   /' "$T/build-$f.out"
done
rep=$out/cpio/report.txt
for s in console demo httpd lockdown net pinger syslogd; do
  grep -q "^  $s  *uid " "$rep"
  t_ok $? "report.txt: a line for service $s"
  grep -q "^  $s (/etc/capinit/services/$s.svc)$" "$rep"
  t_ok $? "report.txt: capctl explain of $s"
done
grep -q '^  httpd     uid 80    noroot nnp yes  permitted: cap_net_bind_service$' "$rep"
t_ok $? "report.txt: httpd predicted as uid 80, noroot, nnp, cap_net_bind_service only"
grep -q '^  console   uid 0     noroot nnp yes  permitted: none$' "$rep"
t_ok $? "report.txt: console predicted as uid 0, noroot, nnp, nothing"
grep -q 'the file capabilities of /usr/sbin/pinger give cap_net_raw$' "$rep"
t_ok $? "report.txt: pinger's privilege comes from its file capability"
grep -q 'multi-call' "$rep"
t_ok $((!$?)) "report.txt: no multi-call binary with file capabilities"
grep -q '^  /usr/sbin/pinger cap_net_raw=ep  (security.capability revision 2)$' "$rep"
t_ok $? "report.txt: every file capability (pinger cap_net_raw=ep)"
nomod=$(sed -n 's/.*without the kernel modules \([0-9]*\) bytes.*/\1/p' "$rep")
[ -n "$nomod" ] && [ "$nomod" -le 3145728 ]
t_ok $? "image: the compressed initramfs without kernel modules is at most 3 MB (${nomod:-?} bytes)"
t_eq "$(stat -c %s "$out/cpio/initramfs.cpio.gz" 2>/dev/null | awk '{ print ($1 > 0) }')" 1 "image: initramfs.cpio.gz written"
grep -q '^rootfs.ext4: [0-9]* bytes' "$out/ext4/report.txt"
t_ok $? "report.txt (ext4): the image sizes"
summary="${summary}image: initramfs.cpio.gz $(stat -c %s "$out/cpio/initramfs.cpio.gz" 2>/dev/null) bytes ($nomod without modules); rootfs.ext4 $(stat -c %s "$out/ext4/rootfs.ext4" 2>/dev/null) bytes + stage1.cpio.gz $(stat -c %s "$out/ext4/stage1.cpio.gz" 2>/dev/null) bytes
"

t_images=$(ms)
# ---------------------------------------------------------------- boots
# both at once: two TCG vCPUs on two cores
for f in cpio ext4; do
  RUN_TIMEOUT=${RUN_TIMEOUT:-600} sh rootfs/qemu.sh run "$B" "$out/$f" "$out/$f/run" >"$T/run-$f.line" 2>&1 &
  eval "pid_$f=\$!"
done
wait "$pid_cpio"
rc_cpio=$?
wait "$pid_ext4"
rc_ext4=$?

Z=0000000000000000
FULL=000001ffffffffff
B10=0000000000000400   # cap_net_bind_service
B12=0000000000001000   # cap_net_admin
B13=0000000000002000   # cap_net_raw
B21=0000000000200000   # cap_sys_admin

check_boot() { # FORMAT ROOTFSTYPE OPEN-WRITES-/ ROOT-MODE
  f=$1
  dir=$out/$f/run
  con=$dir/console.txt
  res=$dir/results.txt
  eval "rc=\$rc_$f"
  line=$(cat "$T/run-$f.line")
  t_eq "$rc $(echo "$line" | sed -n 's/^run: \(end=[a-z]* qemu_rc=[0-9]*\).*/\1/p')" "0 end=exit qemu_rc=0" \
    "$f: QEMU exited 0 by itself ($line)"
  tr -d '\r' < "$res" > "$res.txt" 2>/dev/null
  res=$res.txt
  grep -qx DONE "$res"
  st=$?
  t_ok $st "$f: the demo runner wrote DONE"
  [ $st = 0 ] || tail -n 20 "$con" 2>/dev/null | sed 's/^/#   console: /'
  rec() { sed -n "s|^$1 ||p" "$res" | head -n 1; }
  has() { grep -Eq "$2" "$con"; t_ok $? "$f: $1"; }

  has "capinit loaded the 8 modules of /etc/capinit/modules" '^capinit: modules: 8 of 8 loaded$'
  has "the filecaps manifest holds (set at boot, or verified on the read-only disk)" \
    '^capinit: filecaps: 1 of 1 files as the manifest says$'
  has "all 9 services ready (capinit's clock)" '^capinit: all 9 services ready [0-9]+ ms after capinit started$'
  for s in syslogd lockdown net httpd pinger console sandbox open demo; do
    t_eq "$(rec "svc $s" | cut -d' ' -f1)" up "$f: $s is up"
  done
  # UID GID INH PRM EFF BND AMB NNP, from /proc/PID/status
  t_eq "$(rec "creds console")" "0 0 $Z $Z $Z $Z $Z 1" "$f: console: uid 0, no capability in any set, empty bounding set, nnp"
  t_eq "$(rec "creds httpd")" "80 80 $B10 $B10 $B10 $B10 $B10 1" "$f: httpd: uid 80 (www), cap_net_bind_service in every set, nnp"
  t_eq "$(rec "creds pinger")" "81 81 $Z $B13 $B13 $B13 $Z 0" \
    "$f: pinger: uid 81 (ping), cap_net_raw permitted and effective from its file, not ambient, bounding net_raw"
  t_eq "$(rec "creds syslogd")" "0 0 $Z $FULL $FULL $FULL $Z 0" "$f: syslogd: legacy root, full root (the declared exception)"
  t_eq "$(rec "creds demo")" "0 0 $Z $FULL $FULL $FULL $Z 0" "$f: demo runner: legacy root"
  t_eq "$(rec "oneshot net")" "$B12" "$f: net (oneshot) ran with cap_net_admin only (CapEff it logged)"
  t_eq "$(rec "oneshot lockdown")" "$B21" "$f: lockdown (oneshot) ran with cap_sys_admin only"
  t_eq "$(rec "console self")" "0  $Z $Z $Z" "$f: the console shell's own /proc/self/status: uid 0, CapPrm CapEff CapBnd empty"
  probe=$(rec "console probe")
  t_eq "$(echo "$probe" | sed -n 's/.*"securebits":\([0-9]*\).*/\1/p') $(echo "$probe" | sed -n 's/.*"no_new_privs":\([a-z]*\).*/\1/p')" \
    "47 true" "$f: a command of the console shell: securebits 0x2f (locked noroot tree), no_new_privs"

  t_eq "$(rec http)" "hello from busybox httpd, user www, capability cap_net_bind_service only" \
    "$f: httpd (www) serves port 80: wget http://127.0.0.1/ in the guest"
  echo "$(rec pinger-log)" | grep -Eq '^reply from 10\.0\.2\.2: seq=[0-9]+ ttl=[0-9]+ time=[0-9]+\.[0-9]{3} ms$'
  t_ok $? "$f: pinger's log: a reply from the gateway ($(rec pinger-log))"
  echo "$(rec pinger-same-spec)" | grep -Eq '^0 reply from 10\.0\.2\.2: seq=1 '
  t_ok $? "$f: pinger's spec through capexec on its own file: a reply ($(rec pinger-same-spec))"
  t_eq "$(rec pinger-copy)" "111 pinger: fatal: unable to open a raw ICMP socket: Operation not permitted (it needs cap_net_raw)" \
    "$f: the same spec on a copy without the file capability: no raw socket"

  t_eq "$(rec "console mount")" "1 mount: permission denied (are you root?)" "$f: console: mount is refused"
  t_eq "$(rec "control mount")" 0 "$f: control: the same mount works from legacy root"
  t_eq "$(rec "console insmod")" \
    "1 insmod: can't insert '/lib/modules/$(sed -n 's/^kernel: .* (\(.*\))$/\1/p' "$out/$f/report.txt")/kernel/drivers/net/dummy.ko': Operation not permitted" \
    "$f: console: insmod is refused"
  t_eq "$(rec "control insmod")" "0 yes" "$f: control: the same insmod works from legacy root (/sys/module/dummy)"
  t_eq "$(rec "console bind80")" "1 nc: bind: Permission denied" "$f: console: binding port 80 is refused (httpd, the control, binds it)"
  t_eq "$(rec "console pinger")" "126 /usr/sbin/pinger: Operation not permitted" \
    "$f: console: pinger's +ep file capability is outside its bounding set: execve fails (F5)"
  t_eq "$(rec "console etc")" "1 sh: can't create /etc/capinit/services/httpd.svc: Read-only file system" \
    "$f: console: root's files are read-only (its container)"
  t_eq "$(rec "console sysctl")" "1 sh: can't create /proc/sys/kernel/core_pattern: Read-only file system" \
    "$f: console: /proc/sys is read-only (lockdown, and its container)"
  # (or that number is one of the console's own processes there, not httpd)
  echo "$(rec "console kill")" | grep -Eq "^1 sh: can't kill pid [0-9]+: No such process$|^2 pid [0-9]+ is this namespace's own \((sh|awk|sed|cat|capctl|busybox|sleep)\): httpd is not in it$"
  t_ok $? "$f: console: cannot even reach httpd's pid (its own PID namespace)"
  t_eq "$(rec "console stop")" "1 capctl: error: permission denied: only root may change services" \
    "$f: console: capctl stop httpd is refused (its power-group may power off, reboot, halt, and no more)"

  # the application container, seen from inside, and the same without it
  t_eq "$(rec "inside sandbox processes:")" "2" "$f: sandbox (private-pids): 2 processes, its reaper and itself"
  t_eq "$(rec "inside sandbox write /:")" "Read-only file system" \
    "$f: sandbox, uid 0: writing / fails with EROFS"
  t_eq "$(rec "inside sandbox other services' files:")" "none (no /etc/capinit)" "$f: sandbox: no other service's files (its own root)"
  t_eq "$(rec "inside sandbox network:")" "lo " "$f: sandbox (network = none): only lo"
  t_eq "$(rec "inside sandbox hostname:")" "sandbox" "$f: sandbox: its own host name"
  echo "$(rec "inside open processes:")" | grep -Eq "^[0-9]+ \(syslogd, httpd, pinger among them: httpd pinger syslogd \)$"
  t_ok $? "$f: control: open (no container) sees every process, syslogd, httpd and pinger among them ($(rec "inside open processes:"))"
  t_eq "$(rec "inside open write /:")" "$3" "$f: control: open, the same uid 0, writes / ($3)"
  t_eq "$(rec "inside open other services' files:")" "/etc/capinit/services is there" "$f: control: open sees the other services' files"
  t_eq "$(rec "inside open network:")" "eth0 lo " "$f: control: open has the machine's network"

  t_eq "$(rec verify)" "0 " "$f: capctl verify: every running service matches its prediction"
  t_eq "$(rec setid)" none "$f: no set-user-ID or set-group-ID file in the image (find / -xdev -perm /6000)"
  t_eq "$(rec "xattr /usr/sbin/pinger")" 0100000200200000000000000000000000000000 \
    "$f: /usr/sbin/pinger has security.capability revision 2, cap_net_raw+ep"
  t_eq "$(rec "xattr /bin/busybox")" none "$f: busybox has no file capability"
  t_eq "$(rec rootmount)" "$2 $4" "$f: the root is $2, $4"
  t_eq "$(rec procsys)" ro "$f: /proc/sys is read-only"
  t_eq "$(rec sysfs)" ro,nosuid,nodev,noexec,relatime "$f: /sys is read-only, nosuid, nodev, noexec (the fstab's line for it)"

  # the shutdown
  has "capctl poweroff from the demo" '^capinit: capctl poweroff: stopping every service$'
  at() { grep -nF "$1" "$con" | head -n 1 | cut -d: -f1; }
  a=$(at "service httpd: stopped")
  b=$(at "service net: stopping (stop-command)")
  [ -n "$a" ] && [ -n "$b" ] && [ "$a" -lt "$b" ]
  t_ok $? "$f: httpd (depends net) stopped before net's stop-command"
  a=$(at "service console: stopped")
  [ -n "$a" ] && [ "$a" -lt "$(at "capinit: every service is down")" ]
  t_ok $? "$f: the console shell stopped (SIGHUP) before the end"
  t_eq "$(grep '^capinit: ' "$con" | tail -n 1)" "capinit: power off" "$f: capinit's last word is 'power off'"
  has "the kernel powered down" 'reboot: Power down$'
  if [ "$f" = ext4 ]; then
    has "stage 1 mounted the disk read-only and switched to capinit" \
      '^stage1: /dev/vda \(ext4\) mounted read-only: switch_root to capinit$'
  fi

  ready=$(sed -n 's/^capinit: all [0-9]* services ready \([0-9]*\) ms after capinit started$/\1/p' "$con" | head -n 1)
  wall=$(echo "$line" | sed -n 's/.* wall_ms=\([0-9]*\).*/\1/p')
  summary="$summary$f: boot-to-ready ${ready:-?} ms (capinit's clock), QEMU wall $(awk -v w="${wall:-0}" 'BEGIN { printf "%.1f", w / 1000 }') s (two boots at once)
"
}
# the initramfs root is writable (the contained services' trees are not);
# the disk image is read-only as a whole
check_boot cpio rootfs ok rw
check_boot ext4 ext4 "Read-only file system" ro

summary="${summary}time: builder refusals $(( (t_builder - t_start) / 1000 )) s, two images $(( (t_images - t_builder) / 1000 )) s, two boots and checks $(( ($(ms) - t_images) / 1000 )) s
"
printf '%s' "$summary" | sed 's/^/# summary: /'
if [ "$t_failed" = 0 ]; then rm -rf "$out"; else echo "# the images, consoles and results are kept in $out"; fi
t_done

#!/bin/sh
# tests/cross/appliance.sh BUILDDIR -- the root-free appliance of another
# architecture's build (make ARCH=arm64 or armhf: BUILDDIR/arch), booted
# on Debian's kernel for it in QEMU's virt machine (TCG): what make demo
# shows there, asserted with exact values, as tests/qemu/test_appliance.sh
# does on x86.  The demo image (rootfs/ + rootfs/demo/), as an initramfs
# and as an ext4 disk (stage 1 with rootfs/arch/arm/'s module list), both
# booted at once, with /test over it:
#
#   the probe and guest_tool, for the records of the demo runner
#   wide       a service with ids that 16 bits cannot hold (uid 100000,
#              gid 100001, groups 29 and 100002) and cap_net_bind_service:
#              its live ids, and capctl verify on them
#   refused    a directory that does not exist (which capctl explain does
#              not predict: the image builds), not enabled: capinit, PID 1
#              on the real kernel, reports the failed stage from its vfork
#              child (what qemu-user cannot carry: tests/cross/qemu-user.skip)
#   archcheck  a legacy-root oneshot before the demo runner: /proc/PID/cmdline
#              of httpd, the wide service's ids, capexec with them; starts
#              refused, records its failure, stops it again (the demo
#              runner waits for a capctl status with nothing failed)
#
# Needs root (the image builder).  Each boot is killed after RUN_TIMEOUT
# (600: TCG on a loaded machine) s.
B=${1:?usage: tests/cross/appliance.sh BUILDDIR}
. tests/lib.sh
arch=$(cat "$B/arch" 2>/dev/null)
case $arch in
  arm64|armhf) ;;
  *) echo "Bail out! $B/arch names no architecture this test boots (arm64, armhf)"; exit 1 ;;
esac
for f in bin/capinit tests/probe tests/qemu_tool rootfs/pinger rootfs/netup rootfs/lockdown debs/busybox-static/bin/busybox; do
  [ -x "$B/$f" ] || { echo "Bail out! $B/$f is missing (make ARCH=$arch check builds it)"; exit 1; }
done
summary=
mkdir -p "$B/qemu"
out=$(mktemp -d "$B/qemu/run.XXXXXX")
out=$(cd "$out" && pwd)
T=$out/tmp
mkdir -p "$T"
ms() { date +%s%3N; }
t_start=$(ms)

# ---------------------------------------------------------------- the overlay
O=$T/test
mkdir -p "$O/test" "$O/etc/capinit/services"
cp "$B/tests/probe" "$O/test/probe"
cp "$B/tests/qemu_tool" "$O/test/tool"
cat > "$O/etc/capinit/services/wide.svc" <<'EOF'
description = ids beyond 16 bits (tests/cross/appliance.sh)
command = /bin/busybox sleep 600
user = 100000
group = 100001
groups = 29,100002
mode = noroot
capabilities = net_bind_service
no-new-privileges = yes
EOF
cat > "$O/etc/capinit/services/refused.svc" <<'EOF'
description = a directory that does not exist (tests/cross/appliance.sh)
command = /bin/busybox sleep 600
directory = /no/such/dir
enabled = no
EOF
cat > "$O/etc/capinit/services/archcheck.svc" <<'EOF'
description = what qemu-user cannot show, from the real kernel (tests/cross/appliance.sh)
type = oneshot
command = /bin/busybox sh /test/archcheck.sh
after = httpd wide
log = console
EOF
cat > "$O/test/archcheck.sh" <<'EOF'
#!/bin/busybox sh
# one line each on the console, through capinit: "archcheck: KEY VALUE"
export PATH=/sbin:/usr/sbin:/bin:/usr/bin
pid() { capctl status --json "$1" | sed -n 's/^ *"pid": \([0-9]*\),$/\1/p'; }
status() { awk -v k="$2:" '$1 == k { $1 = ""; sub(/^ /, ""); gsub(/\t/, " "); print }' "/proc/$1/status"; }
h=$(pid httpd)
w=$(pid wide)
echo "cmdline httpd $(tr '\0' ' ' < "/proc/$h/cmdline")"
echo "ids wide $(status "$w" Uid) / $(status "$w" Gid) / $(status "$w" Groups)"
echo "caps wide $(status "$w" CapEff) $(status "$w" CapAmb)"
field() { capctl status --json "$1" | sed -n "s/^ *\"$2\": \"\\(.*\\)\",\$/\\1/p"; }
capctl start refused >/dev/null 2>&1
i=0
while [ "$(field refused state)" != failed ] && [ $i -lt 100 ]; do sleep 0.1; i=$((i + 1)); done
echo "refused $(field refused state): $(field refused failure)"
capctl stop refused >/dev/null 2>&1
echo "capexec $(capexec -k user=100000 -k group=100001 -k groups=29,100002 -- /test/probe 2>&1 | tr -d ' \n')"
EOF
# the demo runner waits for archcheck: it powers off at its end
sed 's/^after = \(.*\)$/after = \1 archcheck/' rootfs/demo/etc/capinit/services/demo.svc \
  > "$O/etc/capinit/services/demo.svc"
grep -q '^after = .* archcheck$' "$O/etc/capinit/services/demo.svc" ||
  { echo "Bail out! rootfs/demo's demo.svc has no 'after' line to extend"; exit 1; }

# ---------------------------------------------------------------- images
for f in cpio ext4; do
  sh rootfs/build.sh -f $f -o rootfs/demo -o "$O" -m dummy "$B" "$out/$f" >"$T/build-$f.out" 2>&1
  st=$?
  t_ok $st "image: the $arch $f demo image is built (rootfs/build.sh, its programs run by qemu-user)"
  [ $st = 0 ] || sed 's/^/#   /' "$T/build-$f.out"
done
rep=$out/cpio/report.txt
t_eq "$(sed -n 's/^architecture: //p' "$rep")" "$arch (its programs ran here under qemu-$(case $arch in arm64) echo aarch64 ;; *) echo arm ;; esac)-static)" \
  "report.txt: the architecture, and how its capctl ran here"
grep -q '^  httpd     uid 80    noroot nnp yes  permitted: cap_net_bind_service$' "$rep"
t_ok $? "report.txt: httpd predicted as uid 80, noroot, nnp, cap_net_bind_service only ($arch capctl explain)"
grep -q '^  wide      uid 100000 noroot nnp yes  permitted: cap_net_bind_service$' "$rep"
t_ok $? "report.txt: wide predicted as uid 100000, noroot, nnp, cap_net_bind_service"
nomod=$(sed -n 's/.*without the kernel modules \([0-9]*\) bytes.*/\1/p' "$rep")
[ -n "$nomod" ] && [ "$nomod" -le 3145728 ]
t_ok $? "image: the compressed initramfs without kernel modules is at most 3 MB (${nomod:-?} bytes)"
summary="${summary}$arch image: initramfs.cpio.gz $(stat -c %s "$out/cpio/initramfs.cpio.gz" 2>/dev/null) bytes ($nomod without modules); rootfs.ext4 $(stat -c %s "$out/ext4/rootfs.ext4" 2>/dev/null) bytes + stage1.cpio.gz $(stat -c %s "$out/ext4/stage1.cpio.gz" 2>/dev/null) bytes
"
t_images=$(ms)

# ---------------------------------------------------------------- boots
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

check_boot() { # FORMAT ROOTFSTYPE ROOT-MODE
  f=$1
  dir=$out/$f/run
  con=$dir/console.txt
  res=$dir/results.txt
  eval "rc=\$rc_$f"
  line=$(cat "$T/run-$f.line")
  t_eq "$rc $(echo "$line" | sed -n 's/^run: \(end=[a-z]* qemu_rc=[0-9]*\).*/\1/p')" "0 end=exit qemu_rc=0" \
    "$arch $f: QEMU exited 0 by itself ($line)"
  tr -d '\r' < "$res" > "$res.txt" 2>/dev/null
  res=$res.txt
  grep -qx DONE "$res"
  st=$?
  t_ok $st "$arch $f: the demo runner wrote DONE"
  [ $st = 0 ] || tail -n 20 "$con" 2>/dev/null | sed 's/^/#   console: /'
  rec() { sed -n "s|^$1 ||p" "$res" | head -n 1; }
  has() { grep -Eq "$2" "$con"; t_ok $? "$arch $f: $1"; }
  chk() { sed -n "s|^archcheck: $1 ||p" "$con" | head -n 1; }

  has "the kernel is Debian's for $arch" "^capinit: kernel [0-9.]+-[0-9]+-$(case $arch in arm64) echo arm64 ;; *) echo armmp ;; esac): securebits yes, ambient capabilities yes, last capability 40$"
  has "capinit loaded the 6 modules of rootfs/arch/arm's /etc/capinit/modules" '^capinit: modules: 6 of 6 loaded$'
  has "the filecaps manifest holds (set at boot, or verified on the read-only disk)" \
    '^capinit: filecaps: 1 of 1 files as the manifest says$'
  has "all 11 services ready (capinit's clock)" '^capinit: all 11 services ready [0-9]+ ms after capinit started$'
  for s in syslogd lockdown net httpd pinger console sandbox open demo wide archcheck; do
    t_eq "$(rec "svc $s" | cut -d' ' -f1)" up "$arch $f: $s is up"
  done
  t_eq "$(rec "svc refused" | cut -d' ' -f1)" down "$arch $f: refused, stopped again by archcheck, is down"
  # UID GID INH PRM EFF BND AMB NNP, from /proc/PID/status
  t_eq "$(rec "creds console")" "0 0 $Z $Z $Z $Z $Z 1" "$arch $f: console: uid 0, no capability in any set, empty bounding set, nnp"
  t_eq "$(rec "creds httpd")" "80 80 $B10 $B10 $B10 $B10 $B10 1" "$arch $f: httpd: uid 80 (www), cap_net_bind_service in every set, nnp"
  t_eq "$(rec "creds pinger")" "81 81 $Z $B13 $B13 $B13 $Z 0" \
    "$arch $f: pinger: uid 81 (ping), cap_net_raw permitted and effective from its file, not ambient, bounding net_raw"
  t_eq "$(rec "creds syslogd")" "0 0 $Z $FULL $FULL $FULL $Z 0" "$arch $f: syslogd: legacy root, full root (the declared exception)"
  t_eq "$(rec "creds demo")" "0 0 $Z $FULL $FULL $FULL $Z 0" "$arch $f: demo runner: legacy root"
  t_eq "$(rec "creds wide")" "100000 100001 $B10 $B10 $B10 $B10 $B10 1" \
    "$arch $f: wide: uid 100000, gid 100001, cap_net_bind_service in every set, nnp"
  t_eq "$(rec "oneshot net")" "$B12" "$arch $f: net (oneshot) ran with cap_net_admin only (CapEff it logged)"
  t_eq "$(rec "oneshot lockdown")" "$B21" "$arch $f: lockdown (oneshot) ran with cap_sys_admin only"
  t_eq "$(rec "console self")" "0  $Z $Z $Z" "$arch $f: the console shell's own /proc/self/status: uid 0, CapPrm CapEff CapBnd empty"
  probe=$(rec "console probe")
  t_eq "$(echo "$probe" | sed -n 's/.*"securebits":\([0-9]*\).*/\1/p') $(echo "$probe" | sed -n 's/.*"no_new_privs":\([a-z]*\).*/\1/p')" \
    "47 true" "$arch $f: a command of the console shell: securebits 0x2f (locked noroot tree), no_new_privs"

  t_eq "$(rec http)" "hello from busybox httpd, user www, capability cap_net_bind_service only" \
    "$arch $f: httpd (www) serves port 80: wget http://127.0.0.1/ in the guest"
  echo "$(rec pinger-log)" | grep -Eq '^reply from 10\.0\.2\.2: seq=[0-9]+ ttl=[0-9]+ time=[0-9]+\.[0-9]{3} ms$'
  t_ok $? "$arch $f: pinger's log: a reply from the gateway ($(rec pinger-log))"
  t_eq "$(rec pinger-copy)" "111 pinger: fatal: unable to open a raw ICMP socket: Operation not permitted (it needs cap_net_raw)" \
    "$arch $f: pinger's spec on a copy without the file capability: no raw socket"

  t_eq "$(rec "console mount")" "1 mount: permission denied (are you root?)" "$arch $f: console: mount is refused"
  t_eq "$(rec "control mount")" 0 "$arch $f: control: the same mount works from legacy root"
  t_eq "$(rec "console insmod")" \
    "1 insmod: can't insert '/lib/modules/$(sed -n 's/^kernel: .* (\(.*\))$/\1/p' "$out/$f/report.txt")/kernel/drivers/net/dummy.ko': Operation not permitted" \
    "$arch $f: console: insmod is refused"
  t_eq "$(rec "control insmod")" "0 yes" "$arch $f: control: the same insmod works from legacy root (/sys/module/dummy)"
  t_eq "$(rec "console bind80")" "1 nc: bind: Permission denied" "$arch $f: console: binding port 80 is refused"
  t_eq "$(rec "console pinger")" "126 /usr/sbin/pinger: Operation not permitted" \
    "$arch $f: console: pinger's +ep file capability is outside its bounding set: execve fails (F5)"
  t_eq "$(rec "console etc")" "1 sh: can't create /etc/capinit/services/httpd.svc: Read-only file system" \
    "$arch $f: console: root's files are read-only (its container)"
  t_eq "$(rec "console sysctl")" "1 sh: can't create /proc/sys/kernel/core_pattern: Read-only file system" \
    "$arch $f: console: /proc/sys is read-only (lockdown)"
  # (or that number is one of the console's own processes there, not httpd)
  echo "$(rec "console kill")" | grep -Eq "^1 sh: can't kill pid [0-9]+: No such process$|^2 pid [0-9]+ is this namespace's own \((sh|awk|sed|cat|capctl|busybox|sleep)\): httpd is not in it$"
  t_ok $? "$arch $f: console: cannot even reach httpd's pid (its own PID namespace)"
  t_eq "$(rec "console stop")" "1 capctl: error: permission denied: only root may change services" \
    "$arch $f: console: capctl stop httpd is refused (its power-group may power off, reboot, halt, and no more)"

  t_eq "$(rec verify)" "0 " "$arch $f: capctl verify: every running service (wide too) matches its prediction"
  t_eq "$(rec setid)" none "$arch $f: no set-user-ID or set-group-ID file in the image"
  t_eq "$(rec "xattr /usr/sbin/pinger")" 0100000200200000000000000000000000000000 \
    "$arch $f: /usr/sbin/pinger has security.capability revision 2, cap_net_raw+ep"
  t_eq "$(rec "xattr /bin/busybox")" none "$arch $f: busybox has no file capability"
  t_eq "$(rec rootmount)" "$2 $3" "$arch $f: the root is $2, $3"
  t_eq "$(rec procsys)" ro "$arch $f: /proc/sys is read-only"
  t_eq "$(rec sysfs)" ro,nosuid,nodev,noexec,relatime "$arch $f: /sys is read-only, nosuid, nodev, noexec (the fstab's line for it)"

  # what qemu-user cannot carry, on the real kernel
  t_eq "$(chk "cmdline httpd")" "/bin/busybox httpd -f -p 80 -h /srv/www " \
    "$arch $f: /proc/PID/cmdline of httpd is its command"
  t_eq "$(chk "ids wide")" "100000 100000 100000 100000 / 100001 100001 100001 100001 / 29 100002" \
    "$arch $f: wide's Uid, Gid and Groups in /proc: ids beyond 16 bits, exactly"
  t_eq "$(chk "caps wide")" "$B10 $B10" "$arch $f: wide's CapEff and CapAmb: cap_net_bind_service"
  has "capinit reports the failed stage from the child (vfork on the real kernel)" \
    '^capinit: service refused: fatal: start failed at stage directory: unable to change directory to /no/such/dir: No such file or directory$'
  t_eq "$(chk refused)" "failed: stage directory: unable to change directory to /no/such/dir: No such file or directory" \
    "$arch $f: capctl status: refused failed, at stage directory, with the errno"
  c=$(chk capexec)
  t_eq "$(echo "$c" | sed -n 's/.*"uid":\([0-9]*\),"euid":\([0-9]*\),"suid":\([0-9]*\),"gid":\([0-9]*\),"egid":\([0-9]*\),"sgid":\([0-9]*\),"groups":\(\[[0-9,]*\]\).*/\1 \2 \3 \4 \5 \6 \7/p')" \
    "100000 100000 100000 100001 100001 100001 [29,100002]" \
    "$arch $f: capexec with the wide ids: the probe (its system calls = /proc/self/status) sees exactly them"

  # the shutdown
  has "capctl poweroff from the demo" '^capinit: capctl poweroff: stopping every service$'
  at() { grep -nF "$1" "$con" | head -n 1 | cut -d: -f1; }
  a=$(at "service httpd: stopped")
  b=$(at "service net: stopping (stop-command)")
  [ -n "$a" ] && [ -n "$b" ] && [ "$a" -lt "$b" ]
  t_ok $? "$arch $f: httpd (depends net) stopped before net's stop-command"
  t_eq "$(grep '^capinit: ' "$con" | tail -n 1)" "capinit: power off" "$arch $f: capinit's last word is 'power off'"
  has "the kernel powered down (PSCI)" 'reboot: Power down$'
  if [ "$f" = ext4 ]; then
    has "stage 1 loaded rootfs/arch/arm's modules, mounted the disk read-only and switched to capinit" \
      '^stage1: /dev/vda \(ext4\) mounted read-only: switch_root to capinit$'
  fi

  ready=$(sed -n 's/^capinit: all [0-9]* services ready \([0-9]*\) ms after capinit started$/\1/p' "$con" | head -n 1)
  wall=$(echo "$line" | sed -n 's/.* wall_ms=\([0-9]*\).*/\1/p')
  summary="$summary$arch $f: boot-to-ready ${ready:-?} ms (capinit's clock, 9 services), QEMU wall $(awk -v w="${wall:-0}" 'BEGIN { printf "%.1f", w / 1000 }') s (two boots at once)
"
}
check_boot cpio rootfs rw
check_boot ext4 ext4 ro

summary="${summary}time: two images $(( (t_images - t_start) / 1000 )) s, two boots and checks $(( ($(ms) - t_images) / 1000 )) s
"
printf '%s' "$summary" | sed 's/^/# summary: /'
if [ "$t_failed" = 0 ]; then rm -rf "$out"; else echo "# the images, consoles and results are kept in $out"; fi
t_done

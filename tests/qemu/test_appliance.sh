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
#              the read-only root; issue 34's attacks from sandbox (a
#              user namespace, the machine's /dev: disks, /dev/kmsg, the
#              console, ttys, files in /dev and /dev/shm; a set-user-ID
#              file) refused, with open and the runner as the controls;
#              then capctl poweroff, QEMU's exit 0,
#              the shutdown order
#
# Needs root (the builder sets file capabilities and chroots).  About
# 25 s: two boots at once, each killed after RUN_TIMEOUT (600) s (a bound
# only a hung boot reaches: TCG on a loaded machine is slow).
B=${1:-build}
. tests/lib.sh
AP=
. tests/appliance_lib.sh

for f in "$B/tests/probe" "$B/tests/qemu_tool" "$B/rootfs/pinger" "$B/rootfs/netup" "$B/rootfs/lockdown" "$B/bin/capinit"; do
  [ -x "$f" ] || { echo "Bail out! $f is missing (make check builds it)"; exit 1; }
done

app_init
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
app_images "$T/test" ""
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
t_eq "$(stat -c %s "$out/cpio/initramfs.cpio.gz" 2>/dev/null | awk '{ print ($1 > 0) }')" 1 "image: initramfs.cpio.gz written"
grep -q '^rootfs.ext4: [0-9]* bytes' "$out/ext4/report.txt"
t_ok $? "report.txt (ext4): the image sizes"

# ---------------------------------------------------------------- boots
app_boot

check_boot() { # FORMAT ROOTFSTYPE OPEN-WRITES-/ ROOT-MODE BLOCK-DEVICES DISK-READ
  app_ran "$1"
  has "capinit loaded the 9 modules of /etc/capinit/modules" '^capinit: modules: 9 of 9 loaded$'
  has "all 9 services ready (capinit's clock)" '^capinit: all 9 services ready [0-9]+ ms after capinit started$'
  for s in syslogd lockdown net httpd pinger console sandbox open demo; do
    t_eq "$(rec "svc $s" | cut -d' ' -f1)" up "$f: $s is up"
  done
  app_common "$1" "$2" "$4"
  echo "$(rec pinger-same-spec)" | grep -Eq '^0 reply from 10\.0\.2\.2: seq=1 '
  t_ok $? "$f: pinger's spec through capexec on its own file: a reply ($(rec pinger-same-spec))"

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

  # issue 34: what a contained service could reach without a capability
  # (sandbox: a root directory, so a /dev of its own), with the control
  # open (no container: the machine's /dev; allow-suid) or, for a user
  # namespace, the demo runner (legacy root); the machine's side from the
  # runner: the kernel log, /dev, /dev/shm
  t_eq "$(rec "inside sandbox userns:") $(rec "inside open userns:")" "Operation not permitted Operation not permitted" \
    "$f: sandbox: unshare -U refused (its filter); open too (the filter of a noroot uid 0, and lockdown's unprivileged_userns_clone = 0)"
  t_eq "$(rec "control userns")" 0 "$f: control: the same unshare -U works from the demo runner (legacy root)"
  t_eq "$(rec "inside sandbox dev:")" "fd full mqueue null ptmx pts random shm stderr stdin stdout tty urandom zero " \
    "$f: sandbox: its /dev is its own: null, zero, full, random, urandom, tty, pts, shm, mqueue (private-ipc), the links"
  t_eq "$(rec "inside sandbox block devices:")|$(rec "inside sandbox disk read:")|$(rec "inside sandbox ttys:")|$(rec "inside sandbox kmsg:")|$(rec "inside sandbox console:")" \
    "|none|0|No such file or directory|No such file or directory" "$f: sandbox: no block device, no tty but its own, no /dev/kmsg, no console"
  mblock=$(rec "machine block")
  t_eq "$mblock" "$5" "$f: the machine's block devices: ${5:-none}"
  t_eq "$(rec "inside open block devices:")|$(rec "inside open disk read:")|$(rec "inside open ttys:")|$(rec "inside open kmsg:")|$(rec "inside open console:")" \
    "$mblock|$6|$(rec "machine ttys")|character special file|character special file" \
    "$f: control: open sees the machine's block devices${5:+ and reads ${5% }}, its $(rec "machine ttys") ttys, /dev/kmsg, the console"
  t_eq "$(rec "inside sandbox kmsg write:") $(rec "inside sandbox dev create:") $(rec "inside sandbox shm create:")" "ok ok ok" \
    "$f: sandbox: its writes to /dev/kmsg, /dev and /dev/shm land in its own /dev"
  t_eq "$(rec "inside open kmsg write:") $(rec "inside open dev create:") $(rec "inside open shm create:")" "ok ok ok" \
    "$f: control: open writes /dev/kmsg, /dev and /dev/shm"
  t_eq "$(rec "machine kmsg")|$(rec "machine dev")|$(rec "machine shm")" "0 1|demo-open |demo-open " \
    "$f: the machine's kernel log, /dev and /dev/shm have open's line and files, none of sandbox's"
  t_eq "$(rec "inside sandbox suid:")" "Operation not permitted, mode 644" "$f: sandbox: chmod 4755 of its file in /tmp refused (its filter)"
  t_eq "$(rec "inside open suid:")" "ok, mode 4755" "$f: control: open (allow-suid = yes) makes it set-user-ID"

  # the shutdown
  app_shutdown "$1"
  a=$(at "service console: stopped")
  [ -n "$a" ] && [ "$a" -lt "$(at "capinit: every service is down")" ]
  t_ok $? "$f: the console shell stopped (SIGHUP) before the end"
  if [ "$f" = ext4 ]; then
    has "stage 1 mounted the disk read-only and switched to capinit" \
      '^stage1: /dev/vda \(ext4\) mounted read-only: switch_root to capinit$'
  fi
  app_ready "$1" ""
}
# the initramfs root is writable (the contained services' trees are not);
# the disk image is read-only as a whole
# (the disk image's boot has one block device, the disk: open reads its
# first 512 bytes; the initramfs's has none)
check_boot cpio rootfs ok rw "" none
check_boot ext4 ext4 "Read-only file system" ro "/dev/vda " 512

app_end "builder refusals $(( (t_builder - t_start) / 1000 )) s, "

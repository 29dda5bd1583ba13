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
AP="$arch "
. tests/appliance_lib.sh
app_init

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
app_images "$O" " (rootfs/build.sh, its programs run by qemu-user)"
t_eq "$(sed -n 's/^architecture: //p' "$rep")" "$arch (its programs ran here under qemu-$(case $arch in arm64) echo aarch64 ;; *) echo arm ;; esac)-static)" \
  "report.txt: the architecture, and how its capctl ran here"
grep -q '^  httpd     uid 80    noroot nnp yes  permitted: cap_net_bind_service$' "$rep"
t_ok $? "report.txt: httpd predicted as uid 80, noroot, nnp, cap_net_bind_service only ($arch capctl explain)"
grep -q '^  wide      uid 100000 noroot nnp yes  permitted: cap_net_bind_service$' "$rep"
t_ok $? "report.txt: wide predicted as uid 100000, noroot, nnp, cap_net_bind_service"

# ---------------------------------------------------------------- boots
app_boot

check_boot() { # FORMAT ROOTFSTYPE ROOT-MODE
  app_ran "$1"
  chk() { sed -n "s|^archcheck: $1 ||p" "$con" | head -n 1; }
  has "the kernel is Debian's for $arch" "^capinit: kernel [0-9.]+-[0-9]+-$(case $arch in arm64) echo arm64 ;; *) echo armmp ;; esac): securebits yes, ambient capabilities yes, last capability 40$"
  has "capinit loaded the 7 modules of rootfs/arch/arm's /etc/capinit/modules" '^capinit: modules: 7 of 7 loaded$'
  has "all 11 services ready (capinit's clock)" '^capinit: all 11 services ready [0-9]+ ms after capinit started$'
  for s in syslogd lockdown net httpd pinger console sandbox open demo wide archcheck; do
    t_eq "$(rec "svc $s" | cut -d' ' -f1)" up "$arch $f: $s is up"
  done
  t_eq "$(rec "svc refused" | cut -d' ' -f1)" down "$arch $f: refused, stopped again by archcheck, is down"
  app_common "$1" "$2" "$3"
  t_eq "$(rec "creds wide")" "100000 100001 $B10 $B10 $B10 $B10 $B10 1" \
    "$arch $f: wide: uid 100000, gid 100001, cap_net_bind_service in every set, nnp"

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
  app_shutdown "$1"
  if [ "$f" = ext4 ]; then
    has "stage 1 loaded rootfs/arch/arm's modules, mounted the disk read-only and switched to capinit" \
      '^stage1: /dev/vda \(ext4\) mounted read-only: switch_root to capinit$'
  fi
  app_ready "$1" ""
}
check_boot cpio rootfs rw
check_boot ext4 ext4 ro

app_end ""

#!/bin/sh
# rootfs/debian/qemu.sh boot|run BUILDDIR [OUTDIR] -- boot the Debian image
# (make debian: BUILDDIR/debian/) in QEMU: TCG (KVM does not work on these
# machines), 2 CPUs, 1 GiB, the disk on virtio, read-write, Debian's
# kernel and initrd, and QEMU's user network with restrict=on: the guest
# reaches nothing outside QEMU; four host ports reach its ssh, smtp, nginx
# and apache2 (below: where each lands depends on the init).
#
#   boot   interactive: the serial console is this terminal (Ctrl-A X
#          quits QEMU), ports 127.0.0.1:2222, 2525 and 8080
#   run    for the tests and make bench: QEMU in the foreground without a
#          terminal, the console in OUTDIR/console.log, QEMU's own
#          messages in OUTDIR/qemu.err; exits with QEMU
#
# Environment:
#   DEBIAN_INIT=capinit|systemd   the init: capinit (init=/usr/sbin/capinit on
#                the kernel's command line, the default) or systemd (no
#                init=: the image's /sbin/init)
#   DEBIAN_DISK=FILE   the root disk (BUILDDIR/debian/disk.ext4)
#   DEBIAN_PORTS="SSH SMTP HTTP [APACHE]"   the host ports (2222 2525 8080
#                8081; without a fourth, apache2 is not forwarded)
#   DEBIAN_KERNEL=vmlinux|vmlinuz  vmlinux (the default, when the build
#                made it) is the same kernel uncompressed, booted through
#                PVH, which saves the bzImage's decompression under TCG
#   DEBIAN_APPEND="..."  more kernel command line
#   DEBIAN_CMDLINE="..."  the whole kernel command line instead, the init
#                too (the tests boot the arguments of GRUB's capinit entry)
set -eu
[ $# -ge 2 ] || { echo "usage: rootfs/debian/qemu.sh boot|run BUILDDIR [OUTDIR]" >&2; exit 100; }
mode=$1
D=$2/debian
out=${3:-$D/run}
die() { echo "rootfs/debian/qemu.sh: fatal: $*" >&2; exit 111; }

disk=${DEBIAN_DISK:-$D/disk.ext4}
[ -f "$disk" ] || die "no disk $disk (make debian)"
[ -f "$D/initrd.img" ] || die "no $D/initrd.img (make debian)"
kernel=$D/vmlinuz
if [ "${DEBIAN_KERNEL:-vmlinux}" = vmlinux ] && [ -s "$D/vmlinux" ]; then kernel=$D/vmlinux; fi
[ -f "$kernel" ] || die "no kernel $kernel (make debian)"
command -v qemu-system-x86_64 >/dev/null || die "qemu-system-x86_64 is missing (make debian installs it)"
set -- ${DEBIAN_PORTS:-2222 2525 8080 8081}
[ $# = 3 ] || [ $# = 4 ] || die "DEBIAN_PORTS needs three or four ports (ssh, smtp, http[, apache2])"

# Where each forwarded port lands in the guest depends on the init.
#   capinit: postfix and apache2 have network cards of their own
#            (postfix.svc, apache2.svc: macvlan on eth0), with their own
#            addresses; sshd and nginx are on the guest's own, 10.0.2.15
#            (QEMU's default target, left empty below).
#   systemd: every daemon is on the guest's own address, as Debian's
#            units run them; apache2 on port 81 there, since nginx has
#            80 (ports.conf, rootfs/debian/configure.sh).
case ${DEBIAN_INIT:-capinit} in
  capinit) smtp_to=10.0.2.25:25 apache_to=10.0.2.80:80 ;;
  systemd) smtp_to=:25 apache_to=:81 ;;
  *) die "DEBIAN_INIT must be capinit or systemd" ;;
esac
fwd="hostfwd=tcp:127.0.0.1:$1-:22,hostfwd=tcp:127.0.0.1:$2-$smtp_to,hostfwd=tcp:127.0.0.1:$3-:80"
ports="ssh 127.0.0.1:$1, smtp 127.0.0.1:$2, http 127.0.0.1:$3"
if [ $# = 4 ]; then
  fwd="$fwd,hostfwd=tcp:127.0.0.1:$4-$apache_to"
  ports="$ports, apache2 127.0.0.1:$4"
fi
ssh_port=$1

append="root=/dev/vda rw console=ttyS0 net.ifnames=0 quiet no_timer_check panic=-1"
[ "${DEBIAN_INIT:-capinit}" = systemd ] || append="$append init=/usr/sbin/capinit"
[ -z "${DEBIAN_APPEND:-}" ] || append="$append $DEBIAN_APPEND"
[ -z "${DEBIAN_CMDLINE:-}" ] || append=$DEBIAN_CMDLINE

set -- -accel tcg -smp 2 -m 1024 -nodefaults -no-user-config -no-reboot \
  -kernel "$kernel" -initrd "$D/initrd.img" -append "$append" \
  -drive "file=$disk,format=raw,if=virtio" \
  -netdev "user,id=net0,restrict=on,$fwd" -device virtio-net-pci,netdev=net0,romfile=

case $mode in
  boot)
    echo "rootfs/debian/qemu.sh: booting Debian 12 with ${DEBIAN_INIT:-capinit} (QEMU, TCG: about a minute)."
    echo "  The serial console is this terminal: log in as root (no password on the console)."
    echo "  From this machine: $ports (ssh -p $ssh_port root@127.0.0.1 with the key of DEBIAN_SSH_KEY)."
    echo "  Leave QEMU with Ctrl-A X, or power the guest off (capctl poweroff under capinit)."
    echo
    exec qemu-system-x86_64 "$@" -nographic -serial mon:stdio
    ;;
  run)
    mkdir -p "$out"
    : > "$out/console.log"
    exec qemu-system-x86_64 "$@" -display none -serial "file:$out/console.log" 2>"$out/qemu.err"
    ;;
  *) die "unknown mode $mode (boot or run)" ;;
esac

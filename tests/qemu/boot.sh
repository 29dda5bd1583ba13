#!/bin/sh
# tests/qemu/boot.sh BUILDDIR SCENARIO -- build the scenario's initramfs
# and boot it with Debian's stock kernel in QEMU (TCG, never KVM):
#   qemu-system-x86_64 -accel tcg -m 256 -display none -no-reboot
#     -serial file:console.log -serial file:results.txt -kernel KERNEL
#     -initrd initramfs.cpio.gz -append "console=ttyS0 quiet panic=-1"
# where KERNEL is the package's vmlinuz uncompressed (booted through PVH;
# BOOT_KERNEL=vmlinuz boots the vmlinuz itself, 5 to 10 s slower), with a
# wall-clock limit (BOOT_TIMEOUT seconds, 300 by default, far above the
# 5 to 20 s a boot takes: TCG on a loaded machine is slower, and the limit
# only costs time when a boot hangs; then QEMU is killed).  The guest's console goes to BUILDDIR/qemu/SCENARIO/console.log,
# its second serial port (/dev/ttyS1: the test results) to results.txt,
# and console.txt is console.log without the tty's carriage returns.
#
# A halted guest leaves QEMU running: when the console shows the kernel's
# "System halted", QEMU is killed and the boot counts as halted.  The
# kernel's choice and the QEMU run are rootfs/qemu_common.sh's, shared with
# rootfs/qemu.sh.
#
# QEMU_OUT=DIR puts the files in DIR instead (the test suite gives every
# run its own directory: several `make check` may run at once).
#
# Prints one line:
#   boot SCENARIO: end=exit|halted|timeout qemu_rc=N wall_ms=N kernel=FILE
# and exits 0 when QEMU exited by itself or the guest halted, 1 on a
# timeout, 111 when it could not start.
set -eu
B=$1
scenario=$2
limit=${BOOT_TIMEOUT:-300}
here=$(dirname "$0")
dir=${QEMU_OUT:-$B/qemu/$scenario}
mkdir -p "$dir"

. "$here/../../rootfs/qemu_common.sh"
[ -s "$B/debs/linux-image.name" ] || sh "$here/kernel.sh" "$B"
qemu_kernel "$B" 2>"$dir/kernel.err" || { sed 's/^/boot.sh: fatal: /' "$dir/kernel.err" >&2; exit 111; }
sh "$here/mkinitramfs.sh" "$B" "$scenario" "$dir/initramfs.cpio.gz"

qemu_watch "$dir" "$limit" 1 -net none -kernel "$kernel" -initrd "$dir/initramfs.cpio.gz" \
  -append "console=ttyS0 quiet panic=-1 no_timer_check"
echo "boot $scenario: end=$end qemu_rc=$rc wall_ms=$wall kernel=${kernel##*/}"
# (QEMU says it was terminated when the harness stops a halted guest)
if [ -s "$dir/qemu.err" ]; then
  grep -v 'terminating on signal 15' "$dir/qemu.err" | sed 's/^/# qemu: /' || true
fi
[ "$end" != timeout ]

#!/bin/sh
# tests/qemu/boot.sh BUILDDIR SCENARIO -- build the scenario's initramfs
# and boot it with Debian's stock kernel in QEMU (TCG, never KVM):
#   qemu-system-x86_64 -accel tcg -m 256 -display none -no-reboot
#     -serial file:console.log -serial file:results.txt -kernel KERNEL
#     -initrd initramfs.cpio.gz -append "console=ttyS0 quiet panic=-1"
# where KERNEL is the package's vmlinuz uncompressed (booted through PVH;
# BOOT_KERNEL=vmlinuz boots the vmlinuz itself, 5 to 10 s slower), with a
# wall-clock limit (BOOT_TIMEOUT seconds, 30 by default; then QEMU is
# killed).  The guest's console goes to BUILDDIR/qemu/SCENARIO/console.log,
# its second serial port (/dev/ttyS1: the test results) to results.txt,
# and console.txt is console.log without the tty's carriage returns.
#
# A halted guest leaves QEMU running: when the console shows the kernel's
# "System halted", QEMU is killed and the boot counts as halted.
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
limit=${BOOT_TIMEOUT:-30}
here=$(dirname "$0")
dir=${QEMU_OUT:-$B/qemu/$scenario}
mkdir -p "$dir"
rm -f "$dir/console.log" "$dir/results.txt" "$dir/qemu.err"

pkg=$(cat "$B/debs/linux-image.name" 2>/dev/null) || { sh "$here/kernel.sh" "$B"; pkg=$(cat "$B/debs/linux-image.name"); }
# the package's kernel, uncompressed (tests/qemu/kernel.sh), booted through
# PVH; BOOT_KERNEL=vmlinuz boots the package's bzImage itself (5-10 s more)
kernel=$(echo "$B/debs/$pkg"/boot/vmlinuz-*)
[ -f "$kernel" ] || { echo "boot.sh: fatal: no kernel in $B/debs/$pkg" >&2; exit 111; }
vmlinux=$B/debs/$pkg/boot/vmlinux-${kernel##*/vmlinuz-}
[ "${BOOT_KERNEL:-vmlinux}" = vmlinux ] && [ -s "$vmlinux" ] && kernel=$vmlinux
sh "$here/mkinitramfs.sh" "$B" "$scenario" "$dir/initramfs.cpio.gz"

ms() { date +%s%3N; }
t0=$(ms)
qemu-system-x86_64 -accel tcg -m 256 -nodefaults -no-user-config -display none \
  -no-reboot -net none \
  -serial "file:$dir/console.log" -serial "file:$dir/results.txt" \
  -kernel "$kernel" -initrd "$dir/initramfs.cpio.gz" \
  -append "console=ttyS0 quiet panic=-1" 2>"$dir/qemu.err" &
qpid=$!
# never leave a QEMU behind, whatever stops this script
trap 'kill -KILL "$qpid" 2>/dev/null' EXIT
trap 'exit 130' INT TERM
end="exit"
while kill -0 "$qpid" 2>/dev/null; do
  if grep -q 'System halted' "$dir/console.log" 2>/dev/null; then
    end=halted
    sleep 0.2  # let the last console bytes land
    kill -TERM "$qpid" 2>/dev/null || true
    break
  fi
  if [ $(( $(ms) - t0 )) -ge $((limit * 1000)) ]; then
    end=timeout
    kill -KILL "$qpid" 2>/dev/null || true
    break
  fi
  sleep 0.1
done
rc=0
wait "$qpid" || rc=$?
trap - EXIT INT TERM
wall=$(( $(ms) - t0 ))
tr -d '\r' < "$dir/console.log" > "$dir/console.txt" 2>/dev/null || true
echo "boot $scenario: end=$end qemu_rc=$rc wall_ms=$wall kernel=${kernel##*/}"
# (QEMU says it was terminated when the harness stops a halted guest)
if [ -s "$dir/qemu.err" ]; then
  grep -v 'terminating on signal 15' "$dir/qemu.err" | sed 's/^/# qemu: /' || true
fi
[ "$end" != timeout ]

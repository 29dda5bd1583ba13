#!/bin/sh
# rootfs/qemu.sh boot|run BUILDDIR IMAGEDIR [OUTDIR] -- boot an appliance
# image built by rootfs/build.sh (IMAGEDIR/format says which) with
# Debian's stock kernel unpacked in BUILDDIR/debs (tests/qemu/kernel.sh),
# in QEMU with TCG (KVM does not work on these machines): a PC, or for
# arm64 and armhf the virt machine (rootfs/qemu_common.sh), 256 MB, and a
# virtio network card (without its iPXE boot ROM: nothing boots from the
# network) on QEMU's user network (the guest is 10.0.2.15, its gateway
# 10.0.2.2).
#
#   cpio            -initrd initramfs.cpio.gz: capinit is the kernel's /init
#   ext4, squashfs  -initrd stage1.cpio.gz and the image as a read-only
#                   virtio disk, root=/dev/vda: stage 1 switch_roots to
#                   capinit on it
#
# DATA_DISK=FILE attaches FILE (a raw disk image) as the next virtio
# disk, read-write: /dev/vdb for a disk image, /dev/vda for the initramfs
# (an /etc/fstab line mounts it; docs/appliance.md, "Add a data disk").
#
# boot: interactive.  The serial console is this terminal (QEMU's
#   mon:stdio: Ctrl-A X quits, Ctrl-A C is QEMU's monitor), and
#   127.0.0.1:${HOST_PORT:-8080} on this machine is the guest's port 80.
# run: no terminal.  The console goes to OUTDIR/console.log (console.txt
#   without carriage returns), the results port (/dev/ttyS1 in the guest;
#   /dev/ttyS0 on arm) to OUTDIR/results.txt; QEMU is killed after
#   RUN_TIMEOUT seconds (60).  OUTDIR defaults to IMAGEDIR/run.  Prints
#   one line:
#     run: end=exit|timeout qemu_rc=N wall_ms=N kernel=FILE
#   and exits 0 when QEMU exited by itself, 1 on a timeout, 111 when it
#   could not start.
set -eu
[ $# -ge 3 ] || { echo "usage: rootfs/qemu.sh boot|run BUILDDIR IMAGEDIR [OUTDIR]" >&2; exit 100; }
mode=$1
B=$2
img=$3
out=${4:-$img/run}
die() { echo "rootfs/qemu.sh: fatal: $*" >&2; exit 111; }

. "$(dirname "$0")/qemu_common.sh"
qemu_kernel "$B" 2>/dev/null || die "$(qemu_kernel "$B" 2>&1)"
format=$(cat "$img/format" 2>/dev/null) || die "no image in $img (make image)"
# user namespaces only for holders of cap_sys_admin (Debian's knob), from
# the start: /proc/sys is read-only once capinit has read /etc/fstab
append="console=$qemu_console quiet panic=-1 sysctl.kernel.unprivileged_userns_clone=0 $qemu_cmdline"
# x86's acpi=noirq: PCI interrupts routed by the BIOS's table, not by
# ACPI's interrupt links: evaluating those (the kernel's AML interpreter)
# when virtio_pci enables the network card took 300 ms of a 770 ms boot
# under TCG (capctl blame, docs/appliance.md); the card uses MSI-X anyway
[ "$qemu_console" = ttyS0 ] && append="$append acpi=noirq"
case $format in
  cpio)
    set -- -initrd "$img/initramfs.cpio.gz" ;;
  ext4|squashfs)
    set -- -initrd "$img/stage1.cpio.gz" \
      -drive "file=$img/rootfs.$format,format=raw,if=virtio,readonly=on"
    append="$append root=/dev/vda rootfstype=$format" ;;
  *) die "unknown format $format in $img/format" ;;
esac
if [ -n "${DATA_DISK:-}" ]; then
  [ -f "$DATA_DISK" ] || die "no disk image $DATA_DISK (DATA_DISK)"
  set -- "$@" -drive "file=$DATA_DISK,format=raw,if=virtio"
fi
command -v $qemu_system >/dev/null || die "$qemu_system is missing (make image installs it)"

case $mode in
  boot)
    port=${HOST_PORT:-8080}
    echo "rootfs/qemu.sh: booting the $format appliance (QEMU, TCG: a few seconds)."
    echo "  The console shell is this terminal: uid 0 without power; try the commands it shows."
    echo "  http://127.0.0.1:$port/ on this machine is port 80 of httpd's own card in the guest (10.0.2.16)."
    echo "  Leave QEMU with Ctrl-A X (Ctrl-A C: QEMU's monitor); or type poweroff."
    echo
    # shellcheck disable=SC2086
    exec $qemu_system -accel tcg $qemu_machine -m 256 -nodefaults -no-user-config -nographic \
      -no-reboot -serial mon:stdio \
      -netdev "user,id=net0,hostfwd=tcp:127.0.0.1:$port-10.0.2.16:80" -device virtio-net-pci,netdev=net0,romfile= \
      -kernel "$kernel" "$@" -append "$append"
    ;;
  run) ;;
  *) die "unknown mode $mode (boot or run)" ;;
esac

qemu_watch "$out" "${RUN_TIMEOUT:-60}" 0 -netdev user,id=net0 -device virtio-net-pci,netdev=net0,romfile= \
  -kernel "$kernel" "$@" -append "$append"
echo "run: end=$end qemu_rc=$rc wall_ms=$wall kernel=${kernel##*/}"
[ ! -s "$out/qemu.err" ] || sed 's/^/# qemu: /' "$out/qemu.err" >&2
[ "$end" != timeout ]

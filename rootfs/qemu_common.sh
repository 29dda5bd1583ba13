# rootfs/qemu_common.sh -- sourced by rootfs/qemu.sh (make boot, make demo,
# the appliance test) and tests/qemu/boot.sh (the PID 1 tests): the one
# place where the kernel is chosen and QEMU (TCG, never KVM) is run.

# qemu_kernel BUILDDIR: sets `kernel` to Debian's stock kernel unpacked in
# BUILDDIR/debs (tests/qemu/kernel.sh).  The same kernel uncompressed
# (vmlinux), when kernel.sh made it, boots through PVH without the
# bzImage's slow decompression under TCG; BOOT_KERNEL=vmlinuz boots the
# bzImage itself.  Returns 1 with a message when there is no kernel.
#
# It also sets the machine for the build's architecture (BUILDDIR/arch,
# else this machine's): qemu_system (the QEMU program), qemu_machine (its
# machine and CPU), qemu_console (the kernel's console= device) and
# qemu_results (how the guest's results port is made: serial or
# pci-serial).  x86: a PC, the console on the first serial port (ttyS0),
# the results on the second (/dev/ttyS1).  arm64, armhf: QEMU's virt
# machine (a Cortex-A57; a Cortex-A15, without the PCIe window above 4
# GiB that a 32-bit kernel cannot reach), whose one UART is the console
# (ttyAMA0); the results go to a PCI serial port, which the guest sees as
# its first 8250 port (/dev/ttyS0).  The network card is virtio-net-pci
# on all of them.  qemu_cmdline: what the kernel's command line needs on
# this machine (x86: no_timer_check, since TCG under load can miss the
# early IO-APIC timer check and panic; a word the kernel does not know
# would be passed on to capinit as an argument).
qemu_kernel() {
  qk_arch=$(cat "$1/arch" 2>/dev/null || dpkg --print-architecture)
  case $qk_arch in
    amd64)
      qemu_system=qemu-system-x86_64 qemu_machine= qemu_console=ttyS0
      qemu_results=serial qemu_cmdline=no_timer_check ;;
    arm64)
      qemu_system=qemu-system-aarch64 qemu_machine='-M virt -cpu cortex-a57' qemu_console=ttyAMA0
      qemu_results=pci-serial qemu_cmdline= ;;
    armhf)
      qemu_system=qemu-system-arm qemu_machine='-M virt,highmem=off -cpu cortex-a15' qemu_console=ttyAMA0
      qemu_results=pci-serial qemu_cmdline= ;;
    *) echo "no QEMU machine for the architecture $qk_arch" >&2; return 1 ;;
  esac
  qk_pkg=$(cat "$1/debs/linux-image.name" 2>/dev/null) || {
    echo "no kernel: run sh tests/qemu/kernel.sh $1" >&2
    return 1
  }
  kernel=$(echo "$1/debs/$qk_pkg"/boot/vmlinuz-*)
  [ -f "$kernel" ] || { echo "no kernel in $1/debs/$qk_pkg" >&2; return 1; }
  qk_vmlinux=$1/debs/$qk_pkg/boot/vmlinux-${kernel##*/vmlinuz-}
  if [ "${BOOT_KERNEL:-vmlinux}" = vmlinux ] && [ -s "$qk_vmlinux" ]; then kernel=$qk_vmlinux; fi
}

# qemu_watch OUTDIR LIMIT HALT QEMU-ARGS...: run QEMU (qemu_kernel's
# machine) with no display, 256 MB, no reboot, the guest's console in
# OUTDIR/console.log and its results port (/dev/ttyS1 on x86) in
# OUTDIR/results.txt, plus QEMU-ARGS (kernel,
# initrd, network, command line).  QEMU is killed after LIMIT seconds
# (end=timeout) and, when HALT is 1, once the console shows the kernel's
# "System halted" (end=halted: a halted guest leaves QEMU running).  With
# QEMU_KILL_ON=TEXT, QEMU is killed (SIGKILL: the power cut) as soon as a
# line of results.txt holds TEXT (end=killed).  Sets end (exit, halted,
# killed or timeout), rc (QEMU's exit status) and wall (ms);
# writes OUTDIR/console.txt, the console without carriage returns, and
# QEMU's own messages to OUTDIR/qemu.err.  No QEMU is left behind.
qemu_watch() {
  qw_out=$1 qw_limit=$2 qw_halt=$3
  shift 3
  mkdir -p "$qw_out"
  rm -f "$qw_out/console.log" "$qw_out/console.txt" "$qw_out/results.txt" "$qw_out/qemu.err"
  : > "$qw_out/console.log"
  qw_t0=$(date +%s%3N)
  case $qemu_results in
    serial) set -- -serial "file:$qw_out/results.txt" "$@" ;;
    pci-serial) set -- -chardev "file,id=results,path=$qw_out/results.txt" -device pci-serial,chardev=results "$@" ;;
  esac
  # (qemu_machine: words without blanks, split on purpose)
  # shellcheck disable=SC2086
  $qemu_system -accel tcg $qemu_machine -m 256 -nodefaults -no-user-config -display none -no-reboot \
    -serial "file:$qw_out/console.log" "$@" 2>"$qw_out/qemu.err" &
  qw_pid=$!
  trap 'kill -KILL "$qw_pid" 2>/dev/null' EXIT
  trap 'exit 130' INT TERM
  end=exit
  while kill -0 "$qw_pid" 2>/dev/null; do
    if [ -n "${QEMU_KILL_ON:-}" ] && grep -qF "$QEMU_KILL_ON" "$qw_out/results.txt" 2>/dev/null; then
      end=killed
      kill -KILL "$qw_pid" 2>/dev/null || true
      break
    fi
    if [ "$qw_halt" = 1 ] && grep -q 'System halted' "$qw_out/console.log" 2>/dev/null; then
      end=halted
      sleep 0.2  # let the last console bytes land
      kill -TERM "$qw_pid" 2>/dev/null || true
      break
    fi
    if [ $(( $(date +%s%3N) - qw_t0 )) -ge $((qw_limit * 1000)) ]; then
      end=timeout
      kill -KILL "$qw_pid" 2>/dev/null || true
      break
    fi
    sleep 0.1
  done
  rc=0
  wait "$qw_pid" || rc=$?
  trap - EXIT INT TERM
  wall=$(( $(date +%s%3N) - qw_t0 ))
  tr -d '\r' < "$qw_out/console.log" > "$qw_out/console.txt" 2>/dev/null || true
}

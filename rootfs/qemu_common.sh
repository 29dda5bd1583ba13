# rootfs/qemu_common.sh -- sourced by rootfs/qemu.sh (make boot, make demo,
# the appliance test) and tests/qemu/boot.sh (the PID 1 tests): the one
# place where the kernel is chosen and QEMU (TCG, never KVM) is run.

# qemu_kernel BUILDDIR: sets `kernel` to Debian's stock kernel unpacked in
# BUILDDIR/debs (tests/qemu/kernel.sh).  The same kernel uncompressed
# (vmlinux), when kernel.sh made it, boots through PVH without the
# bzImage's slow decompression under TCG; BOOT_KERNEL=vmlinuz boots the
# bzImage itself.  Returns 1 with a message when there is no kernel.
qemu_kernel() {
  qk_pkg=$(cat "$1/debs/linux-image.name" 2>/dev/null) || {
    echo "no kernel: run sh tests/qemu/kernel.sh $1" >&2
    return 1
  }
  kernel=$(echo "$1/debs/$qk_pkg"/boot/vmlinuz-*)
  [ -f "$kernel" ] || { echo "no kernel in $1/debs/$qk_pkg" >&2; return 1; }
  qk_vmlinux=$1/debs/$qk_pkg/boot/vmlinux-${kernel##*/vmlinuz-}
  if [ "${BOOT_KERNEL:-vmlinux}" = vmlinux ] && [ -s "$qk_vmlinux" ]; then kernel=$qk_vmlinux; fi
}

# qemu_watch OUTDIR LIMIT HALT QEMU-ARGS...: run QEMU with no display, 256
# MB, no reboot, the guest's console in OUTDIR/console.log and its second
# serial port (/dev/ttyS1) in OUTDIR/results.txt, plus QEMU-ARGS (kernel,
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
  qemu-system-x86_64 -accel tcg -m 256 -nodefaults -no-user-config -display none -no-reboot \
    -serial "file:$qw_out/console.log" -serial "file:$qw_out/results.txt" "$@" 2>"$qw_out/qemu.err" &
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

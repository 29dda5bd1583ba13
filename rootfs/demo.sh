#!/bin/sh
# rootfs/demo.sh BUILDDIR -- make demo: build the appliance with its demo
# runner (rootfs/ + the rootfs/demo/ overlay) into BUILDDIR/appliance-demo,
# boot it in QEMU (rootfs/qemu.sh run), and show the console as it goes,
# filtered: capinit's lines (the boot and the shutdown), the demo
# runner's ("demo: ..."), the console shell's ("console: ..."); not the
# kernel's.  Exits 0 when the guest ran the whole demo and powered off.
set -eu
B=$1
img=$B/appliance-demo
run=$img/run

echo "== make demo: capinit's root-free appliance, booted in QEMU (TCG: about 15 s)"
sh rootfs/build.sh -o rootfs/demo -m dummy "$B" "$img" >"$B/appliance-demo.build.log" 2>&1 || {
  cat "$B/appliance-demo.build.log" >&2
  exit 1
}
echo "   image: $img/initramfs.cpio.gz ($(awk -v b="$(stat -c %s "$img/initramfs.cpio.gz")" 'BEGIN { printf "%.2f MB", b / 1048576 }')), the appliance and the demo runner; what each service may do: $img/report.txt"
echo "-- the boot (capinit is PID 1; the kernel's lines are hidden, the whole console is $run/console.txt)"

mkdir -p "$run"
rm -f "$run/console.log"
: > "$run/console.log"
sh rootfs/qemu.sh run "$B" "$img" "$run" > "$run/qemu.line" 2>&1 &
qpid=$!
trap 'kill "$qpid" 2>/dev/null' EXIT
trap 'exit 130' INT TERM
# the console as it is written, until rootfs/qemu.sh is done
tail -s 0.1 --pid="$qpid" -n +1 -F "$run/console.log" 2>/dev/null | awk '
  { sub(/\r$/, ""); gsub(/\r/, "") }
  { sub(/^.*\033\[6n/, "") }                      # the console shell prompt
  /^demo: 1\./ && !shown { print "-- the demo, in the guest: \"demo:\" is a service of the demo image (legacy root), \"console:\" the console shell itself"; shown = 1 }
  /^(capinit|demo|console)[: ]/ { print; fflush() }
  /^capinit: capctl poweroff/ { }
'
wait "$qpid" || true
trap - EXIT INT TERM
line=$(cat "$run/qemu.line")
ready=$(sed -n 's/^capinit: all \([0-9]*\) services ready \([0-9]*\) ms after capinit started$/\2 ms (\1 services)/p' "$run/console.txt" | head -n 1)
wall=$(echo "$line" | sed -n 's/.* wall_ms=\([0-9]*\).*/\1/p')
rc=$(echo "$line" | sed -n 's/.* qemu_rc=\([0-9]*\) .*/\1/p')
end=$(echo "$line" | sed -n 's/^run: end=\([a-z]*\) .*/\1/p')
if [ "$end" = exit ] && [ "$rc" = 0 ] && grep -qx DONE "$run/results.txt" 2>/dev/null &&
   grep -q '^capinit: power off$' "$run/console.txt"; then
  echo "-- QEMU exited 0 after a clean power off: all services ready ${ready:-?} after capinit started (its own clock); QEMU wall time $(awk -v w="${wall:-0}" 'BEGIN { printf "%.1f", w / 1000 }') s"
  echo "   next: make boot (the same appliance, interactive); docs/appliance.md; make check"
  exit 0
fi
echo "-- the demo did not end as it should ($line); the console is in $run/console.txt" >&2
exit 1

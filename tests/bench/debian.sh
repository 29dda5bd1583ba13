#!/bin/sh
# tests/bench/debian.sh BUILDDIR full|quick -- the Debian image (make
# debian) booted by systemd and by capinit, side by side: the same disk
# (a fresh copy for every boot), the same kernel, initrd and QEMU command
# line (rootfs/debian/qemu.sh: TCG, 2 CPUs, 1 GiB; only init= differs).
#
# Each boot, measured from the host:
#   - ssh, smtp, http: ms from QEMU's start until each answered through
#     its forwarded port (tests/debian/netprobe.py: ssh's banner, smtp's
#     220 greeting, http's 200), and all three;
#   - 10 s after that, in the guest (tests/debian/stats.sh): memory used
#     (MemTotal - MemAvailable), PID 1's resident set, the processes, and
#     each daemon's uid, CapEff and CapBnd;
#   - power off: ms from the moment the guest runs the init's own command
#     (capctl poweroff; systemctl poweroff) to QEMU's exit, then e2fsck
#     -fn of the disk;
#   - under capinit, capctl blame --json (the first one is drawn:
#     docs/boot-debian.svg);
#   - the load average at the boot's start, and how many other QEMUs
#     (any process whose name begins with qemu-: machines and qemu-user
#     alike) ran at its start and once the ports had answered: the
#     report lists them boot by boot, since they are what makes two
#     boots differ.
# The namespaces of each process (which of net, pid, mnt, ipc, uts are
# not PID 1's) come with its credentials (stats.sh).
# full: BENCH_DEBIAN_ROUNDS (5) rounds, each a systemd and a capinit boot
# in alternating order; quick: 1 round.  The medians and ranges go into
# the table of docs/debian.md (between its "bench" markers) in full
# mode; quick prints it only.  Results: BUILDDIR/bench/debian/results.txt.
set -u
B=${1:-build}
MODE=${2:-full}
case $MODE in
  full) rounds=${BENCH_DEBIAN_ROUNDS:-5} ;;
  quick) rounds=${BENCH_DEBIAN_ROUNDS:-1} ;;
  *) echo "usage: tests/bench/debian.sh BUILDDIR full|quick" >&2; exit 100 ;;
esac
D=$B/debian
die() { echo "tests/bench/debian.sh: fatal: $*" >&2; exit 111; }
for f in "$D/disk.ext4" "$D/initrd.img" "$D/id_ed25519"; do
  [ -f "$f" ] || die "$f is missing (make debian)"
done
OUT=$B/bench/debian
rm -rf "$OUT"
mkdir -p "$OUT"
OUT=$(cd "$OUT" && pwd)
RES=$OUT/results.txt
: > "$RES"
PROBE="python3 tests/debian/netprobe.py"
qpid=
trap '[ -n "$qpid" ] && kill -KILL "$qpid" 2>/dev/null; rm -f "$OUT/disk.ext4"' EXIT
trap 'exit 130' INT TERM

ms() { date +%s%3N; }
# how many QEMUs run besides ours (PID): qemu-system-*, qemu-aarch64...
other_qemus() {
  ps -e -o pid=,comm= | awk -v me="${1:-}" '$2 ~ /^qemu-/ && $1 != me { n++ } END { print n + 0 }'
}
gssh() {
  ssh -p "$SSH_PORT" -i "$D/id_ed25519" -o StrictHostKeyChecking=no -o UserKnownHostsFile=/dev/null \
    -o LogLevel=ERROR -o BatchMode=yes -o ConnectTimeout=60 root@127.0.0.1 "$@"
}

# one_boot K INIT: boot K with INIT, measure, power off; "boot K INIT key
# value..." lines into $RES
one_boot() {
  k=$1 init=$2
  dir=$OUT/$k-$init
  mkdir -p "$dir"
  cp --sparse=always "$D/disk.ext4" "$OUT/disk.ext4"
  set -- $($PROBE ports 3)
  SSH_PORT=$1
  load=$(cut -d' ' -f1 /proc/loadavg)
  qemus_start=$(other_qemus)
  t0ns=$(date +%s%N)
  DEBIAN_INIT=$init DEBIAN_DISK=$OUT/disk.ext4 DEBIAN_PORTS="$1 $2 $3" \
    sh rootfs/debian/qemu.sh run "$B" "$dir" &
  qpid=$!
  if ! $PROBE answers "$1" "$2" "$3" --since "$t0ns" --timeout 900 > "$dir/answers.txt"; then
    echo "bench: boot $k ($init): no answer on every port in 900 s:" >&2
    cat "$dir/answers.txt" >&2
    kill -KILL "$qpid"
    wait "$qpid"
    qpid=
    return 1
  fi
  qemus_answered=$(other_qemus "$qpid")
  sleep 10
  gssh sh -s < tests/debian/stats.sh > "$dir/stats.txt"
  [ "$init" = capinit ] && gssh capctl blame --json > "$dir/blame.json"
  # the power-off command, run by the guest once it says "go": the time
  # runs from that line's arrival to QEMU's exit
  cmd="capctl poweroff"
  [ "$init" = systemd ] && cmd="systemctl poweroff"
  t1=
  gssh "echo go; exec $cmd" 2>/dev/null | while read -r line; do
    [ "$line" = go ] && ms > "$dir/t1"
  done
  t1=$(cat "$dir/t1" 2>/dev/null || ms)
  n=0
  while kill -0 "$qpid" 2>/dev/null && [ $n -lt 3000 ]; do sleep 0.05; n=$((n + 1)); done
  t2=$(ms)
  kill -0 "$qpid" 2>/dev/null && kill -KILL "$qpid"
  wait "$qpid"
  qrc=$?
  qpid=
  e2fsck -fn "$OUT/disk.ext4" > "$dir/e2fsck.txt" 2>&1
  fsck=$?
  {
    sed "s/^/boot $k $init /" "$dir/answers.txt"
    grep -v '^proc ' "$dir/stats.txt" | sed "s/^/boot $k $init /"
    grep '^proc ' "$dir/stats.txt" | sed "s/^/boot $k $init /"
    echo "boot $k $init poweroff_ms $((t2 - t1))"
    echo "boot $k $init qemu_rc $qrc"
    echo "boot $k $init fsck_rc $fsck"
    echo "boot $k $init load $load"
    echo "boot $k $init qemus_start $qemus_start"
    echo "boot $k $init qemus_answered $qemus_answered"
  } >> "$RES"
  echo "bench: boot $k, $init: $(tr '\n' ' ' < "$dir/answers.txt")ms; used $(awk '$1 == "mem_total_kb" { t = $2 } $1 == "mem_available_kb" { a = $2 } END { printf "%.1f MiB", (t - a) / 1024 }' "$dir/stats.txt"); power-off $((t2 - t1)) ms; e2fsck $fsck; load $load; other QEMUs $qemus_start at the start, $qemus_answered at the answers" >&2
}

echo "bench: the Debian image, systemd and capinit, $rounds round(s) (TCG: a few minutes a boot)" >&2
k=0
r=1
while [ $r -le "$rounds" ]; do
  if [ $((r % 2)) = 1 ]; then order="systemd capinit"; else order="capinit systemd"; fi
  for init in $order; do
    k=$((k + 1))
    one_boot $k $init || die "boot $k ($init) failed"
  done
  r=$((r + 1))
done

# ------------------------------------------------------------ the report
first_capinit=$(ls -d "$OUT"/*-capinit | head -n 1)
python3 tests/bench/timeline.py "$first_capinit/blame.json" "$OUT/boot-debian.svg" \
  "Debian 12 booted by capinit (make bench, TCG, 2 CPUs)" || die "timeline failed"
python3 tests/bench/debian_report.py "$RES" > "$OUT/table.md" || die "the report failed"
cat "$OUT/table.md"
if [ "$MODE" = full ]; then
  python3 tests/bench/debian_report.py --into docs/debian.md "$RES" || die "unable to write docs/debian.md"
  cp "$OUT/boot-debian.svg" docs/boot-debian.svg
  echo "bench: wrote docs/debian.md's table and docs/boot-debian.svg" >&2
fi

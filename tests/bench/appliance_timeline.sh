#!/bin/sh
# tests/bench/appliance_timeline.sh BUILDDIR OUT.svg -- the appliance's
# boot drawn as an SVG timeline (make bench): the stock image (rootfs/,
# cpio) with one more service, which waits until every other one is
# ready and prints `capctl blame --json` on the console, on one line
# after a marker; booted once by `rootfs/qemu.sh boot` (make boot's command
# line), the JSON cut out of the console and drawn by
# tests/bench/timeline.py.  The extra service is ordered after every
# other (`after`), so it is not on their path.  Needs root (the image
# builder); about 15 s.
set -u
B=${1:?usage: tests/bench/appliance_timeline.sh BUILDDIR OUT.svg}
OUT=${2:?usage: tests/bench/appliance_timeline.sh BUILDDIR OUT.svg}
die() { echo "tests/bench/appliance_timeline.sh: fatal: $*" >&2; exit 111; }

W=$(mktemp -d)
trap '[ -n "${KEEP_W:-}" ] || rm -rf "$W"' EXIT
mkdir -p "$W/overlay/etc/capinit/services" "$W/overlay/usr/libexec/bench"
services=$(cd rootfs/skel/etc/capinit/services && ls -- *.svc | sed 's/\.svc$//' | tr '\n' ' ')
cat > "$W/overlay/usr/libexec/bench/blame" <<'SCRIPT'
#!/bin/busybox sh
# wait until every service wanted up is ready (blame's own ready_ms)
until capctl blame --json | grep -q '^  "ready_ms": [0-9]'; do sleep 0.2; done
# on one line, in one write: the console shell writes there too
j=$(capctl blame --json | tr -d '\n')
echo "BLAME-JSON $j" > /dev/console
exec sleep 1000
SCRIPT
cat > "$W/overlay/etc/capinit/services/zz-blame.svc" <<SVC
description = capctl blame --json on the console, once the others are up (tests/bench/appliance_timeline.sh)
command = /bin/busybox sh /usr/libexec/bench/blame
after = $services
SVC
sh rootfs/build.sh -f cpio -o "$W/overlay" "$B" "$W/image" > "$W/build.log" 2>&1 ||
  { cat "$W/build.log" >&2; die "the image could not be built"; }
HOST_PORT=0 timeout 120 sh rootfs/qemu.sh boot "$B" "$W/image" < /dev/null > "$W/console.txt" 2>&1 &
q=$!
n=0
until grep -aq 'BLAME-JSON {.*}' "$W/console.txt" || [ $n -ge 1100 ]; do sleep 0.1; n=$((n + 1)); done
kill "$q" 2>/dev/null
wait "$q" 2>/dev/null
tr -d '\r' < "$W/console.txt" | sed -n 's/.*BLAME-JSON \({.*}\)$/\1/p' | head -n 1 > "$W/blame.json"
[ -s "$W/blame.json" ] || { tail -n 20 "$W/console.txt" >&2; die "no capctl blame --json on the console"; }
python3 tests/bench/timeline.py "$W/blame.json" "$OUT" \
  "the appliance booted by capinit (make bench, TCG, 1 CPU)" || die "timeline failed"
ready=$(python3 -c 'import json, sys; print(json.load(open(sys.argv[1]))["ready_ms"])' "$W/blame.json")
echo "bench: wrote $OUT (every service ready $ready ms after capinit started, the blame service included)" >&2

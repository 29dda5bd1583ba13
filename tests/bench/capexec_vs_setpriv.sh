#!/bin/sh
# tests/bench/capexec_vs_setpriv.sh [BUILDDIR [RUNS [BATCH]]] -- how long
# capexec takes to set up a locked noroot service compared with the
# equivalent setpriv command line.  A benchmark, not a test: run it by
# hand, as root, from the repository root (defaults: build, 1000, 50).
#
# Both launch /bin/true as uid/gid 65534, no supplementary groups,
# securebits 0x2f, bounding = inheritable = ambient = cap_net_bind_service.
# First both launch the probe, and the kernel's account of the two
# processes must be identical.  Then RUNS launches of each, in batches of
# BATCH, interleaved (capexec, setpriv, bare /bin/true, an empty loop,
# again), each batch timed as a whole (see now()).  Printed: the median
# time per launch of each, minus the empty loop's (the timer and the shell
# loop), and capexec/setpriv, raw and minus the bare fork+exec of
# /bin/true.
set -u
B=${1:-build}
RUNS=${2:-1000}
BATCH=${3:-50}
if [ "$(id -u)" != 0 ]; then
  echo "capexec_vs_setpriv: must run as root" >&2
  exit 100
fi
B=$(cd "$B" && pwd)
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT

CAPEXEC="$B/bin/capexec -k user=65534 -k group=65534 -k groups= -k mode=noroot -k capabilities=net_bind_service --"
SETPRIV="setpriv --reuid=65534 --regid=65534 --clear-groups \
--securebits=+noroot,+noroot_locked,+no_setuid_fixup,+no_setuid_fixup_locked,+keep_caps_locked \
--inh-caps=-all,+net_bind_service --ambient-caps=+net_bind_service \
--bounding-set=-all,+net_bind_service --"

# --- same result ----------------------------------------------------------
$CAPEXEC "$B/tests/probe" >"$T/capexec.json" || exit 1
$SETPRIV "$B/tests/probe" >"$T/setpriv.json" || exit 1
STATUS='^(Uid|Gid|Groups|CapInh|CapPrm|CapEff|CapBnd|CapAmb|NoNewPrivs|Seccomp):'
$CAPEXEC /bin/grep -E "$STATUS" /proc/self/status >"$T/capexec.status" || exit 1
$SETPRIV /bin/grep -E "$STATUS" /proc/self/status >"$T/setpriv.status" || exit 1
echo "# the service as the kernel sees it (probe, cross-checked with /proc/self/status):"
sed 's/^/#   /' "$T/capexec.json"
if ! cmp -s "$T/capexec.json" "$T/setpriv.json" || ! cmp -s "$T/capexec.status" "$T/setpriv.status"; then
  echo "capexec_vs_setpriv: capexec and setpriv do not give the same state:" >&2
  diff "$T/capexec.json" "$T/setpriv.json" >&2
  diff "$T/capexec.status" "$T/setpriv.status" >&2
  exit 1
fi
echo "# setpriv: identical (probe JSON and /proc/self/status)"

# --- timing -----------------------------------------------------------------
# Nanoseconds from GNU date: no tool to install, but CLOCK_REALTIME (the
# shell has no monotonic clock; /proc/uptime counts centiseconds).  NTP
# slews are negligible over one batch; a step would spoil one batch, which
# the median discards.  Starting date costs about a millisecond per batch:
# the empty batches measure it, and it is subtracted.
now() { date +%s%N; }
batch() { # OUTFILE CMD...: time BATCH launches, append the batch's ns
  o=$1
  shift
  i=0
  t0=$(now)
  while [ $i -lt "$BATCH" ]; do
    "$@" || { echo "capexec_vs_setpriv: '$*' failed" >&2; exit 1; }
    i=$((i + 1))
  done
  t1=$(now)
  echo $((t1 - t0)) >>"$o"
}
median() { # FILE -> median of its numbers
  sort -n "$1" | awk '{ v[NR] = $1 } END { if (NR % 2) print v[(NR + 1) / 2]; else print int((v[NR / 2] + v[NR / 2 + 1]) / 2) }'
}

nb=$(((RUNS + BATCH - 1) / BATCH))
echo "# $((nb * BATCH)) launches each, $nb interleaved batches of $BATCH"
# warm the page cache
batch "$T/warm" $CAPEXEC /bin/true
batch "$T/warm" $SETPRIV /bin/true
k=0
while [ $k -lt $nb ]; do
  batch "$T/capexec.t" $CAPEXEC /bin/true
  batch "$T/setpriv.t" $SETPRIV /bin/true
  batch "$T/true.t" /bin/true
  batch "$T/empty.t" :
  k=$((k + 1))
done
e=$(median "$T/empty.t")
c=$((($(median "$T/capexec.t") - e) / BATCH))
s=$((($(median "$T/setpriv.t") - e) / BATCH))
t=$((($(median "$T/true.t") - e) / BATCH))
awk -v c="$c" -v s="$s" -v t="$t" -v e="$e" 'BEGIN {
  printf "timer and loop: %.1f us per batch (subtracted)\n", e / 1000
  printf "capexec   median %8.1f us per launch\n", c / 1000
  printf "setpriv   median %8.1f us per launch\n", s / 1000
  printf "/bin/true median %8.1f us per launch (fork + exec, no launcher)\n", t / 1000
  printf "capexec/setpriv  %.2f\n", c / s
  if (s > t) printf "capexec/setpriv, launcher only (minus /bin/true) %.2f\n", (c - t) / (s - t)
}'

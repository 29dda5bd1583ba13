#!/bin/sh
# tests/bench/control_path.sh CAPINIT... -- the control path and the start
# path of several capinit builds side by side (issue 33: judging the peer
# must not make either slower beyond noise).  Control: each capinit
# supervises 10 services in a PID namespace of its own, and a root client
# inside that namespace opens connection after connection, each asking
# "status" (every service's record) or "start s1" (a changing verb for a
# service already up: the peer's whole check, and no work).  Start: 200
# services, capinit's own "all 200 services ready N ms" line (a build
# before e6deda8 prints it only at its next event: give it that commit's
# one-line fix in supervisor_run to compare).  The builds
# take turns, ROUNDS (5) times; each line gives the median and the ratio
# to the first build.
#   ROUNDS=N  N=connections per measurement (default 2000)
set -u
[ $# -ge 1 ] || { echo "usage: control_path.sh CAPINIT..." >&2; exit 100; }
ROUNDS=${ROUNDS:-5}
N=${N:-2000}
PY=/usr/bin/python3
[ -x "$PY" ] || PY=python3
RATE=$(cd "$(dirname "$0")" && pwd)/control_rate.py
T=$(mktemp -d)
chmod 755 "$T"
trap 'rm -rf "$T"' EXIT
mkdir -p "$T/c/services"
printf 'log-directory = %s/log\n' "$T" > "$T/c/capinit.conf"
for i in 1 2 3 4 5 6 7 8 9 10; do
  printf 'command = /bin/sleep 100000\nlog = none\n' > "$T/c/services/s$i.svc"
done

measure() { # CAPINIT REQUEST: the median of ROUNDS rounds, in microseconds per connection
  rm -rf "$T/run"
  unshare --pid --ipc --fork --mount-proc "$1" --container -c "$T/c" -r "$T/run" >/dev/null 2>&1 &
  u=$!
  i=0
  while [ ! -S "$T/run/control" ] && [ $i -lt 600 ]; do sleep 0.05; i=$((i + 1)); done
  ns=$(cat /proc/"$u"/task/*/children | tr ' ' '\n' | head -n 1)
  sleep 1
  nsenter -t "$ns" -p "$PY" "$RATE" "$T/run/control" "$2" "$N" 1 | awk '{ print $2 }'
  kill -TERM "$ns"
  wait "$u"
}

ready_ms() { # CAPINIT: capinit's time to every one of 200 services ready
  rm -rf "$T/run" "$T/c2"
  mkdir -p "$T/c2/services"
  printf 'log-directory = %s/log\n' "$T" > "$T/c2/capinit.conf"
  i=1
  while [ $i -le 200 ]; do
    printf 'command = /bin/sleep 100000\nlog = none\n' > "$T/c2/services/r$i.svc"
    i=$((i + 1))
  done
  unshare --pid --ipc --fork --mount-proc "$1" --container -c "$T/c2" -r "$T/run" > "$T/out" 2>&1 &
  u=$!
  i=0
  while ! grep -q "services ready" "$T/out" && [ $i -lt 600 ]; do sleep 0.05; i=$((i + 1)); done
  sed -n 's/.*all 200 services ready \([0-9]*\) ms.*/\1/p' "$T/out"
  ns=$(cat /proc/"$u"/task/*/children | tr ' ' '\n' | head -n 1)
  kill -TERM "$ns"
  wait "$u"
}

echo "== start (200 services: ms to all ready)"
: > "$T/res"
r=1
while [ $r -le "$ROUNDS" ]; do
  k=0
  for c in "$@"; do
    k=$((k + 1))
    echo "$k $(ready_ms "$c")" >> "$T/res"
  done
  r=$((r + 1))
done
k=0
base=
for c in "$@"; do
  k=$((k + 1))
  med=$(awk -v k=$k '$1 == k { print $2 }' "$T/res" | sort -n | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }')
  [ -n "$base" ] || base=$med
  echo "$c: $med ms ($(awk -v a="$med" -v b="$base" 'BEGIN { printf "%.3f", a / b }')x the first)"
done

for req in status "start s1"; do
  echo "== $req"
  r=1
  : > "$T/res"
  while [ $r -le "$ROUNDS" ]; do
    k=0
    for c in "$@"; do
      k=$((k + 1))
      echo "$k $(measure "$c" "$req")" >> "$T/res"
    done
    r=$((r + 1))
  done
  k=0
  base=
  for c in "$@"; do
    k=$((k + 1))
    med=$(awk -v k=$k '$1 == k { print $2 }' "$T/res" | sort -n | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }')
    [ -n "$base" ] || base=$med
    echo "$c: $med us per connection ($(awk -v a="$med" -v b="$base" 'BEGIN { printf "%.3f", a / b }')x the first)"
  done
done

#!/bin/sh
# tests/fuzz/run.sh BUILDDIR SECONDS [TARGET...] -- run each libFuzzer
# target for SECONDS on its corpus (BUILDDIR/fuzz/corpus/TARGET, grown from
# tests/fuzz/seeds/TARGET).  TAP out; a crash, a leak or a sanitizer report
# fails the target, and its reproducer is kept in BUILDDIR/fuzz/crashes.
B=${1:-build}
S=${2:-20}
shift 2 2>/dev/null
targets=${*:-svc filecaps notify explain control fstab}
. tests/lib.sh
mkdir -p "$B/fuzz/crashes"
total=0
for t in $targets; do
  bin=$B/fuzz/fuzz_$t
  corpus=$B/fuzz/corpus/$t
  mkdir -p "$corpus"
  log=$B/fuzz/$t.log
  "$bin" -max_total_time="$S" -print_final_stats=1 -timeout=10 -rss_limit_mb=1024 \
    -artifact_prefix="$B/fuzz/crashes/$t-" "$corpus" "tests/fuzz/seeds/$t" >"$log" 2>&1
  rc=$?
  runs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -n 1)
  runs=${runs:-0}
  total=$((total + runs))
  if [ $rc = 0 ] && [ "$runs" -gt 0 ]; then
    t_ok 0 "fuzz $t: $runs executions in ${S}s, no finding"
  else
    t_ok 1 "fuzz $t: exit $rc after $runs executions (see $log)"
    grep -E "ERROR|SUMMARY|runtime error" "$log" | head -n 5 | sed 's/^/#   /'
  fi
  echo "# summary: fuzz $t: $runs executions, corpus $(ls "$corpus" | wc -l) inputs"
done
echo "# summary: fuzz total: $total executions"
t_done

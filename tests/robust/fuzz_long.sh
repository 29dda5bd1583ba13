#!/bin/sh
# tests/robust/fuzz_long.sh BUILDDIR RUNS [TARGET...] -- the recorded long
# fuzz run: each libFuzzer target until RUNS executions (libFuzzer -runs),
# one after the other, on the corpus `make fuzz` grows
# (BUILDDIR/fuzz/corpus/TARGET).  The binaries are copied first, so that a
# `make check` meanwhile cannot replace them.  TAP out; one line per target
# in BUILDDIR/robust/fuzz.tsv:
#   TARGET EXECUTIONS SECONDS EXEC_PER_S CORPUS FINDINGS COVERAGE
# A crash, a leak, a timeout or a sanitizer report is a finding; its
# reproducer is kept in BUILDDIR/robust/fuzz/crashes.
B=${1:-build}
RUNS=${2:-10000000}
shift 2 2>/dev/null
targets=${*:-svc filecaps notify explain control fstab}
. tests/lib.sh
D=$B/robust/fuzz
mkdir -p "$D/crashes"
: > "$B/robust/fuzz.tsv"
total=0
for t in $targets; do
  cp "$B/fuzz/fuzz_$t" "$D/fuzz_$t" || { t_ok 1 "fuzz $t: no binary (make fuzz-build)"; continue; }
  corpus=$B/fuzz/corpus/$t
  mkdir -p "$corpus"
  log=$D/$t.log
  t0=$(date +%s)
  "$D/fuzz_$t" -runs="$RUNS" -print_final_stats=1 -timeout=10 -rss_limit_mb=2048 \
    -artifact_prefix="$D/crashes/$t-" "$corpus" "tests/fuzz/seeds/$t" >"$log" 2>&1
  rc=$?
  secs=$(($(date +%s) - t0))
  runs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -n 1)
  runs=${runs:-0}
  cov=$(sed -n 's/^#[0-9]*[[:space:]]*DONE[[:space:]]*cov: \([0-9]*\) ft: \([0-9]*\).*/\1 edges, \2 features/p' "$log" | tail -n 1)
  finds=$(ls "$D/crashes" | grep -c "^$t-")
  total=$((total + runs))
  [ $secs -gt 0 ] || secs=1
  printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\n' "$t" "$runs" "$secs" $((runs / secs)) \
    "$(ls "$corpus" | wc -l)" "$finds" "${cov:-?}" >> "$B/robust/fuzz.tsv"
  if [ $rc = 0 ] && [ "$runs" -ge "$RUNS" ] && [ "$finds" = 0 ]; then
    t_ok 0 "fuzz $t: $runs executions in ${secs}s, no finding"
  else
    t_ok 1 "fuzz $t: exit $rc after $runs executions, $finds findings (see $log)"
    grep -E "ERROR|SUMMARY|runtime error" "$log" | head -n 5 | sed 's/^/#   /'
  fi
  echo "# summary: fuzz $t: $runs executions in ${secs} s ($((runs / secs))/s), corpus $(ls "$corpus" | wc -l) inputs, $finds findings"
done
echo "# summary: fuzz total: $total executions"
t_done

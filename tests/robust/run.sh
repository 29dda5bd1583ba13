#!/bin/sh
# tests/robust/run.sh BUILDDIR -- `make robustness`: the robustness tests at
# full scale, then docs/robustness.md (tests/robust/report.sh).
#
#   1. tests/robust/test_*.sh with the soak figures of issue 9:
#      ROBUST_RESTARTS=100000, ROBUST_ORPHANS=100000, ROBUST_ROUNDS=100
#      (1000 services), ROBUST_FLOOD_SECONDS=300 (16 clients),
#      ROBUST_LOG_MB=100, ROBUST_SHUTDOWN_CYCLES=20 (QEMU boot/write/
#      power-off cycles) (`make check` runs the same tests smaller)
#   2. the fault-injection matrix, tests/system/test_faults.sh
#   3. the same robust tests at `make check`'s scale against the ASan +
#      UBSan build (BUILDDIR-asan, built by `make robustness`), then the
#      unit and system tests against it (what `make check-asan` runs),
#      unless ROBUST_ASAN=0
#   4. each fuzz target until ROBUST_FUZZ_RUNS executions (10^7;
#      tests/robust/fuzz_long.sh); ROBUST_FUZZ_RUNS=0 keeps the last
#      recorded run (BUILDDIR/robust/fuzz.tsv) and quotes it with its date
#
# Every knob above may be set to run smaller or larger.  TAP and timings
# go to BUILDDIR/robust/; the report is written even when a test fails
# (its failures are in it), and the exit status is then 1.
B=${1:-build}
R=$B/robust
mkdir -p "$R"
export ROBUST_RESTARTS=${ROBUST_RESTARTS:-100000}
export ROBUST_ORPHANS=${ROBUST_ORPHANS:-100000}
export ROBUST_ROUNDS=${ROBUST_ROUNDS:-100}
export ROBUST_FLOOD_SECONDS=${ROBUST_FLOOD_SECONDS:-300}
export ROBUST_LOG_MB=${ROBUST_LOG_MB:-100}
export ROBUST_SHUTDOWN_CYCLES=${ROBUST_SHUTDOWN_CYCLES:-20}
RUNS=${ROBUST_FUZZ_RUNS:-10000000}
ASAN_B=${ROBUST_ASAN_BUILD:-build-asan}
failed=0

{
  echo "date=$(date -u +%Y-%m-%dT%H:%MZ)"
  echo "commit=$(git rev-parse --short HEAD 2>/dev/null || echo unknown)"
  echo "changes=$(git status --porcelain -- conf inspect supervise init engine capctl capexec 2>/dev/null | wc -l)"
  echo "kernel=$(uname -r)"
  echo "cpus=$(nproc)"
  echo "cpu=$(sed -n 's/^model name[[:space:]]*: //p' /proc/cpuinfo | head -n 1)"
  echo "memory=$(awk '/^MemTotal:/ { printf "%.0f GiB", $2 / 1048576 }' /proc/meminfo)"
  if [ "$RUNS" = 0 ]; then fuzz="fuzzing: the recorded run"; else fuzz="fuzzing: $RUNS executions a target"; fi
  echo "knobs=$ROBUST_RESTARTS restarts, $ROBUST_ORPHANS orphans, $ROBUST_ROUNDS rounds of 1000 services, 16 clients x ${ROBUST_FLOOD_SECONDS} s, $ROBUST_LOG_MB MB of log, $ROBUST_SHUTDOWN_CYCLES power-off cycles; $fuzz"
} > "$R/run.info"

run() { # DIR NAME COMMAND...: TAP into DIR/NAME.tap, seconds into DIR/NAME.time
  dir=$1 name=$2
  shift 2
  mkdir -p "$dir"
  t0=$(date +%s)
  "$@" > "$dir/$name.tap" 2>&1
  rc=$?
  echo $(($(date +%s) - t0)) > "$dir/$name.time"
  p=$(grep -c '^ok ' "$dir/$name.tap")
  f=$(grep -c '^not ok ' "$dir/$name.tap")
  grep -q '^1\.\.[0-9]' "$dir/$name.tap" || f=$((f + 1))
  [ "$rc" != 0 ] && [ "$f" = 0 ] && f=1
  if [ "$f" = 0 ]; then
    echo "ok   $name: $p passed ($(cat "$dir/$name.time") s)"
  else
    echo "FAIL $name: $p passed, $f failed ($(cat "$dir/$name.time") s); output in $dir/$name.tap"
    failed=$((failed + f))
  fi
  sed -n 's/^# summary: /       /p' "$dir/$name.tap"
}

echo "== robustness tests, full scale ($(sed -n 's/^knobs=//p' "$R/run.info"))"
for t in tests/robust/test_*.sh; do
  n=${t##*/}
  run "$R" "${n%.sh}" sh "$t" "$B"
done

echo "== fault injection"
run "$R" test_faults sh tests/system/test_faults.sh "$B"

rm -rf "$R/asan"
if [ "${ROBUST_ASAN:-1}" != 0 ] && [ -x "$ASAN_B/bin/capinit" ]; then
  echo "== robustness tests, make check's scale, ASan + UBSan build ($ASAN_B)"
  # every sanitizer report of a capinit or capctl of these runs lands in
  # asan/reports/ (any uid may write there: capinit runs as uid 4242 in
  # test_limits, capctl as nobody in test_hostile); an error also aborts
  # the program, which the tests see
  mkdir -p "$R/asan/reports"
  chmod 1777 "$R/asan/reports"
  rep=$(cd "$R/asan/reports" && pwd)
  for t in tests/robust/test_*.sh; do
    n=${t##*/}
    run "$R/asan" "${n%.sh}" env CAPINIT_SAN=1 ROBUST_RESTARTS= ROBUST_ORPHANS= ROBUST_ROUNDS= \
      ROBUST_FLOOD_SECONDS= ROBUST_LOG_MB= ROBUST_SHUTDOWN_CYCLES= ASAN_OPTIONS="log_path=$rep/asan" \
      UBSAN_OPTIONS="log_path=$rep/ubsan:print_stacktrace=1" sh "$t" "$ASAN_B"
  done
  # make check-asan's part: the unit and system tests against the same
  # build (tests/run prints "N passed, N failed" last)
  echo "== unit and system tests, ASan + UBSan build ($ASAN_B): make check-asan"
  start=$(date +%s)
  env CAPINIT_SAN=1 TIERS=system ASAN_OPTIONS="log_path=$rep/asan" \
    UBSAN_OPTIONS="log_path=$rep/ubsan:print_stacktrace=1" sh tests/run "$ASAN_B" > "$R/asan/check-asan.txt" 2>&1
  echo "$(($(date +%s) - start))" > "$R/asan/check-asan.time"
  grep -v '^ok \|^       ' "$R/asan/check-asan.txt" | sed 's/^/  /'
  last=$(tail -n 1 "$R/asan/check-asan.txt")
  case $last in
    *" passed, 0 failed") ;;
    *) failed=$((failed + 1)) ;;
  esac
  nrep=$(ls "$R/asan/reports" | wc -l)
  if [ "$nrep" != 0 ]; then
    echo "FAIL sanitizer reports: $nrep, in $R/asan/reports"
    failed=$((failed + nrep))
  else
    echo "ok   sanitizer reports: none"
  fi
fi

if [ "$RUNS" != 0 ]; then
  echo "== fuzzing, $RUNS executions per target"
  {
    echo "date=$(date -u +%Y-%m-%dT%H:%MZ)"
    echo "commit=$(git rev-parse --short HEAD 2>/dev/null || echo unknown)"
    echo "runs=$RUNS"
  } > "$R/fuzz.info"
  run "$R" fuzz sh tests/robust/fuzz_long.sh "$B" "$RUNS"
elif [ -s "$R/fuzz.tsv" ]; then
  echo "== fuzzing: the run recorded in $R/fuzz.tsv ($(sed -n 's/^date=//p' "$R/fuzz.info" 2>/dev/null))"
else
  echo "== fuzzing: none (ROBUST_FUZZ_RUNS=0 and no recorded run)"
fi

sh tests/robust/report.sh "$B" > docs/robustness.md
echo "docs/robustness.md written ($failed failed)"
[ "$failed" = 0 ]

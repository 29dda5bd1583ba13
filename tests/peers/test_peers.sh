#!/bin/sh
# tests/peers/test_peers.sh BUILDDIR -- the peers' own test suites run
# against capinit (issue 39): dumb-init's tests/ (pytest) and tini's
# test/run_inner_tests.py (case by case: tests/peers/tini_cases.py), as
# Debian ships them (tests/peers/fetch.sh: apt-get source into
# BUILDDIR/peers, never into the repository), each with the peer's binary
# replaced by tests/peers/shim.sh, which runs `capinit --container -- CMD`.
# Each suite's pass count is exact, and its failing cases are exactly those
# of tests/peers/known.txt, whose reasons docs/decisions.md gives ("The
# peers' suites"): a case failing outside that list fails this test, and
# so does a listed case that passes.  Each suite runs in a PID namespace
# of its own (unshare), so that a case that leaves processes behind
# leaves them only until the suite ends.  Its PID 1 is a shell, not the
# suite: the orphans of one case must not become the suite's children,
# which dumb-init's cases count (pid_tree of pytest's own pid).
B=${1:-build}
. tests/lib.sh
top=$(pwd)
if ! out=$(sh tests/peers/fetch.sh "$B" 2>&1); then
  printf '%s\n' "$out" | sed 's/^/# /'
  t_ok 1 "the peers' sources and what their suites need (tests/peers/fetch.sh)"
  t_done
  exit 1
fi
P=$top/$B/peers
dumb=$P/$(cat "$P/dumb-init.dir")
tini=$P/$(cat "$P/tini.dir")
bin=$P/bin
rm -rf "$bin" "$P/run" "$P/out"
mkdir -p "$bin" "$P/run" "$P/out"
# copies, not links: dumb-init's cwd test resolves the binary's real path
cp tests/peers/shim.sh "$bin/dumb-init"
cp tests/peers/shim.sh "$bin/tini"
# tini's signal configuration test execs the binary through its own
# sigconf-test (their C file, built here, outside the repository)
gcc -o "$bin/sigconf-test" "$tini/test/sigconf/sigconf-test.c"
t_ok $? "tini's sigconf-test is built"

# Debian's python3 and its modules (mk/deps.sh peers) first in PATH, the
# shims before all
export CAPINIT="$top/$B/bin/capinit" PEERS_RUN="$P/run"
export PATH="$bin:/usr/bin:/bin:$PATH"

# dumb-init: pytest's -rA lines, "PASSED ID" or "FAILED ID - REASON"; each
# case's time limit 10 s, not the suite's 5 (pytest.ini), for a machine
# shared with QEMU tests
(cd "$dumb" && unshare --pid --fork --mount-proc \
  sh -c 'python3 -m pytest -p no:cacheprovider -o timeout=10 -q -rA tests; exit $?') \
  >"$P/out/dumb-init.log" 2>&1
sed -n 's/^\(PASSED\|FAILED\|ERROR\|SKIPPED\|XFAIL\|XPASS\) \([^ ]*\).*/\1 \2/p' "$P/out/dumb-init.log" \
  >"$P/out/dumb-init.cases"
# tini: tests/peers/tini_cases.py's lines, the same two words first
(cd "$tini" && SOURCE_DIR="$tini" BUILD_DIR="$bin" FORCE_SUBREAPER=1 PYTHONPATH="$top/tests/peers/pymod" \
  unshare --pid --fork --mount-proc python3 "$top/tests/peers/tini_cases.py" test/run_inner_tests.py) \
  >"$P/out/tini.cases" 2>"$P/out/tini.log"
sed -n 's/^\(PASSED\|FAILED\) \(.*\)/\1 \2/p' "$P/out/tini.cases" | sed 's/ - .*//' >"$P/out/tini.cases.tmp"
mv "$P/out/tini.cases.tmp" "$P/out/tini.cases"

for suite in dumb-init:62 tini:15; do
  name=${suite%:*}
  cases=$P/out/$name.cases
  total=$(wc -l <"$cases")
  passed=$(grep -c '^PASSED ' "$cases")
  grep -v '^PASSED ' "$cases" | sed 's/^[A-Z]* //' | sort >"$P/out/$name.failed"
  sed -n "s/^$name	\([^	]*\).*/\1/p" tests/peers/known.txt | sort >"$P/out/$name.known"
  t_eq "$passed" "${suite#*:}" "$name: ${suite#*:} cases pass ($total in all)"
  t_eq "$(comm -23 "$P/out/$name.failed" "$P/out/$name.known" | tr '\n' ' ')" "" \
    "$name: no case fails but those of tests/peers/known.txt"
  t_eq "$(comm -13 "$P/out/$name.failed" "$P/out/$name.known" | tr '\n' ' ')" "" \
    "$name: every case of tests/peers/known.txt still fails (the list is exact)"
  t_eq "$((total - passed))" "$(wc -l <"$P/out/$name.known")" "$name: as many cases fail as known.txt lists"
done
rm -rf "$P/run"
t_done

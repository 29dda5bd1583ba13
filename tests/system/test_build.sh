#!/bin/sh
# System tests of the build itself: up to date after make, install with
# DESTDIR and PREFIX, man pages that render, static and stripped binaries.
B=${1:-build}
. tests/lib.sh
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT

# the sanitizer build is made with SAN=1: its flags, not the release ones
SAN=${CAPINIT_SAN:+SAN=1}
make -q all $SAN B="$B" >/dev/null 2>&1
t_eq "$?" 0 "make -q: nothing left to rebuild after make"

make -s install $SAN B="$B" DESTDIR="$T/dest" PREFIX=/opt/capinit >"$T/log" 2>&1
t_eq "$?" 0 "make install DESTDIR=... PREFIX=/opt/capinit"
for f in sbin/capinit sbin/capctl sbin/capexec lib/capinit/capctl-import lib/capinit/capctl-learn share/man/man5/capinit.svc.5 \
         share/man/man8/capinit.8 share/man/man8/capctl.8 share/man/man8/capexec.8; do
  [ -f "$T/dest/opt/capinit/$f" ]
  t_ok $? "installed $f"
done
t_eq "$(find "$T/dest" -type f | wc -l)" 9 "nothing else installed"

# capctl import is the program capctl-import, which the installed capctl
# finds in PREFIX/lib/capinit from its own PREFIX/sbin (and the build's
# beside itself); control: without it, capctl says where it looked
I=$T/dest/opt/capinit
t_eq "$("$I/sbin/capctl" import --help 2>&1 | head -n 1)" \
  "usage: capctl import [-R ROOT] [-o DIR] [--allow-weaker] UNIT..." \
  "the installed capctl import runs the installed capctl-import (--help)"
t_eq "$("$B/bin/capctl" -V import 2>&1)" "capctl-import $(sed -n 's/^VERSION := //p' Makefile)" \
  "the build's capctl import runs the build's capctl-import (-V)"
# capctl learn likewise: capctl-learn
t_eq "$("$I/sbin/capctl" learn --help 2>&1 | head -n 1)" \
  "usage: capctl learn [--time SECONDS] [--check CMD] [--fresh PATH]... FILE.svc" \
  "the installed capctl learn runs the installed capctl-learn (--help)"
t_eq "$("$B/bin/capctl" -V learn 2>&1)" "capctl-learn $(sed -n 's/^VERSION := //p' Makefile)" \
  "the build's capctl learn runs the build's capctl-learn (-V)"
# capctl-learn runs the service with capexec: the installed one, found
# from PREFIX/lib/capinit in PREFIX/sbin; control: without it, where it looked
printf 'description = t\ncommand = /bin/true\n' >"$T/t.svc"
mv "$I/sbin/capexec" "$T/capexec.moved"
"$I/sbin/capctl" learn "$T/t.svc" >"$T/out" 2>&1
t_eq "$?:$(cat "$T/out")" \
  "127:capctl: fatal: learn needs capexec ($I/lib/capinit/capexec, $I/sbin/capexec): not found" \
  "control: capctl learn without capexec says where it looked (exit 127)"
mv "$T/capexec.moved" "$I/sbin/capexec"
"$I/sbin/capctl" learn "$T/t.svc" >"$T/out" 2>/dev/null
t_eq "$?:$(sed -n 's/^capabilities = //p' "$T/out")" "0:none" \
  "the installed capctl learn runs the installed capexec (/bin/true: no capability)"
rm "$I/lib/capinit/capctl-learn"
"$I/sbin/capctl" learn x.svc >"$T/out" 2>&1
t_eq "$?:$(cat "$T/out")" \
  "127:capctl: fatal: learn needs capctl-learn ($I/sbin/capctl-learn, $I/lib/capinit/capctl-learn): not found" \
  "control: without capctl-learn, capctl learn says where it looked (exit 127)"
rm "$I/lib/capinit/capctl-import"
"$I/sbin/capctl" import x.service >"$T/out" 2>&1
t_eq "$?:$(cat "$T/out")" \
  "127:capctl: fatal: import needs capctl-import ($I/sbin/capctl-import, $I/lib/capinit/capctl-import): not found" \
  "control: without capctl-import, capctl import says where it looked (exit 127)"

# a sanitizer build (make check-asan) is neither static nor small
[ -n "${CAPINIT_SAN:-}" ] || for p in capinit capctl capexec capctl-import capctl-learn; do
  f=$(file -b "$B/bin/$p")
  case $f in *"statically linked"*", stripped"*) r=0 ;; *) r=1 ;; esac
  t_ok $r "$p is static and stripped ($f)"
  size=$(stat -c %s "$B/bin/$p")
  # the issues' budgets; capctl-import and capctl-learn, administrators'
  # tools on a full machine, have none
  case $p in capexec) limit=150 ;; capctl-import|capctl-learn) continue ;; *) limit=200 ;; esac
  [ "$size" -le $((limit * 1024)) ]
  t_ok $? "$p is at most $limit KB ($size bytes)"
done

# the fixtures run set-id and with file capabilities (AT_SECURE), where a
# sanitizer runtime fails ("LeakSanitizer has encountered a fatal error"):
# built without one, in every build
for f in probe svc_helper secbits_try; do
  n=$(grep -c -a -e __asan_ -e __ubsan_ -e __lsan_ "$B/tests/$f")
  t_eq "$n" 0 "fixture tests/$f carries no sanitizer runtime"
done
if [ -n "${CAPINIT_SAN:-}" ]; then
  grep -q -a -e __asan_ "$B/bin/capexec"
  t_ok $? "control: the sanitizer build's capexec carries one"
fi

for m in capinit.svc.5 capinit.8 capctl.8 capexec.8; do
  MANWIDTH=80 man --warnings -l "$B/man/$m" >"$T/page" 2>"$T/warn"
  t_eq "$?:$(cat "$T/warn")" "0:" "man -l $m renders without warnings"
  lines=$(wc -l <"$T/page")
  [ "$lines" -gt 40 ]
  t_ok $? "man -l $m has a body ($lines lines)"
done
MANWIDTH=80 man -l "$B/man/capinit.svc.5" 2>/dev/null | grep -q 'no-new-privileges'
t_ok $? "capinit.svc(5) shows the key no-new-privileges"
# the design the code and docs cite is in the repository (docs/design.md),
# not a document beside it
if git rev-parse --git-dir >/dev/null 2>&1; then
  t_eq "$(git grep -l -e 'DESIGN\.md' -e '\.\./shared/' -- . ':!tests/system/test_build.sh' | tr '\n' ' ')" "" \
    "nothing in the repository cites DESIGN.md or ../shared"
  t_ok "$([ -s docs/design.md ] && git grep -q 'docs/design\.md' -- supervise conf inspect engine capctl capexec init; echo $?)" \
    "control: docs/design.md exists, and the code cites it"
fi
t_done

#!/bin/sh
# tests/learn_bind.sh CAPCTL TRY CAPEXEC W T -- test_learn.sh's runs
# through a bind mount, in the mount namespace of its own it is run in
# (unshare --mount --propagation private): W.b bound at W.m; the results
# into T (b.*: learn_try write; br.*: rm, started in W.m; bu.*: rm,
# started in /), which test_learn.sh checks.
set -u
CAPCTL=$1 TRY=$2 CAPEXEC=$3 W=$4 T=$5
mount --bind "$W.b" "$W.m" || exit 1
# the first mount of W.m's file system in the table, and the bind's own
dev=$(mountpoint -d "$W.m")
awk -v d="$dev" '$3 == d { print $5; exit }' /proc/self/mountinfo >"$T/b.first"
awk -v d="$dev" -v m="$W.m" '$3 == d && $5 != m { print $5; exit }' /proc/self/mountinfo >"$T/b.first.bind"
run() { # NAME ARGS: capexec -f T/NAME.svc -- TRY ARGS: its output, status, what it left ("|"-separated)
  name=$1
  shift
  out=$("$CAPEXEC" -f "$T/$name.svc" -- "$TRY" "$@" 2>&1)
  echo "$out|$?|$(case $1 in write) cat "$W.m/sub/state" 2>/dev/null ;; rm) ls "$W.m" | wc -l ;; esac)"
}
# write: its files through the bind mount
printf 'description = b\ncommand = %s write %s\n' "$TRY" "$W.m" >"$T/b.svc"
"$CAPCTL" learn "$T/b.svc" >"$T/b.out" 2>"$T/b.err"
echo $? >"$T/b.rc"
sed -n '/^command = /d; p' "$T/b.out" >"$T/b.prop.svc"
grep -v '^read-write = ' "$T/b.prop.svc" >"$T/b.nrw.svc"
rm -rf "$W.b/out.log" "$W.b/sub"
run b.prop write "$W.m" >"$T/b.run"
rm -rf "$W.b/out.log" "$W.b/sub"
run b.nrw write "$W.m" >"$T/b.bad"
rm -rf "$W.b"/*
# rm: nothing written, started in the bind mount's directory
: >"$W.m/gone"
printf 'description = r\ncommand = %s rm %s\n' "$TRY" "$W.m/gone" >"$T/br.svc"
(cd "$W.m" && "$CAPCTL" learn "$T/br.svc") >"$T/br.out" 2>"$T/br.err"
echo $? >"$T/br.rc"
sed -n '/^command = /d; p' "$T/br.out" >"$T/br.prop.svc"
grep -v '^read-write = ' "$T/br.prop.svc" >"$T/br.nrw.svc"
: >"$W.m/gone"
run br.prop rm "$W.m/gone" >"$T/br.run"
: >"$W.m/gone"
run br.nrw rm "$W.m/gone" >"$T/br.bad"
# rm, started in /: no way to tell
(cd / && "$CAPCTL" learn "$T/br.svc") >"$T/bu.out" 2>"$T/bu.err"
echo $? >"$T/bu.rc"
: >"$W.m/gone"
sed -n '/^command = /d; p' "$T/bu.out" >"$T/bu.prop.svc"
run bu.prop rm "$W.m/gone" >"$T/bu.run"
rm -f "$W.m/gone"
exit 0

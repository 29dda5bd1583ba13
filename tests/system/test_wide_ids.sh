#!/bin/sh
# User and group ids that 16 bits cannot hold, and lists of groups, as the
# kernel applies them: through capexec, and capinit's services.  On 32-bit
# ARM the plain setresuid, setgroups... system calls are the old 16-bit
# ones (engine/sysnum.h): a uid above 65535 was truncated, and the
# groups audio,video (29, 44) read as 16-bit halves became 29 and 0, the
# root group.  Natively these pass either way; on armhf (make ARCH=armhf
# check) they are the regression test.
#
# For each spec, the probe's view (its system calls, cross-checked with
# /proc/self/status: it fails on any mismatch) must equal the spec's ids
# and capctl explain's prediction.
B=${1:-build}
. tests/lib.sh
[ "$(id -u)" = 0 ] || { echo "# needs root"; t_ok 1 "run as root"; t_done; exit 1; }
CAPEXEC=$(pwd)/$B/bin/capexec

# the groups 100000..100063: more than one 32-bit word of anything
many=
i=0
while [ $i -lt 64 ]; do many="$many${many:+,}$((100000 + i))"; i=$((i + 1)); done
many_json=$(echo "$many" | sed 's/,/, /g')

# NAME | KEYS | UID GID | GROUPS as the probe prints them (sorted)
cat > "${TMPDIR:-/tmp}/wide-ids.$$" <<EOF
above-16-bits|user=100000 group=100001 groups=100002,29|100000 100001|29, 100002
first-beyond-16-bits|user=65536 group=65536 groups=65536|65536 65536|65536
last-16-bit|user=65535 group=65535 groups=65535|65535 65535|65535
largest-id|user=4294967294 group=4294967294 groups=4294967294|4294967294 4294967294|4294967294
audio-video|user=nobody groups=audio,video|65534 65534|29, 44
many-groups|user=100000 group=100000 groups=$many|100000 100000|$many_json
EOF
specs=${TMPDIR:-/tmp}/wide-ids.$$
. tests/supervise_lib.sh
sv_init
mv "$specs" "$T/specs"
# the ids below must reach the probe: a copy outside the checkout, which
# may be in a 0700 directory
cp "$PROBE" "$T/probe"
PROBE=$T/probe

fields() { # JSON on stdin -> "key value" lines of the id fields
  sed -n 's/^ *"\(uid\|euid\|suid\|gid\|egid\|sgid\|groups\)": \(.*\)$/\1 \2/p' | sed 's/,$//'
}
while IFS='|' read -r name keys ids groups; do
  set --
  for k in $keys; do set -- "$@" -k "$k"; done
  "$CAPEXEC" "$@" -- "$PROBE" > "$T/probe.json" 2>"$T/probe.err"
  rc=$?
  u=${ids% *} g=${ids#* }
  t_eq "$rc $(fields < "$T/probe.json" | tr '\n' ' ')$(cat "$T/probe.err")" \
    "0 uid $u euid $u suid $u gid $g egid $g sgid $g groups [$groups] " \
    "$name: capexec: the kernel holds exactly the ids ($keys), the probe's system calls agree with /proc/self/status"
  "$CAPCTL" explain --json "$@" -- "$PROBE" 2>&1 | fields > "$T/explain"
  fields < "$T/probe.json" > "$T/kernel"
  cmp -s "$T/explain" "$T/kernel"
  st=$?
  t_ok $st "$name: capctl explain predicts those ids"
  [ $st = 0 ] || diff "$T/explain" "$T/kernel" | sed 's/^/#   /'
  # the same spec as a service of capinit
  { for k in $keys; do echo "$k" | sed 's/=/ = /'; done
    echo "command = $PROBE"
    echo "type = oneshot"; } | sed 's/^groups = $/groups =/' | svc "$name"
done < "$T/specs"

# capinit: the same specs as oneshots; each logs what the probe saw
sv_start
t_ok $? "capinit starts with the $(wc -l < "$T/specs") specs as oneshots"
while IFS='|' read -r name keys ids groups; do
  sv_wait "$name" up 10
  u=${ids% *} g=${ids#* }
  # each log line: a timestamp, a blank, a line of the probe's
  t_eq "$(sed 's/^[^ ]* //' "$T/log/$name.log" 2>&1 | fields | tr '\n' ' ')" \
    "uid $u euid $u suid $u gid $g egid $g sgid $g groups [$groups] " \
    "$name: capinit: the service ran with exactly the ids ($keys)"
done < "$T/specs"
sv_stop
t_eq "$sv_rc" 0 "capinit exits 0 on SIGTERM"
t_done

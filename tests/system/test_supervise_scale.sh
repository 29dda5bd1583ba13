#!/bin/sh
# capinit at scale and the privilege engine through capinit:
#   1. 1000 services start, all show up in `capctl status --json`, and all
#      stop on SIGTERM (exit 0, no process left);
#   2. differential specs (from test_differential.sh) run as oneshot
#      services whose command is the probe: the credentials it logs equal
#      those capexec gives for the same keys;
#   3. `capctl verify` passes on longrun versions of them, and fails once a
#      running service's binary gets file capabilities the process does
#      not have (the prediction no longer matches the live process).
B=${1:-build}
. tests/lib.sh
. tests/supervise_lib.sh
PY=/usr/bin/python3
[ -x "$PY" ] || PY=python3
CAPEXEC=$(pwd)/$B/bin/capexec
sv_init
TS='[0-9][0-9][0-9][0-9]-[0-9][0-9]-[0-9][0-9]T[0-9][0-9]:[0-9][0-9]:[0-9][0-9]\.[0-9][0-9][0-9]Z '
mono_ms() { "$HELPER" exit 0 "$T/mono" && tail -n 1 "$T/mono" | cut -d' ' -f2; }

# ------------------------------------------------ 1000 services
N=1000
i=0
while [ $i -lt $N ]; do
  name=$(printf 's%04d' $i)
  log="file"
  [ $((i % 2)) = 1 ] && log=none
  printf 'command = %s stamp %s/stamps\nlog = %s\nenvironment = SVC_NAME=%s\n' "$HELPER" "$T" "$log" "$name" \
    > "$T/c/services/$name.svc"
  i=$((i + 1))
done
cat > "$T/count.py" <<'EOF'
import json, sys
v = json.load(sys.stdin)
print(len(v), sum(1 for s in v if s["state"] == "up" and s["pid"] > 0))
EOF
t0=$(mono_ms)
sv_start
t_ok $? "capinit starts with $N services"
# (bounded by 300 s: about 5 s here, on an idle machine)
polls=0
while [ $(( $(mono_ms) - t0 )) -lt 300000 ]; do
  polls=$((polls + 1))
  got=$(sv_ctl status --json | "$PY" "$T/count.py")
  [ "$got" = "$N $N" ] && break
  sleep 0.1
done
t1=$(mono_ms)
t_eq "$got" "$N $N" "status --json lists $N services, all up with a pid"
# up at its exec; the stamp, each one's first act, may follow
stamped() { [ "$(wc -l < "$T/stamps")" -ge $N ]; }
i=0
while ! stamped && [ $i -lt 1200 ]; do sleep 0.05; i=$((i + 1)); done
last=$(cut -d' ' -f2 "$T/stamps" | sort -n | tail -n 1)
t_eq "$(wc -l < "$T/stamps") $(cut -d' ' -f1 "$T/stamps" | sort -u | wc -l)" "$N $N" "each of the $N services ran its command once"
t_eq "$(sv_ctl status >/dev/null; echo $?)" 0 "capctl status: exit 0 (all up)"
fds=$(ls /proc/"$(sv_pid)"/fd | wc -l)
s0=$(mono_ms)
sv_stop
s1=$(mono_ms)
t_eq "$sv_rc" 0 "SIGTERM: capinit stops $N services and exits 0"
t_eq "$(tail -n 1 "$T/capinit.out")" "capinit: every service is down" "... after every service was reaped"
# (the bracket keeps grep from finding its own command line)
left=$(grep -l "$T/stamp[s]" /proc/[0-9]*/cmdline 2>/dev/null | wc -l)
t_eq "$left" 0 "no service process is left"
echo "# summary: $N services: last started $((last - t0)) ms after capinit was launched, all up in status after $((t1 - t0)) ms ($polls polls); capinit held $fds descriptors; SIGTERM to exit $((s1 - s0)) ms"

# ------------------------------------------------ the engine through capinit
rm -f "$T"/c/services/* "$T"/log/*
mk() { # NAME OWNER MODE [SETCAP], a probe copy and a svc_helper copy (hNAME)
  for f in "$1:$PROBE" "h$1:$HELPER"; do
    cp "${f#*:}" "$T/${f%%:*}"
    chown "$2" "$T/${f%%:*}"
    chmod "$3" "$T/${f%%:*}"
    if [ -n "${4:-}" ]; then setcap "$4" "$T/${f%%:*}" || echo "# setcap $4 failed"; fi
  done
}
mk plain root:root 0755
mk tamper root:root 0755
mk suid-root root:root 4755
mk suid-daemon daemon:root 4755
mk sgid-audio root:audio 2755
mk fcap-ep root:root 0755 cap_net_raw+ep
mk fcap-p root:root 0755 cap_net_raw+p
mk fcap-ei root:root 0755 cap_net_raw+ei
mk fcap-empty root:root 0755 =
mk suid-fcap root:root 0755 cap_net_raw+ep
chmod 4755 "$T/suid-fcap" "$T/hsuid-fcap"   # after setcap: chown would clear the xattr

SP=noroot,noroot-locked,no-setuid-fixup,no-setuid-fixup-locked,keep-caps,keep-caps-locked
# NAME|TARGET|keys, as in test_differential.sh; an uncontained noroot
# uid 0 owns capinit's files (root's): its credentials are what is
# compared here, so those say writes-capinit-state = yes (capinit warns)
cat > "$T/specs" <<EOF
root-plain|plain|
root-caps3|plain|capabilities=net_raw,chown,kill
root-bnd-partial|plain|bounding=net_raw,chown,net_bind_service
root-bnd-none|plain|bounding=none
root-nnp|plain|no-new-privileges=yes
root-noroot|plain|mode=noroot writes-capinit-state=yes
root-noroot-caps|plain|mode=noroot capabilities=net_raw writes-capinit-state=yes
root-sb-0x4|plain|securebits=no-setuid-fixup
root-sb-0x3f|plain|securebits=$SP
root-sb-0xc0-caps|plain|securebits=no-cap-ambient-raise,no-cap-ambient-raise-locked capabilities=net_raw
nobody-plain|plain|user=nobody
nobody-groups|plain|user=nobody groups=audio,video
nobody-caps2|plain|user=nobody capabilities=net_raw,net_bind_service
nobody-caps-nnp|plain|user=nobody capabilities=net_raw no-new-privileges=yes
nobody-noroot|plain|user=nobody mode=noroot capabilities=net_bind_service no-new-privileges=yes
nobody-bnd-partial-caps|plain|user=nobody bounding=net_raw,chown capabilities=net_raw
uid1234-caps|plain|user=1234 group=1234 groups= capabilities=net_raw mode=noroot
suid-root-by-nobody|suid-root|user=nobody
suid-root-noroot|suid-root|user=nobody mode=noroot
suid-root-noroot-uid0|suid-root|mode=noroot bounding=none writes-capinit-state=yes
suid-root-nnp|suid-root|user=nobody no-new-privileges=yes
suid-daemon-by-root|suid-daemon|capabilities=net_raw
suid-daemon-sb-0x4|suid-daemon|securebits=no-setuid-fixup
sgid-in-groups|sgid-audio|user=nobody groups=audio capabilities=net_raw
sgid-nnp|sgid-audio|user=nobody groups=audio capabilities=net_raw no-new-privileges=yes
fcap-ep-nobody|fcap-ep|user=nobody
fcap-ep-nobody-nnp|fcap-ep|user=nobody no-new-privileges=yes
fcap-ep-noroot|fcap-ep|user=nobody mode=noroot capabilities=net_raw
fcap-ep-root-noroot|fcap-ep|mode=noroot bounding=net_raw writes-capinit-state=yes
fcap-p-bnd-out|fcap-p|user=nobody bounding=chown
fcap-ei-inh|fcap-ei|user=nobody capabilities=net_raw
fcap-empty-nobody|fcap-empty|user=nobody capabilities=net_raw
suid-fcap-noroot|suid-fcap|user=nobody mode=noroot capabilities=net_bind_service
fcap-ep-bnd-out|fcap-ep|user=nobody bounding=chown
EOF
# one spec as a service file, on stdout
svcfile() { # NAME KIND COMMAND KEY=VALUE...
  kind=$2 cmd=$3
  shift 3
  {
    echo "type = $kind"
    echo "command = $cmd"
    for k in "$@"; do echo "${k%%=*} = ${k#*=}"; done
  }
}
fields() { # JSON on stdin -> "key value" lines of the 15 credential fields
  sed -n 's/^ *"\(uid\|euid\|suid\|gid\|egid\|sgid\|groups\|securebits\|cap_inh\|cap_prm\|cap_eff\|cap_bnd\|cap_amb\|no_new_privs\|at_secure\)": \(.*\)$/\1 \2/p' |
    sed 's/,$//'
}
nspec=0
while IFS='|' read -r name target keys; do
  [ -n "$name" ] || continue
  nspec=$((nspec + 1))
  # shellcheck disable=SC2086
  svcfile "$name" oneshot "$T/$target" $keys > "$T/c/services/p-$name.svc"
  # shellcheck disable=SC2086
  svcfile "$name" longrun "$T/h$target stamp /dev/null" $keys > "$T/c/services/v-$name.svc"
done < "$T/specs"
# the tamper target: a plain copy of the helper, as nobody
svcfile tamper longrun "$T/htamper stamp /dev/null" user=nobody > "$T/c/services/v-tamper.svc"

sv_start
t_ok $? "capinit starts with $nspec probe oneshots and $((nspec + 1)) longruns"
i=0
while [ $i -lt 1200 ]; do
  sv_ctl status --json > "$T/st.json"
  "$PY" - "$T/st.json" > "$T/settled" <<'EOF'
import json, sys
v = json.load(open(sys.argv[1]))
print(sum(1 for s in v if s["state"] not in ("up", "failed")))
EOF
  [ "$(cat "$T/settled")" = 0 ] && break
  sleep 0.1
  i=$((i + 1))
done
t_eq "$(cat "$T/settled")" 0 "every service settled (up, or failed)"

same=0
refused=0
while IFS='|' read -r name target keys; do
  [ -n "$name" ] || continue
  set --
  for k in $keys; do set -- "$@" -k "$k"; done
  [ $# -gt 0 ] || set -- -k "description=$name"
  "$CAPEXEC" "$@" -- "$T/$target" > "$T/out" 2>"$T/err"
  rc=$?
  st=$(sv_field "p-$name" state)
  if [ $rc != 0 ]; then
    # refused (F5: an +ep file outside the bounding set): by capinit too,
    # at the same stage
    refused=$((refused + 1))
    ce=$(sed -n 's/.*(stage \([a-z]*\)).*/\1/p' "$T/err")
    ci=$(sv_field "p-$name" failure | sed -n 's/^stage \([a-z]*\):.*/\1/p')
    t_eq "$st ${ci:-?}" "failed ${ce:-(capexec names no stage)}" "$name: refused by capinit at stage ${ce:-?}, as by capexec"
    continue
  fi
  fields < "$T/out" > "$T/want"
  cp "$T/want" "$T/p-$name.want"
  # the oneshot is up once it has exited; its output may reach the log
  # just after: wait for its 15 fields
  k=0
  while [ "$(sed -n "s/^$TS//p" "$T/log/p-$name.log" 2>/dev/null | fields | wc -l)" -lt 15 ] && [ "$st" = up ] && [ $k -lt 1200 ]; do
    sleep 0.05
    k=$((k + 1))
  done
  sed -n "s/^$TS//p" "$T/log/p-$name.log" | fields > "$T/got"
  if [ "$st" = up ] && [ "$(wc -l < "$T/want")" = 15 ] && cmp -s "$T/want" "$T/got"; then
    same=$((same + 1))
    t_ok 0 "$name: the probe started by capinit = the probe under capexec"
  else
    t_ok 1 "$name: the probe started by capinit = the probe under capexec (state $st)"
    diff "$T/want" "$T/got" | sed 's/^/#   /'
    sed 's/^/#   /' "$T/err" "$T/log/p-$name.log"
  fi
done < "$T/specs"
t_ok $([ "$same" -ge 20 ] && [ "$refused" -ge 1 ] && echo 0 || echo 1) \
  "at least 20 specs compared field by field ($same), and refusals ($refused)"

# ------------------------------------------------ verify
running=$("$PY" -c 'import json, sys; print(sum(1 for s in json.load(sys.stdin) if s["type"] == "longrun" and s["state"] == "up"))' < "$T/st.json")
sv_ctl verify > "$T/verify" 2>"$T/verify.err"
rc=$?
nok=$(grep -c '^name=v-.*result=ok	processes=' "$T/verify")
t_eq "$rc:$nok" "0:$running" "capctl verify passes: all $running running longruns match the prediction"
t_ok $([ "$running" -ge 21 ] && echo 0 || echo 1) "... at least 20 of them, and the tamper target ($running)"
t_eq "$(grep -c 'result=differs' "$T/verify")" 0 "... none differs"
t_eq "$(sv_field v-sgid-in-groups state) $(sv_field v-sgid-in-groups cap_amb)" "up $(sed -n 's/^cap_amb //p' "$T/p-sgid-in-groups.want" | tr -d '"')" \
  "F6 case included: v-sgid-in-groups runs with the ambient set capexec's probe reports ($(sv_field v-sgid-in-groups cap_amb))"
grep -v 'result=ok\|result=skipped' "$T/verify" | sed 's/^/#   /'
sed 's/^/#   /' "$T/verify.err"
out=$(sv_ctl verify v-tamper)
t_eq "$?:$out" "0:name=v-tamper	result=ok	processes=1" "control: verify v-tamper passes before the tamper"
setcap cap_net_raw+ep "$T/htamper"
out=$(sv_ctl verify -p v-tamper 2>&1)
rc=$?
t_eq "$rc" 0 "cap_net_raw+ep set on the running binary: the process holds less than its file now gives: exit 0"
t_eq "$(echo "$out" | sed -n '$s/\tprocesses=.*//p')" "name=v-tamper	result=dropped" \
  "... result=dropped (predicted cap_net_raw, the process has none)"
t_eq "$(echo "$out" | sed -n '1s/.*\tresult=\([a-z]*\)\tfields=\([A-Za-z,]*\).*/\1 \2/p')" "dropped CapPrm,CapEff" \
  "... its process record (-p): dropped, on CapPrm and CapEff"
t_eq "$(sv_ctl verify v-nobody-plain >/dev/null; echo $?)" 0 "control: an untouched service still verifies"
sv_ctl restart v-tamper
i=0
while [ "$(sv_field v-tamper cap_prm)" != 0000000000002000 ] && [ $i -lt 1200 ]; do sleep 0.05; i=$((i + 1)); done
out=$(sv_ctl verify v-tamper)
t_eq "$?:$out" "0:name=v-tamper	result=ok	processes=1" "restarted from the tampered file, it has cap_net_raw and verifies again"
setcap -r "$T/htamper"
out=$(sv_ctl verify v-tamper 2>&1)
rc=$?
t_eq "$rc" 1 "the file capability removed while it runs with cap_net_raw: verify exits 1"
t_eq "$(echo "$out" | sed -n '1s/.*\tresult=\([a-z]*\)\tfield=\([A-Za-z]*\)\tlive=\([0-9a-f]*\)\tpredicted=\([0-9a-f]*\).*/\1 \2 \3 \4/p')" \
  "differs CapPrm 0000000000002000 0000000000000000" \
  "... result=differs, first on CapPrm: the process holds cap_net_raw, more than its file now gives"
t_eq "$(echo "$out" | sed -n 2p)" "capctl: error: 1 service differs from the prediction" "... and says so"
sv_stop
t_eq "$sv_rc" 0 "capinit exits 0"
echo "# summary: engine through capinit: $same of $nspec specs identical to capexec (15 fields each), $refused refused at the same stage; verify ok on $nok longruns, dropped and differs after the tampers"
t_done

#!/bin/sh
# Fault injection: every stage of the privilege engine, forced to fail
# (build/tests/capexec-fault, CAPINIT_FAULT_STAGE=NAME), under three specs.
# Each case must stop before exec (the command's marker file never
# appears), name the stage, and exit with the status capexec(8) documents
# for that stage's class.  The release binary has no fault layer at all.
B=${1:-build}
. tests/lib.sh
B=$(cd "$B" && pwd)
FAULT=$B/tests/capexec-fault
REL=$B/bin/capexec
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
chmod 1777 "$T"             # the non-root specs write their marker here
M=$T/marker

# --- the stage list, from the engine's stage table (conf/stages.h) -------
table=$(CAPINIT_FAULT_STAGE=list "$FAULT")
stages=$(echo "$table" | cut -d' ' -f1)
nstages=$(echo "$stages" | wc -l)
t_eq "$(echo "$stages" | head -n 1) $(echo "$stages" | tail -n 1) $nstages" "session exec 29" \
  "the stage table runs from session to exec ($nstages stages)"

# capexec(8), EXIT STATUS: the status of each stage's class, as the man
# page (what users read) states it: "*113*" then the stages it names
doc=$(awk '/^# EXIT STATUS/ { on = 1; next } /^# / { on = 0 }
  on && /^\*1[0-9][0-9]\*$/ { code = substr($0, 2, 3); next }
  on && code { n = split($0, w, "*"); for (i = 2; i <= n; i += 2) print w[i], code }
  on && /^$/ { code = "" }' docs/capexec.8.scd | grep -v '^ENOENT\|^EPERM\|^+' | sort -u)
code_of() { echo "$doc" | awk -v s="$1" '$1 == s { print $2; exit }'; }
bad=
for st in $stages; do
  [ "$(code_of "$st")" = "$(echo "$table" | awk -v s="$st" '$1 == s { print $2 }')" ] || bad="$bad $st"
done
t_eq "${bad:-none}" none "every stage's exit status in the table is the one capexec(8) documents"

# --- the specs: the same command in all (those with a private /tmp see $T
# through a bind) ------------------------------------------------------------
CMD="command=/bin/sh -c \"touch $M\""
# a root directory for the last: /usr bound read-only, the links of a
# merged /usr, and /m for the marker's directory
R=$T/root
mkdir -p "$R/proc" "$R/dev" "$R/tmp" "$R/usr" "$R/m"
for l in bin sbin lib lib32 lib64 libx32; do [ -L "/$l" ] && ln -s "$(readlink "/$l")" "$R/$l"; done
SPECS="legacy-root legacy-nonroot noroot ct-noroot ct-pids ct-root"
spec() { # NAME -> the -k arguments, one per line
  case $1 in
    legacy-root) printf '%s\n' "$CMD" ;;
    legacy-nonroot) printf '%s\n' "$CMD" user=nobody ;;
    noroot) printf '%s\n' "$CMD" user=nobody mode=noroot capabilities=net_bind_service no-new-privileges=yes ;;
    ct-noroot) printf '%s\n' 'command=/bin/sh -c "touch /mnt/marker"' user=nobody mode=noroot read-only=yes \
      "bind=$T:/mnt" private-tmp=yes network=none private-ipc=yes hostname=faults ;;
    ct-pids) printf '%s\n' "$CMD" user=nobody private-pids=yes read-only=yes "read-write=$T" ;;
    ct-root) printf '%s\n' 'command=/bin/sh -c "touch /m/marker"' "root-directory=$R" bind-ro=/usr \
      "bind=$T:/m" private-pids=yes hostname=faults ;;
  esac
}
run() { # BINARY SPEC: run it with the spec's keys; sets rc, leaves $T/err
  bin=$1 sp_=$2
  set --
  while IFS= read -r kv; do set -- "$@" -k "$kv"; done <<EOF
$(spec "$sp_")
EOF
  rm -f "$M"
  "$bin" "$@" >"$T/out" 2>"$T/err"
  rc=$?
}
marker() { if [ -e "$M" ]; then echo present; else echo absent; fi; }

cases=0
mounts0=$(cat /proc/self/mountinfo)
for sp in $SPECS; do
  # positive control: without a fault, the command runs
  unset CAPINIT_FAULT_STAGE
  run "$FAULT" "$sp"
  t_eq "exit $rc, marker $(marker), stderr '$(cat "$T/err")'" "exit 0, marker present, stderr ''" \
    "$sp: control without a fault: the command runs"
  for st in $stages; do
    CAPINIT_FAULT_STAGE=$st run "$FAULT" "$sp"
    msg=$(sed 's/^capexec: fatal: unable to .* (stage \([a-z]*\)): /stage \1: /' "$T/err")
    t_eq "exit $rc, marker $(marker), $(wc -l <"$T/err") line: $msg" \
      "exit $(code_of "$st"), marker absent, 1 line: stage $st: Operation not permitted" \
      "$sp: fault at stage $st: not executed, stage named, exit $(code_of "$st")"
    cases=$((cases + 1))
  done
done
echo "# summary: $cases fault cases ($nstages stages x 6 specs, 3 of them with containers)"
t_eq "$cases" "$((nstages * 6))" "every stage x spec case ran"
# the container's namespaces and mounts were the failed child's: none is
# left in this namespace, nor any process of the runs
t_eq "$(cat /proc/self/mountinfo)" "$mounts0" "no mount left behind in this mount namespace"
t_eq "$(ps -eo args | grep -c "^$FAULT")" 0 "no process of the fault runs left (reapers included)"

# an unknown stage name is a usage error, nothing runs
CAPINIT_FAULT_STAGE=nosuch run "$FAULT" legacy-root
t_eq "exit $rc, marker $(marker): $(cat "$T/err")" \
  "exit 100, marker absent: capexec: fatal: unknown stage 'nosuch' in CAPINIT_FAULT_STAGE" \
  "unknown fault stage: exit 100, not executed"

# --- the release binary has no fault layer ----------------------------------
strings "$FAULT" | grep -q CAPINIT_FAULT_STAGE
t_eq "$?" 0 "control: the fault build contains CAPINIT_FAULT_STAGE"
t_eq "$(strings "$REL" | grep -c CAPINIT_FAULT_STAGE)" 0 "the release capexec does not contain CAPINIT_FAULT_STAGE"
for sp in $SPECS; do
  ran=0
  for st in $stages nosuch; do
    CAPINIT_FAULT_STAGE=$st run "$REL" "$sp"
    [ "$rc:$(marker):$(cat "$T/err")" = "0:present:" ] && ran=$((ran + 1))
  done
  t_eq "$ran" "$((nstages + 1))" "$sp: the release capexec ignores CAPINIT_FAULT_STAGE (every stage, and an unknown one)"
done

t_done

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

# --- the stage list, from the source --------------------------------------
stages=$(sed -n '/priv_stage_names\[STAGE_COUNT\] = {/,/};/p' supervise/privilege.c |
  sed '1d;$d' | tr -d ' ,' | tr '"' '\n' | grep .)
enum=$(sed -n '/^enum priv_stage {/,/};/p' supervise/privilege.h |
  grep -o 'STAGE_[A-Z_]*' | grep -v '^STAGE_COUNT$')
nstages=$(echo "$stages" | wc -l)
t_eq "$nstages" "$(echo "$enum" | wc -l)" "priv_stage_names has one name per stage before STAGE_COUNT ($nstages)"
t_eq "$(echo "$stages" | tr a-z A-Z | sed 's/^/STAGE_/')" "$enum" "the names are the enum's, in the enum's order"

# capexec(8): the exit status of each stage's class
code_of() {
  case $1 in
    session|signals|directory|umask|rlimits) echo 111 ;;
    keepcaps|groups|gid|uid) echo 112 ;;
    effective|bounding|inheritable|ambient|caps) echo 113 ;;
    securebits|nnp) echo 114 ;;
    exec) echo 126 ;;
    *) echo "unknown stage $1" ;;
  esac
}

# --- the specs: the command is the same in all three -----------------------
CMD="command=/bin/sh -c \"touch $M\""
spec() { # NAME -> the -k arguments, one per line
  case $1 in
    legacy-root) printf '%s\n' "$CMD" ;;
    legacy-nonroot) printf '%s\n' "$CMD" user=nobody ;;
    noroot) printf '%s\n' "$CMD" user=nobody mode=noroot capabilities=net_bind_service no-new-privileges=yes ;;
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
for sp in legacy-root legacy-nonroot noroot; do
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
echo "# summary: $cases fault cases ($nstages stages x 3 specs)"
t_eq "$cases" "$((nstages * 3))" "every stage x spec case ran"

# an unknown stage name is a usage error, nothing runs
CAPINIT_FAULT_STAGE=nosuch run "$FAULT" legacy-root
t_eq "exit $rc, marker $(marker): $(cat "$T/err")" \
  "exit 100, marker absent: capexec: fatal: unknown stage 'nosuch' in CAPINIT_FAULT_STAGE" \
  "unknown fault stage: exit 100, not executed"

# --- the release binary has no fault layer ----------------------------------
strings "$FAULT" | grep -q CAPINIT_FAULT_STAGE
t_eq "$?" 0 "control: the fault build contains CAPINIT_FAULT_STAGE"
t_eq "$(strings "$REL" | grep -c CAPINIT_FAULT_STAGE)" 0 "the release capexec does not contain CAPINIT_FAULT_STAGE"
for sp in legacy-root legacy-nonroot noroot; do
  ran=0
  for st in $stages nosuch; do
    CAPINIT_FAULT_STAGE=$st run "$REL" "$sp"
    [ "$rc:$(marker):$(cat "$T/err")" = "0:present:" ] && ran=$((ran + 1))
  done
  t_eq "$ran" "$((nstages + 1))" "$sp: the release capexec ignores CAPINIT_FAULT_STAGE (every stage, and an unknown one)"
done

t_done

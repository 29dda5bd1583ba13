#!/bin/sh
# Security scenarios of capexec against the real kernel: what a service can
# still gain (setuid files, file capabilities), what it cannot undo
# (locked securebits), and what fails closed where setpriv does not (F1,
# F2 of docs/design.md).  Each scenario has a positive control that would fail
# if the fixture were broken; every value comes from the probe (syscalls
# cross-checked with /proc/self/status) and is compared exactly.
B=${1:-build}
. tests/lib.sh
B=$(cd "$B" && pwd)
CAPEXEC=$B/bin/capexec
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
chmod 1777 "$T"             # services run as nobody: they read and write here
M=$T/marker

# The start state, never assumed: this machine's bounding set may lack caps.
BND=$(awk '/^CapBnd:/ { print $2 }' /proc/self/status)
hexmask() { printf '%016x' "$1"; }
NET_RAW=$(hexmask $((1 << 13)))
RAW_CHOWN=$(hexmask $(((1 << 13) | 1)))
ZERO=$(hexmask 0)
t_eq "$(awk '/^CapPrm:/ { print $2 }' /proc/self/status)" "$BND" "start state: this root shell's permitted set is its bounding set ($BND)"

# get FILE KEY... -> "key=value key=value" from the probe's JSON
get() {
  f=$1
  shift
  out=
  for k in "$@"; do
    v=$(sed -n "s/^  \"$k\": \"*\([^\",]*\)\"*,*\$/\1/p" "$f")
    out="$out${out:+ }$k=$v"
  done
  echo "$out"
}
# run OUTFILE CMD...: run it, probe JSON in OUTFILE, stderr in $T/err, sets rc
run() {
  o=$1
  shift
  rm -f "$o"
  "$@" >"$o" 2>"$T/err"
  rc=$?
}
marker() { if [ -e "$M" ]; then echo present; else echo absent; fi; }

# --- fixtures: copies of the probe, readable and executable by nobody -----
cp "$B/tests/probe" "$T/probe"
cp "$T/probe" "$T/suid" && chmod 4755 "$T/suid"                 # setuid root
cp "$T/probe" "$T/raw_ep" && setcap cap_net_raw+ep "$T/raw_ep"
cp "$T/probe" "$T/two_p" && setcap cap_net_raw,cap_chown+p "$T/two_p"
cp "$T/probe" "$T/two_ep" && setcap cap_net_raw,cap_chown+ep "$T/two_ep"
chmod 755 "$T/probe" "$T/raw_ep" "$T/two_p" "$T/two_ep"
t_eq "$(stat -c '%a %U' "$T/suid"):$(getcap "$T/raw_ep" "$T/two_p" "$T/two_ep" | sed "s|$T/||" | tr '\n' ' ')" \
  "4755 root:raw_ep cap_net_raw=ep two_p cap_chown,cap_net_raw=p two_ep cap_chown,cap_net_raw=ep " \
  "fixtures: a setuid-root probe and three file-capability probes"

ALL="uid euid suid securebits cap_prm cap_eff cap_amb at_secure"

# --- a. a setuid-root binary in a noroot tree gains nothing -----------------
# bounding=all, so that only the securebits stand between euid 0 and root
run "$T/a1" "$CAPEXEC" -k user=nobody -k mode=noroot -k bounding=all -- "$T/suid"
t_eq "$rc $(get "$T/a1" $ALL cap_bnd)" \
  "0 uid=65534 euid=0 suid=0 securebits=47 cap_prm=$ZERO cap_eff=$ZERO cap_amb=$ZERO at_secure=true cap_bnd=$BND" \
  "a. setuid root under mode=noroot, bounding=all: euid 0, no capability"
run "$T/a2" "$CAPEXEC" -k user=nobody -k mode=noroot -- "$T/suid"
t_eq "$rc $(get "$T/a2" $ALL cap_bnd)" \
  "0 uid=65534 euid=0 suid=0 securebits=47 cap_prm=$ZERO cap_eff=$ZERO cap_amb=$ZERO at_secure=true cap_bnd=$ZERO" \
  "a. setuid root under mode=noroot (empty bounding set): euid 0, no capability"
run "$T/a3" "$CAPEXEC" -k user=nobody -- "$T/suid"
t_eq "$rc $(get "$T/a3" $ALL cap_bnd)" \
  "0 uid=65534 euid=0 suid=0 securebits=0 cap_prm=$BND cap_eff=$BND cap_amb=$ZERO at_secure=true cap_bnd=$BND" \
  "a. control: the same binary from a legacy non-root service becomes full root (P = E = bounding)"

# --- b. locked securebits stay locked ----------------------------------------
cp "$B/tests/secbits_try" "$T/secbits_try"
t_ok $? "b. the helper tests/secbits_try.c is built"
chmod 755 "$T/secbits_try"
OPS="set=0 or=0x10 keepcaps=1 or=0x40"    # clear all; + keep-caps; keep-caps; + no-cap-ambient-raise
run "$T/b1" "$CAPEXEC" -k user=nobody -k mode=noroot -k capabilities=setpcap -- "$T/secbits_try" $OPS
t_eq "$rc:$(tr '\n' ' ' <"$T/b1")" \
  "0:set=0 EPERM or=0x10 EPERM keepcaps=1 EPERM or=0x40 ok securebits 0x6f " \
  "b. noroot service holding cap_setpcap: cannot clear the locked bits nor set keep-caps (EPERM); can set the unlocked no-cap-ambient-raise"
run "$T/b2" "$CAPEXEC" -k user=nobody -k mode=noroot -- "$T/secbits_try" $OPS
t_eq "$rc:$(tr '\n' ' ' <"$T/b2")" \
  "0:set=0 EPERM or=0x10 EPERM keepcaps=1 EPERM or=0x40 EPERM securebits 0x2f " \
  "b. noroot service without capabilities: every change refused (EPERM), bits stay 0x2f"
run "$T/b3" "$CAPEXEC" -k user=root -- "$T/secbits_try" $OPS
t_eq "$rc:$(tr '\n' ' ' <"$T/b3")" \
  "0:set=0 ok or=0x10 ok keepcaps=1 ok or=0x40 ok securebits 0x50 " \
  "b. control: a legacy root service (no securebits) makes the same calls"

# --- c. nnp blocks a file capability, relative to the launcher (F2) ----------
run "$T/c1" "$CAPEXEC" -k user=nobody -k no-new-privileges=yes -- "$T/raw_ep"
t_eq "$rc $(get "$T/c1" $ALL no_new_privs)" \
  "0 uid=65534 euid=65534 suid=65534 securebits=0 cap_prm=$ZERO cap_eff=$ZERO cap_amb=$ZERO at_secure=true no_new_privs=true" \
  "c. cap_net_raw+ep binary, user=nobody, no-new-privileges=yes: nothing gained (AT_SECURE still set by the file's effective bit)"
run "$T/c2" "$CAPEXEC" -k user=nobody -- "$T/raw_ep"
t_eq "$rc $(get "$T/c2" $ALL no_new_privs)" \
  "0 uid=65534 euid=65534 suid=65534 securebits=0 cap_prm=$NET_RAW cap_eff=$NET_RAW cap_amb=$ZERO at_secure=true no_new_privs=false" \
  "c. control: the same without no-new-privileges gets cap_net_raw"
run "$T/c3" "$CAPEXEC" -k user=nobody -k capabilities=net_raw -k no-new-privileges=yes -- "$T/raw_ep"
t_eq "$rc $(get "$T/c3" $ALL no_new_privs)" \
  "0 uid=65534 euid=65534 suid=65534 securebits=0 cap_prm=$NET_RAW cap_eff=$NET_RAW cap_amb=$ZERO at_secure=true no_new_privs=true" \
  "c. nnp bounds by the launcher's P: a service that holds cap_net_raw itself keeps it through the file"
# F2: setpriv switches uid keeping its whole permitted set, and sets nnp
# with it still held; nnp then bounds the file's caps by that full set.
# capexec shrinks P to 'capabilities' (empty) before nnp and exec.
run "$T/c4" setpriv --reuid=65534 --regid=65534 --clear-groups --no-new-privs -- "$T/raw_ep"
t_eq "$rc $(get "$T/c4" $ALL no_new_privs)" \
  "0 uid=65534 euid=65534 suid=65534 securebits=0 cap_prm=$NET_RAW cap_eff=$NET_RAW cap_amb=$ZERO at_secure=true no_new_privs=true" \
  "c. F2, setpriv --reuid --no-new-privs (full P kept across the uid switch): the binary keeps cap_net_raw despite nnp; capexec: none (above)"
run "$T/c5" setpriv --reuid=65534 --regid=65534 --clear-groups --no-new-privs -- "$T/probe"
t_eq "$rc $(get "$T/c5" $ALL no_new_privs)" \
  "0 uid=65534 euid=65534 suid=65534 securebits=0 cap_prm=$ZERO cap_eff=$ZERO cap_amb=$ZERO at_secure=false no_new_privs=true" \
  "c. F2 control: the plain probe under the same setpriv has no capability"

# --- d. a refused ambient raise: capexec fails closed, setpriv does not (F1) --
# Fixture: root with the noroot bit, so that its exec does not refill P:
# P = I = A = the bounding set without cap_net_raw, which stays in bounding.
NOT_RAW=$(hexmask $((0x$BND & ~(1 << 13))))
LIST=$(capsh --decode=0x"$NOT_RAW" | sed 's/^[^=]*=//; s/cap_/+/g')
FIX="setpriv --securebits=+noroot --inh-caps=$LIST --ambient-caps=$LIST --"
run "$T/d0" $FIX "$T/probe"
t_eq "$rc $(get "$T/d0" uid securebits cap_prm cap_bnd)" \
  "0 uid=0 securebits=1 cap_prm=$NOT_RAW cap_bnd=$BND" \
  "d. fixture: a root launcher with cap_net_raw in its bounding set but not in its permitted set"
rm -f "$M"
run "$T/d1" $FIX "$CAPEXEC" -k user=nobody -k capabilities=net_raw -- /bin/sh -c "exec $T/probe > $M"
t_eq "exit $rc, marker $(marker): $(cat "$T/err")" \
  "exit 113, marker absent: capexec: fatal: unable to raise ambient cap_net_raw (stage ambient): Operation not permitted" \
  "d. capexec, capabilities=net_raw that the launcher lacks: exit 113, the command never runs"
rm -f "$M"
run "$T/d2" "$CAPEXEC" -k user=nobody -k capabilities=net_raw -- /bin/sh -c "exec $T/probe > $M"
t_eq "exit $rc, marker $(marker), $(get "$M" uid cap_prm cap_amb)" \
  "exit 0, marker present, uid=65534 cap_prm=$NET_RAW cap_amb=$NET_RAW" \
  "d. control: the same capexec from a launcher holding cap_net_raw runs the command with it"
rm -f "$M"
run "$T/d3" $FIX setpriv --reuid=65534 --regid=65534 --clear-groups --inh-caps=+net_raw --ambient-caps=+net_raw -- /bin/sh -c "exec $T/probe > $M"
t_eq "exit $rc, marker $(marker), $(get "$M" uid cap_prm cap_amb)" \
  "exit 0, marker present, uid=65534 cap_prm=$ZERO cap_amb=$ZERO" \
  "d. F1, setpriv --ambient-caps=+net_raw in the same fixture: ignores the refused raise and runs the command without the cap"

# --- e. the bounding set limits file capabilities (F5) ------------------------
SVC="-k user=nobody -k mode=noroot -k capabilities=net_raw"
run "$T/e1" "$CAPEXEC" $SVC -- "$T/two_p"
t_eq "$rc $(get "$T/e1" $ALL cap_bnd)" \
  "0 uid=65534 euid=65534 suid=65534 securebits=47 cap_prm=$NET_RAW cap_eff=$ZERO cap_amb=$ZERO at_secure=true cap_bnd=$NET_RAW" \
  "e. cap_net_raw,cap_chown+p file, bounding = net_raw: P = cap_net_raw only"
run "$T/e2" "$CAPEXEC" $SVC -k bounding=net_raw,chown -- "$T/two_p"
t_eq "$rc $(get "$T/e2" $ALL cap_bnd)" \
  "0 uid=65534 euid=65534 suid=65534 securebits=47 cap_prm=$RAW_CHOWN cap_eff=$ZERO cap_amb=$ZERO at_secure=true cap_bnd=$RAW_CHOWN" \
  "e. control: bounding = net_raw,chown: P = both"
run "$T/e3" "$CAPEXEC" $SVC -- "$T/two_ep"
t_eq "exit $rc, output '$(cat "$T/e3")': $(cat "$T/err")" \
  "exit 126, output '': capexec: fatal: unable to execute $T/two_ep (stage exec): Operation not permitted" \
  "e. cap_net_raw,cap_chown+ep file, bounding = net_raw: execve refused (EPERM), a start failure"
run "$T/e4" "$CAPEXEC" $SVC -k bounding=net_raw,chown -- "$T/two_ep"
t_eq "$rc $(get "$T/e4" $ALL cap_bnd)" \
  "0 uid=65534 euid=65534 suid=65534 securebits=47 cap_prm=$RAW_CHOWN cap_eff=$RAW_CHOWN cap_amb=$ZERO at_secure=true cap_bnd=$RAW_CHOWN" \
  "e. control: the same +ep file with both caps in the bounding set runs with P = E = both"

# --- f. exec of a privileged file clears ambient ------------------------------
run "$T/f0" "$CAPEXEC" $SVC -- "$T/probe"
t_eq "$rc $(get "$T/f0" $ALL)" \
  "0 uid=65534 euid=65534 suid=65534 securebits=47 cap_prm=$NET_RAW cap_eff=$NET_RAW cap_amb=$NET_RAW at_secure=false" \
  "f. control: the plain probe keeps the ambient cap_net_raw"
run "$T/f1" "$CAPEXEC" $SVC -- "$T/raw_ep"
t_eq "$rc $(get "$T/f1" $ALL)" \
  "0 uid=65534 euid=65534 suid=65534 securebits=47 cap_prm=$NET_RAW cap_eff=$NET_RAW cap_amb=$ZERO at_secure=true" \
  "f. a file-capability binary: ambient cleared (its cap comes from the file: F3, noroot does not disable file caps)"
run "$T/f2" "$CAPEXEC" $SVC -- "$T/suid"
t_eq "$rc $(get "$T/f2" $ALL)" \
  "0 uid=65534 euid=0 suid=0 securebits=47 cap_prm=$ZERO cap_eff=$ZERO cap_amb=$ZERO at_secure=true" \
  "f. a setuid-root binary: ambient cleared, no capability"

# --- g. a launcher without cap_setpcap (regression) ---------------------------
# The engine's own PR_SET_KEEPCAPS is a securebit; left on, a legacy spec
# (securebits 0) needed CAP_SETPCAP to clear it and failed at securebits.
NO_SETPCAP=$(hexmask $((0x$BND & ~(1 << 8))))
run "$T/g0" capsh --drop=cap_setpcap -- -c "exec $T/probe"
t_eq "$rc $(get "$T/g0" uid cap_prm cap_bnd)" "0 uid=0 cap_prm=$NO_SETPCAP cap_bnd=$NO_SETPCAP" \
  "g. fixture: a root launcher without cap_setpcap"
run "$T/g1" capsh --drop=cap_setpcap -- -c "exec $CAPEXEC -k user=nobody -- $T/probe"
t_eq "$rc $(get "$T/g1" $ALL cap_bnd): $(cat "$T/err")" \
  "0 uid=65534 euid=65534 suid=65534 securebits=0 cap_prm=$ZERO cap_eff=$ZERO cap_amb=$ZERO at_secure=false cap_bnd=$NO_SETPCAP: " \
  "g. legacy user=nobody from that launcher: runs, securebits 0"
run "$T/g2" capsh --drop=cap_setpcap -- -c "exec $CAPEXEC -k user=nobody -k mode=noroot -k bounding=all -- $T/probe"
t_eq "exit $rc: $(cat "$T/err")" \
  "exit 114: capexec: fatal: unable to set securebits noroot,noroot-locked,no-setuid-fixup,no-setuid-fixup-locked,keep-caps-locked (0x2f) (stage securebits): Operation not permitted" \
  "g. control: mode=noroot from that launcher needs cap_setpcap and fails closed"

n=$(grep -c '^# --- [a-z]\. ' "$0")
echo "# summary: security scenarios: $n (each with its positive control)"
t_done

#!/bin/sh
# capctl verify looks at every process of a service, not only its main
# one, and tells a process that holds less than its file allows
# ("dropped", exit 0) from one that holds more ("differs", exit 1).
#
#   tree     legacy root, a shell with four children: one as it is, one
#            that gave up its supplementary groups (capexec groups=, as
#            sshd does), one that left the session (setsid: still a
#            descendant), and a grandchild that left the session and whose
#            parent exited (reparented to capinit: no longer known to be
#            the service's, capinit(8)).  verify -p lists exactly the
#            pids the shell wrote down, the ones as /proc/PID/status says.
#   gain     nobody, noroot, no capability, bounding cap_net_raw, without
#            no_new_privs: a child executes a copy of sleep that has
#            cap_net_raw+ep, and holds it: differs, on CapPrm, naming
#            that child; control gain-ctl: the same with a plain copy.
B=${1:-build}
. tests/lib.sh
. tests/supervise_lib.sh
sv_init
CAPEXEC=$(pwd)/$B/bin/capexec
mkdir -p "$T/bin" "$T/pids"
chmod 777 "$T/pids"
cp /bin/sleep "$T/bin/sleep-raw"
cp /bin/sleep "$T/bin/sleep-plain"
setcap cap_net_raw+ep "$T/bin/sleep-raw"
chmod 755 "$T/bin" "$T/bin/sleep-raw" "$T/bin/sleep-plain"

# shellcheck disable=SC2016
svc tree <<EOF
command = /bin/sh -c "echo \$\$ > $T/pids/main; /bin/sleep 41001 & echo \$! > $T/pids/same; $CAPEXEC -k groups= -- /bin/sleep 41002 & echo \$! > $T/pids/nogroups; /usr/bin/setsid /bin/sleep 41003 & echo \$! > $T/pids/session; /usr/bin/setsid /bin/sh -c '/bin/sleep 41004 & echo \$! > $T/pids/escaped' & while :; do wait; done"
groups = 0, 4
EOF
svc gain <<EOF
command = /bin/sh -c "$T/bin/sleep-raw 41005 & echo \$! > $T/pids/raw; while :; do wait; done"
user = nobody
mode = noroot
bounding = net_raw
EOF
svc gain-ctl <<EOF
command = /bin/sh -c "$T/bin/sleep-plain 41006 & echo \$! > $T/pids/plain; while :; do wait; done"
user = nobody
mode = noroot
bounding = net_raw
EOF

sv_start
t_ok $? "capinit starts"
sv_wait tree up 10 && sv_wait gain up 10 && sv_wait gain-ctl up 10
t_ok $? "tree, gain and gain-ctl are up"
n=0
while [ "$(ls "$T/pids" | wc -l)" -lt 7 ] && [ $n -lt 200 ]; do sleep 0.05; n=$((n + 1)); done
t_eq "$(ls "$T/pids" | tr '\n' ' ')" "escaped main nogroups plain raw same session " "every process wrote its pid"
# the pids as capinit sees them (its PID namespace) are the ones written
p() { cat "$T/pids/$1"; }
# wait until the escaped grandchild's parent is gone (it is then capinit's)
n=0
while [ "$(sv_in sed -n 's/^PPid:[[:space:]]*//p' "/proc/$(p escaped)/status")" != 1 ] && [ $n -lt 200 ]; do
  sleep 0.05
  n=$((n + 1))
done
t_eq "$(sv_in sed -n 's/^PPid:[[:space:]]*//p' "/proc/$(p escaped)/status")" 1 \
  "the escaped grandchild is capinit's child now (PPid 1)"

# ------------------------------------------------ tree: dropped, every process
out=$(sv_ctl verify tree)
t_eq "$?:$(echo "$out" | tr '\t' ' ')" "0:name=tree result=dropped processes=4 dropped=1" \
  "verify tree: 4 processes, one holds less (no groups): dropped, exit 0"
sv_ctl verify -p tree > "$T/tree.p"
t_eq "$(sed -n 's/^process=\([0-9]*\)\t.*/\1/p' "$T/tree.p" | sort -n | tr '\n' ' ')" \
  "$(for f in main same nogroups session; do p $f; done | sort -n | tr '\n' ' ')" \
  "verify -p: exactly the shell, its child as it is, the one without groups, the one in a session of its own"
t_eq "$(grep -c "^process=$(p escaped)	" "$T/tree.p")" 0 \
  "... not the grandchild that left the session and lost its parent"
rec() { grep "^process=$(p "$1")	" "$T/tree.p" | tr '\t' '\n' | sed -n "s/^$2=//p"; }
t_eq "$(rec nogroups result) $(rec nogroups fields) $(rec nogroups groups)" "dropped Groups -" \
  "the child run by capexec -k groups=: dropped, Groups, none left"
t_eq "$(rec nogroups groups)" "$(sv_in sed -n 's/^Groups:[[:space:]]*//p' "/proc/$(p nogroups)/status" | sed 's/ *$//; s/^$/-/')" \
  "... as its /proc/PID/status says"
t_eq "$(rec same result) $(rec session result) $(rec main result)" "same same same" \
  "the others: same as predicted (groups 0 4, legacy root)"
t_eq "$(rec main groups)" "$(sv_in sed -n 's/^Groups:[[:space:]]*//p' "/proc/$(p main)/status" | sed 's/ *$//')" \
  "control: the shell's groups are those of its /proc/PID/status ($(rec main groups))"
t_eq "$(rec session ppid)" "$(p main)" "the child in its own session is found through its parent"

# ------------------------------------------------ gain: a child holds more
out=$(sv_ctl verify gain 2>&1)
rc=$?
t_eq "$rc" 1 "verify gain: exit 1"
t_eq "$(echo "$out" | head -n 1 | tr '\t' ' ')" \
  "name=gain result=differs field=CapPrm live=0000000000002000 predicted=0000000000000000 pid=$(p raw) comm=sleep-raw processes=2" \
  "... the child that executed a cap_net_raw+ep file holds it: differs on CapPrm, named by pid"
t_eq "$(echo "$out" | sed -n 2p)" "capctl: error: 1 service differs from the prediction" "... and says so"
t_eq "$(sv_in sed -n 's/^CapPrm:[[:space:]]*//p' "/proc/$(p raw)/status")" 0000000000002000 \
  "... as its /proc/PID/status says"
out=$(sv_ctl verify gain-ctl)
t_eq "$?:$(echo "$out" | tr '\t' ' ')" "0:name=gain-ctl result=ok processes=2" \
  "control: gain-ctl, the same with a plain copy: ok, 2 processes"
out=$(sv_ctl verify tree gain-ctl)
t_eq "$?:$(echo "$out" | tr '\t' '\n' | grep -c '^result=')" "0:2" "control: tree and gain-ctl together pass"

sv_stop
t_eq "$sv_rc" 0 "capinit exits 0"
t_done

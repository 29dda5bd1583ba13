#!/bin/sh
# Issue 33, the kernel log channel (log = kmsg): a service's output goes
# to /dev/kmsg through capinit, which writes it as root.  The attacker
# prints lines that carry a priority of their own ("<3>") and a second
# line inside one write, hoping for records of its choosing.  Judged from
# the kernel's own records (/dev/kmsg, read back): every line is one
# record of level 6 that starts with the service's name, and each record
# is whole at once (ended by its newline: the kernel shows an open record
# to no reader until the next one comes).  The positive
# control: the same "<3>" written to /dev/kmsg directly by root makes a
# record of level 3 (the prefix would matter).
B=${1:-build}
. tests/lib.sh
. tests/supervise_lib.sh
sv_init
MARK=capinit-kmsg-$$-$(date +%s%N)
records() { # the kernel log's records holding MARK: "PRIORITY TEXT"
  dd if=/dev/kmsg iflag=nonblock bs=8192 2>/dev/null | grep -a "$MARK" |
    sed -n 's/^\([0-9]*\),[0-9]*,[0-9]*,[^;]*;\(.*\)$/\1 \2/p'
}
svc km <<EOF
type = oneshot
mode = noroot
read-only = yes
log = kmsg
command = /bin/sh -c "printf '<3>forged $MARK\\\\nsecond <0>$MARK\\\\n'; printf '%s\\\\n' 'plain $MARK'"
EOF
sv_start || { t_ok 1 "capinit starts"; t_done; exit 1; }
sv_wait km up
t_ok $? "km ran"
n=0
while [ "$(records | grep -c "km: ")" -lt 3 ] && [ $n -lt 1200 ]; do sleep 0.05; n=$((n + 1)); done
# (a record's number is facility * 8 + level: a write to /dev/kmsg is of
# the user facility, 1)
t_eq "$(records | grep "km: " | sed 's/^\([0-9]*\) .*/\1/' | tr '\n' ' ')" "14 14 14 " \
  "kmsg: the service's three lines are three records of level 6 (user.info), whatever they carry"
t_eq "$(records | grep "km: " | sed 's/^[0-9]* //')" "km: <3>forged $MARK
km: second <0>$MARK
km: plain $MARK" "kmsg: each starts with the service's name; its '<3>' and '<0>' stay text"
printf '<3>control %s\n' "$MARK" > /dev/kmsg
n=0
while ! records | grep -q "control $MARK" && [ $n -lt 200 ]; do sleep 0.05; n=$((n + 1)); done
t_eq "$(records | grep "control $MARK")" "11 control $MARK" \
  "control: '<3>' written to /dev/kmsg directly is level 3 (user.err)"
sv_stop
t_eq "$sv_rc" 0 "capinit exits 0"
t_done

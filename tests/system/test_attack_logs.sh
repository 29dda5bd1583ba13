#!/bin/sh
# Issue 33: capinit never writes for a service.  Each attack runs inside a
# service under capinit, as an attacker would: mode = noroot, uid 0 (which
# owns root's files), read-only = yes with read-write over capinit's log
# directory (or its runtime directory), which its file must accept with
# writes-capinit-state = yes (capctl check refuses it otherwise: this is
# what holds when it is accepted).  It plants, at the names capinit
# works at with all of root's power:
#   sym    NAME.log as a symbolic link to a host file it cannot write
#   hard   NAME.log as a hard link to a root-owned file (same file system)
#   rot    the rotation targets NAME.log.1 and .2 as non-empty directories
#   trunc  (log-keep = 0) NAME.log swapped for a link after capinit opened it
#   nl     RUNDIR/notify/NAME as a link to a host file (capinit used to
#          chmod the path after bind)
#   nd     RUNDIR/notify as a link to a directory holding a file NAME
#          (capinit used to unlink RUNDIR/notify/NAME)
# Ground truth is on the host: each victim's content, size, mode and link
# count, unchanged; the service's lines on capinit's console ($T/capinit.out)
# instead, and the warning said once.  Positive controls: a service
# writing its log normally (rotated with plain files, emptied with
# log-keep = 0), each plant really in place, a notify service with a
# socket of mode 0666.  Negative twin: once the attacker removes its link,
# logging to the file resumes, and capinit says so once.
# /run/initctl exists only for PID 1 of a machine: tests/qemu/test_boot.sh
# uses it; its checks (a FIFO of capinit's, mode 0000, one name) are not
# reachable here (skipped below, with the reason).
B=${1:-build}
. tests/lib.sh
. tests/supervise_lib.sh
sv_init
W=$T/w          # what the attacking services may write
L=$W/log        # capinit's log directory, inside it
mkdir -p "$L" "$T/bin"
printf 'secret\n' > "$T/victim"          # outside the services' writable view
printf 'root file\n' > "$W/victim2"      # inside it: the same mount as $L
chmod 600 "$T/victim" "$W/victim2"
printf 'log-directory = %s\nlog-max-size = 4K\nlog-keep = 2\n' "$L" > "$T/c/capinit.conf"
PAD=$(printf '%0100d' 0)

# the host's view of a file: content digest, size, mode, links
truth() { # FILE
  echo "$(sha256sum < "$1" | cut -c1-16) $(stat -c '%s %a %h' "$1")"
}
v1=$(truth "$T/victim")
v2=$(truth "$W/victim2")
v2h=${v2%1}2    # the same, with the attacker's second link
wait_for() { # CMD...: every 0.05 s, at most 60 s
  i=0
  while ! "$@" && [ $i -lt 1200 ]; do sleep 0.05; i=$((i + 1)); done
  "$@"
}
on_console() { grep -qxF -- "$1" "$T/capinit.out"; }
console_count() { grep -cF -- "$1" "$T/capinit.out"; }
attacker() { # NAME SCRIPT: a noroot uid 0 service that may write $W
  printf '%s\n' "$2" > "$T/bin/$1.sh"
  svc "$1" <<EOF
command = /bin/sh $T/bin/$1.sh
user = root
mode = noroot
read-only = yes
read-write = $W
writes-capinit-state = yes
EOF
}
warning() { # NAME FILE WHY
  echo "capinit: service $1: warning: unable to log to $L/$2: $3: its lines go to the console"
}

attacker sym "ln -s $T/victim $L/sym.log
i=0; while [ ! -e $W/go-sym ]; do echo \"sym early \$i\"; i=\$((i+1)); sleep 0.1; done
rm $L/sym.log
i=0; while :; do echo \"sym late \$i\"; i=\$((i+1)); sleep 0.1; done"
attacker hard "ln $W/victim2 $L/hard.log
i=0; while :; do echo \"hard line \$i\"; i=\$((i+1)); sleep 0.1; done"
attacker rot "mkdir -p $L/rot.log.1/x $L/rot.log.2/x
i=0; while [ \$i -lt 100 ]; do echo \"rot line \$i $PAD\"; i=\$((i+1)); done
exec sleep 1000"
attacker plain "i=0; while [ \$i -lt 100 ]; do echo \"plain line \$i $PAD\"; i=\$((i+1)); done
exec sleep 1000"

sv_start
t_ok $? "capinit starts (log directory $L, log-max-size = 4K, log-keep = 2)"

# ------------------------------------------------ a symbolic link, then none
wait_for on_console "sym: sym early 30"
t_ok $? "sym: its lines go to the console (sym early 30: 3 s, three reopen tries)"
t_eq "$(readlink "$L/sym.log")" "$T/victim" "sym: control: the attacker's link is in place, to the victim"
t_eq "$(truth "$T/victim")" "$v1" "sym: the victim's content, size, mode and links are unchanged"
t_eq "$(console_count "$(warning sym sym.log 'a symbolic link (not followed)')")" 1 \
  "sym: capinit said once why: 'unable to log to $L/sym.log: a symbolic link (not followed)'"
t_eq "$(console_count 'capinit: service sym:')" 1 "sym: and said nothing else about it"
touch "$W/go-sym"
logged_late() { grep -q '^[0-9TZ:.-]* sym late [0-9]*$' "$L/sym.log" 2>/dev/null; }
wait_for logged_late
t_ok $? "sym: twin: the attacker removed its link: the lines go to sym.log again"
t_eq "$(stat -c '%F %h %u' "$L/sym.log")" "regular file 1 0" "sym: sym.log is a regular file of root's, one link"
t_eq "$(console_count "capinit: service sym: logging to $L/sym.log again")" 1 "sym: capinit said once that it logs again"
t_eq "$(grep -c 'sym early' "$L/sym.log")" 0 "sym: no line of the console's went to the file"
t_eq "$(truth "$T/victim")" "$v1" "sym: the victim is still unchanged"

# ------------------------------------------------ a hard link to root's file
wait_for on_console "hard: hard line 20"
t_ok $? "hard: its lines go to the console (hard line 20: 2 s, two reopen tries)"
t_eq "$(stat -c %i "$L/hard.log")" "$(stat -c %i "$W/victim2")" "hard: control: hard.log is the victim's inode"
t_eq "$(truth "$W/victim2")" "$v2h" "hard: the victim's content, size and mode unchanged, its 2 links the attacker's"
t_eq "$(console_count "$(warning hard hard.log 'a file with another name (a hard link?)')")" 1 \
  "hard: capinit said once why: 'a file with another name (a hard link?)'"

# ------------------------------------------------ rotation targets are directories
wait_for on_console "rot: rot line 99 $PAD"
t_ok $? "rot: the lines after the failed rotation go to the console (to rot line 99)"
t_eq "$(console_count "$(warning rot rot.log.2 'a directory in the way of the rotation')")" 1 \
  "rot: capinit said once why: rot.log.2 is a directory in the way"
t_eq "$(find "$L/rot.log.1" "$L/rot.log.2" | sort | tr '\n' ' ')" \
  "$L/rot.log.1 $L/rot.log.1/x $L/rot.log.2 $L/rot.log.2/x " "rot: the planted directories are as they were"
s=$(stat -c %s "$L/rot.log")
infile=$(sed -n "s/^[0-9TZ:.-]* rot line \([0-9]*\) $PAD\$/\1/p" "$L/rot.log" | tr '\n' ' ')
oncons=$(sed -n "s/^rot: rot line \([0-9]*\) $PAD\$/\1/p" "$T/capinit.out" | tr '\n' ' ')
t_ok $([ "$s" -le 4096 ] && [ "$s" -gt 3000 ] && echo 0 || echo 1) "rot: rot.log did not grow beyond log-max-size ($s bytes)"
t_eq "$infile$oncons" "$(seq 0 99 | tr '\n' ' ')" \
  "rot: each of the 100 lines once, in order: the first ones in rot.log, the rest on the console"

# ------------------------------------------------ positive control: plain files
wait_for grep -q "^[0-9TZ:.-]* plain line 99 $PAD\$" "$L/plain.log"
t_ok $? "plain: control: a service that plants nothing logs to plain.log (line 99)"
last1=$(sed -n "s/^[0-9TZ:.-]* plain line \([0-9]*\) .*/\1/p" "$L/plain.log.1" | tail -n 1)
first0=$(sed -n "s/^[0-9TZ:.-]* plain line \([0-9]*\) .*/\1/p" "$L/plain.log" | head -n 1)
t_eq "$((${last1:-0} + 1))" "${first0:-x}" "plain: control: rotation works: plain.log.1 holds the lines just before plain.log's ($last1, $first0)"
t_eq "$(stat -c '%F %h' "$L/plain.log.2")" "regular file 1" "plain: control: plain.log.2 exists (log-keep = 2)"
t_eq "$(grep -c '^plain: \|^capinit: service plain: warning' "$T/capinit.out")" 0 "plain: no line of plain's and no warning on the console"
t_eq "$(grep -c 'warning: unable to log' "$T/capinit.out")" 3 "three warnings in all: sym, hard, rot"
t_eq "$(truth "$T/victim") / $(truth "$W/victim2")" "$v1 / $v2h" "both victims unchanged at the end"
sv_stop
t_eq "$sv_rc" 0 "capinit exits 0"

# ------------------------------------------------ log-keep = 0: truncation
rm -rf "$T/c/services"/* "$L"/*
printf 'log-directory = %s\nlog-max-size = 4K\nlog-keep = 0\n' "$L" > "$T/c/capinit.conf"
attacker trunc "i=0; while [ \$i -lt 10 ]; do echo \"trunc early \$i\"; i=\$((i+1)); done
while [ ! -s $L/trunc.log ]; do sleep 0.05; done
rm $L/trunc.log; ln -s $T/victim $L/trunc.log
i=0; while [ \$i -lt 60 ]; do echo \"trunc late \$i $PAD\"; i=\$((i+1)); done
exec sleep 1000"
attacker plain0 "i=0; while [ \$i -lt 60 ]; do echo \"plain0 line \$i $PAD\"; i=\$((i+1)); done
exec sleep 1000"
sv_start
t_ok $? "capinit starts again (log-keep = 0)"
wait_for on_console "trunc: trunc late 59 $PAD"
t_ok $? "trunc: after the swap, the lines past log-max-size go to the console (to trunc late 59)"
t_eq "$(readlink "$L/trunc.log")" "$T/victim" "trunc: control: the attacker's link is in place, to the victim"
t_eq "$(truth "$T/victim")" "$v1" "trunc: the victim is not emptied: content, size, mode and links unchanged"
t_eq "$(console_count "$(warning trunc trunc.log 'a symbolic link (not followed)')")" 1 \
  "trunc: capinit said once why: 'a symbolic link (not followed)'"
wait_for grep -q "^[0-9TZ:.-]* plain0 line 59 $PAD\$" "$L/plain0.log"
t_ok $? "plain0: control: a service that plants nothing logs to plain0.log (line 59)"
s=$(stat -c %s "$L/plain0.log")
t_ok $([ "$s" -le 4096 ] && ! grep -q 'plain0 line 0 ' "$L/plain0.log" && echo 0 || echo 1) \
  "plain0: control: log-keep = 0 empties the file ($s bytes, line 0 gone)"
t_eq "$(ls "$L" | tr '\n' ' ')" "plain0.log trunc.log " "plain0: control: no rotated file"
sv_stop
t_eq "$sv_rc" 0 "capinit exits 0"

# ------------------------------------------------ notify sockets
rm -rf "$T/c/services"/*
printf 'log-directory = %s\n' "$L" > "$T/c/capinit.conf"
printf 'secret\n' > "$T/victim3"
mkdir "$T/vdir"
printf 'keep\n' > "$T/vdir/nd"
chmod 600 "$T/victim3" "$T/vdir/nd"
v3=$(truth "$T/victim3")
vd=$(truth "$T/vdir/nd")
R=$T/run
planter() { # NAME AFTER SCRIPT: a noroot uid 0 oneshot that may write $R
  printf '%s\n' "$3" > "$T/bin/$1.sh"
  svc "$1" <<EOF
type = oneshot
command = /bin/sh $T/bin/$1.sh
user = root
mode = noroot
read-only = yes
read-write = $R
writes-capinit-state = yes
depends = $2
EOF
}
svc nt <<EOF
command = $HELPER notify 0 twin
ready = notify
EOF
planter plant1 nt "ln -s $T/victim3 $R/notify/nl"
svc nl <<EOF
command = $HELPER notify 0 linked
ready = notify
depends = plant1
EOF
planter plant2 nl "mv $R/notify $R/notify.real && ln -s $T/vdir $R/notify"
svc nd <<EOF
command = $HELPER notify 0 redirected
ready = notify
depends = plant2
EOF
sv_start
t_ok $? "capinit starts (notify services)"
sv_wait nt up
t_ok $? "nt: control: a notify service is up (READY=1 through its socket)"
sv_wait nl up
t_ok $? "nl: with a link planted at $R/notify/nl, the service is still up"
t_eq "$(truth "$T/victim3")" "$v3" "nl: the link's target is unchanged: content, size, mode 600, links"
t_eq "$(stat -c '%F %a' "$R/notify.real/nl")" "socket 666" "nl: its socket replaced the link, mode 0666 from the umask"
t_eq "$(stat -c '%F %a' "$R/notify.real/nt")" "socket 666" "nt: control: the twin's socket, mode 0666"
sv_wait plant2 up
t_ok $? "plant2: control: the attacker made $R/notify a link to $T/vdir"
wait_for on_console "capinit: service nd: warning: unable to spawn: Not a directory"
t_ok $? "nd: not started: capinit refuses a link at $R/notify ('unable to spawn: Not a directory')"
t_eq "$(sv_field nd state)" "backoff" "nd: it backs off and will try again"
t_eq "$(truth "$T/vdir/nd")" "$vd" "nd: the file at the link's end is not removed: content, size, mode, links"
t_eq "$(ls "$T/vdir")" "nd" "nd: no socket made in the link's target"
sv_stop
t_eq "$sv_rc" 0 "capinit exits 0"

t_ok 0 "initctl # SKIP /run/initctl is made only by PID 1 of a machine (tests/qemu/test_boot.sh powers off through it)"
echo "# summary: log links, hard links, directories in the rotation and a link for log-keep = 0 refused, lines on the console; notify links not followed"
t_done

#!/bin/busybox sh
# /test/attack.sh VERB -- the code an attacker controls, run as the
# command of the main scenario's attack services (issue 33: no service
# borrows capinit's power; issue 34: a contained service stays
# contained); each result goes to a file in /var/attack, which the runner
# (runner.sh, attacks.sh) judges.
O=/var/attack
C=/run/capinit/control
att() { /test/tool "$@" 2>&1; echo "exit $?"; }
case $1 in
  userns)   # a user namespace of its own: every capability, in there
    att ask $C "stop victim" userns > $O/userns.stop
    att ask $C "start legacy-bad" userns > $O/userns.start
    att ask $C "stop victim" > $O/plain.stop
    # without cap_kill: capinit's real uid is not 0, the kernel refuses
    kill -HUP 1 2>/dev/null; echo "HUP $?" > $O/plain.kill ;;
  setuid)   # user nobody with cap_setuid: uid 0, then a user namespace
    att ask $C "stop victim" uid0 userns > $O/setuid.stop ;;
  signals)  # with cap_kill: the kernel lets it signal PID 1, capinit judges it
    echo $$ > $O/signaller.pid  # kill is the shell's own: the sender
    for s in HUP TERM INT USR1 USR2 PWR; do kill -$s 1; echo "$s $?"; done > $O/signals.sent
    # alive until capinit has judged them: it reads every signal waiting
    # before it answers a request made after them
    capctl status signaller > /dev/null ;;
  forge)    # sigqueue() names its sender itself: the runner, legacy root
    att forge 1 HUP "$(cat $O/runner.pid)" > $O/forged.sent ;;
  peek)     # /proc/1 (capinit, or a private-pids service's reaper), and
            # the control: a dumpable process of the same uid that holds
            # the needle in its environment
    read -r needle < $O/needles
    SECRET_TOKEN=$needle /test/svc_helper stamp /dev/null &
    i=0
    while [ "$(cat /proc/$!/comm 2>/dev/null)" != svc_helper ] && [ $i -lt 600 ]; do sleep 0.1; i=$((i + 1)); done
    echo $! > $O/peek.$2.control
    /test/peek $O/needles 1 $! > $O/peek.$2 2>&1
    kill $! ;;
  links)    # a symbolic link and a hard link at two services' log files
    L=/var/log/capinit
    ln -sf $O/lvictim $L/talker.log
    ln -f /var/log/hvictim $L/talker2.log   # (a link stays within a mount)
    ls -l $L/talker.log $L/talker2.log | cut -c1 | tr -d '\n' > $O/links.planted ;;
  reach)    # issue 34: victim0 (uid 0, in capinit's PID namespace, a
            # writable /var/victim): its pid, a signal, its tree through
            # /proc/PID/root, a file written there
    read -r p < $O/victim0.pid
    {
      [ -d /proc/$p ] && echo "proc yes" || echo "proc no"
      e=$(kill -0 "$p" 2>&1); echo "kill $? ${e##*: }"
      e=$(ls /proc/$p/root/var/victim 2>&1 >/dev/null); echo "root $? ${e##*: }"
      e=$( { echo "from $2" > /proc/$p/root/var/victim/from-$2; } 2>&1 ); echo "write $? ${e##*: }"
    } > $O/reach.$2 ;;
  dev)      # issue 34: the machine's /dev (the runner's loop device, its
            # files in /dev and /dev/shm) from a read-only service's
    read -r loop < $O/loopdev
    {
      echo "fstype $(awk '$5 == "/dev" { for (i = 7; $i != "-"; i++) ; t = $(i + 1) } END { print t }' /proc/self/mountinfo)"
      echo "ls $(ls /dev | tr '\n' ' ')"
      echo "block $(find /dev -type b | wc -l)"
      for n in kmsg console ttyS0 ${loop#/dev/} q34-victim shm/q34-host; do
        e=$(stat -c %F /dev/$n 2>&1); echo "$n ${e##*: }"
      done
      # each write opens its target as the shell does (O_CREAT): where a
      # node is missing it makes a file of the service's own tmpfs
      e=$( { echo "capinit-q34 kmsg from $2" > /dev/kmsg; } 2>&1 ); echo "kmsg-write $? ${e##*: }"
      echo "capinit-q34 disk from $2" | dd of=$loop conv=notrunc,fsync 2>/dev/null; echo "disk-write $?"
      e=$( { : > /dev/q34-from-$2; } 2>&1 ); echo "create $? ${e##*: }"
      e=$(rm /dev/q34-victim 2>&1); echo "remove $? ${e##*: }"
      e=$( { : > /dev/shm/q34-from-$2; } 2>&1 ); echo "shm-create $? ${e##*: }"
      e=$(mknod /dev/q34-null-$2 c 1 3 2>&1); echo "mknod $? ${e##*: }"
    } > $O/dev.$2 ;;
  suid)     # issue 34: a copy of the probe made set-user-ID root (and a
            # set-group-ID directory) in its read-write path
    {
      cp /test/probe $O/suid.$2
      e=$(chmod 4755 $O/suid.$2 2>&1); echo "chmod $? ${e##*: }"
      e=$(mkdir -m 2755 $O/sgid.$2 2>&1); echo "mkdir $? ${e##*: }"
      echo "mount $(awk '$5 == "/var/attack" { print $6 }' /proc/self/mountinfo)"
    } > $O/suid.$2.out ;;
  *) echo "attack.sh: unknown verb $1" >&2; exit 2 ;;
esac
exit 0

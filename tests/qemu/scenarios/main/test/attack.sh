#!/bin/busybox sh
# /test/attack.sh VERB -- the code an attacker controls, run as the
# command of the main scenario's attack services (issue 33: no service
# borrows capinit's power); each result goes to a file in /var/attack,
# which the runner (runner.sh, attacks.sh) judges.
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
  *) echo "attack.sh: unknown verb $1" >&2; exit 2 ;;
esac
exit 0

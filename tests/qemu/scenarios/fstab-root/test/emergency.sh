#!/bin/busybox sh
# the emergency shell of the fstab-root scenario: what the fstab's lines
# left behind, as TAP on the result port, then busybox poweroff (SIGUSR2)
. /test/tap.sh
grep -q '^[^ ]* [^ ]* [^ ]* / /srv [^ ]* .*- tmpfs tmpfs ' /proc/self/mountinfo
t_ok $? "the line before the root's was mounted (/srv)"
grep -q ' /tmp ' /proc/self/mountinfo
t_ok $((!$?)) "the line after it was not (/tmp)"
[ ! -e /run/capinit/control ]
t_ok $? "no supervisor: no control socket"
echo "1..$n" >&3
echo DONE >&3
exec 3>&-
poweroff
exec sleep 60

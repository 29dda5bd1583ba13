#!/bin/busybox sh
# /test/trigger.sh: once every service is up, check /run/initctl (a FIFO,
# mode 0000), that a uid 0 in a noroot tree cannot open it to write while
# legacy root can, that a runlevel capinit does not have is refused, then
# ask for runlevel 0 there, as systemctl poweroff does without systemd.
stty -F /dev/ttyS1 raw -echo
exec 3>/dev/ttyS1
n=0
until capctl status >/dev/null 2>&1 || [ $n -ge 600 ]; do sleep 0.1; n=$((n + 1)); done
t=0
ok() { t=$((t + 1)); if [ "$1" = 0 ]; then echo "ok $t - $2" >&3; else echo "not ok $t - $2" >&3; fi; }
capctl status sleeper >/dev/null
ok $? "every service up"
[ -p /run/initctl ] && [ "$(stat -c %a /run/initctl)" = 0 ]
ok $? "/run/initctl is a FIFO, mode 0000 ($(stat -c '%F %a %U' /run/initctl))"
# sysvinit's struct init_request: magic 0x03091969, command 1 (runlevel),
# the runlevel, then zeros to 384 bytes
request() { printf "\151\031\011\003\001\000\000\000$1\000\000\000"; head -c 372 /dev/zero; }
request '\060' > /tmp/rl0
request '\132' > /tmp/rlZ
[ "$(wc -c < /tmp/rl0)" = 384 ]
ok $? "a request is 384 bytes"
capexec -k mode=noroot -k capabilities= -- /bin/busybox sh -c 'exec 4>/run/initctl' 2>/tmp/noroot.err
ok $([ $? != 0 ] && grep -q 'Permission denied' /tmp/noroot.err && echo 0 || echo 1) \
  "uid 0 in a noroot tree cannot open it to write ($(cat /tmp/noroot.err))"
cat /tmp/rlZ > /run/initctl
ok $? "control: legacy root writes a request for runlevel Z (the host checks that it is refused)"
echo "1..$t" >&3
echo DONE >&3
exec 3>&-
echo "runlevel 0 to /run/initctl"
cat /tmp/rl0 > /run/initctl
exec sleep 60

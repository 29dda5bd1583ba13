#!/bin/busybox sh
# /test/trigger.sh COMMAND...: the trigger of the shutdown scenarios
# (tests/qemu/scenarios/{reboot,halt,poweroff,pwr,cad}: their trigger.svc
# names the COMMAND, a busybox applet or a signal to PID 1).  Once every
# service is up, it writes the result to the result port (/dev/ttyS1) and
# DONE, then runs COMMAND, and waits to be stopped.
stty -F /dev/ttyS1 raw -echo
exec 3>/dev/ttyS1
n=0
until capctl status >/dev/null 2>&1 || [ $n -ge 600 ]; do sleep 0.1; n=$((n + 1)); done
if capctl status sleeper >/dev/null; then echo "ok 1 - every service up" >&3; else echo "not ok 1 - every service up" >&3; fi
echo "1..1" >&3
echo DONE >&3
exec 3>&-
echo "every service up: $*"
"$@"
exec sleep 60

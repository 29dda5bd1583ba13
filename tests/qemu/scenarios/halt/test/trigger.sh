#!/bin/busybox sh
# /test/trigger.sh ACTION: once every service is up, write DONE to the
# result port, then run busybox's ACTION applet (reboot: SIGTERM, halt:
# SIGUSR1, poweroff: SIGUSR2 to PID 1); wait to be stopped.
stty -F /dev/ttyS1 raw -echo
exec 3>/dev/ttyS1
n=0
until capctl status >/dev/null 2>&1 || [ $n -ge 600 ]; do sleep 0.1; n=$((n + 1)); done
if capctl status sleeper >/dev/null; then echo "ok 1 - every service up" >&3; else echo "not ok 1 - every service up" >&3; fi
echo "1..1" >&3
echo DONE >&3
exec 3>&-
echo "every service up: $1"
"$1"
exec sleep 60

#!/bin/sh
# rootfs/debian/learn-guest.sh PASS DAEMON:SECONDS... -- run in the
# Debian image booted with the imported services (rootfs/debian/learn.sh
# sends it over ssh): for each daemon, capinit's service stopped, then
# capctl learn on its file, /etc/capinit/services/DAEMON.svc, for SECONDS
# each run, proven by rootfs/debian/learn-check.sh DAEMON (copied to
# /root/learn-check.sh before), then capinit's service started again.
# The proposal and the report go to /var/lib/capinit/learn/PASS/DAEMON.svc
# and DAEMON.report; one line a daemon on standard output:
# "DAEMON rc=N seconds=N".
set -u
pass=$1
shift
L=/var/lib/capinit/learn/$pass
mkdir -p "$L"
for ds in "$@"; do
  d=${ds%%:*} t=${ds#*:}
  capctl stop "$d" > /dev/null 2>&1
  t0=$(date +%s)
  /usr/lib/capinit/capctl-learn --time "$t" --check "bash /root/learn-check.sh $d" \
    "/etc/capinit/services/$d.svc" > "$L/$d.svc" 2> "$L/$d.report"
  rc=$?
  echo "$d rc=$rc seconds=$(( $(date +%s) - t0 ))"
  capctl start "$d" > /dev/null 2>&1
done

#!/bin/sh
# rootfs/debian/learn-guest.sh PASS DAEMON:SECONDS... -- run in the
# Debian image booted with the imported services (rootfs/debian/learn.sh
# sends it over ssh): for each daemon, capinit's service stopped, then
# capctl learn on its file, /etc/capinit/services/DAEMON.svc, for SECONDS
# each run, proven by rootfs/debian/learn-check.sh DAEMON (copied to
# /root/learn-check.sh before), then capinit's service started again.
# Each of learn's runs is a first start, as at a boot, whose /run is
# empty: learn removes (--fresh) the run-time directories that the
# daemon's start makes when they are missing, before each run.  Without
# that, learn's runs found what the boot's start had made, and none
# needed what making them needs (apachectl's chown of /run/apache2/socks
# to www-data: cap_chown).  Only the directories the imported file's
# start makes: apache2's apachectl makes /run/apache2 (and socks in it)
# and /run/lock/apache2; chrony's file makes /run/chrony (the unit's
# RuntimeDirectory=).  nginx writes /run/nginx.pid and rsyslog its pid
# file whether they exist or not; postfix keeps its state in
# /var/spool/postfix, which a boot keeps.
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
  case $pass:$d in
    # the hand-written files' run-time directories are made at boot, by
    # the rundirs oneshot, before their services start: not removed
    hand:*) fresh= ;;
    *:apache2) fresh="--fresh /run/apache2 --fresh /run/lock/apache2" ;;
    *:chrony) fresh="--fresh /run/chrony" ;;
    *) fresh= ;;
  esac
  t0=$(date +%s)
  # shellcheck disable=SC2086
  /usr/lib/capinit/capctl-learn --time "$t" --check "bash /root/learn-check.sh $d" $fresh \
    "/etc/capinit/services/$d.svc" > "$L/$d.svc" 2> "$L/$d.report"
  rc=$?
  echo "$d rc=$rc seconds=$(( $(date +%s) - t0 ))"
  capctl start "$d" > /dev/null 2>&1
done

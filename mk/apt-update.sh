#!/bin/sh
# mk/apt-update.sh [APT-GET OPTION...] -- apt-get update, tried again when
# it fails.  A Debian mirror in the middle of a sync serves, for some
# minutes, a package list whose size its Release file does not give
# ("File has unexpected size ... Mirror sync in progress?": seen on a fresh
# machine, where it failed the first make check): apt-get update exits
# 100.  Up to APT_UPDATE_TRIES (5) tries, APT_UPDATE_PAUSE (30) seconds
# apart; each failure says its first error line; the last one prints
# apt-get's whole output and exits with its status.
set -u
tries=${APT_UPDATE_TRIES:-5}
pause=${APT_UPDATE_PAUSE:-30}
log=$(mktemp) || exit 111
trap 'rm -f "$log"' EXIT
n=1
while :; do
  apt-get "$@" update >"$log" 2>&1 && exit 0
  status=$?
  if [ "$n" -ge "$tries" ]; then
    cat "$log" >&2
    echo "mk/apt-update.sh: fatal: apt-get update failed $n times (exit $status): check the network and the sources in /etc/apt" >&2
    exit "$status"
  fi
  echo "capinit: apt-get update failed (try $n of $tries, again in $pause s): $(grep -m 1 '^E:' "$log")" >&2
  n=$((n + 1))
  sleep "$pause"
done

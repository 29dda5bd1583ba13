#!/bin/sh
# mk/apt-update.sh [APT-GET OPTION...] -- apt-get update, tried again when
# it fails.  A Debian mirror in the middle of a sync serves, for some
# minutes, a package list whose size its Release file does not give
# ("File has unexpected size ... Mirror sync in progress?": seen on a fresh
# machine, where it failed the first make check): apt-get update exits
# 100.  Up to APT_UPDATE_TRIES (5) tries, APT_UPDATE_PAUSE (30) seconds
# apart; each failure says its first error line.
# A mirror (or the proxy in front of it) can also keep serving such a list
# for hours: apt-get then ignores that list, keeps the others, and still
# exits 100.  When the last try failed only that way, this says which
# lists were left out and exits 0, as apt-get itself goes on: a package
# that only those lists had is then missing, and the install that needs it
# fails and names it.  Any other failure (no network, a bad source) is
# fatal: the last try prints apt-get's whole output and exits with its
# status.
# apt-get update locks its lists directory and fails at once when another
# apt holds that lock: apt 2.6's DPkg::Lock::Timeout waits for dpkg's lock
# only (measured on bookworm: exit 100 within a second, the lists' lock
# held and the timeout 10 s).  So before each try this waits for that
# lock, up to DEPS_LOCK_TIMEOUT (600) seconds in all, says once that it
# waits and for whom (mk/lock-holder.sh), and fails (111) naming the
# holder if it is still held then.  A try that another apt beat to the
# lock is no try: it waits again.
set -u
tries=${APT_UPDATE_TRIES:-5}
pause=${APT_UPDATE_PAUSE:-30}
timeout=${DEPS_LOCK_TIMEOUT:-600}
case $timeout in
  "" | *[!0-9]*) echo "mk/apt-update.sh: fatal: DEPS_LOCK_TIMEOUT is not a number of seconds: $timeout" >&2; exit 100 ;;
esac
here=$(dirname "$0")
log=$(mktemp) || exit 111
trap 'rm -f "$log"' EXIT

# the lists directory of this apt-get, with the options given
# (mk/sysroot.sh has one of its own)
lists=/var/lib/apt/lists/
eval "$(apt-config "$@" shell lists Dir::State::Lists/d 2>/dev/null)"
lists_lock=${lists}lock
deadline=
wait_for_lists() {
  while holder=$(sh "$here/lock-holder.sh" "$lists_lock"); do
    if [ -z "$deadline" ]; then
      deadline=$(($(date +%s) + timeout))
      echo "capinit: waiting up to $timeout s for apt's lists lock ($lists_lock), held by PID $holder" >&2
    elif [ "$(date +%s)" -ge "$deadline" ]; then
      echo "capinit: fatal: waited $timeout s for apt's lists lock ($lists_lock), held by PID $holder: let it finish, or run again with a longer DEPS_LOCK_TIMEOUT" >&2
      exit 111
    fi
    sleep 1
  done
}

# true when apt-get's errors in $log are only lists the mirror served
# unlike its Release file (a size or a hash it does not give)
inconsistent_lists_only() {
  grep -q -E '^E: Failed to fetch .*(File has unexpected size|Hash Sum mismatch)' "$log" || return 1
  ! grep '^E:' "$log" | grep -v -E \
    -e '^E: Failed to fetch .*(File has unexpected size|Hash Sum mismatch)' \
    -e '^E: Some index files failed to download' | grep -q .
}

n=1
while :; do
  wait_for_lists
  apt-get "$@" update >"$log" 2>&1 && exit 0
  status=$?
  # another apt took the lock between the look and apt-get's own
  if grep -q "^E: Could not get lock $lists_lock" "$log" && sh "$here/lock-holder.sh" "$lists_lock" >/dev/null; then
    continue
  fi
  if [ "$n" -ge "$tries" ]; then
    if inconsistent_lists_only; then
      echo "capinit: warning: apt-get update: after $n tries the mirror still serves these package lists unlike its Release file, so apt-get left them out (packages come from the other lists):" >&2
      sed -n -E 's/^E: Failed to fetch ([^ ]*) .*/capinit: warning:   \1/p' "$log" >&2
      exit 0
    fi
    cat "$log" >&2
    echo "mk/apt-update.sh: fatal: apt-get update failed $n times (exit $status): check the network and the sources in /etc/apt" >&2
    exit "$status"
  fi
  echo "capinit: apt-get update failed (try $n of $tries, again in $pause s): $(grep -m 1 '^E:' "$log")" >&2
  n=$((n + 1))
  sleep "$pause"
done

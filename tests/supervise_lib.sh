# tests/supervise_lib.sh -- run capinit for a test, in its own PID
# namespace, and talk to it.  Source after tests/lib.sh, with B set.
#
#   sv_init                 make $T (temp dir) with $T/c/services, $T/log
#   svc NAME <<EOF ... EOF  write $T/c/services/NAME.svc (SVC_NAME=NAME is added)
#   sv_start [ARGS]         start capinit --container in a new PID namespace
#                           (and mount and IPC namespaces: nothing it makes
#                           there outlives it); with SV_SETUP set, that
#                           shell command runs there first, as PID 1, e.g.
#                           a read-only bind mount only capinit sees
#   sv_start_plain [ARGS]   start capinit --container as a plain child of
#                           this shell (a subreaper, no namespace)
#   sv_ctl VERB ARGS        capctl VERB -r $T/run ARGS, from inside capinit's
#                           PID namespace (only a peer capinit can see
#                           may change services: docs/security.md)
#   sv_peer CMD ARGS        run CMD in capinit's PID namespace (as sv_ctl does)
#   sv_in CMD ARGS          run CMD in capinit's namespaces (to read its /proc)
#   sv_field NAME KEY       one field of `capctl status NAME`
#   sv_wait NAME STATE [S]  wait until NAME is in STATE (at most S seconds, 60)
#   sv_stop                 SIGTERM to capinit; wait for it to exit; $sv_rc
#   sv_wait_exit [S]        wait for capinit to exit by itself; $sv_rc
#   sv_pid                  capinit's pid as seen from here
#
# A test's waits are bounded loops of short sleeps: the test polls, capinit
# never does.  The bounds are generous (a minute): a loaded machine (two
# cores shared with builds and QEMU boots) must never reach them, and they
# only cost time when something is really broken.
CAPINIT=$(pwd)/$B/bin/capinit
CAPCTL=$(pwd)/$B/bin/capctl
HELPER=$(pwd)/$B/tests/svc_helper
PROBE=$(pwd)/$B/tests/probe

sv_init() {
  T=$(mktemp -d)
  chmod 755 "$T"
  mkdir -p "$T/c/services" "$T/log"
  printf 'log-directory = %s/log\n' "$T" > "$T/c/capinit.conf"
  trap 'sv_cleanup' EXIT
}

sv_cleanup() {
  [ -n "${sv_unshare:-}" ] && kill -KILL "$sv_unshare" 2>/dev/null
  [ -n "${sv_nspid:-}" ] && kill -KILL "$sv_nspid" 2>/dev/null
  wait 2>/dev/null
  [ -z "${SV_CLEANUP:-}" ] || eval "$SV_CLEANUP"
  rm -rf "$T"
}

svc() { # NAME, body on stdin
  { cat; printf 'environment = SVC_NAME=%s\n' "$1"; } > "$T/c/services/$1.svc"
}

sv_start() {
  rm -f "$T/capinit.out"
  if [ -n "${SV_SETUP:-}" ]; then
    # shellcheck disable=SC2016
    unshare --pid --ipc --fork --mount-proc /bin/sh -c "$SV_SETUP"' && exec "$0" "$@"' \
      "$CAPINIT" --container -c "$T/c" -r "$T/run" "$@" >"$T/capinit.out" 2>&1 &
  else
    unshare --pid --ipc --fork --mount-proc "$CAPINIT" --container -c "$T/c" -r "$T/run" "$@" \
      >"$T/capinit.out" 2>&1 &
  fi
  sv_unshare=$!
  i=0
  while [ ! -S "$T/run/control" ] && [ $i -lt 1200 ]; do sleep 0.05; i=$((i + 1)); done
  # capinit is unshare's only child (no procps needed)
  sv_nspid=$(cat /proc/"$sv_unshare"/task/*/children 2>/dev/null | tr ' ' '\n' | head -n 1)
  sv_pidns=1
  [ -S "$T/run/control" ]
}

sv_start_plain() {
  rm -f "$T/capinit.out"
  "$CAPINIT" --container -c "$T/c" -r "$T/run" "$@" >"$T/capinit.out" 2>&1 &
  sv_unshare=$!
  sv_nspid=$!
  sv_pidns=
  i=0
  while [ ! -S "$T/run/control" ] && [ $i -lt 1200 ]; do sleep 0.05; i=$((i + 1)); done
  [ -S "$T/run/control" ]
}

sv_pid() { echo "$sv_nspid"; }

# capctl in capinit's PID namespace: capinit judges a peer by its /proc
# entry there, and one outside it (pid 0) may read, never change anything
sv_ctl() {
  sv_peer "$CAPCTL" "$@" -r "$T/run"
}

# run CMD ARGS in capinit's PID namespace only: a peer capinit can judge
sv_peer() {
  if [ -n "${sv_pidns:-}" ]; then
    nsenter -t "$sv_nspid" -p "$@"
  else
    "$@"
  fi
}

# run a command in capinit's PID, mount and IPC namespaces (its /proc), with its
# root and directory (so that it also works under chroot)
sv_in() {
  nsenter -t "$sv_nspid" -p -m -i -r -w "$@"
}

sv_field() { # NAME KEY
  sv_ctl status --json "$1" 2>/dev/null |
    sed -n "s/^    \"$2\": \(.*\)\$/\1/p" | sed -e 's/,$//' -e 's/^"//' -e 's/"$//'
}

sv_wait() { # NAME STATE [SECONDS]
  n=$(( ${3:-60} * 20 ))
  while [ $n -gt 0 ]; do
    [ "$(sv_field "$1" state)" = "$2" ] && return 0
    sleep 0.05
    n=$((n - 1))
  done
  return 1
}

sv_wait_exit() { # [SECONDS]: until capinit exits (SIGKILL after SECONDS, 60: sv_rc says 137); $sv_rc
  n=$(( ${1:-60} * 20 ))
  while kill -0 "$sv_unshare" 2>/dev/null && [ $n -gt 0 ]; do sleep 0.05; n=$((n - 1)); done
  kill -0 "$sv_unshare" 2>/dev/null && kill -KILL "$sv_nspid" "$sv_unshare" 2>/dev/null
  wait "$sv_unshare"
  sv_rc=$?
  sv_unshare=
  sv_nspid=
  sv_pidns=
  return 0
}

sv_stop() { # bounded: SIGKILL after 120 s, and sv_rc says 137
  kill -TERM "$sv_nspid" 2>/dev/null
  sv_wait_exit 120
}

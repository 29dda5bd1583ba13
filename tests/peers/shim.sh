#!/bin/sh
# tests/peers/shim.sh -- run as dumb-init or as tini (a link of that name,
# made by tests/peers/test_peers.sh), it runs `capinit --container ... --
# CMD ARG...` in its place: the peer's options mapped to capinit's, and an
# option capinit has no equivalent for refused, said, exit 100 (capinit's
# usage code).  Our own code: the peers' suites run it as their binary.
# CAPINIT: the capinit binary; PEERS_RUN: a directory for the runtime
# directories (one per process: RUN/PID) and the empty configuration
# (RUN/conf/services: no service, the main command alone).
set -u
me=${0##*/}
: "${CAPINIT:?CAPINIT: the capinit binary}" "${PEERS_RUN:?PEERS_RUN: a directory}"
refuse() { # WHAT WHY
  echo "$me (capinit shim): $1 has no equivalent in capinit: $2" >&2
  exit 100
}
group=
codes=
code() { # CODE: one more -e, a number (capinit checks its range)
  case $1 in "" | *[!0-9]*) refuse "-e $1" "an exit code is a number" ;; esac
  codes="$codes $1"
}
case $me in
  dumb-init)
    # dumb-init signals CMD's process group unless --single-child (-c),
    # or DUMB_INIT_SETSID=0 (CMD stays in dumb-init's group, alone)
    group=-g
    [ "${DUMB_INIT_SETSID:-1}" != 0 ] || group=
    while [ $# -gt 0 ]; do
      case $1 in
        -c | --single-child) group= ;;
        -r | --rewrite | -r* | --rewrite=*)
          refuse "$1" "capinit passes every signal on as it came (docs/decisions.md: no rewriting)" ;;
        -v | --verbose) refuse "$1" "capinit says what CMD did on its log, with no debug mode" ;;
        -V | --version) refuse "$1" "capinit -V prints capinit's version, not dumb-init's" ;;
        -h | --help) refuse "$1" "capinit --help prints capinit's help, not dumb-init's" ;;
        --) shift; break ;;
        -*) refuse "$1" "not an option of dumb-init that capinit knows" ;;
        *) break ;;
      esac
      shift
    done ;;
  tini)
    [ "${TINI_KILL_PROCESS_GROUP:-}" = "" ] || group=-g
    while [ $# -gt 0 ]; do
      case $1 in
        -s) ;;  # capinit is a child subreaper whenever it is not PID 1
        -g) group=-g ;;
        -e)
          [ $# -ge 2 ] || refuse "$1" "it needs an exit code"
          code "$2"
          shift ;;
        -e*) code "${1#-e}" ;;
        -p | -p*) refuse "$1" "capinit sets no parent-death signal" ;;
        -w) refuse "$1" "capinit reaps orphans without warning of each" ;;
        -v*) refuse "$1" "capinit has no verbosity levels" ;;
        -l) refuse "$1" "capinit -V prints capinit's version and license is not tini's" ;;
        -h) refuse "$1" "capinit --help prints capinit's help, not tini's" ;;
        --) shift; break ;;
        -*) refuse "$1" "not an option of tini that capinit knows" ;;
        *) break ;;
      esac
      shift
    done ;;
  *) echo "tests/peers/shim.sh: fatal: run as dumb-init or tini, not $me" >&2; exit 100 ;;
esac
[ $# -gt 0 ] || refuse "no command" "capinit --container needs -- CMD"
mkdir -p "$PEERS_RUN/conf/services"
# shellcheck disable=SC2046 # $codes: numbers, each word one -e CODE
set -- "$CAPINIT" --container -c "$PEERS_RUN/conf" -r "$PEERS_RUN/$$" $group $(for c in $codes; do printf -- '-e %s\n' "$c"; done) -- "$@"
exec "$@"

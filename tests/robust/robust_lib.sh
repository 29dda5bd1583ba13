# tests/robust/robust_lib.sh -- what the load, soak and hostile-input tests
# measure of capinit.  Source after tests/lib.sh and tests/supervise_lib.sh.
#
#   rb_rss PID            VmRSS of PID, kB
#   rb_fds PID            number of open descriptors of PID
#   rb_conns              control connections capinit holds (accepted or
#                         still in the listen backlog), from the kernel's
#                         /proc/net/unix: an accepted unix socket bears the
#                         listener's path
#   rb_fds_rest PID       rb_fds once capinit holds no control connection
#                         (at most 60 s): a client that has exited is only
#                         closed by capinit at its next turn, so a count
#                         taken right after a capctl could hold one more
#   rb_cpu PID            user + system CPU time of PID, clock ticks
#   rb_zombies            zombies in capinit's PID namespace
#   rb_procs              processes in capinit's PID namespace (capinit too)
#   rb_ms                 CLOCK_MONOTONIC, ms (the helper's clock)
#   rb_until SECONDS CMD  run CMD every 0.05 s until it succeeds, at most
#                         SECONDS; its status (CMD's arguments are
#                         expanded once: a condition to re-evaluate is a
#                         function)
#   rb_knob NAME DEFAULT  $NAME if set (a number), else DEFAULT
#   rb_rss_flat KB0 KB1 SLACK WHAT
#                         a TAP check: RSS grew by at most SLACK kB;
#                         skipped in a sanitizer build (CAPINIT_SAN), whose
#                         RSS holds ASan's quarantine of freed memory
#   $EMFILE_TEXT          strerror(EMFILE) of musl or glibc, for grep
#   rb_figure K=V...      "# figure: K=V ...": the figures docs/robustness.md
#                         quotes (tests/robust/report.sh)
#
# Figures go to TAP comments: "# summary: ..." lines are what tests/run
# and tests/robust/run.sh (docs/robustness.md) quote.

rb_rss() { sed -n 's/^VmRSS:[[:space:]]*\([0-9]*\) kB$/\1/p' /proc/"$1"/status; }
rb_fds() { ls /proc/"$1"/fd | wc -l; }
rb_conns() { echo $(( $(grep -c " $T/run/control\$" /proc/net/unix) - 1 )); }
rb_no_conns() { [ "$(rb_conns)" = 0 ]; }
rb_fds_rest() {
  rb_until 60 rb_no_conns
  rb_fds "$1"
}
rb_cpu() { sed 's/.*) //' /proc/"$1"/stat | awk '{ print $12 + $13 }'; }

# one pass over capinit's /proc (but the shell that reads it): the state
# of every process
rb_states() {
  # shellcheck disable=SC2016
  sv_in sh -c 'for f in /proc/[0-9]*/stat; do [ "$f" = /proc/$$/stat ] || { read -r l < "$f" && echo "${l##*) }"; }; done' 2>/dev/null |
    cut -d' ' -f1
}
rb_zombies() { rb_states | grep -c '^Z'; }
rb_procs() { rb_states | wc -l; }

rb_ms() {
  "$HELPER" exit 0 "$T/.mono" && tail -n 1 "$T/.mono" | cut -d' ' -f2
}

rb_until() { # SECONDS CMD...
  n=$(( $1 * 20 ))
  shift
  while [ $n -gt 0 ]; do
    "$@" && return 0
    sleep 0.05
    n=$((n - 1))
  done
  return 1
}

rb_rss_flat() { # KB0 KB1 SLACK WHAT
  if [ -n "${CAPINIT_SAN:-}" ]; then
    t_ok 0 "$4 # SKIP sanitizer build: ASan's quarantine holds freed memory"
  else
    t_ok $([ $(($2 - $1)) -le "$3" ] && echo 0 || echo 1) "$4"
  fi
}

EMFILE_TEXT='\(No file descriptors available\|Too many open files\)'

rb_figure() { echo "# figure: $*"; }

rb_knob() { # NAME DEFAULT
  eval "v=\${$1:-}"
  case $v in
    '' | *[!0-9]*) echo "$2" ;;
    *) echo "$v" ;;
  esac
}

# tests/lib.sh -- TAP helpers for the shell test tiers.  Source it; call
# t_eq GOT WANT WHAT, t_ok STATUS WHAT, then t_done at the end.
t_n=0
t_failed=0

t_ok() { # STATUS WHAT: STATUS 0 passes
  t_n=$((t_n + 1))
  if [ "$1" = 0 ]; then
    echo "ok $t_n - $2"
  else
    echo "not ok $t_n - $2"
    t_failed=$((t_failed + 1))
  fi
}

t_eq() { # GOT WANT WHAT
  if [ "$1" = "$2" ]; then
    t_ok 0 "$3"
  else
    t_ok 1 "$3"
    printf '#   want: %s\n#    got: %s\n' "$2" "$1" | sed 's/^\([^#]\)/#         \1/'
  fi
}

t_done() {
  echo "1..$t_n"
  [ "$t_failed" = 0 ]
}

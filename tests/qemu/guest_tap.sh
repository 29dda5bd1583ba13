# /test/tap.sh (tests/qemu/guest_tap.sh, shipped by mkinitramfs.sh) -- what
# the in-guest runners of the QEMU scenarios share: TAP on /dev/ttyS1 (the
# host's results.txt), as descriptor 3.
stty -F /dev/ttyS1 raw -echo
exec 3>/dev/ttyS1
n=0
t_ok() { # STATUS WHAT
  n=$((n + 1))
  if [ "$1" = 0 ]; then echo "ok $n - $2" >&3; else echo "not ok $n - $2" >&3; fi
}
t_eq() { # GOT WANT WHAT
  if [ "$1" = "$2" ]; then t_ok 0 "$3"; else
    t_ok 1 "$3"
    echo "#   want: $2" >&3
    echo "#    got: $1" >&3
  fi
}
# one field of `capctl status --json NAME`
field() { # NAME KEY
  capctl status --json "$1" 2>/dev/null |
    sed -n "s/^    \"$2\": \(.*\)\$/\1/p" | sed -e 's/,$//' -e 's/^"//' -e 's/"$//'
}

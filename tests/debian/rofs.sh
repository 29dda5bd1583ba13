#!/bin/sh
# tests/debian/rofs.sh SERVICE... -- run in the guest (ssh ... sh -s
# SERVICE...), in one login: where each running service can write in its
# own tree.  For each service, from its own mount namespace (nsenter -m on
# the pid capctl status names), a file is made and removed in each path
# its file declares `read-write` and in each path of a fixed list and of
# the other services' `read-write` lines; the same in the machine's tree
# as the control.  nsenter keeps this login's root and capabilities: what
# refuses a write is the mount itself (EROFS), not the service's
# credentials.  One line per try:
#   SERVICE declared|other PATH rw|ro|err:MESSAGE
#   SERVICE not-running -
#   machine control PATH rw|ro|err:MESSAGE
# test_debian.sh wants every declared path rw, every other ro, the
# machine's every path rw.
fixed="/ /etc /usr/lib /root /home /var/www/html /var/lib/dpkg /var/lib/capinit"
rw_of() { # SERVICE: its read-write paths, one a line
  sed -n 's/^read-write[[:space:]]*=[[:space:]]*//p' "/etc/capinit/services/$1.svc" | tr ',' '\n' | tr -d ' \t' | grep .
}
try() { # PREFIX PATH [PID]: one line, the result of a write in PATH
  f=$2/.capinit-rofs-$$
  if [ -n "$3" ]; then
    e=$(nsenter -t "$3" -m sh -c ': > "$1" && rm -f "$1"' sh "$f" 2>&1)
  else
    e=$(sh -c ': > "$1" && rm -f "$1"' sh "$f" 2>&1)
  fi
  r=$?
  case $r:$e in
    0:) echo "$1 $2 rw" ;;
    *'Read-only file system'*) echo "$1 $2 ro" ;;
    *) echo "$1 $2 err:$(echo "$e" | tr '\n ' '__')" ;;
  esac
}
# the other paths: the fixed ones and every service's, each once (a path
# below one of the service's own is its own)
others=$(for s in "$@"; do rw_of "$s"; done | sort -u)
others="$fixed $(for p in $others; do case " $fixed " in *" $p "*) ;; *) echo "$p" ;; esac; done)"
for s in "$@"; do
  pid=$(capctl status | awk -v s="$s" '$1 == s { print $3 }')
  case $pid in
    [1-9]*) ;;
    *) echo "$s not-running -"; continue ;;
  esac
  own=$(rw_of "$s")
  for p in $own; do try "$s declared" "$p" "$pid"; done
  for p in $others; do
    under=no
    for o in $own; do
      case $p/ in "$o"/*) under=yes ;; esac
    done
    [ $under = yes ] || try "$s other" "$p" "$pid"
  done
done
for p in $others; do try "machine control" "$p"; done

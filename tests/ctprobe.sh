#!/bin/sh
# tests/ctprobe.sh -- what a process sees of its container, from inside,
# by trying (tests/system/test_container.sh runs it under capinit and
# under unshare(1) + setpriv(1), and compares).  One "key=value" line
# each, sorted.  Environment:
#   MARK      the pid of a marker process (sleep 31337) of capinit's
#             namespace: can this process see it, signal it?
#   RW        a directory that should be writable (read-write), or empty
#   BIND_RO   a directory bound read-only, holding a file "f", or empty
#   PROCSYS   1: try to write /proc/sys (only with a UTS namespace of its
#             own: the value written is its own host name)
# Nothing here uses /dev (a root directory's may differ).

err() { # the outcome of a command, as a short word
  case $1 in
    "") echo ok ;;
    *"Read-only file system"*) echo EROFS ;;
    *"Permission denied"*) echo EACCES ;;
    *"Operation not permitted"*) echo EPERM ;;
    *"No such process"*) echo ESRCH ;;
    *"No such file"*|*"nonexistent"*|*"can't create"*) echo ENOENT ;;
    *) echo "other($1)" ;;
  esac
}

try_write() { # FILE: create it, remove it
  e=$( { : > "$1"; } 2>&1 ) && rm -f "$1"
  err "$e"
}

mode_of() { # MOUNTPOINT: ro or rw of the mount on top at it, or none
  awk -v m="$1" '$5 == m { o = $6 } END { if (o == "") print "none"; else if (o ~ /^ro(,|$)/) print "ro"; else print "rw" }' /proc/self/mountinfo
}

{
  echo "uid=$(id -u)"
  echo "host=$(cat /proc/sys/kernel/hostname)"
  for ns in mnt pid ipc uts net; do echo "ns.$ns=$(readlink /proc/self/ns/$ns)"; done
  echo "mount./=$(mode_of /)"
  echo "mount./proc/sys=$(mode_of /proc/sys)"
  echo "w./=$(try_write /ctprobe.$$)"
  echo "w./tmp=$(try_write /tmp/ctprobe.$$)"
  if [ -e "${CTMARK:-/tmp/ctmark}" ]; then echo "tmp.shared=yes"; else echo "tmp.shared=no"; fi
  [ -n "${RW:-}" ] && echo "w.rw=$(try_write "$RW/ctprobe.$$")"
  if [ -n "${BIND_RO:-}" ]; then
    echo "bind.read=$(cat "$BIND_RO/f" 2>&1)"
    echo "bind.w=$(try_write "$BIND_RO/ctprobe.$$")"
  fi
  if [ "${PROCSYS:-}" = 1 ]; then
    e=$( { cat /proc/sys/kernel/hostname > /proc/sys/kernel/hostname; } 2>&1 )
    echo "w./proc/sys=$(err "$e")"
  fi
  seen=no
  for c in /proc/[0-9]*/cmdline; do
    # (a process may end meanwhile: cat's complaint goes down the pipe)
    case $(cat "$c" 2>&1 | tr '\0' ' ') in *"sleep 31337 ") seen=yes ;; esac
  done
  echo "marker.seen=$seen"
  e=$(kill -0 "${MARK:-0}" 2>&1)
  echo "marker.kill=$(err "$e")"
  echo "net.links=$(awk 'NR > 2 { sub(":", "", $1); print $1 }' /proc/net/dev | sort | tr '\n' ' ')"
  case $(ip -o link show lo 2>&1) in *"<"*UP*">"*) echo "net.lo=up" ;; *) echo "net.lo=down" ;; esac
  # the test's System V segment, key 0x63617069
  if awk '$1 == 1667330153 { found = 1 } END { exit !found }' /proc/sysvipc/shm; then
    echo "ipc.shared=yes"
  else
    echo "ipc.shared=no"
  fi
} | sort

#!/bin/sh
# mk/lock-holder.sh FILE... -- who holds a lock on FILE: prints "PID
# (command line)" of the first process, in the order of the FILEs, that
# holds a lock on one of them, and exits 0; exits 1 when none is locked.
# apt and dpkg lock their files with fcntl (POSIX) locks, which only
# /proc/locks shows, by the device and inode of the file, not by its
# path: so a lock taken through another path to the same file (from
# outside a chroot, say) is found too.  A waiter's line ("->") is not a
# holder.  A PID 0 or -1 (outside this PID namespace; an open file
# description's lock) has no command line to show.
set -u
# Read at once (cat: one read of a page, some 80 locks, taken whole by
# the kernel): the shell's read takes a byte at a time, and a lock that
# comes or goes between two of them shifts the lines, so one is skipped
# (seen with another dpkg running beside: the held lock was not found).
locks=$(cat /proc/locks)
for f in "$@"; do
  [ -e "$f" ] || continue
  read -r major minor inode <<END
$(stat -L -c '%Hd %Ld %i' "$f")
END
  while read -r _ kind _ _ pid id _; do
    [ "$kind" != "->" ] || continue
    # /proc/locks writes the major and minor in hex, stat in decimal
    IFS=: read -r lmajor lminor linode <<END
$id
END
    case $lmajor:$lminor in *[!0-9a-f:]* | :* | *:) continue ;; esac
    if [ $((0x$lmajor)) != "$major" ] || [ $((0x$lminor)) != "$minor" ] || [ "$linode" != "$inode" ]; then
      continue
    fi
    cmd=$(tr '\0' ' ' 2>/dev/null < "/proc/$pid/cmdline")
    cmd=${cmd% }
    echo "$pid (${cmd:-no command line})"
    exit 0
  done <<END
$locks
END
done
exit 1

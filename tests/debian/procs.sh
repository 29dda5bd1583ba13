#!/bin/sh
# tests/debian/procs.sh -- run in the guest (ssh ... sh -s): one line per
# process that is not a kernel thread, from /proc alone:
#   PID PPID UID(real,effective,saved,fs) CAPPRM CAPEFF CAPBND EXE
# UID is four numbers joined by commas; EXE the program's path (- when
# unreadable).
for d in /proc/[0-9]*; do
  pid=${d#/proc/}
  [ -r "$d/status" ] || continue
  # kernel threads have no executable and a PPid of 2 (or are 2)
  exe=$(readlink "$d/exe" 2>/dev/null) || continue
  awk -v pid="$pid" -v exe="$exe" '
    $1 == "PPid:" { ppid = $2 }
    $1 == "Uid:" { uid = $2 "," $3 "," $4 "," $5 }
    $1 == "CapPrm:" { prm = $2 }
    $1 == "CapEff:" { eff = $2 }
    $1 == "CapBnd:" { bnd = $2 }
    END { if (uid != "") print pid, ppid, uid, prm, eff, bnd, exe }' "$d/status" 2>/dev/null
done

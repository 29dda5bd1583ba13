#!/bin/sh
# tests/debian/stats.sh -- run in the guest (ssh ... sh -s) by make bench:
# what the booted system uses, from /proc alone, whichever init runs it.
#   mem_total_kb N, mem_available_kb N, and what the used memory is:
#   mem_free_kb, mem_anon_kb, mem_cached_kb, mem_slab_kb,
#   mem_kernelstack_kb, mem_pagetables_kb, mem_vmalloc_kb
#   mem_pcp_kb N              free pages the kernel keeps on its per-CPU
#                             lists (/proc/zoneinfo, each pageset's
#                             count): free, yet counted in neither MemFree
#                             nor MemAvailable
#   init NAME RSS_KB          PID 1's name and resident set
#   processes N               processes that run a program (kernel
#                             threads left out), the ssh session's own
#                             included
#   tasks N                   every entry of /proc, kernel threads too
#   proc PID PPID UIDS CAPEFF CAPBND EXE NS   one per process (UIDS:
#                             real, effective, saved, fs, joined by
#                             commas; NS: which of its net, pid, mnt,
#                             ipc and uts namespaces are not PID 1's,
#                             from the links /proc/PID/ns/*, joined by
#                             commas, - for none)
awk '
  $1 == "MemTotal:" { print "mem_total_kb", $2 }
  $1 == "MemAvailable:" { print "mem_available_kb", $2 }
  $1 == "MemFree:" { print "mem_free_kb", $2 }
  $1 == "AnonPages:" { print "mem_anon_kb", $2 }
  $1 == "Cached:" { print "mem_cached_kb", $2 }
  $1 == "Slab:" { print "mem_slab_kb", $2 }
  $1 == "KernelStack:" { print "mem_kernelstack_kb", $2 }
  $1 == "PageTables:" { print "mem_pagetables_kb", $2 }
  $1 == "VmallocUsed:" { print "mem_vmalloc_kb", $2 }' /proc/meminfo
awk -v page="$(getconf PAGESIZE)" '$1 == "count:" { n += $2 } END { print "mem_pcp_kb", n * page / 1024 }' /proc/zoneinfo
echo "init $(cat /proc/1/comm) $(awk '$1 == "VmRSS:" { print $2 }' /proc/1/status)"
n=0
t=0
for d in /proc/[0-9]*; do
  t=$((t + 1))
  exe=$(readlink "$d/exe" 2>/dev/null) || continue
  n=$((n + 1))
  own=
  for k in net pid mnt ipc uts; do
    [ "$(readlink "$d/ns/$k" 2>/dev/null)" = "$(readlink "/proc/1/ns/$k")" ] || own=$own,$k
  done
  own=${own#,}
  awk -v pid="${d#/proc/}" -v exe="$exe" -v ns="${own:--}" '
    $1 == "PPid:" { ppid = $2 }
    $1 == "Uid:" { uid = $2 "," $3 "," $4 "," $5 }
    $1 == "CapEff:" { eff = $2 }
    $1 == "CapBnd:" { bnd = $2 }
    END { if (uid != "") print "proc", pid, ppid, uid, eff, bnd, exe, ns }' "$d/status" 2>/dev/null
done
echo "processes $n"
echo "tasks $t"

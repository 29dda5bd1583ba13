#!/bin/sh
# tests/debian/pidns.sh POSTFIX APACHE2 -- run in the guest (ssh ... sh -s
# PID PID) with the pids (capinit's, capctl status) of postfix's master
# and apache2's: what each sees of the machine's processes and links.
# One line per finding, a key and its values, which test_debian.sh
# compares with what it wants.
#   ps-postfix     same|differs, then ps's list inside postfix's mount and
#                  PID namespaces (nsenter -m -p: its own /proc), PID:COMM
#                  each, ps itself left out
#   kernel-postfix the kernel's list of the same: every process of the
#                  machine whose /proc/PID/ns/pid is the master's, by its
#                  pid in that namespace (the last NSpid) and its comm
#   ps-machine     the same ps in the machine's namespaces: sshd and
#                  master among its commands (yes/no each), its count
#   links-SERVICE  ip -d link inside the service's network namespace:
#                  NAME:KIND each (KIND - for none), and the machine's
#                  own (the control)
#   kill-inside    kill -0 on sshd's pid from a uid 0 without root's power
#                  (setpriv: securebits noroot, noroot-locked,
#                  keep-caps-locked, an empty bounding set, as postfix's
#                  daemons) in postfix's mount and PID namespaces: its exit
#                  status and what kill said
#   kill-outside   the same uid 0 in capinit's PID namespace (the
#                  control): its exit status, its CapEff
#   sshd-in-postfix  whether sshd's pid names a process in postfix's PID
#                  namespace (it must not, for kill-inside to mean
#                  anything)
m=$1
a=$2
sshd=$(cat /run/sshd.pid)
nsp=$(readlink "/proc/$m/ns/pid")
kernel_list() {
  for d in /proc/[0-9]*; do
    [ "$(readlink "$d/ns/pid" 2>/dev/null)" = "$nsp" ] || continue
    n=$(awk '$1 == "NSpid:" { print $NF }' "$d/status" 2>/dev/null)
    c=$(cat "$d/comm" 2>/dev/null)
    [ -n "$n" ] && [ -n "$c" ] && echo "$n:$c"
  done | sort -n
}
inside_list() {
  nsenter -t "$m" -m -p ps -e -o pid=,comm= | awk '$2 != "ps" { print $1 ":" $2 }' | sort -n
}
# postfix's daemons come and go (smtpd, proxymap, anvil end when idle): the
# kernel's list before and after ps's must agree, else again
i=0
while :; do
  k1=$(kernel_list)
  in=$(inside_list)
  k2=$(kernel_list)
  [ "$k1" = "$k2" ] && [ "$k1" = "$in" ] && break
  i=$((i + 1))
  [ $i -lt 10 ] || break
  sleep 0.5
done
echo ps-postfix $([ "$k1" = "$in" ] && echo same || echo differs) $in
echo kernel-postfix $k1
all=$(ps -e -o comm=)
echo ps-machine $(echo "$all" | grep -qx sshd && echo sshd || echo no-sshd) \
  $(echo "$all" | grep -qx master && echo master || echo no-master) $(echo "$all" | wc -l)
links() { # [nsenter -t PID -n]: NAME:KIND of each link
  "$@" ip -d -o link | awk -F': ' '{
    n = $2; sub(/@.*/, "", n); k = "-"
    if ($0 ~ / macvlan mode /) k = "macvlan"; else if ($0 ~ / ipvlan /) k = "ipvlan"; else if ($0 ~ / veth /) k = "veth"
    printf "%s:%s ", n, k }'
  echo
}
echo links-postfix $(links nsenter -t "$m" -n)
echo links-apache2 $(links nsenter -t "$a" -n)
echo links-machine $(links)
# the same uid 0 as postfix's, without root's power, twice: in postfix's
# namespaces, and in capinit's (the control)
weak() {
  setpriv --securebits=+noroot,+noroot_locked,+keep_caps_locked --bounding-set=-all --inh-caps=-all -- "$@"
}
out=$(nsenter -t "$m" -m -p setpriv --securebits=+noroot,+noroot_locked,+keep_caps_locked \
  --bounding-set=-all --inh-caps=-all -- /bin/sh -c "kill -0 $sshd" 2>&1)
echo kill-inside $? $(echo "$out" | sed -n 's/.*kill: *\(.*\)$/\1/p')
out=$(weak /bin/sh -c "kill -0 $sshd && sed -n 's/^CapEff:[[:space:]]*//p' /proc/self/status" 2>&1)
echo kill-outside $? $out
echo sshd-in-postfix $(echo "$in" | grep -q "^$sshd:" && echo yes || echo no) "$sshd"

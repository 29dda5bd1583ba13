#!/bin/busybox sh
# /usr/libexec/demo/run.sh -- the in-guest demo (demo.svc: legacy root,
# after every other service).  Each step is one line on the console,
# "demo: ..." (capinit relays this service's output with its name); the
# console shell's own lines ("console: ...") come from
# /etc/profile.d/demo.sh, run by that shell when this script says go.
# The raw values go to the results port, one record a line, for
# tests/qemu/test_appliance.sh; then DONE, then capctl poweroff.  That is
# the second serial port (/dev/ttyS1); on QEMU's virt machine (arm), whose
# one UART (ttyAMA0) is the console, a PCI serial port: /dev/ttyS0.
export PATH=/sbin:/usr/sbin:/bin:/usr/bin
res=/dev/ttyS1
[ ! -e /sys/class/tty/ttyAMA0 ] || res=/dev/ttyS0
stty -F $res raw -echo 2>/dev/null
exec 3>$res
R() { echo "$*" >&3; }        # a record for the test
say() { echo "$*"; }          # a line for the person watching
step() { R "t $1 $(cut -d' ' -f1 /proc/uptime)"; say "$*"; }
mkdir -p /run/demo /tmp/demo

# capability names, bit by bit, to say what a mask holds
NAMES="chown dac_override dac_read_search fowner fsetid kill setgid setuid setpcap
linux_immutable net_bind_service net_broadcast net_admin net_raw ipc_lock ipc_owner
sys_module sys_rawio sys_chroot sys_ptrace sys_pacct sys_admin sys_boot sys_nice
sys_resource sys_time sys_tty_config mknod lease audit_write audit_control setfcap
mac_override mac_admin syslog wake_alarm block_suspend audit_read perfmon bpf
checkpoint_restore"
LAST=$(cat /proc/sys/kernel/cap_last_cap)
capnames() { # HEXMASK
  m=$((0x$1))
  [ "$m" = 0 ] && { echo none; return; }
  [ "$m" = $(((1 << (LAST + 1)) - 1)) ] && { echo "all $((LAST + 1))"; return; }
  out= i=0
  for n in $NAMES; do
    [ $(((m >> i) & 1)) = 1 ] && out="$out${out:+,}cap_$n"
    i=$((i + 1))
  done
  echo "$out"
}
# "UID GID INH PRM EFF BND AMB NNP" of PID, from /proc/PID/status
creds() {
  awk '$1 == "Uid:" { u = $2 } $1 == "Gid:" { g = $2 } /^Cap(Inh|Prm|Eff|Bnd|Amb):/ { c = c " " $2 }
       $1 == "NoNewPrivs:" { n = $2 } END { print u, g c, n }' "/proc/$1/status"
}
# KEY of service NAME in the saved `capctl status --json`
field() { # NAME KEY
  awk -v n="$1" -v k="$2" '
    { line = $0; sub(/^ *"/, "", line) }
    line ~ /^name": / { cur = line; sub(/^name": "/, "", cur); sub(/",$/, "", cur) }
    cur == n && index(line, k "\": ") == 1 { v = substr(line, length(k) + 4); sub(/,$/, "", v); gsub(/"/, "", v); print v; exit }
  ' /run/demo/status.json
}

# ---------------------------------------------------------------- 1. status
# (every wait here is bounded generously: under TCG on a busy host the
# guest is slow, and a bound only costs time when something is broken)
i=0
until capctl status >/dev/null 2>&1 || [ $i -ge 600 ]; do sleep 0.1; i=$((i + 1)); done
capctl status --json > /run/demo/status.json
step 1. "capctl status: every service as capinit runs it (EFFECTIVE CAPS: CapEff of /proc/PID/status)"
capctl status | sed 's/^/   /'
for s in $(sed -n 's/^ *"name": "\(.*\)",$/\1/p' /run/demo/status.json); do
  pid=$(field "$s" pid)
  R "svc $s $(field "$s" state) $(field "$s" type) $(field "$s" mode)"
  [ "${pid:-0}" != 0 ] || continue
  set -- $(creds "$pid")
  R "creds $s $*"
  R "seccomp $s $(awk '$1 == "Seccomp:" { print $2 }' "/proc/$pid/status")"
  [ "$s" = demo ] || say "   $s: uid $1, holds $(capnames "$5"), bounding set $(capnames "$6")"
done
# the oneshots are done, with no process left: what they logged of themselves
oneshots=
for s in net lockdown; do
  eff=$(capctl log -n 20 "$s" 2>/dev/null | sed -n 's/.*CapEff:[[:space:]]*\([0-9a-f]*\).*/\1/p' | tail -n 1)
  R "oneshot $s ${eff:-none}"
  oneshots="$oneshots${oneshots:+, }$s ran with $(capnames "${eff:-0}")"
done
say "   oneshots (done): $oneshots"

# ---------------------------------------------------------------- 2. httpd
# httpd has a card of its own (network = macvlan:eth0, 10.0.2.16): it is
# not in this network namespace, and a macvlan does not talk to its
# parent's own stack, so the page is fetched from inside httpd's network
# namespace (nsenter -n: this runner is legacy root); the ping to QEMU's
# gateway crosses QEMU's user network from that card's own MAC address
hpid=$(field httpd pid)
i=0
until page=$(timeout 5 nsenter -t "$hpid" -n wget -q -O - http://10.0.2.16/ 2>&1) || [ $i -ge 600 ]; do sleep 0.1; i=$((i + 1)); done
text=$(echo "$page" | sed -n 's/<[^>]*>//g; /^hello/p' | head -n 1)
R "http $text"
step 2. "httpd (user www, cap_net_bind_service only) serves port 80 on a card of its own: wget http://10.0.2.16/ -> \"$text\""
links=$(awk -F: 'NR > 2 { gsub(/ /, "", $1); printf "%s ", $1 }' "/proc/$hpid/net/dev")
addr=$(nsenter -t "$hpid" -n ip -o -4 addr show dev eth0 | awk '{ print $4 }')
route=$(nsenter -t "$hpid" -n ip route | awk '$1 == "default" { print $3 }')
mac() { sed -n 's/.*link\/ether \([0-9a-f:]*\).*/\1/p' | head -n 1; }
itsmac=$(nsenter -t "$hpid" -n ip -o link show dev eth0 | mac)
[ -n "$itsmac" ] && [ "$itsmac" != "$(ip -o link show dev eth0 | mac)" ] && kind="a MAC address of its own" || kind="the machine's MAC address"
timeout 10 nsenter -t "$hpid" -n ping -c 1 -W 5 10.0.2.2 >/dev/null 2>&1
png=$?
mine=$(ip -o -4 addr | awk '{ printf "%s %s ", $2, $4 }')
R "card httpd $links| $addr | $route | $kind | ping $png"
R "card machine $mine"
say "   httpd's network: $links($kind), $addr, default via $route; ping 10.0.2.2 from it: exit $png"
say "   the machine's (every other service's but the sandbox's): $mine-- no 10.0.2.16, no card of httpd's"

# ---------------------------------------------------------------- 3. pinger
i=0
reply=
while [ $i -lt 600 ]; do
  reply=$(capctl log -n 20 pinger 2>/dev/null | grep ' reply from ' | tail -n 1 | cut -d' ' -f2-)
  [ -n "$reply" ] && break
  sleep 0.1
  i=$((i + 1))
done
R "pinger-log $reply"
step 3. "pinger (user ping, its service file grants nothing) has cap_net_raw from its file: \"$reply\""
out=$(capexec -f /etc/capinit/services/pinger.svc -- /usr/sbin/pinger -c 1 10.0.2.2 2>&1 | tail -n 1)
R "pinger-same-spec $? $out"
cp /usr/sbin/pinger /tmp/pinger-copy
out=$(capexec -f /etc/capinit/services/pinger.svc -- /tmp/pinger-copy -c 1 10.0.2.2 2>&1)
rc=$?
R "pinger-copy $rc $out"
say "   the same spec on a copy of the file, without its capability: exit $rc, \"${out#pinger: fatal: }\""
rm -f /tmp/pinger-copy

# ---------------------------------------------------------------- 4. console
step 4. "the console shell (pid $(field console pid)), uid 0 in a locked noroot tree with an empty bounding set, tries:"
: > /tmp/demo/go
i=0
while [ ! -e /tmp/demo/console.done ] && [ $i -lt 3000 ]; do sleep 0.1; i=$((i + 1)); done
if [ -e /tmp/demo/console.done ]; then
  while IFS= read -r l; do R "console $l"; done < /tmp/demo/console.results
else
  R "console timeout"
  say "   (the console shell did not answer)"
fi

# ---------------------------------------------------------------- 5. containers
for s in sandbox open; do
  i=0
  while [ "$(capctl status --json "$s" | sed -n 's/^ *"state": "\(.*\)",$/\1/p')" != up ] && [ $i -lt 600 ]; do
    sleep 0.1
    i=$((i + 1))
  done
done
step 5. "the same script, uid 0 in a locked noroot tree, from inside a container (sandbox: its own root, PIDs, no network) and without one (open):"
for s in sandbox open; do
  capctl log -n 40 "$s" 2>/dev/null | cut -d' ' -f2- |
    grep -E "^(processes|write /|other services' files|network|hostname|userns|dev|block devices|disk read|ttys|kmsg|console|kmsg write|dev create|shm create|suid):" > "/run/demo/$s.txt"
  while IFS= read -r l; do
    R "inside $s $l"
    say "   $s: $l"
  done < "/run/demo/$s.txt"
done
# what reached the machine (issue 34): the kernel log, its /dev and
# /dev/shm, and the same user namespace from this service (legacy root)
R "machine kmsg $(dmesg | grep -c 'demo: kmsg from sandbox$') $(dmesg | grep -c 'demo: kmsg from open$')"
R "machine dev $(ls /dev | grep '^demo-' | tr '\n' ' ')"
R "machine shm $(ls /dev/shm | grep '^demo-' | tr '\n' ' ')"
R "machine block $(find /dev -type b | sort | tr '\n' ' ')"
R "machine ttys $(ls /dev | grep -c '^tty.')"
unshare -U true 2>&1
u=$?
R "control userns $u"
say "   what reached the machine: the kernel log has $(dmesg | grep -c 'demo: kmsg from ') of their lines (open's), /dev and /dev/shm: $(ls /dev /dev/shm | grep '^demo-' | tr '\n' ' ')"
say "   a user namespace from this service (legacy root, as PID 1 starts it): exit $u"
rm -f /dev/demo-* /dev/shm/demo-*

# ---------------------------------------------------------------- 6. controls
ko=$(find /lib/modules/"$(uname -r)" -name dummy.ko | head -n 1)
mount -t tmpfs demo /mnt 2>&1
m=$?
umount /mnt 2>/dev/null
insmod "$ko" 2>&1
k=$?
[ -d /sys/module/dummy ] && loaded=yes || loaded=no
rmmod dummy 2>/dev/null
R "control mount $m"
R "control insmod $k $loaded"
step 6. "the same mount and insmod from this demo service (legacy root, as PID 1 starts it): exit $m and $k (dummy loaded: $loaded)"

# ---------------------------------------------------------------- 7. the image
out=$(capctl verify 2>&1)
rc=$?
R "verify $rc $(echo "$out" | grep -v -e 'result=ok' -e 'result=skipped' | tr '\t\n' '  ')"
step 7. "capctl verify: every running service holds what capctl explain predicts: $([ $rc = 0 ] && echo yes || echo "NO: $out")"
setid=$(find / -xdev ! -type l -perm /6000 2>/dev/null | tr '\n' ' ')
R "setid ${setid:-none}"
root=$(awk '$2 == "/" { r = $3 " " substr($4, 1, 2) } END { print r }' /proc/mounts)
procsys=$(awk '$2 == "/proc/sys" { r = substr($4, 1, 2) } END { print r }' /proc/mounts)
R "rootmount $root"
R "procsys $procsys"
R "sysfs $(awk '$2 == "/sys" { r = $4 } END { print r }' /proc/mounts)"
if [ -x /test/tool ]; then
  R "xattr /usr/sbin/pinger $(/test/tool getcap /usr/sbin/pinger)"
  R "xattr /bin/busybox $(/test/tool getcap /bin/busybox)"
fi
say "   set-user-ID or set-group-ID files in the image: ${setid:-none}; / is $root, /proc/sys $procsys"

step 8. "done: capctl poweroff (the services stop in reverse dependency order)"
R DONE
exec 3>&-
capctl poweroff
exec sleep 60

#!/bin/sh
# tests/qemu/test_netcard_kernel.sh BUILDDIR -- a service's card of its own
# (network = macvlan:PARENT, ipvlan:PARENT) on Debian's stock 6.1, where
# both kinds are modules, booted in QEMU (TCG) on a minimal initramfs of
# busybox and capexec.  Its /init refuses module loading
# (kernel.modprobe = /bin/false), makes the parent a dummy link named
# eth0, and runs capexec through what this machine's kernel cannot show:
#   - a kernel without the kind (the module not loaded, its loading
#     refused): stage card fails, EOPNOTSUPP, the other kind named;
#   - the module loaded (the control): the card, eth0 in the service's
#     namespace on a parent also named eth0, which 6.1 refuses as a new
#     link's name (the card is born ciPID and renamed);
#   - a link already named ciPID in capinit's network: EEXIST, said;
#   - an ipvlan card on a parent that carries a macvlan card: EBUSY, said;
#     the control: the same card once the macvlan's service is gone;
#   - a second ipvlan card with a running one's address: the kernel's
#     ipvlan refuses it at stage address (EADDRINUSE), said.
# After every case the guest's own network holds lo, eth0 and the spare
# dummy only: a failed start leaves no link behind.
B=${1:-build}
. tests/lib.sh
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
. tests/qemu/mini.sh
mini_kernel test_netcard_kernel "$B/bin/capexec"
mods=$(echo "$PKG"/lib/modules/*/kernel/drivers/net)
for f in "$mods/dummy.ko" "$mods/macvlan.ko" "$mods/ipvlan/ipvlan.ko"; do
  [ -f "$f" ] || { echo "test_netcard_kernel: $f is missing (make check builds it)" >&2; exit 1; }
done
mini_root sh mount ip cat awk sed grep sleep kill insmod false true poweroff
mkdir "$R/m"
cp "$B/bin/capexec" "$R/b/"
cp "$mods/dummy.ko" "$mods/macvlan.ko" "$mods/ipvlan/ipvlan.ko" "$R/m/"
cat >"$R/init" <<'EOF2'
#!/bin/sh
mount -t proc proc /proc
mount -t sysfs sys /sys
mount -t devtmpfs dev /dev
echo "KERNEL $(cat /proc/sys/kernel/osrelease)"
echo /bin/false > /proc/sys/kernel/modprobe
ip link set lo up
insmod /m/dummy.ko numdummies=2
ip link set dummy0 name eth0
ip link set eth0 up
links() { awk -F: 'NR > 2 { gsub(/ /, "", $1); printf "%s ", $1 }' "${1:-/proc/self/net/dev}"; }
# what the service sees: its links, then its addresses
look='awk -F: '\''NR > 2 { gsub(/ /, "", $1); printf "%s ", $1 } END { print "" }'\'' /proc/self/net/dev; ip -o -4 addr | awk '\''{ printf "%s %s ", $2, $4 } END { print "" }'\'''
case_() { # NAME COMMAND...: its exit status, its lines, the guest's links after
  n=$1
  shift
  "$@" >/tmp/out 2>/tmp/err
  echo "CASE $n rc=$?"
  sed "s/^/ERR $n /" /tmp/err
  sed "s/^/OUT $n /" /tmp/out
  echo "LINKS $n $(links)"
}
card() { # KIND ADDRESS
  /b/capexec -k network="$1":eth0 -k address="$2"/24 -- /bin/sh -c "$look"
}
running() { # KIND ADDRESS: a card's service in the background ($bg), once it sleeps in its network
  # (or has ended: its status and its lines are then in the console, BGEND)
  /b/capexec -k network="$1":eth0 -k address="$2"/24 -- /bin/sleep 600 2>/tmp/bgerr &
  bg=$!
  i=0
  until [ "$(links /proc/$bg/net/dev 2>/dev/null)" = "lo eth0 " ] && [ "$(cat /proc/$bg/comm)" = sleep ] || [ $i -ge 1200 ]; do
    if ! kill -0 $bg 2>/dev/null; then
      wait $bg
      echo "BGEND $1 $2 rc=$? after $i waits: $(cat /tmp/bgerr)"
      break
    fi
    sleep 0.1
    i=$((i + 1))
  done
}
case_ nomacvlan card macvlan 10.9.0.2
case_ noipvlan card ipvlan 10.9.0.2
insmod /m/macvlan.ko
insmod /m/ipvlan.ko
case_ macvlan card macvlan 10.9.0.2
# capexec makes the card in its own process: the pid of the shell it execs
case_ taken sh -c 'ip link set dummy1 name ci$$; exec /b/capexec -k network=macvlan:eth0 -k address=10.9.0.2/24 -- /bin/true'
for l in $(links); do case $l in ci*) ip link set "$l" name dummy1 ;; esac; done
echo "LINKS back $(links)"
running macvlan 10.9.0.3
echo "BG $(links /proc/$bg/net/dev)"
case_ busy card ipvlan 10.9.0.4
kill $bg
wait $bg
# the macvlan card goes with its namespace, which the kernel frees in a
# work queue after the last process left: until then the parent still
# carries it (EBUSY); bounded
i=0
while case_ ipvlan card ipvlan 10.9.0.4 | grep -q '^ERR ipvlan .*Resource busy$' && [ $i -lt 100 ]; do
  sleep 0.1
  i=$((i + 1))
done
case_ ipvlan card ipvlan 10.9.0.4
# two ipvlan cards with one address: they share the parent's MAC, and
# the kernel's ipvlan refuses the second address itself (EADDRINUSE)
running ipvlan 10.9.0.5
echo "BG2 $(links /proc/$bg/net/dev)"
case_ ipdup card ipvlan 10.9.0.5
kill $bg
wait $bg
echo DONE
poweroff -f
EOF2
mini_boot 256
t_eq "$(echo "$C" | sed -n 's/^KERNEL \(6\.1\.\).*/\1/p')" "6.1." "Debian's 6.1"
L="lo eth0 dummy1 "
out() { echo "$C" | grep "^$1 $2" | sed "s/^$1 $2 *//"; }
t_eq "$(out CASE nomacvlan)
$(out ERR nomacvlan)
$(out LINKS nomacvlan)" "rc=115
capexec: fatal: unable to make the macvlan card eth0 on eth0 (the kernel has no macvlan: use ipvlan or load the module) (stage card): Not supported
$L" "no macvlan (the module's loading refused): stage card, EOPNOTSUPP, ipvlan named; no link left"
t_eq "$(out CASE noipvlan)
$(out ERR noipvlan)
$(out LINKS noipvlan)" "rc=115
capexec: fatal: unable to make the ipvlan card eth0 on eth0 (the kernel has no ipvlan: use macvlan or load the module) (stage card): Not supported
$L" "no ipvlan: the same, macvlan named; no link left"
t_eq "$(out CASE macvlan)
$(out ERR macvlan)
$(out OUT macvlan)
$(out LINKS macvlan)" "rc=0

lo eth0 
lo 127.0.0.1/8 eth0 10.9.0.2/24 
$L" "control: macvlan loaded, the card: eth0 on the parent eth0 (born ciPID: 6.1 refuses a new link named as its parent), lo and eth0 only, 10.9.0.2/24; gone after"
echo "$C" | grep -q "^ERR taken capexec: fatal: unable to make the macvlan card eth0 on eth0 (capinit's network has a link of the card's first name, ci and the pid: rename it) (stage card): File exists$"
t_ok $? "a link already named ciPID in capinit's network: stage card, EEXIST, said ($(out ERR taken))"
t_eq "$(out CASE taken) / $(out LINKS back)" "rc=115 / $L" "... exit 115, and no link made (the guest's are lo, eth0 and the renamed dummy)"
t_eq "$(out BG)" "lo eth0 " "control: a macvlan card's service running on eth0$(out BGEND macvlan)"
t_eq "$(out CASE busy)
$(out ERR busy)
$(out LINKS busy)" "rc=115
capexec: fatal: unable to make the ipvlan card eth0 on eth0 (it carries cards of the other kind: macvlan and ipvlan cards cannot share a parent) (stage card): Resource busy
$L" "an ipvlan card on that parent: stage card, EBUSY, said; no link left"
t_eq "$(out CASE ipvlan)
$(out OUT ipvlan)
$(out LINKS ipvlan)" "rc=0
lo eth0 
lo 127.0.0.1/8 eth0 10.9.0.4/24 
$L" "control: the macvlan's service gone, the same ipvlan card is made"
t_eq "$(out BG2)" "lo eth0 " "control: an ipvlan card's service running at 10.9.0.5$(out BGEND ipvlan)"
t_eq "$(out CASE ipdup)
$(out ERR ipdup)
$(out LINKS ipdup)" "rc=115
capexec: fatal: unable to give eth0 the address 10.9.0.5/24 (another ipvlan card on eth0 has it: give the service a free address) (stage address): Address in use
$L" "a second ipvlan card with that address: stage address, EADDRINUSE from the kernel's ipvlan, said; no link left"
t_done

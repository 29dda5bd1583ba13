#!/bin/sh
# A network card of its own (issue 36): network = macvlan:PARENT with an
# address and a gateway.  Everything happens in namespaces the test makes:
# capinit's network ($H) holds the parent p0, one end of a veth pair whose
# other end p1 is a peer's ($P, 10.0.2.1/24).  The kernel's answers come
# from iproute2 (ip -o link, ip -o addr, ip route, run in the service's
# namespace), from /proc/PID/net/dev, and from the parent's promiscuity
# count, which a macvlan on a veth raises while it exists (the proof that
# no link is left behind, with its control while one exists).
#   - capexec and capinit: the service sees exactly lo and eth0, its
#     address and routes; eth0 is a macvlan (bridge) with a MAC of its own,
#     and announces its address as it comes up (arp_notify);
#   - a TCP connection from the peer to the service's address (the
#     positive control of every failure below);
#   - other services (network = host, none) do not see the card, and the
#     card does not reach capinit's own address on the parent;
#   - failures at stage card (no such parent, a kernel without ipvlan, as
#     `ip link add` finds this kernel) and faults forced at card, address
#     and route (the test build): the service does not run, the stage and
#     the kernel's reason are named, and capinit's network lists only lo
#     and the parent, which no card holds any more;
#   - an address capinit knows is taken: one of capinit's network (on
#     the parent, or on another link), or another running service's card
#     on the same parent: stage address fails, EADDRINUSE, the holder
#     named, no link left; the controls: the kernel itself takes each
#     duplicate (`ip addr add` on a macvlan of the test's own), and the
#     same files start with a free address, or once the holder is gone;
#     capctl check warns of two files with one address on one parent;
#   - capctl check refuses an address without a card and a gateway off
#     its net; explain --json describes the card.
B=${1:-build}
. tests/lib.sh
. tests/supervise_lib.sh
CAPEXEC=$(pwd)/$B/bin/capexec
FAULT=$(pwd)/$B/tests/capexec-fault
sv_init
NS=capinit-card-$$
H=$NS-host
P=$NS-peer
SV_CLEANUP="ip netns del $H 2>/dev/null; ip netns del $P 2>/dev/null; ip netns del $NS-k 2>/dev/null"
ip netns add "$H"
ip netns add "$P"
ip -n "$H" link add p0 type veth peer name p1 netns "$P"
ip -n "$H" link set p0 up
ip -n "$P" link set p1 up
ip -n "$P" addr add 10.0.2.1/24 dev p1

# capinit's network as `ip` lists it; the parent's promiscuity (0 with no card on it)
# (ip's stderr aside: once a namespace of the test's own is gone, it
# says the peer reference of a link's netns id is invalid)
links() { ip -n "$H" -o link 2>/dev/null | awk -F': ' '{ print $2 }' | cut -d@ -f1 | tr '\n' ' '; }
promisc() { ip -n "$H" -d -o link show p0 2>/dev/null | sed -n 's/.* promiscuity \([0-9]*\) .*/\1/p'; }
# bounded: the namespace of a process that exited is freed by the kernel's workqueue
promisc_back() {
  n=100
  while [ "$(promisc)" != 0 ] && [ $n -gt 0 ]; do sleep 0.05; n=$((n - 1)); done
  promisc
}
# the service's view: its links, IPv4 addresses, routes, eth0's kind and MAC
# (ip's stderr aside: it may warn that it cannot name a link's peer namespace)
cat > "$T/view.sh" <<'EOF'
exec 2>/dev/null
ip -o link | awk -F': ' '{ print $2 }' | cut -d@ -f1 | tr '\n' ' '; echo
ip -o -4 addr | awk '{ print $2, $4 }' | tr '\n' ' '; echo
ip route | sed 's/ *$//' | tr '\n' ';'; echo
ip -d -o link show eth0 | grep -o 'macvlan mode [a-z]*'
ip -o link show eth0 | grep -o 'link/ether [0-9a-f:]*'
exit 0
EOF
p0_mac=$(ip -n "$H" -o link show p0 | grep -o 'link/ether [0-9a-f:]*')

t_eq "$(links) $(promisc)" "lo p0  0" "control: capinit's network holds lo and the parent p0, promiscuity 0"

# --- capexec ------------------------------------------------------------------
got=$(ip netns exec "$H" "$CAPEXEC" -k network=macvlan:p0 -k address=10.0.2.20/24 -k gateway=10.0.2.1 -- \
  /bin/sh "$T/view.sh" 2>&1)
t_eq "$(echo "$got" | sed -n 1,4p)" "lo eth0 
lo 127.0.0.1/8 eth0 10.0.2.20/24 
default via 10.0.2.1 dev eth0;10.0.2.0/24 dev eth0 proto kernel scope link src 10.0.2.20;
macvlan mode bridge" "capexec: the service sees lo and eth0 (a macvlan, bridge), 10.0.2.20/24 and the default route via 10.0.2.1"
mac=$(echo "$got" | sed -n 5p)
t_ok "$([ -n "$mac" ] && [ "$mac" != "$p0_mac" ]; echo $?)" "capexec: eth0 has a MAC of its own ($mac), not p0's ($p0_mac)"
got=$(ip netns exec "$H" "$CAPEXEC" -k network=macvlan:p0 -k address=10.0.2.21/24 -- /bin/sh "$T/view.sh" 2>&1 | sed -n 2,3p)
t_eq "$got" "lo 127.0.0.1/8 eth0 10.0.2.21/24 
10.0.2.0/24 dev eth0 proto kernel scope link src 10.0.2.21;" "capexec: without a gateway, only the net's own route"
t_eq "$(links) $(promisc_back)" "lo p0  0" "capexec: after both, capinit's network lists lo and p0, and no card holds p0"

got=$(ip netns exec "$H" "$CAPEXEC" -k mode=noroot -k network=macvlan:p0 -k address=10.0.2.21/24 -- /bin/sh -c \
  'echo "pid $$"; sh "$0"' "$T/view.sh" 2>&1 | sed -n 1,3p)
t_eq "$got" "pid 2
lo eth0 
lo 127.0.0.1/8 eth0 10.0.2.21/24 " "capexec: a noroot uid 0 (its own PID namespace, under a reaper): the same card"
# capinit's own address on the parent: a macvlan does not reach its parent's stack
ip -n "$H" addr add 10.0.2.5/24 dev p0
cat > "$T/reach.sh" <<'EOF'
for a in 10.0.2.1 10.0.2.5; do timeout 10 bash -c "exec 3<>/dev/tcp/$a/9" 2>&1 | sed -n 's/.*: //p' | sort -u; done
EOF
got=$(ip netns exec "$H" "$CAPEXEC" -k network=macvlan:p0 -k address=10.0.2.20/24 -- /bin/bash "$T/reach.sh" 2>&1 | tr '\n' ' ')
t_eq "$got" "Connection refused No route to host " \
  "capexec: from the card, the peer's 10.0.2.1 answers (its port 9 refuses), capinit's own 10.0.2.5 on p0 is out of reach (no ARP answer)"
# ... yet the address is capinit's network's: refused at stage address
got=$(ip netns exec "$H" "$CAPEXEC" -k network=macvlan:p0 -k address=10.0.2.5/24 -- /bin/echo ran 2>&1)
t_eq "$?:$got" "115:capexec: fatal: unable to give eth0 the address 10.0.2.5/24 (capinit's network, on the parent p0, has it: give the service a free address) (stage address): Address in use" \
  "capexec: capinit's own 10.0.2.5 on p0: stage address, the parent named, EADDRINUSE, the command never ran"
t_eq "$(links) $(promisc_back)" "lo p0  0" "capexec: ... and no card is left on p0"
ip -n "$H" addr add 10.0.2.6/32 dev lo
got=$(ip netns exec "$H" "$CAPEXEC" -k network=macvlan:p0 -k address=10.0.2.6/24 -- /bin/echo ran 2>&1)
t_eq "$?:$got" "115:capexec: fatal: unable to give eth0 the address 10.0.2.6/24 (capinit's network, on a link other than p0 (\`ip -4 addr\` says which), has it: give the service a free address) (stage address): Address in use" \
  "capexec: 10.0.2.6 on capinit's lo: stage address, EADDRINUSE, ip named to find the link"
t_eq "$(links) $(promisc_back)" "lo p0  0" "capexec: ... and no card is left on p0"
ip -n "$H" addr del 10.0.2.6/32 dev lo
# the control: the kernel itself takes the duplicate (a macvlan of the test's own on p0 gets 10.0.2.5)
ip netns add "$NS-k"
ip -n "$H" link add kcard link p0 netns "$NS-k" type macvlan mode bridge
ip -n "$NS-k" link set kcard up
ip -n "$NS-k" addr add 10.0.2.5/24 dev kcard
t_eq "$?:$(ip -n "$NS-k" -o -4 addr show dev kcard | awk '{ print $4 }')" "0:10.0.2.5/24" \
  "control: the kernel gives a macvlan on p0 the address 10.0.2.5 that p0 has (ip addr add: IPv4 refuses no duplicate)"
ip netns del "$NS-k"
ip -n "$H" addr del 10.0.2.5/24 dev p0
t_eq "$(promisc_back)" 0 "control: the test's own card gone, p0 holds none"
got=$(ip netns exec "$H" "$CAPEXEC" -k network=macvlan:p0 -k address=10.0.2.5/24 -- /bin/echo ran 2>&1)
t_eq "$?:$got" "0:ran" "control: 10.0.2.5 gone from capinit's network, the same command runs"
got=$(ip netns exec "$H" "$CAPEXEC" -k network=macvlan:nope -k address=10.0.2.20/24 -- /bin/true 2>&1)
t_eq "$?:$got" "115:capexec: fatal: unable to make the macvlan card eth0 on nope (capinit's network has no link nope: name one that \`ip link\` lists) (stage card): No such device" \
  "capexec: a missing parent: stage card, the parent named, ENODEV"
# ipvlan: this kernel's answer, as iproute2 gets it
if ip -n "$H" link add ipv-try link p0 type ipvlan mode l2 2>/dev/null; then
  ip -n "$H" link del ipv-try
  got=$(ip netns exec "$H" "$CAPEXEC" -k network=ipvlan:p0 -k address=10.0.2.22/24 -- /bin/sh "$T/view.sh" 2>&1 | sed -n 1,2p)
  t_eq "$got" "lo eth0 
lo 127.0.0.1/8 eth0 10.0.2.22/24 " "capexec: this kernel has ipvlan (ip link add made one): the service sees lo and eth0 with its address"
else
  got=$(ip netns exec "$H" "$CAPEXEC" -k network=ipvlan:p0 -k address=10.0.2.22/24 -- /bin/true 2>&1)
  t_eq "$?:$got" "115:capexec: fatal: unable to make the ipvlan card eth0 on p0 (the kernel has no ipvlan: use macvlan or load the module) (stage card): Not supported" \
    "capexec: this kernel has no ipvlan (ip link add refused it too): stage card, EOPNOTSUPP and what to do"
fi
# faults forced at each stage (the test build): the link, made before address and route, dies with the namespace
for st in card address route; do
  got=$(CAPINIT_FAULT_STAGE=$st ip netns exec "$H" "$FAULT" -k network=macvlan:p0 -k address=10.0.2.20/24 \
    -k gateway=10.0.2.1 -- /bin/echo ran 2>&1)
  t_eq "$?:$(echo "$got" | sed 's/unable to .* (stage/(stage/'):$(links) $(promisc_back)" \
    "115:capexec: fatal: (stage $st): Operation not permitted:lo p0  0" \
    "capexec: a fault at stage $st: not run, stage named; capinit's network lists lo and p0, no card holds p0"
done

# --- capinit ------------------------------------------------------------------
cat > "$T/web.sh" <<EOF
sh $T/view.sh
cat /proc/self/net/dev | sed -n 's/^ *\([a-z0-9]*\):.*/\1/p' | tr '\n' ' '; echo
exec perl -MIO::Socket::INET -e '\$s = IO::Socket::INET->new(LocalAddr => "10.0.2.20", LocalPort => 8080, Listen => 5, ReuseAddr => 1) or die;
  while (\$c = \$s->accept) { print \$c "card ", \$c->sockhost, "\n"; close \$c }'
EOF
svc web <<EOF
command = /bin/sh $T/web.sh
network = macvlan:p0
address = 10.0.2.20/24
gateway = 10.0.2.1
EOF
svc dup <<EOF
command = /bin/sh -c "sh $T/view.sh; exec sleep 100000"
network = macvlan:p0
address = 10.0.2.20/24
enabled = no
EOF
svc alt <<EOF
command = /bin/sh -c "sh $T/view.sh; exec sleep 100000"
network = macvlan:p0
address = 10.0.2.26/24
enabled = no
EOF
svc other <<EOF
type = oneshot
command = /bin/sh $T/view.sh
EOF
svc none <<EOF
type = oneshot
command = /bin/sh $T/view.sh
network = none
EOF
svc noparent <<EOF
command = /bin/sleep 100000
network = macvlan:nope
address = 10.0.2.23/24
EOF
svc nokind <<EOF
command = /bin/sleep 100000
network = ipvlan:nope
address = 10.0.2.24/24
EOF

t_eq "$("$CAPCTL" check -c "$T/c" 2>&1 | sed "s|$T/c/services/||"; echo "rc $?")" "capctl: dup.svc:3: warning: address: 10.0.2.20 on p0 is also service web's: the two cannot run at once (the second to start fails at stage address)
capctl: web.svc:3: warning: address: 10.0.2.20 on p0 is also service dup's: the two cannot run at once (the second to start fails at stage address)
capctl: 0 errors, 2 warnings; 0 services refused
rc 0" "capctl check takes every file (a parent is not checked at load time), and warns dup and web of their one address on p0"
t_eq "$("$CAPCTL" explain --json -c "$T/c" web 2>/dev/null | grep '"card"' | sed 's/^ *//')" \
  '"card": {"kind": "macvlan", "parent": "p0", "interface": "eth0", "address": "10.0.2.20/24", "gateway": "10.0.2.1"},' \
  "capctl explain --json: the card web gets"
t_eq "$("$CAPCTL" explain --json -c "$T/c" none | grep '"card"' | sed 's/^ *//')" '"card": null,' \
  "capctl explain --json: none (network = none) has none"
t_eq "$("$CAPCTL" explain -c "$T/c" web 2>&1 >/dev/null | sed "s|$T/c/services/||")" \
  "capctl: web.svc:3: warning: address: 10.0.2.20 on p0 is also service dup's: the two cannot run at once (the second to start fails at stage address)" \
  "capctl explain web: the same warning, of dup"
t_eq "$("$CAPCTL" explain -c "$T/c" alt 2>&1 >/dev/null)" "" "control: capctl explain alt (10.0.2.26 on p0, no other's): no warning"

# capinit in capinit's network ($H), as its PID 1
printf '#!/bin/sh\nexec nsenter --net=/run/netns/%s %s "$@"\n' "$H" "$CAPINIT" > "$T/capinit-in-net"
chmod 755 "$T/capinit-in-net"
CAPINIT=$T/capinit-in-net
sv_start
sv_wait web up
sv_wait other up
sv_wait none up
sv_wait noparent failed
# bounded: a connection to an address nobody holds waits for TCP's retries
connect() { ip netns exec "$P" timeout 10 bash -c "exec 3<>/dev/tcp/$1/8080 && head -n 1 <&3" 2>/dev/null; }
n=200
while [ -z "$(connect 10.0.2.20)" ] && [ $n -gt 0 ]; do sleep 0.05; n=$((n - 1)); done
t_eq "$(connect 10.0.2.20)" "card 10.0.2.20" "the peer ($P) connects to web at 10.0.2.20:8080 over p1, p0 and web's eth0"
t_eq "$(cut -d' ' -f2- "$T/log/web.log" | sed -n 1,4p)" "lo eth0 
lo 127.0.0.1/8 eth0 10.0.2.20/24 
default via 10.0.2.1 dev eth0;10.0.2.0/24 dev eth0 proto kernel scope link src 10.0.2.20;
macvlan mode bridge" "capinit: web sees lo and eth0 (macvlan, bridge), 10.0.2.20/24 and the default route"
t_eq "$(cut -d' ' -f2- "$T/log/web.log" | sed -n 6p)" "lo eth0 " "capinit: web's /proc/self/net/dev lists lo and eth0"
pid=$(sv_field web pid)
t_eq "$(sv_in sed -n 's/^ *\([a-z0-9]*\):.*/\1/p' "/proc/$pid/net/dev" | tr '\n' ' ')" "lo eth0 " \
  "capinit: /proc/PID/net/dev of web's process, read from capinit's namespaces: lo and eth0"
t_eq "$(sv_in nsenter -t "$pid" -n cat /proc/sys/net/ipv4/conf/eth0/arp_notify) $(ip netns exec "$H" cat /proc/sys/net/ipv4/conf/p0/arp_notify)" "1 0" \
  "capinit: web's eth0 announces its address when it comes up (arp_notify 1, the kernel's view in web's network), where a link of ip's has the kernel's default (p0: 0)"
out=$(sv_ctl verify web)
t_eq "$?:$(echo "$out" | tr '\t' ' ')" "0:name=web result=ok processes=1" "verify: web's card is as its file says"
sv_in nsenter -t "$pid" -n ip addr add 10.0.2.99/24 dev eth0
out=$(sv_ctl verify web)
t_eq "$?:$(echo "$out" | tr '\t' ' ')" "1:name=web result=differs field=net:address live=10.0.2.20 10.0.2.99 predicted=10.0.2.20" \
  "control: an address added behind capinit's back: verify says so (exit 1)"
sv_in nsenter -t "$pid" -n ip addr del 10.0.2.99/24 dev eth0
sv_in nsenter -t "$pid" -n ip route del default
out=$(sv_ctl verify web)
t_eq "$?:$(echo "$out" | tr '\t' ' ')" "1:name=web result=differs field=net:route live=10.0.2.0/24 dev eth0; predicted=0.0.0.0/0 via 10.0.2.1 dev eth0; 10.0.2.0/24 dev eth0;" \
  "control: the default route deleted: verify says so"
sv_in nsenter -t "$pid" -n ip route add default via 10.0.2.1
out=$(sv_ctl verify web)
t_eq "$?:$(echo "$out" | tr '\t' ' ')" "0:name=web result=ok processes=1" "... put back: verify passes"
t_eq "$(cut -d' ' -f2- "$T/log/other.log" | sed -n 1p)" "lo p0 " "capinit: other (network = host) sees capinit's network, lo and p0, no card"
t_eq "$(cut -d' ' -f2- "$T/log/none.log" | sed -n 1p)" "lo " "capinit: none (network = none) sees only lo"
t_eq "$(links) $(promisc)" "lo p0  1" "capinit: its own network still lists lo and p0 (the card is in web's), and p0 holds a card (promiscuity 1)"

t_eq "$(sv_field noparent failure)" "stage card: unable to make the macvlan card eth0 on nope (capinit's network has no link nope: name one that \`ip link\` lists): No such device" \
  "capinit: noparent fails at stage card, the parent named, ENODEV"
t_eq "$(cut -d' ' -f2- "$T/log/noparent.log" | sed -n 1p)" "capinit: fatal: start failed at stage card: unable to make the macvlan card eth0 on nope (capinit's network has no link nope: name one that \`ip link\` lists): No such device" \
  "capinit: noparent's log has capinit's line only"
sv_wait nokind failed
t_eq "$(sv_field nokind failure | cut -d: -f1)" "stage card" "capinit: ipvlan on a missing parent fails at stage card too"

# the same address twice on one parent: the kernel would take it (the
# control: a macvlan of the test's own on p0 gets web's address), capinit
# refuses it while web runs
ip netns add "$NS-k"
ip -n "$H" link add kcard link p0 netns "$NS-k" type macvlan mode bridge
ip -n "$NS-k" link set kcard up
ip -n "$NS-k" addr add 10.0.2.20/24 dev kcard
t_eq "$?:$(ip -n "$NS-k" -o -4 addr show dev kcard | awk '{ print $4 }')" "0:10.0.2.20/24" \
  "control: the kernel gives a second card on p0 web's address 10.0.2.20 (ip addr add: IPv4 refuses no duplicate)"
ip netns del "$NS-k"
n=100
while [ "$(promisc)" != 1 ] && [ $n -gt 0 ]; do sleep 0.05; n=$((n - 1)); done
t_eq "$(promisc)" 1 "control: the test's own card gone, p0 holds web's card only"
sv_ctl start dup >/dev/null
sv_wait dup failed
t_eq "$(sv_field dup failure) $(sv_field web state)" \
  "stage address: unable to give eth0 the address 10.0.2.20/24 (another running service's card on p0 has it: give the service a free address): Address in use up" \
  "capinit: dup, with web's address 10.0.2.20 on p0, fails at stage address, EADDRINUSE; web stays up"
t_eq "$(cut -d' ' -f2- "$T/log/dup.log")" "capinit: fatal: start failed at stage address: unable to give eth0 the address 10.0.2.20/24 (another running service's card on p0 has it: give the service a free address): Address in use; that card is service web's" \
  "capinit: dup never ran (its log has capinit's line only, which names web)"
t_eq "$(links) $(promisc_back)" "lo p0  1" "capinit: after dup's failure, p0 holds web's card only (promiscuity 1)"
# the controls: another address on p0 starts beside web; dup starts once web is gone
sv_ctl start alt >/dev/null
sv_wait alt up
n=100
while [ "$(cut -d' ' -f2- "$T/log/alt.log" 2>/dev/null | sed -n 2p)" = "" ] && [ $n -gt 0 ]; do sleep 0.05; n=$((n - 1)); done
t_eq "$(cut -d' ' -f2- "$T/log/alt.log" | sed -n 2p) $(sv_field web state)" "lo 127.0.0.1/8 eth0 10.0.2.26/24  up" \
  "control: alt, at 10.0.2.26 on p0, starts while web runs"
sv_ctl stop alt >/dev/null
sv_wait alt down
sv_ctl stop web >/dev/null
sv_wait web down
sv_ctl start dup >/dev/null
sv_wait dup up
n=100
while [ "$(cut -d' ' -f2- "$T/log/dup.log" 2>/dev/null | grep -c '^lo 127')" = 0 ] && [ $n -gt 0 ]; do sleep 0.05; n=$((n - 1)); done
t_eq "$(cut -d' ' -f2- "$T/log/dup.log" | grep '^lo 127')" "lo 127.0.0.1/8 eth0 10.0.2.20/24 " \
  "control: web stopped, dup starts with 10.0.2.20 on p0"
sv_ctl stop dup >/dev/null
sv_wait dup down

sv_stop
t_eq "$sv_rc $(links) $(promisc_back)" "0 lo p0  0" "capinit stopped: its network lists lo and p0, and no card holds p0 any more"
t_eq "$(connect 10.0.2.20)" "" "... and nobody answers at 10.0.2.20 (the positive control above did)"

# --- capctl check ---------------------------------------------------------------
mkdir -p "$T/bad/services"
printf 'command = /bin/true\nnetwork = none\naddress = 10.0.2.20/24\n' > "$T/bad/services/a.svc"
printf 'command = /bin/true\nnetwork = macvlan:p0\naddress = 10.0.2.20/24\ngateway = 10.0.3.1\n' > "$T/bad/services/b.svc"
t_eq "$("$CAPCTL" check -c "$T/bad" 2>&1 | sed "s|$T/bad/services/||")" \
  "capctl: a.svc:3: error: address: needs a card of its own (network = macvlan:PARENT or ipvlan:PARENT), not network = none
capctl: b.svc:4: error: gateway: 10.0.3.1 is outside the card's net (address, line 3): the kernel could not reach it
capctl: 2 errors, 0 warnings; 2 services refused" "capctl check: an address without a card, a gateway off the card's net"
t_done

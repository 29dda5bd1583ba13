#!/bin/sh
# The appliance's network program (rootfs/netup.c) on the real kernel,
# each run in a network namespace of its own (unshare --net) with a veth
# pair whose end eth0 is the card: what iproute2's ip makes with the appliance's four
# commands is the reference, and the kernel's view (ip -o addr, ip route,
# ip link) after netup must be the same; down takes it away; without
# cap_net_admin nothing is changed and the failure names its step.
B=${1:-build}
. tests/lib.sh
NETUP=$B/rootfs/netup
[ -x "$NETUP" ] || { echo "Bail out! $NETUP is missing (make check builds it)"; exit 1; }
command -v ip >/dev/null || { echo "Bail out! ip (iproute2) is missing"; exit 1; }
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
# what the kernel shows of lo and eth0: addresses (no lifetimes), routes,
# links and their flags (UP, NO-CARRIER: set at once), without what the
# kernel's link watch sets a moment later (the operational state, a
# route's "linkdown": eth0's peer stays down, it has no carrier)
state='ip -o -4 addr show | sed "s/ *valid_lft.*//"; ip -4 route show | sed "s/ linkdown//";
  ip -o link show | sed "s/ *link\/.*//; s/^[0-9]*: //; s/ state [A-Z]*//"'
in_ns() { unshare --net sh -c "ip link add eth0 type veth peer name peer0 && $1" 2>"$T/ns.err"; }

in_ns "ip link set lo up && ip addr add 10.0.2.15/24 dev eth0 && ip link set eth0 up &&
  ip route add default via 10.0.2.2 && { $state; }" > "$T/ip"
t_eq "$(grep -c 'inet 10.0.2.15/24 scope global eth0' "$T/ip")" 1 "reference: ip gives eth0 10.0.2.15/24 ($(grep -c . "$T/ip") lines of state)"
in_ns "'$NETUP' up eth0 10.0.2.15/24 10.0.2.2 > '$T/said'; echo \"exit \$?\" >> '$T/said'; $state" > "$T/netup"
t_eq "$(diff "$T/ip" "$T/netup")" "" "up: the kernel shows what ip's four commands make (addresses, routes, links)"
eff=$(sed -n 's/^CapEff:\t//p' /proc/self/status)
t_eq "$(cat "$T/said")" "net: lo up, eth0 10.0.2.15/24 via 10.0.2.2 (CapEff:	$eff)
exit 0" "up: one line, what it did and held; exit 0"
t_eq "$(cat "$T/ns.err")" "" "up: nothing on standard error"

# down: what up made is gone, as after the reverse ip commands
in_ns "ip link set lo up && ip addr add 10.0.2.15/24 dev eth0 && ip link set eth0 up &&
  ip route add default via 10.0.2.2 && ip route del default via 10.0.2.2 && ip link set eth0 down &&
  ip addr flush dev eth0 && ip link set lo down && { $state; }" > "$T/ip.down"
in_ns "'$NETUP' up eth0 10.0.2.15/24 10.0.2.2 >/dev/null && '$NETUP' down eth0 10.0.2.15/24 10.0.2.2; echo \"exit \$?\"; $state" > "$T/netup.down"
t_eq "$(diff "$T/ip.down" "$T/netup.down" | grep -v '^[0-9]' )" "> exit 0" "down: exit 0 and the state of ip's reverse commands (no address, no route, links down)"

# no such card: lo only, and it says so
unshare --net sh -c "'$NETUP' up eth0 10.0.2.15/24 10.0.2.2; echo \"exit \$?\"; ip -o link show lo | grep -o '<[^>]*>'" > "$T/nocard" 2>&1
t_eq "$(sed 's/(CapEff:.*/(CapEff)/' "$T/nocard")" "net: lo up, no eth0 (CapEff)
exit 0
<LOOPBACK,UP,LOWER_UP>" "no eth0: lo up, said, exit 0"

# without cap_net_admin: the first step fails, nothing changes; the
# control is the same run with it (above)
in_ns "setpriv --inh-caps=-all --bounding-set=-net_admin '$NETUP' up eth0 10.0.2.15/24 10.0.2.2; echo \"exit \$?\"; $state" > "$T/denied"
t_eq "$(sed -n 's/^exit //p' "$T/denied")" 1 "no cap_net_admin: exit 1"
t_eq "$(cat "$T/ns.err")" "net: fatal: unable to bring lo up: Operation not permitted" "no cap_net_admin: the step and the kernel's reason"
t_eq "$(grep -c 'inet 10.0.2.15\|^default' "$T/denied")" 0 "no cap_net_admin: no address, no route"

# usage errors: exit 100, nothing done
for args in "" "sideways" "up eth0" "up eth0 10.0.2.15 10.0.2.2" "up eth0 10.0.2.15/33 10.0.2.2" "up eth0 10.0.2.15/24 gateway" "up a/b 10.0.2.15/24 10.0.2.2"; do
  # shellcheck disable=SC2086
  "$NETUP" $args > /dev/null 2> "$T/usage"
  t_eq "$? $(cat "$T/usage")" "100 usage: netup up|down [IFACE ADDRESS/PREFIX GATEWAY]" "usage error: '$args' exits 100 with the usage"
done
t_eq "$("$NETUP" --help; echo "exit $?")" "usage: netup up|down [IFACE ADDRESS/PREFIX GATEWAY]
exit 0" "--help: the usage on standard output, exit 0"
t_done

#!/bin/sh
# A contained service's other ways out (issue 34), each attacked as the
# service's code would, with its control:
#   - network = netns:NAME where /run/netns/NAME is a symbolic link to
#     /proc/self/ns/net (the host's network): refused at stage network,
#     the host's network never joined; control: a real named namespace;
#   - keyrings: each service starts in a session keyring of its own, not
#     capinit's nor another service's (the kernel's serial numbers);
#     control: two processes that inherit one share it.
B=${1:-build}
. tests/lib.sh
. tests/supervise_lib.sh
CAPEXEC=$(pwd)/$B/bin/capexec
TRY=$(pwd)/$B/tests/syscall_try
sv_init
NS=capinit-test-$$
SV_CLEANUP="rm -f /run/netns/$NS-link /run/netns/$NS-file; ip netns del $NS 2>/dev/null"
mkdir -p /run/netns

# --- network = netns:NAME ---------------------------------------------------
host_net=$(readlink /proc/self/ns/net)
ip netns add "$NS"
named=$(stat -L -c %i "/run/netns/$NS")
got=$("$CAPEXEC" -k "network=netns:$NS" -- /bin/readlink /proc/self/ns/net 2>&1)
t_eq "$got" "net:[$named]" "control: network = netns:NAME joins the namespace /run/netns/NAME holds"
ln -s /proc/self/ns/net "/run/netns/$NS-link"
got=$("$CAPEXEC" -k "network=netns:$NS-link" -- /bin/readlink /proc/self/ns/net 2>&1)
rc=$?
t_eq "$rc:$got" "115:capexec: fatal: unable to join the network namespace /run/netns/$NS-link (stage network): Symbolic link loop" \
  "a link to /proc/self/ns/net at /run/netns/NAME: refused at stage network (the host's is $host_net)"
: > "/run/netns/$NS-file"
got=$("$CAPEXEC" -k "network=netns:$NS-file" -- /bin/readlink /proc/self/ns/net 2>&1)
rc=$?
t_eq "$rc:$got" "115:capexec: fatal: unable to join the network namespace /run/netns/$NS-file (stage network): Invalid argument" \
  "a plain file at /run/netns/NAME: no network namespace (NS_GET_NSTYPE), refused"
# the same under capinit: the service never runs
svc linked <<EOF
command = /bin/readlink /proc/self/ns/net
type = oneshot
network = netns:$NS-link
EOF
svc named <<EOF
command = /bin/readlink /proc/self/ns/net
type = oneshot
network = netns:$NS
EOF
svc keys-a <<EOF
command = /bin/sh -c "$TRY session-key; exec sleep 100000"
EOF
svc keys-b <<EOF
command = /bin/sh -c "$TRY session-key; exec sleep 100000"
mode = noroot
read-only = yes
system-calls = +@keyring
EOF
sv_start
sv_wait linked failed
sv_wait named up
t_eq "$(sv_field linked failure)" "stage network: unable to join the network namespace /run/netns/$NS-link: Symbolic link loop" \
  "capinit: the linked service fails at stage network"
t_eq "$(cut -d' ' -f2- "$T/log/named.log")" "net:[$named]" "capinit, control: the named one runs in /run/netns/$NS"
t_eq "$(cut -d' ' -f2- "$T/log/linked.log")" "capinit: fatal: start failed at stage network: unable to join the network namespace /run/netns/$NS-link: Symbolic link loop" \
  "capinit: the linked one never ran: its log has only capinit's line"

# --- keyrings -----------------------------------------------------------------
sv_wait keys-a up
sv_wait keys-b up
n=0
while { [ ! -s "$T/log/keys-a.log" ] || [ ! -s "$T/log/keys-b.log" ]; } && [ $n -lt 600 ]; do sleep 0.1; n=$((n + 1)); done
own=$("$TRY" session-key)
twice=$(sh -c "$TRY session-key")
t_eq "$twice" "$own" "control: a child inherits its parent's session keyring ($own)"
a=$(cut -d' ' -f2- "$T/log/keys-a.log")
b=$(cut -d' ' -f2- "$T/log/keys-b.log")
case $a in "session-key "[0-9]*) r=0 ;; *) r=1 ;; esac
t_ok $r "a legacy service has a session keyring ($a)"
[ "$a" != "$own" ] && [ "$b" != "$own" ] && [ "$a" != "$b" ]
t_ok $? "each service's session keyring is its own: not capinit's ($own), not the other's ($a, $b)"
sv_stop
t_done

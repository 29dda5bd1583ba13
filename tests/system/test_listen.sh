#!/bin/sh
# listen: sockets bound by the engine while it still holds capinit's
# privilege, passed from descriptor 3 with LISTEN_FDS and LISTEN_PID, so
# that a service with no capability serves a port.  The ground truth is
# the kernel's: ss(8) for what listens where (and its socket inode, which
# must be the service's descriptor 3 in /proc), /proc/PID/status for what
# the server holds, a client from outside for what answers.
B=${1:-build}
# All of it in a network namespace of its own, loopback up: the ports it
# takes are nobody else's, neither the machine's services' nor those of
# another test run at the same moment (make check-cross runs two
# architectures' system tests side by side), and a port found free stays
# free until capinit binds it.
if [ -z "${LISTEN_OWN_NET:-}" ]; then
  LISTEN_OWN_NET=1 exec unshare --net sh -c 'ip link set lo up ||
    { echo "Bail out! no loopback in a network namespace of its own (unshare --net, ip link set lo up)"; exit 1; }
    exec sh "$0" "$@"' "$0" "$@"
fi
. tests/lib.sh
. tests/supervise_lib.sh
sv_init
CAPEXEC=$(pwd)/$B/bin/capexec
PY=/usr/bin/python3

# free ports, chosen by the kernel (in this namespace)
ports=$($PY -c '
import socket
ss = [socket.socket() for _ in range(6)]
for s in ss: s.bind(("127.0.0.1", 0))
print(" ".join(str(s.getsockname()[1]) for s in ss))')
set -- $ports
P1=$1 P2=$2 P3=$3 P4=$4 P5=$5 P6=$6
# and a privileged one (below 1024) that nothing listens on
LOW=$($PY -c '
import socket
for p in list(range(1023, 900, -1)):
    s = socket.socket()
    try:
        s.bind(("127.0.0.1", p)); print(p); break
    except OSError:
        pass
    finally:
        s.close()')

# ask ADDRESS PORT (or a Unix path): the server's line, or the error's name
ask() {
  $PY - "$@" <<'EOF'
import socket, sys
try:
    if sys.argv[1].startswith("/"):
        s = socket.socket(socket.AF_UNIX)
        s.settimeout(10)
        s.connect(sys.argv[1])
    else:
        s = socket.create_connection((sys.argv[1], int(sys.argv[2])), timeout=10)
    print(s.makefile().readline().strip())
except OSError as e:
    print(type(e).__name__)
EOF
}
# the inode of what listens on ADDR:PORT, as ss reports it (netlink)
listener() { ss -ltnHe "sport = :$2" | awk -v a="$1:$2" '$4 == a { for (i = 1; i <= NF; i++) if ($i ~ /^ino:/) print substr($i, 5) }'; }
fd_inode() { readlink "/proc/$1/fd/$2" | sed -n 's/^socket:\[\([0-9]*\)\]$/\1/p'; }
caps() { awk '/^Cap(Eff|Prm|Bnd):/ { printf "%s%s", sep, $2; sep = " " }' "/proc/$1/status"; }

# --- capexec: two sockets, a server that holds nothing -------------------
"$CAPEXEC" -k "listen = 127.0.0.1:$P1 [::1]:$P2" -k user=nobody -k mode=noroot \
  -k no-new-privileges=yes -k environment=SVC_NAME=web -- "$HELPER" serve &
srv=$!
i=0
while [ -z "$(listener 127.0.0.1 "$P1")" ] && [ $i -lt 1200 ]; do sleep 0.05; i=$((i + 1)); done
t_eq "$(ask 127.0.0.1 "$P1")" "web $srv $srv 3 65534" \
  "capexec: 127.0.0.1:$P1 answers from descriptor 3, LISTEN_PID = its pid, uid 65534"
t_eq "$(ask ::1 "$P2")" "web $srv $srv 4 65534" "[::1]:$P2 from descriptor 4"
t_eq "$(tr '\0' '\n' < /proc/$srv/environ | grep '^LISTEN_' | sort | tr '\n' ' ')" \
  "LISTEN_FDS=2 LISTEN_PID=$srv " "its environment: LISTEN_FDS=2, LISTEN_PID=$srv"
t_eq "$(caps $srv)" "0000000000000000 0000000000000000 0000000000000000" \
  "the server holds no capability (CapEff, CapPrm, CapBnd): the port needed none"
t_eq "$(listener 127.0.0.1 "$P1") $(listener '[::1]' "$P2")" "$(fd_inode $srv 3) $(fd_inode $srv 4)" \
  "ss: the sockets listening on 127.0.0.1:$P1 and [::1]:$P2 are its descriptors 3 and 4"
t_eq "$(ss -ltnH "sport = :$P2" | awk '{ print $4 }')" "[::1]:$P2" "[::1]:$P2 is IPv6 only: no other listener"
kill $srv; wait $srv 2>/dev/null

# a Unix socket: made mode 0666 (by the umask: no chmod by path), its
# directory reached without a symbolic link
mkdir "$T/real"
ln -s real "$T/link"
"$CAPEXEC" -k "listen = $T/real/web.sock" -k user=nobody -k mode=noroot -k environment=SVC_NAME=unix \
  -- "$HELPER" serve &
srv=$!
i=0
while [ ! -S "$T/real/web.sock" ] && [ $i -lt 1200 ]; do sleep 0.05; i=$((i + 1)); done
t_eq "$(ask "$T/real/web.sock") | $(stat -c '%A %U' "$T/real/web.sock")" "unix $srv $srv 3 65534 | srw-rw-rw- root" \
  "a Unix socket answers from descriptor 3; mode 0666, owned by root"
kill $srv; wait $srv 2>/dev/null
"$CAPEXEC" -k "listen = $T/link/other.sock" -k user=nobody -k mode=noroot -- "$HELPER" serve 2>"$T/err"
t_eq "$?:$(ls "$T/real"):$(sed 's/.*(stage \([a-z]*\)): /\1: /' "$T/err")" \
  "111:web.sock:listen: Symbolic link loop" \
  "a directory reached through a symbolic link: refused at stage listen (exit 111), no socket made there"
printf 'secret\n' > "$T/victim"
chmod 600 "$T/victim"
ln -s victim "$T/real/swap.sock"
"$CAPEXEC" -k "listen = $T/real/swap.sock" -k user=nobody -k mode=noroot -- "$HELPER" serve 2>"$T/err"
t_eq "$?:$(stat -c %a "$T/victim"):$(cat "$T/victim"):$(sed 's/.*(stage \([a-z]*\)): /\1: /' "$T/err")" \
  "111:600:secret:listen: Address in use" \
  "a symbolic link where the socket goes: refused (exit 111), not removed, its target's mode unchanged"

# a bare port: one socket, IPv6 and IPv4
"$CAPEXEC" -k "listen = $P3" -k user=nobody -k mode=noroot -k environment=SVC_NAME=both -- "$HELPER" serve &
srv=$!
i=0
while [ -z "$(listener '*' "$P3")" ] && [ $i -lt 1200 ]; do sleep 0.05; i=$((i + 1)); done
t_eq "$(ask 127.0.0.1 "$P3") | $(ask ::1 "$P3")" "both $srv $srv 3 65534 | both $srv $srv 3 65534" \
  "listen = PORT: one socket (descriptor 3) answers on 127.0.0.1 and ::1"
kill $srv; wait $srv 2>/dev/null

# the control: the same server as uid 65534 without listen cannot bind a
# privileged port, and without LISTEN_FDS it does not serve
"$CAPEXEC" -k user=nobody -k mode=noroot -- "$HELPER" serve
t_eq "$?" 3 "control: without listen the server finds no LISTEN_FDS (exit 3)"
out=$(setpriv --reuid=65534 --regid=65534 --clear-groups $PY -c '
import socket
try:
    socket.socket().bind(("127.0.0.1", '"$LOW"')); print("bound")
except OSError as e:
    print(e.strerror)' 2>&1)
t_eq "$out" "Permission denied" "control: uid 65534 cannot bind port $LOW itself"

# --- capinit: a service on a privileged port, restarts, containers -------
svc web <<EOF
command = $HELPER serve
user = nobody
mode = noroot
no-new-privileges = yes
listen = 127.0.0.1:$LOW
EOF
svc pp <<EOF
command = $HELPER serve
user = nobody
mode = noroot
private-pids = yes
listen = 127.0.0.1:$P4
EOF
svc nn <<EOF
command = $HELPER serve
user = nobody
mode = noroot
network = none
listen = 127.0.0.1:$P5
EOF
svc busy <<EOF
command = $HELPER stamp $T/busy-ran
listen = 127.0.0.1:$P6
restart = never
EOF
printf 'not a socket\n' > "$T/file.sock"
svc unixfile <<EOF
command = $HELPER stamp $T/unixfile-ran
listen = $T/file.sock
restart = never
EOF
# a client holds P6 (as another program on this machine would)
$PY -c "
import socket, time
s = socket.socket(); s.bind(('127.0.0.1', $P6)); s.listen(); open('$T/held', 'w').close(); time.sleep(600)" &
holder=$!
i=0
while [ ! -e "$T/held" ] && [ $i -lt 1200 ]; do sleep 0.05; i=$((i + 1)); done

sv_start
t_ok $? "capinit starts"
sv_wait web up && sv_wait nn up
t_ok $? "web and nn are up"
sv_wait pp up
t_ok $? "pp (private-pids) is up"
pid=$(sv_field web pid)
t_eq "$(ask 127.0.0.1 "$LOW")" "web $pid $pid 3 65534" \
  "web answers on port $LOW as uid 65534, from descriptor 3, LISTEN_PID = its pid ($pid in capinit's view)"
t_eq "$(sv_in sh -c "grep -E '^Cap(Eff|Prm|Bnd):' /proc/$pid/status" | awk '{ printf "%s%s", s, $2; s = " " }')" \
  "0000000000000000 0000000000000000 0000000000000000" "web holds no capability (port $LOW was bound for it)"

# killed, restarted: the port is bound again (SO_REUSEADDR: the closed
# connection's TIME_WAIT would refuse it otherwise)
# (never kill 0: that is the caller's own process group, the whole run)
[ "${pid:-0}" -gt 0 ] && sv_in kill -KILL "$pid"
i=0
while { [ "$(sv_field web pid)" = "$pid" ] || [ "$(sv_field web state)" != up ]; } && [ $i -lt 1200 ]; do
  sleep 0.05; i=$((i + 1))
done
pid2=$(sv_field web pid)
t_eq "$(sv_field web state) $(ask 127.0.0.1 "$LOW")" "up web $pid2 $pid2 3 65534" \
  "after a SIGKILL web is restarted ($pid2) and serves port $LOW again"

ppid=$(sv_field pp pid)
t_eq "$(ask 127.0.0.1 "$P4" | cut -d' ' -f2-)" "2 2 3 65534" \
  "private-pids: the command is pid 2 of its namespace, and LISTEN_PID says 2"

t_eq "$(ask 127.0.0.1 "$P5")" "ConnectionRefusedError" "network = none: 127.0.0.1:$P5 is not in this network namespace"
nnpid=$(sv_field nn pid)
t_eq "$(sv_in nsenter -t "$nnpid" -n ss -ltnH | awk '{ print $4 }')" "127.0.0.1:$P5" \
  "... it listens in the service's own network namespace (ss in there)"

out=$(sv_ctl verify web pp nn 2>&1)
t_eq "$?:$(echo "$out" | cut -f1,2 | tr '\t\n' '  ')" "0:name=web result=ok name=pp result=ok name=nn result=ok " \
  "capctl verify: web, pp and nn run as predicted (namespaces, mounts, credentials)"

# failures: the command never runs, the stage is named
sv_wait busy failed
t_ok $? "busy (its port held by another program) is failed"
t_eq "$(sv_field busy failure)" "stage listen: unable to listen on 127.0.0.1:$P6 (descriptor 3): Address in use" \
  "status names the stage, the socket and the reason"
t_eq "$(ls "$T"/busy-ran 2>/dev/null)" "" "busy's command never ran"
sv_wait unixfile failed
t_ok $? "unixfile (a regular file where its socket goes) is failed"
t_eq "$(cat "$T/file.sock") $(ls "$T"/unixfile-ran 2>/dev/null)" "not a socket " "the file is left as it was; the command never ran"

# the positive control: the port freed, capctl start binds it
kill $holder; wait $holder 2>/dev/null
sv_ctl start busy >/dev/null 2>&1
sv_wait busy up
r=$?
i=0
while [ ! -s "$T/busy-ran" ] && [ $i -lt 1200 ]; do sleep 0.05; i=$((i + 1)); done
t_eq "$r:$(cut -d' ' -f1 "$T/busy-ran" 2>/dev/null)" "0:busy" "control: the port freed, capctl start busy runs it"

sv_stop
t_eq "$sv_rc" 0 "capinit exits 0"

# --- check: what listen accepts ---------------------------------------------
C=$T/chk
mkdir -p "$C/services"
bad() { # LINE, expected message
  printf 'command = /bin/true\n%s\n' "$1" > "$C/services/x.svc"
  out=$("$CAPCTL" check -c "$C" 2>/dev/null)
  t_eq "$out" "capctl: $C/services/x.svc:2: error: $2" "check refuses '$1'"
}
bad "listen = 0" "listen: the port must be 1 to 65535, not '0'"
bad "listen = 65536" "listen: the port must be 1 to 65535, not '65536'"
bad "listen = localhost:80" "listen: not an IPv4 address (an IPv6 one goes in brackets: [ADDRESS]:PORT), not 'localhost:80'"
bad "listen = ::1:80" "listen: not an IPv4 address (an IPv6 one goes in brackets: [ADDRESS]:PORT), not '::1:80'"
bad "listen = [::1]80" "listen: an IPv6 address goes in brackets: [ADDRESS]:PORT, not '[::1]80'"
bad "listen = run/x.sock" "listen: expected PORT, ADDRESS:PORT, [ADDRESS]:PORT or an absolute path, not 'run/x.sock'"
bad "listen = /run/../x.sock" "listen: a '.' or '..' component, not '/run/../x.sock'"
bad "listen = 80 [::]:443 80" "listen: 80 is already listed (line 2)"
bad "listen = /" "listen: '/' is a directory, not a socket's path, not '/'"
long=$(printf '%081d' 0)
bad "listen = /run/$long" "listen: the socket's name (after the last '/') is longer than 80 bytes, not '/run/$long'"
bad "environment = LISTEN_FDS=1" "environment: LISTEN_FDS is set by capinit for the sockets of the listen key"
printf 'command = /bin/true\nlisten = 80 443\nready = fd:4\n' > "$C/services/x.svc"
out=$("$CAPCTL" check -c "$C" 2>/dev/null)
t_eq "$out" "capctl: $C/services/x.svc:3: error: ready: descriptor 4 is the socket of listen = 443 (line 2): use another" \
  "check refuses a readiness descriptor that is a listen socket's"
printf 'command = /bin/true\nlisten = 127.0.0.1:80 [::]:80 /run/x.sock\nready = fd:6\n' > "$C/services/x.svc"
out=$("$CAPCTL" check -c "$C" 2>&1)
t_eq "$?:$out" "0:" "control: three good sockets and fd:6 pass"
t_eq "$("$CAPCTL" explain --json -c "$C" x | $PY -c 'import json, sys; print(json.load(sys.stdin)[0]["listen"])')" \
  "[{'address': '127.0.0.1:80', 'fd': 3}, {'address': '[::]:80', 'fd': 4}, {'address': '/run/x.sock', 'fd': 5}]" \
  "explain --json: listen lists each socket with its descriptor"
t_eq "$("$CAPCTL" explain -c "$C" x | grep -c 'listening sockets made by capinit before the privilege drop .*: 127.0.0.1:80 as descriptor 3, \[::\]:80 as descriptor 4, /run/x.sock as descriptor 5 (LISTEN_FDS=3)$')" 1 \
  "explain says who binds them, and where each goes"

t_done

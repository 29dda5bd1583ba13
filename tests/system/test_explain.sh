#!/bin/sh
# System tests of `capctl explain`: the words it says about exposure, its
# refusals, its JSON, and finding services by name.  (Its numbers are
# compared with the kernel in test_differential.sh.)
B=${1:-build}
. tests/lib.sh
CAPCTL=$(pwd)/$B/bin/capctl
BUSYBOX=$(pwd)/$B/debs/busybox-static/bin/busybox
PROBE=$(pwd)/$B/tests/probe
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
chmod 755 "$T"

# the system-call filter of a contained service whose capabilities ask
# for no group (capinit.svc(5), System calls)
FILTER="system-call filter: no user namespace (unshare, clone and setns of one: EPERM; clone3: ENOSYS); denied (EPERM): @bpf,@debug,@file-handles,@io-uring,@keyring,@module,@mount,@reboot,@swap,@userfaultfd; no set-user-ID or set-group-ID mode can be given to a file (EPERM; openat2: ENOSYS); a call through another ABI than the native one kills it"
exposure() { # ARGS... -> the exposure lines, one per line
  "$CAPCTL" explain "$@" | sed -n 's/^  exposure     //p'
}

t_eq "$(exposure -k description=root -- /bin/true | sed 's/ (but for .*//')" \
  "legacy root with full bounding set: full root" "legacy root, bounding all: full root"
t_eq "$(exposure -k bounding=net_raw,chown -- /bin/true)" \
  "legacy root: holds every capability of its bounding set (cap_chown,cap_net_raw)" "legacy root, partial bounding: names what it holds"
t_eq "$(exposure -k mode=noroot -k bounding=none -k no-new-privileges=yes -- /bin/sh)" \
  "uid 0 in a locked noroot tree with an empty bounding set: root without power
uid 0 still passes the kernel's uid checks: root-owned files, /proc/sys (kernel.core_pattern) and /sys stay writable unless mounted read-only
$FILTER" \
  "the powerless console, and what uid 0 still can (no container: no PID namespace of its own by default)"
# the container: with a read-only tree, uid 0 no longer writes root's files
t_eq "$(exposure -k mode=noroot -k bounding=none -k no-new-privileges=yes -k read-only=yes -k private-pids=yes \
  -k network=none -k hostname=box -k private-ipc=yes -k private-tmp=yes -- /bin/sh)" \
  "uid 0 in a locked noroot tree with an empty bounding set: root without power
uid 0 still passes the kernel's uid checks, but its file tree is read-only: root's files, /proc/sys and /sys cannot be written
read-only file tree: writes fail with EROFS, whatever its uid and capabilities, but in its own /dev, its own /proc files, its own /tmp
its own empty /tmp: nothing in it is shared with other services
its own /dev (a small tmpfs, nosuid,nodev,noexec): null, zero, full, random, urandom, tty, its own pts and shm, its own mqueue, and this system's /dev/log: no disk, no /dev/kmsg, no console, and a node it makes there opens nothing
its own PID namespace: it sees only its own processes, and can signal no other (its PID 1 is capinit's reaper)
its own /proc, hidepid=invisible: a process it may not ptrace is not even listed
no network: its own network namespace, with only the loopback interface
its own host name: box
its own IPC namespace: no System V IPC or POSIX message queue is shared
$FILTER" \
  "the same console contained: what the container changes, in words; root's files no longer writable"
mkdir -p "$T/rw"
t_eq "$(exposure -k user=nobody -k no-new-privileges=yes -k read-only=yes -k "read-write=$T/rw" -k bind-ro=/etc:/mnt -- /bin/true)" \
  "no capabilities: runs with the rights of uid 65534 only
read-only file tree: writes fail with EROFS, whatever its uid and capabilities, but in its own /dev, its own /proc files and $T/rw
/etc of this system is mounted on /mnt, read-only
its own /dev (a small tmpfs, nosuid,nodev,noexec): null, zero, full, random, urandom, tty, its own pts and shm, and this system's /dev/log: no disk, no /dev/kmsg, no console, and a node it makes there opens nothing
its writable paths are nosuid,nodev: a set-id program or a device node there works as a plain file
its own /proc, hidepid=invisible: a process it may not ptrace is not even listed
$FILTER" "read-write paths and binds named; its own /dev; nosuid,nodev; its own /proc"
t_eq "$(exposure -k user=nobody -k no-new-privileges=yes -k read-only=yes -k private-devices=no -k devices=/dev/null -k "read-write=$T/rw" -k allow-suid=yes -k system-calls=+@keyring -- /bin/true 2>/dev/null | sed 1,2d)" \
  "private-devices = no: this system's /dev stays writable for it: the disks root owns, /dev/kmsg, the console
its own /proc, hidepid=invisible: a process it may not ptrace is not even listed
system-call filter: no user namespace (unshare, clone and setns of one: EPERM; clone3: ENOSYS); denied (EPERM): @bpf,@debug,@file-handles,@io-uring,@module,@mount,@reboot,@swap,@userfaultfd; a call through another ABI than the native one kills it
allow-suid = yes: it may make set-user-ID files, root's for a uid 0, in what it can write, and they work there: the next user who runs one is that file's owner
keyring calls allowed: a session keyring of its own, but the user keyring (@u) of uid 65534 is shared with every process of that uid" \
  "control: private-devices = no, allow-suid = yes and +@keyring: each said, as what is left open"
t_eq "$(exposure -k user=nobody -k no-new-privileges=yes -k read-only=yes -k devices=/dev/null,/dev/zero -- /bin/true | sed -n 3p)" \
  "its own /dev (a small tmpfs, nosuid,nodev,noexec): null, zero, full, random, urandom, tty, its own pts and shm, /dev/null, /dev/zero, and this system's /dev/log: no disk, no /dev/kmsg, no console, and a node it makes there opens nothing" "devices = ...: named in its /dev"
out=$("$CAPCTL" explain --json -k user=nobody -k read-only=yes -k bind-ro=/etc:/mnt -k private-pids=yes -k network=netns:blue -- /bin/true |
  sed -n '/"container"/,/^    },/p' | tr -d '\n' | tr -s ' ')
t_eq "$out" ' "container": { "namespaces": ["mnt", "pid"], "read_only": true, "read_write": [], "binds": [{"src": "/etc", "dst": "/mnt", "read_only": true}], "root_directory": null, "private_tmp": false, "private_pids": true, "proc": "hidepid=invisible", "private_devices": true, "devices": [], "nosuid": true, "network": "netns:blue", "card": null, "hostname": null, "private_ipc": false },' \
  "--json: the container's fields"
t_eq "$("$CAPCTL" explain --json -k user=nobody -- /bin/true | grep '"container"')" '    "container": null,' "--json: no container: null"
t_eq "$("$CAPCTL" explain --json -k user=nobody -k mode=noroot -- /bin/true | grep '"keyring"')" '    "keyring": {"session": "own", "user": "denied"},' \
  "--json: a filtered service's keyrings: its own session keyring, the user keyring's calls denied"
t_eq "$("$CAPCTL" explain --json -k user=nobody -- /bin/true | grep '"keyring"')" '    "keyring": {"session": "own", "user": "shared"},' \
  "--json, control: a legacy one's user keyring is shared"
out=$(setpriv --inh-caps=-all --bounding-set=-sys_admin "$CAPCTL" explain -k private-ipc=yes -- /bin/true | sed -n 's/^  launch *//p')
t_eq "$out" "REFUSED at stage namespaces: capinit holds no cap_sys_admin (the container's bounding set): add it to the container, or drop its container keys from the spec given with -k" \
  "a launcher without cap_sys_admin: a container is refused at stage namespaces"
t_eq "$("$CAPCTL" explain -k user=nobody -- /bin/true | sed -n 's/^  launch *//p')" ok "control: the same launcher without container keys: ok"

t_eq "$(exposure -k user=nobody -k mode=noroot -k capabilities=net_bind_service -- /bin/true)" \
  "holds cap_net_bind_service
$FILTER
noroot without no-new-privileges: file-capability binaries can raise privilege" "noroot without nnp: says file caps can raise privilege"
t_eq "$(exposure -k user=nobody -k mode=noroot -k capabilities=net_bind_service -k no-new-privileges=yes -- /bin/true)" \
  "holds cap_net_bind_service
$FILTER" "noroot with nnp: only what it holds, and its filter"
# a contained service's way out: in words (after the filter's) and in JSON
t_eq "$(exposure -k mode=noroot -k read-only=yes -k capabilities=sys_ptrace,kill -- /bin/true | grep 'way out')" \
  "cap_sys_ptrace opens a way out of its container: ptrace and /proc/PID/mem reach any process it can see, of any uid, capinit's children included
cap_kill opens a way out of its container: signals to any process, capinit included" "a contained service's way-out capabilities, each with how"
t_eq "$("$CAPCTL" explain --json -k mode=noroot -k read-only=yes -k capabilities=sys_ptrace,kill -- /bin/true 2>/dev/null | grep '"escapes"')" \
  '    "escapes": ["cap_sys_ptrace", "cap_kill"],' "--json: the way-out capabilities"
t_eq "$("$CAPCTL" explain --json -k capabilities=sys_ptrace,kill -- /bin/true 2>/dev/null | grep '"escapes"')" \
  '    "escapes": [],' "--json, control: a legacy service has none to escape"
t_eq "$(exposure -k user=nobody -k capabilities=sys_admin -k no-new-privileges=yes -- /bin/true)" \
  "holds cap_sys_admin
cap_sys_admin is root-equivalent in practice" "cap_sys_admin named root-equivalent"
t_eq "$(exposure -k user=nobody -k no-new-privileges=yes -- /bin/true)" \
  "no capabilities: runs with the rights of uid 65534 only" "an unprivileged service"

cp "$BUSYBOX" "$T/busybox"
setcap cap_net_raw+ep "$T/busybox"
t_eq "$(exposure -k user=nobody -k no-new-privileges=no -- "$T/busybox")" \
  "holds cap_net_raw
file capability on a multi-call binary (busybox): every applet gets cap_net_raw
without no-new-privileges, setuid-root and file-capability binaries can raise privilege" \
  "file caps on busybox: every applet gets them"
cp "$PROBE" "$T/ping"
setcap cap_net_raw+ep "$T/ping"
t_eq "$(exposure -k user=nobody -- "$T/ping" | sed -n 2p)" \
  "the file capabilities of $T/ping give cap_net_raw" "control: file caps on a single-purpose binary are not called multi-call"
t_eq "$(exposure -k user=nobody -k no-new-privileges=yes -- "$T/ping")" \
  "no capabilities: runs with the rights of uid 65534 only
the file capabilities of $T/ping are blocked by no-new-privileges" "nnp blocks file caps, and says so"
cp "$PROBE" "$T/suid"
chmod 4755 "$T/suid"
t_eq "$(exposure -k user=nobody -k mode=noroot -- "$T/suid" | grep "is setuid")" \
  "$T/suid is setuid root: euid 0, but noroot gives it no capability" "setuid root in a noroot tree"
t_eq "$(exposure -k user=nobody -- "$T/suid" | sed -n 2p)" \
  "$T/suid is setuid root: it runs as root" "control: setuid root in a legacy tree runs as root"

# refusals: exit 1, the stage and the reason
out=$("$CAPCTL" explain -k user=nobody -k bounding=chown -- "$T/ping"); rc=$?
t_eq "$rc:$(echo "$out" | sed -n 's/^  launch *//p')" \
  "1:REFUSED at stage exec: $T/ping has file capabilities cap_net_raw+ep outside what the service may hold (bounding set): execve fails with EPERM (F5)" \
  "an +ep file outside the bounding set: refused at exec (F5)"
out=$("$CAPCTL" explain -k user=nobody -- /nonexistent); rc=$?
t_eq "$rc:$(echo "$out" | sed -n 's/^  launch *//p')" "1:REFUSED at stage exec: /nonexistent: No such file or directory" "a missing command: refused"
"$CAPCTL" explain -k user=nobody -k bounding=chown -- /bin/true >/dev/null; t_eq "$?" 0 "control: the same spec with a plain file: exit 0"
out=$(capsh --drop=cap_net_raw -- -c "'$CAPCTL' explain -k user=nobody -k capabilities=net_raw -- /bin/true" | sed -n 's/^  launch *//p')
t_eq "$out" "REFUSED at stage inheritable: capinit holds no cap_net_raw (the container's bounding set): add it to the container, or drop it from capabilities in the spec given with -k" "a launcher without the cap: refused before exec"

# by name from a configuration directory, and JSON
mkdir -p "$T/c/services"
printf 'command = /bin/busybox httpd -f\nuser = nobody\nmode = noroot\ncapabilities = net_bind_service\nno-new-privileges = yes\n' > "$T/c/services/web.svc"
printf 'command = /bin/true\nusr = x\n' > "$T/c/services/bad.svc"
"$CAPCTL" explain --json -c "$T/c" web -- /bin/true > "$T/j"; rc=$?
t_eq "$rc" 0 "explain --json -c DIR NAME: exit 0"
for field in '"name": "web"' '"launch": "ok"' '"uid": 65534' '"securebits": 47' '"cap_amb": "0000000000000400"' \
             '"cap_bnd": "0000000000000400"' '"no_new_privs": true' '"at_secure": false' '"groups": [65534]'; do
  grep -qF "    $field," "$T/j"
  t_ok $? "JSON has $field"
done
t_eq "$(sed -n '/"exposure"/,/]/p' "$T/j" | tr -d '\n' | tr -s ' ')" " \"exposure\": [ \"holds cap_net_bind_service\", \"$FILTER\" ]" "JSON exposure list"
t_eq "$(head -c 1 "$T/j")$(tail -n 1 "$T/j")" "[]" "JSON is an array"
out=$("$CAPCTL" explain --json -c "$T/c" bad 2>&1); rc=$?
t_eq "$rc" 1 "a refused spec: exit 1"
echo "$out" | grep -qF '"reason": "the service file has errors (capctl check)"'
t_ok $? "a refused spec says why"
"$CAPCTL" explain -c "$T/c" "a b" >/dev/null 2>&1; t_eq "$?" 100 "an invalid service name: usage error"
"$CAPCTL" explain >/dev/null 2>&1; t_eq "$?" 100 "no argument: 100"
t_done

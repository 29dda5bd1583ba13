#!/bin/sh
# A contained service's other ways out (issue 34), each attacked as the
# service's code would, with its control:
#   - network = netns:NAME where /run/netns/NAME is a symbolic link to
#     /proc/self/ns/net (the host's network): refused at stage network,
#     the host's network never joined; control: a real named namespace;
#   - set-user-ID files: a contained service cannot give a file a set-id
#     mode, and its writable paths are nosuid,nodev (capexec and capinit);
#     control: allow-suid;
#   - another service's processes (capinit and capexec): signals, its tree
#     through /proc/PID/root; control: private-pids = no;
#   - /dev: a read-only service's is its own (no block device, kmsg or
#     console; nodev; its own shm); control: private-devices = no;
#   - keyrings: each service starts in a session keyring of its own, not
#     capinit's nor another service's (the kernel's serial numbers);
#     control: two processes that inherit one share it;
#   - proc-subset = pid: its /proc holds no kernel file (meminfo, sys),
#     mounted subset=pid (capexec and capinit), verify checks it;
#     control: the default /proc of a mount namespace has them, and a
#     /proc without subset=pid put over the service's fails verify.
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
# --- set-user-ID files in what a contained service may write ------------------
# a contained uid 0 copies a program into its read-write path and makes it
# set-user-ID root: refused by its filter (chmod, fchmod through install,
# open with O_CREAT and the mode), and its own view of the path is
# nosuid,nodev.  The ground truth: the file's mode on the host, and what
# another user gets from running it (the probe's euid).
W=$T/w
mkdir -p "$W"
chmod 755 "$W"
euid_of() { setpriv --reuid=65534 --regid=65534 --clear-groups "$1" 2>/dev/null | sed -n 's/^ *"euid": \([0-9]*\),$/\1/p'; }
cp "$PROBE" "$W/control-p"
chmod 4755 "$W/control-p"
t_eq "$(euid_of "$W/control-p")" 0 "control: a set-user-ID root probe in $W runs as euid 0 for uid 65534"
rm -f "$W/control-p"
attack='cp "$1" "$2/p" && chmod 4755 "$2/p"; echo "chmod $?"
  install -m 4755 "$1" "$2/q"; echo "install $?"
  perl -e "use Fcntl; sysopen(F, \"$2/r\", O_CREAT | O_WRONLY, 04755) or exit 1"; echo "open $?"
  mkdir -m 2755 "$2/d"; echo "mkdir $?"
  grep " $2 " /proc/self/mountinfo | cut -d" " -f6'
got=$("$CAPEXEC" -k mode=noroot -k read-only=yes -k "read-write=$W" -- /bin/sh -c "$attack" sh "$PROBE" "$W" 2>/dev/null | tr '\n' ' ')
t_eq "$got" "chmod 1 install 1 open 1 mkdir 1 rw,nosuid,nodev,relatime " \
  "a contained uid 0: chmod, install -m, open(O_CREAT) and mkdir with a set-id mode refused; its read-write path is nosuid,nodev"
t_eq "$(stat -c %a "$W/p") $(euid_of "$W/p")" "755 65534" "... the copy stays 0755 on the host: uid 65534 who runs it stays 65534"
t_eq "$(find "$W" -perm /6000 | wc -l)" 0 "... no file or directory in $W has a set-id bit"
rm -rf "$W"/*
got=$("$CAPEXEC" -k mode=noroot -- /bin/sh -c "$attack" sh "$PROBE" "$W" 2>/dev/null | sed -n 1p)
t_eq "$got" "chmod 1" "a noroot uid 0 without container keys: the same chmod refused (its tree is root's)"
rm -rf "$W"/*
got=$("$CAPEXEC" -k mode=noroot -k read-only=yes -k "read-write=$W" -k allow-suid=yes -- /bin/sh -c "$attack" sh "$PROBE" "$W" 2>/dev/null | tr '\n' ' ')
t_eq "$got" "chmod 0 install 0 open 0 mkdir 0 rw,relatime " "control: allow-suid = yes: every set-id mode given, the path keeps set-id bits and devices"
t_eq "$(stat -c %a "$W/p") $(euid_of "$W/p") $(find "$W" -perm /6000 | wc -l)" "4755 0 4" \
  "control: ... and the copy is set-user-ID root on the host: uid 65534 who runs it gets euid 0 (4 set-id files and directories)"
rm -rf "$W"/*
got=$("$CAPEXEC" -k mode=legacy -- /bin/sh -c "$attack" sh "$PROBE" "$W" 2>/dev/null | sed -n 1p)
t_eq "$got" "chmod 0" "control: a legacy root service has no such rule"
rm -rf "$W"/*

# --- /dev ----------------------------------------------------------------------
# read-only gives a /dev of its own: the attacker, uid 0 with cap_mknod,
# writes a block device (a loop device made for the test, root's 0600),
# the kernel's log and the console, makes entries in /dev and a block
# device node of its own, and shares POSIX shared memory through
# /dev/shm.  The ground truth: the loop device's first byte, the kernel's
# log (dmesg), the host's /dev and /dev/shm.  The control: the same
# service with private-devices = no, whose /dev is capinit's.
truncate -s 64k "$T/disk"
LOOP=$(losetup -f --show "$T/disk")
SV_CLEANUP="$SV_CLEANUP; losetup -d $LOOP; rm -f /dev/capinit-test-$$-* /dev/shm/capinit-test-$$-*"
loop_min=$(stat -c %T "$LOOP")
: > "/dev/shm/capinit-test-$$-host"
# (a write where there is no such node would make a file of its own)
cat > "$T/dev.sh" <<'EOS'
d=$1 tag=$2
  w() { if [ -e "$1" ]; then printf "$2" 2>/dev/null > "$1"; echo $?; else echo absent; fi; }
  echo "block $(ls -lR /dev 2>/dev/null | grep -c '^b')"
  echo "disk $(w "$d" y)"
  echo "kmsg $(w /dev/kmsg "capinit-test $tag\n")"
  echo "console $(w /dev/console "")"
  : 2>/dev/null > "/dev/capinit-test-$tag-made"; echo "create $?"
  mknod "/dev/capinit-test-$tag-node" b 7 "$3" 2>/dev/null; echo "mknod $?"
  printf y 2>/dev/null > "/dev/capinit-test-$tag-node"; echo "node $?"
  [ -e "/dev/shm/capinit-test-$4-host" ]; echo "shm-host $?"
  : > "/dev/shm/capinit-test-$tag-shm"; echo "shm-own $?"
EOS
dev_try() {  # dev_try TAG KEY...: the attack under capexec
  tag=$1
  shift
  "$CAPEXEC" -k mode=noroot -k bounding=mknod -k capabilities=mknod -k no-new-privileges=yes -k read-only=yes \
    -k private-ipc=yes -k network=none "$@" -- /bin/sh "$T/dev.sh" "$LOOP" "$$-$tag" "$((0x$loop_min))" "$$" \
    2>/dev/null | tr '\n' ' '
}
printf x > "$LOOP"
got=$(dev_try own)
t_eq "$got" "block 0 disk absent kmsg absent console absent create 0 mknod 0 node 2 shm-host 1 shm-own 0 " \
  "a read-only uid 0 with cap_mknod: no block device, kmsg or console in its /dev; what it makes there opens nothing (nodev), /dev/shm is its own"
t_eq "$(head -c1 "$LOOP")$(dmesg | grep -c "capinit-test $$-own")" "x0" "... the host's ground truth: $LOOP unwritten, nothing in the kernel's log"
t_eq "$(ls /dev | grep -c "^capinit-test-$$-own") $(ls /dev/shm | grep -c "^capinit-test-$$-own")" "0 0" \
  "... nothing it made is in the host's /dev or /dev/shm"
blocks=$(ls -lR /dev 2>/dev/null | grep -c '^b')
got=$(dev_try ctl -k private-devices=no)
t_eq "$got" "block $blocks disk 0 kmsg 0 console 0 create 0 mknod 0 node 0 shm-host 0 shm-own 0 " \
  "control: with private-devices = no, the same code writes $LOOP, /dev/kmsg and the console, makes nodes, shares /dev/shm"
t_eq "$(head -c1 "$LOOP")$(dmesg | grep -c "capinit-test $$-ctl")" "y1" "control: ... the host's ground truth: $LOOP written, its line in the kernel's log"
t_eq "$(ls /dev | grep -c "^capinit-test-$$-ctl") $(ls /dev/shm | grep -c "^capinit-test-$$-ctl")" "2 1" \
  "control: ... its entries are in the host's /dev and /dev/shm"
printf x > "$LOOP"
got=$(dev_try named -k "devices=$LOOP")
t_eq "$(echo "$got" | cut -d' ' -f1-4) $(head -c1 "$LOOP")" "block 1 disk 0 y" "devices = $LOOP: the device it names is passed through, written"
printf x > "$LOOP"  # for the service below

# --- a /proc of its own lists no process it may not trace ---------------------
got=$("$CAPEXEC" -k private-pids=yes -k mode=noroot -k read-only=yes -- /bin/sh -c "awk '\$5 == \"/proc\" { o = \$NF } END { print o }' /proc/self/mountinfo")
t_eq "$got" "rw,hidepid=invisible" "a private-pids service's /proc: its own instance, hidepid=invisible"
t_eq "$(awk '$5 == "/proc" { o = $NF } END { print o }' /proc/self/mountinfo)" "rw" "control: the host's /proc has no hidepid"

# --- proc-subset = pid: a /proc of processes only ------------------------------
cat > "$T/subset.sh" <<'EOS'
for f in meminfo sys self; do if [ -e "/proc/$f" ]; then echo "$f"; else echo "no-$f"; fi; done
awk '$5 == "/proc" { o = $NF } END { print o }' /proc/self/mountinfo
EOS
got=$("$CAPEXEC" -k proc-subset=pid -- /bin/sh "$T/subset.sh" 2>&1 | tr '\n' ' ')
t_eq "$got" "no-meminfo no-sys self rw,hidepid=invisible,subset=pid " \
  "capexec: proc-subset = pid: no /proc/meminfo, no /proc/sys (its own processes are there), its /proc mounted subset=pid"
got=$("$CAPEXEC" -k read-only=yes -- /bin/sh "$T/subset.sh" 2>&1 | tr '\n' ' ')
t_eq "$got" "meminfo sys self rw,hidepid=invisible " "capexec, control: the default /proc of a mount namespace of its own has them"
got=$("$CAPEXEC" -k proc-subset=all -- /bin/sh "$T/subset.sh" 2>&1 | tr '\n' ' ')
t_eq "$got" "meminfo sys self rw " "capexec, control: proc-subset = all alone is no container: capinit's /proc"
t_eq "$("$CAPCTL" explain -k user=nobody -k proc-subset=pid -- /bin/true | sed -n 's/^  exposure     \(its own \/proc\)/\1/p')" \
  "its own /proc, hidepid=invisible,subset=pid: a process it may not ptrace is not even listed; only the processes' files are there: no /proc/meminfo, /proc/sys, /proc/net or other file of the kernel's" \
  "explain: proc-subset = pid, in words (from the container's plan)"
t_eq "$("$CAPCTL" explain --json -k user=nobody -k proc-subset=pid -- /bin/true | grep '"proc"')" '      "proc": "hidepid=invisible,subset=pid",' \
  "explain --json: the /proc mount's options"

# the same under capinit: a read-only service and its control
mkdir -p "$T/ws" "$T/wa"
chmod 755 "$T/ws" "$T/wa"
printf 'exec 2>/dev/null\n%s\n' "$attack" > "$T/suid.sh"
for a in ws wa; do
  {
    printf 'type = oneshot\nmode = noroot\nread-only = yes\nread-write = %s\n' "$T/$a"
    printf 'command = /bin/sh %s %s %s\n' "$T/suid.sh" "$PROBE" "$T/$a"
    [ $a = wa ] && printf 'allow-suid = yes\n'
  } | svc suid-$a
done

# network = netns:NAME under capinit: the linked one never runs
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
svc dev-attack <<EOF
command = /bin/sh $T/dev.sh $LOOP $$-svc $((0x$loop_min)) $$
type = oneshot
mode = noroot
capabilities = mknod
read-only = yes
EOF
# --- another service's processes ----------------------------------------------
# the victim: a uid-0 service whose tree has a writable path, in capinit's
# PID namespace; the attackers: contained uid 0, read-only, one with the
# default PID namespace of its own, one (the control) with private-pids = no
mkdir -p "$T/vw"
chmod 755 "$T/vw"
svc victim <<EOF
command = /bin/sleep 100000
mode = noroot
read-only = yes
read-write = $T/vw
private-pids = no
EOF
cat > "$T/reach.sh" <<'EOS'
read p < "$1/victim.pid"
kill -0 "$p" 2>/dev/null; echo "kill $?"
ls "/proc/$p/root/" >/dev/null 2>&1; echo "root $?"
echo x 2>/dev/null > "/proc/$p/root$1/vw/from-$2"; echo "write $?"
EOS
for a in reacher reacher-shared; do
  {
    printf 'type = oneshot\nenabled = no\nmode = noroot\nread-only = yes\n'
    printf 'command = /bin/sh %s %s %s\n' "$T/reach.sh" "$T" "$a"
    [ $a = reacher-shared ] && printf 'private-pids = no\n'
  } | svc $a
done

svc subset-pid <<EOF
command = /bin/sh -c "/bin/sh $T/subset.sh; exec sleep 100000"
proc-subset = pid
read-only = yes
EOF
svc subset-all <<EOF
command = /bin/sh $T/subset.sh
type = oneshot
read-only = yes
EOF

sv_start
sv_wait victim up
sv_field victim pid > "$T/victim.pid"
for a in reacher reacher-shared; do
  sv_ctl start $a >/dev/null
  sv_wait $a up
done
t_eq "$(cut -d' ' -f2- "$T/log/reacher.log" | tr '\n' ' ')" "kill 1 root 2 write 2 " \
  "a contained uid 0 (its own PID namespace by default): it cannot signal another uid-0 service, nor reach its tree through /proc/PID/root"
t_eq "$(cut -d' ' -f2- "$T/log/reacher-shared.log" | tr '\n' ' ')" "kill 0 root 0 write 0 " \
  "control: with private-pids = no it signals the victim, and writes into its tree through /proc/PID/root"
t_eq "$(ls "$T/vw" | tr '\n' ' ')" "from-reacher-shared " "... the host's ground truth: only the control's file is in the victim's writable path"
# the same code under capexec, run in capinit's namespaces (the victim's pid is the same there)
got=$(sv_in "$CAPEXEC" -k mode=noroot -k read-only=yes -- /bin/sh "$T/reach.sh" "$T" capexec 2>/dev/null | tr '\n' ' ')
t_eq "$got" "kill 1 root 2 write 2 " "capexec: a contained uid 0 (its own PID namespace by default): no signal, nothing through /proc/PID/root"
got=$(sv_in "$CAPEXEC" -k mode=noroot -k read-only=yes -k private-pids=no -- /bin/sh "$T/reach.sh" "$T" capexec-shared 2>/dev/null | tr '\n' ' ')
t_eq "$got" "kill 0 root 0 write 0 " "capexec, control: with private-pids = no, both"
t_eq "$(ls "$T/vw" | tr '\n' ' ')" "from-capexec-shared from-reacher-shared " "... the host's ground truth: the control's file, and no other, in the victim's path"
t_eq "$("$CAPCTL" check -c "$T/c" 2>&1 | grep -c 'neither has private-pids')" 2 \
  "capctl check warns about both services that share uid 0 without a PID namespace (the victim and the control)"
sv_wait suid-ws up
sv_wait suid-wa up
t_eq "$(cut -d' ' -f2- "$T/log/suid-ws.log" | tr '\n' ' ')" "chmod 1 install 1 open 1 mkdir 1 rw,nosuid,nodev,relatime " \
  "capinit: the set-id attack from a read-only uid 0: every set-id mode refused, its read-write path nosuid,nodev"
t_eq "$(find "$T/ws" -perm /6000 | wc -l) $(euid_of "$T/ws/p")" "0 65534" "capinit: ... no set-id file on the host; uid 65534 who runs its copy stays 65534"
t_eq "$(cut -d' ' -f2- "$T/log/suid-wa.log" | tr '\n' ' ') $(find "$T/wa" -perm /6000 | wc -l) $(euid_of "$T/wa/p")" \
  "chmod 0 install 0 open 0 mkdir 0 rw,relatime  4 0" "capinit, control: allow-suid = yes: all four made, and its copy runs as euid 0 for uid 65534"
sv_wait linked failed
sv_wait named up
t_eq "$(sv_field linked failure)" "stage network: unable to join the network namespace /run/netns/$NS-link: Symbolic link loop" \
  "capinit: the linked service fails at stage network"
t_eq "$(cut -d' ' -f2- "$T/log/named.log")" "net:[$named]" "capinit, control: the named one runs in /run/netns/$NS"
t_eq "$(cut -d' ' -f2- "$T/log/linked.log")" "capinit: fatal: start failed at stage network: unable to join the network namespace /run/netns/$NS-link: Symbolic link loop" \
  "capinit: the linked one never ran: its log has only capinit's line"

sv_wait dev-attack up
t_eq "$(cut -d' ' -f2- "$T/log/dev-attack.log" | tr '\n' ' ')" \
  "block 0 disk absent kmsg absent console absent create 0 mknod 0 node 2 shm-host 1 shm-own 0 " \
  "capinit: the same attack from a read-only service: no block device, kmsg or console; its nodes open nothing, /dev/shm its own"
t_eq "$(head -c1 "$LOOP") $(ls /dev /dev/shm | grep -c "^capinit-test-$$-svc")" "x 0" "capinit: ... $LOOP unwritten, nothing in the host's /dev"

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
# --- proc-subset = pid under capinit, and verify -------------------------------
sv_wait subset-pid up
sv_wait subset-all up
n=0
while { [ "$(wc -l < "$T/log/subset-pid.log")" -lt 4 ] || [ "$(wc -l < "$T/log/subset-all.log")" -lt 4 ]; } && [ $n -lt 600 ]; do
  sleep 0.1
  n=$((n + 1))
done
t_eq "$(cut -d' ' -f2- "$T/log/subset-pid.log" | tr '\n' ' ')" "no-meminfo no-sys self rw,hidepid=invisible,subset=pid " \
  "capinit: proc-subset = pid (read-only): no /proc/meminfo, no /proc/sys, its /proc mounted subset=pid"
t_eq "$(cut -d' ' -f2- "$T/log/subset-all.log" | tr '\n' ' ')" "meminfo sys self rw,hidepid=invisible " \
  "capinit, control: the default (read-only): its /proc has them"
out=$(sv_ctl verify subset-pid)
t_eq "$?:$(echo "$out" | tr '\t' ' ')" "0:name=subset-pid result=ok processes=1" "verify: the proc-subset = pid service passes"
SPID=$(sv_field subset-pid pid)
sv_in nsenter -t "$SPID" -m mount -t proc -o hidepid=invisible proc /proc
out=$(sv_ctl verify subset-pid)
t_eq "$?:$(echo "$out" | tr '\t' ' ')" "1:name=subset-pid result=differs field=mount:/proc live=rw,hidepid=invisible predicted=subset=pid" \
  "control: a /proc without subset=pid over its own: verify says so (exit 1)"
sv_in nsenter -t "$SPID" -m umount /proc
out=$(sv_ctl verify subset-pid)
t_eq "$?:$(echo "$out" | tr '\t' ' ')" "0:name=subset-pid result=ok processes=1" "... put back: verify passes"
sv_stop
t_done

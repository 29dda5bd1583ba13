#!/bin/sh
# Application containers (capinit.svc(5)): one service per key and per
# combination that matters, run by capinit in its own PID namespace.  The
# ground truth is the kernel's, seen from inside by a probe that tries
# (tests/ctprobe.sh: its namespaces, its mounts' modes, writes, a marker
# process of capinit's namespace seen and signalled, network links,
# a System V segment of capinit's), never capinit's own prediction.  The
# same view built with unshare(1) + setpriv(1) (util-linux), run in
# capinit's namespaces, is the reference: the two must report the same,
# and the fields that define each key must have their exact value.  Then
# capctl verify passes on every contained service, and fails on one whose
# tree was changed behind capinit's back (the control); stopping leaves no
# process of a PID namespace behind, the stop signal reaches the daemon,
# and no zombie stays inside.
B=${1:-build}
. tests/lib.sh
. tests/supervise_lib.sh
sv_init
PROBE_SH=$(pwd)/tests/ctprobe.sh
NETNS=capinit-test-$$
mkdir -p "$T/rw" "$T/ro" "$T/p" "$T/root/proc" "$T/root/dev" "$T/root/tmp" "$T/root/usr" "$T/root/p" \
  "$T/root/ro" "$T/root/etc"
chmod 1777 "$T/rw"
echo bound > "$T/ro/f"
cp "$PROBE_SH" "$T/p/ctprobe.sh"
for l in bin sbin lib lib32 lib64 libx32; do [ -L "/$l" ] && ln -s "$(readlink "/$l")" "$T/root/$l"; done
# the file in /tmp that a service without a /tmp of its own sees: this
# run's own name (another run may be beside it), with a neighbour whose
# name is not the one the probe looks for
CTMARK=/tmp/ctmark.$$
echo marker > "$CTMARK.unused"
# capinit's namespace: a System V segment (key 0x63617069, in capinit's
# own IPC namespace: it goes with it) and a named network namespace, both
# made there, as PID 1, before capinit starts (ip makes /run/netns/NAME
# on the host's /run, mounts the namespace on it in capinit's mount
# namespace only: the empty file is removed at the end, as are the marks)
SV_CLEANUP="rm -f /run/netns/$NETNS $CTMARK $CTMARK.unused"
SV_SETUP="perl -e 'defined(shmget(0x63617069, 4096, 01666)) or die \"shmget: \$!\"' && ip netns add $NETNS && : > $CTMARK"

svc marker <<EOF
command = /bin/sh -c "i=0; while [ \$i -lt 60 ]; do /bin/true; i=\$((i + 1)); done; /bin/sleep 31337 & wait"
EOF
sv_start
t_ok $? "capinit starts in its own PID and mount namespaces" || {
  sed 's/^/#   /' "$T/capinit.out"
  t_done
  exit 1
}
sv_wait marker up
# its sleep comes after 60 other processes
find_marker() {
  sv_in sh -c 'for c in /proc/[0-9]*/cmdline; do [ "$(tr "\0" " " < "$c")" = "/bin/sleep 31337 " ] && basename "$(dirname "$c")"; done' 2>/dev/null | head -n 1
}
n=0
while [ -z "$(find_marker)" ] && [ $n -lt 1200 ]; do sleep 0.05; n=$((n + 1)); done
MARK=$(find_marker)
t_ok "$([ "${MARK:-0}" -gt 10 ]; echo $?)" "the marker runs in capinit's namespace (pid $MARK there, above what a new namespace reaches)"

# The specs: NAME|KEYS (';'-separated)|PROBE ENVIRONMENT|REFERENCE
# The reference is a shell command run in capinit's namespaces, with the
# helpers of $T/ref.sh; $P is the probe, to run as the spec's user.
NOBODY="setpriv --reuid=65534 --regid=65534 --clear-groups"
ROOT0="setpriv --reuid=0 --regid=0 --clear-groups --bounding-set=-all --inh-caps=-all --securebits=+noroot,+noroot_locked,+no_setuid_fixup,+no_setuid_fixup_locked,+keep_caps_locked"
cat > "$T/ref.sh" <<'EOF'
# every mount read-only, as read-only = yes makes them; /proc writable but
# /proc/sys
ro_all() {
  awk '{ print $5 }' /proc/self/mountinfo | while read -r m; do mount -o remount,bind,ro "$m" 2>/dev/null; done
  mount -o remount,bind,rw /proc && mount --bind /proc/sys /proc/sys && mount -o remount,bind,ro /proc/sys
}
rw_path() { mount --bind "$1" "$1" && mount -o remount,bind,rw "$1"; }
ro_bind() { mount --bind "$1" "$2" && mount -o remount,bind,ro "$2"; }
tmpfs_on() { mount -t tmpfs -o mode=1777,nosuid,nodev tmpfs "$1"; }
# a /proc of its own for every mount namespace of its own, hidepid=invisible
own_proc() { mount -t proc -o nosuid,nodev,noexec,hidepid=invisible proc /proc; }
EOF
R=". $T/ref.sh && mount --make-rprivate /"
specs() {
  cat <<EOF
plain|user = nobody|RW=$T/rw|$NOBODY \$P
read-only|user = nobody;read-only = yes;read-write = $T/rw|RW=$T/rw|unshare --mount sh -c "$R && own_proc && ro_all && rw_path $T/rw && exec $NOBODY \$P"
read-only-root|mode = noroot;read-only = yes;read-write = $T/rw;hostname = ro-root;private-pids = no|RW=$T/rw PROCSYS=1|unshare --mount --uts sh -c "hostname ro-root && $R && own_proc && ro_all && rw_path $T/rw && exec $ROOT0 \$P"
private-tmp|user = nobody;private-tmp = yes;bind-ro = $T/p:/srv||unshare --mount sh -c "$R && own_proc && ro_bind $T/p /srv && tmpfs_on /tmp && exec $NOBODY /bin/sh /srv/ctprobe.sh"
binds|user = nobody;bind-ro = $T/ro:/mnt;bind = $T/rw:/media|RW=/media BIND_RO=/mnt|unshare --mount sh -c "$R && own_proc && ro_bind $T/ro /mnt && mount --bind $T/rw /media && exec $NOBODY \$P"
root-directory|user = nobody;root-directory = $T/root;bind-ro = /usr;bind-ro = /etc;bind-ro = $T/p:/p;bind-ro = $T/ro:/ro|BIND_RO=/ro|unshare --mount --fork sh -c "$R && mount --bind $T/root $T/root && ro_bind /usr $T/root/usr && ro_bind /etc $T/root/etc && ro_bind $T/p $T/root/p && ro_bind $T/ro $T/root/ro && mount -t proc -o hidepid=invisible proc $T/root/proc && tmpfs_on $T/root/tmp && exec unshare --root=$T/root $NOBODY /bin/sh /p/ctprobe.sh"
private-pids|user = nobody;private-pids = yes||unshare --pid --fork --mount --mount-proc $NOBODY \$P
network-none|user = nobody;network = none||unshare --net sh -c "ip link set lo up && exec $NOBODY \$P"
network-netns|user = nobody;network = netns:$NETNS||nsenter --net=/run/netns/$NETNS $NOBODY \$P
hostname|user = nobody;hostname = box.example||unshare --uts sh -c "hostname box.example && exec $NOBODY \$P"
private-ipc|user = nobody;private-ipc = yes||unshare --ipc $NOBODY \$P
all|mode = noroot;no-new-privileges = yes;read-only = yes;private-tmp = yes;private-pids = yes;network = none;hostname = all;private-ipc = yes;bind-ro = $T/ro:/mnt;bind = $T/rw:/media;bind-ro = $T/p:/srv|RW=/media BIND_RO=/mnt PROCSYS=1|unshare --mount --pid --fork --mount-proc --net --uts --ipc sh -c "hostname all && ip link set lo up && $R && ro_bind $T/ro /mnt && mount --bind $T/rw /media && ro_bind $T/p /srv && ro_all && mount -o remount,bind,rw /media && tmpfs_on /tmp && tmpfs_on /var/tmp && exec $ROOT0 /bin/sh /srv/ctprobe.sh"
EOF
}

# two daemons: all the keys and a PID namespace; a root directory
cat > "$T/c/services/ct-daemon.svc" <<EOF
command = /bin/sh -c "trap 'echo TERM >> /media/events; exit 0' TERM; trap 'echo HUP >> /media/events' HUP; (/bin/sleep 31339 &); /bin/sleep 31338 & while :; do wait; done"
mode = noroot
read-only = yes
private-tmp = yes
private-pids = yes
network = none
hostname = daemon
private-ipc = yes
bind = $T/rw:/media
bind-ro = $T/ro:/mnt
EOF
cat > "$T/c/services/ct-jail.svc" <<EOF
command = /bin/sleep 31340
user = nobody
root-directory = $T/root
read-only = yes
bind-ro = /usr, /etc
EOF

# every probe service, enabled by one reload (the marker's pid is known now)
specs > "$T/specs"
while IFS='|' read -r name keys env ref; do
  {
    # the probe where the service sees it: its own /tmp would hide $T
    case $name in
      root-directory) echo "command = /bin/sh /p/ctprobe.sh" ;;
      private-tmp|all) echo "command = /bin/sh /srv/ctprobe.sh" ;;
      *) echo "command = /bin/sh $PROBE_SH" ;;
    esac
    echo "type = oneshot"
    echo "$keys" | tr ';' '\n' | sed 's/^ *//'
    echo "environment = MARK=$MARK"
    echo "environment = CTMARK=$CTMARK"
    for kv in $env; do echo "environment = $kv"; done
  } > "$T/c/services/ct-$name.svc"
done < "$T/specs"
sv_ctl reload > /dev/null
t_eq "$?" 0 "reload with $(specs | wc -l) probe services"

# capinit's own namespaces, and the named one, as words
CAPINIT_PID=$(sv_pid)
words() { # probe output -> the same, namespaces as "capinit" or "own"
  sed_args=
  for ns in mnt pid ipc uts net; do
    id=$(readlink "/proc/$CAPINIT_PID/ns/$ns" | sed 's/[][]/\\&/g')
    sed_args="$sed_args -e s|^ns\\.$ns=$id\$|ns.$ns=capinit|"
  done
  named=$(sv_in sh -c "stat -L -c %i /run/netns/$NETNS")
  sed $sed_args -e "s|^ns\\.net=net:\\[$named\\]\$|ns.net=named|" -e 's|^\(ns\.[a-z]*=\)[a-z]*:\[[0-9]*\]$|\1own|'
}

field() { echo "$1" | sed -n "s|^$2=||p"; }

while IFS='|' read -r name keys env ref; do
  svc=ct-$name
  sv_wait "$svc" up || sv_wait "$svc" down 1
  got=$(sed 's/^[^ ]* //' "$T/log/$svc.log" 2>/dev/null | grep '^[a-z./]*=' | words)
  # shellcheck disable=SC2086
  want=$(sv_in env MARK="$MARK" CTMARK="$CTMARK" $env P="/bin/sh $PROBE_SH" sh -c "$ref" 2>&1 | words)
  t_eq "$got" "$want" "$name: capinit's container and unshare+setpriv's show the same ($(echo "$got" | wc -l) fields)"
  echo "$got" > "$T/got.$name"
done < "$T/specs"

g() { field "$(cat "$T/got.$1")" "$2"; }
# the fields that define each key, exactly (both could be wrong alike)
t_eq "$(g plain ns.mnt) $(g plain ns.pid) $(g plain mount./) $(g plain marker.seen) $(g plain marker.kill) $(g plain tmp.shared)" \
  "capinit capinit rw yes EPERM yes" \
  "control: without container keys: capinit's namespaces, a writable /, the marker seen (EPERM to signal it as nobody), /tmp shared"
t_eq "$(g read-only ns.mnt) $(g read-only mount./) $(g read-only w./) $(g read-only w./tmp) $(g read-only w.rw)" \
  "own ro EROFS EROFS ok" \
  "read-only: its own mount namespace, / read-only (EROFS, before nobody's EACCES), /tmp EROFS, the read-write path writable"
t_eq "$(g read-only-root uid) $(g read-only-root w./) $(g read-only-root w./proc/sys) $(g read-only-root mount./proc/sys) $(g read-only-root w.rw)" \
  "0 EROFS EROFS ro ok" \
  "read-only, uid 0 in a noroot tree: writing / and /proc/sys fails with EROFS; the read-write path works"
t_eq "$(g private-tmp w./tmp) $(g private-tmp tmp.shared) $(g private-tmp ns.mnt)" "ok no own" \
  "private-tmp: /tmp writable, empty of capinit's files, in its own mount namespace"
t_eq "$(g binds bind.read) $(g binds bind.w) $(g binds w.rw)" "bound EROFS ok" \
  "bind-ro: the file is there, read-only; bind: writable"
t_eq "$(g root-directory bind.read) $(g root-directory tmp.shared) $(g root-directory mount./) $(g root-directory marker.seen) $(g root-directory marker.kill)" \
  "bound no rw no EPERM" \
  "root-directory: only the tree and its binds (a bind-ro read), an empty /tmp; root's marker not listed in its /proc (hidepid=invisible), but there (no private-pids: EPERM, not ESRCH)"
t_eq "$(g private-pids ns.pid) $(g private-pids marker.seen) $(g private-pids marker.kill)" "own no ESRCH" \
  "private-pids: its own PID namespace: the marker is neither seen nor reachable (ESRCH)"
t_eq "$(g network-none ns.net) $(g network-none net.links) $(g network-none net.lo)" "own lo  up" \
  "network = none: its own network namespace, only lo, up"
t_eq "$(g network-netns ns.net)" named "network = netns:NAME: the namespace /run/netns/NAME holds"
t_eq "$(g hostname ns.uts) $(g hostname host)" "own box.example" "hostname: its own UTS namespace, with the name"
t_eq "$(g private-ipc ns.ipc) $(g private-ipc ipc.shared) $(g plain ipc.shared)" "own no yes" \
  "private-ipc: capinit's System V segment unseen (control: seen without it)"
t_eq "$(g all ns.mnt) $(g all ns.pid) $(g all ns.ipc) $(g all ns.uts) $(g all ns.net) $(g all w./) $(g all w./proc/sys) $(g all marker.seen) $(g all bind.w) $(g all w.rw)" \
  "own own own own own EROFS EROFS no EROFS ok" \
  "all together, uid 0 noroot: 5 namespaces of its own, / and /proc/sys EROFS, no marker, bind-ro EROFS, read-write ok"

# ------------------------------------------------ the daemons, verified
sv_wait ct-daemon up && sv_wait ct-jail up
t_ok $? "two contained daemons up"
out=$(sv_ctl verify ct-daemon ct-jail)
t_eq "$?:$(echo "$out" | tr '\t' ' ' | tr '\n' ,)" "0:name=ct-daemon result=ok processes=4,name=ct-jail result=ok processes=1," \
  "capctl verify: both as declared (namespaces, root, mounts, process view), every process (the reaper, the shell, two sleeps)"
DPID=$(sv_field ct-daemon pid)
sv_in sh -c "cat /proc/$DPID/status" > "$T/dstatus"
REAPER=$(sed -n 's/^PPid:[[:space:]]*//p' "$T/dstatus")
t_eq "$(sed -n 's/^NSpid:[[:space:]]*[0-9]*[[:space:]]*//p' "$T/dstatus") $(sv_in cat /proc/"$REAPER"/comm)" "2 capinit" \
  "private-pids: status shows the command, PID 2 of its namespace; PID 1 is capinit's reaper"
NS=$(sv_in readlink "/proc/$DPID/ns/pid")
in_ns() { # the processes of the daemon's PID namespace: "PID STATE NAME" each
  sv_in sh -c 'for d in /proc/[0-9]*; do [ "$(readlink $d/ns/pid 2>&1)" = "$1" ] && echo "${d#/proc/} $(sed -n "s/^State:[[:space:]]*\([A-Z]\).*/\1/p" $d/status) $(cat $d/comm)"; done' sh "$NS" 2>/dev/null
}
orphan() { # the pid of sleep 31339 once the reaper holds it (up at its exec, the daemon forks it after)
  in_ns | awk '$3 == "sleep" { print $1 }' | while read -r p; do
    sv_in cat "/proc/$p/cmdline" | tr '\0' ' ' | grep -q 31339 &&
      [ "$(sv_in sed -n 's/^PPid:[[:space:]]*//p' "/proc/$p/status")" = "$REAPER" ] && echo "$p"
  done
}
n=0
while [ -z "$(orphan)" ] && [ $n -lt 1200 ]; do sleep 0.05; n=$((n + 1)); done
ORPHAN=$(orphan)
t_eq "$(sv_in sed -n 's/^PPid:[[:space:]]*//p' "/proc/${ORPHAN:-0}/status")" "$REAPER" \
  "an orphan of the daemon (sleep 31339) is the reaper's child"
sv_in kill -TERM "$ORPHAN"
n=0
while in_ns | grep -q "^$ORPHAN " && [ $n -lt 1200 ]; do sleep 0.05; n=$((n + 1)); done
t_eq "$(in_ns | awk -v o="$ORPHAN" '$1 == o || $2 == "Z"')" "" "... killed, it is reaped: no zombie in the namespace"

# control: a tree changed behind capinit's back is found
sv_in nsenter -t "$DPID" -m mount -o remount,bind,rw /
out=$(sv_ctl verify ct-daemon)
t_eq "$?:$(echo "$out" | tr '\t' ' ')" "1:name=ct-daemon result=differs field=mount:/ live=rw predicted=ro" \
  "control: / remounted writable in the daemon's namespace: verify says so (exit 1)"
sv_in nsenter -t "$DPID" -m mount -o remount,bind,ro /
out=$(sv_ctl verify ct-daemon)
t_eq "$?:$(echo "$out" | tr '\t' ' ')" "0:name=ct-daemon result=ok processes=3" "... read-only again: verify passes (its 3 processes: the orphan was killed above)"
# a block device node in its /dev (the kernel's disk numbers, 8:0): verify
# names it; its own ones pass (the device numbers of capinit's)
sv_in nsenter -t "$DPID" -m mknod /dev/capinit-test-disk b 8 0
out=$(sv_ctl verify ct-daemon)
t_eq "$?:$(echo "$out" | tr '\t' ' ')" \
  "1:name=ct-daemon result=differs field=dev live=/dev/capinit-test-disk (block 8:0) predicted=only the usual devices and those named by devices" \
  "control: a block device made in its /dev: verify says so (exit 1)"
sv_in nsenter -t "$DPID" -m rm /dev/capinit-test-disk
sv_in nsenter -t "$DPID" -m mount --bind /dev/zero /dev/null
out=$(sv_ctl verify ct-daemon)
t_eq "$?:$(echo "$out" | tr '\t' ' ')" "1:name=ct-daemon result=differs field=dev live=missing or another device predicted=/dev/null" \
  "control: its /dev/null another device (zero bound over it): verify says so"
sv_in nsenter -t "$DPID" -m -p umount /dev/null
sv_in nsenter -t "$DPID" -m -p mount -o remount,bind,suid /dev
out=$(sv_ctl verify ct-daemon)
echo "$?:$(echo "$out" | tr '\t' ' ')" | grep -Eqx "1:name=ct-daemon result=differs field=mount:/dev live=rw,nodev,noexec,[a-z]*time predicted=nosuid,nodev,noexec"
t_ok $? "control: its /dev remounted suid: verify says so ($(echo "$out" | tr '\t' ' '))"
sv_in nsenter -t "$DPID" -m -p mount -o remount,bind,nosuid /dev
out=$(sv_ctl verify ct-daemon)
t_eq "$?:$(echo "$out" | tr '\t' ' ')" "0:name=ct-daemon result=ok processes=3" "... each put back: verify passes"
# its /proc replaced by one of capinit's PID namespace: pid 2 there is not
# the daemon
sv_in nsenter -t "$DPID" -m mount -t proc proc /proc
out=$(sv_ctl verify ct-daemon)
t_eq "$?:$(echo "$out" | tr '\t' ' ')" "1:name=ct-daemon result=differs field=mount:/proc live=rw predicted=hidepid=invisible" \
  "control: a /proc without hidepid over its own: verify says so (exit 1)"
sv_in nsenter -t "$DPID" -m umount /proc
sv_in nsenter -t "$DPID" -m mount -t proc -o hidepid=invisible proc /proc
out=$(sv_ctl verify ct-daemon)
echo "$?:$(echo "$out" | tr '\t' ' ')" | grep -Eqx "1:name=ct-daemon result=differs field=proc live=(another|no) process at pid 2 predicted=the command at pid 2"
t_ok $? "control: a /proc (hidepid=invisible) of another PID namespace over its own: verify says so (exit 1: $(echo "$out" | tr '\t' ' '))"
sv_in nsenter -t "$DPID" -m umount /proc

sv_ctl signal HUP ct-daemon
n=0
while ! grep -q HUP "$T/rw/events" 2>/dev/null && [ $n -lt 1200 ]; do sleep 0.05; n=$((n + 1)); done
t_eq "$(cat "$T/rw/events" 2>/dev/null)" HUP "capctl signal HUP: the reaper passes it on to the daemon"
sv_ctl stop ct-daemon
sv_wait ct-daemon down
t_eq "$(tr '\n' ' ' < "$T/rw/events")" "HUP TERM " "capctl stop: the stop signal reaches the daemon (it has a handler; PID 2)"
n=0
while [ -n "$(in_ns)" ] && [ $n -lt 1200 ]; do sleep 0.05; n=$((n + 1)); done
t_eq "$(in_ns)" "" "stopped: no process of its PID namespace is left (sleep 31338, the reaper)"
t_eq "$(sv_field ct-daemon last_exit)" "exit 0" "the daemon's own exit status is the service's (exit 0 on TERM)"

sv_stop
t_eq "$sv_rc" 0 "capinit exits 0"
t_done

#!/bin/sh
# tests/debian/test_deps_lock.sh BUILDDIR -- mk/deps.sh and mk/apt-update.sh
# wait for the lock another apt or dpkg holds, say once for whom, and give
# up after DEPS_LOCK_TIMEOUT (issue 38):
#
#   two at once  two mk/deps.sh pkg:hello started while dpkg's lock is held
#                for 4 s: both exit 0, each says exactly once that it
#                waits, naming the holder's PID and command line, neither
#                ends before the holder lets go, and hello is installed
#   timeout      DEPS_LOCK_TIMEOUT=2 and the lock held for 30 s: mk/deps.sh
#                pkg:tree fails (111) after about 2 s, naming the holder,
#                and tree is not installed; control: the same with the lock
#                free installs tree, saying no wait
#   lists        mk/apt-update.sh with apt's lists lock held for 3 s: says
#                once that it waits, updates (exit 0) after the holder lets
#                go; with DEPS_LOCK_TIMEOUT=2 and the lock held for 30 s it
#                fails (111), naming the holder
#
# Nothing is installed on this machine: the scripts run in a throwaway
# Debian 12 root made by mmdebstrap (--variant=apt, its package lists
# kept), chrooted with a /proc of its own in a mount namespace of its own,
# one for each command: the mount goes with it.  The root is cached as
# BUILDDIR/debian/lockroot.tar, made again when its recipe or this
# machine's apt sources change (lockroot.key); each run unpacks a fresh
# copy.  The locks are held from here, by python3's fcntl.lockf, the
# fcntl lock apt and dpkg take, on the root's files.
#
# Runs as root (mmdebstrap, chroot); needs Debian's archive (hello's and
# tree's packages, the update).  About 25 s; 40 s more to make the root.
B=${1:-build}
. tests/lib.sh
[ "$(id -u)" = 0 ] || { echo "Bail out! needs root (mmdebstrap, chroot)"; exit 1; }
for t in mmdebstrap python3 unshare chroot; do
  command -v $t >/dev/null || { echo "Bail out! $t is missing (make check-debian installs it: mk/deps.sh debian)"; exit 1; }
done
mkdir -p "$B/debian"
D=$(cd "$B/debian" && pwd)
W=$(mktemp -d "$D/lockroot.XXXXXX")
R=$W/root
hjob=
cleanup() {
  [ -z "$hjob" ] || kill "$hjob" 2>/dev/null
  wait 2>/dev/null
  # nothing of the root is mounted here (each mount was in a namespace of
  # the command's own); should something be, it goes before the files
  grep -F " $W/" /proc/self/mounts | cut -d' ' -f2 | sort -r | while read -r m; do umount -l "$m"; done
  rm -rf --one-file-system "$R"
  # the outputs stay for a failure to be understood
  [ "$t_failed" = 0 ] && rm -rf "$W"
}
trap cleanup EXIT
trap 'exit 130' INT TERM
ms() { date +%s%3N; }

# ------------------------------------------------ the root
# the machine's own apt sources (its mirror), as rootfs/debian/build.sh
# finds them
if ls /etc/apt/sources.list.d/*.sources >/dev/null 2>&1; then
  sources=$W/debian.sources
  cat /etc/apt/sources.list.d/*.sources > "$sources"
else
  sources=$W/sources.list
  grep -h '^deb ' /etc/apt/sources.list /etc/apt/sources.list.d/*.list 2>/dev/null > "$sources"
fi
[ -s "$sources" ] || { echo "Bail out! no apt sources on this machine"; exit 1; }
recipe="mmdebstrap --variant=apt --skip=cleanup/apt/lists --format=tar bookworm"
key=$( { echo "$recipe"; cat "$sources"; } | sha256sum | cut -c1-16)
if [ "$(cat "$D/lockroot.key" 2>/dev/null)" != "$key" ] || [ ! -f "$D/lockroot.tar" ]; then
  t0=$(ms)
  rm -f "$D/lockroot.key"
  # shellcheck disable=SC2086 # $recipe: words
  $recipe "$D/lockroot.tar.new" "$sources" > "$W/mmdebstrap.log" 2>&1 ||
    { tail -n 20 "$W/mmdebstrap.log" | sed 's/^/# /'; echo "Bail out! mmdebstrap failed"; exit 1; }
  mv "$D/lockroot.tar.new" "$D/lockroot.tar"
  echo "$key" > "$D/lockroot.key"
  echo "# made $D/lockroot.tar in $(( $(ms) - t0 )) ms"
fi
mkdir "$R"
tar -C "$R" -xf "$D/lockroot.tar" || { echo "Bail out! unable to unpack $D/lockroot.tar"; exit 1; }
mkdir -p "$R/src/mk"
cp mk/deps.sh mk/apt-update.sh mk/lock-holder.sh "$R/src/mk/"

inroot() { # [VAR=VALUE...] COMMAND...: in the root, as its root, with a /proc of its own
  # shellcheck disable=SC2016
  unshare --mount --propagation private sh -c 'mount -t proc proc "$1/proc" && exec chroot "$@"' sh "$R" \
    /usr/bin/env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin HOME=/root "$@"
}
installed() { # PACKAGE: its dpkg status in the root, "none" if dpkg never knew it
  # shellcheck disable=SC2016
  inroot dpkg-query -W -f='${Status}' "$1" 2>/dev/null || echo none
}
cat > "$W/hold.py" <<'EOF'
import fcntl, os, signal, sys, time
signal.signal(signal.SIGTERM, lambda *_: sys.exit(0))  # killed: ends quietly
f = open(sys.argv[1], 'a')
fcntl.lockf(f, fcntl.LOCK_EX | fcntl.LOCK_NB)
print('locked', os.getpid(), flush=True)
time.sleep(float(sys.argv[2]))
fcntl.lockf(f, fcntl.LOCK_UN)
print('released', int(time.time() * 1000), flush=True)
EOF
hold() { # NAME FILE SECONDS: lock FILE from here for SECONDS; its PID in $hpid, "PID (command line)" in $holder
  python3 "$W/hold.py" "$2" "$3" > "$W/$1.hold" 2>&1 &
  hjob=$!
  n=0
  while ! grep -q '^locked ' "$W/$1.hold" && [ $n -lt 100 ]; do
    sleep 0.1
    n=$((n + 1))
  done
  hpid=$(sed -n 's/^locked //p' "$W/$1.hold")
  [ -n "$hpid" ] || { sed 's/^/# /' "$W/$1.hold"; echo "Bail out! python3 could not lock $2"; exit 1; }
  holder="$hpid ($(tr '\0' ' ' < "/proc/$hpid/cmdline" | sed 's/ $//'))"
}
let_go() { # [NAME]: wait for the holder to end, after killing it if not NAME; when it let go (ms)
  [ -n "${1:-}" ] || kill "$hjob"
  wait "$hjob"
  hjob=
  [ -z "${1:-}" ] || sed -n 's/^released //p' "$W/$1.hold"
}
deps() { # NAME TIMEOUT PACKAGE: mk/deps.sh pkg:PACKAGE in the root; its output in $W/NAME, "STATUS START END" (ms) in $W/NAME.rc
  t0=$(ms)
  inroot DEPS_LOCK_TIMEOUT="$2" sh /src/mk/deps.sh "pkg:$3" > "$W/$1" 2>&1
  echo "$? $t0 $(ms)" > "$W/$1.rc"
}
show() { # FILE...: as TAP comments
  for f in "$@"; do sed "s/^/#   ${f##*/}: /" "$f"; done
}
t_eq "$(installed hello) / $(installed tree)" "none / none" "control: the fresh root has neither hello nor tree"

# ------------------------------------------------ two at once
frontend=$R/var/lib/dpkg/lock-frontend
hold two "$frontend" 4
locked=$(ms)
deps a 600 hello &
ja=$!
deps b 600 hello &
jb=$!
wait "$ja" "$jb"
let_go two > "$W/two.released"
rel=$(cat "$W/two.released")
read -r rc_a start_a end_a < "$W/a.rc"
read -r rc_b start_b end_b < "$W/b.rc"
waiting="capinit: waiting up to 600 s for the dpkg lock, held by PID $holder"
t_eq "$rc_a:$rc_b" "0:0" "two mk/deps.sh pkg:hello at once, the dpkg lock held for 4 s: both exit 0"
t_eq "$(grep -c '^capinit: waiting' "$W/a"):$(grep -cxF "$waiting" "$W/a") $(grep -c '^capinit: waiting' "$W/b"):$(grep -cxF "$waiting" "$W/b")" \
  "1:1 1:1" "... each says once that it waits, naming the holder (PID $hpid) and its command line"
show "$W/a" "$W/b"
t_ok "$([ "$start_a" -lt "$rel" ] && [ "$start_b" -lt "$rel" ] && [ "$end_a" -ge "$rel" ] && [ "$end_b" -ge "$rel" ]; echo $?)" \
  "... both started before the holder let go, neither ended before (from the lock taken: started $((start_a - locked)), $((start_b - locked)) ms; let go $((rel - locked)) ms; ended $((end_a - locked)), $((end_b - locked)) ms)"
t_eq "$(installed hello)" "install ok installed" "... hello is installed in the root"

# ------------------------------------------------ timeout
hold neg "$frontend" 30
deps neg 2 tree
let_go
read -r rc start end < "$W/neg.rc"
t_eq "$rc" 111 "DEPS_LOCK_TIMEOUT=2, the dpkg lock held for 30 s: mk/deps.sh pkg:tree fails (111)"
t_eq "$(grep '^capinit: ' "$W/neg")" "capinit: installing Debian packages: tree
capinit: waiting up to 2 s for the dpkg lock, held by PID $holder
capinit: fatal: waited 2 s for the dpkg lock, held by PID $holder: let it finish, or run again with a longer DEPS_LOCK_TIMEOUT" \
  "... saying once that it waits, then that it gave up, naming the holder both times"
t_ok "$([ $((end - start)) -ge 2000 ] && [ $((end - start)) -lt 10000 ]; echo $?)" \
  "... after the 2 s, not the holder's 30 ($((end - start)) ms)"
t_eq "$(installed tree)" none "... tree is not installed"
show "$W/neg"
deps ctl 2 tree
read -r rc start end < "$W/ctl.rc"
t_eq "$rc:$(grep -c '^capinit: waiting' "$W/ctl"):$(installed tree)" "0:0:install ok installed" \
  "control: the same with the lock free installs tree, saying no wait ($((end - start)) ms)"

# ------------------------------------------------ lists
lists=$R/var/lib/apt/lists/lock
hold upd "$lists" 3
locked=$(ms)
inroot sh /src/mk/apt-update.sh -q > "$W/upd" 2>&1
rc=$?
end=$(ms)
let_go upd > "$W/upd.released"
rel=$(cat "$W/upd.released")
t_eq "$rc:$(grep -c '^capinit: ' "$W/upd"):$(grep -cxF "capinit: waiting up to 600 s for apt's lists lock (/var/lib/apt/lists/lock), held by PID $holder" "$W/upd")" \
  "0:1:1" "mk/apt-update.sh, apt's lists lock held for 3 s: says once that it waits, naming the holder, and updates (exit 0)"
t_ok "$([ "$end" -ge "$rel" ]; echo $?)" "... after the holder let go ($((rel - locked)) ms), not before ($((end - locked)) ms)"
show "$W/upd"
hold updneg "$lists" 30
inroot DEPS_LOCK_TIMEOUT=2 sh /src/mk/apt-update.sh -q > "$W/updneg" 2>&1
rc=$?
let_go
t_eq "$rc:$(grep '^capinit: fatal' "$W/updneg")" \
  "111:capinit: fatal: waited 2 s for apt's lists lock (/var/lib/apt/lists/lock), held by PID $holder: let it finish, or run again with a longer DEPS_LOCK_TIMEOUT" \
  "... with DEPS_LOCK_TIMEOUT=2 and the lock held for 30 s: fails (111), naming the holder"
t_done

#!/bin/sh
# rootfs/debian/learn.sh BUILDDIR -- the imported image's service files
# refined by capctl learn (issue 37; make debian DEBIAN_SERVICES=import,
# after rootfs/debian/import.sh): BUILDDIR/debian/import/disk.ext4 booted
# once in QEMU (rootfs/debian/qemu.sh, Debian's 6.1: learn's kprobe),
# and in the guest, daemon by daemon, capctl learn with the image's
# end-to-end check of that daemon as --check (rootfs/debian/learn-check.sh,
# run by rootfs/debian/learn-guest.sh).  Each proposal learn proves is
# written into the guest's /etc/capinit/services, adjusted only as learn's
# report says, and the guest powered off: the disk then holds the learned
# files, and becomes BUILDDIR/debian/disk-import.ext4.  The proposals and reports, as
# learn printed them, are kept in BUILDDIR/debian/learn/ (DAEMON.learned,
# DAEMON.report; learn.log: one line a daemon, its exit status and time).
#
# The adjustment: learn's proposal for a uid 0 without read-only = yes
# (learn proposes read-only = yes and read-write paths when it could
# watch the files written: fanotify) carries its note "capctl check
# refuses the proposal until it has read-only = yes and read-write paths,
# or a user": only then the file gets writes-capinit-state = yes, which
# turns that error into capinit's warning and changes nothing of how the
# service runs: it runs as learn proved it.
#
# Not learned: sshd and the getty stay as imported, legacy root, the
# hand-written files' own exception (a login needs full root; learn's
# noroot proposal would give the login's shell only what the check's
# one command used).  A daemon whose learn fails (no proposal) keeps its
# imported file, and learn.log says so.
#
# rootfs/debian/learn.sh BUILDDIR hand (make debian-learn-hand): the same
# learning, from the hand-written files instead, on a copy of
# BUILDDIR/debian/disk.ext4, to see whether learn finds each hand-written
# file's capabilities, or fewer; nothing is installed, the copy is thrown
# away, and the proposals and reports are kept in BUILDDIR/debian/learn-hand/.
set -eu
case $#:${2:-} in
  1:) from=import ;;
  2:hand) from=hand ;;
  *) echo "usage: rootfs/debian/learn.sh BUILDDIR [hand]" >&2; exit 100 ;;
esac
B=$1
D=$B/debian
here=$(cd "$(dirname "$0")" && pwd)
die() { echo "rootfs/debian/learn.sh: fatal: $*" >&2; exit 111; }
say() { echo "debian: learn: $*"; }
disk=$D/import/disk.ext4 out=$D/learn
pass=1
[ $from = import ] || disk=$D/disk.ext4 out=$D/learn-hand pass=hand
[ -f "$disk" ] || die "no $disk (make debian, with DEBIAN_SERVICES=import for the imported files)"
# DAEMON:SECONDS each run: postfix's start runs configure-instance.sh
# first, 10 s under TCG
DAEMONS=${DEBIAN_LEARN:-postfix:30 apache2:15 nginx:15 chrony:15 rsyslog:15}
# Learned, but not installed (none now).  apache2's proposal once failed
# at the next boot: apachectl makes /run/apache2/socks when it is missing
# and chowns it to www-data (cap_chown), and learn ran after the boot's
# apache2 had made it; learn-guest.sh now removes it before each of
# learn's runs (--fresh), so that each is a first start.
NOT_INSTALLED=${DEBIAN_LEARN_NOT_INSTALLED-}
rm -rf "$out"
mkdir -p "$out"
qpid=
cleanup() {
  [ -z "$qpid" ] || kill -KILL "$qpid" 2>/dev/null || true
  rm -f "$out/disk.ext4"
}
trap cleanup EXIT
trap 'exit 130' INT TERM
[ $from = hand ] || rm -f "$D/disk-import.ext4"
cp --sparse=always "$disk" "$out/disk.ext4"
set -- $(python3 "$here/../../tests/debian/netprobe.py" ports 4)
ssh_port=$1
DEBIAN_DISK=$out/disk.ext4 DEBIAN_PORTS="$*" sh "$here/qemu.sh" run "$B" "$out" &
qpid=$!
gssh() {
  ssh -p "$ssh_port" -i "$D/id_ed25519" -o StrictHostKeyChecking=no -o UserKnownHostsFile=/dev/null \
    -o LogLevel=ERROR -o BatchMode=yes -o ConnectTimeout=60 root@127.0.0.1 "$@"
}
t0=$(date +%s)
n=0
while ! tr -d '\r' 2>/dev/null < "$out/console.log" | grep -q 'capinit: all [0-9]* services'; do
  kill -0 "$qpid" 2>/dev/null || die "QEMU ended before capinit was ready (console: $out/console.log)"
  [ $n -lt 2400 ] || die "capinit was not ready in 600 s"
  sleep 0.25
  n=$((n + 1))
done
n=0
until gssh true 2>/dev/null; do
  [ $n -lt 60 ] || die "no ssh into the guest"
  sleep 2
  n=$((n + 1))
done
say "the $from image booted ($(( $(date +%s) - t0 )) s); learning: $DAEMONS"
gssh 'cat > /root/learn-check.sh' < "$here/learn-check.sh"
# shellcheck disable=SC2086
gssh sh -s "$pass" $DAEMONS < "$here/learn-guest.sh" > "$out/learn.log"
for ds in $DAEMONS; do
  d=${ds%%:*}
  gssh cat "/var/lib/capinit/learn/$pass/$d.svc" > "$out/$d.learned"
  gssh cat "/var/lib/capinit/learn/$pass/$d.report" > "$out/$d.report"
  [ $from = import ] || continue
  if ! grep -q "^$d rc=0 " "$out/learn.log" || [ ! -s "$out/$d.learned" ]; then
    echo "$d: no proposal: the imported file stays" >> "$out/learn.log"
    continue
  fi
  case " $NOT_INSTALLED " in
    *" $d "*)
      echo "$d: proposal not installed: the imported file stays" >> "$out/learn.log"
      continue ;;
  esac
  {
    cat "$out/$d.learned"
    if grep -q "^capctl: learn: note: uid 0 without read-only = yes could write capinit's state" "$out/$d.report"; then
      echo
      echo "# --- rootfs/debian/learn.sh, as learn's note says: uid 0 without read-only = yes could write"
      echo "# capinit's state, and learn proposed no read-write paths: accepted here, as learn ran it"
      echo "writes-capinit-state = yes"
    elif grep -q '^read-write = \(.* \)\?/run\( \|$\)' "$out/$d.learned"; then
      echo
      echo "# --- rootfs/debian/learn.sh: learn's read-write has /run, where its start made or wrote an"
      echo "# entry (a pid file, a run-time directory), and so /run/capinit: accepted here, as learn ran it"
      echo "writes-capinit-state = yes"
    fi
  } | gssh "cat > /etc/capinit/services/$d.svc"
done
gssh capctl check > "$out/check.txt" 2>&1 || { cat "$out/check.txt" >&2; die "capctl check refuses the learned files"; }
sed 's/^/debian: learn: /' "$out/learn.log"
gssh poweroff || true
n=0
while kill -0 "$qpid" 2>/dev/null; do
  [ $n -lt 1200 ] || die "the guest did not power off"
  sleep 0.1
  n=$((n + 1))
done
wait "$qpid" || die "QEMU exited $?"
qpid=
e2fsck -fn "$out/disk.ext4" > "$out/e2fsck.txt" 2>&1 || die "the disk is not clean after the power off"
if [ $from = hand ]; then
  say "$out: learn's proposals from the hand-written files ($(( $(date +%s) - t0 )) s)"
  exit 0
fi
mv "$out/disk.ext4" "$D/disk-import.ext4"
say "$D/disk-import.ext4: the learned files ($(( $(date +%s) - t0 )) s)"

# tests/debian/guest.sh -- what the tests that boot the Debian image share;
# sourced after tests/lib.sh, with B the build directory.
#
# guest_setup NAME: the image's files there (else "Bail out!"), OUT a new
# directory BUILDDIR/qemu/NAME.XXXXXX holding a copy of the disk (GUEST_DISK,
# by default BUILDDIR/debian/disk.ext4), four
# free host ports for the guest's ssh, smtp, http (nginx) and apache2
# (SSH_PORT, SMTP_PORT, HTTP_PORT, APACHE_PORT), and on exit QEMU (qpid) killed, the disk copy removed and OUT
# kept only after a failure.  gssh runs a command in the guest, as root,
# with the tests' key.
D=$B/debian
PROBE="python3 tests/debian/netprobe.py"
limit=${BOOT_TIMEOUT:-600}
qpid=

guest_setup() {
  disk_file=${GUEST_DISK:-$D/disk.ext4}
  for f in "$disk_file" "$D/initrd.img" "$D/id_ed25519" "$D/kernel.release"; do
    [ -f "$f" ] || { echo "Bail out! $f is missing (make debian)"; exit 1; }
  done
  mkdir -p "$B/qemu"
  out=$(mktemp -d "$B/qemu/$1.XXXXXX")
  out=$(cd "$out" && pwd)
  trap guest_cleanup EXIT
  trap 'exit 130' INT TERM
  cp --sparse=always "$disk_file" "$out/disk.ext4"
  set -- $($PROBE ports 4)
  SSH_PORT=$1 SMTP_PORT=$2 HTTP_PORT=$3 APACHE_PORT=$4
}

guest_cleanup() {
  [ -n "$qpid" ] && kill -KILL "$qpid" 2>/dev/null
  wait 2>/dev/null
  # keep what a failure needs to be understood; drop the disk either way
  rm -f "$out/disk.ext4"
  [ "$t_failed" = 0 ] && rm -rf "$out"
}

gssh() {
  ssh -p "$SSH_PORT" -i "$D/id_ed25519" -o StrictHostKeyChecking=no -o UserKnownHostsFile=/dev/null \
    -o LogLevel=ERROR -o BatchMode=yes -o ConnectTimeout=60 root@127.0.0.1 "$@"
}

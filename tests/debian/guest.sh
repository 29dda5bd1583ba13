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

ms() { date +%s%3N; }
console() { tr -d '\r' < "$out/console.log"; }

# guest_boot: QEMU on OUT's copy of the disk, the host's four ports
# forwarded (qpid; t0 and t0ns its start), until capinit says every
# service is ready (BOOT_TIMEOUT; once capinit reports a failure, which
# may leave its dependents waiting for ever, 30 s more), then until the
# host's ssh, smtp and http answer (OUT/answers.txt): two checks, and
# ready (the services' count and capinit's ms).  Without the ready line
# the console's end is shown and the test ends.
guest_boot() {
  : > "$out/console.log"
  t0=$(ms)
  t0ns=$(date +%s%N)
  DEBIAN_DISK=$out/disk.ext4 DEBIAN_PORTS="$SSH_PORT $SMTP_PORT $HTTP_PORT $APACHE_PORT" \
    sh rootfs/debian/qemu.sh run "$B" "$out" &
  qpid=$!
  n=0
  failed_at=
  # (anywhere on a line: the getty's prompt may come first)
  while ! console | grep -q 'capinit: all [0-9]* services' && kill -0 "$qpid" 2>/dev/null && [ $n -lt $((limit * 4)) ]; do
    if [ -z "$failed_at" ] && console | grep -q -e 'capinit: service [^ ]*: exited [1-9]' -e 'capinit: .*fatal:'; then
      failed_at=$n
    fi
    [ -n "$failed_at" ] && [ $((n - failed_at)) -ge 120 ] && break
    sleep 0.25
    n=$((n + 1))
  done
  ready=$(console | sed -n 's/.*capinit: all \([0-9]*\) services ready \([0-9]*\) ms after capinit started$/\1 \2/p')
  t_ok $([ -n "$ready" ] && echo 0 || echo 1) "capinit: every service ready (${ready:-no such line}; $(( $(ms) - t0 )) ms after QEMU started)"
  [ -n "$ready" ] || { console | tail -n 40 | sed 's/^/#   /'; t_done; exit 1; }
  $PROBE answers "$SSH_PORT" "$SMTP_PORT" "$HTTP_PORT" --since "$t0ns" --timeout 300 > "$out/answers.txt"
  t_eq "$?:$(cut -d' ' -f1 "$out/answers.txt" | tr '\n' ' ')" "0:ssh smtp http all " \
    "from the host: ssh's banner, smtp's greeting, http's 200 ($(tr '\n' ' ' < "$out/answers.txt"))"
}

# delivered USER SUBJECT: whether the mail of that subject is in
# /var/mail/USER, once (waiting up to 120 s for it)
delivered() {
  n=0
  while [ "$(gssh grep -c "'^Subject: $2\$'" "/var/mail/$1" 2>/dev/null)" != 1 ] && [ $n -lt 120 ]; do
    sleep 1
    n=$((n + 1))
  done
  [ "$(gssh grep -c "'^Subject: $2\$'" "/var/mail/$1" 2>/dev/null)" = 1 ]
}

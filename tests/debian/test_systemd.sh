#!/bin/sh
# tests/debian/test_systemd.sh BUILDDIR -- the same disk booted by
# systemd (DEBIAN_INIT=systemd: no init=), checked from the host as
# test_debian.sh checks capinit's boot, so that the two stay like for
# like.  Under systemd every daemon is on the guest's own address
# (10.0.2.15), as Debian's units run them: QEMU forwards the smtp port to
# its port 25 and apache2's to its port 81 (nginx has 80;
# rootfs/debian/qemu.sh, configure.sh), where capinit's boot forwards them
# to postfix's and apache2's own cards.
#
#   boot    ssh's banner, smtp's greeting and nginx's 200 come back
#           through the forwarded ports; systemd is PID 1
#   smtp    a mail from the host for root@localhost lands in /var/mail/root
#   http    nginx answers 200 with Debian's page, apache2 200 with its own
#   units   apache2, nginx and postfix@- are active
#   power   systemctl poweroff: QEMU exits 0, the disk is clean
#
# Runs as root; every wait is bounded (BOOT_TIMEOUT, 600 s, for the boot).
B=${1:-build}
. tests/lib.sh
. tests/debian/guest.sh
guest_setup systemd
: > "$out/console.log"
t0ns=$(date +%s%N)
DEBIAN_INIT=systemd DEBIAN_DISK=$out/disk.ext4 DEBIAN_PORTS="$SSH_PORT $SMTP_PORT $HTTP_PORT $APACHE_PORT" \
  sh rootfs/debian/qemu.sh run "$B" "$out" &
qpid=$!

# ------------------------------------------------ boot
$PROBE answers "$SSH_PORT" "$SMTP_PORT" "$HTTP_PORT" --since "$t0ns" --timeout "$limit" > "$out/answers.txt"
t_eq "$?:$(cut -d' ' -f1 "$out/answers.txt" | sort | tr '\n' ' ')" "0:all http smtp ssh " \
  "from the host: ssh's banner, smtp's greeting, http's 200 ($(tr '\n' ' ' < "$out/answers.txt"))"
n=0
until [ "$(gssh echo up 2>/dev/null)" = up ] || [ $n -ge 60 ]; do sleep 1; n=$((n + 1)); done
t_eq "$(gssh cat /proc/1/comm)" systemd "PID 1 is systemd"

# ------------------------------------------------ smtp
subject="systemd test $$-$(date +%s%N)"
$PROBE mail "$SMTP_PORT" tester@qemu-host.localdomain root@localhost "$subject" > "$out/mail-root.txt" 2>&1
t_eq "$(cut -c1-3 "$out/mail-root.txt")" 250 "smtp: the mail for root@localhost is accepted ($(cat "$out/mail-root.txt"))"
delivered root "$subject"
t_ok $? "... it arrives in /var/mail/root"

# ------------------------------------------------ http
# Debian's nginx and apache2 share /var/www/html, where apache2's
# index.html (its page) comes first: nginx's own page by its name, and
# the Server header says who answers
$PROBE http "$HTTP_PORT" /index.nginx-debian.html > "$out/http.txt" 2>&1
t_eq "$(head -n 1 "$out/http.txt") $(grep -c '<title>Welcome to nginx!</title>' "$out/http.txt") $($PROBE server "$HTTP_PORT")" "200 1 200 nginx" \
  "http: nginx answers 200 with Debian's page (index.nginx-debian.html; Server: nginx)"
n=0
while $PROBE http "$APACHE_PORT" > "$out/apache.txt" 2>&1; [ "$(head -n 1 "$out/apache.txt")" != 200 ] && [ $n -lt 60 ]; do
  sleep 1
  n=$((n + 1))
done
t_eq "$(head -n 1 "$out/apache.txt") $(grep -c '<title>Apache2 Debian Default Page: It works</title>' "$out/apache.txt") $($PROBE server "$APACHE_PORT")" "200 1 200 Apache" \
  "http: apache2 answers 200 with Debian's page (the guest's port 81)"
t_eq "$(gssh systemctl is-active apache2 nginx postfix@- | tr '\n' ' ')" "active active active " \
  "Debian's units apache2, nginx and postfix@- are active"

# ------------------------------------------------ power off
gssh systemctl poweroff
n=0
while kill -0 "$qpid" 2>/dev/null && [ $n -lt 1200 ]; do sleep 0.1; n=$((n + 1)); done
wait "$qpid"
rc=$?
qpid=
t_eq "$rc" 0 "systemctl poweroff: QEMU exits 0"
e2fsck -fn "$out/disk.ext4" > "$out/e2fsck.txt" 2>&1
t_eq "$?" 0 "e2fsck -fn on the host: the disk is clean"
t_done

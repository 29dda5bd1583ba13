#!/bin/sh
# rootfs/debian/configure.sh -- run by rootfs/debian/build.sh inside the
# image (chroot, as root), after the overlay: what needs the image's own
# tools.  The same configuration serves both boots: systemd's and
# capinit's.
set -eu

# --- off the internet: nothing of the image may try to reach it
# postfix: local mail only: nothing is relayed or sent out (the error
# transport bounces it at once), no DNS (the names are in /etc/hosts)
echo debian.localdomain > /etc/mailname
postconf -e \
  myhostname=debian.localdomain \
  mydomain=localdomain \
  myorigin=/etc/mailname \
  'mydestination=$myhostname, debian, localhost.localdomain, localhost' \
  inet_interfaces=all \
  inet_protocols=ipv4 \
  relayhost= \
  default_transport=error \
  relay_transport=error \
  smtp_dns_support_level=disabled \
  smtpd_tls_security_level=none \
  smtp_tls_security_level=none
newaliases
# postfix's chroot (/var/spool/postfix: its copies of /etc/hosts,
# /etc/services, the resolver's libraries), as Debian's postfix@.service
# makes it before each start: configure-instance.sh, run by capinit's
# postfix-chroot script, which records what it copied; under capinit the
# postfix-chroot oneshot checks the copies against that record at boot
# and refreshes them only when one is stale
sh /etc/capinit/postfix-chroot.sh
[ -s /var/spool/postfix/.capinit-chroot ] ||
  { echo "configure.sh: postfix-chroot.sh made no record" >&2; exit 1; }
# the queue's directories postfix makes only in `postfix check` (hold,
# trace): `postfix start` runs it under systemd, nothing under capinit,
# where postfix reload's postsuper then fails on "open directory hold"
postfix check
for d in hold trace; do
  [ -d /var/spool/postfix/$d ] || { echo "configure.sh: postfix check made no $d" >&2; exit 1; }
done
# systemd's apt timers would fetch package lists from the internet
systemctl mask apt-daily.timer apt-daily-upgrade.timer
# the network of systemd's boot: systemd-networkd with the same address
# as capinit's network oneshot (/etc/systemd/network/10-eth0.network)
systemctl enable systemd-networkd.service

# apache2 beside nginx: under capinit it has a network card of its own
# (apache2.svc, started with -D capinit) and listens on 80 there; under
# systemd it shares the guest's address with nginx, which has 80, and
# listens on 81.  One port for ports.conf's Listen and the default site's
# VirtualHost, chosen by the init.
sed -i 's|^Listen 80$|<IfDefine capinit>\n\tDefine APACHE_HTTP_PORT 80\n</IfDefine>\n<IfDefine !capinit>\n\tDefine APACHE_HTTP_PORT 81\n</IfDefine>\nListen ${APACHE_HTTP_PORT}|' \
  /etc/apache2/ports.conf
sed -i 's|^<VirtualHost \*:80>$|<VirtualHost *:${APACHE_HTTP_PORT}>|' /etc/apache2/sites-available/000-default.conf
grep -q '^Listen ${APACHE_HTTP_PORT}$' /etc/apache2/ports.conf &&
  grep -q '^<VirtualHost \*:${APACHE_HTTP_PORT}>$' /etc/apache2/sites-available/000-default.conf ||
  { echo "configure.sh: apache2's ports.conf or default site is not as expected" >&2; exit 1; }

# --- the daemons that are not root under capinit
# nginx's temporary files (master and workers are www-data); Debian
# leaves /var/lib/nginx to a root master
chown www-data:www-data /var/lib/nginx
# chronyd's state and logs, its own (as systemd's StateDirectory= and
# LogsDirectory= make them)
mkdir -p /var/lib/chrony /var/log/chrony
chown _chrony:_chrony /var/lib/chrony /var/log/chrony
chmod 0750 /var/lib/chrony /var/log/chrony
# rsyslog's work directory
mkdir -p /var/spool/rsyslog
# rsyslog's socket under capinit: /var/lib/rsyslog/log, which /dev/log
# links to (rsyslog.svc, rundirs.svc).  capinit's rsyslog reads a copy of
# Debian's rsyslog.conf that differs in that line alone; systemd's keeps
# Debian's, whose imuxsock takes journald's socket only when it names no
# SysSock.Name.
mkdir -p /var/lib/rsyslog
sed 's|^module(load="imuxsock")|module(load="imuxsock" SysSock.Name="/var/lib/rsyslog/log")|' \
  /etc/rsyslog.conf > /etc/capinit/rsyslog.conf
[ "$(diff /etc/rsyslog.conf /etc/capinit/rsyslog.conf | grep -c '^[<>]')" = 2 ] ||
  { echo "configure.sh: rsyslog.conf has no line module(load=\"imuxsock\") to change" >&2; exit 1; }
# GRUB's settings, which grub-pc's postinst would write from its template:
# update-grub (tests/debian/test_boot_entry.sh) reads them
cp /usr/share/grub/default/grub /etc/default/grub
# capinit's service logs (not in /var/log, which rsyslog may write)
mkdir -p /var/lib/capinit/log

# --- logins: root on the console without a password (the console is
# QEMU's serial port, on the host only); ssh with a key
passwd -d root >/dev/null

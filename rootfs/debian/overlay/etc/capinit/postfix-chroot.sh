#!/bin/sh
# /etc/capinit/postfix-chroot.sh -- the postfix-chroot oneshot
# (postfix-chroot.svc): postfix's chroot, /var/spool/postfix, as Debian's
# configure-instance.sh makes it (copies of /etc/hosts, /etc/services...,
# of the resolver's libraries and of the CA directories' certificates),
# with that script run again only when what it copies or reads has
# changed since it last ran.
#
# What it last copied and read is in /var/spool/postfix/.capinit-chroot:
# the checksums of its copies and of their originals, of postfix's
# main.cf and master.cf (which daemons run chrooted, the CA directories)
# and of /etc/default/postfix, and the names of the files it would copy
# (a library or a certificate added since).  The image is built with it
# (rootfs/debian/configure.sh runs this script), so a boot only reads
# those few files: one sha256sum, where configure-instance.sh's postconf
# calls, copies and openssl rehash took 3 s of a quiet guest under TCG
# and 6 to 11 s of CPU time during the boot, beside every other service.
# Anything changed (an edited /etc/hosts, a new certificate, a library
# upgraded, a copy altered in the chroot): the whole script again, as
# Debian's postfix@.service runs it before each start, then the record.
set -u
q=/var/spool/postfix
rec=$q/.capinit-chroot
cd / || exit 111

# the names configure-instance.sh would copy now: its fixed list, the
# libraries of its globs, the certificates of the CA directories it copied
names() {
  ls -d etc/localtime etc/services etc/resolv.conf etc/hosts etc/host.conf etc/nsswitch.conf \
    etc/nss_mdns.config etc/default/postfix lib/*/libgcc_s*.so* lib/*/libnss*.so* \
    lib/*/libresolv*.so* lib/libgcc_s*.so* lib/libnss*.so* lib/libresolv*.so* 2>/dev/null
  (cd "$q" && find etc -name '*.pem' -printf '%h\n') | sort -u | while read -r d; do
    find "/$d" -name '*.pem' 2>/dev/null | sort
  done
}
# the record: those names, then the checksums of the configuration, of
# every copy in the chroot and of its original
record() {
  names | sed 's/^/name /'
  copies=$(cd "$q" && find etc lib usr -type f 2>/dev/null | sort)
  set -- etc/postfix/main.cf etc/postfix/master.cf
  [ ! -e etc/default/postfix ] || set -- "$@" etc/default/postfix
  for f in $copies; do set -- "$@" "$f" "$q/$f"; done
  sha256sum "$@"
}

if [ -f "$rec" ] && record 2>/dev/null | cmp -s - "$rec"; then
  exit 0
fi
[ ! -f "$rec" ] || echo "postfix-chroot: its copies or what they are made from changed: configure-instance.sh"
/usr/lib/postfix/configure-instance.sh - || exit
record > "$rec.new" && mv "$rec.new" "$rec"

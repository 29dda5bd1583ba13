#!/bin/sh
# rootfs/debian/build.sh BUILDDIR DEB -- the Debian 12 image (make debian).
#
# Two steps, so that a change of capinit or of its service files costs
# seconds, not a new bootstrap:
#
# 1. The base: mmdebstrap (Debian's own tool, Debian's own packages) makes
#    a bookworm root with the packages below, systemd as Debian installs
#    it included, into BUILDDIR/debian/base.  The .deb files it downloads
#    are kept in BUILDDIR/debian/cache (mmdebstrap's sync-in and sync-out
#    hooks), the apt sources are this machine's own.  Done again only when
#    the package list or this step changes (BUILDDIR/debian/base.key).
# 2. The image: a copy of the base, rootfs/debian/overlay over it (the
#    configuration that keeps the guest off the internet, capinit's
#    services) after capinit's own package, DEB (make deb), installed with
#    dpkg -i as an administrator would: the overlay's capinit.conf is then
#    the administrator's change of a conffile.  Then
#    rootfs/debian/configure.sh runs in it (chroot), and root's
#    authorized_keys; then mke2fs -d writes it to BUILDDIR/debian/disk.ext4,
#    file capabilities included.  The kernel and the initrd are the base's
#    own /boot files: BUILDDIR/debian/vmlinuz and initrd.img (and vmlinux,
#    the same kernel uncompressed, which QEMU boots faster through PVH).
#
# The image holds two keys in root's authorized_keys: the tests' own
# (BUILDDIR/debian/id_ed25519, made here once) and the one make debian
# DEBIAN_SSH_KEY=FILE.pub copied to BUILDDIR/debian/user_key.pub, kept
# until another is given.  Needs root (mmdebstrap's root mode, ownership,
# chroot).
set -eu
LC_ALL=C
export LC_ALL

die() { echo "rootfs/debian/build.sh: fatal: $*" >&2; exit 111; }
say() { echo "debian: $*"; }
[ $# = 2 ] || { echo "usage: rootfs/debian/build.sh BUILDDIR DEB" >&2; exit 100; }
[ "$(id -u)" = 0 ] || die "needs root (mmdebstrap, chroot, file ownership): run as root"
B=$(cd "$1" && pwd)
here=$(cd "$(dirname "$0")" && pwd)
D=$B/debian
mkdir -p "$D/cache"
deb=$(cd "$(dirname "$2")" && pwd)/${2##*/}
[ -f "$deb" ] || die "$2 is missing (make debian builds it: make deb)"
for t in mmdebstrap mke2fs ssh-keygen unshare chroot; do
  command -v $t >/dev/null || die "$t is missing (make debian installs it: mk/deps.sh debian)"
done
# the administrator's key: make copies DEBIAN_SSH_KEY there, and keeps it
user_key=$D/user_key.pub
if [ -s "$user_key" ]; then
  case $(head -c 8 "$user_key") in
    ssh-*|ecdsa-*|sk-*) ;;
    *) rm -f "$user_key"; die "DEBIAN_SSH_KEY is not a public key (FILE.pub, one line 'ssh-ed25519 AAAA...')" ;;
  esac
fi

# ------------------------------------------------------------ 1. the base
# What a Debian server of this kind runs.  systemd, udev, dbus and
# libpam-systemd are what Debian installs with systemd; the kernel and
# initramfs-tools make the kernel and initrd that boot the disk;
# grub2-common's update-grub writes the menu with capinit's entry (the
# tests run it in the guest: the image boots through QEMU's -kernel, and
# no boot loader is installed).
PACKAGES="systemd systemd-sysv udev dbus libpam-systemd
linux-image-amd64 initramfs-tools grub2-common
openssh-server postfix nginx-light apache2 chrony rsyslog
iproute2 netbase procps kmod e2fsprogs less"
# the initrd only needs the disk: virtio's PCI transport and block driver,
# ext4 (crc32c for its checksums)
INITRD_MODULES="virtio_pci virtio_blk crc32c_generic ext4"
# postfix's debconf questions: a mail server for its own host name
PRESEED="postfix postfix/main_mailer_type select Internet Site
postfix postfix/mailname string debian.localdomain"
# a daemon that is not installed, whose .deb files (those it needs beyond
# the packages above) wait in NEW_DAEMON_DEBS: the tests install it with
# apt-get under capinit, which must not start it (docs/debian.md)
NEW_DAEMON=cron
NEW_DAEMON_DEBS=/var/cache/capinit-tests
base_key=$( { echo "$PACKAGES"; echo "$NEW_DAEMON $NEW_DAEMON_DEBS"; echo "$INITRD_MODULES"; echo "$PRESEED"; sed -n '/^# -* 1\./,/^# -* 2\./p' "$0"; } | sha256sum | cut -c1-16)

if [ "$(cat "$D/base.key" 2>/dev/null)" != "$base_key" ] || [ ! -f "$D/base/etc/debian_version" ]; then
  say "bootstrapping Debian 12 into $D/base with mmdebstrap (a few minutes; the .deb files are kept in $D/cache)"
  rm -rf "$D/base" "$D/base.key"
  # the machine's own apt sources (its mirror), as one deb822 file
  sources=$D/sources.list
  if ls /etc/apt/sources.list.d/*.sources >/dev/null 2>&1; then
    cat /etc/apt/sources.list.d/*.sources > "$D/debian.sources"
    sources=$D/debian.sources
  else
    grep -h '^deb ' /etc/apt/sources.list /etc/apt/sources.list.d/*.list 2>/dev/null > "$sources" || true
  fi
  [ -s "$sources" ] || die "no apt sources on this machine (/etc/apt/sources.list.d/*.sources or sources.list)"
  printf '%s\n' "$PRESEED" > "$D/preseed.txt"
  t0=$(date +%s)
  mmdebstrap --mode=root --variant=minbase --format=directory \
    --include="$(echo $PACKAGES | tr ' ' ',')" \
    --dpkgopt='path-exclude=/usr/share/man/*' \
    --dpkgopt='path-exclude=/usr/share/locale/*' \
    --dpkgopt='path-include=/usr/share/locale/locale.alias' \
    --dpkgopt='path-exclude=/usr/share/doc/*' \
    --dpkgopt='path-include=/usr/share/doc/*/copyright' \
    --skip=essential/unlink \
    --setup-hook='mkdir -p "$1/var/cache/apt/archives"' \
    --setup-hook="sync-in '$D/cache' /var/cache/apt/archives" \
    --essential-hook="mkdir -p \"\$1/etc/initramfs-tools/conf.d\" && printf 'MODULES=list\n' > \"\$1/etc/initramfs-tools/conf.d/capinit-debian.conf\" && printf '%s\n' $INITRD_MODULES > \"\$1/etc/initramfs-tools/modules\"" \
    --essential-hook="chroot \"\$1\" debconf-set-selections < '$D/preseed.txt'" \
    --customize-hook="sync-out /var/cache/apt/archives '$D/cache'" \
    --customize-hook="mkdir -p \"\$1$NEW_DAEMON_DEBS/partial\" && chroot \"\$1\" apt-get install -q -y --download-only -o Dir::Cache::Archives=$NEW_DAEMON_DEBS $NEW_DAEMON && rmdir \"\$1$NEW_DAEMON_DEBS/partial\" && rm -f \"\$1$NEW_DAEMON_DEBS/lock\"" \
    --customize-hook='rm -f "$1"/var/cache/apt/archives/*.deb' \
    bookworm "$D/base" "$sources" > "$D/mmdebstrap.log" 2>&1 ||
    { tail -n 30 "$D/mmdebstrap.log" >&2; die "mmdebstrap failed (log: $D/mmdebstrap.log)"; }
  echo "$base_key" > "$D/base.key"
  say "base ready in $(($(date +%s) - t0)) s ($(du -sm "$D/base" | cut -f1) MB)"
fi

# ------------------------------------------------------------ 2. the image
# the tests' own key (BUILDDIR/debian/id_ed25519): make check logs in
# with it, whatever DEBIAN_SSH_KEY says
[ -f "$D/id_ed25519" ] || ssh-keygen -q -t ed25519 -N '' -C capinit-debian-tests -f "$D/id_ed25519" ||
  die "unable to make the tests' ssh key"
# DEBIAN_SERVICES=import: the services made by capctl import from the
# image's own units (rootfs/debian/import.sh), on a disk of their own,
# BUILDDIR/debian/import/disk.ext4 (which rootfs/debian/learn.sh boots and
# refines into BUILDDIR/debian/disk-import.ext4), assembled in a stage of
# its own
disk=$D/disk.ext4 W=$D/stage
case ${DEBIAN_SERVICES:-} in
  ''|hand) ;;
  import) disk=$D/import/disk.ext4 W=$D/stage-import ;;
  *) die "DEBIAN_SERVICES is hand (the default) or import" ;;
esac
say "assembling the image${DEBIAN_SERVICES:+ ($DEBIAN_SERVICES)}"
rm -rf "$W"
mkdir -p "$W"
trap 'rm -rf "$W"' EXIT
trap 'exit 130' INT TERM
R=$W/root
# a copy that keeps owners, modes, xattrs (file capabilities), links
cp -a "$D/base" "$R"
# capinit's package, as an administrator installs it (/proc for dpkg)
cp "$deb" "$R/tmp/"
unshare --mount --propagation private sh -c \
  'mount -t proc proc "$1/proc" && exec chroot "$1" dpkg -i "/tmp/$2"' sh "$R" "${deb##*/}" > "$D/dpkg.log" 2>&1 ||
  { cat "$D/dpkg.log" >&2; die "dpkg -i ${deb##*/} failed in the image"; }
rm -f "$R/tmp/${deb##*/}"
# the overlay: a file replaces what is there, owned by root, with the
# overlay's mode
(cd "$here/overlay" && find . ! -type d) | while read -r f; do
  f=${f#./}
  mkdir -p "$R/$(dirname "$f")"
  rm -f "$R/$f"
  cp -P --preserve=mode "$here/overlay/$f" "$R/$f"
  chown -h 0:0 "$R/$f"
done
mkdir -p -m 0700 "$R/root/.ssh"
{
  cat "$D/id_ed25519.pub"
  [ ! -s "$user_key" ] || cat "$user_key"
} > "$R/root/.ssh/authorized_keys"
chmod 0600 "$R/root/.ssh/authorized_keys"
cp "$here/configure.sh" "$R/configure.sh"
unshare --mount --propagation private sh -c \
  'mount -t proc proc "$1/proc" && exec chroot "$1" /bin/sh /configure.sh' sh "$R" > "$D/configure.log" 2>&1 ||
  { cat "$D/configure.log" >&2; die "rootfs/debian/configure.sh failed in the image"; }
rm -f "$R/configure.sh"

if [ "${DEBIAN_SERVICES:-}" = import ]; then
  sh "$here/import.sh" "$R" "$B/bin/capctl" "$D/import" || die "rootfs/debian/import.sh failed"
  say "$(tail -n 1 "$D/import/report")"
fi

# capinit's configuration, checked against the image's own users
"$B/bin/capctl" check -R "$R" -c "$R/etc/capinit" > "$W/check.out" 2>&1 ||
  { sed "s|$R||g" "$W/check.out" >&2; die "capctl check rejects the image's /etc/capinit"; }

# the kernel, its uncompressed twin for PVH, the initrd
krel=$(cd "$R/boot" && ls vmlinuz-* | sed 's/^vmlinuz-//' | sort -V | tail -n 1)
[ -n "$krel" ] || die "no kernel in the image's /boot"
cp "$R/boot/vmlinuz-$krel" "$D/vmlinuz.new" && mv "$D/vmlinuz.new" "$D/vmlinuz"
cp "$R/boot/initrd.img-$krel" "$D/initrd.img.new" && mv "$D/initrd.img.new" "$D/initrd.img"
if [ ! -s "$D/vmlinux" ] || [ "$D/vmlinux" -ot "$D/vmlinuz" ]; then
  rm -f "$D/vmlinux"
  for try in "$(printf '\3757zXZ')|xz -dc --single-stream" "$(printf '\37\213\10')|gzip -dc"; do
    magic=${try%%|*}
    off=$(grep -abo "$magic" "$D/vmlinuz" | head -n 1 | cut -d: -f1)
    [ -n "$off" ] || continue
    tail -c +$((off + 1)) "$D/vmlinuz" | ${try#*|} > "$D/vmlinux.tmp" 2>/dev/null
    if [ "$(head -c 4 "$D/vmlinux.tmp" | od -An -c | tr -d ' ')" = '177ELF' ]; then
      mv "$D/vmlinux.tmp" "$D/vmlinux"
      break
    fi
  done
  rm -f "$D/vmlinux.tmp"
fi
echo "$krel" > "$D/kernel.release"

# the disk: the tree and 1 GiB to spare, journal and all (a root that
# both inits mount read-write); mke2fs -d keeps security.capability
mb=$(( $(du -sm "$R" | cut -f1) + 1024 ))
rm -f "$disk.new"
mke2fs -q -t ext4 -L debian -E root_owner=0:0 -d "$R" "$disk.new" "${mb}M" >/dev/null ||
  die "mke2fs failed"

mv "$disk.new" "$disk"
say "$disk (${mb} MB, $(du -sm "$disk" | cut -f1) MB used), vmlinuz, initrd.img: kernel $krel"

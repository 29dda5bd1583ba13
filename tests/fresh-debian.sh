#!/bin/sh
# tests/fresh-debian.sh [ROOTDIR] [TARGET...] -- run the README's commands
# as a newcomer would: in a minimal Debian 12 root made by mmdebstrap, on a
# fresh clone of this repository's HEAD, as root, with that root as /.  What an
# install step forgot shows here, not on a developer's machine.
# Default targets: check.  Not part of `make check` (it takes minutes).
set -eu
top=$(git rev-parse --show-toplevel)
root=${1:-$(mktemp -d)/root}
[ $# -gt 0 ] && shift
targets=${*:-check}

if ! command -v mmdebstrap >/dev/null; then
  DEBIAN_FRONTEND=noninteractive apt-get install -y -q mmdebstrap
fi
mkdir -p "$(dirname "$root")"
if [ ! -x "$root/usr/bin/make" ]; then
  echo "fresh-debian: making a minimal Debian 12 root in $root"
  mmdebstrap --variant=apt --include=ca-certificates,git,make bookworm "$root" \
    /etc/apt/sources.list.d/debian.sources
fi
rm -rf "$root/src"
git clone -q "$top" "$root/src"
echo "fresh-debian: make $targets in that root, on a fresh clone of $(git -C "$top" rev-parse --short HEAD)"
# pivot_root, not chroot: the kernel refuses a user namespace to a
# chrooted process (EPERM), and nsenter -m into a service's mount
# namespace sets the root a chroot left elsewhere; after pivot_root the
# root is the mount namespace's own, as on a machine booted from it.
# The host's tree, left at /.host, is unmounted with the host's umount.
unshare --mount sh -eu -c '
  root=$1; shift
  mount --bind "$root" "$root"
  mount -t proc proc "$root/proc"
  mount --rbind /sys "$root/sys"
  mount --rbind /dev "$root/dev"
  mount -t tmpfs tmpfs "$root/tmp"
  mount -t tmpfs tmpfs "$root/run"
  mkdir -p "$root/.host"
  cd "$root"
  pivot_root . .host
  /.host/usr/bin/umount -l /.host
  exec /usr/bin/env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin HOME=/root \
    CI=true sh -c "cd /src && make $*" </dev/null
' sh "$root" "$targets"

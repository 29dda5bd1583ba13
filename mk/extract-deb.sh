#!/bin/sh
# mk/extract-deb.sh BUILDDIR PACKAGE -- download a Debian package and
# unpack it under BUILDDIR/debs/PACKAGE, without installing it: the tests
# and images use Debian's binaries (busybox-static, later the kernel)
# without changing the machine.  Needs no root.
set -eu
build=$(cd "$1" && pwd)
pkg=$2
dir=$build/debs
mkdir -p "$dir/.download"
rm -rf "$dir/$pkg"
(cd "$dir/.download" && rm -f "${pkg}"_*.deb && apt-get download -q "$pkg" >/dev/null 2>"$dir/.download/$pkg.log") || {
  # an empty or stale package list: refresh it (needs root) and retry
  if [ "$(id -u)" = 0 ]; then
    apt-get update -q >/dev/null
    (cd "$dir/.download" && apt-get download -q "$pkg" >/dev/null 2>"$dir/.download/$pkg.log")
  else
    cat "$dir/.download/$pkg.log" >&2
    echo "mk/extract-deb.sh: fatal: unable to download $pkg (as root: apt-get update)" >&2
    exit 111
  fi
}
dpkg-deb -x "$dir/.download/${pkg}"_*.deb "$dir/$pkg"
echo "capinit: unpacked $(basename "$dir/.download/${pkg}"_*.deb) into $dir/$pkg"

#!/bin/sh
# mk/extract-deb.sh BUILDDIR PACKAGE[:ARCH] -- download a Debian package and
# unpack it under BUILDDIR/debs/PACKAGE, without installing it: the tests
# and images use Debian's binaries (busybox-static, the kernel) without
# changing the machine.  PACKAGE:ARCH is the package of another
# architecture (dpkg must have ARCH enabled: mk/deps.sh does it).  Needs
# no root.
set -eu
build=$(cd "$1" && pwd)
pkg=${2%%:*}
dir=$build/debs
mkdir -p "$dir/.download"
rm -rf "$dir/$pkg"
(cd "$dir/.download" && rm -f "${pkg}"_*.deb && apt-get download -q "$2" >/dev/null 2>"$dir/.download/$pkg.log") || {
  # an empty or stale package list: refresh it (needs root) and retry
  if [ "$(id -u)" = 0 ]; then
    sh "$(dirname "$0")/apt-update.sh" -q
    (cd "$dir/.download" && apt-get download -q "$2" >/dev/null 2>"$dir/.download/$pkg.log")
  else
    cat "$dir/.download/$pkg.log" >&2
    echo "mk/extract-deb.sh: fatal: unable to download $2 (as root: apt-get update)" >&2
    exit 111
  fi
}
dpkg-deb -x "$dir/.download/${pkg}"_*.deb "$dir/$pkg"
echo "capinit: unpacked $(basename "$dir/.download/${pkg}"_*.deb) into $dir/$pkg"

#!/bin/sh
# tests/qemu/kernel.sh BUILDDIR -- make sure Debian's stock kernel is
# unpacked under BUILDDIR/debs (never installed on the host), and write
# the name of its package to BUILDDIR/debs/linux-image.name.
#
# The package is the one Debian's metapackage linux-image-amd64 depends on
# ("Depends: linux-image-6.1.0-NN-amd64"), unpacked with mk/extract-deb.sh.
set -eu
B=$1
mkdir -p "$B/debs"

resolve() {
  apt-cache depends linux-image-amd64 2>/dev/null |
    sed -n 's/^ *Depends: *\(linux-image-[^ ]*-amd64\)$/\1/p' | head -n 1
}

pkg=$(resolve)
if [ -z "$pkg" ] && [ "$(id -u)" = 0 ]; then
  # an empty package list (a fresh machine): refresh it once
  apt-get update -q >/dev/null
  pkg=$(resolve)
fi
if [ -z "$pkg" ]; then
  echo "tests/qemu/kernel.sh: fatal: apt-cache depends linux-image-amd64 names no kernel package (as root: apt-get update)" >&2
  exit 111
fi

if ! ls "$B/debs/$pkg"/boot/vmlinuz-* >/dev/null 2>&1; then
  sh mk/extract-deb.sh "$B" "$pkg"
fi
ls "$B/debs/$pkg"/boot/vmlinuz-* >/dev/null 2>&1 || {
  echo "tests/qemu/kernel.sh: fatal: $B/debs/$pkg has no boot/vmlinuz-*" >&2
  exit 111
}
echo "$pkg" > "$B/debs/linux-image.name"

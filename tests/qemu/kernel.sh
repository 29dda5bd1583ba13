#!/bin/sh
# tests/qemu/kernel.sh BUILDDIR -- make sure Debian's stock kernel is
# unpacked under BUILDDIR/debs (never installed on the host), and write
# the name of its package to BUILDDIR/debs/linux-image.name.
#
# The package is the one Debian's metapackage for the build's architecture
# (BUILDDIR/arch, else this machine's) depends on: linux-image-amd64
# ("Depends: linux-image-6.1.0-NN-amd64"), linux-image-arm64, or
# linux-image-armmp for armhf (the multiplatform kernel QEMU's virt machine
# boots); unpacked with mk/extract-deb.sh.
set -eu
B=$1
mkdir -p "$B/debs"
host=$(dpkg --print-architecture)
arch=$(cat "$B/arch" 2>/dev/null || echo "$host")
case $arch in
  armhf) flavour=armmp ;;
  *) flavour=$arch ;;
esac
qual=
[ "$arch" = "$host" ] || qual=:$arch

resolve() {
  apt-cache depends "linux-image-$flavour$qual" 2>/dev/null |
    sed -n "s/^ *Depends: *\(linux-image-[^ :]*-$flavour\)\(:$arch\)*\$/\1/p" | head -n 1
}

pkg=$(resolve)
if [ -z "$pkg" ] && [ "$(id -u)" = 0 ]; then
  # an empty package list (a fresh machine): refresh it once
  apt-get update -q >/dev/null
  pkg=$(resolve)
fi
if [ -z "$pkg" ]; then
  echo "tests/qemu/kernel.sh: fatal: apt-cache depends linux-image-$flavour$qual names no kernel package (as root: apt-get update)" >&2
  exit 111
fi

if ! ls "$B/debs/$pkg"/boot/vmlinuz-* >/dev/null 2>&1; then
  sh mk/extract-deb.sh "$B" "$pkg$qual"
fi
ls "$B/debs/$pkg"/boot/vmlinuz-* >/dev/null 2>&1 || {
  echo "tests/qemu/kernel.sh: fatal: $B/debs/$pkg has no boot/vmlinuz-*" >&2
  exit 111
}

# The same kernel uncompressed, for QEMU's PVH entry: under TCG the
# bzImage's own decompressor takes 5 to 10 s of every boot (more on a busy
# machine), PVH none.  vmlinuz holds it as one xz stream (CONFIG_KERNEL_XZ;
# gzip for other builds); the result must be an ELF file.  (x86 only: the
# arm64 vmlinuz is an uncompressed Image already; QEMU's virt machine boots
# armhf's zImage, which decompresses itself.)
boot=$B/debs/$pkg/boot
vmlinuz=$(echo "$boot"/vmlinuz-*)
vmlinux=$boot/vmlinux-${vmlinuz##*/vmlinuz-}
if [ "$arch" = amd64 ] && [ ! -s "$vmlinux" ]; then
  for try in "$(printf '\3757zXZ')|xz -dc --single-stream" "$(printf '\37\213\10')|gzip -dc"; do
    magic=${try%%|*}
    off=$(LC_ALL=C grep -abo "$magic" "$vmlinuz" | head -n 1 | cut -d: -f1)
    [ -n "$off" ] || continue
    tail -c +$((off + 1)) "$vmlinuz" | ${try#*|} > "$vmlinux.tmp" 2>/dev/null
    if [ "$(head -c 4 "$vmlinux.tmp" | od -An -c | tr -d ' ')" = '177ELF' ]; then
      mv "$vmlinux.tmp" "$vmlinux"
      break
    fi
  done
  rm -f "$vmlinux.tmp"
  [ -s "$vmlinux" ] || echo "tests/qemu/kernel.sh: warning: no vmlinux found in $vmlinuz: QEMU boots the bzImage (slower)" >&2
fi
echo "$pkg" > "$B/debs/linux-image.name"

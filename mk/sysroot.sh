#!/bin/sh
# mk/sysroot.sh BUILDDIR [CC CROSS_COMPILE KERNEL_INCLUDE] -- build libcap
# and skalibs for musl into BUILDDIR/sysroot, from Debian's own source
# packages (with Debian's patches applied by dpkg-source).  Debian's
# libcap.a and libskarnet.a are glibc builds and do not link with musl-gcc.
#
# Natively CC is musl-gcc.  A cross build (make ARCH=...) gives its CC (the
# cross compiler with musl's specs), CROSS_COMPILE (the prefix of its
# binutils, aarch64-linux-gnu-) and KERNEL_INCLUDE, the target's kernel
# headers (linux/, asm/, asm-generic/; musl has none of its own).
#
# apt-get runs with a private state directory under BUILDDIR/apt, whose
# deb-src entries are derived from the machine's deb entries: the system's
# apt configuration is read, never changed, and no root is needed here.
set -eu

build=$(cd "$1" && pwd)
cc=${2:-musl-gcc}
cross=${3:-}
kinclude=${4:-/usr/include}
sysroot=$build/sysroot
apt=$build/apt
src=$build/src
jobs=$(nproc 2>/dev/null || echo 2)

die() { echo "mk/sysroot.sh: fatal: $*" >&2; exit 111; }

rm -rf "$sysroot" "$src"
mkdir -p "$apt/lists/partial" "$apt/cache/archives/partial" "$apt/sources" \
         "$sysroot/include" "$sysroot/lib" "$src"

# deb-src entries: every deb entry of the machine, typed deb-src.
rm -f "$apt/sources/"*
n=0
for f in /etc/apt/sources.list.d/*.sources; do
  [ -f "$f" ] || continue
  n=$((n + 1))
  sed -e 's/^Types:.*/Types: deb-src/' "$f" > "$apt/sources/$n.sources"
done
if [ -f /etc/apt/sources.list ]; then
  sed -n -e 's/^[[:space:]]*deb[[:space:]]/deb-src /p' /etc/apt/sources.list \
    > "$apt/sources/0.list"
fi
for f in /etc/apt/sources.list.d/*.list; do
  [ -f "$f" ] || continue
  n=$((n + 1))
  sed -n -e 's/^[[:space:]]*deb[[:space:]]/deb-src /p' "$f" > "$apt/sources/$n.list"
done

aptopt="-q -o Dir::Etc::SourceParts=$apt/sources -o Dir::Etc::SourceList=/dev/null
  -o Dir::State::Lists=$apt/lists -o Dir::Cache=$apt/cache
  -o APT::Sandbox::User=root"
# shellcheck disable=SC2086
sh "$(dirname "$0")/apt-update.sh" $aptopt || die "unable to read Debian's source package lists"

# Fetch PKG's source, newest version first: a version listed by one archive
# can be missing from its pool (seen with bookworm-security), so try each.
fetch() {
  pkg=$1
  # shellcheck disable=SC2086
  versions=$(apt-cache $aptopt showsrc "$pkg" | sed -n 's/^Version: //p' |
             sort -rVu)
  [ -n "$versions" ] || die "no source package $pkg in the configured archives"
  for v in $versions; do
    # shellcheck disable=SC2086
    if (cd "$src" && apt-get $aptopt source "$pkg=$v" >"$apt/source-$pkg.log" 2>&1); then
      echo "capinit: built from Debian source $pkg $v"
      # what the Debian package names in Built-Using (mk/deb.sh)
      echo "$pkg $v" >> "$sysroot/built-from"
      return 0
    fi
  done
  cat "$apt/source-$pkg.log" >&2
  die "unable to fetch the source package $pkg"
}

fetch libcap2
fetch skalibs

# musl has no kernel headers: the target's, asm/ from the multiarch
# directory where it is not beside linux/ (natively on Debian)
asm=$kinclude/asm
[ -d "$asm" ] || asm=$kinclude/$(gcc -dumpmachine)/asm
for d in "$kinclude/linux" "$kinclude/asm-generic" "$asm"; do
  [ -d "$d" ] || die "no kernel headers in $d"
done
cp -r "$kinclude/linux" "$kinclude/asm-generic" "$sysroot/include/"
cp -r "$asm" "$sysroot/include/asm"

CC="$cc -I$sysroot/include"
# skalibs: a cross build names its target (it cannot run its tests there)
target=
[ -z "$cross" ] || target=--target=${cross%-}

libcap=$(find "$src" -maxdepth 1 -type d -name 'libcap2-*' | head -n 1)
# libcap for size, as capinit's own code: -Os, a section per function (the
# link keeps only what is called), no unwind tables (nothing unwinds a C
# program here; on arm64 they were 14 KB of capinit)
make -C "$libcap/libcap" -j"$jobs" CC="$CC" BUILD_CC=gcc CROSS_COMPILE="$cross" SHARED=no \
  COPTS="-Os -ffunction-sections -fdata-sections -fno-asynchronous-unwind-tables -fno-unwind-tables" \
  prefix="$sysroot" lib=lib install-static >"$build/libcap.log" 2>&1 || {
  tail -n 30 "$build/libcap.log" >&2; die "libcap build failed (see $build/libcap.log)"; }

skalibs=$(find "$src" -maxdepth 1 -type d -name 'skalibs-*' | head -n 1)
(cd "$skalibs" &&
  CC="$CC" ./configure $target --prefix="$sysroot" --disable-shared --enable-static \
    --libdir="$sysroot/lib" --includedir="$sysroot/include" \
    --with-sysdep-devurandom=yes &&
  make -j"$jobs" && make install) >"$build/skalibs.log" 2>&1 || {
  tail -n 30 "$build/skalibs.log" >&2; die "skalibs build failed (see $build/skalibs.log)"; }

for f in "$sysroot/lib/libcap.a" "$sysroot/lib/libskarnet.a" \
         "$sysroot/include/sys/capability.h" "$sysroot/include/skalibs/skalibs.h"; do
  [ -f "$f" ] || die "the sysroot lacks $f"
done
touch "$sysroot/.done"

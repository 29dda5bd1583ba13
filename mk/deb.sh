#!/bin/sh
# mk/deb.sh BUILDDIR ARCH VERSION OUTDIR -- the Debian package (make deb):
# OUTDIR/capinit_VERSION_ARCH.deb from the static programs in BUILDDIR/bin
# (capinit, capctl, capexec in /usr/sbin; capctl-import and capctl-learn in
# /usr/lib/capinit),
# the man pages in BUILDDIR/man and the files in debian/.
#
# dpkg-deb --build of a staged tree, not dpkg-buildpackage: the programs
# are built by make (musl, a cross compiler for arm64 and armhf, libcap and
# skalibs in BUILDDIR/sysroot), which a debian/rules would only call again;
# the package's metadata still comes from Debian's tools: dpkg-gencontrol
# reads debian/control and debian/changelog (the version, checked against
# the Makefile's), dpkg-deb writes the archive, files owned by root
# (--root-owner-group: no fakeroot, no root), their times clamped to the
# changelog's date (SOURCE_DATE_EPOCH), so that the same tree gives the
# same package.  DEB_VERSION=V packs the same files as version V (the
# upgrade test's newer package).
set -eu
LC_ALL=C
export LC_ALL
die() { echo "mk/deb.sh: fatal: $*" >&2; exit 111; }
[ $# = 4 ] || { echo "usage: mk/deb.sh BUILDDIR ARCH VERSION OUTDIR" >&2; exit 100; }
B=$1 arch=$2 make_version=$3 out=$4
mkdir -p "$out"
B=$(cd "$B" && pwd) out=$(cd "$out" && pwd)
top=$(cd "$(dirname "$0")/.." && pwd)
cd "$top"
for t in dpkg-deb dpkg-gencontrol dpkg-parsechangelog gzip; do
  command -v $t >/dev/null || die "$t is missing (make deb installs it: mk/deps.sh deb)"
done
for p in capinit capctl capexec capctl-import capctl-learn; do
  [ -x "$B/bin/$p" ] || die "$B/bin/$p is missing (make deb builds it)"
done

version=$(dpkg-parsechangelog -l debian/changelog -S Version)
[ "$version" = "$make_version" ] ||
  die "debian/changelog says $version, the Makefile $make_version: add a changelog entry (dch -v $make_version)"
SOURCE_DATE_EPOCH=$(dpkg-parsechangelog -l debian/changelog -S Timestamp)
export SOURCE_DATE_EPOCH
version=${DEB_VERSION:-$version}

# What the programs hold of Debian's source packages, built in statically:
# libcap and skalibs as mk/sysroot.sh built them, and musl.  A sysroot of
# one's own (SYSROOT=) records nothing: then there is no Built-Using.
built_using=
if [ -f "$B/sysroot/built-from" ]; then
  musl=$(dpkg-query -W -f '${source:Version}' "musl-dev:$arch" 2>/dev/null) ||
    die "musl-dev:$arch is not installed: which musl built $B/bin?"
  built_using=$(awk '{ printf "%s (= %s), ", $1, $2 }' "$B/sysroot/built-from")"musl (= $musl)"
fi

S=$out/stage-$arch
rm -rf "$S"
mkdir -p "$S/DEBIAN" "$S/usr/sbin" "$S/usr/lib/capinit" "$S/usr/share/man/man5" \
  "$S/usr/share/man/man8" "$S/usr/share/doc/capinit" "$S/usr/share/lintian/overrides" \
  "$S/etc/capinit/services" "$S/etc/grub.d"
install -m 0755 "$B/bin/capinit" "$B/bin/capctl" "$B/bin/capexec" "$S/usr/sbin/"
# capctl import's and learn's programs, which only capctl runs: a helper, where Debian
# keeps a command's helpers (/usr/lib/git-core, /usr/lib/openssh)
install -m 0755 "$B/bin/capctl-import" "$B/bin/capctl-learn" "$S/usr/lib/capinit/"
for m in "$B"/man/*.[58]; do
  s=${m##*.}
  gzip -9nc "$m" > "$S/usr/share/man/man$s/${m##*/}.gz"
done
install -m 0644 debian/capinit.conf "$S/etc/capinit/capinit.conf"
install -m 0755 debian/15_capinit "$S/etc/grub.d/15_capinit"
install -m 0755 debian/policy-rc.d "$S/usr/lib/capinit/policy-rc.d"
install -m 0644 README.md debian/copyright "$S/usr/share/doc/capinit/"
gzip -9nc debian/changelog > "$S/usr/share/doc/capinit/changelog.gz"
install -m 0644 debian/lintian-overrides "$S/usr/share/lintian/overrides/capinit"
install -m 0755 debian/postinst debian/prerm debian/postrm "$S/DEBIAN/"
# every file in /etc is a conffile (Debian policy 10.7.2)
(cd "$S" && find etc -type f | sort | sed 's|^|/|') > "$S/DEBIAN/conffiles"
(cd "$S" && find usr -type f | sort | xargs md5sum) > "$S/DEBIAN/md5sums"
chmod 0644 "$S/DEBIAN/conffiles" "$S/DEBIAN/md5sums"
find "$S" -type d -exec chmod 0755 {} +
# the same times for every file: the changelog's date
find "$S" -exec touch -h -d "@$SOURCE_DATE_EPOCH" {} +

DEB_HOST_ARCH=$arch dpkg-gencontrol -cdebian/control -ldebian/changelog \
  -f"$out/files" -P"$S" -v"$version" -V"capinit:Built-Using=$built_using"
rm -f "$out/files"
deb=$out/capinit_${version}_$arch.deb
dpkg-deb --root-owner-group -Zxz --build "$S" "$deb" >/dev/null
rm -rf "$S"
echo "$deb"

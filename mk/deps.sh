#!/bin/sh
# mk/deps.sh GROUP... -- make sure the Debian packages a build step needs are
# installed.  As root it installs what is missing (non-interactive apt-get);
# otherwise it prints the exact apt-get line to run and fails.
# Groups: build (compile the binaries and man pages), check (run the tests;
# procps for their ps and kill, which a minimal root made by mmdebstrap
# --variant=apt lacks: tests/fresh-debian.sh),
# fuzz (libFuzzer targets, also run briefly by the tests), san (make
# check-asan: clang and the glibc libcap and skalibs), bench (the peers
# and tools of make bench: s6, runit, execline, gnuplot; iproute2 and
# hostname for its reference container chain), image (make
# image, demo, boot: QEMU, the cpio, ext4 and squashfs tools, setcap),
# deb (make deb: dpkg-deb, dpkg-gencontrol), debian (make debian,
# boot-debian, check-debian: the package, lintian that checks it,
# mmdebstrap, QEMU, ext4, the ssh client the tests log in with, python3 for
# their probes), oci (make oci, check-oci: the image layout's tools
# (tar, gzip, sha256sum, jq for its JSON), the two OCI runtimes runc and
# crun, umoci that unpacks the image into a bundle, skopeo that reads it
# as another tool would, capsh that decodes the capability masks),
# peers (make check-peers: dpkg-dev, which apt-get source unpacks with,
# gcc for tini's sigconf-test, unshare, and what dumb-init's and tini's
# own test suites import or run: pytest and its timeout plugin, py,
# psutil, pexpect, prctl, and `python` for their #!/usr/bin/env python).
# For another architecture (make ARCH=arm64 or armhf): cross-ARCH (Debian's
# cross compiler, musl and kernel headers for ARCH), user-ARCH (qemu-user,
# which runs ARCH's programs here: the image builder, the tests), image-ARCH
# (qemu-system for ARCH).  A PACKAGE:ARCH needs ARCH enabled in dpkg
# (dpkg --add-architecture, then apt-get update): done here, as root.
# pkg:NAME asks for the one package NAME (NAME:ARCH too): for the tests
# (tests/debian/test_deps_lock.sh) and for one-off use.
#
# Another apt-get or dpkg often holds dpkg's lock on a fresh machine (an
# unattended upgrade, an install beside the build): apt-get install then
# waits for it up to DEPS_LOCK_TIMEOUT (600) seconds (DPkg::Lock::Timeout)
# instead of failing at once, and this says once that it waits and for
# whom (mk/lock-holder.sh).  Still held after that, it fails and names the
# holder.  apt-get update waits the same for the package lists' lock
# (mk/apt-update.sh).  dpkg --add-architecture takes no lock (dpkg 1.21).
set -eu

pkgs_build="gcc make libc6-dev linux-libc-dev musl-tools dpkg-dev xz-utils scdoc file"
pkgs_check="libcap2-bin util-linux mount procps man-db python3 cpio qemu-system-x86 iproute2 strace"
pkgs_fuzz="clang-14 libclang-rt-14-dev libcap-dev skalibs-dev"
pkgs_san="clang-14 libclang-rt-14-dev libcap-dev skalibs-dev"
pkgs_bench="s6 runit execline util-linux iproute2 hostname gnuplot-nox"
pkgs_image="qemu-system-x86 cpio gzip libcap2-bin e2fsprogs squashfs-tools binutils util-linux mount"
pkgs_deb="dpkg-dev gzip"
pkgs_debian="lintian mmdebstrap qemu-system-x86 e2fsprogs openssh-client python3 xz-utils util-linux"
pkgs_oci="tar gzip coreutils jq runc crun umoci skopeo libcap2-bin procps"
pkgs_peers="dpkg-dev gcc libc6-dev util-linux procps python3 python-is-python3 python3-pytest python3-pytest-timeout python3-py python3-psutil python3-pexpect python3-prctl"

# Debian's GNU triplet of each architecture a cross build knows
triplet() {
  case $1 in
    arm64) echo aarch64-linux-gnu ;;
    armhf) echo arm-linux-gnueabihf ;;
    *) echo "mk/deps.sh: fatal: no cross build for architecture $1 (arm64, armhf)" >&2; exit 100 ;;
  esac
}

want=
for group in "$@"; do
  case $group in
    build) want="$want $pkgs_build" ;;
    check) want="$want $pkgs_check" ;;
    fuzz) want="$want $pkgs_fuzz" ;;
    san) want="$want $pkgs_san" ;;
    bench) want="$want $pkgs_bench" ;;
    image) want="$want $pkgs_image" ;;
    cross-*)
      a=${group#cross-}
      t=$(triplet "$a")
      want="$want gcc-$t binutils-$t linux-libc-dev-$a-cross musl-dev:$a dpkg-dev xz-utils make file" ;;
    user-*) triplet "${group#user-}" >/dev/null; want="$want qemu-user-static" ;;
    image-*) triplet "${group#image-}" >/dev/null; want="$want $pkgs_image qemu-system-arm qemu-user-static" ;;
    deb) want="$want $pkgs_deb" ;;
    debian) want="$want $pkgs_deb $pkgs_debian" ;;
    oci) want="$want $pkgs_oci" ;;
    peers) want="$want $pkgs_peers" ;;
    pkg:*)
      p=${group#pkg:}
      # a name, not an option or several words for apt-get
      case $p in
        [a-z0-9]*) case $p in *[!a-z0-9.+:-]*) p= ;; esac ;;
        *) p= ;;
      esac
      [ -n "$p" ] || { echo "mk/deps.sh: fatal: not a package name: $group" >&2; exit 100; }
      want="$want $p" ;;
    *) echo "mk/deps.sh: fatal: unknown package group: $group" >&2; exit 100 ;;
  esac
done

missing=
for p in $want; do
  status=$(dpkg-query -W -f='${Status}' "$p" 2>/dev/null || true)
  case $status in
    *" installed") ;;
    *) missing="$missing $p" ;;
  esac
done
[ -z "$missing" ] && exit 0

# a PACKAGE:ARCH of an architecture dpkg does not have enabled yet
foreign=
for p in $missing; do
  case $p in *:*) a=${p#*:} ;; *) continue ;; esac
  [ "$a" != "$(dpkg --print-architecture)" ] || continue
  dpkg --print-foreign-architectures | grep -qx "$a" && continue
  case " $foreign " in *" $a "*) ;; *) foreign="$foreign $a" ;; esac
done

if [ "$(id -u)" != 0 ]; then
  echo "capinit: fatal: missing Debian packages; run as root:" >&2
  for a in $foreign; do echo "  dpkg --add-architecture $a" >&2; done
  [ -z "$foreign" ] || echo "  apt-get update" >&2
  echo "  apt-get install -y$missing" >&2
  exit 1
fi

here=$(dirname "$0")
timeout=${DEPS_LOCK_TIMEOUT:-600}
case $timeout in
  "" | *[!0-9]*) echo "mk/deps.sh: fatal: DEPS_LOCK_TIMEOUT is not a number of seconds: $timeout" >&2; exit 100 ;;
esac
export DEPS_LOCK_TIMEOUT="$timeout"  # apt-update.sh waits as long
dpkg_locks="/var/lib/dpkg/lock-frontend /var/lib/dpkg/lock"
log=$(mktemp) || exit 111
trap 'rm -f "$log"' EXIT
said=

# apt-get install of the missing packages, its output in $log.  It waits
# for dpkg's lock; a wait that ran out is fatal here, as a refresh of the
# lists and another try would only wait as long again.  apt-get says
# C's messages: their words tell the lock's failure from the others.
# shellcheck disable=SC2086 # $dpkg_locks and $missing: words
install_missing() {
  if [ -z "$said" ] && holder=$(sh "$here/lock-holder.sh" $dpkg_locks); then
    echo "capinit: waiting up to $timeout s for the dpkg lock, held by PID $holder" >&2
    said=1
  fi
  LC_ALL=C apt-get install -y -q --no-install-recommends -o DPkg::Lock::Timeout="$timeout" \
    $missing >"$log" 2>&1 && return 0
  status=$?
  if grep -q -e '^E: Could not get lock /var/lib/dpkg/' -e '^E: Unable to acquire the dpkg frontend lock' \
       -e '^E: Unable to lock the administration directory' "$log"; then
    holder=$(sh "$here/lock-holder.sh" $dpkg_locks) && holder="PID $holder" || holder="a process gone since"
    echo "capinit: fatal: waited $timeout s for the dpkg lock, held by $holder: let it finish, or run again with a longer DEPS_LOCK_TIMEOUT" >&2
    exit 111
  fi
  return "$status"
}

echo "capinit: installing Debian packages:$missing"
export DEBIAN_FRONTEND=noninteractive
if [ -n "$foreign" ]; then
  for a in $foreign; do
    echo "capinit: enabling the architecture $a in dpkg (dpkg --add-architecture $a)"
    dpkg --add-architecture "$a"
  done
  sh "$here/apt-update.sh" -q
fi
# An empty or stale package list makes install fail; refresh once and retry.
install_missing || {
  sh "$here/apt-update.sh" -q
  install_missing || { status=$?; cat "$log" >&2; exit "$status"; }
}

#!/bin/sh
# mk/deps.sh GROUP... -- make sure the Debian packages a build step needs are
# installed.  As root it installs what is missing (non-interactive apt-get);
# otherwise it prints the exact apt-get line to run and fails.
# Groups: build (compile the binaries and man pages), check (run the tests),
# fuzz (libFuzzer targets, also run briefly by the tests), san (make
# check-asan: clang and the glibc libcap and skalibs), bench (the peers
# and tools of make bench: s6, runit, execline, gnuplot), image (make
# image, demo, boot: QEMU, the cpio, ext4 and squashfs tools, setcap),
# debian (make debian, boot-debian, check-debian: mmdebstrap, QEMU, ext4,
# the ssh client the tests log in with, python3 for their probes).
set -eu

pkgs_build="gcc make libc6-dev linux-libc-dev musl-tools dpkg-dev xz-utils scdoc file"
pkgs_check="libcap2-bin util-linux mount man-db python3 cpio qemu-system-x86 iproute2"
pkgs_fuzz="clang-14 libclang-rt-14-dev libcap-dev"
pkgs_san="clang-14 libclang-rt-14-dev libcap-dev skalibs-dev"
pkgs_bench="s6 runit execline util-linux gnuplot-nox"
pkgs_image="qemu-system-x86 cpio gzip libcap2-bin e2fsprogs squashfs-tools binutils util-linux mount"
pkgs_debian="mmdebstrap qemu-system-x86 e2fsprogs openssh-client python3 xz-utils util-linux"

want=
for group in "$@"; do
  case $group in
    build) want="$want $pkgs_build" ;;
    check) want="$want $pkgs_check" ;;
    fuzz) want="$want $pkgs_fuzz" ;;
    san) want="$want $pkgs_san" ;;
    bench) want="$want $pkgs_bench" ;;
    image) want="$want $pkgs_image" ;;
    debian) want="$want $pkgs_debian" ;;
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

if [ "$(id -u)" != 0 ]; then
  echo "capinit: fatal: missing Debian packages; run as root:" >&2
  echo "  apt-get install -y$missing" >&2
  exit 1
fi

echo "capinit: installing Debian packages:$missing"
export DEBIAN_FRONTEND=noninteractive
# An empty or stale package list makes install fail; refresh once and retry.
apt-get install -y -q --no-install-recommends $missing >/dev/null 2>&1 || {
  apt-get update -q >/dev/null
  apt-get install -y -q --no-install-recommends $missing
}

#!/bin/sh
# tests/cross-user/test_qemu_user_armhf.sh BUILDDIR -- the armhf build (BUILDDIR/armhf from
# make check-cross; BUILDDIR itself from make ARCH=armhf check): tests/cross/qemu_user.sh.
B=${1:-build}
[ "$(cat "$B/arch" 2>/dev/null)" = armhf ] || B=$B/armhf
exec sh tests/cross/qemu_user.sh "$B"

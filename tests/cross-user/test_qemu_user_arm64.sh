#!/bin/sh
# tests/cross-user/test_qemu_user_arm64.sh BUILDDIR -- the arm64 build (BUILDDIR/arm64 from
# make check-cross; BUILDDIR itself from make ARCH=arm64 check): tests/cross/qemu_user.sh.
B=${1:-build}
[ "$(cat "$B/arch" 2>/dev/null)" = arm64 ] || B=$B/arm64
exec sh tests/cross/qemu_user.sh "$B"

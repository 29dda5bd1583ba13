#!/bin/sh
# tests/cross/test_appliance_arm64.sh BUILDDIR -- the arm64 build (BUILDDIR/arm64 from
# make check; BUILDDIR itself from make ARCH=arm64 check): tests/cross/appliance.sh.
B=${1:-build}
[ "$(cat "$B/arch" 2>/dev/null)" = arm64 ] || B=$B/arm64
exec sh tests/cross/appliance.sh "$B"

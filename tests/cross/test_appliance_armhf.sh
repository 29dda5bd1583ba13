#!/bin/sh
# tests/cross/test_appliance_armhf.sh BUILDDIR -- the armhf build (BUILDDIR/armhf from
# make check; BUILDDIR itself from make ARCH=armhf check): tests/cross/appliance.sh.
B=${1:-build}
[ "$(cat "$B/arch" 2>/dev/null)" = armhf ] || B=$B/armhf
exec sh tests/cross/appliance.sh "$B"

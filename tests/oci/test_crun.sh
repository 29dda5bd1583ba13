#!/bin/sh
# tests/oci/test_crun.sh BUILDDIR -- capinit's image (make oci) under crun:
# the cases of tests/oci/cases.sh.
B=${1:-build}
RT=crun
. tests/oci/cases.sh

#!/bin/sh
# tests/oci/test_runc.sh BUILDDIR -- capinit's image (make oci) under runc:
# the cases of tests/oci/cases.sh.
B=${1:-build}
RT=runc
. tests/oci/cases.sh

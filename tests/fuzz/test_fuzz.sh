#!/bin/sh
# Part of `make check`: every fuzz target for a short time (FUZZ_CHECK_SECONDS,
# default 20 s each); `make fuzz` runs them longer.
B=${1:-build}
exec sh tests/fuzz/run.sh "$B" "${FUZZ_CHECK_SECONDS:-20}"

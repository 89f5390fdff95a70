#!/bin/sh
# tests/mpi/run_mpi.sh PROG NP...: runs an MPI test program through gcrun
# at each process count given; every run must exit 0. Programs check their
# own results and print "FAIL: ..." lines (with the rank) when they do not.
set -u
. "${top_srcdir:-.}/tests/lib.sh"
prog=$1
shift
# GCRUN_PREFIX (a command gcrun runs under, e.g. taskset) and GCRUN_ARGS
# (more gcrun options) are words, split on purpose.
for np in "$@"; do
    # shellcheck disable=SC2086
    run "$(basename "$prog") with $np processes" \
        ${GCRUN_PREFIX:-} "$gcrun" ${GCRUN_ARGS:-} -n "$np" --tag-output "$prog"
done
finish

#!/bin/sh
# tests/mpi/run_mpi.sh PROG NP...: runs an MPI test program through gcrun
# at each process count given; every run must exit 0. Programs check their
# own results and print "FAIL: ..." lines (with the rank) when they do not.
set -u
. "${top_srcdir:-.}/tests/lib.sh"
prog=$1
shift
for np in "$@"; do
    run "$(basename "$prog") with $np processes" \
        "$gcrun" -n "$np" --tag-output "$prog"
done
finish

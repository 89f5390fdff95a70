#!/bin/sh
# tests/mpi/run_mpi.sh PROG NP...: runs an MPI test program through gcrun
# at each process count given; every run must exit 0. Programs check their
# own results and print "FAIL: ..." lines (with the rank) when they do not.
# GCRUN_PREFIX (a command gcrun runs under, e.g. taskset) and GCRUN_ARGS
# (more gcrun options) are optional.
set -u
prog=$1
shift
gcrun="${top_builddir:-.}/tools/gcrun"
status=0
for np in "$@"; do
    # shellcheck disable=SC2086 # GCRUN_PREFIX and GCRUN_ARGS are words
    out=$(timeout 120 ${GCRUN_PREFIX:-} "$gcrun" ${GCRUN_ARGS:-} -n "$np" \
          --tag-output "$prog" 2>&1)
    rc=$?
    if [ $rc -ne 0 ]; then
        echo "FAIL: $(basename "$prog") with $np processes (exit $rc)"
        echo "$out" | tail -30
        status=1
    else
        echo "ok: $(basename "$prog") with $np processes"
    fi
done
exit $status

#!/bin/sh
# tests/mpi/test_coll_all.sh: tests/mpi/coll_all (every collective, every
# count, root and layout, checked against locally computed results) at
# every process count from 1 to 9, oversubscribed on small machines on
# purpose, then on unbalanced and interleaved emulated hosts (where the
# program adds the host communicator of MPI_COMM_TYPE_SHARED).
set -u
builddir=${top_builddir:-.}
gcrun="$builddir/tools/gcrun"
prog="$builddir/tests/mpi/coll_all"
# The host names must come from gcrun, not from outside.
unset GENCOMM_HOSTNAME
status=0
# coll_all's scratch files (the barrier test), removed whatever happens.
COLL_ALL_DIR=$(mktemp -d "$builddir/tests/mpi/coll_all.XXXXXX") || exit 99
export COLL_ALL_DIR
trap 'rm -rf "$COLL_ALL_DIR"' EXIT
trap 'exit 129' HUP INT PIPE TERM

run() {
    # run WHAT GCRUN-OPTIONS...
    what=$1
    shift
    out=$(timeout 240 "$gcrun" --tag-output "$@" "$prog" 2>&1)
    rc=$?
    if [ $rc -ne 0 ]; then
        echo "FAIL: coll_all $what (exit $rc)"
        echo "$out" | grep -v '^\[[0-9]*\] coll_all: ' | head -40
        echo "$out" | grep '^\[[0-9]*\] coll_all: '
        status=1
    else
        echo "ok: coll_all $what ($(echo "$out" | sed -n \
            's/^\[0\] coll_all: \([0-9]*\) checks passed.*/\1/p') checks" \
            "on rank 0)"
    fi
}

for np in 1 2 3 4 5 6 7 8 9; do
    run "-n $np" -n "$np"
done
run "--hosts a,a,a,b,c,c (3+1+2)" -n 6 --hosts a,a,a,b,c,c
run "--hosts a,b,b,b,c (1+3+1)" -n 5 --hosts a,b,b,b,c
run "--hosts a,b,a,b,c,a,b (interleaved)" -n 7 --hosts a,b,a,b,c,a,b
run "--nodes 2 -n 9 (5+4)" -n 9 --nodes 2
run "--nodes 4 -n 4 (one per host)" -n 4 --nodes 4
exit $status

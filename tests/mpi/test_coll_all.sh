#!/bin/sh
# tests/mpi/test_coll_all.sh: tests/mpi/coll_all (every collective, every
# count, root and layout, checked against locally computed results) at
# every process count from 1 to 9, oversubscribed on small machines on
# purpose, then on unbalanced and interleaved emulated hosts (where the
# program adds the host communicator of MPI_COMM_TYPE_SHARED).
set -u
. "${top_srcdir:-.}/tests/lib.sh"
prog="$builddir/tests/mpi/coll_all"
limit=240
# The host names must come from gcrun, not from outside.
unset GENCOMM_HOSTNAME
# coll_all's scratch files (the barrier test), removed whatever happens.
COLL_ALL_DIR=$(mktemp -d "$builddir/tests/mpi/coll_all.XXXXXX") || exit 99
export COLL_ALL_DIR
trap 'rm -rf "$COLL_ALL_DIR"' EXIT
trap 'exit 129' HUP INT PIPE TERM

# coll WHAT GCRUN-OPTIONS...; on success, how many checks rank 0 made.
coll() {
    _what=$1
    shift
    if run "coll_all $_what" "$gcrun" --tag-output "$@" "$prog"; then
        _pat='s/^\[0\] coll_all: \([0-9]*\) checks passed.*/'
        _pat="$_pat   \\1 checks on rank 0/p"
        printf '%s\n' "$out" | sed -n "$_pat"
    fi
}

for np in 1 2 3 4 5 6 7 8 9; do
    coll "-n $np" -n "$np"
done
coll "--hosts a,a,a,b,c,c (3+1+2)" -n 6 --hosts a,a,a,b,c,c
coll "--hosts a,b,b,b,c (1+3+1)" -n 5 --hosts a,b,b,b,c
coll "--hosts a,b,a,b,c,a,b (interleaved)" -n 7 --hosts a,b,a,b,c,a,b
coll "--nodes 2 -n 9 (5+4)" -n 9 --nodes 2
coll "--nodes 4 -n 4 (one per host)" -n 4 --nodes 4
finish

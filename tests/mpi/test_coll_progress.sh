#!/bin/sh
# tests/mpi/test_coll_progress.sh: nonblocking collectives must advance
# while their process waits for something else (MPI-3.1 5.12 and 3.7.4):
# MPI_Wait on collectives in orders that differ between ranks, MPI_Waitall
# with the requests in different orders, and MPI_Recv blocked while an
# MPI_Iallreduce is pending. Any wait in the library advances every
# running nonblocking collective (compat/mpi_coll_run.c, the wait hook);
# the timeout turns a wait that never returns into a failure.
set -u
. "${top_srcdir:-.}/tests/lib.sh"
unset GENCOMM_HOSTNAME
limit=20
# coll_all's scratch files (the barrier test), removed whatever happens.
COLL_ALL_DIR=$(mktemp -d "$builddir/tests/mpi/coll_all.XXXXXX") || exit 99
export COLL_ALL_DIR
trap 'rm -rf "$COLL_ALL_DIR"' EXIT
trap 'exit 129' HUP INT PIPE TERM
for np in 4 8; do
    run "coll_all progress with $np processes" "$gcrun" --tag-output \
        -n "$np" "$builddir/tests/mpi/coll_all" progress
done
finish

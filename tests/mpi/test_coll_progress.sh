#!/bin/sh
# tests/mpi/test_coll_progress.sh: nonblocking collectives must advance
# while their process waits for something else (MPI-3.1 5.12 and 3.7.4):
# MPI_Wait on collectives in orders that differ between ranks, MPI_Waitall
# with the requests in different orders, and MPI_Recv blocked while an
# MPI_Iallreduce is pending. Any wait in the library advances every
# running nonblocking collective (compat/mpi_coll_run.c, the wait hook);
# the timeout turns a wait that never returns into a failure.
set -u
builddir=${top_builddir:-.}
unset GENCOMM_HOSTNAME
status=0
# coll_all's scratch files (the barrier test), removed whatever happens.
COLL_ALL_DIR=$(mktemp -d "$builddir/tests/mpi/coll_all.XXXXXX") || exit 99
export COLL_ALL_DIR
trap 'rm -rf "$COLL_ALL_DIR"' EXIT
trap 'exit 129' HUP INT PIPE TERM
for np in 4 8; do
    out=$(timeout 20 "$builddir/tools/gcrun" --tag-output -n "$np" \
          "$builddir/tests/mpi/coll_all" progress 2>&1)
    rc=$?
    if [ $rc -ne 0 ]; then
        echo "FAIL: coll_all progress with $np processes (exit $rc)"
        echo "$out" | tail -20
        status=1
    else
        echo "ok: coll_all progress with $np processes"
    fi
done
exit $status

#!/bin/sh
# tests/mpi/test_thr.sh: the endpoint family's MPI programs, each under
# the settings it is about: the progress thread on (where it must complete
# a receive during a computation) and off, with shared memory and over
# UCX.
set -u
dir="${top_builddir:-.}/tests/mpi"
run="${top_srcdir:-$(dirname "$0")/../..}/tests/mpi/run_mpi.sh"
status=0
for shm in 1 0; do
    for pt in 1 0; do
        echo "GENCOMM_SHM=$shm GENCOMM_PROGRESS_THREAD=$pt"
        GENCOMM_SHM=$shm GENCOMM_PROGRESS_THREAD=$pt \
            sh "$run" "$dir/thr_progress" 2 3 || status=1
    done
done
exit $status

#!/bin/sh
# tests/mpi/test_core.sh: the core family's MPI programs (environment,
# point-to-point, requests, communicators, threads) at 1 to 4 processes,
# point-to-point and communicators also oversubscribed at 6; stale handles
# of every kind; lengths that overflow; handle conversion; polling loops
# with every process on one CPU.
set -u
dir="${top_builddir:-.}/tests/mpi"
run="${top_srcdir:-$(dirname "$0")/../..}/tests/mpi/run_mpi.sh"
status=0
sh "$run" "$dir/core_env" 1 2 3 4 || status=1
sh "$run" "$dir/core_p2p" 1 2 3 4 6 || status=1
sh "$run" "$dir/core_req" 1 2 3 4 || status=1
sh "$run" "$dir/core_req_sent" 1 2 3 4 || status=1
sh "$run" "$dir/core_comm" 1 2 3 4 6 || status=1
sh "$run" "$dir/core_threads" 2 3 || status=1
sh "$run" "$dir/core_free_pending" 2 3 || status=1
sh "$run" "$dir/core_handles" 1 2 || status=1
sh "$run" "$dir/core_overflow" 1 || status=1
sh "$run" "$dir/core_fint" 1 2 || status=1
sh "$run" "$dir/core_req_threads" 1 || status=1
# All on one CPU: more processes than cores, so polling must yield.
if command -v taskset >/dev/null 2>&1; then
    GCRUN_PREFIX="taskset -c 0" GCRUN_ARGS="--bind-to none" \
        sh "$run" "$dir/core_poll" 2 3 || status=1
else
    echo "core_poll: SKIPPED (no taskset to put the processes on one CPU)"
fi
exit $status

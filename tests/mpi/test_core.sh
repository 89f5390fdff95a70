#!/bin/sh
# tests/mpi/test_core.sh: the core family's MPI programs (environment,
# point-to-point, requests, communicators, threads) at 1 to 4 processes,
# point-to-point and communicators also oversubscribed at 6; stale handles
# of every kind; lengths that overflow; handle conversion.
set -u
dir="${top_builddir:-.}/tests/mpi"
run="${top_srcdir:-$(dirname "$0")/../..}/tests/mpi/run_mpi.sh"
status=0
sh "$run" "$dir/core_env" 1 2 3 4 || status=1
sh "$run" "$dir/core_p2p" 1 2 3 4 6 || status=1
sh "$run" "$dir/core_req" 1 2 3 4 || status=1
sh "$run" "$dir/core_comm" 1 2 3 4 6 || status=1
sh "$run" "$dir/core_threads" 2 3 || status=1
sh "$run" "$dir/core_free_pending" 2 3 || status=1
sh "$run" "$dir/core_handles" 1 2 || status=1
sh "$run" "$dir/core_overflow" 1 || status=1
sh "$run" "$dir/core_fint" 1 2 || status=1
sh "$run" "$dir/core_req_threads" 1 || status=1
exit $status

#!/bin/sh
# tests/mpi/test_coll_nbc.sh: neighbour collectives in their three forms
# on Cartesian grids (1 to 6 processes: dimensions of size 1 and 2, where
# a process is its own or its only neighbour), graphs and distributed
# graphs; persistent collectives at 1 to 4 processes and at 7. Then both
# again in verification mode (GENCOMM_CHECK_COLLECTIVES=1), where the
# check of each nonblocking collective must advance while its process
# waits for another one (the ranks wait in different orders).
d="${top_builddir:-.}/tests/mpi"
run="${top_srcdir:-${top_builddir:-.}}/tests/mpi/run_mpi.sh"
status=0
sh "$run" "$d/coll_nbr" 1 2 3 4 6 || status=1
sh "$run" "$d/coll_persist" 1 2 3 4 7 || status=1
GENCOMM_CHECK_COLLECTIVES=1 sh "$run" "$d/coll_nbr" 2 3 || status=1
GENCOMM_CHECK_COLLECTIVES=1 sh "$run" "$d/coll_persist" 3 || status=1
exit $status

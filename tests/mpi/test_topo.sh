#!/bin/sh
# tests/mpi/test_topo.sh: process topologies (compat/mpi_topo_*.c). 6
# processes give the 3 x 2 grid; 1, 2 and 4 grids with dimensions of size
# 1 and 2, where a process is its own or its only neighbour. Relations,
# maps and permutations (compat/mpi_redist.c) from 1 to 9 processes, and
# under verification mode.
d="${top_builddir:-.}/tests/mpi"
run="$(dirname "$0")/run_mpi.sh"
status=0
sh "$run" "$d/topo_cart" 1 2 3 4 6 || status=1
sh "$run" "$d/topo_graph" 1 2 3 4 || status=1
sh "$run" "$d/topo_errors" 1 3 || status=1
sh "$run" "$d/topo_redist" 1 2 3 4 9 || status=1
GENCOMM_CHECK_COLLECTIVES=1 sh "$run" "$d/topo_redist" 1 3 || status=1
exit $status

#!/bin/sh
# tests/mpi/test_topo.sh: process topologies (compat/mpi_topo_*.c). 6
# processes give the 3 x 2 grid; 1, 2 and 4 grids with dimensions of size
# 1 and 2, where a process is its own or its only neighbour. Relations,
# maps and permutations (compat/mpi_redist.c) from 1 to 9 processes, and
# under verification mode. Topologies that map (MPIX_Graph_create,
# MPIX_Cart_create, reorder: tests/mpi/topo_map.c) on one host and on
# emulated ones.
. "${top_srcdir:-.}/tests/lib.sh"
d="$builddir/tests/mpi"
run="$(dirname "$0")/run_mpi.sh"
sh "$run" "$d/topo_cart" 1 2 3 4 6 || status=1
sh "$run" "$d/topo_graph" 1 2 3 4 || status=1
sh "$run" "$d/topo_errors" 1 3 || status=1
sh "$run" "$d/topo_redist" 1 2 3 4 9 || status=1
GENCOMM_CHECK_COLLECTIVES=1 sh "$run" "$d/topo_redist" 1 3 || status=1
sh "$run" "$d/topo_map" 1 2 3 4 9 || status=1

# On emulated hosts laid out round-robin the mapping moves processes:
# every check again, then grids that must reach the fewest edges between
# hosts (3 x 3 on 2 hosts: 4, the identity 12; 4 x 2 on 4 hosts: 6, the
# identity 10; the 4 x 4 grid of 16 processes on 2 and 4 hosts: 4 and 8,
# the identity 12).
run_hosts() {
    # run_hosts HOSTS ARGS...: one process per listed host name
    _hosts=$1
    shift
    on_hosts "topo_map $* on --hosts $_hosts" "$_hosts" --bind-to none \
        "$d/topo_map" "$@" &&
        printf '%s\n' "$out" | grep "edges between hosts"
}
run_hosts a,b,a,b,a,b,a,b,a
run_hosts a,b,c,a,b,c,a
run_hosts a,b,a,b,a,b,a,b,a grid 3 3 4
run_hosts a,b,c,d,a,b,c,d grid 4 2 6
run_hosts a,b,a,b,a,b,a,b,a,b,a,b,a,b,a,b grid 4 4 4
run_hosts a,b,c,d,a,b,c,d,a,b,c,d,a,b,c,d grid 4 4 8
finish

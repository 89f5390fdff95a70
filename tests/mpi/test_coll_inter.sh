#!/bin/sh
# Intercommunicator collectives (even ranks against odd ranks), groups of
# equal and of unequal sizes.
d="${top_builddir:-.}/tests/mpi"
run="${top_srcdir:-${top_builddir:-.}}/tests/mpi/run_mpi.sh"
sh "$run" "$d/coll_inter" 2 3 4 5

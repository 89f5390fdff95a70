#!/bin/sh
# tests/mpi/test_err_coll.sh: error classes of collective arguments.
d="${top_builddir:-.}/tests/mpi"
"$(dirname "$0")/run_mpi.sh" "$d/err_coll" 1 2 3 4

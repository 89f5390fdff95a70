#!/bin/sh
# tests/mpi/test_err.sh: error classes and texts under MPI_ERRORS_RETURN,
# user error handlers.
d="${top_builddir:-.}/tests/mpi"
run="$(dirname "$0")/run_mpi.sh"
status=0
"$run" "$d/err_return" 1 2 3 4 || status=1
exit $status

#!/bin/sh
# tests/mpi/test_attr.sh: attribute caching and info objects.
d="${top_builddir:-.}/tests/mpi"
run="$(dirname "$0")/run_mpi.sh"
status=0
"$run" "$d/attr_basic" 1 2 3 4 || status=1
"$run" "$d/attr_threads" 1 2 || status=1
"$run" "$d/attr_type" 1 || status=1
"$run" "$d/info_basic" 1 2 3 || status=1
exit $status

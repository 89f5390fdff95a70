#!/bin/sh
# tests/mpi/test_ext.sh: the external interfaces (tests/mpi/ext.am): error
# classes added at run time alone and with peers, generalized requests
# completed by helper threads while the main thread waits with other
# traffic pending (rings of 2 and 3 processes, and one alone).
d="${top_builddir:-.}/tests/mpi"
run="${top_srcdir:-${top_builddir:-.}}/tests/mpi/run_mpi.sh"
status=0
sh "$run" "$d/ext_errors" 1 2 || status=1
sh "$run" "$d/ext_grequest" 1 2 3 || status=1
exit $status

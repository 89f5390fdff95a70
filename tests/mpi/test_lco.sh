#!/bin/sh
# The MPIX_ LCO extensions at 1 to 4 processes (tests/mpi/lco_*.c).
top_builddir=${top_builddir:-.}
export top_builddir
run="${top_srcdir:-.}/tests/mpi/run_mpi.sh"
status=0
for prog in lco_calls lco_group lco_names lco_coll; do
    sh "$run" "$top_builddir/tests/mpi/$prog" 1 2 3 4 || status=1
done
exit $status

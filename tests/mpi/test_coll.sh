#!/bin/sh
# Collectives at 1-4 processes and at 5 and 7 (non-powers of two: the
# allreduce fold, partial binomial trees, dissemination wrap-around).
# Oversubscribed on small machines on purpose.
d="${top_builddir:-.}/tests/mpi"
run="${top_srcdir:-${top_builddir:-.}}/tests/mpi/run_mpi.sh"
status=0
for prog in coll_basic coll_reduce coll_nb coll_err; do
    sh "$run" "$d/$prog" 1 2 3 4 5 7 || status=1
done
exit $status

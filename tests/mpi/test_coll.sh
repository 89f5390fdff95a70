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
# Types and operations freed while nonblocking collectives use them, also
# in verification mode (its check reads the types after the call).
sh "$run" "$d/coll_nb_free" 1 2 3 4 || status=1
GENCOMM_CHECK_COLLECTIVES=1 sh "$run" "$d/coll_nb_free" 3 || status=1
# The request objects kept with nonblocking schedules (and the
# two-process MPI_Ibarrier's) reused round after round, two outstanding,
# freed while active, mixed with point-to-point requests.
sh "$run" "$d/coll_nb_kept" 1 2 3 4 || status=1
GENCOMM_CHECK_COLLECTIVES=1 sh "$run" "$d/coll_nb_kept" 2 || status=1
# Two threads posting and completing nonblocking collectives: on a
# communicator each, and on one the program serializes.
sh "$run" "$d/coll_nb_threads" 1 2 3 || status=1
exit $status

#!/bin/sh
# tests/mpi/test_coll_hier.sh: the hierarchical collectives under gcrun's
# emulated hosts: unbalanced nodes (3+1+2, 2+3+4), interleaved ones (a
# non-commutative reduction must then stay flat), one process per node
# and a single node (no hierarchy unless GENCOMM_COLL_HIER=1), and
# GENCOMM_COLL_HIER=0; then an LCO communicator with two LCOs in every
# process (tests/mpi/coll_lcos), whose processes are its nodes. The
# programs check every result against a local reference; the debug trace
# shows which form ran.
set -u
. "${top_srcdir:-.}/tests/mpi/coll_run.sh"
unset GENCOMM_HOSTNAME

all="barrier hier|bcast hier|reduce hier|allreduce hier|gather hier|scatter hier|allgather hier|alltoall hier"
B="GENCOMM_COLL_BCAST=scatter_allgather GENCOMM_COLL_REDUCE=rabenseifner
   GENCOMM_COLL_ALLREDUCE=rabenseifner GENCOMM_COLL_GATHER=linear
   GENCOMM_COLL_ALLGATHER=ring"

coll_run "--hosts a,a,a,b,c,c" "" "--hosts a,a,a,b,c,c -n 6" "" "$all" ""
coll_run "--hosts a,a,a,b,c,c, non-commutative (contiguous nodes)" "" \
    "--hosts a,a,a,b,c,c -n 6" noncomm "reduce hier|allreduce hier" ""
coll_run "--hosts a,a,b,b,b,c,c,c,c, B inside" "$B" \
    "--hosts a,a,b,b,b,c,c,c,c -n 9" "" \
    "$all|bcast scatter_allgather|allreduce rabenseifner" ""
coll_run "--hosts a,b,a,b,c (interleaved)" "" "--hosts a,b,a,b,c -n 5" "" \
    "$all" ""
coll_run "--hosts a,b,a,b,c, non-commutative stays flat" "" \
    "--hosts a,b,a,b,c -n 5" noncomm \
    "allreduce recursive_doubling, 5 ranks, 56 bytes|reduce binomial, 5 ranks, 56 bytes" \
    "reduce hier, 5 ranks, 56|allreduce hier, 5 ranks, 56|reduce hier, 5 ranks, 131072|allreduce hier, 5 ranks, 131072"
coll_run "--nodes 2 -n 4" "" "--nodes 2 -n 4" "" "$all" ""
# The multi-leader allreduce (large commutative data, every node with
# several ranks): a low GENCOMM_COLL_REDUCE_LARGE takes it from 7 ints on,
# the strided type and MPI_IN_PLACE included; on 3+2 the third rank of
# the first node gets no piece; with a node of one rank (3+1) and for a
# non-commutative operator the single leader runs.
M="GENCOMM_COLL_HIER=1 GENCOMM_COLL_REDUCE_LARGE=16"
coll_run "--hosts a,a,b,b, multi-leader allreduce" "$M" \
    "--hosts a,a,b,b -n 4" "allreduce nonblocking" \
    "allreduce hier_multi_leader, 4 ranks, 262144|allreduce hier_multi_leader, 4 ranks, 28 bytes|allreduce hier_multi_leader, 4 ranks, 12004" \
    "allreduce hier, 4 ranks, 262144"
coll_run "--hosts a,a,a,b,b (unbalanced), multi-leader allreduce" "$M" \
    "--hosts a,a,a,b,b -n 5" "allreduce nonblocking" \
    "allreduce hier_multi_leader, 5 ranks, 262144|allreduce hier_multi_leader, 5 ranks, 28 bytes" \
    "allreduce hier, 5 ranks, 262144"
coll_run "--hosts a,b,a,b,b,c,c (interleaved), multi-leader allreduce" "$M" \
    "--hosts a,b,a,b,b,c,c -n 7" "allreduce" \
    "allreduce hier_multi_leader, 7 ranks, 262144" ""
coll_run "--hosts a,a,a,b (a node of one), single leader" "$M" \
    "--hosts a,a,a,b -n 4" "allreduce" \
    "allreduce hier, 4 ranks, 262144" "hier_multi_leader"
coll_run "--hosts a,a,b,b, non-commutative: single leader" "$M" \
    "--hosts a,a,b,b -n 4" "noncomm" "allreduce hier" "hier_multi_leader"
coll_run "--nodes 3 -n 7, GENCOMM_COLL_HIER=0" "GENCOMM_COLL_HIER=0" \
    "--nodes 3 -n 7" "" "bcast binomial, 7 ranks" "hier"
coll_run "--hosts a,b,c (one per node)" "" "--hosts a,b,c -n 3" "" "" "hier"
coll_run "--hosts a,b,c, GENCOMM_COLL_HIER=1" "GENCOMM_COLL_HIER=1" \
    "--hosts a,b,c -n 3" "" "$all" ""
coll_run "one host -n 4" "" "-n 4" "" "" "hier"
coll_run "one host -n 4, GENCOMM_COLL_HIER=1" "GENCOMM_COLL_HIER=1" "-n 4" \
    "" "$all" ""

# An LCO communicator with two LCOs per process: the process is the node.
prog="$builddir/tests/mpi/coll_lcos"
coll_run "two LCOs per process, 3 processes" "" "-n 3" "" \
    "allreduce hier, 6 ranks, 4 bytes|allreduce hier, 6 ranks, 8 bytes|bcast hier, 6 ranks|allgather hier, 6 ranks|alltoall hier, 6 ranks|barrier hier, 6 ranks" ""
coll_run "two LCOs per process, interleaved, 3 processes" "" "-n 3" \
    interleaved \
    "allreduce hier, 6 ranks, 4 bytes|allreduce recursive_doubling, 6 ranks, 8 bytes|alltoall hier, 6 ranks" \
    "allreduce hier, 6 ranks, 8"
coll_run "two LCOs per process, 4 processes, GENCOMM_COLL_HIER=0" \
    "GENCOMM_COLL_HIER=0" "-n 4" "" "allreduce recursive_doubling, 8 ranks" \
    "hier"
coll_run "two LCOs per process, 1 process" "" "-n 1" interleaved "" "hier"
exit $status

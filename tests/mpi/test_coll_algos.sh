#!/bin/sh
# tests/mpi/test_coll_algos.sh: tests/mpi/coll_algos (results against local
# references) with each algorithm of coll/ forced by its GENCOMM_COLL_*
# setting, at 1 to 9 processes (oversubscribed on small machines on
# purpose), checking from the debug trace that the forced algorithm ran;
# then the automatic choice at a few sizes, a threshold setting and a
# word the settings do not know.
set -u
. "${top_srcdir:-.}/tests/mpi/coll_run.sh"

A="GENCOMM_COLL_BARRIER=dissemination
   GENCOMM_COLL_BCAST=binomial GENCOMM_COLL_REDUCE=binomial
   GENCOMM_COLL_ALLREDUCE=recursive_doubling
   GENCOMM_COLL_REDUCE_SCATTER=recursive_halving GENCOMM_COLL_SCAN=linear
   GENCOMM_COLL_GATHER=binomial GENCOMM_COLL_ALLGATHER=recursive_doubling
   GENCOMM_COLL_ALLTOALL=bruck"
B="GENCOMM_COLL_BARRIER=linear
   GENCOMM_COLL_BCAST=scatter_allgather GENCOMM_COLL_REDUCE=rabenseifner
   GENCOMM_COLL_ALLREDUCE=rabenseifner
   GENCOMM_COLL_REDUCE_SCATTER=reduce_scatterv
   GENCOMM_COLL_SCAN=recursive_doubling GENCOMM_COLL_GATHER=linear
   GENCOMM_COLL_ALLGATHER=bruck GENCOMM_COLL_ALLTOALL=pairwise"
# The ring, the scan pipeline in many small pieces, the linear bcast and
# alltoall at every size.
C="GENCOMM_COLL_ALLGATHER=ring GENCOMM_COLL_SCAN=linear
   GENCOMM_COLL_SEGMENT=1000 GENCOMM_COLL_BCAST=linear
   GENCOMM_COLL_ALLTOALL=linear"

coll_run "1 process, A" "$A" "-n 1" "" "" ""
coll_run "1 process, B" "$B" "-n 1" "" "" ""
for np in 2 3 4 5 6 7 8 9; do
    case $np in
        2|4|8) ag="allgather recursive_doubling" ;;
        *) ag="allgather bruck" ;;   # recursive doubling needs 2^k
    esac
    coll_run "$np processes, A" "$A" "-n $np" "" \
        "barrier dissemination|bcast binomial|reduce binomial|allreduce recursive_doubling|reduce_scatter recursive_halving|scan linear|exscan linear|gather binomial|scatter binomial|$ag|alltoall bruck" \
        "barrier linear|bcast scatter_allgather|allreduce rabenseifner|hier"
    coll_run "$np processes, B" "$B" "-n $np" "" \
        "barrier linear|bcast scatter_allgather|reduce rabenseifner|allreduce rabenseifner|reduce_scatter reduce_scatterv|scan recursive_doubling|exscan recursive_doubling|gather linear|scatter linear|allgather bruck|alltoall pairwise" \
        "barrier dissemination|bcast binomial, $np ranks, 262144|alltoall bruck|hier"
    coll_run "$np processes, allgather linear" "GENCOMM_COLL_ALLGATHER=linear" \
        "-n $np" "allgather" "allgather linear" "allgather recursive_doubling|allgather bruck"
    coll_run "$np processes, reduce linear" "GENCOMM_COLL_REDUCE=linear" \
        "-n $np" "reduce noncomm" "reduce linear, $np ranks, 28 bytes|reduce linear, $np ranks, 262144 bytes|reduce linear, $np ranks, 56 bytes" \
        "reduce binomial|reduce rabenseifner"
    coll_run "$np processes, C" "$C" "-n $np" \
        "allgather scan bcast alltoall repeat" \
        "allgather ring|scan linear|exscan linear|bcast linear|alltoall linear" \
        "bcast binomial|bcast scatter_allgather|alltoall bruck"
done
# Non-commutative operators keep rank order whatever is forced: the
# halving algorithms are not run for them (their elements are 8 bytes; the
# program's closing sum of 4 bytes may take any algorithm).
coll_run "5 processes, non-commutative under B" "$B" "-n 5" noncomm \
    "reduce binomial, 5 ranks, 56 bytes|allreduce recursive_doubling, 5 ranks, 131072 bytes" \
    "reduce rabenseifner, 5 ranks, 56|allreduce rabenseifner, 5 ranks, 56|reduce rabenseifner, 5 ranks, 131072|allreduce rabenseifner, 5 ranks, 131072"

# The automatic choice.
coll_run "4 processes, auto" "" "-n 4" "" \
    "barrier linear, 4 ranks|bcast linear, 4 ranks, 4 bytes|bcast linear, 4 ranks, 262144 bytes|allreduce recursive_doubling, 4 ranks, 28 bytes|allreduce rabenseifner, 4 ranks, 262144 bytes|reduce linear, 4 ranks, 28 bytes|reduce binomial, 4 ranks, 262144 bytes|alltoall linear, 4 ranks, 4 bytes|alltoall linear, 4 ranks, 1200 bytes|allgather linear, 4 ranks, 16 bytes|allgather linear, 4 ranks, 262144 bytes|scan linear, 4 ranks|gather linear, 4 ranks, 4 bytes|scatter linear, 4 ranks, 4 bytes|reduce_scatter recursive_halving, 4 ranks" \
    "barrier dissemination|bcast binomial|bcast scatter_allgather|alltoall bruck|reduce rabenseifner|reduce binomial, 4 ranks, 28 |reduce linear, 4 ranks, 262144|allgather recursive_doubling|allgather ring, 4 ranks, 262144|gather binomial|scatter binomial|hier"
# Over at most GENCOMM_COLL_GATHER_LINEAR_MAX (4) processes gather and
# scatter are linear at every size (coll/README.md); the tree comes back
# when the setting is lowered.
coll_run "4 processes, gather tree below the linear maximum" \
    "GENCOMM_COLL_GATHER_LINEAR_MAX=3" "-n 4" "gather" \
    "gather binomial, 4 ranks, 4 bytes" "gather linear, 4 ranks, 4 bytes"
# Over at most 4 processes allgather is linear at every size (coll/README.md,
# "Allgather over 3 and 4 processes"): 21,845 ints a rank at 3 (an odd
# count), in place too; beyond, the ring from 64 KiB in all.
coll_run "3 processes, auto allgather" "" "-n 3" "allgather" \
    "allgather linear, 3 ranks, 12 bytes|allgather linear, 3 ranks, 262140 bytes" \
    "allgather ring, 3 ranks, 12 |allgather ring, 3 ranks, 262140|allgather bruck"
coll_run "5 processes, auto" "" "-n 5" "" \
    "barrier dissemination, 5 ranks|bcast binomial, 5 ranks, 4 bytes|scan recursive_doubling, 5 ranks|allgather bruck, 5 ranks, 20 bytes|allgather ring, 5 ranks, 262140 bytes|bcast scatter_allgather, 5 ranks, 262144 bytes|alltoall bruck, 5 ranks, 4 bytes|alltoall linear, 5 ranks, 1200 bytes|reduce binomial, 5 ranks, 262144 bytes" \
    "barrier linear|bcast linear|scan linear|alltoall linear, 5 ranks, 4 bytes|alltoall pairwise, 5 ranks, 1200|reduce linear|reduce rabenseifner|hier"
# Large reduces halve over a power of two of processes beyond 4 only
# (coll/README.md, "Reduce and allreduce over 5 to 16 processes").
coll_run "8 processes, auto reduce" "" "-n 8" "reduce" \
    "reduce rabenseifner, 8 ranks, 262144 bytes|reduce binomial, 8 ranks, 28 bytes" \
    "reduce binomial, 8 ranks, 262144|reduce linear"
# Small reduces over 3 and 4 processes go straight to the root (coll/
# README.md, "Small reduce at 3 and 4 processes"); GENCOMM_COLL_REDUCE_SMALL=0
# keeps the tree.
coll_run "3 processes, auto reduce" "" "-n 3" "reduce" \
    "reduce linear, 3 ranks, 28 bytes|reduce binomial, 3 ranks, 262144 bytes" \
    "reduce binomial, 3 ranks, 28 |reduce linear, 3 ranks, 262144"
coll_run "4 processes, GENCOMM_COLL_REDUCE_SMALL=0" \
    "GENCOMM_COLL_REDUCE_SMALL=0" "-n 4" "reduce" \
    "reduce binomial, 4 ranks, 28 bytes" "reduce linear"
coll_run "4 processes, GENCOMM_COLL_REDUCE_TREE_MAX=3" \
    "GENCOMM_COLL_REDUCE_TREE_MAX=3" "-n 4" "reduce" \
    "reduce rabenseifner, 4 ranks, 262144 bytes" \
    "reduce binomial, 4 ranks, 262144 "
coll_run "5 processes, GENCOMM_COLL_ALLGATHER_LINEAR_MAX=5" \
    "GENCOMM_COLL_ALLGATHER_LINEAR_MAX=5" "-n 5" "allgather" \
    "allgather linear, 5 ranks, 20 bytes|allgather linear, 5 ranks, 262140 bytes" \
    "allgather bruck|allgather ring, 5 ranks, 262140"
# Over a power of two of processes beyond 4, recursive doubling up to 16 MiB
# in all (coll/README.md, "Allgather over 8 and 16 processes"); the
# program's allgatherv (always the ring) has sizes of its own.
coll_run "8 processes, auto allgather" "" "-n 8" "allgather" \
    "allgather recursive_doubling, 8 ranks, 32 bytes|allgather recursive_doubling, 8 ranks, 262144 bytes" \
    "allgather ring, 8 ranks, 262144|allgather ring, 8 ranks, 32 |allgather bruck|allgather linear"
coll_run "8 processes, GENCOMM_COLL_ALLGATHER_POF2_LARGE=65536" \
    "GENCOMM_COLL_ALLGATHER_POF2_LARGE=65536" "-n 8" "allgather" \
    "allgather recursive_doubling, 8 ranks, 32 bytes|allgather ring, 8 ranks, 262144 bytes" \
    "allgather recursive_doubling, 8 ranks, 262144"
coll_run "5 processes, GENCOMM_COLL_ALLTOALL_LINEAR_MAX=5" \
    "GENCOMM_COLL_ALLTOALL_LINEAR_MAX=5" "-n 5" "alltoall" \
    "alltoall linear, 5 ranks, 4 bytes" "alltoall bruck"
# Blocks above the Bruck size: linear below 17 processes, pairwise from 17
# (coll/README.md, "Alltoall at 5 to 8 processes" and "Alltoall at 9 to 16
# processes").
coll_run "8 processes, auto alltoall" "" "-n 8" "alltoall" \
    "alltoall bruck, 8 ranks, 4 bytes|alltoall linear, 8 ranks, 1200 bytes" \
    "alltoall linear, 8 ranks, 4 bytes|alltoall pairwise, 8 ranks, 1200"
coll_run "9 processes, auto alltoall" "" "-n 9" "alltoall" \
    "alltoall bruck, 9 ranks, 4 bytes|alltoall linear, 9 ranks, 1200 bytes" \
    "alltoall pairwise|alltoall linear, 9 ranks, 4 "
coll_run "5 processes, GENCOMM_COLL_ALLTOALL_PAIRWISE_MIN=5" \
    "GENCOMM_COLL_ALLTOALL_PAIRWISE_MIN=5" "-n 5" "alltoall" \
    "alltoall pairwise, 5 ranks, 1200 bytes" "alltoall linear"
coll_run "5 processes, GENCOMM_COLL_BARRIER_LINEAR_MAX=5" \
    "GENCOMM_COLL_BARRIER_LINEAR_MAX=5" "-n 5" "barrier" \
    "barrier linear, 5 ranks" "barrier dissemination"
coll_run "2 processes, auto" "" "-n 2" "bcast barrier reduce" \
    "bcast linear, 2 ranks, 262144 bytes|barrier dissemination, 2 ranks|reduce binomial, 2 ranks, 262144 bytes" \
    "bcast scatter_allgather|bcast binomial|barrier linear|reduce rabenseifner|reduce linear"
coll_run "5 processes, GENCOMM_COLL_BCAST_LARGE=1" \
    "GENCOMM_COLL_BCAST_LARGE=1" "-n 5" "bcast" \
    "bcast scatter_allgather, 5 ranks, 4 bytes" \
    "bcast linear, 5 ranks, 4 |bcast binomial, 5 ranks, 4 "
coll_run "5 processes, GENCOMM_COLL_BCAST_LINEAR_MAX=5" \
    "GENCOMM_COLL_BCAST_LINEAR_MAX=5" "-n 5" "bcast" \
    "bcast linear, 5 ranks, 4 bytes" "bcast binomial, 5 ranks, 4 "
coll_run "3 processes, GENCOMM_COLL_BCAST=nonsense" \
    "GENCOMM_COLL_BCAST=nonsense" "-n 3" "bcast" \
    "bcast linear, 3 ranks, 4 bytes|bcast linear, 3 ranks, 262144 bytes" ""
if ! printf '%s\n' "$out" | grep -q "GENCOMM_COLL_BCAST='nonsense' is not one of"; then
    echo "FAIL: GENCOMM_COLL_BCAST=nonsense gave no warning"
    status=1
fi
# Kept schedules: 10 allgathers and 10 alltoalls of 13 ints with the same
# arguments, every other one nonblocking, are built once blocking and once
# nonblocking in each process; each later call runs its kept schedule.
for np in 2 4 5; do
    out=$(env GENCOMM_LOG_LEVEL=debug timeout 180 "$gcrun" --bind-to none \
          -n $np "$prog" kept 2>&1)
    rc=$?
    ag=$(printf '%s\n' "$out" | grep -c "coll: allgather [a-z_]*, $np ranks, $((52 * np)) bytes")
    aa=$(printf '%s\n' "$out" | grep -c "coll: alltoall [a-z_]*, $np ranks, 52 bytes")
    if [ $rc -ne 0 ] || [ "$ag" -ne $((2 * np)) ] || [ "$aa" -ne $((2 * np)) ]; then
        echo "FAIL: $np processes, kept schedules: exit $rc, allgather built $ag times, alltoall $aa times (want $((2 * np)) each)"
        printf '%s\n' "$out" | grep -v "debug:" | tail -20
        status=1
    else
        echo "ok: $np processes, kept schedules"
    fi
done
exit $status

#!/usr/bin/env bash
# bench/spare_run.sh BUNDLE.tar.xz [quick]: on a machine with spare cores
# (16 or more), unpacks a bundle of bench/spare_pack.sh into /tmp and runs,
# gencomm, Open MPI and MPICH interleaved, REPS times each (3 by default):
#   threads  msgrate_tT for T = 1..8 (2 processes, unbound): gencomm's
#            native API (gcm_thread_bench) and the MPI one (mpi_thread_bench)
#   coll     mpi_coll_bench at 2, 4 and 8 processes, each bound to a core
#   algos    gencomm's allgather and barrier algorithms, each forced
#            (GENCOMM_COLL_ALLGATHER, GENCOMM_COLL_BARRIER), at 4, 8 and 16
#            processes, rows named gencomm-mpi-ALGO; Open MPI at 16
#   p2p      mpi_bench at 2 processes, each bound to a core
#   reduce   reduce and allreduce of 4 KiB to 1 MiB at 5, 8 and 16
#            processes, each bound to a core, with gencomm's binomial and
#            Rabenseifner (reduce) and recursive doubling and Rabenseifner
#            (allreduce) each forced (GENCOMM_COLL_REDUCE,
#            GENCOMM_COLL_ALLREDUCE; rows gencomm-mpi-ALGO), Open MPI beside
#            them: the data for the crossovers of coll/README.md
#   nbc      mpi_nbc_bench's exchanges (alltoall(v) and the neighbour
#            alltoall(v,w) and allgather on a ring) of 8 B and 64 KiB at 2
#            processes, each bound to a core
# CSV rows (bench/run's columns) go to $OUT/spare.csv (OUT defaults to
# /tmp/spare_out), the log to $OUT/log.txt, the launchers' messages to
# $OUT/err.txt. It stops starting runs after BUDGET_S seconds (330);
# SECTIONS (all by default) names the ones to run, THREADS the thread
# counts (1 to 8 by default), COLL_NP the process counts of coll (2 4 8).
set -u

OUT=${OUT:-/tmp/spare_out}
quick=${2:-}
B=/tmp/spare_b
mkdir -p "$OUT"
rm -rf "$B"; mkdir -p "$B"
tar -xJf "$1" -C "$B" || exit 1
export LD_LIBRARY_PATH=$B/lib PATH=$B/bin:$PATH
# Open MPI's installation directories, moved to the bundle.
export OPAL_PKGLIBDIR=$B/ompi/openmpi3 OPAL_PKGDATADIR=$B/ompi/share/openmpi
export OPAL_SYSCONFDIR=$B/ompi/etc OPAL_LIBDIR=$B/lib OPAL_BINDIR=$B/bin
export PMIX_MCA_mca_base_component_path=$B/pmix
csv=$OUT/spare.csv err=$OUT/err.txt
: >"$csv"
exec > >(tee -a "$OUT/log.txt") 2>&1
start=$(date +%s)
budget=${BUDGET_S:-330}
reps=${REPS:-3}
sections=${SECTIONS:-threads coll algos p2p reduce nbc}
thread_counts=${THREADS:-1 2 3 4 5 6 7 8}
coll_np=${COLL_NP:-2 4 8}
[[ -n $quick ]] && reps=1

echo "cpus $(nproc); $(grep -m1 'model name' /proc/cpuinfo);" \
     "kernel $(uname -r); load $(cut -d' ' -f1-3 /proc/loadavg)"
want() {
    [[ " $sections " == *" $1 "* ]]
}
left() {
    (( $(date +%s) - start < budget ))
}
# r IMPL NP BIND PROG ARGS...: one run; its CSV rows kept and echoed.
r() {
    local impl=$1 np=$2 bind=$3 prog=$4 cmd gc_bind=() mpich_bind=() t0
    shift 4
    [[ $bind == none ]] && gc_bind=(--bind-to none)
    [[ $bind == core ]] && mpich_bind=(-bind-to core)
    case $impl in
        gencomm) cmd=(gcrun -n "$np" "${gc_bind[@]}" "$B/bin/$prog") ;;
        gencomm-mpi) cmd=(gcrun -n "$np" "${gc_bind[@]}"
                          "$B/bin/$prog.gencomm" "$impl") ;;
        openmpi) cmd=(mpirun.openmpi --allow-run-as-root --bind-to "$bind"
                      -np "$np" "$B/bin/$prog.openmpi" "$impl") ;;
        mpich) cmd=(mpirun.mpich "${mpich_bind[@]}" -np "$np"
                    "$B/bin/$prog.mpich" "$impl") ;;
    esac
    t0=$(date +%s%N)
    timeout 60 "${cmd[@]}" "$@" ${quick:+--quick} 2>>"$err" |
        grep -E '^[A-Za-z_0-9]+,[0-9]+,' |
        sed "s/,$impl,/,$impl${SUFFIX:-},/" | tee -a "$csv" | tr '\n' ' '
    echo "<- $impl np$np $prog $* ($(( ($(date +%s%N) - t0) / 1000000 )) ms)"
}

if want threads; then
    echo "== threads: msgrate_tT, 2 processes unbound, T = $thread_counts"
    for ((rep = 0; rep < reps; rep++)); do
        for t in $thread_counts; do
            left || break 2
            r gencomm 2 none gcm_thread_bench --threads $t
            for impl in gencomm-mpi openmpi mpich; do
                r $impl 2 none mpi_thread_bench --threads $t
            done
        done
    done
fi
if want coll; then
    echo "== coll: $coll_np processes, one core each"
    for ((rep = 0; rep < reps; rep++)); do
        for np in $coll_np; do
            for impl in gencomm-mpi openmpi mpich; do
                left || break 3
                r $impl $np core mpi_coll_bench --label np$np
            done
        done
    done
fi
if want algos; then
    echo "== algos: gencomm's allgather and barrier algorithms, 4 to 16" \
         "processes"
    # Rows named gencomm-mpi-ALGO, Open MPI's at 16 beside them: the data
    # that sets the thresholds of coll/README.md.
    for ((rep = 0; rep < reps; rep++)); do
        for np in 4 8 16; do
            for algo in linear recursive_doubling ring bruck; do
                left || break 3
                GENCOMM_COLL_ALLGATHER=$algo SUFFIX=-$algo r gencomm-mpi $np \
                    core mpi_coll_bench --label np$np --ops allgather
            done
            for algo in linear dissemination; do
                GENCOMM_COLL_BARRIER=$algo SUFFIX=-$algo r gencomm-mpi $np \
                    core mpi_coll_bench --label np$np --ops barrier
            done
        done
        for impl in gencomm-mpi openmpi; do
            r $impl 16 core mpi_coll_bench --label np16 --ops allgather,barrier
        done
    done
fi
if want p2p; then
    echo "== p2p: 2 processes, one core each"
    for ((rep = 0; rep < reps; rep++)); do
        for impl in gencomm-mpi openmpi mpich; do
            left || break 2
            r $impl 2 core mpi_bench
        done
    done
fi
if want reduce; then
    echo "== reduce: binomial and Rabenseifner reduce, recursive doubling" \
         "and Rabenseifner allreduce, 5, 8 and 16 processes"
    sizes=4096,16384,65536,262144,1048576
    for ((rep = 0; rep < reps; rep++)); do
        for np in 5 8 16; do
            left || break 2
            for algo in binomial rabenseifner; do
                GENCOMM_COLL_REDUCE=$algo SUFFIX=-$algo r gencomm-mpi $np \
                    core mpi_nbc_bench --ops reduce --sizes $sizes
            done
            for algo in recursive_doubling rabenseifner; do
                GENCOMM_COLL_ALLREDUCE=$algo SUFFIX=-$algo r gencomm-mpi \
                    $np core mpi_nbc_bench --ops allreduce --sizes $sizes
            done
            for impl in gencomm-mpi openmpi; do
                r $impl $np core mpi_nbc_bench --ops reduce,allreduce \
                    --sizes $sizes
            done
        done
    done
fi
if want nbc; then
    echo "== nbc: the exchanges at 2 processes, one core each"
    for ((rep = 0; rep < reps; rep++)); do
        for impl in gencomm-mpi openmpi; do
            left || break 2
            r $impl 2 core mpi_nbc_bench --sizes 8,65536 --ops \
                alltoall,alltoallv,neighbor_allgather,neighbor_alltoall,neighbor_alltoallv,neighbor_alltoallw
        done
    done
fi
echo "done in $(( $(date +%s) - start )) s"

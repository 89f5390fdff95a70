#!/bin/sh
# tests/mpi/test_thr.sh: the endpoint family's MPI programs, each under
# the settings it is about:
# - thr_orphan: a wait on the world's endpoint while a large send on a
#   duplicate's endpoint needs progress; over shared memory, over UCX
#   (GENCOMM_SHM=0), across emulated hosts (--nodes 2) and with one
#   endpoint;
# - thr_comms: one communicator per thread, 3 processes x 3 threads
#   oversubscribed on this machine's cores, both transports, and with the
#   progress thread;
# - thr_progress: the progress thread completes a receive during a
#   computation (checked with it on; run with it off too).
set -u
dir="${top_builddir:-.}/tests/mpi"
gcrun="${top_builddir:-.}/tools/gcrun"
status=0

# run LABEL NP [GCRUN OPTIONS] -- PROG [ARGS]: one run through gcrun.
run() {
    label=$1
    np=$2
    shift 2
    opts=""
    while [ "$1" != "--" ]; do
        opts="$opts $1"
        shift
    done
    shift
    out=$(timeout 120 "$gcrun" -n "$np" $opts --tag-output "$@" 2>&1)
    rc=$?
    if [ $rc -ne 0 ]; then
        echo "FAIL: $(basename "$1") $label with $np processes$opts (exit $rc)"
        echo "$out" | tail -30
        status=1
    else
        echo "ok: $(basename "$1") $label with $np processes$opts"
    fi
}

for shm in 1 0; do
    for np in 2 3; do
        GENCOMM_SHM=$shm run "shm=$shm" "$np" -- "$dir/thr_orphan"
    done
    GENCOMM_SHM=$shm run "shm=$shm" 2 --nodes 2 -- "$dir/thr_orphan"
done
GENCOMM_MAX_ENDPOINTS=1 GENCOMM_SHM=0 run "one endpoint" 2 -- \
    "$dir/thr_orphan"

for shm in 1 0; do
    GENCOMM_SHM=$shm run "shm=$shm" 3 -- "$dir/thr_comms"
done
GENCOMM_PROGRESS_THREAD=1 run "progress thread" 3 -- "$dir/thr_comms"
run "" 2 --nodes 2 -- "$dir/thr_comms"

for shm in 1 0; do
    for pt in 1 0; do
        GENCOMM_SHM=$shm GENCOMM_PROGRESS_THREAD=$pt \
            run "shm=$shm progress thread=$pt" 2 -- "$dir/thr_progress"
    done
done
GENCOMM_PROGRESS_THREAD=1 run "progress thread" 3 -- "$dir/thr_progress"
exit $status

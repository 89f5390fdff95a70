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
. "${top_srcdir:-.}/tests/lib.sh"
dir="${top_builddir:-.}/tests/mpi"

# thr LABEL NP [GCRUN OPTIONS] -- PROG [ARGS]: one run through gcrun.
thr() {
    _label=$1
    _np=$2
    shift 2
    _opts=""
    while [ "$1" != "--" ]; do
        _opts="$_opts $1"
        shift
    done
    shift
    # shellcheck disable=SC2086 # the options are words
    run "$(basename "$1") $_label with $_np processes$_opts" \
        "$gcrun" -n "$_np" $_opts --tag-output "$@"
}

for shm in 1 0; do
    for np in 2 3; do
        GENCOMM_SHM=$shm thr "shm=$shm" "$np" -- "$dir/thr_orphan"
    done
    GENCOMM_SHM=$shm thr "shm=$shm" 2 --nodes 2 -- "$dir/thr_orphan"
done
GENCOMM_MAX_ENDPOINTS=1 GENCOMM_SHM=0 thr "one endpoint" 2 -- \
    "$dir/thr_orphan"

for shm in 1 0; do
    GENCOMM_SHM=$shm thr "shm=$shm" 3 -- "$dir/thr_comms"
done
GENCOMM_PROGRESS_THREAD=1 thr "progress thread" 3 -- "$dir/thr_comms"
thr "" 2 --nodes 2 -- "$dir/thr_comms"

for shm in 1 0; do
    for pt in 1 0; do
        GENCOMM_SHM=$shm GENCOMM_PROGRESS_THREAD=$pt \
            thr "shm=$shm progress thread=$pt" 2 -- "$dir/thr_progress"
    done
done
GENCOMM_PROGRESS_THREAD=1 thr "progress thread" 3 -- "$dir/thr_progress"

# The start-up spread (GENCOMM_SPREAD, threads/thr_init.c): 3 unbound
# processes on 2 CPUs each start on the CPU of their local rank and get
# their mask of both CPUs back; with GENCOMM_SPREAD=0 none moves.
if [ "$(nproc)" -ge 2 ]; then
    for sp in 1 0; do
        if GENCOMM_SPREAD=$sp GENCOMM_LOG_LEVEL=debug \
            run "thr_orphan spread=$sp, 3 processes on 2 CPUs" \
            taskset -c 0,1 "$gcrun" -n 3 --bind-to none "$dir/thr_orphan"; then
            expect_count $((3 * sp)) \
                'spread: local rank [0-2] starts on CPU [01] of its 2, its mask back$'
            expect_count 0 'spread: local rank .* of its 2$'
        fi
    done
fi
finish

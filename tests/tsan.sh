#!/bin/sh
# tests/tsan.sh: the threaded programs, in a build configured with
# --enable-sanitizers=thread (`make check-threads` runs it). Any data race
# ThreadSanitizer reports fails the run. UCX's memory-event hooks crash
# processes under ThreadSanitizer, so they are turned off here.
set -u
. "$(dirname "$0")/lib.sh"
b=$builddir
limit=300
UCX_MEM_EVENTS=no; export UCX_MEM_EVENTS
TSAN_OPTIONS="halt_on_error=1 exitcode=66 ${TSAN_OPTIONS:-}"
export TSAN_OPTIONS
GENCOMM_LOG_LEVEL=error; export GENCOMM_LOG_LEVEL

# tsan WHAT CMD...: run, and ThreadSanitizer reported nothing (its
# report is shown).
tsan() {
    run "$@"
    if out_has 'ThreadSanitizer'; then
        [ "$rc" -ne 0 ] || fail "$1 (ThreadSanitizer reported)"
        printf '%s\n' "$out" | grep -A30 'ThreadSanitizer' | head -60
    fi
}

for shm in 1 0; do
    tsan "p2p_threads shm=$shm" env GENCOMM_SHM=$shm \
        "$gcrun" -n 2 "$b/tests/integration/p2p_threads" 500
    tsan "p2p_first_posted shm=$shm" env GENCOMM_SHM=$shm \
        "$gcrun" -n 2 "$b/tests/integration/p2p_first_posted" 50
    tsan "p2p_handlers shm=$shm" env GENCOMM_SHM=$shm \
        "$gcrun" -n 3 "$b/tests/integration/p2p_handlers" 16 100
done
for shm in 1 0; do
    tsan "p2p_endpoints shm=$shm" env GENCOMM_SHM=$shm \
        "$gcrun" -n 2 "$b/tests/integration/p2p_endpoints" 20
    # Spinning threads that outnumber the core progress each other's
    # endpoints.
    tsan "p2p_crowd shm=$shm" env GENCOMM_SHM=$shm \
        "$gcrun" -n 2 "$b/tests/integration/p2p_crowd"
done
# Receive slots added while another thread receives (the receive's slot
# check takes no lock).
tsan "p2p_grow -n 1" "$gcrun" -n 1 "$b/tests/integration/p2p_grow" 100
tsan "p2p_stress -n 3" "$gcrun" -n 3 "$b/tests/integration/p2p_stress" 300
# Large messages copied by both sides: the chunk counter is atomics in
# shared memory, taken by the receiver and, in its progress, the sender.
tsan "p2p_coop -n 2" env GENCOMM_SHM_COOP_MIN=40000 \
    "$gcrun" -n 2 "$b/tests/integration/p2p_coop"
tsan "core_threads -n 2" "$gcrun" -n 2 "$b/tests/mpi/core_threads"
tsan "core_req_threads -n 1" "$gcrun" -n 1 "$b/tests/mpi/core_req_threads"
# The request tests: threads of two processes sending (done when posted)
# and completing at once, and matched probes from two threads
# (core_req_sent); the others at MPI_THREAD_MULTIPLE (core_req).
tsan "core_req -n 2" "$gcrun" -n 2 "$b/tests/mpi/core_req"
tsan "core_req_sent -n 2" "$gcrun" -n 2 "$b/tests/mpi/core_req_sent"
tsan "attr_threads -n 2" "$gcrun" -n 2 "$b/tests/mpi/attr_threads"
tsan "ext_grequest -n 2" "$gcrun" -n 2 "$b/tests/mpi/ext_grequest"
# One LCO per thread (MPIX_Comm_create_threads), channels between threads
# made at run time, several receivers on one slot, and the stress run.
tsan "thread_collectives -n 3" "$gcrun" -n 3 "$b/examples/thread_collectives"
tsan "thread_channels -n 3" "$gcrun" -n 3 "$b/examples/thread_channels"
tsan "threads_coll -n 2" "$gcrun" -n 2 "$b/tests/mpi/threads_coll"
tsan "coll_nb_threads -n 2" "$gcrun" -n 2 "$b/tests/mpi/coll_nb_threads"
# Two-process barriers (one exchange, no schedule) from two threads.
tsan "coll_pair -n 2" "$gcrun" -n 2 "$b/tests/mpi/coll_pair"
for shm in 1 0; do
    tsan "p2p_receivers shm=$shm" env GENCOMM_SHM=$shm \
        "$gcrun" -n 2 "$b/tests/integration/p2p_receivers" 4 20
done
tsan "lco_stress -n 3" "$gcrun" -n 3 "$b/tests/stress/lco_stress" -m 400 -c 4 \
    -d 200
tsan "thr_comms -n 3" "$gcrun" -n 3 "$b/tests/mpi/thr_comms" 100
tsan "thr_comms -n 2 progress thread" env GENCOMM_PROGRESS_THREAD=1 \
    "$gcrun" -n 2 "$b/tests/mpi/thr_comms" 100
tsan "thr_orphan -n 2 shm=0" env GENCOMM_SHM=0 \
    "$gcrun" -n 2 "$b/tests/mpi/thr_orphan"
tsan "thr_progress -n 2 progress thread" env GENCOMM_PROGRESS_THREAD=1 \
    "$gcrun" -n 2 "$b/tests/mpi/thr_progress"
# One-sided communication: windows over thread LCOs, and targets of other
# hosts served by the progress thread's handlers while the program runs
# (not rma_passive: its target polls memory the handlers write, on
# purpose, without a synchronization call).
tsan "rma_threads -n 2" "$gcrun" -n 2 "$b/tests/mpi/rma_threads"
tsan "rma_threads -n 2 --nodes 2" env UCX_TLS=self,tcp \
    UCX_WARN_UNUSED_ENV_VARS=n "$gcrun" -n 2 --nodes 2 \
    "$b/tests/mpi/rma_threads"
tsan "rma_acc -n 3 --nodes 2" env UCX_TLS=self,tcp \
    UCX_WARN_UNUSED_ENV_VARS=n "$gcrun" -n 3 --nodes 2 \
    "$b/tests/mpi/rma_acc"
tsan "rma_sync -n 2 --nodes 2" env UCX_TLS=self,tcp \
    UCX_WARN_UNUSED_ENV_VARS=n "$gcrun" -n 2 --nodes 2 \
    "$b/tests/mpi/rma_sync"
# Dynamic processes: connect/accept between two jobs (the contact
# service's thread answers while the main thread connects; a connection to
# another job is watched until UCX has set it up), and spawn (gcrun starts
# the children, which connect to their parents; a child spawns in turn).
# Three cycles: from four on, dpm_connect also counts the heap, which
# ThreadSanitizer's allocator does not keep as glibc's does.
dpmdir=$(mktemp -d "${TMPDIR:-/tmp}/gcm-tsan-dpm.XXXXXX")
timeout "$limit" "$gcrun" -n 2 "$b/tests/mpi/dpm_connect" accept \
    "$dpmdir/port" 3 >"$dpmdir/accept.out" 2>&1 &
acc=$!
tsan "dpm_connect connect -n 2 to an accepting job of 2" \
    "$gcrun" -n 2 "$b/tests/mpi/dpm_connect" connect "$dpmdir/port" 3
wait $acc
rc=$?
out=$(cat "$dpmdir/accept.out")
if [ "$rc" -ne 0 ] || out_has 'ThreadSanitizer'; then
    fail "dpm_connect accept -n 2 (exit $rc)"
    show_out
else
    echo "ok: dpm_connect accept -n 2"
fi
tsan "dpm_connect inner -n 2" "$gcrun" -n 2 "$b/tests/mpi/dpm_connect" \
    inner 5
tsan "dpm_spawn parent 2 -n 2" "$gcrun" -n 2 "$b/tests/mpi/dpm_spawn" \
    parent 2
rm -rf "$dpmdir"
if [ $status -eq 0 ]; then
    echo "tsan: no data race reported"
fi
finish

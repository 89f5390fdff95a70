#!/bin/sh
# tests/mpi/test_rma.sh: one-sided communication (tests/mpi/rma_*.c) at 1
# to 4 processes on one host, oversubscribed at 8, and between emulated
# hosts (gcrun --nodes) with UCX over TCP between them, as between real
# hosts. One run per path also checks, in the debug trace, that the path
# meant is the one taken: directly (shared memory, the same process), by
# the kernel's copies, or by UCX and messages.
set -u
builddir=${top_builddir:-.}
gcrun="$builddir/tools/gcrun"
dir="$builddir/tests/mpi"
status=0

run() {
    # run PROG EXPECT-IN-TRACE GCRUN-OPTIONS...
    prog=$1
    expect=$2
    shift 2
    if [ -n "$expect" ]; then
        out=$(GENCOMM_LOG_LEVEL=debug timeout 120 "$gcrun" "$@" \
              "$dir/$prog" 2>&1)
    else
        out=$(timeout 120 "$gcrun" "$@" "$dir/$prog" 2>&1)
    fi
    rc=$?
    bad=""
    if [ $rc -ne 0 ]; then
        bad="exit $rc"
    fi
    if [ -n "$expect" ] &&
       ! printf '%s\n' "$out" | grep -q "rma: window .* reaches rank .* $expect"; then
        bad="$bad; no window reached '$expect' in the trace"
    fi
    if [ -n "$bad" ]; then
        echo "FAIL: $prog $* ($bad)"
        printf '%s\n' "$out" | grep -v "debug:" | tail -30
        status=1
    else
        echo "ok: $prog $*"
    fi
}

# Between emulated hosts UCX takes TCP (and ignores the shared-memory
# setting the library makes for it).
between() {
    UCX_TLS=self,tcp UCX_WARN_UNUSED_ENV_VARS=n run "$@"
}

for prog in rma_sync rma_acc rma_win rma_err rma_passive; do
    for np in 1 2 3 4; do
        run $prog "" -n $np
    done
    between $prog "" -n 4 --nodes 2
done
run rma_sync "directly" -n 8
run rma_acc "by CMA" -n 3
between rma_acc "by UCX and messages" -n 3 --nodes 3
between rma_passive "by UCX and messages" -n 3 --nodes 2
run rma_threads "" -n 1
run rma_threads "directly" -n 2
run rma_threads "" -n 3
between rma_threads "" -n 4 --nodes 2
exit $status

#!/bin/sh
# tests/mpi/test_rma.sh: one-sided communication (tests/mpi/rma_*.c) at 1
# to 4 processes on one host, oversubscribed at 8, and between emulated
# hosts (gcrun --nodes) with UCX over TCP between them, as between real
# hosts. One run per path also checks, in the debug trace, that the path
# meant is the one taken: directly (shared memory, the same process), by
# the kernel's copies, or by UCX and messages.
set -u
. "${top_srcdir:-.}/tests/lib.sh"
dir="$builddir/tests/mpi"

# rma PROG WAY GCRUN-OPTIONS...: PROG through gcrun must exit 0; with WAY
# not empty, the debug trace must show a window reaching a rank WAY.
rma() {
    _prog=$1
    _way=$2
    shift 2
    if [ -z "$_way" ]; then
        run "$_prog $*" "$gcrun" "$@" "$dir/$_prog"
    elif GENCOMM_LOG_LEVEL=debug run "$_prog $* ($_way)" "$gcrun" "$@" \
             "$dir/$_prog" &&
         ! out_has "rma: window .* reaches rank .* $_way"; then
        fail "$_prog $*: no window reached '$_way' in the trace"
    fi
}

# Between emulated hosts UCX takes TCP (and ignores the shared-memory
# setting the library makes for it).
between() {
    UCX_TLS=self,tcp UCX_WARN_UNUSED_ENV_VARS=n rma "$@"
}

for prog in rma_sync rma_acc rma_win rma_err rma_passive; do
    for np in 1 2 3 4; do
        rma $prog "" -n $np
    done
    between $prog "" -n 4 --nodes 2
done
rma rma_sync "directly" -n 8
rma rma_acc "by CMA" -n 3
between rma_acc "by UCX and messages" -n 3 --nodes 3
between rma_passive "by UCX and messages" -n 3 --nodes 2
rma rma_threads "" -n 1
rma rma_threads "directly" -n 2
rma rma_threads "" -n 3
between rma_threads "" -n 4 --nodes 2
finish

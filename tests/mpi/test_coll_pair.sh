#!/bin/sh
# tests/mpi/test_coll_pair.sh: tests/mpi/coll_pair, the barrier of two
# processes (one exchange without a schedule): at 2 and 4 processes, in
# verification mode, and with the settings that send it down the general
# path (a forced linear barrier, the hierarchical form), each seen in the
# debug log's choice; through UCX (GENCOMM_SHM=0, two emulated hosts over
# TCP); then a partner killed while rank 0 waits in a barrier (also
# through UCX), and one dead before it enters: the barrier fails, it does
# not hang; the same for a 2-process allgather and alltoall (schedules
# whose receive waits in its step's record, kept from 3 calls before:
# "dead" sends on the kept connection to the failed partner); and a
# message sent just before the death, which must still be received even
# when rank 0 wakes to it and to the launcher's word of the death at once
# ("die sent"). Exit 0 pass, 1 fail, 77 skip.
set -u

. "${top_srcdir:-.}/tests/lib.sh"
prog="${builddir}/tests/mpi/coll_pair"
need_progs "$gcrun" "$prog"

for n in 2 4; do
    launch "$n" env GENCOMM_LOG_LEVEL=debug "$prog"
    if expect_rc 0; then
        expect_count 1 'coll_pair: all passed'
        expect_match 'coll: barrier dissemination, 2 ranks, 0 bytes'
    fi
done
launch 2 env GENCOMM_CHECK_COLLECTIVES=1 "$prog"
if expect_rc 0; then
    expect_count 1 'coll_pair: all passed'
fi
# Through UCX instead of the shared-memory rings (sends may then not be
# complete when posted), on one host and between two emulated ones.
launch 2 env GENCOMM_SHM=0 "$prog"
if expect_rc 0; then
    expect_count 1 'coll_pair: all passed'
fi
launch 2 --nodes 2 env UCX_TLS=tcp,self "$prog"
if expect_rc 0; then
    expect_count 1 'coll_pair: all passed'
fi
launch 2 env GENCOMM_LOG_LEVEL=debug GENCOMM_COLL_BARRIER=linear "$prog"
if expect_rc 0; then
    expect_count 1 'coll_pair: all passed'
    expect_match 'coll: barrier linear, 2 ranks'
    expect_count 0 'coll: barrier dissemination'
fi
launch 2 env GENCOMM_LOG_LEVEL=debug GENCOMM_COLL_HIER=1 "$prog"
if expect_rc 0; then
    expect_count 1 'coll_pair: all passed'
    expect_match 'coll: barrier hier, 2 ranks'
    expect_count 0 'coll: barrier dissemination'
fi

# A dead partner: rank 0's exit 1 after its barrier failed, or rank 1's
# SIGKILL, whichever gcrun reaps first.
export GENCOMM_KILL_GRACE_MS=5000
for how in die dead "die shm=0" "die nb" "dead nb" "die nb shm=0" \
    "die ag" "dead ag" "die a2a" "dead a2a" "die ag shm=0" "die sent"; do
    case $how in
        *shm=0) launch_for 60 2 env GENCOMM_SHM=0 "$prog" ${how% shm=0} ;;
        *) launch_for 60 2 "$prog" $how ;;
    esac
    case $rc in
        1 | 137) ;;
        *) expect_rc 137 ;;
    esac
    if [ "$rc" -eq 1 ] || [ "$rc" -eq 137 ]; then
        expect_match 'rank 1.*killed by signal 9'
        expect_count 1 'coll_pair: peer died: class [0-9]+'
        expect_count 0 'FAIL'
    fi
done
unset GENCOMM_KILL_GRACE_MS

if [ "$status" -eq 0 ]; then
    echo "all two-process barrier checks passed"
fi
finish

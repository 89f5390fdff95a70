#!/bin/sh
# tests/mpi/test_coll_staged.sh: tests/mpi/coll_staged (the blocking
# allreduce of 2 processes of one host through their staging area) with a
# low threshold and with the default one, from coll/'s debug trace that
# the calls at and above the threshold took the area and those below did
# not; with the area off and with shared memory off (both keep the
# schedule); then a peer killed while the two run 8 MiB allreduces. Exit 0
# pass, 1 fail, 77 skip.
set -u

. "${top_srcdir:-.}/tests/lib.sh"
prog="${builddir}/tests/mpi/coll_staged"
need_progs "$gcrun" "$prog"

launch_for 300 2 env GENCOMM_LOG_LEVEL=debug \
    GENCOMM_COLL_ALLREDUCE_STAGED_MIN=4096 "$prog" 4096
if expect_rc 0; then
    for phase in a b c; do
        expect_count 1 "coll_staged: \\($phase\\) ok"
    done
    expect_count 1 'coll_staged: all passed'
    expect_match 'coll: allreduce staged, 2 ranks, 4096 bytes'
    expect_match 'coll: allreduce staged, 2 ranks, 6324248 bytes'
    expect_count 0 'coll: allreduce staged, 2 ranks, 4088 bytes'
    expect_match 'coll: allreduce [a-z_]+, 2 ranks, 4088 bytes'
fi

# The default threshold (from where the area gained in every measurement:
# coll/README.md, "The staged allreduce of 2 processes").
launch_for 300 2 env GENCOMM_LOG_LEVEL=debug "$prog" 524288
if expect_rc 0; then
    expect_count 1 'coll_staged: all passed'
    expect_match 'coll: allreduce staged, 2 ranks, 524288 bytes'
    expect_count 0 'coll: allreduce staged, 2 ranks, 524280 bytes'
fi

# Off: the schedules give the same results.
for vars in GENCOMM_COLL_ALLREDUCE_STAGED_MIN=0 \
            GENCOMM_COLL_ALLREDUCE=rabenseifner; do
    launch_for 300 2 env GENCOMM_LOG_LEVEL=debug \
        "$vars" "$prog" 4096
    if expect_rc 0; then
        expect_count 1 'coll_staged: all passed'
        expect_count 0 'coll: allreduce staged'
    fi
done

# No shared memory: neither side can map the other's area, both say so
# and keep the schedules.
launch_for 300 2 env GENCOMM_LOG_LEVEL=debug GENCOMM_SHM=0 \
    GENCOMM_COLL_ALLREDUCE_STAGED_MIN=4096 "$prog" 4096
if expect_rc 0; then
    expect_count 1 'coll_staged: all passed'
    expect_count 0 'coll: allreduce staged, '
    expect_match 'coll: allreduce staged area refused'
fi

# A peer killed at any point of its calls: rank 0's allreduce fails, it
# does not hang, and the job ends as a failure (rank 0's exit 1, or rank
# 1's SIGKILL, whichever gcrun reaps first).
export GENCOMM_KILL_GRACE_MS=5000
launch_for 120 2 "$prog" 524288 die
# MPI_ERR_PROC_FAILED is 26 (compat/mpi.h).
expect_peer_killed 'coll_staged: peer died: class 26'
unset GENCOMM_KILL_GRACE_MS

if [ "$status" -eq 0 ]; then
    echo "all staged allreduce checks passed"
fi
finish

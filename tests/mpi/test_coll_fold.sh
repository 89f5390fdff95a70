#!/bin/sh
# tests/mpi/test_coll_fold.sh: tests/mpi/coll_fold (large reductions that
# combine the partner's data piece by piece as they read it; large
# exchanges in which both processes read at once) at 2, 3 and 4
# processes; from the debug log's counts at finalize, that the reads were
# folded and that an exchange's readers read alone; then a peer that dies
# while its half of a 64 MiB allreduce is read. Exit 0 pass, 1 fail, 77
# skip.
set -u

. "${top_srcdir:-.}/tests/lib.sh"
prog="${builddir}/tests/mpi/coll_fold"
need_progs "$gcrun" "$prog"

# The sum of the first number of every line of out that matches RE.
count_sum() {
    printf '%s\n' "$out" | sed -n "s/$1/\\1/p" |
        awk '{ s += $1 } END { print s + 0 }'
}

for n in 2 3 4; do
    launch_for 180 "$n" env GENCOMM_LOG_LEVEL=debug \
        GENCOMM_COLL_ALLREDUCE=rabenseifner "$prog"
    if expect_rc 0; then
        for phase in a b c d e; do
            expect_count 1 "coll_fold: \\($phase\\) ok"
        done
        expect_count 1 'coll_fold: all passed'
        folded=$(count_sum '.*to read, [0-9]* folded reads in \([0-9]*\) pieces.*')
        if [ "$folded" -eq 0 ]; then
            fail_out "$n processes: no read was folded"
        fi
        if [ "$n" -eq 2 ]; then
            alone=$(count_sum '.*: \([0-9]*\) large reads alone while.*')
            if [ "$alone" -eq 0 ]; then
                fail_out "2 processes: every exchange offered a share"
            fi
        fi
    fi
done

# The default choice of schedule at 2 processes folds too (Rabenseifner
# from 16 KiB; the staging area, which would take the large blocking calls
# at 2 processes, off: tests/mpi/test_coll_staged.sh).
launch_for 180 2 env GENCOMM_LOG_LEVEL=debug \
    GENCOMM_COLL_ALLREDUCE_STAGED_MIN=0 "$prog"
if expect_rc 0; then
    expect_count 1 'coll_fold: all passed'
    expect_match 'coll: allreduce rabenseifner, 2 ranks, 1048576 bytes'
    expect_match '[1-9][0-9]* folded reads'
fi

# Reduce alone: the binomial tree's receives fold. From
# GENCOMM_COLL_REDUCE_FOLD_MAX (256 KiB; phase (e) reduces 1 MiB too) a
# sender with a core of its own (2 processes on 2 CPUs or more) is offered
# a share of its vector, which the root folds once it is in; with
# GENCOMM_COLL_REDUCE_SHARE_FOLD=0 those reads are shared but not folded.
ncpu=$(nproc 2>/dev/null || getconf _NPROCESSORS_ONLN)
for n in 2 3 4; do
    launch_for 180 "$n" env GENCOMM_LOG_LEVEL=debug "$prog" reduce
    if expect_rc 0; then
        expect_count 1 'coll_fold: \(e\) ok'
        folded=$(count_sum '.*to read, [0-9]* folded reads in \([0-9]*\) pieces.*')
        if [ "$folded" -eq 0 ]; then
            fail_out "reduce, $n processes: no read was folded"
        fi
        shared=$(count_sum '.* pieces, \([0-9]*\) of those reads shared.*')
        if [ "$n" -eq 2 ] && [ "$ncpu" -ge 2 ] && [ "$shared" -eq 0 ]; then
            fail_out "reduce, 2 processes: no 1 MiB read was shared"
        fi
        if [ "$n" -gt "$ncpu" ] && [ "$shared" -ne 0 ]; then
            fail_out "reduce, $n processes on $ncpu CPUs: $shared reads shared"
        fi
    fi
done
if [ "$ncpu" -ge 2 ]; then
    launch_for 180 2 env GENCOMM_LOG_LEVEL=debug \
        GENCOMM_COLL_REDUCE_SHARE_FOLD=0 "$prog" reduce
    if expect_rc 0; then
        expect_count 1 'coll_fold: \(e\) ok'
        shared=$(count_sum '.* pieces, \([0-9]*\) of those reads shared.*')
        coop=$(count_sum '.*: \([0-9]*\) cooperative copies to it.*')
        if [ "$shared" -ne 0 ] || [ "$coop" -eq 0 ]; then
            fail_out "reduce, GENCOMM_COLL_REDUCE_SHARE_FOLD=0: $shared folded shared reads, $coop cooperative copies"
        fi
    fi
fi

# GENCOMM_COLL_REDUCE_FOLD_MAX=0 with GENCOMM_COLL_REDUCE_SHARE_FOLD=0:
# the reduce's receives do not fold at all (its 64 KiB vectors are under
# the default and fold above).
launch_for 180 2 env GENCOMM_LOG_LEVEL=debug GENCOMM_COLL_REDUCE_FOLD_MAX=0 \
    GENCOMM_COLL_REDUCE_SHARE_FOLD=0 "$prog" reduce
if expect_rc 0; then
    expect_count 1 'coll_fold: \(e\) ok'
    folded=$(count_sum '.*to read, [0-9]* folded reads in \([0-9]*\) pieces.*')
    if [ "$folded" -ne 0 ]; then
        fail_out "reduce, GENCOMM_COLL_REDUCE_FOLD_MAX=0 and SHARE_FOLD=0: $folded folded pieces"
    fi
fi

# A peer killed while its half is read: the allreduce fails, it does not
# hang, and the job ends as a failure (rank 0's exit 1, or rank 1's
# SIGKILL, whichever gcrun reaps first).
export GENCOMM_KILL_GRACE_MS=5000
launch_for 60 2 env GENCOMM_COLL_ALLREDUCE_STAGED_MIN=0 "$prog" die
expect_peer_killed 'coll_fold: peer died: class [0-9]+'
unset GENCOMM_KILL_GRACE_MS

if [ "$status" -eq 0 ]; then
    echo "all folded reduction checks passed"
fi
finish

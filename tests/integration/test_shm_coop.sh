#!/bin/bash
# Large same-host messages copied by sender and receiver together
# (GENCOMM_SHM_COOP_MIN, slots/slot_shm_coop.c): content at sizes around
# the threshold, many at once both ways, truncation, the senders' share
# of the chunks (from the debug log's count at finalize), the
# receiver-only read when the path is off or the host has more processes
# than cores, and a sender that dies while it is copied. Exit 0 pass,
# 1 fail, 77 skip.
set -u

. "${top_srcdir:-.}/tests/lib.sh"
progs="${builddir}/tests/integration"
need_progs "$gcrun" "$progs/p2p_coop"

phases() {
    for phase in a b c d; do
        expect_count 2 "p2p_coop: P[01] \\($phase\\) .* ok"
    done
    expect_count 1 'p2p_coop: all checks passed'
}

# Reads by the receiver alone because the host has more of the job's
# processes than cores: no copy offered, each counted.
crowded() {
    expect_count 0 'cooperative copies'
    expect_match 'shm endpoint 0: [1-9][0-9]* large reads alone, with more'
}

# The default threshold (16 KiB: more sizes around it, in two halves)
# and 256 KiB (where the chunks change from two halves to quarters),
# with 2 and 3 processes (the third only joins finalize). More processes
# than the CPUs (3 on this project's 2): the receiver reads alone.
ncpu=$(nproc 2>/dev/null || getconf _NPROCESSORS_ONLN)
for min in 16384 262144; do
    for n in 2 3; do
        launch_for 120 "$n" env GENCOMM_SHM_COOP_MIN=$min \
            GENCOMM_LOG_LEVEL=debug "$progs/p2p_coop"
        if [ "$n" -gt "$ncpu" ] && expect_rc 0; then
            phases
            crowded
        elif expect_rc 0; then
            phases
            # Process 0 received cooperatively, and its sender, waiting
            # in gcm_send during (c), wrote some of the chunks.
            expect_match 'shm endpoint 0: [1-9][0-9]* cooperative copies to it'
            helped=$(printf '%s\n' "$out" |
                sed -n 's/.*copies to it, \([0-9]*\) of their.*/\1/p' |
                awk '{ s += $1 } END { print s + 0 }')
            if [ "$helped" -eq 0 ]; then
                fail_out "no sender wrote a chunk (GENCOMM_SHM_COOP_MIN=$min)"
            fi
        fi
    done
done

# 64 KiB messages at the default threshold (unset): each is offered to
# its sender, in two halves (slots/README.md, "Small cooperative
# copies"). Whether the sender takes its half depends on the scheduler,
# so only the offers are counted.
if [ "$ncpu" -ge 2 ]; then
    launch_for 120 2 env -u GENCOMM_SHM_COOP_MIN GENCOMM_LOG_LEVEL=debug \
        "$progs/p2p_coop" small
    if expect_rc 0; then
        expect_count 2 'p2p_coop: P[01] \(e\) .* ok'
        expect_count 1 'p2p_coop: all checks passed'
        expect_match 'shm endpoint 0: [1-9][0-9]* cooperative copies to it'
    fi
else
    echo "64 KiB in two halves: SKIPPED (one CPU)"
fi

# Both processes on one CPU (unbound): more processes than cores on any
# machine, so no copy is offered.
if command -v taskset >/dev/null 2>&1; then
    launch_for 120 2 --bind-to none taskset -c 0 env GENCOMM_LOG_LEVEL=debug \
        "$progs/p2p_coop"
    if expect_rc 0; then
        phases
        crowded
    fi
else
    echo "one CPU: SKIPPED (no taskset)"
fi

# Off: the receiver reads alone, and says nothing of cooperative copies.
launch_for 120 2 env GENCOMM_SHM_COOP_MIN=0 GENCOMM_LOG_LEVEL=debug \
    "$progs/p2p_coop"
if expect_rc 0; then
    phases
    expect_count 0 'cooperative copies'
fi

# A sender killed while its 512 MiB message is copied: the receive fails
# (or holds every byte, if the copy ended first), it does not hang, and
# the job ends as a failure. gcrun's status is the first failure it
# reaps: rank 1's SIGKILL (137), or rank 0, which saw the death at once
# and left without finalizing (1); the kill is reported either way.
export GENCOMM_KILL_GRACE_MS=5000
launch_for 60 2 "$progs/p2p_coop" die
case $rc in
    1 | 137) ;;
    *) expect_rc 137 ;;
esac
if [ "$rc" -eq 1 ] || [ "$rc" -eq 137 ]; then
    expect_match 'rank 1.*killed by signal 9'
    expect_count 1 'p2p_coop: P0 sender died: '
fi
unset GENCOMM_KILL_GRACE_MS

if [ "$status" -eq 0 ]; then
    echo "all cooperative copy checks passed"
fi
finish

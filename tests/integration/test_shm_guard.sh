#!/bin/sh
# tests/integration/test_shm_guard.sh: a process outside a job (same user)
# attacks the shared memory of one of its ranks (shm_intruder) while the
# rank waits for a message (shm_guard): a ring claimed in another rank's
# name, a forged message in it, a claim note and wakeup datagrams in that
# rank's name, a rewritten segment header. The rank must receive only the
# real message, not crash, and warn (at the default level) that it
# refused the claim and dropped the datagrams. Then messages that never
# come due, written into a rank's own ring, must fail its connection once
# more than a bound of them wait.
# Exit status: 0 passed, 1 failed, 77 skipped.
set -u
. "${top_srcdir:-.}/tests/lib.sh"
GUARD=$builddir/tests/integration/shm_guard
INTRUDER=$builddir/tests/integration/shm_intruder
need_progs "$gcrun" "$GUARD" "$INTRUDER"

make_tmp test_shm_guard

unset GENCOMM_LOG_LEVEL GENCOMM_SHM GENCOMM_HOSTNAME

# attack MODE: one job, one intruder run against its rank 0; sets $out.
attack() {
    dir=$tmp/$1
    mkdir -p "$dir"
    extra=
    [ "$1" = park ] && extra=park
    # shellcheck disable=SC2086 # $extra is one word or none
    timeout -k 5 150 "$gcrun" -n 2 "$GUARD" "$dir" $extra >"$dir/out" 2>&1 &
    job=$!
    waited=0
    while [ ! -f "$dir/ready" ]; do
        if ! kill -0 "$job" 2>/dev/null || [ $waited -ge 3000 ]; then
            fail "$1: the job never got ready"
            cat "$dir/out"
            return 1
        fi
        sleep 0.01
        waited=$((waited + 1))
    done
    "$INTRUDER" "$1" "$(cat "$dir/ready")" 1 >"$dir/intruder" 2>&1
    irc=$?
    cat "$dir/intruder"
    : >"$dir/done"
    wait "$job"
    rc=$?
    job=
    cat "$dir/out"
    out=$dir/out
    if [ $irc -eq 77 ]; then
        echo "SKIP: the rank's shared memory was not in use (see above)"
        exit 77
    fi
    if [ $irc -ne 0 ]; then
        fail "$1: the intruder failed (exit $irc)"
    fi
    if ! grep -q "shm_guard: OK" "$out"; then
        fail "$1: the job (exit $rc) did not receive only the real" \
            "message"
        return 1
    fi
    return 0
}

# A ring, a message, a claim and wakeups in another rank's name.
if attack forge; then
    if ! grep -q "warn.*claim of ring .* refused" "$out"; then
        fail "forge: no warning that the forged claim was refused"
    fi
    if ! grep -q "warn.*wakeup socket from pid .* refused" "$out"; then
        fail "forge: no warning that datagrams from outside the job" \
            "were dropped"
    fi
fi
# A segment header whose ring count and size do not fit the segment.
attack header
# Messages in a rank's own ring whose sequence numbers never come due:
# parked up to a bound, then the connection fails with an error.
if attack park; then
    if ! grep -q "error.*ahead of their turn.*the connection fails" "$out"; then
        fail "park: no error naming the connection that failed"
    fi
fi

[ $status -eq 0 ] && echo "ok: nothing from outside the job was delivered"
finish

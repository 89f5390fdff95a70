#!/bin/sh
# tests/test_helpers.sh: the test helper layer checks what it is given:
# tests/mpi/mpitest.h, tests/integration/gcm_test.h (through the two
# *_self programs) and tests/lib.sh itself. Each helper must pass what
# holds and must fail, with its FAIL line, what does not.
set -u
. "${top_srcdir:-.}/tests/lib.sh"

mpiself=$builddir/tests/mpi/mpitest_self
gcmself=$builddir/tests/integration/gcm_test_self
need_progs "$gcrun" "$mpiself" "$gcmself"

# count PATTERN: lines of out matching PATTERN (grep -E).
count() {
    printf '%s\n' "$out" | grep -cE -- "$1"
}

for np in 1 3; do
    if run "mpitest.h: checks that hold pass ($np processes)" \
        "$gcrun" -n "$np" "$mpiself"; then
        [ "$(count '^mpitest_self: all passed at '"$np"' processes$')" -eq 1 ] ||
            fail "mpitest.h: no pass line at $np processes"
    fi
    if expect "mpitest.h: CHECK, OK, EXPECT and TCHECK catch what is false ($np processes)" \
        1 "$gcrun" -n "$np" "$mpiself" fail; then
        [ "$(count '^FAIL: .*\(rank [0-9]+ of '"$np"', line [0-9]+\)$')" -eq $((3 * np)) ] ||
            { fail "mpitest.h: not 3 FAIL lines per rank"; show_out; }
        [ "$(count '^FAIL: .*\(rank [0-9]+ of '"$np"', thread 5, line [0-9]+\)$')" -eq $((2 * np)) ] ||
            { fail "mpitest.h: not 2 TCHECK lines per rank"; show_out; }
        [ "$(count 'TCHECK counted')" -eq 0 ] || fail "mpitest.h: TCHECK miscounted"
        [ "$(count 'all passed')" -eq 0 ] || fail "mpitest.h: a pass line after failures"
    fi

    if run "gcm_test.h: checks that hold pass, names exchanged ($np processes)" \
        "$gcrun" -n "$np" "$gcmself"; then
        [ "$(count '^gcm_test_self: all checks passed$')" -eq 1 ] ||
            fail "gcm_test.h: no pass line at $np processes"
    fi
    if expect "gcm_test.h: fail, ok and expect_err report what is wrong ($np processes)" \
        1 "$gcrun" -n "$np" "$gcmself" fail; then
        [ "$(count '^gcm_test_self: P[0-9]+: ')" -eq $((3 * np)) ] ||
            { fail "gcm_test.h: not 3 reports per process"; show_out; }
        [ "$(count 'expected 3')" -eq 0 ] || fail "gcm_test.h: miscounted failures"
    fi
done

# lib.sh: a command that fails, one that exits otherwise than expected and
# one that outlives the limit each fail, and set status; one that exits
# as expected passes.
(
    status=0
    run "x" false >/dev/null
    [ "$status" -eq 1 ] || exit 1
    status=0
    expect "x" 3 sh -c 'exit 3' >/dev/null
    [ "$status" -eq 0 ] || exit 2
    expect "x" 0 sh -c 'exit 3' >/dev/null
    [ "$status" -eq 1 ] || exit 3
    status=0
    limit=1
    expect "x" 124 sleep 5 >/dev/null
    [ "$status" -eq 1 ] || exit 4
    # A hang shows the stacks of what still runs.
    limit=4
    expect "x" 124 sleep 30 >/dev/null
    printf '%s\n' "$out" | grep -q '^---- stacks of pid [0-9]*: sleep 30' ||
        exit 5
    exit 0
)
r=$?
if [ "$r" -eq 0 ]; then
    echo "ok: lib.sh: run and expect judge exit statuses and time limits"
else
    fail "lib.sh: case $r judged wrongly"
fi
finish

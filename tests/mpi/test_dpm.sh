#!/bin/bash
# Dynamic processes between separately launched jobs (tests/mpi/
# dpm_connect.c): 100 connect/accept/disconnect cycles between two gcrun
# jobs with file descriptors, heap and connections checked for leaks; a
# connection of groups of 2 and 3 processes found through
# MPI_Publish_name / MPI_Lookup_name; the errors (MPI_ERR_PORT for a bad,
# wrong, closed, unanswered and dead port, on every process; MPI_ERR_NAME,
# MPI_ERR_SERVICE); MPI_Comm_join; a job killed while connected (the
# other's receive fails with MPI_ERR_PROC_FAILED); MPI_Comm_spawn and
# spawn_multiple from 1, 2 and 4 parents (tests/mpi/dpm_spawn.c), with
# gcrun's --universe. Exit 0 pass, 1 fail, 77 skip.
set -u

top_builddir=${top_builddir:-.}
gcrun="${top_builddir}/tools/gcrun"
prog="${top_builddir}/tests/mpi/dpm_connect"
sprog="${top_builddir}/tests/mpi/dpm_spawn"

if [ ! -x "$gcrun" ] || [ ! -x "$prog" ]; then
    echo "SKIP: gcrun or dpm_connect is not built"
    exit 77
fi

dir=$(mktemp -d "${TMPDIR:-/tmp}/gcm-dpm.XXXXXX") || exit 1
trap 'rm -rf "$dir"' EXIT
failures=0

fail() {
    echo "FAIL: $*"
    failures=$((failures + 1))
}

# expect FILE COUNT REGEX: exactly COUNT lines of FILE match REGEX.
expect() {
    local got
    got=$(grep -c -E -- "$3" "$1")
    if [ "$got" -ne "$2" ]; then
        fail "$got lines of $(basename "$1") match '$3', expected $2"
        sed 's/^/   | /' "$1"
    fi
}

# pair LABEL NACC NCONN WHERE CYCLES: an accepting and a connecting job.
pair() {
    local label=$1 nacc=$2 ncon=$3 where=$4 cycles=$5 arc crc
    timeout 120 "$gcrun" -n "$nacc" "$prog" accept "$where" "$cycles" \
        >"$dir/$label.acc" 2>&1 &
    local acc=$!
    timeout 120 "$gcrun" -n "$ncon" "$prog" connect "$where" "$cycles" \
        >"$dir/$label.con" 2>&1
    crc=$?
    wait "$acc"
    arc=$?
    echo "== $label: accepting job ($nacc) exit $arc, connecting job" \
         "($ncon) exit $crc"
    [ "$arc" -eq 0 ] || { fail "$label: accepting job exited $arc";
                          sed 's/^/   | /' "$dir/$label.acc"; }
    [ "$crc" -eq 0 ] || { fail "$label: connecting job exited $crc";
                          sed 's/^/   | /' "$dir/$label.con"; }
    grep -h -E 'first|times|before and after' \
        "$dir/$label.acc" "$dir/$label.con" |
        sed 's/^/   /'
}

# --- 100 cycles, leaks checked (malloc's per-thread caches off, so that the
# heap in use is exact) ---------------------------------------------------
GLIBC_TUNABLES=glibc.malloc.tcache_count=0 pair cycles 1 1 "$dir/port" 100
expect "$dir/cycles.acc" 1 'dpm_connect: rank 0: 100 cycles, .* before and after'
expect "$dir/cycles.con" 1 'dpm_connect: rank 0: 100 cycles, .* before and after'

# --- groups of 2 and 3, through the name service ---------------------------
pair names 2 3 "name:gcm-dpm-test-$$" 3
expect "$dir/names.con" 1 'dpm_connect: looked up gcm-dpm-test'
expect "$dir/names.acc" 2 'dpm_connect: rank [01] ok'
expect "$dir/names.con" 3 'dpm_connect: rank [012] ok'

# --- errors, on one process and on two (every process reports them) -------
for n in 1 2; do
    timeout 60 "$gcrun" -n "$n" "$prog" errors "$dir/port" \
        >"$dir/errors$n" 2>&1
    rc=$?
    echo "== errors on $n process(es): exit $rc"
    [ "$rc" -eq 0 ] || { fail "errors with $n exited $rc";
                         sed 's/^/   | /' "$dir/errors$n"; }
    expect "$dir/errors$n" 5 'dpm_connect: .* refused in .*MPI_Comm_connect'
    expect "$dir/errors$n" 1 'dpm_connect: name service errors ok'
done
grep -E 'refused in' "$dir/errors1" | sed 's/^/   /'

# --- connect and accept within one job, used at once ----------------------
timeout 60 "$gcrun" -n 2 "$prog" inner 20 >"$dir/inner" 2>&1
rc=$?
echo "== within a job: exit $rc"
[ "$rc" -eq 0 ] || { fail "inner exited $rc"; sed 's/^/   | /' "$dir/inner"; }
expect "$dir/inner" 1 'dpm_connect: 20 connections within a job'

# --- join ----------------------------------------------------------------
timeout 60 "$gcrun" -n 2 "$prog" join >"$dir/join" 2>&1
rc=$?
echo "== join: exit $rc"
[ "$rc" -eq 0 ] || fail "join exited $rc"
expect "$dir/join" 1 'dpm_connect: joined over a socket'

# --- a job killed while connected -----------------------------------------
timeout 60 "$gcrun" -n 1 "$prog" victim "$dir/vport" >"$dir/victim" 2>&1 &
vpid=$!
timeout 60 "$gcrun" -n 2 "$prog" survivor "$dir/vport" >"$dir/survivor" 2>&1
rc=$?
wait "$vpid"
vrc=$?
echo "== killed job: victim exit $vrc, survivor exit $rc"
[ "$vrc" -ne 0 ] || fail "the victim's job exited 0"
[ "$rc" -eq 0 ] || { fail "survivor exited $rc";
                     sed 's/^/   | /' "$dir/survivor"; }
expect "$dir/survivor" 2 'failed in .* with MPI_ERR_PROC_FAILED'
grep -m1 'PROC_FAILED' "$dir/survivor" | sed 's/^/   /'

# --- spawn -------------------------------------------------------------------
for pc in "1 1" "2 3" "4 2"; do
    set -- $pc
    timeout 120 "$gcrun" -n "$1" "$sprog" parent "$2" >"$dir/spawn$1" 2>&1
    rc=$?
    echo "== spawn: $1 parent(s), $2 children: exit $rc"
    [ "$rc" -eq 0 ] || { fail "spawn from $1 exited $rc";
                         sed 's/^/   | /' "$dir/spawn$1"; }
    expect "$dir/spawn$1" 1 "dpm_spawn: $1 parents spawned $2 children"
    expect "$dir/spawn$1" 1 'dpm_spawn: spawn_multiple of two commands'
    expect "$dir/spawn$1" 1 'dpm_spawn: a child spawned a grandchild'
    expect "$dir/spawn$1" 1 'dpm_spawn: a missing program refused, nothing'
    expect "$dir/spawn$1" "$1" 'dpm_spawn: rank [0-9]+ ok'
done
timeout 120 "$gcrun" -n 2 --universe 7 "$sprog" parent 1 7 \
    >"$dir/universe" 2>&1
rc=$?
echo "== spawn with --universe 7: exit $rc"
[ "$rc" -eq 0 ] || { fail "--universe 7 exited $rc";
                     sed 's/^/   | /' "$dir/universe"; }

if [ "$failures" -ne 0 ]; then
    echo "$failures check(s) failed"
    exit 1
fi
echo "all checks passed"
exit 0

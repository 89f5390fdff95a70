#!/bin/bash
# tests/legacy/test_legacy.sh [--update-expected]: legacy MPI programs give
# the same output under gencomm as under Open MPI.
#
# Each program in tests/legacy/ is built unchanged against compat/mpi.h
# (check_PROGRAMS) and run through gcrun at the process counts it supports.
# Its standard output (rank 0 prints everything, deterministically) is
# compared with the output of the SAME source built by mpicc.openmpi and
# run by mpirun.openmpi at the same count; without Open MPI, with the
# section "== np N" of tests/legacy/<prog>.expected, recorded from such
# runs. --update-expected rewrites those files from Open MPI runs;
# LEGACY_REFERENCE=expected uses the files even where Open MPI is installed.
set -u
b=${top_builddir:-.}
s=${top_srcdir:-${srcdir:-.}}
gcrun="$b/tools/gcrun"
update=0
[ "${1:-}" = "--update-expected" ] && update=1

# program and process counts (intercomm needs two groups)
progs="jacobi:1,2,3,4 taskfarm:1,2,3,4 cpi:1,2,3,4 samplesort:1,2,3,4
matstruct:1,2,3,4 ring:1,2,3,4 intercomm:2,3,4 bsendlog:1,2,3,4
reduceops:1,2,3,4 p2pmisc:1,2,3,4 dht:1,2,3,4 halo:1,2,3,4"

ompi=0
ompidir="$b/tests/legacy/openmpi"
if [ "${LEGACY_REFERENCE:-}" != expected ] &&
    command -v mpicc.openmpi >/dev/null &&
    command -v mpirun.openmpi >/dev/null; then
    ompi=1
    mkdir -p "$ompidir"
fi
if [ $update -eq 1 ] && [ $ompi -eq 0 ]; then
    echo "--update-expected needs mpicc.openmpi and mpirun.openmpi" >&2
    exit 2
fi

tmp=$(mktemp -d "${TMPDIR:-/tmp}/legacy.XXXXXX")
trap 'rm -rf "$tmp"' EXIT

# Open MPI as root in a container: allow root, allow more processes than
# cores, and no single-copy mechanism (needs ptrace rights). Without it
# the one-sided component Open MPI picks for MPI_Win_create (rdma) fails
# to make the window: its UCX component serves the RMA programs.
ompi_run() {
    local np=$1 prog=$2
    OMPI_MCA_btl_vader_single_copy_mechanism=none \
        timeout 60 mpirun.openmpi --allow-run-as-root --oversubscribe \
        --mca osc ucx -np "$np" "$prog"
}

# expected_section FILE NP: the lines of section "== np NP" of FILE.
expected_section() {
    awk -v want="== np $2" '
        /^== np [0-9]+$/ { on = ($0 == want); next }
        on { print }' "$1"
}

fail=0
used_ompi=0
used_file=0
for entry in $progs; do
    p=${entry%%:*}
    nps=$(tr ',' ' ' <<<"${entry#*:}")
    src="$s/tests/legacy/$p.c"
    exp="$s/tests/legacy/$p.expected"
    ref_ok=0
    if [ $ompi -eq 1 ]; then
        if mpicc.openmpi -O2 -w -o "$ompidir/$p" "$src" -lm \
            2>"$tmp/cc.err"; then
            ref_ok=1
        else
            echo "note: mpicc.openmpi cannot build $p; using $p.expected"
            head -5 "$tmp/cc.err"
        fi
    fi
    [ $update -eq 1 ] && : >"$tmp/$p.expected"
    for np in $nps; do
        what="$p with $np processes"
        ref="$tmp/$p.$np.ref"
        how=""
        if [ $ref_ok -eq 1 ]; then
            if ompi_run "$np" "$ompidir/$p" >"$ref" 2>"$tmp/ompi.err"; then
                how="Open MPI"
                used_ompi=1
            else
                echo "note: Open MPI run of $what failed; using $p.expected"
                tail -5 "$tmp/ompi.err"
            fi
        fi
        if [ $update -eq 1 ]; then
            if [ -z "$how" ]; then
                echo "FAIL: no Open MPI output for $what"
                fail=1
                continue
            fi
            { echo "== np $np"; cat "$ref"; } >>"$tmp/$p.expected"
        fi
        if [ -z "$how" ]; then
            if [ ! -f "$exp" ] || ! grep -qx "== np $np" "$exp"; then
                echo "FAIL: $what: no reference (no Open MPI, no expected)"
                fail=1
                continue
            fi
            expected_section "$exp" "$np" >"$ref"
            how="$p.expected"
            used_file=1
        elif [ -f "$exp" ] &&
            ! expected_section "$exp" "$np" | cmp -s - "$ref"; then
            # Not a failure (the reference is Open MPI itself) but the
            # committed file is stale or Open MPI is not deterministic.
            echo "note: Open MPI output of $what differs from $p.expected"
        fi
        out="$tmp/$p.$np.out"
        timeout 120 "$gcrun" -n "$np" "$b/tests/legacy/$p" >"$out" \
            2>"$tmp/gc.err"
        rc=$?
        if [ $rc -ne 0 ]; then
            echo "FAIL: $what under gencomm: exit status $rc"
            tail -15 "$tmp/gc.err"
            diff "$ref" "$out" | head -15
            fail=1
        elif grep -qE 'runtime error:|(Address|Leak|Thread)Sanitizer' \
            "$tmp/gc.err"; then
            # UBSan reports and goes on: its reports fail the run too.
            echo "FAIL: $what under gencomm: sanitizer report"
            grep -E -A8 'runtime error:|Sanitizer' "$tmp/gc.err" | head -20
            fail=1
        elif ! diff "$ref" "$out" >"$tmp/diff" &&
            [ "$how" = "Open MPI" ] && [ -f "$exp" ] &&
            expected_section "$exp" "$np" | cmp -s - "$out"; then
            # Open MPI's own run strayed from the recorded output (seen
            # under load: a sum printed with another rounding) while
            # gencomm's matches the record: the record is the reference.
            expected_section "$exp" "$np" >"$ref"
            echo "ok: $what (as $p.expected; Open MPI's run differed)"
        elif ! diff "$ref" "$out" >"$tmp/diff"; then
            echo "FAIL: $what: gencomm output differs from $how" \
                "(< $how, > gencomm)"
            head -20 "$tmp/diff"
            tail -5 "$tmp/gc.err"
            fail=1
        else
            echo "ok: $what, same output as $how"
        fi
    done
    if [ $update -eq 1 ]; then
        cp "$tmp/$p.expected" "$exp"
        continue
    fi
    # As a user would: the build tree's mpicc and mpiexec wrappers, on the
    # same source, at 3 processes, against the same reference.
    if [ -x "$b/tools/mpicc" ] && [ -x "$b/tools/mpiexec" ] &&
        [ -f "$tmp/$p.3.ref" ]; then
        what="$p built by tools/mpicc, run by tools/mpiexec -n 3"
        if ! "$b/tools/mpicc" -w -o "$tmp/$p.wrapped" "$src" -lm \
            2>"$tmp/cc.err"; then
            echo "FAIL: $what: does not compile"
            head -10 "$tmp/cc.err"
            fail=1
        elif ! timeout 120 "$b/tools/mpiexec" -n 3 "$tmp/$p.wrapped" \
            >"$tmp/$p.wrapped.out" 2>"$tmp/gc.err"; then
            echo "FAIL: $what: exit status $?"
            tail -15 "$tmp/gc.err"
            fail=1
        elif ! diff "$tmp/$p.3.ref" "$tmp/$p.wrapped.out" >"$tmp/diff"; then
            echo "FAIL: $what: output differs"
            head -20 "$tmp/diff"
            fail=1
        else
            echo "ok: $what, same output"
        fi
    fi
done

if [ $used_ompi -eq 1 ] && [ $used_file -eq 0 ]; then
    echo "reference: Open MPI ($(mpirun.openmpi --version 2>&1 | head -1))"
elif [ $used_ompi -eq 1 ]; then
    echo "reference: Open MPI, and tests/legacy/*.expected where it failed"
else
    echo "reference: tests/legacy/*.expected (no Open MPI, or LEGACY_REFERENCE)"
fi
exit $fail

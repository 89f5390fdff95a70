#!/bin/bash
# The benchmark programs still build and run (short runs; figures are not
# judged here: make bench reports them). Each must print one CSV row per
# measurement in the format bench/run collects.
set -u
b=$(cd "${top_builddir:-.}" && pwd)
s=$(cd "${top_srcdir:-$b}" && pwd)
fail=0

# check_rows WHAT IMPL MIN OUTPUT: at least MIN well-formed rows of IMPL.
check_rows() {
    local what=$1 impl=$2 want=$3 out=$4 n
    n=$(grep -cE "^(latency|bandwidth|comm_dup_np[0-9]+),[0-9]+,${impl},\
[0-9.]+,(us|MB/s)$" <<<"$out")
    if [ "$n" -lt "$want" ]; then
        echo "FAIL: $what printed $n rows, expected $want"; echo "$out"
        fail=1
    else
        echo "ok: $what ($n rows)"
    fi
}

out=$(timeout 120 "$b/tools/gcrun" -n 2 "$b/bench/gcm_bench" --quick 2>&1)
rc=$?
[ $rc -eq 0 ] || { echo "FAIL: gcm_bench exit $rc"; echo "$out"; fail=1; }
check_rows "gcm_bench --quick" gencomm 7 "$out"

out=$(timeout 120 "$b/bench/ucx_am_bench" --quick --no-bind 2>&1)
rc=$?
[ $rc -eq 0 ] || { echo "FAIL: ucx_am_bench exit $rc"; echo "$out"; fail=1; }
check_rows "ucx_am_bench --quick" ucx 7 "$out"

# mpi_bench.c against gencomm's MPI layer, built as bench/run builds it
# (the build tree's mpicc) and started by gcrun as bench/run starts it: 7
# point-to-point rows and comm_dup_np2 with 2 processes, comm_dup_np3 alone
# with 3.
work=$(mktemp -d "${TMPDIR:-/tmp}/gencomm-bench-test.XXXXXX")
trap 'rm -rf "$work"' EXIT
exe=$work/mpi_bench.gencomm
if ! "$b/tools/mpicc" -std=gnu11 -O2 -Wall -Werror -o "$exe" \
        "$s/bench/mpi_bench.c"; then
    echo "FAIL: mpi_bench.c does not build with tools/mpicc"
    exit 1
fi
out=$(timeout 120 "$b/tools/gcrun" -n 2 "$exe" gencomm-mpi --quick 2>&1)
rc=$?
[ $rc -eq 0 ] || { echo "FAIL: mpi_bench (gencomm) exit $rc"; echo "$out"
                   fail=1; }
check_rows "mpi_bench gencomm-mpi --quick, 2 processes" gencomm-mpi 8 "$out"
grep -q '^comm_dup_np2,0,gencomm-mpi,' <<<"$out" ||
    { echo "FAIL: no comm_dup_np2 row"; fail=1; }

out=$(timeout 120 "$b/tools/gcrun" -n 3 "$exe" gencomm-mpi --quick 2>&1)
rc=$?
[ $rc -eq 0 ] || { echo "FAIL: mpi_bench (gencomm, 3) exit $rc"; echo "$out"
                   fail=1; }
check_rows "mpi_bench gencomm-mpi --quick, 3 processes" gencomm-mpi 1 "$out"
if grep -qE '^(latency|bandwidth|comm_dup_np2),' <<<"$out" ||
    ! grep -q '^comm_dup_np3,0,gencomm-mpi,' <<<"$out"; then
    echo "FAIL: with 3 processes only comm_dup_np3 should be printed"
    echo "$out"; fail=1
fi
exit $fail

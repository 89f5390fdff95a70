#!/bin/bash
# The benchmark programs still build and run (short runs; figures are not
# judged here: make bench reports them). Each must print one CSV row per
# measurement in the format bench/run collects.
set -u
b=${top_builddir:-.}
fail=0

check_rows() {
    local what=$1 impl=$2 out=$3 n
    n=$(grep -cE "^(latency|bandwidth),[0-9]+,${impl},[0-9.]+,(us|MB/s)$" \
        <<<"$out")
    if [ "$n" -lt 7 ]; then
        echo "FAIL: $what printed $n rows, expected 7"; echo "$out"; fail=1
    else
        echo "ok: $what ($n rows)"
    fi
}

out=$(timeout 120 "$b/tools/gcrun" -n 2 "$b/bench/gcm_bench" --quick 2>&1)
rc=$?
[ $rc -eq 0 ] || { echo "FAIL: gcm_bench exit $rc"; echo "$out"; fail=1; }
check_rows "gcm_bench --quick" gencomm "$out"

out=$(timeout 120 "$b/bench/ucx_am_bench" --quick --no-bind 2>&1)
rc=$?
[ $rc -eq 0 ] || { echo "FAIL: ucx_am_bench exit $rc"; echo "$out"; fail=1; }
check_rows "ucx_am_bench --quick" ucx "$out"
exit $fail

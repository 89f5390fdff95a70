#!/bin/bash
# gcm_lco_dup across 1 to 4 processes (see lco_dup.c).
set -u
b=${top_builddir:-.}
fail=0
for n in 1 2 3 4; do
    out=$(timeout 60 "$b/tools/gcrun" -n "$n" "$b/tests/integration/lco_dup" 2>&1)
    rc=$?
    got=$(grep -c "duplicates of $n processes ok" <<<"$out")
    if [ $rc -ne 0 ] || [ "$got" -ne "$n" ]; then
        echo "FAIL: -n $n: exit $rc, $got of $n ok lines"; echo "$out"; fail=1
    else
        echo "ok: -n $n"
    fi
done
exit $fail

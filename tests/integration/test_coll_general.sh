#!/bin/sh
# gcm_coll_general across 1 to 6 processes (see coll_general.c): every
# process must exit 0 and report ok.
set -u
b=${top_builddir:-.}
fail=0
for n in 1 2 3 4 5 6; do
    out=$(timeout 120 "$b/tools/gcrun" -n "$n" \
          "$b/tests/integration/coll_general" 2>&1)
    rc=$?
    got=$(printf '%s\n' "$out" | grep -c "coll_general: P[0-9]* of $n ok")
    if [ $rc -ne 0 ] || [ "$got" -ne "$n" ]; then
        echo "FAIL: -n $n: exit $rc, $got of $n ok lines"
        printf '%s\n' "$out" | tail -20
        fail=1
    else
        echo "ok: -n $n"
    fi
done
exit $fail

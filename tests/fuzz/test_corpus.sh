#!/bin/bash
# Every fuzz harness over its seed corpus (tests/fuzz/corpus/NAME), with
# the plain driver: inputs named ok-* must be accepted, bad-* refused,
# and none may crash (or, in a sanitizer build, trip a sanitizer).
set -u
b=${top_builddir:-.}
s=${top_srcdir:-.}
fail=0
for dir in "$s"/tests/fuzz/corpus/*/; do
    name=$(basename "$dir")
    prog="$b/tests/fuzz/fuzz_$name"
    if [ ! -x "$prog" ]; then
        echo "FAIL: $name: no harness $prog"; fail=1; continue
    fi
    if out=$(timeout 120 "$prog" "$dir" 2>&1); then
        echo "ok: $out"
    else
        echo "FAIL: $name"; echo "$out"; fail=1
    fi
done
exit $fail

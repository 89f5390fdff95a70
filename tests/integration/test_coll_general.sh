#!/bin/sh
# gcm_coll_general across 1 to 6 processes (see coll_general.c): every
# process must exit 0, and process 0 report that all checks passed.
set -u
. "${top_srcdir:-.}/tests/lib.sh"
for n in 1 2 3 4 5 6; do
    launch "$n" "$builddir/tests/integration/coll_general"
    if expect_rc 0; then
        expect_count 1 'coll_general: all checks passed'
    fi
done
finish

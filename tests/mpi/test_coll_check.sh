#!/bin/sh
# tests/mpi/test_coll_check.sh: verification mode of the collectives
# (GENCOMM_CHECK_COLLECTIVES=1). coll_check runs every kind of mismatch
# under MPI_ERRORS_RETURN and every collective with matching arguments,
# oversubscribed at 2-4 processes. Then, under the default
# MPI_ERRORS_ARE_FATAL, a mismatched MPI_Bcast must end the whole job
# with a non-zero status and the verification's message on stderr, not
# hang (timeout 60: status 124) and not let a process go on.
set -u
GENCOMM_CHECK_COLLECTIVES=1
export GENCOMM_CHECK_COLLECTIVES
d="${top_builddir:-.}/tests/mpi"
run="$(dirname "$0")/run_mpi.sh"
gcrun="${top_builddir:-.}/tools/gcrun"
status=0
out=$(mktemp)
err=$(mktemp)
trap 'rm -f "$out" "$err"' EXIT

sh "$run" "$d/coll_check" 2 3 4 || status=1

for np in 2 3 4; do
    timeout 60 "$gcrun" -n "$np" "$d/coll_check" fatal >"$out" 2>"$err"
    rc=$?
    last=$((np - 1))
    want="rank $last passed root $last, rank 0 passed root 0"
    if [ $rc -eq 0 ] || [ $rc -eq 124 ]; then
        echo "FAIL: fatal mismatch with $np processes: gcrun exit $rc"
        status=1
    elif ! grep -q "MPI_Bcast: collective verification: $want" "$err"; then
        echo "FAIL: fatal mismatch with $np processes: no message on" \
             "stderr naming the call and the mismatching roots"
        status=1
    elif grep -q "FAIL:" "$out" "$err"; then
        echo "FAIL: fatal mismatch with $np processes: a process went on"
        status=1
    else
        echo "ok: fatal mismatch with $np processes (exit $rc)"
        continue
    fi
    tail -n 20 "$out" "$err"
done
exit $status

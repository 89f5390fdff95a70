#!/bin/sh
# MPIX_Comm_create_threads at 1 to 4 processes (tests/mpi/threads_*.c):
# collectives and point-to-point among threads, the rank and size rules,
# duplicates, errors under MPI_ERRORS_RETURN, and under
# MPI_ERRORS_ARE_FATAL a job that ends with a message instead of hanging.
set -u
top_builddir=${top_builddir:-.}
export top_builddir
run="${top_srcdir:-.}/tests/mpi/run_mpi.sh"
gcrun="$top_builddir/tools/gcrun"
status=0
for prog in threads_coll threads_err; do
    sh "$run" "$top_builddir/tests/mpi/$prog" 1 2 3 4 || status=1
done

err=$(mktemp)
trap 'rm -f "$err"' EXIT
# Process 0 names the bad argument; the others learn of it from process 0
# and may end the job first: the grace before gcrun ends the rest is long
# enough for process 0 to say its message however loaded the machine (it
# ends itself at once after saying it, so the job does not wait for it).
for np in 1 3; do
    GENCOMM_KILL_GRACE_MS=10000 timeout 60 "$gcrun" -n "$np" \
        "$top_builddir/tests/mpi/threads_err" fatal >/dev/null 2>"$err"
    rc=$?
    if [ $rc -eq 0 ] || [ $rc -eq 124 ]; then
        echo "FAIL: fatal nthreads -1 with $np processes: gcrun exit $rc"
        tail -n 20 "$err"
        status=1
    elif ! grep -q "MPIX_Comm_create_threads: nthreads -1 is negative" \
            "$err"; then
        echo "FAIL: fatal nthreads -1 with $np processes: no message" \
             "naming the call and the reason"
        tail -n 20 "$err"
        status=1
    else
        echo "ok: fatal nthreads -1 with $np processes (exit $rc)"
    fi
done
exit $status

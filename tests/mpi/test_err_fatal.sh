#!/bin/sh
# tests/mpi/test_err_fatal.sh: an error under MPI_ERRORS_ARE_FATAL ends the
# whole job with a non-zero status from gcrun and a message naming the
# call, the communicator and the reason; MPI_Abort(MPI_COMM_WORLD, 7) ends
# it with status 7. The processes blocked in MPI_Recv or MPI_Barrier must
# not keep the job alive (timeout 60 catches a hang: status 124).
set -u
gcrun="${top_builddir:-.}/tools/gcrun"
prog="${top_builddir:-.}/tests/mpi/err_fatal"
status=0
out=$(mktemp)
err=$(mktemp)
trap 'rm -f "$out" "$err"' EXIT

fail() {
    echo "FAIL: $*"
    tail -n 20 "$out" "$err"
    status=1
}

for np in 1 2 3 4; do
    timeout 60 "$gcrun" -n "$np" "$prog" send >"$out" 2>"$err"
    rc=$?
    if [ $rc -eq 0 ] || [ $rc -eq 124 ]; then
        fail "invalid rank with $np processes: gcrun exit $rc"
    elif ! grep -q "MPI_COMM_WORLD.*MPI_Send: .*rank" "$err"; then
        fail "invalid rank with $np processes: no message on stderr" \
             "naming the communicator, the call and the reason"
    elif grep -q "FAIL:" "$out" "$err"; then
        fail "invalid rank with $np processes: a process went on"
    else
        echo "ok: fatal invalid rank with $np processes (exit $rc)"
    fi

    timeout 60 "$gcrun" -n "$np" "$prog" abort >"$out" 2>"$err"
    rc=$?
    if [ $rc -ne 7 ]; then
        fail "MPI_Abort(MPI_COMM_WORLD, 7) with $np processes: gcrun exit $rc"
    elif grep -q "FAIL:" "$out" "$err"; then
        fail "MPI_Abort with $np processes: a process went on"
    elif grep -q "fatal error" "$err"; then
        fail "MPI_Abort with $np processes: a survivor reported the" \
             "abort's consequence as an error of its own"
    else
        echo "ok: MPI_Abort with $np processes (exit 7)"
    fi

    # A process that dies, or leaves without MPI_Finalize: the others'
    # fatal errors follow from it, and gcrun names it, whatever order it
    # learns of them in, with its status. (The grace lets the survivors
    # reach their fatal error, about a second, before gcrun ends them.)
    [ "$np" -ge 2 ] || continue
    for how in crash exit; do
        if [ $how = crash ]; then
            want=137
            said='^gcrun: rank 1 \(pid [0-9]+\) killed by signal 9'
        else
            want=1
            said='^gcrun: rank 1 \(pid [0-9]+\) exited without finalizing$'
        fi
        GENCOMM_KILL_GRACE_MS=10000 timeout 60 "$gcrun" -n "$np" "$prog" \
            $how >"$out" 2>"$err"
        rc=$?
        if [ $rc -ne $want ]; then
            fail "$how of rank 1 with $np processes: gcrun exit $rc," \
                 "expected $want"
        elif ! grep -qE "$said" "$err"; then
            fail "$how of rank 1 with $np processes: gcrun did not name it"
        elif ! grep -qE '^gcrun: rank 1 failed: rank [0-9]+ ended the job' \
                "$err"; then
            fail "$how of rank 1 with $np processes: the survivors' fatal" \
                 "errors were not told to gcrun as its consequences"
        elif grep -q "called abort" "$err"; then
            fail "$how of rank 1 with $np processes: gcrun named a" \
                 "survivor's abort as the cause"
        elif grep -q "FAIL:" "$out" "$err"; then
            fail "$how of rank 1 with $np processes: a process went on"
        else
            echo "ok: $how of rank 1 with $np processes (exit $rc)"
        fi
    done
done
exit $status

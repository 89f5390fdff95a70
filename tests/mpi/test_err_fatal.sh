#!/bin/sh
# tests/mpi/test_err_fatal.sh: an error under MPI_ERRORS_ARE_FATAL ends the
# whole job with a non-zero status from gcrun and a message naming the
# call, the communicator and the reason; MPI_Abort(MPI_COMM_WORLD, 7) ends
# it with status 7. The processes blocked in MPI_Recv or MPI_Barrier must
# not keep the job alive (the limit of 60 s catches a hang: status 124).
set -u
. "${top_srcdir:-.}/tests/lib.sh"
prog="$builddir/tests/mpi/err_fatal"
limit=60

for np in 1 2 3 4; do
    launch "$np" "$prog" send
    if [ $rc -eq 0 ] || [ $rc -eq 124 ]; then
        fail_out "invalid rank with $np processes: gcrun exit $rc"
    elif ! out_has "MPI_COMM_WORLD.*MPI_Send: .*rank"; then
        fail_out "invalid rank with $np processes: no message naming" \
                 "the communicator, the call and the reason"
    elif out_has "FAIL:"; then
        fail_out "invalid rank with $np processes: a process went on"
    else
        echo "ok: fatal invalid rank with $np processes (exit $rc)"
    fi

    launch "$np" "$prog" abort
    if [ $rc -ne 7 ]; then
        fail_out "MPI_Abort(MPI_COMM_WORLD, 7) with $np processes:" \
                 "gcrun exit $rc"
    elif out_has "FAIL:"; then
        fail_out "MPI_Abort with $np processes: a process went on"
    elif out_has "fatal error"; then
        fail_out "MPI_Abort with $np processes: a survivor reported the" \
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
        GENCOMM_KILL_GRACE_MS=10000 launch "$np" "$prog" $how
        if [ $rc -ne $want ]; then
            fail_out "$how of rank 1 with $np processes: gcrun exit $rc," \
                     "expected $want"
        elif ! out_has "$said"; then
            fail_out "$how of rank 1 with $np processes: gcrun did not" \
                     "name it"
        elif ! out_has '^gcrun: rank 1 failed: rank [0-9]+ ended the job'
        then
            fail_out "$how of rank 1 with $np processes: the survivors'" \
                     "fatal errors were not told to gcrun as its" \
                     "consequences"
        elif out_has "called abort"; then
            fail_out "$how of rank 1 with $np processes: gcrun named a" \
                     "survivor's abort as the cause"
        elif out_has "FAIL:"; then
            fail_out "$how of rank 1 with $np processes: a process went on"
        else
            echo "ok: $how of rank 1 with $np processes (exit $rc)"
        fi
    done
done
finish

/*
 * tests/mpi/err_fatal.c MODE: errors under the default handler,
 * MPI_ERRORS_ARE_FATAL, end the whole job. One process (rank 1, or 0
 * when alone) fails; the others are blocked in MPI_Recv (rank 0) or in
 * MPI_Barrier (the rest), and must be ended too, not
 * hang.
 *   send:  MPI_Send to rank = size (an invalid rank).
 *   abort: MPI_Abort(MPI_COMM_WORLD, 7).
 *   crash: SIGKILL (2 processes or more): the others' fatal errors are
 *          its consequences, and gcrun must name rank 1, not them.
 *   exit:  ends with status 0 without MPI_Finalize (2 processes or
 *          more): a failure like a crash.
 * test_err_fatal.sh checks gcrun's exit status and the message.
 */
#include <mpi.h>

#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

int main(int argc, char **argv)
{
    int rank, size, culprit, buf = 0;
    const char *mode = (argc > 1) ? argv[1] : "send";

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    culprit = (size > 1) ? 1 : 0;
    if (rank == culprit) {
        if (strcmp(mode, "abort") == 0) {
            MPI_Abort(MPI_COMM_WORLD, 7);
        } else if (strcmp(mode, "crash") == 0) {
            fflush(stdout);
            raise(SIGKILL);
        } else if (strcmp(mode, "exit") == 0) {
            /* Status 0 whatever the leak checker of a sanitizer build
             * would say of a process that never finalized. */
            fflush(stdout);
            _exit(0);
        } else {
            MPI_Send(&buf, 1, MPI_INT, size, 0, MPI_COMM_WORLD);
        }
        printf("FAIL: %s returned under MPI_ERRORS_ARE_FATAL (rank %d)\n",
               mode, rank);
        return 1;
    }
    if (rank == 0) {
        MPI_Recv(&buf, 1, MPI_INT, culprit, 0, MPI_COMM_WORLD,
                 MPI_STATUS_IGNORE);
    } else {
        MPI_Barrier(MPI_COMM_WORLD);
    }
    printf("FAIL: rank %d went on after the job should have ended\n", rank);
    return 1;
}

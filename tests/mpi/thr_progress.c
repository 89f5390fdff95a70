/*
 * tests/mpi/thr_progress.c: the progress thread (GENCOMM_PROGRESS_THREAD).
 * Rank 1 posts an MPI_Irecv of 16 MiB, tells rank 0 to send, then
 * computes for ~300 ms without calling the library (a loop on
 * clock_gettime: 300 ms of wall time and of the thread's CPU time, so that
 * on a loaded machine the computation is not cut short by the time other
 * processes take); rank 0 sends. With the progress thread the message has
 * arrived by then: the first MPI_Test after the computation must return
 * flag = 1. Without it the program must work all the same (the flag is
 * reported, not checked). Other ranks only take part in the barrier.
 */
#include <mpi.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

enum { BIG = 16 << 20, COMPUTE_MS = 300 };

static double now(clockid_t clock)
{
    struct timespec ts;

    clock_gettime(clock, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

int main(int argc, char **argv)
{
    const char *pt = getenv("GENCOMM_PROGRESS_THREAD");
    int with_pt = (pt != NULL) && (atoi(pt) == 1);
    int rank, size, go = 1, flag = 0, failures = 0;
    unsigned char *buf;
    MPI_Request req;
    MPI_Status st;
    double until, cpu_until;
    size_t i;

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (size < 2) {
        printf("thr_progress: needs 2 processes, skipped\n");
        MPI_Finalize();
        return 0;
    }
    buf = malloc(BIG);
    if (buf == NULL) {
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    if (rank == 0) {
        for (i = 0; i < BIG; i++) {
            buf[i] = (unsigned char)(i * 7 + 3);
        }
        MPI_Recv(&go, 1, MPI_INT, 1, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        MPI_Send(buf, BIG, MPI_BYTE, 1, 1, MPI_COMM_WORLD);
    } else if (rank == 1) {
        memset(buf, 0, BIG);
        MPI_Irecv(buf, BIG, MPI_BYTE, 0, 1, MPI_COMM_WORLD, &req);
        MPI_Send(&go, 1, MPI_INT, 0, 0, MPI_COMM_WORLD);
        /* Computation: no library call at all. */
        until     = now(CLOCK_MONOTONIC) + COMPUTE_MS * 1e-3;
        cpu_until = now(CLOCK_THREAD_CPUTIME_ID) + COMPUTE_MS * 1e-3;
        while ((now(CLOCK_MONOTONIC) < until) ||
               (now(CLOCK_THREAD_CPUTIME_ID) < cpu_until)) {
        }
        MPI_Test(&req, &flag, &st);
        printf("thr_progress: first MPI_Test after %d ms of computation: "
               "flag %d (progress thread %s)\n", COMPUTE_MS, flag,
               with_pt ? "on" : "off");
        if (with_pt && !flag) {
            printf("FAIL: the progress thread did not complete the "
                   "receive during the computation\n");
            failures++;
        }
        if (!flag) {
            MPI_Wait(&req, &st);
        }
        for (i = 0; i < BIG; i++) {
            if (buf[i] != (unsigned char)(i * 7 + 3)) {
                printf("FAIL: byte %zu is %u\n", i, buf[i]);
                failures++;
                break;
            }
        }
    }
    free(buf);
    MPI_Barrier(MPI_COMM_WORLD);
    MPI_Finalize();
    return failures ? 1 : 0;
}

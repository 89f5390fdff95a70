/*
 * tests/mpi/thr_progress.c: the progress thread (GENCOMM_PROGRESS_THREAD).
 * Rank 1 posts an MPI_Irecv of 16 MiB, tells rank 0 to send, then
 * computes without calling the library (a loop on clock_gettime, counting
 * both wall time and the thread's CPU time, so that on a loaded machine the
 * computation is not cut short by the time other processes take; the CPU
 * time asked for is the 300 ms minimum, the wall time scales); rank 0
 * sends. With the progress thread the message has arrived by then: the
 * first MPI_Test after the computation must return flag = 1. Without it
 * the program must work all the same (the flag is reported, not checked).
 * Other ranks only take part in the barrier.
 *
 * How long to compute: at least 300 ms, and at least ten times what one
 * transfer of the same size took with rank 1 waiting in MPI_Recv (timed
 * first), so that a slow machine or a sanitizer build, where the copy alone
 * takes a good part of 300 ms, does not fail the test for being slow.
 * argv[1], if given, sets the minimum in milliseconds.
 */
#include <mpi.h>

#include "mpitest.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

enum { BIG = 16 << 20, COMPUTE_MS = 300, SLOWDOWN = 10, MAX_MS = 20000 };

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
    int rank, size, go = 1, flag = 0;
    unsigned char *buf;
    MPI_Request req;
    MPI_Status st;
    double until, cpu_until, t0, ms = COMPUTE_MS;
    size_t i;

    mpitest_init(&argc, &argv, "thr_progress", 0);
    if (argc > 1) {
        ms = atof(argv[1]);
    }
    rank = mpitest_rank;
    size = mpitest_size;
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
        /* Once timed, once for the test. */
        MPI_Recv(&go, 1, MPI_INT, 1, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        MPI_Send(buf, BIG, MPI_BYTE, 1, 1, MPI_COMM_WORLD);
        MPI_Recv(&go, 1, MPI_INT, 1, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        MPI_Send(buf, BIG, MPI_BYTE, 1, 1, MPI_COMM_WORLD);
    } else if (rank == 1) {
        t0 = now(CLOCK_MONOTONIC);
        MPI_Send(&go, 1, MPI_INT, 0, 0, MPI_COMM_WORLD);
        MPI_Recv(buf, BIG, MPI_BYTE, 0, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        t0 = (now(CLOCK_MONOTONIC) - t0) * 1e3;
        if (t0 * SLOWDOWN > ms) {
            ms = t0 * SLOWDOWN;
        }
        if (ms > MAX_MS) {
            ms = MAX_MS;
        }
        memset(buf, 0, BIG);
        MPI_Irecv(buf, BIG, MPI_BYTE, 0, 1, MPI_COMM_WORLD, &req);
        MPI_Send(&go, 1, MPI_INT, 0, 0, MPI_COMM_WORLD);
        /* Computation: no library call at all. The transfer needs wall
         * time (ms, scaled by how long it took); this thread's own CPU
         * time only has to show that it computed, so it is asked for
         * COMPUTE_MS of it: asking for ms of CPU time too took minutes on
         * a machine loaded many times over. */
        until     = now(CLOCK_MONOTONIC) + ms * 1e-3;
        cpu_until = now(CLOCK_THREAD_CPUTIME_ID) + COMPUTE_MS * 1e-3;
        while ((now(CLOCK_MONOTONIC) < until) ||
               (now(CLOCK_THREAD_CPUTIME_ID) < cpu_until)) {
        }
        MPI_Test(&req, &flag, &st);
        printf("thr_progress: first MPI_Test after %.0f ms of computation "
               "(a waited transfer took %.1f ms): flag %d (progress thread "
               "%s)\n", ms, t0, flag, with_pt ? "on" : "off");
        CHECK(!with_pt || flag, "the progress thread did not complete the "
              "receive during the computation");
        if (!flag) {
            MPI_Wait(&req, &st);
        }
        for (i = 0; (i < BIG) && (buf[i] == (unsigned char)(i * 7 + 3));
             i++) {
        }
        CHECK(i == BIG, "byte %zu is %u", i, (i < BIG) ? buf[i] : 0u);
    }
    free(buf);
    return mpitest_finish();
}

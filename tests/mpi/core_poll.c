/*
 * core_poll: a process that polls in a loop (MPI_Iprobe, MPI_Test) while
 * it shares its core with the process it waits for gives the core away.
 *
 * Run with all processes on one CPU (taskset -c 0, gcrun --bind-to none),
 * so that the library sees more processes than cores. Rank 1 computes
 * for COMPUTE_S seconds of its own CPU time, then sends to rank 0; rank 0
 * waits for that message by polling, first with MPI_Iprobe, then (a
 * second round) with MPI_Test on a posted receive. A poller that keeps
 * the core gets about as much CPU time as the computing rank (the
 * scheduler shares the core between them); one that yields gets a small
 * part of it. The check is on that share, not on any time: it holds on a
 * loaded machine too, since other load takes from both alike.
 *
 * With 3 or more processes the others just take part in the final
 * barrier (and share the core too).
 */
#define _GNU_SOURCE
#include <mpi.h>

#include "mpitest.h"

#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#define COMPUTE_S 0.25
/* The poller may use at most this part of the computing rank's CPU time:
 * keeping the core gives about 1.0. */
#define MAX_SHARE 0.5

static volatile double sink;

static double cpu_s(void)
{
    struct timespec ts;

    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* Computes for COMPUTE_S seconds of this process's CPU time. */
static double compute(void)
{
    double t0 = cpu_s(), t;
    double x = 1.0;
    long i;

    do {
        for (i = 0; i < 100000; i++) {
            x = x * 1.0000001 + 1e-9;
        }
        t = cpu_s() - t0;
    } while (t < COMPUTE_S);
    sink = x;
    return t;
}

/* One round: rank 1 computes then sends; rank 0 polls (probe or test). */
static void round_of(int rank, int use_test, const char *what)
{
    double used, spent, t0;
    int flag = 0, x = 0;
    MPI_Request req;

    MPI_Barrier(MPI_COMM_WORLD);
    if (rank == 1) {
        spent = compute();
        MPI_Send(&spent, 1, MPI_DOUBLE, 0, 1, MPI_COMM_WORLD);
    } else if (rank == 0) {
        t0 = cpu_s();
        if (use_test) {
            MPI_Irecv(&spent, 1, MPI_DOUBLE, 1, 1, MPI_COMM_WORLD, &req);
            while (!flag) {
                MPI_Test(&req, &flag, MPI_STATUS_IGNORE);
            }
        } else {
            while (!flag) {
                MPI_Iprobe(1, 1, MPI_COMM_WORLD, &flag, MPI_STATUS_IGNORE);
            }
        }
        used = cpu_s() - t0;
        if (!use_test) {
            MPI_Recv(&spent, 1, MPI_DOUBLE, 1, 1, MPI_COMM_WORLD,
                     MPI_STATUS_IGNORE);
        }
        printf("core_poll: %s loop used %.3f s of CPU while the sender "
               "computed %.3f s\n", what, used, spent);
        CHECK(used <= MAX_SHARE * spent, "polling with %s kept the core: "
              "%.3f s of CPU against the sender's %.3f s", what, used,
              spent);
        (void)x;
    }
}

int main(int argc, char **argv)
{
    mpitest_init(&argc, &argv, "core_poll", 0);
    if (mpitest_size < 2) {
        printf("core_poll: SKIPPED (needs 2 processes)\n");
        MPI_Finalize();
        return 0;
    }
    round_of(mpitest_rank, 0, "MPI_Iprobe");
    round_of(mpitest_rank, 1, "MPI_Test");
    return mpitest_finish();
}

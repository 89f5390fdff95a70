/*
 * tests/mpi/rma_passive.c: passive-target communication while the target
 * computes (MPI-3.1 11.5.3, 11.7.2). Rank 0 makes no MPI call at all
 * while the others, under exclusive locks, increment a counter in its
 * window by MPI_Get and MPI_Put, add to another with MPI_Fetch_and_op,
 * and then put a flag each; rank 0 only watches its own memory until
 * every flag is there (or a deadline passes: a target that must call MPI
 * for the others to progress fails, it does not hang). On one host the
 * origins reach rank 0's memory directly or through the kernel; between
 * hosts its handler serves them, run by the progress thread that windows
 * reached by messages start. Over MPI_Win_allocate and MPI_Win_create.
 */
#include <mpi.h>

#include "mpitest.h"

#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static int me, n;

enum { COUNTER = 0, ADDS = 1, FLAGS = 2, ROUNDS = 20 };

static double now(void)
{
    struct timespec ts;

    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* Rank 0's side: no MPI call until every flag is set. */
static int busy_target(long *mem)
{
    double deadline = now() + 60.0;
    int r, all;

    do {
        all = 1;
        for (r = 1; r < n; r++) {
            if (__atomic_load_n(&mem[FLAGS + r], __ATOMIC_ACQUIRE) != r) {
                all = 0;
            }
        }
        /* Some computing, and the core given away now and then (the
         * others may share it). */
        sched_yield();
    } while (!all && now() < deadline);
    return all;
}

static void run(int create)
{
    long *mem, v, one = 1, old, flag;
    MPI_Win win;
    int i, done;

    if (create) {
        mem = calloc((size_t)n + FLAGS, sizeof(long));
        OK(MPI_Win_create(mem, (MPI_Aint)(n + FLAGS) * (MPI_Aint)sizeof(long),
                          sizeof(long), MPI_INFO_NULL, MPI_COMM_WORLD,
                          &win));
    } else {
        OK(MPI_Win_allocate((MPI_Aint)(n + FLAGS) * (MPI_Aint)sizeof(long),
                            sizeof(long), MPI_INFO_NULL, MPI_COMM_WORLD,
                            &mem, &win));
        memset(mem, 0, (size_t)(n + FLAGS) * sizeof(long));
    }
    OK(MPI_Barrier(MPI_COMM_WORLD));
    if ((me == 0) && (n > 1)) {
        done = busy_target(mem);
        CHECK(done, "%s: the origins did not finish while the target "
              "computed", create ? "MPI_Win_create" : "MPI_Win_allocate");
        CHECK(mem[COUNTER] == (long)(n - 1) * ROUNDS &&
              mem[ADDS] == (long)(n - 1) * ROUNDS,
              "counter %ld adds %ld, expected %ld", mem[COUNTER], mem[ADDS],
              (long)(n - 1) * ROUNDS);
    } else {
        for (i = 0; i < ROUNDS; i++) {
            OK(MPI_Win_lock(MPI_LOCK_EXCLUSIVE, 0, 0, win));
            OK(MPI_Get(&v, 1, MPI_LONG, 0, COUNTER, 1, MPI_LONG, win));
            OK(MPI_Win_flush(0, win));
            v++;
            OK(MPI_Put(&v, 1, MPI_LONG, 0, COUNTER, 1, MPI_LONG, win));
            OK(MPI_Win_unlock(0, win));
            OK(MPI_Win_lock(MPI_LOCK_SHARED, 0, 0, win));
            OK(MPI_Fetch_and_op(&one, &old, MPI_LONG, 0, ADDS, MPI_SUM,
                                win));
            OK(MPI_Win_unlock(0, win));
        }
        flag = me;
        OK(MPI_Win_lock(MPI_LOCK_SHARED, 0, 0, win));
        OK(MPI_Put(&flag, 1, MPI_LONG, 0, FLAGS + me, 1, MPI_LONG, win));
        OK(MPI_Win_unlock(0, win));
    }
    OK(MPI_Barrier(MPI_COMM_WORLD));
    OK(MPI_Win_free(&win));
    if (create) {
        free(mem);
    }
}

int main(int argc, char **argv)
{
    mpitest_init(&argc, &argv, "rma_passive", 0);
    mpitest_world(&me, &n);
    run(0);
    run(1);
    return mpitest_finish();
}

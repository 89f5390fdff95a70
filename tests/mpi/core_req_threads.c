/*
 * tests/mpi/core_req_threads.c: requests made by one thread and completed
 * and freed by another (MPI_THREAD_MULTIPLE allows it). Request objects,
 * MPI and native, are recycled through per-thread caches and a shared
 * list: the freeing thread's cache overflows into the list, a thread that
 * ends gives its cache back, and the next threads take objects from there.
 * Every round a fresh producer thread posts more receives than a cache
 * holds and hands the handles to a fresh consumer, which sends the
 * messages (to this process) and waits for all; every message must land
 * in its own buffer, and a handle from an earlier round must be refused.
 * Run under ThreadSanitizer by tests/tsan.sh.
 */
#include <mpi.h>

#include "mpitest.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>

enum { N = 600, ROUNDS = 6 };

static MPI_Comm comm;
static MPI_Request reqs[N];
static int bufs[N];

static void *producer(void *arg)
{
    int i;

    (void)arg;
    for (i = 0; i < N; i++) {
        bufs[i] = -1;
        MPI_Irecv(&bufs[i], 1, MPI_INT, 0, i, comm, &reqs[i]);
    }
    return NULL;
}

static void *consumer(void *arg)
{
    int round = *(int *)arg, i, v;

    for (i = N - 1; i >= 0; i--) {
        v = round * N + i;
        MPI_Send(&v, 1, MPI_INT, 0, i, comm);
    }
    CHECK(MPI_Waitall(N, reqs, MPI_STATUSES_IGNORE) == MPI_SUCCESS,
          "round %d: MPI_Waitall failed", round);
    for (i = 0; (i < N) && (bufs[i] == round * N + i) &&
                (reqs[i] == MPI_REQUEST_NULL);
         i++) {
    }
    CHECK(i == N, "round %d message %d: %d", round, i,
          (i < N) ? bufs[i] : 0);
    return NULL;
}

int main(int argc, char **argv)
{
    MPI_Request stale = MPI_REQUEST_NULL;
    pthread_t p, c;
    int round, flag;

    mpitest_init_thread(&argc, &argv, "core_req_threads",
                        MPI_THREAD_MULTIPLE);
    MPI_Comm_dup(MPI_COMM_SELF, &comm);
    MPI_Comm_set_errhandler(comm, MPI_ERRORS_RETURN);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    for (round = 0; round < ROUNDS; round++) {
        pthread_create(&p, NULL, producer, NULL);
        pthread_join(p, NULL);
        if (round == 1) {
            stale = reqs[N / 2];
        }
        pthread_create(&c, NULL, consumer, &round);
        pthread_join(c, NULL);
    }
    /* A handle of round 1. */
    EXPECT(MPI_ERR_REQUEST, MPI_Test(&stale, &flag, MPI_STATUS_IGNORE));
    MPI_Comm_free(&comm);
    return mpitest_finish();
}

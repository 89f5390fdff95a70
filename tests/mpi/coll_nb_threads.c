/*
 * tests/mpi/coll_nb_threads.c: nonblocking collectives posted and
 * completed by two threads at once (MPI_THREAD_MULTIPLE). A nonblocking
 * collective called again with the same arguments reuses its schedule and
 * its request object, which come back to the communicator when the
 * request is freed: the next call may take them while the thread that
 * freed the request is still in the library.
 * - Each thread on its own duplicate of the world, round after round:
 *   MPI_Iallreduce with MPI_Wait, MPI_Ibcast with an MPI_Test loop,
 *   MPI_Ibarrier freed at once with MPI_Request_free, MPI_Iallgather with
 *   MPI_Waitany, MPI_Ialltoall with MPI_Waitsome, MPI_Ireduce cancelled
 *   (a collective completes normally: not cancelled) and waited, and two
 *   MPI_Iallreduce calls in flight with MPI_Waitall; every result checked.
 * - Both threads on one communicator, the program serializing the calls
 *   with a mutex (MPI-3.1 5.12): each posts an MPI_Ibarrier under the
 *   mutex and completes it outside (one thread with MPI_Wait, the other
 *   with MPI_Test), so one thread frees its request while the other
 *   posts the next call; then, once both are through (every process
 *   makes the same sequence of calls on it), MPI_Iallreduce the same way,
 *   each thread with buffers of its own, its sum checked.
 * - A kept collective on a new duplicate waited by one thread while the
 *   other frees the duplicate.
 * Run under ThreadSanitizer by tests/tsan.sh.
 */
#include <mpi.h>

#include "mpitest.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>

enum { ROUNDS = 60, SHARED_ROUNDS = 200, FREED_ROUNDS = 40, NT = 2 };

static int me, np;
static MPI_Comm dups[NT];
static MPI_Comm shared;
static pthread_mutex_t turn = PTHREAD_MUTEX_INITIALIZER;
/* Between the barriers and the allreduces on shared: every process must
 * make the same sequence of collectives on it. */
static pthread_barrier_t phase;

static void own_round(MPI_Comm comm, int t, int i, int *sb, int *rb)
{
    MPI_Request r[2];
    MPI_Status st;
    int in = me + i, out = -1, out2 = -1, v, flag = 0, idx, n, k;
    int want = np * (np - 1) / 2 + np * i;

    OK(MPI_Iallreduce(&in, &out, 1, MPI_INT, MPI_SUM, comm, &r[0]));
    OK(MPI_Wait(&r[0], MPI_STATUS_IGNORE));
    CHECK(out == want, "thread %d round %d: iallreduce %d, want %d", t, i,
          out, want);

    v = (me == i % np) ? 1000 + i : -1;
    OK(MPI_Ibcast(&v, 1, MPI_INT, i % np, comm, &r[0]));
    while (!flag) {
        OK(MPI_Test(&r[0], &flag, MPI_STATUS_IGNORE));
    }
    CHECK(v == 1000 + i && r[0] == MPI_REQUEST_NULL,
          "thread %d round %d: ibcast %d", t, i, v);

    OK(MPI_Ibarrier(comm, &r[0]));
    OK(MPI_Request_free(&r[0]));
    CHECK(r[0] == MPI_REQUEST_NULL, "request_free left the handle");

    for (k = 0; k < np; k++) {
        sb[k] = me * 100 + k;
        rb[k] = -1;
    }
    r[1] = MPI_REQUEST_NULL;
    OK(MPI_Iallgather(sb, 1, MPI_INT, rb, 1, MPI_INT, comm, &r[0]));
    OK(MPI_Waitany(2, r, &idx, MPI_STATUS_IGNORE));
    CHECK(idx == 0, "waitany: index %d", idx);
    for (k = 0; k < np; k++) {
        CHECK(rb[k] == k * 100, "thread %d round %d: iallgather[%d] %d", t,
              i, k, rb[k]);
    }

    OK(MPI_Ialltoall(sb, 1, MPI_INT, rb, 1, MPI_INT, comm, &r[0]));
    n = 0;
    while (n == 0) {
        OK(MPI_Waitsome(1, r, &n, &idx, MPI_STATUSES_IGNORE));
    }
    for (k = 0; k < np; k++) {
        CHECK(rb[k] == k * 100 + me, "thread %d round %d: ialltoall[%d] %d",
              t, i, k, rb[k]);
    }

    out = -1;
    OK(MPI_Ireduce(&in, &out, 1, MPI_INT, MPI_SUM, 0, comm, &r[0]));
    OK(MPI_Cancel(&r[0]));
    OK(MPI_Wait(&r[0], &st));
    OK(MPI_Test_cancelled(&st, &flag));
    CHECK(!flag && (me != 0 || out == want),
          "thread %d round %d: ireduce %d cancelled %d", t, i, out, flag);

    out = out2 = -1;
    OK(MPI_Iallreduce(&in, &out, 1, MPI_INT, MPI_SUM, comm, &r[0]));
    OK(MPI_Iallreduce(&in, &out2, 1, MPI_INT, MPI_MAX, comm, &r[1]));
    OK(MPI_Waitall(2, r, MPI_STATUSES_IGNORE));
    CHECK(out == want && out2 == np - 1 + i,
          "thread %d round %d: two in flight %d %d", t, i, out, out2);
}

static void *own(void *arg)
{
    int t = *(int *)arg, i;
    int *sb = calloc((size_t)np, sizeof(int));
    int *rb = calloc((size_t)np, sizeof(int));

    for (i = 0; i < ROUNDS && sb != NULL && rb != NULL; i++) {
        own_round(dups[t], t, i, sb, rb);
    }
    free(sb);
    free(rb);
    return NULL;
}

/* Posts under the program's mutex (the calls on shared are serialized),
 * completes outside it. */
static void *serialized(void *arg)
{
    int t = *(int *)arg, i, flag;
    int in = me + 1, out;
    MPI_Request r;

    for (i = 0; i < SHARED_ROUNDS; i++) {
        pthread_mutex_lock(&turn);
        OK(MPI_Ibarrier(shared, &r));
        pthread_mutex_unlock(&turn);
        if (t == 0) {
            OK(MPI_Wait(&r, MPI_STATUS_IGNORE));
        } else {
            for (flag = 0; !flag;) {
                OK(MPI_Test(&r, &flag, MPI_STATUS_IGNORE));
            }
        }
    }
    pthread_barrier_wait(&phase);
    for (i = 0; i < SHARED_ROUNDS / 4; i++) {
        out = -1;
        pthread_mutex_lock(&turn);
        OK(MPI_Iallreduce(&in, &out, 1, MPI_INT, MPI_SUM, shared, &r));
        pthread_mutex_unlock(&turn);
        OK(MPI_Wait(&r, MPI_STATUS_IGNORE));
        CHECK(out == np * (np + 1) / 2, "thread %d: shared iallreduce %d",
              t, out);
    }
    return NULL;
}

/* Thread 0 starts a kept collective on a new duplicate (its schedule,
 * installed there, holds the communicator for its requests) and hands
 * the request to thread 1, which waits for it while thread 0 frees the
 * duplicate: the request's end and the free taking the schedule out
 * meet (either order). */
static MPI_Request handed;
static int handed_out;

static void *freed(void *arg)
{
    int t = *(int *)arg, i, in = me + 1;
    MPI_Comm fresh = MPI_COMM_NULL;

    for (i = 0; i < FREED_ROUNDS; i++) {
        if (t == 0) {
            OK(MPI_Comm_dup(MPI_COMM_WORLD, &fresh));
            handed_out = -1;
            OK(MPI_Iallreduce(&in, &handed_out, 1, MPI_INT, MPI_SUM, fresh,
                              &handed));
        }
        pthread_barrier_wait(&phase);
        if (t == 0) {
            OK(MPI_Comm_free(&fresh));
        } else {
            OK(MPI_Wait(&handed, MPI_STATUS_IGNORE));
            CHECK(handed_out == np * (np + 1) / 2,
                  "round %d: iallreduce on a freed duplicate %d", i,
                  handed_out);
        }
        /* The next round's call writes handed_out again. */
        pthread_barrier_wait(&phase);
    }
    return NULL;
}

static void both(void *(*fn)(void *))
{
    int ids[NT] = { 0, 1 };

    mpitest_threads(NT, fn, ids, sizeof(ids[0]));
}

int main(int argc, char **argv)
{
    int t;

    mpitest_init_thread(&argc, &argv, "coll_nb_threads",
                        MPI_THREAD_MULTIPLE);
    me = mpitest_rank;
    np = mpitest_size;
    for (t = 0; t < NT; t++) {
        OK(MPI_Comm_dup(MPI_COMM_WORLD, &dups[t]));
        MPI_Comm_set_errhandler(dups[t], MPI_ERRORS_RETURN);
    }
    OK(MPI_Comm_dup(MPI_COMM_WORLD, &shared));
    pthread_barrier_init(&phase, NULL, NT);
    MPI_Comm_set_errhandler(shared, MPI_ERRORS_RETURN);
    both(own);
    both(serialized);
    both(freed);
    for (t = 0; t < NT; t++) {
        OK(MPI_Comm_free(&dups[t]));
    }
    OK(MPI_Comm_free(&shared));
    pthread_barrier_destroy(&phase);
    return mpitest_finish();
}

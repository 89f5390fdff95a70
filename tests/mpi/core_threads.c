/*
 * tests/mpi/core_threads.c: MPI_THREAD_MULTIPLE. Four threads per process,
 * each on its own duplicate of the world, exchange many messages (small,
 * large, synchronous, wildcard receives) with the corresponding thread of
 * the peer process (0-1, 2-3, ...; an odd one out is its own peer), and
 * check every one.
 */
#include <mpi.h>

#include "mpitest.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { NTHREADS = 4, ITERS = 1500, BIG = 1 << 16 };

static int rank = -1, size, peer;
static MPI_Comm comms[NTHREADS];

static int value(int from, int t, int i, int k)
{
    return from * 1000003 + t * 100003 + i * 13 + k;
}

static void *thread_main(void *p)
{
    mpitest_thread_t *a = p;
    MPI_Comm comm = comms[a->t];
    int *sbuf = malloc(BIG * sizeof(int)), *rbuf = malloc(BIG * sizeof(int));
    int i, k, n, count, bad;
    MPI_Request sreq;
    MPI_Status st;

    for (i = 0; i < ITERS && a->failures < 10; i++) {
        int tag = i % 7, wild = (i % 3 == 0);

        n = (i % 100 == 99) ? BIG : 1 + i % 17;
        for (k = 0; k < n; k++) {
            sbuf[k] = value(rank, a->t, i, k);
        }
        if (i % 10 == 5) {
            MPI_Issend(sbuf, n, MPI_INT, peer, tag, comm, &sreq);
        } else {
            MPI_Isend(sbuf, n, MPI_INT, peer, tag, comm, &sreq);
        }
        MPI_Recv(rbuf, BIG, MPI_INT, wild ? MPI_ANY_SOURCE : peer,
                 wild ? MPI_ANY_TAG : tag, comm, &st);
        MPI_Wait(&sreq, MPI_STATUS_IGNORE);
        MPI_Get_count(&st, MPI_INT, &count);
        TCHECK(a, st.MPI_SOURCE == peer && st.MPI_TAG == tag && count == n,
               "iteration %d: status (%d, %d) count %d, want (%d, %d) %d", i,
               st.MPI_SOURCE, st.MPI_TAG, count, peer, tag, n);
        for (k = 0, bad = -1; k < n && k < count && bad < 0; k++) {
            if (rbuf[k] != value(peer, a->t, i, k)) {
                bad = k;
            }
        }
        TCHECK(a, bad < 0, "iteration %d: element %d is %d, want %d", i,
               bad, bad >= 0 ? rbuf[bad] : 0,
               bad >= 0 ? value(peer, a->t, i, bad) : 0);
    }
    free(sbuf);
    free(rbuf);
    return NULL;
}

int main(int argc, char **argv)
{
    mpitest_thread_t args[NTHREADS];

    mpitest_init_thread(&argc, &argv, "core_threads", MPI_THREAD_MULTIPLE);
    rank = mpitest_rank;
    size = mpitest_size;
    peer = rank ^ 1;
    if (peer >= size) {
        peer = rank;
    }
    mpitest_threads_dup(NTHREADS, thread_main, args, comms);
    return mpitest_finish();
}

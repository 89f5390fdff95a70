/*
 * tests/mpi/thr_comms.c: one communicator per thread. The main thread
 * duplicates MPI_COMM_WORLD once per thread; each duplicate lives on an
 * endpoint of its own in every process (its home, derived from how many
 * duplicates came before it), so the threads' traffic never shares a
 * lock. Each thread then runs, on its own communicator only, rounds of a
 * ring ping-pong (small and 64 KiB messages, alternating direction) and an
 * MPI_Allreduce whose result it checks, and finally a split of its
 * communicator (which gets a home of its own too) with one more
 * allreduce. Meant to run oversubscribed (3 processes x 3 threads on 2
 * cores): it must finish promptly, which a wait that burns the core
 * another thread needs would not.
 *
 * Usage: thr_comms [ROUNDS].
 */
#include <mpi.h>

#include "mpitest.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { NTHREADS = 3, BIG = 65536 };

static int rank, size, rounds;
static MPI_Comm comms[NTHREADS];

static void *thread_main(void *p)
{
    mpitest_thread_t *a = p;
    MPI_Comm comm = comms[a->t], half;
    int right = (rank + 1) % size, left = (rank + size - 1) % size;
    int *sbuf = malloc(BIG * sizeof(int)), *rbuf = malloc(BIG * sizeof(int));
    long mine, sum, want;
    int i, k, n, hrank, hsize;

    for (i = 0; i < rounds && a->failures < 10; i++) {
        /* Ring exchange, direction by round parity. */
        int to = (i % 2) ? left : right, from = (i % 2) ? right : left;

        n = (i % 8 == 7) ? BIG : 1 + i % 5;
        for (k = 0; k < n; k++) {
            sbuf[k] = rank * 1000003 + a->t * 10007 + i * 31 + k;
        }
        MPI_Sendrecv(sbuf, n, MPI_INT, to, i, rbuf, n, MPI_INT, from, i,
                     comm, MPI_STATUS_IGNORE);
        for (k = 0; k < n; k++) {
            if (rbuf[k] != from * 1000003 + a->t * 10007 + i * 31 + k) {
                TCHECK(a, 0, "round %d: element %d from %d is %d", i, k,
                       from, rbuf[k]);
                break;
            }
        }
        /* A collective on the thread's communicator only. */
        mine = (long)rank * 7 + a->t + i;
        MPI_Allreduce(&mine, &sum, 1, MPI_LONG, MPI_SUM, comm);
        want = 7L * size * (size - 1) / 2 + (long)size * (a->t + i);
        TCHECK(a, sum == want, "round %d: allreduce %ld, expected %ld", i,
               sum, want);
    }
    /* A communicator derived from the thread's own one, used at once. */
    MPI_Comm_split(comm, rank % 2, rank, &half);
    MPI_Comm_rank(half, &hrank);
    MPI_Comm_size(half, &hsize);
    mine = rank;
    MPI_Allreduce(&mine, &sum, 1, MPI_LONG, MPI_SUM, half);
    for (want = 0, k = rank % 2; k < size; k += 2) {
        want += k;
    }
    TCHECK(a, sum == want, "split allreduce %ld, expected %ld", sum, want);
    MPI_Comm_free(&half);
    free(sbuf);
    free(rbuf);
    return NULL;
}

int main(int argc, char **argv)
{
    mpitest_thread_t args[NTHREADS];

    mpitest_init_thread(&argc, &argv, "thr_comms", MPI_THREAD_MULTIPLE);
    rank = mpitest_rank;
    size = mpitest_size;
    rounds = (argc > 1) ? atoi(argv[1]) : 300;
    mpitest_threads_dup(NTHREADS, thread_main, args, comms);
    return mpitest_finish();
}

/*
 * tests/mpi/rma_threads.c: windows over the LCOs of
 * MPIX_Comm_create_threads, each LCO a target (MPI-3.1 chapter 11 on an
 * LCO communicator: ranks are LCO ranks). Every process asks for
 * THREADS LCOs; each thread, on its own LCO, all at once:
 * - MPI_Win_allocate, puts of its LCO rank into every LCO's slot under
 *   fences (LCOs of its own process are reached directly, those of the
 *   other processes of the host through shared memory, the others by UCX
 *   and messages);
 * - MPI_Fetch_and_op under MPI_Win_lock_all into a counter of LCO 0,
 *   whose fetched values are each of 0 .. total - 1 once;
 * - an exclusive lock of LCO 0 around a get and a put that increment
 *   another counter, which must come out exact;
 * - MPI_Win_create over the thread's own memory, and MPI_Win_free.
 */
#include <mpi.h>

#include "mpitest.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { THREADS = 2, ADDS = 10 };

/* A thread's record (t, its LCO rank, and failures for TCHECK) and its
 * LCO. */
typedef struct targ {
    int      t;
    int      failures;
    MPI_Comm lcomm;
} targ_t;

static void *thread_main(void *arg)
{
    targ_t *a = arg;
    MPI_Comm c = a->lcomm;
    MPI_Win win;
    int *mem, g = -1, total = -1, i, v, one = 1, *fetched, *all = NULL;
    int *own;

    MPIX_Comm_lco_rank(c, &g);
    a->t = g;
    MPIX_Num_send_slots(c, &total);
    TOK(a, MPI_Win_allocate((MPI_Aint)(total + 2) * (MPI_Aint)sizeof(int),
                            sizeof(int), MPI_INFO_NULL, c, &mem, &win));
    memset(mem, 0, (size_t)(total + 2) * sizeof(int));
    TOK(a, MPI_Win_fence(0, win));
    for (i = 0; i < total; i++) {
        TOK(a, MPI_Put(&g, 1, MPI_INT, i, g, 1, MPI_INT, win));
    }
    TOK(a, MPI_Win_fence(0, win));
    for (i = 0; i < total; i++) {
        TCHECK(a, mem[i] == i, "fence put: slot %d holds %d", i, mem[i]);
    }

    fetched = malloc(ADDS * sizeof(int));
    TOK(a, MPI_Win_lock_all(0, win));
    for (i = 0; i < ADDS; i++) {
        TOK(a, MPI_Fetch_and_op(&one, &fetched[i], MPI_INT, 0, total,
                                MPI_SUM, win));
        TOK(a, MPI_Win_flush(0, win));
    }
    TOK(a, MPI_Win_unlock_all(win));
    for (i = 0; i < ADDS; i++) {
        TOK(a, MPI_Win_lock(MPI_LOCK_EXCLUSIVE, 0, 0, win));
        TOK(a, MPI_Get(&v, 1, MPI_INT, 0, total + 1, 1, MPI_INT, win));
        TOK(a, MPI_Win_flush(0, win));
        v++;
        TOK(a, MPI_Put(&v, 1, MPI_INT, 0, total + 1, 1, MPI_INT, win));
        TOK(a, MPI_Win_unlock(0, win));
    }
    if (g == 0) {
        all = calloc((size_t)total * ADDS, sizeof(int));
    }
    TOK(a, MPI_Gather(fetched, ADDS, MPI_INT, all, ADDS, MPI_INT, 0, c));
    TOK(a, MPI_Win_fence(0, win));
    if (g == 0) {
        char *seen = calloc((size_t)total * ADDS, 1);

        for (i = 0; i < total * ADDS; i++) {
            TCHECK(a, all[i] >= 0 && all[i] < total * ADDS &&
                   !seen[all[i]], "fetched value %d twice or out of range",
                   all[i]);
            if (all[i] >= 0 && all[i] < total * ADDS) {
                seen[all[i]] = 1;
            }
        }
        TCHECK(a, mem[total] == total * ADDS &&
               mem[total + 1] == total * ADDS,
               "counters %d and %d, expected %d", mem[total],
               mem[total + 1], total * ADDS);
        free(seen);
        free(all);
    }
    free(fetched);
    TOK(a, MPI_Win_free(&win));

    own = calloc((size_t)total, sizeof(int));
    TOK(a, MPI_Win_create(own, (MPI_Aint)total * (MPI_Aint)sizeof(int),
                          sizeof(int), MPI_INFO_NULL, c, &win));
    TOK(a, MPI_Win_fence(0, win));
    v = 100 + g;
    TOK(a, MPI_Put(&v, 1, MPI_INT, (g + 1) % total, g, 1, MPI_INT, win));
    TOK(a, MPI_Win_fence(0, win));
    TCHECK(a, own[(g + total - 1) % total] == 100 + (g + total - 1) % total,
           "MPI_Win_create put: %d", own[(g + total - 1) % total]);
    TOK(a, MPI_Win_free(&win));
    free(own);
    return NULL;
}

int main(int argc, char **argv)
{
    MPI_Comm lcomms[THREADS];
    targ_t args[THREADS];
    int i;

    mpitest_init_thread(&argc, &argv, "rma_threads", MPI_THREAD_MULTIPLE);
    MPIX_Comm_create_threads(MPI_COMM_WORLD, THREADS, lcomms);
    for (i = 0; i < THREADS; i++) {
        args[i].t = -1;
        args[i].failures = 0;
        args[i].lcomm = lcomms[i];
    }
    mpitest_threads(THREADS, thread_main, args, sizeof(args[0]));
    for (i = 0; i < THREADS; i++) {
        MPI_Comm_free(&lcomms[i]);
    }
    return mpitest_finish();
}

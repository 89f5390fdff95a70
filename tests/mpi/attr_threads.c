/*
 * tests/mpi/attr_threads.c: keyvals and attributes from several threads at
 * once (MPI_THREAD_MULTIPLE). Each thread creates keyvals, sets, reads,
 * overwrites and deletes attributes on MPI_COMM_SELF and on its own
 * duplicate, and frees its keyvals; every keyval number handed out while
 * in use must be unique, and every callback must run exactly as often as
 * the calls say.
 */
#include <mpi.h>

#include "mpitest.h"

#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#define NTHREADS 4
#define NKEEP    32    /* keyvals each thread holds at the end */
#define NITER    200   /* create/use/free rounds per thread */

typedef struct thread_arg {
    int t;                  /* the thread's number (for TCHECK) */
    int failures;
    MPI_Comm comm;          /* the thread's own duplicate */
    int keep[NKEEP];
    int deletes;            /* delete callbacks run for this thread */
} thread_arg_t;

static int count_delete(MPI_Comm comm, int keyval, void *value, void *extra)
{
    thread_arg_t *t = extra;

    (void)comm;
    (void)keyval;
    (void)value;
    t->deletes++;
    return MPI_SUCCESS;
}

static void *worker(void *p)
{
    thread_arg_t *t = p;
    int i, k, flag;
    void *v;

    for (i = 0; i < NITER; i++) {
        if (MPI_Comm_create_keyval(MPI_COMM_DUP_FN, count_delete, &k, t) !=
            MPI_SUCCESS) {
            TCHECK(t, 0, "create_keyval (round %d)", i);
            return NULL;
        }
        MPI_Comm_set_attr(MPI_COMM_SELF, k, (void *)(intptr_t)(i + 1));
        MPI_Comm_set_attr(t->comm, k, (void *)(intptr_t)(i + 2));
        MPI_Comm_set_attr(MPI_COMM_SELF, k, (void *)(intptr_t)(i + 3));
        v = NULL;
        MPI_Comm_get_attr(MPI_COMM_SELF, k, &v, &flag);
        TCHECK(t, flag == 1 && (intptr_t)v == i + 3,
               "get on MPI_COMM_SELF (round %d)", i);
        MPI_Comm_get_attr(t->comm, k, &v, &flag);
        TCHECK(t, flag == 1 && (intptr_t)v == i + 2,
               "get on the thread's comm (round %d)", i);
        /* Free the keyval before the attributes go: they still work. */
        if (i % 2 == 0) {
            MPI_Comm_free_keyval(&k);
            TCHECK(t, MPI_Comm_delete_attr(MPI_COMM_SELF, k) != MPI_SUCCESS,
                   "delete_attr with MPI_KEYVAL_INVALID (round %d)", i);
        } else {
            MPI_Comm_delete_attr(MPI_COMM_SELF, k);
        }
        if (i % 2 != 0) {
            MPI_Comm_free_keyval(&k);
        }
    }
    /* Keep NKEEP live keyvals to compare across threads. */
    for (i = 0; i < NKEEP; i++) {
        MPI_Comm_create_keyval(MPI_COMM_NULL_COPY_FN, MPI_COMM_NULL_DELETE_FN,
                               &t->keep[i], NULL);
    }
    return NULL;
}

int main(int argc, char **argv)
{
    thread_arg_t args[NTHREADS];
    int i, j, a, b, expect;

    mpitest_init_thread(&argc, &argv, "attr_threads", MPI_THREAD_MULTIPLE);
    /* Deleting with an invalid (freed) keyval is part of the workload:
     * it must return MPI_ERR_KEYVAL, not end the job. */
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    MPI_Comm_set_errhandler(MPI_COMM_SELF, MPI_ERRORS_RETURN);
    for (i = 0; i < NTHREADS; i++) {
        args[i].t        = i;
        args[i].failures = 0;
        args[i].deletes  = 0;
        MPI_Comm_dup(MPI_COMM_WORLD, &args[i].comm);
    }
    mpitest_threads(NTHREADS, worker, args, sizeof(args[0]));
    /* Keyvals alive at the same time are distinct. */
    for (a = 0; a < NTHREADS * NKEEP; a++) {
        for (b = a + 1; b < NTHREADS * NKEEP; b++) {
            CHECK(args[a / NKEEP].keep[a % NKEEP] !=
                  args[b / NKEEP].keep[b % NKEEP],
                  "keyval %d handed out twice",
                  args[a / NKEEP].keep[a % NKEEP]);
        }
    }
    /* Per thread: one delete per overwrite (NITER), one per odd round's
     * delete_attr (NITER / 2); the even rounds' MPI_COMM_SELF attributes
     * (freed keyvals) and the comm's attributes go at free/finalize. */
    for (i = 0; i < NTHREADS; i++) {
        expect = NITER + NITER / 2;
        CHECK(args[i].deletes == expect,
              "thread %d ran %d delete callbacks, want %d", i,
              args[i].deletes, expect);
        MPI_Comm_free(&args[i].comm);
        expect += NITER;
        CHECK(args[i].deletes == expect,
              "freeing thread %d's comm: %d delete callbacks, want %d", i,
              args[i].deletes, expect);
        for (j = 0; j < NKEEP; j++) {
            MPI_Comm_free_keyval(&args[i].keep[j]);
        }
    }
    MPI_Finalize();
    for (i = 0; i < NTHREADS; i++) {
        expect = 2 * NITER + NITER / 2 + NITER / 2;
        CHECK(args[i].deletes == expect,
              "after MPI_Finalize thread %d ran %d delete callbacks, want %d",
              i, args[i].deletes, expect);
    }
    return (mpitest_failures == 0) ? 0 : 1;
}

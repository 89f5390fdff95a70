/*
 * tests/mpi/attr_threads.c: keyvals and attributes from several threads at
 * once (MPI_THREAD_MULTIPLE). Each thread creates keyvals, sets, reads,
 * overwrites and deletes attributes on MPI_COMM_SELF and on its own
 * duplicate, and frees its keyvals; every keyval number handed out while
 * in use must be unique, and every callback must run exactly as often as
 * the calls say.
 */
#include <mpi.h>

#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#define NTHREADS 4
#define NKEEP    32    /* keyvals each thread holds at the end */
#define NITER    200   /* create/use/free rounds per thread */

static int rank;

typedef struct thread_arg {
    int id;
    MPI_Comm comm;          /* the thread's own duplicate */
    int keep[NKEEP];
    int deletes;            /* delete callbacks run for this thread */
    int failures;
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

static void fail(thread_arg_t *t, const char *what, int i)
{
    printf("FAIL: %s (thread %d, round %d) (rank %d)\n", what, t->id, i,
           rank);
    fflush(stdout);
    t->failures++;
}

static void *worker(void *p)
{
    thread_arg_t *t = p;
    int i, k, flag;
    void *v;

    for (i = 0; i < NITER; i++) {
        if (MPI_Comm_create_keyval(MPI_COMM_DUP_FN, count_delete, &k, t) !=
            MPI_SUCCESS) {
            fail(t, "create_keyval", i);
            return NULL;
        }
        MPI_Comm_set_attr(MPI_COMM_SELF, k, (void *)(intptr_t)(i + 1));
        MPI_Comm_set_attr(t->comm, k, (void *)(intptr_t)(i + 2));
        MPI_Comm_set_attr(MPI_COMM_SELF, k, (void *)(intptr_t)(i + 3));
        v = NULL;
        MPI_Comm_get_attr(MPI_COMM_SELF, k, &v, &flag);
        if (flag != 1 || (intptr_t)v != i + 3) {
            fail(t, "get on MPI_COMM_SELF", i);
        }
        MPI_Comm_get_attr(t->comm, k, &v, &flag);
        if (flag != 1 || (intptr_t)v != i + 2) {
            fail(t, "get on the thread's comm", i);
        }
        /* Free the keyval before the attributes go: they still work. */
        if (i % 2 == 0) {
            MPI_Comm_free_keyval(&k);
            if (MPI_Comm_delete_attr(MPI_COMM_SELF, k) == MPI_SUCCESS) {
                fail(t, "delete_attr with MPI_KEYVAL_INVALID", i);
            }
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
    pthread_t tid[NTHREADS];
    int provided, i, j, a, b, failures = 0, expect;

    MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    if (provided < MPI_THREAD_MULTIPLE) {
        printf("skip: MPI_THREAD_MULTIPLE not provided (%d)\n", provided);
        MPI_Finalize();
        return 0;
    }
    /* Deleting with an invalid (freed) keyval is part of the workload:
     * it must return MPI_ERR_KEYVAL, not end the job. */
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    MPI_Comm_set_errhandler(MPI_COMM_SELF, MPI_ERRORS_RETURN);
    for (i = 0; i < NTHREADS; i++) {
        args[i].id       = i;
        args[i].deletes  = 0;
        args[i].failures = 0;
        MPI_Comm_dup(MPI_COMM_WORLD, &args[i].comm);
    }
    for (i = 0; i < NTHREADS; i++) {
        pthread_create(&tid[i], NULL, worker, &args[i]);
    }
    for (i = 0; i < NTHREADS; i++) {
        pthread_join(tid[i], NULL);
        failures += args[i].failures;
    }
    /* Keyvals alive at the same time are distinct. */
    for (a = 0; a < NTHREADS * NKEEP; a++) {
        for (b = a + 1; b < NTHREADS * NKEEP; b++) {
            if (args[a / NKEEP].keep[a % NKEEP] ==
                args[b / NKEEP].keep[b % NKEEP]) {
                printf("FAIL: keyval %d handed out twice (rank %d)\n",
                       args[a / NKEEP].keep[a % NKEEP], rank);
                failures++;
            }
        }
    }
    /* Per thread: one delete per overwrite (NITER), one per odd round's
     * delete_attr (NITER / 2); the even rounds' MPI_COMM_SELF attributes
     * (freed keyvals) and the comm's attributes go at free/finalize. */
    for (i = 0; i < NTHREADS; i++) {
        expect = NITER + NITER / 2;
        if (args[i].deletes != expect) {
            printf("FAIL: thread %d ran %d delete callbacks, want %d "
                   "(rank %d)\n", i, args[i].deletes, expect, rank);
            failures++;
        }
        MPI_Comm_free(&args[i].comm);
        expect += NITER;
        if (args[i].deletes != expect) {
            printf("FAIL: freeing thread %d's comm: %d delete callbacks, "
                   "want %d (rank %d)\n", i, args[i].deletes, expect, rank);
            failures++;
        }
        for (j = 0; j < NKEEP; j++) {
            MPI_Comm_free_keyval(&args[i].keep[j]);
        }
    }
    MPI_Finalize();
    for (i = 0; i < NTHREADS; i++) {
        expect = 2 * NITER + NITER / 2 + NITER / 2;
        if (args[i].deletes != expect) {
            printf("FAIL: after MPI_Finalize thread %d ran %d delete "
                   "callbacks, want %d (rank %d)\n", i, args[i].deletes,
                   expect, rank);
            failures++;
        }
    }
    return (failures == 0) ? 0 : 1;
}

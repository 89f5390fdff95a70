/*
 * thread_collectives: collectives among threads of several processes.
 *
 * MPIX_Comm_create_threads gives each process as many LCOs as it asks for
 * (here 3, and 4 on process 1), each on an endpoint of its own, and
 * connects all LCOs of all processes into one fully connected structure,
 * ranked by (process, local index). Each process then starts one thread
 * per LCO, and every thread uses its own LCO as a communicator of its own:
 * its rank is MPIX_Comm_lco_rank (the LCO's rank), its size
 * MPIX_Num_send_slots (the number of LCOs), and MPI_Allreduce, MPI_Bcast,
 * MPI_Barrier and MPI_Allgather run among all threads of all processes;
 * a ring of point-to-point messages goes from each LCO to the next. Every
 * result is checked against its closed form. One line per process sums
 * up.
 *
 * Run with: gcrun -n 3 examples/thread_collectives [--graph FILE] (FILE:
 * the LCOs of all threads drawn as Graphviz DOT with
 * MPIX_Comm_graph_write, collective over them).
 */
#include <mpi.h>

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define RING_TAG 5

typedef struct thread_arg {
    MPI_Comm lcomm;
    int      failures;
    int      rank;
    int      size;
} thread_arg_t;

static int me;
static const char *graph_file;   /* --graph FILE */

#define TCHECK(_a, _cond, ...)                                            \
    do {                                                                  \
        if (!(_cond)) {                                                   \
            fprintf(stderr, "thread_collectives: P%d LCO %d: ", me,       \
                    (_a)->rank);                                          \
            fprintf(stderr, __VA_ARGS__);                                 \
            fprintf(stderr, "\n");                                        \
            (_a)->failures++;                                             \
        }                                                                 \
    } while (0)

static void *thread_main(void *arg)
{
    thread_arg_t *a = arg;
    int rank, size, sum, v, root, next, prev, got, i;
    int *all;

    MPIX_Comm_lco_rank(a->lcomm, &rank);
    MPIX_Num_send_slots(a->lcomm, &size);
    a->rank = rank;
    a->size = size;
    all = malloc((size_t)size * sizeof(int));

    /* Sum of rank + 1 over all LCOs of all processes. */
    v = rank + 1;
    MPI_Allreduce(&v, &sum, 1, MPI_INT, MPI_SUM, a->lcomm);
    TCHECK(a, sum == size * (size + 1) / 2, "allreduce gave %d, expected %d",
           sum, size * (size + 1) / 2);

    /* The last LCO broadcasts. */
    root = size - 1;
    v = (rank == root) ? 1000 + root : -1;
    MPI_Bcast(&v, 1, MPI_INT, root, a->lcomm);
    TCHECK(a, v == 1000 + root, "bcast gave %d, expected %d", v, 1000 + root);

    MPI_Barrier(a->lcomm);

    v = rank * rank;
    MPI_Allgather(&v, 1, MPI_INT, all, 1, MPI_INT, a->lcomm);
    for (i = 0; i < size; i++) {
        TCHECK(a, all[i] == i * i, "allgather[%d] = %d, expected %d", i,
               all[i], i * i);
    }

    /* A ring by LCO rank: send to the next LCO, hear from the previous. */
    next = (rank + 1) % size;
    prev = (rank + size - 1) % size;
    v = 7 * rank + 1;
    MPI_Sendrecv(&v, 1, MPI_INT, next, RING_TAG, &got, 1, MPI_INT, prev,
                 RING_TAG, a->lcomm, MPI_STATUS_IGNORE);
    TCHECK(a, got == 7 * prev + 1, "ring: got %d from %d, expected %d", got,
           prev, 7 * prev + 1);

    free(all);
    if (graph_file != NULL) {
        TCHECK(a, MPIX_Comm_graph_write(a->lcomm, graph_file) == MPI_SUCCESS,
               "MPIX_Comm_graph_write failed");
    }
    /* Nobody sends to this LCO any more once everyone passed here. */
    MPI_Barrier(a->lcomm);
    MPI_Comm_free(&a->lcomm);
    return NULL;
}

int main(int argc, char **argv)
{
    MPI_Comm *lcomms;
    pthread_t *threads;
    thread_arg_t *args;
    int provided, nthreads, nprocs, i, failures = 0, total = 0;

    MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided);
    MPI_Comm_rank(MPI_COMM_WORLD, &me);
    MPI_Comm_size(MPI_COMM_WORLD, &nprocs);
    if ((argc > 2) && (strcmp(argv[1], "--graph") == 0)) {
        graph_file = argv[2];
    }

    /* One process asks for a different count: counts need not match. */
    nthreads = (me == 1) ? 4 : 3;
    lcomms  = malloc((size_t)nthreads * sizeof(*lcomms));
    threads = malloc((size_t)nthreads * sizeof(*threads));
    args    = calloc((size_t)nthreads, sizeof(*args));
    MPIX_Comm_create_threads(MPI_COMM_WORLD, nthreads, lcomms);

    for (i = 0; i < nthreads; i++) {
        args[i].lcomm = lcomms[i];
        if (pthread_create(&threads[i], NULL, thread_main, &args[i]) != 0) {
            fprintf(stderr, "thread_collectives: pthread_create failed\n");
            MPI_Abort(MPI_COMM_WORLD, 1);
        }
    }
    for (i = 0; i < nthreads; i++) {
        pthread_join(threads[i], NULL);
        failures += args[i].failures;
        total = args[i].size;
    }
    if (failures == 0) {
        printf("thread_collectives: P%d: %d threads, LCOs %d..%d of %d: "
               "allreduce, bcast, barrier, allgather and ring ok\n", me,
               nthreads, args[0].rank, args[nthreads - 1].rank, total);
    }
    free(lcomms);
    free(threads);
    free(args);
    MPI_Finalize();
    return (failures == 0) ? 0 : 1;
}

/*
 * tests/mpi/threads_coll.c: MPIX_Comm_create_threads, one LCO per thread.
 *
 * Counts per process differ: with one process 3 threads; else process 0
 * asks for 2, process 1 for 4, process 2 for none, process 3 for 1
 * (further ones 2). Every thread, on its own LCO, all at once:
 * - the rules: MPIX_Comm_lco_rank is the rank by (process, index),
 *   MPIX_Comm_level puts the threads one level below the processes,
 *   MPIX_Num_send_slots and MPIX_Num_receive_slots the number of LCOs,
 *   MPI_Comm_size the number of processes holding LCOs and MPI_Comm_rank
 *   this process's place among them, MPI_Comm_group those processes;
 * - MPI_Allreduce (sum, max on doubles, and 1000 elements), MPI_Bcast
 *   from every root and of 1 MiB, MPI_Allgather, MPI_Reduce, MPI_Scan,
 *   MPI_Exscan, MPI_Alltoall, MPI_Gather, MPI_Barrier and
 *   MPI_Iallreduce with MPI_Wait, each checked against its closed form;
 * - point-to-point by LCO rank: a message to every LCO (itself included)
 *   received by source, then with MPI_ANY_SOURCE, with MPI_SOURCE checked;
 * - MPI_Comm_dup of the LCO: same ranks, collectives on it, freed;
 * - MPI_Comm_free of the LCO, after which the handle is MPI_COMM_NULL.
 * Then the same structure over the halves of an MPI_Comm_split of the
 * world (2 threads each), whose groups are the halves' world ranks.
 * Last, a first message on an edge completes while its receiver is in no
 * call on that LCO: process 0 sends on its LCO to process 1's, and only
 * then tells process 1 over the world to receive it (a send that waited
 * for the receiver to accept the edge would wait for a thread that
 * progresses the receiver's endpoint, and none does).
 */
#include <mpi.h>

#include "mpitest.h"

#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { P2P_TAG = 21, ANY_TAG = 22, BIG = 1 << 20, MANY = 1000 };

static int me, np;

/* A thread's record (t and failures for TCHECK) and what it checks. */
typedef struct targ {
    int      t;             /* the LCO rank */
    int      failures;
    MPI_Comm lcomm;
    int      expect_rank;   /* by (process, index) */
    int      total;
    int      nprocs;        /* processes holding LCOs */
    int      myproc;        /* this process's place among them */
    const int *holders;     /* their ranks in the parent */
    MPI_Comm parent;
    int      first;         /* LCO ranks of this process: first.. */
    int      mine;          /* ..first + mine - 1 */
} targ_t;

static int count_of(int r, int n)
{
    static const int table[4] = { 2, 4, 0, 1 };

    if (n == 1) {
        return 3;
    }
    return (r < 4) ? table[r] : 2;
}

/* The thread level below the processes: an LCO with itself at
 * MPIX_MAX_DEPTH + 1, two LCOs of one process at MPIX_MAX_DEPTH, LCOs of
 * different processes above it. */
static void check_levels(targ_t *a, MPI_Comm c, int g, int n,
                         const char *what)
{
    int *maxdepth, flag = 0, h, level, expect;

    MPI_Comm_get_attr(MPI_COMM_WORLD, MPIX_MAX_DEPTH, &maxdepth, &flag);
    TCHECK(a, flag, "%s: no MPIX_MAX_DEPTH", what);
    if (!flag) {
        return;
    }
    for (h = 0; h < n; h++) {
        level = -1;
        MPIX_Comm_level(c, g, h, &level);
        if (h == g) {
            expect = *maxdepth + 1;
        } else if ((h >= a->first) && (h < a->first + a->mine)) {
            expect = *maxdepth;
        } else {
            TCHECK(a, (level >= 0) && (level < *maxdepth), "%s: "
                   "MPIX_Comm_level(%d, %d) %d, expected below %d", what,
                   g, h, level, *maxdepth);
            continue;
        }
        TCHECK(a, level == expect, "%s: MPIX_Comm_level(%d, %d) %d, "
               "expected %d", what, g, h, level, expect);
    }
}

static void check_rules(targ_t *a, MPI_Comm c, const char *what)
{
    int g = -1, nsend = -1, nrecv = -1, size = -1, rank = -2, gsize = -1;
    int i, *ranks, *wranks;
    MPI_Group group, pgroup;

    MPIX_Comm_lco_rank(c, &g);
    MPIX_Num_send_slots(c, &nsend);
    MPIX_Num_receive_slots(c, &nrecv);
    MPI_Comm_size(c, &size);
    MPI_Comm_rank(c, &rank);
    TCHECK(a, g == a->expect_rank, "%s: MPIX_Comm_lco_rank %d", what, g);
    TCHECK(a, (nsend == a->total) && (nrecv == a->total),
           "%s: %d send and %d receive slots, expected %d", what, nsend,
           nrecv, a->total);
    TCHECK(a, size == a->nprocs, "%s: MPI_Comm_size %d, expected %d", what,
           size, a->nprocs);
    TCHECK(a, rank == a->myproc, "%s: MPI_Comm_rank %d, expected %d", what,
           rank, a->myproc);
    /* The group is the holders, in the parent's order. */
    MPI_Comm_group(c, &group);
    MPI_Group_size(group, &gsize);
    TCHECK(a, gsize == a->nprocs, "%s: group size %d", what, gsize);
    if (gsize == a->nprocs) {
        ranks  = malloc((size_t)gsize * sizeof(int));
        wranks = malloc((size_t)gsize * sizeof(int));
        for (i = 0; i < gsize; i++) {
            ranks[i] = i;
        }
        MPI_Comm_group(a->parent, &pgroup);
        MPI_Group_translate_ranks(group, gsize, ranks, pgroup, wranks);
        for (i = 0; i < gsize; i++) {
            TCHECK(a, wranks[i] == a->holders[i], "%s: group rank %d is "
                   "parent rank %d, expected %d", what, i, wranks[i],
                   a->holders[i]);
        }
        MPI_Group_free(&pgroup);
        free(ranks);
        free(wranks);
    }
    MPI_Group_free(&group);
    check_levels(a, c, g, nsend, what);
}

static void collectives(targ_t *a, MPI_Comm c, const char *what)
{
    int g = a->expect_rank, n = a->total;
    int v, sum, root, i, j, *all, *sbuf, *rbuf, flag;
    double d, dmax;
    char *big;
    MPI_Request req;

    all  = malloc((size_t)n * sizeof(int));
    sbuf = malloc((size_t)(n > MANY ? n : MANY) * sizeof(int));
    rbuf = malloc((size_t)(n > MANY ? n : MANY) * sizeof(int));
    big  = malloc(BIG);

    v = g + 1;
    MPI_Allreduce(&v, &sum, 1, MPI_INT, MPI_SUM, c);
    TCHECK(a, sum == n * (n + 1) / 2, "%s: allreduce sum %d, expected %d",
           what, sum, n * (n + 1) / 2);
    d = 0.5 * g;
    MPI_Allreduce(&d, &dmax, 1, MPI_DOUBLE, MPI_MAX, c);
    TCHECK(a, dmax == 0.5 * (n - 1), "%s: allreduce max %g", what, dmax);
    for (i = 0; i < MANY; i++) {
        sbuf[i] = g * i;
    }
    MPI_Allreduce(sbuf, rbuf, MANY, MPI_INT, MPI_SUM, c);
    for (i = 0; i < MANY; i++) {
        if (rbuf[i] != i * (n * (n - 1) / 2)) {
            TCHECK(a, 0, "%s: allreduce[%d] = %d, expected %d", what, i,
                   rbuf[i], i * (n * (n - 1) / 2));
            break;
        }
    }

    for (root = 0; root < n; root++) {
        v = (g == root) ? 100 * root + 7 : -1;
        MPI_Bcast(&v, 1, MPI_INT, root, c);
        TCHECK(a, v == 100 * root + 7, "%s: bcast from %d gave %d", what,
               root, v);
    }
    /* 1 MiB: rendezvous between processes, one copy inside one. */
    for (i = 0; i < BIG; i++) {
        big[i] = (g == n - 1) ? (char)(i * 7 + 3) : 0;
    }
    MPI_Bcast(big, BIG, MPI_CHAR, n - 1, c);
    for (i = 0; i < BIG; i++) {
        if (big[i] != (char)(i * 7 + 3)) {
            TCHECK(a, 0, "%s: 1 MiB bcast differs at byte %d", what, i);
            break;
        }
    }

    v = 10 * g + 1;
    MPI_Allgather(&v, 1, MPI_INT, all, 1, MPI_INT, c);
    for (i = 0; i < n; i++) {
        TCHECK(a, all[i] == 10 * i + 1, "%s: allgather[%d] = %d", what, i,
               all[i]);
    }

    v = g * g;
    sum = -1;
    MPI_Reduce(&v, &sum, 1, MPI_INT, MPI_SUM, 0, c);
    if (g == 0) {
        TCHECK(a, sum == (n - 1) * n * (2 * n - 1) / 6,
               "%s: reduce to 0 gave %d", what, sum);
    }

    /* Inclusive and exclusive prefix sums of g + 1. */
    v = g + 1;
    MPI_Scan(&v, &sum, 1, MPI_INT, MPI_SUM, c);
    TCHECK(a, sum == (g + 1) * (g + 2) / 2, "%s: scan %d, expected %d",
           what, sum, (g + 1) * (g + 2) / 2);
    sum = -1;
    MPI_Exscan(&v, &sum, 1, MPI_INT, MPI_SUM, c);
    if (g > 0) {
        TCHECK(a, sum == g * (g + 1) / 2, "%s: exscan %d, expected %d",
               what, sum, g * (g + 1) / 2);
    }

    for (j = 0; j < n; j++) {
        sbuf[j] = 1000 * g + j;
        rbuf[j] = -1;
    }
    MPI_Alltoall(sbuf, 1, MPI_INT, rbuf, 1, MPI_INT, c);
    for (j = 0; j < n; j++) {
        TCHECK(a, rbuf[j] == 1000 * j + g, "%s: alltoall from %d gave %d",
               what, j, rbuf[j]);
    }

    v = 3 * g;
    MPI_Gather(&v, 1, MPI_INT, all, 1, MPI_INT, n - 1, c);
    if (g == n - 1) {
        for (i = 0; i < n; i++) {
            TCHECK(a, all[i] == 3 * i, "%s: gather[%d] = %d", what, i,
                   all[i]);
        }
    }

    /* Nonblocking, waited for by the thread that started it. */
    v = 1;
    sum = -1;
    MPI_Iallreduce(&v, &sum, 1, MPI_INT, MPI_SUM, c, &req);
    MPI_Wait(&req, MPI_STATUS_IGNORE);
    TCHECK(a, sum == n, "%s: iallreduce %d, expected %d", what, sum, n);
    MPI_Ibarrier(c, &req);
    flag = 0;
    while (!flag) {
        MPI_Test(&req, &flag, MPI_STATUS_IGNORE);
        if (!flag) {
            sched_yield();   /* others may need the core */
        }
    }

    MPI_Barrier(c);
    free(all);
    free(sbuf);
    free(rbuf);
    free(big);
}

/* A message to every LCO; received by source, then by MPI_ANY_SOURCE. */
static void point_to_point(targ_t *a, MPI_Comm c, const char *what)
{
    int g = a->expect_rank, n = a->total;
    MPI_Request *reqs = malloc(2 * (size_t)n * sizeof(*reqs));
    MPI_Status *sts = malloc(2 * (size_t)n * sizeof(*sts));
    int *out = malloc((size_t)n * sizeof(int));
    int *in = malloc((size_t)n * sizeof(int));
    int *seen = calloc((size_t)n, sizeof(int));
    int j, v;

    for (j = 0; j < n; j++) {
        in[j] = -1;
        MPI_Irecv(&in[j], 1, MPI_INT, j, P2P_TAG, c, &reqs[j]);
    }
    for (j = 0; j < n; j++) {
        out[j] = 1000 * g + j;
        MPI_Isend(&out[j], 1, MPI_INT, j, P2P_TAG, c, &reqs[n + j]);
    }
    MPI_Waitall(2 * n, reqs, sts);
    for (j = 0; j < n; j++) {
        TCHECK(a, (in[j] == 1000 * j + g) && (sts[j].MPI_SOURCE == j),
               "%s: from LCO %d got %d (source %d), expected %d", what, j,
               in[j], sts[j].MPI_SOURCE, 1000 * j + g);
    }

    for (j = 0; j < n; j++) {
        v = 2 * g + 1;
        MPI_Send(&v, 1, MPI_INT, j, ANY_TAG, c);
    }
    for (j = 0; j < n; j++) {
        MPI_Status st;

        MPI_Recv(&v, 1, MPI_INT, MPI_ANY_SOURCE, ANY_TAG, c, &st);
        if ((st.MPI_SOURCE < 0) || (st.MPI_SOURCE >= n)) {
            TCHECK(a, 0, "%s: MPI_ANY_SOURCE gave source %d", what,
                   st.MPI_SOURCE);
            continue;
        }
        TCHECK(a, v == 2 * st.MPI_SOURCE + 1, "%s: from %d got %d", what,
               st.MPI_SOURCE, v);
        seen[st.MPI_SOURCE]++;
    }
    for (j = 0; j < n; j++) {
        TCHECK(a, seen[j] == 1, "%s: %d messages from LCO %d by "
               "MPI_ANY_SOURCE", what, seen[j], j);
    }
    MPI_Barrier(c);
    free(reqs);
    free(sts);
    free(out);
    free(in);
    free(seen);
}

static void *thread_main(void *arg)
{
    targ_t *a = arg;
    MPI_Comm dup = MPI_COMM_NULL;

    check_rules(a, a->lcomm, "LCO");
    collectives(a, a->lcomm, "LCO");
    point_to_point(a, a->lcomm, "LCO");

    MPI_Comm_dup(a->lcomm, &dup);
    check_rules(a, dup, "duplicate");
    collectives(a, dup, "duplicate");
    point_to_point(a, dup, "duplicate");
    MPI_Comm_free(&dup);

    /* Everyone passed the last barrier: nobody sends to it any more. */
    MPI_Comm_free(&a->lcomm);
    TCHECK(a, a->lcomm == MPI_COMM_NULL, "MPI_Comm_free left the handle");
    return NULL;
}

/* Runs nthreads threads per process (counts[r] for rank r of parent). */
static void run(MPI_Comm parent, const int counts[], const char *what)
{
    int pr, pn, r, first = 0, total = 0, nprocs = 0, myproc = -1, i;
    int failures = 0, mine, rc, *holders;
    MPI_Comm *lcomms;
    pthread_t *threads;
    targ_t *args;

    MPI_Comm_rank(parent, &pr);
    MPI_Comm_size(parent, &pn);
    holders = malloc((size_t)pn * sizeof(int));
    for (r = 0; r < pn; r++) {
        if (r == pr) {
            first = total;
            myproc = (counts[r] > 0) ? nprocs : -1;
        }
        total += counts[r];
        if (counts[r] > 0) {
            holders[nprocs++] = r;
        }
    }
    mine = counts[pr];
    lcomms  = malloc(((size_t)mine + 1) * sizeof(*lcomms));
    threads = malloc(((size_t)mine + 1) * sizeof(*threads));
    args    = calloc((size_t)mine + 1, sizeof(*args));
    if (MPIX_Comm_create_threads(parent, mine, lcomms) != MPI_SUCCESS) {
        mpitest_fail(__LINE__, "%s: MPIX_Comm_create_threads failed", what);
        return;
    }
    for (i = 0; i < mine; i++) {
        args[i].t           = first + i;
        args[i].lcomm       = lcomms[i];
        args[i].expect_rank = first + i;
        args[i].total       = total;
        args[i].nprocs      = nprocs;
        args[i].myproc      = myproc;
        args[i].holders     = holders;
        args[i].parent      = parent;
        args[i].first       = first;
        args[i].mine        = mine;
        rc = pthread_create(&threads[i], NULL, thread_main, &args[i]);
        if (rc != 0) {
            printf("FAIL: pthread_create: %s (rank %d)\n", strerror(rc), me);
            MPI_Abort(MPI_COMM_WORLD, 1);
        }
    }
    for (i = 0; i < mine; i++) {
        pthread_join(threads[i], NULL);
        failures += args[i].failures;
    }
    if (failures == 0) {
        printf("threads_coll: %s: rank %d: %d of %d LCOs ok\n", what, me,
               mine, total);
    }
    free(holders);
    free(lcomms);
    free(threads);
    free(args);
}

int main(int argc, char **argv)
{
    int r, half_rank, half_size;
    int counts[64];
    MPI_Comm half;

    mpitest_init_thread(&argc, &argv, "threads_coll", MPI_THREAD_MULTIPLE);
    me = mpitest_rank;
    np = mpitest_size;
    if (np > 64) {
        printf("FAIL: at most 64 processes\n");
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
    for (r = 0; r < np; r++) {
        counts[r] = count_of(r, np);
    }
    run(MPI_COMM_WORLD, counts, "world");

    /* Over a subcommunicator: even and odd world ranks, 2 threads each. */
    MPI_Comm_split(MPI_COMM_WORLD, me % 2, me, &half);
    MPI_Comm_rank(half, &half_rank);
    MPI_Comm_size(half, &half_size);
    for (r = 0; r < half_size; r++) {
        counts[r] = 2;
    }
    run(half, counts, (me % 2 == 0) ? "even half" : "odd half");
    MPI_Comm_free(&half);

    if (np >= 2) {
        MPI_Comm l;
        int v = 41, got = -1, go = 0;

        MPIX_Comm_create_threads(MPI_COMM_WORLD, (me < 2) ? 1 : 0, &l);
        if (me == 0) {
            MPI_Send(&v, 1, MPI_INT, 1, P2P_TAG, l);
            MPI_Send(&go, 1, MPI_INT, 1, P2P_TAG, MPI_COMM_WORLD);
        } else if (me == 1) {
            MPI_Recv(&go, 1, MPI_INT, 0, P2P_TAG, MPI_COMM_WORLD,
                     MPI_STATUS_IGNORE);
            MPI_Recv(&got, 1, MPI_INT, 0, P2P_TAG, l, MPI_STATUS_IGNORE);
            CHECK(got == 41, "first message: got %d", got);
            if (got == 41) {
                printf("threads_coll: a first message completed before "
                       "its receiver called\n");
            }
        }
        if (me < 2) {
            MPI_Barrier(l);
            MPI_Comm_free(&l);
        }
    }

    return mpitest_finish();
}

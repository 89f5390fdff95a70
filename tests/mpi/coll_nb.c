/*
 * tests/mpi/coll_nb.c: nonblocking collectives overlapped with each other,
 * with computation and with blocking collectives; every completion call
 * on the requests of calls repeated with the same arguments (which run
 * the schedule their communicator kept), and the blocking forms of those
 * calls, which keep theirs too; calls that build their schedule
 * in an object the last call left; and collectives of every kind
 * while the user has MPI_ANY_SOURCE / MPI_ANY_TAG receives pending, which
 * must not take collective traffic.
 */
#include <mpi.h>

#include "mpitest.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int rank, size;

static void test_overlap(int round)
{
    enum { NB = 6, N = 1000 };
    MPI_Request req[NB];
    int *bc = malloc(N * sizeof(int));
    double *ar_in = malloc(N * sizeof(double));
    double *ar_out = malloc(N * sizeof(double));
    int *ag = malloc((size_t)size * 2 * sizeof(int));
    int *a2s = malloc((size_t)size * sizeof(int));
    int *a2r = malloc((size_t)size * sizeof(int));
    int red = -1, mine[2] = { rank, -rank }, i, r, flag = 0, polls = 0;
    int root = (round + 1) % size, blocking = 0;
    double work = 0.0;

    for (i = 0; i < N; i++) {
        bc[i] = (rank == root) ? i * 3 + round : -1;
        ar_in[i] = i + rank * 0.5;
    }
    for (r = 0; r < size; r++) {
        a2s[r] = rank * 100 + r;
    }
    OK(MPI_Ibarrier(MPI_COMM_WORLD, &req[0]));
    OK(MPI_Ibcast(bc, N, MPI_INT, root, MPI_COMM_WORLD, &req[1]));
    OK(MPI_Iallreduce(ar_in, ar_out, N, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD,
                      &req[2]));
    OK(MPI_Iallgather(mine, 2, MPI_INT, ag, 2, MPI_INT, MPI_COMM_WORLD,
                      &req[3]));
    OK(MPI_Ialltoall(a2s, 1, MPI_INT, a2r, 1, MPI_INT, MPI_COMM_WORLD,
                     &req[4]));
    OK(MPI_Ireduce(&rank, &red, 1, MPI_INT, MPI_MAX, root, MPI_COMM_WORLD,
                   &req[5]));
    /* A blocking collective while they are all in flight. */
    OK(MPI_Allreduce(&rank, &blocking, 1, MPI_INT, MPI_SUM,
                     MPI_COMM_WORLD));
    CHECK(blocking == size * (size - 1) / 2, "blocking allreduce %d",
          blocking);
    /* Computation, polling one of them now and then. */
    for (i = 0; i < 200000; i++) {
        work += (double)i * 1e-9;
        if ((i % 5000) == 0 && flag == 0) {
            OK(MPI_Test(&req[2], &flag, MPI_STATUS_IGNORE));
            polls++;
        }
    }
    CHECK(work > 0.0, "work");
    /* Complete in reverse order of start. */
    for (i = NB - 1; i >= 0; i--) {
        if (i == 2 && flag != 0) {
            continue;
        }
        OK(MPI_Wait(&req[i], MPI_STATUS_IGNORE));
        CHECK(req[i] == MPI_REQUEST_NULL, "request %d not freed", i);
    }
    for (i = 0; i < N; i++) {
        CHECK(bc[i] == i * 3 + round, "ibcast [%d]=%d", i, bc[i]);
        CHECK(ar_out[i] == i * (double)size + 0.25 * size * (size - 1),
              "iallreduce [%d]=%g", i, ar_out[i]);
        if (bc[i] != i * 3 + round ||
            ar_out[i] != i * (double)size + 0.25 * size * (size - 1)) {
            break;
        }
    }
    for (r = 0; r < size; r++) {
        CHECK(ag[2 * r] == r && ag[2 * r + 1] == -r, "iallgather %d", r);
        CHECK(a2r[r] == r * 100 + rank, "ialltoall from %d: %d", r, a2r[r]);
    }
    if (rank == root) {
        CHECK(red == size - 1, "ireduce %d", red);
    }
    free(bc);
    free(ar_in);
    free(ar_out);
    free(ag);
    free(a2s);
    free(a2r);
}

/* Waitall over a set, and a Test-only loop to completion. */
static void test_waitall_testloop(void)
{
    MPI_Request req[3];
    int a = rank, b = -1, c[2] = { 0, 0 }, flag = 0, n;

    OK(MPI_Iallreduce(&a, &b, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD,
                      &req[0]));
    OK(MPI_Ibarrier(MPI_COMM_WORLD, &req[1]));
    c[0] = (rank == 0) ? 42 : 0;
    c[1] = (rank == 0) ? 43 : 0;
    OK(MPI_Ibcast(c, 2, MPI_INT, 0, MPI_COMM_WORLD, &req[2]));
    OK(MPI_Waitall(3, req, MPI_STATUSES_IGNORE));
    CHECK(b == size * (size - 1) / 2, "waitall iallreduce %d", b);
    CHECK(c[0] == 42 && c[1] == 43, "waitall ibcast %d %d", c[0], c[1]);
    OK(MPI_Ibarrier(MPI_COMM_WORLD, &req[0]));
    for (n = 0; flag == 0; n++) {
        OK(MPI_Test(&req[0], &flag, MPI_STATUS_IGNORE));
    }
    CHECK(req[0] == MPI_REQUEST_NULL, "tested ibarrier not freed");
}

/*
 * The same call made again and again runs the schedule its communicator
 * kept from the last one: each way of completing a request must work on
 * such requests, a handle must die with its request (a copy of it is no
 * request once it completed), a second call with the same arguments
 * while the first is pending must run on its own, and a request freed
 * while its collective runs must leave the next calls of the same
 * arguments working (its schedule finishes in the waits that follow).
 */
static void test_kept(void)
{
    MPI_Request req[3], stale;
    MPI_Status st[3];
    int in = rank + 1, out, flag, idx, n, i, k, sum = size * (size + 1) / 2;
    int bc = -1, cls = MPI_SUCCESS, freed_out = -1;

    for (k = 0; k < 8; k++) {
        /* Wait, then a copy of the completed handle. */
        out = -1;
        OK(MPI_Iallreduce(&in, &out, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD,
                          &req[0]));
        stale = req[0];
        OK(MPI_Wait(&req[0], &st[0]));
        CHECK(out == sum && req[0] == MPI_REQUEST_NULL,
              "kept iallreduce %d: %d", k, out);
        MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
        MPI_Error_class(MPI_Wait(&stale, MPI_STATUS_IGNORE), &cls);
        MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL);
        CHECK(cls == MPI_ERR_REQUEST, "completed handle still waits: %d",
              cls);
        /* Test to completion. */
        bc = (rank == 0) ? 100 + k : -1;
        OK(MPI_Ibcast(&bc, 1, MPI_INT, 0, MPI_COMM_WORLD, &req[0]));
        for (flag = 0; flag == 0;) {
            OK(MPI_Test(&req[0], &flag, &st[0]));
        }
        CHECK(bc == 100 + k && req[0] == MPI_REQUEST_NULL,
              "kept ibcast %d: %d", k, bc);
        /* Waitany and Waitsome, two barriers of the same arguments in
         * flight with an allreduce. */
        out = -1;
        OK(MPI_Ibarrier(MPI_COMM_WORLD, &req[0]));
        OK(MPI_Ibarrier(MPI_COMM_WORLD, &req[1]));
        OK(MPI_Iallreduce(&in, &out, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD,
                          &req[2]));
        OK(MPI_Waitany(3, req, &idx, &st[0]));
        CHECK(idx >= 0 && idx < 3 && req[idx] == MPI_REQUEST_NULL,
              "waitany %d", idx);
        for (n = 1; n < 3;) {
            int got, ids[3];

            OK(MPI_Waitsome(3, req, &got, ids, st));
            CHECK(got >= 1 && got <= 3 - n, "waitsome %d", got);
            n += (got > 0) ? got : 3;
        }
        for (i = 0; i < 3; i++) {
            CHECK(req[i] == MPI_REQUEST_NULL, "waitsome left %d", i);
        }
        CHECK(out == sum, "iallreduce beside barriers %d", out);
        /* Testall, Testany, Testsome. */
        OK(MPI_Ibarrier(MPI_COMM_WORLD, &req[0]));
        OK(MPI_Iallreduce(&in, &out, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD,
                          &req[1]));
        for (flag = 0; flag == 0;) {
            OK(MPI_Testall(2, req, &flag, MPI_STATUSES_IGNORE));
        }
        OK(MPI_Ibarrier(MPI_COMM_WORLD, &req[0]));
        for (flag = 0; flag == 0;) {
            OK(MPI_Testany(1, req, &idx, &flag, MPI_STATUS_IGNORE));
        }
        OK(MPI_Ibarrier(MPI_COMM_WORLD, &req[0]));
        for (n = 0; n == 0;) {
            int ids[1];

            OK(MPI_Testsome(1, req, &n, ids, MPI_STATUSES_IGNORE));
        }
        CHECK(req[0] == MPI_REQUEST_NULL, "testsome left the request");
        /* Freed while it may still run; then the next calls of the same
         * arguments. */
        OK(MPI_Iallreduce(&in, &freed_out, 1, MPI_INT, MPI_SUM,
                          MPI_COMM_WORLD, &req[0]));
        OK(MPI_Request_free(&req[0]));
        CHECK(req[0] == MPI_REQUEST_NULL, "request_free left the handle");
        OK(MPI_Barrier(MPI_COMM_WORLD));
        OK(MPI_Ibarrier(MPI_COMM_WORLD, &req[0]));
        OK(MPI_Wait(&req[0], MPI_STATUS_IGNORE));
        OK(MPI_Ibarrier(MPI_COMM_WORLD, &req[0]));
        OK(MPI_Request_free(&req[0]));
    }
    OK(MPI_Barrier(MPI_COMM_WORLD));
}

/*
 * Each kept collective called again with the same arguments starts from
 * the schedule and request its last call left, in one pass (the checks
 * skipped): new data in the same buffers must be what it moves, a
 * blocking call of the same arguments and other collectives between its
 * start and its wait must not disturb it, a call of the same buffers but
 * another count must build its own, a request freed while it runs must
 * leave the next call working, and a communicator freed under a freed
 * request must end well.
 */
static void test_kept_all(void)
{
    MPI_Comm dup;
    MPI_Request req[6], other;
    int *ag = malloc((size_t)size * 2 * sizeof(int));
    int *a2s = malloc((size_t)size * 2 * sizeof(int));
    int *a2r = malloc((size_t)size * 2 * sizeof(int));
    int *g = malloc((size_t)size * sizeof(int));
    /* Static: the freed requests may write after this returns. */
    static int freed_in[1] = { 1 }, freed_out[1];
    int in[2], ar[2], red[2], bc[2], blk[2], n, r, k, i;

    OK(MPI_Comm_dup(MPI_COMM_WORLD, &dup));
    for (k = 0; k < 24; k++) {
        /* Rounds 8 to 11 move 2 ints in the buffers of the others' 1. */
        n = (k >= 8 && k < 12) ? 2 : 1;
        for (i = 0; i < n; i++) {
            in[i] = 1000 * k + 10 * rank + i;
            ar[i] = red[i] = blk[i] = -1;
            bc[i] = (rank == k % size) ? 7 * k + i : -1;
        }
        for (r = 0; r < size * n; r++) {
            a2s[r] = 100 * rank + r + k;
            a2r[r] = ag[r] = -1;
        }
        OK(MPI_Iallreduce(in, ar, n, MPI_INT, MPI_SUM, dup, &req[0]));
        OK(MPI_Ibcast(bc, n, MPI_INT, k % size, dup, &req[1]));
        OK(MPI_Ireduce(in, red, n, MPI_INT, MPI_MAX, 0, dup, &req[2]));
        OK(MPI_Iallgather(in, n, MPI_INT, ag, n, MPI_INT, dup, &req[3]));
        OK(MPI_Ialltoall(a2s, n, MPI_INT, a2r, n, MPI_INT, dup, &req[4]));
        OK(MPI_Ibarrier(dup, &req[5]));
        /* Between start and wait: the blocking form of the same
         * arguments and a collective whose schedule is not kept. */
        OK(MPI_Allreduce(in, blk, n, MPI_INT, MPI_SUM, dup));
        OK(MPI_Igather(in, 1, MPI_INT, g, 1, MPI_INT, 0, dup, &other));
        OK(MPI_Wait(&other, MPI_STATUS_IGNORE));
        if (k % 3 == 0) {
            OK(MPI_Waitall(6, req, MPI_STATUSES_IGNORE));
        } else {
            for (i = 5; i >= 0; i--) {
                OK(MPI_Wait(&req[i], MPI_STATUS_IGNORE));
            }
        }
        for (i = 0; i < n; i++) {
            int sum = 0;

            for (r = 0; r < size; r++) {
                sum += 1000 * k + 10 * r + i;
            }
            CHECK(ar[i] == sum && blk[i] == sum,
                  "kept iallreduce %d item %d: %d, blocking %d", k, i, ar[i],
                  blk[i]);
            CHECK(bc[i] == 7 * k + i, "kept ibcast %d item %d: %d", k, i,
                  bc[i]);
            CHECK(rank != 0 || red[i] == 1000 * k + 10 * (size - 1) + i,
                  "kept ireduce %d item %d: %d", k, i, red[i]);
        }
        for (r = 0; r < size; r++) {
            for (i = 0; i < n; i++) {
                CHECK(ag[r * n + i] == 1000 * k + 10 * r + i,
                      "kept iallgather %d from %d: %d", k, r, ag[r * n + i]);
                CHECK(a2r[r * n + i] == 100 * r + rank * n + i + k,
                      "kept ialltoall %d from %d: %d", k, r, a2r[r * n + i]);
            }
            CHECK(rank != 0 || g[r] == 1000 * k + 10 * r,
                  "igather between %d from %d: %d", k, r, g[r]);
        }
        if (k % 5 == 4) {
            /* Freed while it may run; the next round's call of the same
             * arguments must not find it in the way. */
            OK(MPI_Iallreduce(freed_in, freed_out, 1, MPI_INT, MPI_SUM, dup,
                              &req[0]));
            OK(MPI_Request_free(&req[0]));
        }
    }
    /* Freed while it may run, then its communicator freed. */
    OK(MPI_Ibcast(freed_out, 1, MPI_INT, 0, dup, &req[0]));
    OK(MPI_Request_free(&req[0]));
    OK(MPI_Comm_free(&dup));
    OK(MPI_Barrier(MPI_COMM_WORLD));
    free(ag);
    free(a2s);
    free(a2r);
    free(g);
}

/* The blocking form of a collective (blocking set: B), or its
 * nonblocking form (MPI_Ii) started on *req, with the same arguments
 * (the blocking form leaves *req MPI_REQUEST_NULL). */
#define KEPT_CALL(blocking, B, i, req, ...)                       \
    ((blocking) ? (*(req) = MPI_REQUEST_NULL, MPI_##B(__VA_ARGS__)) \
                : MPI_I##i(__VA_ARGS__, (req)))

/*
 * The gather, scatter, scan, exscan and reduce_scatter_block keep their
 * schedules too, in both forms (blocking: the same calls one after the
 * other): the same as test_kept_all, and arguments MPI ignores (the
 * root's layout at the others, given as MPI_DATATYPE_NULL; the root's
 * own block with MPI_IN_PLACE) must neither be read nor make two calls
 * differ, while a new root must.
 */
static void test_kept_rest(int blocking)
{
    MPI_Comm dup;
    MPI_Request req[5];
    int *g = malloc((size_t)size * sizeof(int));
    int *sc = malloc((size_t)size * sizeof(int));
    int *rs = malloc((size_t)size * sizeof(int));
    static int freed_in[1] = { 1 }, freed_out[1];
    const char *f = blocking ? "" : "i";   /* the form, for messages */
    int in, x, scan, exscan, rsb, root, me, r, k, i, sum, below;

    OK(MPI_Comm_dup(MPI_COMM_WORLD, &dup));
    for (k = 0; k < 24; k++) {
        root = (k < 12) ? 0 : size - 1;
        me = (rank == root);
        in = 1000 * k + 10 * rank;
        x = scan = exscan = rsb = -1;
        for (r = 0; r < size; r++) {
            g[r] = -1;
            sc[r] = 500 * k + r;
            rs[r] = 100 * rank + r + k;
        }
        if (me && k % 4 == 3) {
            /* The root's own block in place. */
            g[root] = in;
            OK(KEPT_CALL(blocking, Gather, gather, &req[0], MPI_IN_PLACE, -1,
                         MPI_DATATYPE_NULL, g, 1, MPI_INT, root, dup));
        } else {
            OK(KEPT_CALL(blocking, Gather, gather, &req[0], &in, 1, MPI_INT,
                         me ? g : NULL, me ? 1 : -1,
                         me ? MPI_INT : MPI_DATATYPE_NULL, root, dup));
        }
        OK(KEPT_CALL(blocking, Scatter, scatter, &req[1], me ? sc : NULL,
                     me ? 1 : -1, me ? MPI_INT : MPI_DATATYPE_NULL, &x, 1,
                     MPI_INT, root, dup));
        OK(KEPT_CALL(blocking, Scan, scan, &req[2], &in, &scan, 1, MPI_INT,
                     MPI_SUM, dup));
        OK(KEPT_CALL(blocking, Exscan, exscan, &req[3], &in, &exscan, 1,
                     MPI_INT, MPI_SUM, dup));
        OK(KEPT_CALL(blocking, Reduce_scatter_block, reduce_scatter_block,
                     &req[4], rs, &rsb, 1, MPI_INT, MPI_SUM, dup));
        if (k % 3 == 0) {
            OK(MPI_Waitall(5, req, MPI_STATUSES_IGNORE));
        } else {
            for (i = 4; i >= 0; i--) {
                OK(MPI_Wait(&req[i], MPI_STATUS_IGNORE));
            }
        }
        for (r = 0, sum = 0, below = 0; r < size; r++) {
            CHECK(!me || g[r] == 1000 * k + 10 * r,
                  "kept %sgather %d from %d: %d", f, k, r, g[r]);
            sum += (r <= rank) ? 1000 * k + 10 * r : 0;
            below += (r < rank) ? 1000 * k + 10 * r : 0;
        }
        CHECK(x == 500 * k + rank, "kept %sscatter %d: %d", f, k, x);
        CHECK(scan == sum, "kept %sscan %d: %d, not %d", f, k, scan,
              sum);
        CHECK(rank == 0 || exscan == below, "kept %sexscan %d: %d, not %d",
              f, k, exscan, below);
        CHECK(rsb == 100 * (size * (size - 1) / 2) + size * (rank + k),
              "kept %sreduce_scatter_block %d: %d", f, k, rsb);
        if (k % 5 == 4) {
            OK(MPI_Iscan(freed_in, freed_out, 1, MPI_INT, MPI_SUM, dup,
                         &req[0]));
            OK(MPI_Request_free(&req[0]));
        }
    }
    OK(MPI_Comm_free(&dup));
    OK(MPI_Barrier(MPI_COMM_WORLD));
    free(g);
    free(sc);
    free(rs);
}

/* The layout of test_kept_v's round k: phase k / 6 changes one thing at
 * a time in place (same arrays, same buffers): c ints per block, then 2,
 * then the blocks' order (displacements), then (alltoallw) the types. */
static void kept_v_layout(int k, int *cnt, int *dsp, int *bdsp,
                          MPI_Datatype *types)
{
    int phase = k / 6, c = (phase == 0) ? 1 : 2, shift = (phase >= 2), r;

    for (r = 0; r < size; r++) {
        cnt[r] = c;
        dsp[r] = ((r + shift) % size) * 2;
        bdsp[r] = dsp[r] * (int)sizeof(int);
        types[r] = (phase == 3) ? MPI_SHORT : MPI_INT;
    }
}

/*
 * The v and w forms keep their schedules too, in both forms, under the
 * contents of their count, displacement and type arrays: here the
 * arrays stay at the same addresses and are changed in place between
 * calls (counts, then displacements, then alltoallw's types), and every
 * call must follow what they hold then, not what the kept schedule was
 * built from. The root moves within a phase; MPI_IN_PLACE in the middle
 * of each phase; a request freed while active; the arrays the root alone
 * reads are NULL elsewhere; the communicator is freed with its schedules
 * kept.
 */
static void test_kept_v(int blocking)
{
    MPI_Comm dup;
    MPI_Request req[6];
    MPI_Datatype *types = malloc((size_t)size * sizeof(MPI_Datatype));
    size_t n2 = (size_t)size * 2;
    int *cnt = malloc((size_t)size * sizeof(int));
    int *dsp = malloc((size_t)size * sizeof(int));
    int *bdsp = malloc((size_t)size * sizeof(int));
    int *gr = malloc(n2 * sizeof(int));
    int *ss = malloc(n2 * sizeof(int)), *ag = malloc(n2 * sizeof(int));
    int *as = malloc(n2 * sizeof(int)), *ar = malloc(n2 * sizeof(int));
    int *ws = malloc(n2 * sizeof(int)), *wr = malloc(n2 * sizeof(int));
    int *rs = malloc(n2 * sizeof(int));
    static int freed_ag[64 * 2];
    const char *f = blocking ? "" : "i";   /* the form, for messages */
    int mine[2], sx[2], rsx[2], root, me, inp, c, r, j, k, want;

    CHECK(size <= 64, "at most 64 processes here");
    OK(MPI_Comm_dup(MPI_COMM_WORLD, &dup));
    for (k = 0; k < 24; k++) {
        kept_v_layout(k, cnt, dsp, bdsp, types);
        c = cnt[0];
        root = (k < 15) ? 0 : size - 1;
        me = (rank == root);
        /* Mid-phase: the round before a phase's first (where only the
         * arrays' contents change) is another call of the same
         * arguments. */
        inp = (k % 6 == 3);
        for (j = 0; j < (int)n2; j++) {
            gr[j] = ag[j] = ar[j] = wr[j] = -1;
            ss[j] = 500 * k + 10 * (j / 2) + j % 2;
            as[j] = ws[j] = 100 * rank + 10 * (j / 2) + j % 2 + k;
            rs[j] = rank + j + k;
        }
        for (j = 0; j < 2; j++) {
            mine[j] = 1000 * k + 10 * rank + j;
            sx[j] = rsx[j] = -1;
        }
        if (me && inp) {
            memcpy(&gr[dsp[root]], mine, (size_t)c * sizeof(int));
            OK(KEPT_CALL(blocking, Gatherv, gatherv, &req[0], MPI_IN_PLACE,
                         -1, MPI_DATATYPE_NULL, gr, cnt, dsp, MPI_INT, root,
                         dup));
        } else {
            OK(KEPT_CALL(blocking, Gatherv, gatherv, &req[0], mine, c,
                         MPI_INT, gr, me ? cnt : NULL, me ? dsp : NULL,
                         MPI_INT, root, dup));
        }
        /* The root sends the block of rank r from position r. */
        OK(KEPT_CALL(blocking, Scatterv, scatterv, &req[1], ss,
                     me ? cnt : NULL, me ? dsp : NULL, MPI_INT, sx, c,
                     MPI_INT, root, dup));
        if (inp) {
            memcpy(&ag[dsp[rank]], mine, (size_t)c * sizeof(int));
            memcpy(ar, as, n2 * sizeof(int));
        }
        OK(KEPT_CALL(blocking, Allgatherv, allgatherv, &req[2],
                     inp ? MPI_IN_PLACE : mine, c, MPI_INT, ag, cnt, dsp,
                     MPI_INT, dup));
        OK(KEPT_CALL(blocking, Alltoallv, alltoallv, &req[3],
                     inp ? MPI_IN_PLACE : as, cnt, dsp, MPI_INT, ar, cnt,
                     dsp, MPI_INT, dup));
        OK(KEPT_CALL(blocking, Alltoallw, alltoallw, &req[4], ws, cnt, bdsp,
                     types, wr, cnt, bdsp, types, dup));
        OK(KEPT_CALL(blocking, Reduce_scatter, reduce_scatter, &req[5], rs,
                     rsx, cnt, MPI_INT, MPI_SUM, dup));
        if (k % 3 == 0) {
            OK(MPI_Waitall(6, req, MPI_STATUSES_IGNORE));
        } else {
            for (j = 5; j >= 0; j--) {
                OK(MPI_Wait(&req[j], MPI_STATUS_IGNORE));
            }
        }
        for (r = 0; r < size; r++) {
            for (j = 0; j < c; j++) {
                int at = dsp[r] + j;

                CHECK(!me || gr[at] == 1000 * k + 10 * r + j,
                      "kept %sgatherv %d from %d item %d: %d", f, k, r, j,
                      gr[at]);
                CHECK(ag[at] == 1000 * k + 10 * r + j,
                      "kept %sallgatherv %d from %d item %d: %d", f, k,
                      r, j,
                      ag[at]);
                want = 100 * r + 10 * ((dsp[rank] + j) / 2) + j + k;
                CHECK(ar[at] == want, "kept %salltoallv %d from %d item %d: "
                      "%d, not %d", f, k, r, j, ar[at], want);
                if (types[r] == MPI_INT) {
                    CHECK(wr[at] == want, "kept %salltoallw %d from %d item "
                          "%d: %d, not %d", f, k, r, j, wr[at], want);
                }
            }
            if (types[r] == MPI_SHORT) {
                /* c shorts: the first 2c bytes of the sender's block. */
                int v0 = 100 * r + 10 * (dsp[rank] / 2) + k;
                int block[2] = { v0, v0 + 1 }, got[2] = { -1, -1 };

                memcpy(got, block, (size_t)c * sizeof(short));
                CHECK(memcmp(&wr[dsp[r]], got, sizeof(got)) == 0,
                      "kept %salltoallw %d of shorts from %d: %d %d", f,
                      k, r,
                      wr[dsp[r]], wr[dsp[r] + 1]);
            }
        }
        for (j = 0; j < c; j++) {
            CHECK(sx[j] == 500 * k + 10 * ((rank + (k >= 12)) % size) + j,
                  "kept %sscatterv %d item %d: %d", f, k, j, sx[j]);
            want = size * (size - 1) / 2 + size * (rank * c + j + k);
            CHECK(rsx[j] == want, "kept %sreduce_scatter %d item %d: %d, "
                  "not %d", f, k, j, rsx[j], want);
        }
        if (k % 5 == 4) {
            OK(MPI_Iallgatherv(mine, c, MPI_INT, freed_ag, cnt, dsp, MPI_INT,
                               dup, &req[0]));
            OK(MPI_Request_free(&req[0]));
        }
    }
    OK(MPI_Comm_free(&dup));
    OK(MPI_Barrier(MPI_COMM_WORLD));
    free(types);
    free(cnt);
    free(dsp);
    free(bdsp);
    free(gr);
    free(ss);
    free(ag);
    free(as);
    free(ar);
    free(ws);
    free(wr);
    free(rs);
}

/*
 * Calls that find no schedule kept for their arguments (here the v and w
 * forms, whose counts change every round) build theirs in an object their
 * communicator hands from one call to the next: each call must start clean whatever the last one left
 * there (other steps, other counts, a request freed while it ran), two in
 * flight must not share one, and a communicator freed while a freed
 * request still runs on it must end well.
 */
static void test_reused(void)
{
    MPI_Comm dup;
    MPI_Request req[2];
    MPI_Datatype types[64];
    int *cnt = malloc((size_t)size * sizeof(int));
    int *dsp = malloc((size_t)size * sizeof(int));
    int *wcnt = malloc((size_t)size * sizeof(int));
    int *wdsp = malloc((size_t)size * sizeof(int));
    int *all = malloc((size_t)size * 4 * sizeof(int));
    int *sw = malloc((size_t)size * sizeof(int));
    int *rw = malloc((size_t)size * sizeof(int));
    static int freed_all[64 * 4];
    int mine[4], scan, r, i, j, k, total;

    CHECK(size <= 64, "at most 64 processes here");
    OK(MPI_Comm_dup(MPI_COMM_WORLD, &dup));
    for (k = 0; k < 6; k++) {
        /* Rank r gives 1 + (r + k) % 4 ints. */
        for (r = 0, total = 0; r < size; r++) {
            cnt[r] = 1 + (r + k) % 4;
            dsp[r] = total;
            total += cnt[r];
            wcnt[r] = 1;
            wdsp[r] = r * (int)sizeof(int);
            types[r] = MPI_INT;
        }
        for (i = 0; i < cnt[rank]; i++) {
            mine[i] = 1000 * rank + 10 * k + i;
        }
        for (r = 0; r < size; r++) {
            sw[r] = 100 * rank + r + k;
            rw[r] = -1;
        }
        memset(all, 0xff, (size_t)size * 4 * sizeof(int));
        /* Two in flight, completed in the other order. */
        OK(MPI_Iallgatherv(mine, cnt[rank], MPI_INT, all, cnt, dsp, MPI_INT,
                           dup, &req[0]));
        OK(MPI_Ialltoallw(sw, wcnt, wdsp, types, rw, wcnt, wdsp, types, dup,
                          &req[1]));
        OK(MPI_Wait(&req[1], MPI_STATUS_IGNORE));
        OK(MPI_Wait(&req[0], MPI_STATUS_IGNORE));
        for (r = 0; r < size; r++) {
            for (j = 0; j < cnt[r]; j++) {
                CHECK(all[dsp[r] + j] == 1000 * r + 10 * k + j,
                      "reused iallgatherv %d: rank %d item %d: %d", k, r, j,
                      all[dsp[r] + j]);
            }
            CHECK(rw[r] == 100 * r + rank + k,
                  "reused ialltoallw %d: from %d: %d", k, r, rw[r]);
        }
        /* A scan after them, in the object one of them left. */
        i = rank + k;
        OK(MPI_Iscan(&i, &scan, 1, MPI_INT, MPI_SUM, dup, &req[0]));
        OK(MPI_Wait(&req[0], MPI_STATUS_IGNORE));
        CHECK(scan == rank * (rank + 1) / 2 + (rank + 1) * k,
              "reused iscan %d: %d", k, scan);
    }
    /* Freed while it may run, then the communicator freed under it. */
    OK(MPI_Iallgatherv(mine, cnt[rank], MPI_INT, freed_all, cnt, dsp,
                       MPI_INT, dup, &req[0]));
    OK(MPI_Request_free(&req[0]));
    OK(MPI_Comm_free(&dup));
    OK(MPI_Barrier(MPI_COMM_WORLD));
    free(cnt);
    free(dsp);
    free(wcnt);
    free(wdsp);
    free(all);
    free(sw);
    free(rw);
}

/* A wildcard receive posted before many collectives must still get the
 * user message sent after them, and nothing else. */
static void test_wildcard_p2p(void)
{
    MPI_Request rreq;
    MPI_Status st;
    int got = -1, flag = 1, x = rank, y = 0, *all, i;
    double d = rank, e = 0.0;
    MPI_Request nb;

    all = malloc((size_t)size * sizeof(int));
    OK(MPI_Irecv(&got, 1, MPI_INT, MPI_ANY_SOURCE, MPI_ANY_TAG,
                 MPI_COMM_WORLD, &rreq));
    OK(MPI_Barrier(MPI_COMM_WORLD));
    OK(MPI_Bcast(&x, 1, MPI_INT, size - 1, MPI_COMM_WORLD));
    OK(MPI_Allreduce(&rank, &y, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD));
    OK(MPI_Allgather(&rank, 1, MPI_INT, all, 1, MPI_INT, MPI_COMM_WORLD));
    OK(MPI_Alltoall(MPI_IN_PLACE, 0, MPI_INT, all, 1, MPI_INT,
                    MPI_COMM_WORLD));
    OK(MPI_Reduce(&d, &e, 1, MPI_DOUBLE, MPI_SUM, 0, MPI_COMM_WORLD));
    OK(MPI_Scan(&rank, &y, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD));
    OK(MPI_Gather(&rank, 1, MPI_INT, all, 1, MPI_INT, 0, MPI_COMM_WORLD));
    OK(MPI_Scatter(all, 1, MPI_INT, &x, 1, MPI_INT, 0, MPI_COMM_WORLD));
    OK(MPI_Ibarrier(MPI_COMM_WORLD, &nb));
    OK(MPI_Wait(&nb, MPI_STATUS_IGNORE));
    OK(MPI_Barrier(MPI_COMM_WORLD));
    /* Nobody has sent a user message yet. */
    OK(MPI_Test(&rreq, &flag, &st));
    CHECK(flag == 0, "wildcard receive took collective traffic (got %d "
          "tag %d from %d)", got, st.MPI_TAG, st.MPI_SOURCE);
    /* Everyone has tested before anyone sends. */
    OK(MPI_Barrier(MPI_COMM_WORLD));
    if (flag == 0) {
        int msg = 5000 + rank;

        OK(MPI_Send(&msg, 1, MPI_INT, (rank + 1) % size, 7,
                    MPI_COMM_WORLD));
        OK(MPI_Wait(&rreq, &st));
        CHECK(got == 5000 + (rank - 1 + size) % size && st.MPI_TAG == 7 &&
              st.MPI_SOURCE == (rank - 1 + size) % size,
              "user message %d tag %d from %d", got, st.MPI_TAG,
              st.MPI_SOURCE);
    }
    /* User messages already waiting (unexpected) during a collective. */
    for (i = 0; i < 3; i++) {
        int msg = 6000 + i;

        OK(MPI_Send(&msg, 1, MPI_INT, (rank + 1) % size, 8 + i,
                    MPI_COMM_WORLD));
    }
    OK(MPI_Allreduce(&rank, &y, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD));
    CHECK(y == size - 1, "allreduce with unexpected user messages");
    for (i = 0; i < 3; i++) {
        OK(MPI_Recv(&got, 1, MPI_INT, MPI_ANY_SOURCE, MPI_ANY_TAG,
                    MPI_COMM_WORLD, &st));
        CHECK(got == 6000 + i && st.MPI_TAG == 8 + i,
              "queued user message %d: %d tag %d", i, got, st.MPI_TAG);
    }
    free(all);
}

int main(int argc, char **argv)
{
    int round;

    mpitest_init(&argc, &argv, "coll_nb", 0);
    mpitest_world(&rank, &size);
    for (round = 0; round < 3; round++) {
        test_overlap(round);
    }
    test_waitall_testloop();
    test_kept();
    test_kept_all();
    test_kept_rest(0);
    test_kept_rest(1);
    test_kept_v(0);
    test_kept_v(1);
    test_reused();
    test_wildcard_p2p();
    return mpitest_finish();
}

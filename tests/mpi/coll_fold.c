/*
 * tests/mpi/coll_fold.c: large reductions whose partner's data is
 * combined piece by piece as it is read (coll/, gcm_coll_recv_combine;
 * slots/, gcm_slots_fold_t), and large exchanges between two processes
 * that read from each other at once (neither offers the other a share of
 * its copy). tests/mpi/test_coll_fold.sh runs it and reads the debug
 * log's counts at finalize.
 *
 * Usage: coll_fold [die | reduce]   (reduce: phase (e) alone)
 *
 *  (a) allreduce, MPI_SUM of doubles, at counts that split into pieces
 *      unevenly (odd counts, a half just above a piece, 4 MiB + 8 bytes),
 *      from a send buffer and MPI_IN_PLACE, each checked element for
 *      element against the exact sum (integer values);
 *  (b) the same over a contiguous type of 3 doubles (pieces cut at its
 *      24 bytes), MPI_MAX over MPI_INT, MPI_Reduce_scatter_block;
 *  (c) where no fold may run: a strided vector type, a user operation
 *      (never run under the library's lock), a non-commutative one
 *      (rank order kept);
 *  (d) 16 exchanges of 1 MiB and 1 MiB + 3 bytes each way between ranks 0
 *      and 1 (MPI_Sendrecv), content checked;
 *  (e) reduce, MPI_SUM of doubles, 64 KiB and counts that split into
 *      pieces unevenly, to every root, from a send buffer and in place
 *      (the binomial tree's receives fold: coll_reduce.c).
 *
 * With "die": rank 1 starts an MPI_Iallreduce of 64 MiB and kills itself
 * 2 ms later, while rank 0 reads its half; rank 0's MPI_Allreduce must
 * return an error (MPI_ERRORS_RETURN), never hang, and it prints
 * "coll_fold: peer died: class N".
 */
#include <mpi.h>

#include "mpitest.h"

#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static int rank, size;

/* An integer value, so that every sum is exact in any order. */
static double dval(int r, long i)
{
    return (double)(r * 1000 + (i % 997));
}

static double dsum(long i)
{
    double s = 0;
    int r;

    for (r = 0; r < size; r++) {
        s += dval(r, i);
    }
    return s;
}

static void check_sum(const double *got, long n, const char *what)
{
    long i, bad = 0, first = -1;

    for (i = 0; i < n; i++) {
        if (got[i] != dsum(i)) {
            if (first < 0) {
                first = i;
            }
            bad++;
        }
    }
    CHECK(bad == 0, "%s, %ld doubles: %ld wrong, the first at %ld (%g, "
          "want %g)", what, n, bad, first, (first >= 0) ? got[first] : 0.0,
          (first >= 0) ? dsum(first) : 0.0);
}

/* Two vectors of n doubles, or neither (a failed check): 1 or 0. */
static int alloc_two(long n, double **s, double **r)
{
    *s = malloc((size_t)n * sizeof(double));
    *r = malloc((size_t)n * sizeof(double));
    CHECK((*s != NULL) && (*r != NULL), "malloc");
    if ((*s == NULL) || (*r == NULL)) {
        free(*s);
        free(*r);
        return 0;
    }
    return 1;
}

static void phase_a(void)
{
    static const long counts[] = { 131072, 131071, 32769, 16385, 524289 };
    size_t i;

    for (i = 0; i < sizeof(counts) / sizeof(counts[0]); i++) {
        long n = counts[i], k;
        double *s, *r;

        if (!alloc_two(n, &s, &r)) {
            return;
        }
        for (k = 0; k < n; k++) {
            s[k] = dval(rank, k);
            r[k] = -1;
        }
        OK(MPI_Allreduce(s, r, (int)n, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD));
        check_sum(r, n, "allreduce");
        /* The send buffer is the caller's: untouched. */
        for (k = 0; k < n && s[k] == dval(rank, k); k++) {
        }
        CHECK(k == n, "allreduce wrote its send buffer at %ld", k);
        for (k = 0; k < n; k++) {
            r[k] = dval(rank, k);
        }
        OK(MPI_Allreduce(MPI_IN_PLACE, r, (int)n, MPI_DOUBLE, MPI_SUM,
                         MPI_COMM_WORLD));
        check_sum(r, n, "allreduce in place");
        free(s);
        free(r);
    }
    if (rank == 0) {
        printf("coll_fold: (a) ok\n");
    }
}

static void phase_b(void)
{
    long n3 = 43691, n = 3 * n3, k;   /* 1 MiB + 8 bytes */
    double *s = malloc((size_t)n * sizeof(double));
    double *r = malloc((size_t)n * sizeof(double));
    int *is = malloc((size_t)n * sizeof(int));
    int *ir = malloc((size_t)n * sizeof(int));
    MPI_Datatype t3;
    long bad = 0;

    CHECK(s && r && is && ir, "malloc");
    if (!(s && r && is && ir)) {
        goto out;
    }
    OK(MPI_Type_contiguous(3, MPI_DOUBLE, &t3));
    OK(MPI_Type_commit(&t3));
    for (k = 0; k < n; k++) {
        s[k] = dval(rank, k);
        r[k] = -1;
        is[k] = (int)((k * 7 + rank * 13) % 10007);
        ir[k] = -1;
    }
    OK(MPI_Allreduce(s, r, (int)n3, t3, MPI_SUM, MPI_COMM_WORLD));
    check_sum(r, n, "allreduce of 3-double elements");
    OK(MPI_Type_free(&t3));

    OK(MPI_Allreduce(is, ir, (int)n, MPI_INT, MPI_MAX, MPI_COMM_WORLD));
    for (k = 0; k < n; k++) {
        int want = -1, q;

        for (q = 0; q < size; q++) {
            int v = (int)((k * 7 + q * 13) % 10007);
            want = (v > want) ? v : want;
        }
        bad += (ir[k] != want);
    }
    CHECK(bad == 0, "allreduce MPI_MAX of int: %ld wrong", bad);

    /* Each rank's block of 65537 doubles. */
    {
        long blk = 65537;
        double *all = malloc((size_t)(blk * size) * sizeof(double));
        double *mine = malloc((size_t)blk * sizeof(double));

        CHECK(all && mine, "malloc");
        if (all && mine) {
            for (k = 0; k < blk * size; k++) {
                all[k] = dval(rank, k);
            }
            OK(MPI_Reduce_scatter_block(all, mine, (int)blk, MPI_DOUBLE,
                                        MPI_SUM, MPI_COMM_WORLD));
            for (k = 0, bad = 0; k < blk; k++) {
                bad += (mine[k] != dsum(rank * blk + k));
            }
            CHECK(bad == 0, "reduce_scatter_block: %ld wrong", bad);
        }
        free(all);
        free(mine);
    }
    if (rank == 0) {
        printf("coll_fold: (b) ok\n");
    }
out:
    free(s);
    free(r);
    free(is);
    free(ir);
}

/* A user sum (commutative), and a non-commutative operation whose left
 * operand wins (inout = in): over the ranks in order, the result is rank
 * 0's data. */
static void user_sum(void *in, void *inout, int *len, MPI_Datatype *dt)
{
    const double *a = in;
    double *b = inout;
    int i;

    (void)dt;
    for (i = 0; i < *len; i++) {
        b[i] += a[i];
    }
}

static void user_left(void *in, void *inout, int *len, MPI_Datatype *dt)
{
    (void)dt;
    memcpy(inout, in, (size_t)*len * sizeof(double));
}

static void phase_c(void)
{
    long n = 131073, k, bad = 0;
    double *s = malloc((size_t)(2 * n) * sizeof(double));
    double *r = malloc((size_t)(2 * n) * sizeof(double));
    MPI_Datatype vec;
    MPI_Op usum, uleft;

    CHECK(s && r, "malloc");
    if (!(s && r)) {
        free(s);
        free(r);
        return;
    }
    /* Every other double: the odd ones must stay as they were. */
    OK(MPI_Type_vector((int)n, 1, 2, MPI_DOUBLE, &vec));
    OK(MPI_Type_commit(&vec));
    for (k = 0; k < 2 * n; k++) {
        s[k] = dval(rank, k / 2);
        r[k] = -7;
    }
    OK(MPI_Allreduce(s, r, 1, vec, MPI_SUM, MPI_COMM_WORLD));
    for (k = 0; k < n; k++) {
        bad += (r[2 * k] != dsum(k)) + (r[2 * k + 1] != -7);
    }
    CHECK(bad == 0, "allreduce of a strided vector: %ld wrong", bad);
    OK(MPI_Type_free(&vec));

    OK(MPI_Op_create(user_sum, 1, &usum));
    for (k = 0; k < n; k++) {
        s[k] = dval(rank, k);
    }
    OK(MPI_Allreduce(s, r, (int)n, MPI_DOUBLE, usum, MPI_COMM_WORLD));
    check_sum(r, n, "allreduce with a user sum");
    OK(MPI_Op_free(&usum));

    OK(MPI_Op_create(user_left, 0, &uleft));
    OK(MPI_Allreduce(s, r, (int)n, MPI_DOUBLE, uleft, MPI_COMM_WORLD));
    for (k = 0, bad = 0; k < n; k++) {
        bad += (r[k] != dval(0, k));
    }
    CHECK(bad == 0, "allreduce, non-commutative: %ld not rank 0's", bad);
    OK(MPI_Op_free(&uleft));
    if (rank == 0) {
        printf("coll_fold: (c) ok\n");
    }
    free(s);
    free(r);
}

static void phase_d(void)
{
    static const int lens[] = { 1 << 20, (1 << 20) + 3 };
    int j, round;

    if (rank > 1) {
        return;
    }
    for (j = 0; j < 2; j++) {
        int n = lens[j], other = 1 - rank, k;
        unsigned char *s = malloc((size_t)n), *r = malloc((size_t)n);

        CHECK(s && r, "malloc");
        if (!(s && r)) {
            free(s);
            free(r);
            return;
        }
        for (round = 0; round < 16; round++) {
            for (k = 0; k < n; k++) {
                s[k] = (unsigned char)(k * 7 + rank * 31 + round);
            }
            memset(r, 0, (size_t)n);
            OK(MPI_Sendrecv(s, n, MPI_BYTE, other, round, r, n, MPI_BYTE,
                            other, round, MPI_COMM_WORLD,
                            MPI_STATUS_IGNORE));
            for (k = 0;
                 k < n && r[k] == (unsigned char)(k * 7 + other * 31 + round);
                 k++) {
            }
            CHECK(k == n, "exchange of %d bytes, round %d: byte %d wrong", n,
                  round, k);
        }
        free(s);
        free(r);
    }
    if (rank == 0) {
        printf("coll_fold: (d) ok\n");
    }
}

static void phase_e(void)
{
    static const long counts[] = { 8192, 131073, 16385 };
    size_t i;
    int root;

    for (i = 0; i < sizeof(counts) / sizeof(counts[0]); i++) {
        long n = counts[i], k;
        double *s, *r;

        if (!alloc_two(n, &s, &r)) {
            return;
        }
        for (root = 0; root < size; root++) {
            for (k = 0; k < n; k++) {
                s[k] = dval(rank, k);
                r[k] = -1;
            }
            OK(MPI_Reduce(s, r, (int)n, MPI_DOUBLE, MPI_SUM, root,
                          MPI_COMM_WORLD));
            if (rank == root) {
                check_sum(r, n, "reduce");
            }
            for (k = 0; k < n && s[k] == dval(rank, k); k++) {
            }
            CHECK(k == n, "reduce wrote its send buffer at %ld", k);
            for (k = 0; k < n; k++) {
                r[k] = dval(rank, k);
            }
            OK(MPI_Reduce((rank == root) ? MPI_IN_PLACE : r,
                          (rank == root) ? r : NULL, (int)n, MPI_DOUBLE,
                          MPI_SUM, root, MPI_COMM_WORLD));
            if (rank == root) {
                check_sum(r, n, "reduce in place");
            }
        }
        free(s);
        free(r);
    }
    if (rank == 0) {
        printf("coll_fold: (e) ok\n");
    }
}

static int die(void)
{
    long n = 8L << 20, k;    /* 64 MiB of doubles */
    double *s = malloc((size_t)n * sizeof(double));
    double *r = malloc((size_t)n * sizeof(double));
    MPI_Request req;
    int rc;

    if ((s == NULL) || (r == NULL)) {
        printf("FAIL: malloc\n");
        return 1;
    }
    for (k = 0; k < n; k++) {
        s[k] = 1.0;
    }
    if (rank == 1) {
        struct timespec ts = { 0, 2000000 };

        MPI_Iallreduce(s, r, (int)n, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD,
                       &req);
        nanosleep(&ts, NULL);
        raise(SIGKILL);
    }
    rc = MPI_Allreduce(s, r, (int)n, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
    if (rank == 0) {
        int cls = -1;

        if (rc == MPI_SUCCESS) {
            printf("FAIL: coll_fold: allreduce with a dead peer succeeded\n");
        } else {
            MPI_Error_class(rc, &cls);
            printf("coll_fold: peer died: class %d\n", cls);
        }
        fflush(stdout);
        exit(1);
    }
    return 0;
}

int main(int argc, char **argv)
{
    mpitest_init(&argc, &argv, "coll_fold", 1);
    mpitest_world(&rank, &size);
    if ((argc > 1) && (strcmp(argv[1], "die") == 0)) {
        return die();
    }
    if ((argc > 1) && (strcmp(argv[1], "reduce") == 0)) {
        phase_e();
        return mpitest_finish();
    }
    phase_a();
    phase_b();
    phase_c();
    phase_d();
    phase_e();
    return mpitest_finish();
}

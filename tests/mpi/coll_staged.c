/*
 * tests/mpi/coll_staged.c: the blocking allreduce of 2 processes of one
 * host through their staging area (compat/mpi_coll_staged.c,
 * slots/slot_shm_stage.c). tests/mpi/test_coll_staged.sh runs it with a
 * low GENCOMM_COLL_ALLREDUCE_STAGED_MIN (the threshold, first argument:
 * its bytes) and reads the debug trace ("coll: allreduce staged").
 *
 * Usage: coll_staged MIN [die]
 *
 *  (a) MPI_SUM of doubles at sizes around MIN (one element below, at,
 *      one above), around a piece (64 KiB) and a round (2 MiB: 3 rounds
 *      and a short one), odd counts, from a send buffer and MPI_IN_PLACE,
 *      each element checked against the exact sum;
 *  (b) every predefined operator on the predefined types it takes that
 *      qualify (contiguous, power-of-two size), against MPI_Reduce_local
 *      of the two ranks' data; MPI_DOUBLE_INT (size 12, extent 16: the
 *      schedule) with MPI_MAXLOC beside them;
 *  (c) consecutive calls of changing sizes, below and above MIN, on
 *      MPI_COMM_WORLD and a duplicate alternately (an area each), with an
 *      MPI_Iallreduce outstanding on the same communicator meanwhile.
 *
 * With "die": both ranks run 8 MiB allreduces in a loop; a thread of rank
 * 1 kills its process after 20 ms, at whatever point of a call it is.
 * Rank 0's MPI_Allreduce must return an error (MPI_ERRORS_RETURN), never
 * hang; it prints "coll_staged: peer died: class N" and exits 1.
 */
#include <mpi.h>

#include "mpitest.h"

#include <complex.h>
#include <pthread.h>
#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static int rank, size;
static long min_bytes;

/* An integer value, so that every sum is exact. */
static double dval(int r, long i)
{
    return (double)(r * 1000 + (i % 997));
}

static void sum_check(const double *got, long n, const char *what)
{
    long i, bad = 0, first = -1;

    for (i = 0; i < n; i++) {
        if (got[i] != dval(0, i) + dval(1, i)) {
            bad++;
            first = (first < 0) ? i : first;
        }
    }
    CHECK(bad == 0, "%s, %ld doubles: %ld wrong, first at %ld", what, n, bad,
          first);
}

static void sum_doubles(MPI_Comm comm, long n, int in_place)
{
    double *s = malloc((size_t)n * sizeof(double));
    double *r = malloc((size_t)n * sizeof(double));
    long i;
    char what[64];

    CHECK(s != NULL && r != NULL, "malloc");
    if (s == NULL || r == NULL) {
        free(s);
        free(r);
        return;
    }
    for (i = 0; i < n; i++) {
        s[i] = dval(rank, i);
        r[i] = in_place ? s[i] : -1.0;
    }
    OK(MPI_Allreduce(in_place ? MPI_IN_PLACE : s, r, (int)n, MPI_DOUBLE,
                     MPI_SUM, comm));
    snprintf(what, sizeof(what), "sum%s", in_place ? " in place" : "");
    sum_check(r, n, what);
    for (i = 0; !in_place && i < n && s[i] == dval(rank, i); i++) {
    }
    CHECK(in_place || i == n, "send buffer changed at %ld", i);
    free(s);
    free(r);
}

static void phase_a(void)
{
    long e = (long)sizeof(double), m = min_bytes / e, k;
    long counts[] = { m - 1, m, m + 1, 8192 - 1, 8192, 8192 + 1,
                      3 * 262144 + 4099, 262144 * 2, 1048575 };
    int in_place;

    for (in_place = 0; in_place < 2; in_place++) {
        for (k = 0; k < (long)(sizeof(counts) / sizeof(counts[0])); k++) {
            if (counts[k] > 0) {
                sum_doubles(MPI_COMM_WORLD, counts[k], in_place);
            }
        }
    }
    if (rank == 0 && mpitest_failures == 0) {
        printf("coll_staged: (a) ok\n");
    }
}

/* Fills n elements of esize bytes of type t with small values that suit
 * op (logical ops: 0 and 1; products: 1 to 3; pairs: value, index). */
static void fill(void *buf, MPI_Datatype t, size_t esize, long n, int r,
                 MPI_Op op)
{
    unsigned char *b = buf;
    long i;

    for (i = 0; i < n; i++) {
        long v = (op == MPI_PROD) ? 1 + (i + r) % 3 :
                 (op == MPI_LAND || op == MPI_LOR || op == MPI_LXOR) ?
                 ((i * 7 + r * 3) % 5 == 0) :
                 (i * 13 + r * 101) % 113;
        unsigned char *p = b + (size_t)i * esize;

        if (t == MPI_INT8_T || t == MPI_UINT8_T || t == MPI_BYTE) {
            *(uint8_t *)p = (uint8_t)v;
        } else if (t == MPI_C_BOOL) {
            *(bool *)p = (v != 0);
        } else if (t == MPI_INT16_T) {
            *(int16_t *)p = (int16_t)v;
        } else if (t == MPI_INT || t == MPI_UNSIGNED) {
            *(int *)p = (int)v;
        } else if (t == MPI_INT64_T || t == MPI_UINT64_T || t == MPI_LONG) {
            *(int64_t *)p = v;
        } else if (t == MPI_FLOAT) {
            *(float *)p = (float)v + 0.25f;
        } else if (t == MPI_DOUBLE) {
            *(double *)p = (double)v + 0.5;
        } else if (t == MPI_LONG_DOUBLE) {
            memset(p, 0, esize);
            *(long double *)p = (long double)v + 0.125L;
        } else if (t == MPI_C_DOUBLE_COMPLEX) {
            *(double complex *)p = (double)v + (double)(v % 7) * I;
        } else if (t == MPI_C_LONG_DOUBLE_COMPLEX) {
            memset(p, 0, esize);
            *(long double complex *)p = (long double)v + (long double)r * I;
        } else if (t == MPI_2INT) {
            ((int *)p)[0] = (int)(v % 17);
            ((int *)p)[1] = r;
        } else if (t == MPI_FLOAT_INT) {
            *(float *)p = (float)(v % 17);
            memcpy(p + sizeof(float), &r, sizeof(int));
        } else if (t == MPI_DOUBLE_INT) {
            struct { double d; int i; } x;

            memset(&x, 0, sizeof(x));
            x.d = (double)(v % 17);
            x.i = r;
            memcpy(p, &x, sizeof(x));
        }
    }
}

/* The data bytes of n elements alike (not the padding of a pair type:
 * MPI_DOUBLE_INT's 12 bytes in 16). */
static int same(const unsigned char *a, const unsigned char *b, long n,
                size_t esize, size_t size)
{
    long i;

    for (i = 0; i < n; i++) {
        if (memcmp(a + (size_t)i * esize, b + (size_t)i * esize, size) != 0) {
            return 0;
        }
    }
    return 1;
}

typedef struct {
    MPI_Op       op;
    const char  *name;
    MPI_Datatype types[8];
} op_case_t;

static void one_op(MPI_Op op, const char *oname, MPI_Datatype t)
{
    MPI_Aint lb, extent;
    long n;
    size_t esize;
    unsigned char *mine, *other, *want, *got;
    char tname[MPI_MAX_OBJECT_NAME];
    int len, in_place, tsize;

    MPI_Type_get_extent(t, &lb, &extent);
    MPI_Type_size(t, &tsize);
    esize = (size_t)extent;
    n = (long)((size_t)(3 * min_bytes + 4 * 65536 + 24) / esize) + 3;
    mine = calloc((size_t)n, esize);
    other = calloc((size_t)n, esize);
    want = calloc((size_t)n, esize);
    got = calloc((size_t)n, esize);
    MPI_Type_get_name(t, tname, &len);
    if (mine == NULL || other == NULL || want == NULL || got == NULL) {
        CHECK(0, "malloc");
        goto out;
    }
    fill(mine, t, esize, n, rank, op);
    fill(other, t, esize, n, 1 - rank, op);
    /* want = other op mine, computed here alone: the partner's data made
     * as the partner makes it. */
    memcpy(want, mine, (size_t)n * esize);
    OK(MPI_Reduce_local(other, want, (int)n, t, op));
    for (in_place = 0; in_place < 2; in_place++) {
        if (in_place) {
            memcpy(got, mine, (size_t)n * esize);
        } else {
            memset(got, 0xa5, (size_t)n * esize);
        }
        OK(MPI_Allreduce(in_place ? MPI_IN_PLACE : mine, got, (int)n, t, op,
                         MPI_COMM_WORLD));
        CHECK(same(got, want, n, esize, (size_t)tsize),
              "%s on %s, %ld elements%s: result differs", oname, tname, n,
              in_place ? " in place" : "");
    }
out:
    free(mine);
    free(other);
    free(want);
    free(got);
}

static void phase_b(void)
{
    static const op_case_t cases[] = {
        { MPI_SUM, "MPI_SUM", { MPI_INT8_T, MPI_INT, MPI_INT64_T, MPI_FLOAT,
                                MPI_DOUBLE, MPI_LONG_DOUBLE,
                                MPI_C_DOUBLE_COMPLEX,
                                MPI_C_LONG_DOUBLE_COMPLEX } },
        { MPI_PROD, "MPI_PROD", { MPI_INT16_T, MPI_UNSIGNED, MPI_UINT64_T,
                                  MPI_DOUBLE, MPI_C_DOUBLE_COMPLEX } },
        { MPI_MAX, "MPI_MAX", { MPI_UINT8_T, MPI_INT, MPI_LONG, MPI_FLOAT,
                                MPI_DOUBLE } },
        { MPI_MIN, "MPI_MIN", { MPI_INT8_T, MPI_INT16_T, MPI_UINT64_T,
                                MPI_DOUBLE, MPI_LONG_DOUBLE } },
        { MPI_LAND, "MPI_LAND", { MPI_C_BOOL, MPI_INT, MPI_INT64_T } },
        { MPI_LOR, "MPI_LOR", { MPI_C_BOOL, MPI_UNSIGNED } },
        { MPI_LXOR, "MPI_LXOR", { MPI_C_BOOL, MPI_INT16_T } },
        { MPI_BAND, "MPI_BAND", { MPI_BYTE, MPI_INT, MPI_UINT64_T } },
        { MPI_BOR, "MPI_BOR", { MPI_BYTE, MPI_INT16_T, MPI_INT64_T } },
        { MPI_BXOR, "MPI_BXOR", { MPI_BYTE, MPI_UNSIGNED } },
        { MPI_MAXLOC, "MPI_MAXLOC", { MPI_2INT, MPI_FLOAT_INT,
                                      MPI_DOUBLE_INT } },
        { MPI_MINLOC, "MPI_MINLOC", { MPI_2INT, MPI_FLOAT_INT } },
    };
    size_t c, t;

    for (c = 0; c < sizeof(cases) / sizeof(cases[0]); c++) {
        for (t = 0; t < 8 && cases[c].types[t] != MPI_DATATYPE_NULL &&
                    cases[c].types[t] != 0; t++) {
            one_op(cases[c].op, cases[c].name, cases[c].types[t]);
        }
    }
    if (rank == 0 && mpitest_failures == 0) {
        printf("coll_staged: (b) ok\n");
    }
}

static void phase_c(void)
{
    long e = (long)sizeof(double);
    long counts[] = { min_bytes / e, 5, 2 * 262144 + 77, min_bytes / e - 1,
                      131072, 1, 4 * 262144 + 3, min_bytes / e + 9 };
    long nb = 65536, i, k;
    double *ns = malloc((size_t)nb * sizeof(double));
    double *nr = malloc((size_t)nb * sizeof(double));
    MPI_Comm dup;
    MPI_Request req;
    int round;

    OK(MPI_Comm_dup(MPI_COMM_WORLD, &dup));
    OK(MPI_Comm_set_errhandler(dup, MPI_ERRORS_RETURN));
    for (round = 0; round < 3; round++) {
        for (k = 0; k < (long)(sizeof(counts) / sizeof(counts[0])); k++) {
            MPI_Comm comm = ((k + round) % 2) ? dup : MPI_COMM_WORLD;

            if (counts[k] <= 0) {
                continue;
            }
            /* A nonblocking allreduce outstanding on the same
             * communicator while the blocking one runs. */
            for (i = 0; i < nb; i++) {
                ns[i] = dval(rank, i);
                nr[i] = -1;
            }
            OK(MPI_Iallreduce(ns, nr, (int)nb, MPI_DOUBLE, MPI_SUM, comm,
                              &req));
            sum_doubles(comm, counts[k], (int)((k + round) % 3 == 0));
            OK(MPI_Wait(&req, MPI_STATUS_IGNORE));
            sum_check(nr, nb, "nonblocking beside");
        }
    }
    OK(MPI_Comm_free(&dup));
    free(ns);
    free(nr);
    if (rank == 0 && mpitest_failures == 0) {
        printf("coll_staged: (c) ok\n");
    }
}

static void *killer(void *arg)
{
    struct timespec ts = { 0, 20000000 };

    (void)arg;
    nanosleep(&ts, NULL);
    raise(SIGKILL);
    return NULL;
}

static int die(void)
{
    long n = 1L << 20, k;    /* 8 MiB of doubles: 4 rounds a call */
    double *s = malloc((size_t)n * sizeof(double));
    double *r = malloc((size_t)n * sizeof(double));
    pthread_t t;
    int rc = MPI_SUCCESS, calls;

    if ((s == NULL) || (r == NULL)) {
        printf("FAIL: malloc\n");
        return 1;
    }
    for (k = 0; k < n; k++) {
        s[k] = 1.0;
    }
    /* The area is open before the killer starts. */
    rc = MPI_Allreduce(s, r, (int)n, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
    if ((rc == MPI_SUCCESS) && (rank == 1)) {
        pthread_create(&t, NULL, killer, NULL);
    }
    for (calls = 0; (rc == MPI_SUCCESS) && (calls < 1000000); calls++) {
        rc = MPI_Allreduce(s, r, (int)n, MPI_DOUBLE, MPI_SUM,
                           MPI_COMM_WORLD);
    }
    if (rank == 0) {
        int cls = -1;

        if (rc == MPI_SUCCESS) {
            printf("FAIL: coll_staged: allreduces with a dead peer "
                   "succeeded\n");
        } else {
            MPI_Error_class(rc, &cls);
            printf("coll_staged: peer died: class %d\n", cls);
        }
        fflush(stdout);
        exit(1);
    }
    return 0;
}

int main(int argc, char **argv)
{
    mpitest_init(&argc, &argv, "coll_staged", 1);
    mpitest_world(&rank, &size);
    min_bytes = (argc > 1) ? atol(argv[1]) : 524288;
    if (size != 2) {
        if (rank == 0) {
            printf("coll_staged: runs at 2 processes\n");
        }
        return mpitest_finish();
    }
    if ((argc > 2) && (strcmp(argv[2], "die") == 0)) {
        return die();
    }
    phase_a();
    phase_b();
    phase_c();
    return mpitest_finish();
}

/*
 * tests/mpi/coll_algos.c: every collective whose algorithm coll/ chooses,
 * against references computed locally, at counts 0, 1, odd and large,
 * with a sum and a non-commutative user operation, MPI_IN_PLACE, a
 * strided datatype and every root of a few. tests/mpi/test_coll_algos.sh
 * runs it with each algorithm forced (GENCOMM_COLL_*) and under emulated
 * hosts (the hierarchical forms), and checks from the debug trace that the
 * algorithm it forced is the one that ran.
 *
 * Usage: coll_algos [WHAT...], WHAT among bcast reduce allreduce
 * reduce_scatter scan gather allgather alltoall barrier repeat kept
 * nonblocking noncomm (only the non-commutative reductions); none: all but
 * noncomm.
 */
#include <mpi.h>

#include "mpitest.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static int rank, size;

/* Large enough to pass every size threshold of coll/ (256 KiB of int). */
#define LARGE 65536

static const int counts[] = { 0, 1, 7, LARGE };
#define NCOUNTS ((int)(sizeof(counts) / sizeof(counts[0])))

/* ---- data and references */

static int val(int r, int i)
{
    return r * 1000 + (i % 977);
}

static int sum_upto(int n, int i)    /* sum of val(r, i) for r < n */
{
    return 1000 * n * (n - 1) / 2 + n * (i % 977);
}

/* Affine maps t -> a t + b mod 2^32 composed left to right: associative,
 * not commutative. (x op y) applies x first, then y. */
typedef struct aff {
    unsigned a, b;
} aff_t;

static MPI_Datatype aff_type;
static MPI_Op aff_op;

static aff_t aff_of(int r, int i)
{
    aff_t x = { 2u * (unsigned)(r + i) + 1u, (unsigned)(r * 7 + i) };

    return x;
}

static aff_t aff_mul(aff_t x, aff_t y)
{
    aff_t z = { x.a * y.a, x.b * y.a + y.b };

    return z;
}

/* inout = in op inout: in holds the lower ranks. */
static void aff_fn(void *in, void *inout, int *len, MPI_Datatype *dt)
{
    aff_t *x = in, *y = inout;
    int i;

    (void)dt;
    for (i = 0; i < *len; i++) {
        y[i] = aff_mul(x[i], y[i]);
    }
}

/* Composition of ranks lo..hi-1, element i. */
static aff_t aff_range(int lo, int hi, int i)
{
    aff_t m = { 1u, 0u };
    int r;

    for (r = lo; r < hi; r++) {
        m = aff_mul(m, aff_of(r, i));
    }
    return m;
}

static int aff_eq(aff_t x, aff_t y)
{
    return x.a == y.a && x.b == y.b;
}

/* One int in every other slot: a strided (non-contiguous) layout. */
static MPI_Datatype strided;

static int *ints(int n)
{
    int *p = malloc(((size_t)n + 1) * sizeof(int));

    if (p == NULL) {
        printf("FAIL: out of memory\n");
        exit(1);
    }
    return p;
}

/* ---- the collectives */

/* The monotonic clock is the same for every process of the host, where
 * gcrun runs them all. */
static double now_s(void)
{
    struct timespec ts;

    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* One rank comes late each round (rank 0 too, which the linear form
 * gathers at); nobody may leave before it entered. */
static void test_barrier(void)
{
    int i;

    for (i = 0; i < 3; i++) {
        int late = (i == 0) ? 0 : (2 * i + 1) % size;
        double entered = 0.0, left;

        if (rank == late) {
            struct timespec ts = { 0, 20 * 1000 * 1000 };

            nanosleep(&ts, NULL);
            entered = now_s();
        }
        OK(MPI_Barrier(MPI_COMM_WORLD));
        left = now_s();
        OK(MPI_Bcast(&entered, 1, MPI_DOUBLE, late, MPI_COMM_WORLD));
        CHECK(left >= entered, "barrier %d left %.6f s before rank %d "
              "entered", i, entered - left, late);
    }
}

static void test_bcast(void)
{
    int c, k, i, root;

    for (c = 0; c < NCOUNTS; c++) {
        int n = counts[c], bad = 0;
        int *b = ints(n);

        for (k = 0; k < 2; k++) {
            root = (k == 0) ? 0 : size - 1;
            for (i = 0; i < n; i++) {
                b[i] = (rank == root) ? val(root, i) : -1;
            }
            OK(MPI_Bcast(b, n, MPI_INT, root, MPI_COMM_WORLD));
            for (i = 0; i < n; i++) {
                bad += (b[i] != val(root, i));
            }
        }
        CHECK(bad == 0, "bcast of %d ints: %d wrong", n, bad);
        free(b);
    }
    /* Strided: packed at the root, unpacked elsewhere; the gaps stay. */
    {
        int n = 1001, *b = ints(2 * n), bad = 0;

        for (i = 0; i < 2 * n; i++) {
            b[i] = (rank == 1 % size || (i % 2) == 1) ? val(7, i) : -1;
        }
        OK(MPI_Bcast(b, n, strided, 1 % size, MPI_COMM_WORLD));
        for (i = 0; i < 2 * n; i++) {
            bad += (b[i] != val(7, i));
        }
        CHECK(bad == 0, "strided bcast: %d wrong", bad);
        free(b);
    }
}

static void test_reduce(void)
{
    int c, k, i, root;

    for (c = 0; c < NCOUNTS; c++) {
        int n = counts[c], bad = 0;
        int *in = ints(n), *out = ints(n);

        for (k = 0; k < 3; k++) {
            root = (k == 0) ? 0 : (k == 1) ? size - 1 : size / 2;
            for (i = 0; i < n; i++) {
                in[i] = val(rank, i);
                out[i] = -1;
            }
            if (k == 2 && rank == root) {
                memcpy(out, in, (size_t)n * sizeof(int));
                OK(MPI_Reduce(MPI_IN_PLACE, out, n, MPI_INT, MPI_SUM, root,
                              MPI_COMM_WORLD));
            } else {
                OK(MPI_Reduce(in, out, n, MPI_INT, MPI_SUM, root,
                              MPI_COMM_WORLD));
            }
            for (i = 0; rank == root && i < n; i++) {
                bad += (out[i] != sum_upto(size, i));
            }
            for (i = 0; rank != root && i < n; i++) {
                bad += (out[i] != -1);
            }
        }
        CHECK(bad == 0, "reduce sum of %d ints: %d wrong", n, bad);
        free(in);
        free(out);
    }
}

static void test_reduce_noncomm(void)
{
    int c, i, root;

    for (c = 0; c < NCOUNTS; c++) {
        int n = (counts[c] == LARGE) ? LARGE / 4 : counts[c], bad = 0;
        aff_t *in = malloc(((size_t)n + 1) * sizeof(aff_t));
        aff_t *out = malloc(((size_t)n + 1) * sizeof(aff_t));

        for (root = 0; root < size; root += (size > 2) ? size - 1 : 1) {
            for (i = 0; i < n; i++) {
                in[i] = aff_of(rank, i);
            }
            OK(MPI_Reduce(in, out, n, aff_type, aff_op, root,
                          MPI_COMM_WORLD));
            for (i = 0; rank == root && i < n; i++) {
                bad += !aff_eq(out[i], aff_range(0, size, i));
            }
        }
        /* Allreduce, in place. */
        for (i = 0; i < n; i++) {
            out[i] = aff_of(rank, i);
        }
        OK(MPI_Allreduce(MPI_IN_PLACE, out, n, aff_type, aff_op,
                         MPI_COMM_WORLD));
        for (i = 0; i < n; i++) {
            bad += !aff_eq(out[i], aff_range(0, size, i));
        }
        /* Allreduce from a separate send buffer, which stays as it was
         * (at 2^k ranks the first exchange sends it and combines it into
         * what came, on the left: the lower rank's side). */
        for (i = 0; i < n; i++) {
            in[i] = aff_of(rank, i);
            out[i] = aff_of(size + 1, i);
        }
        OK(MPI_Allreduce(in, out, n, aff_type, aff_op, MPI_COMM_WORLD));
        for (i = 0; i < n; i++) {
            bad += !aff_eq(out[i], aff_range(0, size, i));
            bad += !aff_eq(in[i], aff_of(rank, i));
        }
        CHECK(bad == 0, "non-commutative reduce/allreduce of %d: %d wrong",
              n, bad);
        free(in);
        free(out);
    }
}

static void test_allreduce(void)
{
    int c, i;

    for (c = 0; c < NCOUNTS; c++) {
        int n = counts[c], bad = 0;
        int *in = ints(n), *out = ints(n);

        for (i = 0; i < n; i++) {
            in[i] = val(rank, i);
            out[i] = -1;
        }
        OK(MPI_Allreduce(in, out, n, MPI_INT, MPI_SUM, MPI_COMM_WORLD));
        for (i = 0; i < n; i++) {
            bad += (out[i] != sum_upto(size, i));
        }
        memcpy(out, in, (size_t)n * sizeof(int));
        OK(MPI_Allreduce(MPI_IN_PLACE, out, n, MPI_INT, MPI_MAX,
                         MPI_COMM_WORLD));
        for (i = 0; i < n; i++) {
            bad += (out[i] != val(size - 1, i));
        }
        CHECK(bad == 0, "allreduce of %d ints: %d wrong", n, bad);
        free(in);
        free(out);
    }
    /* Strided: the halving algorithm cuts typed ranges of it. */
    {
        int n = 3001, *in = ints(2 * n), *out = ints(2 * n), bad = 0;

        for (i = 0; i < 2 * n; i++) {
            in[i] = val(rank, i);
            out[i] = -7;
        }
        OK(MPI_Allreduce(in, out, n, strided, MPI_SUM, MPI_COMM_WORLD));
        for (i = 0; i < 2 * n; i++) {
            bad += (out[i] != (((i % 2) == 0) ? sum_upto(size, i) : -7));
        }
        CHECK(bad == 0, "strided allreduce: %d wrong", bad);
        free(in);
        free(out);
    }
}

static void test_reduce_scatter(void)
{
    int c, i, r;

    for (c = 0; c < NCOUNTS; c++) {
        int n = (counts[c] == LARGE) ? LARGE / size : counts[c], bad = 0;
        int *rc = ints(size), off = 0, tv = 0, total, *in, *out;
        aff_t *ain, *aout;

        /* Uneven counts for reduce_scatter: some zero, some one more. */
        for (r = 0; r < size; r++) {
            rc[r] = (r % 3 == 1) ? 0 : n + (r % 2);
            tv += rc[r];
            off += (r < rank) ? rc[r] : 0;
        }
        total = (tv > n * size) ? tv : n * size;
        in = ints(total);
        out = ints(total);
        ain = malloc(((size_t)total + 1) * sizeof(aff_t));
        aout = malloc(((size_t)total + 1) * sizeof(aff_t));
        for (i = 0; i < total; i++) {
            in[i] = val(rank, i);
            ain[i] = aff_of(rank, i);
        }
        OK(MPI_Reduce_scatter_block(in, out, n, MPI_INT, MPI_SUM,
                                    MPI_COMM_WORLD));
        for (i = 0; i < n; i++) {
            bad += (out[i] != sum_upto(size, rank * n + i));
        }
        /* In place: the whole vector in, this rank's block out first. */
        memcpy(out, in, (size_t)n * size * sizeof(int));
        OK(MPI_Reduce_scatter_block(MPI_IN_PLACE, out, n, MPI_INT, MPI_SUM,
                                    MPI_COMM_WORLD));
        for (i = 0; i < n; i++) {
            bad += (out[i] != sum_upto(size, rank * n + i));
        }
        OK(MPI_Reduce_scatter(in, out, rc, MPI_INT, MPI_SUM,
                              MPI_COMM_WORLD));
        for (i = 0; i < rc[rank]; i++) {
            bad += (out[i] != sum_upto(size, off + i));
        }
        OK(MPI_Reduce_scatter(ain, aout, rc, aff_type, aff_op,
                              MPI_COMM_WORLD));
        for (i = 0; i < rc[rank]; i++) {
            bad += !aff_eq(aout[i], aff_range(0, size, off + i));
        }
        CHECK(bad == 0, "reduce_scatter of %d per rank: %d wrong", n, bad);
        free(in);
        free(out);
        free(rc);
        free(ain);
        free(aout);
    }
}

static void test_scan(void)
{
    int c, i;

    for (c = 0; c < NCOUNTS; c++) {
        int n = counts[c], bad = 0;
        int *in = ints(n), *out = ints(n);
        aff_t *ain = malloc(((size_t)n + 1) * sizeof(aff_t));
        aff_t *aout = malloc(((size_t)n + 1) * sizeof(aff_t));

        for (i = 0; i < n; i++) {
            in[i] = val(rank, i);
            ain[i] = aff_of(rank, i);
        }
        OK(MPI_Scan(in, out, n, MPI_INT, MPI_SUM, MPI_COMM_WORLD));
        for (i = 0; i < n; i++) {
            bad += (out[i] != sum_upto(rank + 1, i));
        }
        memcpy(out, in, (size_t)n * sizeof(int));
        OK(MPI_Scan(MPI_IN_PLACE, out, n, MPI_INT, MPI_SUM,
                    MPI_COMM_WORLD));
        for (i = 0; i < n; i++) {
            bad += (out[i] != sum_upto(rank + 1, i));
        }
        OK(MPI_Exscan(in, out, n, MPI_INT, MPI_SUM, MPI_COMM_WORLD));
        for (i = 0; rank > 0 && i < n; i++) {
            bad += (out[i] != sum_upto(rank, i));
        }
        memcpy(out, in, (size_t)n * sizeof(int));
        OK(MPI_Exscan(MPI_IN_PLACE, out, n, MPI_INT, MPI_SUM,
                      MPI_COMM_WORLD));
        for (i = 0; rank > 0 && i < n; i++) {
            bad += (out[i] != sum_upto(rank, i));
        }
        OK(MPI_Scan(ain, aout, n, aff_type, aff_op, MPI_COMM_WORLD));
        for (i = 0; i < n; i++) {
            bad += !aff_eq(aout[i], aff_range(0, rank + 1, i));
        }
        OK(MPI_Exscan(ain, aout, n, aff_type, aff_op, MPI_COMM_WORLD));
        for (i = 0; rank > 0 && i < n; i++) {
            bad += !aff_eq(aout[i], aff_range(0, rank, i));
        }
        CHECK(bad == 0, "scan/exscan of %d: %d wrong", n, bad);
        free(in);
        free(out);
        free(ain);
        free(aout);
    }
}

static void test_gather(void)
{
    int c, k, i, r, root;

    for (c = 0; c < NCOUNTS; c++) {
        int n = counts[c], bad = 0;
        int *mine = ints(n), *all = ints(n * size);

        for (k = 0; k < 2; k++) {
            root = (k == 0) ? 0 : size - 1;
            for (i = 0; i < n; i++) {
                mine[i] = val(rank, i);
            }
            for (i = 0; i < n * size; i++) {
                all[i] = -1;
            }
            if (k == 1 && rank == root) {
                memcpy(all + (size_t)rank * n, mine, (size_t)n * sizeof(int));
                OK(MPI_Gather(MPI_IN_PLACE, n, MPI_INT, all, n, MPI_INT,
                              root, MPI_COMM_WORLD));
            } else {
                OK(MPI_Gather(mine, n, MPI_INT, all, n, MPI_INT, root,
                              MPI_COMM_WORLD));
            }
            for (r = 0; rank == root && r < size; r++) {
                for (i = 0; i < n; i++) {
                    bad += (all[r * n + i] != val(r, i));
                }
            }
            /* And back: the root scatters what it gathered, plus one. */
            for (i = 0; rank == root && i < n * size; i++) {
                all[i] += 1;
            }
            for (i = 0; i < n; i++) {
                mine[i] = -1;
            }
            if (k == 1 && rank == root) {
                OK(MPI_Scatter(all, n, MPI_INT, MPI_IN_PLACE, n, MPI_INT,
                               root, MPI_COMM_WORLD));
                memcpy(mine, all + (size_t)rank * n, (size_t)n * sizeof(int));
            } else {
                OK(MPI_Scatter(all, n, MPI_INT, mine, n, MPI_INT, root,
                               MPI_COMM_WORLD));
            }
            for (i = 0; i < n; i++) {
                bad += (mine[i] != val(rank, i) + 1);
            }
        }
        CHECK(bad == 0, "gather/scatter of %d ints: %d wrong", n, bad);
        free(mine);
        free(all);
    }
    /* Strided blocks at the root, contiguous elsewhere. */
    {
        int n = 501, *mine = ints(n), *all = ints(2 * n * size), bad = 0;

        root = size / 2;
        for (i = 0; i < n; i++) {
            mine[i] = val(rank, i);
        }
        for (i = 0; i < 2 * n * size; i++) {
            all[i] = -3;
        }
        OK(MPI_Gather(mine, n, MPI_INT, all, n, strided, root,
                      MPI_COMM_WORLD));
        for (r = 0; rank == root && r < size; r++) {
            for (i = 0; i < n; i++) {
                bad += (all[2 * (r * n + i)] != val(r, i)) +
                       (all[2 * (r * n + i) + 1] != -3);
            }
        }
        CHECK(bad == 0, "strided gather: %d wrong", bad);
        free(mine);
        free(all);
    }
}

static void test_allgather(void)
{
    int c, i, r;

    for (c = 0; c < NCOUNTS; c++) {
        int n = (counts[c] == LARGE) ? LARGE / size : counts[c], bad = 0;
        int *mine = ints(n), *all = ints(n * size);
        int *rc = ints(size), *displs = ints(size), total = 0;

        for (i = 0; i < n; i++) {
            mine[i] = val(rank, i);
        }
        OK(MPI_Allgather(mine, n, MPI_INT, all, n, MPI_INT,
                         MPI_COMM_WORLD));
        for (r = 0; r < size; r++) {
            for (i = 0; i < n; i++) {
                bad += (all[r * n + i] != val(r, i));
            }
        }
        for (i = 0; i < n * size; i++) {
            all[i] = (i / (n > 0 ? n : 1) == rank) ? val(rank, i % n) : -1;
        }
        OK(MPI_Allgather(MPI_IN_PLACE, n, MPI_INT, all, n, MPI_INT,
                         MPI_COMM_WORLD));
        for (r = 0; r < size; r++) {
            for (i = 0; i < n; i++) {
                bad += (all[r * n + i] != val(r, i));
            }
        }
        /* Allgatherv: rank r gives n - r (at least 0) ints, reversed
         * placement. */
        for (r = size - 1; r >= 0; r--) {
            rc[r] = (n - r > 0) ? n - r : 0;
            displs[r] = total;
            total += rc[r];
        }
        OK(MPI_Allgatherv(mine, rc[rank], MPI_INT, all, rc, displs, MPI_INT,
                          MPI_COMM_WORLD));
        for (r = 0; r < size; r++) {
            for (i = 0; i < rc[r]; i++) {
                bad += (all[displs[r] + i] != val(r, i));
            }
        }
        CHECK(bad == 0, "allgather(v) of %d ints: %d wrong", n, bad);
        free(mine);
        free(all);
        free(rc);
        free(displs);
    }
}

static void test_alltoall(void)
{
    static const int a2a[] = { 0, 1, 7, 300 };
    int c, i, r;

    for (c = 0; c < 4; c++) {
        int n = a2a[c], bad = 0;
        int *sb = ints(n * size), *rb = ints(n * size);
        int *sc = ints(size), *sd = ints(size), *rcv = ints(size);
        int *rd = ints(size), off;

        /* Block for r: val(rank * size + r, i). */
        for (r = 0; r < size; r++) {
            for (i = 0; i < n; i++) {
                sb[r * n + i] = val(rank * size + r, i);
            }
        }
        OK(MPI_Alltoall(sb, n, MPI_INT, rb, n, MPI_INT, MPI_COMM_WORLD));
        for (r = 0; r < size; r++) {
            for (i = 0; i < n; i++) {
                bad += (rb[r * n + i] != val(r * size + rank, i));
            }
        }
        memcpy(rb, sb, (size_t)n * size * sizeof(int));
        OK(MPI_Alltoall(MPI_IN_PLACE, n, MPI_INT, rb, n, MPI_INT,
                        MPI_COMM_WORLD));
        for (r = 0; r < size; r++) {
            for (i = 0; i < n; i++) {
                bad += (rb[r * n + i] != val(r * size + rank, i));
            }
        }
        /* Alltoallv: rank s sends (s + d) % (n + 1) ints to d. */
        for (r = 0, off = 0; r < size; r++) {
            sc[r] = (rank + r) % (n + 1);
            sd[r] = off;
            off += sc[r];
        }
        for (r = 0, off = 0; r < size; r++) {
            rcv[r] = (r + rank) % (n + 1);
            rd[r] = off;
            off += rcv[r];
        }
        for (r = 0; r < size; r++) {
            for (i = 0; i < sc[r]; i++) {
                sb[sd[r] + i] = val(rank * size + r, i);
            }
        }
        OK(MPI_Alltoallv(sb, sc, sd, MPI_INT, rb, rcv, rd, MPI_INT,
                         MPI_COMM_WORLD));
        for (r = 0; r < size; r++) {
            for (i = 0; i < rcv[r]; i++) {
                bad += (rb[rd[r] + i] != val(r * size + rank, i));
            }
        }
        CHECK(bad == 0, "alltoall(v) of %d ints: %d wrong", n, bad);
        free(sb);
        free(rb);
        free(sc);
        free(sd);
        free(rcv);
        free(rd);
    }
}

/* The nonblocking forms run the same builders, advanced by polls. */
static void test_nonblocking(void)
{
    int n = LARGE, *a = ints(n), *b = ints(n), bad = 0, i, flag = 0;
    MPI_Request req[2];

    for (i = 0; i < n; i++) {
        a[i] = val(rank, i);
        b[i] = (rank == 0) ? val(3, i) : -1;
    }
    OK(MPI_Iallreduce(MPI_IN_PLACE, a, n, MPI_INT, MPI_SUM, MPI_COMM_WORLD,
                      &req[0]));
    OK(MPI_Ibcast(b, n, MPI_INT, 0, MPI_COMM_WORLD, &req[1]));
    while (!flag) {
        OK(MPI_Testall(2, req, &flag, MPI_STATUSES_IGNORE));
    }
    for (i = 0; i < n; i++) {
        bad += (a[i] != sum_upto(size, i)) + (b[i] != val(3, i));
    }
    CHECK(bad == 0, "nonblocking allreduce/bcast: %d wrong", bad);
    free(a);
    free(b);
}

/*
 * The MPI layer keeps the schedule of a blocking barrier, bcast, reduce
 * and allreduce and runs it again for a call with the same arguments: new
 * data in the same buffers must be what moves, calls of the other
 * collectives, of other roots and counts and nonblocking ones in between
 * must not confuse it, and a user datatype freed and made again as
 * another layout must not run an old schedule.
 */
static void test_repeat(void)
{
    int n = 7, round, i, bad = 0;
    int *a = ints(n), *r = ints(n), *b = ints(n);
    MPI_Request req;

    for (round = 0; round < 6; round++) {
        int root = (round % 3 == 2) ? size - 1 : 0;
        int m = (round == 3) ? n - 2 : n;   /* once a shorter count */

        for (i = 0; i < n; i++) {
            a[i] = val(rank, i) + round;
            r[i] = -1;
            b[i] = (rank == root) ? val(round, i) : -1;
        }
        OK(MPI_Allreduce(a, r, m, MPI_INT, MPI_SUM, MPI_COMM_WORLD));
        for (i = 0; i < m; i++) {
            bad += (r[i] != sum_upto(size, i) + size * round);
        }
        OK(MPI_Barrier(MPI_COMM_WORLD));
        if (round == 4) {
            /* A nonblocking call takes a tag in between. */
            OK(MPI_Ibarrier(MPI_COMM_WORLD, &req));
            OK(MPI_Wait(&req, MPI_STATUS_IGNORE));
        }
        OK(MPI_Bcast(b, m, MPI_INT, root, MPI_COMM_WORLD));
        for (i = 0; i < m; i++) {
            bad += (b[i] != val(round, i));
        }
        for (i = 0; i < n; i++) {
            r[i] = -1;
        }
        OK(MPI_Reduce(a, r, m, MPI_INT, MPI_SUM, root, MPI_COMM_WORLD));
        for (i = 0; i < m && rank == root; i++) {
            bad += (r[i] != sum_upto(size, i) + size * round);
        }
        /* In place, same buffer: the result of the last round is the
         * data of this one. */
        for (i = 0; i < n; i++) {
            r[i] = rank + round;
        }
        OK(MPI_Allreduce(MPI_IN_PLACE, r, n, MPI_INT, MPI_SUM,
                         MPI_COMM_WORLD));
        for (i = 0; i < n; i++) {
            bad += (r[i] != size * (size - 1) / 2 + size * round);
        }
    }
    CHECK(bad == 0, "repeated calls with the same arguments: %d wrong", bad);
    bad = 0;
    for (round = 0; round < 2; round++) {
        MPI_Datatype t;

        /* Two ints, then every other int of four: same buffers, same
         * count, another layout (behind the same handle if the library
         * reuses the freed object's memory). */
        MPI_Type_vector(2, 1, round + 1, MPI_INT, &t);
        MPI_Type_commit(&t);
        for (i = 0; i < n; i++) {
            a[i] = val(rank, i);
            r[i] = -1;
        }
        OK(MPI_Allreduce(a, r, 1, t, MPI_SUM, MPI_COMM_WORLD));
        for (i = 0; i < n; i++) {
            int in = (round == 0) ? (i < 2) : (i == 0 || i == 2);

            bad += (r[i] != (in ? sum_upto(size, i) : -1));
        }
        MPI_Type_free(&t);
    }
    CHECK(bad == 0, "a freed user type's handle made again: %d wrong", bad);
    free(a);
    free(r);
    free(b);
}

/* Allgather and alltoall called again and again with the same arguments
 * (their schedules are kept between calls): new data in the same
 * buffers, blocking and nonblocking, in place with another receive count
 * behind the same send arguments, and the v form with other counts in
 * the same arrays. test_coll_algos.sh counts from the trace how often
 * the 13-int allgather and alltoall were built. */
static void test_kept(void)
{
    enum { N = 13, ROUNDS = 10 };
    int *a = ints(N * size), *r = ints(N * size);
    int *rc = ints(size), *dp = ints(size);
    int round, i, j, bad = 0;
    MPI_Request req;

    for (round = 0; round < ROUNDS; round++) {
        int nb = (round % 2 == 1);

        for (i = 0; i < N; i++) {
            a[i] = val(rank, i) + round;
        }
        for (i = 0; i < N * size; i++) {
            r[i] = -1;
        }
        if (nb) {
            OK(MPI_Iallgather(a, N, MPI_INT, r, N, MPI_INT, MPI_COMM_WORLD,
                              &req));
            OK(MPI_Wait(&req, MPI_STATUS_IGNORE));
        } else {
            OK(MPI_Allgather(a, N, MPI_INT, r, N, MPI_INT, MPI_COMM_WORLD));
        }
        for (j = 0; j < size; j++) {
            for (i = 0; i < N; i++) {
                bad += (r[j * N + i] != val(j, i) + round);
            }
        }
        /* Block for j: val(rank * size + j, i) + round. */
        for (j = 0; j < size; j++) {
            for (i = 0; i < N; i++) {
                a[j * N + i] = val(rank * size + j, i) + round;
                r[j * N + i] = -1;
            }
        }
        if (nb) {
            OK(MPI_Ialltoall(a, N, MPI_INT, r, N, MPI_INT, MPI_COMM_WORLD,
                             &req));
            OK(MPI_Wait(&req, MPI_STATUS_IGNORE));
        } else {
            OK(MPI_Alltoall(a, N, MPI_INT, r, N, MPI_INT, MPI_COMM_WORLD));
        }
        for (j = 0; j < size; j++) {
            for (i = 0; i < N; i++) {
                bad += (r[j * N + i] != val(j * size + rank, i) + round);
            }
        }
    }
    CHECK(bad == 0, "allgather and alltoall with the same arguments: "
          "%d wrong", bad);
    bad = 0;
    for (round = 0; round < 4; round++) {
        /* In place: the send arguments are ignored and stay the same; the
         * receive count changes. */
        int m = (round % 2 == 0) ? 5 : 3;

        for (i = 0; i < N * size; i++) {
            r[i] = (i / m == rank) ? val(rank, i % m) + round : -1;
        }
        OK(MPI_Allgather(MPI_IN_PLACE, 0, MPI_DATATYPE_NULL, r, m, MPI_INT,
                         MPI_COMM_WORLD));
        for (j = 0; j < size; j++) {
            for (i = 0; i < m; i++) {
                bad += (r[j * m + i] != val(j, i) + round);
            }
        }
        for (j = 0; j < size; j++) {
            for (i = 0; i < m; i++) {
                r[j * m + i] = val(rank * size + j, i) + round;
            }
        }
        OK(MPI_Alltoall(MPI_IN_PLACE, 0, MPI_DATATYPE_NULL, r, m, MPI_INT,
                        MPI_COMM_WORLD));
        for (j = 0; j < size; j++) {
            for (i = 0; i < m; i++) {
                bad += (r[j * m + i] != val(j * size + rank, i) + round);
            }
        }
        /* The v form: other counts in the same arrays. */
        for (j = 0; j < size; j++) {
            rc[j] = m;
            dp[j] = j * N;
        }
        for (i = 0; i < m; i++) {
            a[i] = val(rank, i) - round;
        }
        for (i = 0; i < N * size; i++) {
            r[i] = -1;
        }
        OK(MPI_Allgatherv(a, m, MPI_INT, r, rc, dp, MPI_INT,
                          MPI_COMM_WORLD));
        for (j = 0; j < size; j++) {
            for (i = 0; i < N; i++) {
                bad += (r[j * N + i] != ((i < m) ? val(j, i) - round : -1));
            }
        }
    }
    CHECK(bad == 0, "in place with other receive counts, allgatherv with "
          "other counts: %d wrong", bad);
    free(a);
    free(r);
    free(rc);
    free(dp);
}

static int wanted(int argc, char **argv, const char *what)
{
    int i;

    if (argc < 2) {
        return strcmp(what, "noncomm") != 0;
    }
    for (i = 1; i < argc; i++) {
        if (strcmp(argv[i], what) == 0) {
            return 1;
        }
    }
    return 0;
}

int main(int argc, char **argv)
{
    mpitest_init(&argc, &argv, "coll_algos", 1);
    mpitest_world(&rank, &size);
    MPI_Type_contiguous(2, MPI_UNSIGNED, &aff_type);
    MPI_Type_commit(&aff_type);
    MPI_Op_create(aff_fn, 0, &aff_op);
    {
        MPI_Datatype one;

        MPI_Type_vector(1, 1, 2, MPI_INT, &one);
        MPI_Type_create_resized(one, 0, 2 * (MPI_Aint)sizeof(int), &strided);
        MPI_Type_commit(&strided);
        MPI_Type_free(&one);
    }

    if (wanted(argc, argv, "barrier")) {
        test_barrier();
    }
    if (wanted(argc, argv, "repeat")) {
        test_repeat();
    }
    if (wanted(argc, argv, "kept")) {
        test_kept();
    }
    if (wanted(argc, argv, "bcast")) {
        test_bcast();
    }
    if (wanted(argc, argv, "reduce")) {
        test_reduce();
    }
    if (wanted(argc, argv, "allreduce")) {
        test_allreduce();
    }
    if (wanted(argc, argv, "reduce") || wanted(argc, argv, "noncomm")) {
        test_reduce_noncomm();
    }
    if (wanted(argc, argv, "reduce_scatter")) {
        test_reduce_scatter();
    }
    if (wanted(argc, argv, "scan")) {
        test_scan();
    }
    if (wanted(argc, argv, "gather")) {
        test_gather();
    }
    if (wanted(argc, argv, "allgather")) {
        test_allgather();
    }
    if (wanted(argc, argv, "alltoall")) {
        test_alltoall();
    }
    if (wanted(argc, argv, "nonblocking")) {
        test_nonblocking();
    }

    MPI_Op_free(&aff_op);
    MPI_Type_free(&aff_type);
    MPI_Type_free(&strided);
    return mpitest_finish();
}

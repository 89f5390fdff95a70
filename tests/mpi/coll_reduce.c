/*
 * tests/mpi/coll_reduce.c: reductions (reduce, allreduce, scan, exscan,
 * reduce_scatter(_block)) against serial computations: sums of int and
 * double, a non-commutative user operation (2x2 matrix product, checked
 * against the product in rank order), MINLOC/MAXLOC on MPI_DOUBLE_INT,
 * a vector datatype, MPI_IN_PLACE, every root, zero counts, 1 MiB.
 */
#include <mpi.h>

#include "mpitest.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int rank, size;

/* ---- 2x2 matrices mod 2^32: a non-commutative, associative op */

typedef mpitest_mat_t mat_t;

static int mat_eq(mat_t x, mat_t y)
{
    return x.a == y.a && x.b == y.b && x.c == y.c && x.d == y.d;
}

/* Rank r's matrix number k. */
static mat_t mat_of(int r, int k)
{
    mat_t m = { (unsigned)(r + k + 1), 1u, (unsigned)((r * 3 + k) % 5),
                (unsigned)(2 + k) };

    return m;
}

static mat_t mat_id(void)
{
    mat_t m = { 1, 0, 0, 1 };

    return m;
}

/* Product of ranks lo..hi-1 in order. */
static mat_t mat_prod(int lo, int hi, int k)
{
    mat_t m = mat_id();
    int r;

    for (r = lo; r < hi; r++) {
        m = mpitest_mat_mul(m, mat_of(r, k));
    }
    return m;
}

static MPI_Datatype mat_type;
static int user_calls;

/* inout = in * inout: in holds the lower ranks. */
static void mat_op(void *in, void *inout, int *len, MPI_Datatype *dt)
{
    mat_t *x = in, *y = inout;
    int i;

    if (*dt != mat_type) {
        printf("FAIL: user op got another datatype (rank %d)\n", rank);
        mpitest_failures++;
    }
    user_calls++;
    for (i = 0; i < *len; i++) {
        y[i] = mpitest_mat_mul(x[i], y[i]);
    }
}

static void test_sum(void)
{
    int n = 5, i, root, isum[5], iin[5];
    double dsum[5], din[5];
    long long expect_i;

    for (root = 0; root < size; root++) {
        for (i = 0; i < n; i++) {
            iin[i] = rank * 10 + i;
            din[i] = rank + 0.5 * i;
            isum[i] = -1;
            dsum[i] = -1.0;
        }
        OK(MPI_Reduce(iin, isum, n, MPI_INT, MPI_SUM, root,
                      MPI_COMM_WORLD));
        OK(MPI_Reduce(din, dsum, n, MPI_DOUBLE, MPI_SUM, root,
                      MPI_COMM_WORLD));
        if (rank == root) {
            for (i = 0; i < n; i++) {
                expect_i = 10LL * size * (size - 1) / 2 + (long long)size * i;
                CHECK(isum[i] == expect_i, "reduce int root %d [%d]=%d",
                      root, i, isum[i]);
                CHECK(dsum[i] == size * (size - 1) / 2.0 + 0.5 * i * size,
                      "reduce double root %d [%d]=%g", root, i, dsum[i]);
            }
            /* In place at the root. */
            memcpy(isum, iin, sizeof(iin));
            OK(MPI_Reduce(MPI_IN_PLACE, isum, n, MPI_INT, MPI_MAX, root,
                          MPI_COMM_WORLD));
            for (i = 0; i < n; i++) {
                CHECK(isum[i] == (size - 1) * 10 + i, "in-place reduce max");
            }
        } else {
            OK(MPI_Reduce(iin, NULL, n, MPI_INT, MPI_MAX, root,
                          MPI_COMM_WORLD));
        }
    }
    OK(MPI_Allreduce(iin, isum, n, MPI_INT, MPI_SUM, MPI_COMM_WORLD));
    OK(MPI_Allreduce(din, dsum, n, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD));
    for (i = 0; i < n; i++) {
        CHECK(isum[i] == 10 * size * (size - 1) / 2 + size * i,
              "allreduce int [%d]=%d", i, isum[i]);
        CHECK(dsum[i] == size * (size - 1) / 2.0 + 0.5 * i * size,
              "allreduce double [%d]=%g", i, dsum[i]);
    }
    memcpy(isum, iin, sizeof(iin));
    OK(MPI_Allreduce(MPI_IN_PLACE, isum, n, MPI_INT, MPI_MIN,
                     MPI_COMM_WORLD));
    for (i = 0; i < n; i++) {
        CHECK(isum[i] == i, "in-place allreduce min [%d]=%d", i, isum[i]);
    }
    /* Zero count. */
    isum[0] = 77;
    OK(MPI_Allreduce(iin, isum, 0, MPI_INT, MPI_SUM, MPI_COMM_WORLD));
    OK(MPI_Reduce(iin, isum, 0, MPI_INT, MPI_SUM, 0, MPI_COMM_WORLD));
    CHECK(isum[0] == 77, "zero-count reduction wrote");
}

static void test_scan_sum(void)
{
    int in = rank + 1, out = -1, i;
    double din[2] = { rank * 2.0, 1.0 }, dout[2];

    OK(MPI_Scan(&in, &out, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD));
    CHECK(out == (rank + 1) * (rank + 2) / 2, "scan int %d", out);
    OK(MPI_Scan(din, dout, 2, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD));
    CHECK(dout[0] == rank * (rank + 1.0) && dout[1] == rank + 1.0,
          "scan double %g %g", dout[0], dout[1]);
    out = in;
    OK(MPI_Scan(MPI_IN_PLACE, &out, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD));
    CHECK(out == (rank + 1) * (rank + 2) / 2, "in-place scan %d", out);
    out = -5;
    OK(MPI_Exscan(&in, &out, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD));
    if (rank > 0) {
        CHECK(out == rank * (rank + 1) / 2, "exscan int %d", out);
    }
    out = in;
    OK(MPI_Exscan(MPI_IN_PLACE, &out, 1, MPI_INT, MPI_PROD,
                  MPI_COMM_WORLD));
    if (rank > 0) {
        int f = 1;

        for (i = 1; i <= rank; i++) {
            f *= i;
        }
        CHECK(out == f, "in-place exscan prod %d", out);
    }
}

static void test_noncommutative(void)
{
    MPI_Op op;
    mat_t in[3], out[3], *vin, *vout;
    int k, root, i, total, *counts, mine;

    MPI_Type_contiguous(4, MPI_UNSIGNED, &mat_type);
    MPI_Type_commit(&mat_type);
    OK(MPI_Op_create(mat_op, 0, &op));
    for (k = 0; k < 3; k++) {
        in[k] = mat_of(rank, k);
    }
    for (root = 0; root < size; root++) {
        memset(out, 0, sizeof(out));
        OK(MPI_Reduce(in, out, 3, mat_type, op, root, MPI_COMM_WORLD));
        if (rank == root) {
            for (k = 0; k < 3; k++) {
                CHECK(mat_eq(out[k], mat_prod(0, size, k)),
                      "noncommutative reduce root %d [%d]", root, k);
            }
        }
    }
    memset(out, 0, sizeof(out));
    OK(MPI_Allreduce(in, out, 3, mat_type, op, MPI_COMM_WORLD));
    for (k = 0; k < 3; k++) {
        CHECK(mat_eq(out[k], mat_prod(0, size, k)),
              "noncommutative allreduce [%d]", k);
    }
    memcpy(out, in, sizeof(in));
    OK(MPI_Allreduce(MPI_IN_PLACE, out, 3, mat_type, op, MPI_COMM_WORLD));
    CHECK(mat_eq(out[1], mat_prod(0, size, 1)),
          "noncommutative in-place allreduce");
    OK(MPI_Scan(in, out, 3, mat_type, op, MPI_COMM_WORLD));
    for (k = 0; k < 3; k++) {
        CHECK(mat_eq(out[k], mat_prod(0, rank + 1, k)),
              "noncommutative scan [%d]", k);
    }
    OK(MPI_Exscan(in, out, 3, mat_type, op, MPI_COMM_WORLD));
    for (k = 0; k < 3 && rank > 0; k++) {
        CHECK(mat_eq(out[k], mat_prod(0, rank, k)),
              "noncommutative exscan [%d]", k);
    }
    /* reduce_scatter: rank i gets i % 2 + 1 matrices; matrix j of the
     * whole vector is mat_of(r, j) at rank r. */
    counts = malloc((size_t)size * sizeof(int));
    for (i = 0, total = 0; i < size; i++) {
        counts[i] = i % 2 + 1;
        total += counts[i];
    }
    vin = malloc((size_t)total * sizeof(mat_t));
    vout = malloc((size_t)total * sizeof(mat_t));
    for (i = 0; i < total; i++) {
        vin[i] = mat_of(rank, i);
    }
    for (i = 0, k = 0; i < rank; i++) {
        k += counts[i];
    }
    mine = counts[rank];
    OK(MPI_Reduce_scatter(vin, vout, counts, mat_type, op,
                          MPI_COMM_WORLD));
    for (i = 0; i < mine; i++) {
        CHECK(mat_eq(vout[i], mat_prod(0, size, k + i)),
              "noncommutative reduce_scatter [%d]", i);
    }
    memcpy(vout, vin, (size_t)total * sizeof(mat_t));
    OK(MPI_Reduce_scatter(MPI_IN_PLACE, vout, counts, mat_type, op,
                          MPI_COMM_WORLD));
    for (i = 0; i < mine; i++) {
        CHECK(mat_eq(vout[i], mat_prod(0, size, k + i)),
              "noncommutative in-place reduce_scatter [%d]", i);
    }
    /* reduce_scatter_block, one matrix each. */
    for (i = 0; i < size && i < total; i++) {
        vin[i] = mat_of(rank, i);
    }
    if (total >= size) {
        OK(MPI_Reduce_scatter_block(vin, vout, 1, mat_type, op,
                                    MPI_COMM_WORLD));
        CHECK(mat_eq(vout[0], mat_prod(0, size, rank)),
              "noncommutative reduce_scatter_block");
    }
    CHECK(user_calls > 0 || size == 1, "user op never called");
    free(vin);
    free(vout);
    free(counts);
    MPI_Op_free(&op);
    MPI_Type_free(&mat_type);
}

static void test_reduce_scatter_sum(void)
{
    int *in = malloc((size_t)size * 3 * sizeof(int));
    int out[3], i;

    for (i = 0; i < size * 3; i++) {
        in[i] = rank + i;
    }
    OK(MPI_Reduce_scatter_block(in, out, 3, MPI_INT, MPI_SUM,
                                MPI_COMM_WORLD));
    for (i = 0; i < 3; i++) {
        CHECK(out[i] == size * (size - 1) / 2 + size * (rank * 3 + i),
              "reduce_scatter_block sum [%d]=%d", i, out[i]);
    }
    OK(MPI_Reduce_scatter_block(MPI_IN_PLACE, in, 3, MPI_INT, MPI_SUM,
                                MPI_COMM_WORLD));
    for (i = 0; i < 3; i++) {
        CHECK(in[i] == size * (size - 1) / 2 + size * (rank * 3 + i),
              "in-place reduce_scatter_block [%d]=%d", i, in[i]);
    }
    free(in);
}

static void test_loc(void)
{
    struct {
        double v;
        int i;
    } in[2], out[2];
    double best_min = 1e300, best_max = -1e300;
    int r, at_min = -1, at_max = -1;

    /* Values with ties, so the lowest index must win. */
    in[0].v = (double)((rank * 7) % 5) - 0.5;
    in[0].i = rank;
    in[1].v = -in[0].v;
    in[1].i = rank;
    for (r = 0; r < size; r++) {
        double v = (double)((r * 7) % 5) - 0.5;

        if (v < best_min) {
            best_min = v;
            at_min = r;
        }
        if (v > best_max) {
            best_max = v;
            at_max = r;
        }
    }
    OK(MPI_Allreduce(in, out, 2, MPI_DOUBLE_INT, MPI_MINLOC,
                     MPI_COMM_WORLD));
    CHECK(out[0].v == best_min && out[0].i == at_min, "minloc %g@%d",
          out[0].v, out[0].i);
    CHECK(out[1].v == -best_max && out[1].i == at_max, "minloc of -v");
    OK(MPI_Reduce(in, out, 2, MPI_DOUBLE_INT, MPI_MAXLOC, size - 1,
                  MPI_COMM_WORLD));
    if (rank == size - 1) {
        CHECK(out[0].v == best_max && out[0].i == at_max, "maxloc %g@%d",
              out[0].v, out[0].i);
    }
}

/* Every other int: the sum must land in the even slots only. */
static void test_vector_type(void)
{
    MPI_Datatype vec;
    int in[8], out[8], i;

    MPI_Type_vector(4, 1, 2, MPI_INT, &vec);
    MPI_Type_commit(&vec);
    for (i = 0; i < 8; i++) {
        in[i] = rank * 8 + i;
        out[i] = -4;
    }
    OK(MPI_Allreduce(in, out, 1, vec, MPI_SUM, MPI_COMM_WORLD));
    for (i = 0; i < 8; i++) {
        int expect = (i % 2 == 0) ? 8 * size * (size - 1) / 2 + size * i
                                  : -4;

        CHECK(out[i] == expect, "vector allreduce [%d]=%d", i, out[i]);
    }
    for (i = 0; i < 8; i++) {
        out[i] = -4;
    }
    OK(MPI_Reduce(in, out, 1, vec, MPI_SUM, 0, MPI_COMM_WORLD));
    if (rank == 0) {
        CHECK(out[0] == 8 * size * (size - 1) / 2 && out[1] == -4,
              "vector reduce %d %d", out[0], out[1]);
    }
    OK(MPI_Scan(in, out, 1, vec, MPI_SUM, MPI_COMM_WORLD));
    CHECK(out[2] == 8 * rank * (rank + 1) / 2 + 2 * (rank + 1),
          "vector scan %d", out[2]);
    MPI_Type_free(&vec);
}

static void test_large(void)
{
    int n = (1 << 20) / (int)sizeof(double), i, bad = 0;
    double *in = malloc((size_t)n * sizeof(double));
    double *out = malloc((size_t)n * sizeof(double));

    for (i = 0; i < n; i++) {
        in[i] = (double)(i % 1000) + rank;
    }
    OK(MPI_Allreduce(in, out, n, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD));
    for (i = 0; i < n; i++) {
        bad += (out[i] != (double)(i % 1000) * size +
                          size * (size - 1) / 2.0);
    }
    CHECK(bad == 0, "1 MiB allreduce: %d wrong", bad);
    free(in);
    free(out);
}

int main(int argc, char **argv)
{
    const mpitest_fn tests[] = {test_sum, test_scan_sum, test_noncommutative,
        test_reduce_scatter_sum, test_loc, test_vector_type, test_large, NULL};

    mpitest_init(&argc, &argv, "coll_reduce", 0);
    mpitest_world(&rank, &size);

    return mpitest_run(tests);
}

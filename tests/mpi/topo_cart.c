/*
 * tests/mpi/topo_cart.c: Cartesian topologies. MPI_Dims_create against a
 * brute-force search, coordinates and ranks of a 2-D grid both ways,
 * shifts with and without wrap-around, MPI_Cart_sub rows and columns
 * (checked by talking inside them), MPI_Cart_get, MPI_Cart_map, fewer grid
 * points than processes, MPI_Comm_dup keeping the topology, and the four
 * neighbour collectives checked value by value on a periodic 2-D grid
 * (contiguous and strided types) and a non-periodic 1-D one.
 *
 * Run at 1, 2, 3, 4 and 6 processes: at 1, 2 and 4 the grids have
 * dimensions of size 1 and 2, where a process is both the source and the
 * destination of a shift (the case neighbour collectives must not mix up).
 */
#include <mpi.h>

#include "mpitest.h"

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int wrank, wsize;

/* ---- MPI_Dims_create ---------------------------------------------------- */

/* Smallest spread (largest - smallest) of k factors of m, non-increasing,
 * each at most hi: plain exhaustive search, the reference. */
static int best_spread(int m, int k, int hi, int first)
{
    int f, best = 1 << 30;

    if (k == 1) {
        if (m > hi) {
            return 1 << 30;
        }
        return (first < 0) ? 0 : first - m;
    }
    for (f = (m < hi ? m : hi); f >= 1; f--) {
        if (m % f == 0) {
            int s = best_spread(m / f, k - 1, f, first < 0 ? f : first);

            if (s < best) {
                best = s;
            }
        }
    }
    return best;
}

static void test_dims_create(void)
{
    static const struct {
        int nnodes, ndims, in[3], out[3];
    } cases[] = {
        { 6, 2, { 0, 0 }, { 3, 2 } },
        { 12, 2, { 0, 0 }, { 4, 3 } },
        { 72, 2, { 0, 0 }, { 9, 8 } },      /* greedy would say 12 x 6 */
        { 16, 3, { 0, 0, 0 }, { 4, 2, 2 } },
        { 24, 3, { 0, 0, 0 }, { 4, 3, 2 } },
        { 64, 3, { 0, 0, 0 }, { 4, 4, 4 } },
        { 7, 2, { 0, 0 }, { 7, 1 } },
        { 1, 3, { 0, 0, 0 }, { 1, 1, 1 } },
        { 12, 3, { 0, 3, 0 }, { 2, 3, 2 } },
        { 12, 2, { 3, 0 }, { 3, 4 } },
        { 12, 2, { 3, 4 }, { 3, 4 } },
        { 30, 3, { 0, 0, 5 }, { 3, 2, 5 } },
        { 5, 1, { 0 }, { 5 } },
    };
    int i, d, m, k;

    for (i = 0; i < (int)(sizeof(cases) / sizeof(cases[0])); i++) {
        int dims[3];

        memcpy(dims, cases[i].in, sizeof(dims));
        OK(MPI_Dims_create(cases[i].nnodes, cases[i].ndims, dims));
        for (d = 0; d < cases[i].ndims; d++) {
            CHECK(dims[d] == cases[i].out[d],
                  "Dims_create(%d, %d) case %d: dims[%d] = %d, want %d",
                  cases[i].nnodes, cases[i].ndims, i, d, dims[d],
                  cases[i].out[d]);
        }
    }
    /* Every m and k against the reference: product, order, spread. */
    for (m = 1; m <= 120; m++) {
        for (k = 1; k <= 4; k++) {
            int dims[4] = { 0, 0, 0, 0 };
            long long prod = 1;

            OK(MPI_Dims_create(m, k, dims));
            for (d = 0; d < k; d++) {
                prod *= dims[d];
                CHECK(d == 0 || dims[d] <= dims[d - 1],
                      "Dims_create(%d, %d) not non-increasing", m, k);
            }
            CHECK(prod == m, "Dims_create(%d, %d) product %lld", m, k, prod);
            CHECK(dims[0] - dims[k - 1] == best_spread(m, k, m, -1),
                  "Dims_create(%d, %d) spread %d, best %d", m, k,
                  dims[0] - dims[k - 1], best_spread(m, k, m, -1));
        }
    }
}

/* ---- grids ------------------------------------------------------------- */

/* Expected row-major rank on a d0 x d1 grid (coordinates wrapped), or
 * MPI_PROC_NULL if outside and not periodic. */
static int grid_rank(int d0, int d1, int p0, int p1, int c0, int c1)
{
    if (c0 < 0 || c0 >= d0) {
        if (!p0) {
            return MPI_PROC_NULL;
        }
        c0 = ((c0 % d0) + d0) % d0;
    }
    if (c1 < 0 || c1 >= d1) {
        if (!p1) {
            return MPI_PROC_NULL;
        }
        c1 = ((c1 % d1) + d1) % d1;
    }
    return c0 * d1 + c1;
}

static void test_grid(const int dims[2], const int periods[2])
{
    MPI_Comm cart, dup;
    int r, status, nd, rank, size, c[2], c2[2], gd[2], gp[2];
    int dir, i, src, dst;
    static const int disps[] = { 1, -1, 2, 0, 7, -5 };

    OK(MPI_Cart_create(MPI_COMM_WORLD, 2, dims, periods, 1, &cart));
    CHECK(cart != MPI_COMM_NULL, "Cart_create gave MPI_COMM_NULL");
    if (cart == MPI_COMM_NULL) {
        return;
    }
    OK(MPI_Topo_test(cart, &status));
    CHECK(status == MPI_CART, "Topo_test = %d, want MPI_CART", status);
    OK(MPI_Cartdim_get(cart, &nd));
    CHECK(nd == 2, "Cartdim_get = %d", nd);
    OK(MPI_Comm_rank(cart, &rank));
    OK(MPI_Comm_size(cart, &size));
    CHECK(size == wsize && rank == wrank,
          "cart rank/size %d/%d, want %d/%d (identity mapping)", rank, size,
          wrank, wsize);

    for (r = 0; r < size; r++) {
        int back;

        OK(MPI_Cart_coords(cart, r, 2, c));
        CHECK(c[0] == r / dims[1] && c[1] == r % dims[1],
              "Cart_coords(%d) = (%d,%d)", r, c[0], c[1]);
        OK(MPI_Cart_rank(cart, c, &back));
        CHECK(back == r, "Cart_rank(coords(%d)) = %d", r, back);
        if (periods[0] && periods[1]) {
            c2[0] = c[0] + 3 * dims[0];
            c2[1] = c[1] - dims[1];
            OK(MPI_Cart_rank(cart, c2, &back));
            CHECK(back == r, "Cart_rank of wrapped coords of %d = %d", r,
                  back);
        }
    }
    OK(MPI_Cart_get(cart, 2, gd, gp, c));
    CHECK(gd[0] == dims[0] && gd[1] == dims[1], "Cart_get dims %d x %d",
          gd[0], gd[1]);
    CHECK(gp[0] == !!periods[0] && gp[1] == !!periods[1],
          "Cart_get periods %d %d", gp[0], gp[1]);
    CHECK(c[0] == rank / dims[1] && c[1] == rank % dims[1],
          "Cart_get coords (%d,%d)", c[0], c[1]);

    for (dir = 0; dir < 2; dir++) {
        for (i = 0; i < (int)(sizeof(disps) / sizeof(disps[0])); i++) {
            int e[2], want_dst, want_src;

            e[0] = (dir == 0) ? disps[i] : 0;
            e[1] = (dir == 1) ? disps[i] : 0;
            want_dst = grid_rank(dims[0], dims[1], periods[0], periods[1],
                                 c[0] + e[0], c[1] + e[1]);
            want_src = grid_rank(dims[0], dims[1], periods[0], periods[1],
                                 c[0] - e[0], c[1] - e[1]);
            OK(MPI_Cart_shift(cart, dir, disps[i], &src, &dst));
            CHECK(src == want_src && dst == want_dst,
                  "Cart_shift(%d, %d) = (%d, %d), want (%d, %d)", dir,
                  disps[i], src, dst, want_src, want_dst);
        }
    }

    /* Extreme displacements: INT_MIN's negation does not fit an int. */
    OK(MPI_Cart_shift(cart, 0, INT_MIN, &src, &dst));
    {
        long long m = (long long)INT_MIN % dims[0];
        int up = (int)((c[0] + m + dims[0]) % dims[0]);
        int down = (int)(((c[0] - m) % dims[0] + dims[0]) % dims[0]);

        if (periods[0]) {
            CHECK(dst == up * dims[1] + c[1] && src == down * dims[1] + c[1],
                  "Cart_shift(0, INT_MIN) = (%d, %d)", src, dst);
        } else {
            CHECK(src == MPI_PROC_NULL && dst == MPI_PROC_NULL,
                  "Cart_shift(0, INT_MIN) = (%d, %d) off the grid", src,
                  dst);
        }
    }

    /* A duplicate keeps the whole topology. */
    OK(MPI_Comm_dup(cart, &dup));
    OK(MPI_Topo_test(dup, &status));
    CHECK(status == MPI_CART, "Topo_test(dup) = %d", status);
    OK(MPI_Cart_get(dup, 2, gd, gp, c2));
    CHECK(gd[0] == dims[0] && gd[1] == dims[1] && c2[0] == c[0] &&
          c2[1] == c[1] && gp[0] == !!periods[0] && gp[1] == !!periods[1],
          "Cart_get on the duplicate differs");
    OK(MPI_Cart_shift(dup, 1, 1, &src, &dst));
    CHECK(dst == grid_rank(dims[0], dims[1], periods[0], periods[1], c[0],
                           c[1] + 1), "Cart_shift on the duplicate");
    OK(MPI_Comm_free(&dup));
    OK(MPI_Comm_free(&cart));
}

/* MPI_Cart_sub: rows and columns, checked by passing world ranks around
 * a ring inside each. */
static void test_sub(const int dims[2])
{
    static const int periods[2] = { 1, 0 };
    MPI_Comm cart, row, col, none, all;
    int keep[2], rank, size, nd, gd[1], gp[1], gc[1], st, in;
    int me0 = wrank / dims[1], me1 = wrank % dims[1];

    OK(MPI_Cart_create(MPI_COMM_WORLD, 2, dims, periods, 0, &cart));
    keep[0] = 0;
    keep[1] = 1;
    OK(MPI_Cart_sub(cart, keep, &row));
    keep[0] = 1;
    keep[1] = 0;
    OK(MPI_Cart_sub(cart, keep, &col));

    OK(MPI_Comm_size(row, &size));
    OK(MPI_Comm_rank(row, &rank));
    CHECK(size == dims[1] && rank == me1, "row comm rank/size %d/%d", rank,
          size);
    OK(MPI_Cartdim_get(row, &nd));
    OK(MPI_Cart_get(row, 1, gd, gp, gc));
    CHECK(nd == 1 && gd[0] == dims[1] && gp[0] == 0 && gc[0] == me1,
          "row Cart_get: nd %d dims %d period %d coord %d", nd, gd[0], gp[0],
          gc[0]);
    OK(MPI_Sendrecv(&wrank, 1, MPI_INT, (rank + 1) % size, 5, &in, 1,
                    MPI_INT, (rank + size - 1) % size, 5, row,
                    MPI_STATUS_IGNORE));
    CHECK(in == me0 * dims[1] + (me1 + dims[1] - 1) % dims[1],
          "row ring got world rank %d", in);

    OK(MPI_Comm_size(col, &size));
    OK(MPI_Comm_rank(col, &rank));
    CHECK(size == dims[0] && rank == me0, "column comm rank/size %d/%d",
          rank, size);
    OK(MPI_Cart_get(col, 1, gd, gp, gc));
    CHECK(gd[0] == dims[0] && gp[0] == 1 && gc[0] == me0,
          "column Cart_get: dims %d period %d coord %d", gd[0], gp[0], gc[0]);
    OK(MPI_Sendrecv(&wrank, 1, MPI_INT, (rank + 1) % size, 6, &in, 1,
                    MPI_INT, (rank + size - 1) % size, 6, col,
                    MPI_STATUS_IGNORE));
    CHECK(in == ((me0 + dims[0] - 1) % dims[0]) * dims[1] + me1,
          "column ring got world rank %d", in);

    /* Nothing kept: every process alone, with a 0-dimensional grid. */
    keep[0] = keep[1] = 0;
    OK(MPI_Cart_sub(cart, keep, &none));
    OK(MPI_Comm_size(none, &size));
    OK(MPI_Cartdim_get(none, &nd));
    OK(MPI_Topo_test(none, &st));
    CHECK(size == 1 && nd == 0 && st == MPI_CART,
          "Cart_sub keeping nothing: size %d ndims %d topo %d", size, nd, st);
    /* Everything kept: the whole grid again. */
    keep[0] = keep[1] = 1;
    OK(MPI_Cart_sub(cart, keep, &all));
    OK(MPI_Comm_size(all, &size));
    OK(MPI_Comm_rank(all, &rank));
    CHECK(size == wsize && rank == wrank, "Cart_sub keeping all: %d/%d",
          rank, size);

    OK(MPI_Comm_free(&all));
    OK(MPI_Comm_free(&none));
    OK(MPI_Comm_free(&col));
    OK(MPI_Comm_free(&row));
    OK(MPI_Comm_free(&cart));
}

/* Fewer grid points than processes, MPI_Cart_map, MPI_Topo_test on a plain
 * communicator. */
static void test_small_grid(void)
{
    int one[1] = { 1 }, per[1] = { 0 }, all[1], newrank, st, size;
    MPI_Comm cart;

    OK(MPI_Cart_create(MPI_COMM_WORLD, 1, one, per, 0, &cart));
    if (wrank == 0) {
        CHECK(cart != MPI_COMM_NULL, "rank 0 left out of a 1-point grid");
        if (cart != MPI_COMM_NULL) {
            OK(MPI_Comm_size(cart, &size));
            CHECK(size == 1, "1-point grid has size %d", size);
            OK(MPI_Comm_free(&cart));
        }
    } else {
        CHECK(cart == MPI_COMM_NULL, "rank beyond a 1-point grid got a comm");
    }
    OK(MPI_Cart_map(MPI_COMM_WORLD, 1, one, per, &newrank));
    CHECK(newrank == (wrank == 0 ? 0 : MPI_UNDEFINED), "Cart_map = %d",
          newrank);
    all[0] = wsize;
    OK(MPI_Cart_map(MPI_COMM_WORLD, 1, all, per, &newrank));
    CHECK(newrank == wrank, "Cart_map over all = %d", newrank);
    OK(MPI_Topo_test(MPI_COMM_WORLD, &st));
    CHECK(st == MPI_UNDEFINED, "Topo_test(WORLD) = %d", st);
    OK(MPI_Cart_create(MPI_COMM_WORLD, 0, NULL, NULL, 0, &cart));
    CHECK((wrank == 0) == (cart != MPI_COMM_NULL),
          "0-dimensional Cart_create membership");
    if (cart != MPI_COMM_NULL) {
        OK(MPI_Comm_free(&cart));
    }
}

/* ---- neighbour collectives ------------------------------------------------ */

#define SENTINEL (-7)

/* The neighbours of this process on the grid, in MPI's order: for each
 * dimension, the process at -1 then the one at +1 (closed form). */
static void grid_neighbors(const int dims[2], const int periods[2],
                           int nbr[4])
{
    int c0 = wrank / dims[1], c1 = wrank % dims[1];

    nbr[0] = grid_rank(dims[0], dims[1], periods[0], periods[1], c0 - 1, c1);
    nbr[1] = grid_rank(dims[0], dims[1], periods[0], periods[1], c0 + 1, c1);
    nbr[2] = grid_rank(dims[0], dims[1], periods[0], periods[1], c0, c1 - 1);
    nbr[3] = grid_rank(dims[0], dims[1], periods[0], periods[1], c0, c1 + 1);
}

/* Value of element e of the block sender s sends towards slot j. */
static int val(int s, int j, int e)
{
    return s * 1000 + j * 10 + e;
}

/* Block k received from nbr[k] was the sender's block k ^ 1: what goes
 * towards -1 arrives as the receiver's +1 block and vice versa. */
static void test_neighbor_grid(const int dims[2], const int periods[2],
                               int ndims)
{
    MPI_Comm cart;
    MPI_Datatype vec;
    int nbr[4], n = 2 * ndims, k, e;
    int sbuf[64], rbuf[64], scounts[4], sdispls[4], rcounts[4], rdispls[4];
    int off;

    if (ndims == 2) {
        OK(MPI_Cart_create(MPI_COMM_WORLD, 2, dims, periods, 0, &cart));
        grid_neighbors(dims, periods, nbr);
    } else {
        int d1[1] = { wsize }, p1[1] = { periods[0] };
        int g[2] = { wsize, 1 }, gp[2] = { periods[0], 0 };

        OK(MPI_Cart_create(MPI_COMM_WORLD, 1, d1, p1, 0, &cart));
        grid_neighbors(g, gp, nbr);
    }

    /* allgather: everyone gets two ints from each neighbour. */
    sbuf[0] = val(wrank, 0, 0);
    sbuf[1] = val(wrank, 0, 1);
    for (k = 0; k < 64; k++) {
        rbuf[k] = SENTINEL;
    }
    OK(MPI_Neighbor_allgather(sbuf, 2, MPI_INT, rbuf, 2, MPI_INT, cart));
    for (k = 0; k < n; k++) {
        for (e = 0; e < 2; e++) {
            int want = nbr[k] == MPI_PROC_NULL ? SENTINEL
                                               : val(nbr[k], 0, e);

            CHECK(rbuf[2 * k + e] == want,
                  "%dD allgather block %d[%d] = %d, want %d", ndims, k, e,
                  rbuf[2 * k + e], want);
        }
    }

    /* alltoall: one int per neighbour, each block different. */
    for (k = 0; k < n; k++) {
        sbuf[k] = val(wrank, k, 0);
        rbuf[k] = SENTINEL;
    }
    OK(MPI_Neighbor_alltoall(sbuf, 1, MPI_INT, rbuf, 1, MPI_INT, cart));
    for (k = 0; k < n; k++) {
        int want = nbr[k] == MPI_PROC_NULL ? SENTINEL : val(nbr[k], k ^ 1, 0);

        CHECK(rbuf[k] == want, "%dD alltoall block %d = %d, want %d", ndims,
              k, rbuf[k], want);
    }

    /* alltoallv: block j has j + 1 ints, so the receiver expects block k
     * of (k ^ 1) + 1 ints; laid out with gaps. */
    for (k = 0; k < 64; k++) {
        sbuf[k] = SENTINEL;
        rbuf[k] = SENTINEL;
    }
    for (k = 0, off = 1; k < n; k++) {
        scounts[k] = k + 1;
        sdispls[k] = off;
        for (e = 0; e < k + 1; e++) {
            sbuf[off + e] = val(wrank, k, e);
        }
        off += k + 2;
    }
    for (k = 0, off = 2; k < n; k++) {
        rcounts[k] = (k ^ 1) + 1;
        rdispls[k] = off;
        off += rcounts[k] + 1;
    }
    OK(MPI_Neighbor_alltoallv(sbuf, scounts, sdispls, MPI_INT, rbuf, rcounts,
                              rdispls, MPI_INT, cart));
    for (k = 0; k < n; k++) {
        for (e = 0; e < rcounts[k]; e++) {
            int want = nbr[k] == MPI_PROC_NULL ? SENTINEL
                                               : val(nbr[k], k ^ 1, e);

            CHECK(rbuf[rdispls[k] + e] == want,
                  "%dD alltoallv block %d[%d] = %d, want %d", ndims, k, e,
                  rbuf[rdispls[k] + e], want);
        }
        CHECK(rbuf[rdispls[k] + rcounts[k]] == SENTINEL,
              "%dD alltoallv wrote past block %d", ndims, k);
    }
    CHECK(rbuf[0] == SENTINEL && rbuf[1] == SENTINEL,
          "%dD alltoallv wrote before the first block", ndims);

    /* allgatherv with gaps, receiving into a strided type (2 ints at
     * stride 2: extent 3 ints), sending from a strided type too. */
    OK(MPI_Type_vector(2, 1, 2, MPI_INT, &vec));
    OK(MPI_Type_commit(&vec));
    for (k = 0; k < 64; k++) {
        rbuf[k] = SENTINEL;
    }
    sbuf[0] = val(wrank, 0, 0);
    sbuf[1] = SENTINEL;
    sbuf[2] = val(wrank, 0, 1);
    for (k = 0; k < n; k++) {
        rcounts[k] = 1;
        rdispls[k] = 2 * k;     /* in extents of 3 ints: 6k */
    }
    OK(MPI_Neighbor_allgatherv(sbuf, 1, vec, rbuf, rcounts, rdispls, vec,
                               cart));
    for (k = 0; k < n; k++) {
        int at = 6 * k;
        int want0 = nbr[k] == MPI_PROC_NULL ? SENTINEL : val(nbr[k], 0, 0);
        int want1 = nbr[k] == MPI_PROC_NULL ? SENTINEL : val(nbr[k], 0, 1);

        CHECK(rbuf[at] == want0 && rbuf[at + 2] == want1 &&
              rbuf[at + 1] == SENTINEL && rbuf[at + 3] == SENTINEL,
              "%dD allgatherv strided block %d: %d %d %d %d", ndims, k,
              rbuf[at], rbuf[at + 1], rbuf[at + 2], rbuf[at + 3]);
    }
    /* alltoall with a strided receive type and contiguous send. */
    for (k = 0; k < 64; k++) {
        rbuf[k] = SENTINEL;
    }
    for (k = 0; k < n; k++) {
        sbuf[2 * k] = val(wrank, k, 0);
        sbuf[2 * k + 1] = val(wrank, k, 1);
    }
    OK(MPI_Neighbor_alltoall(sbuf, 2, MPI_INT, rbuf, 1, vec, cart));
    for (k = 0; k < n; k++) {
        int want0 = nbr[k] == MPI_PROC_NULL ? SENTINEL
                                            : val(nbr[k], k ^ 1, 0);
        int want1 = nbr[k] == MPI_PROC_NULL ? SENTINEL
                                            : val(nbr[k], k ^ 1, 1);

        CHECK(rbuf[3 * k] == want0 && rbuf[3 * k + 2] == want1 &&
              rbuf[3 * k + 1] == SENTINEL,
              "%dD alltoall strided block %d: %d %d %d", ndims, k,
              rbuf[3 * k], rbuf[3 * k + 1], rbuf[3 * k + 2]);
    }
    OK(MPI_Type_free(&vec));
    OK(MPI_Comm_free(&cart));
}

int main(int argc, char **argv)
{
    int dims[2] = { 0, 0 };
    static const int per[2] = { 1, 1 }, nonper[2] = { 0, 0 };
    static const int mixed[2] = { 0, 1 };

    mpitest_init(&argc, &argv, "topo_cart", 0);
    mpitest_world(&wrank, &wsize);

    test_dims_create();
    OK(MPI_Dims_create(wsize, 2, dims));
    test_grid(dims, per);
    test_grid(dims, nonper);
    test_grid(dims, mixed);
    test_sub(dims);
    test_small_grid();
    test_neighbor_grid(dims, per, 2);
    test_neighbor_grid(dims, mixed, 2);
    test_neighbor_grid(dims, nonper, 1);   /* 1-D, PROC_NULL ends */
    test_neighbor_grid(dims, per, 1);      /* 1-D ring */

    if (mpitest_failures == 0 && wrank == 0) {
        printf("topo_cart: %d processes, %d x %d grid: all checks passed\n",
               wsize, dims[0], dims[1]);
    }
    return mpitest_finish();
}

/*
 * tests/mpi/coll_basic.c: data-movement collectives (barrier, bcast,
 * gather(v), scatter(v), allgather(v), alltoall(v,w)) against values
 * computed independently from ranks: int and double data, a vector
 * datatype, MPI_IN_PLACE, every root, zero counts, a 1 MiB broadcast.
 */
#include <mpi.h>

#include "mpitest.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int rank, size;

/* The value rank r contributes at index i, for the test with key k. */
static int val(int k, int r, int i)
{
    return k * 100000 + r * 1000 + i;
}

static void test_barrier(void)
{
    int i;

    for (i = 0; i < 5; i++) {
        OK(MPI_Barrier(MPI_COMM_WORLD));
    }
}

static void test_bcast(void)
{
    int root, i, n = 7;
    int ibuf[7];
    double dbuf[7];

    for (root = 0; root < size; root++) {
        for (i = 0; i < n; i++) {
            ibuf[i] = (rank == root) ? val(1, root, i) : -1;
            dbuf[i] = (rank == root) ? 0.5 * val(2, root, i) : -1.0;
        }
        OK(MPI_Bcast(ibuf, n, MPI_INT, root, MPI_COMM_WORLD));
        OK(MPI_Bcast(dbuf, n, MPI_DOUBLE, root, MPI_COMM_WORLD));
        for (i = 0; i < n; i++) {
            CHECK(ibuf[i] == val(1, root, i), "bcast int root %d [%d]=%d",
                  root, i, ibuf[i]);
            CHECK(dbuf[i] == 0.5 * val(2, root, i),
                  "bcast double root %d [%d]=%g", root, i, dbuf[i]);
        }
    }
    /* Zero count: nothing moves, nothing breaks. */
    ibuf[0] = 5;
    OK(MPI_Bcast(ibuf, 0, MPI_INT, size - 1, MPI_COMM_WORLD));
    CHECK(ibuf[0] == 5, "zero-count bcast changed the buffer");
}

/* Every other int of 2*n: a non-contiguous layout. */
static void test_bcast_vector(void)
{
    MPI_Datatype vec;
    int buf[20], i, root = size / 2;

    MPI_Type_vector(10, 1, 2, MPI_INT, &vec);
    MPI_Type_commit(&vec);
    for (i = 0; i < 20; i++) {
        buf[i] = (rank == root || (i % 2) != 0) ? val(3, root, i) : -1;
        if ((i % 2) != 0 && rank != root) {
            buf[i] = -7;
        }
    }
    OK(MPI_Bcast(buf, 1, vec, root, MPI_COMM_WORLD));
    for (i = 0; i < 20; i++) {
        if ((i % 2) == 0) {
            CHECK(buf[i] == val(3, root, i), "vector bcast [%d]=%d", i,
                  buf[i]);
        } else if (rank != root) {
            CHECK(buf[i] == -7, "vector bcast wrote a gap [%d]=%d", i,
                  buf[i]);
        }
    }
    MPI_Type_free(&vec);
}

static void test_bcast_large(void)
{
    size_t n = (1u << 20) / sizeof(int), i;
    int *buf = malloc(n * sizeof(int));
    int root = size - 1, bad = 0;

    for (i = 0; i < n; i++) {
        buf[i] = (rank == root) ? (int)(i * 2654435761u) : 0;
    }
    OK(MPI_Bcast(buf, (int)n, MPI_INT, root, MPI_COMM_WORLD));
    for (i = 0; i < n; i++) {
        bad += (buf[i] != (int)(i * 2654435761u));
    }
    CHECK(bad == 0, "1 MiB bcast: %d wrong ints", bad);
    free(buf);
}

static void test_gather_scatter(void)
{
    int root, i, r, n = 3;
    int *all = malloc((size_t)size * n * sizeof(int));
    int mine[3];
    double *dall = malloc((size_t)size * n * sizeof(double));
    double dmine[3];

    for (root = 0; root < size; root++) {
        for (i = 0; i < n; i++) {
            mine[i] = val(4, rank, i);
            dmine[i] = val(5, rank, i) + 0.25;
        }
        for (i = 0; i < size * n; i++) {
            all[i] = -1;
            dall[i] = -1.0;
        }
        OK(MPI_Gather(mine, n, MPI_INT, all, n, MPI_INT, root,
                      MPI_COMM_WORLD));
        OK(MPI_Gather(dmine, n, MPI_DOUBLE, dall, n, MPI_DOUBLE, root,
                      MPI_COMM_WORLD));
        if (rank == root) {
            for (r = 0; r < size; r++) {
                for (i = 0; i < n; i++) {
                    CHECK(all[r * n + i] == val(4, r, i),
                          "gather root %d from %d [%d]", root, r, i);
                    CHECK(dall[r * n + i] == val(5, r, i) + 0.25,
                          "gather double root %d from %d [%d]", root, r, i);
                }
            }
        }
        /* In place at the root: its own block is already there. */
        if (rank == root) {
            for (i = 0; i < size * n; i++) {
                all[i] = -1;
            }
            for (i = 0; i < n; i++) {
                all[root * n + i] = val(6, root, i);
            }
            OK(MPI_Gather(MPI_IN_PLACE, n, MPI_INT, all, n, MPI_INT, root,
                          MPI_COMM_WORLD));
            for (r = 0; r < size; r++) {
                for (i = 0; i < n; i++) {
                    CHECK(all[r * n + i] == val(6, r, i),
                          "in-place gather root %d from %d", root, r);
                }
            }
        } else {
            for (i = 0; i < n; i++) {
                mine[i] = val(6, rank, i);
            }
            OK(MPI_Gather(mine, n, MPI_INT, NULL, 0, MPI_DATATYPE_NULL, root,
                          MPI_COMM_WORLD));
        }
        /* Scatter back, then in place at the root. */
        if (rank == root) {
            for (r = 0; r < size; r++) {
                for (i = 0; i < n; i++) {
                    all[r * n + i] = val(7, r, i);
                }
            }
        }
        memset(mine, 0, sizeof(mine));
        OK(MPI_Scatter(all, n, MPI_INT, mine, n, MPI_INT, root,
                       MPI_COMM_WORLD));
        for (i = 0; i < n; i++) {
            CHECK(mine[i] == val(7, rank, i), "scatter root %d [%d]=%d",
                  root, i, mine[i]);
        }
        if (rank == root) {
            OK(MPI_Scatter(all, n, MPI_INT, MPI_IN_PLACE, n, MPI_INT, root,
                           MPI_COMM_WORLD));
            CHECK(all[root * n] == val(7, root, 0), "in-place scatter");
        } else {
            OK(MPI_Scatter(NULL, 0, MPI_DATATYPE_NULL, mine, n, MPI_INT,
                           root, MPI_COMM_WORLD));
            CHECK(mine[0] == val(7, rank, 0), "scatter (in-place root)");
        }
    }
    free(all);
    free(dall);
}

/* Rank r contributes r + 1 ints; the root lays them out in reverse rank
 * order with a gap of one between blocks. */
static void test_gatherv_scatterv(void)
{
    int *counts = malloc((size_t)size * sizeof(int));
    int *displs = malloc((size_t)size * sizeof(int));
    int total = 0, r, i, root = (size > 1) ? 1 : 0;
    int *all, mine[64];

    for (r = size - 1; r >= 0; r--) {
        counts[r] = r + 1;
        displs[r] = total;
        total += counts[r] + 1;
    }
    all = malloc((size_t)total * sizeof(int));
    for (i = 0; i < total; i++) {
        all[i] = -3;
    }
    for (i = 0; i < rank + 1; i++) {
        mine[i] = val(8, rank, i);
    }
    OK(MPI_Gatherv(mine, rank + 1, MPI_INT, all, counts, displs, MPI_INT,
                   root, MPI_COMM_WORLD));
    if (rank == root) {
        for (r = 0; r < size; r++) {
            for (i = 0; i < counts[r]; i++) {
                CHECK(all[displs[r] + i] == val(8, r, i), "gatherv %d [%d]",
                      r, i);
            }
            CHECK(all[displs[r] + counts[r]] == -3, "gatherv wrote a gap");
        }
        for (r = 0; r < size; r++) {
            for (i = 0; i < counts[r]; i++) {
                all[displs[r] + i] = val(9, r, i);
            }
        }
    }
    memset(mine, 0, sizeof(mine));
    OK(MPI_Scatterv(all, counts, displs, MPI_INT, mine, rank + 1, MPI_INT,
                    root, MPI_COMM_WORLD));
    for (i = 0; i < rank + 1; i++) {
        CHECK(mine[i] == val(9, rank, i), "scatterv [%d]=%d", i, mine[i]);
    }
    free(all);
    free(counts);
    free(displs);
}

static void test_allgather(void)
{
    int n = 2, r, i;
    int *all = malloc((size_t)size * n * sizeof(int));
    int *counts = malloc((size_t)size * sizeof(int));
    int *displs = malloc((size_t)size * sizeof(int));
    double *dall = malloc((size_t)size * sizeof(double));
    double dmine = rank * 1.5;
    int mine[2] = { val(10, rank, 0), val(10, rank, 1) };
    int total = 0;

    OK(MPI_Allgather(mine, n, MPI_INT, all, n, MPI_INT, MPI_COMM_WORLD));
    for (r = 0; r < size; r++) {
        for (i = 0; i < n; i++) {
            CHECK(all[r * n + i] == val(10, r, i), "allgather %d [%d]", r,
                  i);
        }
    }
    OK(MPI_Allgather(&dmine, 1, MPI_DOUBLE, dall, 1, MPI_DOUBLE,
                     MPI_COMM_WORLD));
    for (r = 0; r < size; r++) {
        CHECK(dall[r] == r * 1.5, "allgather double %d", r);
    }
    for (i = 0; i < size * n; i++) {
        all[i] = (i / n == rank) ? val(11, rank, i % n) : -1;
    }
    OK(MPI_Allgather(MPI_IN_PLACE, 0, MPI_DATATYPE_NULL, all, n, MPI_INT,
                     MPI_COMM_WORLD));
    for (r = 0; r < size; r++) {
        for (i = 0; i < n; i++) {
            CHECK(all[r * n + i] == val(11, r, i), "in-place allgather");
        }
    }
    free(all);
    /* allgatherv: rank r gives r % 3 ints (zero counts included). */
    for (r = 0; r < size; r++) {
        counts[r] = r % 3;
        displs[r] = total;
        total += counts[r];
    }
    all = malloc((size_t)(total + 1) * sizeof(int));
    OK(MPI_Allgatherv(mine, rank % 3, MPI_INT, all, counts, displs, MPI_INT,
                      MPI_COMM_WORLD));
    for (r = 0; r < size; r++) {
        for (i = 0; i < counts[r]; i++) {
            CHECK(all[displs[r] + i] == val(10, r, i), "allgatherv %d", r);
        }
    }
    for (i = 0; i < total; i++) {
        all[i] = -1;
    }
    for (i = 0; i < counts[rank]; i++) {
        all[displs[rank] + i] = val(12, rank, i);
    }
    OK(MPI_Allgatherv(MPI_IN_PLACE, 0, MPI_DATATYPE_NULL, all, counts,
                      displs, MPI_INT, MPI_COMM_WORLD));
    for (r = 0; r < size; r++) {
        for (i = 0; i < counts[r]; i++) {
            CHECK(all[displs[r] + i] == val(12, r, i),
                  "in-place allgatherv %d", r);
        }
    }
    free(all);
    free(dall);
    free(counts);
    free(displs);
}

/* Block for (from, to) in all-to-all tests. */
static int a2a(int k, int from, int to, int i)
{
    return k * 1000000 + from * 10000 + to * 100 + i;
}

static void test_alltoall(void)
{
    int n = 2, r, i;
    int *sb = malloc((size_t)size * n * sizeof(int));
    int *rb = malloc((size_t)size * n * sizeof(int));
    int *sc = malloc((size_t)size * sizeof(int));
    int *sd = malloc((size_t)size * sizeof(int));
    int *rc = malloc((size_t)size * sizeof(int));
    int *rd = malloc((size_t)size * sizeof(int));
    MPI_Datatype *types = malloc((size_t)size * sizeof(MPI_Datatype));
    int *vsb, *vrb, stot = 0, rtot = 0;

    for (r = 0; r < size; r++) {
        for (i = 0; i < n; i++) {
            sb[r * n + i] = a2a(1, rank, r, i);
        }
    }
    OK(MPI_Alltoall(sb, n, MPI_INT, rb, n, MPI_INT, MPI_COMM_WORLD));
    for (r = 0; r < size; r++) {
        for (i = 0; i < n; i++) {
            CHECK(rb[r * n + i] == a2a(1, r, rank, i), "alltoall from %d",
                  r);
        }
    }
    for (r = 0; r < size; r++) {
        for (i = 0; i < n; i++) {
            rb[r * n + i] = a2a(2, rank, r, i);
        }
    }
    OK(MPI_Alltoall(MPI_IN_PLACE, 0, MPI_DATATYPE_NULL, rb, n, MPI_INT,
                    MPI_COMM_WORLD));
    for (r = 0; r < size; r++) {
        for (i = 0; i < n; i++) {
            CHECK(rb[r * n + i] == a2a(2, r, rank, i),
                  "in-place alltoall from %d", r);
        }
    }
    /* alltoallv: from s to t, (s + t) % 3 ints. */
    for (r = 0; r < size; r++) {
        sc[r] = (rank + r) % 3;
        sd[r] = stot;
        stot += sc[r];
        rc[r] = (r + rank) % 3;
        rd[r] = rtot;
        rtot += rc[r];
    }
    vsb = malloc((size_t)(stot + 1) * sizeof(int));
    vrb = malloc((size_t)(rtot + 1) * sizeof(int));
    for (r = 0; r < size; r++) {
        for (i = 0; i < sc[r]; i++) {
            vsb[sd[r] + i] = a2a(3, rank, r, i);
        }
    }
    OK(MPI_Alltoallv(vsb, sc, sd, MPI_INT, vrb, rc, rd, MPI_INT,
                     MPI_COMM_WORLD));
    for (r = 0; r < size; r++) {
        for (i = 0; i < rc[r]; i++) {
            CHECK(vrb[rd[r] + i] == a2a(3, r, rank, i), "alltoallv from %d",
                  r);
        }
    }
    for (r = 0; r < size; r++) {
        for (i = 0; i < rc[r]; i++) {
            vrb[rd[r] + i] = a2a(4, rank, r, i);
        }
    }
    OK(MPI_Alltoallv(MPI_IN_PLACE, NULL, NULL, MPI_DATATYPE_NULL, vrb, rc,
                     rd, MPI_INT, MPI_COMM_WORLD));
    for (r = 0; r < size; r++) {
        for (i = 0; i < rc[r]; i++) {
            CHECK(vrb[rd[r] + i] == a2a(4, r, rank, i),
                  "in-place alltoallv from %d", r);
        }
    }
    /* alltoallw: same data, byte displacements. */
    for (r = 0; r < size; r++) {
        sd[r] *= (int)sizeof(int);
        rd[r] *= (int)sizeof(int);
        types[r] = MPI_INT;
        for (i = 0; i < rc[r]; i++) {
            vrb[rd[r] / (int)sizeof(int) + i] = -1;
        }
    }
    OK(MPI_Alltoallw(vsb, sc, sd, types, vrb, rc, rd, types,
                     MPI_COMM_WORLD));
    for (r = 0; r < size; r++) {
        for (i = 0; i < rc[r]; i++) {
            CHECK(vrb[rd[r] / (int)sizeof(int) + i] == a2a(3, r, rank, i),
                  "alltoallw from %d", r);
        }
    }
    free(vsb);
    free(vrb);
    free(sb);
    free(rb);
    free(sc);
    free(sd);
    free(rc);
    free(rd);
    free(types);
}

/* Send with a vector type, receive contiguous (different type maps of
 * the same signature). */
static void test_alltoall_vector(void)
{
    MPI_Datatype vec;
    int *sb = malloc((size_t)size * 4 * sizeof(int));
    int *rb = malloc((size_t)size * 2 * sizeof(int));
    int r;

    /* Two ints, stride 2; resized so that block r starts at 4*r ints. */
    MPI_Datatype tmp;
    MPI_Type_vector(2, 1, 2, MPI_INT, &tmp);
    MPI_Type_create_resized(tmp, 0, 4 * sizeof(int), &vec);
    MPI_Type_commit(&vec);
    MPI_Type_free(&tmp);
    for (r = 0; r < size; r++) {
        sb[4 * r] = a2a(5, rank, r, 0);
        sb[4 * r + 1] = -9;
        sb[4 * r + 2] = a2a(5, rank, r, 1);
        sb[4 * r + 3] = -9;
    }
    OK(MPI_Alltoall(sb, 1, vec, rb, 2, MPI_INT, MPI_COMM_WORLD));
    for (r = 0; r < size; r++) {
        CHECK(rb[2 * r] == a2a(5, r, rank, 0) &&
              rb[2 * r + 1] == a2a(5, r, rank, 1),
              "vector alltoall from %d: %d %d", r, rb[2 * r],
              rb[2 * r + 1]);
    }
    MPI_Type_free(&vec);
    free(sb);
    free(rb);
}

int main(int argc, char **argv)
{
    const mpitest_fn tests[] = {test_barrier, test_bcast, test_bcast_vector,
        test_bcast_large, test_gather_scatter, test_gatherv_scatterv,
        test_allgather, test_alltoall, test_alltoall_vector, NULL};

    mpitest_init(&argc, &argv, "coll_basic", 0);
    mpitest_world(&rank, &size);

    return mpitest_run(tests);
}

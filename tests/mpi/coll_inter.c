/*
 * tests/mpi/coll_inter.c: collectives on an intercommunicator between the
 * even and the odd ranks of MPI_COMM_WORLD (MPI-3.1 5.2.2): barrier,
 * bcast, gather(v), scatter(v), allgather(v), alltoall(v), reduce,
 * allreduce, with roots MPI_ROOT / MPI_PROC_NULL / remote rank, in both
 * directions. Needs at least 2 processes (passes trivially at 1).
 */
#include <mpi.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int wrank, wsize, failures;
static int color, lrank, lsize, rsize;

#define CHECK(cond, ...)                                                 \
    do {                                                                 \
        if (!(cond)) {                                                   \
            printf("FAIL: ");                                            \
            printf(__VA_ARGS__);                                         \
            printf(" (world rank %d, line %d)\n", wrank, __LINE__);      \
            fflush(stdout);                                              \
            failures++;                                                  \
        }                                                                \
    } while (0)

#define OK(call) CHECK((call) == MPI_SUCCESS, "%s", #call)

/* World rank of local rank i of group g (0: even ranks, 1: odd). */
static int wof(int g, int i)
{
    return 2 * i + g;
}

static int code(int k, int from_world, int to_world, int i)
{
    return k * 1000000 + from_world * 10000 + to_world * 100 + i;
}

/* The root argument for a rooted call where group g's local rank root
 * is the root. */
static int root_arg(int g, int root)
{
    if (color == g) {
        return (lrank == root) ? MPI_ROOT : MPI_PROC_NULL;
    }
    return root;
}

static void test_bcast(MPI_Comm inter, int g)
{
    int root, rootw, buf[5], i;

    if (color == g) {
        root = (g == 0) ? 0 : lsize - 1;
    } else {
        root = (g == 0) ? 0 : rsize - 1;
    }
    rootw = wof(g, root);
    for (i = 0; i < 5; i++) {
        buf[i] = (wrank == rootw) ? code(1, rootw, 0, i) : -1;
    }
    OK(MPI_Bcast(buf, 5, MPI_INT, root_arg(g, root), inter));
    if (color != g) {
        for (i = 0; i < 5; i++) {
            CHECK(buf[i] == code(1, rootw, 0, i), "inter bcast from group "
                  "%d [%d]=%d", g, i, buf[i]);
        }
    } else if (wrank != rootw) {
        CHECK(buf[0] == -1, "inter bcast touched a PROC_NULL buffer");
    }
}

static void test_gather_scatter(MPI_Comm inter, int g)
{
    int *all = malloc((size_t)(rsize + 1) * 3 * sizeof(int));
    int *counts = malloc((size_t)(rsize + 1) * sizeof(int));
    int *displs = malloc((size_t)(rsize + 1) * sizeof(int));
    int mine[3], i, j, total = 0;
    int root = 0;

    /* Gather to group g's rank 0 from the other group. */
    for (i = 0; i < 3; i++) {
        mine[i] = code(2, wrank, 0, i);
    }
    OK(MPI_Gather(mine, 3, MPI_INT, all, 3, MPI_INT, root_arg(g, root),
                  inter));
    if (color == g && lrank == root) {
        for (j = 0; j < rsize; j++) {
            for (i = 0; i < 3; i++) {
                CHECK(all[j * 3 + i] == code(2, wof(1 - g, j), 0, i),
                      "inter gather from %d [%d]", j, i);
            }
        }
    }
    /* Gatherv: remote rank j gives j % 3 + 1 ints. */
    for (j = 0; j < rsize; j++) {
        counts[j] = j % 3 + 1;
        displs[j] = total;
        total += counts[j];
    }
    OK(MPI_Gatherv(mine, lrank % 3 + 1, MPI_INT, all, counts, displs,
                   MPI_INT, root_arg(g, root), inter));
    if (color == g && lrank == root) {
        for (j = 0; j < rsize; j++) {
            for (i = 0; i < counts[j]; i++) {
                CHECK(all[displs[j] + i] == code(2, wof(1 - g, j), 0, i),
                      "inter gatherv from %d [%d]", j, i);
            }
        }
    }
    /* Scatter from group g's rank 0 to the other group. */
    if (color == g && lrank == root) {
        for (j = 0; j < rsize; j++) {
            for (i = 0; i < 3; i++) {
                all[j * 3 + i] = code(3, wrank, wof(1 - g, j), i);
            }
        }
    }
    memset(mine, 0, sizeof(mine));
    OK(MPI_Scatter(all, 3, MPI_INT, mine, 3, MPI_INT, root_arg(g, root),
                   inter));
    if (color != g) {
        for (i = 0; i < 3; i++) {
            CHECK(mine[i] == code(3, wof(g, root), wrank, i),
                  "inter scatter [%d]=%d", i, mine[i]);
        }
    }
    if (color == g && lrank == root) {
        for (j = 0; j < rsize; j++) {
            for (i = 0; i < counts[j]; i++) {
                all[displs[j] + i] = code(4, wrank, wof(1 - g, j), i);
            }
        }
    }
    memset(mine, 0, sizeof(mine));
    OK(MPI_Scatterv(all, counts, displs, MPI_INT, mine, lrank % 3 + 1,
                    MPI_INT, root_arg(g, root), inter));
    if (color != g) {
        for (i = 0; i < lrank % 3 + 1; i++) {
            CHECK(mine[i] == code(4, wof(g, root), wrank, i),
                  "inter scatterv [%d]=%d", i, mine[i]);
        }
    }
    free(all);
    free(counts);
    free(displs);
}

static void test_allgather_alltoall(MPI_Comm inter)
{
    int *all = malloc((size_t)(rsize + 1) * 2 * sizeof(int));
    int *sb = malloc((size_t)(rsize + 1) * 3 * sizeof(int));
    int *rb = malloc((size_t)(rsize + 1) * 3 * sizeof(int));
    int *rc = malloc((size_t)(rsize + 1) * sizeof(int));
    int *rd = malloc((size_t)(rsize + 1) * sizeof(int));
    int *sc = malloc((size_t)(rsize + 1) * sizeof(int));
    int *sd = malloc((size_t)(rsize + 1) * sizeof(int));
    int mine[2] = { code(5, wrank, 0, 0), code(5, wrank, 0, 1) };
    int j, i, total = 0, stot = 0;

    OK(MPI_Allgather(mine, 2, MPI_INT, all, 2, MPI_INT, inter));
    for (j = 0; j < rsize; j++) {
        CHECK(all[2 * j] == code(5, wof(1 - color, j), 0, 0) &&
              all[2 * j + 1] == code(5, wof(1 - color, j), 0, 1),
              "inter allgather from %d", j);
    }
    /* allgatherv: remote rank j gives j % 2 + 1 ints. */
    for (j = 0; j < rsize; j++) {
        rc[j] = j % 2 + 1;
        rd[j] = total;
        total += rc[j];
    }
    OK(MPI_Allgatherv(mine, lrank % 2 + 1, MPI_INT, all, rc, rd, MPI_INT,
                      inter));
    for (j = 0; j < rsize; j++) {
        for (i = 0; i < rc[j]; i++) {
            CHECK(all[rd[j] + i] == code(5, wof(1 - color, j), 0, i),
                  "inter allgatherv from %d [%d]", j, i);
        }
    }
    for (j = 0; j < rsize; j++) {
        sb[j] = code(6, wrank, wof(1 - color, j), 0);
    }
    OK(MPI_Alltoall(sb, 1, MPI_INT, rb, 1, MPI_INT, inter));
    for (j = 0; j < rsize; j++) {
        CHECK(rb[j] == code(6, wof(1 - color, j), wrank, 0),
              "inter alltoall from %d: %d", j, rb[j]);
    }
    /* alltoallv: from world a to world b, (a + b) % 3 ints. */
    total = 0;
    for (j = 0; j < rsize; j++) {
        int peer = wof(1 - color, j);

        sc[j] = (wrank + peer) % 3;
        sd[j] = stot;
        stot += sc[j];
        rc[j] = (wrank + peer) % 3;
        rd[j] = total;
        total += rc[j];
        for (i = 0; i < sc[j]; i++) {
            sb[sd[j] + i] = code(7, wrank, peer, i);
        }
    }
    OK(MPI_Alltoallv(sb, sc, sd, MPI_INT, rb, rc, rd, MPI_INT, inter));
    for (j = 0; j < rsize; j++) {
        for (i = 0; i < rc[j]; i++) {
            CHECK(rb[rd[j] + i] == code(7, wof(1 - color, j), wrank, i),
                  "inter alltoallv from %d [%d]", j, i);
        }
    }
    free(all);
    free(sb);
    free(rb);
    free(rc);
    free(rd);
    free(sc);
    free(sd);
}

static void test_reductions(MPI_Comm inter, int g)
{
    int in[2] = { wrank, 1 }, out[2] = { -1, -1 }, j, rsum = 0;
    int root = (color == g) ? lsize / 2 : rsize / 2;

    for (j = 0; j < rsize; j++) {
        rsum += wof(1 - color, j);
    }
    OK(MPI_Reduce(in, out, 2, MPI_INT, MPI_SUM, root_arg(g, root), inter));
    if (color == g && lrank == root) {
        CHECK(out[0] == rsum && out[1] == rsize,
              "inter reduce %d %d (want %d %d)", out[0], out[1], rsum,
              rsize);
    }
    out[0] = out[1] = -1;
    OK(MPI_Allreduce(in, out, 2, MPI_INT, MPI_SUM, inter));
    CHECK(out[0] == rsum && out[1] == rsize, "inter allreduce %d %d",
          out[0], out[1]);
}

int main(int argc, char **argv)
{
    MPI_Comm local, inter;
    int total, g;

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &wrank);
    MPI_Comm_size(MPI_COMM_WORLD, &wsize);
    if (wsize < 2) {
        if (wrank == 0) {
            printf("coll_inter: SKIPPED (needs 2 processes)\n");
        }
        MPI_Finalize();
        return 0;
    }
    color = wrank % 2;
    OK(MPI_Comm_split(MPI_COMM_WORLD, color, wrank, &local));
    OK(MPI_Intercomm_create(local, 0, MPI_COMM_WORLD, 1 - color, 99,
                            &inter));
    MPI_Comm_rank(inter, &lrank);
    MPI_Comm_size(inter, &lsize);
    MPI_Comm_remote_size(inter, &rsize);
    CHECK(lsize == (wsize + 1 - color) / 2 && rsize == wsize - lsize,
          "intercomm sizes %d %d", lsize, rsize);

    OK(MPI_Barrier(inter));
    for (g = 0; g < 2; g++) {
        test_bcast(inter, g);
        test_gather_scatter(inter, g);
        test_reductions(inter, g);
    }
    test_allgather_alltoall(inter);
    OK(MPI_Barrier(inter));

    MPI_Comm_free(&inter);
    MPI_Comm_free(&local);
    MPI_Allreduce(&failures, &total, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    if (wrank == 0 && total == 0) {
        printf("coll_inter: all passed at %d processes\n", wsize);
    }
    MPI_Finalize();
    return (failures == 0) ? 0 : 1;
}

/*
 * tests/mpi/coll_inter.c: collectives on an intercommunicator between the
 * even and the odd ranks of MPI_COMM_WORLD (MPI-3.1 5.2.2): barrier,
 * bcast, gather(v), scatter(v), allgather(v), alltoall(v,w), reduce,
 * allreduce, reduce_scatter(_block), with roots MPI_ROOT / MPI_PROC_NULL /
 * remote rank, in both directions; each in its blocking form, its
 * nonblocking form (MPI-3.1 5.12) and its persistent form (MPI-4.0 6.13,
 * started twice). Needs at least 2 processes (passes trivially at 1).
 */
#include <mpi.h>

#include "mpitest.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int wrank, wsize;
static int color, lrank, lsize, rsize;

/* The form every call of this pass takes: 0 blocking, 1 nonblocking (the
 * I form, then MPI_Wait), 2 persistent (the _init form, MPI_Start and
 * MPI_Wait twice, MPI_Request_free). A persistent call runs its
 * operation twice on the same buffers: the data of every test here gives
 * the same result again. In the calls, RQ is the request and NI the info
 * of the persistent form. */
static int mode;
static const char *const mode_names[3] = { "blocking", "nonblocking",
                                           "persistent" };
#define RQ (&req_)
#define NI MPI_INFO_NULL

#define COLL(_blocking, _nonblocking, _init)                             \
    do {                                                                 \
        MPI_Request req_ = MPI_REQUEST_NULL;                             \
        int rep_;                                                        \
                                                                         \
        if (mode == 0) {                                                 \
            OK(_blocking);                                               \
        } else if (mode == 1) {                                          \
            OK(_nonblocking);                                            \
            OK(MPI_Wait(&req_, MPI_STATUS_IGNORE));                      \
            CHECK(req_ == MPI_REQUEST_NULL, "request not freed");        \
        } else {                                                         \
            OK(_init);                                                   \
            for (rep_ = 0; rep_ < 2; rep_++) {                           \
                OK(MPI_Start(&req_));                                    \
                OK(MPI_Wait(&req_, MPI_STATUS_IGNORE));                  \
                CHECK(req_ != MPI_REQUEST_NULL, "persistent request "    \
                      "freed by MPI_Wait");                              \
            }                                                            \
            OK(MPI_Request_free(&req_));                                 \
        }                                                                \
    } while (0)

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
    COLL(MPI_Bcast(buf, 5, MPI_INT, root_arg(g, root), inter),
         MPI_Ibcast(buf, 5, MPI_INT, root_arg(g, root), inter, RQ),
         MPI_Bcast_init(buf, 5, MPI_INT, root_arg(g, root), inter, NI, RQ));
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
    COLL(MPI_Gather(mine, 3, MPI_INT, all, 3, MPI_INT, root_arg(g, root),
                    inter),
         MPI_Igather(mine, 3, MPI_INT, all, 3, MPI_INT, root_arg(g, root),
                     inter, RQ),
         MPI_Gather_init(mine, 3, MPI_INT, all, 3, MPI_INT, root_arg(g, root),
                         inter, NI, RQ));
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
    COLL(MPI_Gatherv(mine, lrank % 3 + 1, MPI_INT, all, counts, displs,
                     MPI_INT, root_arg(g, root), inter),
         MPI_Igatherv(mine, lrank % 3 + 1, MPI_INT, all, counts, displs,
                      MPI_INT, root_arg(g, root), inter, RQ),
         MPI_Gatherv_init(mine, lrank % 3 + 1, MPI_INT, all, counts, displs,
                          MPI_INT, root_arg(g, root), inter, NI, RQ));
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
    COLL(MPI_Scatter(all, 3, MPI_INT, mine, 3, MPI_INT, root_arg(g, root),
                     inter),
         MPI_Iscatter(all, 3, MPI_INT, mine, 3, MPI_INT, root_arg(g, root),
                      inter, RQ),
         MPI_Scatter_init(all, 3, MPI_INT, mine, 3, MPI_INT, root_arg(g, root),
                          inter, NI, RQ));
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
    COLL(MPI_Scatterv(all, counts, displs, MPI_INT, mine, lrank % 3 + 1,
                      MPI_INT, root_arg(g, root), inter),
         MPI_Iscatterv(all, counts, displs, MPI_INT, mine, lrank % 3 + 1,
                       MPI_INT, root_arg(g, root), inter, RQ),
         MPI_Scatterv_init(all, counts, displs, MPI_INT, mine, lrank % 3 + 1,
                           MPI_INT, root_arg(g, root), inter, NI, RQ));
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

/* Alltoallw of what test_allgather_alltoall's alltoallv moved (counts
 * sc, rc, element displacements sd, rd), with byte displacements and, for
 * odd peers, one contiguous type per block. */
static void test_alltoallw(MPI_Comm inter, int *sb, const int *sc,
                           const int *sd, int *rb, const int *rc,
                           const int *rd)
{
    MPI_Datatype *st = malloc((size_t)(rsize + 1) * sizeof(*st));
    int *swc = malloc((size_t)(rsize + 1) * sizeof(int));
    int *rwc = malloc((size_t)(rsize + 1) * sizeof(int));
    int *sbd = malloc((size_t)(rsize + 1) * sizeof(int));
    int *rbd = malloc((size_t)(rsize + 1) * sizeof(int));
    int i, j;

    for (j = 0; j < rsize; j++) {
        int peer = wof(1 - color, j);

        st[j] = MPI_INT;
        swc[j] = sc[j];
        rwc[j] = rc[j];
        if (peer % 2 == 1 && sc[j] > 0) {
            MPI_Type_contiguous(sc[j], MPI_INT, &st[j]);
            MPI_Type_commit(&st[j]);
            swc[j] = rwc[j] = 1;
        }
        sbd[j] = sd[j] * (int)sizeof(int);
        rbd[j] = rd[j] * (int)sizeof(int);
        for (i = 0; i < rc[j]; i++) {
            rb[rd[j] + i] = -1;
        }
    }
    COLL(MPI_Alltoallw(sb, swc, sbd, st, rb, rwc, rbd, st, inter),
         MPI_Ialltoallw(sb, swc, sbd, st, rb, rwc, rbd, st, inter, RQ),
         MPI_Alltoallw_init(sb, swc, sbd, st, rb, rwc, rbd, st, inter, NI,
                            RQ));
    for (j = 0; j < rsize; j++) {
        for (i = 0; i < rc[j]; i++) {
            CHECK(rb[rd[j] + i] == code(7, wof(1 - color, j), wrank, i),
                  "inter alltoallw from %d [%d]", j, i);
        }
        if (st[j] != MPI_INT) {
            MPI_Type_free(&st[j]);
        }
    }
    free(st);
    free(swc);
    free(rwc);
    free(sbd);
    free(rbd);
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

    COLL(MPI_Allgather(mine, 2, MPI_INT, all, 2, MPI_INT, inter),
         MPI_Iallgather(mine, 2, MPI_INT, all, 2, MPI_INT, inter, RQ),
         MPI_Allgather_init(mine, 2, MPI_INT, all, 2, MPI_INT, inter, NI, RQ));
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
    COLL(MPI_Allgatherv(mine, lrank % 2 + 1, MPI_INT, all, rc, rd, MPI_INT,
                        inter),
         MPI_Iallgatherv(mine, lrank % 2 + 1, MPI_INT, all, rc, rd, MPI_INT,
                         inter, RQ),
         MPI_Allgatherv_init(mine, lrank % 2 + 1, MPI_INT, all, rc, rd,
                             MPI_INT, inter, NI, RQ));
    for (j = 0; j < rsize; j++) {
        for (i = 0; i < rc[j]; i++) {
            CHECK(all[rd[j] + i] == code(5, wof(1 - color, j), 0, i),
                  "inter allgatherv from %d [%d]", j, i);
        }
    }
    for (j = 0; j < rsize; j++) {
        sb[j] = code(6, wrank, wof(1 - color, j), 0);
    }
    COLL(MPI_Alltoall(sb, 1, MPI_INT, rb, 1, MPI_INT, inter),
         MPI_Ialltoall(sb, 1, MPI_INT, rb, 1, MPI_INT, inter, RQ),
         MPI_Alltoall_init(sb, 1, MPI_INT, rb, 1, MPI_INT, inter, NI, RQ));
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
    COLL(MPI_Alltoallv(sb, sc, sd, MPI_INT, rb, rc, rd, MPI_INT, inter),
         MPI_Ialltoallv(sb, sc, sd, MPI_INT, rb, rc, rd, MPI_INT, inter, RQ),
         MPI_Alltoallv_init(sb, sc, sd, MPI_INT, rb, rc, rd, MPI_INT, inter,
                            NI, RQ));
    for (j = 0; j < rsize; j++) {
        for (i = 0; i < rc[j]; i++) {
            CHECK(rb[rd[j] + i] == code(7, wof(1 - color, j), wrank, i),
                  "inter alltoallv from %d [%d]", j, i);
        }
    }
    /* alltoallw: the same exchange with byte displacements, the blocks
     * for odd peers described by a contiguous type of their length. */
    test_alltoallw(inter, sb, sc, sd, rb, rc, rd);
    free(all);
    free(sb);
    free(rb);
    free(rc);
    free(rd);
    free(sc);
    free(sd);
}

/*
 * Reduce_scatter(_block) (MPI-3.1 5.10): each group's vectors are reduced
 * and the result scattered over the other group, by that group's counts.
 * Both groups' vectors are t = 2 * lsize * rsize ints long; element e of
 * world rank w is w * 100 + e.
 */
static void test_reduce_scatter(MPI_Comm inter)
{
    int t = 2 * lsize * rsize, j, e, off = 0, rsum = 0;
    int *in = malloc((size_t)t * sizeof(int));
    int *out = malloc((size_t)t * sizeof(int));
    int *counts = malloc((size_t)lsize * sizeof(int));
    int block = t / lsize;

    for (e = 0; e < t; e++) {
        in[e] = wrank * 100 + e;
        out[e] = -1;
    }
    for (j = 0; j < rsize; j++) {
        rsum += wof(1 - color, j);
    }
    /* Block form: block elements each. */
    COLL(MPI_Reduce_scatter_block(in, out, block, MPI_INT, MPI_SUM, inter),
         MPI_Ireduce_scatter_block(in, out, block, MPI_INT, MPI_SUM, inter,
                                   RQ),
         MPI_Reduce_scatter_block_init(in, out, block, MPI_INT, MPI_SUM,
                                       inter, NI, RQ));
    for (e = 0; e < block; e++) {
        int at = lrank * block + e;

        CHECK(out[e] == 100 * rsum + rsize * at, "inter "
              "reduce_scatter_block [%d]=%d, want %d", e, out[e],
              100 * rsum + rsize * at);
    }
    CHECK(block == t || out[block] == -1, "inter reduce_scatter_block "
          "wrote past its block");
    /* v form: one element each but for the last rank, which gets the
     * rest. */
    for (j = 0; j < lsize; j++) {
        counts[j] = (j < lsize - 1) ? 1 : t - (lsize - 1);
        if (j < lrank) {
            off += counts[j];
        }
    }
    for (e = 0; e < t; e++) {
        out[e] = -1;
    }
    COLL(MPI_Reduce_scatter(in, out, counts, MPI_INT, MPI_SUM, inter),
         MPI_Ireduce_scatter(in, out, counts, MPI_INT, MPI_SUM, inter, RQ),
         MPI_Reduce_scatter_init(in, out, counts, MPI_INT, MPI_SUM, inter,
                                 NI, RQ));
    for (e = 0; e < counts[lrank]; e++) {
        CHECK(out[e] == 100 * rsum + rsize * (off + e), "inter "
              "reduce_scatter [%d]=%d, want %d", e, out[e],
              100 * rsum + rsize * (off + e));
    }
    free(in);
    free(out);
    free(counts);
}

static void test_reductions(MPI_Comm inter, int g)
{
    int in[2] = { wrank, 1 }, out[2] = { -1, -1 }, j, rsum = 0;
    int root = (color == g) ? lsize / 2 : rsize / 2;

    for (j = 0; j < rsize; j++) {
        rsum += wof(1 - color, j);
    }
    COLL(MPI_Reduce(in, out, 2, MPI_INT, MPI_SUM, root_arg(g, root), inter),
         MPI_Ireduce(in, out, 2, MPI_INT, MPI_SUM, root_arg(g, root), inter,
                     RQ),
         MPI_Reduce_init(in, out, 2, MPI_INT, MPI_SUM, root_arg(g, root),
                         inter, NI, RQ));
    if (color == g && lrank == root) {
        CHECK(out[0] == rsum && out[1] == rsize,
              "inter reduce %d %d (want %d %d)", out[0], out[1], rsum,
              rsize);
    }
    out[0] = out[1] = -1;
    COLL(MPI_Allreduce(in, out, 2, MPI_INT, MPI_SUM, inter),
         MPI_Iallreduce(in, out, 2, MPI_INT, MPI_SUM, inter, RQ),
         MPI_Allreduce_init(in, out, 2, MPI_INT, MPI_SUM, inter, NI, RQ));
    CHECK(out[0] == rsum && out[1] == rsize, "inter allreduce %d %d",
          out[0], out[1]);
}

int main(int argc, char **argv)
{
    MPI_Comm local, inter;
    int g;

    mpitest_init(&argc, &argv, "coll_inter", 0);
    mpitest_world(&wrank, &wsize);
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

    for (mode = 0; mode < 3; mode++) {
        COLL(MPI_Barrier(inter), MPI_Ibarrier(inter, RQ),
             MPI_Barrier_init(inter, NI, RQ));
        for (g = 0; g < 2; g++) {
            test_bcast(inter, g);
            test_gather_scatter(inter, g);
            test_reductions(inter, g);
        }
        test_allgather_alltoall(inter);
        test_reduce_scatter(inter);
        COLL(MPI_Barrier(inter), MPI_Ibarrier(inter, RQ),
             MPI_Barrier_init(inter, NI, RQ));
        if (mpitest_failures != 0) {
            printf("coll_inter: failures in the %s forms (world rank %d)\n",
                   mode_names[mode], wrank);
            break;
        }
    }

    MPI_Comm_free(&inter);
    MPI_Comm_free(&local);
    return mpitest_finish();
}

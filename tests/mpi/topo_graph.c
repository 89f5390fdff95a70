/*
 * tests/mpi/topo_graph.c: graph and distributed graph topologies. A ring
 * and a star through MPI_Graph_create (get, neighbours, map, a graph over
 * fewer nodes than processes), the distributed graph forms (adjacent and
 * general, weighted and not, edges given by other processes than their
 * ends), MPI_Comm_dup keeping them, and the neighbour collectives on each
 * checked value by value. Run at 1, 2, 3 and 4 processes: at 1 and 2 the
 * ring has self-loops and double edges.
 */
#include <mpi.h>

#include "mpitest.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int wrank, wsize;

#define MAXP 64
#define SENTINEL (-7)

static int left(int r)
{
    return (r + wsize - 1) % wsize;
}

static int right(int r)
{
    return (r + 1) % wsize;
}

/* ---- MPI_Graph_create ---------------------------------------------------- */

static void test_ring(void)
{
    int index[MAXP], edges[2 * MAXP], gi[MAXP], ge[2 * MAXP];
    int i, st, nn, ne, cnt, nb[4], newrank, sbuf[2], rbuf[2];
    MPI_Comm ring, dup;

    for (i = 0; i < wsize; i++) {
        index[i] = 2 * (i + 1);
        edges[2 * i] = left(i);
        edges[2 * i + 1] = right(i);
    }
    OK(MPI_Graph_create(MPI_COMM_WORLD, wsize, index, edges, 1, &ring));
    OK(MPI_Topo_test(ring, &st));
    CHECK(st == MPI_GRAPH, "ring Topo_test = %d", st);
    OK(MPI_Graphdims_get(ring, &nn, &ne));
    CHECK(nn == wsize && ne == 2 * wsize, "Graphdims_get = %d, %d", nn, ne);
    OK(MPI_Graph_get(ring, MAXP, 2 * MAXP, gi, ge));
    CHECK(memcmp(gi, index, (size_t)wsize * sizeof(int)) == 0 &&
          memcmp(ge, edges, 2 * (size_t)wsize * sizeof(int)) == 0,
          "Graph_get differs from what was given");
    for (i = 0; i < wsize; i++) {
        OK(MPI_Graph_neighbors_count(ring, i, &cnt));
        CHECK(cnt == 2, "node %d has %d neighbours", i, cnt);
        nb[0] = nb[1] = nb[2] = SENTINEL;
        OK(MPI_Graph_neighbors(ring, i, 2, nb));
        CHECK(nb[0] == left(i) && nb[1] == right(i) && nb[2] == SENTINEL,
              "Graph_neighbors(%d) = %d %d", i, nb[0], nb[1]);
    }
    /* maxneighbors smaller than the degree: only that many written. */
    nb[0] = nb[1] = SENTINEL;
    OK(MPI_Graph_neighbors(ring, 0, 1, nb));
    CHECK(nb[0] == left(0) && nb[1] == SENTINEL, "Graph_neighbors max 1");
    OK(MPI_Graph_map(MPI_COMM_WORLD, wsize, index, edges, &newrank));
    CHECK(newrank == wrank, "Graph_map = %d", newrank);

    /* Neighbour collectives: order is the Graph_neighbors order. */
    sbuf[0] = wrank * 100;
    rbuf[0] = rbuf[1] = SENTINEL;
    OK(MPI_Neighbor_allgather(sbuf, 1, MPI_INT, rbuf, 1, MPI_INT, ring));
    CHECK(rbuf[0] == left(wrank) * 100 && rbuf[1] == right(wrank) * 100,
          "ring allgather: %d %d", rbuf[0], rbuf[1]);
    sbuf[0] = wrank * 100 + 0;   /* to my left neighbour */
    sbuf[1] = wrank * 100 + 1;   /* to my right neighbour */
    rbuf[0] = rbuf[1] = SENTINEL;
    OK(MPI_Neighbor_alltoall(sbuf, 1, MPI_INT, rbuf, 1, MPI_INT, ring));
    if (wsize >= 3) {
        /* My left neighbour sent me its block for its right, and so on. */
        CHECK(rbuf[0] == left(wrank) * 100 + 1 &&
              rbuf[1] == right(wrank) * 100 + 0,
              "ring alltoall: %d %d", rbuf[0], rbuf[1]);
    } else {
        /* Both edges join the same two processes (or loop): they pair up
         * in order, first with first. */
        CHECK(rbuf[0] == left(wrank) * 100 + 0 &&
              rbuf[1] == left(wrank) * 100 + 1,
              "ring alltoall (double edges): %d %d", rbuf[0], rbuf[1]);
    }

    OK(MPI_Comm_dup(ring, &dup));
    OK(MPI_Topo_test(dup, &st));
    OK(MPI_Graphdims_get(dup, &nn, &ne));
    CHECK(st == MPI_GRAPH && nn == wsize && ne == 2 * wsize,
          "duplicate of the ring: topo %d, %d nodes %d edges", st, nn, ne);
    rbuf[0] = rbuf[1] = SENTINEL;
    OK(MPI_Neighbor_allgather(sbuf, 1, MPI_INT, rbuf, 1, MPI_INT, dup));
    CHECK(rbuf[0] == left(wrank) * 100 && rbuf[1] == right(wrank) * 100,
          "allgather on the duplicate: %d %d", rbuf[0], rbuf[1]);
    OK(MPI_Comm_free(&dup));
    OK(MPI_Comm_free(&ring));
}

/* A star: node 0 joined to every other node. */
static void test_star(int nnodes)
{
    int index[MAXP], edges[2 * MAXP], i, ne = 0, cnt, nb[MAXP];
    int sbuf[MAXP], rbuf[MAXP], rcounts[MAXP], displs[MAXP];
    MPI_Comm star;

    for (i = 1; i < nnodes; i++) {
        edges[ne++] = i;
    }
    index[0] = ne;
    for (i = 1; i < nnodes; i++) {
        edges[ne++] = 0;
        index[i] = ne;
    }
    OK(MPI_Graph_create(MPI_COMM_WORLD, nnodes, index, edges, 0, &star));
    if (wrank >= nnodes) {
        CHECK(star == MPI_COMM_NULL, "rank outside the star got a comm");
        return;
    }
    CHECK(star != MPI_COMM_NULL, "star member got MPI_COMM_NULL");
    if (star == MPI_COMM_NULL) {
        return;
    }
    OK(MPI_Graph_neighbors_count(star, wrank, &cnt));
    CHECK(cnt == (wrank == 0 ? nnodes - 1 : 1), "star degree %d", cnt);
    OK(MPI_Graph_neighbors(star, wrank, MAXP, nb));
    for (i = 0; i < cnt; i++) {
        CHECK(nb[i] == (wrank == 0 ? i + 1 : 0), "star neighbour %d = %d", i,
              nb[i]);
    }
    /* allgatherv: the centre gets i + 1 ints from leaf i + 1. */
    for (i = 0; i <= wrank; i++) {
        sbuf[i] = wrank * 100 + i;
    }
    for (i = 0; i < MAXP; i++) {
        rbuf[i] = SENTINEL;
    }
    for (i = 0, ne = 0; i < cnt; i++) {
        rcounts[i] = nb[i] + 1;
        displs[i] = ne;
        ne += rcounts[i] + 1;
    }
    OK(MPI_Neighbor_allgatherv(sbuf, wrank + 1, MPI_INT, rbuf, rcounts,
                               displs, MPI_INT, star));
    for (i = 0; i < cnt; i++) {
        int e;

        for (e = 0; e < rcounts[i]; e++) {
            CHECK(rbuf[displs[i] + e] == nb[i] * 100 + e,
                  "star allgatherv from %d [%d] = %d", nb[i], e,
                  rbuf[displs[i] + e]);
        }
        CHECK(rbuf[displs[i] + rcounts[i]] == SENTINEL,
              "star allgatherv wrote past block %d", i);
    }
    OK(MPI_Comm_free(&star));
}

/* ---- distributed graphs -------------------------------------------------- */

/* A directed ring with both neighbours, built adjacently: in from left
 * (weight 10 * left + me) and right; out to right and left. */
static void test_dist_adjacent(int weighted)
{
    int srcs[2] = { left(wrank), right(wrank) };
    int dsts[2] = { right(wrank), left(wrank) };
    int sw[2], dw[2], in, out, w, gs[2], gsw[2], gd[2], gdw[2], st;
    int sbuf[2], rbuf[2];
    MPI_Comm dg, dup;

    /* The weight of edge a -> b is 10 * a + b at both ends. */
    sw[0] = 10 * srcs[0] + wrank;
    sw[1] = 10 * srcs[1] + wrank;
    dw[0] = 10 * wrank + dsts[0];
    dw[1] = 10 * wrank + dsts[1];
    OK(MPI_Dist_graph_create_adjacent(MPI_COMM_WORLD, 2, srcs,
                                      weighted ? sw : MPI_UNWEIGHTED, 2,
                                      dsts, weighted ? dw : MPI_UNWEIGHTED,
                                      MPI_INFO_NULL, 0, &dg));
    OK(MPI_Topo_test(dg, &st));
    CHECK(st == MPI_DIST_GRAPH, "adjacent Topo_test = %d", st);
    OK(MPI_Dist_graph_neighbors_count(dg, &in, &out, &w));
    CHECK(in == 2 && out == 2 && (w != 0) == (weighted != 0),
          "adjacent neighbours_count %d %d %d", in, out, w);
    OK(MPI_Dist_graph_neighbors(dg, 2, gs, weighted ? gsw : MPI_UNWEIGHTED,
                                2, gd, weighted ? gdw : MPI_UNWEIGHTED));
    CHECK(gs[0] == srcs[0] && gs[1] == srcs[1] && gd[0] == dsts[0] &&
          gd[1] == dsts[1], "adjacent neighbours differ");
    if (weighted) {
        CHECK(gsw[0] == sw[0] && gsw[1] == sw[1] && gdw[0] == dw[0] &&
              gdw[1] == dw[1], "adjacent weights differ");
    }
    /* alltoall: block k to dsts[k]; I get right's block for its left
     * from srcs[1] and left's block for its right from srcs[0]. */
    sbuf[0] = wrank * 100 + 0;   /* to right */
    sbuf[1] = wrank * 100 + 1;   /* to left */
    rbuf[0] = rbuf[1] = SENTINEL;
    OK(MPI_Neighbor_alltoall(sbuf, 1, MPI_INT, rbuf, 1, MPI_INT, dg));
    if (wsize >= 3) {
        CHECK(rbuf[0] == left(wrank) * 100 + 0 &&
              rbuf[1] == right(wrank) * 100 + 1,
              "adjacent alltoall: %d %d", rbuf[0], rbuf[1]);
    } else {
        CHECK(rbuf[0] == left(wrank) * 100 + 0 &&
              rbuf[1] == left(wrank) * 100 + 1,
              "adjacent alltoall (double edges): %d %d", rbuf[0], rbuf[1]);
    }
    OK(MPI_Comm_dup(dg, &dup));
    OK(MPI_Dist_graph_neighbors_count(dup, &in, &out, &w));
    OK(MPI_Dist_graph_neighbors(dup, 2, gs, weighted ? gsw : MPI_UNWEIGHTED,
                                2, gd, weighted ? gdw : MPI_UNWEIGHTED));
    CHECK(in == 2 && out == 2 && gs[0] == srcs[0] && gd[1] == dsts[1] &&
          (!weighted || gsw[1] == sw[1]), "duplicate dist graph differs");
    OK(MPI_Comm_free(&dup));
    OK(MPI_Comm_free(&dg));
}

static int cmp_pair(const void *a, const void *b)
{
    const int *x = a, *y = b;

    if (x[0] != y[0]) {
        return (x[0] > y[0]) - (x[0] < y[0]);
    }
    return (x[1] > y[1]) - (x[1] < y[1]);
}

/*
 * The general form: edges s -> s + 1 (weight 1) and s -> s + 2 (weight
 * 2) of every s, each given by process (s + 1) % p (who is not the edge's
 * source), or all by rank 0 (given_by_zero).
 */
static void test_dist_general(int given_by_zero, int weighted)
{
    int sources[MAXP], degrees[MAXP], dests[2 * MAXP], weights[2 * MAXP];
    int n = 0, ne = 0, s, i, in, out, w, st;
    int gs[4], gsw[4], gd[4], gdw[4], got[8], want[8];
    int sbuf[4], rbuf[4], rcounts[4], displs[4];
    MPI_Comm dg;

    for (s = 0; s < wsize; s++) {
        int giver = given_by_zero ? 0 : (s + 1) % wsize;

        if (giver != wrank) {
            continue;
        }
        sources[n] = s;
        degrees[n] = 2;
        n++;
        dests[ne] = (s + 1) % wsize;
        weights[ne++] = 1;
        dests[ne] = (s + 2) % wsize;
        weights[ne++] = 2;
    }
    OK(MPI_Dist_graph_create(MPI_COMM_WORLD, n, sources, degrees, dests,
                             weighted ? weights : MPI_UNWEIGHTED,
                             MPI_INFO_NULL, 1, &dg));
    OK(MPI_Topo_test(dg, &st));
    CHECK(st == MPI_DIST_GRAPH, "general Topo_test = %d", st);
    OK(MPI_Dist_graph_neighbors_count(dg, &in, &out, &w));
    CHECK(in == 2 && out == 2 && (w != 0) == (weighted != 0),
          "general neighbours_count %d %d %d", in, out, w);
    if (in != 2 || out != 2) {
        OK(MPI_Comm_free(&dg));
        return;
    }
    OK(MPI_Dist_graph_neighbors(dg, 4, gs, weighted ? gsw : MPI_UNWEIGHTED,
                                4, gd, weighted ? gdw : MPI_UNWEIGHTED));
    /* The order is the implementation's: compare sorted (rank, weight). */
    for (i = 0; i < 2; i++) {
        got[2 * i] = gs[i];
        got[2 * i + 1] = weighted ? gsw[i] : 0;
    }
    want[0] = (wrank + wsize - 1) % wsize;
    want[1] = weighted ? 1 : 0;
    want[2] = (wrank + 2 * wsize - 2) % wsize;
    want[3] = weighted ? 2 : 0;
    qsort(got, 2, 2 * sizeof(int), cmp_pair);
    qsort(want, 2, 2 * sizeof(int), cmp_pair);
    CHECK(memcmp(got, want, 4 * sizeof(int)) == 0,
          "general in-edges (%d w%d) (%d w%d), want (%d w%d) (%d w%d)",
          got[0], got[1], got[2], got[3], want[0], want[1], want[2],
          want[3]);
    for (i = 0; i < 2; i++) {
        got[2 * i] = gd[i];
        got[2 * i + 1] = weighted ? gdw[i] : 0;
    }
    want[0] = (wrank + 1) % wsize;
    want[1] = weighted ? 1 : 0;
    want[2] = (wrank + 2) % wsize;
    want[3] = weighted ? 2 : 0;
    qsort(got, 2, 2 * sizeof(int), cmp_pair);
    qsort(want, 2, 2 * sizeof(int), cmp_pair);
    CHECK(memcmp(got, want, 4 * sizeof(int)) == 0,
          "general out-edges (%d w%d) (%d w%d), want (%d w%d) (%d w%d)",
          got[0], got[1], got[2], got[3], want[0], want[1], want[2],
          want[3]);

    /* alltoall: the block to gd[k] says who sent it to whom, so the
     * check holds whatever order the edges came in. */
    for (i = 0; i < 2; i++) {
        sbuf[i] = wrank * 100 + gd[i];
        rbuf[i] = SENTINEL;
    }
    OK(MPI_Neighbor_alltoall(sbuf, 1, MPI_INT, rbuf, 1, MPI_INT, dg));
    for (i = 0; i < 2; i++) {
        CHECK(rbuf[i] == gs[i] * 100 + wrank,
              "general alltoall from %d = %d", gs[i], rbuf[i]);
    }
    /* allgatherv: two ints from each source, in reverse slots. */
    sbuf[0] = wrank;
    sbuf[1] = -wrank;
    for (i = 0; i < 4; i++) {
        rbuf[i] = SENTINEL;
    }
    rcounts[0] = rcounts[1] = 2;
    displs[0] = 2;
    displs[1] = 0;
    OK(MPI_Neighbor_allgatherv(sbuf, 2, MPI_INT, rbuf, rcounts, displs,
                               MPI_INT, dg));
    CHECK(rbuf[2] == gs[0] && rbuf[3] == -gs[0] && rbuf[0] == gs[1] &&
          rbuf[1] == -gs[1], "general allgatherv: %d %d %d %d", rbuf[0],
          rbuf[1], rbuf[2], rbuf[3]);
    OK(MPI_Comm_free(&dg));
}

/* A process with no edges at all: empty neighbourhoods, NULL arrays. */
static void test_dist_empty(void)
{
    int in, out, w, one = 1, src = 0, rbuf = SENTINEL;
    MPI_Comm dg;

    /* Only rank 0 -> rank 0 (a self-loop); everyone else is isolated. */
    OK(MPI_Dist_graph_create(MPI_COMM_WORLD, wrank == 0 ? 1 : 0, &src, &one,
                             &src, MPI_UNWEIGHTED, MPI_INFO_NULL, 0, &dg));
    OK(MPI_Dist_graph_neighbors_count(dg, &in, &out, &w));
    CHECK(in == (wrank == 0) && out == (wrank == 0) && w == 0,
          "self-loop graph counts %d %d %d", in, out, w);
    OK(MPI_Neighbor_allgatherv(&wrank, 1, MPI_INT, &rbuf,
                               wrank == 0 ? &one : NULL,
                               wrank == 0 ? &src : NULL, MPI_INT, dg));
    CHECK(rbuf == (wrank == 0 ? 0 : SENTINEL), "self-loop allgatherv %d",
          rbuf);
    OK(MPI_Comm_free(&dg));
}

int main(int argc, char **argv)
{
    mpitest_init(&argc, &argv, "topo_graph", 0);
    mpitest_world(&wrank, &wsize);
    if (wsize > MAXP) {
        if (wrank == 0) {
            printf("FAIL: at most %d processes\n", MAXP);
        }
        MPI_Finalize();
        return 1;
    }

    test_ring();
    test_star(wsize);
    if (wsize > 1) {
        test_star(wsize - 1);   /* the last process is left out */
    }
    test_dist_adjacent(1);
    test_dist_adjacent(0);
    test_dist_general(0, 1);
    test_dist_general(1, 1);
    test_dist_general(0, 0);
    test_dist_empty();

    if (mpitest_failures == 0 && wrank == 0) {
        printf("topo_graph: %d processes: all checks passed\n", wsize);
    }
    return mpitest_finish();
}

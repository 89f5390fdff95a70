/*
 * tests/mpi/topo_map.c: topologies that map (compat/mpi_topo_map.c,
 * mpi_topo_sgraph.c, mpi_topo_cart.c, mpi_topo_graph.c, mpi_topo_dist.c):
 * MPIX_Graph_create, MPIX_Cart_create and reorder in the MPI calls.
 *
 * Usage: topo_map                 every check, at any size and layout
 *        topo_map grid R C CUT    an R x C grid made with reorder 1 must
 *                                 cut CUT grid edges between hosts
 *                                 (judged with MPIX_Comm_level), and
 *                                 never more than with reorder 0
 *
 * The checks that depend on where processes sit hold on any layout: run
 * on one host (no mapping can gain: the identity) and on emulated hosts
 * laid out round-robin (gcrun --hosts a,b,a,b,...: the mapping moves
 * processes). Errors are returned (MPI_ERRORS_RETURN on the world).
 */
#include <mpi.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "topo_check.h"

static int wsize;

/* ---- helpers ---------------------------------------------------------------- */

static int cmp_int(const void *a, const void *b)
{
    int x = *(const int *)a, y = *(const int *)b;

    return (x > y) - (x < y);
}

/* Every process's value of x, in a malloc'd array. */
static int *gather_all(int x, MPI_Comm comm)
{
    int n;
    int *all;

    MPI_Comm_size(comm, &n);
    all = malloc((size_t)n * sizeof(int));
    MPI_Allgather(&x, 1, MPI_INT, all, 1, MPI_INT, comm);
    return all;
}

/* Is a[0..n-1] a permutation of 0..n-1? */
static int is_permutation(const int *a, int n)
{
    char *seen = calloc((size_t)n + 1, 1);
    int i, ok = 1;

    for (i = 0; i < n && ok; i++) {
        ok = a[i] >= 0 && a[i] < n && !seen[a[i]];
        if (ok) {
            seen[a[i]] = 1;
        }
    }
    free(seen);
    return ok;
}

/* Each process sends its rank to its graph neighbours: what arrives must
 * be exactly its neighbour list (both ends agree on every edge). */
static void check_lists_agree(MPI_Comm g, const char *what)
{
    int deg = 0, in, out, weighted, i, me;
    int *nbrs, *w, *got;

    MPI_Comm_rank(g, &me);
    OK(MPI_Dist_graph_neighbors_count(g, &in, &out, &weighted));
    deg = in;
    CHECK(in == out, "%s: in-degree %d, out-degree %d", what, in, out);
    nbrs = malloc(((size_t)deg + 1) * sizeof(int));
    w    = malloc(((size_t)deg + 1) * sizeof(int));
    got  = malloc(((size_t)deg + 1) * sizeof(int));
    OK(MPI_Dist_graph_neighbors(g, deg, nbrs, w, deg, nbrs, w));
    OK(MPI_Neighbor_allgather(&me, 1, MPI_INT, got, 1, MPI_INT, g));
    for (i = 0; i < deg; i++) {
        CHECK(got[i] == nbrs[i], "%s: neighbour %d sent %d", what, nbrs[i],
              got[i]);
    }
    free(nbrs);
    free(w);
    free(got);
}

/* ---- MPIX_Graph_create ------------------------------------------------------- */

/*
 * A ring given from one side only, with repeats: rank r lists r + 1
 * twice. The result has r - 1 and r + 1 as neighbours of weight 2 each
 * (one weight-4 neighbour at 2 processes, a self-loop of weight 2 at 1).
 */
static void test_sgraph_ring(int reorder)
{
    int nb[2] = { (wrank + 1) % wsize, (wrank + 1) % wsize };
    int status, nn, ne, cnt, in, out, weighted, me, i;
    int srcs[4], sw[4], dsts[4], dw[4];
    int want[2], wantw[2], nwant;
    MPI_Comm g;

    OK(MPIX_Graph_create(MPI_COMM_WORLD, 2, nb, reorder, MPI_INFO_NULL, &g));
    OK(MPI_Topo_test(g, &status));
    CHECK(status == MPI_GRAPH, "MPIX_Graph_create gave topology %d", status);
    MPI_Comm_rank(g, &me);
    if (!reorder) {
        CHECK(me == wrank, "reorder 0 moved rank %d to %d", wrank, me);
    }
    /* Node me's expected list (nodes are new ranks). */
    if (wsize == 1) {
        want[0] = 0;
        wantw[0] = 2;
        nwant = 1;
    } else if (wsize == 2) {
        want[0] = 1 - me;
        wantw[0] = 4;
        nwant = 1;
    } else {
        want[0] = (me + wsize - 1) % wsize;
        want[1] = (me + 1) % wsize;
        qsort(want, 2, sizeof(int), cmp_int);
        wantw[0] = wantw[1] = 2;
        nwant = 2;
    }
    OK(MPI_Graph_neighbors_count(g, me, &cnt));
    CHECK(cnt == nwant, "ring: %d neighbours, want %d", cnt, nwant);
    OK(MPI_Dist_graph_neighbors_count(g, &in, &out, &weighted));
    CHECK(in == nwant && out == nwant && weighted == 1,
          "ring: dist counts %d %d %d", in, out, weighted);
    OK(MPI_Dist_graph_neighbors(g, 4, srcs, sw, 4, dsts, dw));
    for (i = 0; i < nwant && i < in; i++) {
        CHECK(srcs[i] == want[i] && dsts[i] == want[i],
              "ring: neighbour %d is %d/%d, want %d", i, srcs[i], dsts[i],
              want[i]);
        CHECK(sw[i] == wantw[i] && dw[i] == wantw[i],
              "ring: weight %d is %d/%d, want %d", i, sw[i], dw[i],
              wantw[i]);
    }
    OK(MPI_Graphdims_get(g, &nn, &ne));
    CHECK(nn == wsize, "ring: %d nodes", nn);
    CHECK(ne == wsize * nwant, "ring: %d edges, want %d", ne, wsize * nwant);
    check_lists_agree(g, "ring");
    OK(MPI_Comm_free(&g));
}

/*
 * Many repeats: rank r lists r + 1 five times and r + 2 three times
 * (more entries than distinct neighbours). At 4 or more processes node
 * r's neighbours are r - 2, r - 1, r + 1, r + 2 with weights 3, 5, 5, 3.
 */
static void test_sgraph_repeats(int reorder)
{
    int nb[8], k, me, in, out, weighted, srcs[8], sw[8], dsts[8], dw[8];
    MPI_Comm g;

    for (k = 0; k < 8; k++) {
        nb[k] = (wrank + (k < 5 ? 1 : 2)) % wsize;
    }
    OK(MPIX_Graph_create(MPI_COMM_WORLD, 8, nb, reorder, MPI_INFO_NULL, &g));
    MPI_Comm_rank(g, &me);
    OK(MPI_Dist_graph_neighbors_count(g, &in, &out, &weighted));
    OK(MPI_Dist_graph_neighbors(g, 8, srcs, sw, 8, dsts, dw));
    if (wsize >= 5) {
        int want[4], wantw[4] = { 3, 5, 5, 3 };

        want[0] = (me + wsize - 2) % wsize;
        want[1] = (me + wsize - 1) % wsize;
        want[2] = (me + 1) % wsize;
        want[3] = (me + 2) % wsize;
        CHECK(in == 4, "repeats: %d neighbours, want 4", in);
        for (k = 0; k < 4 && k < in; k++) {
            int j, found = 0;

            for (j = 0; j < in; j++) {
                found |= srcs[j] == want[k] && sw[j] == wantw[k];
            }
            CHECK(found, "repeats: neighbour %d of weight %d missing", want[k],
                  wantw[k]);
        }
    } else {
        int total = 0;

        /* Fewer processes: the same weights, folded onto fewer
         * neighbours (a self-loop counts once). */
        for (k = 0; k < in; k++) {
            total += sw[k] * (srcs[k] == me ? 2 : 1);
        }
        CHECK(total == 16, "repeats: weights add up to %d, want 16", total);
    }
    check_lists_agree(g, "repeats");
    OK(MPI_Comm_free(&g));
}

/*
 * Degree -1 and 0, asymmetric input: ranks 2, 5, 8 stay out; rank 0
 * lists nobody; every other member lists rank 0 and, the first member
 * after it, the member before it. Rank 0 must see all the others.
 */
static void test_sgraph_members(void)
{
    int in_graph = (wsize < 3) || (wrank % 3 != 2);
    int *node_of = malloc((size_t)wsize * sizeof(int));
    int m = 0, r, nb[2] = { 0, 0 }, deg = 0, me, cnt, i, prev = -1;
    MPI_Comm g;

    for (r = 0; r < wsize; r++) {
        node_of[r] = ((wsize < 3) || (r % 3 != 2)) ? m++ : -1;
    }
    if (in_graph && wrank != 0) {
        nb[deg++] = 0;
        for (r = wrank - 1; r > 0; r--) {
            if (node_of[r] >= 0) {
                prev = r;
                break;
            }
        }
        if (prev > 0) {
            nb[deg++] = prev;
        }
    }
    OK(MPIX_Graph_create(MPI_COMM_WORLD, in_graph ? deg : -1, nb, 0,
                         MPI_INFO_NULL, &g));
    if (!in_graph) {
        CHECK(g == MPI_COMM_NULL, "degree -1 gave a communicator");
        free(node_of);
        return;
    }
    CHECK(g != MPI_COMM_NULL, "a member got MPI_COMM_NULL");
    if (g == MPI_COMM_NULL) {
        free(node_of);
        return;
    }
    MPI_Comm_rank(g, &me);
    MPI_Comm_size(g, &r);
    CHECK(r == m, "graph of %d members has size %d", m, r);
    CHECK(me == node_of[wrank], "member rank %d, want %d", me,
          node_of[wrank]);
    OK(MPI_Graph_neighbors_count(g, me, &cnt));
    if (wrank == 0) {
        int *nbrs = malloc((size_t)m * sizeof(int));

        /* Degree 0, yet everybody's neighbour. */
        CHECK(cnt == m - 1, "rank 0 has %d neighbours, want %d", cnt,
              m - 1);
        OK(MPI_Graph_neighbors(g, me, m, nbrs));
        for (i = 0; i < cnt && i < m - 1; i++) {
            CHECK(nbrs[i] == i + 1, "rank 0's neighbour %d is %d", i,
                  nbrs[i]);
        }
        free(nbrs);
    }
    check_lists_agree(g, "members");
    /* Another node's neighbours: only after MPI_Graph_get gathered. */
    if (m > 1) {
        int code = MPI_Graph_neighbors_count(g, (me + 1) % m, &cnt);

        EXPECT(MPI_ERR_TOPOLOGY, code);
        expect_text(code, "MPI_Graph_get");
    }
    {
        int nn, ne, *index, *edges, v, k, ok = 1;

        OK(MPI_Graphdims_get(g, &nn, &ne));
        index = malloc((size_t)nn * sizeof(int));
        edges = malloc(((size_t)ne + 1) * sizeof(int));
        OK(MPI_Graph_get(g, nn, ne, index, edges));
        CHECK(index[nn - 1] == ne, "Graph_get: index ends at %d, not %d",
              index[nn - 1], ne);
        /* Symmetric: v lists u iff u lists v. */
        for (v = 0; v < nn && ok; v++) {
            for (k = (v ? index[v - 1] : 0); k < index[v] && ok; k++) {
                int u = edges[k], j, found = 0;

                for (j = (u ? index[u - 1] : 0); j < index[u]; j++) {
                    found |= edges[j] == v;
                }
                ok = found;
                CHECK(found, "Graph_get: %d lists %d, not back", v, u);
            }
        }
        if (m > 1) {
            OK(MPI_Graph_neighbors_count(g, (me + 1) % m, &cnt));
            v = (me + 1) % m;
            CHECK(cnt == index[v] - (v ? index[v - 1] : 0),
                  "neighbours of %d after the gather: %d", v, cnt);
        }
        free(index);
        free(edges);
    }
    OK(MPI_Comm_free(&g));
    free(node_of);
}

/*
 * A reordered graph: the ring of test_sgraph_ring given both ways, with
 * reorder on odd ranks only; even ranks keep their rank. Data of every
 * base rank follows its node to the new rank (MPIX_Comm_map and
 * MPIX_Permute), and the new rank's list is its node's.
 */
static void test_sgraph_reordered(void)
{
    int nb[2] = { (wrank + 1) % wsize, (wrank + wsize - 1) % wsize };
    int reorder = wrank % 2, me, to, from, data[3], got[3], k, rel;
    int *ranks;
    MPI_Comm g;

    OK(MPIX_Graph_create(MPI_COMM_WORLD, 2, nb, reorder, MPI_INFO_NULL, &g));
    MPI_Comm_rank(g, &me);
    if (!reorder) {
        CHECK(me == wrank, "fixed rank %d moved to %d", wrank, me);
    }
    ranks = gather_all(me, MPI_COMM_WORLD);
    CHECK(is_permutation(ranks, wsize), "new ranks are no permutation");
    free(ranks);
    check_lists_agree(g, "reordered ring");
    rel = -1;
    OK(MPIX_Comm_relate(g, MPI_COMM_WORLD, &rel));
    CHECK(rel == MPI_CONGRUENT || rel == MPI_SIMILAR,
          "a reordered graph of all relates %d", rel);

    /* Base rank r's block goes to new rank r. */
    OK(MPIX_Comm_map(MPI_COMM_WORLD, g, &to, &from));
    for (k = 0; k < 3; k++) {
        data[k] = 100 * wrank + k;
        got[k] = -1;
    }
    OK(MPIX_Permute(got, 3, MPI_INT, from, data, 3, MPI_INT, to,
                    MPI_COMM_WORLD));
    for (k = 0; k < 3; k++) {
        CHECK(got[k] == 100 * me + k, "permuted element %d: %d, want %d", k,
              got[k], 100 * me + k);
    }
    OK(MPI_Comm_free(&g));
}

/* ---- Cartesian grids ---------------------------------------------------------- */

/*
 * reorder 1 on a grid of all but one process (when there are 3 or
 * more): MPI_Cart_map on every process gives the ranks
 * MPI_Cart_create gives (the same mapping everywhere, no message), and
 * the data moves to them.
 */
static void test_cart_reorder(void)
{
    int n = (wsize >= 3) ? wsize - 1 : wsize;
    int dims[2] = { 0, 0 }, per[2] = { 0, 0 }, mapped, me = -1, *all;
    int to, from, data[2], got[2], k, rel;
    MPI_Comm cart;

    MPI_Dims_create(n, 2, dims);
    OK(MPI_Cart_map(MPI_COMM_WORLD, 2, dims, per, &mapped));
    OK(MPI_Cart_create(MPI_COMM_WORLD, 2, dims, per, 1, &cart));
    if (cart != MPI_COMM_NULL) {
        MPI_Comm_rank(cart, &me);
    } else {
        CHECK(wrank >= n, "rank %d of a %d-process grid got no grid", wrank,
              n);
    }
    CHECK(me == (mapped == MPI_UNDEFINED ? -1 : mapped),
          "MPI_Cart_map %d, MPI_Cart_create %d", mapped, me);
    all = gather_all(me, MPI_COMM_WORLD);
    CHECK(is_permutation(all, n), "grid ranks are no permutation of 0..%d",
          n - 1);
    free(all);
    if (cart != MPI_COMM_NULL) {
        OK(MPIX_Comm_relate(cart, MPI_COMM_WORLD, &rel));
        if (n < wsize) {
            CHECK(rel == MPIX_SUBCOMM || rel == MPIX_SUBCOMM_STRICT,
                  "a grid of %d of %d processes relates %d", n, wsize, rel);
        } else {
            CHECK(rel == MPI_CONGRUENT || rel == MPI_SIMILAR,
                  "a grid of all processes relates %d", rel);
        }
    }
    OK(MPIX_Comm_map(MPI_COMM_WORLD, cart, &to, &from));
    data[0] = wrank;
    data[1] = -wrank;
    got[0] = got[1] = 12345;
    OK(MPIX_Permute(got, 2, MPI_INT, from, data, 2, MPI_INT, to,
                    MPI_COMM_WORLD));
    if (me >= 0) {
        CHECK(got[0] == me && got[1] == -me, "grid rank %d got %d, %d", me,
              got[0], got[1]);
    } else {
        CHECK(got[0] == 12345, "a process outside the grid got data");
    }
    for (k = 0; k < 2 && cart != MPI_COMM_NULL; k++) {
        int src, dst;

        OK(MPI_Cart_shift(cart, k, 1, &src, &dst));
    }
    if (cart != MPI_COMM_NULL) {
        OK(MPI_Comm_free(&cart));
    }
}

/* MPIX_Cart_create: loads and diagonals are local hints; processes with
 * reorder 0 keep their rank. */
static void test_mpix_cart(void)
{
    int dims[2] = { 0, 0 }, per[2] = { 1, 0 }, me, status, nd;
    int mult[4] = { 5, 1, 2, 0 }, cd[2], cp[2], cc[2];
    MPI_Comm cart;
    MPI_Info info;

    MPI_Dims_create(wsize, 2, dims);
    MPI_Info_create(&info);
    MPI_Info_set(info, "gencomm_map_time", "0.05");
    OK(MPIX_Cart_create(MPI_COMM_WORLD, 2, dims, per, wrank % 2,
                        (wrank % 3 == 0) ? NULL : mult, wrank % 2, info,
                        &cart));
    MPI_Info_free(&info);
    MPI_Comm_rank(cart, &me);
    if (wrank % 2 == 0) {
        CHECK(me == wrank, "reorder 0 moved rank %d to %d", wrank, me);
    }
    OK(MPI_Topo_test(cart, &status));
    CHECK(status == MPI_CART, "MPIX_Cart_create gave topology %d", status);
    OK(MPI_Cartdim_get(cart, &nd));
    OK(MPI_Cart_get(cart, 2, cd, cp, cc));
    CHECK(nd == 2 && cd[0] == dims[0] && cd[1] == dims[1] && cp[0] == 1 &&
          cp[1] == 0, "MPIX_Cart_create's grid is %d: %d x %d", nd, cd[0],
          cd[1]);
    OK(MPI_Comm_free(&cart));

    /* The identity when asked. */
    MPI_Info_create(&info);
    MPI_Info_set(info, "gencomm_map", "identity");
    OK(MPIX_Cart_create(MPI_COMM_WORLD, 2, dims, per, 1, NULL, 1, info,
                        &cart));
    MPI_Comm_rank(cart, &me);
    CHECK(me == wrank, "gencomm_map identity moved rank %d to %d", wrank, me);
    OK(MPI_Comm_free(&cart));
    MPI_Info_free(&info);
}

/* ---- MPI_Graph_create and distributed graphs with reorder -------------------- */

static void test_graph_reorder(void)
{
    int *index = malloc((size_t)wsize * sizeof(int));
    int *edges = malloc(2 * (size_t)wsize * sizeof(int));
    int v, k = 0, mapped, me, *all, in, out, w;
    MPI_Comm g, dg;
    int src[1], dst[1];

    /* A ring (both directions listed). */
    for (v = 0; v < wsize; v++) {
        edges[k++] = (v + 1) % wsize;
        edges[k++] = (v + wsize - 1) % wsize;
        index[v] = k;
    }
    OK(MPI_Graph_map(MPI_COMM_WORLD, wsize, index, edges, &mapped));
    OK(MPI_Graph_create(MPI_COMM_WORLD, wsize, index, edges, 1, &g));
    MPI_Comm_rank(g, &me);
    CHECK(me == mapped, "MPI_Graph_map %d, MPI_Graph_create %d", mapped, me);
    all = gather_all(me, MPI_COMM_WORLD);
    CHECK(is_permutation(all, wsize), "graph ranks are no permutation");
    free(all);
    check_lists_agree(g, "MPI_Graph_create reordered");
    OK(MPI_Comm_free(&g));

    /* The same ring as a distributed graph, both forms. */
    src[0] = (wrank + wsize - 1) % wsize;
    dst[0] = (wrank + 1) % wsize;
    OK(MPI_Dist_graph_create_adjacent(MPI_COMM_WORLD, 1, src, MPI_UNWEIGHTED,
                                      1, dst, MPI_UNWEIGHTED, MPI_INFO_NULL,
                                      1, &dg));
    MPI_Comm_rank(dg, &me);
    all = gather_all(me, MPI_COMM_WORLD);
    CHECK(is_permutation(all, wsize), "dist graph ranks are no permutation");
    free(all);
    OK(MPI_Dist_graph_neighbors_count(dg, &in, &out, &w));
    OK(MPI_Dist_graph_neighbors(dg, 1, src, MPI_UNWEIGHTED, 1, dst,
                                MPI_UNWEIGHTED));
    CHECK(in == 1 && out == 1 && src[0] == (me + wsize - 1) % wsize &&
          dst[0] == (me + 1) % wsize, "adjacent ring at new rank %d: "
          "%d <- %d, -> %d", me, in, src[0], dst[0]);
    {
        int sent = me, recv = -1;

        OK(MPI_Neighbor_alltoall(&sent, 1, MPI_INT, &recv, 1, MPI_INT, dg));
        CHECK(recv == src[0], "ring neighbour sent %d, want %d", recv,
              src[0]);
    }
    OK(MPI_Comm_free(&dg));
    {
        int one = 1, d = (wrank + 1) % wsize, wt = 3;

        OK(MPI_Dist_graph_create(MPI_COMM_WORLD, 1, &wrank, &one, &d, &wt,
                                 MPI_INFO_NULL, 1, &dg));
        MPI_Comm_rank(dg, &me);
        OK(MPI_Dist_graph_neighbors_count(dg, &in, &out, &w));
        OK(MPI_Dist_graph_neighbors(dg, 1, src, &w, 1, dst, &k));
        CHECK(in == 1 && out == 1 && src[0] == (me + wsize - 1) % wsize &&
              dst[0] == (me + 1) % wsize && w == 3 && k == 3,
              "dist ring at new rank %d: %d <- %d, -> %d (weights %d %d)",
              me, in, src[0], dst[0], w, k);
        OK(MPI_Comm_free(&dg));
    }
    free(index);
    free(edges);
}

/* ---- errors --------------------------------------------------------------------- */

static void test_errors(void)
{
    int nb[2] = { 0, wsize }, dims[2] = { wsize, 1 }, per[2] = { 0, 0 };
    int mult[2] = { 1, -1 }, code;
    MPI_Comm c = MPI_COMM_NULL;
    MPI_Info info;

    /* Bad arguments on rank 0 fail the call on every process. */
    code = MPIX_Graph_create(MPI_COMM_WORLD, wrank == 0 ? -2 : 0, nb, 0,
                             MPI_INFO_NULL, &c);
    EXPECT(MPI_ERR_ARG, code);
    expect_text(code, "MPIX_Graph_create");
    CHECK(c == MPI_COMM_NULL, "a failed MPIX_Graph_create gave a comm");
    code = MPIX_Graph_create(MPI_COMM_WORLD, wrank == 0 ? 2 : 0, nb, 0,
                             MPI_INFO_NULL, &c);
    EXPECT(MPI_ERR_RANK, code);
    if (wrank == 0) {
        expect_text(code, "not a rank");
    }
    EXPECT(MPI_ERR_ARG, MPIX_Graph_create(MPI_COMM_WORLD, 1, NULL, 0,
                                          MPI_INFO_NULL, &c));
    EXPECT(MPI_ERR_ARG, MPIX_Graph_create(MPI_COMM_WORLD, 0, NULL, 0,
                                          MPI_INFO_NULL, NULL));
    EXPECT(MPI_ERR_COMM, MPIX_Graph_create(MPI_COMM_NULL, 0, NULL, 0,
                                           MPI_INFO_NULL, &c));
    /* Listing a process that stays out (rank 0 with -1). */
    if (wsize > 1) {
        nb[0] = 0;
        code = MPIX_Graph_create(MPI_COMM_WORLD, wrank == 0 ? -1 : 1, nb, 0,
                                 MPI_INFO_NULL, &c);
        EXPECT(MPI_ERR_RANK, code);
        expect_text(code, "degree -1");
        code = MPIX_Graph_create(MPI_COMM_WORLD, wrank == 0 ? -1 : 1, nb, 1,
                                 MPI_INFO_NULL, &c);
        EXPECT(MPI_ERR_RANK, code);
    }
    MPI_Info_create(&info);
    MPI_Info_set(info, "gencomm_map", "magic");
    EXPECT(MPI_ERR_INFO_VALUE, MPIX_Graph_create(MPI_COMM_WORLD, 0, NULL, 1,
                                                 info, &c));
    MPI_Info_set(info, "gencomm_map", "scotch");
    MPI_Info_set(info, "gencomm_map_time", "soon");
    EXPECT(MPI_ERR_INFO_VALUE, MPIX_Cart_create(MPI_COMM_WORLD, 2, dims, per,
                                                0, NULL, 1, info, &c));
    MPI_Info_free(&info);

    /* Grids: mismatched dims fail everywhere (no hang). */
    if (wsize > 1) {
        int d0[2] = { wsize, 1 }, d1[2] = { 1, wsize };

        code = MPI_Cart_create(MPI_COMM_WORLD, 2, wrank == 0 ? d0 : d1, per,
                               0, &c);
        EXPECT(MPI_ERR_DIMS, code);
        expect_text(code, "differ");
        code = MPIX_Cart_create(MPI_COMM_WORLD, 2, wrank == 0 ? d0 : d1, per,
                                0, NULL, 1, MPI_INFO_NULL, &c);
        EXPECT(MPI_ERR_DIMS, code);
        per[1] = (wrank == wsize - 1);
        EXPECT(MPI_ERR_DIMS, MPI_Cart_create(MPI_COMM_WORLD, 2, d0, per, 1,
                                             &c));
        per[1] = 0;
        /* ndims agrees, but one process passes a negative one. */
        EXPECT(MPI_ERR_DIMS, MPIX_Cart_create(MPI_COMM_WORLD,
                                              wrank == 0 ? -1 : 2, dims, per,
                                              0, NULL, 0, MPI_INFO_NULL,
                                              &c));
    }
    EXPECT(MPI_ERR_DIMS, MPIX_Cart_create(MPI_COMM_WORLD, -1, dims, per, 0,
                                          NULL, 0, MPI_INFO_NULL, &c));
    EXPECT(MPI_ERR_ARG, MPIX_Cart_create(MPI_COMM_WORLD, 2, NULL, per, 0,
                                         NULL, 0, MPI_INFO_NULL, &c));
    EXPECT(MPI_ERR_ARG, MPIX_Cart_create(MPI_COMM_WORLD, 2, dims, per, 0,
                                         mult, 1, MPI_INFO_NULL, &c));
    {
        int d7[7] = { wsize, 1, 1, 1, 1, 1, 1 }, p7[7] = { 0 };

        EXPECT(MPI_ERR_DIMS, MPIX_Cart_create(MPI_COMM_WORLD, 7, d7, p7, 1,
                                              NULL, 1, MPI_INFO_NULL, &c));
        /* Without diagonals, 7 dimensions are fine. */
        OK(MPIX_Cart_create(MPI_COMM_WORLD, 7, d7, p7, 0, NULL, 1,
                            MPI_INFO_NULL, &c));
        OK(MPI_Comm_free(&c));
    }
    CHECK(c == MPI_COMM_NULL, "a failed call gave a communicator");
}

/* ---- grid mode ----------------------------------------------------------------- */

/* Grid edges (each once) whose ends are on different hosts. */
static int host_cut(MPI_Comm cart, int ndims)
{
    int me, d, cut = 0, total = 0;

    MPI_Comm_rank(cart, &me);
    for (d = 0; d < ndims; d++) {
        int src, dst, level;

        MPI_Cart_shift(cart, d, 1, &src, &dst);
        if (dst != MPI_PROC_NULL) {
            MPIX_Comm_level(cart, me, dst, &level);
            cut += (level == 0);
        }
    }
    MPI_Allreduce(&cut, &total, 1, MPI_INT, MPI_SUM, cart);
    return total;
}

static void grid_mode(int R, int C, int want)
{
    int dims[2] = { R, C }, per[2] = { 0, 0 }, plain, mapped;
    MPI_Comm c0, c1;

    OK(MPI_Cart_create(MPI_COMM_WORLD, 2, dims, per, 0, &c0));
    OK(MPI_Cart_create(MPI_COMM_WORLD, 2, dims, per, 1, &c1));
    if (c0 == MPI_COMM_NULL) {
        return;
    }
    plain  = host_cut(c0, 2);
    mapped = host_cut(c1, 2);
    if (wrank == 0) {
        printf("topo_map: %d x %d grid: %d edges between hosts with "
               "reorder 0, %d with reorder 1\n", R, C, plain, mapped);
    }
    CHECK(mapped == want, "%d x %d grid with reorder: %d edges between "
          "hosts, want %d", R, C, mapped, want);
    CHECK(mapped <= plain, "reordering cut more (%d) than the identity "
          "(%d)", mapped, plain);
    OK(MPI_Comm_free(&c0));
    OK(MPI_Comm_free(&c1));
}

int main(int argc, char **argv)
{
    mpitest_init(&argc, &argv, "topo_map", 1);
    wrank = mpitest_rank;
    wsize = mpitest_size;

    if (argc == 5 && strcmp(argv[1], "grid") == 0) {
        grid_mode(atoi(argv[2]), atoi(argv[3]), atoi(argv[4]));
    } else {
        test_sgraph_ring(0);
        test_sgraph_ring(1);
        test_sgraph_repeats(0);
        test_sgraph_repeats(1);
        test_sgraph_members();
        test_sgraph_reordered();
        test_cart_reorder();
        test_mpix_cart();
        test_graph_reorder();
        test_errors();
    }
    return mpitest_finish();
}

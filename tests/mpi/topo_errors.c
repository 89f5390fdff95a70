/*
 * tests/mpi/topo_errors.c: bad arguments to the topology calls return the
 * right error class under MPI_ERRORS_RETURN (set on MPI_COMM_WORLD before
 * anything is created, so that the topology communicators inherit it), and
 * nothing is created by a failed call. Run at 1 and 3 processes.
 */
#include "mpitest.h"

#include <ctype.h>

static void test_dims(void)
{
    int d2[2] = { 5, 0 }, d3[2] = { 3, 3 }, dn[2] = { -1, 0 };
    int dz[2] = { 0, 0 };

    EXPECT(MPI_ERR_DIMS, MPI_Dims_create(12, 2, d2));  /* 5 !| 12 */
    EXPECT(MPI_ERR_DIMS, MPI_Dims_create(12, 2, d3));  /* 9 != 12 */
    EXPECT(MPI_ERR_DIMS, MPI_Dims_create(12, 2, dn));
    EXPECT(MPI_ERR_DIMS, MPI_Dims_create(12, -1, dz));
    EXPECT(MPI_ERR_ARG, MPI_Dims_create(0, 2, dz));
    EXPECT(MPI_ERR_ARG, MPI_Dims_create(-4, 2, dz));
    /* Unchanged by the failures. */
    CHECK(d2[1] == 0 && dz[0] == 0 && dz[1] == 0,
          "failed Dims_create changed dims");
}

static void test_cart(void)
{
    int dims[2] = { mpitest_size, 1 }, per[2] = { 0, 1 };
    int big[2] = { mpitest_size + 1, 1 };
    int zero[2] = { 0, 1 }, c[2], r, src, dst, gd[2], gp[2];
    int remain[2] = { 1, 0 };
    MPI_Comm cart = MPI_COMM_NULL, bad = MPI_COMM_NULL;

    EXPECT(MPI_ERR_DIMS, MPI_Cart_create(MPI_COMM_WORLD, -1, dims, per, 0,
                                         &bad));
    EXPECT(MPI_ERR_DIMS, MPI_Cart_create(MPI_COMM_WORLD, 2, big, per, 0,
                                         &bad));
    EXPECT(MPI_ERR_DIMS, MPI_Cart_create(MPI_COMM_WORLD, 2, zero, per, 0,
                                         &bad));
    EXPECT(MPI_ERR_COMM, MPI_Cart_create(MPI_COMM_NULL, 2, dims, per, 0,
                                         &bad));
    CHECK(bad == MPI_COMM_NULL, "failed Cart_create gave a communicator");
    EXPECT(MPI_ERR_DIMS, MPI_Cart_map(MPI_COMM_WORLD, 2, big, per, &r));

    /* No topology on the world. */
    EXPECT(MPI_ERR_TOPOLOGY, MPI_Cart_coords(MPI_COMM_WORLD, 0, 2, c));
    EXPECT(MPI_ERR_TOPOLOGY, MPI_Cart_shift(MPI_COMM_WORLD, 0, 1, &src,
                                            &dst));
    EXPECT(MPI_ERR_TOPOLOGY, MPI_Cartdim_get(MPI_COMM_WORLD, &r));
    EXPECT(MPI_ERR_TOPOLOGY, MPI_Cart_sub(MPI_COMM_WORLD, remain, &bad));

    OK(MPI_Cart_create(MPI_COMM_WORLD, 2, dims, per, 0, &cart));
    EXPECT(MPI_ERR_RANK, MPI_Cart_coords(cart, mpitest_size, 2, c));
    EXPECT(MPI_ERR_RANK, MPI_Cart_coords(cart, -1, 2, c));
    EXPECT(MPI_ERR_ARG, MPI_Cart_coords(cart, 0, 1, c));   /* maxdims */
    c[0] = mpitest_size;   /* off the non-periodic dimension */
    c[1] = 0;
    EXPECT(MPI_ERR_ARG, MPI_Cart_rank(cart, c, &r));
    c[0] = -1;
    EXPECT(MPI_ERR_ARG, MPI_Cart_rank(cart, c, &r));
    c[0] = 0;
    c[1] = 5;       /* the periodic one wraps: fine */
    OK(MPI_Cart_rank(cart, c, &r));
    CHECK(r == 0, "wrapped Cart_rank = %d", r);
    EXPECT(MPI_ERR_ARG, MPI_Cart_shift(cart, 2, 1, &src, &dst));
    EXPECT(MPI_ERR_ARG, MPI_Cart_shift(cart, -1, 1, &src, &dst));
    EXPECT(MPI_ERR_ARG, MPI_Cart_get(cart, 1, gd, gp, c));
    /* A Cartesian communicator is not a graph. */
    EXPECT(MPI_ERR_TOPOLOGY, MPI_Graphdims_get(cart, &r, &src));
    EXPECT(MPI_ERR_TOPOLOGY, MPI_Dist_graph_neighbors_count(cart, &r, &src,
                                                            &dst));
    OK(MPI_Comm_free(&cart));
}

static void test_graph(void)
{
    int index[2] = { 1, 2 }, edges[2] = { 1, 0 }, badedges[2] = { 1, 2 };
    int badindex[2] = { 2, 1 }, cnt, nb[2], r;
    MPI_Comm g = MPI_COMM_NULL, bad = MPI_COMM_NULL;

    EXPECT(MPI_ERR_ARG, MPI_Graph_create(MPI_COMM_WORLD, mpitest_size + 1,
                                         index, edges, 0, &bad));
    EXPECT(MPI_ERR_ARG, MPI_Graph_create(MPI_COMM_WORLD, -1, index, edges,
                                         0, &bad));
    if (mpitest_size >= 2) {
        EXPECT(MPI_ERR_ARG, MPI_Graph_create(MPI_COMM_WORLD, 2, index,
                                             badedges, 0, &bad));
        EXPECT(MPI_ERR_ARG, MPI_Graph_create(MPI_COMM_WORLD, 2, badindex,
                                             edges, 0, &bad));
        EXPECT(MPI_ERR_ARG, MPI_Graph_map(MPI_COMM_WORLD, 2, index,
                                          badedges, &r));
    }
    CHECK(bad == MPI_COMM_NULL, "failed Graph_create gave a communicator");
    EXPECT(MPI_ERR_TOPOLOGY, MPI_Graph_neighbors_count(MPI_COMM_WORLD, 0,
                                                       &cnt));
    if (mpitest_size >= 2) {
        OK(MPI_Graph_create(MPI_COMM_WORLD, 2, index, edges, 0, &g));
        if (g != MPI_COMM_NULL) {
            EXPECT(MPI_ERR_RANK, MPI_Graph_neighbors_count(g, 2, &cnt));
            EXPECT(MPI_ERR_RANK, MPI_Graph_neighbors(g, -1, 2, nb));
            EXPECT(MPI_ERR_TOPOLOGY, MPI_Cart_shift(g, 0, 1, &r, &cnt));
            OK(MPI_Comm_free(&g));
        }
    }
    /* No nodes: MPI_COMM_NULL everywhere, not an error. */
    OK(MPI_Graph_create(MPI_COMM_WORLD, 0, index, edges, 0, &g));
    CHECK(g == MPI_COMM_NULL, "empty graph gave a communicator");
}

static void test_dist(void)
{
    int srcs[1] = { mpitest_size }, good[1] = { 0 }, negw[1] = { -3 };
    int w1[1] = { 1 }, deg[1] = { 1 }, negdeg[1] = { -1 };
    MPI_Comm bad = MPI_COMM_NULL;

    EXPECT(MPI_ERR_RANK, MPI_Dist_graph_create_adjacent(
               MPI_COMM_WORLD, 1, srcs, MPI_UNWEIGHTED, 0, NULL,
               MPI_UNWEIGHTED, MPI_INFO_NULL, 0, &bad));
    EXPECT(MPI_ERR_ARG, MPI_Dist_graph_create_adjacent(
               MPI_COMM_WORLD, -1, good, MPI_UNWEIGHTED, 0, NULL,
               MPI_UNWEIGHTED, MPI_INFO_NULL, 0, &bad));
    EXPECT(MPI_ERR_ARG, MPI_Dist_graph_create_adjacent(
               MPI_COMM_WORLD, 1, good, negw, 1, good, w1, MPI_INFO_NULL, 0,
               &bad));
    EXPECT(MPI_ERR_ARG, MPI_Dist_graph_create(
               MPI_COMM_WORLD, 1, good, negdeg, good, MPI_UNWEIGHTED,
               MPI_INFO_NULL, 0, &bad));
    EXPECT(MPI_ERR_RANK, MPI_Dist_graph_create(
               MPI_COMM_WORLD, 1, good, deg, srcs, MPI_UNWEIGHTED,
               MPI_INFO_NULL, 0, &bad));
    EXPECT(MPI_ERR_RANK, MPI_Dist_graph_create(
               MPI_COMM_WORLD, 1, srcs, deg, good, MPI_UNWEIGHTED,
               MPI_INFO_NULL, 0, &bad));
    EXPECT(MPI_ERR_ARG, MPI_Dist_graph_create(
               MPI_COMM_WORLD, 1, good, deg, good, negw, MPI_INFO_NULL, 0,
               &bad));
    CHECK(bad == MPI_COMM_NULL, "failed dist graph call gave a communicator");
    EXPECT(MPI_ERR_TOPOLOGY, MPI_Dist_graph_neighbors(MPI_COMM_WORLD, 0,
                                                      NULL, NULL, 0, NULL,
                                                      NULL));
}

static void test_neighbor(void)
{
    int dims[1] = { mpitest_size }, per[1] = { 1 }, s[2] = { 0, 0 }, r[4];
    MPI_Comm cart;

    EXPECT(MPI_ERR_TOPOLOGY, MPI_Neighbor_allgather(s, 1, MPI_INT, r, 1,
                                                    MPI_INT, MPI_COMM_WORLD));
    EXPECT(MPI_ERR_COMM, MPI_Neighbor_alltoall(s, 1, MPI_INT, r, 1, MPI_INT,
                                               MPI_COMM_NULL));
    OK(MPI_Cart_create(MPI_COMM_WORLD, 1, dims, per, 0, &cart));
    EXPECT(MPI_ERR_COUNT, MPI_Neighbor_allgather(s, -1, MPI_INT, r, 1,
                                                 MPI_INT, cart));
    EXPECT(MPI_ERR_COUNT, MPI_Neighbor_alltoall(s, 1, MPI_INT, r, -2,
                                                MPI_INT, cart));
    EXPECT(MPI_ERR_TYPE, MPI_Neighbor_alltoall(s, 1, MPI_DATATYPE_NULL, r,
                                               1, MPI_INT, cart));
    EXPECT(MPI_ERR_BUFFER, MPI_Neighbor_allgather(MPI_IN_PLACE, 1, MPI_INT,
                                                  r, 1, MPI_INT, cart));
    /* After the refused calls, a good one still works (no half-posted
     * messages left to confuse it). */
    s[0] = mpitest_rank;
    r[0] = r[1] = -1;
    OK(MPI_Neighbor_allgather(s, 1, MPI_INT, r, 1, MPI_INT, cart));
    CHECK(r[0] == (mpitest_rank + mpitest_size - 1) % mpitest_size &&
              r[1] == (mpitest_rank + 1) % mpitest_size,
          "allgather after errors: %d %d", r[0], r[1]);
    OK(MPI_Comm_free(&cart));
}

/* rc is MPI_ERR_COMM and its text names call itself (not a longer name
 * that starts with it). */
static void expect_comm_err(int line, int rc, const char *call)
{
    char text[MPI_MAX_ERROR_STRING] = "";
    const char *at;
    int len = 0, cls = -1;

    MPI_Error_class(rc, &cls);
    MPI_Error_string(rc, text, &len);
    at = strstr(text, call);
    while (at != NULL && (at[strlen(call)] == '_' ||
                          isalnum((unsigned char)at[strlen(call)]))) {
        at = strstr(at + 1, call);
    }
    if (cls != MPI_ERR_COMM || at == NULL) {
        mpitest_fail(line, "%s on MPI_COMM_NULL: class %d, text \"%s\"",
                     call, cls, text);
    }
}

#define EXPECT_NBR(call, ...)                                                \
    expect_comm_err(__LINE__, call(__VA_ARGS__), #call)

/* Each of the fifteen neighbour collectives raises under its own name. */
static void test_neighbor_names(void)
{
    int s[2] = { 0, 0 }, r[2], cnt[1] = { 1 }, dis[1] = { 0 };
    MPI_Aint bdis[1] = { 0 };
    MPI_Datatype ty[1] = { MPI_INT };
    MPI_Comm c = MPI_COMM_NULL;
    MPI_Request q;

    EXPECT_NBR(MPI_Neighbor_allgather, s, 1, MPI_INT, r, 1, MPI_INT, c);
    EXPECT_NBR(MPI_Ineighbor_allgather, s, 1, MPI_INT, r, 1, MPI_INT, c, &q);
    EXPECT_NBR(MPI_Neighbor_allgather_init, s, 1, MPI_INT, r, 1, MPI_INT, c,
               MPI_INFO_NULL, &q);
    EXPECT_NBR(MPI_Neighbor_allgatherv, s, 1, MPI_INT, r, cnt, dis, MPI_INT,
               c);
    EXPECT_NBR(MPI_Ineighbor_allgatherv, s, 1, MPI_INT, r, cnt, dis,
               MPI_INT, c, &q);
    EXPECT_NBR(MPI_Neighbor_allgatherv_init, s, 1, MPI_INT, r, cnt, dis,
               MPI_INT, c, MPI_INFO_NULL, &q);
    EXPECT_NBR(MPI_Neighbor_alltoall, s, 1, MPI_INT, r, 1, MPI_INT, c);
    EXPECT_NBR(MPI_Ineighbor_alltoall, s, 1, MPI_INT, r, 1, MPI_INT, c, &q);
    EXPECT_NBR(MPI_Neighbor_alltoall_init, s, 1, MPI_INT, r, 1, MPI_INT, c,
               MPI_INFO_NULL, &q);
    EXPECT_NBR(MPI_Neighbor_alltoallv, s, cnt, dis, MPI_INT, r, cnt, dis,
               MPI_INT, c);
    EXPECT_NBR(MPI_Ineighbor_alltoallv, s, cnt, dis, MPI_INT, r, cnt, dis,
               MPI_INT, c, &q);
    EXPECT_NBR(MPI_Neighbor_alltoallv_init, s, cnt, dis, MPI_INT, r, cnt,
               dis, MPI_INT, c, MPI_INFO_NULL, &q);
    EXPECT_NBR(MPI_Neighbor_alltoallw, s, cnt, bdis, ty, r, cnt, bdis, ty,
               c);
    EXPECT_NBR(MPI_Ineighbor_alltoallw, s, cnt, bdis, ty, r, cnt, bdis, ty,
               c, &q);
    EXPECT_NBR(MPI_Neighbor_alltoallw_init, s, cnt, bdis, ty, r, cnt, bdis,
               ty, c, MPI_INFO_NULL, &q);
}

/* Topologies live on intracommunicators only. */
static void test_inter(void)
{
    int dims[1] = { 1 }, per[1] = { 0 }, st = -1, s = 0, r[2];
    MPI_Comm half, inter, bad = MPI_COMM_NULL;
    int low = (mpitest_rank < mpitest_size / 2);

    if (mpitest_size < 2) {
        return;
    }
    OK(MPI_Comm_split(MPI_COMM_WORLD, low, mpitest_rank, &half));
    OK(MPI_Intercomm_create(half, 0, MPI_COMM_WORLD, low ? mpitest_size / 2 : 0,
                            77, &inter));
    EXPECT(MPI_ERR_COMM, MPI_Cart_create(inter, 1, dims, per, 0, &bad));
    EXPECT(MPI_ERR_COMM, MPI_Neighbor_allgather(&s, 1, MPI_INT, r, 1,
                                                MPI_INT, inter));
    CHECK(bad == MPI_COMM_NULL, "Cart_create on an intercomm gave a comm");
    OK(MPI_Topo_test(inter, &st));
    CHECK(st == MPI_UNDEFINED, "Topo_test(intercomm) = %d", st);
    OK(MPI_Comm_free(&inter));
    OK(MPI_Comm_free(&half));
}

int main(int argc, char **argv)
{
    int st;
    const mpitest_fn tests[] = {test_dims, test_cart, test_graph, test_dist,
        test_neighbor, test_neighbor_names, test_inter, NULL};

    mpitest_init(&argc, &argv, "topo_errors", 1);
    EXPECT(MPI_ERR_COMM, MPI_Topo_test(MPI_COMM_NULL, &st));

    return mpitest_run(tests);
}

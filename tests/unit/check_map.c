/*
 * tests/unit/check_map.c: topology mapping (lco/lco_map.c) on graphs and
 * targets built by hand: the grids of the seed's use case on hosts laid
 * out round-robin, weights, fixed vertices, unbalanced trees, machine
 * graphs, random inputs (never worse than the identity, always a
 * permutation, the same twice) and bad arguments. No network.
 */
#include "config.h"

#include "lco/lco_map.h"
#include "check_main.h"

#include <stdlib.h>
#include <string.h>

/* A graph under construction: edge lists of up to MAXV vertices. */
#define MAXV 256
#define MAXE 4096

typedef struct tgraph {
    int n;
    int ne;
    int eu[MAXE];
    int ev[MAXE];
    int ew[MAXE];
    /* CSR made by tg_csr: every edge once, from its first end. */
    int xadj[MAXV + 1];
    int adj[MAXE];
    int wgt[MAXE];
} tgraph_t;

static void tg_edge(tgraph_t *g, int u, int v, int w)
{
    ck_assert_int_lt(g->ne, MAXE);
    g->eu[g->ne] = u;
    g->ev[g->ne] = v;
    g->ew[g->ne] = w;
    g->ne++;
}

static gcm_lco_map_graph_t tg_csr(tgraph_t *g)
{
    int u, e, k = 0;

    for (u = 0; u < g->n; u++) {
        g->xadj[u] = k;
        for (e = 0; e < g->ne; e++) {
            if (g->eu[e] == u) {
                g->adj[k] = g->ev[e];
                g->wgt[k] = g->ew[e];
                k++;
            }
        }
    }
    g->xadj[g->n] = k;
    return (gcm_lco_map_graph_t){ g->n, g->xadj, g->adj, g->wgt };
}

/* An R x C grid (row-major vertices), 5-point, not periodic. */
static void tg_grid(tgraph_t *g, int R, int C)
{
    int r, c;

    memset(g, 0, sizeof(*g));
    g->n = R * C;
    for (r = 0; r < R; r++) {
        for (c = 0; c < C; c++) {
            if (c + 1 < C) {
                tg_edge(g, r * C + c, r * C + c + 1, 1);
            }
            if (r + 1 < R) {
                tg_edge(g, r * C + c, (r + 1) * C + c, 1);
            }
        }
    }
}

/* A one-level tree: slot s on host host[s]. */
static gcm_lco_map_target_t hosts_target(int n, uint64_t *keys,
                                         const int *host)
{
    int s;

    for (s = 0; s < n; s++) {
        keys[s] = 1000 + (uint64_t)host[s];
    }
    return (gcm_lco_map_target_t){ .kind = GCM_LCO_MAP_TREE, .nslots = n,
                                   .nlevels = 1, .keys = keys };
}

static gcm_lco_map_opts_t default_opts(void)
{
    return (gcm_lco_map_opts_t){ .method = GCM_LCO_MAP_SCOTCH,
                                 .time = GCM_LCO_MAP_TIME_DEFAULT,
                                 .fixed = NULL };
}

static void assert_permutation(const int *slot_of, int n)
{
    char seen[MAXV] = { 0 };
    int v;

    for (v = 0; v < n; v++) {
        ck_assert_int_ge(slot_of[v], 0);
        ck_assert_int_lt(slot_of[v], n);
        ck_assert_int_eq(seen[slot_of[v]], 0);
        seen[slot_of[v]] = 1;
    }
}

/* Edges of g (each once) whose ends sit on different hosts. */
static int host_cut(const tgraph_t *g, const int *slot_of, const int *host)
{
    int e, cut = 0;

    for (e = 0; e < g->ne; e++) {
        cut += host[slot_of[g->eu[e]]] != host[slot_of[g->ev[e]]];
    }
    return cut;
}

/* An R x C grid on nhosts hosts round-robin: the identity cuts
 * want_identity edges, the mapping at least best and at most best +
 * slack. */
static void grid_round_robin(int R, int C, int nhosts, int want_identity,
                             int best, int slack)
{
    static tgraph_t g;
    gcm_lco_map_graph_t mg;
    gcm_lco_map_target_t t;
    gcm_lco_map_opts_t o = default_opts();
    gcm_lco_map_result_t res;
    uint64_t keys[MAXV];
    int host[MAXV], slot_of[MAXV], id[MAXV], s;

    tg_grid(&g, R, C);
    for (s = 0; s < g.n; s++) {
        host[s] = s % nhosts;
        id[s]   = s;
    }
    mg = tg_csr(&g);
    t  = hosts_target(g.n, keys, host);
    ck_assert_int_eq(host_cut(&g, id, host), want_identity);
    ck_assert_int_eq(gcm_lco_map_compute(&mg, &t, &o, slot_of, &res), GCM_OK);
    assert_permutation(slot_of, g.n);
    ck_assert_int_eq(res.ncost, 1);
    /* The CSR gives each edge once: weight 1 per grid edge. */
    ck_assert_int_eq(res.identity[0], want_identity);
    ck_assert_int_eq(host_cut(&g, slot_of, host), res.cost[0]);
    ck_assert_int_ge(res.cost[0], best);
    ck_assert_int_le(res.cost[0], best + slack);
}

/* A 4 x 4 grid on two hosts round-robin: its graph in *mg, the target
 * in *t (keys and host: 16 each). */
static void grid4_two_hosts(gcm_lco_map_graph_t *mg,
                            gcm_lco_map_target_t *t, uint64_t keys[16],
                            int host[16])
{
    static tgraph_t g;
    int s;

    tg_grid(&g, 4, 4);
    for (s = 0; s < 16; s++) {
        host[s] = s % 2;
    }
    *mg = tg_csr(&g);
    *t  = hosts_target(16, keys, host);
}

START_TEST(test_map_grid_4x4_two_hosts_round_robin)
{
    /* 12 edges cut by the identity, 4 at best (two 4 x 2 halves). */
    grid_round_robin(4, 4, 2, 12, 4, 0);
}
END_TEST

START_TEST(test_map_grid_4x4_four_hosts_round_robin)
{
    /* 12 by the identity, 8 at best (a 2 x 2 block per host). */
    grid_round_robin(4, 4, 4, 12, 8, 0);
}
END_TEST

START_TEST(test_map_grid_larger_round_robin)
{
    /* 8 x 8 on 4 hosts: a 4 x 4 quarter per host cuts 16; the identity
     * 56 (every horizontal edge and, with 8 columns, no vertical one).
     * Allowed a little above the optimum. */
    grid_round_robin(8, 8, 4, 56, 16, 4);
}
END_TEST

START_TEST(test_map_weights_keep_heavy_edges_inside)
{
    /* Two heavy pairs (0,1) and (2,3), a light edge (1,2); slots 0 and 2
     * on host A, 1 and 3 on B: the identity cuts both heavy pairs. */
    static tgraph_t g;
    gcm_lco_map_graph_t mg;
    gcm_lco_map_target_t t;
    gcm_lco_map_opts_t o = default_opts();
    gcm_lco_map_result_t res;
    uint64_t keys[4];
    int host[4] = { 0, 1, 0, 1 }, slot_of[4];

    memset(&g, 0, sizeof(g));
    g.n = 4;
    tg_edge(&g, 0, 1, 10);
    tg_edge(&g, 2, 3, 10);
    tg_edge(&g, 1, 2, 1);
    mg = tg_csr(&g);
    t  = hosts_target(4, keys, host);
    ck_assert_int_eq(gcm_lco_map_compute(&mg, &t, &o, slot_of, &res), GCM_OK);
    ck_assert_int_eq(res.identity[0], 21);
    ck_assert_int_eq(res.cost[0], 1);
    ck_assert_int_eq(host[slot_of[0]], host[slot_of[1]]);
    ck_assert_int_eq(host[slot_of[2]], host[slot_of[3]]);
}
END_TEST

START_TEST(test_map_repeated_and_one_sided_entries_add)
{
    /* 0 -> 1 given three times from one end only (weight 3), 2 -- 3 once
     * from each end (weight 2): the identity cuts both (5), the best
     * keeps each pair on one host (0). */
    int xadj[5] = { 0, 3, 3, 4, 5 };
    int adj[5]  = { 1, 1, 1, 3, 2 };
    gcm_lco_map_graph_t mg = { 4, xadj, adj, NULL };
    uint64_t keys[4];
    int host[4] = { 0, 1, 0, 1 }, slot_of[4];
    gcm_lco_map_target_t t = hosts_target(4, keys, host);
    gcm_lco_map_opts_t o = default_opts();
    int64_t cost[GCM_LCO_MAP_MAX_LEVELS];
    int ncost, id[4] = { 0, 1, 2, 3 };

    ck_assert_int_eq(gcm_lco_map_cost(&mg, &t, id, cost, &ncost), GCM_OK);
    ck_assert_int_eq(ncost, 1);
    ck_assert_int_eq(cost[0], 5);
    ck_assert_int_eq(gcm_lco_map_compute(&mg, &t, &o, slot_of, NULL),
                     GCM_OK);
    ck_assert_int_eq(gcm_lco_map_cost(&mg, &t, slot_of, cost, &ncost),
                     GCM_OK);
    ck_assert_int_eq(cost[0], 0);
}
END_TEST

START_TEST(test_map_fixed_vertices_keep_their_slot)
{
    gcm_lco_map_graph_t mg;
    gcm_lco_map_target_t t;
    gcm_lco_map_opts_t o = default_opts();
    gcm_lco_map_result_t res;
    uint64_t keys[16];
    unsigned char fixed[16] = { 0 };
    int host[16], slot_of[16], s;

    grid4_two_hosts(&mg, &t, keys, host);
    fixed[0] = fixed[5] = fixed[15] = 1;
    o.fixed = fixed;
    ck_assert_int_eq(gcm_lco_map_compute(&mg, &t, &o, slot_of, &res), GCM_OK);
    assert_permutation(slot_of, 16);
    ck_assert_int_eq(slot_of[0], 0);
    ck_assert_int_eq(slot_of[5], 5);
    ck_assert_int_eq(slot_of[15], 15);
    ck_assert_int_lt(res.cost[0], res.identity[0]);
    /* All fixed: the identity. */
    memset(fixed, 1, sizeof(fixed));
    ck_assert_int_eq(gcm_lco_map_compute(&mg, &t, &o, slot_of, &res), GCM_OK);
    for (s = 0; s < 16; s++) {
        ck_assert_int_eq(slot_of[s], s);
    }
}
END_TEST

START_TEST(test_map_identity_when_asked_or_no_time)
{
    gcm_lco_map_graph_t mg;
    gcm_lco_map_target_t t;
    gcm_lco_map_opts_t o = default_opts();
    gcm_lco_map_result_t res;
    uint64_t keys[16];
    int host[16], slot_of[16], s;

    grid4_two_hosts(&mg, &t, keys, host);
    o.method = GCM_LCO_MAP_IDENTITY;
    ck_assert_int_eq(gcm_lco_map_compute(&mg, &t, &o, slot_of, &res), GCM_OK);
    for (s = 0; s < 16; s++) {
        ck_assert_int_eq(slot_of[s], s);
    }
    ck_assert_str_eq(res.how, "identity");
    o.method = GCM_LCO_MAP_SCOTCH;
    o.time   = 0;
    ck_assert_int_eq(gcm_lco_map_compute(&mg, &t, &o, slot_of, &res), GCM_OK);
    for (s = 0; s < 16; s++) {
        ck_assert_int_eq(slot_of[s], s);
    }
    /* One host: nothing to gain, the identity. */
    for (s = 0; s < 16; s++) {
        host[s] = 0;
    }
    t = hosts_target(16, keys, host);
    o.time = GCM_LCO_MAP_TIME_DEFAULT;
    ck_assert_int_eq(gcm_lco_map_compute(&mg, &t, &o, slot_of, &res), GCM_OK);
    for (s = 0; s < 16; s++) {
        ck_assert_int_eq(slot_of[s], s);
    }
    ck_assert_int_eq(res.cost[0], 0);
}
END_TEST

START_TEST(test_map_unbalanced_tree)
{
    /* A 2 x 3 grid (7 edges) on hosts of 3, 1 and 2 slots, interleaved:
     * slots 0 a, 1 b, 2 c, 3 a, 4 c, 5 a. Three vertices hold at most 2
     * grid edges, two at most 1: the best cuts 4. */
    static tgraph_t g;
    gcm_lco_map_graph_t mg;
    gcm_lco_map_target_t t;
    gcm_lco_map_opts_t o = default_opts();
    gcm_lco_map_result_t res;
    uint64_t keys[6];
    int host[6] = { 0, 1, 2, 0, 2, 0 }, slot_of[6];

    tg_grid(&g, 2, 3);
    mg = tg_csr(&g);
    t  = hosts_target(6, keys, host);
    ck_assert_int_eq(gcm_lco_map_compute(&mg, &t, &o, slot_of, &res), GCM_OK);
    assert_permutation(slot_of, 6);
    ck_assert_int_eq(res.cost[0], host_cut(&g, slot_of, host));
    ck_assert_int_eq(res.cost[0], 4);
    ck_assert_int_le(res.cost[0], res.identity[0]);
}
END_TEST

START_TEST(test_map_two_levels_hosts_before_packages)
{
    /* 8 slots: hosts by s / 4, packages by s / 2 inside them. A ring of
     * 8 vertices with the identity placement cuts hosts twice and
     * packages four times; the mapping may not trade a host cut for
     * package cuts, and should reach (2, 4) or better. Slots are
     * listed shuffled so that the identity is bad at both levels. */
    static tgraph_t g;
    int order[8] = { 0, 4, 2, 6, 1, 5, 3, 7 };
    uint64_t keys[16];
    int slot_of[8], v, s;
    gcm_lco_map_graph_t mg;
    gcm_lco_map_target_t t;
    gcm_lco_map_opts_t o = default_opts();
    gcm_lco_map_result_t res;

    memset(&g, 0, sizeof(g));
    g.n = 8;
    for (v = 0; v < 8; v++) {
        tg_edge(&g, v, (v + 1) % 8, 1);
    }
    for (s = 0; s < 8; s++) {
        keys[s * 2]     = (uint64_t)(order[s] / 4);
        keys[s * 2 + 1] = (uint64_t)(order[s] / 2);
    }
    mg = tg_csr(&g);
    t  = (gcm_lco_map_target_t){ .kind = GCM_LCO_MAP_TREE, .nslots = 8,
                                 .nlevels = 2, .keys = keys };
    ck_assert_int_eq(gcm_lco_map_compute(&mg, &t, &o, slot_of, &res), GCM_OK);
    assert_permutation(slot_of, 8);
    ck_assert_int_eq(res.ncost, 2);
    ck_assert_int_eq(res.identity[0], 8);
    ck_assert_int_eq(res.cost[0], 2);
    ck_assert_int_eq(res.cost[1], 4);
}
END_TEST

START_TEST(test_map_machine_graph)
{
    /* A ring of 8 vertices onto a machine ring whose slots are numbered
     * out of order: the best puts ring neighbours on neighbouring slots
     * (cost 8: each edge at distance 1). */
    static tgraph_t g, m;
    int order[8] = { 3, 6, 0, 5, 2, 7, 4, 1 };  /* ring position -> slot */
    int slot_of[8], v;
    gcm_lco_map_graph_t mg, mm;
    gcm_lco_map_target_t t;
    gcm_lco_map_opts_t o = default_opts();
    gcm_lco_map_result_t res;

    memset(&g, 0, sizeof(g));
    memset(&m, 0, sizeof(m));
    g.n = m.n = 8;
    for (v = 0; v < 8; v++) {
        tg_edge(&g, v, (v + 1) % 8, 1);
        tg_edge(&m, order[v], order[(v + 1) % 8], 1);
        tg_edge(&m, order[(v + 1) % 8], order[v], 1);
    }
    mg = tg_csr(&g);
    mm = tg_csr(&m);
    t  = (gcm_lco_map_target_t){ .kind = GCM_LCO_MAP_GRAPH, .nslots = 8,
                                 .xadj = mm.xadj, .adj = mm.adj,
                                 .wgt = mm.wgt };
    ck_assert_int_eq(gcm_lco_map_compute(&mg, &t, &o, slot_of, &res), GCM_OK);
    assert_permutation(slot_of, 8);
    ck_assert_int_eq(res.ncost, 1);
    ck_assert_int_gt(res.identity[0], 8);
    ck_assert_int_eq(res.cost[0], 8);
}
END_TEST

/* A small deterministic generator for the random inputs. */
static uint64_t rng_state;

static unsigned rng(unsigned bound)
{
    rng_state = rng_state * 6364136223846793005ULL + 1442695040888963407ULL;
    return (unsigned)((rng_state >> 33) % bound);
}

START_TEST(test_map_random_never_worse_and_deterministic)
{
    static tgraph_t g;
    uint64_t keys[MAXV * 2];
    unsigned char fixed[MAXV];
    int a[MAXV], b[MAXV], round;

    rng_state = 12345;
    for (round = 0; round < 40; round++) {
        int n = 2 + (int)rng(60), nh = 1 + (int)rng(5), s, e, deg;
        gcm_lco_map_graph_t mg;
        gcm_lco_map_target_t t;
        gcm_lco_map_opts_t o = default_opts();
        gcm_lco_map_result_t ra, rb;
        int64_t cost[GCM_LCO_MAP_MAX_LEVELS];
        int ncost;

        memset(&g, 0, sizeof(g));
        g.n = n;
        deg = 1 + (int)rng(6);
        for (e = 0; e < n * deg && g.ne < MAXE; e++) {
            tg_edge(&g, (int)rng((unsigned)n), (int)rng((unsigned)n),
                    (int)rng(5));
        }
        for (s = 0; s < n; s++) {
            keys[s * 2]     = rng((unsigned)nh);
            keys[s * 2 + 1] = rng(2);
            fixed[s]        = rng(6) == 0;
        }
        mg = tg_csr(&g);
        t  = (gcm_lco_map_target_t){ .kind = GCM_LCO_MAP_TREE, .nslots = n,
                                     .nlevels = 2, .keys = keys };
        o.fixed = fixed;
        ck_assert_int_eq(gcm_lco_map_compute(&mg, &t, &o, a, &ra), GCM_OK);
        ck_assert_int_eq(gcm_lco_map_compute(&mg, &t, &o, b, &rb), GCM_OK);
        assert_permutation(a, n);
        ck_assert_mem_eq(a, b, (size_t)n * sizeof(int));
        ck_assert_int_le(ra.cost[0], ra.identity[0]);
        if (ra.cost[0] == ra.identity[0]) {
            ck_assert_int_le(ra.cost[1], ra.identity[1]);
        }
        for (s = 0; s < n; s++) {
            if (fixed[s]) {
                ck_assert_int_eq(a[s], s);
            }
        }
        ck_assert_int_eq(gcm_lco_map_cost(&mg, &t, a, cost, &ncost), GCM_OK);
        ck_assert_int_eq(ncost, 2);
        ck_assert_int_eq(cost[0], ra.cost[0]);
        ck_assert_int_eq(cost[1], ra.cost[1]);
    }
}
END_TEST

START_TEST(test_map_bad_arguments)
{
    int xadj[3] = { 0, 1, 2 }, adj[2] = { 1, 0 }, wgt[2] = { 1, -1 };
    int bad_adj[2] = { 1, 7 }, bad_xadj[3] = { 0, 2, 1 };
    int lw[2] = { 0, 0 };
    uint64_t keys[2] = { 1, 2 };
    int slot_of[2], perm[2] = { 0, 0 }, ncost;
    int64_t cost[GCM_LCO_MAP_MAX_LEVELS];
    gcm_lco_map_graph_t g = { 2, xadj, adj, NULL };
    gcm_lco_map_target_t t = { .kind = GCM_LCO_MAP_TREE, .nslots = 2,
                               .nlevels = 1, .keys = keys };
    gcm_lco_map_opts_t o = default_opts();
    gcm_lco_map_graph_t bad;
    gcm_lco_map_target_t tbad;

    ck_assert_int_eq(gcm_lco_map_compute(&g, &t, &o, slot_of, NULL), GCM_OK);

    bad = g;
    bad.wgt = wgt;
    ck_assert_int_eq(gcm_lco_map_compute(&bad, &t, &o, slot_of, NULL),
                     GCM_ERR_INVALID_PARAM);
    ck_assert_ptr_nonnull(strstr(gcm_last_error(), "weight"));
    bad = g;
    bad.adj = bad_adj;
    ck_assert_int_eq(gcm_lco_map_compute(&bad, &t, &o, slot_of, NULL),
                     GCM_ERR_INVALID_PARAM);
    ck_assert_ptr_nonnull(strstr(gcm_last_error(), "adj[1] = 7"));
    bad = g;
    bad.xadj = bad_xadj;
    ck_assert_int_eq(gcm_lco_map_compute(&bad, &t, &o, slot_of, NULL),
                     GCM_ERR_INVALID_PARAM);
    bad = g;
    bad.n = -1;
    ck_assert_int_eq(gcm_lco_map_compute(&bad, &t, &o, slot_of, NULL),
                     GCM_ERR_INVALID_PARAM);
    tbad = t;
    tbad.nslots = 3;
    ck_assert_int_eq(gcm_lco_map_compute(&g, &tbad, &o, slot_of, NULL),
                     GCM_ERR_INVALID_PARAM);
    ck_assert_ptr_nonnull(strstr(gcm_last_error(), "3 slots for 2"));
    tbad = t;
    tbad.nlevels = GCM_LCO_MAP_MAX_LEVELS + 1;
    ck_assert_int_eq(gcm_lco_map_compute(&g, &tbad, &o, slot_of, NULL),
                     GCM_ERR_INVALID_PARAM);
    tbad = t;
    tbad.keys = NULL;
    ck_assert_int_eq(gcm_lco_map_compute(&g, &tbad, &o, slot_of, NULL),
                     GCM_ERR_INVALID_PARAM);
    tbad = (gcm_lco_map_target_t){ .kind = GCM_LCO_MAP_GRAPH, .nslots = 2,
                                   .xadj = xadj, .adj = adj, .wgt = lw };
    ck_assert_int_eq(gcm_lco_map_compute(&g, &tbad, &o, slot_of, NULL),
                     GCM_ERR_INVALID_PARAM);
    tbad.kind = 9;
    ck_assert_int_eq(gcm_lco_map_compute(&g, &tbad, &o, slot_of, NULL),
                     GCM_ERR_INVALID_PARAM);
    o.method = 7;
    ck_assert_int_eq(gcm_lco_map_compute(&g, &t, &o, slot_of, NULL),
                     GCM_ERR_INVALID_PARAM);
    ck_assert_int_eq(gcm_lco_map_compute(&g, &t, NULL, slot_of, NULL),
                     GCM_ERR_INVALID_PARAM);
    ck_assert_int_eq(gcm_lco_map_cost(&g, &t, perm, cost, &ncost),
                     GCM_ERR_INVALID_PARAM);
    ck_assert_ptr_nonnull(strstr(gcm_last_error(), "permutation"));
}
END_TEST

START_TEST(test_map_sizes_zero_and_one)
{
    int xadj[2] = { 0, 0 };
    uint64_t keys[1] = { 5 };
    int slot_of[1] = { -1 };
    gcm_lco_map_graph_t g0 = { 0, NULL, NULL, NULL };
    gcm_lco_map_graph_t g1 = { 1, xadj, NULL, NULL };
    gcm_lco_map_target_t t0 = { .kind = GCM_LCO_MAP_TREE, .nslots = 0 };
    gcm_lco_map_target_t t1 = { .kind = GCM_LCO_MAP_TREE, .nslots = 1,
                                .nlevels = 1, .keys = keys };
    gcm_lco_map_opts_t o = default_opts();

    ck_assert_int_eq(gcm_lco_map_compute(&g0, &t0, &o, slot_of, NULL),
                     GCM_OK);
    ck_assert_int_eq(gcm_lco_map_compute(&g1, &t1, &o, slot_of, NULL),
                     GCM_OK);
    ck_assert_int_eq(slot_of[0], 0);
}
END_TEST

static Suite *make_suite(void)
{
    const TTest *grids[] = {test_map_grid_4x4_two_hosts_round_robin,
        test_map_grid_4x4_four_hosts_round_robin,
        test_map_grid_larger_round_robin, test_map_unbalanced_tree,
        test_map_two_levels_hosts_before_packages, test_map_machine_graph,
        NULL};
    const TTest *rules[] = {test_map_weights_keep_heavy_edges_inside,
        test_map_repeated_and_one_sided_entries_add,
        test_map_fixed_vertices_keep_their_slot,
        test_map_identity_when_asked_or_no_time,
        test_map_random_never_worse_and_deterministic, NULL};
    const TTest *args[] = {test_map_bad_arguments, test_map_sizes_zero_and_one,
        NULL};
    const struct gcm_check_case cases[] = {
        {"grids", .tests = grids},
        {"rules", .tests = rules, .timeout = 60},
        {"args", .tests = args},
        {0},
    };

    return gcm_check_suite("map", cases);
}

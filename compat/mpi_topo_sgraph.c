/*
 * compat/mpi_topo_sgraph.c: MPIX_Graph_create, the seed's scalable graph
 * creation (Träff 2003, section 3.1): each process gives only its own
 * neighbours, as ranks of basecomm.
 *
 * The graph: a neighbour listed k times is an edge of weight k; an edge
 * given by either end exists at both, and the weights given at the two
 * ends add. A process passing degree -1 is not in the result; one
 * passing 0 is, without neighbours. Node v of the result is the v-th
 * process (in basecomm's order) that did not pass -1, and its neighbours
 * are those of that process, each listed once (sorted by rank) with its
 * weight, so that the lists of two neighbours always name each other.
 *
 * Without reordering (nobody asks, rank 0's hints say identity, or the
 * processes sit in one group of every hierarchy level), every process
 * sends each neighbour it lists its multiplicity (one alltoall of counts
 * and one alltoallv of the records, gcm_mpi_topo_exchange_edges) and
 * keeps its own merged list: memory in proportion to its own degree, but
 * for the per-process counts and records the exchange needs while it
 * runs. With reordering the lists of all processes are gathered, since
 * every process must compute the same mapping from the whole graph; each
 * keeps its own node's list and frees the rest. The first MPI_Graph_get
 * gathers the whole graph, once (collective over the graph communicator).
 */
#include "config.h"

#include "compat/mpi_topo_impl.h"

#include <limits.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/* A (neighbour, weight) pair of a list being merged. */
typedef struct sg_pair {
    int nbr;
    int w;
} sg_pair_t;

static int sg_pair_cmp(const void *a, const void *b)
{
    const sg_pair_t *x = a, *y = b;

    return (x->nbr > y->nbr) - (x->nbr < y->nbr);
}

/* Pairs (a, b) of nodes, ordered by a then b. */
static int sg_pair_cmp2(const void *a, const void *b)
{
    const sg_pair_t *x = a, *y = b;

    if (x->nbr != y->nbr) {
        return (x->nbr > y->nbr) - (x->nbr < y->nbr);
    }
    return (x->w > y->w) - (x->w < y->w);
}

/* Sorts n pairs and merges equal neighbours (weights added, clamped at
 * INT_MAX); returns the number left. */
static int sg_merge(sg_pair_t *p, int n)
{
    int i, k = 0;

    qsort(p, (size_t)n, sizeof(*p), sg_pair_cmp);
    for (i = 0; i < n; i++) {
        if (k > 0 && p[k - 1].nbr == p[i].nbr) {
            long long w = (long long)p[k - 1].w + p[i].w;

            p[k - 1].w = (w > INT_MAX) ? INT_MAX : (int)w;
        } else {
            p[k++] = p[i];
        }
    }
    return k;
}

/* The topology of a node of nnodes with the merged list p[0..n-1]
 * (NULL: no memory). */
static struct gcm_mpi_topo *sg_topo_new(int nnodes, long long nedges,
                                        const sg_pair_t *p, int n)
{
    struct gcm_mpi_topo *t = calloc(1, sizeof(*t));
    int k;

    if (t == NULL) {
        return NULL;
    }
    t->kind        = MPI_GRAPH;
    t->scalable    = 1;
    t->nnodes      = nnodes;
    t->nedges      = (int)nedges;
    t->degree      = n;
    t->nbrs        = malloc((n > 0 ? (size_t)n : 1u) * sizeof(int));
    t->nbr_weights = malloc((n > 0 ? (size_t)n : 1u) * sizeof(int));
    if (t->nbrs == NULL || t->nbr_weights == NULL) {
        gcm_mpi_topo_destroy(t);
        return NULL;
    }
    for (k = 0; k < n; k++) {
        t->nbrs[k]        = p[k].nbr;
        t->nbr_weights[k] = p[k].w;
    }
    return t;
}

/* What the call needs to know of every process once the agreement is
 * done: node_of[r] is base rank r's node, -1 if it passed degree -1. */
typedef struct sg_call {
    MPI_Comm                  comm;
    const char               *call;
    const gcm_mpi_topo_rec_t *all;
    int                       degree;
    const int                *neighbors;
    int                       nnodes;
    int                      *node_of;
    int                      *slots;     /* base rank of each node */
} sg_call_t;

/*
 * Without reordering: each process tells every neighbour it lists how
 * often; its own list merged with what it was told is its list. Nodes
 * stay in basecomm's order. A neighbour that passed degree -1 fails the
 * call on every process (the allreduce that counts the edges also counts
 * such neighbours).
 */
static int sg_plain(sg_call_t *c, struct gcm_mpi_topo **t_p)
{
    MPI_Comm comm = c->comm;
    int me = comm->rank, deg = (c->degree > 0) ? c->degree : 0;
    gcm_mpi_topo_edge_t *mine = NULL, *got = NULL;
    sg_pair_t *p = NULL;
    int *owner1 = NULL, *owner2 = NULL;
    int i, n = 0, ngot = 0, np, rc, bad = -1;
    long long sums[2] = { 0, 0 };

    mine   = malloc((deg > 0 ? (size_t)deg : 1u) * sizeof(*mine));
    owner1 = malloc((deg > 0 ? (size_t)deg : 1u) * sizeof(int));
    owner2 = malloc((deg > 0 ? (size_t)deg : 1u) * sizeof(int));
    p      = malloc((deg > 0 ? (size_t)deg : 1u) * sizeof(*p));
    if (mine == NULL || owner1 == NULL || owner2 == NULL || p == NULL) {
        rc = gcm_mpi_topo_no_mem(comm, c->call);
        goto out;
    }
    /* My list merged: one record per other neighbour. */
    for (i = 0; i < deg; i++) {
        p[i] = (sg_pair_t){ c->neighbors[i], 1 };
    }
    np = sg_merge(p, deg);
    for (i = 0; i < np; i++) {
        if (c->node_of[p[i].nbr] < 0 && bad < 0) {
            bad = p[i].nbr;
        }
        if (p[i].nbr != me) {
            mine[n]   = (gcm_mpi_topo_edge_t){ me, p[i].nbr, p[i].w };
            owner1[n] = p[i].nbr;
            owner2[n] = -1;
            n++;
        }
    }
    rc = gcm_mpi_topo_exchange_edges(comm, n, mine, owner1, owner2, &got,
                                     &ngot, c->call);
    if (rc != MPI_SUCCESS) {
        goto out;
    }
    free(p);
    p = malloc(((size_t)deg + (size_t)ngot + 1) * sizeof(*p));
    if (p == NULL) {
        rc = gcm_mpi_topo_no_mem(comm, c->call);
        goto out;
    }
    /* Mine again (the merged list, self-loop included), then what the
     * others listed; all as base ranks for now. */
    for (i = 0; i < deg; i++) {
        p[i] = (sg_pair_t){ c->neighbors[i], 1 };
    }
    np = sg_merge(p, deg);
    for (i = 0; i < ngot; i++) {
        p[np + i] = (sg_pair_t){ got[i].src, got[i].weight };
    }
    np = sg_merge(p, np + ngot);
    for (i = 0; i < np; i++) {
        p[i].nbr = c->node_of[p[i].nbr];
    }
    /* The number of edges, and whether any list names a process that
     * is not in the result. */
    sums[0] = (c->node_of[me] >= 0) ? np : 0;
    sums[1] = (bad >= 0);
    rc = PMPI_Allreduce(MPI_IN_PLACE, sums, 2, MPI_LONG_LONG, MPI_SUM, comm);
    if (rc != MPI_SUCCESS) {
        goto out;
    }
    if (sums[0] > INT_MAX) {
        rc = gcm_mpi_raise(comm, MPI_ERR_COUNT, c->call,
                           "the graph has %lld edges, more than an int "
                           "counts", sums[0]);
        goto out;
    }
    if (sums[1] != 0) {
        rc = (bad >= 0) ?
             gcm_mpi_raise(comm, MPI_ERR_RANK, c->call,
                           "neighbour %d passed degree -1: it is not in the "
                           "graph", bad) :
             gcm_mpi_raise(comm, MPI_ERR_RANK, c->call,
                           "%lld process(es) list a neighbour that passed "
                           "degree -1", sums[1]);
        goto out;
    }
    if (c->node_of[me] >= 0) {
        *t_p = sg_topo_new(c->nnodes, sums[0], p, np);
        if (*t_p == NULL) {
            rc = gcm_mpi_topo_no_mem(comm, c->call);
        }
    }
out:
    free(mine);
    free(owner1);
    free(owner2);
    free(got);
    free(p);
    return rc;
}

/*
 * With reordering: the lists of all processes (allgatherv) make the
 * graph every process maps alike; node v's list, merged from both ends,
 * goes with the process that becomes rank v.
 */
static int sg_reordered(sg_call_t *c, int *procs, int *myrank_p,
                        struct gcm_mpi_topo **t_p)
{
    MPI_Comm comm = c->comm;
    int n = comm->size, m = c->nnodes, r, v, i, k, rc, my;
    int *counts = malloc((size_t)n * sizeof(int));
    int *displs = NULL, *lists = NULL, *xadj = NULL, *adj = NULL;
    sg_pair_t *p = NULL, *pairs = NULL;
    long long total = 0, nedges = 0;
    gcm_lco_map_graph_t g;

    if (counts == NULL) {
        rc = gcm_mpi_topo_no_mem(comm, c->call);
        goto out;
    }
    for (r = 0; r < n; r++) {
        counts[r] = (c->all[r].count > 0) ? c->all[r].count : 0;
    }
    rc = gcm_mpi_topo_gather_ints(comm, c->neighbors, counts, INT_MAX / 2,
                                  c->call, &lists, &displs, &total);
    if (rc != MPI_SUCCESS) {
        goto out;
    }
    xadj  = malloc(((size_t)m + 1) * sizeof(int));
    adj   = malloc((total > 0 ? (size_t)total : 1u) * sizeof(int));
    pairs = malloc((total > 0 ? 2 * (size_t)total : 1u) * sizeof(*pairs));
    if (xadj == NULL || adj == NULL || pairs == NULL) {
        rc = gcm_mpi_topo_no_mem(comm, c->call);
        goto out;
    }
    /* Every process sees every list: the same verdict everywhere. */
    for (r = 0; r < n; r++) {
        for (i = 0; i < counts[r]; i++) {
            int q = lists[displs[r] + i];

            if (c->node_of[q] < 0) {
                rc = gcm_mpi_raise(comm, MPI_ERR_RANK, c->call,
                                   "rank %d lists neighbour %d, which "
                                   "passed degree -1: it is not in the "
                                   "graph", r, q);
                goto out;
            }
        }
    }
    /* The graph of the nodes, as given (lco_map adds both ends). */
    for (v = 0, k = 0; v < m; v++) {
        r = c->slots[v];
        xadj[v] = k;
        for (i = 0; i < counts[r]; i++) {
            adj[k++] = c->node_of[lists[displs[r] + i]];
        }
    }
    xadj[m] = k;
    g = (gcm_lco_map_graph_t){ m, xadj, adj, NULL };
    rc = gcm_mpi_topo_map(comm, &g, m, c->slots, c->all, c->call, procs,
                          myrank_p);
    if (rc != MPI_SUCCESS) {
        goto out;
    }
    /* Edges of the symmetric graph: every distinct pair once per end
     * (a self-loop once). */
    for (v = 0, k = 0; v < m; v++) {
        for (i = xadj[v]; i < xadj[v + 1]; i++) {
            int a = (v < adj[i]) ? v : adj[i], b = (v < adj[i]) ? adj[i] : v;

            pairs[k++] = (sg_pair_t){ a, b };
        }
    }
    qsort(pairs, (size_t)k, sizeof(*pairs), sg_pair_cmp2);
    for (i = 0; i < k; i++) {
        if (i == 0 || sg_pair_cmp2(&pairs[i], &pairs[i - 1]) != 0) {
            nedges += (pairs[i].nbr == pairs[i].w) ? 1 : 2;
        }
    }
    /* My node's list: its own entries and those naming it. */
    my = *myrank_p;
    if (my >= 0) {
        p = malloc(((size_t)total + 1) * sizeof(*p));
        if (p == NULL) {
            rc = gcm_mpi_topo_no_mem(comm, c->call);
            goto out;
        }
        for (v = 0, k = 0; v < m; v++) {
            for (i = xadj[v]; i < xadj[v + 1]; i++) {
                if (v == my) {
                    p[k++] = (sg_pair_t){ adj[i], 1 };
                } else if (adj[i] == my) {
                    p[k++] = (sg_pair_t){ v, 1 };
                }
            }
        }
        k = sg_merge(p, k);
        *t_p = sg_topo_new(m, nedges, p, k);
        if (*t_p == NULL) {
            rc = gcm_mpi_topo_no_mem(comm, c->call);
        }
    }
out:
    free(counts);
    free(displs);
    free(lists);
    free(xadj);
    free(adj);
    free(pairs);
    free(p);
    return rc;
}

int PMPIX_Graph_create(MPI_Comm basecomm, int degree, const int neighbors[],
                       int reorder, MPI_Info mapinfo, MPI_Comm *graphcomm)
{
    static const char call[] = "MPIX_Graph_create";
    gcm_mpi_topo_rec_t mine, *all = NULL;
    gcm_mpi_topo_hints_t h = { GCM_LCO_MAP_SCOTCH, GCM_LCO_MAP_TIME_DEFAULT };
    struct gcm_mpi_topo *t = NULL;
    sg_call_t c;
    int *procs = NULL;
    int rc, r, i, myrank = -1;

    rc = gcm_mpi_topo_check_intra(basecomm, call);
    if (rc != MPI_SUCCESS) {
        return rc;
    }
    /* From here on every process takes part in the agreement, so that a
     * bad argument anywhere fails the call everywhere. */
    if (degree < -1) {
        rc = gcm_mpi_raise(basecomm, MPI_ERR_ARG, call,
                           "degree is %d: -1 (not in the graph) or more",
                           degree);
    } else if (degree > 0 && neighbors == NULL) {
        rc = gcm_mpi_raise(basecomm, MPI_ERR_ARG, call,
                           "neighbors is NULL with degree %d", degree);
    } else if (graphcomm == NULL) {
        rc = gcm_mpi_raise(basecomm, MPI_ERR_ARG, call, "graphcomm is NULL");
    }
    for (i = 0; rc == MPI_SUCCESS && i < degree; i++) {
        if (neighbors[i] < 0 || neighbors[i] >= basecomm->size) {
            rc = gcm_mpi_raise(basecomm, MPI_ERR_RANK, call,
                               "neighbors[%d] = %d is not a rank of "
                               "basecomm (0..%d)", i, neighbors[i],
                               basecomm->size - 1);
        }
    }
    if (rc == MPI_SUCCESS) {
        rc = gcm_mpi_topo_hints(basecomm, mapinfo, call, &h);
    }
    memset(&mine, 0, sizeof(mine));
    mine.err     = rc;
    mine.reorder = (reorder != 0);
    mine.count   = (rc == MPI_SUCCESS) ? degree : -1;
    mine.method  = h.method;
    mine.time    = h.time;
    rc = gcm_mpi_topo_agree(basecomm, &mine, MPI_ERR_ARG, "arguments", call,
                            &all);
    if (rc != MPI_SUCCESS) {
        return rc;
    }
    memset(&c, 0, sizeof(c));
    c.comm      = basecomm;
    c.call      = call;
    c.all       = all;
    c.degree    = degree;
    c.neighbors = neighbors;
    c.node_of   = malloc((size_t)basecomm->size * sizeof(int));
    c.slots     = malloc((size_t)basecomm->size * sizeof(int));
    procs       = malloc((size_t)basecomm->size * sizeof(int));
    if (c.node_of == NULL || c.slots == NULL || procs == NULL) {
        rc = gcm_mpi_topo_no_mem(basecomm, call);
        goto out;
    }
    for (r = 0; r < basecomm->size; r++) {
        c.node_of[r] = -1;
        if (all[r].count >= 0) {
            c.node_of[r] = c.nnodes;
            c.slots[c.nnodes] = r;
            procs[c.nnodes] = gcm_mpi_comm_proc(basecomm, r);
            c.nnodes++;
        }
    }
    myrank = c.node_of[basecomm->rank];
    if (gcm_mpi_topo_wants_map(basecomm, all, c.nnodes, c.slots)) {
        rc = sg_reordered(&c, procs, &myrank, &t);
    } else {
        rc = sg_plain(&c, &t);
    }
    if (rc != MPI_SUCCESS) {
        gcm_mpi_topo_destroy(t);
        goto out;
    }
    /* Nobody in the graph: MPI_COMM_NULL everywhere, and every process
     * skips the derivation alike. */
    if (c.nnodes == 0) {
        *graphcomm = MPI_COMM_NULL;
        goto out;
    }
    rc = gcm_mpi_topo_derive(basecomm, myrank >= 0 ? c.nnodes : 0, procs,
                             myrank, t, call, graphcomm);
out:
    free(all);
    free(c.node_of);
    free(c.slots);
    free(procs);
    return rc;
}
GCM_MPIX_ALIAS(Graph_create)

/* ---- the whole graph, on demand ---------------------------------------------- */

int gcm_mpi_topo_sgraph_gather(MPI_Comm comm, struct gcm_mpi_topo *t,
                               const char *call)
{
    int n = comm->size, r, rc;
    int *degs = malloc((size_t)n * sizeof(int));
    int *displs = NULL, *index = NULL, *edges = NULL;

    if (degs == NULL) {
        rc = gcm_mpi_topo_no_mem(comm, call);
        goto out;
    }
    rc = PMPI_Allgather(&t->degree, 1, MPI_INT, degs, 1, MPI_INT, comm);
    if (rc != MPI_SUCCESS) {
        goto out;
    }
    /* The lists hold nedges entries in all (counted at creation). */
    rc = gcm_mpi_topo_gather_ints(comm, t->nbrs, degs, t->nedges, call,
                                  &edges, &displs, NULL);
    if (rc != MPI_SUCCESS) {
        goto out;
    }
    index = malloc((size_t)n * sizeof(int));
    if (index == NULL) {
        rc = gcm_mpi_topo_no_mem(comm, call);
        goto out;
    }
    for (r = 0; r < n; r++) {
        index[r] = displs[r] + degs[r];
    }
    t->index = index;
    t->edges = edges;
    index = edges = NULL;
out:
    free(degs);
    free(displs);
    free(index);
    free(edges);
    return rc;
}

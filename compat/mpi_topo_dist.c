/*
 * compat/mpi_topo_dist.c: distributed graph topologies
 * (MPI_Dist_graph_*).
 */
#include "config.h"

#include "compat/mpi_topo_impl.h"

#include <limits.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/* ---- distributed graphs ---------------------------------------------------- */

/* Is w a weights argument meaning "no weights"? */
static int is_unweighted(const int *w)
{
    return w == MPI_UNWEIGHTED;
}

/* Checks n ranks of comm given in ranks (what names them). */
static int check_ranks(MPI_Comm comm, int n, const int *ranks,
                       const char *what, const char *call)
{
    int i;

    if (n < 0) {
        return gcm_mpi_raise(comm, MPI_ERR_ARG, call,
                             "the number of %s (%d) is negative", what, n);
    }
    if (n > 0 && ranks == NULL) {
        return gcm_mpi_raise(comm, MPI_ERR_ARG, call, "%s is NULL", what);
    }
    for (i = 0; i < n; i++) {
        if (ranks[i] < 0 || ranks[i] >= comm->size) {
            return gcm_mpi_raise(comm, MPI_ERR_RANK, call,
                                 "%s[%d] = %d is not a rank (0..%d)", what,
                                 i, ranks[i], comm->size - 1);
        }
    }
    return MPI_SUCCESS;
}

/* Checks the n weights of the edges what names (n >= 0), unless the
 * graph is unweighted or there are none. */
static int check_weights(MPI_Comm comm, int n, const int *weights,
                         const char *what, const char *call)
{
    int i;

    if (n == 0 || is_unweighted(weights)) {
        return MPI_SUCCESS;
    }
    if (weights == NULL || weights == MPI_WEIGHTS_EMPTY) {
        return gcm_mpi_raise(comm, MPI_ERR_ARG, call,
                             "the weights of %s are missing", what);
    }
    for (i = 0; i < n; i++) {
        if (weights[i] < 0) {
            return gcm_mpi_raise(comm, MPI_ERR_ARG, call,
                                 "weight %d of %s is negative (%d)", i, what,
                                 weights[i]);
        }
    }
    return MPI_SUCCESS;
}

/* Checks n edges to or from ranks[], and their weights. */
static int check_edges(MPI_Comm comm, int n, const int *ranks,
                       const int *weights, const char *what,
                       const char *call)
{
    int rc = check_ranks(comm, n, ranks, what, call);

    if (rc == MPI_SUCCESS) {
        rc = check_weights(comm, n, weights, what, call);
    }
    return rc;
}

static int check_info_arg(MPI_Comm comm, MPI_Info info, const char *call)
{
    if (info != MPI_INFO_NULL && gcm_mpi_info_check(info) != 0) {
        return gcm_mpi_raise(comm, MPI_ERR_INFO, call,
                             "info is not a valid info object");
    }
    return MPI_SUCCESS;
}

/* A distributed graph topology owning the given arrays (NULL weights:
 * unweighted). On failure it frees them and returns NULL. */
struct gcm_mpi_topo *gcm_mpi_topo_dist_new(int indeg, int *srcs, int *sw,
                                           int outdeg, int *dsts, int *dw,
                                           int weighted)
{
    struct gcm_mpi_topo *t = calloc(1, sizeof(*t));

    if (t == NULL || srcs == NULL || dsts == NULL ||
        (weighted != 0 && (sw == NULL || dw == NULL))) {
        free(t);
        free(srcs);
        free(sw);
        free(dsts);
        free(dw);
        return NULL;
    }
    t->kind          = MPI_DIST_GRAPH;
    t->indegree      = indeg;
    t->outdegree     = outdeg;
    t->weighted      = weighted;
    t->sources       = srcs;
    t->sourceweights = sw;
    t->destinations  = dsts;
    t->destweights   = dw;
    return t;
}

/* The whole of parent as the new group (distributed graphs keep every
 * process), in the order procs gives (NULL: parent's). */
static int derive_all(MPI_Comm parent, const int *procs, int myrank,
                      struct gcm_mpi_topo *t, const char *call,
                      MPI_Comm *newcomm)
{
    int *own = NULL;
    int rc;

    if (procs == NULL) {
        own = gcm_mpi_topo_first_procs(parent, parent->size);
        if (own == NULL) {
            gcm_mpi_topo_destroy(t);
            return gcm_mpi_topo_no_mem(parent, call);
        }
        procs  = own;
        myrank = parent->rank;
    }
    rc = gcm_mpi_topo_derive(parent, parent->size, procs, myrank, t, call,
                             newcomm);
    free(own);
    return rc;
}

/* The record of this process for the agreement: its checks' verdict rc,
 * its reorder and hints (info), and two counts. */
static void dist_rec(MPI_Comm comm, int rc, int reorder, MPI_Info info,
                     int count, int count2, const char *call,
                     gcm_mpi_topo_rec_t *rec)
{
    gcm_mpi_topo_hints_t h = { GCM_LCO_MAP_SCOTCH, GCM_LCO_MAP_TIME_DEFAULT };

    memset(rec, 0, sizeof(*rec));
    if (rc == MPI_SUCCESS) {
        rc = gcm_mpi_topo_hints(comm, info, call, &h);
    }
    rec->err     = rc;
    rec->reorder = (reorder != 0);
    rec->count   = count;
    rec->count2  = count2;
    rec->method  = h.method;
    rec->time    = h.time;
}

/* Slots 0..n-1: every process of the old communicator plays a node. */
static int *all_slots(int n)
{
    int *slots = malloc((n > 0 ? (size_t)n : 1u) * sizeof(int));
    int v;

    if (slots != NULL) {
        for (v = 0; v < n; v++) {
            slots[v] = v;
        }
    }
    return slots;
}

/*
 * The mapping graph of n nodes from ne edges (src, dst, weight; weights
 * ignored, 1 each, if !weighted): CSR arrays the caller frees. 0, or -1
 * without memory.
 */
static int edges_csr(int n, int ne, const int *src, const int *dst,
                     const int *w, int stride, int weighted,
                     gcm_lco_map_graph_t *g, int **xadj_p, int **adj_p,
                     int **wgt_p)
{
    int *xadj = calloc((size_t)n + 1, sizeof(int));
    int *adj  = malloc((ne > 0 ? (size_t)ne : 1u) * sizeof(int));
    int *wgt  = malloc((ne > 0 ? (size_t)ne : 1u) * sizeof(int));
    int *fill = malloc(((size_t)n + 1) * sizeof(int));
    int i, v;

    *xadj_p = xadj;
    *adj_p  = adj;
    *wgt_p  = wgt;
    if (xadj == NULL || adj == NULL || wgt == NULL || fill == NULL) {
        free(fill);
        return -1;
    }
    for (i = 0; i < ne; i++) {
        xadj[src[(size_t)i * stride] + 1]++;
    }
    for (v = 0; v < n; v++) {
        xadj[v + 1] += xadj[v];
        fill[v] = xadj[v];
    }
    for (i = 0; i < ne; i++) {
        int k = fill[src[(size_t)i * stride]]++;

        adj[k] = dst[(size_t)i * stride];
        wgt[k] = weighted ? w[(size_t)i * stride] : 1;
    }
    free(fill);
    *g = (gcm_lco_map_graph_t){ n, xadj, adj, wgt };
    return 0;
}

/*
 * reorder in MPI_Dist_graph_create_adjacent: the lists of every process
 * are gathered (each as [weighted, sources, source weights, destinations,
 * destination weights], weights 1 when unweighted), the graph of all of
 * them mapped, and the process that becomes rank v takes the lists old
 * rank v gave (their ranks name nodes, which are the new ranks).
 */
static int adjacent_reordered(MPI_Comm comm, const gcm_mpi_topo_rec_t *all,
                              const int *mine, const char *call,
                              int *procs, struct gcm_mpi_topo **t_p,
                              int *myrank_p)
{
    int n = comm->size, r, k, rc;
    int *counts = malloc((size_t)n * sizeof(int));
    int *slots  = all_slots(n);
    int *displs = NULL, *lists = NULL, *src = NULL, *dst = NULL, *w = NULL;
    int *xadj = NULL, *adj = NULL, *wgt = NULL;
    long long ne = 0;
    gcm_lco_map_graph_t g;

    if (counts == NULL || slots == NULL) {
        rc = gcm_mpi_topo_no_mem(comm, call);
        goto out;
    }
    for (r = 0; r < n; r++) {
        counts[r] = 1 + 2 * (all[r].count + all[r].count2);
        ne       += all[r].count + all[r].count2;
    }
    rc = gcm_mpi_topo_gather_ints(comm, mine, counts, INT_MAX, call, &lists,
                                  &displs, NULL);
    if (rc != MPI_SUCCESS) {
        goto out;
    }
    src = malloc((ne > 0 ? (size_t)ne : 1u) * sizeof(int));
    dst = malloc((ne > 0 ? (size_t)ne : 1u) * sizeof(int));
    w   = malloc((ne > 0 ? (size_t)ne : 1u) * sizeof(int));
    if (src == NULL || dst == NULL || w == NULL) {
        rc = gcm_mpi_topo_no_mem(comm, call);
        goto out;
    }
    /* Both lists of every node count: an edge given at both ends weighs
     * twice, one given at one end only still weighs. */
    for (r = 0, k = 0; r < n; r++) {
        const int *l = lists + displs[r] + 1;
        int in = all[r].count, out = all[r].count2, i;

        for (i = 0; i < in; i++, k++) {
            src[k] = r;
            dst[k] = l[i];
            w[k]   = l[in + i];
        }
        for (i = 0; i < out; i++, k++) {
            src[k] = r;
            dst[k] = l[2 * in + i];
            w[k]   = l[2 * in + out + i];
        }
    }
    if (edges_csr(n, (int)ne, src, dst, w, 1, 1, &g, &xadj, &adj, &wgt) != 0) {
        rc = gcm_mpi_topo_no_mem(comm, call);
        goto out;
    }
    rc = gcm_mpi_topo_map(comm, &g, n, slots, all, call, procs, myrank_p);
    if (rc == MPI_SUCCESS) {
        const int *l = lists + displs[*myrank_p];
        int in = all[*myrank_p].count, out = all[*myrank_p].count2;
        int weighted = l[0];

        *t_p = gcm_mpi_topo_dist_new(
            in, gcm_mpi_topo_ints_dup(l + 1, in),
            weighted ? gcm_mpi_topo_ints_dup(l + 1 + in, in) : NULL, out,
            gcm_mpi_topo_ints_dup(l + 1 + 2 * in, out),
            weighted ? gcm_mpi_topo_ints_dup(l + 1 + 2 * in + out, out) : NULL,
            weighted);
        if (*t_p == NULL) {
            rc = gcm_mpi_topo_no_mem(comm, call);
        }
    }
out:
    free(counts);
    free(displs);
    free(slots);
    free(lists);
    free(src);
    free(dst);
    free(w);
    free(xadj);
    free(adj);
    free(wgt);
    return rc;
}

int PMPI_Dist_graph_create_adjacent(MPI_Comm comm_old, int indegree,
                                    const int sources[],
                                    const int *sourceweights, int outdegree,
                                    const int destinations[],
                                    const int *destweights, MPI_Info info,
                                    int reorder, MPI_Comm *comm_dist_graph)
{
    static const char call[] = "MPI_Dist_graph_create_adjacent";
    struct gcm_mpi_topo *t = NULL;
    gcm_mpi_topo_rec_t mine, *all = NULL;
    int *procs = NULL, *slots = NULL, *pack = NULL;
    int rc, weighted, myrank = -1, i, packlen = 0;

    rc = gcm_mpi_topo_check_intra(comm_old, call);
    if (rc != MPI_SUCCESS) {
        return rc;
    }
    /* From here on every process takes part in the agreement. */
    rc = check_edges(comm_old, indegree, sources, sourceweights,
                     "sources", call);
    if (rc == MPI_SUCCESS) {
        rc = check_edges(comm_old, outdegree, destinations, destweights,
                         "destinations", call);
    }
    if (rc == MPI_SUCCESS) {
        rc = check_info_arg(comm_old, info, call);
    }
    if (rc == MPI_SUCCESS && comm_dist_graph == NULL) {
        rc = gcm_mpi_raise(comm_old, MPI_ERR_ARG, call,
                           "comm_dist_graph is NULL");
    }
    dist_rec(comm_old, rc, reorder, info, rc == MPI_SUCCESS ? indegree : 0,
             rc == MPI_SUCCESS ? outdegree : 0, call, &mine);
    rc = gcm_mpi_topo_agree(comm_old, &mine, MPI_ERR_ARG, "arguments", call,
                            &all);
    if (rc != MPI_SUCCESS) {
        return rc;
    }
    /* MPI_UNWEIGHTED is given for both lists or neither (MPI-3.1 7.5.4). */
    weighted = !is_unweighted(sourceweights) && !is_unweighted(destweights);
    slots = all_slots(comm_old->size);
    procs = malloc((size_t)comm_old->size * sizeof(int));
    if (slots == NULL || procs == NULL) {
        rc = gcm_mpi_topo_no_mem(comm_old, call);
        goto out;
    }
    if (gcm_mpi_topo_wants_map(comm_old, all, comm_old->size, slots)) {
        packlen = 1 + 2 * (indegree + outdegree);
        pack    = malloc((size_t)packlen * sizeof(int));
        if (pack == NULL) {
            rc = gcm_mpi_topo_no_mem(comm_old, call);
            goto out;
        }
        pack[0] = weighted;
        for (i = 0; i < indegree; i++) {
            pack[1 + i]            = sources[i];
            pack[1 + indegree + i] = weighted ? sourceweights[i] : 1;
        }
        for (i = 0; i < outdegree; i++) {
            pack[1 + 2 * indegree + i] = destinations[i];
            pack[1 + 2 * indegree + outdegree + i] =
                weighted ? destweights[i] : 1;
        }
        rc = adjacent_reordered(comm_old, all, pack, call, procs, &t,
                                &myrank);
        if (rc != MPI_SUCCESS) {
            goto out;
        }
        rc = derive_all(comm_old, procs, myrank, t, call, comm_dist_graph);
        goto out;
    }
    t = gcm_mpi_topo_dist_new(
        indegree, gcm_mpi_topo_ints_dup(sources, indegree),
        weighted ? gcm_mpi_topo_ints_dup(indegree > 0 ? sourceweights : NULL,
                                         indegree)
                 : NULL,
        outdegree, gcm_mpi_topo_ints_dup(destinations, outdegree),
        weighted ? gcm_mpi_topo_ints_dup(outdegree > 0 ? destweights : NULL,
                                         outdegree)
                 : NULL,
        weighted);
    if (t == NULL) {
        rc = gcm_mpi_topo_no_mem(comm_old, call);
        goto out;
    }
    rc = derive_all(comm_old, NULL, -1, t, call, comm_dist_graph);
out:
    free(all);
    free(slots);
    free(procs);
    free(pack);
    return rc;
}
GCM_MPI_ALIAS(Dist_graph_create_adjacent)

typedef gcm_mpi_topo_edge_t dist_edge_t;

/*
 * Sends every edge this process has to owner1[i] and, unless it is -1,
 * owner2[i], and collects the edges sent here: MPI_Alltoall of the
 * counts, then MPI_Alltoallv of the edges. Edges are kept in (giver rank,
 * order given) order at both ends, so that the k-th of several edges a ->
 * b is the k-th at a and at b, which is what neighbour collectives match
 * messages by. The collectives raise their own failures on comm.
 */
int gcm_mpi_topo_exchange_edges(MPI_Comm comm, int nedges,
                                const gcm_mpi_topo_edge_t *mine,
                                const int *owner1, const int *owner2,
                                gcm_mpi_topo_edge_t **got_p, int *ngot_p,
                                const char *call)
{
    int size = comm->size;
    int *scount = calloc((size_t)size, sizeof(int));
    int *rcount = calloc((size_t)size, sizeof(int));
    int *sdispl = calloc((size_t)size + 1, sizeof(int));
    int *rdispl = calloc((size_t)size + 1, sizeof(int));
    int *fill   = calloc((size_t)size, sizeof(int));
    dist_edge_t *sbuf = NULL, *rbuf = NULL;
    MPI_Datatype edge_type = MPI_DATATYPE_NULL;
    int i, q, rc = MPI_SUCCESS;
    long long total = 0;

    if (scount == NULL || rcount == NULL || sdispl == NULL ||
        rdispl == NULL || fill == NULL) {
        rc = gcm_mpi_topo_no_mem(comm, call);
        goto out;
    }
    if (nedges > INT_MAX / 2) {
        rc = gcm_mpi_raise(comm, MPI_ERR_COUNT, call,
                           "%d edges are more than one call can exchange",
                           nedges);
        goto out;
    }
    for (i = 0; i < nedges; i++) {
        scount[owner1[i]]++;
        if (owner2[i] >= 0) {
            scount[owner2[i]]++;
        }
    }
    for (q = 0; q < size; q++) {
        sdispl[q + 1] = sdispl[q] + scount[q];
        fill[q]       = sdispl[q];
    }
    sbuf = malloc((sdispl[size] > 0 ? (size_t)sdispl[size] : 1u) *
                  sizeof(dist_edge_t));
    if (sbuf == NULL) {
        rc = gcm_mpi_topo_no_mem(comm, call);
        goto out;
    }
    for (i = 0; i < nedges; i++) {
        sbuf[fill[owner1[i]]++] = mine[i];
        if (owner2[i] >= 0) {
            sbuf[fill[owner2[i]]++] = mine[i];
        }
    }
    rc = PMPI_Alltoall(scount, 1, MPI_INT, rcount, 1, MPI_INT, comm);
    if (rc != MPI_SUCCESS) {
        goto out;
    }
    for (q = 0; q < size; q++) {
        rdispl[q] = (int)total;
        total    += rcount[q];
        if (rcount[q] < 0 || total > INT_MAX) {
            rc = gcm_mpi_raise(comm, MPI_ERR_COUNT, call,
                               "edge count %d from rank %d is not valid",
                               rcount[q], q);
            goto out;
        }
    }
    rbuf = malloc((total > 0 ? (size_t)total : 1u) * sizeof(dist_edge_t));
    if (rbuf == NULL) {
        rc = gcm_mpi_topo_no_mem(comm, call);
        goto out;
    }
    rc = PMPI_Type_contiguous((int)sizeof(dist_edge_t), MPI_BYTE,
                              &edge_type);
    if (rc == MPI_SUCCESS) {
        rc = PMPI_Type_commit(&edge_type);
    }
    if (rc == MPI_SUCCESS) {
        rc = PMPI_Alltoallv(sbuf, scount, sdispl, edge_type, rbuf, rcount,
                            rdispl, edge_type, comm);
    }
    if (rc != MPI_SUCCESS) {
        goto out;
    }
    *got_p  = rbuf;
    *ngot_p = (int)total;
    rbuf    = NULL;
out:
    if (edge_type != MPI_DATATYPE_NULL) {
        PMPI_Type_free(&edge_type);
    }
    free(scount);
    free(rcount);
    free(sdispl);
    free(rdispl);
    free(fill);
    free(sbuf);
    free(rbuf);
    return rc;
}

/*
 * This process's lists from the edges it got (in the order got): in-edges
 * those ending at node me, out-edges those starting there (an edge from a
 * node to itself is both). The weights only if weighted. NULL: no memory.
 */
static struct gcm_mpi_topo *dist_lists(const dist_edge_t *got, int ngot,
                                       int me, int weighted)
{
    int *srcs, *dsts, *sw = NULL, *dw = NULL;
    int i, j, k, indeg = 0, outdeg = 0;

    for (i = 0; i < ngot; i++) {
        indeg  += (got[i].dst == me);
        outdeg += (got[i].src == me);
    }
    srcs = malloc((indeg > 0 ? (size_t)indeg : 1u) * sizeof(int));
    dsts = malloc((outdeg > 0 ? (size_t)outdeg : 1u) * sizeof(int));
    if (weighted) {
        sw = malloc((indeg > 0 ? (size_t)indeg : 1u) * sizeof(int));
        dw = malloc((outdeg > 0 ? (size_t)outdeg : 1u) * sizeof(int));
    }
    if (srcs != NULL && dsts != NULL && (!weighted || (sw && dw))) {
        for (i = 0, j = 0, k = 0; i < ngot; i++) {
            if (got[i].dst == me) {
                srcs[j] = got[i].src;
                if (weighted) {
                    sw[j] = got[i].weight;
                }
                j++;
            }
            if (got[i].src == me) {
                dsts[k] = got[i].dst;
                if (weighted) {
                    dw[k] = got[i].weight;
                }
                k++;
            }
        }
    }
    return gcm_mpi_topo_dist_new(indeg, srcs, sw, outdeg, dsts, dw, weighted);
}

/*
 * reorder in MPI_Dist_graph_create: every process gets every edge (an
 * allgatherv, in (giver rank, order given) order, the order the exchange
 * without reordering keeps too), the graph is mapped, and the process
 * that becomes rank v keeps the edges of node v.
 */
static int create_reordered(MPI_Comm comm, const gcm_mpi_topo_rec_t *all,
                            const dist_edge_t *mine, int weighted,
                            const char *call, int *procs,
                            struct gcm_mpi_topo **t_p, int *myrank_p)
{
    int n = comm->size, r, rc;
    int *counts = malloc((size_t)n * sizeof(int));
    int *slots  = all_slots(n);
    int *displs = NULL, *xadj = NULL, *adj = NULL, *wgt = NULL;
    dist_edge_t *edges = NULL;
    long long total = 0;
    gcm_lco_map_graph_t g;

    if (counts == NULL || slots == NULL) {
        rc = gcm_mpi_topo_no_mem(comm, call);
        goto out;
    }
    for (r = 0; r < n; r++) {
        counts[r] = 3 * all[r].count;
    }
    _Static_assert(sizeof(dist_edge_t) == 3 * sizeof(int),
                   "an edge travels as three ints");
    rc = gcm_mpi_topo_gather_ints(comm, (const int *)mine, counts, INT_MAX,
                                  call, (int **)&edges, &displs, &total);
    if (rc != MPI_SUCCESS) {
        goto out;
    }
    if (edges_csr(n, (int)(total / 3), &edges[0].src, &edges[0].dst,
                  &edges[0].weight, 3, weighted, &g, &xadj, &adj,
                  &wgt) != 0) {
        rc = gcm_mpi_topo_no_mem(comm, call);
        goto out;
    }
    rc = gcm_mpi_topo_map(comm, &g, n, slots, all, call, procs, myrank_p);
    if (rc == MPI_SUCCESS) {
        *t_p = dist_lists(edges, (int)(total / 3), *myrank_p, weighted);
        if (*t_p == NULL) {
            rc = gcm_mpi_topo_no_mem(comm, call);
        }
    }
out:
    free(counts);
    free(displs);
    free(slots);
    free(edges);
    free(xadj);
    free(adj);
    free(wgt);
    return rc;
}

int PMPI_Dist_graph_create(MPI_Comm comm_old, int n, const int sources[],
                           const int degrees[], const int destinations[],
                           const int *weights, MPI_Info info, int reorder,
                           MPI_Comm *comm_dist_graph)
{
    static const char call[] = "MPI_Dist_graph_create";
    dist_edge_t *mine = NULL, *got = NULL;
    int *owner1 = NULL, *owner2 = NULL, *procs = NULL, *slots = NULL;
    int rc, i, j, k, nedges = 0, ngot = 0, weighted, myrank = -1;
    gcm_mpi_topo_rec_t rec, *all = NULL;
    struct gcm_mpi_topo *t = NULL;

    rc = gcm_mpi_topo_check_intra(comm_old, call);
    if (rc != MPI_SUCCESS) {
        return rc;
    }
    /* From here on every process takes part in the agreement. */
    if (n < 0) {
        rc = gcm_mpi_raise(comm_old, MPI_ERR_ARG, call,
                           "n (%d) is negative", n);
    } else if (n > 0 && (sources == NULL || degrees == NULL)) {
        rc = gcm_mpi_raise(comm_old, MPI_ERR_ARG, call,
                           "sources or degrees is NULL");
    }
    for (i = 0; rc == MPI_SUCCESS && i < n; i++) {
        if (degrees[i] < 0 || nedges > INT_MAX / 3 - degrees[i]) {
            rc = gcm_mpi_raise(comm_old, MPI_ERR_ARG, call,
                               "degrees[%d] = %d is negative or too "
                               "large", i, degrees[i]);
        } else {
            nedges += degrees[i];
        }
    }
    if (rc == MPI_SUCCESS) {
        rc = check_ranks(comm_old, n, sources, "sources", call);
    }
    if (rc == MPI_SUCCESS) {
        rc = check_edges(comm_old, nedges, destinations, weights,
                         "destinations", call);
    }
    if (rc == MPI_SUCCESS) {
        rc = check_info_arg(comm_old, info, call);
    }
    if (rc == MPI_SUCCESS && comm_dist_graph == NULL) {
        rc = gcm_mpi_raise(comm_old, MPI_ERR_ARG, call,
                           "comm_dist_graph is NULL");
    }
    dist_rec(comm_old, rc, reorder, info, rc == MPI_SUCCESS ? nedges : 0, 0,
             call, &rec);
    rc = gcm_mpi_topo_agree(comm_old, &rec, MPI_ERR_ARG, "arguments", call,
                            &all);
    if (rc != MPI_SUCCESS) {
        return rc;
    }
    weighted = !is_unweighted(weights);
    mine   = malloc((nedges > 0 ? (size_t)nedges : 1u) * sizeof(*mine));
    owner1 = malloc((nedges > 0 ? (size_t)nedges : 1u) * sizeof(int));
    owner2 = malloc((nedges > 0 ? (size_t)nedges : 1u) * sizeof(int));
    slots  = all_slots(comm_old->size);
    procs  = malloc((size_t)comm_old->size * sizeof(int));
    if (mine == NULL || owner1 == NULL || owner2 == NULL || slots == NULL ||
        procs == NULL) {
        rc = gcm_mpi_topo_no_mem(comm_old, call);
        goto out;
    }
    for (i = 0, k = 0; i < n; i++) {
        for (j = 0; j < degrees[i]; j++, k++) {
            mine[k].src    = sources[i];
            mine[k].dst    = destinations[k];
            mine[k].weight = (weighted && nedges > 0) ? weights[k] : 0;
            owner1[k] = mine[k].src;
            owner2[k] = (mine[k].dst != mine[k].src) ? mine[k].dst : -1;
        }
    }
    if (gcm_mpi_topo_wants_map(comm_old, all, comm_old->size, slots)) {
        rc = create_reordered(comm_old, all, mine, weighted, call, procs,
                              &t, &myrank);
        if (rc == MPI_SUCCESS) {
            rc = derive_all(comm_old, procs, myrank, t, call,
                            comm_dist_graph);
        }
        goto out;
    }
    rc = gcm_mpi_topo_exchange_edges(comm_old, nedges, mine, owner1, owner2,
                                     &got, &ngot, call);
    if (rc != MPI_SUCCESS) {
        goto out;
    }
    t = dist_lists(got, ngot, comm_old->rank, weighted);
    if (t == NULL) {
        rc = gcm_mpi_topo_no_mem(comm_old, call);
        goto out;
    }
    rc = derive_all(comm_old, NULL, -1, t, call, comm_dist_graph);
out:
    free(all);
    free(mine);
    free(owner1);
    free(owner2);
    free(slots);
    free(procs);
    free(got);
    return rc;
}
GCM_MPI_ALIAS(Dist_graph_create)

/*
 * comm's distributed graph, or its graph: a graph's edges are each
 * process's in- and out-edges alike, weighted by their multiplicity when
 * the graph comes from MPIX_Graph_create.
 */
static int dist_or_graph(MPI_Comm comm, const char *call,
                         struct gcm_mpi_topo **t_p)
{
    int rc = gcm_mpi_topo_get(comm, 0, call, t_p);

    if (rc == MPI_SUCCESS && (*t_p)->kind == MPI_CART) {
        return gcm_mpi_raise(comm, MPI_ERR_TOPOLOGY, call,
                             "the communicator has a Cartesian topology, "
                             "not a (distributed) graph one");
    }
    return rc;
}

int PMPI_Dist_graph_neighbors_count(MPI_Comm comm, int *indegree,
                                    int *outdegree, int *weighted)
{
    static const char call[] = "MPI_Dist_graph_neighbors_count";
    struct gcm_mpi_topo *t = NULL;
    int rc = dist_or_graph(comm, call, &t);

    if (rc != MPI_SUCCESS) {
        return rc;
    }
    if (indegree == NULL || outdegree == NULL || weighted == NULL) {
        return gcm_mpi_raise(comm, MPI_ERR_ARG, call,
                             "indegree, outdegree or weighted is NULL");
    }
    if (t->kind == MPI_GRAPH) {
        *indegree = *outdegree = t->degree;
        *weighted = t->scalable;
        return MPI_SUCCESS;
    }
    *indegree  = t->indegree;
    *outdegree = t->outdegree;
    *weighted  = t->weighted;
    return MPI_SUCCESS;
}
GCM_MPI_ALIAS(Dist_graph_neighbors_count)

/* Is w an array the caller wants weights in? */
static int wants_weights(const int *w)
{
    return w != NULL && w != MPI_UNWEIGHTED && w != MPI_WEIGHTS_EMPTY;
}

int PMPI_Dist_graph_neighbors(MPI_Comm comm, int maxindegree, int sources[],
                              int *sourceweights, int maxoutdegree,
                              int destinations[], int *destweights)
{
    static const char call[] = "MPI_Dist_graph_neighbors";
    struct gcm_mpi_topo *t = NULL;
    struct gcm_mpi_topo view;
    int rc = dist_or_graph(comm, call, &t);

    if (rc != MPI_SUCCESS) {
        return rc;
    }
    if (t->kind == MPI_GRAPH) {
        memset(&view, 0, sizeof(view));
        view.indegree = view.outdegree = t->degree;
        view.sources = view.destinations = t->nbrs;
        view.sourceweights = view.destweights = t->nbr_weights;
        view.weighted = t->scalable;
        t = &view;
    }
    if (maxindegree < 0 || maxoutdegree < 0) {
        return gcm_mpi_raise(comm, MPI_ERR_ARG, call,
                             "maxindegree (%d) or maxoutdegree (%d) is "
                             "negative", maxindegree, maxoutdegree);
    }
    if ((maxindegree > 0 && t->indegree > 0 && sources == NULL) ||
        (maxoutdegree > 0 && t->outdegree > 0 && destinations == NULL)) {
        return gcm_mpi_raise(comm, MPI_ERR_ARG, call,
                             "sources or destinations is NULL");
    }
    gcm_mpi_topo_copy_some(sources, t->sources, t->indegree, maxindegree);
    gcm_mpi_topo_copy_some(destinations, t->destinations, t->outdegree,
                           maxoutdegree);
    if (t->weighted != 0) {
        if (wants_weights(sourceweights)) {
            gcm_mpi_topo_copy_some(sourceweights, t->sourceweights,
                                   t->indegree, maxindegree);
        }
        if (wants_weights(destweights)) {
            gcm_mpi_topo_copy_some(destweights, t->destweights, t->outdegree,
                                   maxoutdegree);
        }
    }
    return MPI_SUCCESS;
}
GCM_MPI_ALIAS(Dist_graph_neighbors)

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
static struct gcm_mpi_topo *dist_topo_new(int indeg, int *srcs, int *sw,
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
 * process). */
static int derive_all(MPI_Comm parent, struct gcm_mpi_topo *t,
                      const char *call, MPI_Comm *newcomm)
{
    int *procs = gcm_mpi_topo_first_procs(parent, parent->size);
    int rc;

    if (procs == NULL) {
        gcm_mpi_topo_destroy(t);
        return gcm_mpi_topo_no_mem(parent, call);
    }
    rc = gcm_mpi_topo_derive(parent, parent->size, procs, parent->rank, t,
                             call, newcomm);
    free(procs);
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
    struct gcm_mpi_topo *t;
    int rc, weighted;

    (void)reorder;  /* identity mapping: see the top of the file */
    rc = gcm_mpi_topo_check_intra(comm_old, call);
    if (rc == MPI_SUCCESS) {
        rc = check_edges(comm_old, indegree, sources, sourceweights,
                         "sources", call);
    }
    if (rc == MPI_SUCCESS) {
        rc = check_edges(comm_old, outdegree, destinations, destweights,
                         "destinations", call);
    }
    if (rc == MPI_SUCCESS) {
        rc = check_info_arg(comm_old, info, call);
    }
    if (rc != MPI_SUCCESS) {
        return rc;
    }
    if (comm_dist_graph == NULL) {
        return gcm_mpi_raise(comm_old, MPI_ERR_ARG, call,
                             "comm_dist_graph is NULL");
    }
    /* MPI_UNWEIGHTED is given for both lists or neither (MPI-3.1 7.5.4). */
    weighted = !is_unweighted(sourceweights) && !is_unweighted(destweights);
    t = dist_topo_new(indegree, gcm_mpi_topo_ints_dup(sources, indegree),
                      weighted ? gcm_mpi_topo_ints_dup(
                                     indegree > 0 ? sourceweights : NULL,
                                     indegree)
                               : NULL,
                      outdegree,
                      gcm_mpi_topo_ints_dup(destinations, outdegree),
                      weighted ? gcm_mpi_topo_ints_dup(
                                     outdegree > 0 ? destweights : NULL,
                                     outdegree)
                               : NULL,
                      weighted);
    if (t == NULL) {
        return gcm_mpi_topo_no_mem(comm_old, call);
    }
    return derive_all(comm_old, t, call, comm_dist_graph);
}
GCM_MPI_ALIAS(Dist_graph_create_adjacent)

/* One edge as MPI_Dist_graph_create ships it to its two ends. */
typedef struct dist_edge {
    int src;
    int dst;
    int weight;
} dist_edge_t;

/*
 * Sends every edge this process was given to its source and its
 * destination (once if they are the same process), and collects the
 * edges that start or end here: MPI_Alltoall of the counts, then
 * MPI_Alltoallv of the edges. Edges are kept in (giver rank, order given)
 * order at both ends, so that the k-th of several edges a -> b is the k-th
 * at a and at b, which is what neighbour collectives match messages by.
 * The collectives raise their own failures on comm.
 */
static int dist_exchange(MPI_Comm comm, int nedges, const dist_edge_t *mine,
                         const int *owner2, dist_edge_t **got_p,
                         int *ngot_p, const char *call)
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
    /* owner2[i] is the second end of edge i, or -1 if it is the first. */
    for (i = 0; i < nedges; i++) {
        scount[mine[i].src]++;
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
        sbuf[fill[mine[i].src]++] = mine[i];
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

int PMPI_Dist_graph_create(MPI_Comm comm_old, int n, const int sources[],
                           const int degrees[], const int destinations[],
                           const int *weights, MPI_Info info, int reorder,
                           MPI_Comm *comm_dist_graph)
{
    static const char call[] = "MPI_Dist_graph_create";
    dist_edge_t *mine = NULL, *got = NULL;
    int *owner2 = NULL, *srcs = NULL, *sw = NULL, *dsts = NULL, *dw = NULL;
    int rc, i, j, k, nedges = 0, ngot = 0, indeg = 0, outdeg = 0;
    int weighted, me;
    struct gcm_mpi_topo *t;

    (void)reorder;  /* identity mapping: see the top of the file */
    rc = gcm_mpi_topo_check_intra(comm_old, call);
    if (rc != MPI_SUCCESS) {
        return rc;
    }
    if (n < 0) {
        return gcm_mpi_raise(comm_old, MPI_ERR_ARG, call,
                             "n (%d) is negative", n);
    }
    if (n > 0 && (sources == NULL || degrees == NULL)) {
        return gcm_mpi_raise(comm_old, MPI_ERR_ARG, call,
                             "sources or degrees is NULL");
    }
    for (i = 0; i < n; i++) {
        if (degrees[i] < 0 || nedges > INT_MAX - degrees[i]) {
            return gcm_mpi_raise(comm_old, MPI_ERR_ARG, call,
                                 "degrees[%d] = %d is negative or too "
                                 "large", i, degrees[i]);
        }
        nedges += degrees[i];
    }
    rc = check_ranks(comm_old, n, sources, "sources", call);
    if (rc == MPI_SUCCESS) {
        rc = check_edges(comm_old, nedges, destinations, weights,
                         "destinations", call);
    }
    if (rc == MPI_SUCCESS) {
        rc = check_info_arg(comm_old, info, call);
    }
    if (rc != MPI_SUCCESS) {
        return rc;
    }
    if (comm_dist_graph == NULL) {
        return gcm_mpi_raise(comm_old, MPI_ERR_ARG, call,
                             "comm_dist_graph is NULL");
    }
    weighted = !is_unweighted(weights);
    mine   = malloc((nedges > 0 ? (size_t)nedges : 1u) * sizeof(*mine));
    owner2 = malloc((nedges > 0 ? (size_t)nedges : 1u) * sizeof(int));
    if (mine == NULL || owner2 == NULL) {
        free(mine);
        free(owner2);
        return gcm_mpi_topo_no_mem(comm_old, call);
    }
    for (i = 0, k = 0; i < n; i++) {
        for (j = 0; j < degrees[i]; j++, k++) {
            mine[k].src    = sources[i];
            mine[k].dst    = destinations[k];
            mine[k].weight = (weighted && nedges > 0) ? weights[k] : 0;
            owner2[k] = (mine[k].dst != mine[k].src) ? mine[k].dst : -1;
        }
    }
    rc = dist_exchange(comm_old, nedges, mine, owner2, &got, &ngot, call);
    free(mine);
    free(owner2);
    if (rc != MPI_SUCCESS) {
        return rc;
    }
    me = comm_old->rank;
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
    free(got);
    t = dist_topo_new(indeg, srcs, sw, outdeg, dsts, dw, weighted);
    if (t == NULL) {
        return gcm_mpi_topo_no_mem(comm_old, call);
    }
    return derive_all(comm_old, t, call, comm_dist_graph);
}
GCM_MPI_ALIAS(Dist_graph_create)

int PMPI_Dist_graph_neighbors_count(MPI_Comm comm, int *indegree,
                                    int *outdegree, int *weighted)
{
    static const char call[] = "MPI_Dist_graph_neighbors_count";
    struct gcm_mpi_topo *t = NULL;
    int rc = gcm_mpi_topo_get(comm, MPI_DIST_GRAPH, call, &t);

    if (rc != MPI_SUCCESS) {
        return rc;
    }
    if (indegree == NULL || outdegree == NULL || weighted == NULL) {
        return gcm_mpi_raise(comm, MPI_ERR_ARG, call,
                             "indegree, outdegree or weighted is NULL");
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
    int rc = gcm_mpi_topo_get(comm, MPI_DIST_GRAPH, call, &t);

    if (rc != MPI_SUCCESS) {
        return rc;
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

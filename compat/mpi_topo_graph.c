/*
 * compat/mpi_topo_graph.c: graph topologies (MPI_Graph_*) and
 * MPI_Topo_test.
 */
#include "config.h"

#include "compat/mpi_topo_impl.h"

#include <limits.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/* ---- graphs --------------------------------------------------------------- */

/* Checks MPI_Graph_create/MPI_Graph_map arguments (nnodes, index, edges
 * against a communicator of nprocs processes). */
static int check_graph(MPI_Comm comm, int nnodes, const int index[],
                       const int edges[], const char *call)
{
    int i, nedges;

    if (nnodes < 0 || nnodes > comm->size) {
        return gcm_mpi_raise(comm, MPI_ERR_ARG, call,
                             "nnodes (%d) is not in 0..%d", nnodes,
                             comm->size);
    }
    if (nnodes == 0) {
        return MPI_SUCCESS;
    }
    if (index == NULL) {
        return gcm_mpi_raise(comm, MPI_ERR_ARG, call, "index is NULL");
    }
    for (i = 0; i < nnodes; i++) {
        if (index[i] < (i > 0 ? index[i - 1] : 0)) {
            return gcm_mpi_raise(comm, MPI_ERR_ARG, call,
                                 "index[%d] = %d is negative or less "
                                 "than the one before", i, index[i]);
        }
    }
    nedges = index[nnodes - 1];
    if (nedges > 0 && edges == NULL) {
        return gcm_mpi_raise(comm, MPI_ERR_ARG, call, "edges is NULL");
    }
    for (i = 0; i < nedges; i++) {
        if (edges[i] < 0 || edges[i] >= nnodes) {
            return gcm_mpi_raise(comm, MPI_ERR_ARG, call,
                                 "edges[%d] = %d is not a node (0..%d)", i,
                                 edges[i], nnodes - 1);
        }
    }
    return MPI_SUCCESS;
}

/* The CSR form of MPI_Graph_create's arguments, for the mapping. */
static gcm_lco_map_graph_t graph_csr(int nnodes, const int index[],
                                     const int edges[], int *xadj)
{
    int v;

    xadj[0] = 0;
    for (v = 0; v < nnodes; v++) {
        xadj[v + 1] = index[v];
    }
    return (gcm_lco_map_graph_t){ nnodes, xadj, edges, NULL };
}

/* The topology of node v of MPI_Graph_create's graph (NULL: no memory). */
static struct gcm_mpi_topo *graph_topo_new(int nnodes, const int index[],
                                           const int edges[], int v)
{
    struct gcm_mpi_topo *t = calloc(1, sizeof(*t));
    int first = (v > 0) ? index[v - 1] : 0, k;

    if (t == NULL) {
        return NULL;
    }
    t->kind        = MPI_GRAPH;
    t->nnodes      = nnodes;
    t->nedges      = index[nnodes - 1];
    t->index       = gcm_mpi_topo_ints_dup(index, nnodes);
    t->edges       = gcm_mpi_topo_ints_dup(edges, t->nedges);
    t->degree      = index[v] - first;
    t->nbrs        = gcm_mpi_topo_ints_dup(edges + first, t->degree);
    t->nbr_weights = malloc((t->degree > 0 ? (size_t)t->degree : 1u) *
                            sizeof(int));
    if (t->index == NULL || t->edges == NULL || t->nbrs == NULL ||
        t->nbr_weights == NULL) {
        gcm_mpi_topo_destroy(t);
        return NULL;
    }
    for (k = 0; k < t->degree; k++) {
        t->nbr_weights[k] = 1;
    }
    return t;
}

int PMPI_Graph_create(MPI_Comm comm_old, int nnodes, const int index[],
                      const int edges[], int reorder, MPI_Comm *comm_graph)
{
    static const char call[] = "MPI_Graph_create";
    struct gcm_mpi_topo *t = NULL;
    gcm_mpi_topo_rec_t mine, *all = NULL;
    int *procs = NULL, *slots = NULL, *xadj = NULL;
    int rc, v, myrank;

    rc = gcm_mpi_topo_check_intra(comm_old, call);
    if (rc != MPI_SUCCESS) {
        return rc;
    }
    /* From here on every process takes part in the agreement, so that a
     * bad argument or a graph that differs fails everywhere. */
    memset(&mine, 0, sizeof(mine));
    mine.err = check_graph(comm_old, nnodes, index, edges, call);
    if (mine.err == MPI_SUCCESS && comm_graph == NULL) {
        mine.err = gcm_mpi_raise(comm_old, MPI_ERR_ARG, call,
                                 "comm_graph is NULL");
    }
    mine.reorder = (reorder != 0);
    mine.method  = GCM_LCO_MAP_SCOTCH;
    mine.time    = GCM_LCO_MAP_TIME_DEFAULT;
    if (mine.err == MPI_SUCCESS) {
        mine.args = gcm_mpi_topo_hash_ints(0, &nnodes, 1);
        if (nnodes > 0) {
            mine.args = gcm_mpi_topo_hash_ints(mine.args, index, nnodes);
            mine.args = gcm_mpi_topo_hash_ints(mine.args, edges,
                                               index[nnodes - 1]);
        }
    }
    rc = gcm_mpi_topo_agree(comm_old, &mine, MPI_ERR_ARG,
                            "nnodes, index or edges", call, &all);
    if (rc != MPI_SUCCESS) {
        return rc;
    }
    /* No nodes: MPI_COMM_NULL everywhere, and every member skips the
     * derivation alike, so identities stay in step. */
    if (nnodes == 0) {
        free(all);
        *comm_graph = MPI_COMM_NULL;
        return MPI_SUCCESS;
    }
    procs = malloc((size_t)nnodes * sizeof(int));
    slots = malloc((size_t)nnodes * sizeof(int));
    xadj  = malloc(((size_t)nnodes + 1) * sizeof(int));
    if (procs == NULL || slots == NULL || xadj == NULL) {
        rc = gcm_mpi_topo_no_mem(comm_old, call);
        goto out;
    }
    /* Node v is new rank v; the processes of old ranks 0..nnodes-1
     * play them, each its own node unless the mapping moves it. */
    myrank = -1;
    for (v = 0; v < nnodes; v++) {
        slots[v] = v;
        procs[v] = gcm_mpi_comm_proc(comm_old, v);
        if (v == comm_old->rank) {
            myrank = v;
        }
    }
    if (gcm_mpi_topo_wants_map(comm_old, all, nnodes, slots)) {
        gcm_lco_map_graph_t g = graph_csr(nnodes, index, edges, xadj);

        rc = gcm_mpi_topo_map(comm_old, &g, nnodes, slots, all, call, procs,
                              &myrank);
        if (rc != MPI_SUCCESS) {
            goto out;
        }
    }
    if (myrank >= 0) {
        t = graph_topo_new(nnodes, index, edges, myrank);
        if (t == NULL) {
            /* Others are in the collective derivation already. */
            rc = gcm_mpi_topo_no_mem(comm_old, call);
            goto out;
        }
    }
    rc = gcm_mpi_topo_derive(comm_old, myrank >= 0 ? nnodes : 0, procs,
                             myrank, t, call, comm_graph);
out:
    free(all);
    free(procs);
    free(slots);
    free(xadj);
    return rc;
}
GCM_MPI_ALIAS(Graph_create)

int PMPI_Graphdims_get(MPI_Comm comm, int *nnodes, int *nedges)
{
    static const char call[] = "MPI_Graphdims_get";
    struct gcm_mpi_topo *t = NULL;
    int rc = gcm_mpi_topo_get(comm, MPI_GRAPH, call, &t);

    if (rc != MPI_SUCCESS) {
        return rc;
    }
    if (nnodes == NULL || nedges == NULL) {
        return gcm_mpi_raise(comm, MPI_ERR_ARG, call,
                             "nnodes or nedges is NULL");
    }
    *nnodes = t->nnodes;
    *nedges = t->nedges;
    return MPI_SUCCESS;
}
GCM_MPI_ALIAS(Graphdims_get)

int PMPI_Graph_get(MPI_Comm comm, int maxindex, int maxedges, int index[],
                   int edges[])
{
    static const char call[] = "MPI_Graph_get";
    struct gcm_mpi_topo *t = NULL;
    int rc = gcm_mpi_topo_get(comm, MPI_GRAPH, call, &t);

    if (rc != MPI_SUCCESS) {
        return rc;
    }
    if (maxindex < 0 || maxedges < 0) {
        return gcm_mpi_raise(comm, MPI_ERR_ARG, call,
                             "maxindex (%d) or maxedges (%d) is negative",
                             maxindex, maxedges);
    }
    if ((maxindex > 0 && index == NULL) || (maxedges > 0 && edges == NULL)) {
        return gcm_mpi_raise(comm, MPI_ERR_ARG, call,
                             "index or edges is NULL");
    }
    if (t->index == NULL) {
        rc = gcm_mpi_topo_sgraph_gather(comm, t, call);
        if (rc != MPI_SUCCESS) {
            return rc;
        }
    }
    gcm_mpi_topo_copy_some(index, t->index, t->nnodes, maxindex);
    gcm_mpi_topo_copy_some(edges, t->edges, t->nedges, maxedges);
    return MPI_SUCCESS;
}
GCM_MPI_ALIAS(Graph_get)

/* The neighbours of node rank of comm's graph t, in *nbrs_p and
 * *count_p: this process's own always, another's only once the whole
 * graph is known (else MPI_ERR_TOPOLOGY). */
static int graph_adjacency(MPI_Comm comm, const struct gcm_mpi_topo *t,
                           int rank, const char *call, const int **nbrs_p,
                           int *count_p)
{
    int first;

    if (rank < 0 || rank >= t->nnodes) {
        return gcm_mpi_raise(comm, MPI_ERR_RANK, call,
                             "rank %d is not a node (0..%d)", rank,
                             t->nnodes - 1);
    }
    if (rank == comm->rank) {
        *nbrs_p  = t->nbrs;
        *count_p = t->degree;
        return MPI_SUCCESS;
    }
    if (t->index == NULL) {
        return gcm_mpi_raise(comm, MPI_ERR_TOPOLOGY, call,
                             "a graph from MPIX_Graph_create knows the "
                             "neighbours of rank %d only once MPI_Graph_get "
                             "(collective the first time) gathered it",
                             rank);
    }
    first    = (rank > 0) ? t->index[rank - 1] : 0;
    *nbrs_p  = t->edges + first;
    *count_p = t->index[rank] - first;
    return MPI_SUCCESS;
}

int PMPI_Graph_neighbors_count(MPI_Comm comm, int rank, int *nneighbors)
{
    static const char call[] = "MPI_Graph_neighbors_count";
    struct gcm_mpi_topo *t = NULL;
    int rc = gcm_mpi_topo_get(comm, MPI_GRAPH, call, &t);
    const int *nbrs;

    if (rc != MPI_SUCCESS) {
        return rc;
    }
    if (nneighbors == NULL) {
        return gcm_mpi_raise(comm, MPI_ERR_ARG, call, "nneighbors is NULL");
    }
    return graph_adjacency(comm, t, rank, call, &nbrs, nneighbors);
}
GCM_MPI_ALIAS(Graph_neighbors_count)

int PMPI_Graph_neighbors(MPI_Comm comm, int rank, int maxneighbors,
                         int neighbors[])
{
    static const char call[] = "MPI_Graph_neighbors";
    struct gcm_mpi_topo *t = NULL;
    int rc = gcm_mpi_topo_get(comm, MPI_GRAPH, call, &t);
    const int *nbrs = NULL;
    int count = 0;

    if (rc != MPI_SUCCESS) {
        return rc;
    }
    if (maxneighbors < 0 || (maxneighbors > 0 && neighbors == NULL)) {
        return gcm_mpi_raise(comm, MPI_ERR_ARG, call,
                             "maxneighbors is negative or neighbors NULL");
    }
    rc = graph_adjacency(comm, t, rank, call, &nbrs, &count);
    if (rc == MPI_SUCCESS) {
        gcm_mpi_topo_copy_some(neighbors, nbrs, count, maxneighbors);
    }
    return rc;
}
GCM_MPI_ALIAS(Graph_neighbors)

int PMPI_Graph_map(MPI_Comm comm, int nnodes, const int index[],
                   const int edges[], int *newrank)
{
    static const char call[] = "MPI_Graph_map";
    int rc = gcm_mpi_topo_check_intra(comm, call);

    if (rc == MPI_SUCCESS) {
        rc = check_graph(comm, nnodes, index, edges, call);
    }
    if (rc != MPI_SUCCESS) {
        return rc;
    }
    if (newrank == NULL) {
        return gcm_mpi_raise(comm, MPI_ERR_ARG, call, "newrank is NULL");
    }
    *newrank = MPI_UNDEFINED;
    if (comm->rank < nnodes) {
        /* What MPI_Graph_create with reorder on every process gives:
         * the same mapping, computed here alone (no message). */
        int *procs = malloc((size_t)nnodes * sizeof(int));
        int *slots = malloc((size_t)nnodes * sizeof(int));
        int *xadj  = malloc(((size_t)nnodes + 1) * sizeof(int));
        int v, myrank = comm->rank;

        if (procs == NULL || slots == NULL || xadj == NULL) {
            rc = gcm_mpi_topo_no_mem(comm, call);
        } else {
            gcm_lco_map_graph_t g = graph_csr(nnodes, index, edges, xadj);

            for (v = 0; v < nnodes; v++) {
                slots[v] = v;
            }
            rc = gcm_mpi_topo_map(comm, &g, nnodes, slots, NULL, call, procs,
                                  &myrank);
        }
        if (rc == MPI_SUCCESS) {
            *newrank = myrank;
        }
        free(procs);
        free(slots);
        free(xadj);
    }
    return rc;
}
GCM_MPI_ALIAS(Graph_map)

int PMPI_Topo_test(MPI_Comm comm, int *status)
{
    static const char call[] = "MPI_Topo_test";
    int rc = gcm_mpi_check_init(call);

    if (rc == MPI_SUCCESS) {
        rc = gcm_mpi_comm_check(comm, call);
    }
    if (rc != MPI_SUCCESS) {
        return rc;
    }
    if (status == NULL) {
        return gcm_mpi_raise(comm, MPI_ERR_ARG, call, "status is NULL");
    }
    *status = (comm->topo != NULL) ? comm->topo->kind : MPI_UNDEFINED;
    return MPI_SUCCESS;
}
GCM_MPI_ALIAS(Topo_test)

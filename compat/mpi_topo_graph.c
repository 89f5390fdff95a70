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

int PMPI_Graph_create(MPI_Comm comm_old, int nnodes, const int index[],
                      const int edges[], int reorder, MPI_Comm *comm_graph)
{
    static const char call[] = "MPI_Graph_create";
    struct gcm_mpi_topo *t = NULL;
    int *procs = NULL;
    int rc, member, nedges;

    (void)reorder;  /* identity mapping: see the top of the file */
    rc = gcm_mpi_topo_check_intra(comm_old, call);
    if (rc == MPI_SUCCESS) {
        rc = check_graph(comm_old, nnodes, index, edges, call);
    }
    if (rc != MPI_SUCCESS) {
        return rc;
    }
    if (comm_graph == NULL) {
        return gcm_mpi_raise(comm_old, MPI_ERR_ARG, call,
                             "comm_graph is NULL");
    }
    /* No nodes: MPI_COMM_NULL everywhere, and every member skips the
     * derivation alike, so identities stay in step. */
    if (nnodes == 0) {
        *comm_graph = MPI_COMM_NULL;
        return MPI_SUCCESS;
    }
    member = (comm_old->rank < nnodes);
    nedges = index[nnodes - 1];
    procs  = gcm_mpi_topo_first_procs(comm_old, nnodes);
    if (procs != NULL && member) {
        t = calloc(1, sizeof(*t));
        if (t != NULL) {
            t->kind   = MPI_GRAPH;
            t->nnodes = nnodes;
            t->nedges = nedges;
            t->index  = gcm_mpi_topo_ints_dup(index, nnodes);
            t->edges  = gcm_mpi_topo_ints_dup(edges, nedges);
            if (t->index == NULL || t->edges == NULL) {
                gcm_mpi_topo_destroy(t);
                t = NULL;
            }
        }
    }
    if (procs == NULL || (member && t == NULL)) {
        free(procs);
        return gcm_mpi_topo_no_mem(comm_old, call);
    }
    rc = gcm_mpi_topo_derive(comm_old, member ? nnodes : 0, procs,
                             comm_old->rank, t, call, comm_graph);
    free(procs);
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
    gcm_mpi_topo_copy_some(index, t->index, t->nnodes, maxindex);
    gcm_mpi_topo_copy_some(edges, t->edges, t->nedges, maxedges);
    return MPI_SUCCESS;
}
GCM_MPI_ALIAS(Graph_get)

/* The neighbours of node rank: edges[first..first+count-1]. */
void gcm_mpi_topo_graph_adjacency(const struct gcm_mpi_topo *t, int rank,
                                  int *first_p, int *count_p)
{
    int first = (rank > 0) ? t->index[rank - 1] : 0;

    *first_p = first;
    *count_p = t->index[rank] - first;
}

int PMPI_Graph_neighbors_count(MPI_Comm comm, int rank, int *nneighbors)
{
    static const char call[] = "MPI_Graph_neighbors_count";
    struct gcm_mpi_topo *t = NULL;
    int rc = gcm_mpi_topo_get(comm, MPI_GRAPH, call, &t);
    int first;

    if (rc != MPI_SUCCESS) {
        return rc;
    }
    if (rank < 0 || rank >= t->nnodes) {
        return gcm_mpi_raise(comm, MPI_ERR_RANK, call,
                             "rank %d is not a node (0..%d)", rank,
                             t->nnodes - 1);
    }
    if (nneighbors == NULL) {
        return gcm_mpi_raise(comm, MPI_ERR_ARG, call, "nneighbors is NULL");
    }
    gcm_mpi_topo_graph_adjacency(t, rank, &first, nneighbors);
    return MPI_SUCCESS;
}
GCM_MPI_ALIAS(Graph_neighbors_count)

int PMPI_Graph_neighbors(MPI_Comm comm, int rank, int maxneighbors,
                         int neighbors[])
{
    static const char call[] = "MPI_Graph_neighbors";
    struct gcm_mpi_topo *t = NULL;
    int rc = gcm_mpi_topo_get(comm, MPI_GRAPH, call, &t);
    int first, count;

    if (rc != MPI_SUCCESS) {
        return rc;
    }
    if (rank < 0 || rank >= t->nnodes) {
        return gcm_mpi_raise(comm, MPI_ERR_RANK, call,
                             "rank %d is not a node (0..%d)", rank,
                             t->nnodes - 1);
    }
    if (maxneighbors < 0 || (maxneighbors > 0 && neighbors == NULL)) {
        return gcm_mpi_raise(comm, MPI_ERR_ARG, call,
                             "maxneighbors is negative or neighbors NULL");
    }
    gcm_mpi_topo_graph_adjacency(t, rank, &first, &count);
    gcm_mpi_topo_copy_some(neighbors, t->edges + first, count, maxneighbors);
    return MPI_SUCCESS;
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
    *newrank = (comm->rank < nnodes) ? comm->rank : MPI_UNDEFINED;
    return MPI_SUCCESS;
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

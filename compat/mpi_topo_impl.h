/*
 * compat/mpi_topo_impl.h: process topologies (MPI-3.1 chapter 7): what the
 * files compat/mpi_topo_*.c share.
 *
 * A topology is a description hung off a communicator (comm->topo): the
 * grid of a Cartesian communicator, the adjacency of a graph one, or this
 * process's in and out edges for a distributed graph. The communicator
 * underneath is an ordinary pattern LCO made by gcm_mpi_comm_derive, so
 * point-to-point and collectives on it need nothing from this file.
 *
 * reorder is accepted and ignored everywhere: the new communicator keeps
 * the old ranks (identity mapping), which MPI allows. gencomm does not
 * know the machine's physical layout, so no other mapping would be better
 * than this one. MPI_Cart_map and MPI_Graph_map report the same identity.
 *
 * Neighbour collectives are schedules of coll/ (mpi_topo_nbr.c): receives
 * are all posted before any send, so that a process that is its own
 * neighbour (a periodic dimension of size 1, a self-loop) cannot
 * deadlock.
 */
#ifndef GCM_MPI_TOPO_IMPL_H
#define GCM_MPI_TOPO_IMPL_H

#include "compat/mpi_impl.h"

struct gcm_mpi_topo {
    int  kind;           /* MPI_CART, MPI_GRAPH or MPI_DIST_GRAPH */
    /* MPI_CART: the grid (row-major ranks), and this process's neighbours
     * in the order neighbour collectives use: for each dimension, the
     * source then the destination of MPI_Cart_shift(d, 1). */
    int  ndims;
    int *dims;
    int *periods;
    int *cart_nbrs;      /* 2 * ndims entries (MPI_PROC_NULL at edges) */
    /* MPI_GRAPH: MPI_Graph_create's arguments. */
    int  nnodes;
    int  nedges;
    int *index;
    int *edges;
    /* MPI_DIST_GRAPH: this process's edges (weights: NULL if the graph
     * is unweighted). */
    int  indegree;
    int  outdegree;
    int  weighted;
    int *sources;
    int *sourceweights;
    int *destinations;
    int *destweights;
};

/*
 * Checks a grid description (MPI_Cart_create, MPI_Cart_map) against a
 * communicator of size nprocs and returns its number of processes.
 */
int gcm_mpi_topo_check_grid(MPI_Comm comm, int ndims, const int dims[],
                            const int periods[], int nprocs, const char *call,
                            int *nnodes_p) GCM_INTERNAL;

/* A live intracommunicator (topologies live on intracommunicators only). */
int gcm_mpi_topo_check_intra(MPI_Comm comm, const char *call) GCM_INTERNAL;

/* Copies what fits of n ints (the caller's array holds max). */
void gcm_mpi_topo_copy_some(int *dst, const int *src, int n, int max)
    GCM_INTERNAL;

/*
 * Derives the communicator of the n processes procs[] (world indices, in
 * rank order; this one is myrank, or n == 0 if it is not a member) from
 * parent and hangs t off it (t is freed when this process gets
 * MPI_COMM_NULL or on failure).
 */
int gcm_mpi_topo_derive(MPI_Comm parent, int n, const int procs[],
                        int myrank, struct gcm_mpi_topo *t,
                        const char *call, MPI_Comm *newcomm) GCM_INTERNAL;

/* The world indices of parent's ranks 0..n-1 (NULL: no memory). */
int *gcm_mpi_topo_first_procs(MPI_Comm parent, int n) GCM_INTERNAL;

/* comm's topology if it is of kind (0: any kind), else MPI_ERR_TOPOLOGY. */
int gcm_mpi_topo_get(MPI_Comm comm, int kind, const char *call,
                     struct gcm_mpi_topo **t_p) GCM_INTERNAL;

/* The neighbours of node rank: edges[first..first+count-1]. */
void gcm_mpi_topo_graph_adjacency(const struct gcm_mpi_topo *t, int rank,
                                  int *first_p, int *count_p) GCM_INTERNAL;

/* A copy of n ints (never NULL on success, even for n == 0, so that a
 * NULL result always means out of memory). */
int *gcm_mpi_topo_ints_dup(const int *a, int n) GCM_INTERNAL;

int gcm_mpi_topo_no_mem(MPI_Comm comm, const char *call) GCM_INTERNAL;

void gcm_mpi_topo_destroy(struct gcm_mpi_topo *t) GCM_INTERNAL;

#endif /* GCM_MPI_TOPO_IMPL_H */

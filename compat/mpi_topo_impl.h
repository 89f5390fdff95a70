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
 * reorder maps the call's communication graph onto the SMP hierarchy
 * (mpi_topo_map.c); a process passing 0 keeps its rank. MPI_Cart_map and
 * MPI_Graph_map report the ranks that mapping gives.
 *
 * Neighbour collectives are schedules of coll/ (mpi_topo_nbr.c): receives
 * are all posted before any send, so that a process that is its own
 * neighbour (a periodic dimension of size 1, a self-loop) cannot
 * deadlock.
 */
#ifndef GCM_MPI_TOPO_IMPL_H
#define GCM_MPI_TOPO_IMPL_H

#include "compat/mpi_impl.h"
#include "lco/lco_map.h"

struct gcm_mpi_topo {
    int  kind;           /* MPI_CART, MPI_GRAPH or MPI_DIST_GRAPH */
    /* MPI_CART: the grid (row-major ranks), and this process's neighbours
     * in the order neighbour collectives use: for each dimension, the
     * source then the destination of MPI_Cart_shift(d, 1). */
    int  ndims;
    int *dims;
    int *periods;
    int *cart_nbrs;      /* 2 * ndims entries (MPI_PROC_NULL at edges) */
    /* MPI_GRAPH: the number of nodes and edges, this process's
     * neighbours (always there) and the whole graph (index, edges) when
     * known: MPI_Graph_create's arguments, or, for a graph made by
     * MPIX_Graph_create (scalable), NULL until the first MPI_Graph_get
     * gathers it. The weights of this process's edges: the
     * multiplicities of MPIX_Graph_create (1 each for MPI_Graph_create). */
    int  nnodes;
    int  nedges;
    int *index;
    int *edges;
    int  scalable;
    int  degree;
    int *nbrs;
    int *nbr_weights;
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

/* MPI_Graph_get's first call on a graph from MPIX_Graph_create: gathers
 * the whole graph into t->index and t->edges (collective over comm). */
int gcm_mpi_topo_sgraph_gather(MPI_Comm comm, struct gcm_mpi_topo *t,
                               const char *call) GCM_INTERNAL;

/* A copy of n ints (never NULL on success, even for n == 0, so that a
 * NULL result always means out of memory). */
int *gcm_mpi_topo_ints_dup(const int *a, int n) GCM_INTERNAL;

int gcm_mpi_topo_no_mem(MPI_Comm comm, const char *call) GCM_INTERNAL;

void gcm_mpi_topo_destroy(struct gcm_mpi_topo *t) GCM_INTERNAL;

/* A distributed graph topology owning the given arrays (NULL weights:
 * unweighted). On failure it frees them and returns NULL. */
struct gcm_mpi_topo *gcm_mpi_topo_dist_new(int indeg, int *srcs, int *sw,
                                           int outdeg, int *dsts, int *dw,
                                           int weighted) GCM_INTERNAL;

/* One edge as the topology calls ship it. */
typedef struct gcm_mpi_topo_edge {
    int src;
    int dst;
    int weight;
} gcm_mpi_topo_edge_t;

/*
 * Sends each of this process's nedges edges to the processes owner1[i]
 * and, unless -1, owner2[i] of comm, and collects those sent here in
 * *got_p (the caller frees it), in (giver rank, order given) order.
 * Collective; failures are raised on comm.
 */
int gcm_mpi_topo_exchange_edges(MPI_Comm comm, int nedges,
                                const gcm_mpi_topo_edge_t *mine,
                                const int *owner1, const int *owner2,
                                gcm_mpi_topo_edge_t **got_p, int *ngot_p,
                                const char *call) GCM_INTERNAL;

/* ---- reordering (mpi_topo_map.c) ------------------------------------------ */

/* The mapinfo hints: gencomm_map (scotch | identity), gencomm_map_time
 * (seconds). */
typedef struct gcm_mpi_topo_hints {
    int    method;    /* GCM_LCO_MAP_SCOTCH or GCM_LCO_MAP_IDENTITY */
    double time;
} gcm_mpi_topo_hints_t;

/* Reads info's hints (MPI_INFO_NULL: the defaults); raises MPI_ERR_INFO
 * or MPI_ERR_INFO_VALUE on comm for what it cannot read. */
int gcm_mpi_topo_hints(MPI_Comm comm, MPI_Info info, const char *call,
                       gcm_mpi_topo_hints_t *h) GCM_INTERNAL;

/* What each process tells the others when a topology is made. */
typedef struct gcm_mpi_topo_rec {
    int32_t  err;       /* class of its own checks' failure, 0 if none */
    int32_t  reorder;   /* 0: it keeps its rank */
    int32_t  count;     /* per call: a degree, an in-degree, ... */
    int32_t  count2;    /* per call: an out-degree, flags, ... */
    int32_t  method;    /* its hints */
    int32_t  pad;
    double   time;
    uint64_t args;      /* hash of what must be the same everywhere */
} gcm_mpi_topo_rec_t;

/* A hash of n ints chained onto h (the args of a record). */
uint64_t gcm_mpi_topo_hash_ints(uint64_t h, const int *a, int n)
    GCM_INTERNAL;

/*
 * Allgathers the records over comm (collective) into *all_p (the caller
 * frees it). Fails on every process if one process's checks failed (that
 * one returns its own error, raised before; the others raise "rank r
 * passed invalid arguments" with its class) or if the args differ
 * (args_class, "args_what differ between processes").
 */
int gcm_mpi_topo_agree(MPI_Comm comm, const gcm_mpi_topo_rec_t *mine,
                       int args_class, const char *args_what,
                       const char *call, gcm_mpi_topo_rec_t **all_p)
    GCM_INTERNAL;

/* Allgathers every process's ints: counts[r] from rank r (the same
 * array on every process; all fail alike with MPI_ERR_COUNT past limit
 * in all) into *all_p, rank r's from (*displs_p)[r]; *total_p (may be
 * NULL) their number. The caller frees both arrays. Collective. */
int gcm_mpi_topo_gather_ints(MPI_Comm comm, const int *mine,
                             const int *counts, long long limit,
                             const char *call, int **all_p, int **displs_p,
                             long long *total_p) GCM_INTERNAL;

/* Is a mapping worth computing for the n processes of comm of ranks
 * slots[]: some of them reorder, rank 0's hints allow it, and they are
 * not all in one group of every level of the hierarchy. */
int gcm_mpi_topo_wants_map(MPI_Comm comm, const gcm_mpi_topo_rec_t *all,
                           int n, const int *slots) GCM_INTERNAL;

/*
 * Maps g (vertex v is new rank v) onto the n processes of comm of ranks
 * slots[] (slot s); where all (the records; NULL: everybody reorders, the
 * default hints) says reorder 0, vertex s stays on slot s; hints are
 * rank 0's. Fills procs[v] (world index of new rank v) and *myrank_p
 * (this process's new rank, -1 if it is no slot).
 */
int gcm_mpi_topo_map(MPI_Comm comm, const gcm_lco_map_graph_t *g, int n,
                     const int *slots, const gcm_mpi_topo_rec_t *all,
                     const char *call, int *procs, int *myrank_p)
    GCM_INTERNAL;

/* The same onto a target the caller gives (levels of its own, or a
 * weighted machine graph over the n slots; NULL: the hierarchy), for
 * topologies described from outside (an external description's machine
 * graph). */
int gcm_mpi_topo_map_onto(MPI_Comm comm, const gcm_lco_map_graph_t *g, int n,
                          const int *slots, const gcm_mpi_topo_rec_t *all,
                          const gcm_lco_map_target_t *given,
                          const char *call, int *procs, int *myrank_p)
    GCM_INTERNAL;

#endif /* GCM_MPI_TOPO_IMPL_H */

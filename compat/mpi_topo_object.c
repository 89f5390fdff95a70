/*
 * compat/mpi_topo_object.c: the topology object hung off a
 * communicator, and the argument checks the topology calls share.
 */
#include "config.h"

#include "compat/mpi_topo_impl.h"

#include <limits.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/* ---- object basics ------------------------------------------------------- */

/* A copy of n ints (never NULL on success, even for n == 0, so that a
 * NULL result always means out of memory). */
int *gcm_mpi_topo_ints_dup(const int *a, int n)
{
    int *b = malloc((n > 0 ? (size_t)n : 1u) * sizeof(int));

    if (b != NULL && n > 0) {
        memcpy(b, a, (size_t)n * sizeof(int));
    }
    return b;
}

void gcm_mpi_topo_destroy(struct gcm_mpi_topo *t)
{
    if (t == NULL) {
        return;
    }
    free(t->dims);
    free(t->periods);
    free(t->cart_nbrs);
    free(t->index);
    free(t->edges);
    free(t->nbrs);
    free(t->nbr_weights);
    free(t->sources);
    free(t->sourceweights);
    free(t->destinations);
    free(t->destweights);
    free(t);
}

/* A deep copy of t, or NULL if memory ran out. */
static struct gcm_mpi_topo *topo_clone(const struct gcm_mpi_topo *t)
{
    struct gcm_mpi_topo *c = calloc(1, sizeof(*c));
    int ok = 1;

    if (c == NULL) {
        return NULL;
    }
    *c = *t;
    c->dims = c->periods = c->cart_nbrs = NULL;
    c->index = c->edges = NULL;
    c->nbrs = c->nbr_weights = NULL;
    c->sources = c->sourceweights = NULL;
    c->destinations = c->destweights = NULL;
    switch (t->kind) {
    case MPI_CART:
        c->dims      = gcm_mpi_topo_ints_dup(t->dims, t->ndims);
        c->periods   = gcm_mpi_topo_ints_dup(t->periods, t->ndims);
        c->cart_nbrs = gcm_mpi_topo_ints_dup(t->cart_nbrs, 2 * t->ndims);
        ok = (c->dims != NULL && c->periods != NULL && c->cart_nbrs != NULL);
        break;
    case MPI_GRAPH:
        if (t->index != NULL) {
            c->index = gcm_mpi_topo_ints_dup(t->index, t->nnodes);
            c->edges = gcm_mpi_topo_ints_dup(t->edges, t->nedges);
            ok = (c->index != NULL && c->edges != NULL);
        }
        c->nbrs        = gcm_mpi_topo_ints_dup(t->nbrs, t->degree);
        c->nbr_weights = gcm_mpi_topo_ints_dup(t->nbr_weights, t->degree);
        ok = ok && c->nbrs != NULL && c->nbr_weights != NULL;
        break;
    default:
        c->sources      = gcm_mpi_topo_ints_dup(t->sources, t->indegree);
        c->destinations = gcm_mpi_topo_ints_dup(t->destinations, t->outdegree);
        ok = (c->sources != NULL && c->destinations != NULL);
        if (t->weighted != 0) {
            c->sourceweights = gcm_mpi_topo_ints_dup(t->sourceweights,
                                                     t->indegree);
            c->destweights   = gcm_mpi_topo_ints_dup(t->destweights,
                                                     t->outdegree);
            ok = ok && c->sourceweights != NULL && c->destweights != NULL;
        }
        break;
    }
    if (ok == 0) {
        gcm_mpi_topo_destroy(c);
        return NULL;
    }
    return c;
}

/* MPI_Comm_dup (and idup): the copy has the same ranks, so the topology,
 * this process's neighbour lists included, is copied as it is. */
int gcm_mpi_topo_copy(MPI_Comm oldcomm, MPI_Comm newcomm)
{
    if (oldcomm->topo == NULL) {
        newcomm->topo = NULL;
        return MPI_SUCCESS;
    }
    newcomm->topo = topo_clone(oldcomm->topo);
    if (newcomm->topo == NULL) {
        return MPI_ERR_NO_MEM;
    }
    return MPI_SUCCESS;
}

void gcm_mpi_topo_free(MPI_Comm comm)
{
    gcm_mpi_topo_destroy(comm->topo);
    comm->topo = NULL;
}

/* ---- argument checks ----------------------------------------------------- */

int gcm_mpi_topo_no_mem(MPI_Comm comm, const char *call)
{
    return gcm_mpi_raise(comm, MPI_ERR_NO_MEM, call,
                         "out of memory for the topology");
}

/* A live intracommunicator (topologies live on intracommunicators only). */
int gcm_mpi_topo_check_intra(MPI_Comm comm, const char *call)
{
    int rc = gcm_mpi_check_init(call);

    if (rc == MPI_SUCCESS) {
        rc = gcm_mpi_comm_check(comm, call);
    }
    if (rc != MPI_SUCCESS) {
        return rc;
    }
    if (comm->kind == GCM_MPI_COMM_INTER) {
        return gcm_mpi_raise(comm, MPI_ERR_COMM, call,
                             "an intercommunicator has no process topology");
    }
    return MPI_SUCCESS;
}

static const char *kind_name(int kind)
{
    switch (kind) {
    case MPI_CART:
        return "Cartesian";
    case MPI_GRAPH:
        return "graph";
    default:
        return "distributed graph";
    }
}

/* comm's topology if it is of kind (0: any kind), else MPI_ERR_TOPOLOGY. */
int gcm_mpi_topo_get(MPI_Comm comm, int kind, const char *call,
                     struct gcm_mpi_topo **t_p)
{
    int rc = gcm_mpi_topo_check_intra(comm, call);

    if (rc != MPI_SUCCESS) {
        return rc;
    }
    if (comm->topo == NULL) {
        return gcm_mpi_raise(comm, MPI_ERR_TOPOLOGY, call,
                             "the communicator has no process topology");
    }
    if (kind != 0 && comm->topo->kind != kind) {
        return gcm_mpi_raise(comm, MPI_ERR_TOPOLOGY, call,
                             "the communicator has a %s topology, "
                             "not a %s one", kind_name(comm->topo->kind),
                             kind_name(kind));
    }
    *t_p = comm->topo;
    return MPI_SUCCESS;
}

/*
 * Checks a grid description (MPI_Cart_create, MPI_Cart_map) against a
 * communicator of size nprocs and returns its number of processes.
 */
int gcm_mpi_topo_check_grid(MPI_Comm comm, int ndims, const int dims[],
                            const int periods[], int nprocs, const char *call,
                            int *nnodes_p)
{
    long long n = 1;
    int d;

    if (ndims < 0) {
        return gcm_mpi_raise(comm, MPI_ERR_DIMS, call,
                             "ndims is negative (%d)", ndims);
    }
    if (ndims > 0 && (dims == NULL || periods == NULL)) {
        return gcm_mpi_raise(comm, MPI_ERR_ARG, call,
                             "dims or periods is NULL");
    }
    for (d = 0; d < ndims; d++) {
        if (dims[d] <= 0) {
            return gcm_mpi_raise(comm, MPI_ERR_DIMS, call,
                                 "dims[%d] is %d, not positive", d, dims[d]);
        }
        n *= dims[d];
        if (n > nprocs) {
            return gcm_mpi_raise(comm, MPI_ERR_DIMS, call,
                                 "the grid needs more processes than the "
                                 "communicator's %d", nprocs);
        }
    }
    *nnodes_p = (int)n;
    return MPI_SUCCESS;
}

/*
 * Derives the communicator of the n processes procs[] (world indices, in
 * rank order; this one is myrank, or n == 0 if it is not a member) from
 * parent and hangs t off it (t is freed when this process gets
 * MPI_COMM_NULL or on failure).
 */
int gcm_mpi_topo_derive(MPI_Comm parent, int n, const int procs[],
                        int myrank, struct gcm_mpi_topo *t,
                        const char *call, MPI_Comm *newcomm)
{
    int rc = gcm_mpi_comm_derive(parent, n, procs, myrank, call, newcomm);

    if (rc != MPI_SUCCESS || *newcomm == MPI_COMM_NULL) {
        gcm_mpi_topo_destroy(t);
        return rc;
    }
    (*newcomm)->topo = t;
    return MPI_SUCCESS;
}

/* The world indices of parent's ranks 0..n-1 (NULL: no memory). */
int *gcm_mpi_topo_first_procs(MPI_Comm parent, int n)
{
    int *procs = malloc((n > 0 ? (size_t)n : 1u) * sizeof(int));
    int r;

    if (procs != NULL) {
        for (r = 0; r < n; r++) {
            procs[r] = gcm_mpi_comm_proc(parent, r);
        }
    }
    return procs;
}

/* Copies what fits of n ints (the caller's array holds max). */
void gcm_mpi_topo_copy_some(int *dst, const int *src, int n, int max)
{
    if (dst != NULL && n > 0 && max > 0) {
        memcpy(dst, src, (size_t)(n < max ? n : max) * sizeof(int));
    }
}

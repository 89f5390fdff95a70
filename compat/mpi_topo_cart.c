/*
 * compat/mpi_topo_cart.c: Cartesian grids (MPI_Cart_*).
 */
#include "config.h"

#include "compat/mpi_topo_impl.h"

#include <limits.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/* ---- Cartesian grids ----------------------------------------------------- */

/* Row-major rank of coords (already within the grid). */
static int cart_rank_of(const struct gcm_mpi_topo *t, const int coords[])
{
    int d, r = 0;

    for (d = 0; d < t->ndims; d++) {
        r = r * t->dims[d] + coords[d];
    }
    return r;
}

static void cart_coords_of(const struct gcm_mpi_topo *t, int rank,
                           int coords[])
{
    int d;

    for (d = t->ndims - 1; d >= 0; d--) {
        coords[d] = rank % t->dims[d];
        rank /= t->dims[d];
    }
}

/* Coordinate c + disp along dimension d, wrapped if d is periodic; -1 if
 * it leaves a non-periodic dimension. long long: disp may be any int,
 * INT_MIN included, and so may its negation. */
static int cart_step(const struct gcm_mpi_topo *t, int d, int c,
                     long long disp)
{
    long long x = (long long)c + disp;
    long long n = t->dims[d];

    if (t->periods[d] != 0) {
        x %= n;
        return (int)(x < 0 ? x + n : x);
    }
    return (x < 0 || x >= n) ? -1 : (int)x;
}

/* The source and destination of a shift by disp along d from rank. */
static void cart_shift_of(const struct gcm_mpi_topo *t, int rank, int d,
                          int disp, int *src_p, int *dst_p, int coords[])
{
    int c;

    cart_coords_of(t, rank, coords);
    c = coords[d];
    coords[d] = cart_step(t, d, c, disp);
    *dst_p = coords[d] < 0 ? MPI_PROC_NULL : cart_rank_of(t, coords);
    coords[d] = cart_step(t, d, c, -(long long)disp);
    *src_p = coords[d] < 0 ? MPI_PROC_NULL : cart_rank_of(t, coords);
    coords[d] = c;
}

/*
 * Builds the Cartesian topology (dims, periods as booleans) for the
 * process of rank myrank, including its neighbour list. NULL: no memory.
 */
static struct gcm_mpi_topo *cart_topo_new(int ndims, const int dims[],
                                          const int periods[], int myrank)
{
    struct gcm_mpi_topo *t = calloc(1, sizeof(*t));
    int *coords;
    int d;

    if (t == NULL) {
        return NULL;
    }
    t->kind      = MPI_CART;
    t->ndims     = ndims;
    t->dims      = gcm_mpi_topo_ints_dup(dims, ndims);
    t->periods   = calloc(ndims > 0 ? (size_t)ndims : 1u, sizeof(int));
    t->cart_nbrs = malloc((ndims > 0 ? 2u * (size_t)ndims : 1u) *
                          sizeof(int));
    coords       = malloc((ndims > 0 ? (size_t)ndims : 1u) * sizeof(int));
    if (t->dims == NULL || t->periods == NULL || t->cart_nbrs == NULL ||
        coords == NULL) {
        free(coords);
        gcm_mpi_topo_destroy(t);
        return NULL;
    }
    for (d = 0; d < ndims; d++) {
        t->periods[d] = (periods[d] != 0);
    }
    for (d = 0; d < ndims; d++) {
        cart_shift_of(t, myrank, d, 1, &t->cart_nbrs[2 * d],
                      &t->cart_nbrs[2 * d + 1], coords);
    }
    free(coords);
    return t;
}

int PMPI_Cart_create(MPI_Comm comm_old, int ndims, const int dims[],
                     const int periods[], int reorder, MPI_Comm *comm_cart)
{
    static const char call[] = "MPI_Cart_create";
    struct gcm_mpi_topo *t = NULL;
    int *procs;
    int rc, n, member;

    (void)reorder;  /* identity mapping: see the top of the file */
    rc = gcm_mpi_topo_check_intra(comm_old, call);
    if (rc != MPI_SUCCESS) {
        return rc;
    }
    if (comm_cart == NULL) {
        return gcm_mpi_raise(comm_old, MPI_ERR_ARG, call, "comm_cart is NULL");
    }
    rc = gcm_mpi_topo_check_grid(comm_old, ndims, dims, periods,
                                 comm_old->size, call, &n);
    if (rc != MPI_SUCCESS) {
        return rc;
    }
    /* Ranks beyond the grid still take part (the derivation is
     * collective over comm_old) and get MPI_COMM_NULL. */
    member = (comm_old->rank < n);
    procs  = gcm_mpi_topo_first_procs(comm_old, n);
    if (procs != NULL && member) {
        t = cart_topo_new(ndims, dims, periods, comm_old->rank);
    }
    if (procs == NULL || (member && t == NULL)) {
        /* Others are in the collective derivation already; failing
         * here leaves them waiting, as any failed collective may. */
        free(procs);
        return gcm_mpi_topo_no_mem(comm_old, call);
    }
    rc = gcm_mpi_topo_derive(comm_old, member ? n : 0, procs, comm_old->rank,
                             t, call, comm_cart);
    free(procs);
    return rc;
}
GCM_MPI_ALIAS(Cart_create)

int PMPI_Cartdim_get(MPI_Comm comm, int *ndims)
{
    static const char call[] = "MPI_Cartdim_get";
    struct gcm_mpi_topo *t = NULL;
    int rc = gcm_mpi_topo_get(comm, MPI_CART, call, &t);

    if (rc != MPI_SUCCESS) {
        return rc;
    }
    if (ndims == NULL) {
        return gcm_mpi_raise(comm, MPI_ERR_ARG, call, "ndims is NULL");
    }
    *ndims = t->ndims;
    return MPI_SUCCESS;
}
GCM_MPI_ALIAS(Cartdim_get)

int PMPI_Cart_get(MPI_Comm comm, int maxdims, int dims[], int periods[],
                  int coords[])
{
    static const char call[] = "MPI_Cart_get";
    struct gcm_mpi_topo *t = NULL;
    int rc = gcm_mpi_topo_get(comm, MPI_CART, call, &t);

    if (rc != MPI_SUCCESS) {
        return rc;
    }
    if (maxdims < t->ndims) {
        return gcm_mpi_raise(comm, MPI_ERR_ARG, call,
                             "maxdims (%d) is less than the %d dimensions",
                             maxdims, t->ndims);
    }
    if (t->ndims > 0 && (dims == NULL || periods == NULL || coords == NULL)) {
        return gcm_mpi_raise(comm, MPI_ERR_ARG, call,
                             "dims, periods or coords is NULL");
    }
    if (t->ndims > 0) {
        memcpy(dims, t->dims, (size_t)t->ndims * sizeof(int));
        memcpy(periods, t->periods, (size_t)t->ndims * sizeof(int));
        cart_coords_of(t, comm->rank, coords);
    }
    return MPI_SUCCESS;
}
GCM_MPI_ALIAS(Cart_get)

int PMPI_Cart_rank(MPI_Comm comm, const int coords[], int *rank)
{
    static const char call[] = "MPI_Cart_rank";
    struct gcm_mpi_topo *t = NULL;
    int rc = gcm_mpi_topo_get(comm, MPI_CART, call, &t);
    int d, r = 0;

    if (rc != MPI_SUCCESS) {
        return rc;
    }
    if (rank == NULL || (t->ndims > 0 && coords == NULL)) {
        return gcm_mpi_raise(comm, MPI_ERR_ARG, call,
                             "coords or rank is NULL");
    }
    /* Out-of-range coordinates wrap in periodic dimensions and are an
     * error in the others (MPI-3.1 7.5.5). */
    for (d = 0; d < t->ndims; d++) {
        int c = cart_step(t, d, coords[d], 0);

        if (c < 0) {
            return gcm_mpi_raise(comm, MPI_ERR_ARG, call,
                                 "coords[%d] = %d is outside the "
                                 "non-periodic dimension of size %d",
                                 d, coords[d], t->dims[d]);
        }
        r = r * t->dims[d] + c;
    }
    *rank = r;
    return MPI_SUCCESS;
}
GCM_MPI_ALIAS(Cart_rank)

int PMPI_Cart_coords(MPI_Comm comm, int rank, int maxdims, int coords[])
{
    static const char call[] = "MPI_Cart_coords";
    struct gcm_mpi_topo *t = NULL;
    int rc = gcm_mpi_topo_get(comm, MPI_CART, call, &t);

    if (rc != MPI_SUCCESS) {
        return rc;
    }
    if (rank < 0 || rank >= comm->size) {
        return gcm_mpi_raise(comm, MPI_ERR_RANK, call,
                             "rank %d is not in 0..%d", rank,
                             comm->size - 1);
    }
    if (maxdims < t->ndims) {
        return gcm_mpi_raise(comm, MPI_ERR_ARG, call,
                             "maxdims (%d) is less than the %d dimensions",
                             maxdims, t->ndims);
    }
    if (t->ndims > 0 && coords == NULL) {
        return gcm_mpi_raise(comm, MPI_ERR_ARG, call, "coords is NULL");
    }
    cart_coords_of(t, rank, coords);
    return MPI_SUCCESS;
}
GCM_MPI_ALIAS(Cart_coords)

int PMPI_Cart_shift(MPI_Comm comm, int direction, int disp, int *rank_source,
                    int *rank_dest)
{
    static const char call[] = "MPI_Cart_shift";
    struct gcm_mpi_topo *t = NULL;
    int rc = gcm_mpi_topo_get(comm, MPI_CART, call, &t);
    int *coords;

    if (rc != MPI_SUCCESS) {
        return rc;
    }
    if (direction < 0 || direction >= t->ndims) {
        return gcm_mpi_raise(comm, MPI_ERR_ARG, call,
                             "direction %d is not in 0..%d", direction,
                             t->ndims - 1);
    }
    if (rank_source == NULL || rank_dest == NULL) {
        return gcm_mpi_raise(comm, MPI_ERR_ARG, call,
                             "rank_source or rank_dest is NULL");
    }
    coords = malloc((size_t)t->ndims * sizeof(int));
    if (coords == NULL) {
        return gcm_mpi_topo_no_mem(comm, call);
    }
    cart_shift_of(t, comm->rank, direction, disp, rank_source, rank_dest,
                  coords);
    free(coords);
    return MPI_SUCCESS;
}
GCM_MPI_ALIAS(Cart_shift)

int PMPI_Cart_sub(MPI_Comm comm, const int remain_dims[], MPI_Comm *newcomm)
{
    static const char call[] = "MPI_Cart_sub";
    struct gcm_mpi_topo *t = NULL, *sub = NULL;
    int *coords, *mine, *subdims, *subperiods, *procs;
    int rc = gcm_mpi_topo_get(comm, MPI_CART, call, &t);
    int d, k, i, nsub = 1, subdim = 0, myrank = 0;

    if (rc != MPI_SUCCESS) {
        return rc;
    }
    if (newcomm == NULL || (t->ndims > 0 && remain_dims == NULL)) {
        return gcm_mpi_raise(comm, MPI_ERR_ARG, call,
                             "remain_dims or newcomm is NULL");
    }
    for (d = 0; d < t->ndims; d++) {
        if (remain_dims[d] != 0) {
            nsub *= t->dims[d];
            subdim++;
        }
    }
    k          = t->ndims > 0 ? t->ndims : 1;
    coords     = malloc((size_t)k * sizeof(int));
    mine       = malloc((size_t)k * sizeof(int));
    subdims    = malloc((size_t)k * sizeof(int));
    subperiods = malloc((size_t)k * sizeof(int));
    procs      = malloc((size_t)nsub * sizeof(int));
    if (coords == NULL || mine == NULL || subdims == NULL ||
        subperiods == NULL || procs == NULL) {
        rc = gcm_mpi_topo_no_mem(comm, call);
        goto out;
    }
    /*
     * My subgroup: the processes with my coordinates in the dropped
     * dimensions. Walking the kept dimensions' coordinates in row-major
     * order gives both the subgrid's ranks and increasing parent ranks,
     * as MPI wants. Every subgroup derives its communicator in the same
     * call; disjoint subgroups may share the derived identity.
     */
    cart_coords_of(t, comm->rank, mine);
    for (d = 0, k = 0; d < t->ndims; d++) {
        if (remain_dims[d] != 0) {
            subdims[k]    = t->dims[d];
            subperiods[k] = t->periods[d];
            k++;
        }
    }
    for (i = 0; i < nsub; i++) {
        int rest = i;

        memcpy(coords, mine, (size_t)t->ndims * sizeof(int));
        for (d = t->ndims - 1; d >= 0; d--) {
            if (remain_dims[d] != 0) {
                coords[d] = rest % t->dims[d];
                rest /= t->dims[d];
            }
        }
        procs[i] = gcm_mpi_comm_proc(comm, cart_rank_of(t, coords));
        if (memcmp(coords, mine, (size_t)t->ndims * sizeof(int)) == 0) {
            myrank = i;
        }
    }
    sub = cart_topo_new(subdim, subdims, subperiods, myrank);
    if (sub == NULL) {
        rc = gcm_mpi_topo_no_mem(comm, call);
        goto out;
    }
    rc = gcm_mpi_topo_derive(comm, nsub, procs, myrank, sub, call, newcomm);
out:
    free(coords);
    free(mine);
    free(subdims);
    free(subperiods);
    free(procs);
    return rc;
}
GCM_MPI_ALIAS(Cart_sub)

int PMPI_Cart_map(MPI_Comm comm, int ndims, const int dims[],
                  const int periods[], int *newrank)
{
    static const char call[] = "MPI_Cart_map";
    int rc = gcm_mpi_topo_check_intra(comm, call);
    int n;

    if (rc == MPI_SUCCESS) {
        rc = gcm_mpi_topo_check_grid(comm, ndims, dims, periods, comm->size,
                                     call, &n);
    }
    if (rc != MPI_SUCCESS) {
        return rc;
    }
    if (newrank == NULL) {
        return gcm_mpi_raise(comm, MPI_ERR_ARG, call, "newrank is NULL");
    }
    *newrank = (comm->rank < n) ? comm->rank : MPI_UNDEFINED;
    return MPI_SUCCESS;
}
GCM_MPI_ALIAS(Cart_map)

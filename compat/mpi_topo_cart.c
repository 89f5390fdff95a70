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

/* ---- the grid as a weighted graph, for reordering -------------------- */

/* Diagonals are taken with ndims up to this (6: 358 directions). */
#define CART_DIAG_MAX_DIMS 6

/*
 * The diagonal directions of an ndims grid, each once (o and -o are the
 * same communication): the offset vectors of -1, 0 and 1 with at least
 * two non-zero entries whose first non-zero entry is +1, in the order
 * of counting with the digits 0, +1, -1, dimension 0 the most
 * significant one. In 2-D: (+1,+1), (+1,-1). offs (may be NULL) gets
 * ndims entries per direction; returns how many there are.
 */
static int cart_diagonals(int ndims, int *offs)
{
    static const int digit[3] = { 0, 1, -1 };
    int total = 1, code, d, n = 0;

    for (d = 0; d < ndims; d++) {
        total *= 3;
    }
    for (code = 0; code < total; code++) {
        int o[CART_DIAG_MAX_DIMS], rest = code, nonzero = 0, first = 0;

        for (d = ndims - 1; d >= 0; d--) {
            o[d] = digit[rest % 3];
            rest /= 3;
        }
        for (d = 0; d < ndims; d++) {
            if (o[d] != 0) {
                if (nonzero == 0) {
                    first = o[d];
                }
                nonzero++;
            }
        }
        if (nonzero >= 2 && first == 1) {
            if (offs != NULL) {
                memcpy(offs + (size_t)n * ndims, o, (size_t)ndims * sizeof(int));
            }
            n++;
        }
    }
    return n;
}

/* The node at coords + sign * off of a grid (topology t), -1 if that
 * leaves a non-periodic dimension. */
static int cart_offset(const struct gcm_mpi_topo *t, const int *coords,
                       const int *off, int sign, int *tmp)
{
    int d;

    for (d = 0; d < t->ndims; d++) {
        tmp[d] = cart_step(t, d, coords[d], (long long)sign * off[d]);
        if (tmp[d] < 0) {
            return -1;
        }
    }
    return cart_rank_of(t, tmp);
}

/*
 * The grid of t (n nodes) as the mapping's graph: node v talks to both
 * neighbours along every dimension, and along every diagonal when ndiag
 * > 0, with the load mult[v * K + j] for direction j (dimensions first,
 * then the diagonals; K = ndims + ndiag; mult NULL: 1 each). CSR arrays
 * for the caller to free; 0, or -1 without memory.
 */
static int cart_graph(const struct gcm_mpi_topo *t, int n, int ndiag,
                      const int *mult, gcm_lco_map_graph_t *g, int **xadj_p,
                      int **adj_p, int **wgt_p)
{
    int K = t->ndims + ndiag, v, j, sign, k = 0;
    size_t cap = (size_t)n * 2 * (size_t)(K > 0 ? K : 1);
    int *xadj = malloc(((size_t)n + 1) * sizeof(int));
    int *adj = malloc(cap * sizeof(int));
    int *wgt = malloc(cap * sizeof(int));
    int *offs = malloc(((size_t)K * t->ndims + 1) * sizeof(int));
    int *coords = malloc(((size_t)t->ndims + 1) * sizeof(int));
    int *tmp = malloc(((size_t)t->ndims + 1) * sizeof(int));
    int rc = -1;

    *xadj_p = xadj;
    *adj_p  = adj;
    *wgt_p  = wgt;
    if (xadj == NULL || adj == NULL || wgt == NULL || offs == NULL ||
        coords == NULL || tmp == NULL) {
        goto out;
    }
    /* Directions: the unit vectors, then the diagonals. */
    memset(offs, 0, ((size_t)K * t->ndims + 1) * sizeof(int));
    for (j = 0; j < t->ndims; j++) {
        offs[(size_t)j * t->ndims + j] = 1;
    }
    if (ndiag > 0) {
        (void)cart_diagonals(t->ndims, offs + (size_t)t->ndims * t->ndims);
    }
    for (v = 0; v < n; v++) {
        xadj[v] = k;
        cart_coords_of(t, v, coords);
        for (j = 0; j < K; j++) {
            int w = (mult != NULL) ? mult[(size_t)v * K + j] : 1;

            for (sign = 1; sign >= -1; sign -= 2) {
                int u = cart_offset(t, coords, offs + (size_t)j * t->ndims,
                                    sign, tmp);

                if (u >= 0 && w > 0) {
                    adj[k] = u;
                    wgt[k] = w;
                    k++;
                }
            }
        }
    }
    xadj[n] = k;
    *g = (gcm_lco_map_graph_t){ n, xadj, adj, wgt };
    rc = 0;
out:
    free(offs);
    free(coords);
    free(tmp);
    return rc;
}

/* The processes' loads along each direction, gathered for the mapping
 * (NULL *mult_p when nobody gave any: all equal). K directions: the
 * dimensions, then the diagonals if some process asked for them. */
static int cart_loads(MPI_Comm comm, const gcm_mpi_topo_rec_t *all,
                      int ndims, int diagonal, const int multiplicity[],
                      const char *call, int *ndiag_p, int **mult_p)
{
    int anydiag = 0, anymult = 0, ndiag, K, j, r, rc;
    int *mine, *mult;

    *ndiag_p = 0;
    *mult_p  = NULL;
    for (r = 0; r < comm->size; r++) {
        anydiag |= (all[r].count2 & 1) != 0;
        anymult |= (all[r].count2 & 2) != 0;
    }
    if (!anydiag && !anymult) {
        return MPI_SUCCESS;
    }
    ndiag = anydiag ? cart_diagonals(ndims, NULL) : 0;
    K     = ndims + ndiag;
    mine  = malloc(((size_t)K + 1) * sizeof(int));
    mult  = malloc(((size_t)comm->size * K + 1) * sizeof(int));
    if (mine == NULL || mult == NULL) {
        free(mine);
        free(mult);
        return gcm_mpi_topo_no_mem(comm, call);
    }
    /* Mine: given, or 1 along the dimensions and, if I asked for them,
     * the diagonals; 0 along diagonals I did not ask for. */
    for (j = 0; j < K; j++) {
        int given = (j < ndims) || diagonal;

        mine[j] = !given ? 0 : (multiplicity != NULL) ? multiplicity[j] : 1;
    }
    rc = PMPI_Allgather(mine, K, MPI_INT, mult, K, MPI_INT, comm);
    free(mine);
    if (rc != MPI_SUCCESS) {
        free(mult);
        return rc;
    }
    *ndiag_p = ndiag;
    *mult_p  = mult;
    return MPI_SUCCESS;
}

/*
 * MPI_Cart_create and MPIX_Cart_create. Every process takes part in an
 * agreement on the grid (a hash of ndims, dims and periods: a mismatch
 * fails on every process) and the reorder flags; with reordering, the
 * grid is mapped onto the hierarchy, with each process's loads when some
 * gave them.
 */
static int cart_create(MPI_Comm comm_old, int ndims, const int dims[],
                       const int periods[], int diagonal,
                       const int multiplicity[], int reorder, MPI_Info info,
                       const char *call, MPI_Comm *comm_cart)
{
    struct gcm_mpi_topo *t = NULL, *grid = NULL;
    gcm_mpi_topo_rec_t mine, *all = NULL;
    gcm_mpi_topo_hints_t h = { GCM_LCO_MAP_SCOTCH, GCM_LCO_MAP_TIME_DEFAULT };
    int *procs = NULL, *slots = NULL, *mult = NULL;
    int *xadj = NULL, *adj = NULL, *wgt = NULL;
    int rc, n = 0, v, myrank, ndiag = 0;

    rc = gcm_mpi_topo_check_intra(comm_old, call);
    if (rc != MPI_SUCCESS) {
        return rc;
    }
    /* From here on every process takes part in the agreement. */
    rc = gcm_mpi_topo_check_grid(comm_old, ndims, dims, periods,
                                 comm_old->size, call, &n);
    if (rc == MPI_SUCCESS && comm_cart == NULL) {
        rc = gcm_mpi_raise(comm_old, MPI_ERR_ARG, call, "comm_cart is NULL");
    }
    if (rc == MPI_SUCCESS && diagonal && ndims > CART_DIAG_MAX_DIMS) {
        rc = gcm_mpi_raise(comm_old, MPI_ERR_DIMS, call,
                           "diagonal needs ndims <= %d, not %d",
                           CART_DIAG_MAX_DIMS, ndims);
    }
    if (rc == MPI_SUCCESS && multiplicity != NULL) {
        int K = ndims + (diagonal ? cart_diagonals(ndims, NULL) : 0), j;

        for (j = 0; j < K && rc == MPI_SUCCESS; j++) {
            if (multiplicity[j] < 0) {
                rc = gcm_mpi_raise(comm_old, MPI_ERR_ARG, call,
                                   "multiplicity[%d] is negative (%d)", j,
                                   multiplicity[j]);
            }
        }
    }
    if (rc == MPI_SUCCESS) {
        rc = gcm_mpi_topo_hints(comm_old, info, call, &h);
    }
    memset(&mine, 0, sizeof(mine));
    mine.err     = rc;
    mine.reorder = (reorder != 0);
    mine.count2  = (diagonal ? 1 : 0) | (multiplicity != NULL ? 2 : 0);
    mine.method  = h.method;
    mine.time    = h.time;
    if (rc == MPI_SUCCESS) {
        int d, p;

        mine.args = gcm_mpi_topo_hash_ints(0, &ndims, 1);
        mine.args = gcm_mpi_topo_hash_ints(mine.args, dims, ndims);
        for (d = 0; d < ndims; d++) {
            p = (periods[d] != 0);
            mine.args = gcm_mpi_topo_hash_ints(mine.args, &p, 1);
        }
    }
    rc = gcm_mpi_topo_agree(comm_old, &mine, MPI_ERR_DIMS,
                            "ndims, dims or periods", call, &all);
    if (rc != MPI_SUCCESS) {
        return rc;
    }
    procs = malloc(((size_t)n + 1) * sizeof(int));
    slots = malloc(((size_t)n + 1) * sizeof(int));
    grid  = cart_topo_new(ndims, dims, periods, 0);
    if (procs == NULL || slots == NULL || grid == NULL) {
        rc = gcm_mpi_topo_no_mem(comm_old, call);
        goto out;
    }
    /* Ranks beyond the grid still take part (the derivation is
     * collective over comm_old) and get MPI_COMM_NULL. */
    myrank = (comm_old->rank < n) ? comm_old->rank : -1;
    for (v = 0; v < n; v++) {
        slots[v] = v;
        procs[v] = gcm_mpi_comm_proc(comm_old, v);
    }
    if (gcm_mpi_topo_wants_map(comm_old, all, n, slots)) {
        gcm_lco_map_graph_t g;

        rc = cart_loads(comm_old, all, ndims, diagonal, multiplicity,
                        call, &ndiag, &mult);
        if (rc != MPI_SUCCESS) {
            goto out;
        }
        if (cart_graph(grid, n, ndiag, mult, &g, &xadj, &adj, &wgt) != 0) {
            rc = gcm_mpi_topo_no_mem(comm_old, call);
            goto out;
        }
        rc = gcm_mpi_topo_map(comm_old, &g, n, slots, all, call, procs,
                              &myrank);
        if (rc != MPI_SUCCESS) {
            goto out;
        }
    }
    if (myrank >= 0) {
        t = cart_topo_new(ndims, dims, periods, myrank);
        if (t == NULL) {
            /* Others are in the collective derivation already. */
            rc = gcm_mpi_topo_no_mem(comm_old, call);
            goto out;
        }
    }
    rc = gcm_mpi_topo_derive(comm_old, myrank >= 0 ? n : 0, procs, myrank, t,
                             call, comm_cart);
out:
    gcm_mpi_topo_destroy(grid);
    free(all);
    free(procs);
    free(slots);
    free(mult);
    free(xadj);
    free(adj);
    free(wgt);
    return rc;
}

int PMPI_Cart_create(MPI_Comm comm_old, int ndims, const int dims[],
                     const int periods[], int reorder, MPI_Comm *comm_cart)
{
    return cart_create(comm_old, ndims, dims, periods, 0, NULL, reorder,
                       MPI_INFO_NULL, "MPI_Cart_create", comm_cart);
}
GCM_MPI_ALIAS(Cart_create)

int PMPIX_Cart_create(MPI_Comm basecomm, int ndims, const int dims[],
                      const int periods[], int diagonal,
                      const int multiplicity[], int reorder,
                      MPI_Info mapinfo, MPI_Comm *cartcomm)
{
    return cart_create(basecomm, ndims, dims, periods, diagonal != 0,
                       multiplicity, reorder, mapinfo, "MPIX_Cart_create",
                       cartcomm);
}
GCM_MPIX_ALIAS(Cart_create)

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
    *newrank = MPI_UNDEFINED;
    if (comm->rank < n) {
        /* What MPI_Cart_create with reorder on every process gives: the
         * same mapping, computed here alone (no message). */
        struct gcm_mpi_topo *grid = cart_topo_new(ndims, dims, periods, 0);
        int *procs = malloc(((size_t)n + 1) * sizeof(int));
        int *slots = malloc(((size_t)n + 1) * sizeof(int));
        int *xadj = NULL, *adj = NULL, *wgt = NULL;
        int v, myrank = comm->rank;
        gcm_lco_map_graph_t g;

        if (grid == NULL || procs == NULL || slots == NULL ||
            cart_graph(grid, n, 0, NULL, &g, &xadj, &adj, &wgt) != 0) {
            rc = gcm_mpi_topo_no_mem(comm, call);
        } else {
            for (v = 0; v < n; v++) {
                slots[v] = v;
            }
            rc = gcm_mpi_topo_map(comm, &g, n, slots, NULL, call, procs,
                                  &myrank);
        }
        if (rc == MPI_SUCCESS) {
            *newrank = myrank;
        }
        gcm_mpi_topo_destroy(grid);
        free(procs);
        free(slots);
        free(xadj);
        free(adj);
        free(wgt);
    }
    return rc;
}
GCM_MPI_ALIAS(Cart_map)

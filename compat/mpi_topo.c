/*
 * compat/mpi_topo.c: process topologies (MPI-3.1 chapter 7).
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
 * Neighbour collectives are raw nonblocking transfers on internal tags (see
 * neighbor_exchange): receives are all posted before any send, so that a
 * process that is its own neighbour (a periodic dimension of size 1, a
 * self-loop) cannot deadlock.
 */
#include "config.h"

#include "compat/mpi_impl.h"

#include <limits.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

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

/* ---- object basics ------------------------------------------------------- */

/* A copy of n ints (never NULL on success, even for n == 0, so that a
 * NULL result always means out of memory). */
static int *ints_dup(const int *a, int n)
{
    int *b = malloc((n > 0 ? (size_t)n : 1u) * sizeof(int));

    if (b != NULL && n > 0) {
        memcpy(b, a, (size_t)n * sizeof(int));
    }
    return b;
}

static void topo_destroy(struct gcm_mpi_topo *t)
{
    if (t == NULL) {
        return;
    }
    free(t->dims);
    free(t->periods);
    free(t->cart_nbrs);
    free(t->index);
    free(t->edges);
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
    c->sources = c->sourceweights = NULL;
    c->destinations = c->destweights = NULL;
    switch (t->kind) {
    case MPI_CART:
        c->dims      = ints_dup(t->dims, t->ndims);
        c->periods   = ints_dup(t->periods, t->ndims);
        c->cart_nbrs = ints_dup(t->cart_nbrs, 2 * t->ndims);
        ok = (c->dims != NULL && c->periods != NULL && c->cart_nbrs != NULL);
        break;
    case MPI_GRAPH:
        c->index = ints_dup(t->index, t->nnodes);
        c->edges = ints_dup(t->edges, t->nedges);
        ok = (c->index != NULL && c->edges != NULL);
        break;
    default:
        c->sources      = ints_dup(t->sources, t->indegree);
        c->destinations = ints_dup(t->destinations, t->outdegree);
        ok = (c->sources != NULL && c->destinations != NULL);
        if (t->weighted != 0) {
            c->sourceweights = ints_dup(t->sourceweights, t->indegree);
            c->destweights   = ints_dup(t->destweights, t->outdegree);
            ok = ok && c->sourceweights != NULL && c->destweights != NULL;
        }
        break;
    }
    if (ok == 0) {
        topo_destroy(c);
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
    topo_destroy(comm->topo);
    comm->topo = NULL;
}

/* ---- argument checks ----------------------------------------------------- */

static int no_mem(MPI_Comm comm, const char *call)
{
    return gcm_mpi_raise(comm, MPI_ERR_NO_MEM, call,
                         "out of memory for the topology");
}

/* A live intracommunicator (topologies live on intracommunicators only). */
static int check_intra(MPI_Comm comm, const char *call)
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
static int get_topo(MPI_Comm comm, int kind, const char *call,
                    struct gcm_mpi_topo **t_p)
{
    int rc = check_intra(comm, call);

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
static int check_grid(MPI_Comm comm, int ndims, const int dims[],
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
    t->dims      = ints_dup(dims, ndims);
    t->periods   = calloc(ndims > 0 ? (size_t)ndims : 1u, sizeof(int));
    t->cart_nbrs = malloc((ndims > 0 ? 2u * (size_t)ndims : 1u) *
                          sizeof(int));
    coords       = malloc((ndims > 0 ? (size_t)ndims : 1u) * sizeof(int));
    if (t->dims == NULL || t->periods == NULL || t->cart_nbrs == NULL ||
        coords == NULL) {
        free(coords);
        topo_destroy(t);
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

/*
 * Derives the communicator of the n processes procs[] (world indices, in
 * rank order; this one is myrank, or n == 0 if it is not a member) from
 * parent and hangs t off it (t is freed when this process gets
 * MPI_COMM_NULL or on failure).
 */
static int derive_with_topo(MPI_Comm parent, int n, const int procs[],
                            int myrank, struct gcm_mpi_topo *t,
                            const char *call, MPI_Comm *newcomm)
{
    int rc = gcm_mpi_comm_derive(parent, n, procs, myrank, call, newcomm);

    if (rc != MPI_SUCCESS || *newcomm == MPI_COMM_NULL) {
        topo_destroy(t);
        return rc;
    }
    (*newcomm)->topo = t;
    return MPI_SUCCESS;
}

/* The world indices of parent's ranks 0..n-1 (NULL: no memory). */
static int *first_procs(MPI_Comm parent, int n)
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

int PMPI_Cart_create(MPI_Comm comm_old, int ndims, const int dims[],
                     const int periods[], int reorder, MPI_Comm *comm_cart)
{
    static const char call[] = "MPI_Cart_create";
    struct gcm_mpi_topo *t = NULL;
    int *procs;
    int rc, n, member;

    (void)reorder;  /* identity mapping: see the top of the file */
    rc = check_intra(comm_old, call);
    if (rc != MPI_SUCCESS) {
        return rc;
    }
    if (comm_cart == NULL) {
        return gcm_mpi_raise(comm_old, MPI_ERR_ARG, call, "comm_cart is NULL");
    }
    rc = check_grid(comm_old, ndims, dims, periods, comm_old->size, call, &n);
    if (rc != MPI_SUCCESS) {
        return rc;
    }
    /* Ranks beyond the grid still take part (the derivation is
     * collective over comm_old) and get MPI_COMM_NULL. */
    member = (comm_old->rank < n);
    procs  = first_procs(comm_old, n);
    if (procs != NULL && member) {
        t = cart_topo_new(ndims, dims, periods, comm_old->rank);
    }
    if (procs == NULL || (member && t == NULL)) {
        /* Others are in the collective derivation already; failing
         * here leaves them waiting, as any failed collective may. */
        free(procs);
        return no_mem(comm_old, call);
    }
    rc = derive_with_topo(comm_old, member ? n : 0, procs, comm_old->rank, t,
                          call, comm_cart);
    free(procs);
    return rc;
}
GCM_MPI_ALIAS(Cart_create)

int PMPI_Cartdim_get(MPI_Comm comm, int *ndims)
{
    static const char call[] = "MPI_Cartdim_get";
    struct gcm_mpi_topo *t = NULL;
    int rc = get_topo(comm, MPI_CART, call, &t);

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
    int rc = get_topo(comm, MPI_CART, call, &t);

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
    int rc = get_topo(comm, MPI_CART, call, &t);
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
    int rc = get_topo(comm, MPI_CART, call, &t);

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
    int rc = get_topo(comm, MPI_CART, call, &t);
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
        return no_mem(comm, call);
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
    int rc = get_topo(comm, MPI_CART, call, &t);
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
        rc = no_mem(comm, call);
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
        rc = no_mem(comm, call);
        goto out;
    }
    rc = derive_with_topo(comm, nsub, procs, myrank, sub, call, newcomm);
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
    int rc = check_intra(comm, call);
    int n;

    if (rc == MPI_SUCCESS) {
        rc = check_grid(comm, ndims, dims, periods, comm->size, call, &n);
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

/* ---- MPI_Dims_create ------------------------------------------------------ */

/*
 * The balanced factorisation: k factors of m, non-increasing, with the
 * smallest possible spread (largest - smallest). A greedy split (largest
 * prime into the smallest factor) is usually right but not always (72 in
 * 2 factors: 12 x 6, where 9 x 8 is closer), so it only seeds the bound of
 * an exact search.
 * The search only tries divisors of m, and the bound keeps every factor
 * within "spread" of the first, so it stays small even for large m.
 */
typedef struct dims_search {
    int        k;
    const int *divs;     /* divisors of m, increasing */
    int        ndivs;
    int       *cur;
    int       *best;
    int        spread;   /* best spread so far */
} dims_search_t;

/* Does f^e reach m (f the largest of e factors whose product is m)? */
static int pow_reaches(int f, int e, int m)
{
    long long p = 1;

    while (e-- > 0) {
        p *= f;
        if (p >= m) {
            return 1;
        }
    }
    return p >= m;
}

static void dims_search_at(dims_search_t *s, int depth, int rem, int hi)
{
    int i;

    if (depth == s->k - 1) {
        int spread = (depth == 0) ? 0 : s->cur[0] - rem;

        if (rem <= hi && spread < s->spread) {
            s->cur[depth] = rem;
            s->spread     = spread;
            memcpy(s->best, s->cur, (size_t)s->k * sizeof(int));
        }
        return;
    }
    for (i = s->ndivs - 1; i >= 0; i--) {
        int f = s->divs[i];

        if (f > hi || rem % f != 0) {
            continue;
        }
        /* f is the largest of the remaining factors, so f^left >= rem;
         * and later factors are >= 1, within spread of the first. */
        if (!pow_reaches(f, s->k - depth, rem)) {
            break;
        }
        if (depth > 0 && s->cur[0] - f >= s->spread) {
            break;
        }
        s->cur[depth] = f;
        dims_search_at(s, depth + 1, rem / f, f);
    }
}

static int int_cmp_desc(const void *a, const void *b)
{
    int x = *(const int *)a, y = *(const int *)b;

    return (x < y) - (x > y);
}

static int int_cmp_asc(const void *a, const void *b)
{
    return int_cmp_desc(b, a);
}

/* Fills out[0..k-1] (k >= 1) with the balanced factors of m >= 1. */
static int dims_balance(int m, int k, int out[])
{
    int primes[32], np = 0, ndivs = 1, i, j, x = m;
    int *divs, *cur;
    dims_search_t s;

    for (i = 0; i < k; i++) {
        out[i] = 1;
    }
    /* Prime factors, largest first, for the greedy seed. */
    for (j = 2; (long long)j * j <= x; j++) {
        while (x % j == 0) {
            primes[np++] = j;
            x /= j;
        }
    }
    if (x > 1) {
        primes[np++] = x;
    }
    for (i = np - 1; i >= 0; i--) {
        int small = 0;

        for (j = 1; j < k; j++) {
            if (out[j] < out[small]) {
                small = j;
            }
        }
        out[small] *= primes[i];
    }
    qsort(out, (size_t)k, sizeof(int), int_cmp_desc);
    /* All divisors of m, from its prime factors (at most 1600 for an
     * int), in increasing order. */
    for (i = 0; i < np;) {
        int e = 1;

        while (i + e < np && primes[i + e] == primes[i]) {
            e++;
        }
        ndivs *= e + 1;
        i += e;
    }
    divs = malloc((size_t)ndivs * sizeof(int));
    cur  = malloc((size_t)k * sizeof(int));
    if (divs == NULL || cur == NULL) {
        free(divs);
        free(cur);
        return 0;   /* the greedy answer stands */
    }
    divs[0] = 1;
    ndivs   = 1;
    for (i = 0; i < np;) {
        int e = 1, n0 = ndivs, p = 1, q;

        while (i + e < np && primes[i + e] == primes[i]) {
            e++;
        }
        for (q = 1; q <= e; q++) {
            p *= primes[i];
            for (j = 0; j < n0; j++) {
                divs[ndivs++] = divs[j] * p;
            }
        }
        i += e;
    }
    qsort(divs, (size_t)ndivs, sizeof(int), int_cmp_asc);
    s.k      = k;
    s.divs   = divs;
    s.ndivs  = ndivs;
    s.cur    = cur;
    s.best   = out;
    s.spread = out[0] - out[k - 1];
    dims_search_at(&s, 0, m, m);
    free(divs);
    free(cur);
    return 0;
}

int PMPI_Dims_create(int nnodes, int ndims, int dims[])
{
    static const char call[] = "MPI_Dims_create";
    int rc = gcm_mpi_check_init(call);
    long long fixed = 1;
    int d, nfree = 0, *factors, i;

    if (rc != MPI_SUCCESS) {
        return rc;
    }
    if (nnodes <= 0) {
        return gcm_mpi_raise(NULL, MPI_ERR_ARG, call,
                             "nnodes (%d) is not positive", nnodes);
    }
    if (ndims < 0) {
        return gcm_mpi_raise(NULL, MPI_ERR_DIMS, call,
                             "ndims (%d) is negative", ndims);
    }
    if (ndims > 0 && dims == NULL) {
        return gcm_mpi_raise(NULL, MPI_ERR_ARG, call, "dims is NULL");
    }
    for (d = 0; d < ndims; d++) {
        if (dims[d] < 0) {
            return gcm_mpi_raise(NULL, MPI_ERR_DIMS, call,
                                 "dims[%d] is negative (%d)", d, dims[d]);
        }
        if (dims[d] == 0) {
            nfree++;
        } else {
            fixed *= dims[d];
            if (fixed > nnodes) {
                break;  /* cannot divide; reported below */
            }
        }
    }
    if (fixed > nnodes || nnodes % fixed != 0 ||
        (nfree == 0 && fixed != nnodes)) {
        return gcm_mpi_raise(NULL, MPI_ERR_DIMS, call,
                             "%d processes cannot fill the given "
                             "dimensions (their product is %s%lld)",
                             nnodes, fixed > nnodes ? "over " : "", fixed);
    }
    if (nfree == 0) {
        return MPI_SUCCESS;
    }
    factors = malloc((size_t)nfree * sizeof(int));
    if (factors == NULL) {
        return gcm_mpi_raise(NULL, MPI_ERR_NO_MEM, call, "out of memory");
    }
    dims_balance((int)(nnodes / fixed), nfree, factors);
    for (d = 0, i = 0; d < ndims; d++) {
        if (dims[d] == 0) {
            dims[d] = factors[i++];
        }
    }
    free(factors);
    return MPI_SUCCESS;
}
GCM_MPI_ALIAS(Dims_create)

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
    rc = check_intra(comm_old, call);
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
    procs  = first_procs(comm_old, nnodes);
    if (procs != NULL && member) {
        t = calloc(1, sizeof(*t));
        if (t != NULL) {
            t->kind   = MPI_GRAPH;
            t->nnodes = nnodes;
            t->nedges = nedges;
            t->index  = ints_dup(index, nnodes);
            t->edges  = ints_dup(edges, nedges);
            if (t->index == NULL || t->edges == NULL) {
                topo_destroy(t);
                t = NULL;
            }
        }
    }
    if (procs == NULL || (member && t == NULL)) {
        free(procs);
        return no_mem(comm_old, call);
    }
    rc = derive_with_topo(comm_old, member ? nnodes : 0, procs,
                          comm_old->rank, t, call, comm_graph);
    free(procs);
    return rc;
}
GCM_MPI_ALIAS(Graph_create)

int PMPI_Graphdims_get(MPI_Comm comm, int *nnodes, int *nedges)
{
    static const char call[] = "MPI_Graphdims_get";
    struct gcm_mpi_topo *t = NULL;
    int rc = get_topo(comm, MPI_GRAPH, call, &t);

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

/* Copies what fits of n ints (the caller's array holds max). */
static void copy_some(int *dst, const int *src, int n, int max)
{
    if (dst != NULL && n > 0 && max > 0) {
        memcpy(dst, src, (size_t)(n < max ? n : max) * sizeof(int));
    }
}

int PMPI_Graph_get(MPI_Comm comm, int maxindex, int maxedges, int index[],
                   int edges[])
{
    static const char call[] = "MPI_Graph_get";
    struct gcm_mpi_topo *t = NULL;
    int rc = get_topo(comm, MPI_GRAPH, call, &t);

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
    copy_some(index, t->index, t->nnodes, maxindex);
    copy_some(edges, t->edges, t->nedges, maxedges);
    return MPI_SUCCESS;
}
GCM_MPI_ALIAS(Graph_get)

/* The neighbours of node rank: edges[first..first+count-1]. */
static void graph_adjacency(const struct gcm_mpi_topo *t, int rank,
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
    int rc = get_topo(comm, MPI_GRAPH, call, &t);
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
    graph_adjacency(t, rank, &first, nneighbors);
    return MPI_SUCCESS;
}
GCM_MPI_ALIAS(Graph_neighbors_count)

int PMPI_Graph_neighbors(MPI_Comm comm, int rank, int maxneighbors,
                         int neighbors[])
{
    static const char call[] = "MPI_Graph_neighbors";
    struct gcm_mpi_topo *t = NULL;
    int rc = get_topo(comm, MPI_GRAPH, call, &t);
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
    graph_adjacency(t, rank, &first, &count);
    copy_some(neighbors, t->edges + first, count, maxneighbors);
    return MPI_SUCCESS;
}
GCM_MPI_ALIAS(Graph_neighbors)

int PMPI_Graph_map(MPI_Comm comm, int nnodes, const int index[],
                   const int edges[], int *newrank)
{
    static const char call[] = "MPI_Graph_map";
    int rc = check_intra(comm, call);

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
    int *procs = first_procs(parent, parent->size);
    int rc;

    if (procs == NULL) {
        topo_destroy(t);
        return no_mem(parent, call);
    }
    rc = derive_with_topo(parent, parent->size, procs, parent->rank, t, call,
                          newcomm);
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
    rc = check_intra(comm_old, call);
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
    t = dist_topo_new(indegree, ints_dup(sources, indegree),
                      weighted ? ints_dup(indegree > 0 ? sourceweights : NULL,
                                          indegree)
                               : NULL,
                      outdegree, ints_dup(destinations, outdegree),
                      weighted ? ints_dup(outdegree > 0 ? destweights : NULL,
                                          outdegree)
                               : NULL,
                      weighted);
    if (t == NULL) {
        return no_mem(comm_old, call);
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
        rc = no_mem(comm, call);
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
        rc = no_mem(comm, call);
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
        rc = no_mem(comm, call);
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
    rc = check_intra(comm_old, call);
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
        return no_mem(comm_old, call);
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
        return no_mem(comm_old, call);
    }
    return derive_all(comm_old, t, call, comm_dist_graph);
}
GCM_MPI_ALIAS(Dist_graph_create)

int PMPI_Dist_graph_neighbors_count(MPI_Comm comm, int *indegree,
                                    int *outdegree, int *weighted)
{
    static const char call[] = "MPI_Dist_graph_neighbors_count";
    struct gcm_mpi_topo *t = NULL;
    int rc = get_topo(comm, MPI_DIST_GRAPH, call, &t);

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
    int rc = get_topo(comm, MPI_DIST_GRAPH, call, &t);

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
    copy_some(sources, t->sources, t->indegree, maxindegree);
    copy_some(destinations, t->destinations, t->outdegree, maxoutdegree);
    if (t->weighted != 0) {
        if (wants_weights(sourceweights)) {
            copy_some(sourceweights, t->sourceweights, t->indegree,
                      maxindegree);
        }
        if (wants_weights(destweights)) {
            copy_some(destweights, t->destweights, t->outdegree,
                      maxoutdegree);
        }
    }
    return MPI_SUCCESS;
}
GCM_MPI_ALIAS(Dist_graph_neighbors)

/* ---- neighbour collectives ------------------------------------------------ */

/* This process's neighbours in the order neighbour collectives use: it
 * receives block k from in[k] and sends block k to out[k]. */
typedef struct nbr_lists {
    int        indeg;
    int        outdeg;
    const int *in;
    const int *out;
    int        cart;   /* tags by direction: see neighbor_exchange */
} nbr_lists_t;

static int get_neighbors(MPI_Comm comm, const char *call, nbr_lists_t *l)
{
    struct gcm_mpi_topo *t = NULL;
    int rc = get_topo(comm, 0, call, &t);
    int first;

    if (rc != MPI_SUCCESS) {
        return rc;
    }
    memset(l, 0, sizeof(*l));
    switch (t->kind) {
    case MPI_CART:
        l->indeg = l->outdeg = 2 * t->ndims;
        l->in = l->out = t->cart_nbrs;
        l->cart = 1;
        break;
    case MPI_GRAPH:
        graph_adjacency(t, comm->rank, &first, &l->indeg);
        l->outdeg = l->indeg;
        l->in = l->out = t->edges + first;
        break;
    default:
        l->indeg  = t->indegree;
        l->outdeg = t->outdegree;
        l->in     = t->sources;
        l->out    = t->destinations;
        break;
    }
    return MPI_SUCCESS;
}

/* Byte offsets and counts of the blocks of one side of a neighbour
 * collective: block k is counts[k] elements at buf + displs[k] extents
 * (allgather and alltoall pass their fixed strides through these too). */
typedef struct nbr_side {
    const void   *buf;
    MPI_Datatype  type;
    int           n;
    const int    *counts;   /* NULL: every block has count */
    int           count;
    const int    *displs;   /* NULL: block k at k * stride elements */
    int           stride;
} nbr_side_t;

static int side_count(const nbr_side_t *s, int k)
{
    return (s->counts != NULL) ? s->counts[k] : s->count;
}

static char *side_block(const nbr_side_t *s, int k)
{
    MPI_Aint lb, extent;
    long long at = (s->displs != NULL) ? s->displs[k]
                                       : (long long)k * s->stride;

    gcm_mpi_type_extent(s->type, &lb, &extent);
    return (char *)s->buf + at * extent;
}

/* Checks a side's type and counts (send or receive). */
static int check_side(MPI_Comm comm, const nbr_side_t *s, const char *what,
                      const char *call)
{
    int k;

    if (gcm_mpi_type_check(s->type) != 0) {
        return gcm_mpi_raise(comm, MPI_ERR_TYPE, call,
                             "%stype is not a valid committed datatype",
                             what);
    }
    if (s->counts == NULL) {
        if (s->count < 0) {
            return gcm_mpi_raise(comm, MPI_ERR_COUNT, call,
                                 "%scount is negative (%d)", what, s->count);
        }
        return MPI_SUCCESS;
    }
    if (s->n > 0 && s->displs == NULL) {
        return gcm_mpi_raise(comm, MPI_ERR_ARG, call,
                             "%s displacements are NULL", what);
    }
    for (k = 0; k < s->n; k++) {
        if (s->counts[k] < 0) {
            return gcm_mpi_raise(comm, MPI_ERR_COUNT, call,
                                 "%scounts[%d] is negative (%d)", what, k,
                                 s->counts[k]);
        }
    }
    return MPI_SUCCESS;
}

/* What one block transfer needs: the bytes, and the packed copy when the
 * layout is not contiguous. */
typedef struct nbr_xfer {
    void   *bytes;
    size_t  len;
    void   *tmp;     /* owned; NULL when bytes points into the user's */
    char   *user;    /* receive: where to unpack tmp */
    int     count;
} nbr_xfer_t;

/* Points x at count elements of type at buf: directly when contiguous,
 * else at a buffer (packed now if pack). 0, or -1 if memory ran out. */
static int xfer_prepare(nbr_xfer_t *x, MPI_Datatype type, int count,
                        char *buf, int pack)
{
    static char empty;
    const void *start;

    x->len   = (size_t)count * (size_t)gcm_mpi_type_size(type);
    x->user  = buf;
    x->count = count;
    x->tmp   = NULL;
    if (x->len == 0) {
        x->bytes = &empty;   /* a real address for a zero-byte message */
        return 0;
    }
    if (gcm_mpi_type_is_contiguous(type, count, buf, &start)) {
        x->bytes = (void *)start;
        return 0;
    }
    x->tmp = malloc(x->len);
    if (x->tmp == NULL) {
        return -1;
    }
    if (pack) {
        gcm_mpi_type_pack(type, count, buf, x->tmp);
    }
    x->bytes = x->tmp;
    return 0;
}

/*
 * The engine of the four neighbour collectives: block k of send goes to
 * out[k], block k of recv comes from in[k]; MPI_PROC_NULL neighbours are
 * skipped (their receive blocks are left as they are). shared_send: every
 * out-neighbour gets the same block (allgather), packed once.
 *
 * Messages between two processes are matched in the order they are posted
 * (the LCO's per-slot order), which pairs the k-th of several edges a -> b
 * at both ends. A Cartesian dimension of size 2 (or 1) with wrap-around has
 * the same process as source and destination, and there order alone would
 * pair the wrong blocks: what a process sends towards +1 arrives as its
 * neighbour's source block, and what it sends towards -1 as its
 * destination block. So Cartesian messages carry one tag per direction.
 */
static int neighbor_exchange(MPI_Comm comm, const char *call,
                             const nbr_lists_t *l, const nbr_side_t *send,
                             int shared_send, const nbr_side_t *recv)
{
    int tag_up   = gcm_mpi_coll_tag(comm);  /* sent towards +1 (or all) */
    int tag_down = gcm_mpi_coll_tag(comm);  /* sent towards -1 */
    nbr_xfer_t *rx = calloc((size_t)l->indeg + 1, sizeof(*rx));
    nbr_xfer_t *sx = calloc((size_t)l->outdeg + 1, sizeof(*sx));
    gcm_request_h *reqs = calloc((size_t)l->indeg + (size_t)l->outdeg + 1,
                                 sizeof(*reqs));
    gcm_status_t st = GCM_OK;
    int k, nreq = 0, rc = MPI_SUCCESS, nsx = 0, nrx = 0;

    if (rx == NULL || sx == NULL || reqs == NULL) {
        rc = no_mem(comm, call);
        goto out;
    }
    for (k = 0; k < l->indeg && st == GCM_OK; k++) {
        /* Cartesian: block 2d comes from the source, which sent it
         * towards +1; block 2d + 1 from the destination, towards -1. */
        int tag = (l->cart && (k % 2) == 1) ? tag_down : tag_up;

        if (l->in[k] == MPI_PROC_NULL) {
            continue;
        }
        if (xfer_prepare(&rx[nrx], recv->type, side_count(recv, k),
                         side_block(recv, k), 0) != 0) {
            rc = no_mem(comm, call);
            goto out;
        }
        st = gcm_mpi_irecv_bytes(comm, rx[nrx].bytes, rx[nrx].len, l->in[k],
                                 tag, &reqs[nreq++]);
        nrx++;
    }
    for (k = 0; k < l->outdeg && st == GCM_OK; k++) {
        /* Cartesian: block 2d goes to the source (towards -1). */
        int tag = (l->cart && (k % 2) == 0) ? tag_down : tag_up;
        nbr_xfer_t *x;

        if (l->out[k] == MPI_PROC_NULL) {
            continue;
        }
        if (shared_send && nsx > 0) {
            x = &sx[0];
        } else {
            if (xfer_prepare(&sx[nsx], send->type, side_count(send, k),
                             side_block(send, k), 1) != 0) {
                rc = no_mem(comm, call);
                goto out;
            }
            x = &sx[nsx++];
        }
        st = gcm_mpi_isend_bytes(comm, x->bytes, x->len, l->out[k], tag,
                                 &reqs[nreq++]);
    }
out:
    if (nreq > 0) {
        gcm_status_t wst = gcm_waitall(nreq, reqs, NULL);

        if (st == GCM_OK) {
            st = wst;
        }
    }
    if (rc == MPI_SUCCESS && st != GCM_OK) {
        rc = gcm_mpi_raise(comm, gcm_mpi_errclass(st), call,
                           "neighbour exchange: %s", gcm_status_string(st));
    }
    for (k = 0; k < nrx; k++) {
        if (rx[k].tmp != NULL) {
            if (rc == MPI_SUCCESS) {
                gcm_mpi_type_unpack(recv->type, rx[k].count, rx[k].tmp,
                                    rx[k].len, rx[k].user);
            }
            free(rx[k].tmp);
        }
    }
    for (k = 0; k < nsx; k++) {
        free(sx[k].tmp);
    }
    free(rx);
    free(sx);
    free(reqs);
    return rc;
}

/* The checks and the exchange common to the four calls. */
static int neighbor_coll(MPI_Comm comm, const char *call, nbr_side_t *send,
                         int shared_send, nbr_side_t *recv)
{
    nbr_lists_t l;
    int rc = get_neighbors(comm, call, &l);

    if (rc != MPI_SUCCESS) {
        return rc;
    }
    if (send->buf == MPI_IN_PLACE || recv->buf == MPI_IN_PLACE) {
        return gcm_mpi_raise(comm, MPI_ERR_BUFFER, call,
                             "MPI_IN_PLACE is not allowed in neighbour "
                             "collectives");
    }
    send->n = l.outdeg;
    recv->n = l.indeg;
    rc = check_side(comm, send, "send", call);
    if (rc == MPI_SUCCESS) {
        rc = check_side(comm, recv, "recv", call);
    }
    if (rc != MPI_SUCCESS) {
        return rc;
    }
    return neighbor_exchange(comm, call, &l, send, shared_send, recv);
}

int PMPI_Neighbor_allgather(const void *sendbuf, int sendcount,
                            MPI_Datatype sendtype, void *recvbuf,
                            int recvcount, MPI_Datatype recvtype,
                            MPI_Comm comm)
{
    nbr_side_t send = { sendbuf, sendtype, 0, NULL, sendcount, NULL, 0 };
    nbr_side_t recv = { recvbuf, recvtype, 0, NULL, recvcount, NULL,
                        recvcount };

    return neighbor_coll(comm, "MPI_Neighbor_allgather", &send, 1, &recv);
}
GCM_MPI_ALIAS(Neighbor_allgather)

int PMPI_Neighbor_allgatherv(const void *sendbuf, int sendcount,
                             MPI_Datatype sendtype, void *recvbuf,
                             const int recvcounts[], const int displs[],
                             MPI_Datatype recvtype, MPI_Comm comm)
{
    static const char call[] = "MPI_Neighbor_allgatherv";
    static const int none[1] = { 0 };
    nbr_side_t send = { sendbuf, sendtype, 0, NULL, sendcount, NULL, 0 };
    nbr_side_t recv = { recvbuf, recvtype, 0, recvcounts, 0, displs, 0 };
    nbr_lists_t l;
    int rc = get_neighbors(comm, call, &l);

    if (rc != MPI_SUCCESS) {
        return rc;
    }
    /* The arrays may be NULL where there are no in-neighbours. */
    if (l.indeg > 0 && recvcounts == NULL) {
        return gcm_mpi_raise(comm, MPI_ERR_ARG, call, "recvcounts is NULL");
    }
    if (recvcounts == NULL) {
        recv.counts = none;
        recv.displs = none;
    }
    return neighbor_coll(comm, call, &send, 1, &recv);
}
GCM_MPI_ALIAS(Neighbor_allgatherv)

int PMPI_Neighbor_alltoall(const void *sendbuf, int sendcount,
                           MPI_Datatype sendtype, void *recvbuf,
                           int recvcount, MPI_Datatype recvtype,
                           MPI_Comm comm)
{
    nbr_side_t send = { sendbuf, sendtype, 0, NULL, sendcount, NULL,
                        sendcount };
    nbr_side_t recv = { recvbuf, recvtype, 0, NULL, recvcount, NULL,
                        recvcount };

    return neighbor_coll(comm, "MPI_Neighbor_alltoall", &send, 0, &recv);
}
GCM_MPI_ALIAS(Neighbor_alltoall)

int PMPI_Neighbor_alltoallv(const void *sendbuf, const int sendcounts[],
                            const int sdispls[], MPI_Datatype sendtype,
                            void *recvbuf, const int recvcounts[],
                            const int rdispls[], MPI_Datatype recvtype,
                            MPI_Comm comm)
{
    static const char call[] = "MPI_Neighbor_alltoallv";
    static const int none[1] = { 0 };
    nbr_side_t send = { sendbuf, sendtype, 0, sendcounts, 0, sdispls, 0 };
    nbr_side_t recv = { recvbuf, recvtype, 0, recvcounts, 0, rdispls, 0 };
    nbr_lists_t l;
    int rc = get_neighbors(comm, call, &l);

    if (rc != MPI_SUCCESS) {
        return rc;
    }
    /* Arrays may be NULL where there are no neighbours to describe. */
    if ((l.outdeg > 0 && sendcounts == NULL) ||
        (l.indeg > 0 && recvcounts == NULL)) {
        return gcm_mpi_raise(comm, MPI_ERR_ARG, call,
                             "sendcounts or recvcounts is NULL");
    }
    if (sendcounts == NULL) {
        send.counts = none;
        send.displs = none;
    }
    if (recvcounts == NULL) {
        recv.counts = none;
        recv.displs = none;
    }
    return neighbor_coll(comm, call, &send, 0, &recv);
}
GCM_MPI_ALIAS(Neighbor_alltoallv)

/*
 * compat/mpi_type_darray.c: MPI_Type_create_darray (MPI-3.1 4.1.4), the
 * part of an array of ndims dimensions that one process of a process grid
 * holds under block, cyclic or no distribution of each dimension.
 *
 * The type keeps its envelope (MPI_COMBINER_DARRAY, for
 * MPI_Type_get_contents) and the same layout built from simpler
 * constructors (impl), which its layout, flattening and walking go
 * through. One dimension at a time, from the innermost: copies of what
 * the inner dimensions hold, placed one inner slab apart (resized), taken
 * as a run (block), as a vector of blocks plus a last partial one
 * (cyclic) or whole (none); the offset of this process's first element
 * is added at the end, and the whole is resized to the full array, as the
 * standard defines. Each dimension costs a few small types whatever its
 * size: the description stays O(ndims).
 */
#include "config.h"

#include "compat/mpi_type_impl.h"

#include <limits.h>
#include <stdlib.h>

/* ---- internal constructors ----------------------------------------------- */

/* A finished type, or NULL (*rc_p set). The caller owns one reference;
 * the type is never a user's handle. */
static struct gcm_mpi_datatype *mk_type(struct gcm_mpi_datatype *t,
                                        const char *call, int *rc_p)
{
    MPI_Datatype out;

    if (t == NULL) {
        *rc_p = MPI_ERR_NO_MEM;
        return NULL;
    }
    *rc_p = gcm_mpi_type_finish(t, &out, call);
    return (*rc_p == MPI_SUCCESS) ? out : NULL;
}

static struct gcm_mpi_datatype *mk_resized(struct gcm_mpi_datatype *old,
                                           MPI_Aint lb, MPI_Aint extent,
                                           const char *call, int *rc_p)
{
    struct gcm_mpi_datatype *t = gcm_mpi_type_alloc(MPI_COMBINER_RESIZED, 0,
                                                    2, 1);

    if (t != NULL) {
        t->addrs[0] = lb;
        t->addrs[1] = extent;
        t->types[0] = old;
    }
    return mk_type(t, call, rc_p);
}

static struct gcm_mpi_datatype *mk_contig(int count,
                                          struct gcm_mpi_datatype *old,
                                          const char *call, int *rc_p)
{
    struct gcm_mpi_datatype *t = gcm_mpi_type_alloc(MPI_COMBINER_CONTIGUOUS,
                                                    1, 0, 1);

    if (t != NULL) {
        t->ints[0] = count;
        t->types[0] = old;
    }
    return mk_type(t, call, rc_p);
}

static struct gcm_mpi_datatype *mk_hvector(int count, int blocklength,
                                           MPI_Aint stride,
                                           struct gcm_mpi_datatype *old,
                                           const char *call, int *rc_p)
{
    struct gcm_mpi_datatype *t = gcm_mpi_type_alloc(MPI_COMBINER_HVECTOR, 2,
                                                    1, 1);

    if (t != NULL) {
        t->ints[0] = count;
        t->ints[1] = blocklength;
        t->addrs[0] = stride;
        t->types[0] = old;
    }
    return mk_type(t, call, rc_p);
}

/* One or two blocks of one element each: a at da (then b at db). */
static struct gcm_mpi_datatype *mk_place(struct gcm_mpi_datatype *a,
                                         MPI_Aint da,
                                         struct gcm_mpi_datatype *b,
                                         MPI_Aint db, const char *call,
                                         int *rc_p)
{
    int n = (b != NULL) ? 2 : 1;
    struct gcm_mpi_datatype *t = gcm_mpi_type_alloc(MPI_COMBINER_STRUCT,
                                                    n + 1, n, n);

    if (t != NULL) {
        t->ints[0] = n;
        t->ints[1] = 1;
        t->addrs[0] = da;
        t->types[0] = a;
        if (b != NULL) {
            t->ints[2] = 1;
            t->addrs[1] = db;
            t->types[1] = b;
        }
    }
    return mk_type(t, call, rc_p);
}

/* ---- one dimension --------------------------------------------------------- */

typedef struct {
    int gsize;
    int distrib;
    int darg;
    int psize;
    int coord;
} darray_dim_t;

/*
 * What this process holds of one dimension, from copies of inner (what
 * the inner dimensions hold) one slab (bytes) apart: the piece, starting
 * at the dimension's first element, and the offset (bytes) of this
 * process's first element. NULL with *rc_p set on failure.
 */
static struct gcm_mpi_datatype *darray_dim(const darray_dim_t *d,
                                           struct gcm_mpi_datatype *inner,
                                           MPI_Aint slab, MPI_Aint *off_p,
                                           const char *call, int *rc_p)
{
    struct gcm_mpi_datatype *r, *piece = NULL, *v, *part;
    long long blk, start, len, nblk, mine, last, full, rest;
    MPI_Aint stride;

    r = mk_resized(inner, 0, slab, call, rc_p);
    if (r == NULL) {
        return NULL;
    }
    *off_p = 0;
    switch (d->distrib) {
    case MPI_DISTRIBUTE_NONE:
        piece = mk_contig(d->gsize, r, call, rc_p);
        break;
    case MPI_DISTRIBUTE_BLOCK:
        blk = (d->darg == MPI_DISTRIBUTE_DFLT_DARG) ?
              ((long long)d->gsize + d->psize - 1) / d->psize : d->darg;
        start = blk * d->coord;
        len = (start >= d->gsize) ? 0 :
              ((d->gsize - start < blk) ? d->gsize - start : blk);
        *off_p = (MPI_Aint)((start < d->gsize) ? start : 0) * slab;
        piece = mk_contig((int)len, r, call, rc_p);
        break;
    default: /* MPI_DISTRIBUTE_CYCLIC */
        blk = (d->darg == MPI_DISTRIBUTE_DFLT_DARG) ? 1 : d->darg;
        nblk = ((long long)d->gsize + blk - 1) / blk;   /* blocks in all */
        mine = (nblk > d->coord) ?
               (nblk - 1 - d->coord) / d->psize + 1 : 0;
        if (mine == 0) {
            piece = mk_contig(0, r, call, rc_p);
            break;
        }
        /* The last block of the dimension may be short; it is this
         * process's last one if it falls to it. */
        last = d->coord + (mine - 1) * d->psize;
        rest = d->gsize - (nblk - 1) * blk;
        full = mine;
        if ((last == nblk - 1) && (rest < blk)) {
            full--;
        } else {
            rest = 0;
        }
        stride = (MPI_Aint)(blk * d->psize) * slab;
        *off_p = (MPI_Aint)(d->coord * blk) * slab;
        v = mk_hvector((int)full, (int)blk, stride, r, call, rc_p);
        if ((v == NULL) || (rest == 0)) {
            piece = v;
            break;
        }
        part = mk_contig((int)rest, r, call, rc_p);
        if (part != NULL) {
            piece = mk_place(v, 0, part, (MPI_Aint)full * stride, call,
                             rc_p);
            gcm_mpi_type_release(part);
        }
        gcm_mpi_type_release(v);
        break;
    }
    gcm_mpi_type_release(r);
    return piece;
}

/* ---- the call ------------------------------------------------------------- */

/* This process's coordinate in dimension i of the grid, which is row-major
 * whatever the array's order. */
static int grid_coord(int rank, int ndims, const int psizes[], int i)
{
    int j;

    for (j = ndims - 1; j > i; j--) {
        rank /= psizes[j];
    }
    return rank % psizes[i];
}

static int darray_check(int size, int rank, int ndims, const int gsizes[],
                        const int distribs[], const int dargs[],
                        const int psizes[], int order, const char *call)
{
    long long procs = 1;
    int i;

    if ((size <= 0) || (rank < 0) || (rank >= size)) {
        return gcm_mpi_raise(NULL, MPI_ERR_ARG, call, "rank %d of size %d "
                             "is not a process of a grid", rank, size);
    }
    if (ndims <= 0 || ndims > (INT_MAX - 4) / 4) {
        return gcm_mpi_raise(NULL, MPI_ERR_ARG, call,
                             "ndims %d is not positive", ndims);
    }
    if ((gsizes == NULL) || (distribs == NULL) || (dargs == NULL) ||
        (psizes == NULL)) {
        return gcm_mpi_raise(NULL, MPI_ERR_ARG, call,
                             "an array argument is NULL");
    }
    if ((order != MPI_ORDER_C) && (order != MPI_ORDER_FORTRAN)) {
        return gcm_mpi_raise(NULL, MPI_ERR_ARG, call, "bad order %d", order);
    }
    for (i = 0; i < ndims; i++) {
        if ((gsizes[i] <= 0) || (psizes[i] <= 0)) {
            return gcm_mpi_raise(NULL, MPI_ERR_ARG, call,
                                 "gsizes[%d] = %d or psizes[%d] = %d is not "
                                 "positive", i, gsizes[i], i, psizes[i]);
        }
        procs *= psizes[i];
        if (procs > size) {
            break;
        }
        switch (distribs[i]) {
        case MPI_DISTRIBUTE_NONE:
            if (psizes[i] != 1) {
                return gcm_mpi_raise(NULL, MPI_ERR_ARG, call,
                                     "dimension %d is not distributed but "
                                     "psizes[%d] = %d", i, i, psizes[i]);
            }
            break;
        case MPI_DISTRIBUTE_BLOCK:
            if ((dargs[i] != MPI_DISTRIBUTE_DFLT_DARG) &&
                ((dargs[i] <= 0) ||
                 ((long long)dargs[i] * psizes[i] < gsizes[i]))) {
                return gcm_mpi_raise(NULL, MPI_ERR_ARG, call,
                                     "dargs[%d] = %d blocks of %d processes "
                                     "do not cover %d elements", i,
                                     dargs[i], psizes[i], gsizes[i]);
            }
            break;
        case MPI_DISTRIBUTE_CYCLIC:
            if ((dargs[i] != MPI_DISTRIBUTE_DFLT_DARG) && (dargs[i] <= 0)) {
                return gcm_mpi_raise(NULL, MPI_ERR_ARG, call,
                                     "dargs[%d] = %d is not positive", i,
                                     dargs[i]);
            }
            break;
        default:
            return gcm_mpi_raise(NULL, MPI_ERR_ARG, call,
                                 "distribs[%d] = %d is no distribution", i,
                                 distribs[i]);
        }
    }
    if (procs != size) {
        return gcm_mpi_raise(NULL, MPI_ERR_ARG, call,
                             "the process grid does not have size %d "
                             "processes", size);
    }
    return MPI_SUCCESS;
}

int PMPI_Type_create_darray(int size, int rank, int ndims,
                            const int gsizes[], const int distribs[],
                            const int dargs[], const int psizes[],
                            int order, MPI_Datatype oldtype,
                            MPI_Datatype *newtype)
{
    static const char call[] = "MPI_Type_create_darray";
    struct gcm_mpi_datatype *t, *cur, *next, *placed;
    MPI_Aint slab, off, total = 0;
    darray_dim_t d;
    int rc, i, k;

    rc = gcm_mpi_type_check_valid(oldtype, call);
    if (rc == MPI_SUCCESS) {
        rc = gcm_mpi_type_check_out(newtype, "newtype", call);
    }
    if (rc == MPI_SUCCESS) {
        rc = darray_check(size, rank, ndims, gsizes, distribs, dargs, psizes,
                          order, call);
    }
    if (rc != MPI_SUCCESS) {
        return rc;
    }
    slab = gcm_mpi_type_ext(oldtype);
    cur = oldtype;
    gcm_mpi_type_retain(cur);
    for (k = 0; k < ndims; k++) {
        i = (order == MPI_ORDER_C) ? ndims - 1 - k : k;
        d.coord = grid_coord(rank, ndims, psizes, i);
        d.gsize = gsizes[i];
        d.distrib = distribs[i];
        d.darg = dargs[i];
        d.psize = psizes[i];
        next = darray_dim(&d, cur, slab, &off, call, &rc);
        gcm_mpi_type_release(cur);
        if (next == NULL) {
            return gcm_mpi_raise(NULL, rc, call, "cannot build the layout "
                                 "(dimension %d, class %d)", i, rc);
        }
        cur = next;
        if (__builtin_add_overflow(total, off, &total) ||
            __builtin_mul_overflow(slab, (MPI_Aint)gsizes[i], &slab)) {
            gcm_mpi_type_release(cur);
            return gcm_mpi_raise(NULL, MPI_ERR_ARG, call, "the array is "
                                 "larger than an address can reach");
        }
    }
    /* This process's first element, then the whole array as extent. */
    placed = mk_place(cur, total, NULL, 0, call, &rc);
    gcm_mpi_type_release(cur);
    cur = (placed != NULL) ? mk_resized(placed, 0, slab, call, &rc) : NULL;
    if (placed != NULL) {
        gcm_mpi_type_release(placed);
    }
    if (cur == NULL) {
        return gcm_mpi_raise(NULL, rc, call, "cannot build the layout "
                             "(class %d)", rc);
    }
    t = gcm_mpi_type_alloc(MPI_COMBINER_DARRAY, 4 * ndims + 4, 0, 1);
    if (t == NULL) {
        gcm_mpi_type_release(cur);
        return gcm_mpi_type_no_mem(call);
    }
    t->ints[0] = size;
    t->ints[1] = rank;
    t->ints[2] = ndims;
    for (i = 0; i < ndims; i++) {
        t->ints[3 + i] = gsizes[i];
        t->ints[3 + ndims + i] = distribs[i];
        t->ints[3 + 2 * ndims + i] = dargs[i];
        t->ints[3 + 3 * ndims + i] = psizes[i];
    }
    t->ints[3 + 4 * ndims] = order;
    t->types[0] = oldtype;
    t->impl = cur;   /* owned: released with t */
    return gcm_mpi_type_finish(t, newtype, call);
}
GCM_MPI_ALIAS(Type_create_darray)

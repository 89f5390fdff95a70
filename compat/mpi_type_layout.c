/*
 * compat/mpi_type_layout.c: the layout of a derived type: walking
 * its entries, its type signature, and the properties computed when it
 * is constructed (size, bounds, element counts, basic kind).
 */
#include "config.h"

#include "compat/mpi_type_impl.h"

#include <limits.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <wchar.h>

/* ---- walking the entries of a derived type ----------------------------- */

/* disp = a * b * c, or MPI_ERR_ARG if it does not fit in an MPI_Aint. */
static int type_disp(MPI_Aint a, MPI_Aint b, MPI_Aint c, MPI_Aint *disp)
{
    MPI_Aint ab;

    if (__builtin_mul_overflow(a, b, &ab) ||
        __builtin_mul_overflow(ab, c, disp)) {
        return MPI_ERR_ARG;
    }
    return MPI_SUCCESS;
}

/* The runs of a subarray: one per index of the outer dimensions (in C
 * order; Fortran order is C order with the dimensions reversed), each
 * subsizes[innermost] copies of oldtype. */
static int type_foreach_subarray(const struct gcm_mpi_datatype *t,
                                 gcm_mpi_type_entry_fn fn, void *ctx)
{
    MPI_Aint stack_stride[GCM_TYPE_SUBARRAY_STACK_DIMS];
    int stack_idx[GCM_TYPE_SUBARRAY_STACK_DIMS];
    struct gcm_mpi_datatype *old = t->types[0];
    int ndims = t->ints[0];
    const int *sizes = &t->ints[1];
    const int *subsizes = &t->ints[1 + ndims];
    const int *starts = &t->ints[1 + 2 * ndims];
    int fortran = (t->ints[1 + 3 * ndims] == MPI_ORDER_FORTRAN);
    MPI_Aint *stride = stack_stride;
    int *idx = stack_idx;
    int rc = MPI_SUCCESS;
    int k;

    /* k is the dimension in C order; dim() maps it to the caller's. */
#define GCM_SUB_DIM(_k) (fortran ? ndims - 1 - (_k) : (_k))
    for (k = 0; k < ndims; k++) {
        if (subsizes[GCM_SUB_DIM(k)] == 0) {
            return MPI_SUCCESS;
        }
    }
    if (ndims > GCM_TYPE_SUBARRAY_STACK_DIMS) {
        stride = malloc(sizeof(*stride) * (size_t)ndims);
        idx = malloc(sizeof(*idx) * (size_t)ndims);
        if (stride == NULL || idx == NULL) {
            rc = MPI_ERR_NO_MEM;
            goto out;
        }
    }
    stride[ndims - 1] = gcm_mpi_type_ext(old);
    for (k = ndims - 2; k >= 0; k--) {
        if (__builtin_mul_overflow(stride[k + 1],
                                   (MPI_Aint)sizes[GCM_SUB_DIM(k + 1)],
                                   &stride[k])) {
            rc = MPI_ERR_ARG;
            goto out;
        }
    }
    for (k = 0; k < ndims; k++) {
        idx[k] = 0;
    }
    for (;;) {
        MPI_Aint disp = 0;
        MPI_Aint term;

        for (k = 0; k < ndims; k++) {
            MPI_Aint pos = (MPI_Aint)starts[GCM_SUB_DIM(k)] + idx[k];

            if (__builtin_mul_overflow(pos, stride[k], &term) ||
                __builtin_add_overflow(disp, term, &disp)) {
                rc = MPI_ERR_ARG;
                goto out;
            }
        }
        rc = fn(ctx, old, disp, subsizes[GCM_SUB_DIM(ndims - 1)]);
        if (rc != MPI_SUCCESS) {
            goto out;
        }
        /* Odometer over the outer dimensions, last one fastest. */
        for (k = ndims - 2; k >= 0; k--) {
            idx[k]++;
            if (idx[k] < subsizes[GCM_SUB_DIM(k)]) {
                break;
            }
            idx[k] = 0;
        }
        if (k < 0) {
            break;
        }
    }
#undef GCM_SUB_DIM
out:
    if (stride != stack_stride) {
        free(stride);
    }
    if (idx != stack_idx) {
        free(idx);
    }
    return rc;
}

/* Calls fn for each entry of t, in type-map order; stops at the first
 * nonzero return and returns it. */
int gcm_mpi_type_foreach_entry(const struct gcm_mpi_datatype *t,
                               gcm_mpi_type_entry_fn fn, void *ctx)
{
    struct gcm_mpi_datatype *old = (t->nd > 0) ? t->types[0] : NULL;
    const int *iv = t->ints;
    const MPI_Aint *av = t->addrs;
    MPI_Aint disp;
    int count = (t->ni > 0) ? iv[0] : 0;
    int rc = MPI_SUCCESS;
    int i;

    switch (t->combiner) {
    case MPI_COMBINER_DUP:
    case MPI_COMBINER_RESIZED:
        return fn(ctx, old, 0, 1);
    case MPI_COMBINER_CONTIGUOUS:
        return fn(ctx, old, 0, count);
    case MPI_COMBINER_VECTOR:
        for (i = 0; i < count && rc == MPI_SUCCESS; i++) {
            rc = type_disp(i, iv[2], gcm_mpi_type_ext(old), &disp);
            if (rc == MPI_SUCCESS) {
                rc = fn(ctx, old, disp, iv[1]);
            }
        }
        return rc;
    case MPI_COMBINER_HVECTOR:
        for (i = 0; i < count && rc == MPI_SUCCESS; i++) {
            rc = type_disp(i, av[0], 1, &disp);
            if (rc == MPI_SUCCESS) {
                rc = fn(ctx, old, disp, iv[1]);
            }
        }
        return rc;
    case MPI_COMBINER_INDEXED:
        for (i = 0; i < count && rc == MPI_SUCCESS; i++) {
            rc = type_disp(iv[1 + count + i], gcm_mpi_type_ext(old), 1, &disp);
            if (rc == MPI_SUCCESS) {
                rc = fn(ctx, old, disp, iv[1 + i]);
            }
        }
        return rc;
    case MPI_COMBINER_HINDEXED:
        for (i = 0; i < count && rc == MPI_SUCCESS; i++) {
            rc = fn(ctx, old, av[i], iv[1 + i]);
        }
        return rc;
    case MPI_COMBINER_INDEXED_BLOCK:
        for (i = 0; i < count && rc == MPI_SUCCESS; i++) {
            rc = type_disp(iv[2 + i], gcm_mpi_type_ext(old), 1, &disp);
            if (rc == MPI_SUCCESS) {
                rc = fn(ctx, old, disp, iv[1]);
            }
        }
        return rc;
    case MPI_COMBINER_HINDEXED_BLOCK:
        for (i = 0; i < count && rc == MPI_SUCCESS; i++) {
            rc = fn(ctx, old, av[i], iv[1]);
        }
        return rc;
    case MPI_COMBINER_STRUCT:
        for (i = 0; i < count && rc == MPI_SUCCESS; i++) {
            rc = fn(ctx, t->types[i], av[i], iv[1 + i]);
        }
        return rc;
    case MPI_COMBINER_SUBARRAY:
        return type_foreach_subarray(t, fn, ctx);
    default:
        /* Named types have no entries. */
        return MPI_SUCCESS;
    }
}

/* ---- type signatures ---------------------------------------------------- */

/*
 * A type signature (the sequence of basic types of the data, MPI-3.1
 * 3.3.1) is kept as a polynomial hash modulo the prime 2^61 - 1:
 * H(s_1 ... s_L) = sum of s_i * B^(L - i), where s_i is a nonzero number
 * per basic type. Concatenation and repetition are then arithmetic on the
 * hashes (H(xy) = H(x) * B^|y| + H(y)), so the hash of a derived type is
 * computed from its entries when it is built, and that of count elements
 * in O(log count). Equal signatures give equal hashes on every process;
 * different ones collide with a probability of about L / 2^61.
 */
#define GCM_SIG_P ((UINT64_C(1) << 61) - 1)
#define GCM_SIG_B UINT64_C(0x0a3b5f1c97e2d467)   /* any base below P */

static uint64_t type_sig_mul(uint64_t a, uint64_t b)
{
    unsigned __int128 x = (unsigned __int128)a * b;
    uint64_t r = (uint64_t)(x & GCM_SIG_P) + (uint64_t)(x >> 61);

    return (r >= GCM_SIG_P) ? r - GCM_SIG_P : r;
}

static uint64_t type_sig_add(uint64_t a, uint64_t b)
{
    uint64_t r = a + b;

    return (r >= GCM_SIG_P) ? r - GCM_SIG_P : r;
}

static uint64_t type_sig_pow(uint64_t e)
{
    uint64_t r = 1, b = GCM_SIG_B;

    for (; e != 0; e >>= 1) {
        if ((e & 1) != 0) {
            r = type_sig_mul(r, b);
        }
        b = type_sig_mul(b, b);
    }
    return r;
}

/* The hash of n copies of a sequence of hash h and length len:
 * h * (1 + q + ... + q^(n-1)) with q = B^len, the sum built bit by bit
 * from the top (S(2m) = S(m) * (1 + q^m), S(m + 1) = S(m) * q + 1). */
uint64_t gcm_mpi_type_sig_repeat(uint64_t h, MPI_Count len, MPI_Count n)
{
    uint64_t q = type_sig_pow((uint64_t)len), s = 0, qm = 1;
    int bit;

    if (h == 0 || n <= 0) {
        return 0;
    }
    for (bit = 63 - __builtin_clzll((unsigned long long)n); bit >= 0;
         bit--) {
        s = type_sig_mul(s, type_sig_add(1, qm));
        qm = type_sig_mul(qm, qm);
        if ((((uint64_t)n >> bit) & 1) != 0) {
            s = type_sig_add(type_sig_mul(s, q), 1);
            qm = type_sig_mul(qm, q);
        }
    }
    return type_sig_mul(h, s);
}

/* The number standing for one basic type (never 0). */
static uint64_t type_sig_leaf(uint64_t id)
{
    return gcm_hash64(&id, sizeof(id)) % (GCM_SIG_P - 1) + 1;
}

/* A predefined type: its basic kind; a value-index pair is the two basic
 * types it is made of (MPI_2INT is the same signature as two MPI_INT);
 * the opaque ones (MPI_PACKED, MPIX_CNAME, MPIX_SLOTNAME) are told apart
 * by their size. */
static uint64_t type_sig_named(const struct gcm_mpi_datatype *t)
{
    gcm_mpi_basic_t value;

    switch (t->basic) {
    case GCM_MPI_BASIC_FLOAT_INT:       value = GCM_MPI_BASIC_FLOAT; break;
    case GCM_MPI_BASIC_DOUBLE_INT:      value = GCM_MPI_BASIC_DOUBLE; break;
    case GCM_MPI_BASIC_LONG_INT:        value = GCM_MPI_BASIC_LONG; break;
    case GCM_MPI_BASIC_2INT:            value = GCM_MPI_BASIC_INT; break;
    case GCM_MPI_BASIC_SHORT_INT:       value = GCM_MPI_BASIC_SHORT; break;
    case GCM_MPI_BASIC_LONG_DOUBLE_INT:
        value = GCM_MPI_BASIC_LONG_DOUBLE;
        break;
    case GCM_MPI_BASIC_NONE:
        return type_sig_leaf(GCM_MPI_BASIC_LAST + (uint64_t)t->size);
    default:
        return type_sig_leaf(t->basic);
    }
    return type_sig_add(type_sig_mul(type_sig_leaf(value), GCM_SIG_B),
                        type_sig_leaf(GCM_MPI_BASIC_INT));
}

uint64_t gcm_mpi_type_sig_of(const struct gcm_mpi_datatype *t)
{
    return t->predefined ? type_sig_named(t) : t->sig;
}

/* ---- properties of a new type ------------------------------------------- */

typedef struct {
    MPI_Count       size;
    MPI_Count       nelem;
    size_t          align;
    int             explicit_bounds;
    int             have_bounds;
    MPI_Aint        lb;
    MPI_Aint        ub;
    int             have_true;
    MPI_Aint        true_lb;
    MPI_Aint        true_ub;
    uint64_t        sig;
    int             basic_state;  /* 0: none seen, 1: one kind, -1: mixed */
    gcm_mpi_basic_t basic;
    MPI_Count       basic_count;
    int             dense;
    int             chain_started;
    MPI_Aint        chain_end;
} type_props_t;

/* The lowest and highest of lo..hi over n copies ext apart. */
static int type_span(MPI_Aint disp, MPI_Aint lo, MPI_Aint hi, MPI_Aint ext,
                     MPI_Count n, MPI_Aint *lo_p, MPI_Aint *hi_p)
{
    MPI_Aint last;

    if (__builtin_mul_overflow((MPI_Aint)(n - 1), ext, &last) ||
        __builtin_add_overflow(disp, lo, &lo) ||
        __builtin_add_overflow(disp, hi, &hi)) {
        return MPI_ERR_ARG;
    }
    /* Extents may be negative (resized types): take both ends. */
    if (last < 0) {
        lo += last;
    } else {
        hi += last;
    }
    *lo_p = lo;
    *hi_p = hi;
    return MPI_SUCCESS;
}

static int type_props_entry(void *vctx, struct gcm_mpi_datatype *c,
                            MPI_Aint disp, MPI_Count n)
{
    type_props_t *p = vctx;
    MPI_Aint lo, hi;
    MPI_Count bytes, elems;
    int rc;

    if (n == 0) {
        return MPI_SUCCESS;
    }
    if (c->explicit_bounds) {
        p->explicit_bounds = 1;
    }
    /* An empty child still places its explicit lb/ub markers. */
    if (c->size > 0 || c->explicit_bounds) {
        rc = type_span(disp, c->lb, c->ub, gcm_mpi_type_ext(c), n, &lo, &hi);
        if (rc != MPI_SUCCESS) {
            return rc;
        }
        if (!p->have_bounds || lo < p->lb) {
            p->lb = lo;
        }
        if (!p->have_bounds || hi > p->ub) {
            p->ub = hi;
        }
        p->have_bounds = 1;
    }
    if (c->size == 0) {
        return MPI_SUCCESS;
    }
    rc = type_span(disp, c->true_lb, c->true_ub, gcm_mpi_type_ext(c), n,
                   &lo, &hi);
    if (rc != MPI_SUCCESS) {
        return rc;
    }
    if (!p->have_true || lo < p->true_lb) {
        p->true_lb = lo;
    }
    if (!p->have_true || hi > p->true_ub) {
        p->true_ub = hi;
    }
    p->have_true = 1;
    if (__builtin_mul_overflow(c->size, n, &bytes) ||
        __builtin_add_overflow(p->size, bytes, &p->size) ||
        __builtin_mul_overflow(c->nelem, n, &elems) ||
        __builtin_add_overflow(p->nelem, elems, &p->nelem)) {
        return MPI_ERR_COUNT;
    }
    /* The entries come in type-map order: append n copies of the child. */
    p->sig = type_sig_add(type_sig_mul(p->sig, type_sig_pow((uint64_t)elems)),
                          gcm_mpi_type_sig_repeat(gcm_mpi_type_sig_of(c),
                                                  c->nelem, n));
    if (c->align > p->align) {
        p->align = c->align;
    }
    if (c->basic == GCM_MPI_BASIC_NONE ||
        (p->basic_state == 1 && c->basic != p->basic)) {
        p->basic_state = -1;
    } else if (p->basic_state >= 0) {
        p->basic_state = 1;
        p->basic = c->basic;
        p->basic_count += c->basic_count * n;
    }
    /* Dense: every run is itself dense and starts where the last ended. */
    if (!c->dense ||
        (p->chain_started && disp + c->true_lb != p->chain_end)) {
        p->dense = 0;
    } else {
        p->chain_started = 1;
        p->chain_end = disp + c->true_lb + (MPI_Aint)(n * c->size);
    }
    return MPI_SUCCESS;
}

/* Computes everything but the blocks of t from its envelope. */
int gcm_mpi_type_compute_props(struct gcm_mpi_datatype *t)
{
    type_props_t p;
    MPI_Aint ext;
    int rc;

    memset(&p, 0, sizeof(p));
    p.align = 1;
    p.dense = 1;
    rc = gcm_mpi_type_foreach_entry(t, type_props_entry, &p);
    if (rc != MPI_SUCCESS) {
        return rc;
    }
    t->size = p.size;
    t->nelem = p.nelem;
    t->sig = p.sig;
    t->align = p.align;
    t->explicit_bounds = p.explicit_bounds;
    t->lb = p.have_bounds ? p.lb : 0;
    t->ub = p.have_bounds ? p.ub : 0;
    t->true_lb = p.have_true ? p.true_lb : 0;
    t->true_ub = p.have_true ? p.true_ub : 0;
    if (p.basic_state == 1) {
        t->basic = p.basic;
        t->basic_count = p.basic_count;
    } else {
        t->basic = GCM_MPI_BASIC_NONE;
        t->basic_count = 0;
    }
    switch (t->combiner) {
    case MPI_COMBINER_RESIZED:
        t->lb = t->addrs[0];
        if (__builtin_add_overflow(t->addrs[0], t->addrs[1], &t->ub)) {
            return MPI_ERR_ARG;
        }
        t->explicit_bounds = 1;
        break;
    case MPI_COMBINER_SUBARRAY: {
        /* The standard defines a subarray as resized to the whole array:
         * lb 0, extent the product of sizes times the oldtype extent. */
        int ndims = t->ints[0];
        int k;

        ext = gcm_mpi_type_ext(t->types[0]);
        for (k = 0; k < ndims; k++) {
            if (__builtin_mul_overflow(ext, (MPI_Aint)t->ints[1 + k],
                                       &ext)) {
                return MPI_ERR_ARG;
            }
        }
        t->lb = 0;
        t->ub = ext;
        t->explicit_bounds = 1;
        break;
    }
    case MPI_COMBINER_STRUCT:
        /* Pad the extent to the strictest alignment of the basic types
         * inside, unless bounds were set explicitly (MPI-3.1 4.1.6). */
        ext = gcm_mpi_type_ext(t);
        if (!t->explicit_bounds && t->align > 1 && ext > 0 &&
            ext % (MPI_Aint)t->align != 0) {
            t->ub += (MPI_Aint)t->align - ext % (MPI_Aint)t->align;
        }
        break;
    default:
        break;
    }
    t->dense = p.dense && p.chain_started && gcm_mpi_type_ext(t) == t->size;
    return MPI_SUCCESS;
}

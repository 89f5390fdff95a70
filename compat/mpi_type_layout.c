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
    MPI_Aint disp, ext, stride, blen;
    int count = (t->ni > 0) ? iv[0] : 0;
    int rc = MPI_SUCCESS;
    int i;

    switch (t->combiner) {
    case MPI_COMBINER_DUP:
    case MPI_COMBINER_RESIZED:
        return fn(ctx, old, 0, 1);
    case MPI_COMBINER_DARRAY:
        return fn(ctx, t->impl, 0, 1);
    case MPI_COMBINER_CONTIGUOUS:
        return fn(ctx, old, 0, count);
    case MPI_COMBINER_VECTOR:
    case MPI_COMBINER_HVECTOR:
        /* Blocks that follow each other without a gap are one entry: a
         * vector of 2^30 adjacent blocks costs one step, not 2^30. */
        ext = gcm_mpi_type_ext(old);
        if (t->combiner == MPI_COMBINER_HVECTOR) {
            stride = av[0];
        } else if (__builtin_mul_overflow((MPI_Aint)iv[2], ext, &stride)) {
            return MPI_ERR_ARG;
        }
        if (old->dense && (count <= 1 ||
                           (!__builtin_mul_overflow((MPI_Aint)iv[1], ext,
                                                    &blen) &&
                            stride == blen))) {
            return fn(ctx, old, 0, (MPI_Count)count * iv[1]);
        }
        for (i = 0; i < count && rc == MPI_SUCCESS; i++) {
            rc = type_disp(i, stride, 1, &disp);
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
    uint64_t q, s = 0, qm = 1;
    int bit;

    if (h == 0 || n <= 0) {
        return 0;
    }
    if (n == 1) {
        return h;
    }
    q = type_sig_pow((uint64_t)len);
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

/* The number standing for one basic type (never 0); those of the basic
 * kinds are kept once computed (every process computes the same). */
static uint64_t type_sig_leaf(uint64_t id)
{
    static _Atomic uint64_t known[GCM_MPI_BASIC_LAST];
    uint64_t h;

    if (id < GCM_MPI_BASIC_LAST) {
        h = atomic_load_explicit(&known[id], memory_order_relaxed);
        if (h != 0) {
            return h;
        }
    }
    h = gcm_hash64(&id, sizeof(id)) % (GCM_SIG_P - 1) + 1;
    if (id < GCM_MPI_BASIC_LAST) {
        atomic_store_explicit(&known[id], h, memory_order_relaxed);
    }
    return h;
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

/* ---- properties of a new type ------------------------------------------- */

/*
 * Everything about a type but its blocks is computed from its description
 * alone, in time proportional to it (not to the elements it describes):
 * a type is a sequence of runs, n copies of a child at a stride, and a
 * run's bounds, size, element count, signature and block count follow from
 * the child's by arithmetic (spans of a progression, products, the
 * repetition of a signature hash). A vector is a run of blocks, a block a
 * run of copies of the old type; a subarray a run of runs, one per
 * dimension. A run that a constructor nests is folded into a summary that
 * stands as a child of the next level (props_virtual).
 */
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
    uint64_t        sig;          /* computed only when want_sig */
    int             want_sig;
    int             basic_state;  /* 0: none seen, 1: one kind, -1: mixed */
    gcm_mpi_basic_t basic;
    MPI_Count       basic_count;
    int             contig;       /* so far one run of bytes */
    int             chain_started;
    MPI_Aint        chain_end;
    MPI_Count       nblocks;      /* blocks of one element, at most */
    MPI_Count       xsize;        /* bytes in external32 */
} type_props_t;

static void props_init(type_props_t *p)
{
    memset(p, 0, sizeof(*p));
    p->align = 1;
    p->contig = 1;
}

/* Blocks of one element of c, at most (a pair type has two). */
static MPI_Count type_nblocks_max(const struct gcm_mpi_datatype *c)
{
    return c->predefined ? (MPI_Count)c->nblocks : c->nblocks_max;
}

/* Bytes of one element of c in external32. */
static MPI_Count type_xsize(const struct gcm_mpi_datatype *c)
{
    return c->predefined ? gcm_mpi_type_named_xsize(c) : c->xsize;
}

/* Is one element of c one run of bytes from its true lb? */
static int type_contig(const struct gcm_mpi_datatype *c)
{
    return c->predefined ? (c->nblocks == 1) : c->contig;
}

/* The lowest and highest of lo..hi over n copies stride apart. */
static int type_span(MPI_Aint disp, MPI_Aint lo, MPI_Aint hi,
                     MPI_Aint stride, MPI_Count n, MPI_Aint *lo_p,
                     MPI_Aint *hi_p)
{
    MPI_Aint last;

    if (__builtin_mul_overflow((MPI_Aint)(n - 1), stride, &last) ||
        __builtin_add_overflow(disp, lo, &lo) ||
        __builtin_add_overflow(disp, hi, &hi)) {
        return MPI_ERR_ARG;
    }
    /* Strides (and extents) may be negative: take both ends. */
    if (last < 0) {
        if (__builtin_add_overflow(lo, last, &lo)) {
            return MPI_ERR_ARG;
        }
    } else if (__builtin_add_overflow(hi, last, &hi)) {
        return MPI_ERR_ARG;
    }
    *lo_p = lo;
    *hi_p = hi;
    return MPI_SUCCESS;
}

/* Appends n copies of c, stride bytes apart, from disp, in type-map
 * order. */
static int props_add(type_props_t *p, const struct gcm_mpi_datatype *c,
                     MPI_Aint disp, MPI_Count n, MPI_Aint stride)
{
    MPI_Count bytes, elems, blocks, xbytes;
    MPI_Aint lo, hi, start, len;
    uint64_t sig;
    int rc, adjacent;

    if (n == 0) {
        return MPI_SUCCESS;
    }
    if (c->explicit_bounds) {
        p->explicit_bounds = 1;
    }
    /* An empty child still places its explicit lb/ub markers. */
    if (c->size > 0 || c->explicit_bounds) {
        rc = type_span(disp, c->lb, c->ub, stride, n, &lo, &hi);
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
    rc = type_span(disp, c->true_lb, c->true_ub, stride, n, &lo, &hi);
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
        __builtin_add_overflow(p->nelem, elems, &p->nelem) ||
        __builtin_mul_overflow(type_xsize(c), n, &xbytes) ||
        __builtin_add_overflow(p->xsize, xbytes, &p->xsize)) {
        return MPI_ERR_COUNT;
    }
    /* The runs come in type-map order: append n copies of the child (to
     * nothing, or to a hash of 0, the shift is 0 and is not computed). */
    if (p->want_sig) {
        sig = gcm_mpi_type_sig_repeat(gcm_mpi_type_sig_of(c), c->nelem, n);
        p->sig = (p->sig == 0) ? sig :
                 type_sig_add(type_sig_mul(p->sig,
                                           type_sig_pow((uint64_t)elems)),
                              sig);
    }
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
    /* One run of bytes while every copy is one and starts where the last
     * ended; then the copies merge into one block. */
    adjacent = type_contig(c) && (n == 1 || stride == (MPI_Aint)c->size);
    start = disp + c->true_lb;
    if (!adjacent || (p->chain_started && start != p->chain_end)) {
        p->contig = 0;
    } else {
        len = (MPI_Aint)bytes;
        p->chain_started = 1;
        p->chain_end = start + len;
    }
    if (adjacent) {
        blocks = 1;
    } else if (__builtin_mul_overflow(type_nblocks_max(c), n, &blocks)) {
        blocks = INT64_MAX;
    }
    if (__builtin_add_overflow(p->nblocks, blocks, &p->nblocks)) {
        p->nblocks = INT64_MAX;
    }
    return MPI_SUCCESS;
}

/* The summary of what p holds, as a child for props_add (never a handle:
 * it lives in the caller's frame). */
static void props_virtual(const type_props_t *p,
                          struct gcm_mpi_datatype *v)
{
    memset(v, 0, sizeof(*v));
    v->size = p->size;
    v->nelem = p->nelem;
    v->align = p->align;
    v->explicit_bounds = p->explicit_bounds;
    v->lb = p->have_bounds ? p->lb : 0;
    v->ub = p->have_bounds ? p->ub : 0;
    v->true_lb = p->have_true ? p->true_lb : 0;
    v->true_ub = p->have_true ? p->true_ub : 0;
    /* A summary is asked for its hash only where p computed it. */
    atomic_init(&v->sig, p->sig);
    atomic_init(&v->sig_known, 1);
    v->basic = (p->basic_state == 1) ? p->basic : GCM_MPI_BASIC_NONE;
    v->basic_count = (p->basic_state == 1) ? p->basic_count : 0;
    v->contig = p->contig && p->chain_started;
    v->nblocks_max = p->nblocks;
    v->xsize = p->xsize;
}

/* The summary of n copies of c stride apart, from 0. */
static int props_run(const struct gcm_mpi_datatype *c, MPI_Count n,
                     MPI_Aint stride, struct gcm_mpi_datatype *v,
                     int want_sig)
{
    type_props_t p;
    int rc;

    props_init(&p);
    p.want_sig = want_sig;
    rc = props_add(&p, c, 0, n, stride);
    if (rc == MPI_SUCCESS) {
        props_virtual(&p, v);
    }
    return rc;
}

/* A subarray (C order, or Fortran order with the dimensions reversed):
 * the innermost dimension is a run of the old type, each outer one a run
 * of the one inside, then the whole placed at the starts. */
static int props_subarray(type_props_t *p, const struct gcm_mpi_datatype *t)
{
    const struct gcm_mpi_datatype *old = t->types[0];
    int ndims = t->ints[0];
    const int *sizes = &t->ints[1];
    const int *subsizes = &t->ints[1 + ndims];
    const int *starts = &t->ints[1 + 2 * ndims];
    int fortran = (t->ints[1 + 3 * ndims] == MPI_ORDER_FORTRAN);
    struct gcm_mpi_datatype run, inner;
    MPI_Aint stride = gcm_mpi_type_ext(old), disp = 0, term;
    int k, rc;

#define GCM_SUB_DIM(_k) (fortran ? ndims - 1 - (_k) : (_k))
    inner = *old;
    for (k = ndims - 1; k >= 0; k--) {
        rc = props_run((k == ndims - 1) ? old : &inner,
                       subsizes[GCM_SUB_DIM(k)], stride, &run, p->want_sig);
        if (rc != MPI_SUCCESS) {
            return rc;
        }
        inner = run;
        if (__builtin_mul_overflow((MPI_Aint)starts[GCM_SUB_DIM(k)], stride,
                                   &term) ||
            __builtin_add_overflow(disp, term, &disp) ||
            ((k > 0) &&
             __builtin_mul_overflow(stride, (MPI_Aint)sizes[GCM_SUB_DIM(k)],
                                    &stride))) {
            return MPI_ERR_ARG;
        }
    }
#undef GCM_SUB_DIM
    return props_add(p, &inner, disp, 1, 0);
}

/* The runs of t's envelope, added to p. */
static int props_entries(type_props_t *p, const struct gcm_mpi_datatype *t)
{
    const struct gcm_mpi_datatype *old = (t->nd > 0) ? t->types[0] : NULL;
    const int *iv = t->ints;
    const MPI_Aint *av = t->addrs;
    struct gcm_mpi_datatype block;
    MPI_Aint disp, ext = (old != NULL) ? gcm_mpi_type_ext(old) : 0;
    int count = (t->ni > 0) ? iv[0] : 0;
    int rc = MPI_SUCCESS, i;

    switch (t->combiner) {
    case MPI_COMBINER_DUP:
    case MPI_COMBINER_RESIZED:
        return props_add(p, old, 0, 1, ext);
    case MPI_COMBINER_DARRAY:
        return props_add(p, t->impl, 0, 1, gcm_mpi_type_ext(t->impl));
    case MPI_COMBINER_CONTIGUOUS:
        return props_add(p, old, 0, count, ext);
    case MPI_COMBINER_VECTOR:
    case MPI_COMBINER_HVECTOR:
        rc = props_run(old, iv[1], ext, &block, p->want_sig);
        if (rc == MPI_SUCCESS) {
            if (t->combiner == MPI_COMBINER_VECTOR) {
                rc = type_disp(iv[2], ext, 1, &disp);
            } else {
                disp = av[0];
            }
        }
        return (rc == MPI_SUCCESS) ? props_add(p, &block, 0, count, disp) :
                                     rc;
    case MPI_COMBINER_INDEXED:
        for (i = 0; i < count && rc == MPI_SUCCESS; i++) {
            rc = type_disp(iv[1 + count + i], ext, 1, &disp);
            if (rc == MPI_SUCCESS) {
                rc = props_add(p, old, disp, iv[1 + i], ext);
            }
        }
        return rc;
    case MPI_COMBINER_HINDEXED:
        for (i = 0; i < count && rc == MPI_SUCCESS; i++) {
            rc = props_add(p, old, av[i], iv[1 + i], ext);
        }
        return rc;
    case MPI_COMBINER_INDEXED_BLOCK:
        for (i = 0; i < count && rc == MPI_SUCCESS; i++) {
            rc = type_disp(iv[2 + i], ext, 1, &disp);
            if (rc == MPI_SUCCESS) {
                rc = props_add(p, old, disp, iv[1], ext);
            }
        }
        return rc;
    case MPI_COMBINER_HINDEXED_BLOCK:
        for (i = 0; i < count && rc == MPI_SUCCESS; i++) {
            rc = props_add(p, old, av[i], iv[1], ext);
        }
        return rc;
    case MPI_COMBINER_STRUCT:
        for (i = 0; i < count && rc == MPI_SUCCESS; i++) {
            rc = props_add(p, t->types[i], av[i], iv[1 + i],
                           gcm_mpi_type_ext(t->types[i]));
        }
        return rc;
    case MPI_COMBINER_SUBARRAY:
        return props_subarray(p, t);
    default:
        /* Named types have no entries. */
        return MPI_SUCCESS;
    }
}

/* A derived type's hash is computed the first time it is asked for (the
 * collective checks ask; building a type does not): from its envelope,
 * its children's hashes asked for in turn, then kept. Threads that ask at
 * once compute the same value. */
uint64_t gcm_mpi_type_sig_of(const struct gcm_mpi_datatype *t)
{
    type_props_t p;
    uint64_t h;

    if (t->predefined) {
        return type_sig_named(t);
    }
    if (atomic_load_explicit(&t->sig_known, memory_order_acquire) != 0) {
        return atomic_load_explicit(&t->sig, memory_order_relaxed);
    }
    props_init(&p);
    p.want_sig = 1;
    /* The envelope was accepted when the type was built: it adds up. */
    h = (props_entries(&p, t) == MPI_SUCCESS) ? p.sig : 0;
    atomic_store_explicit(&((struct gcm_mpi_datatype *)t)->sig, h,
                          memory_order_relaxed);
    atomic_store_explicit(&((struct gcm_mpi_datatype *)t)->sig_known, 1,
                          memory_order_release);
    return h;
}

/* Computes everything but the blocks of t from its envelope. */
int gcm_mpi_type_compute_props(struct gcm_mpi_datatype *t)
{
    type_props_t p;
    MPI_Aint ext;
    int rc;

    props_init(&p);
    rc = props_entries(&p, t);
    if (rc != MPI_SUCCESS) {
        return rc;
    }
    t->size = p.size;
    t->nelem = p.nelem;
    /* The signature's hash waits until it is asked for. */
    atomic_store_explicit(&t->sig_known, 0, memory_order_relaxed);
    t->align = p.align;
    t->explicit_bounds = p.explicit_bounds;
    t->lb = p.have_bounds ? p.lb : 0;
    t->ub = p.have_bounds ? p.ub : 0;
    t->true_lb = p.have_true ? p.true_lb : 0;
    t->true_ub = p.have_true ? p.true_ub : 0;
    t->nblocks_max = p.nblocks;
    t->xsize = p.xsize;
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
    t->contig = p.contig && p.chain_started;
    t->dense = t->contig && gcm_mpi_type_ext(t) == t->size;
    return MPI_SUCCESS;
}

/*
 * compat/mpi_datatype.c: MPI datatypes (MPI-3.1 chapter 4).
 *
 * A derived type keeps its constructor arguments (the envelope) and holds a
 * reference to every type it is built from; everything else (size, bounds,
 * element counts, basic kind) is computed once, when it is constructed, by
 * walking its "entries": runs of n copies of one child type at a byte
 * displacement, the copies one child extent apart.  At commit the type is
 * flattened into the list of (displacement, length) byte blocks of one
 * element, adjacent blocks merged, so that pack and unpack are a loop of
 * memcpy and never walk the constructor tree.
 *
 * Predefined types are static objects so that they are usable before
 * MPI_Init and in static initialisers.
 */
#include "config.h"

#include "compat/mpi_impl.h"

#include <limits.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <wchar.h>

/* MPI-3.1 has MPI_COMBINER_HINDEXED_BLOCK; mpi.h lacks it for now. */
#ifndef MPI_COMBINER_HINDEXED_BLOCK
#define MPI_COMBINER_HINDEXED_BLOCK 11
#endif

/* Magic of a handle the user has freed (its object may live on while other
 * types still use it), so that a stale copy of the handle is refused. */
#define GCM_MPI_MAGIC_DEAD 0x44454144u  /* "DEAD" */

/* Entry callbacks return 0 to go on, an MPI error class to fail, or this
 * to stop the walk early without an error. */
#define GCM_TYPE_WALK_STOP (-1)

/* Subarrays of up to this many dimensions are walked without malloc. */
#define GCM_TYPE_SUBARRAY_STACK_DIMS 16

typedef struct gcm_mpi_block {
    MPI_Aint disp;
    MPI_Aint len;
} gcm_mpi_block_t;

struct gcm_mpi_datatype {
    uint32_t         magic;
    int              predefined;
    atomic_int       committed;    /* set (release) once blocks are built */
    atomic_int       refcount;     /* user handle + types built on it */
    MPI_Count        size;         /* bytes of data in one element */
    MPI_Aint         lb;
    MPI_Aint         ub;           /* extent = ub - lb */
    MPI_Aint         true_lb;
    MPI_Aint         true_ub;
    int              explicit_bounds; /* lb/ub set by resize (sticky) */
    size_t           align;        /* largest alignment of basic parts */
    int              dense;        /* one block, and extent == size */
    MPI_Count        nelem;        /* basic elements in one element */
    uint64_t         sig;          /* derived: hash of one element's type
                                    * signature (type_sig_*) */
    MPI_Count        pair_vsize;   /* pair types: bytes of the value part */
    gcm_mpi_basic_t  basic;
    MPI_Count        basic_count;
    int              combiner;
    int              ni;
    int              na;
    int              nd;
    int             *ints;
    MPI_Aint        *addrs;
    MPI_Datatype    *types;
    char             name[MPI_MAX_OBJECT_NAME];
    size_t           nblocks;
    gcm_mpi_block_t *blocks;       /* NULL: the blocks are in inl */
    gcm_mpi_block_t  inl[2];
};

/* ---- predefined types --------------------------------------------------- */

/* The value-index pairs are laid out as the C compiler lays out these
 * structs (holes included), as the standard defines them. */
struct gcm_mpi_pair_float_int       { float v;       int i; };
struct gcm_mpi_pair_double_int      { double v;      int i; };
struct gcm_mpi_pair_long_int        { long v;        int i; };
struct gcm_mpi_pair_2int            { int v;         int i; };
struct gcm_mpi_pair_short_int       { short v;       int i; };
struct gcm_mpi_pair_long_double_int { long double v; int i; };

/* Each description is: extent, value bytes, alignment, offset of the int
 * index, bytes of the index (0: not a pair), basic kind. */
#define GCM_DT_PLAIN(_ctype, _basic) \
    sizeof(_ctype), sizeof(_ctype), _Alignof(_ctype), sizeof(_ctype), 0, \
    _basic
#define GCM_DT_PAIR(_sym, _basic) \
    sizeof(struct gcm_mpi_pair_##_sym), \
    sizeof(((struct gcm_mpi_pair_##_sym *)0)->v), \
    _Alignof(struct gcm_mpi_pair_##_sym), \
    offsetof(struct gcm_mpi_pair_##_sym, i), sizeof(int), _basic
#define GCM_DT_OPAQUE(_bytes) \
    (_bytes), (_bytes), 1, (_bytes), 0, GCM_MPI_BASIC_NONE

#define GCM_DT_INFO_char           GCM_DT_PLAIN(char, GCM_MPI_BASIC_CHAR)
#define GCM_DT_INFO_signed_char \
    GCM_DT_PLAIN(signed char, GCM_MPI_BASIC_SIGNED_CHAR)
#define GCM_DT_INFO_unsigned_char \
    GCM_DT_PLAIN(unsigned char, GCM_MPI_BASIC_UNSIGNED_CHAR)
#define GCM_DT_INFO_byte \
    GCM_DT_PLAIN(unsigned char, GCM_MPI_BASIC_BYTE)
#define GCM_DT_INFO_wchar          GCM_DT_PLAIN(wchar_t, GCM_MPI_BASIC_WCHAR)
#define GCM_DT_INFO_short          GCM_DT_PLAIN(short, GCM_MPI_BASIC_SHORT)
#define GCM_DT_INFO_unsigned_short \
    GCM_DT_PLAIN(unsigned short, GCM_MPI_BASIC_UNSIGNED_SHORT)
#define GCM_DT_INFO_int            GCM_DT_PLAIN(int, GCM_MPI_BASIC_INT)
#define GCM_DT_INFO_unsigned \
    GCM_DT_PLAIN(unsigned, GCM_MPI_BASIC_UNSIGNED)
#define GCM_DT_INFO_long           GCM_DT_PLAIN(long, GCM_MPI_BASIC_LONG)
#define GCM_DT_INFO_unsigned_long \
    GCM_DT_PLAIN(unsigned long, GCM_MPI_BASIC_UNSIGNED_LONG)
#define GCM_DT_INFO_long_long_int \
    GCM_DT_PLAIN(long long, GCM_MPI_BASIC_LONG_LONG)
#define GCM_DT_INFO_unsigned_long_long \
    GCM_DT_PLAIN(unsigned long long, GCM_MPI_BASIC_UNSIGNED_LONG_LONG)
#define GCM_DT_INFO_float          GCM_DT_PLAIN(float, GCM_MPI_BASIC_FLOAT)
#define GCM_DT_INFO_double         GCM_DT_PLAIN(double, GCM_MPI_BASIC_DOUBLE)
#define GCM_DT_INFO_long_double \
    GCM_DT_PLAIN(long double, GCM_MPI_BASIC_LONG_DOUBLE)
#define GCM_DT_INFO_c_bool         GCM_DT_PLAIN(_Bool, GCM_MPI_BASIC_C_BOOL)
#define GCM_DT_INFO_int8_t         GCM_DT_PLAIN(int8_t, GCM_MPI_BASIC_INT8)
#define GCM_DT_INFO_int16_t        GCM_DT_PLAIN(int16_t, GCM_MPI_BASIC_INT16)
#define GCM_DT_INFO_int32_t        GCM_DT_PLAIN(int32_t, GCM_MPI_BASIC_INT32)
#define GCM_DT_INFO_int64_t        GCM_DT_PLAIN(int64_t, GCM_MPI_BASIC_INT64)
#define GCM_DT_INFO_uint8_t        GCM_DT_PLAIN(uint8_t, GCM_MPI_BASIC_UINT8)
#define GCM_DT_INFO_uint16_t \
    GCM_DT_PLAIN(uint16_t, GCM_MPI_BASIC_UINT16)
#define GCM_DT_INFO_uint32_t \
    GCM_DT_PLAIN(uint32_t, GCM_MPI_BASIC_UINT32)
#define GCM_DT_INFO_uint64_t \
    GCM_DT_PLAIN(uint64_t, GCM_MPI_BASIC_UINT64)
#define GCM_DT_INFO_aint           GCM_DT_PLAIN(MPI_Aint, GCM_MPI_BASIC_AINT)
#define GCM_DT_INFO_offset \
    GCM_DT_PLAIN(MPI_Offset, GCM_MPI_BASIC_OFFSET)
#define GCM_DT_INFO_count          GCM_DT_PLAIN(MPI_Count, GCM_MPI_BASIC_COUNT)
#define GCM_DT_INFO_c_float_complex \
    GCM_DT_PLAIN(float _Complex, GCM_MPI_BASIC_C_FLOAT_COMPLEX)
#define GCM_DT_INFO_c_double_complex \
    GCM_DT_PLAIN(double _Complex, GCM_MPI_BASIC_C_DOUBLE_COMPLEX)
#define GCM_DT_INFO_c_long_double_complex \
    GCM_DT_PLAIN(long double _Complex, GCM_MPI_BASIC_C_LONG_DOUBLE_COMPLEX)
#define GCM_DT_INFO_packed         GCM_DT_OPAQUE(1)
#define GCM_DT_INFO_float_int \
    GCM_DT_PAIR(float_int, GCM_MPI_BASIC_FLOAT_INT)
#define GCM_DT_INFO_double_int \
    GCM_DT_PAIR(double_int, GCM_MPI_BASIC_DOUBLE_INT)
#define GCM_DT_INFO_long_int \
    GCM_DT_PAIR(long_int, GCM_MPI_BASIC_LONG_INT)
#define GCM_DT_INFO_2int           GCM_DT_PAIR(2int, GCM_MPI_BASIC_2INT)
#define GCM_DT_INFO_short_int \
    GCM_DT_PAIR(short_int, GCM_MPI_BASIC_SHORT_INT)
#define GCM_DT_INFO_long_double_int \
    GCM_DT_PAIR(long_double_int, GCM_MPI_BASIC_LONG_DOUBLE_INT)
#define GCM_DT_INFO_cname          GCM_DT_OPAQUE(32)
#define GCM_DT_INFO_slotname       GCM_DT_OPAQUE(40)

/* The name is stringised here, before MPI_INT etc. expand as macros; the
 * description is expanded into separate arguments by GCM_DT_EXPAND. */
#define GCM_DT_EXPAND(_macro, ...) _macro(__VA_ARGS__)
#define GCM_DT_DEFINE(_name, _sym) \
    GCM_DT_EXPAND(GCM_DT_DEFINE_, #_name, _sym, GCM_DT_INFO_##_sym)
/* A pair whose index follows the value without a hole is one block. */
#define GCM_DT_DEFINE_(_str, _sym, _ext, _vsize, _align, _ioff, _isize, \
                       _basic) \
    struct gcm_mpi_datatype gcm_mpi_type_##_sym = { \
        .magic = GCM_MPI_MAGIC_TYPE, \
        .predefined = 1, \
        .committed = 1, \
        .refcount = 1, \
        .size = (MPI_Count)((_vsize) + (_isize)), \
        .lb = 0, \
        .ub = (MPI_Aint)(_ext), \
        .true_lb = 0, \
        .true_ub = (MPI_Aint)((_ioff) + (_isize)), \
        .align = (_align), \
        .dense = ((_ioff) == (_vsize)) && ((_vsize) + (_isize) == (_ext)), \
        .nelem = ((_isize) != 0) ? 2 : 1, \
        .pair_vsize = ((_isize) != 0) ? (MPI_Count)(_vsize) : 0, \
        .basic = (_basic), \
        .basic_count = ((_basic) != GCM_MPI_BASIC_NONE) ? 1 : 0, \
        .combiner = MPI_COMBINER_NAMED, \
        .name = _str, \
        .nblocks = ((_ioff) == (_vsize)) ? 1 : 2, \
        .inl = { \
            { 0, (MPI_Aint)(((_ioff) == (_vsize)) ? (_vsize) + (_isize) \
                                                  : (_vsize)) }, \
            { (MPI_Aint)(_ioff), (MPI_Aint)(_isize) } \
        } \
    };

GCM_MPI_FOREACH_PREDEFINED_TYPE(GCM_DT_DEFINE)

/* ---- small helpers ------------------------------------------------------ */

/* Commits of different threads may share child types; one lock keeps
 * the build of a type's blocks from running twice at once. */
static pthread_mutex_t gcm_type_commit_lock = PTHREAD_MUTEX_INITIALIZER;

static MPI_Aint type_ext(const struct gcm_mpi_datatype *t)
{
    return t->ub - t->lb;
}

/* Address arithmetic goes through integers: buffers may be MPI_BOTTOM
 * (NULL) with absolute displacements, where pointer arithmetic is UB. */
static char *type_addr(const void *base, MPI_Aint off)
{
    return (char *)((uintptr_t)base + (uintptr_t)off);
}

static const gcm_mpi_block_t *type_blocks(const struct gcm_mpi_datatype *t)
{
    return (t->blocks != NULL) ? t->blocks : t->inl;
}

static int type_is_committed(const struct gcm_mpi_datatype *t)
{
    return atomic_load_explicit(&t->committed, memory_order_acquire) != 0;
}

/* 0 if t is a live datatype handle, else why not (for the message). */
static const char *type_invalid(MPI_Datatype t)
{
    if (t == MPI_DATATYPE_NULL) {
        return "datatype is MPI_DATATYPE_NULL";
    }
    if (t->magic != GCM_MPI_MAGIC_TYPE) {
        return "not a datatype (freed or garbage handle)";
    }
    return NULL;
}

static int type_check_valid(MPI_Datatype t, const char *call)
{
    const char *why = type_invalid(t);

    if (why != NULL) {
        return gcm_mpi_raise(NULL, MPI_ERR_TYPE, call, "%s", why);
    }
    return MPI_SUCCESS;
}

static int type_check_committed(MPI_Datatype t, const char *call)
{
    int rc = type_check_valid(t, call);

    if (rc != MPI_SUCCESS) {
        return rc;
    }
    if (!type_is_committed(t)) {
        return gcm_mpi_raise(NULL, MPI_ERR_TYPE, call,
                             "datatype is not committed");
    }
    return MPI_SUCCESS;
}

/* ---- walking the entries of a derived type ----------------------------- */

typedef int (*type_entry_fn)(void *ctx, struct gcm_mpi_datatype *child,
                             MPI_Aint disp, MPI_Count n);

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
                                 type_entry_fn fn, void *ctx)
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
    stride[ndims - 1] = type_ext(old);
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
static int type_foreach_entry(const struct gcm_mpi_datatype *t,
                              type_entry_fn fn, void *ctx)
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
            rc = type_disp(i, iv[2], type_ext(old), &disp);
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
            rc = type_disp(iv[1 + count + i], type_ext(old), 1, &disp);
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
            rc = type_disp(iv[2 + i], type_ext(old), 1, &disp);
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
static uint64_t type_sig_repeat(uint64_t h, MPI_Count len, MPI_Count n)
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

static uint64_t type_sig_of(const struct gcm_mpi_datatype *t)
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
        rc = type_span(disp, c->lb, c->ub, type_ext(c), n, &lo, &hi);
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
    rc = type_span(disp, c->true_lb, c->true_ub, type_ext(c), n, &lo, &hi);
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
                          type_sig_repeat(type_sig_of(c), c->nelem, n));
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
static int type_compute_props(struct gcm_mpi_datatype *t)
{
    type_props_t p;
    MPI_Aint ext;
    int rc;

    memset(&p, 0, sizeof(p));
    p.align = 1;
    p.dense = 1;
    rc = type_foreach_entry(t, type_props_entry, &p);
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

        ext = type_ext(t->types[0]);
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
        ext = type_ext(t);
        if (!t->explicit_bounds && t->align > 1 && ext > 0 &&
            ext % (MPI_Aint)t->align != 0) {
            t->ub += (MPI_Aint)t->align - ext % (MPI_Aint)t->align;
        }
        break;
    default:
        break;
    }
    t->dense = p.dense && p.chain_started && type_ext(t) == t->size;
    return MPI_SUCCESS;
}

/* ---- building and dropping objects -------------------------------------- */

static void type_destroy(struct gcm_mpi_datatype *t)
{
    t->magic = GCM_MPI_MAGIC_DEAD;
    free(t->ints);
    free(t->addrs);
    free(t->types);
    free(t->blocks);
    gcm_mpi_handle_free(t);
}

/* Drops one reference; the last one frees t and its references. */
static void type_release(struct gcm_mpi_datatype *t)
{
    int i;

    if (t->predefined) {
        return;
    }
    if (atomic_fetch_sub_explicit(&t->refcount, 1, memory_order_acq_rel) !=
        1) {
        return;
    }
    for (i = 0; i < t->nd; i++) {
        type_release(t->types[i]);
    }
    type_destroy(t);
}

static void type_retain(struct gcm_mpi_datatype *t)
{
    if (!t->predefined) {
        atomic_fetch_add_explicit(&t->refcount, 1, memory_order_relaxed);
    }
}

/* A new, empty derived type with room for its envelope. */
static struct gcm_mpi_datatype *type_alloc(int combiner, int ni, int na,
                                           int nd)
{
    struct gcm_mpi_datatype *t = gcm_mpi_handle_alloc(sizeof(*t));

    if (t == NULL) {
        return NULL;
    }
    t->magic = GCM_MPI_MAGIC_TYPE;
    atomic_init(&t->committed, 0);
    atomic_init(&t->refcount, 1);
    t->combiner = combiner;
    t->ni = ni;
    t->na = na;
    t->nd = nd;
    t->ints = (ni > 0) ? calloc((size_t)ni, sizeof(int)) : NULL;
    t->addrs = (na > 0) ? calloc((size_t)na, sizeof(MPI_Aint)) : NULL;
    t->types = (nd > 0) ? calloc((size_t)nd, sizeof(MPI_Datatype)) : NULL;
    if ((ni > 0 && t->ints == NULL) || (na > 0 && t->addrs == NULL) ||
        (nd > 0 && t->types == NULL)) {
        type_destroy(t);
        return NULL;
    }
    return t;
}

/* Finishes a type whose envelope is filled: computes its properties,
 * takes references on its children and hands it out. */
static int type_finish(struct gcm_mpi_datatype *t, MPI_Datatype *newtype,
                       const char *call)
{
    int rc = type_compute_props(t);
    int i;

    if (rc != MPI_SUCCESS) {
        type_destroy(t);
        return gcm_mpi_raise(NULL, rc, call,
                             "type is too large (sizes or displacements "
                             "overflow, class %d)", rc);
    }
    for (i = 0; i < t->nd; i++) {
        type_retain(t->types[i]);
    }
    *newtype = t;
    return MPI_SUCCESS;
}

static int type_no_mem(const char *call)
{
    return gcm_mpi_raise(NULL, MPI_ERR_NO_MEM, call,
                         "out of memory for a new datatype");
}

/* ---- flattening (commit) ------------------------------------------------ */

typedef struct {
    gcm_mpi_block_t *v;
    size_t           n;
    size_t           cap;
} type_builder_t;

typedef struct {
    type_builder_t *b;
    MPI_Aint        base;
} type_flatten_t;

static int builder_add(type_builder_t *b, MPI_Aint disp, MPI_Aint len)
{
    if (len == 0) {
        return MPI_SUCCESS;
    }
    if (b->n > 0 && b->v[b->n - 1].disp + b->v[b->n - 1].len == disp) {
        b->v[b->n - 1].len += len;
        return MPI_SUCCESS;
    }
    if (b->n == b->cap) {
        size_t cap = (b->cap == 0) ? 8 : 2 * b->cap;
        gcm_mpi_block_t *v = realloc(b->v, cap * sizeof(*v));

        if (v == NULL) {
            return MPI_ERR_NO_MEM;
        }
        b->v = v;
        b->cap = cap;
    }
    b->v[b->n].disp = disp;
    b->v[b->n].len = len;
    b->n++;
    return MPI_SUCCESS;
}

static int type_flatten_entry(void *vctx, struct gcm_mpi_datatype *c,
                              MPI_Aint disp, MPI_Count n);

/* Appends the blocks of one element of t placed at base. */
static int type_flatten(type_builder_t *b, const struct gcm_mpi_datatype *t,
                        MPI_Aint base)
{
    type_flatten_t sub;
    size_t i;
    int rc;

    if (t->size == 0) {
        return MPI_SUCCESS;
    }
    if (t->dense) {
        return builder_add(b, base + t->true_lb, (MPI_Aint)t->size);
    }
    if (type_is_committed(t)) {
        const gcm_mpi_block_t *blocks = type_blocks(t);

        for (i = 0; i < t->nblocks; i++) {
            rc = builder_add(b, base + blocks[i].disp, blocks[i].len);
            if (rc != MPI_SUCCESS) {
                return rc;
            }
        }
        return MPI_SUCCESS;
    }
    sub.b = b;
    sub.base = base;
    return type_foreach_entry(t, type_flatten_entry, &sub);
}

static int type_flatten_entry(void *vctx, struct gcm_mpi_datatype *c,
                              MPI_Aint disp, MPI_Count n)
{
    type_flatten_t *f = vctx;
    MPI_Aint ext = type_ext(c);
    MPI_Count j;
    int rc;

    if (n == 0 || c->size == 0) {
        return MPI_SUCCESS;
    }
    /* n dense copies are adjacent (extent == size): one block. */
    if (c->dense) {
        return builder_add(f->b, f->base + disp + c->true_lb,
                           (MPI_Aint)(n * c->size));
    }
    for (j = 0; j < n; j++) {
        rc = type_flatten(f->b, c, f->base + disp + (MPI_Aint)j * ext);
        if (rc != MPI_SUCCESS) {
            return rc;
        }
    }
    return MPI_SUCCESS;
}

/* Builds the blocks of t (not yet committed; caller holds the lock). */
static int type_build_blocks(struct gcm_mpi_datatype *t)
{
    type_builder_t b;
    type_flatten_t f;
    int rc;

    memset(&b, 0, sizeof(b));
    f.b = &b;
    f.base = 0;
    rc = type_foreach_entry(t, type_flatten_entry, &f);
    if (rc != MPI_SUCCESS) {
        free(b.v);
        return rc;
    }
    free(t->blocks);
    t->blocks = NULL;
    t->nblocks = b.n;
    /* Small layouts live in the object, saving a pointer chase. */
    if (b.n <= 2) {
        if (b.n > 0) {
            memcpy(t->inl, b.v, b.n * sizeof(*b.v));
        }
        free(b.v);
    } else {
        t->blocks = b.v;
    }
    return MPI_SUCCESS;
}

/* ---- element counting --------------------------------------------------- */

static MPI_Count type_elements(const struct gcm_mpi_datatype *t,
                               MPI_Count bytes);

typedef struct {
    MPI_Count rem;
    MPI_Count count;
} type_partial_t;

static int type_partial_entry(void *vctx, struct gcm_mpi_datatype *c,
                              MPI_Aint disp, MPI_Count n)
{
    type_partial_t *p = vctx;
    MPI_Count run;

    (void)disp;
    if (n == 0 || c->size == 0) {
        return MPI_SUCCESS;
    }
    run = c->size * n;
    if (p->rem >= run) {
        p->count += c->nelem * n;
        p->rem -= run;
        return (p->rem == 0) ? GCM_TYPE_WALK_STOP : MPI_SUCCESS;
    }
    p->count += type_elements(c, p->rem);
    p->rem = 0;
    return GCM_TYPE_WALK_STOP;
}

/* Basic elements in the first bytes of a packed stream of t elements,
 * counting only elements that are complete. */
static MPI_Count type_elements(const struct gcm_mpi_datatype *t,
                               MPI_Count bytes)
{
    type_partial_t p;
    MPI_Count n;

    if (t->size == 0) {
        return 0;
    }
    n = (bytes / t->size) * t->nelem;
    p.rem = bytes % t->size;
    if (p.rem == 0) {
        return n;
    }
    if (t->predefined) {
        /* Only a pair has a part smaller than itself: its value. */
        if (t->pair_vsize > 0 && p.rem >= t->pair_vsize) {
            n++;
        }
        return n;
    }
    p.count = 0;
    (void)type_foreach_entry(t, type_partial_entry, &p);
    return n + p.count;
}

/* ---- internal interface (mpi_impl.h) ------------------------------------ */

int gcm_mpi_type_check(MPI_Datatype datatype)
{
    if (type_invalid(datatype) != NULL || !type_is_committed(datatype)) {
        return MPI_ERR_TYPE;
    }
    return MPI_SUCCESS;
}

MPI_Count gcm_mpi_type_size(MPI_Datatype datatype)
{
    return datatype->size;
}

int gcm_mpi_type_bytes(MPI_Comm comm, const char *call, MPI_Datatype datatype,
                       MPI_Count count, size_t *len_p)
{
    MPI_Count size = gcm_mpi_type_size(datatype), len;

    if (gcm_unlikely(__builtin_mul_overflow(size, count, &len) ||
                     ((uint64_t)len > (uint64_t)PTRDIFF_MAX))) {
        return gcm_mpi_raise(comm, MPI_ERR_COUNT, call,
                             "%lld elements of %lld bytes are more bytes "
                             "than any buffer holds", (long long)count,
                             (long long)size);
    }
    *len_p = (size_t)len;
    return MPI_SUCCESS;
}

void gcm_mpi_type_retain(MPI_Datatype datatype)
{
    type_retain(datatype);
}

void gcm_mpi_type_release(MPI_Datatype datatype)
{
    type_release(datatype);
}

int gcm_mpi_type_is_predefined(MPI_Datatype datatype)
{
    return datatype->predefined;
}

void gcm_mpi_type_extent(MPI_Datatype datatype, MPI_Aint *lb,
                         MPI_Aint *extent)
{
    if (lb != NULL) {
        *lb = datatype->lb;
    }
    if (extent != NULL) {
        *extent = type_ext(datatype);
    }
}

int gcm_mpi_type_is_contiguous(MPI_Datatype datatype, int count,
                               const void *buf, const void **start_p)
{
    const gcm_mpi_block_t *blocks = type_blocks(datatype);

    if (count == 0 || datatype->size == 0) {
        if (start_p != NULL) {
            *start_p = type_addr(buf, datatype->true_lb);
        }
        return 1;
    }
    if (datatype->nblocks != 1 ||
        (count > 1 && blocks[0].len != type_ext(datatype))) {
        return 0;
    }
    if (start_p != NULL) {
        *start_p = type_addr(buf, blocks[0].disp);
    }
    return 1;
}

gcm_mpi_basic_t gcm_mpi_type_basic(MPI_Datatype datatype,
                                   MPI_Count *per_element)
{
    if (per_element != NULL) {
        *per_element = datatype->basic_count;
    }
    return datatype->basic;
}

uint64_t gcm_mpi_type_sig(MPI_Datatype datatype, MPI_Count count,
                          MPI_Count *nelem_p)
{
    if (nelem_p != NULL) {
        *nelem_p = datatype->nelem * count;
    }
    return type_sig_repeat(type_sig_of(datatype), datatype->nelem, count);
}

void gcm_mpi_type_pack(MPI_Datatype datatype, int count, const void *buf,
                       void *out)
{
    const gcm_mpi_block_t *blocks = type_blocks(datatype);
    MPI_Aint ext = type_ext(datatype);
    char *o = out;
    size_t i;
    int k;

    if (count <= 0 || datatype->size == 0) {
        return;
    }
    if (datatype->nblocks == 1 && (count == 1 || blocks[0].len == ext)) {
        memcpy(o, type_addr(buf, blocks[0].disp),
               (size_t)count * (size_t)blocks[0].len);
        return;
    }
    for (k = 0; k < count; k++) {
        MPI_Aint base = (MPI_Aint)k * ext;

        for (i = 0; i < datatype->nblocks; i++) {
            memcpy(o, type_addr(buf, base + blocks[i].disp),
                   (size_t)blocks[i].len);
            o += blocks[i].len;
        }
    }
}

void gcm_mpi_type_unpack(MPI_Datatype datatype, int count, const void *in,
                         size_t nbytes, void *buf)
{
    const gcm_mpi_block_t *blocks = type_blocks(datatype);
    MPI_Aint ext = type_ext(datatype);
    const char *src = in;
    size_t total, len, i;
    int k;

    if (count <= 0 || datatype->size == 0) {
        return;
    }
    total = (size_t)count * (size_t)datatype->size;
    if (nbytes > total) {
        nbytes = total;
    }
    if (nbytes == 0) {
        return;
    }
    if (datatype->nblocks == 1 && (count == 1 || blocks[0].len == ext)) {
        memcpy(type_addr(buf, blocks[0].disp), src, nbytes);
        return;
    }
    for (k = 0; k < count && nbytes > 0; k++) {
        MPI_Aint base = (MPI_Aint)k * ext;

        for (i = 0; i < datatype->nblocks && nbytes > 0; i++) {
            len = (size_t)blocks[i].len;
            if (len > nbytes) {
                len = nbytes;
            }
            memcpy(type_addr(buf, base + blocks[i].disp), src, len);
            src += len;
            nbytes -= len;
        }
    }
}

/* ---- constructors ------------------------------------------------------- */

static int check_count(int count, const char *call)
{
    if (count < 0) {
        return gcm_mpi_raise(NULL, MPI_ERR_COUNT, call,
                             "negative count %d", count);
    }
    return MPI_SUCCESS;
}

static int check_blocklength(int blocklength, int i, const char *call)
{
    if (blocklength < 0) {
        return gcm_mpi_raise(NULL, MPI_ERR_ARG, call,
                             "negative blocklength %d (block %d)",
                             blocklength, i);
    }
    return MPI_SUCCESS;
}

static int check_newtype(MPI_Datatype *newtype, const char *call)
{
    if (newtype == NULL) {
        return gcm_mpi_raise(NULL, MPI_ERR_ARG, call,
                             "newtype is NULL (argument %d)", 0);
    }
    return MPI_SUCCESS;
}

static int check_array(const void *array, int count, const char *what,
                       const char *call)
{
    if (array == NULL && count > 0) {
        return gcm_mpi_raise(NULL, MPI_ERR_ARG, call,
                             "%s is NULL with count %d", what, count);
    }
    return MPI_SUCCESS;
}

/* The checks every one-oldtype constructor shares. */
static int check_common(int count, MPI_Datatype oldtype,
                        MPI_Datatype *newtype, const char *call)
{
    int rc = check_count(count, call);

    if (rc == MPI_SUCCESS) {
        rc = type_check_valid(oldtype, call);
    }
    if (rc == MPI_SUCCESS) {
        rc = check_newtype(newtype, call);
    }
    return rc;
}

int PMPI_Type_contiguous(int count, MPI_Datatype oldtype,
                         MPI_Datatype *newtype)
{
    static const char call[] = "MPI_Type_contiguous";
    struct gcm_mpi_datatype *t;
    int rc = check_common(count, oldtype, newtype, call);

    if (rc != MPI_SUCCESS) {
        return rc;
    }
    t = type_alloc(MPI_COMBINER_CONTIGUOUS, 1, 0, 1);
    if (t == NULL) {
        return type_no_mem(call);
    }
    t->ints[0] = count;
    t->types[0] = oldtype;
    return type_finish(t, newtype, call);
}
GCM_MPI_ALIAS(Type_contiguous)

int PMPI_Type_vector(int count, int blocklength, int stride,
                     MPI_Datatype oldtype, MPI_Datatype *newtype)
{
    static const char call[] = "MPI_Type_vector";
    struct gcm_mpi_datatype *t;
    int rc = check_common(count, oldtype, newtype, call);

    if (rc == MPI_SUCCESS) {
        rc = check_blocklength(blocklength, 0, call);
    }
    if (rc != MPI_SUCCESS) {
        return rc;
    }
    t = type_alloc(MPI_COMBINER_VECTOR, 3, 0, 1);
    if (t == NULL) {
        return type_no_mem(call);
    }
    t->ints[0] = count;
    t->ints[1] = blocklength;
    t->ints[2] = stride;
    t->types[0] = oldtype;
    return type_finish(t, newtype, call);
}
GCM_MPI_ALIAS(Type_vector)

int PMPI_Type_create_hvector(int count, int blocklength, MPI_Aint stride,
                             MPI_Datatype oldtype, MPI_Datatype *newtype)
{
    static const char call[] = "MPI_Type_create_hvector";
    struct gcm_mpi_datatype *t;
    int rc = check_common(count, oldtype, newtype, call);

    if (rc == MPI_SUCCESS) {
        rc = check_blocklength(blocklength, 0, call);
    }
    if (rc != MPI_SUCCESS) {
        return rc;
    }
    t = type_alloc(MPI_COMBINER_HVECTOR, 2, 1, 1);
    if (t == NULL) {
        return type_no_mem(call);
    }
    t->ints[0] = count;
    t->ints[1] = blocklength;
    t->addrs[0] = stride;
    t->types[0] = oldtype;
    return type_finish(t, newtype, call);
}
GCM_MPI_ALIAS(Type_create_hvector)

int PMPI_Type_indexed(int count, const int blocklengths[],
                      const int displacements[], MPI_Datatype oldtype,
                      MPI_Datatype *newtype)
{
    static const char call[] = "MPI_Type_indexed";
    struct gcm_mpi_datatype *t;
    int rc = check_common(count, oldtype, newtype, call);
    int i;

    if (rc == MPI_SUCCESS) {
        rc = check_array(blocklengths, count, "blocklengths", call);
    }
    if (rc == MPI_SUCCESS) {
        rc = check_array(displacements, count, "displacements", call);
    }
    for (i = 0; i < count && rc == MPI_SUCCESS; i++) {
        rc = check_blocklength(blocklengths[i], i, call);
    }
    if (rc != MPI_SUCCESS) {
        return rc;
    }
    if (count > (INT_MAX - 1) / 2) {
        return gcm_mpi_raise(NULL, MPI_ERR_COUNT, call,
                             "count %d too large", count);
    }
    t = type_alloc(MPI_COMBINER_INDEXED, 2 * count + 1, 0, 1);
    if (t == NULL) {
        return type_no_mem(call);
    }
    t->ints[0] = count;
    for (i = 0; i < count; i++) {
        t->ints[1 + i] = blocklengths[i];
        t->ints[1 + count + i] = displacements[i];
    }
    t->types[0] = oldtype;
    return type_finish(t, newtype, call);
}
GCM_MPI_ALIAS(Type_indexed)

int PMPI_Type_create_hindexed(int count, const int blocklengths[],
                              const MPI_Aint displacements[],
                              MPI_Datatype oldtype, MPI_Datatype *newtype)
{
    static const char call[] = "MPI_Type_create_hindexed";
    struct gcm_mpi_datatype *t;
    int rc = check_common(count, oldtype, newtype, call);
    int i;

    if (rc == MPI_SUCCESS) {
        rc = check_array(blocklengths, count, "blocklengths", call);
    }
    if (rc == MPI_SUCCESS) {
        rc = check_array(displacements, count, "displacements", call);
    }
    for (i = 0; i < count && rc == MPI_SUCCESS; i++) {
        rc = check_blocklength(blocklengths[i], i, call);
    }
    if (rc != MPI_SUCCESS) {
        return rc;
    }
    if (count == INT_MAX) {
        return gcm_mpi_raise(NULL, MPI_ERR_COUNT, call,
                             "count %d too large", count);
    }
    t = type_alloc(MPI_COMBINER_HINDEXED, count + 1, count, 1);
    if (t == NULL) {
        return type_no_mem(call);
    }
    t->ints[0] = count;
    for (i = 0; i < count; i++) {
        t->ints[1 + i] = blocklengths[i];
        t->addrs[i] = displacements[i];
    }
    t->types[0] = oldtype;
    return type_finish(t, newtype, call);
}
GCM_MPI_ALIAS(Type_create_hindexed)

int PMPI_Type_create_indexed_block(int count, int blocklength,
                                   const int displacements[],
                                   MPI_Datatype oldtype,
                                   MPI_Datatype *newtype)
{
    static const char call[] = "MPI_Type_create_indexed_block";
    struct gcm_mpi_datatype *t;
    int rc = check_common(count, oldtype, newtype, call);
    int i;

    if (rc == MPI_SUCCESS) {
        rc = check_blocklength(blocklength, 0, call);
    }
    if (rc == MPI_SUCCESS) {
        rc = check_array(displacements, count, "displacements", call);
    }
    if (rc != MPI_SUCCESS) {
        return rc;
    }
    if (count > INT_MAX - 2) {
        return gcm_mpi_raise(NULL, MPI_ERR_COUNT, call,
                             "count %d too large", count);
    }
    t = type_alloc(MPI_COMBINER_INDEXED_BLOCK, count + 2, 0, 1);
    if (t == NULL) {
        return type_no_mem(call);
    }
    t->ints[0] = count;
    t->ints[1] = blocklength;
    for (i = 0; i < count; i++) {
        t->ints[2 + i] = displacements[i];
    }
    t->types[0] = oldtype;
    return type_finish(t, newtype, call);
}
GCM_MPI_ALIAS(Type_create_indexed_block)

int PMPI_Type_create_hindexed_block(int count, int blocklength,
                                    const MPI_Aint displacements[],
                                    MPI_Datatype oldtype,
                                    MPI_Datatype *newtype)
{
    static const char call[] = "MPI_Type_create_hindexed_block";
    struct gcm_mpi_datatype *t;
    int rc = check_common(count, oldtype, newtype, call);
    int i;

    if (rc == MPI_SUCCESS) {
        rc = check_blocklength(blocklength, 0, call);
    }
    if (rc == MPI_SUCCESS) {
        rc = check_array(displacements, count, "displacements", call);
    }
    if (rc != MPI_SUCCESS) {
        return rc;
    }
    t = type_alloc(MPI_COMBINER_HINDEXED_BLOCK, 2, count, 1);
    if (t == NULL) {
        return type_no_mem(call);
    }
    t->ints[0] = count;
    t->ints[1] = blocklength;
    for (i = 0; i < count; i++) {
        t->addrs[i] = displacements[i];
    }
    t->types[0] = oldtype;
    return type_finish(t, newtype, call);
}
GCM_MPI_ALIAS(Type_create_hindexed_block)

int PMPI_Type_create_struct(int count, const int blocklengths[],
                            const MPI_Aint displacements[],
                            const MPI_Datatype types[],
                            MPI_Datatype *newtype)
{
    static const char call[] = "MPI_Type_create_struct";
    struct gcm_mpi_datatype *t;
    int rc = check_count(count, call);
    int i;

    if (rc == MPI_SUCCESS) {
        rc = check_newtype(newtype, call);
    }
    if (rc == MPI_SUCCESS) {
        rc = check_array(blocklengths, count, "blocklengths", call);
    }
    if (rc == MPI_SUCCESS) {
        rc = check_array(displacements, count, "displacements", call);
    }
    if (rc == MPI_SUCCESS) {
        rc = check_array(types, count, "types", call);
    }
    for (i = 0; i < count && rc == MPI_SUCCESS; i++) {
        const char *why = type_invalid(types[i]);

        rc = check_blocklength(blocklengths[i], i, call);
        if (rc == MPI_SUCCESS && why != NULL) {
            rc = gcm_mpi_raise(NULL, MPI_ERR_TYPE, call, "types[%d]: %s", i,
                               why);
        }
    }
    if (rc != MPI_SUCCESS) {
        return rc;
    }
    if (count == INT_MAX) {
        return gcm_mpi_raise(NULL, MPI_ERR_COUNT, call,
                             "count %d too large", count);
    }
    t = type_alloc(MPI_COMBINER_STRUCT, count + 1, count, count);
    if (t == NULL) {
        return type_no_mem(call);
    }
    t->ints[0] = count;
    for (i = 0; i < count; i++) {
        t->ints[1 + i] = blocklengths[i];
        t->addrs[i] = displacements[i];
        t->types[i] = types[i];
    }
    return type_finish(t, newtype, call);
}
GCM_MPI_ALIAS(Type_create_struct)

int PMPI_Type_create_subarray(int ndims, const int sizes[],
                              const int subsizes[], const int starts[],
                              int order, MPI_Datatype oldtype,
                              MPI_Datatype *newtype)
{
    static const char call[] = "MPI_Type_create_subarray";
    struct gcm_mpi_datatype *t;
    int rc = type_check_valid(oldtype, call);
    int i;

    if (rc == MPI_SUCCESS) {
        rc = check_newtype(newtype, call);
    }
    if (rc != MPI_SUCCESS) {
        return rc;
    }
    if (ndims <= 0 || ndims > (INT_MAX - 2) / 3) {
        return gcm_mpi_raise(NULL, MPI_ERR_ARG, call,
                             "ndims %d is not positive", ndims);
    }
    if (sizes == NULL || subsizes == NULL || starts == NULL) {
        return gcm_mpi_raise(NULL, MPI_ERR_ARG, call,
                             "NULL array with ndims %d", ndims);
    }
    if (order != MPI_ORDER_C && order != MPI_ORDER_FORTRAN) {
        return gcm_mpi_raise(NULL, MPI_ERR_ARG, call, "bad order %d", order);
    }
    for (i = 0; i < ndims; i++) {
        if (sizes[i] <= 0) {
            return gcm_mpi_raise(NULL, MPI_ERR_ARG, call,
                                 "sizes[%d] = %d is not positive", i,
                                 sizes[i]);
        }
        if (subsizes[i] < 0 || subsizes[i] > sizes[i]) {
            return gcm_mpi_raise(NULL, MPI_ERR_ARG, call,
                                 "subsizes[%d] = %d outside the array", i,
                                 subsizes[i]);
        }
        if (starts[i] < 0 || starts[i] > sizes[i] - subsizes[i]) {
            return gcm_mpi_raise(NULL, MPI_ERR_ARG, call,
                                 "starts[%d] = %d outside the array", i,
                                 starts[i]);
        }
    }
    t = type_alloc(MPI_COMBINER_SUBARRAY, 3 * ndims + 2, 0, 1);
    if (t == NULL) {
        return type_no_mem(call);
    }
    t->ints[0] = ndims;
    for (i = 0; i < ndims; i++) {
        t->ints[1 + i] = sizes[i];
        t->ints[1 + ndims + i] = subsizes[i];
        t->ints[1 + 2 * ndims + i] = starts[i];
    }
    t->ints[1 + 3 * ndims] = order;
    t->types[0] = oldtype;
    return type_finish(t, newtype, call);
}
GCM_MPI_ALIAS(Type_create_subarray)

int PMPI_Type_create_resized(MPI_Datatype oldtype, MPI_Aint lb,
                             MPI_Aint extent, MPI_Datatype *newtype)
{
    static const char call[] = "MPI_Type_create_resized";
    struct gcm_mpi_datatype *t;
    int rc = check_common(0, oldtype, newtype, call);

    if (rc != MPI_SUCCESS) {
        return rc;
    }
    t = type_alloc(MPI_COMBINER_RESIZED, 0, 2, 1);
    if (t == NULL) {
        return type_no_mem(call);
    }
    t->addrs[0] = lb;
    t->addrs[1] = extent;
    t->types[0] = oldtype;
    return type_finish(t, newtype, call);
}
GCM_MPI_ALIAS(Type_create_resized)

int PMPI_Type_dup(MPI_Datatype oldtype, MPI_Datatype *newtype)
{
    static const char call[] = "MPI_Type_dup";
    struct gcm_mpi_datatype *t;
    MPI_Datatype dup;
    int rc = check_common(0, oldtype, newtype, call);

    if (rc != MPI_SUCCESS) {
        return rc;
    }
    t = type_alloc(MPI_COMBINER_DUP, 0, 0, 1);
    if (t == NULL) {
        return type_no_mem(call);
    }
    t->types[0] = oldtype;
    rc = type_finish(t, &dup, call);
    if (rc != MPI_SUCCESS) {
        return rc;
    }
    /* MPI-3.1 4.1.10: the copy has the committed state of the original. */
    if (type_is_committed(oldtype)) {
        rc = PMPI_Type_commit(&dup);
        if (rc != MPI_SUCCESS) {
            type_release(dup);
            return rc;
        }
    }
    *newtype = dup;
    return MPI_SUCCESS;
}
GCM_MPI_ALIAS(Type_dup)

/* ---- commit and free ---------------------------------------------------- */

int PMPI_Type_commit(MPI_Datatype *datatype)
{
    static const char call[] = "MPI_Type_commit";
    struct gcm_mpi_datatype *t;
    int rc = MPI_SUCCESS;

    if (datatype == NULL) {
        return gcm_mpi_raise(NULL, MPI_ERR_ARG, call,
                             "datatype pointer is NULL (argument %d)", 1);
    }
    t = *datatype;
    rc = type_check_valid(t, call);
    if (rc != MPI_SUCCESS) {
        return rc;
    }
    /* Predefined types are born committed; a second commit is a no-op. */
    if (type_is_committed(t)) {
        return MPI_SUCCESS;
    }
    pthread_mutex_lock(&gcm_type_commit_lock);
    if (!type_is_committed(t)) {
        rc = type_build_blocks(t);
        if (rc == MPI_SUCCESS) {
            atomic_store_explicit(&t->committed, 1, memory_order_release);
        }
    }
    pthread_mutex_unlock(&gcm_type_commit_lock);
    if (rc != MPI_SUCCESS) {
        return gcm_mpi_raise(NULL, rc, call,
                             "cannot build the layout (class %d)", rc);
    }
    return MPI_SUCCESS;
}
GCM_MPI_ALIAS(Type_commit)

int PMPI_Type_free(MPI_Datatype *datatype)
{
    static const char call[] = "MPI_Type_free";
    struct gcm_mpi_datatype *t;
    int rc;

    if (datatype == NULL) {
        return gcm_mpi_raise(NULL, MPI_ERR_ARG, call,
                             "datatype pointer is NULL (argument %d)", 1);
    }
    t = *datatype;
    rc = type_check_valid(t, call);
    if (rc != MPI_SUCCESS) {
        return rc;
    }
    if (t->predefined) {
        return gcm_mpi_raise(NULL, MPI_ERR_TYPE, call,
                             "cannot free predefined type %s", t->name);
    }
    /* The object may live on for the types built on it, but the handle
     * is gone: a stale copy of it must be refused. */
    t->magic = GCM_MPI_MAGIC_DEAD;
    type_release(t);
    *datatype = MPI_DATATYPE_NULL;
    return MPI_SUCCESS;
}
GCM_MPI_ALIAS(Type_free)

/* ---- queries ------------------------------------------------------------ */

static int check_out(const void *p, const char *what, const char *call)
{
    if (p == NULL) {
        return gcm_mpi_raise(NULL, MPI_ERR_ARG, call, "%s is NULL", what);
    }
    return MPI_SUCCESS;
}

int PMPI_Type_get_extent(MPI_Datatype datatype, MPI_Aint *lb,
                         MPI_Aint *extent)
{
    static const char call[] = "MPI_Type_get_extent";
    int rc = type_check_valid(datatype, call);

    if (rc == MPI_SUCCESS) {
        rc = check_out(lb, "lb", call);
    }
    if (rc == MPI_SUCCESS) {
        rc = check_out(extent, "extent", call);
    }
    if (rc != MPI_SUCCESS) {
        return rc;
    }
    *lb = datatype->lb;
    *extent = type_ext(datatype);
    return MPI_SUCCESS;
}
GCM_MPI_ALIAS(Type_get_extent)

int PMPI_Type_get_true_extent(MPI_Datatype datatype, MPI_Aint *true_lb,
                              MPI_Aint *true_extent)
{
    static const char call[] = "MPI_Type_get_true_extent";
    int rc = type_check_valid(datatype, call);

    if (rc == MPI_SUCCESS) {
        rc = check_out(true_lb, "true_lb", call);
    }
    if (rc == MPI_SUCCESS) {
        rc = check_out(true_extent, "true_extent", call);
    }
    if (rc != MPI_SUCCESS) {
        return rc;
    }
    *true_lb = datatype->true_lb;
    *true_extent = datatype->true_ub - datatype->true_lb;
    return MPI_SUCCESS;
}
GCM_MPI_ALIAS(Type_get_true_extent)

int PMPI_Type_size(MPI_Datatype datatype, int *size)
{
    static const char call[] = "MPI_Type_size";
    int rc = type_check_valid(datatype, call);

    if (rc == MPI_SUCCESS) {
        rc = check_out(size, "size", call);
    }
    if (rc != MPI_SUCCESS) {
        return rc;
    }
    *size = (datatype->size > INT_MAX) ? MPI_UNDEFINED : (int)datatype->size;
    return MPI_SUCCESS;
}
GCM_MPI_ALIAS(Type_size)

int PMPI_Type_size_x(MPI_Datatype datatype, MPI_Count *size)
{
    static const char call[] = "MPI_Type_size_x";
    int rc = type_check_valid(datatype, call);

    if (rc == MPI_SUCCESS) {
        rc = check_out(size, "size", call);
    }
    if (rc != MPI_SUCCESS) {
        return rc;
    }
    *size = datatype->size;
    return MPI_SUCCESS;
}
GCM_MPI_ALIAS(Type_size_x)

int PMPI_Type_get_envelope(MPI_Datatype datatype, int *num_integers,
                           int *num_addresses, int *num_datatypes,
                           int *combiner)
{
    static const char call[] = "MPI_Type_get_envelope";
    int rc = type_check_valid(datatype, call);

    if (rc == MPI_SUCCESS && (num_integers == NULL ||
                              num_addresses == NULL ||
                              num_datatypes == NULL || combiner == NULL)) {
        rc = gcm_mpi_raise(NULL, MPI_ERR_ARG, call,
                           "an output pointer is NULL (%d)", 0);
    }
    if (rc != MPI_SUCCESS) {
        return rc;
    }
    *num_integers = datatype->ni;
    *num_addresses = datatype->na;
    *num_datatypes = datatype->nd;
    *combiner = datatype->combiner;
    return MPI_SUCCESS;
}
GCM_MPI_ALIAS(Type_get_envelope)

int PMPI_Type_set_name(MPI_Datatype datatype, const char *type_name)
{
    static const char call[] = "MPI_Type_set_name";
    int rc = type_check_valid(datatype, call);

    if (rc == MPI_SUCCESS) {
        rc = check_out(type_name, "type_name", call);
    }
    if (rc != MPI_SUCCESS) {
        return rc;
    }
    /* Predefined objects are shared by all threads and may sit in
     * read-mostly memory; their names stay the standard ones. */
    if (datatype->predefined) {
        return gcm_mpi_raise(NULL, MPI_ERR_TYPE, call,
                             "cannot rename predefined type %s",
                             datatype->name);
    }
    /* Longer names are truncated, as the standard allows. */
    snprintf(datatype->name, sizeof(datatype->name), "%s", type_name);
    return MPI_SUCCESS;
}
GCM_MPI_ALIAS(Type_set_name)

int PMPI_Type_get_name(MPI_Datatype datatype, char *type_name,
                       int *resultlen)
{
    static const char call[] = "MPI_Type_get_name";
    int rc = type_check_valid(datatype, call);
    size_t len;

    if (rc != MPI_SUCCESS) {
        return rc;
    }
    if (type_name == NULL || resultlen == NULL) {
        return gcm_mpi_raise(NULL, MPI_ERR_ARG, call,
                             "type_name or resultlen is NULL (%d)", 0);
    }
    /* name is always terminated within MPI_MAX_OBJECT_NAME bytes. */
    len = strlen(datatype->name);
    memcpy(type_name, datatype->name, len + 1);
    *resultlen = (int)len;
    return MPI_SUCCESS;
}
GCM_MPI_ALIAS(Type_get_name)

int PMPI_Get_address(const void *location, MPI_Aint *address)
{
    int rc = check_out(address, "address", "MPI_Get_address");

    if (rc != MPI_SUCCESS) {
        return rc;
    }
    *address = (MPI_Aint)(intptr_t)location;
    return MPI_SUCCESS;
}
GCM_MPI_ALIAS(Get_address)

/* The checks of Get_count and Get_elements; *bytes is what was received. */
static int check_status_query(const MPI_Status *status,
                              MPI_Datatype datatype, const void *count,
                              MPI_Count *bytes, const char *call)
{
    int rc = check_out(status, "status", call);

    if (rc == MPI_SUCCESS) {
        rc = check_out(count, "count", call);
    }
    if (rc == MPI_SUCCESS) {
        rc = type_check_committed(datatype, call);
    }
    if (rc != MPI_SUCCESS) {
        return rc;
    }
    if (status->gcm_count < 0) {
        return gcm_mpi_raise(NULL, MPI_ERR_ARG, call,
                             "status holds a negative byte count %lld",
                             (long long)status->gcm_count);
    }
    *bytes = status->gcm_count;
    return MPI_SUCCESS;
}

int PMPI_Get_count(const MPI_Status *status, MPI_Datatype datatype,
                   int *count)
{
    MPI_Count bytes, n;
    int rc = check_status_query(status, datatype, count, &bytes,
                                "MPI_Get_count");

    if (rc != MPI_SUCCESS) {
        return rc;
    }
    /* MPI-3.1 3.2.5: a zero-size type gives a count of zero. */
    if (datatype->size == 0) {
        *count = 0;
        return MPI_SUCCESS;
    }
    n = bytes / datatype->size;
    if (bytes % datatype->size != 0 || n > INT_MAX) {
        *count = MPI_UNDEFINED;
    } else {
        *count = (int)n;
    }
    return MPI_SUCCESS;
}
GCM_MPI_ALIAS(Get_count)

int PMPI_Get_elements_x(const MPI_Status *status, MPI_Datatype datatype,
                        MPI_Count *count)
{
    MPI_Count bytes;
    int rc = check_status_query(status, datatype, count, &bytes,
                                "MPI_Get_elements_x");

    if (rc != MPI_SUCCESS) {
        return rc;
    }
    *count = type_elements(datatype, bytes);
    return MPI_SUCCESS;
}
GCM_MPI_ALIAS(Get_elements_x)

int PMPI_Get_elements(const MPI_Status *status, MPI_Datatype datatype,
                      int *count)
{
    MPI_Count bytes, n;
    int rc = check_status_query(status, datatype, count, &bytes,
                                "MPI_Get_elements");

    if (rc != MPI_SUCCESS) {
        return rc;
    }
    n = type_elements(datatype, bytes);
    *count = (n > INT_MAX) ? MPI_UNDEFINED : (int)n;
    return MPI_SUCCESS;
}
GCM_MPI_ALIAS(Get_elements)

/* ---- packing ------------------------------------------------------------ */

/* count * size as an int, or MPI_ERR_COUNT. */
static int packed_bytes(int count, MPI_Datatype datatype, int *bytes,
                        const char *call)
{
    MPI_Count n;

    if (__builtin_mul_overflow((MPI_Count)count, datatype->size, &n) ||
        n > INT_MAX) {
        return gcm_mpi_raise(NULL, MPI_ERR_COUNT, call,
                             "%d elements do not fit in an int of bytes",
                             count);
    }
    *bytes = (int)n;
    return MPI_SUCCESS;
}

int PMPI_Pack_size(int incount, MPI_Datatype datatype, MPI_Comm comm,
                   int *size)
{
    static const char call[] = "MPI_Pack_size";
    int rc = check_count(incount, call);

    (void)comm;
    if (rc == MPI_SUCCESS) {
        rc = type_check_committed(datatype, call);
    }
    if (rc == MPI_SUCCESS) {
        rc = check_out(size, "size", call);
    }
    if (rc != MPI_SUCCESS) {
        return rc;
    }
    return packed_bytes(incount, datatype, size, call);
}
GCM_MPI_ALIAS(Pack_size)

/* The checks of Pack and Unpack: position within a buffer of bufsize
 * bytes, with room for count elements after it. */
static int check_pack(int count, MPI_Datatype datatype, int bufsize,
                      const int *position, int *bytes, const char *call)
{
    int rc = check_count(count, call);

    if (rc == MPI_SUCCESS) {
        rc = type_check_committed(datatype, call);
    }
    if (rc == MPI_SUCCESS) {
        rc = check_out(position, "position", call);
    }
    if (rc != MPI_SUCCESS) {
        return rc;
    }
    if (bufsize < 0) {
        return gcm_mpi_raise(NULL, MPI_ERR_ARG, call,
                             "negative buffer size %d", bufsize);
    }
    if (*position < 0) {
        return gcm_mpi_raise(NULL, MPI_ERR_ARG, call,
                             "negative position %d", *position);
    }
    rc = packed_bytes(count, datatype, bytes, call);
    if (rc != MPI_SUCCESS) {
        return rc;
    }
    if (*position > bufsize || *bytes > bufsize - *position) {
        return gcm_mpi_raise(NULL, MPI_ERR_TRUNCATE, call,
                             "%d bytes at position %d do not fit in %d",
                             *bytes, *position, bufsize);
    }
    return MPI_SUCCESS;
}

int PMPI_Pack(const void *inbuf, int incount, MPI_Datatype datatype,
              void *outbuf, int outsize, int *position, MPI_Comm comm)
{
    static const char call[] = "MPI_Pack";
    int bytes;
    int rc = check_pack(incount, datatype, outsize, position, &bytes, call);

    (void)comm;
    if (rc != MPI_SUCCESS) {
        return rc;
    }
    /* inbuf may be MPI_BOTTOM (NULL) with absolute displacements. */
    if (bytes > 0 && outbuf == NULL) {
        return gcm_mpi_raise(NULL, MPI_ERR_ARG, call,
                             "outbuf is NULL for %d bytes", bytes);
    }
    gcm_mpi_type_pack(datatype, incount, inbuf,
                      type_addr(outbuf, *position));
    *position += bytes;
    return MPI_SUCCESS;
}
GCM_MPI_ALIAS(Pack)

int PMPI_Unpack(const void *inbuf, int insize, int *position, void *outbuf,
                int outcount, MPI_Datatype datatype, MPI_Comm comm)
{
    static const char call[] = "MPI_Unpack";
    int bytes;
    int rc = check_pack(outcount, datatype, insize, position, &bytes, call);

    (void)comm;
    if (rc != MPI_SUCCESS) {
        return rc;
    }
    /* outbuf may be MPI_BOTTOM (NULL) with absolute displacements. */
    if (bytes > 0 && inbuf == NULL) {
        return gcm_mpi_raise(NULL, MPI_ERR_ARG, call,
                             "inbuf is NULL for %d bytes", bytes);
    }
    gcm_mpi_type_unpack(datatype, outcount, type_addr(inbuf, *position),
                        (size_t)bytes, outbuf);
    *position += bytes;
    return MPI_SUCCESS;
}
GCM_MPI_ALIAS(Unpack)

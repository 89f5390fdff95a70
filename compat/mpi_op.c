/*
 * compat/mpi_op.c: reduction operations (MPI-3.1 section 5.9): the
 * predefined operations on exactly the basic types section 5.9.2 allows,
 * user-defined operations, and MPI_Reduce_local.
 *
 * The datatype engine (mpi_type_*.c) reduces every reducible datatype to
 * a basic kind and a number of items per element; the predefined ops are
 * loops over those items, generated below from lists of (kind, C type).
 */
#include "config.h"

#include "compat/mpi_impl.h"
#include "compat/mpi_type_impl.h"

#include <complex.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <wchar.h>

/* ---- the op objects ------------------------------------------------------ */

/* Which predefined op an object is; the order of mpi.h's list. */
#define GCM_MPI_OPIDX_ENUM(_name, _sym) GCM_MPI_OPIDX_##_sym,
typedef enum {
    GCM_MPI_FOREACH_PREDEFINED_OP(GCM_MPI_OPIDX_ENUM)
    GCM_MPI_OPIDX_LAST
} gcm_mpi_opidx_t;
#undef GCM_MPI_OPIDX_ENUM

struct gcm_mpi_op {
    uint32_t           magic;        /* GCM_MPI_MAGIC_OP while valid */
    int                predefined;   /* nonzero: one of mpi.h's objects */
    int                commutative;
    MPI_User_function *user_fn;      /* NULL for predefined ops */
    /* User ops: the handle and every pending operation that uses the op;
     * freed when it drops to 0 (MPI_Op_free of an op still in use marks
     * the handle dead, GCM_MPI_MAGIC_FREED, and the object stays). */
    atomic_int         refcount;
    gcm_mpi_opidx_t    index;        /* predefined ops: which one */
};

/* REPLACE (a op b = a) and NO_OP (a op b = b) do not commute; every
 * other predefined op does (MINLOC/MAXLOC too, as ties keep the smaller
 * index whatever the order). */
#define GCM_MPI_OP_COMMUTES(_idx) \
    (((_idx) != GCM_MPI_OPIDX_replace) && ((_idx) != GCM_MPI_OPIDX_no_op))

#define GCM_MPI_DEFINE_OP(_name, _sym) \
    struct gcm_mpi_op gcm_mpi_op_##_sym = { \
        .magic       = GCM_MPI_MAGIC_OP, \
        .predefined  = 1, \
        .commutative = GCM_MPI_OP_COMMUTES(GCM_MPI_OPIDX_##_sym), \
        .user_fn     = NULL, \
        .refcount    = 1, \
        .index       = GCM_MPI_OPIDX_##_sym \
    };
GCM_MPI_FOREACH_PREDEFINED_OP(GCM_MPI_DEFINE_OP)
#undef GCM_MPI_DEFINE_OP

/* Printable names, for error messages. */
#define GCM_MPI_OP_NAME(_name, _sym) [GCM_MPI_OPIDX_##_sym] = #_name,
static const char *const gcm_mpi_op_names[GCM_MPI_OPIDX_LAST] = {
    GCM_MPI_FOREACH_PREDEFINED_OP(GCM_MPI_OP_NAME)
};
#undef GCM_MPI_OP_NAME

/* ---- classes of basic kinds (the groups of MPI-3.1 section 5.9.2) -------- */

enum {
    GCM_MPI_CLS_CINT    = 1u << 0,  /* C integer (incl. fixed width) */
    GCM_MPI_CLS_MULTI   = 1u << 1,  /* multi-language: AINT, OFFSET, COUNT */
    GCM_MPI_CLS_FLOAT   = 1u << 2,  /* floating point */
    GCM_MPI_CLS_COMPLEX = 1u << 3,
    GCM_MPI_CLS_BOOL    = 1u << 4,  /* logical: C_BOOL */
    GCM_MPI_CLS_BYTE    = 1u << 5,
    GCM_MPI_CLS_CHAR    = 1u << 6,  /* CHAR, WCHAR: no arithmetic op */
    GCM_MPI_CLS_PAIR    = 1u << 7,  /* value-index pairs */
    GCM_MPI_CLS_ALL     = 0xffu
};

/* The classes each predefined op is defined on (MPI-3.1 p. 176). Note
 * that the logical ops take C integers and C_BOOL but not the
 * multi-language types. REPLACE and NO_OP take every basic kind, as in
 * MPI_Accumulate. */
static const unsigned gcm_mpi_op_classes[GCM_MPI_OPIDX_LAST] = {
    [GCM_MPI_OPIDX_max]     = GCM_MPI_CLS_CINT | GCM_MPI_CLS_MULTI |
                              GCM_MPI_CLS_FLOAT,
    [GCM_MPI_OPIDX_min]     = GCM_MPI_CLS_CINT | GCM_MPI_CLS_MULTI |
                              GCM_MPI_CLS_FLOAT,
    [GCM_MPI_OPIDX_sum]     = GCM_MPI_CLS_CINT | GCM_MPI_CLS_MULTI |
                              GCM_MPI_CLS_FLOAT | GCM_MPI_CLS_COMPLEX,
    [GCM_MPI_OPIDX_prod]    = GCM_MPI_CLS_CINT | GCM_MPI_CLS_MULTI |
                              GCM_MPI_CLS_FLOAT | GCM_MPI_CLS_COMPLEX,
    [GCM_MPI_OPIDX_land]    = GCM_MPI_CLS_CINT | GCM_MPI_CLS_BOOL,
    [GCM_MPI_OPIDX_lor]     = GCM_MPI_CLS_CINT | GCM_MPI_CLS_BOOL,
    [GCM_MPI_OPIDX_lxor]    = GCM_MPI_CLS_CINT | GCM_MPI_CLS_BOOL,
    [GCM_MPI_OPIDX_band]    = GCM_MPI_CLS_CINT | GCM_MPI_CLS_MULTI |
                              GCM_MPI_CLS_BYTE,
    [GCM_MPI_OPIDX_bor]     = GCM_MPI_CLS_CINT | GCM_MPI_CLS_MULTI |
                              GCM_MPI_CLS_BYTE,
    [GCM_MPI_OPIDX_bxor]    = GCM_MPI_CLS_CINT | GCM_MPI_CLS_MULTI |
                              GCM_MPI_CLS_BYTE,
    [GCM_MPI_OPIDX_minloc]  = GCM_MPI_CLS_PAIR,
    [GCM_MPI_OPIDX_maxloc]  = GCM_MPI_CLS_PAIR,
    [GCM_MPI_OPIDX_replace] = GCM_MPI_CLS_ALL,
    [GCM_MPI_OPIDX_no_op]   = GCM_MPI_CLS_ALL
};

/* ---- the loops ----------------------------------------------------------- */

/* inout[i] = in[i] op inout[i] for n items of one kind. */
typedef void gcm_mpi_reduce_fn_t(gcm_mpi_opidx_t op, const void *in,
                                 void *inout, size_t n);

/* The kinds, as (kind, C type, MPI name, class). Integer arithmetic goes
 * through unsigned types so that overflow wraps instead of being
 * undefined (and unsigned short * unsigned short, promoted to int, cannot
 * overflow either). Sums take the narrowest unsigned type that holds the
 * items (unsigned int up to its width), which the compiler vectorizes: in
 * unsigned long long a sum of bytes ran about 20 times slower. This file
 * is built with the vectorizer's ordinary cost model (OP_CFLAGS,
 * configure.ac): -O2's cheapest one leaves these loops scalar, since
 * their length is unknown and in and inout may alias as far as the
 * compiler knows (MPI_SUM of 1 MiB of bytes: 850 us scalar, 70 vectorized
 * with SSE2). */
#define GCM_MPI_FOREACH_INT_KIND(_) \
    _(SIGNED_CHAR,        signed char,        MPI_SIGNED_CHAR,        CINT) \
    _(UNSIGNED_CHAR,      unsigned char,      MPI_UNSIGNED_CHAR,      CINT) \
    _(SHORT,              short,              MPI_SHORT,              CINT) \
    _(UNSIGNED_SHORT,     unsigned short,     MPI_UNSIGNED_SHORT,     CINT) \
    _(INT,                int,                MPI_INT,                CINT) \
    _(UNSIGNED,           unsigned,           MPI_UNSIGNED,           CINT) \
    _(LONG,               long,               MPI_LONG,               CINT) \
    _(UNSIGNED_LONG,      unsigned long,      MPI_UNSIGNED_LONG,      CINT) \
    _(LONG_LONG,          long long,          MPI_LONG_LONG,          CINT) \
    _(UNSIGNED_LONG_LONG, unsigned long long, MPI_UNSIGNED_LONG_LONG, CINT) \
    _(INT8,               int8_t,             MPI_INT8_T,             CINT) \
    _(INT16,              int16_t,            MPI_INT16_T,            CINT) \
    _(INT32,              int32_t,            MPI_INT32_T,            CINT) \
    _(INT64,              int64_t,            MPI_INT64_T,            CINT) \
    _(UINT8,              uint8_t,            MPI_UINT8_T,            CINT) \
    _(UINT16,             uint16_t,           MPI_UINT16_T,           CINT) \
    _(UINT32,             uint32_t,           MPI_UINT32_T,           CINT) \
    _(UINT64,             uint64_t,           MPI_UINT64_T,           CINT) \
    _(AINT,               MPI_Aint,           MPI_AINT,               MULTI) \
    _(OFFSET,             MPI_Offset,         MPI_OFFSET,             MULTI) \
    _(COUNT,              MPI_Count,          MPI_COUNT,              MULTI) \
    _(BYTE,               unsigned char,      MPI_BYTE,               BYTE)

/* Logical ops only: arithmetic on bool means nothing. */
#define GCM_MPI_FOREACH_BOOL_KIND(_) \
    _(C_BOOL,             bool,               MPI_C_BOOL,             BOOL)

#define GCM_MPI_FOREACH_FLOAT_KIND(_) \
    _(FLOAT,              float,              MPI_FLOAT,              FLOAT) \
    _(DOUBLE,             double,             MPI_DOUBLE,             FLOAT) \
    _(LONG_DOUBLE,        long double,        MPI_LONG_DOUBLE,        FLOAT)

#define GCM_MPI_FOREACH_COMPLEX_KIND(_) \
    _(C_FLOAT_COMPLEX,    float _Complex,     MPI_C_FLOAT_COMPLEX, COMPLEX) \
    _(C_DOUBLE_COMPLEX,   double _Complex,    MPI_C_DOUBLE_COMPLEX, COMPLEX) \
    _(C_LONG_DOUBLE_COMPLEX, long double _Complex, \
      MPI_C_LONG_DOUBLE_COMPLEX, COMPLEX)

/* Only REPLACE and NO_OP apply to these: no loop. */
#define GCM_MPI_FOREACH_CHAR_KIND(_) \
    _(CHAR,               char,               MPI_CHAR,               CHAR) \
    _(WCHAR,              wchar_t,            MPI_WCHAR,              CHAR)

/* (kind, value type, MPI name): a value then an int index. */
#define GCM_MPI_FOREACH_PAIR_KIND(_) \
    _(FLOAT_INT,          float,              MPI_FLOAT_INT) \
    _(DOUBLE_INT,         double,             MPI_DOUBLE_INT) \
    _(LONG_INT,           long,               MPI_LONG_INT) \
    _(2INT,               int,                MPI_2INT) \
    _(SHORT_INT,          short,              MPI_SHORT_INT) \
    _(LONG_DOUBLE_INT,    long double,        MPI_LONG_DOUBLE_INT)

/* Each reduction function in clones for AVX-512 and AVX2 beside the
 * baseline, the one the processor runs chosen when the library loads
 * (configure.ac, GCM_HAVE_OP_CLONES): the baseline's SSE2 sums two
 * doubles a step, and a 1 MiB MPI_SUM of doubles took 35.7 us here
 * against Open MPI's 24.7 (coll/README.md). The loops are the same C
 * code, element by element, so every clone gives the same results.
 * Not under ThreadSanitizer: its instrumented resolver crashes while the
 * dynamic linker relocates (configure.ac runs the check with the
 * sanitizers too). */
#if defined(GCM_HAVE_OP_CLONES) && !defined(__SANITIZE_THREAD__)
#define GCM_MPI_OP_CLONES \
    __attribute__((target_clones("avx512f", "avx2", "default")))
#else
#define GCM_MPI_OP_CLONES
#endif

#define GCM_MPI_LOOP(_stmt) \
    for (i = 0; i < n; i++) { \
        _stmt; \
    }

/* A reduction function of a kind (a and b the two arrays), from its
 * head, the cases of the ops it applies, and its tail. */
#define GCM_MPI_REDUCE_HEAD(_kind, _ctype) \
GCM_MPI_OP_CLONES \
static void gcm_mpi_reduce_##_kind(gcm_mpi_opidx_t op, const void *in, \
                                   void *inout, size_t n) \
{ \
    const _ctype *a = in; \
    _ctype *b = inout; \
    size_t i; \
    \
    switch (op) {

/* gcm_mpi_op_check let no other op through. */
#define GCM_MPI_REDUCE_TAIL \
    default: \
        break; \
    } \
}

#define GCM_MPI_CASES_MINMAX \
    case GCM_MPI_OPIDX_max: \
        GCM_MPI_LOOP(b[i] = (a[i] > b[i]) ? a[i] : b[i]) \
        break; \
    case GCM_MPI_OPIDX_min: \
        GCM_MPI_LOOP(b[i] = (a[i] < b[i]) ? a[i] : b[i]) \
        break;

#define GCM_MPI_CASES_SUMPROD \
    case GCM_MPI_OPIDX_sum: \
        GCM_MPI_LOOP(b[i] = a[i] + b[i]) \
        break; \
    case GCM_MPI_OPIDX_prod: \
        GCM_MPI_LOOP(b[i] = a[i] * b[i]) \
        break;

#define GCM_MPI_CASES_LOGICAL(_ctype) \
    case GCM_MPI_OPIDX_land: \
        GCM_MPI_LOOP(b[i] = (_ctype)((a[i] != 0) && (b[i] != 0))) \
        break; \
    case GCM_MPI_OPIDX_lor: \
        GCM_MPI_LOOP(b[i] = (_ctype)((a[i] != 0) || (b[i] != 0))) \
        break; \
    case GCM_MPI_OPIDX_lxor: \
        GCM_MPI_LOOP(b[i] = (_ctype)((a[i] != 0) != (b[i] != 0))) \
        break;

/* Integers wrap in sums and products (through unsigned arithmetic, where
 * overflow is defined). */
#define GCM_MPI_GEN_INT(_kind, _ctype, _mpi, _cls) \
GCM_MPI_REDUCE_HEAD(_kind, _ctype) \
    GCM_MPI_CASES_MINMAX \
    case GCM_MPI_OPIDX_sum: \
        if (sizeof(_ctype) <= sizeof(unsigned)) { \
            GCM_MPI_LOOP(b[i] = (_ctype)((unsigned)a[i] + (unsigned)b[i])) \
        } else { \
            GCM_MPI_LOOP(b[i] = (_ctype)((unsigned long long)a[i] + \
                                         (unsigned long long)b[i])) \
        } \
        break; \
    case GCM_MPI_OPIDX_prod: \
        GCM_MPI_LOOP(b[i] = (_ctype)((unsigned long long)a[i] * \
                                     (unsigned long long)b[i])) \
        break; \
    GCM_MPI_CASES_LOGICAL(_ctype) \
    case GCM_MPI_OPIDX_band: \
        GCM_MPI_LOOP(b[i] = (_ctype)(a[i] & b[i])) \
        break; \
    case GCM_MPI_OPIDX_bor: \
        GCM_MPI_LOOP(b[i] = (_ctype)(a[i] | b[i])) \
        break; \
    case GCM_MPI_OPIDX_bxor: \
        GCM_MPI_LOOP(b[i] = (_ctype)(a[i] ^ b[i])) \
        break; \
GCM_MPI_REDUCE_TAIL

#define GCM_MPI_GEN_BOOL(_kind, _ctype, _mpi, _cls) \
GCM_MPI_REDUCE_HEAD(_kind, _ctype) \
    GCM_MPI_CASES_LOGICAL(_ctype) \
GCM_MPI_REDUCE_TAIL

#define GCM_MPI_GEN_FLOAT(_kind, _ctype, _mpi, _cls) \
GCM_MPI_REDUCE_HEAD(_kind, _ctype) \
    GCM_MPI_CASES_MINMAX \
    GCM_MPI_CASES_SUMPROD \
GCM_MPI_REDUCE_TAIL

#define GCM_MPI_GEN_COMPLEX(_kind, _ctype, _mpi, _cls) \
GCM_MPI_REDUCE_HEAD(_kind, _ctype) \
    GCM_MPI_CASES_SUMPROD \
GCM_MPI_REDUCE_TAIL

/* Pairs are read with memcpy: in packed data (see gcm_mpi_op_apply) they
 * lie at sizeof(value) + sizeof(int) apart, not at their C alignment.
 * Equal values keep the smaller index (MPI-3.1 section 5.9.4), whichever
 * side it comes from. */
#define GCM_MPI_GEN_PAIR(_kind, _vtype, _mpi) \
static void gcm_mpi_reduce_##_kind(gcm_mpi_opidx_t op, const void *in, \
                                   void *inout, size_t n) \
{ \
    const unsigned char *pa = in; \
    unsigned char *pb = inout; \
    const size_t vsize = sizeof(_vtype); \
    const size_t isize = sizeof(_vtype) + sizeof(int); \
    _vtype av, bv; \
    int ai, bi, take; \
    size_t i; \
    \
    for (i = 0; i < n; i++) { \
        memcpy(&av, pa + i * isize, vsize); \
        memcpy(&ai, pa + i * isize + vsize, sizeof(int)); \
        memcpy(&bv, pb + i * isize, vsize); \
        memcpy(&bi, pb + i * isize + vsize, sizeof(int)); \
        if (op == GCM_MPI_OPIDX_minloc) { \
            take = (av < bv) || ((av == bv) && (ai < bi)); \
        } else { \
            take = (av > bv) || ((av == bv) && (ai < bi)); \
        } \
        if (take != 0) { \
            memcpy(pb + i * isize, pa + i * isize, isize); \
        } \
    } \
}

GCM_MPI_FOREACH_INT_KIND(GCM_MPI_GEN_INT)
GCM_MPI_FOREACH_BOOL_KIND(GCM_MPI_GEN_BOOL)
GCM_MPI_FOREACH_FLOAT_KIND(GCM_MPI_GEN_FLOAT)
GCM_MPI_FOREACH_COMPLEX_KIND(GCM_MPI_GEN_COMPLEX)
GCM_MPI_FOREACH_PAIR_KIND(GCM_MPI_GEN_PAIR)

#undef GCM_MPI_GEN_INT
#undef GCM_MPI_GEN_BOOL
#undef GCM_MPI_GEN_FLOAT
#undef GCM_MPI_GEN_COMPLEX
#undef GCM_MPI_GEN_PAIR
#undef GCM_MPI_LOOP

/* ---- the kind table ------------------------------------------------------ */

typedef struct {
    const char          *name;    /* NULL: not a kind (NONE, LAST) */
    unsigned             cls;     /* GCM_MPI_CLS_* */
    size_t               size;    /* bytes of one item, packed */
    size_t               align;   /* for operating on user memory in place */
    MPI_Datatype         handle;  /* the predefined type, to name it */
    gcm_mpi_reduce_fn_t *reduce;  /* NULL: REPLACE and NO_OP only */
} gcm_mpi_kind_info_t;

#define GCM_MPI_KIND_ENTRY(_kind, _ctype, _mpi, _cls) \
    [GCM_MPI_BASIC_##_kind] = { #_mpi, GCM_MPI_CLS_##_cls, sizeof(_ctype), \
                                _Alignof(_ctype), _mpi, \
                                gcm_mpi_reduce_##_kind },
#define GCM_MPI_CHAR_ENTRY(_kind, _ctype, _mpi, _cls) \
    [GCM_MPI_BASIC_##_kind] = { #_mpi, GCM_MPI_CLS_##_cls, sizeof(_ctype), \
                                _Alignof(_ctype), _mpi, NULL },
#define GCM_MPI_PAIR_ENTRY(_kind, _vtype, _mpi) \
    [GCM_MPI_BASIC_##_kind] = { #_mpi, GCM_MPI_CLS_PAIR, \
                                sizeof(_vtype) + sizeof(int), 1, _mpi, \
                                gcm_mpi_reduce_##_kind },

static const gcm_mpi_kind_info_t gcm_mpi_kinds[GCM_MPI_BASIC_LAST] = {
    GCM_MPI_FOREACH_INT_KIND(GCM_MPI_KIND_ENTRY)
    GCM_MPI_FOREACH_BOOL_KIND(GCM_MPI_KIND_ENTRY)
    GCM_MPI_FOREACH_FLOAT_KIND(GCM_MPI_KIND_ENTRY)
    GCM_MPI_FOREACH_COMPLEX_KIND(GCM_MPI_KIND_ENTRY)
    GCM_MPI_FOREACH_CHAR_KIND(GCM_MPI_CHAR_ENTRY)
    GCM_MPI_FOREACH_PAIR_KIND(GCM_MPI_PAIR_ENTRY)
};

#undef GCM_MPI_KIND_ENTRY
#undef GCM_MPI_CHAR_ENTRY
#undef GCM_MPI_PAIR_ENTRY

static const gcm_mpi_kind_info_t *gcm_mpi_kind_info(gcm_mpi_basic_t kind)
{
    if ((kind <= GCM_MPI_BASIC_NONE) || (kind >= GCM_MPI_BASIC_LAST) ||
        (gcm_mpi_kinds[kind].name == NULL)) {
        return NULL;
    }
    return &gcm_mpi_kinds[kind];
}

/* ---- checks -------------------------------------------------------------- */

static int gcm_mpi_op_valid(MPI_Op op)
{
    return (op != MPI_OP_NULL) && (op->magic == GCM_MPI_MAGIC_OP);
}

/* The datatype has been checked already; errors are raised on comm under
 * the name of the calling function. */
int gcm_mpi_op_check(MPI_Op op, MPI_Datatype datatype, MPI_Comm comm,
                     const char *call)
{
    const gcm_mpi_kind_info_t *info;
    gcm_mpi_basic_t kind;
    MPI_Count per = 0;

    if (gcm_mpi_op_valid(op) == 0) {
        return gcm_mpi_raise(comm, MPI_ERR_OP, call,
                             "invalid operation (MPI_OP_NULL, freed, or "
                             "not an MPI_Op)");
    }
    if (op->predefined == 0) {
        /* A user function gets the datatype as it is: nothing to check. */
        return 0;
    }
    kind = gcm_mpi_type_basic(datatype, &per);
    info = gcm_mpi_kind_info(kind);
    if (info == NULL) {
        return gcm_mpi_raise(comm, MPI_ERR_OP, call,
                             "%s is not defined on this datatype (it is "
                             "not built from one predefined type that "
                             "reductions know)",
                             gcm_mpi_op_names[op->index]);
    }
    if ((gcm_mpi_op_classes[op->index] & info->cls) == 0) {
        return gcm_mpi_raise(comm, MPI_ERR_OP, call,
                             "%s is not defined on %s%s",
                             gcm_mpi_op_names[op->index],
                             (datatype == info->handle) ?
                             "" : "a datatype built from ", info->name);
    }
    /* The loops step by info->size through packed data; a datatype engine
     * that disagreed (e.g. on the pair layout) would make them read
     * garbage, so refuse rather than guess. */
    if (gcm_mpi_type_size(datatype) != per * (MPI_Count)info->size) {
        return gcm_mpi_raise(comm, MPI_ERR_INTERN, call,
                             "datatype of %lld bytes is not %lld items of "
                             "%s (%zu bytes each)",
                             (long long)gcm_mpi_type_size(datatype),
                             (long long)per, info->name, info->size);
    }
    return 0;
}

int gcm_mpi_op_is_commutative(MPI_Op op)
{
    return op->commutative;
}

int gcm_mpi_op_id(MPI_Op op)
{
    return op->predefined ? (int)op->index : -1;
}

const char *gcm_mpi_op_id_name(int id)
{
    if (id < 0 || id >= (int)GCM_MPI_OPIDX_LAST) {
        return NULL;
    }
    return gcm_mpi_op_names[id];
}

/* ---- one-sided accumulates (mpi_rma_runs.c) ----------------------------- */

#define GCM_MPI_OP_ADDR(_name, _sym) [GCM_MPI_OPIDX_##_sym] = _name,
static struct gcm_mpi_op *const gcm_mpi_op_by_index[GCM_MPI_OPIDX_LAST] = {
    GCM_MPI_FOREACH_PREDEFINED_OP(GCM_MPI_OP_ADDR)
};
#undef GCM_MPI_OP_ADDR

MPI_Op gcm_mpi_op_of_id(int id)
{
    if ((id < 0) || (id >= (int)GCM_MPI_OPIDX_LAST)) {
        return MPI_OP_NULL;
    }
    return gcm_mpi_op_by_index[id];
}

MPI_Datatype gcm_mpi_basic_handle(gcm_mpi_basic_t kind, size_t *size_p)
{
    const gcm_mpi_kind_info_t *info = gcm_mpi_kind_info(kind);

    if (info == NULL) {
        return MPI_DATATYPE_NULL;
    }
    if (size_p != NULL) {
        *size_p = info->size;
    }
    return info->handle;
}

int gcm_mpi_op_allows(int id, gcm_mpi_basic_t kind)
{
    const gcm_mpi_kind_info_t *info = gcm_mpi_kind_info(kind);

    if ((id < 0) || (id >= (int)GCM_MPI_OPIDX_LAST) || (info == NULL)) {
        return 0;
    }
    if ((info->reduce == NULL) && (id != GCM_MPI_OPIDX_replace) &&
        (id != GCM_MPI_OPIDX_no_op)) {
        return 0;
    }
    return (gcm_mpi_op_classes[id] & info->cls) != 0;
}

/* ---- applying an op ------------------------------------------------------ */

/* Bytes of packed data per side handled at once off the heap; larger
 * elements get a heap buffer. */
#define GCM_MPI_OP_CHUNK 8192

typedef union {
    max_align_t   align;   /* packed items are at multiples of their size */
    unsigned char bytes[GCM_MPI_OP_CHUNK];
} gcm_mpi_op_chunk_t;

/* One run of packed (or contiguous) items: REPLACE copies, the others
 * reduce. */
static void gcm_mpi_op_run(gcm_mpi_opidx_t opidx,
                           const gcm_mpi_kind_info_t *info, const void *in,
                           void *inout, size_t nitems, size_t nbytes)
{
    if (opidx == GCM_MPI_OPIDX_replace) {
        memmove(inout, in, nbytes);
    } else {
        info->reduce(opidx, in, inout, nitems);
    }
}

/* A non-contiguous datatype: pack both sides, reduce the packed items,
 * unpack the result into inout. Done a chunk of elements at a time so
 * that the common case needs no allocation. */
static void gcm_mpi_op_apply_packed(gcm_mpi_opidx_t opidx,
                                    const gcm_mpi_kind_info_t *info,
                                    const void *in, void *inout, int count,
                                    MPI_Datatype datatype, MPI_Count per)
{
    gcm_mpi_op_chunk_t stack_in, stack_io;
    unsigned char *tin = stack_in.bytes, *tio = stack_io.bytes;
    unsigned char *heap = NULL;
    size_t esize = (size_t)gcm_mpi_type_size(datatype);
    MPI_Aint lb, extent;
    int chunk, done, k;

    gcm_mpi_type_extent(datatype, &lb, &extent);
    if (esize > GCM_MPI_OP_CHUNK) {
        heap = malloc(2 * esize);
        if (heap == NULL) {
            /* gcm_mpi_op_apply cannot fail (it runs inside collectives
             * that already checked everything), so this is fatal. */
            gcm_error("MPI reduction: cannot allocate %zu bytes", 2 * esize);
            abort();
        }
        /* esize is a whole number of items, so tio stays aligned. */
        tin = heap;
        tio = heap + esize;
        chunk = 1;
    } else {
        chunk = (int)(GCM_MPI_OP_CHUNK / esize);
    }
    for (done = 0; done < count; done += k) {
        const unsigned char *ip = (const unsigned char *)in +
                                  (MPI_Aint)done * extent;
        unsigned char *iop = (unsigned char *)inout +
                             (MPI_Aint)done * extent;

        k = ((count - done) < chunk) ? (count - done) : chunk;
        gcm_mpi_type_pack(datatype, k, ip, tin);
        if (opidx == GCM_MPI_OPIDX_replace) {
            /* in's packed data is the result as it is. */
            gcm_mpi_type_unpack(datatype, k, tin, (size_t)k * esize, iop);
        } else {
            gcm_mpi_type_pack(datatype, k, iop, tio);
            info->reduce(opidx, tin, tio, (size_t)k * (size_t)per);
            gcm_mpi_type_unpack(datatype, k, tio, (size_t)k * esize, iop);
        }
    }
    free(heap);
}

void gcm_mpi_op_apply(MPI_Op op, const void *in, void *inout, int count,
                      MPI_Datatype datatype)
{
    const gcm_mpi_kind_info_t *info;
    const void *in_start = NULL, *io_start = NULL;
    gcm_mpi_basic_t kind;
    MPI_Count per = 0;
    size_t esize;
    int run = 1;

    if (count <= 0) {
        return;
    }
    if (op->predefined == 0) {
        /* The standard hands the user function the caller's (count,
         * datatype) as they are; copies, so that it cannot change ours.
         * The cast drops const because MPI_User_function's invec is not
         * const; user functions must not write it. */
        int len = count;
        MPI_Datatype dt = datatype;

        op->user_fn((void *)in, inout, &len, &dt);
        return;
    }
    if (op->index == GCM_MPI_OPIDX_no_op) {
        return;
    }
    kind = gcm_mpi_type_basic(datatype, &per);
    info = gcm_mpi_kind_info(kind);
    esize = (size_t)gcm_mpi_type_size(datatype);
    if ((info == NULL) || (esize == 0)) {
        /* Refused by gcm_mpi_op_check, or nothing to do. */
        return;
    }
    /* A dense predefined type (every one but the pairs with a hole) is
     * its items from the start of the buffer: no layout to look at. */
    if (datatype->predefined && datatype->dense) {
        in_start = in;
        io_start = inout;
    } else if ((gcm_mpi_type_is_contiguous(datatype, count, in,
                                           &in_start) == 0) ||
               (gcm_mpi_type_is_contiguous(datatype, count, inout,
                                           &io_start) == 0)) {
        run = 0;
    }
    if (run &&
        (((uintptr_t)in_start % info->align) == 0) &&
        (((uintptr_t)io_start % info->align) == 0)) {
        /* The data is already a packed run of items: operate in place. */
        gcm_mpi_op_run(op->index, info, in_start, (void *)io_start,
                       (size_t)count * (size_t)per, (size_t)count * esize);
        return;
    }
    gcm_mpi_op_apply_packed(op->index, info, in, inout, count, datatype,
                            per);
}

/* ---- the MPI functions --------------------------------------------------- */

int PMPI_Op_create(MPI_User_function *user_fn, int commute, MPI_Op *op)
{
    static const char call[] = "MPI_Op_create";
    MPI_Op newop;

    if (op == NULL) {
        return gcm_mpi_raise(NULL, MPI_ERR_ARG, call, "op is NULL");
    }
    if (user_fn == NULL) {
        return gcm_mpi_raise(NULL, MPI_ERR_ARG, call, "user_fn is NULL");
    }
    newop = gcm_mpi_handle_alloc(sizeof(*newop));
    if (newop == NULL) {
        return gcm_mpi_raise(NULL, MPI_ERR_NO_MEM, call,
                             "cannot allocate an operation");
    }
    newop->magic       = GCM_MPI_MAGIC_OP;
    newop->predefined  = 0;
    newop->commutative = (commute != 0);
    newop->user_fn     = user_fn;
    atomic_init(&newop->refcount, 1);
    newop->index       = GCM_MPI_OPIDX_LAST;
    *op = newop;
    return MPI_SUCCESS;
}
GCM_MPI_ALIAS(Op_create)

int PMPI_Op_free(MPI_Op *op)
{
    static const char call[] = "MPI_Op_free";
    MPI_Op o;

    if (op == NULL) {
        return gcm_mpi_raise(NULL, MPI_ERR_ARG, call, "op is NULL");
    }
    o = *op;
    if (gcm_mpi_op_valid(o) == 0) {
        return gcm_mpi_raise(NULL, MPI_ERR_OP, call,
                             "invalid operation (MPI_OP_NULL, freed, or "
                             "not an MPI_Op)");
    }
    if (o->predefined != 0) {
        return gcm_mpi_raise(NULL, MPI_ERR_OP, call,
                             "%s is predefined and cannot be freed",
                             gcm_mpi_op_names[o->index]);
    }
    /* The handle is dead from now on (a stale copy is refused), whether
     * or not pending operations still hold the object. */
    o->magic = GCM_MPI_MAGIC_FREED;
    gcm_mpi_op_release(o);
    *op = MPI_OP_NULL;
    return MPI_SUCCESS;
}
GCM_MPI_ALIAS(Op_free)

void gcm_mpi_op_retain(MPI_Op op)
{
    if ((op != MPI_OP_NULL) && (op->predefined == 0)) {
        atomic_fetch_add_explicit(&op->refcount, 1, memory_order_relaxed);
    }
}

void gcm_mpi_op_release(MPI_Op op)
{
    if ((op != MPI_OP_NULL) && (op->predefined == 0) &&
        (atomic_fetch_sub_explicit(&op->refcount, 1, memory_order_acq_rel) ==
         1)) {
        /* The memory is never reused (util/util_handle.c). */
        gcm_mpi_handle_free(op);
    }
}

int PMPI_Op_commutative(MPI_Op op, int *commute)
{
    static const char call[] = "MPI_Op_commutative";

    if (gcm_mpi_op_valid(op) == 0) {
        return gcm_mpi_raise(NULL, MPI_ERR_OP, call,
                             "invalid operation (MPI_OP_NULL, freed, or "
                             "not an MPI_Op)");
    }
    if (commute == NULL) {
        return gcm_mpi_raise(NULL, MPI_ERR_ARG, call, "commute is NULL");
    }
    *commute = gcm_mpi_op_is_commutative(op);
    return MPI_SUCCESS;
}
GCM_MPI_ALIAS(Op_commutative)

/* A NULL buffer is refused only where it must be wrong: for a datatype
 * whose lb is not 0 it may be MPI_BOTTOM with absolute addresses. */
static int gcm_mpi_op_buffer_bad(const void *buf, int count,
                                 MPI_Datatype datatype)
{
    MPI_Aint lb, extent;

    if ((buf != NULL) || (count == 0) || (gcm_mpi_type_size(datatype) == 0)) {
        return 0;
    }
    gcm_mpi_type_extent(datatype, &lb, &extent);
    return lb == 0;
}

int PMPI_Reduce_local(const void *inbuf, void *inoutbuf, int count,
                      MPI_Datatype datatype, MPI_Op op)
{
    static const char call[] = "MPI_Reduce_local";
    int rc;

    if (count < 0) {
        return gcm_mpi_raise(NULL, MPI_ERR_COUNT, call,
                             "count %d is negative", count);
    }
    rc = gcm_mpi_type_check(datatype);
    if (rc != 0) {
        return gcm_mpi_raise(NULL, rc, call,
                             "invalid datatype (MPI_DATATYPE_NULL, freed, "
                             "or not committed)");
    }
    rc = gcm_mpi_op_check(op, datatype, NULL, call);
    if (rc != 0) {
        return rc;
    }
    if ((inbuf == MPI_IN_PLACE) || (inoutbuf == MPI_IN_PLACE)) {
        return gcm_mpi_raise(NULL, MPI_ERR_BUFFER, call,
                             "MPI_IN_PLACE is not allowed here");
    }
    if (gcm_mpi_op_buffer_bad(inbuf, count, datatype) != 0) {
        return gcm_mpi_raise(NULL, MPI_ERR_BUFFER, call,
                             "inbuf is NULL with count %d", count);
    }
    if (gcm_mpi_op_buffer_bad(inoutbuf, count, datatype) != 0) {
        return gcm_mpi_raise(NULL, MPI_ERR_BUFFER, call,
                             "inoutbuf is NULL with count %d", count);
    }
    gcm_mpi_op_apply(op, inbuf, inoutbuf, count, datatype);
    return MPI_SUCCESS;
}
GCM_MPI_ALIAS(Reduce_local)

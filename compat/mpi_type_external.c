/*
 * compat/mpi_type_external.c: the portable data representation
 * "external32" (MPI-3.1 13.5.2): MPI_Pack_external, MPI_Unpack_external,
 * MPI_Pack_external_size.
 *
 * external32 is big-endian, with fixed sizes (MPI-3.1 table 13.2):
 * integers of 1, 2, 4 or 8 bytes as the C types here (LP64: long is 8,
 * wchar_t 4), IEEE single and double, long double as IEEE quadruple (16
 * bytes; x86's 80-bit format converts exactly into it), complex types as
 * two of their parts, value-index pairs as their two parts, MPI_BYTE,
 * MPI_PACKED and the LCO name types as raw bytes. Data goes through the
 * type one basic element at a time (the type's entries, as a walk); the
 * size of one element in external32 is a property computed at
 * construction (xsize), so that MPI_Pack_external_size costs nothing.
 */
#include "config.h"

#include "compat/mpi_type_impl.h"

#include <float.h>
#include <stdint.h>
#include <string.h>
#include <wchar.h>

_Static_assert(sizeof(short) == 2 && sizeof(int) == 4 &&
               sizeof(long) == 8 && sizeof(long long) == 8 &&
               sizeof(wchar_t) == 4 && sizeof(_Bool) == 1 &&
               sizeof(float) == 4 && sizeof(double) == 8 &&
               sizeof(MPI_Aint) == 8 && sizeof(MPI_Offset) == 8 &&
               sizeof(MPI_Count) == 8,
               "external32 is written for LP64 C types");

#define GCM_X32_LDOUBLE 16   /* IEEE quadruple */

/* The external32 size of one value of a basic kind (not a pair). */
static size_t x32_value_size(gcm_mpi_basic_t kind, size_t native)
{
    switch (kind) {
    case GCM_MPI_BASIC_LONG_DOUBLE:
        return GCM_X32_LDOUBLE;
    case GCM_MPI_BASIC_C_LONG_DOUBLE_COMPLEX:
        return 2 * GCM_X32_LDOUBLE;
    default:
        return native;
    }
}

/* A pair's value kind, or GCM_MPI_BASIC_NONE if kind is no pair. */
static gcm_mpi_basic_t x32_pair_value(gcm_mpi_basic_t kind)
{
    switch (kind) {
    case GCM_MPI_BASIC_FLOAT_INT:       return GCM_MPI_BASIC_FLOAT;
    case GCM_MPI_BASIC_DOUBLE_INT:      return GCM_MPI_BASIC_DOUBLE;
    case GCM_MPI_BASIC_LONG_INT:        return GCM_MPI_BASIC_LONG;
    case GCM_MPI_BASIC_2INT:            return GCM_MPI_BASIC_INT;
    case GCM_MPI_BASIC_SHORT_INT:       return GCM_MPI_BASIC_SHORT;
    case GCM_MPI_BASIC_LONG_DOUBLE_INT: return GCM_MPI_BASIC_LONG_DOUBLE;
    default:                            return GCM_MPI_BASIC_NONE;
    }
}

MPI_Count gcm_mpi_type_named_xsize(const struct gcm_mpi_datatype *t)
{
    gcm_mpi_basic_t value = x32_pair_value(t->basic);

    if (value != GCM_MPI_BASIC_NONE) {
        return (MPI_Count)(x32_value_size(value, (size_t)t->pair_vsize) +
                           sizeof(int));
    }
    return (MPI_Count)x32_value_size(t->basic, (size_t)t->size);
}

/* ---- one value ------------------------------------------------------------ */

/* n bytes in the other order (big-endian from this host's, and back);
 * on a big-endian host a copy. */
static void x32_swap(unsigned char *to, const unsigned char *from, size_t n)
{
    size_t i;

#if defined(__BYTE_ORDER__) && (__BYTE_ORDER__ == __ORDER_BIG_ENDIAN__)
    memcpy(to, from, n);
    (void)i;
#else
    for (i = 0; i < n; i++) {
        to[i] = from[n - 1 - i];
    }
#endif
}

static void x32_put64(unsigned char *to, uint64_t v)
{
    int i;

    for (i = 7; i >= 0; i--) {
        to[i] = (unsigned char)(v & 0xff);
        v >>= 8;
    }
}

static uint64_t x32_get64(const unsigned char *from)
{
    uint64_t v = 0;
    int i;

    for (i = 0; i < 8; i++) {
        v = (v << 8) | from[i];
    }
    return v;
}

/*
 * long double to IEEE quadruple and back. x86's extended format has the
 * same sign and 15-bit exponent (bias 16383) and 64 bits of mantissa with
 * an explicit integer bit: the 63 fraction bits are the top of the
 * quadruple's 112, exactly. A long double that is quadruple already is
 * only put in order.
 */
static int x32_ld_pack(unsigned char *to, const void *from)
{
#if LDBL_MANT_DIG == 64
    uint64_t mant, frac, hi, lo;
    uint16_t se;

    memcpy(&mant, from, 8);
    memcpy(&se, (const char *)from + 8, 2);
    frac = mant & UINT64_C(0x7fffffffffffffff);
    hi = ((uint64_t)se << 48) | (frac >> 15);
    lo = frac << 49;
    x32_put64(to, hi);
    x32_put64(to + 8, lo);
    return MPI_SUCCESS;
#elif LDBL_MANT_DIG == 113
    x32_swap(to, from, 16);
    return MPI_SUCCESS;
#else
    (void)to;
    (void)from;
    return MPI_ERR_UNSUPPORTED_OPERATION;
#endif
}

static int x32_ld_unpack(void *to, const unsigned char *from)
{
#if LDBL_MANT_DIG == 64
    uint64_t hi = x32_get64(from), lo = x32_get64(from + 8), frac, mant;
    uint16_t se = (uint16_t)(hi >> 48);
    unsigned char bytes[sizeof(long double)];

    frac = ((hi << 15) | (lo >> 49)) & UINT64_C(0x7fffffffffffffff);
    /* The explicit integer bit: set but for zeros and denormals. */
    mant = frac | (((se & 0x7fff) != 0) ? UINT64_C(0x8000000000000000) : 0);
    memset(bytes, 0, sizeof(bytes));
    memcpy(bytes, &mant, 8);
    memcpy(bytes + 8, &se, 2);
    memcpy(to, bytes, sizeof(bytes));
    return MPI_SUCCESS;
#elif LDBL_MANT_DIG == 113
    x32_swap(to, from, 16);
    return MPI_SUCCESS;
#else
    (void)to;
    (void)from;
    return MPI_ERR_UNSUPPORTED_OPERATION;
#endif
}

/* One value of kind between native at and external32 x; the external
 * bytes it takes. */
static int x32_value(gcm_mpi_basic_t kind, size_t native, char *at,
                     unsigned char *x, int unpack, size_t *used_p)
{
    int rc = MPI_SUCCESS;

    switch (kind) {
    case GCM_MPI_BASIC_LONG_DOUBLE:
        rc = unpack ? x32_ld_unpack(at, x) : x32_ld_pack(x, at);
        *used_p = GCM_X32_LDOUBLE;
        return rc;
    case GCM_MPI_BASIC_C_LONG_DOUBLE_COMPLEX:
        rc = unpack ? x32_ld_unpack(at, x) : x32_ld_pack(x, at);
        if (rc == MPI_SUCCESS) {
            rc = unpack ?
                 x32_ld_unpack(at + sizeof(long double),
                               x + GCM_X32_LDOUBLE) :
                 x32_ld_pack(x + GCM_X32_LDOUBLE, at + sizeof(long double));
        }
        *used_p = 2 * GCM_X32_LDOUBLE;
        return rc;
    case GCM_MPI_BASIC_C_FLOAT_COMPLEX:
    case GCM_MPI_BASIC_C_DOUBLE_COMPLEX:
        /* Two parts, each in order. */
        if (unpack) {
            x32_swap((unsigned char *)at, x, native / 2);
            x32_swap((unsigned char *)at + native / 2, x + native / 2,
                     native / 2);
        } else {
            x32_swap(x, (const unsigned char *)at, native / 2);
            x32_swap(x + native / 2, (const unsigned char *)at + native / 2,
                     native / 2);
        }
        *used_p = native;
        return MPI_SUCCESS;
    case GCM_MPI_BASIC_NONE:
        /* MPI_PACKED and the name types: bytes as they are. */
        if (unpack) {
            memcpy(at, x, native);
        } else {
            memcpy(x, at, native);
        }
        *used_p = native;
        return MPI_SUCCESS;
    default:
        if (unpack) {
            x32_swap((unsigned char *)at, x, native);
        } else {
            x32_swap(x, (const unsigned char *)at, native);
        }
        *used_p = native;
        return MPI_SUCCESS;
    }
}

/* ---- walking a type ------------------------------------------------------- */

typedef struct {
    unsigned char *x;       /* next external32 byte */
    int            unpack;
    int            rc;
} x32_walk_t;

typedef struct {
    x32_walk_t *w;
    char       *base;
} x32_at_t;

static int x32_entry(void *vctx, struct gcm_mpi_datatype *c, MPI_Aint disp,
                     MPI_Count n);

/* One element of t at base. */
static int x32_elem(x32_walk_t *w, const struct gcm_mpi_datatype *t,
                    char *base)
{
    gcm_mpi_basic_t value;
    x32_at_t at;
    size_t used;
    MPI_Aint ioff;

    if (t->size == 0) {
        return MPI_SUCCESS;
    }
    if (!t->predefined) {
        at.w = w;
        at.base = base;
        return gcm_mpi_type_foreach_entry(t, x32_entry, &at);
    }
    value = x32_pair_value(t->basic);
    if (value == GCM_MPI_BASIC_NONE) {
        w->rc = x32_value(t->basic, (size_t)t->size,
                          gcm_mpi_type_addr(base, t->true_lb), w->x,
                          w->unpack, &used);
        w->x += used;
        return w->rc;
    }
    /* A pair: the value, then the int where the type puts it. */
    ioff = (t->nblocks == 1) ? (MPI_Aint)t->pair_vsize : t->inl[1].disp;
    w->rc = x32_value(value, (size_t)t->pair_vsize, base, w->x, w->unpack,
                      &used);
    w->x += used;
    if (w->rc == MPI_SUCCESS) {
        w->rc = x32_value(GCM_MPI_BASIC_INT, sizeof(int),
                          gcm_mpi_type_addr(base, ioff), w->x, w->unpack,
                          &used);
        w->x += used;
    }
    return w->rc;
}

static int x32_entry(void *vctx, struct gcm_mpi_datatype *c, MPI_Aint disp,
                     MPI_Count n)
{
    x32_at_t *at = vctx;
    char *start = gcm_mpi_type_addr(at->base, disp);
    MPI_Aint ext = gcm_mpi_type_ext(c);
    MPI_Count j;
    int rc;

    for (j = 0; j < n; j++) {
        rc = x32_elem(at->w, c, gcm_mpi_type_addr(start, (MPI_Aint)j * ext));
        if (rc != MPI_SUCCESS) {
            return rc;
        }
    }
    return MPI_SUCCESS;
}

/* ---- the calls -------------------------------------------------------------- */

static int x32_check_rep(const char datarep[], const char *call)
{
    if (datarep == NULL) {
        return gcm_mpi_raise(NULL, MPI_ERR_ARG, call, "datarep is NULL");
    }
    if (strcmp(datarep, "external32") != 0) {
        return gcm_mpi_raise(NULL, MPI_ERR_ARG, call, "data representation "
                             "\"%.64s\" is not known (only \"external32\")",
                             datarep);
    }
    return MPI_SUCCESS;
}

/* count elements of datatype in external32: their bytes, checked. */
static int x32_bytes(int count, MPI_Datatype datatype, MPI_Aint *bytes_p,
                     const char *call)
{
    MPI_Count one = datatype->predefined ?
                    gcm_mpi_type_named_xsize(datatype) : datatype->xsize;
    MPI_Count all;

    if (__builtin_mul_overflow(one, (MPI_Count)count, &all) ||
        ((uint64_t)all > (uint64_t)PTRDIFF_MAX)) {
        return gcm_mpi_raise(NULL, MPI_ERR_COUNT, call, "%d elements of %lld "
                             "external32 bytes are more than any buffer "
                             "holds", count, (long long)one);
    }
    *bytes_p = (MPI_Aint)all;
    return MPI_SUCCESS;
}

/* The checks the three calls share. */
static int x32_check(const char datarep[], int count, MPI_Datatype datatype,
                     MPI_Aint *bytes_p, const char *call)
{
    int rc = x32_check_rep(datarep, call);

    if (rc == MPI_SUCCESS) {
        rc = gcm_mpi_type_check_count(count, call);
    }
    if (rc == MPI_SUCCESS) {
        rc = gcm_mpi_type_check_committed(datatype, call);
    }
    if (rc == MPI_SUCCESS) {
        rc = x32_bytes(count, datatype, bytes_p, call);
    }
    return rc;
}

/* Moves count elements between buf and the external32 bytes at x. */
static int x32_run(MPI_Datatype datatype, int count, void *buf,
                   unsigned char *x, int unpack, const char *call)
{
    x32_walk_t w = { x, unpack, MPI_SUCCESS };
    MPI_Aint ext = gcm_mpi_type_ext(datatype);
    int k, rc = MPI_SUCCESS;

    for (k = 0; k < count && rc == MPI_SUCCESS; k++) {
        rc = x32_elem(&w, datatype,
                      gcm_mpi_type_addr(buf, (MPI_Aint)k * ext));
    }
    if (rc != MPI_SUCCESS) {
        return gcm_mpi_raise(NULL, rc, call, "long double has no "
                             "external32 conversion on this host");
    }
    return MPI_SUCCESS;
}

/* position within a buffer of bufsize bytes, with room for bytes more. */
static int x32_check_room(MPI_Aint bufsize, const MPI_Aint *position,
                          MPI_Aint bytes, const char *call)
{
    if (position == NULL) {
        return gcm_mpi_raise(NULL, MPI_ERR_ARG, call, "position is NULL");
    }
    if ((bufsize < 0) || (*position < 0) || (*position > bufsize)) {
        return gcm_mpi_raise(NULL, MPI_ERR_ARG, call, "position %lld is "
                             "outside the buffer of %lld bytes",
                             (long long)*position, (long long)bufsize);
    }
    if (bytes > bufsize - *position) {
        return gcm_mpi_raise(NULL, MPI_ERR_TRUNCATE, call, "%lld bytes at "
                             "position %lld do not fit in %lld",
                             (long long)bytes, (long long)*position,
                             (long long)bufsize);
    }
    return MPI_SUCCESS;
}

/*
 * Both directions: count elements of datatype at typed (the user's data;
 * for packing it may be MPI_BOTTOM with absolute displacements) to or
 * from the external32 bytes at packed + *position, a buffer of bufsize
 * bytes whose argument is named packed_name in the errors.
 */
static int x32_move(const char datarep[], int count, MPI_Datatype datatype,
                    void *typed, const void *packed, const char *packed_name,
                    MPI_Aint bufsize, MPI_Aint *position, int unpack,
                    const char *call)
{
    MPI_Aint bytes;
    int rc = x32_check(datarep, count, datatype, &bytes, call);

    if (rc == MPI_SUCCESS) {
        rc = x32_check_room(bufsize, position, bytes, call);
    }
    if (rc != MPI_SUCCESS) {
        return rc;
    }
    if ((bytes > 0) && (packed == NULL)) {
        return gcm_mpi_raise(NULL, MPI_ERR_ARG, call,
                             "%s is NULL for %lld bytes", packed_name,
                             (long long)bytes);
    }
    rc = x32_run(datatype, count, typed,
                 (unsigned char *)gcm_mpi_type_addr(packed, *position),
                 unpack, call);
    if (rc == MPI_SUCCESS) {
        *position += bytes;
    }
    return rc;
}

int PMPI_Pack_external(const char datarep[], const void *inbuf, int incount,
                       MPI_Datatype datatype, void *outbuf, MPI_Aint outsize,
                       MPI_Aint *position)
{
    return x32_move(datarep, incount, datatype, (void *)(uintptr_t)inbuf,
                    outbuf, "outbuf", outsize, position, 0,
                    "MPI_Pack_external");
}
GCM_MPI_ALIAS(Pack_external)

int PMPI_Unpack_external(const char datarep[], const void *inbuf,
                         MPI_Aint insize, MPI_Aint *position, void *outbuf,
                         int outcount, MPI_Datatype datatype)
{
    return x32_move(datarep, outcount, datatype, outbuf, inbuf, "inbuf",
                    insize, position, 1, "MPI_Unpack_external");
}
GCM_MPI_ALIAS(Unpack_external)

int PMPI_Pack_external_size(const char datarep[], int incount,
                            MPI_Datatype datatype, MPI_Aint *size)
{
    static const char call[] = "MPI_Pack_external_size";
    MPI_Aint bytes;
    int rc = x32_check(datarep, incount, datatype, &bytes, call);

    if (rc == MPI_SUCCESS) {
        rc = gcm_mpi_type_check_out(size, "size", call);
    }
    if (rc != MPI_SUCCESS) {
        return rc;
    }
    *size = bytes;
    return MPI_SUCCESS;
}
GCM_MPI_ALIAS(Pack_external_size)

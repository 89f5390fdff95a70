/*
 * compat/mpi_type_op.h: what the other families of compat/ know of
 * datatypes (mpi_type_*.c) and reduction operations (mpi_op.c); reached
 * through compat/mpi_impl.h. What the datatype files share among
 * themselves is in compat/mpi_type_impl.h.
 */
#ifndef GCM_MPI_TYPE_OP_H
#define GCM_MPI_TYPE_OP_H

#include "compat/mpi.h"
#include "util/util.h"

#include <stddef.h>
#include <stdint.h>

/* ---- datatypes (mpi_type_*.c) -------------------------------------------- */

/* The element kinds reduction operations work on. */
typedef enum {
    GCM_MPI_BASIC_NONE = 0,   /* not a predefined reducible type */
    GCM_MPI_BASIC_CHAR, GCM_MPI_BASIC_SIGNED_CHAR, GCM_MPI_BASIC_UNSIGNED_CHAR,
    GCM_MPI_BASIC_BYTE, GCM_MPI_BASIC_WCHAR,
    GCM_MPI_BASIC_SHORT, GCM_MPI_BASIC_UNSIGNED_SHORT,
    GCM_MPI_BASIC_INT, GCM_MPI_BASIC_UNSIGNED,
    GCM_MPI_BASIC_LONG, GCM_MPI_BASIC_UNSIGNED_LONG,
    GCM_MPI_BASIC_LONG_LONG, GCM_MPI_BASIC_UNSIGNED_LONG_LONG,
    GCM_MPI_BASIC_FLOAT, GCM_MPI_BASIC_DOUBLE, GCM_MPI_BASIC_LONG_DOUBLE,
    GCM_MPI_BASIC_C_BOOL,
    GCM_MPI_BASIC_INT8, GCM_MPI_BASIC_INT16, GCM_MPI_BASIC_INT32,
    GCM_MPI_BASIC_INT64,
    GCM_MPI_BASIC_UINT8, GCM_MPI_BASIC_UINT16, GCM_MPI_BASIC_UINT32,
    GCM_MPI_BASIC_UINT64,
    GCM_MPI_BASIC_AINT, GCM_MPI_BASIC_OFFSET, GCM_MPI_BASIC_COUNT,
    GCM_MPI_BASIC_C_FLOAT_COMPLEX, GCM_MPI_BASIC_C_DOUBLE_COMPLEX,
    GCM_MPI_BASIC_C_LONG_DOUBLE_COMPLEX,
    /* value-index pairs for MINLOC and MAXLOC */
    GCM_MPI_BASIC_FLOAT_INT, GCM_MPI_BASIC_DOUBLE_INT,
    GCM_MPI_BASIC_LONG_INT, GCM_MPI_BASIC_2INT, GCM_MPI_BASIC_SHORT_INT,
    GCM_MPI_BASIC_LONG_DOUBLE_INT,
    GCM_MPI_BASIC_LAST
} gcm_mpi_basic_t;

/* Is datatype a valid, usable (committed or predefined) type? 0: yes,
 * else the MPI error class (MPI_ERR_TYPE). */
int gcm_mpi_type_check(MPI_Datatype datatype) GCM_INTERNAL;

/* Bytes of data in one element (MPI_Type_size). */
MPI_Count gcm_mpi_type_size(MPI_Datatype datatype) GCM_INTERNAL;

/* The bytes of count (>= 0) elements of a valid datatype, in *len_p:
 * MPI_SUCCESS, or MPI_ERR_COUNT raised on comm under the name call when
 * they are more than any buffer holds (the product overflows MPI_Count).
 * Every length the MPI layer makes from a count and a type comes from
 * here, so that no length ever wraps. */
int gcm_mpi_type_bytes(MPI_Comm comm, const char *call, MPI_Datatype datatype,
                       MPI_Count count, size_t *len_p) GCM_INTERNAL;

/* A reference on a derived datatype for an operation that uses it until
 * it completes (no-op for predefined types): the type lives on if the
 * program frees it meanwhile (MPI-3.1 4.1.9). */
void gcm_mpi_type_retain(MPI_Datatype datatype) GCM_INTERNAL;
void gcm_mpi_type_release(MPI_Datatype datatype) GCM_INTERNAL;

/* Nonzero for one of mpi.h's types (never freed: the handle always means
 * the same type). */
int gcm_mpi_type_is_predefined(MPI_Datatype datatype) GCM_INTERNAL;

/* lb and extent of one element. */
void gcm_mpi_type_extent(MPI_Datatype datatype, MPI_Aint *lb,
                         MPI_Aint *extent) GCM_INTERNAL;

/* Nonzero if count elements at buf are one contiguous run of
 * count * size bytes starting at buf + true_lb; *start_p is that start. */
int gcm_mpi_type_is_contiguous(MPI_Datatype datatype, int count,
                               const void *buf, const void **start_p)
    GCM_INTERNAL;

/* If every element is a sequence of one basic kind (e.g. a vector of
 * doubles), its kind and how many basic items one element holds. Else
 * GCM_MPI_BASIC_NONE. Used by reductions. */
gcm_mpi_basic_t gcm_mpi_type_basic(MPI_Datatype datatype,
                                   MPI_Count *per_element) GCM_INTERNAL;

/* The type signature (MPI-3.1 3.3.1: the sequence of basic types) of
 * count elements of datatype, as a hash that is the same on every process
 * for the same signature (a different one collides with probability about
 * length / 2^61); *nelem_p (may be NULL): its length. */
uint64_t gcm_mpi_type_sig(MPI_Datatype datatype, MPI_Count count,
                          MPI_Count *nelem_p) GCM_INTERNAL;

/* Packs count elements from buf into out (which holds count * size
 * bytes), in type order; unpack is the reverse. Partial unpack: only the
 * first nbytes of packed data are unpacked (for truncated receives). */
void gcm_mpi_type_pack(MPI_Datatype datatype, int count, const void *buf,
                       void *out) GCM_INTERNAL;
void gcm_mpi_type_unpack(MPI_Datatype datatype, int count, const void *in,
                         size_t nbytes, void *buf) GCM_INTERNAL;
/* Calls fn(ctx, disp, len) for each contiguous run of bytes of count
 * elements of datatype at a buffer (disp from the buffer's address), in
 * type order, adjacent runs merged: where one-sided operations read or
 * write. Stops at fn's first nonzero return and returns it; else 0. */
int gcm_mpi_type_runs(MPI_Datatype datatype, int count,
                      int (*fn)(void *ctx, MPI_Aint disp, MPI_Aint len),
                      void *ctx) GCM_INTERNAL;

/* ---- reduction operations (mpi_op.c) */

/* Checks op against a valid datatype: 0, or the error raised on comm
 * (NULL: none) under the name call (MPI_ERR_OP). */
int gcm_mpi_op_check(MPI_Op op, MPI_Datatype datatype, MPI_Comm comm,
                     const char *call) GCM_INTERNAL;
int gcm_mpi_op_is_commutative(MPI_Op op) GCM_INTERNAL;
/* A reference on a user op for an operation that uses it until it
 * completes (no-op for predefined ops): the op lives on if the program
 * frees it meanwhile. */
void gcm_mpi_op_retain(MPI_Op op) GCM_INTERNAL;
void gcm_mpi_op_release(MPI_Op op) GCM_INTERNAL;
/* Which op, alike on every process: a predefined op's index (0..), or -1
 * for a user op. The name of a predefined op's index (NULL for others). */
int gcm_mpi_op_id(MPI_Op op) GCM_INTERNAL;
const char *gcm_mpi_op_id_name(int id) GCM_INTERNAL;
/* inout[i] = in[i] op inout[i] for count elements of datatype (both
 * buffers laid out as datatype describes). */
void gcm_mpi_op_apply(MPI_Op op, const void *in, void *inout, int count,
                      MPI_Datatype datatype) GCM_INTERNAL;
/* For one-sided accumulates, whose op and element kind travel as
 * numbers: the predefined op of an id (MPI_OP_NULL if none), the
 * predefined type of a basic kind and its size (MPI_DATATYPE_NULL if
 * none), and whether op id is defined on kind (never raises). */
MPI_Op gcm_mpi_op_of_id(int id) GCM_INTERNAL;
MPI_Datatype gcm_mpi_basic_handle(gcm_mpi_basic_t kind, size_t *size_p)
    GCM_INTERNAL;
int gcm_mpi_op_allows(int id, gcm_mpi_basic_t kind) GCM_INTERNAL;

#endif /* GCM_MPI_TYPE_OP_H */

/*
 * compat/mpi_impl.h: what the files of compat/ share. Each family owns its
 * objects (mpi_datatype.c, mpi_op.c, mpi_group.c, ...); the others reach
 * them only through the functions declared here.
 */
#ifndef GCM_MPI_IMPL_H
#define GCM_MPI_IMPL_H

#include "compat/mpi.h"
#include "util/util.h"

#include <stdint.h>

/* Every MPI_X is PMPI_X under a second (weak) name, so that profiling
 * tools can define MPI_X themselves and call PMPI_X. */
#define GCM_MPI_ALIAS(_name) \
    extern __typeof__(PMPI_##_name) MPI_##_name \
        __attribute__((weak, alias("PMPI_" #_name)));

/* Object kinds, first field of every handle object, to reject garbage. */
#define GCM_MPI_MAGIC_TYPE  0x54595045u  /* "TYPE" */
#define GCM_MPI_MAGIC_OP    0x4f504f50u  /* "OPOP" */
#define GCM_MPI_MAGIC_GROUP 0x47525550u  /* "GRUP" */

/*
 * Reports an error of class errclass found by call (e.g. "MPI_Type_vector")
 * for the reason fmt, on communicator comm (NULL: not tied to one, raised
 * on MPI_COMM_WORLD as MPI-3 says). Returns the error code to hand back to
 * the caller under MPI_ERRORS_RETURN. The text is kept for
 * MPI_Error_string and for the fatal handler's message.
 */
int gcm_mpi_raise(MPI_Comm comm, int errclass, const char *call,
                  const char *fmt, ...)
    __attribute__((format(printf, 4, 5))) GCM_INTERNAL;

/* ---- datatypes (mpi_datatype.c) ------------------------------------------ */

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

/* Packs count elements from buf into out (which holds count * size
 * bytes), in type order; unpack is the reverse. Partial unpack: only the
 * first nbytes of packed data are unpacked (for truncated receives). */
void gcm_mpi_type_pack(MPI_Datatype datatype, int count, const void *buf,
                       void *out) GCM_INTERNAL;
void gcm_mpi_type_unpack(MPI_Datatype datatype, int count, const void *in,
                         size_t nbytes, void *buf) GCM_INTERNAL;

/* ---- reduction operations (mpi_op.c) */

/* Checks op against a valid datatype: 0, or the error raised on comm
 * (NULL: none) under the name call (MPI_ERR_OP). */
int gcm_mpi_op_check(MPI_Op op, MPI_Datatype datatype, MPI_Comm comm,
                     const char *call) GCM_INTERNAL;
int gcm_mpi_op_is_commutative(MPI_Op op) GCM_INTERNAL;
/* inout[i] = in[i] op inout[i] for count elements of datatype (both
 * buffers laid out as datatype describes). */
void gcm_mpi_op_apply(MPI_Op op, const void *in, void *inout, int count,
                      MPI_Datatype datatype) GCM_INTERNAL;

/* ---- groups (mpi_group.c) */

/* A group of n processes (world process indices, in rank order); myproc
 * is this process's index, to find its rank. */
int gcm_mpi_group_create(int n, const int procs[], int myproc,
                         MPI_Group *group_p) GCM_INTERNAL;
int gcm_mpi_group_check(MPI_Group group) GCM_INTERNAL;
/* The world process index of rank r of group. */
int gcm_mpi_group_proc(MPI_Group group, int rank) GCM_INTERNAL;
void gcm_mpi_group_retain(MPI_Group group) GCM_INTERNAL;
/* Drops a reference taken with create or retain (no-op for the
 * predefined empty group); the last one frees the group. */
void gcm_mpi_group_release(MPI_Group group) GCM_INTERNAL;

#endif /* GCM_MPI_IMPL_H */

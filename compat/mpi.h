/*
 * mpi.h: the MPI interface of gencomm (C only). MPI communicators are LCOs
 * (include/gencomm.h); this layer maps MPI onto the native API and adds no
 * second transport.
 *
 * Handles are pointers to library objects; predefined handles are the
 * addresses of objects the library defines, so they are link-time
 * constants usable in static initializers, as the standard requires.
 *
 * This header is being filled in family by family (see compat/README.md
 * for what is implemented so far).
 */
#ifndef GENCOMM_MPI_H
#define GENCOMM_MPI_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#if defined(__GNUC__) && __GNUC__ >= 4
#define GCM_MPI_EXPORT __attribute__((visibility("default")))
#else
#define GCM_MPI_EXPORT
#endif

#define MPI_VERSION    3
#define MPI_SUBVERSION 1

/* ---- basic types */

typedef intptr_t  MPI_Aint;
typedef long long MPI_Offset;
typedef long long MPI_Count;

typedef struct gcm_mpi_comm     *MPI_Comm;
typedef struct gcm_mpi_datatype *MPI_Datatype;
typedef struct gcm_mpi_op       *MPI_Op;
typedef struct gcm_mpi_group    *MPI_Group;
typedef struct gcm_mpi_request  *MPI_Request;
typedef struct gcm_mpi_info     *MPI_Info;
typedef struct gcm_mpi_errh     *MPI_Errhandler;
typedef struct gcm_mpi_message  *MPI_Message;

typedef struct MPI_Status {
    int       MPI_SOURCE;
    int       MPI_TAG;
    int       MPI_ERROR;
    /* private */
    int       gcm_cancelled;
    MPI_Count gcm_count;   /* bytes received */
} MPI_Status;

#define MPI_STATUS_IGNORE   ((MPI_Status *)0)
#define MPI_STATUSES_IGNORE ((MPI_Status *)0)

/* ---- constants */

#define MPI_UNDEFINED      (-32766)
#define MPI_ANY_SOURCE     (-2)
#define MPI_PROC_NULL      (-1)
#define MPI_ROOT           (-3)
#define MPI_ANY_TAG        (-1)
#define MPI_MAX_PROCESSOR_NAME      256
#define MPI_MAX_ERROR_STRING        512
#define MPI_MAX_OBJECT_NAME         128
#define MPI_MAX_LIBRARY_VERSION_STRING 256
#define MPI_MAX_INFO_KEY            255
#define MPI_MAX_INFO_VAL            1024
#define MPI_BSEND_OVERHEAD          96
#define MPI_BOTTOM         ((void *)0)
#define MPI_IN_PLACE       ((void *)-1)

/* Thread levels. */
#define MPI_THREAD_SINGLE     0
#define MPI_THREAD_FUNNELED   1
#define MPI_THREAD_SERIALIZED 2
#define MPI_THREAD_MULTIPLE   3

/* Results of comparisons. */
#define MPI_IDENT     0
#define MPI_CONGRUENT 1
#define MPI_SIMILAR   2
#define MPI_UNEQUAL   3

/* Error classes. */
#define MPI_SUCCESS          0
#define MPI_ERR_BUFFER       1
#define MPI_ERR_COUNT        2
#define MPI_ERR_TYPE         3
#define MPI_ERR_TAG          4
#define MPI_ERR_COMM         5
#define MPI_ERR_RANK         6
#define MPI_ERR_REQUEST      7
#define MPI_ERR_ROOT         8
#define MPI_ERR_GROUP        9
#define MPI_ERR_OP           10
#define MPI_ERR_TOPOLOGY     11
#define MPI_ERR_DIMS         12
#define MPI_ERR_ARG          13
#define MPI_ERR_UNKNOWN      14
#define MPI_ERR_TRUNCATE     15
#define MPI_ERR_OTHER        16
#define MPI_ERR_INTERN       17
#define MPI_ERR_IN_STATUS    18
#define MPI_ERR_PENDING      19
#define MPI_ERR_KEYVAL       20
#define MPI_ERR_NO_MEM       21
#define MPI_ERR_INFO         22
#define MPI_ERR_INFO_KEY     23
#define MPI_ERR_INFO_VALUE   24
#define MPI_ERR_INFO_NOKEY   25
#define MPI_ERR_PROC_FAILED  26   /* a peer process died (gencomm) */
#define MPI_ERR_LASTCODE     63

/* ---- datatypes */

/* Combiners (MPI_Type_get_envelope). */
#define MPI_COMBINER_NAMED          0
#define MPI_COMBINER_DUP            1
#define MPI_COMBINER_CONTIGUOUS     2
#define MPI_COMBINER_VECTOR         3
#define MPI_COMBINER_HVECTOR        4
#define MPI_COMBINER_INDEXED        5
#define MPI_COMBINER_HINDEXED       6
#define MPI_COMBINER_INDEXED_BLOCK  7
#define MPI_COMBINER_STRUCT         8
#define MPI_COMBINER_SUBARRAY       9
#define MPI_COMBINER_RESIZED        10
#define MPI_COMBINER_HINDEXED_BLOCK 11

#define MPI_ORDER_C       0
#define MPI_ORDER_FORTRAN 1

/* The predefined datatypes: objects defined by the library. */
#define GCM_MPI_FOREACH_PREDEFINED_TYPE(_) \
    _(MPI_CHAR,               char) \
    _(MPI_SIGNED_CHAR,        signed_char) \
    _(MPI_UNSIGNED_CHAR,      unsigned_char) \
    _(MPI_BYTE,               byte) \
    _(MPI_WCHAR,              wchar) \
    _(MPI_SHORT,              short) \
    _(MPI_UNSIGNED_SHORT,     unsigned_short) \
    _(MPI_INT,                int) \
    _(MPI_UNSIGNED,           unsigned) \
    _(MPI_LONG,               long) \
    _(MPI_UNSIGNED_LONG,      unsigned_long) \
    _(MPI_LONG_LONG_INT,      long_long_int) \
    _(MPI_UNSIGNED_LONG_LONG, unsigned_long_long) \
    _(MPI_FLOAT,              float) \
    _(MPI_DOUBLE,             double) \
    _(MPI_LONG_DOUBLE,        long_double) \
    _(MPI_C_BOOL,             c_bool) \
    _(MPI_INT8_T,             int8_t) \
    _(MPI_INT16_T,            int16_t) \
    _(MPI_INT32_T,            int32_t) \
    _(MPI_INT64_T,            int64_t) \
    _(MPI_UINT8_T,            uint8_t) \
    _(MPI_UINT16_T,           uint16_t) \
    _(MPI_UINT32_T,           uint32_t) \
    _(MPI_UINT64_T,           uint64_t) \
    _(MPI_AINT,               aint) \
    _(MPI_OFFSET,             offset) \
    _(MPI_COUNT,              count) \
    _(MPI_C_FLOAT_COMPLEX,    c_float_complex) \
    _(MPI_C_DOUBLE_COMPLEX,   c_double_complex) \
    _(MPI_C_LONG_DOUBLE_COMPLEX, c_long_double_complex) \
    _(MPI_PACKED,             packed) \
    _(MPI_FLOAT_INT,          float_int) \
    _(MPI_DOUBLE_INT,         double_int) \
    _(MPI_LONG_INT,           long_int) \
    _(MPI_2INT,               2int) \
    _(MPI_SHORT_INT,          short_int) \
    _(MPI_LONG_DOUBLE_INT,    long_double_int) \
    _(MPIX_CNAME,             cname) \
    _(MPIX_SLOTNAME,          slotname)

#define GCM_MPI_DECLARE_TYPE(_name, _sym) \
    extern GCM_MPI_EXPORT struct gcm_mpi_datatype gcm_mpi_type_##_sym;
GCM_MPI_FOREACH_PREDEFINED_TYPE(GCM_MPI_DECLARE_TYPE)
#undef GCM_MPI_DECLARE_TYPE

#define MPI_DATATYPE_NULL      ((MPI_Datatype)0)
#define MPI_CHAR               (&gcm_mpi_type_char)
#define MPI_SIGNED_CHAR        (&gcm_mpi_type_signed_char)
#define MPI_UNSIGNED_CHAR      (&gcm_mpi_type_unsigned_char)
#define MPI_BYTE               (&gcm_mpi_type_byte)
#define MPI_WCHAR              (&gcm_mpi_type_wchar)
#define MPI_SHORT              (&gcm_mpi_type_short)
#define MPI_UNSIGNED_SHORT     (&gcm_mpi_type_unsigned_short)
#define MPI_INT                (&gcm_mpi_type_int)
#define MPI_UNSIGNED           (&gcm_mpi_type_unsigned)
#define MPI_LONG               (&gcm_mpi_type_long)
#define MPI_UNSIGNED_LONG      (&gcm_mpi_type_unsigned_long)
#define MPI_LONG_LONG_INT      (&gcm_mpi_type_long_long_int)
#define MPI_LONG_LONG          MPI_LONG_LONG_INT
#define MPI_UNSIGNED_LONG_LONG (&gcm_mpi_type_unsigned_long_long)
#define MPI_FLOAT              (&gcm_mpi_type_float)
#define MPI_DOUBLE             (&gcm_mpi_type_double)
#define MPI_LONG_DOUBLE        (&gcm_mpi_type_long_double)
#define MPI_C_BOOL             (&gcm_mpi_type_c_bool)
#define MPI_INT8_T             (&gcm_mpi_type_int8_t)
#define MPI_INT16_T            (&gcm_mpi_type_int16_t)
#define MPI_INT32_T            (&gcm_mpi_type_int32_t)
#define MPI_INT64_T            (&gcm_mpi_type_int64_t)
#define MPI_UINT8_T            (&gcm_mpi_type_uint8_t)
#define MPI_UINT16_T           (&gcm_mpi_type_uint16_t)
#define MPI_UINT32_T           (&gcm_mpi_type_uint32_t)
#define MPI_UINT64_T           (&gcm_mpi_type_uint64_t)
#define MPI_AINT               (&gcm_mpi_type_aint)
#define MPI_OFFSET             (&gcm_mpi_type_offset)
#define MPI_COUNT              (&gcm_mpi_type_count)
#define MPI_C_COMPLEX          MPI_C_FLOAT_COMPLEX
#define MPI_C_FLOAT_COMPLEX    (&gcm_mpi_type_c_float_complex)
#define MPI_C_DOUBLE_COMPLEX   (&gcm_mpi_type_c_double_complex)
#define MPI_C_LONG_DOUBLE_COMPLEX (&gcm_mpi_type_c_long_double_complex)
#define MPI_PACKED             (&gcm_mpi_type_packed)
#define MPI_FLOAT_INT          (&gcm_mpi_type_float_int)
#define MPI_DOUBLE_INT         (&gcm_mpi_type_double_int)
#define MPI_LONG_INT           (&gcm_mpi_type_long_int)
#define MPI_2INT               (&gcm_mpi_type_2int)
#define MPI_SHORT_INT          (&gcm_mpi_type_short_int)
#define MPI_LONG_DOUBLE_INT    (&gcm_mpi_type_long_double_int)
/* LCO and slot names as data (macros, so #ifdef MPIX_CNAME works). */
#define MPIX_CNAME             (&gcm_mpi_type_cname)
#define MPIX_SLOTNAME          (&gcm_mpi_type_slotname)

/* ---- reduction operations */

#define GCM_MPI_FOREACH_PREDEFINED_OP(_) \
    _(MPI_MAX, max) _(MPI_MIN, min) _(MPI_SUM, sum) _(MPI_PROD, prod) \
    _(MPI_LAND, land) _(MPI_BAND, band) _(MPI_LOR, lor) _(MPI_BOR, bor) \
    _(MPI_LXOR, lxor) _(MPI_BXOR, bxor) _(MPI_MINLOC, minloc) \
    _(MPI_MAXLOC, maxloc) _(MPI_REPLACE, replace) _(MPI_NO_OP, no_op)

#define GCM_MPI_DECLARE_OP(_name, _sym) \
    extern GCM_MPI_EXPORT struct gcm_mpi_op gcm_mpi_op_##_sym;
GCM_MPI_FOREACH_PREDEFINED_OP(GCM_MPI_DECLARE_OP)
#undef GCM_MPI_DECLARE_OP

#define MPI_OP_NULL  ((MPI_Op)0)
#define MPI_MAX      (&gcm_mpi_op_max)
#define MPI_MIN      (&gcm_mpi_op_min)
#define MPI_SUM      (&gcm_mpi_op_sum)
#define MPI_PROD     (&gcm_mpi_op_prod)
#define MPI_LAND     (&gcm_mpi_op_land)
#define MPI_BAND     (&gcm_mpi_op_band)
#define MPI_LOR      (&gcm_mpi_op_lor)
#define MPI_BOR      (&gcm_mpi_op_bor)
#define MPI_LXOR     (&gcm_mpi_op_lxor)
#define MPI_BXOR     (&gcm_mpi_op_bxor)
#define MPI_MINLOC   (&gcm_mpi_op_minloc)
#define MPI_MAXLOC   (&gcm_mpi_op_maxloc)
#define MPI_REPLACE  (&gcm_mpi_op_replace)
#define MPI_NO_OP    (&gcm_mpi_op_no_op)

typedef void MPI_User_function(void *invec, void *inoutvec, int *len,
                               MPI_Datatype *datatype);

/* ---- groups */

extern GCM_MPI_EXPORT struct gcm_mpi_group gcm_mpi_group_empty;
#define MPI_GROUP_NULL  ((MPI_Group)0)
#define MPI_GROUP_EMPTY (&gcm_mpi_group_empty)

/* ---- functions: each MPI_X also exists as PMPI_X */

#define GCM_MPI_API(_ret, _name, _args) \
    GCM_MPI_EXPORT _ret MPI_##_name _args; \
    GCM_MPI_EXPORT _ret PMPI_##_name _args;

/* datatypes */
GCM_MPI_API(int, Type_contiguous, (int count, MPI_Datatype oldtype,
                                   MPI_Datatype *newtype))
GCM_MPI_API(int, Type_vector, (int count, int blocklength, int stride,
                               MPI_Datatype oldtype, MPI_Datatype *newtype))
GCM_MPI_API(int, Type_create_hvector, (int count, int blocklength,
                                       MPI_Aint stride, MPI_Datatype oldtype,
                                       MPI_Datatype *newtype))
GCM_MPI_API(int, Type_indexed, (int count, const int blocklengths[],
                                const int displacements[],
                                MPI_Datatype oldtype, MPI_Datatype *newtype))
GCM_MPI_API(int, Type_create_hindexed, (int count, const int blocklengths[],
                                        const MPI_Aint displacements[],
                                        MPI_Datatype oldtype,
                                        MPI_Datatype *newtype))
GCM_MPI_API(int, Type_create_indexed_block, (int count, int blocklength,
                                             const int displacements[],
                                             MPI_Datatype oldtype,
                                             MPI_Datatype *newtype))
GCM_MPI_API(int, Type_create_hindexed_block, (int count, int blocklength,
                                              const MPI_Aint displacements[],
                                              MPI_Datatype oldtype,
                                              MPI_Datatype *newtype))
GCM_MPI_API(int, Type_create_struct, (int count, const int blocklengths[],
                                      const MPI_Aint displacements[],
                                      const MPI_Datatype types[],
                                      MPI_Datatype *newtype))
GCM_MPI_API(int, Type_create_subarray, (int ndims, const int sizes[],
                                        const int subsizes[],
                                        const int starts[], int order,
                                        MPI_Datatype oldtype,
                                        MPI_Datatype *newtype))
GCM_MPI_API(int, Type_create_resized, (MPI_Datatype oldtype, MPI_Aint lb,
                                       MPI_Aint extent,
                                       MPI_Datatype *newtype))
GCM_MPI_API(int, Type_dup, (MPI_Datatype oldtype, MPI_Datatype *newtype))
GCM_MPI_API(int, Type_commit, (MPI_Datatype *datatype))
GCM_MPI_API(int, Type_free, (MPI_Datatype *datatype))
GCM_MPI_API(int, Type_get_extent, (MPI_Datatype datatype, MPI_Aint *lb,
                                   MPI_Aint *extent))
GCM_MPI_API(int, Type_get_true_extent, (MPI_Datatype datatype,
                                        MPI_Aint *true_lb,
                                        MPI_Aint *true_extent))
GCM_MPI_API(int, Type_size, (MPI_Datatype datatype, int *size))
GCM_MPI_API(int, Type_size_x, (MPI_Datatype datatype, MPI_Count *size))
GCM_MPI_API(int, Type_get_envelope, (MPI_Datatype datatype,
                                     int *num_integers, int *num_addresses,
                                     int *num_datatypes, int *combiner))
GCM_MPI_API(int, Type_set_name, (MPI_Datatype datatype,
                                 const char *type_name))
GCM_MPI_API(int, Type_get_name, (MPI_Datatype datatype, char *type_name,
                                 int *resultlen))
GCM_MPI_API(int, Get_address, (const void *location, MPI_Aint *address))
GCM_MPI_API(int, Get_count, (const MPI_Status *status, MPI_Datatype datatype,
                             int *count))
GCM_MPI_API(int, Get_elements, (const MPI_Status *status,
                                MPI_Datatype datatype, int *count))
GCM_MPI_API(int, Get_elements_x, (const MPI_Status *status,
                                  MPI_Datatype datatype, MPI_Count *count))
GCM_MPI_API(int, Pack_size, (int incount, MPI_Datatype datatype,
                             MPI_Comm comm, int *size))
GCM_MPI_API(int, Pack, (const void *inbuf, int incount,
                        MPI_Datatype datatype, void *outbuf, int outsize,
                        int *position, MPI_Comm comm))
GCM_MPI_API(int, Unpack, (const void *inbuf, int insize, int *position,
                          void *outbuf, int outcount, MPI_Datatype datatype,
                          MPI_Comm comm))

/* reduction operations */
GCM_MPI_API(int, Op_create, (MPI_User_function *user_fn, int commute,
                             MPI_Op *op))
GCM_MPI_API(int, Op_free, (MPI_Op *op))
GCM_MPI_API(int, Op_commutative, (MPI_Op op, int *commute))
GCM_MPI_API(int, Reduce_local, (const void *inbuf, void *inoutbuf, int count,
                                MPI_Datatype datatype, MPI_Op op))

/* groups */
GCM_MPI_API(int, Group_size, (MPI_Group group, int *size))
GCM_MPI_API(int, Group_rank, (MPI_Group group, int *rank))
GCM_MPI_API(int, Group_translate_ranks, (MPI_Group group1, int n,
                                         const int ranks1[],
                                         MPI_Group group2, int ranks2[]))
GCM_MPI_API(int, Group_compare, (MPI_Group group1, MPI_Group group2,
                                 int *result))
GCM_MPI_API(int, Group_union, (MPI_Group group1, MPI_Group group2,
                               MPI_Group *newgroup))
GCM_MPI_API(int, Group_intersection, (MPI_Group group1, MPI_Group group2,
                                      MPI_Group *newgroup))
GCM_MPI_API(int, Group_difference, (MPI_Group group1, MPI_Group group2,
                                    MPI_Group *newgroup))
GCM_MPI_API(int, Group_incl, (MPI_Group group, int n, const int ranks[],
                              MPI_Group *newgroup))
GCM_MPI_API(int, Group_excl, (MPI_Group group, int n, const int ranks[],
                              MPI_Group *newgroup))
GCM_MPI_API(int, Group_range_incl, (MPI_Group group, int n,
                                    int ranges[][3], MPI_Group *newgroup))
GCM_MPI_API(int, Group_range_excl, (MPI_Group group, int n,
                                    int ranges[][3], MPI_Group *newgroup))
GCM_MPI_API(int, Group_free, (MPI_Group *group))

#ifdef __cplusplus
}
#endif

#endif /* GENCOMM_MPI_H */

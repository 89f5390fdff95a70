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
typedef int       MPI_Fint;   /* a handle as a Fortran integer */

typedef struct gcm_mpi_comm     *MPI_Comm;
typedef struct gcm_mpi_datatype *MPI_Datatype;
typedef struct gcm_mpi_op       *MPI_Op;
typedef struct gcm_mpi_group    *MPI_Group;
/* A request handle is no plain address: it carries a generation, so that
 * a stale copy of a freed request is refused (compat/mpi_request.c). */
typedef struct gcm_mpi_request_handle *MPI_Request;
typedef struct gcm_mpi_info     *MPI_Info;
typedef struct gcm_mpi_errh     *MPI_Errhandler;
typedef struct gcm_mpi_message  *MPI_Message;
typedef struct gcm_mpi_win      *MPI_Win;

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
/* MPIX_Comm_relate's further results (the seed's MPI_UNEQUAL + 1..4). */
#define MPIX_SUBCOMM          (MPI_UNEQUAL + 1)
#define MPIX_SUBCOMM_STRICT   (MPI_UNEQUAL + 2)
#define MPIX_SUPERCOMM        (MPI_UNEQUAL + 3)
#define MPIX_SUPERCOMM_STRICT (MPI_UNEQUAL + 4)

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
#define MPI_ERR_NOT_SAME     27
#define MPI_ERR_UNSUPPORTED_OPERATION 28
/* One-sided communication (MPI-3.1 11.8). */
#define MPI_ERR_WIN          40
#define MPI_ERR_BASE         41
#define MPI_ERR_SIZE         42
#define MPI_ERR_DISP         43
#define MPI_ERR_LOCKTYPE     44
#define MPI_ERR_ASSERT       45
#define MPI_ERR_RMA_CONFLICT 46
#define MPI_ERR_RMA_SYNC     47
#define MPI_ERR_RMA_RANGE    48
#define MPI_ERR_RMA_ATTACH   49
#define MPI_ERR_RMA_SHARED   50
#define MPI_ERR_RMA_FLAVOR   51
#define MPI_ERR_LASTCODE     63

/* Communicator kinds and split types. */
#define MPI_COMM_TYPE_SHARED 1
#define MPI_COMM_TYPE_HW_GUIDED   2   /* MPI-4: info mpi_hw_resource_type */
#define MPI_COMM_TYPE_HW_UNGUIDED 3   /* MPI-4: next finer hardware level */
#define MPI_KEYVAL_INVALID   (-1)
/* Predefined attribute keys (on MPI_COMM_WORLD). */
#define MPI_TAG_UB            0
#define MPI_HOST              1
#define MPI_IO                2
#define MPI_WTIME_IS_GLOBAL   3
#define MPI_APPNUM            4
#define MPI_UNIVERSE_SIZE     5
#define MPI_LASTUSEDCODE      6
/* The SMP hierarchy (MPIX_Comm_node): this process's depth, on
 * MPI_COMM_SELF, and the deepest level, on MPI_COMM_WORLD. */
#define MPIX_DEPTH            7
#define MPIX_MAX_DEPTH        8
/* Topology kinds (MPI_Topo_test). */
#define MPI_GRAPH      1
#define MPI_CART       2
#define MPI_DIST_GRAPH 3
#define MPI_UNWEIGHTED    ((int *)1)
#define MPI_WEIGHTS_EMPTY ((int *)2)
/* Sizes of the LCO and slot names (gencomm.h: GCM_NAME_SIZE and
 * GCM_SLOTNAME_SIZE). */
#define MPIX_CNAME_SIZE    48
#define MPIX_SLOTNAME_SIZE 56
/* The most send slots, and receive slots, of one LCO (GCM_MAX_SLOTS). */
#define MPIX_MAX_SLOTS     (1 << 24)

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
#define MPI_COMBINER_DARRAY         12

#define MPI_ORDER_C       0
#define MPI_ORDER_FORTRAN 1

/* Distributions of MPI_Type_create_darray. */
#define MPI_DISTRIBUTE_BLOCK     121
#define MPI_DISTRIBUTE_CYCLIC    122
#define MPI_DISTRIBUTE_NONE      123
#define MPI_DISTRIBUTE_DFLT_DARG (-49767)

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

/* ---- communicators, requests, messages, info, error handlers */

struct gcm_mpi_comm;
extern GCM_MPI_EXPORT struct gcm_mpi_comm gcm_mpi_comm_world;
extern GCM_MPI_EXPORT struct gcm_mpi_comm gcm_mpi_comm_self;
#define MPI_COMM_NULL  ((MPI_Comm)0)
#define MPI_COMM_WORLD (&gcm_mpi_comm_world)
#define MPI_COMM_SELF  (&gcm_mpi_comm_self)

#define MPI_REQUEST_NULL ((MPI_Request)0)
#define MPI_MESSAGE_NULL ((MPI_Message)0)
extern GCM_MPI_EXPORT struct gcm_mpi_message gcm_mpi_message_no_proc;
#define MPI_MESSAGE_NO_PROC (&gcm_mpi_message_no_proc)

#define MPI_INFO_NULL ((MPI_Info)0)
extern GCM_MPI_EXPORT struct gcm_mpi_info gcm_mpi_info_env;
#define MPI_INFO_ENV  (&gcm_mpi_info_env)

extern GCM_MPI_EXPORT struct gcm_mpi_errh gcm_mpi_errh_fatal;
extern GCM_MPI_EXPORT struct gcm_mpi_errh gcm_mpi_errh_return;
#define MPI_ERRHANDLER_NULL  ((MPI_Errhandler)0)
#define MPI_ERRORS_ARE_FATAL (&gcm_mpi_errh_fatal)
#define MPI_ERRORS_RETURN    (&gcm_mpi_errh_return)

typedef void MPI_Comm_errhandler_function(MPI_Comm *comm, int *errcode, ...);
typedef MPI_Comm_errhandler_function MPI_Comm_errhandler_fn;
typedef int MPI_Comm_copy_attr_function(MPI_Comm oldcomm, int comm_keyval,
                                        void *extra_state,
                                        void *attribute_val_in,
                                        void *attribute_val_out, int *flag);
typedef int MPI_Comm_delete_attr_function(MPI_Comm comm, int comm_keyval,
                                          void *attribute_val,
                                          void *extra_state);
typedef int MPI_Type_copy_attr_function(MPI_Datatype oldtype,
                                        int type_keyval, void *extra_state,
                                        void *attribute_val_in,
                                        void *attribute_val_out, int *flag);
typedef int MPI_Type_delete_attr_function(MPI_Datatype datatype,
                                          int type_keyval,
                                          void *attribute_val,
                                          void *extra_state);
/* Predefined attribute callbacks (functions of the library). */
GCM_MPI_EXPORT int gcm_mpi_comm_null_copy_fn(MPI_Comm, int, void *, void *,
                                             void *, int *);
GCM_MPI_EXPORT int gcm_mpi_comm_dup_fn(MPI_Comm, int, void *, void *,
                                       void *, int *);
GCM_MPI_EXPORT int gcm_mpi_comm_null_delete_fn(MPI_Comm, int, void *,
                                               void *);
#define MPI_COMM_NULL_COPY_FN   gcm_mpi_comm_null_copy_fn
#define MPI_COMM_DUP_FN         gcm_mpi_comm_dup_fn
#define MPI_COMM_NULL_DELETE_FN gcm_mpi_comm_null_delete_fn
GCM_MPI_EXPORT int gcm_mpi_type_null_copy_fn(MPI_Datatype, int, void *,
                                             void *, void *, int *);
GCM_MPI_EXPORT int gcm_mpi_type_dup_fn(MPI_Datatype, int, void *, void *,
                                       void *, int *);
GCM_MPI_EXPORT int gcm_mpi_type_null_delete_fn(MPI_Datatype, int, void *,
                                               void *);
#define MPI_TYPE_NULL_COPY_FN   gcm_mpi_type_null_copy_fn
#define MPI_TYPE_DUP_FN         gcm_mpi_type_dup_fn
#define MPI_TYPE_NULL_DELETE_FN gcm_mpi_type_null_delete_fn

/* The MPIX_ extensions: an LCO's name and a slot name as plain data. */
typedef struct MPIX_Cname {
    unsigned char bytes[MPIX_CNAME_SIZE];
} MPIX_Cname;
typedef struct MPIX_Slotname {
    unsigned char bytes[MPIX_SLOTNAME_SIZE];
} MPIX_Slotname;

/* ---- one-sided communication (MPI-3.1 chapter 11) */

#define MPI_WIN_NULL ((MPI_Win)0)
/* Window attributes (MPI_Win_get_attr). */
#define MPI_WIN_BASE          9
#define MPI_WIN_SIZE          10
#define MPI_WIN_DISP_UNIT     11
#define MPI_WIN_CREATE_FLAVOR 12
#define MPI_WIN_MODEL         13
/* Values of MPI_WIN_CREATE_FLAVOR and MPI_WIN_MODEL. */
#define MPI_WIN_FLAVOR_CREATE   1
#define MPI_WIN_FLAVOR_ALLOCATE 2
#define MPI_WIN_FLAVOR_DYNAMIC  3
#define MPI_WIN_FLAVOR_SHARED   4
#define MPI_WIN_SEPARATE 1
#define MPI_WIN_UNIFIED  2
/* Lock types and assertions. */
#define MPI_LOCK_EXCLUSIVE 234
#define MPI_LOCK_SHARED    235
#define MPI_MODE_NOCHECK   1024
#define MPI_MODE_NOSTORE   2048
#define MPI_MODE_NOPUT     4096
#define MPI_MODE_NOPRECEDE 8192
#define MPI_MODE_NOSUCCEED 16384

typedef void MPI_Win_errhandler_function(MPI_Win *win, int *errcode, ...);
typedef MPI_Win_errhandler_function MPI_Win_errhandler_fn;
typedef int MPI_Win_copy_attr_function(MPI_Win oldwin, int win_keyval,
                                       void *extra_state,
                                       void *attribute_val_in,
                                       void *attribute_val_out, int *flag);
typedef int MPI_Win_delete_attr_function(MPI_Win win, int win_keyval,
                                         void *attribute_val,
                                         void *extra_state);
GCM_MPI_EXPORT int gcm_mpi_win_null_copy_fn(MPI_Win, int, void *, void *,
                                            void *, int *);
GCM_MPI_EXPORT int gcm_mpi_win_dup_fn(MPI_Win, int, void *, void *, void *,
                                      int *);
GCM_MPI_EXPORT int gcm_mpi_win_null_delete_fn(MPI_Win, int, void *, void *);
#define MPI_WIN_NULL_COPY_FN   gcm_mpi_win_null_copy_fn
#define MPI_WIN_DUP_FN         gcm_mpi_win_dup_fn
#define MPI_WIN_NULL_DELETE_FN gcm_mpi_win_null_delete_fn

/* ---- functions: each MPI_X also exists as PMPI_X */

#define GCM_MPI_API(_ret, _name, _args) \
    GCM_MPI_EXPORT _ret MPI_##_name _args; \
    GCM_MPI_EXPORT _ret PMPI_##_name _args;
#define GCM_MPIX_API(_ret, _name, _args) \
    GCM_MPI_EXPORT _ret MPIX_##_name _args; \
    GCM_MPI_EXPORT _ret PMPIX_##_name _args;

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


/* init and environment (mpi_init.c) */
GCM_MPI_API(int, Init, (int *argc, char ***argv))
GCM_MPI_API(int, Init_thread, (int *argc, char ***argv, int required,
                               int *provided))
GCM_MPI_API(int, Initialized, (int *flag))
GCM_MPI_API(int, Finalize, (void))
GCM_MPI_API(int, Finalized, (int *flag))
GCM_MPI_API(int, Abort, (MPI_Comm comm, int errorcode))
GCM_MPI_API(double, Wtime, (void))
GCM_MPI_API(double, Wtick, (void))
GCM_MPI_API(int, Get_processor_name, (char *name, int *resultlen))
GCM_MPI_API(int, Get_version, (int *version, int *subversion))
GCM_MPI_API(int, Get_library_version, (char *version, int *resultlen))
GCM_MPI_API(int, Query_thread, (int *provided))
GCM_MPI_API(int, Is_thread_main, (int *flag))
GCM_MPI_API(int, Pcontrol, (const int level, ...))

/* point-to-point (mpi_pt2pt.c) and requests (mpi_request.c) */
GCM_MPI_API(int, Send, (const void *buf, int count, MPI_Datatype datatype,
                        int dest, int tag, MPI_Comm comm))
GCM_MPI_API(int, Ssend, (const void *buf, int count, MPI_Datatype datatype,
                         int dest, int tag, MPI_Comm comm))
GCM_MPI_API(int, Bsend, (const void *buf, int count, MPI_Datatype datatype,
                         int dest, int tag, MPI_Comm comm))
GCM_MPI_API(int, Rsend, (const void *buf, int count, MPI_Datatype datatype,
                         int dest, int tag, MPI_Comm comm))
GCM_MPI_API(int, Recv, (void *buf, int count, MPI_Datatype datatype,
                        int source, int tag, MPI_Comm comm,
                        MPI_Status *status))
GCM_MPI_API(int, Isend, (const void *buf, int count, MPI_Datatype datatype,
                         int dest, int tag, MPI_Comm comm,
                         MPI_Request *request))
GCM_MPI_API(int, Issend, (const void *buf, int count, MPI_Datatype datatype,
                          int dest, int tag, MPI_Comm comm,
                          MPI_Request *request))
GCM_MPI_API(int, Ibsend, (const void *buf, int count, MPI_Datatype datatype,
                          int dest, int tag, MPI_Comm comm,
                          MPI_Request *request))
GCM_MPI_API(int, Irsend, (const void *buf, int count, MPI_Datatype datatype,
                          int dest, int tag, MPI_Comm comm,
                          MPI_Request *request))
GCM_MPI_API(int, Irecv, (void *buf, int count, MPI_Datatype datatype,
                         int source, int tag, MPI_Comm comm,
                         MPI_Request *request))
GCM_MPI_API(int, Sendrecv, (const void *sendbuf, int sendcount,
                            MPI_Datatype sendtype, int dest, int sendtag,
                            void *recvbuf, int recvcount,
                            MPI_Datatype recvtype, int source, int recvtag,
                            MPI_Comm comm, MPI_Status *status))
GCM_MPI_API(int, Sendrecv_replace, (void *buf, int count,
                                    MPI_Datatype datatype, int dest,
                                    int sendtag, int source, int recvtag,
                                    MPI_Comm comm, MPI_Status *status))
GCM_MPI_API(int, Buffer_attach, (void *buffer, int size))
GCM_MPI_API(int, Buffer_detach, (void *buffer_addr, int *size))
GCM_MPI_API(int, Probe, (int source, int tag, MPI_Comm comm,
                         MPI_Status *status))
GCM_MPI_API(int, Iprobe, (int source, int tag, MPI_Comm comm, int *flag,
                          MPI_Status *status))
GCM_MPI_API(int, Mprobe, (int source, int tag, MPI_Comm comm,
                          MPI_Message *message, MPI_Status *status))
GCM_MPI_API(int, Improbe, (int source, int tag, MPI_Comm comm, int *flag,
                           MPI_Message *message, MPI_Status *status))
GCM_MPI_API(int, Mrecv, (void *buf, int count, MPI_Datatype datatype,
                         MPI_Message *message, MPI_Status *status))
GCM_MPI_API(int, Imrecv, (void *buf, int count, MPI_Datatype datatype,
                          MPI_Message *message, MPI_Request *request))
GCM_MPI_API(int, Send_init, (const void *buf, int count,
                             MPI_Datatype datatype, int dest, int tag,
                             MPI_Comm comm, MPI_Request *request))
GCM_MPI_API(int, Ssend_init, (const void *buf, int count,
                              MPI_Datatype datatype, int dest, int tag,
                              MPI_Comm comm, MPI_Request *request))
GCM_MPI_API(int, Bsend_init, (const void *buf, int count,
                              MPI_Datatype datatype, int dest, int tag,
                              MPI_Comm comm, MPI_Request *request))
GCM_MPI_API(int, Rsend_init, (const void *buf, int count,
                              MPI_Datatype datatype, int dest, int tag,
                              MPI_Comm comm, MPI_Request *request))
GCM_MPI_API(int, Recv_init, (void *buf, int count, MPI_Datatype datatype,
                             int source, int tag, MPI_Comm comm,
                             MPI_Request *request))
GCM_MPI_API(int, Start, (MPI_Request *request))
GCM_MPI_API(int, Startall, (int count, MPI_Request array_of_requests[]))
GCM_MPI_API(int, Wait, (MPI_Request *request, MPI_Status *status))
GCM_MPI_API(int, Test, (MPI_Request *request, int *flag,
                        MPI_Status *status))
GCM_MPI_API(int, Waitall, (int count, MPI_Request array_of_requests[],
                           MPI_Status array_of_statuses[]))
GCM_MPI_API(int, Testall, (int count, MPI_Request array_of_requests[],
                           int *flag, MPI_Status array_of_statuses[]))
GCM_MPI_API(int, Waitany, (int count, MPI_Request array_of_requests[],
                           int *index, MPI_Status *status))
GCM_MPI_API(int, Testany, (int count, MPI_Request array_of_requests[],
                           int *index, int *flag, MPI_Status *status))
GCM_MPI_API(int, Waitsome, (int incount, MPI_Request array_of_requests[],
                            int *outcount, int array_of_indices[],
                            MPI_Status array_of_statuses[]))
GCM_MPI_API(int, Testsome, (int incount, MPI_Request array_of_requests[],
                            int *outcount, int array_of_indices[],
                            MPI_Status array_of_statuses[]))
GCM_MPI_API(int, Request_get_status, (MPI_Request request, int *flag,
                                      MPI_Status *status))
GCM_MPI_API(int, Cancel, (MPI_Request *request))
GCM_MPI_API(int, Request_free, (MPI_Request *request))
GCM_MPI_API(int, Test_cancelled, (const MPI_Status *status, int *flag))

/* communicators (mpi_comm_*.c) */
GCM_MPI_API(int, Comm_size, (MPI_Comm comm, int *size))
GCM_MPI_API(int, Comm_rank, (MPI_Comm comm, int *rank))
GCM_MPI_API(int, Comm_compare, (MPI_Comm comm1, MPI_Comm comm2,
                                int *result))
GCM_MPI_API(int, Comm_dup, (MPI_Comm comm, MPI_Comm *newcomm))
GCM_MPI_API(int, Comm_dup_with_info, (MPI_Comm comm, MPI_Info info,
                                      MPI_Comm *newcomm))
GCM_MPI_API(int, Comm_idup, (MPI_Comm comm, MPI_Comm *newcomm,
                             MPI_Request *request))
GCM_MPI_API(int, Comm_split, (MPI_Comm comm, int color, int key,
                              MPI_Comm *newcomm))
GCM_MPI_API(int, Comm_split_type, (MPI_Comm comm, int split_type, int key,
                                   MPI_Info info, MPI_Comm *newcomm))
GCM_MPI_API(int, Comm_create, (MPI_Comm comm, MPI_Group group,
                               MPI_Comm *newcomm))
GCM_MPI_API(int, Comm_create_group, (MPI_Comm comm, MPI_Group group,
                                     int tag, MPI_Comm *newcomm))
GCM_MPI_API(int, Comm_free, (MPI_Comm *comm))
GCM_MPI_API(int, Comm_group, (MPI_Comm comm, MPI_Group *group))
GCM_MPI_API(int, Comm_set_name, (MPI_Comm comm, const char *comm_name))
GCM_MPI_API(int, Comm_get_name, (MPI_Comm comm, char *comm_name,
                                 int *resultlen))
GCM_MPI_API(int, Comm_test_inter, (MPI_Comm comm, int *flag))
GCM_MPI_API(int, Comm_remote_size, (MPI_Comm comm, int *size))
GCM_MPI_API(int, Comm_remote_group, (MPI_Comm comm, MPI_Group *group))
GCM_MPI_API(int, Intercomm_create, (MPI_Comm local_comm, int local_leader,
                                    MPI_Comm peer_comm, int remote_leader,
                                    int tag, MPI_Comm *newintercomm))
GCM_MPI_API(int, Intercomm_merge, (MPI_Comm intercomm, int high,
                                   MPI_Comm *newintracomm))
GCM_MPI_API(int, Comm_set_info, (MPI_Comm comm, MPI_Info info))
GCM_MPI_API(int, Comm_get_info, (MPI_Comm comm, MPI_Info *info_used))

/* attributes (mpi_attr.c) */
GCM_MPI_API(int, Comm_create_keyval, (MPI_Comm_copy_attr_function *copy_fn,
                                      MPI_Comm_delete_attr_function *del_fn,
                                      int *comm_keyval, void *extra_state))
GCM_MPI_API(int, Comm_free_keyval, (int *comm_keyval))
GCM_MPI_API(int, Comm_set_attr, (MPI_Comm comm, int comm_keyval,
                                 void *attribute_val))
GCM_MPI_API(int, Comm_get_attr, (MPI_Comm comm, int comm_keyval,
                                 void *attribute_val, int *flag))
GCM_MPI_API(int, Comm_delete_attr, (MPI_Comm comm, int comm_keyval))
/* MPI-1 names legacy codes still call (MPI_Attr_get(MPI_COMM_WORLD,
 * MPI_TAG_UB, ...) above all). */
typedef MPI_Comm_copy_attr_function MPI_Copy_function;
typedef MPI_Comm_delete_attr_function MPI_Delete_function;
#define MPI_NULL_COPY_FN   MPI_COMM_NULL_COPY_FN
#define MPI_DUP_FN         MPI_COMM_DUP_FN
#define MPI_NULL_DELETE_FN MPI_COMM_NULL_DELETE_FN
GCM_MPI_API(int, Keyval_create, (MPI_Copy_function *copy_fn,
                                 MPI_Delete_function *delete_fn,
                                 int *keyval, void *extra_state))
GCM_MPI_API(int, Keyval_free, (int *keyval))
GCM_MPI_API(int, Attr_put, (MPI_Comm comm, int keyval, void *attribute_val))
GCM_MPI_API(int, Attr_get, (MPI_Comm comm, int keyval, void *attribute_val,
                            int *flag))
GCM_MPI_API(int, Attr_delete, (MPI_Comm comm, int keyval))

/* info (mpi_info.c) */
GCM_MPI_API(int, Info_create, (MPI_Info *info))
GCM_MPI_API(int, Info_set, (MPI_Info info, const char *key,
                            const char *value))
GCM_MPI_API(int, Info_get, (MPI_Info info, const char *key, int valuelen,
                            char *value, int *flag))
GCM_MPI_API(int, Info_get_valuelen, (MPI_Info info, const char *key,
                                     int *valuelen, int *flag))
GCM_MPI_API(int, Info_get_nkeys, (MPI_Info info, int *nkeys))
GCM_MPI_API(int, Info_get_nthkey, (MPI_Info info, int n, char *key))
GCM_MPI_API(int, Info_delete, (MPI_Info info, const char *key))
GCM_MPI_API(int, Info_dup, (MPI_Info info, MPI_Info *newinfo))
GCM_MPI_API(int, Info_free, (MPI_Info *info))

/* error handlers (mpi_errors.c) */
GCM_MPI_API(int, Comm_create_errhandler,
            (MPI_Comm_errhandler_function *comm_errhandler_fn,
             MPI_Errhandler *errhandler))
GCM_MPI_API(int, Comm_set_errhandler, (MPI_Comm comm,
                                       MPI_Errhandler errhandler))
GCM_MPI_API(int, Comm_get_errhandler, (MPI_Comm comm,
                                       MPI_Errhandler *errhandler))
GCM_MPI_API(int, Comm_call_errhandler, (MPI_Comm comm, int errorcode))
GCM_MPI_API(int, Errhandler_free, (MPI_Errhandler *errhandler))
GCM_MPI_API(int, Error_string, (int errorcode, char *string,
                                int *resultlen))
GCM_MPI_API(int, Error_class, (int errorcode, int *errorclass))

/* collectives (mpi_coll_*.c) */
GCM_MPI_API(int, Barrier, (MPI_Comm comm))
GCM_MPI_API(int, Bcast, (void *buffer, int count, MPI_Datatype datatype,
                         int root, MPI_Comm comm))
GCM_MPI_API(int, Gather, (const void *sendbuf, int sendcount,
                          MPI_Datatype sendtype, void *recvbuf,
                          int recvcount, MPI_Datatype recvtype, int root,
                          MPI_Comm comm))
GCM_MPI_API(int, Gatherv, (const void *sendbuf, int sendcount,
                           MPI_Datatype sendtype, void *recvbuf,
                           const int recvcounts[], const int displs[],
                           MPI_Datatype recvtype, int root, MPI_Comm comm))
GCM_MPI_API(int, Scatter, (const void *sendbuf, int sendcount,
                           MPI_Datatype sendtype, void *recvbuf,
                           int recvcount, MPI_Datatype recvtype, int root,
                           MPI_Comm comm))
GCM_MPI_API(int, Scatterv, (const void *sendbuf, const int sendcounts[],
                            const int displs[], MPI_Datatype sendtype,
                            void *recvbuf, int recvcount,
                            MPI_Datatype recvtype, int root, MPI_Comm comm))
GCM_MPI_API(int, Allgather, (const void *sendbuf, int sendcount,
                             MPI_Datatype sendtype, void *recvbuf,
                             int recvcount, MPI_Datatype recvtype,
                             MPI_Comm comm))
GCM_MPI_API(int, Allgatherv, (const void *sendbuf, int sendcount,
                              MPI_Datatype sendtype, void *recvbuf,
                              const int recvcounts[], const int displs[],
                              MPI_Datatype recvtype, MPI_Comm comm))
GCM_MPI_API(int, Alltoall, (const void *sendbuf, int sendcount,
                            MPI_Datatype sendtype, void *recvbuf,
                            int recvcount, MPI_Datatype recvtype,
                            MPI_Comm comm))
GCM_MPI_API(int, Alltoallv, (const void *sendbuf, const int sendcounts[],
                             const int sdispls[], MPI_Datatype sendtype,
                             void *recvbuf, const int recvcounts[],
                             const int rdispls[], MPI_Datatype recvtype,
                             MPI_Comm comm))
GCM_MPI_API(int, Alltoallw, (const void *sendbuf, const int sendcounts[],
                             const int sdispls[],
                             const MPI_Datatype sendtypes[], void *recvbuf,
                             const int recvcounts[], const int rdispls[],
                             const MPI_Datatype recvtypes[], MPI_Comm comm))
GCM_MPI_API(int, Reduce, (const void *sendbuf, void *recvbuf, int count,
                          MPI_Datatype datatype, MPI_Op op, int root,
                          MPI_Comm comm))
GCM_MPI_API(int, Allreduce, (const void *sendbuf, void *recvbuf, int count,
                             MPI_Datatype datatype, MPI_Op op,
                             MPI_Comm comm))
GCM_MPI_API(int, Reduce_scatter, (const void *sendbuf, void *recvbuf,
                                  const int recvcounts[],
                                  MPI_Datatype datatype, MPI_Op op,
                                  MPI_Comm comm))
GCM_MPI_API(int, Reduce_scatter_block, (const void *sendbuf, void *recvbuf,
                                        int recvcount, MPI_Datatype datatype,
                                        MPI_Op op, MPI_Comm comm))
GCM_MPI_API(int, Scan, (const void *sendbuf, void *recvbuf, int count,
                        MPI_Datatype datatype, MPI_Op op, MPI_Comm comm))
GCM_MPI_API(int, Exscan, (const void *sendbuf, void *recvbuf, int count,
                          MPI_Datatype datatype, MPI_Op op, MPI_Comm comm))
GCM_MPI_API(int, Ibarrier, (MPI_Comm comm, MPI_Request *request))
GCM_MPI_API(int, Ibcast, (void *buffer, int count, MPI_Datatype datatype,
                          int root, MPI_Comm comm, MPI_Request *request))
GCM_MPI_API(int, Ireduce, (const void *sendbuf, void *recvbuf, int count,
                           MPI_Datatype datatype, MPI_Op op, int root,
                           MPI_Comm comm, MPI_Request *request))
GCM_MPI_API(int, Iallreduce, (const void *sendbuf, void *recvbuf, int count,
                              MPI_Datatype datatype, MPI_Op op,
                              MPI_Comm comm, MPI_Request *request))
GCM_MPI_API(int, Iallgather, (const void *sendbuf, int sendcount,
                              MPI_Datatype sendtype, void *recvbuf,
                              int recvcount, MPI_Datatype recvtype,
                              MPI_Comm comm, MPI_Request *request))
GCM_MPI_API(int, Ialltoall, (const void *sendbuf, int sendcount,
                             MPI_Datatype sendtype, void *recvbuf,
                             int recvcount, MPI_Datatype recvtype,
                             MPI_Comm comm, MPI_Request *request))

/* The other nonblocking collectives (mpi_coll_rooted.c, mpi_coll_all.c,
 * mpi_coll_reduce.c). */
GCM_MPI_API(int, Igather, (const void *sendbuf, int sendcount,
                           MPI_Datatype sendtype, void *recvbuf,
                           int recvcount, MPI_Datatype recvtype, int root,
                           MPI_Comm comm, MPI_Request *request))
GCM_MPI_API(int, Igatherv, (const void *sendbuf, int sendcount,
                            MPI_Datatype sendtype, void *recvbuf,
                            const int recvcounts[], const int displs[],
                            MPI_Datatype recvtype, int root, MPI_Comm comm,
                            MPI_Request *request))
GCM_MPI_API(int, Iscatter, (const void *sendbuf, int sendcount,
                            MPI_Datatype sendtype, void *recvbuf,
                            int recvcount, MPI_Datatype recvtype, int root,
                            MPI_Comm comm, MPI_Request *request))
GCM_MPI_API(int, Iscatterv, (const void *sendbuf, const int sendcounts[],
                             const int displs[], MPI_Datatype sendtype,
                             void *recvbuf, int recvcount,
                             MPI_Datatype recvtype, int root, MPI_Comm comm,
                             MPI_Request *request))
GCM_MPI_API(int, Iallgatherv, (const void *sendbuf, int sendcount,
                               MPI_Datatype sendtype, void *recvbuf,
                               const int recvcounts[], const int displs[],
                               MPI_Datatype recvtype, MPI_Comm comm,
                               MPI_Request *request))
GCM_MPI_API(int, Ialltoallv, (const void *sendbuf, const int sendcounts[],
                              const int sdispls[], MPI_Datatype sendtype,
                              void *recvbuf, const int recvcounts[],
                              const int rdispls[], MPI_Datatype recvtype,
                              MPI_Comm comm, MPI_Request *request))
GCM_MPI_API(int, Ialltoallw, (const void *sendbuf, const int sendcounts[],
                              const int sdispls[],
                              const MPI_Datatype sendtypes[], void *recvbuf,
                              const int recvcounts[], const int rdispls[],
                              const MPI_Datatype recvtypes[], MPI_Comm comm,
                              MPI_Request *request))
GCM_MPI_API(int, Ireduce_scatter, (const void *sendbuf, void *recvbuf,
                                   const int recvcounts[],
                                   MPI_Datatype datatype, MPI_Op op,
                                   MPI_Comm comm, MPI_Request *request))
GCM_MPI_API(int, Ireduce_scatter_block, (const void *sendbuf, void *recvbuf,
                                         int recvcount, MPI_Datatype datatype,
                                         MPI_Op op, MPI_Comm comm,
                                         MPI_Request *request))
GCM_MPI_API(int, Iscan, (const void *sendbuf, void *recvbuf, int count,
                         MPI_Datatype datatype, MPI_Op op, MPI_Comm comm,
                         MPI_Request *request))
GCM_MPI_API(int, Iexscan, (const void *sendbuf, void *recvbuf, int count,
                           MPI_Datatype datatype, MPI_Op op, MPI_Comm comm,
                           MPI_Request *request))

/* MPI-4 persistent collectives (MPI-4.0 6.13), declared whatever
 * MPI_VERSION says: the request is made inactive; MPI_Start runs it. */
GCM_MPI_API(int, Barrier_init, (MPI_Comm comm, MPI_Info info,
                                MPI_Request *request))
GCM_MPI_API(int, Bcast_init, (void *buffer, int count, MPI_Datatype datatype,
                              int root, MPI_Comm comm, MPI_Info info,
                              MPI_Request *request))
GCM_MPI_API(int, Gather_init, (const void *sendbuf, int sendcount,
                               MPI_Datatype sendtype, void *recvbuf,
                               int recvcount, MPI_Datatype recvtype, int root,
                               MPI_Comm comm, MPI_Info info,
                               MPI_Request *request))
GCM_MPI_API(int, Gatherv_init, (const void *sendbuf, int sendcount,
                                MPI_Datatype sendtype, void *recvbuf,
                                const int recvcounts[], const int displs[],
                                MPI_Datatype recvtype, int root,
                                MPI_Comm comm, MPI_Info info,
                                MPI_Request *request))
GCM_MPI_API(int, Scatter_init, (const void *sendbuf, int sendcount,
                                MPI_Datatype sendtype, void *recvbuf,
                                int recvcount, MPI_Datatype recvtype,
                                int root, MPI_Comm comm, MPI_Info info,
                                MPI_Request *request))
GCM_MPI_API(int, Scatterv_init, (const void *sendbuf, const int sendcounts[],
                                 const int displs[], MPI_Datatype sendtype,
                                 void *recvbuf, int recvcount,
                                 MPI_Datatype recvtype, int root,
                                 MPI_Comm comm, MPI_Info info,
                                 MPI_Request *request))
GCM_MPI_API(int, Allgather_init, (const void *sendbuf, int sendcount,
                                  MPI_Datatype sendtype, void *recvbuf,
                                  int recvcount, MPI_Datatype recvtype,
                                  MPI_Comm comm, MPI_Info info,
                                  MPI_Request *request))
GCM_MPI_API(int, Allgatherv_init, (const void *sendbuf, int sendcount,
                                   MPI_Datatype sendtype, void *recvbuf,
                                   const int recvcounts[], const int displs[],
                                   MPI_Datatype recvtype, MPI_Comm comm,
                                   MPI_Info info, MPI_Request *request))
GCM_MPI_API(int, Alltoall_init, (const void *sendbuf, int sendcount,
                                 MPI_Datatype sendtype, void *recvbuf,
                                 int recvcount, MPI_Datatype recvtype,
                                 MPI_Comm comm, MPI_Info info,
                                 MPI_Request *request))
GCM_MPI_API(int, Alltoallv_init, (const void *sendbuf,
                                  const int sendcounts[], const int sdispls[],
                                  MPI_Datatype sendtype, void *recvbuf,
                                  const int recvcounts[], const int rdispls[],
                                  MPI_Datatype recvtype, MPI_Comm comm,
                                  MPI_Info info, MPI_Request *request))
GCM_MPI_API(int, Alltoallw_init, (const void *sendbuf,
                                  const int sendcounts[], const int sdispls[],
                                  const MPI_Datatype sendtypes[],
                                  void *recvbuf, const int recvcounts[],
                                  const int rdispls[],
                                  const MPI_Datatype recvtypes[],
                                  MPI_Comm comm, MPI_Info info,
                                  MPI_Request *request))
GCM_MPI_API(int, Reduce_init, (const void *sendbuf, void *recvbuf, int count,
                               MPI_Datatype datatype, MPI_Op op, int root,
                               MPI_Comm comm, MPI_Info info,
                               MPI_Request *request))
GCM_MPI_API(int, Allreduce_init, (const void *sendbuf, void *recvbuf,
                                  int count, MPI_Datatype datatype, MPI_Op op,
                                  MPI_Comm comm, MPI_Info info,
                                  MPI_Request *request))
GCM_MPI_API(int, Reduce_scatter_init, (const void *sendbuf, void *recvbuf,
                                       const int recvcounts[],
                                       MPI_Datatype datatype, MPI_Op op,
                                       MPI_Comm comm, MPI_Info info,
                                       MPI_Request *request))
GCM_MPI_API(int, Reduce_scatter_block_init, (const void *sendbuf,
                                             void *recvbuf, int recvcount,
                                             MPI_Datatype datatype, MPI_Op op,
                                             MPI_Comm comm, MPI_Info info,
                                             MPI_Request *request))
GCM_MPI_API(int, Scan_init, (const void *sendbuf, void *recvbuf, int count,
                             MPI_Datatype datatype, MPI_Op op, MPI_Comm comm,
                             MPI_Info info, MPI_Request *request))
GCM_MPI_API(int, Exscan_init, (const void *sendbuf, void *recvbuf, int count,
                               MPI_Datatype datatype, MPI_Op op,
                               MPI_Comm comm, MPI_Info info,
                               MPI_Request *request))

/* topologies (mpi_topo_*.c) */
GCM_MPI_API(int, Dims_create, (int nnodes, int ndims, int dims[]))
GCM_MPI_API(int, Cart_create, (MPI_Comm comm_old, int ndims,
                               const int dims[], const int periods[],
                               int reorder, MPI_Comm *comm_cart))
GCM_MPI_API(int, Cart_coords, (MPI_Comm comm, int rank, int maxdims,
                               int coords[]))
GCM_MPI_API(int, Cart_rank, (MPI_Comm comm, const int coords[], int *rank))
GCM_MPI_API(int, Cart_shift, (MPI_Comm comm, int direction, int disp,
                              int *rank_source, int *rank_dest))
GCM_MPI_API(int, Cart_sub, (MPI_Comm comm, const int remain_dims[],
                            MPI_Comm *newcomm))
GCM_MPI_API(int, Cart_get, (MPI_Comm comm, int maxdims, int dims[],
                            int periods[], int coords[]))
GCM_MPI_API(int, Cart_map, (MPI_Comm comm, int ndims, const int dims[],
                            const int periods[], int *newrank))
GCM_MPI_API(int, Cartdim_get, (MPI_Comm comm, int *ndims))
GCM_MPI_API(int, Graph_create, (MPI_Comm comm_old, int nnodes,
                                const int index[], const int edges[],
                                int reorder, MPI_Comm *comm_graph))
GCM_MPI_API(int, Graph_get, (MPI_Comm comm, int maxindex, int maxedges,
                             int index[], int edges[]))
GCM_MPI_API(int, Graph_neighbors, (MPI_Comm comm, int rank,
                                   int maxneighbors, int neighbors[]))
GCM_MPI_API(int, Graph_neighbors_count, (MPI_Comm comm, int rank,
                                         int *nneighbors))
GCM_MPI_API(int, Graph_map, (MPI_Comm comm, int nnodes, const int index[],
                             const int edges[], int *newrank))
GCM_MPI_API(int, Graphdims_get, (MPI_Comm comm, int *nnodes, int *nedges))
GCM_MPI_API(int, Topo_test, (MPI_Comm comm, int *status))
GCM_MPI_API(int, Dist_graph_create_adjacent,
            (MPI_Comm comm_old, int indegree, const int sources[],
             const int *sourceweights, int outdegree,
             const int destinations[], const int *destweights,
             MPI_Info info, int reorder, MPI_Comm *comm_dist_graph))
GCM_MPI_API(int, Dist_graph_create, (MPI_Comm comm_old, int n,
                                     const int sources[],
                                     const int degrees[],
                                     const int destinations[],
                                     const int *weights, MPI_Info info,
                                     int reorder, MPI_Comm *comm_dist_graph))
GCM_MPI_API(int, Dist_graph_neighbors_count, (MPI_Comm comm, int *indegree,
                                              int *outdegree, int *weighted))
GCM_MPI_API(int, Dist_graph_neighbors, (MPI_Comm comm, int maxindegree,
                                        int sources[], int *sourceweights,
                                        int maxoutdegree,
                                        int destinations[],
                                        int *destweights))
GCM_MPI_API(int, Neighbor_allgather, (const void *sendbuf, int sendcount,
                                      MPI_Datatype sendtype, void *recvbuf,
                                      int recvcount, MPI_Datatype recvtype,
                                      MPI_Comm comm))
GCM_MPI_API(int, Neighbor_allgatherv, (const void *sendbuf, int sendcount,
                                       MPI_Datatype sendtype, void *recvbuf,
                                       const int recvcounts[],
                                       const int displs[],
                                       MPI_Datatype recvtype, MPI_Comm comm))
GCM_MPI_API(int, Neighbor_alltoall, (const void *sendbuf, int sendcount,
                                     MPI_Datatype sendtype, void *recvbuf,
                                     int recvcount, MPI_Datatype recvtype,
                                     MPI_Comm comm))
GCM_MPI_API(int, Neighbor_alltoallv, (const void *sendbuf,
                                      const int sendcounts[],
                                      const int sdispls[],
                                      MPI_Datatype sendtype, void *recvbuf,
                                      const int recvcounts[],
                                      const int rdispls[],
                                      MPI_Datatype recvtype, MPI_Comm comm))

/* datatypes: distributed arrays, decoding, the _x queries and the
 * portable "external32" representation (mpi_type_*.c) */
GCM_MPI_API(int, Type_create_darray, (int size, int rank, int ndims,
                                      const int array_of_gsizes[],
                                      const int array_of_distribs[],
                                      const int array_of_dargs[],
                                      const int array_of_psizes[],
                                      int order, MPI_Datatype oldtype,
                                      MPI_Datatype *newtype))
GCM_MPI_API(int, Type_get_contents, (MPI_Datatype datatype,
                                     int max_integers, int max_addresses,
                                     int max_datatypes,
                                     int array_of_integers[],
                                     MPI_Aint array_of_addresses[],
                                     MPI_Datatype array_of_datatypes[]))
GCM_MPI_API(int, Type_get_extent_x, (MPI_Datatype datatype, MPI_Count *lb,
                                     MPI_Count *extent))
GCM_MPI_API(int, Type_get_true_extent_x, (MPI_Datatype datatype,
                                          MPI_Count *true_lb,
                                          MPI_Count *true_extent))
GCM_MPI_API(int, Pack_external, (const char datarep[], const void *inbuf,
                                 int incount, MPI_Datatype datatype,
                                 void *outbuf, MPI_Aint outsize,
                                 MPI_Aint *position))
GCM_MPI_API(int, Unpack_external, (const char datarep[], const void *inbuf,
                                   MPI_Aint insize, MPI_Aint *position,
                                   void *outbuf, int outcount,
                                   MPI_Datatype datatype))
GCM_MPI_API(int, Pack_external_size, (const char datarep[], int incount,
                                      MPI_Datatype datatype,
                                      MPI_Aint *size))

/* attributes on datatypes (mpi_type_attr.c) */
GCM_MPI_API(int, Type_create_keyval,
            (MPI_Type_copy_attr_function *type_copy_attr_fn,
             MPI_Type_delete_attr_function *type_delete_attr_fn,
             int *type_keyval, void *extra_state))
GCM_MPI_API(int, Type_free_keyval, (int *type_keyval))
GCM_MPI_API(int, Type_set_attr, (MPI_Datatype datatype, int type_keyval,
                                 void *attribute_val))
GCM_MPI_API(int, Type_get_attr, (MPI_Datatype datatype, int type_keyval,
                                 void *attribute_val, int *flag))
GCM_MPI_API(int, Type_delete_attr, (MPI_Datatype datatype, int type_keyval))

/* handle conversion (mpi_fint.c): a handle as a Fortran integer and
 * back; a freed handle's integer converts back to the null handle */
#define MPI_F_STATUS_SIZE 6
GCM_MPI_API(MPI_Fint, Comm_c2f, (MPI_Comm comm))
GCM_MPI_API(MPI_Comm, Comm_f2c, (MPI_Fint comm))
GCM_MPI_API(MPI_Fint, Type_c2f, (MPI_Datatype datatype))
GCM_MPI_API(MPI_Datatype, Type_f2c, (MPI_Fint datatype))
GCM_MPI_API(MPI_Fint, Group_c2f, (MPI_Group group))
GCM_MPI_API(MPI_Group, Group_f2c, (MPI_Fint group))
GCM_MPI_API(MPI_Fint, Op_c2f, (MPI_Op op))
GCM_MPI_API(MPI_Op, Op_f2c, (MPI_Fint op))
GCM_MPI_API(MPI_Fint, Info_c2f, (MPI_Info info))
GCM_MPI_API(MPI_Info, Info_f2c, (MPI_Fint info))
GCM_MPI_API(MPI_Fint, Errhandler_c2f, (MPI_Errhandler errhandler))
GCM_MPI_API(MPI_Errhandler, Errhandler_f2c, (MPI_Fint errhandler))
GCM_MPI_API(MPI_Fint, Request_c2f, (MPI_Request request))
GCM_MPI_API(MPI_Request, Request_f2c, (MPI_Fint request))
GCM_MPI_API(MPI_Fint, Message_c2f, (MPI_Message message))
GCM_MPI_API(MPI_Message, Message_f2c, (MPI_Fint message))
GCM_MPI_API(MPI_Fint, Win_c2f, (MPI_Win win))
GCM_MPI_API(MPI_Win, Win_f2c, (MPI_Fint win))
GCM_MPI_API(int, Status_c2f, (const MPI_Status *c_status,
                              MPI_Fint *f_status))
GCM_MPI_API(int, Status_f2c, (const MPI_Fint *f_status,
                              MPI_Status *c_status))

/* one-sided communication: windows (mpi_win_*.c) and their operations
 * (mpi_rma_*.c) */
GCM_MPI_API(int, Alloc_mem, (MPI_Aint size, MPI_Info info, void *baseptr))
GCM_MPI_API(int, Free_mem, (void *base))
GCM_MPI_API(int, Win_create, (void *base, MPI_Aint size, int disp_unit,
                              MPI_Info info, MPI_Comm comm, MPI_Win *win))
GCM_MPI_API(int, Win_allocate, (MPI_Aint size, int disp_unit, MPI_Info info,
                                MPI_Comm comm, void *baseptr, MPI_Win *win))
GCM_MPI_API(int, Win_allocate_shared, (MPI_Aint size, int disp_unit,
                                       MPI_Info info, MPI_Comm comm,
                                       void *baseptr, MPI_Win *win))
GCM_MPI_API(int, Win_shared_query, (MPI_Win win, int rank, MPI_Aint *size,
                                    int *disp_unit, void *baseptr))
GCM_MPI_API(int, Win_create_dynamic, (MPI_Info info, MPI_Comm comm,
                                      MPI_Win *win))
GCM_MPI_API(int, Win_attach, (MPI_Win win, void *base, MPI_Aint size))
GCM_MPI_API(int, Win_detach, (MPI_Win win, const void *base))
GCM_MPI_API(int, Win_free, (MPI_Win *win))
GCM_MPI_API(int, Win_get_group, (MPI_Win win, MPI_Group *group))
GCM_MPI_API(int, Win_set_name, (MPI_Win win, const char *win_name))
GCM_MPI_API(int, Win_get_name, (MPI_Win win, char *win_name,
                                int *resultlen))
GCM_MPI_API(int, Win_set_info, (MPI_Win win, MPI_Info info))
GCM_MPI_API(int, Win_get_info, (MPI_Win win, MPI_Info *info_used))
GCM_MPI_API(int, Win_create_errhandler,
            (MPI_Win_errhandler_function *win_errhandler_fn,
             MPI_Errhandler *errhandler))
GCM_MPI_API(int, Win_set_errhandler, (MPI_Win win,
                                      MPI_Errhandler errhandler))
GCM_MPI_API(int, Win_get_errhandler, (MPI_Win win,
                                      MPI_Errhandler *errhandler))
GCM_MPI_API(int, Win_call_errhandler, (MPI_Win win, int errorcode))
GCM_MPI_API(int, Win_create_keyval,
            (MPI_Win_copy_attr_function *win_copy_attr_fn,
             MPI_Win_delete_attr_function *win_delete_attr_fn,
             int *win_keyval, void *extra_state))
GCM_MPI_API(int, Win_free_keyval, (int *win_keyval))
GCM_MPI_API(int, Win_set_attr, (MPI_Win win, int win_keyval,
                                void *attribute_val))
GCM_MPI_API(int, Win_get_attr, (MPI_Win win, int win_keyval,
                                void *attribute_val, int *flag))
GCM_MPI_API(int, Win_delete_attr, (MPI_Win win, int win_keyval))
GCM_MPI_API(int, Win_fence, (int assert, MPI_Win win))
GCM_MPI_API(int, Win_post, (MPI_Group group, int assert, MPI_Win win))
GCM_MPI_API(int, Win_start, (MPI_Group group, int assert, MPI_Win win))
GCM_MPI_API(int, Win_complete, (MPI_Win win))
GCM_MPI_API(int, Win_wait, (MPI_Win win))
GCM_MPI_API(int, Win_test, (MPI_Win win, int *flag))
GCM_MPI_API(int, Win_lock, (int lock_type, int rank, int assert,
                            MPI_Win win))
GCM_MPI_API(int, Win_unlock, (int rank, MPI_Win win))
GCM_MPI_API(int, Win_lock_all, (int assert, MPI_Win win))
GCM_MPI_API(int, Win_unlock_all, (MPI_Win win))
GCM_MPI_API(int, Win_flush, (int rank, MPI_Win win))
GCM_MPI_API(int, Win_flush_all, (MPI_Win win))
GCM_MPI_API(int, Win_flush_local, (int rank, MPI_Win win))
GCM_MPI_API(int, Win_flush_local_all, (MPI_Win win))
GCM_MPI_API(int, Win_sync, (MPI_Win win))
GCM_MPI_API(int, Put, (const void *origin_addr, int origin_count,
                       MPI_Datatype origin_datatype, int target_rank,
                       MPI_Aint target_disp, int target_count,
                       MPI_Datatype target_datatype, MPI_Win win))
GCM_MPI_API(int, Get, (void *origin_addr, int origin_count,
                       MPI_Datatype origin_datatype, int target_rank,
                       MPI_Aint target_disp, int target_count,
                       MPI_Datatype target_datatype, MPI_Win win))
GCM_MPI_API(int, Accumulate, (const void *origin_addr, int origin_count,
                              MPI_Datatype origin_datatype, int target_rank,
                              MPI_Aint target_disp, int target_count,
                              MPI_Datatype target_datatype, MPI_Op op,
                              MPI_Win win))
GCM_MPI_API(int, Get_accumulate, (const void *origin_addr, int origin_count,
                                  MPI_Datatype origin_datatype,
                                  void *result_addr, int result_count,
                                  MPI_Datatype result_datatype,
                                  int target_rank, MPI_Aint target_disp,
                                  int target_count,
                                  MPI_Datatype target_datatype, MPI_Op op,
                                  MPI_Win win))
GCM_MPI_API(int, Fetch_and_op, (const void *origin_addr, void *result_addr,
                                MPI_Datatype datatype, int target_rank,
                                MPI_Aint target_disp, MPI_Op op,
                                MPI_Win win))
GCM_MPI_API(int, Compare_and_swap, (const void *origin_addr,
                                    const void *compare_addr,
                                    void *result_addr, MPI_Datatype datatype,
                                    int target_rank, MPI_Aint target_disp,
                                    MPI_Win win))
GCM_MPI_API(int, Rput, (const void *origin_addr, int origin_count,
                        MPI_Datatype origin_datatype, int target_rank,
                        MPI_Aint target_disp, int target_count,
                        MPI_Datatype target_datatype, MPI_Win win,
                        MPI_Request *request))
GCM_MPI_API(int, Rget, (void *origin_addr, int origin_count,
                        MPI_Datatype origin_datatype, int target_rank,
                        MPI_Aint target_disp, int target_count,
                        MPI_Datatype target_datatype, MPI_Win win,
                        MPI_Request *request))
GCM_MPI_API(int, Raccumulate, (const void *origin_addr, int origin_count,
                               MPI_Datatype origin_datatype,
                               int target_rank, MPI_Aint target_disp,
                               int target_count,
                               MPI_Datatype target_datatype, MPI_Op op,
                               MPI_Win win, MPI_Request *request))
GCM_MPI_API(int, Rget_accumulate, (const void *origin_addr,
                                   int origin_count,
                                   MPI_Datatype origin_datatype,
                                   void *result_addr, int result_count,
                                   MPI_Datatype result_datatype,
                                   int target_rank, MPI_Aint target_disp,
                                   int target_count,
                                   MPI_Datatype target_datatype, MPI_Op op,
                                   MPI_Win win, MPI_Request *request))
/* The rest of the neighbour collectives (mpi_topo_nbr.c): blocking
 * MPI_Neighbor_alltoallw, the nonblocking forms, and the MPI-4
 * persistent forms (declared whatever MPI_VERSION says). */
GCM_MPI_API(int, Neighbor_alltoallw, (const void *sendbuf,
                                      const int sendcounts[],
                                      const MPI_Aint sdispls[],
                                      const MPI_Datatype sendtypes[],
                                      void *recvbuf, const int recvcounts[],
                                      const MPI_Aint rdispls[],
                                      const MPI_Datatype recvtypes[],
                                      MPI_Comm comm))
GCM_MPI_API(int, Ineighbor_allgather, (const void *sendbuf, int sendcount,
                                       MPI_Datatype sendtype, void *recvbuf,
                                       int recvcount, MPI_Datatype recvtype,
                                       MPI_Comm comm, MPI_Request *request))
GCM_MPI_API(int, Ineighbor_allgatherv, (const void *sendbuf, int sendcount,
                                        MPI_Datatype sendtype, void *recvbuf,
                                        const int recvcounts[],
                                        const int displs[],
                                        MPI_Datatype recvtype, MPI_Comm comm,
                                        MPI_Request *request))
GCM_MPI_API(int, Ineighbor_alltoall, (const void *sendbuf, int sendcount,
                                      MPI_Datatype sendtype, void *recvbuf,
                                      int recvcount, MPI_Datatype recvtype,
                                      MPI_Comm comm, MPI_Request *request))
GCM_MPI_API(int, Ineighbor_alltoallv, (const void *sendbuf,
                                       const int sendcounts[],
                                       const int sdispls[],
                                       MPI_Datatype sendtype, void *recvbuf,
                                       const int recvcounts[],
                                       const int rdispls[],
                                       MPI_Datatype recvtype, MPI_Comm comm,
                                       MPI_Request *request))
GCM_MPI_API(int, Ineighbor_alltoallw, (const void *sendbuf,
                                       const int sendcounts[],
                                       const MPI_Aint sdispls[],
                                       const MPI_Datatype sendtypes[],
                                       void *recvbuf, const int recvcounts[],
                                       const MPI_Aint rdispls[],
                                       const MPI_Datatype recvtypes[],
                                       MPI_Comm comm, MPI_Request *request))
GCM_MPI_API(int, Neighbor_allgather_init, (const void *sendbuf,
                                           int sendcount,
                                           MPI_Datatype sendtype,
                                           void *recvbuf, int recvcount,
                                           MPI_Datatype recvtype,
                                           MPI_Comm comm, MPI_Info info,
                                           MPI_Request *request))
GCM_MPI_API(int, Neighbor_allgatherv_init, (const void *sendbuf,
                                            int sendcount,
                                            MPI_Datatype sendtype,
                                            void *recvbuf,
                                            const int recvcounts[],
                                            const int displs[],
                                            MPI_Datatype recvtype,
                                            MPI_Comm comm, MPI_Info info,
                                            MPI_Request *request))
GCM_MPI_API(int, Neighbor_alltoall_init, (const void *sendbuf, int sendcount,
                                          MPI_Datatype sendtype,
                                          void *recvbuf, int recvcount,
                                          MPI_Datatype recvtype,
                                          MPI_Comm comm, MPI_Info info,
                                          MPI_Request *request))
GCM_MPI_API(int, Neighbor_alltoallv_init, (const void *sendbuf,
                                           const int sendcounts[],
                                           const int sdispls[],
                                           MPI_Datatype sendtype,
                                           void *recvbuf,
                                           const int recvcounts[],
                                           const int rdispls[],
                                           MPI_Datatype recvtype,
                                           MPI_Comm comm, MPI_Info info,
                                           MPI_Request *request))
GCM_MPI_API(int, Neighbor_alltoallw_init, (const void *sendbuf,
                                           const int sendcounts[],
                                           const MPI_Aint sdispls[],
                                           const MPI_Datatype sendtypes[],
                                           void *recvbuf,
                                           const int recvcounts[],
                                           const MPI_Aint rdispls[],
                                           const MPI_Datatype recvtypes[],
                                           MPI_Comm comm, MPI_Info info,
                                           MPI_Request *request))

/* the seed's LCO extensions (mpi_lco.c) */
GCM_MPIX_API(int, Comm_create_local, (MPI_Comm *lcomm))
GCM_MPIX_API(int, Comm_name, (MPI_Comm lcomm, MPIX_Cname *name))
GCM_MPIX_API(int, Add_send_slots, (MPI_Comm lcomm, int count,
                                    const MPIX_Cname lcos[],
                                    const int slots[]))
GCM_MPIX_API(int, Add_receive_slots, (MPI_Comm lcomm, int count))
GCM_MPIX_API(int, Num_send_slots, (MPI_Comm lcomm, int *count))
GCM_MPIX_API(int, Num_receive_slots, (MPI_Comm lcomm, int *count))
GCM_MPIX_API(int, Slot_name, (MPI_Comm lcomm, int recv_slot,
                               MPIX_Slotname *name))
GCM_MPIX_API(int, Add_send_slot, (MPI_Comm lcomm,
                                   const MPIX_Slotname *name))
GCM_MPIX_API(int, Comm_lco_rank, (MPI_Comm lcomm, int *rank))
/* One LCO per thread (mpi_threads.c): collective over the processes of
 * the intracommunicator comm, each asking for its own nthreads (0
 * allowed); lcomms[i] is this process's i-th LCO of one fully connected
 * structure over all of them, ranked by (rank in comm, i). */
GCM_MPIX_API(int, Comm_create_threads, (MPI_Comm comm, int nthreads,
                                        MPI_Comm lcomms[]))

/* The SMP hierarchy (Träff 2003; docs/launch.md): MPI_COMM_NODE[level],
 * 0 the world, 1 the host, then hardware levels, MPIX_MAX_DEPTH the
 * deepest (the process alone). The communicators belong to the library.
 * MPIX_Comm_level: the deepest level whose node holds ranks i and j of
 * comm. */
GCM_MPIX_API(int, Comm_node, (int level, MPI_Comm *nodecomm))
GCM_MPIX_API(int, Comm_level, (MPI_Comm comm, int i, int j, int *level))

/* External communicators (mpi_external.c; docs/external.md): defined in
 * the XML file GENCOMM_EXTERNAL names (the MPIXternal seed).
 * MPIX_Comm_external is collective over MPI_COMM_WORLD: members get the
 * communicator and *flag 1, the others MPI_COMM_NULL and 0 (0 everywhere
 * for a name the file does not define). MPIX_Keyval_external gives the
 * keyval of an attribute key of the file; the attribute's value is a
 * char * to its string. The _ forms take the variable's own name. */
GCM_MPIX_API(int, Comm_external, (MPI_Comm *comm, const char *name,
                                  int *flag))
GCM_MPIX_API(int, Keyval_external, (int *keyval, const char *name,
                                    int *flag))
GCM_MPIX_API(int, Info_external, (MPI_Comm comm, MPI_Info *info))
GCM_MPIX_API(int, Comm_attrs_to_info, (MPI_Comm comm, MPI_Info *info))
GCM_MPIX_API(int, Info_to_attrs, (MPI_Comm comm, MPI_Info info))
#define MPIX_Comm_external_(a, b) MPIX_Comm_external(&(a), #a, (b))
#define MPIX_Keyval_external_(a, b) MPIX_Keyval_external(&(a), #a, (b))

/* MPI-4 sessions (mpi_session.c; docs/external.md): process sets
 * mpi://WORLD, mpi://SELF, mpix://node/LEVEL (the SMP hierarchy) and
 * mpix://external/NAME (each <comm> of GENCOMM_EXTERNAL). */
typedef struct gcm_mpi_session *MPI_Session;
#define MPI_SESSION_NULL       ((MPI_Session)0)
#define MPI_MAX_PSET_NAME_LEN  256
#define MPI_MAX_STRINGTAG_LEN  256
typedef void MPI_Session_errhandler_function(MPI_Session *session,
                                             int *errcode, ...);
GCM_MPI_API(int, Session_init, (MPI_Info info, MPI_Errhandler errhandler,
                                MPI_Session *session))
GCM_MPI_API(int, Session_finalize, (MPI_Session *session))
GCM_MPI_API(int, Session_get_info, (MPI_Session session,
                                    MPI_Info *info_used))
GCM_MPI_API(int, Session_get_num_psets, (MPI_Session session, MPI_Info info,
                                         int *npset_names))
GCM_MPI_API(int, Session_get_nth_pset, (MPI_Session session, MPI_Info info,
                                        int n, int *pset_len,
                                        char *pset_name))
GCM_MPI_API(int, Session_get_pset_info, (MPI_Session session,
                                         const char *pset_name,
                                         MPI_Info *info))
GCM_MPI_API(int, Session_create_errhandler,
            (MPI_Session_errhandler_function *session_errhandler_fn,
             MPI_Errhandler *errhandler))
GCM_MPI_API(int, Group_from_session_pset, (MPI_Session session,
                                           const char *pset_name,
                                           MPI_Group *newgroup))
GCM_MPI_API(int, Comm_create_from_group, (MPI_Group group,
                                          const char *stringtag,
                                          MPI_Info info,
                                          MPI_Errhandler errhandler,
                                          MPI_Comm *newcomm))

/* A communicator's LCO graph as Graphviz DOT (docs/mpi.md): collective;
 * every member's LCO with its slots and where each send slot reaches,
 * written by rank 0 (of an intercommunicator: rank 0 of the group holding
 * the lower process of the job) to path, which only it needs. */
GCM_MPIX_API(int, Comm_graph_write, (MPI_Comm comm, const char *path))

/* External interfaces (MPI-3.1 chapter 12): generalized requests and
 * setting a status (mpi_grequest.c); error classes, codes and texts the
 * program adds (mpi_errors.c, printed by MPI_Error_string); MPI-4's
 * MPI_Info_get_string (mpi_info.c) and MPI_Comm_idup_with_info
 * (mpi_comm_dup.c). */
typedef int MPI_Grequest_query_function(void *extra_state,
                                        MPI_Status *status);
typedef int MPI_Grequest_free_function(void *extra_state);
typedef int MPI_Grequest_cancel_function(void *extra_state, int complete);
GCM_MPI_API(int, Grequest_start, (MPI_Grequest_query_function *query_fn,
                                  MPI_Grequest_free_function *free_fn,
                                  MPI_Grequest_cancel_function *cancel_fn,
                                  void *extra_state, MPI_Request *request))
GCM_MPI_API(int, Grequest_complete, (MPI_Request request))
GCM_MPI_API(int, Status_set_elements, (MPI_Status *status,
                                       MPI_Datatype datatype, int count))
GCM_MPI_API(int, Status_set_elements_x, (MPI_Status *status,
                                         MPI_Datatype datatype,
                                         MPI_Count count))
GCM_MPI_API(int, Status_set_cancelled, (MPI_Status *status, int flag))
GCM_MPI_API(int, Add_error_class, (int *errorclass))
GCM_MPI_API(int, Add_error_code, (int errorclass, int *errorcode))
GCM_MPI_API(int, Add_error_string, (int errorcode, const char *string))
GCM_MPI_API(int, Info_get_string, (MPI_Info info, const char *key,
                                   int *buflen, char *value, int *flag))
GCM_MPI_API(int, Comm_idup_with_info, (MPI_Comm comm, MPI_Info info,
                                       MPI_Comm *newcomm,
                                       MPI_Request *request))
/* Address arithmetic (mpi_type_query.c). */
GCM_MPI_API(MPI_Aint, Aint_add, (MPI_Aint base, MPI_Aint disp))
GCM_MPI_API(MPI_Aint, Aint_diff, (MPI_Aint addr1, MPI_Aint addr2))

/* Topologies that map (Träff 2003, section 3.1; docs/mpi.md).
 * MPIX_Graph_create: each process gives its own neighbours (ranks of
 * basecomm, repeats are weights), degree -1 to stay out; the graph is
 * made symmetric. MPIX_Cart_create: diagonal and multiplicity (loads
 * along each dimension, then each diagonal) are hints, local like
 * reorder (0: this process keeps its rank). mapinfo: gencomm_map
 * (scotch | identity), gencomm_map_time (seconds). */
GCM_MPIX_API(int, Graph_create, (MPI_Comm basecomm, int degree,
                                 const int neighbors[], int reorder,
                                 MPI_Info mapinfo, MPI_Comm *graphcomm))
GCM_MPIX_API(int, Cart_create, (MPI_Comm basecomm, int ndims,
                                const int dims[], const int periods[],
                                int diagonal, const int multiplicity[],
                                int reorder, MPI_Info mapinfo,
                                MPI_Comm *cartcomm))

/* Relations and redistribution (Träff 2003, appendices A and B;
 * docs/mpi.md). MPIX_Comm_relate: MPI_Comm_compare's results, or
 * MPIX_SUBCOMM(_STRICT) when comm1's processes are all in comm2 (strict:
 * in the same order), MPIX_SUPERCOMM(_STRICT) the other way round.
 * MPIX_Comm_map (collective over basecomm; MPI_COMM_NULL where not in
 * subcomm): base rank i's data goes to torank, the base rank of subcomm
 * rank i; a member of subcomm of rank i gets it from fromrank = i;
 * MPI_PROC_NULL where there is none. MPIX_Permute (collective): sends
 * outbuf to torank and receives inbuf from fromrank. */
GCM_MPIX_API(int, Comm_relate, (MPI_Comm comm1, MPI_Comm comm2, int *result))
GCM_MPIX_API(int, Comm_map, (MPI_Comm basecomm, MPI_Comm subcomm,
                             int *torank, int *fromrank))
GCM_MPIX_API(int, Permute, (void *inbuf, int incount, MPI_Datatype intype,
                            int fromrank, void *outbuf, int outcount,
                            MPI_Datatype outtype, int torank, MPI_Comm comm))

/* ---- dynamic processes: ports, connect and accept, names, spawn
 * (mpi_dpm_*.c, mpi_names.c, mpi_spawn.c; docs/mpi.md) */
#define MPI_MAX_PORT_NAME   256
#define MPI_ERR_PORT        52  /* a port name that does not parse, a
                                 * closed port, no answer in time */
#define MPI_ERR_SERVICE     53  /* publishing or unpublishing a name */
#define MPI_ERR_NAME        54  /* no port published under a name */
#define MPI_ERR_SPAWN       55  /* a spawned program could not start */
#define MPI_ARGV_NULL       ((char **)0)
#define MPI_ARGVS_NULL      ((char ***)0)
#define MPI_ERRCODES_IGNORE ((int *)0)
GCM_MPI_API(int, Open_port, (MPI_Info info, char *port_name))
GCM_MPI_API(int, Close_port, (const char *port_name))
GCM_MPI_API(int, Comm_accept, (const char *port_name, MPI_Info info,
                               int root, MPI_Comm comm, MPI_Comm *newcomm))
GCM_MPI_API(int, Comm_connect, (const char *port_name, MPI_Info info,
                                int root, MPI_Comm comm, MPI_Comm *newcomm))
GCM_MPI_API(int, Comm_disconnect, (MPI_Comm *comm))
GCM_MPI_API(int, Comm_join, (int fd, MPI_Comm *intercomm))
GCM_MPI_API(int, Publish_name, (const char *service_name, MPI_Info info,
                                const char *port_name))
GCM_MPI_API(int, Unpublish_name, (const char *service_name, MPI_Info info,
                                  const char *port_name))
GCM_MPI_API(int, Lookup_name, (const char *service_name, MPI_Info info,
                               char *port_name))
GCM_MPI_API(int, Comm_spawn, (const char *command, char *argv[],
                              int maxprocs, MPI_Info info, int root,
                              MPI_Comm comm, MPI_Comm *intercomm,
                              int array_of_errcodes[]))
GCM_MPI_API(int, Comm_spawn_multiple, (int count, char *array_of_commands[],
                                       char **array_of_argv[],
                                       const int array_of_maxprocs[],
                                       const MPI_Info array_of_info[],
                                       int root, MPI_Comm comm,
                                       MPI_Comm *intercomm,
                                       int array_of_errcodes[]))
GCM_MPI_API(int, Comm_get_parent, (MPI_Comm *parent))

#ifdef __cplusplus
}
#endif

#endif /* GENCOMM_MPI_H */

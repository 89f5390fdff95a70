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

#include "mpi_calls_core.h"
#include "mpi_calls_more.h"

#ifdef __cplusplus
}
#endif

#endif /* GENCOMM_MPI_H */

/*
 * compat/mpi_coll_check_impl.h: what the files of verification mode
 * (compat/mpi_coll_check*.c) share: the descriptor, the transfers and
 * the state of one check.
 */
#ifndef GCM_MPI_COLL_CHECK_IMPL_H
#define GCM_MPI_COLL_CHECK_IMPL_H

#include "compat/mpi_impl.h"


/* Nonblocking forms differ from the blocking ones (MPI-3.1 5.12: they
 * do not match each other), and persistent ones from both (MPI-4.0
 * 6.13). */
#define VFY_NB      0x100
#define VFY_PERSIST 0x200

/* Descriptor flags. */
#define VFY_F_UNTYPED 0x1   /* passes MPI_BYTE or MPI_PACKED */
#define VFY_F_COMMUTE 0x2   /* its (user) op is commutative */

/* No operation (not a reduction). */
#define VFY_OP_NONE (-2)

/* The two sums: with type signatures, and by bytes only. */
enum { VFY_TYPED = 0, VFY_BYTES = 1 };

/* A member's descriptor, as it travels (fixed size, no pointers). */
typedef struct vfy_desc {
    int32_t  call;      /* gcm_mpi_coll_kind_t, | VFY_NB */
    int32_t  root;
    int32_t  op;        /* gcm_mpi_op_id, or VFY_OP_NONE */
    int32_t  flags;
    uint64_t sent[2];   /* sums over the transfers it sends */
    uint64_t expected[2];
} vfy_desc_t;

/* One transfer as one end sees it. */
typedef struct vfy_xfer {
    int64_t  bytes;
    int64_t  nelem;     /* basic elements */
    uint64_t sig;       /* the type signature of the whole transfer */
    uint64_t tsig;      /* that of one element of its datatype */
    int32_t  count;     /* -1: no transfer */
    int32_t  untyped;
    char     tname[32];
} vfy_xfer_t;

/* A receiver's finding: the first sender whose transfer does not match. */
typedef struct vfy_finding {
    int32_t    errclass;  /* MPI_SUCCESS: all match */
    int32_t    sender;
    vfy_xfer_t sent;
    vfy_xfer_t expected;
} vfy_finding_t;

typedef enum {
    VFY_DESCS = 1,    /* allgather of the descriptors */
    VFY_XFERS,        /* every member tells every other what it sends */
    VFY_FINDINGS,     /* allgather of the receivers' findings */
    VFY_DONE
} vfy_stage_t;

struct gcm_mpi_coll_vfy {
    MPI_Comm            comm;
    const char         *call;
    int                 tag;
    int                 rank;
    int                 size;
    gcm_mpi_coll_desc_t d;
    int                 untyped;   /* the call is checked by bytes */
    vfy_stage_t         stage;
    /* The allgather running: block k of buf is that of rank + k. */
    char               *buf;
    size_t              blk;
    int                 dist;
    gcm_request_h       req[2];
    vfy_desc_t          mine;
    /* VFY_XFERS */
    vfy_xfer_t         *out;
    vfy_xfer_t         *in;
    gcm_request_h      *xreqs;
    int                 nx;
    vfy_finding_t       finding;
    /* A nonblocking call's check reads its datatypes after the call
     * returned, when the program may have freed them: it holds them. */
    MPI_Datatype       *held;
    int                 nheld;
    /* the verdict */
    int                 errclass;
    char                text[MPI_MAX_ERROR_STRING / 2];
};

/* ---- what a call transfers (mpi_coll_check_desc.c) ---------------------- */

/* The count and datatype of this member's transfer to (send) or from
 * peer; 0 when there is none. */
int gcm_mpi_coll_vfy_xfer_args(const struct gcm_mpi_coll_vfy *v, int send,
                               int peer, int *count_p, MPI_Datatype *type_p)
    GCM_INTERNAL;
/* A transfer's record; names only when asked (only failures print). */
void gcm_mpi_coll_vfy_record(const struct gcm_mpi_coll_vfy *v, int send,
                             int peer, int named, vfy_xfer_t *x) GCM_INTERNAL;
int gcm_mpi_coll_vfy_is_neighbor(int kind) GCM_INTERNAL;
/* This member's descriptor: the sums over its transfers. */
void gcm_mpi_coll_vfy_describe(struct gcm_mpi_coll_vfy *v, vfy_desc_t *desc)
    GCM_INTERNAL;

#endif /* GCM_MPI_COLL_CHECK_IMPL_H */

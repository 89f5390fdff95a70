/*
 * compat/mpi_coll_check.c: verification mode of the collectives
 * (GENCOMM_CHECK_COLLECTIVES=1), after J. L. Traeff and J. Worringen,
 * "Verifying collective MPI calls" (EuroPVM/MPI 2004).
 *
 * MPI leaves a mismatched collective undefined: with one member in
 * MPI_Bcast and another in MPI_Reduce, or with roots or counts that
 * differ, the job hangs, truncates or overwrites memory. In verification
 * mode the members of an intracommunicator first exchange one fixed-size
 * descriptor each (an allgather with doubling distances, on raw transfers
 * and an internal tag of the call): the collective, the root, the
 * operation, and two sums that stand for all transfers of the call. A
 * member adds a hash of (sender, receiver, type signature, bytes) for
 * every transfer it will send, and one for every transfer it expects.
 * A transfer both ends see alike adds the same to both totals, so the
 * call matches (but for a chance of 2^-64) when the totals over all
 * members are equal: O(p) work per member, however the counts vary per
 * peer (v and w forms).
 *
 * Every member gets the same descriptors and so reaches the same verdict:
 * either all run the collective or all fail with the same class and
 * text. Naming the transfer at fault needs more, and only then is it
 * done: each member sends every other one what it will send it, each
 * receiver compares that with what it expects, and a second allgather
 * spreads the receivers' findings; the lowest receiver with a mismatch is
 * reported everywhere.
 *
 * MPI_BYTE and MPI_PACKED: a call in which any member passes one of them
 * is checked by byte counts only (MPI_PACKED matches any type by the
 * standard; MPI_BYTE is commonly used as raw storage on one side).
 *
 * The exchange is a state machine: blocking calls run it to its end;
 * nonblocking calls leave it to their request (mpi_request.c), which runs
 * the collective's schedule only after the check passed, so starting
 * MPI_Ibcast stays a local call.
 *
 * Tags: the check takes one tag from gcm_mpi_coll_tag (all members at the
 * same call) and every message of its phases uses it; messages between
 * two members on one tag arrive in order, and each phase posts its
 * receives only after the previous one ended.
 */
#include "config.h"

#include "compat/mpi_impl.h"

#include <ctype.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

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

static const char *const vfy_names[GCM_MPI_COLL_LAST] = {
    [GCM_MPI_COLL_BARRIER]              = "MPI_Barrier",
    [GCM_MPI_COLL_BCAST]                = "MPI_Bcast",
    [GCM_MPI_COLL_GATHER]               = "MPI_Gather",
    [GCM_MPI_COLL_GATHERV]              = "MPI_Gatherv",
    [GCM_MPI_COLL_SCATTER]              = "MPI_Scatter",
    [GCM_MPI_COLL_SCATTERV]             = "MPI_Scatterv",
    [GCM_MPI_COLL_ALLGATHER]            = "MPI_Allgather",
    [GCM_MPI_COLL_ALLGATHERV]           = "MPI_Allgatherv",
    [GCM_MPI_COLL_ALLTOALL]             = "MPI_Alltoall",
    [GCM_MPI_COLL_ALLTOALLV]            = "MPI_Alltoallv",
    [GCM_MPI_COLL_ALLTOALLW]            = "MPI_Alltoallw",
    [GCM_MPI_COLL_REDUCE]               = "MPI_Reduce",
    [GCM_MPI_COLL_ALLREDUCE]            = "MPI_Allreduce",
    [GCM_MPI_COLL_REDUCE_SCATTER]       = "MPI_Reduce_scatter",
    [GCM_MPI_COLL_REDUCE_SCATTER_BLOCK] = "MPI_Reduce_scatter_block",
    [GCM_MPI_COLL_SCAN]                 = "MPI_Scan",
    [GCM_MPI_COLL_EXSCAN]               = "MPI_Exscan",
    [GCM_MPI_COLL_NEIGHBOR_ALLGATHER]   = "MPI_Neighbor_allgather",
    [GCM_MPI_COLL_NEIGHBOR_ALLGATHERV]  = "MPI_Neighbor_allgatherv",
    [GCM_MPI_COLL_NEIGHBOR_ALLTOALL]    = "MPI_Neighbor_alltoall",
    [GCM_MPI_COLL_NEIGHBOR_ALLTOALLV]   = "MPI_Neighbor_alltoallv",
    [GCM_MPI_COLL_NEIGHBOR_ALLTOALLW]   = "MPI_Neighbor_alltoallw",
    [GCM_MPI_COLL_PERMUTE]              = "MPIX_Permute"
};

/* ---- what a call transfers ---------------------------------------------- */

static int vfy_is_rooted(int kind)
{
    return kind == GCM_MPI_COLL_BCAST || kind == GCM_MPI_COLL_GATHER ||
           kind == GCM_MPI_COLL_GATHERV || kind == GCM_MPI_COLL_SCATTER ||
           kind == GCM_MPI_COLL_SCATTERV || kind == GCM_MPI_COLL_REDUCE;
}

static int vfy_has_op(int kind)
{
    return kind == GCM_MPI_COLL_REDUCE || kind == GCM_MPI_COLL_ALLREDUCE ||
           kind == GCM_MPI_COLL_REDUCE_SCATTER ||
           kind == GCM_MPI_COLL_REDUCE_SCATTER_BLOCK ||
           kind == GCM_MPI_COLL_SCAN || kind == GCM_MPI_COLL_EXSCAN;
}

/* The send side's (count, type) for peer (per peer in v and w forms). */
static int vfy_sside(const gcm_mpi_coll_desc_t *d, int peer, int *count_p,
                     MPI_Datatype *type_p)
{
    *count_p = (d->scounts != NULL) ? d->scounts[peer] : d->scount;
    *type_p = (d->stypes != NULL) ? d->stypes[peer] : d->stype;
    return 1;
}

static int vfy_rside(const gcm_mpi_coll_desc_t *d, int peer, int *count_p,
                     MPI_Datatype *type_p)
{
    *count_p = (d->rcounts != NULL) ? d->rcounts[peer] : d->rcount;
    *type_p = (d->rtypes != NULL) ? d->rtypes[peer] : d->rtype;
    return 1;
}

/*
 * What this member sends to peer (send != 0) or expects from it, by its
 * own arguments: 1 with (*count_p, *type_p), or 0 when there is no such
 * transfer. Only the arguments MPI makes significant at this member are
 * read (a gather's recvcounts only at the root, and so on). A member's
 * own block (peer == rank) counts as a transfer to itself.
 */
static int vfy_xfer_args(const struct gcm_mpi_coll_vfy *v, int send,
                         int peer, int *count_p, MPI_Datatype *type_p)
{
    const gcm_mpi_coll_desc_t *d = &v->d;
    int me = v->rank, self = (peer == me);
    int sin_place = (d->sbuf == MPI_IN_PLACE);
    int rin_place = (d->rbuf == MPI_IN_PLACE);

    switch (d->kind) {
    case GCM_MPI_COLL_BCAST:
        if (self || (send ? me : peer) != d->root) {
            return 0;
        }
        return vfy_sside(d, peer, count_p, type_p);
    case GCM_MPI_COLL_REDUCE:
        if (self || (send ? peer : me) != d->root) {
            return 0;
        }
        return vfy_sside(d, peer, count_p, type_p);
    case GCM_MPI_COLL_ALLREDUCE:
    case GCM_MPI_COLL_REDUCE_SCATTER_BLOCK:
    case GCM_MPI_COLL_SCAN:
    case GCM_MPI_COLL_EXSCAN:
        if (self) {
            return 0;
        }
        return vfy_sside(d, peer, count_p, type_p);
    case GCM_MPI_COLL_REDUCE_SCATTER:
        /* Everyone sends peer its block as it counts it; peer expects
         * its own count from everyone. */
        if (self) {
            return 0;
        }
        *count_p = d->scounts[send ? peer : me];
        *type_p = d->stype;
        return 1;
    case GCM_MPI_COLL_GATHER:
    case GCM_MPI_COLL_GATHERV:
        if ((send ? peer : me) != d->root || (self && sin_place)) {
            return 0;
        }
        return send ? vfy_sside(d, peer, count_p, type_p) :
                      vfy_rside(d, peer, count_p, type_p);
    case GCM_MPI_COLL_SCATTER:
    case GCM_MPI_COLL_SCATTERV:
        if ((send ? me : peer) != d->root || (self && rin_place)) {
            return 0;
        }
        return send ? vfy_sside(d, peer, count_p, type_p) :
                      vfy_rside(d, peer, count_p, type_p);
    case GCM_MPI_COLL_ALLGATHER:
    case GCM_MPI_COLL_ALLGATHERV:
        if (sin_place) {
            /* Its block is already in place and goes out from there. */
            return self ? 0 : vfy_rside(d, send ? me : peer, count_p,
                                        type_p);
        }
        return send ? vfy_sside(d, peer, count_p, type_p) :
                      vfy_rside(d, peer, count_p, type_p);
    case GCM_MPI_COLL_ALLTOALL:
    case GCM_MPI_COLL_ALLTOALLV:
    case GCM_MPI_COLL_ALLTOALLW:
        if (sin_place) {
            return self ? 0 : vfy_rside(d, peer, count_p, type_p);
        }
        return send ? vfy_sside(d, peer, count_p, type_p) :
                      vfy_rside(d, peer, count_p, type_p);
    case GCM_MPI_COLL_PERMUTE:
        /* One transfer each way at most, to torank, from fromrank. */
        if (peer != (send ? d->torank : d->fromrank)) {
            return 0;
        }
        return send ? vfy_sside(d, peer, count_p, type_p) :
                      vfy_rside(d, peer, count_p, type_p);
    default:
        return 0;   /* barrier */
    }
}

static int vfy_type_untyped(MPI_Datatype type)
{
    return type == MPI_PACKED ||
           gcm_mpi_type_basic(type, NULL) == GCM_MPI_BASIC_BYTE;
}

static void vfy_fill(int count, MPI_Datatype type, int named,
                     vfy_xfer_t *x);

/* A transfer's record; names only when asked (only failures print). */
static void vfy_record(const struct gcm_mpi_coll_vfy *v, int send, int peer,
                       int named, vfy_xfer_t *x)
{
    MPI_Datatype type;
    int count;

    memset(x, 0, sizeof(*x));
    if (vfy_xfer_args(v, send, peer, &count, &type) == 0) {
        x->count = -1;
        return;
    }
    vfy_fill(count, type, named, x);
}

/* The record of a transfer of count elements of type. */
static void vfy_fill(int count, MPI_Datatype type, int named,
                     vfy_xfer_t *x)
{
    MPI_Count nelem = 0;
    int len = 0;

    x->count = count;
    x->bytes = (int64_t)count * (int64_t)gcm_mpi_type_size(type);
    x->sig = gcm_mpi_type_sig(type, count, &nelem);
    x->nelem = (int64_t)nelem;
    x->untyped = vfy_type_untyped(type);
    if (named != 0) {
        char name[MPI_MAX_OBJECT_NAME];

        x->tsig = gcm_mpi_type_sig(type, 1, NULL);
        name[0] = '\0';
        (void)PMPI_Type_get_name(type, name, &len);
        snprintf(x->tname, sizeof(x->tname), "%s",
                 (name[0] != '\0') ? name : "derived datatype");
    }
}

/* ---- the sums ------------------------------------------------------------ */

static uint64_t vfy_mix(uint64_t h, uint64_t x)
{
    uint64_t z = h + x * UINT64_C(0x9e3779b97f4a7c15);

    z = (z ^ (z >> 30)) * UINT64_C(0xbf58476d1ce4e5b9);
    z = (z ^ (z >> 27)) * UINT64_C(0x94d049bb133111eb);
    return z ^ (z >> 31);
}

/* The terms one transfer adds to the sums, alike at both its ends; key
 * tells apart transfers between the same two members (0: one only). */
static void vfy_terms_key(int sender, int receiver, uint64_t key,
                          const vfy_xfer_t *x, uint64_t sums[2])
{
    uint64_t pair = vfy_mix(vfy_mix(vfy_mix(1, (uint64_t)sender),
                                    (uint64_t)receiver), key);

    sums[VFY_TYPED] += vfy_mix(vfy_mix(vfy_mix(pair, x->sig),
                                       (uint64_t)x->nelem),
                               (uint64_t)x->bytes);
    sums[VFY_BYTES] += vfy_mix(pair ^ UINT64_C(0x5bd1e995),
                               (uint64_t)x->bytes);
}

static void vfy_terms(int sender, int receiver, const vfy_xfer_t *x,
                      uint64_t sums[2])
{
    vfy_terms_key(sender, receiver, 0, x, sums);
}

static int vfy_is_neighbor(int kind)
{
    return kind >= GCM_MPI_COLL_NEIGHBOR_ALLGATHER &&
           kind <= GCM_MPI_COLL_NEIGHBOR_ALLTOALLW;
}

/*
 * The sums of a neighbour collective: one term per edge, at the sender
 * for its out-edge and at the receiver for its in-edge. The key of an
 * edge is what pairs its two blocks (compat/mpi_topo_nbr.c): between the
 * same two members, the direction (Cartesian: towards -1 or +1) and the
 * place among the edges of that direction (the k-th sent meets the k-th
 * received). O(degree^2) per member: this is a debugging mode.
 */
static void vfy_nbr_sums(struct gcm_mpi_coll_vfy *v, vfy_desc_t *desc)
{
    const gcm_mpi_coll_desc_t *d = &v->d;
    vfy_xfer_t x;
    int side, k, j;

    for (side = 0; side < 2; side++) {
        int deg = (side == 0) ? d->outdeg : d->indeg;
        const int *peers = (side == 0) ? d->nout : d->nin;
        const int *counts = (side == 0) ? d->scounts : d->rcounts;
        const MPI_Datatype *types = (side == 0) ? d->stypes : d->rtypes;

        for (k = 0; k < deg; k++) {
            /* Sent towards -1: out-edge 2d; received from that
             * direction: in-edge 2d + 1. */
            int down = d->ncart && ((k % 2) == ((side == 0) ? 0 : 1));
            int count = (counts != NULL) ? counts[k] :
                        (side == 0) ? d->scount : d->rcount;
            MPI_Datatype type = (types != NULL) ? types[k] :
                                (side == 0) ? d->stype : d->rtype;
            uint64_t place = 0;

            if (peers[k] == MPI_PROC_NULL) {
                continue;
            }
            for (j = 0; j < k; j++) {
                int jdown = d->ncart &&
                            ((j % 2) == ((side == 0) ? 0 : 1));

                place += (peers[j] == peers[k] && jdown == down);
            }
            memset(&x, 0, sizeof(x));
            vfy_fill(count, type, 0, &x);
            if (x.untyped != 0) {
                desc->flags |= VFY_F_UNTYPED;
            }
            if (side == 0) {
                vfy_terms_key(v->rank, peers[k], 1 + 2 * place + down, &x,
                              desc->sent);
            } else {
                vfy_terms_key(peers[k], v->rank, 1 + 2 * place + down, &x,
                              desc->expected);
            }
        }
    }
}

/* This member's descriptor: the sums over its transfers. Consecutive
 * peers mostly have the same (count, type): its record is reused. */
static void vfy_describe(struct gcm_mpi_coll_vfy *v, vfy_desc_t *desc)
{
    const gcm_mpi_coll_desc_t *d = &v->d;
    int side, peer;

    memset(desc, 0, sizeof(*desc));
    desc->call = (int32_t)d->kind | (d->nonblocking ? VFY_NB : 0) |
                 (d->persistent ? VFY_PERSIST : 0);
    desc->root = vfy_is_rooted(d->kind) ? d->root : -1;
    desc->op = VFY_OP_NONE;
    if (vfy_has_op(d->kind)) {
        desc->op = gcm_mpi_op_id(d->op);
        if (desc->op < 0 && gcm_mpi_op_is_commutative(d->op)) {
            desc->flags |= VFY_F_COMMUTE;
        }
    }
    if (vfy_is_neighbor(d->kind)) {
        vfy_nbr_sums(v, desc);
        return;
    }
    for (side = 0; side < 2; side++) {
        int have = 0, last_count = 0;
        MPI_Datatype last_type = MPI_DATATYPE_NULL;
        vfy_xfer_t x = { 0 };

        for (peer = 0; peer < v->size; peer++) {
            MPI_Datatype type;
            int count;

            if (vfy_xfer_args(v, side == 0, peer, &count, &type) == 0) {
                continue;
            }
            if (have == 0 || count != last_count || type != last_type) {
                vfy_record(v, side == 0, peer, 0, &x);
                last_count = count;
                last_type = type;
                have = 1;
                if (x.untyped != 0) {
                    desc->flags |= VFY_F_UNTYPED;
                }
            }
            if (side == 0) {
                vfy_terms(v->rank, peer, &x, desc->sent);
            } else {
                vfy_terms(peer, v->rank, &x, desc->expected);
            }
        }
    }
}

/* ---- the allgather ------------------------------------------------------- */

/* Posts the round at distance dist: the first min(dist, size - dist)
 * blocks go to rank - dist, as many come from rank + dist. */
static int vfy_ag_post(struct gcm_mpi_coll_vfy *v)
{
    int n = v->size, cnt = (v->dist < n - v->dist) ? v->dist : n - v->dist;
    size_t len = (size_t)cnt * v->blk;
    gcm_status_t st;

    st = gcm_mpi_irecv_bytes(v->comm, v->buf + (size_t)v->dist * v->blk,
                             len, (v->rank + v->dist) % n, v->tag,
                             &v->req[0]);
    if (st != GCM_OK) {
        v->req[0] = GCM_REQUEST_NULL;
        return gcm_mpi_errclass(st);
    }
    st = gcm_mpi_isend_bytes(v->comm, v->buf, len,
                             (v->rank - v->dist + n) % n, v->tag,
                             &v->req[1]);
    if (st != GCM_OK) {
        v->req[1] = GCM_REQUEST_NULL;
        gcm_lco_cancel(v->req[0]);
        (void)gcm_wait(&v->req[0], NULL);
        v->req[0] = GCM_REQUEST_NULL;
        return gcm_mpi_errclass(st);
    }
    return MPI_SUCCESS;
}

/* Starts an allgather of one blk-byte block per member. */
static int vfy_ag_start(struct gcm_mpi_coll_vfy *v, const void *mine,
                        size_t blk)
{
    free(v->buf);
    v->buf = malloc((size_t)v->size * blk);
    if (v->buf == NULL) {
        return MPI_ERR_NO_MEM;
    }
    v->blk = blk;
    memcpy(v->buf, mine, blk);
    v->dist = 1;
    return (v->size > 1) ? vfy_ag_post(v) : MPI_SUCCESS;
}

/* Advances the allgather: 0 while it runs, 1 when done (block of rank i
 * at (i - rank) mod size), or a negative MPI error class. */
static int vfy_ag_poll(struct gcm_mpi_coll_vfy *v)
{
    gcm_status_t st[2];
    int k, rc;

    while (v->dist < v->size) {
        if (gcm_lco_req_done(v->req[0]) == 0 ||
            gcm_lco_req_done(v->req[1]) == 0) {
            return 0;
        }
        for (k = 0; k < 2; k++) {
            st[k] = gcm_wait(&v->req[k], NULL);
            v->req[k] = GCM_REQUEST_NULL;
        }
        for (k = 0; k < 2; k++) {
            if (st[k] != GCM_OK) {
                return -gcm_mpi_errclass(st[k]);
            }
        }
        v->dist <<= 1;
        if (v->dist < v->size && (rc = vfy_ag_post(v)) != MPI_SUCCESS) {
            return -rc;
        }
    }
    return 1;
}

static void *vfy_ag_block(const struct gcm_mpi_coll_vfy *v, int rank)
{
    return v->buf + (size_t)((rank - v->rank + v->size) % v->size) * v->blk;
}

/* ---- verdicts ------------------------------------------------------------ */

static void vfy_fail(struct gcm_mpi_coll_vfy *v, int errclass,
                     const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

static void vfy_fail(struct gcm_mpi_coll_vfy *v, int errclass,
                     const char *fmt, ...)
{
    int n = snprintf(v->text, sizeof(v->text), "collective verification: ");
    va_list ap;

    va_start(ap, fmt);
    vsnprintf(v->text + n, sizeof(v->text) - (size_t)n, fmt, ap);
    va_end(ap);
    v->errclass = errclass;
    v->stage = VFY_DONE;
}

/* The MPI name of a descriptor's call (MPI_Ibcast for the nonblocking
 * form of MPI_Bcast, MPI_Bcast_init for the persistent one). */
static const char *vfy_call_name(int32_t call, char *buf, size_t len)
{
    int kind = call & ~(VFY_NB | VFY_PERSIST);
    const char *name;

    if (kind <= 0 || kind >= GCM_MPI_COLL_LAST) {
        return "an unknown collective";
    }
    name = vfy_names[kind];
    if ((call & VFY_PERSIST) != 0) {
        snprintf(buf, len, "%s_init", name);
        return buf;
    }
    if ((call & VFY_NB) == 0) {
        return name;
    }
    snprintf(buf, len, "MPI_I%c%s", tolower((unsigned char)name[4]),
             name + 5);
    return buf;
}

static const char *vfy_op_name(const vfy_desc_t *d)
{
    const char *name = gcm_mpi_op_id_name(d->op);

    if (name != NULL) {
        return name;
    }
    return ((d->flags & VFY_F_COMMUTE) != 0) ?
           "a commutative user operation" :
           "a non-commutative user operation";
}

static int vfy_same_op(const vfy_desc_t *a, const vfy_desc_t *b)
{
    return a->op == b->op &&
           (a->flags & VFY_F_COMMUTE) == (b->flags & VFY_F_COMMUTE);
}

static void vfy_start_xfers(struct gcm_mpi_coll_vfy *v);

/* Every member has every descriptor: the same verdict everywhere. */
static void vfy_judge_descs(struct gcm_mpi_coll_vfy *v)
{
    const vfy_desc_t *d0 = vfy_ag_block(v, 0), *di;
    uint64_t sent = 0, expected = 0;
    char b0[48], bi[48];
    int i, k;

    for (i = 1; i < v->size; i++) {
        di = vfy_ag_block(v, i);
        if (di->call != d0->call) {
            vfy_fail(v, MPI_ERR_OTHER, "rank %d called %s, rank 0 called %s",
                     i, vfy_call_name(di->call, bi, sizeof(bi)),
                     vfy_call_name(d0->call, b0, sizeof(b0)));
            return;
        }
    }
    for (i = 1; i < v->size; i++) {
        di = vfy_ag_block(v, i);
        if (di->root != d0->root) {
            vfy_fail(v, MPI_ERR_ROOT, "rank %d passed root %d, rank 0 "
                     "passed root %d", i, di->root, d0->root);
            return;
        }
    }
    for (i = 1; i < v->size; i++) {
        di = vfy_ag_block(v, i);
        if (!vfy_same_op(di, d0)) {
            vfy_fail(v, MPI_ERR_OP, "rank %d passed %s, rank 0 passed %s", i,
                     vfy_op_name(di), vfy_op_name(d0));
            return;
        }
    }
    v->untyped = 0;
    for (i = 0; i < v->size; i++) {
        di = vfy_ag_block(v, i);
        v->untyped |= ((di->flags & VFY_F_UNTYPED) != 0);
    }
    k = v->untyped ? VFY_BYTES : VFY_TYPED;
    for (i = 0; i < v->size; i++) {
        di = vfy_ag_block(v, i);
        sent += di->sent[k];
        expected += di->expected[k];
    }
    if (sent == expected) {
        v->errclass = MPI_SUCCESS;
        v->stage = VFY_DONE;
        return;
    }
    if (vfy_is_neighbor(d0->call & ~(VFY_NB | VFY_PERSIST))) {
        /* The exchange that names the transfer at fault goes by peers;
         * what the sums say is told instead. */
        for (i = 0, sent = expected = 0; i < v->size; i++) {
            di = vfy_ag_block(v, i);
            sent += di->sent[VFY_BYTES];
            expected += di->expected[VFY_BYTES];
        }
        vfy_fail(v, (sent != expected) ? MPI_ERR_COUNT : MPI_ERR_TYPE,
                 "%s: %s of some edge differ at its two ends (or the "
                 "members' topologies differ)",
                 vfy_call_name(d0->call, b0, sizeof(b0)),
                 (sent != expected) ? "the amounts of data" :
                                      "the type signatures");
        return;
    }
    vfy_start_xfers(v);
}

/* Does the transfer sent match what is expected? MPI_SUCCESS, or the
 * class of the mismatch (docs/mpi.md): MPI_ERR_TRUNCATE if it is more
 * than expected, MPI_ERR_COUNT if it is less or nothing (by bytes, or of
 * the same datatype), else MPI_ERR_TYPE. */
static int vfy_compare(const vfy_xfer_t *sent, const vfy_xfer_t *expected,
                       int untyped)
{
    int64_t sbytes = (sent->count < 0) ? -1 : sent->bytes;
    int64_t ebytes = (expected->count < 0) ? -1 : expected->bytes;

    if (sent->count < 0 && expected->count < 0) {
        return MPI_SUCCESS;
    }
    if (sent->count >= 0 && expected->count >= 0 && sbytes == ebytes &&
        (untyped != 0 ||
         (sent->sig == expected->sig && sent->nelem == expected->nelem))) {
        return MPI_SUCCESS;
    }
    if (sbytes > ebytes) {
        return MPI_ERR_TRUNCATE;
    }
    if (untyped != 0 || sent->count < 0 || expected->count < 0 ||
        sent->tsig == expected->tsig) {
        return MPI_ERR_COUNT;
    }
    return MPI_ERR_TYPE;
}

static void vfy_xfer_text(const vfy_xfer_t *x, char *buf, size_t len)
{
    if (x->count < 0) {
        snprintf(buf, len, "nothing");
    } else {
        snprintf(buf, len, "%d x %s (%lld bytes)", (int)x->count, x->tname,
                 (long long)x->bytes);
    }
}

/* Data mismatch: each member sends every other one the record of what it
 * will send it. */
static void vfy_start_xfers(struct gcm_mpi_coll_vfy *v)
{
    int n = v->size, peer, rc = MPI_SUCCESS;
    gcm_status_t st;

    v->stage = VFY_XFERS;
    v->out = calloc((size_t)n, sizeof(*v->out));
    v->in = calloc((size_t)n, sizeof(*v->in));
    v->xreqs = calloc(2 * (size_t)n, sizeof(*v->xreqs));
    if (v->out == NULL || v->in == NULL || v->xreqs == NULL) {
        vfy_fail(v, MPI_ERR_NO_MEM, "the data of the members differ, and "
                 "there is no memory to tell how");
        return;
    }
    for (peer = 0; peer < n; peer++) {
        vfy_record(v, 1, peer, 1, &v->out[peer]);
    }
    for (peer = 0; peer < n && rc == MPI_SUCCESS; peer++) {
        if (peer == v->rank) {
            continue;
        }
        st = gcm_mpi_irecv_bytes(v->comm, &v->in[peer], sizeof(v->in[peer]),
                                 peer, v->tag, &v->xreqs[v->nx]);
        if (st == GCM_OK) {
            v->nx++;
            st = gcm_mpi_isend_bytes(v->comm, &v->out[peer],
                                     sizeof(v->out[peer]), peer, v->tag,
                                     &v->xreqs[v->nx]);
        }
        if (st == GCM_OK) {
            v->nx++;
        } else {
            rc = gcm_mpi_errclass(st);
        }
    }
    if (rc != MPI_SUCCESS) {
        vfy_fail(v, rc, "a transfer of the verification failed");
    }
}

/* Every record has come: this member's finding, then their allgather. */
static void vfy_find(struct gcm_mpi_coll_vfy *v)
{
    vfy_finding_t *f = &v->finding;
    vfy_xfer_t expected;
    int peer, rc;

    memset(f, 0, sizeof(*f));
    for (peer = 0; peer < v->size; peer++) {
        const vfy_xfer_t *sent = (peer == v->rank) ? &v->out[peer] :
                                                     &v->in[peer];

        vfy_record(v, 0, peer, 1, &expected);
        rc = vfy_compare(sent, &expected, v->untyped);
        if (rc != MPI_SUCCESS) {
            f->errclass = rc;
            f->sender = peer;
            f->sent = *sent;
            f->expected = expected;
            break;
        }
    }
    v->stage = VFY_FINDINGS;
    rc = vfy_ag_start(v, f, sizeof(*f));
    if (rc != MPI_SUCCESS) {
        vfy_fail(v, rc, "a transfer of the verification failed");
    }
}

static void vfy_judge_findings(struct gcm_mpi_coll_vfy *v)
{
    char sbuf[80], ebuf[80];
    int i;

    for (i = 0; i < v->size; i++) {
        const vfy_finding_t *f = vfy_ag_block(v, i);

        if (f->errclass != MPI_SUCCESS) {
            vfy_xfer_text(&f->sent, sbuf, sizeof(sbuf));
            vfy_xfer_text(&f->expected, ebuf, sizeof(ebuf));
            vfy_fail(v, f->errclass, "rank %d sends %s to rank %d, which "
                     "expects %s%s", (int)f->sender, sbuf, i, ebuf,
                     (f->errclass == MPI_ERR_TYPE) ?
                     ": the type signatures differ" : "");
            return;
        }
    }
    /* The sums differed but no transfer does: only a member whose
     * arguments changed during the call can do that. */
    vfy_fail(v, MPI_ERR_OTHER, "the members' descriptions of the data "
             "differ");
}

/* Advances the check without blocking; 1 once it has a verdict. */
static int vfy_poll(struct gcm_mpi_coll_vfy *v)
{
    int rc, i;

    for (;;) {
        switch (v->stage) {
        case VFY_DESCS:
        case VFY_FINDINGS:
            rc = vfy_ag_poll(v);
            if (rc == 0) {
                return 0;
            }
            if (rc < 0) {
                vfy_fail(v, -rc, "a transfer of the verification failed");
            } else if (v->stage == VFY_DESCS) {
                vfy_judge_descs(v);
            } else {
                vfy_judge_findings(v);
            }
            break;
        case VFY_XFERS:
            for (i = 0; i < v->nx; i++) {
                if (gcm_lco_req_done(v->xreqs[i]) == 0) {
                    return 0;
                }
            }
            rc = MPI_SUCCESS;
            for (i = 0; i < v->nx; i++) {
                gcm_status_t st = gcm_wait(&v->xreqs[i], NULL);

                v->xreqs[i] = GCM_REQUEST_NULL;
                if (st != GCM_OK && rc == MPI_SUCCESS) {
                    rc = gcm_mpi_errclass(st);
                }
            }
            v->nx = 0;
            if (rc != MPI_SUCCESS) {
                vfy_fail(v, rc, "a transfer of the verification failed");
            } else {
                vfy_find(v);
            }
            break;
        case VFY_DONE:
        default:
            return 1;
        }
    }
}

static int vfy_done_cb(void *arg)
{
    return vfy_poll(arg);
}

/* Takes a reference on every datatype the later stages of v's check may
 * read (vfy_record of every peer, both sides), once each in a row. */
static int vfy_hold(struct gcm_mpi_coll_vfy *v)
{
    MPI_Datatype type, last = MPI_DATATYPE_NULL;
    int side, peer, count;

    v->held = malloc(2 * ((size_t)v->size + 1) * sizeof(*v->held));
    if (v->held == NULL) {
        return MPI_ERR_NO_MEM;
    }
    for (side = 0; side < 2; side++) {
        for (peer = 0; peer < v->size; peer++) {
            if ((vfy_xfer_args(v, side, peer, &count, &type) == 0) ||
                (type == last)) {
                continue;
            }
            gcm_mpi_type_retain(type);
            v->held[v->nheld++] = type;
            last = type;
        }
    }
    return MPI_SUCCESS;
}

static void vfy_free(struct gcm_mpi_coll_vfy *v)
{
    int i;

    /* Only a request freed before its end leaves transfers running; their
     * buffers must outlive them. */
    for (i = 0; i < 2; i++) {
        if (v->req[i] != GCM_REQUEST_NULL) {
            (void)gcm_wait(&v->req[i], NULL);
        }
    }
    for (i = 0; i < v->nx; i++) {
        (void)gcm_wait(&v->xreqs[i], NULL);
    }
    for (i = 0; i < v->nheld; i++) {
        gcm_mpi_type_release(v->held[i]);
    }
    free(v->held);
    free(v->xreqs);
    free(v->in);
    free(v->out);
    free(v->buf);
    free(v);
}

/* ---- entry points -------------------------------------------------------- */

static struct gcm_mpi_coll_vfy *vfy_start(MPI_Comm comm, const char *call,
                                          const gcm_mpi_coll_desc_t *desc,
                                          int *rc_p)
{
    struct gcm_mpi_coll_vfy *v = calloc(1, sizeof(*v));

    if (v == NULL) {
        *rc_p = MPI_ERR_NO_MEM;
        return NULL;
    }
    v->comm = comm;
    v->call = call;
    v->tag = gcm_mpi_coll_tag(comm);
    v->rank = comm->prank;
    v->size = comm->psize;
    v->d = *desc;
    v->req[0] = v->req[1] = GCM_REQUEST_NULL;
    v->stage = VFY_DESCS;
    if (desc->nonblocking != 0) {
        *rc_p = vfy_hold(v);
        if (*rc_p != MPI_SUCCESS) {
            vfy_free(v);
            return NULL;
        }
    }
    vfy_describe(v, &v->mine);
    *rc_p = vfy_ag_start(v, &v->mine, sizeof(v->mine));
    if (*rc_p != MPI_SUCCESS) {
        vfy_free(v);
        return NULL;
    }
    return v;
}

int gcm_mpi_coll_verify(MPI_Comm comm, const char *call,
                        const gcm_mpi_coll_desc_t *desc)
{
    struct gcm_mpi_coll_vfy *v;
    int rc;

    if (comm->kind == GCM_MPI_COMM_INTER) {
        return MPI_SUCCESS;
    }
    if (comm->coll_gate != NULL) {
        /* A nonblocking call that failed (out of memory) after starting
         * its check left it: the other members run it, so finish it. */
        gcm_lco_wait_until(vfy_done_cb, comm->coll_gate);
        vfy_free(comm->coll_gate);
        comm->coll_gate = NULL;
    }
    v = vfy_start(comm, call, desc, &rc);
    if (v == NULL) {
        return gcm_mpi_raise(comm, rc, call, "collective verification: "
                             "cannot start the exchange");
    }
    if (desc->nonblocking != 0) {
        comm->coll_gate = v;
        return MPI_SUCCESS;
    }
    gcm_lco_wait_until(vfy_done_cb, v);
    rc = v->errclass;
    if (rc != MPI_SUCCESS) {
        /* A failed nonblocking call has also taken its schedule's tag:
         * take one here too, so that members that mixed the blocking and
         * the nonblocking form stay in step for the next collective. */
        (void)gcm_mpi_coll_tag(comm);
        rc = gcm_mpi_raise(comm, rc, call, "%s", v->text);
    }
    vfy_free(v);
    return rc;
}

int gcm_mpi_coll_gate_poll(struct gcm_mpi_coll_vfy *gate, int *errclass_p,
                           char **text_p)
{
    size_t len;

    if (vfy_poll(gate) == 0) {
        return 0;
    }
    *errclass_p = gate->errclass;
    *text_p = NULL;
    if (gate->errclass != MPI_SUCCESS) {
        len = strlen(gate->call) + strlen(gate->text) + 3;
        *text_p = malloc(len);
        if (*text_p != NULL) {
            snprintf(*text_p, len, "%s: %s", gate->call, gate->text);
        }
    }
    return 1;
}

void gcm_mpi_coll_gate_free(struct gcm_mpi_coll_vfy *gate)
{
    vfy_free(gate);
}

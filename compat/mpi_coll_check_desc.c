/*
 * compat/mpi_coll_check_desc.c: the descriptor a member of a verified
 * collective sends (mpi_coll_check.c): what each of its transfers is
 * (count, datatype, the type signature, bytes), as the arguments MPI
 * makes significant at this member give it, and the two sums over them.
 */
#include "config.h"

#include "compat/mpi_coll_check_impl.h"

#include <ctype.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

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
int gcm_mpi_coll_vfy_xfer_args(const struct gcm_mpi_coll_vfy *v, int send,
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
void gcm_mpi_coll_vfy_record(const struct gcm_mpi_coll_vfy *v, int send,
                             int peer, int named, vfy_xfer_t *x)
{
    MPI_Datatype type;
    int count;

    memset(x, 0, sizeof(*x));
    if (gcm_mpi_coll_vfy_xfer_args(v, send, peer, &count, &type) == 0) {
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

int gcm_mpi_coll_vfy_is_neighbor(int kind)
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
void gcm_mpi_coll_vfy_describe(struct gcm_mpi_coll_vfy *v, vfy_desc_t *desc)
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
    if (gcm_mpi_coll_vfy_is_neighbor(d->kind)) {
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

            if (gcm_mpi_coll_vfy_xfer_args(v, side == 0, peer, &count,
                                           &type) == 0) {
                continue;
            }
            if (have == 0 || count != last_count || type != last_type) {
                gcm_mpi_coll_vfy_record(v, side == 0, peer, 0, &x);
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

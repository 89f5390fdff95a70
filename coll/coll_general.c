/*
 * coll/coll_general.c: the generalized collective of the seed (Foster,
 * Kesselman and Snir 1996, section 6: "user-defined transformations are
 * applied to data supplied by an arbitrary number of senders, and the
 * results ... delivered to an arbitrary number of receivers").
 *
 * It runs on the same schedules as the MPI collectives, over two views of
 * the caller's LCO: the senders, in the order given, reduce to the first
 * sender along a binomial tree that combines lower positions on the left
 * (the order-keeping reduce of coll_reduce.c), and the first sender
 * broadcasts the result to the receivers (binomial tree, or scatter and
 * allgather for large data), joining their group as its root when it is
 * not a receiver itself. Data are bytes: a one-byte element type whose
 * combine is the user's function over the whole run.
 */
#include "config.h"

#include "coll/coll_impl.h"

#include <limits.h>
#include <stdlib.h>
#include <string.h>

static const char coll_general_call[] = "gcm_coll_general";

/* The user's function and argument: the operator handle of the call. */
typedef struct coll_general_op {
    gcm_combine_func_t fn;
    void              *arg;
} coll_general_op_t;

/* The one element type: a byte (any non-NULL handle; NULL is raw). */
static char coll_general_byte;
#define COLL_GENERAL_BYTE ((gcm_coll_type_h)(void *)&coll_general_byte)

static size_t coll_general_size(gcm_coll_type_h type)
{
    (void)type;
    return 1;
}

static void coll_general_extent(gcm_coll_type_h type, ptrdiff_t *lb_p,
                                ptrdiff_t *extent_p)
{
    (void)type;
    *lb_p = 0;
    *extent_p = 1;
}

static int coll_general_contig(gcm_coll_type_h type, int count,
                               const void *buf, const void **start_p)
{
    (void)type;
    (void)count;
    *start_p = buf;
    return 1;
}

/* Never called: bytes are always contiguous. */
static void coll_general_pack(gcm_coll_type_h type, int count,
                              const void *buf, void *out)
{
    (void)type;
    memcpy(out, buf, (size_t)count);
}

static void coll_general_unpack(gcm_coll_type_h type, int count,
                                const void *in, size_t nbytes, void *buf)
{
    (void)type;
    memcpy(buf, in, (nbytes < (size_t)count) ? nbytes : (size_t)count);
}

static void coll_general_combine(gcm_coll_op_h op, const void *in,
                                 void *inout, int count,
                                 gcm_coll_type_h type)
{
    const coll_general_op_t *o = (const coll_general_op_t *)(void *)op;

    (void)type;
    o->fn(inout, in, (size_t)count, o->arg);
}

/* The order of the senders array is the order of combination. */
static int coll_general_commutative(gcm_coll_op_h op)
{
    (void)op;
    return 0;
}

static const gcm_coll_type_ops_t coll_general_ops = {
    .size        = coll_general_size,
    .extent      = coll_general_extent,
    .true_extent = coll_general_extent,
    .contig      = coll_general_contig,
    .pack        = coll_general_pack,
    .unpack      = coll_general_unpack,
    .combine     = coll_general_combine,
    .commutative = coll_general_commutative,
};

/* Checks one member array: n >= 1 entries in 0..size-1, none twice;
 * *pos_p is me's position (-1: absent). mark has size entries. */
static gcm_status_t coll_general_check_set(const char *what, int n,
                                           const int set[], int size,
                                           int me, unsigned char *mark,
                                           int *pos_p)
{
    int i;

    if (n < 1 || set == NULL) {
        return gcm_fail(GCM_ERR_INVALID_PARAM, coll_general_call,
                        "%s: need at least one (n %d, array %s)", what, n,
                        (set == NULL) ? "NULL" : "given");
    }
    memset(mark, 0, (size_t)size);
    *pos_p = -1;
    for (i = 0; i < n; i++) {
        if (set[i] < 0 || set[i] >= size) {
            return gcm_fail(GCM_ERR_INVALID_PARAM, coll_general_call,
                            "%s[%d] = %d is not a member (0..%d)", what, i,
                            set[i], size - 1);
        }
        if (mark[set[i]] != 0) {
            return gcm_fail(GCM_ERR_INVALID_PARAM, coll_general_call,
                            "%s[%d] = %d appears twice", what, i, set[i]);
        }
        mark[set[i]] = 1;
        if (set[i] == me) {
            *pos_p = i;
        }
    }
    return GCM_OK;
}

/* The graph's size and this LCO's member index (the slot that targets
 * itself). */
static gcm_status_t coll_general_member(gcm_lco_h lco, int *size_p,
                                        int *me_p)
{
    const int *procs;
    int nsend, nrecv, i;

    if (gcm_lco_num_send_slots(lco, &nsend) != GCM_OK ||
        gcm_lco_num_recv_slots(lco, &nrecv) != GCM_OK) {
        return gcm_fail(GCM_ERR_INVALID_PARAM, coll_general_call,
                        "lco: %s", gcm_last_error());
    }
    if (gcm_lco_pattern_of(lco, size_p, &procs, me_p)) {
        return GCM_OK;
    }
    for (i = 0; i < nsend; i++) {
        if (gcm_lco_send_slot_is_self(lco, i)) {
            break;
        }
    }
    if (i == nsend || nrecv < nsend) {
        return gcm_fail(GCM_ERR_INVALID_PARAM, coll_general_call,
                        "the LCO is not a member of a fully connected graph "
                        "(%d send slots, %d receive slots, %s)", nsend,
                        nrecv, (i == nsend) ? "none targets itself" :
                        "fewer receive slots");
    }
    *size_p = nsend;
    *me_p = i;
    return GCM_OK;
}

gcm_status_t gcm_coll_general(gcm_lco_h lco, int nsend, const int senders[],
                              int nrecv, const int receivers[],
                              const void *sendbuf, void *recvbuf, size_t len,
                              gcm_combine_func_t fn, void *arg, int tag)
{
    coll_general_op_t op = { fn, arg };
    gcm_coll_sched_t s;
    gcm_coll_grp_t sg, rg;
    gcm_status_t status;
    unsigned char *mark;
    int size, me, spos, rpos, root, *rmap, i;
    void *result;

    status = coll_general_member(lco, &size, &me);
    if (status != GCM_OK) {
        return status;
    }
    if (fn == NULL) {
        return gcm_fail(GCM_ERR_INVALID_PARAM, coll_general_call,
                        "fn is NULL");
    }
    if (tag < 0 || tag > GCM_COLL_TAG_UB) {
        return gcm_fail(GCM_ERR_INVALID_PARAM, coll_general_call,
                        "tag %d is not in 0..GCM_COLL_TAG_UB", tag);
    }
    if (len > (size_t)INT_MAX) {
        return gcm_fail(GCM_ERR_INVALID_PARAM, coll_general_call,
                        "len %zu is more than INT_MAX", len);
    }
    mark = malloc((size_t)size);
    if (mark == NULL) {
        return gcm_fail(GCM_ERR_NO_MEMORY, coll_general_call,
                        "out of memory");
    }
    status = coll_general_check_set("senders", nsend, senders, size, me,
                                    mark, &spos);
    if (status == GCM_OK) {
        status = coll_general_check_set("receivers", nrecv, receivers,
                                        size, me, mark, &rpos);
    }
    free(mark);
    if (status != GCM_OK) {
        return status;
    }
    if (spos < 0 && rpos < 0) {
        return GCM_OK;    /* not taking part */
    }
    if ((spos >= 0 && sendbuf == NULL && len > 0) ||
        (rpos >= 0 && recvbuf == NULL && len > 0)) {
        return gcm_fail(GCM_ERR_INVALID_PARAM, coll_general_call,
                        "%s is NULL with len %zu", (spos >= 0 &&
                        sendbuf == NULL) ? "sendbuf" : "recvbuf", len);
    }

    gcm_coll_sched_init(&s, &coll_general_ops);
    /* The receivers' group, with the first sender as its root: in place
     * if it is a receiver, else in front. */
    rmap = gcm_coll_alloc(&s, ((size_t)nrecv + 1) * sizeof(int));
    if (rmap == NULL) {
        gcm_coll_sched_free(&s);
        return gcm_fail(GCM_ERR_NO_MEMORY, coll_general_call,
                        "out of memory");
    }
    for (i = 0, root = -1; i < nrecv; i++) {
        root = (receivers[i] == senders[0]) ? i : root;
    }
    if (root >= 0) {
        memcpy(rmap, receivers, (size_t)nrecv * sizeof(int));
        rg.size = nrecv;
        rg.rank = rpos;
    } else {
        rmap[0] = senders[0];
        memcpy(rmap + 1, receivers, (size_t)nrecv * sizeof(int));
        rg.size = nrecv + 1;
        rg.rank = (spos == 0) ? 0 : (rpos >= 0) ? rpos + 1 : -1;
        root = 0;
    }
    rg.lco = lco;
    rg.tag = GCM_COLL_TAG_GENERAL + tag;
    rg.slot = rmap;
    sg.lco = lco;
    sg.tag = rg.tag;
    sg.rank = spos;
    sg.size = nsend;
    sg.slot = senders;

    result = (rpos >= 0) ? recvbuf : NULL;
    if (spos == 0 && result == NULL) {
        result = gcm_coll_alloc(&s, len);
    }
    if (spos >= 0) {
        gcm_coll_trace("general", "reduce binomial", &sg, len);
        gcm_coll_reduce_flat(&s, &sg, sendbuf, result, (int)len,
                             COLL_GENERAL_BYTE, (gcm_coll_op_h)(void *)&op,
                             0);
    }
    if (rg.rank >= 0) {
        gcm_coll_bcast_bytes(&s, &rg, result, len, root);
    }
    if (s.nomem != 0) {
        gcm_coll_sched_free(&s);
        return gcm_fail(GCM_ERR_NO_MEMORY, coll_general_call,
                        "cannot allocate the schedule");
    }
    (void)gcm_coll_sched_advance(&s, 1);
    status = s.err;
    gcm_coll_sched_free(&s);
    if (status != GCM_OK) {
        return gcm_fail(status, coll_general_call,
                        "a transfer failed: %s", gcm_status_string(status));
    }
    return GCM_OK;
}

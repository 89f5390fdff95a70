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

#include "compat/mpi_coll_check_impl.h"

#include <ctype.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

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
    if (gcm_mpi_coll_vfy_is_neighbor(d0->call & ~(VFY_NB | VFY_PERSIST))) {
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
        gcm_mpi_coll_vfy_record(v, 1, peer, 1, &v->out[peer]);
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

        gcm_mpi_coll_vfy_record(v, 0, peer, 1, &expected);
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
 * read (gcm_mpi_coll_vfy_record of every peer, both sides), once each in
 * a row. */
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
            if ((gcm_mpi_coll_vfy_xfer_args(v, side, peer, &count,
                                            &type) == 0) ||
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
    gcm_mpi_coll_vfy_describe(v, &v->mine);
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

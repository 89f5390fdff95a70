/*
 * lco/lco_internal.c: the internal calls of the MPI layer and
 * collectives: library tags, synchronous sends, cancel, matched probes,
 * the staging area of a pair.
 */
#include "config.h"

#include "lco/lco_impl.h"
#include "boot/boot.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>

/* ---- internal tags, synchronous sends, cancel, matched probes ----------------- */

/* Tags for the internal calls: any non-negative tag (the library's own lie
 * above GCM_TAG_UB), and GCM_ANY_TAG where a wildcard is allowed. */
static gcm_status_t gcm_check_tag_x(const char *call, int tag, int wildcard)
{
    if ((wildcard && (tag == GCM_ANY_TAG)) || (tag >= 0)) {
        return GCM_OK;
    }
    return gcm_fail(GCM_ERR_INVALID_PARAM, call,
                    "tag %d is negative%s", tag,
                    wildcard ? " and not GCM_ANY_TAG" : "");
}

/* The checks an internal send and receive share: the LCO, the request
 * pointer and the buffer. */
static gcm_status_t gcm_lco_xfer_check(const char *call, gcm_lco_h lco,
                                       const void *buf, size_t len,
                                       gcm_request_h *req_p)
{
    GCM_CHECK_LCO(call, lco);
    if (req_p == NULL) {
        return gcm_fail(GCM_ERR_INVALID_PARAM, call, "req_p is NULL");
    }
    if ((buf == NULL) && (len > 0)) {
        return gcm_fail(GCM_ERR_INVALID_PARAM, call,
                        "buf is NULL but len is %zu", len);
    }
    return GCM_OK;
}

gcm_status_t gcm_lco_isend_x(gcm_lco_h lco, const void *buf, size_t len,
                             int slot, int tag, int flags,
                             gcm_request_h *req_p)
{
    static const char *call = "gcm_lco_isend_x";
    gcm_status_t status;

    status = gcm_lco_xfer_check(call, lco, buf, len, req_p);
    if (status != GCM_OK) {
        return status;
    }
    if (flags & ~(GCM_LCO_SEND_SYNC | GCM_LCO_XFER_NOREQ)) {
        return gcm_fail(GCM_ERR_INVALID_PARAM, call,
                        "unknown send flags %#x", flags);
    }
    status = gcm_check_tag_x(call, tag, 0);
    if (status != GCM_OK) {
        return status;
    }
    return gcm_slots_isend_x(lco->port, buf, len, slot, tag,
                             ((flags & GCM_LCO_SEND_SYNC) ?
                              GCM_SLOTS_SEND_SYNC : 0) |
                             ((flags & GCM_LCO_XFER_NOREQ) ?
                              GCM_SLOTS_XFER_NOREQ : 0), call, req_p);
}

gcm_status_t gcm_lco_irecv_x(gcm_lco_h lco, void *buf, size_t len, int slot,
                             int tag, gcm_request_h *req_p)
{
    return gcm_lco_irecv_xf(lco, buf, len, slot, tag, 0, NULL, req_p);
}

gcm_status_t gcm_lco_irecv_xf(gcm_lco_h lco, void *buf, size_t len,
                              int slot, int tag, int flags,
                              gcm_msg_status_t *info_p, gcm_request_h *req_p)
{
    return gcm_lco_irecv_fold(lco, buf, len, slot, tag, flags, NULL, info_p,
                              req_p);
}

gcm_status_t gcm_lco_irecv_fold(gcm_lco_h lco, void *buf, size_t len,
                                int slot, int tag, int flags,
                                const gcm_slots_fold_t *fold,
                                gcm_msg_status_t *info_p,
                                gcm_request_h *req_p)
{
    static const char *call = "gcm_lco_irecv_x";
    gcm_status_t status;

    status = gcm_lco_xfer_check(call, lco, buf, len, req_p);
    if (status != GCM_OK) {
        return status;
    }
    if ((flags & ~GCM_LCO_XFER_NOREQ) ||
        ((flags & GCM_LCO_XFER_NOREQ) && (info_p == NULL))) {
        return gcm_fail(GCM_ERR_INVALID_PARAM, call,
                        "receive flags %#x unknown or NOREQ without a "
                        "status", flags);
    }
    status = gcm_check_tag_x(call, tag, 1);
    if (status != GCM_OK) {
        return status;
    }
    return gcm_slots_irecv_fold(lco->port, buf, len, slot, tag,
                                (flags & GCM_LCO_XFER_NOREQ) ?
                                GCM_SLOTS_XFER_NOREQ : 0, fold, call, info_p,
                                req_p);
}

/* The unchecked forms (lco.h): anything unusual goes to the checked call,
 * which reports it. */
static int gcm_lco_xfer_plain(gcm_lco_h lco, int tag)
{
    return gcm_likely((lco != NULL) && (lco->magic == GCM_LCO_MAGIC) &&
                      (tag >= 0) &&
                      atomic_load_explicit(&gcm_lco_proc.initialized,
                                           memory_order_acquire));
}

gcm_status_t gcm_lco_isend_nr(gcm_lco_h lco, const void *buf, size_t len,
                              int slot, int tag, gcm_request_h *req_p)
{
    if (!gcm_lco_xfer_plain(lco, tag)) {
        return gcm_lco_isend_x(lco, buf, len, slot, tag, GCM_LCO_XFER_NOREQ,
                               req_p);
    }
    return gcm_slots_isend_x(lco->port, buf, len, slot, tag,
                             GCM_SLOTS_XFER_NOREQ, "gcm_lco_isend_x", req_p);
}

gcm_status_t gcm_lco_isend_kept(gcm_lco_h lco, const void *buf, size_t len,
                                int slot, int tag,
                                gcm_slots_send_keep_t *keep,
                                gcm_request_h *req_p)
{
    if (!gcm_lco_xfer_plain(lco, tag)) {
        return gcm_lco_isend_x(lco, buf, len, slot, tag, GCM_LCO_XFER_NOREQ,
                               req_p);
    }
    return gcm_slots_isend_kept(lco->port, buf, len, slot, tag, keep,
                                "gcm_lco_isend_x", req_p);
}

gcm_status_t gcm_lco_irecv_nr(gcm_lco_h lco, void *buf, size_t len,
                              int slot, int tag, gcm_msg_status_t *info_p,
                              gcm_request_h *req_p)
{
    if (!gcm_lco_xfer_plain(lco, tag)) {
        return gcm_lco_irecv_xf(lco, buf, len, slot, tag, GCM_LCO_XFER_NOREQ,
                                info_p, req_p);
    }
    return gcm_slots_irecv_xf(lco->port, buf, len, slot, tag,
                              GCM_SLOTS_XFER_NOREQ, "gcm_lco_irecv_x", info_p,
                              req_p);
}

gcm_status_t gcm_lco_irecv_rec(gcm_lco_h lco, void *buf, size_t len,
                               int slot, int tag,
                               const gcm_slots_fold_t *fold,
                               gcm_msg_status_t *info_p,
                               struct gcm_request *rec, gcm_request_h *req_p)
{
    if (!gcm_lco_xfer_plain(lco, tag)) {
        return gcm_lco_irecv_fold(lco, buf, len, slot, tag,
                                  GCM_LCO_XFER_NOREQ, fold, info_p, req_p);
    }
    return gcm_slots_irecv_rec(lco->port, buf, len, slot, tag, fold,
                               "gcm_lco_irecv_x", info_p, rec, req_p);
}

/* The send of an exchange: with keep where the caller has one. */
static gcm_status_t gcm_lco_exchange_send(gcm_lco_h lco, const void *sbuf,
                                          size_t slen, int slot, int tag,
                                          gcm_slots_send_keep_t *keep,
                                          gcm_request_h *sreq_p)
{
    static char dummy;

    /* As the schedules' transfers: a zero-length buffer may be NULL. */
    sbuf = (slen == 0) ? &dummy : sbuf;
    return (keep != NULL) ?
           gcm_lco_isend_kept(lco, sbuf, slen, slot, tag, keep, sreq_p) :
           gcm_lco_isend_nr(lco, sbuf, slen, slot, tag, sreq_p);
}

gcm_status_t gcm_lco_exchange_post(gcm_lco_h lco, int slot, int tag,
                                   gcm_slots_send_keep_t *keep,
                                   struct gcm_request *rec,
                                   gcm_request_h *sreq_p,
                                   gcm_request_h *rreq_p)
{
    static char dummy;
    gcm_msg_status_t info;
    gcm_status_t status;

    *sreq_p = GCM_REQUEST_NULL;
    *rreq_p = GCM_REQUEST_NULL;
    /* Posted as a schedule's transfers are (gcm_lco_isend_kept and
     * gcm_lco_irecv_rec: no request for what completes at posting, and a
     * receive that must wait in the caller's record). */
    status = gcm_lco_exchange_send(lco, NULL, 0, slot, tag, keep, sreq_p);
    if (status == GCM_OK) {
        status = gcm_lco_irecv_rec(lco, &dummy, 0, slot, tag, NULL, &info,
                                   rec, rreq_p);
    }
    return status;
}

gcm_status_t gcm_lco_exchange_nr(gcm_lco_h lco, const void *sbuf,
                                 size_t slen, void *rbuf, size_t rlen,
                                 int slot, int tag,
                                 gcm_slots_send_keep_t *keep,
                                 struct gcm_request *rec)
{
    static char dummy;
    gcm_request_h sreq = GCM_REQUEST_NULL, rreq = GCM_REQUEST_NULL;
    gcm_msg_status_t info;
    gcm_status_t status, wstatus = GCM_OK;

    status = gcm_lco_exchange_send(lco, sbuf, slen, slot, tag, keep, &sreq);
    if (status == GCM_OK) {
        status = gcm_lco_irecv_rec(lco, (rlen == 0) ? &dummy : rbuf, rlen,
                                   slot, tag, NULL, &info, rec, &rreq);
    }
    /* The send first, as a schedule's fence completes its transfers in
     * the order they were posted; the first failure is the result. */
    if (sreq != GCM_REQUEST_NULL) {
        wstatus = gcm_lco_req_wait(&sreq, NULL);
    }
    status = (wstatus != GCM_OK) ? wstatus : status;
    if (rreq != GCM_REQUEST_NULL) {
        wstatus = gcm_lco_req_wait(&rreq, NULL);
        status = (status != GCM_OK) ? status : wstatus;
    }
    return status;
}

/* Waits for each of the n requests posted in req (GCM_REQUEST_NULL:
 * done at posting); the result is status, else the first failure. */
static gcm_status_t gcm_lco_wait_posted(gcm_request_h *req, int n,
                                        gcm_status_t status)
{
    int i;

    for (i = 0; i < n; i++) {
        if (req[i] != GCM_REQUEST_NULL) {
            gcm_status_t wstatus = gcm_lco_req_wait(&req[i], NULL);

            status = (status != GCM_OK) ? status : wstatus;
        }
    }
    return status;
}

gcm_status_t gcm_lco_fan_nr(gcm_lco_h lco, int nslots, int tag,
                            gcm_slots_send_keep_t *keeps,
                            struct gcm_request *recs)
{
    static char dummy;
    gcm_request_h req[GCM_LCO_FAN_MAX];
    gcm_msg_status_t info;
    gcm_status_t status = GCM_OK;
    int i, n = nslots - 1, posted = 0;

    /* Every arrival first, each in its record when it must wait. */
    for (i = 0; (status == GCM_OK) && (i < n); i++) {
        req[i] = GCM_REQUEST_NULL;
        status = gcm_lco_irecv_rec(lco, &dummy, 0, i + 1, tag, NULL, &info,
                                   &recs[i], &req[i]);
        posted = i + 1;
    }
    /* The records are the caller's: every one posted is waited for,
     * whatever failed. */
    status = gcm_lco_wait_posted(req, posted, status);
    /* Then the releases, all posted before any is waited for. */
    for (i = 0, posted = 0; (status == GCM_OK) && (i < n); i++) {
        req[i] = GCM_REQUEST_NULL;
        status = gcm_lco_exchange_send(lco, NULL, 0, i + 1, tag,
                                       (keeps != NULL) ? &keeps[i] : NULL,
                                       &req[i]);
        posted = i + 1;
    }
    return gcm_lco_wait_posted(req, posted, status);
}

/* The checks of a probe: tag (internal range) and receive slot. */
static gcm_status_t gcm_lco_probe_check(const char *call, gcm_lco_h lco,
                                        int slot, int tag, int *flag_p)
{
    gcm_status_t status;
    int nrecv;

    if (flag_p == NULL) {
        return gcm_fail(GCM_ERR_INVALID_PARAM, call, "flag_p is NULL");
    }
    status = gcm_check_tag_x(call, tag, 1);
    if (status != GCM_OK) {
        return status;
    }
    gcm_lco_num_recv_slots(lco, &nrecv);
    if ((slot != GCM_ANY_SLOT) && ((slot < 0) || (slot >= nrecv))) {
        return gcm_fail(GCM_ERR_NO_SUCH_SLOT, call,
                        "receive slot %d out of range (LCO has %d receive "
                        "slots)", slot, nrecv);
    }
    return GCM_OK;
}

gcm_status_t gcm_lco_iprobe_x(gcm_lco_h lco, int slot, int tag, int *flag_p,
                              gcm_msg_status_t *status_p)
{
    static const char *call = "gcm_lco_iprobe_x";
    gcm_status_t status;

    GCM_CHECK_LCO(call, lco);
    status = gcm_lco_probe_check(call, lco, slot, tag, flag_p);
    if (status != GCM_OK) {
        return status;
    }
    return gcm_lco_iprobe_nr(lco, slot, tag, flag_p, status_p);
}

gcm_status_t gcm_lco_iprobe_nr(gcm_lco_h lco, int slot, int tag, int *flag_p,
                               gcm_msg_status_t *status_p)
{
    gcm_msg_status_t info;

    gcm_thr_progress(lco->port->endpoint);
    *flag_p = gcm_slots_iprobe(lco->port, slot, tag, &info);
    if (*flag_p && (status_p != NULL)) {
        *status_p = info;
    }
    return GCM_OK;
}

/* gcm_lco_cancel of a live request. */
static gcm_status_t gcm_lco_cancel_req(const char *call,
                                       struct gcm_request *req)
{
    if (req->kind != GCM_REQ_RECV) {
        return gcm_fail(GCM_ERR_INVALID_PARAM, call,
                        "only receives can be cancelled (this is a send "
                        "on slot %d tag %d)", req->info.slot, req->info.tag);
    }
    if (gcm_slots_cancel(req) != GCM_OK) {
        return gcm_fail(GCM_ERR_BUSY, call,
                        "the receive on slot %d tag %d has been matched or "
                        "completed already", req->slot, req->tag);
    }
    return GCM_OK;
}

gcm_status_t gcm_lco_cancel(gcm_request_h handle)
{
    static const char *call = "gcm_lco_cancel";
    struct gcm_request *req;

    GCM_CHECK_INIT(call);
    if (handle == GCM_REQUEST_NULL) {
        return gcm_fail(GCM_ERR_INVALID_PARAM, call, "req is NULL");
    }
    req = gcm_slots_req_get(handle);
    if (req == NULL) {
        return gcm_fail(GCM_ERR_INVALID_PARAM, call, "the request was "
                        "released already (a stale handle) or is no "
                        "request");
    }
    return gcm_lco_cancel_req(call, req);
}

gcm_status_t gcm_lco_req_cancel(gcm_request_h handle)
{
    return gcm_lco_cancel_req("gcm_lco_cancel", gcm_slots_req_of(handle));
}

gcm_status_t gcm_lco_improbe(gcm_lco_h lco, int slot, int tag, int *flag_p,
                             gcm_message_h *msg_p,
                             gcm_msg_status_t *status_p)
{
    static const char *call = "gcm_lco_improbe";
    gcm_msg_status_t info;
    gcm_slots_umsg_t *umsg;
    gcm_status_t status;

    GCM_CHECK_LCO(call, lco);
    if (msg_p == NULL) {
        return gcm_fail(GCM_ERR_INVALID_PARAM, call, "msg_p is NULL");
    }
    status = gcm_lco_probe_check(call, lco, slot, tag, flag_p);
    if (status != GCM_OK) {
        return status;
    }
    gcm_thr_progress(lco->port->endpoint);
    umsg = gcm_slots_improbe(lco->port, slot, tag, &info);
    *flag_p = (umsg != NULL);
    *msg_p  = umsg;
    if ((umsg != NULL) && (status_p != NULL)) {
        *status_p = info;
    }
    return GCM_OK;
}

gcm_status_t gcm_lco_imrecv(gcm_lco_h lco, gcm_message_h msg, void *buf,
                            size_t len, gcm_request_h *req_p)
{
    static const char *call = "gcm_lco_imrecv";
    gcm_status_t status;

    GCM_CHECK_LCO(call, lco);
    if ((msg == NULL) || (req_p == NULL)) {
        return gcm_fail(GCM_ERR_INVALID_PARAM, call, "msg or req_p is NULL");
    }
    if ((buf == NULL) && (len > 0)) {
        return gcm_fail(GCM_ERR_INVALID_PARAM, call,
                        "buf is NULL but len is %zu", len);
    }
    /* The handle is the caller's alone until received: its envelope can
     * be read without the lock. */
    if ((msg->env.dst_id != lco->port->id) ||
        (msg->env.dst_gen != lco->port->gen)) {
        return gcm_fail(GCM_ERR_INVALID_PARAM, call,
                        "the message was matched on another LCO");
    }
    status = gcm_slots_imrecv(lco->port, msg, buf, len, req_p);
    return (status == GCM_OK) ? GCM_OK :
           gcm_fail(status, call, "no memory for the request");
}

/* ---- the staging area of a pair (slots/slot_shm_stage.c) ------------------ */

gcm_status_t gcm_lco_stage_open(gcm_lco_h lco, int slot, int tag,
                                gcm_slots_stage_t **st_p)
{
    gcm_slots_stage_offer_t mine, theirs;
    struct gcm_request rec;
    gcm_slots_stage_t *st;
    int32_t ok, peer_ok = 0;
    gcm_status_t status;
    int proc = gcm_lco_send_slot_proc(lco, slot);

    st = (proc >= 0) ? gcm_slots_stage_create(proc, &mine) : NULL;
    if (st == NULL) {
        memset(&mine, 0, sizeof(mine));
    }
    memset(&theirs, 0, sizeof(theirs));
    status = gcm_lco_exchange_nr(lco, &mine, sizeof(mine), &theirs,
                                 sizeof(theirs), slot, tag, NULL, &rec);
    ok = (status == GCM_OK) && (st != NULL) &&
         gcm_slots_stage_attach(st, &theirs);
    if (status == GCM_OK) {
        /* The second exchange also says the partner has mapped this
         * side's area: the descriptor it opened may close. */
        status = gcm_lco_exchange_nr(lco, &ok, sizeof(ok), &peer_ok,
                                     sizeof(peer_ok), slot, tag, NULL, &rec);
    }
    if ((status != GCM_OK) || !ok || (peer_ok != 1)) {
        gcm_slots_stage_free(st);
        st = NULL;
    } else {
        gcm_slots_stage_ready(st);
    }
    *st_p = st;
    return status;
}

gcm_status_t gcm_lco_stage_allreduce(gcm_slots_stage_t *st, int rank,
                                     const void *sbuf, void *rbuf,
                                     size_t count, size_t esize,
                                     gcm_slots_stage_combine_func_t *fn,
                                     void *ctx)
{
    return gcm_slots_stage_allreduce(st, rank, sbuf, rbuf, count, esize, fn,
                                     ctx);
}

void gcm_lco_stage_free(gcm_slots_stage_t *st)
{
    gcm_slots_stage_free(st);
}

/*
 * lco/lco_p2p.c: the public point-to-point calls with their
 * argument checks: send, receive, wait, test, probe.
 */
#include "config.h"

#include "lco/lco_impl.h"
#include "boot/boot.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>

static gcm_status_t gcm_check_tag(const char *call, int tag, int wildcard)
{
    if ((wildcard && (tag == GCM_ANY_TAG)) ||
        ((tag >= 0) && (tag <= GCM_TAG_UB))) {
        return GCM_OK;
    }
    return gcm_fail(GCM_ERR_INVALID_PARAM, call,
                    "tag %d out of range 0..%d%s", tag, GCM_TAG_UB,
                    wildcard ? " or GCM_ANY_TAG" : "");
}

/* ---- point to point ----------------------------------------------------------- */

/* gcm_isend with the data path's flags (GCM_SLOTS_XFER_NOREQ for the
 * blocking calls, which need no request for a send done when posted). */
static gcm_status_t gcm_isend_f(gcm_lco_h lco, const void *buf, size_t len,
                                int slot, int tag, int flags,
                                gcm_request_h *req_p)
{
    gcm_status_t status;

    GCM_CHECK_LCO("gcm_isend", lco);
    if (req_p == NULL) {
        return gcm_fail(GCM_ERR_INVALID_PARAM, "gcm_isend", "req_p is NULL");
    }
    if ((buf == NULL) && (len > 0)) {
        return gcm_fail(GCM_ERR_INVALID_PARAM, "gcm_isend",
                        "buf is NULL but len is %zu", len);
    }
    status = gcm_check_tag("gcm_isend", tag, 0);
    if (status != GCM_OK) {
        return status;
    }
    return gcm_slots_isend_x(lco->port, buf, len, slot, tag, flags,
                             "gcm_isend", req_p);
}

gcm_status_t gcm_isend(gcm_lco_h lco, const void *buf, size_t len, int slot,
                       int tag, gcm_request_h *req_p)
{
    return gcm_isend_f(lco, buf, len, slot, tag, 0, req_p);
}

static gcm_status_t gcm_irecv_f(gcm_lco_h lco, void *buf, size_t len,
                                int slot, int tag, int flags,
                                gcm_msg_status_t *info_p,
                                gcm_request_h *req_p)
{
    gcm_status_t status;

    GCM_CHECK_LCO("gcm_irecv", lco);
    if (req_p == NULL) {
        return gcm_fail(GCM_ERR_INVALID_PARAM, "gcm_irecv", "req_p is NULL");
    }
    if ((buf == NULL) && (len > 0)) {
        return gcm_fail(GCM_ERR_INVALID_PARAM, "gcm_irecv",
                        "buf is NULL but len is %zu", len);
    }
    status = gcm_check_tag("gcm_irecv", tag, 1);
    if (status != GCM_OK) {
        return status;
    }
    return gcm_slots_irecv_xf(lco->port, buf, len, slot, tag, flags,
                              "gcm_irecv", info_p, req_p);
}

gcm_status_t gcm_irecv(gcm_lco_h lco, void *buf, size_t len, int slot,
                       int tag, gcm_request_h *req_p)
{
    return gcm_irecv_f(lco, buf, len, slot, tag, 0, NULL, req_p);
}

/* A handle that names no live request: released already (a stale copy
 * of it), or never a request. Refused, so that a request is never
 * released twice. */
static gcm_status_t gcm_stale(const char *call)
{
    return gcm_fail(GCM_ERR_INVALID_PARAM, call, "the request was "
                    "released already (a stale handle) or is no request");
}

static gcm_status_t gcm_finish(const char *call, struct gcm_request *req,
                               gcm_request_h *req_p,
                               gcm_msg_status_t *status_p)
{
    gcm_status_t status = req->status;

    if (status < 0) {
        gcm_fail(status, call, "%s on slot %d tag %d failed",
                 (req->kind == GCM_REQ_SEND) ? "send" : "receive",
                 req->info.slot, req->info.tag);
    }
    if (status_p != NULL) {
        *status_p = req->info;
    }
    gcm_slots_req_release(req);
    *req_p = GCM_REQUEST_NULL;
    return status;
}

gcm_status_t gcm_lco_req_take(gcm_request_h *req_p,
                              gcm_msg_status_t *status_p)
{
    /* The MPI layer's own handle of a request it saw done: no checks. The
     * text of a failure names gcm_wait, as the waits' do. */
    return gcm_finish("gcm_wait", gcm_slots_req_of(*req_p), req_p,
                      status_p);
}

gcm_status_t gcm_lco_req_wait(gcm_request_h *req_p,
                              gcm_msg_status_t *status_p)
{
    struct gcm_request *req = gcm_slots_req_of(*req_p);

    gcm_lco_thr_wait(req->endpoint, gcm_slots_req_done, req);
    return gcm_finish("gcm_wait", req, req_p, status_p);
}

static void gcm_empty_status(gcm_msg_status_t *status_p)
{
    if (status_p != NULL) {
        status_p->slot  = GCM_ANY_SLOT;
        status_p->tag   = GCM_ANY_TAG;
        status_p->count = 0;
        status_p->error = GCM_OK;
    }
}

/* gcm_wait on behalf of call (whose name the error text gives). */
static gcm_status_t gcm_wait_as(const char *call, gcm_request_h *req_p,
                                gcm_msg_status_t *status_p)
{
    struct gcm_request *req;

    GCM_CHECK_INIT(call);
    if (req_p == NULL) {
        return gcm_fail(GCM_ERR_INVALID_PARAM, call, "req_p is NULL");
    }
    if (*req_p == GCM_REQUEST_NULL) {
        gcm_empty_status(status_p);
        return GCM_OK;
    }
    req = gcm_slots_req_get(*req_p);
    if (gcm_unlikely(req == NULL)) {
        return gcm_stale(call);
    }
    gcm_lco_thr_wait(req->endpoint, gcm_slots_req_done, req);
    return gcm_finish(call, req, req_p, status_p);
}

gcm_status_t gcm_wait(gcm_request_h *req_p, gcm_msg_status_t *status_p)
{
    return gcm_wait_as("gcm_wait", req_p, status_p);
}

gcm_status_t gcm_test(gcm_request_h *req_p, int *flag_p,
                      gcm_msg_status_t *status_p)
{
    struct gcm_request *req;

    GCM_CHECK_INIT("gcm_test");
    if ((req_p == NULL) || (flag_p == NULL)) {
        return gcm_fail(GCM_ERR_INVALID_PARAM, "gcm_test",
                        "req_p or flag_p is NULL");
    }
    if (*req_p == GCM_REQUEST_NULL) {
        *flag_p = 1;
        gcm_empty_status(status_p);
        return GCM_OK;
    }
    req = gcm_slots_req_get(*req_p);
    if (gcm_unlikely(req == NULL)) {
        return gcm_stale("gcm_test");
    }
    if (!gcm_slots_req_done(req)) {
        gcm_thr_progress(req->endpoint);
    }
    *flag_p = gcm_slots_req_done(req);
    return *flag_p ? gcm_finish("gcm_test", req, req_p, status_p) : GCM_OK;
}

gcm_status_t gcm_waitall(int count, gcm_request_h reqs[],
                         gcm_msg_status_t statuses[])
{
    gcm_status_t first = GCM_OK;
    gcm_status_t status;
    int i;

    GCM_CHECK_INIT("gcm_waitall");
    if ((count < 0) || ((count > 0) && (reqs == NULL))) {
        return gcm_fail(GCM_ERR_INVALID_PARAM, "gcm_waitall",
                        "count %d with %s requests", count,
                        (reqs == NULL) ? "NULL" : "given");
    }
    /* All checked before any is waited for and released. */
    for (i = 0; i < count; i++) {
        if ((reqs[i] != GCM_REQUEST_NULL) &&
            (gcm_slots_req_get(reqs[i]) == NULL)) {
            return gcm_stale("gcm_waitall");
        }
    }
    for (i = 0; i < count; i++) {
        status = gcm_wait(&reqs[i], (statuses != NULL) ? &statuses[i] : NULL);
        if ((status != GCM_OK) && (first == GCM_OK)) {
            first = status;
        }
    }
    return first;
}

typedef struct gcm_any_arg {
    int            count;
    gcm_request_h *reqs;
    int            index;
} gcm_any_arg_t;

static int gcm_any_done(void *arg)
{
    gcm_any_arg_t *any = arg;
    int i;

    for (i = 0; i < any->count; i++) {
        if ((any->reqs[i] != GCM_REQUEST_NULL) &&
            gcm_slots_req_done(gcm_slots_req_of(any->reqs[i]))) {
            any->index = i;
            return 1;
        }
    }
    return 0;
}

gcm_status_t gcm_waitany(int count, gcm_request_h reqs[], int *index_p,
                         gcm_msg_status_t *status_p)
{
    gcm_any_arg_t any = { .count = count, .reqs = reqs, .index = -1 };
    gcm_thr_endpoint_t *endpoint = NULL;
    int i;

    GCM_CHECK_INIT("gcm_waitany");
    if ((index_p == NULL) || (count < 0) || ((count > 0) && (reqs == NULL))) {
        return gcm_fail(GCM_ERR_INVALID_PARAM, "gcm_waitany",
                        "bad count, requests or index pointer");
    }
    for (i = 0; i < count; i++) {
        if (reqs[i] != GCM_REQUEST_NULL) {
            struct gcm_request *req = gcm_slots_req_get(reqs[i]);

            if (gcm_unlikely(req == NULL)) {
                return gcm_stale("gcm_waitany");
            }
            if (endpoint == NULL) {
                endpoint = req->endpoint;
            }
        }
    }
    if (endpoint == NULL) {
        *index_p = -1;
        gcm_empty_status(status_p);
        return GCM_OK;
    }
    gcm_lco_thr_wait(endpoint, gcm_any_done, &any);
    *index_p = any.index;
    return gcm_finish("gcm_waitany", gcm_slots_req_of(reqs[any.index]),
                      &reqs[any.index], status_p);
}

gcm_status_t gcm_iprobe(gcm_lco_h lco, int slot, int tag, int *flag_p,
                        gcm_msg_status_t *status_p)
{
    gcm_msg_status_t info;
    gcm_status_t status;
    int nrecv;

    GCM_CHECK_LCO("gcm_iprobe", lco);
    if (flag_p == NULL) {
        return gcm_fail(GCM_ERR_INVALID_PARAM, "gcm_iprobe",
                        "flag_p is NULL");
    }
    status = gcm_check_tag("gcm_iprobe", tag, 1);
    if (status != GCM_OK) {
        return status;
    }
    gcm_lco_num_recv_slots(lco, &nrecv);
    if ((slot != GCM_ANY_SLOT) && ((slot < 0) || (slot >= nrecv))) {
        return gcm_fail(GCM_ERR_NO_SUCH_SLOT, "gcm_iprobe",
                        "receive slot %d out of range (LCO has %d receive "
                        "slots)", slot, nrecv);
    }
    gcm_thr_progress(lco->port->endpoint);
    *flag_p = gcm_slots_iprobe(lco->port, slot, tag, &info);
    if (*flag_p && (status_p != NULL)) {
        *status_p = info;
    }
    return GCM_OK;
}

typedef struct gcm_probe_arg {
    gcm_port_t       *port;
    int               slot;
    int               tag;
    gcm_msg_status_t  info;
} gcm_probe_arg_t;

static int gcm_probe_done(void *arg)
{
    gcm_probe_arg_t *probe = arg;

    return gcm_slots_iprobe(probe->port, probe->slot, probe->tag,
                            &probe->info);
}

gcm_status_t gcm_probe(gcm_lco_h lco, int slot, int tag,
                       gcm_msg_status_t *status_p)
{
    gcm_probe_arg_t probe;
    gcm_status_t status;
    int flag;

    /* The checks of iprobe, and perhaps an answer at once. */
    status = gcm_iprobe(lco, slot, tag, &flag, status_p);
    if ((status != GCM_OK) || flag) {
        return status;
    }
    probe.port = lco->port;
    probe.slot = slot;
    probe.tag  = tag;
    gcm_lco_thr_wait(lco->port->endpoint, gcm_probe_done, &probe);
    if (status_p != NULL) {
        *status_p = probe.info;
    }
    return GCM_OK;
}

gcm_status_t gcm_send(gcm_lco_h lco, const void *buf, size_t len, int slot,
                      int tag)
{
    gcm_request_h req;
    gcm_status_t status = gcm_isend_f(lco, buf, len, slot, tag,
                                      GCM_SLOTS_XFER_NOREQ, &req);

    if ((status != GCM_OK) || (req == GCM_REQUEST_NULL)) {
        return status;
    }
    return gcm_wait_as("gcm_send", &req, NULL);
}

gcm_status_t gcm_recv(gcm_lco_h lco, void *buf, size_t len, int slot,
                      int tag, gcm_msg_status_t *status_p)
{
    gcm_msg_status_t info;
    gcm_request_h req;
    gcm_status_t status = gcm_irecv_f(lco, buf, len, slot, tag,
                                      GCM_SLOTS_XFER_NOREQ, &info, &req);

    if (status != GCM_OK) {
        return status;
    }
    if (req == GCM_REQUEST_NULL) {
        /* The message was waiting: received when posted. */
        if (status_p != NULL) {
            *status_p = info;
        }
        return GCM_OK;
    }
    return gcm_wait_as("gcm_recv", &req, status_p);
}

gcm_status_t gcm_progress(void)
{
    GCM_CHECK_INIT("gcm_progress");
    gcm_thr_progress(gcm_thr_endpoint_current());
    return GCM_OK;
}

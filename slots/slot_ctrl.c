/*
 * slots/slot_ctrl.c: payloads and control messages:
 * acknowledgements, refusals, rendezvous and shared-memory notices.
 */
#include "config.h"

#include "slots/slots_impl.h"
#include "boot/boot.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>

/* ---- payloads ------------------------------------------------------------- */

static void gcm_slots_send_ctrl_to(gcm_thr_endpoint_t *endpoint, int proc,
                                   int ep, const gcm_slots_ctrl_t *ctrl);

/* A same-host sender waits for the notice that its data was read (or
 * will never be, with why). */
static void gcm_slots_shm_data_notice(gcm_thr_endpoint_t *endpoint,
                                      const gcm_payload_t *payload,
                                      gcm_status_t status)
{
    gcm_slots_ctrl_t ctrl;

    memset(&ctrl, 0, sizeof(ctrl));
    ctrl.sreq     = payload->cookie;
    ctrl.status   = status;
    ctrl.src_slot = -1;
    ctrl.kind     = GCM_CTRL_DATA;
    gcm_slots_send_ctrl_to(endpoint, (int)payload->proc, payload->ep, &ctrl);
}

void gcm_slots_payload_release(gcm_thr_endpoint_t *endpoint,
                               gcm_payload_t *payload,
                               gcm_status_t sender_status)
{
    switch (payload->kind) {
    case GCM_PAYLOAD_SHM_RNDV:
        gcm_slots_shm_data_notice(endpoint, payload, sender_status);
        break;
    case GCM_PAYLOAD_HELD:
    case GCM_PAYLOAD_RNDV:
        /* Inside its own handler UCX releases it when the handler does
         * not keep it (and answers a rendezvous sender); releasing it
         * here too would free it twice. */
        if (!payload->in_cb) {
            gcm_thr_am_data_release(endpoint, payload->data);
        }
        break;
    case GCM_PAYLOAD_COPY:
        free(payload->data);
        break;
    case GCM_PAYLOAD_LOCAL:
        /* The sender's request still waits on this message. */
        gcm_slots_req_complete(payload->sreq, sender_status);
        break;
    default:
        break;
    }
    payload->kind = GCM_PAYLOAD_TRANSIENT;
}

static void gcm_slots_rndv_recv_done(gcm_thr_op_t *op, gcm_status_t status)
{
    struct gcm_request *req = gcm_container_of(op, struct gcm_request, op);

    if (req->tmpbuf != NULL) {
        memcpy(req->buf, req->tmpbuf, req->len);
        free(req->tmpbuf);
        req->tmpbuf = NULL;
        if (status == GCM_OK) {
            status = GCM_ERR_TRUNCATED;
        }
    }
    /* UCX fetched the whole message: one piece for a fold. */
    if ((req->fold != NULL) &&
        ((status == GCM_OK) || (status == GCM_ERR_TRUNCATED)) &&
        (req->info.count > 0)) {
        req->fold->fn(req->fold->ctx, 0, req->info.count);
    }
    gcm_slots_req_complete(req, status);
}

void gcm_slots_send_ctrl(gcm_thr_endpoint_t *endpoint,
                         const gcm_slots_env_t *env,
                         gcm_status_t status);

/* What every match does before the data moves: counts the message and
 * answers a synchronous sender, who waits for this moment, the match,
 * whatever becomes of the data. (A same-process sender is completed by
 * the release of its LOCAL payload instead.) Lock held. */
static void gcm_slots_matched(gcm_thr_endpoint_t *endpoint,
                              const gcm_slots_env_t *env,
                              const gcm_payload_t *payload)
{
    gcm_slots_count(endpoint, GCM_STAT_RECEIVED);
    if ((env->flags & GCM_ENV_FLAG_SYNC) &&
        (payload->kind != GCM_PAYLOAD_LOCAL)) {
        gcm_slots_send_ctrl(endpoint, env, GCM_OK);
    }
}

/* The n bytes of a message in memory (no rendezvous) into buf, folded
 * when the receive folds; the payload is released. Lock held. */
static void gcm_slots_copy_in(gcm_thr_endpoint_t *endpoint, void *buf,
                              size_t n, const gcm_slots_fold_t *fold,
                              gcm_payload_t *payload)
{
    if (n > 0) {
        memcpy(buf, payload->data, n);
        if (fold != NULL) {
            fold->fn(fold->ctx, 0, n);
        }
    }
    gcm_slots_payload_release(endpoint, payload, GCM_OK);
}

int gcm_slots_deliver_now(gcm_thr_endpoint_t *endpoint, void *buf,
                          size_t len, const gcm_slots_fold_t *fold,
                          const gcm_slots_env_t *env,
                          gcm_payload_t *payload, gcm_msg_status_t *info_p)
{
    if ((payload->kind == GCM_PAYLOAD_RNDV) ||
        (payload->kind == GCM_PAYLOAD_SHM_RNDV) || (payload->size > len)) {
        return 0;
    }
    if (info_p != NULL) {
        info_p->slot  = env->rslot;
        info_p->tag   = env->tag;
        info_p->count = payload->size;
        info_p->error = GCM_OK;
    }
    gcm_slots_matched(endpoint, env, payload);
    gcm_slots_copy_in(endpoint, buf, payload->size, fold, payload);
    return 1;
}

/*
 * Hands a message to a matched receive. For a rendezvous, starts pulling
 * the data straight into the user's buffer (or, if the buffer is too small,
 * into a temporary one so the first len bytes can still be delivered).
 * Lock held.
 */
void gcm_slots_deliver(gcm_thr_endpoint_t *endpoint,
                       struct gcm_request *req,
                       const gcm_slots_env_t *env,
                       gcm_payload_t *payload)
{
    size_t size = payload->size;
    size_t n = (size <= req->len) ? size : req->len;
    gcm_status_t status = (size <= req->len) ? GCM_OK : GCM_ERR_TRUNCATED;
    void *target;

    req->info.slot  = env->rslot;
    req->info.tag   = env->tag;
    req->info.count = n;
    gcm_slots_matched(endpoint, env, payload);

    if (payload->kind == GCM_PAYLOAD_SHM_RNDV) {
        /* One copy, straight from the sender's buffer; a truncated
         * message is read up to the receive's length only. */
        gcm_status_t rstatus = gcm_slots_shm_read(endpoint, payload,
                                                  req->buf, n, req->fold);
        gcm_slots_shm_data_notice(endpoint, payload, rstatus);
        payload->kind = GCM_PAYLOAD_TRANSIENT;
        gcm_slots_req_complete(req, (rstatus != GCM_OK) ? rstatus : status);
        return;
    }
    if (payload->kind != GCM_PAYLOAD_RNDV) {
        gcm_slots_copy_in(endpoint, req->buf, n, req->fold, payload);
        gcm_slots_req_complete(req, status);
        return;
    }

    target = req->buf;
    if (status == GCM_ERR_TRUNCATED) {
        req->tmpbuf = malloc(size);
        if (req->tmpbuf == NULL) {
            gcm_slots_payload_release(endpoint, payload, GCM_OK);
            gcm_slots_req_complete(req, GCM_ERR_NO_MEMORY);
            return;
        }
        target = req->tmpbuf;
    }
    req->op.done = gcm_slots_rndv_recv_done;
    status = gcm_thr_am_recv_data(endpoint, payload->data, target, size,
                                  &req->op);
    payload->kind = GCM_PAYLOAD_TRANSIENT;
    if (status == GCM_OK) {
        gcm_slots_rndv_recv_done(&req->op, GCM_OK);
    } else if (status != GCM_INPROGRESS) {
        free(req->tmpbuf);
        req->tmpbuf = NULL;
        gcm_slots_req_complete(req, status);
    }
}

/* ---- control messages ------------------------------------------------------ */

/* Drops a message no receive will take (its LCO freed, finalize): a
 * synchronous remote sender is told, so it does not wait forever. Lock
 * held. */
void gcm_slots_umsg_drop(gcm_thr_endpoint_t *endpoint,
                         gcm_slots_umsg_t *umsg, gcm_status_t status)
{
    if ((umsg->env.flags & GCM_ENV_FLAG_SYNC) &&
        (umsg->payload.kind != GCM_PAYLOAD_LOCAL)) {
        gcm_slots_send_ctrl(endpoint, &umsg->env, status);
    }
    gcm_slots_payload_release(endpoint, &umsg->payload, status);
    free(umsg);
}

/* A control message on its way over UCX: lives until UCX is done. */
typedef struct gcm_slots_ctrl_out {
    gcm_thr_op_t     op;
    gcm_slots_ctrl_t ctrl;
} gcm_slots_ctrl_out_t;

static void gcm_slots_ctrl_sent(gcm_thr_op_t *op, gcm_status_t status)
{
    free(gcm_container_of(op, gcm_slots_ctrl_out_t, op));
}

/* Sends a control message to endpoint ep of proc: through shared memory
 * if that is how this connection goes, else over UCX; best effort: a
 * sender that is gone needs no answer. Lock held. */
static void gcm_slots_send_ctrl_to(gcm_thr_endpoint_t *endpoint, int proc,
                                   int ep, const gcm_slots_ctrl_t *in)
{
    gcm_thr_conn_t *conn = gcm_thr_conn_get(endpoint, proc, ep);
    gcm_slots_ctrl_t claim = *in;
    const gcm_slots_ctrl_t *msg = &claim;
    gcm_slots_ctrl_out_t *out;

    if ((conn == NULL) || (conn->failed != GCM_OK)) {
        return;
    }
    claim.src_proc = (uint32_t)gcm_slots_proc.myproc;
    claim.src_ep   = (uint16_t)endpoint->index;
    claim.flags    = gcm_thr_proc_other(proc) ? GCM_ENV_FLAG_OTHER : 0;
    if (gcm_slots_shm_usable(endpoint, conn)) {
        gcm_slots_shm_send_ctrl(endpoint, conn, msg);
        gcm_slots_count(endpoint, GCM_STAT_CONTROL);
        return;
    }
    if (gcm_thr_conn_connect(endpoint, conn) != GCM_OK) {
        return;
    }
    out = malloc(sizeof(*out));
    if (out == NULL) {
        return;
    }
    out->ctrl    = *msg;
    out->op.done = gcm_slots_ctrl_sent;
    if (gcm_thr_am_send(conn, GCM_AM_CTRL, &out->ctrl, sizeof(out->ctrl),
                        NULL, 0, GCM_THR_SEND_EAGER, &out->op) !=
        GCM_INPROGRESS) {
        free(out);
    }
    gcm_slots_count(endpoint, GCM_STAT_CONTROL);
}

/* Answers a message (accept or refuse). Lock held. */
void gcm_slots_send_ctrl(gcm_thr_endpoint_t *endpoint,
                         const gcm_slots_env_t *env,
                         gcm_status_t status)
{
    gcm_slots_ctrl_t ctrl;

    memset(&ctrl, 0, sizeof(ctrl));
    ctrl.sreq     = env->sreq;
    ctrl.status   = status;
    ctrl.src_id   = env->src_id;
    ctrl.src_slot = env->src_slot;
    ctrl.kind     = GCM_CTRL_ANSWER;
    gcm_slots_send_ctrl_to(endpoint, (int)env->src_proc, env->src_ep, &ctrl);
}

void gcm_slots_edge_refused(gcm_slots_edge_t *edge,
                            gcm_status_t status)
{
    if ((edge != NULL) && (status != GCM_OK)) {
        edge->state = status;
    }
}

void gcm_slots_ctrl_in(gcm_thr_endpoint_t *endpoint, gcm_thr_conn_t *conn,
                       const gcm_slots_ctrl_t *msg)
{
    gcm_slots_ep_t *sep = gcm_slots_ep(endpoint);
    gcm_slots_ctrl_t ctrl = *msg;
    int bit = (ctrl.kind == GCM_CTRL_DATA) ? GCM_RWAIT_DATA :
                                             GCM_RWAIT_ANSWER;
    gcm_list_t *pos, *tmp;
    gcm_port_t *port;

    gcm_list_for_each_safe(pos, tmp, &sep->ackwait) {
        struct gcm_request *req = gcm_container_of(pos, struct gcm_request,
                                                   elem);
        /* Only the process a request went to answers it. */
        if ((req->id != ctrl.sreq) || !(req->rwait & bit) ||
            (req->dest_proc != conn->proc)) {
            continue;
        }
        req->rwait &= ~bit;
        if (req->rwait == 0) {
            gcm_list_del(&req->elem);
        }
        if ((req->edge != NULL) && (bit == GCM_RWAIT_ANSWER)) {
            if (ctrl.status == GCM_OK) {
                if (req->edge->state == GCM_EDGE_NEW) {
                    req->edge->state = GCM_EDGE_VALIDATED;
                }
            } else {
                gcm_slots_edge_refused(req->edge, (gcm_status_t)ctrl.status);
            }
        }
        gcm_slots_send_part_done(req, (gcm_status_t)ctrl.status);
        return;
    }
    /* A refusal on an edge that had been accepted before (its LCO freed
     * since): no request waits, so mark the edge for the next send. */
    if ((ctrl.status != GCM_OK) && (bit == GCM_RWAIT_ANSWER)) {
        port = gcm_slots_port_find(endpoint, ctrl.src_id, 0);
        /* Patterns have no edges to mark. */
        if ((port != NULL) && !port->pattern && (ctrl.src_slot >= 0) &&
            (ctrl.src_slot < port->nsend) &&
            (port->edges[ctrl.src_slot]->dest.proc ==
             (uint32_t)conn->proc)) {
            gcm_slots_edge_refused(port->edges[ctrl.src_slot],
                                   (gcm_status_t)ctrl.status);
        }
        gcm_warn("a message from LCO %u slot %d was refused: %s", ctrl.src_id,
                 ctrl.src_slot, gcm_status_string((gcm_status_t)ctrl.status));
    }
}

gcm_status_t gcm_slots_ctrl_decode(const void *buf, size_t len,
                                   gcm_slots_ctrl_t *ctrl_p)
{
    if ((buf == NULL) || (len != sizeof(*ctrl_p))) {
        return GCM_ERR_INVALID_PARAM;
    }
    memcpy(ctrl_p, buf, sizeof(*ctrl_p));
    return GCM_OK;
}

int gcm_slots_am_ctrl(gcm_thr_endpoint_t *endpoint, const void *header,
                      size_t header_length, void *data, size_t length,
                      unsigned flags, struct ucp_ep *reply_ep)
{
    gcm_slots_ctrl_t ctrl;
    gcm_thr_conn_t *conn;

    (void)data;
    (void)length;
    if (gcm_slots_ctrl_decode(header, header_length, &ctrl) != GCM_OK) {
        gcm_warn("control message of %zu bytes ignored", header_length);
        return 0;
    }
    conn = gcm_thr_conn_identify(endpoint, reply_ep, (int)ctrl.src_proc,
                                 ctrl.src_ep,
                                 !!(ctrl.flags & GCM_ENV_FLAG_OTHER));
    if (conn != NULL) {
        gcm_slots_ctrl_in(endpoint, conn, &ctrl);
    }
    return 0;
}

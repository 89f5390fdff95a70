/*
 * slots/slot_send.c: sending: the eager, rendezvous,
 * shared-memory and same-process protocols.
 */
#include "config.h"

#include "slots/slots_impl.h"
#include "boot/boot.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>

/* ---- sending ------------------------------------------------------------- */

/* Why a UCX send of req ended with status. Sends are cancelled only by the
 * forced close of a connection whose peer failed (gcm_thr_peer_failed);
 * and whatever error UCX gives for a peer the launcher reported dead, or
 * for a peer of this host that is dying (the launcher has not seen it
 * yet), that is why it failed. */
static gcm_status_t gcm_slots_send_status(const struct gcm_request *req,
                                          gcm_status_t status)
{
    if ((status == GCM_OK) || (status == GCM_INPROGRESS)) {
        return status;
    }
    if ((status == GCM_ERR_CANCELED) || gcm_thr_proc_dead(req->dest_proc) ||
        gcm_slots_shm_peer_dying(req->dest_proc)) {
        return GCM_ERR_PEER_FAILED;
    }
    return status;
}

static void gcm_slots_send_done(gcm_thr_op_t *op, gcm_status_t status)
{
    struct gcm_request *req = gcm_container_of(op, struct gcm_request, op);

    gcm_slots_send_part_done(req, gcm_slots_send_status(req, status));
}

/* Same process: deliver under the destination endpoint's lock. */
static void gcm_slots_send_local(struct gcm_request *req,
                                 const gcm_slots_dest_t *dest,
                                 const void *buf, size_t len, int sync)
{
    gcm_thr_endpoint_t *dst = gcm_thr_endpoint_get(dest->ep);
    gcm_payload_t payload;
    gcm_status_t status;
    gcm_port_t *port;
    /* A synchronous send must wait for the receive: it takes the path of
     * large messages, which completes when a receive copies it. */
    int copied = (len <= gcm_slots_config.eager_limit) && !sync;

    if (dst == NULL) {
        gcm_slots_edge_refused(req->edge, GCM_ERR_NO_SUCH_LCO);
        gcm_slots_req_complete(req, GCM_ERR_NO_SUCH_LCO);
        return;
    }
    payload.data     = (void *)buf;
    payload.size     = len;
    payload.sreq     = req;
    payload.can_hold = 0;
    payload.in_cb    = 0;
    /* Small messages are copied so the send completes at once; large ones
     * stay in the sender's buffer until a receive copies them once. */
    payload.kind = copied ? GCM_PAYLOAD_TRANSIENT : GCM_PAYLOAD_LOCAL;
    gcm_slots_count_unlocked(req->endpoint, GCM_STAT_LOCAL);
    if (!copied) {
        /* Completed by the receive, under the destination's lock, which
         * orders this before it. */
        req->counted = 1;
        gcm_thr_pending_add(req->endpoint);
    }

    gcm_thr_lock(dst);
    port = gcm_slots_port_find(dst, dest->id, dest->gen);
    if ((port == NULL) && (dest->id & GCM_PORT_ID_DERIVED) &&
        gcm_slots_token_known(dest->token)) {
        status = GCM_OK; /* not created here yet: accept parks it */
    } else {
        status = gcm_slots_validate(port, &req->env);
    }
    if (status != GCM_OK) {
        gcm_thr_unlock(dst);
        gcm_slots_edge_refused(req->edge, status);
        gcm_slots_req_complete(req, status);
        return;
    }
    if (req->edge != NULL) {
        req->edge->state = GCM_EDGE_VALIDATED;
    }
    if (gcm_slots_accept(dst, &req->env, &payload) == GCM_ACCEPT_LOST) {
        /* The LOCAL kind was completed with the error by its release. */
        gcm_thr_unlock(dst);
        if (copied) {
            gcm_slots_req_complete(req, GCM_ERR_NO_MEMORY);
        }
        return;
    }
    gcm_thr_unlock(dst);
    if (copied) {
        /* Delivered or copied: the sender's buffer is free again. A large
         * message completes the send when a receive has copied it. */
        gcm_slots_req_complete(req, GCM_OK);
    }
}

/*
 * Same host, another process: the message goes through the peer's ring.
 * Its parts: written into the ring; the answer if it asks for one; for a
 * large message, the notice that the receiver has read it. Lock held.
 */
static void gcm_slots_isend_shm(gcm_thr_endpoint_t *endpoint,
                                gcm_thr_conn_t *conn,
                                struct gcm_request *req, const void *buf,
                                size_t len, int sync)
{
    gcm_slots_ep_t *sep = gcm_slots_ep(endpoint);

    if (conn->failed != GCM_OK) {
        gcm_slots_req_complete(req, conn->failed);
        return;
    }
    req->pending = 1;
    if (sync || ((req->edge != NULL) &&
                 (req->edge->state == GCM_EDGE_NEW))) {
        req->env.flags |= sync ? GCM_ENV_FLAG_SYNC : GCM_ENV_FLAG_ACK;
        req->rwait     |= GCM_RWAIT_ANSWER;
        req->pending++;
    }
    if (len > GCM_SLOTS_SHM_CELL_DATA) {
        /* The receiver reads it, or offers us chunks to write: from
         * here, and never more than len (slot_shm_coop.c). */
        req->buf    = (void *)buf;
        req->len    = len;
        req->rwait |= GCM_RWAIT_DATA;
        req->pending++;
    }
    if (req->rwait != 0) {
        req->id       = ++sep->next_req_id;
        req->env.sreq = req->id;
        gcm_list_push_back(&sep->ackwait, &req->elem);
    }
    req->env.seq = conn->tx_seq++;
    gcm_slots_count(endpoint, GCM_STAT_REMOTE);
    gcm_slots_shm_send_msg(endpoint, conn, req, buf, len);
}

/* The request-free send over shared memory (gcm_slots_shm_send_now):
 * returns 1 if the message left, 0 if it must go with a request. */
static int gcm_slots_isend_now(gcm_thr_endpoint_t *endpoint,
                               const gcm_slots_dest_t *dest,
                               gcm_slots_env_t *env, const void *buf,
                               size_t len)
{
    gcm_thr_conn_t *conn;
    int sent = 0;

    gcm_thr_lock(endpoint);
    conn = gcm_thr_conn_find(endpoint, (int)dest->proc, dest->ep);
    if ((conn != NULL) && (conn->failed == GCM_OK) &&
        gcm_slots_shm_on(endpoint, conn)) {
        env->seq = conn->tx_seq;
        sent = gcm_slots_shm_send_now(conn, env, buf, len);
        if (sent) {
            conn->tx_seq++;
            gcm_slots_count(endpoint, GCM_STAT_REMOTE);
        }
    }
    gcm_thr_unlock(endpoint);
    return sent;
}

/* Where slot (in range) of pattern port leads. */
static inline void gcm_slots_pattern_dest(const gcm_port_t *port, int slot,
                                          gcm_slots_dest_t *dest)
{
    dest->proc  = (uint32_t)gcm_slots_pattern_proc(port, slot);
    dest->ep    = (uint16_t)gcm_slots_pattern_ep(port, (int)dest->proc);
    dest->id    = port->id;
    dest->gen   = port->gen;
    dest->token = port->token;
    dest->rslot = port->myrank;
}

/* The envelope of a message on slot of port to dest, but its tag, size,
 * sequence number, flags and answer id (env cleared before). */
static inline void gcm_slots_env_fill(const gcm_port_t *port, int slot,
                                      const gcm_slots_dest_t *dest,
                                      gcm_slots_env_t *env)
{
    env->dst_id   = dest->id;
    env->dst_gen  = dest->gen;
    env->token    = dest->token;
    env->rslot    = dest->rslot;
    env->src_proc = (uint32_t)gcm_slots_proc.myproc;
    env->src_ep   = (uint16_t)port->endpoint->index;
    env->src_id   = port->id;
    env->src_slot = slot;
}

/* Fills keep for slot of port: its connection only where a request-free
 * send can use it (a pattern port's slot in range, to another process,
 * over shared memory). Lock not held. */
static void gcm_slots_keep_fill(gcm_port_t *port, int slot,
                                gcm_slots_send_keep_t *keep)
{
    gcm_thr_endpoint_t *endpoint = port->endpoint;
    gcm_slots_dest_t dest = { 0 };
    gcm_thr_conn_t *conn = NULL;

    memset(&keep->env, 0, sizeof(keep->env));
    keep->env.src_id   = port->id;    /* what says whose keep it is */
    keep->env.src_slot = slot;
    keep->port = port;
    keep->conn = NULL;
    if (!port->pattern || (slot < 0) || (slot >= port->nsend)) {
        return;
    }
    gcm_slots_pattern_dest(port, slot, &dest);
    gcm_slots_env_fill(port, slot, &dest, &keep->env);
    if ((int)dest.proc == gcm_slots_proc.myproc) {
        return;
    }
    gcm_thr_lock(endpoint);
    conn = gcm_thr_conn_find(endpoint, (int)dest.proc, dest.ep);
    if ((conn != NULL) && gcm_slots_shm_on(endpoint, conn)) {
        /* Connections live until finalize: the pointer stays good. */
        keep->conn = conn;
    }
    gcm_thr_unlock(endpoint);
}

gcm_status_t gcm_slots_isend_kept(gcm_port_t *port, const void *buf,
                                  size_t len, int slot, int tag,
                                  gcm_slots_send_keep_t *keep,
                                  const char *call, gcm_request_h *req_p)
{
    gcm_thr_endpoint_t *endpoint = port->endpoint;
    gcm_thr_conn_t *conn;
    int sent = 0;

    /* Port ids are never reused: a keep filled for a freed port whose
     * memory came back as this one is refilled too. */
    if (gcm_unlikely((keep->port != port) || (keep->env.src_id != port->id) ||
                     (keep->env.src_slot != slot))) {
        gcm_slots_keep_fill(port, slot, keep);
    }
    conn = keep->conn;
    if ((conn != NULL) && (len <= GCM_SLOTS_SHM_CELL_DATA)) {
        gcm_thr_lock(endpoint);
        if (gcm_likely((conn->failed == GCM_OK) && (conn->shm > 0))) {
            keep->env.tag  = tag;
            keep->env.size = len;
            keep->env.seq  = conn->tx_seq;
            sent = gcm_slots_shm_send_now(conn, &keep->env, buf, len);
            if (sent) {
                conn->tx_seq++;
                gcm_slots_count(endpoint, GCM_STAT_REMOTE);
            }
        }
        gcm_thr_unlock(endpoint);
        if (sent) {
            *req_p = GCM_REQUEST_NULL;
            return GCM_OK;
        }
    }
    return gcm_slots_isend_x(port, buf, len, slot, tag, GCM_SLOTS_XFER_NOREQ,
                             call, req_p);
}

gcm_status_t gcm_slots_isend(gcm_port_t *port, const void *buf, size_t len,
                             int slot, int tag, gcm_request_h *req_p)
{
    return gcm_slots_isend_x(port, buf, len, slot, tag, 0, "gcm_isend",
                             req_p);
}

gcm_status_t gcm_slots_isend_x(gcm_port_t *port, const void *buf, size_t len,
                               int slot, int tag, int flags,
                               const char *call, gcm_request_h *req_p)
{
    int sync = !!(flags & GCM_SLOTS_SEND_SYNC);
    gcm_thr_endpoint_t *endpoint = port->endpoint;
    gcm_slots_edge_t *edge = NULL;
    gcm_slots_dest_t dest = { 0 };
    gcm_slots_env_t env = { 0 };
    struct gcm_request *req;
    gcm_thr_conn_t *conn;
    gcm_status_t status;
    int nsend, state = GCM_EDGE_VALIDATED;

    if (port->pattern) {
        nsend = port->nsend;
        if ((slot >= 0) && (slot < nsend)) {
            gcm_slots_pattern_dest(port, slot, &dest);
        }
    } else {
        /* Another thread may be adding slots: read the table locked. */
        gcm_thr_lock(endpoint);
        nsend = port->nsend;
        if ((slot >= 0) && (slot < nsend)) {
            edge  = port->edges[slot];
            dest  = edge->dest;
            state = edge->state;
        }
        gcm_thr_unlock(endpoint);
    }
    if ((slot < 0) || (slot >= nsend)) {
        return gcm_fail(GCM_ERR_NO_SUCH_SLOT, call,
                        "send slot %d out of range (LCO has %d send slots)",
                        slot, nsend);
    }

    gcm_slots_env_fill(port, slot, &dest, &env);
    env.tag  = tag;
    env.size = len;
    /* A small message to another process of the host, on an edge that
     * needs no answer, leaves at once when its ring has room: asked for
     * no request, it gets none. */
    if ((flags & GCM_SLOTS_XFER_NOREQ) && !sync &&
        (state == GCM_EDGE_VALIDATED) &&
        (len <= GCM_SLOTS_SHM_CELL_DATA) &&
        ((int)dest.proc != gcm_slots_proc.myproc) &&
        (gcm_slots_isend_now(endpoint, &dest, &env, buf, len) == 1)) {
        *req_p = GCM_REQUEST_NULL;
        return GCM_OK;
    }

    req = gcm_slots_req_alloc(endpoint, GCM_REQ_SEND);
    if (req == NULL) {
        return GCM_ERR_NO_MEMORY;
    }
    req->info.slot  = slot;
    req->info.tag   = tag;
    req->info.count = len;
    if (state < 0) {
        gcm_fail((gcm_status_t)state, call, "send slot %d was refused "
                 "by its receiver earlier", slot);
        gcm_slots_req_complete(req, (gcm_status_t)state);
        *req_p = gcm_slots_req_handle(req);
        return GCM_OK;
    }
    req->edge      = edge;
    req->dest_proc = (int)dest.proc;
    req->env       = env;

    if ((int)dest.proc == gcm_slots_proc.myproc) {
        gcm_slots_send_local(req, &dest, buf, len, sync);
        gcm_slots_req_hand_out(req, flags, NULL, req_p);
        return GCM_OK;
    }

    gcm_thr_lock(endpoint);
    conn = gcm_thr_conn_find(endpoint, (int)dest.proc, dest.ep);
    if (conn == NULL) {
        status = GCM_ERR_NO_MEMORY;
        goto err_unlock;
    }
    if (gcm_slots_shm_on(endpoint, conn)) {
        gcm_slots_isend_shm(endpoint, conn, req, buf, len, sync);
        gcm_slots_req_posted(req);
        gcm_thr_unlock(endpoint);
        gcm_slots_req_hand_out(req, flags, NULL, req_p);
        return GCM_OK;
    }
    status = gcm_thr_conn_connect(endpoint, conn);
    if (status != GCM_OK) {
        goto err_unlock;
    }
    if (gcm_thr_proc_other(conn->proc)) {
        req->env.flags |= GCM_ENV_FLAG_OTHER;
    }
    req->pending = 1;
    if (sync || ((edge != NULL) && (edge->state == GCM_EDGE_NEW))) {
        /* Until the receiver accepts this edge once, every message asks
         * for an answer, so a refusal reaches the request that caused it.
         * A synchronous send asks for its answer at the match instead,
         * which is an acceptance too. */
        gcm_slots_ep_t *sep = gcm_slots_ep(endpoint);
        req->env.flags |= sync ? GCM_ENV_FLAG_SYNC : GCM_ENV_FLAG_ACK;
        req->id          = ++sep->next_req_id;
        req->env.sreq    = req->id;
        req->rwait       = GCM_RWAIT_ANSWER;
        req->pending++;
        gcm_list_push_back(&sep->ackwait, &req->elem);
    }
    req->env.seq = conn->tx_seq++;

    req->op.done = gcm_slots_send_done;
    status = gcm_thr_am_send(conn, GCM_AM_MSG, &req->env, sizeof(req->env),
                             buf, len,
                             (len <= gcm_slots_config.eager_limit) ?
                             GCM_THR_SEND_EAGER : GCM_THR_SEND_RNDV,
                             &req->op);
    gcm_slots_count(endpoint, GCM_STAT_REMOTE);
    if (status == GCM_OK) {
        gcm_slots_send_part_done(req, GCM_OK);
    } else if (status != GCM_INPROGRESS) {
        if (req->env.flags & (GCM_ENV_FLAG_ACK | GCM_ENV_FLAG_SYNC)) {
            gcm_list_del(&req->elem);
            req->rwait = 0;
            req->pending--;
        }
        gcm_slots_send_part_done(req, gcm_slots_send_status(req, status));
    }
    gcm_slots_req_posted(req);
    gcm_thr_unlock(endpoint);
    gcm_slots_req_hand_out(req, flags, NULL, req_p);
    return GCM_OK;

err_unlock:
    gcm_thr_unlock(endpoint);
    gcm_slots_req_complete(req, status);
    *req_p = gcm_slots_req_handle(req);
    return GCM_OK;
}

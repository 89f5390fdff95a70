/*
 * slots/slot_recv.c: receiving: validation, the in-sequence
 * delivery of messages, matching, unexpected messages, receives, probes
 * and cancel.
 */
#include "config.h"

#include "slots/slots_impl.h"
#include "boot/boot.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>

/* ---- receiving ------------------------------------------------------------- */

gcm_status_t gcm_slots_validate(gcm_port_t *port,
                                const gcm_slots_env_t *env)
{
    if ((port == NULL) || port->freed || (port->gen != env->dst_gen)) {
        return GCM_ERR_NO_SUCH_LCO;
    }
    if (env->token == port->token) {
        /* A pattern's receive slots are fixed: the sender's rank must be
         * one of them. It is checked against this (the receiving) port's
         * count, which for an intercommunicator is the sender's local
         * group size, not the sender's send slot count. Explicit ports
         * accept slots not added yet. */
        if (port->pattern &&
            ((env->rslot < 0) || (env->rslot >= port->nrecv))) {
            return GCM_ERR_NO_SUCH_SLOT;
        }
        return GCM_OK;
    }
    if ((port->rtokens != NULL) && (env->rslot >= 0) &&
        (env->rslot < port->nrecv) && (port->rtokens[env->rslot] != 0) &&
        (env->token == port->rtokens[env->rslot])) {
        return GCM_OK;
    }
    return GCM_ERR_BAD_TOKEN;
}

gcm_status_t gcm_slots_env_decode(const void *buf, size_t len,
                                  gcm_slots_env_t *env_p)
{
    if ((buf == NULL) || (len != sizeof(*env_p))) {
        return GCM_ERR_INVALID_PARAM;
    }
    memcpy(env_p, buf, sizeof(*env_p));
    return GCM_OK;
}

/*
 * An entry that owns a message beyond the current call: data UCX lets us
 * keep is kept (*kept_p tells the handler to keep the data),
 * transient data is copied. NULL without memory.
 */
static gcm_slots_umsg_t *gcm_slots_umsg_new(const gcm_slots_env_t *env,
                                            const gcm_payload_t *payload,
                                            int *kept_p)
{
    /* Small data a receive must copy anyway lives in the entry itself:
     * one allocation per unexpected message instead of two. */
    int inl = (((payload->kind == GCM_PAYLOAD_TRANSIENT) &&
                !payload->can_hold) ||
               (payload->kind == GCM_PAYLOAD_INLINE)) &&
              (payload->size <= GCM_SLOTS_UMSG_INLINE);
    gcm_slots_umsg_t *umsg = malloc(sizeof(*umsg) +
                                    (inl ? payload->size : 0));

    *kept_p = 0;
    if (umsg == NULL) {
        return NULL;
    }
    umsg->env           = *env;
    umsg->payload       = *payload;
    umsg->payload.in_cb = 0;
    if (inl) {
        umsg->payload.kind = GCM_PAYLOAD_INLINE;
        umsg->payload.data = umsg + 1;
        if (payload->size > 0) {
            memcpy(umsg + 1, payload->data, payload->size);
        }
        return umsg;
    }
    if ((payload->kind == GCM_PAYLOAD_TRANSIENT) && payload->can_hold) {
        umsg->payload.kind = GCM_PAYLOAD_HELD;
    }
    if ((umsg->payload.kind == GCM_PAYLOAD_HELD) ||
        (umsg->payload.kind == GCM_PAYLOAD_RNDV)) {
        *kept_p = payload->in_cb;
        return umsg;
    }
    if ((umsg->payload.kind == GCM_PAYLOAD_TRANSIENT) ||
        (umsg->payload.kind == GCM_PAYLOAD_INLINE)) {
        umsg->payload.kind = GCM_PAYLOAD_COPY;
        umsg->payload.data = malloc((payload->size > 0) ? payload->size : 1);
        if (umsg->payload.data == NULL) {
            free(umsg);
            return NULL;
        }
        memcpy(umsg->payload.data, payload->data, payload->size);
    }
    return umsg;
}

/* A waiter must not sleep while handler calls it could run are ready. */
int gcm_slots_sleep_prepare(gcm_thr_endpoint_t *endpoint)
{
    gcm_slots_ep_t *sep = gcm_slots_ep(endpoint);
    int ready = 0;

    if (!gcm_slots_in_handler &&
        (atomic_load_explicit(&sep->nhcalls, memory_order_relaxed) > 0)) {
        gcm_thr_lock(endpoint);
        ready = !sep->hrunning && (gcm_slots_hcall_ready(sep) != NULL);
        gcm_thr_unlock(endpoint);
    }
    return ready ? -2 : gcm_slots_shm_sleep_prepare(endpoint);
}

/*
 * Whether a message for derived port env->dst_id, not made here, waits
 * for it. With a token a port here holds (the job's, or one of a pattern
 * shared with another job), it does. With one no port here holds yet (a
 * pattern of connect, accept, spawn or join whose token reached the
 * sender first), bounded and for a time only: from another job, whatever
 * sent it; from this job, only from a member of that pattern (its LCO
 * has the destination's identity), whose root told it the token before
 * ours told us. A name forged within the job (an LCO of its own sending
 * to a derived id) is refused at once.
 */
static int gcm_slots_orphan_keep(gcm_thr_endpoint_t *endpoint,
                                 const gcm_slots_env_t *env)
{
    if (gcm_slots_token_known(env->token)) {
        return 1;
    }
    return (gcm_slots_ep(endpoint)->orphans_unknown <
            GCM_SLOTS_ORPHANS_UNKNOWN) &&
           (gcm_thr_proc_other((int)env->src_proc) ||
            (env->src_id == env->dst_id));
}

/*
 * Takes one in-sequence message: validates, answers if asked, matches a
 * posted receive or queues it as unexpected. Lock held.
 */
int gcm_slots_accept(gcm_thr_endpoint_t *endpoint,
                     const gcm_slots_env_t *env,
                     gcm_payload_t *payload)
{
    gcm_port_t *port = gcm_slots_port_find(endpoint, env->dst_id,
                                           env->dst_gen);
    gcm_status_t status = gcm_slots_validate(port, env);
    gcm_slots_umsg_t *umsg;
    gcm_list_t *pos, *tmp;
    int kept;

    if ((port == NULL) && (env->dst_id & GCM_PORT_ID_DERIVED) &&
        gcm_slots_orphan_keep(endpoint, env)) {
        /* A duplicate the sender made already and we not yet: keep the
         * message for it (design: parked, not refused). */
        int other = !gcm_slots_token_known(env->token);

        umsg = gcm_slots_umsg_new(env, payload, &kept);
        if (umsg == NULL) {
            gcm_slots_payload_release(endpoint, payload, GCM_ERR_NO_MEMORY);
            return GCM_ACCEPT_LOST;
        }
        umsg->payload.orphan_unknown = other;
        if (other) {
            gcm_slots_ep_t *sep = gcm_slots_ep(endpoint);

            umsg->payload.orphan_expiry = gcm_time_now() +
                                          gcm_thr_connect_timeout();
            if ((sep->orphans_unknown == 0) ||
                (umsg->payload.orphan_expiry < sep->orphans_next)) {
                sep->orphans_next = umsg->payload.orphan_expiry;
            }
        }
        gcm_slots_ep(endpoint)->orphans_unknown += other;
        gcm_list_push_back(&gcm_slots_ep(endpoint)->orphans, &umsg->elem);
        gcm_debug("message for duplicate LCO %x from proc %u waits for it",
                  env->dst_id, env->src_proc);
        return kept ? GCM_ACCEPT_KEPT : GCM_ACCEPT_DONE;
    }
    if ((status == GCM_OK) && !gcm_slots_sender_ok(port, env)) {
        gcm_warn("process %u sent on receive slot %d of LCO %x, which "
                 "belongs to process %d: refused", env->src_proc,
                 env->rslot, env->dst_id,
                 gcm_slots_pattern_proc(port, env->rslot));
        status = GCM_ERR_BAD_TOKEN;
    }
    if (status != GCM_OK) {
        gcm_debug("refusing message for LCO %u from proc %u: %s",
                  env->dst_id, env->src_proc, gcm_status_string(status));
        gcm_slots_send_ctrl(endpoint, env, status);
        gcm_slots_payload_release(endpoint, payload, status);
        return GCM_ACCEPT_DONE;
    }
    if (env->flags & GCM_ENV_FLAG_ACK) {
        gcm_slots_send_ctrl(endpoint, env, GCM_OK);
    }
    if (!port->pattern && (env->rslot >= 0) && (env->rslot < port->nrecv)) {
        port->rpeer[env->rslot] = (int)env->src_proc;
    }
    if ((env->rslot >= 0) && (env->rslot < port->nhandlers) &&
        (port->handlers[env->rslot].fn != NULL) &&
        gcm_slots_matches(env->rslot, GCM_ANY_TAG, env->rslot, env->tag)) {
        return gcm_slots_hcall_queue(endpoint, port, env, payload);
    }

    gcm_list_for_each_safe(pos, tmp, &port->posted) {
        struct gcm_request *req = gcm_container_of(pos, struct gcm_request,
                                                   elem);
        if (gcm_slots_matches(req->slot, req->tag, env->rslot, env->tag)) {
            gcm_list_del(&req->elem);
            gcm_slots_deliver(endpoint, req, env, payload);
            return GCM_ACCEPT_DONE;
        }
    }

    /* Nobody waits for it yet. */
    umsg = gcm_slots_umsg_new(env, payload, &kept);
    if (umsg == NULL) {
        gcm_error("out of memory queueing a message for LCO %u from proc %u",
                  env->dst_id, env->src_proc);
        gcm_slots_payload_release(endpoint, payload, GCM_ERR_NO_MEMORY);
        return GCM_ACCEPT_LOST;
    }
    gcm_slots_unexp_add(port, umsg);
    return kept ? GCM_ACCEPT_KEPT : GCM_ACCEPT_DONE;
}

void gcm_slots_orphans_expire(gcm_thr_endpoint_t *endpoint)
{
    gcm_slots_ep_t *sep = gcm_slots_ep(endpoint);
    gcm_list_t *pos, *tmp;
    double now, next = 0;

    now = gcm_time_now();
    if (now < sep->orphans_next) {
        return;
    }
    gcm_list_for_each_safe(pos, tmp, &sep->orphans) {
        gcm_slots_umsg_t *umsg = gcm_container_of(pos, gcm_slots_umsg_t,
                                                  elem);
        if (!umsg->payload.orphan_unknown) {
            continue;
        }
        if (now < umsg->payload.orphan_expiry) {
            if ((next == 0) || (umsg->payload.orphan_expiry < next)) {
                next = umsg->payload.orphan_expiry;
            }
            continue;
        }
        gcm_list_del(&umsg->elem);
        sep->orphans_unknown--;
        gcm_debug("a message from process %u for LCO %x, with a token "
                  "no LCO here holds, which was not made here within %u s "
                  "(GENCOMM_CONNECT_TIMEOUT), is refused",
                  umsg->env.src_proc, umsg->env.dst_id,
                  gcm_thr_connect_timeout());
        gcm_slots_send_ctrl(endpoint, &umsg->env, GCM_ERR_NO_SUCH_LCO);
        gcm_slots_payload_release(endpoint, &umsg->payload,
                                  GCM_ERR_NO_SUCH_LCO);
        free(umsg);
    }
    sep->orphans_next = next;
}

void gcm_slots_park(gcm_thr_conn_t *conn, gcm_slots_umsg_t *umsg)
{
    gcm_list_t *pos = conn->parked.next;

    while (pos != &conn->parked) {
        gcm_slots_umsg_t *other = gcm_container_of(pos, gcm_slots_umsg_t,
                                                   elem);
        if (other->env.seq > umsg->env.seq) {
            break;
        }
        pos = pos->next;
    }
    gcm_list_insert_before(pos, &umsg->elem);
    conn->nparked++;
}

/* Whether a message with sequence number seq is parked on conn. */
static int gcm_slots_parked_has(gcm_thr_conn_t *conn, uint64_t seq)
{
    gcm_list_t *pos;

    for (pos = conn->parked.next; pos != &conn->parked; pos = pos->next) {
        gcm_slots_umsg_t *other = gcm_container_of(pos, gcm_slots_umsg_t,
                                                   elem);
        if (other->env.seq >= seq) {
            return other->env.seq == seq;
        }
    }
    return 0;
}

/*
 * A message could not be kept (no memory), or broke the connection's
 * sequence: rather than lose it silently, fail the connection, so that
 * everything that depends on its sender completes with an error, and drop
 * what was parked behind it.
 */
static void gcm_slots_conn_lost(gcm_thr_endpoint_t *endpoint,
                                gcm_thr_conn_t *conn, gcm_status_t reason)
{
    while (!gcm_list_empty(&conn->parked)) {
        gcm_slots_umsg_t *umsg = gcm_container_of(conn->parked.next,
                                                  gcm_slots_umsg_t, elem);
        gcm_list_del(&umsg->elem);
        gcm_slots_payload_release(endpoint, &umsg->payload, reason);
        free(umsg);
    }
    conn->nparked = 0;
    gcm_thr_peer_failed(endpoint, conn->proc, reason);
}

/* A message that cannot be in the connection's sequence: one already
 * delivered, one parked already, or one more beyond the bound. Lock
 * held. */
static void gcm_slots_out_of_sequence(gcm_thr_endpoint_t *endpoint,
                                      gcm_thr_conn_t *conn,
                                      const gcm_slots_env_t *env,
                                      gcm_payload_t *payload)
{
    gcm_error("proc %d endpoint %d: message %llu arrived while %llu is "
              "due (%u ahead of their turn already; at most %u may wait): "
              "the connection fails", conn->proc, conn->rep,
              (unsigned long long)env->seq,
              (unsigned long long)conn->rx_seq, conn->nparked,
              GCM_SLOTS_PARKED_MAX);
    gcm_slots_payload_release(endpoint, payload, GCM_ERR_TRANSPORT);
    gcm_slots_conn_lost(endpoint, conn, GCM_ERR_TRANSPORT);
}

int gcm_slots_am_msg(gcm_thr_endpoint_t *endpoint, const void *header,
                     size_t header_length, void *data, size_t length,
                     unsigned flags, struct ucp_ep *reply_ep)
{
    gcm_slots_env_t env;
    gcm_payload_t payload;
    gcm_thr_conn_t *conn;

    if (gcm_slots_env_decode(header, header_length, &env) != GCM_OK) {
        /* Not keeping it lets UCX drop the data. */
        gcm_warn("message with a %zu-byte envelope ignored", header_length);
        return 0;
    }
    /* Who sent it is the connection's process, not what it says. */
    conn = gcm_thr_conn_identify(endpoint, reply_ep, (int)env.src_proc,
                                 env.src_ep,
                                 !!(env.flags & GCM_ENV_FLAG_OTHER));
    if (conn == NULL) {
        return 0;
    }
    memset(&payload, 0, sizeof(payload));
    payload.data     = data;
    payload.size     = length;
    payload.sreq     = NULL;
    payload.can_hold = 0;
    payload.in_cb    = 1;
    if (flags & GCM_THR_AM_RNDV) {
        payload.kind = GCM_PAYLOAD_RNDV;
    } else {
        /* Valid during this callback; kept past it only if UCX allows. */
        payload.kind     = GCM_PAYLOAD_TRANSIENT;
        payload.can_hold = !!(flags & GCM_THR_AM_HOLD);
    }

    return gcm_slots_msg_in(endpoint, conn, &env, &payload);
}

/* A message ahead of its turn on conn: kept until the ones before it
 * arrive, within bounds (a sequence number that never comes due must not
 * take memory without end). Out of line: the usual message is in turn,
 * and its path saves fewer registers without this one. */
static GCM_NOINLINE int gcm_slots_msg_early(gcm_thr_endpoint_t *endpoint,
                                            gcm_thr_conn_t *conn,
                                            gcm_slots_env_t *env,
                                            gcm_payload_t *payload)
{
    gcm_slots_umsg_t *umsg;
    int kept = 0;

    if ((env->seq < conn->rx_seq) ||
        (conn->nparked >= GCM_SLOTS_PARKED_MAX) ||
        gcm_slots_parked_has(conn, env->seq)) {
        gcm_slots_out_of_sequence(endpoint, conn, env, payload);
        return 0;
    }
    umsg = gcm_slots_umsg_new(env, payload, &kept);
    if (umsg == NULL) {
        gcm_error("out of memory parking a message from proc %u",
                  env->src_proc);
        gcm_slots_payload_release(endpoint, payload, GCM_ERR_NO_MEMORY);
        gcm_slots_conn_lost(endpoint, conn, GCM_ERR_NO_MEMORY);
        return 0;
    }
    gcm_slots_park(conn, umsg);
    return kept;
}

/* Accepts what was parked on conn and has come due. Out of line, as
 * above. */
static GCM_NOINLINE void gcm_slots_parked_due(gcm_thr_endpoint_t *endpoint,
                                              gcm_thr_conn_t *conn)
{
    while (!gcm_list_empty(&conn->parked)) {
        gcm_slots_umsg_t *umsg = gcm_container_of(conn->parked.next,
                                                  gcm_slots_umsg_t, elem);
        if (umsg->env.seq != conn->rx_seq) {
            break;
        }
        gcm_list_del(&umsg->elem);
        conn->nparked--;
        /* Parked payloads are held or copied already, so accept either
         * consumes them or moves them into an unexpected entry. */
        if (gcm_slots_accept(endpoint, &umsg->env, &umsg->payload) ==
            GCM_ACCEPT_LOST) {
            free(umsg);
            gcm_slots_conn_lost(endpoint, conn, GCM_ERR_NO_MEMORY);
            break;
        }
        conn->rx_seq++;
        free(umsg);
    }
}

/* gcm_slots_msg_in on env, the caller's own copy of the envelope: its
 * sender is set from conn here. */
static inline __attribute__((always_inline)) int
gcm_slots_msg_take(gcm_thr_endpoint_t *endpoint, gcm_thr_conn_t *conn,
                   gcm_slots_env_t *env, gcm_payload_t *payload)
{
    int kept;

    /* From here on the sender is the connection's process: answers go
     * there, and the receive-slot checks use it. */
    env->src_proc = (uint32_t)conn->proc;
    env->src_ep   = (uint16_t)conn->rep;
    env->flags   &= (uint16_t)~GCM_ENV_FLAG_OTHER;

    if (conn->failed != GCM_OK) {
        /* Messages were lost on this connection: nothing after them can
         * be delivered in order. */
        return 0;
    }
    if (gcm_unlikely(env->seq != conn->rx_seq)) {
        return gcm_slots_msg_early(endpoint, conn, env, payload);
    }

    kept = gcm_slots_accept(endpoint, env, payload);
    if (gcm_unlikely(kept == GCM_ACCEPT_LOST)) {
        gcm_slots_conn_lost(endpoint, conn, GCM_ERR_NO_MEMORY);
        return 0;
    }
    conn->rx_seq++;
    if (gcm_unlikely(!gcm_list_empty(&conn->parked))) {
        gcm_slots_parked_due(endpoint, conn);
    }
    return kept == GCM_ACCEPT_KEPT;
}

int gcm_slots_msg_in(gcm_thr_endpoint_t *endpoint, gcm_thr_conn_t *conn,
                     const gcm_slots_env_t *envp, gcm_payload_t *payload)
{
    gcm_slots_env_t env = *envp;

    return gcm_slots_msg_take(endpoint, conn, &env, payload);
}

int gcm_slots_msg_in_own(gcm_thr_endpoint_t *endpoint, gcm_thr_conn_t *conn,
                         gcm_slots_env_t *env, gcm_payload_t *payload)
{
    return gcm_slots_msg_take(endpoint, conn, env, payload);
}

gcm_status_t gcm_slots_irecv(gcm_port_t *port, void *buf, size_t len,
                             int slot, int tag, gcm_request_h *req_p)
{
    return gcm_slots_irecv_x(port, buf, len, slot, tag, "gcm_irecv", req_p);
}

gcm_status_t gcm_slots_irecv_x(gcm_port_t *port, void *buf, size_t len,
                               int slot, int tag, const char *call,
                               gcm_request_h *req_p)
{
    return gcm_slots_irecv_xf(port, buf, len, slot, tag, 0, call, NULL,
                              req_p);
}

gcm_status_t gcm_slots_irecv_xf(gcm_port_t *port, void *buf, size_t len,
                                int slot, int tag, int flags,
                                const char *call, gcm_msg_status_t *info_p,
                                gcm_request_h *req_p)
{
    return gcm_slots_irecv_fold(port, buf, len, slot, tag, flags, NULL, call,
                                info_p, req_p);
}

/*
 * A receive that asked for no request, of a message waiting for it whose
 * data is in memory and fits: delivered now, without a request (whose
 * allocation, hand-out and release cost some 120 instructions of the
 * ~280 such a receive took). Returns 1 then, 0 if the receive must take
 * the general path.
 */
static int gcm_slots_irecv_waiting(gcm_port_t *port, void *buf, size_t len,
                                   int slot, int tag,
                                   const gcm_slots_fold_t *fold,
                                   gcm_msg_status_t *info_p)
{
    gcm_thr_endpoint_t *endpoint = port->endpoint;
    gcm_slots_umsg_t *found = NULL;
    gcm_list_t *pos, *tmp;

    gcm_thr_lock(endpoint);
    gcm_list_for_each_safe(pos, tmp, &port->unexpected) {
        gcm_slots_umsg_t *umsg = gcm_container_of(pos, gcm_slots_umsg_t,
                                                  elem);
        if (gcm_slots_matches(slot, tag, umsg->env.rslot, umsg->env.tag)) {
            if (gcm_slots_deliver_now(endpoint, buf, len, fold, &umsg->env,
                                      &umsg->payload, info_p)) {
                gcm_slots_unexp_del(port, umsg);
                found = umsg;
            }
            break;
        }
    }
    gcm_thr_unlock(endpoint);
    free(found);
    return found != NULL;
}

/* The receive slot's range check of every receive. */
static GCM_ALWAYS_INLINE gcm_status_t gcm_slots_irecv_check(
    gcm_port_t *port, int slot, const char *call)
{
    int nrecv;

    /* A pattern's slot count never changes; others' only grow (stored
     * with release once the slots exist: gcm_slots_port_add_recv), so a
     * check that passes stays true, and needs no lock. */
    nrecv = __atomic_load_n(&port->nrecv, __ATOMIC_ACQUIRE);
    if ((slot != GCM_ANY_SLOT) && ((slot < 0) || (slot >= nrecv))) {
        return gcm_fail(GCM_ERR_NO_SUCH_SLOT, call,
                        "receive slot %d out of range (LCO has %d receive "
                        "slots)", slot, nrecv);
    }
    return GCM_OK;
}

/* Posts req, set up for a receive: matched at once with a waiting
 * message, failed when only a dead process could satisfy it, else
 * queued on the port. Takes the lock. */
static GCM_ALWAYS_INLINE void gcm_slots_irecv_post(
    gcm_port_t *port, struct gcm_request *req, void *buf, size_t len,
    int slot, int tag, const gcm_slots_fold_t *fold, const char *call)
{
    gcm_thr_endpoint_t *endpoint = port->endpoint;
    gcm_list_t *pos, *tmp;
    int peer;

    req->port = port;
    req->buf  = buf;
    req->len  = len;
    req->slot = slot;
    req->tag  = tag;
    req->fold = fold;

    gcm_thr_lock(endpoint);
    gcm_list_for_each_safe(pos, tmp, &port->unexpected) {
        gcm_slots_umsg_t *umsg = gcm_container_of(pos, gcm_slots_umsg_t,
                                                  elem);
        if (gcm_slots_matches(slot, tag, umsg->env.rslot, umsg->env.tag)) {
            gcm_slots_unexp_del(port, umsg);
            gcm_slots_deliver(endpoint, req, &umsg->env, &umsg->payload);
            free(umsg);
            goto out;
        }
    }
    /* A receive that only a dead process could satisfy fails at once. */
    peer = (slot == GCM_ANY_SLOT) ? -1 :
           (port->pattern ? gcm_slots_pattern_proc(port, slot) :
                            port->rpeer[slot]);
    if (gcm_unlikely(gcm_slots_proc.simulated) && (peer >= 0) &&
        (peer != gcm_slots_proc.myproc)) {
        req->info.slot = slot;
        gcm_slots_req_complete(req, gcm_fail(GCM_ERR_BOOT, call,
                               "simulation (GENCOMM_BOOT=sim): process %d "
                               "does not exist, so nothing can be received "
                               "from it", peer));
        goto out;
    }
    /* The connection is looked at only when one of the endpoint's has
     * failed, or the peer is of another job: a lookup for every receive
     * cost some 40 instructions a message. */
    if ((peer >= 0) &&
        ((atomic_load_explicit(&endpoint->nfailed,
                               memory_order_relaxed) != 0) ||
         gcm_thr_proc_other(peer))) {
        gcm_thr_conn_t *conn = gcm_thr_conn_get(endpoint, peer, 0);
        if ((conn != NULL) && (conn->failed != GCM_OK)) {
            req->info.slot = slot;
            gcm_slots_req_complete(req, conn->failed);
            goto out;
        }
        /* A process of another job: no launcher tells us of its death,
         * UCX does, on a connection. Waiting for it needs one. */
        if ((conn != NULL) && gcm_thr_proc_other(peer) && port->pattern) {
            gcm_thr_conn_t *c = gcm_thr_conn_get(
                endpoint, peer, gcm_slots_pattern_ep(port, peer));
            gcm_status_t st = (c == NULL) ? GCM_ERR_NO_MEMORY :
                              gcm_thr_conn_connect(endpoint, c);

            if (st != GCM_OK) {
                req->info.slot = slot;
                gcm_slots_req_complete(req, st);
                goto out;
            }
        }
    }
    gcm_list_push_back(&port->posted, &req->elem);
out:
    gcm_slots_req_posted(req);
    gcm_thr_unlock(endpoint);
}

/* A receive, in rec (the caller's storage) or, rec NULL, in a request
 * of its own. */
static GCM_ALWAYS_INLINE gcm_status_t gcm_slots_irecv_in(
    gcm_port_t *port, void *buf, size_t len, int slot, int tag, int flags,
    const gcm_slots_fold_t *fold, const char *call, gcm_msg_status_t *info_p,
    struct gcm_request *rec, gcm_request_h *req_p)
{
    struct gcm_request *req = rec;
    gcm_status_t status = gcm_slots_irecv_check(port, slot, call);

    if (status != GCM_OK) {
        return status;
    }
    if ((flags & GCM_SLOTS_XFER_NOREQ) && !gcm_slots_unexp_none(port) &&
        gcm_slots_irecv_waiting(port, buf, len, slot, tag, fold, info_p)) {
        *req_p = GCM_REQUEST_NULL;
        return GCM_OK;
    }
    if (rec != NULL) {
        gcm_slots_rec_init(rec, port->endpoint);
    } else {
        req = gcm_slots_req_alloc(port->endpoint, GCM_REQ_RECV);
        if (req == NULL) {
            return GCM_ERR_NO_MEMORY;
        }
    }
    gcm_slots_irecv_post(port, req, buf, len, slot, tag, fold, call);
    gcm_slots_req_hand_out(req, flags, info_p, req_p);
    return GCM_OK;
}

gcm_status_t gcm_slots_irecv_fold(gcm_port_t *port, void *buf, size_t len,
                                  int slot, int tag, int flags,
                                  const gcm_slots_fold_t *fold,
                                  const char *call, gcm_msg_status_t *info_p,
                                  gcm_request_h *req_p)
{
    return gcm_slots_irecv_in(port, buf, len, slot, tag, flags, fold, call,
                              info_p, NULL, req_p);
}

gcm_status_t gcm_slots_irecv_rec(gcm_port_t *port, void *buf, size_t len,
                                 int slot, int tag,
                                 const gcm_slots_fold_t *fold,
                                 const char *call, gcm_msg_status_t *info_p,
                                 struct gcm_request *rec,
                                 gcm_request_h *req_p)
{
    return gcm_slots_irecv_in(port, buf, len, slot, tag,
                              GCM_SLOTS_XFER_NOREQ, fold, call, info_p, rec,
                              req_p);
}

int gcm_slots_iprobe(gcm_port_t *port, int slot, int tag,
                     gcm_msg_status_t *info)
{
    gcm_list_t *pos, *tmp;
    int found = 0;

    /* A probe that finds nothing takes no lock and walks nothing. */
    if (gcm_slots_unexp_none(port)) {
        return 0;
    }
    gcm_thr_lock(port->endpoint);
    gcm_list_for_each_safe(pos, tmp, &port->unexpected) {
        gcm_slots_umsg_t *umsg = gcm_container_of(pos, gcm_slots_umsg_t,
                                                  elem);
        if (gcm_slots_matches(slot, tag, umsg->env.rslot, umsg->env.tag)) {
            info->slot  = umsg->env.rslot;
            info->tag   = umsg->env.tag;
            info->count = umsg->payload.size;
            info->error = GCM_OK;
            found       = 1;
            break;
        }
    }
    gcm_thr_unlock(port->endpoint);
    return found;
}

gcm_status_t gcm_slots_cancel(struct gcm_request *req)
{
    gcm_thr_endpoint_t *endpoint = req->endpoint;
    gcm_status_t status = GCM_ERR_BUSY;

    gcm_thr_lock(endpoint);
    /* A receive is on its port's posted queue exactly until a message
     * matches it (or its LCO is freed, which completes it); list_del
     * leaves the element pointing at itself. */
    if (!gcm_slots_req_done(req) && !gcm_list_empty(&req->elem)) {
        gcm_list_del(&req->elem);
        req->info.slot = req->slot;
        req->info.tag  = req->tag;
        gcm_slots_req_complete(req, GCM_ERR_CANCELED);
        status = GCM_OK;
    }
    gcm_thr_unlock(endpoint);
    return status;
}

gcm_slots_umsg_t *gcm_slots_improbe(gcm_port_t *port, int slot, int tag,
                                    gcm_msg_status_t *info)
{
    gcm_slots_ep_t *sep = gcm_slots_ep(port->endpoint);
    gcm_slots_umsg_t *found = NULL;
    gcm_list_t *pos, *tmp;

    if (gcm_slots_unexp_none(port)) {
        return NULL;
    }
    gcm_thr_lock(port->endpoint);
    gcm_list_for_each_safe(pos, tmp, &port->unexpected) {
        gcm_slots_umsg_t *umsg = gcm_container_of(pos, gcm_slots_umsg_t,
                                                  elem);
        if (gcm_slots_matches(slot, tag, umsg->env.rslot, umsg->env.tag)) {
            gcm_slots_unexp_del(port, umsg);
            gcm_list_push_back(&sep->matched, &umsg->elem);
            info->slot  = umsg->env.rslot;
            info->tag   = umsg->env.tag;
            info->count = umsg->payload.size;
            info->error = GCM_OK;
            found       = umsg;
            break;
        }
    }
    gcm_thr_unlock(port->endpoint);
    return found;
}

gcm_status_t gcm_slots_imrecv(gcm_port_t *port, gcm_slots_umsg_t *umsg,
                              void *buf, size_t len, gcm_request_h *req_p)
{
    gcm_thr_endpoint_t *endpoint = port->endpoint;
    struct gcm_request *req = gcm_slots_req_alloc(endpoint, GCM_REQ_RECV);

    if (req == NULL) {
        /* The message stays matched: the caller may try again. */
        return GCM_ERR_NO_MEMORY;
    }
    req->port = port;
    req->buf  = buf;
    req->len  = len;
    req->slot = umsg->env.rslot;
    req->tag  = umsg->env.tag;
    gcm_thr_lock(endpoint);
    gcm_list_del(&umsg->elem);
    gcm_slots_deliver(endpoint, req, &umsg->env, &umsg->payload);
    gcm_slots_req_posted(req);
    gcm_thr_unlock(endpoint);
    free(umsg);
    *req_p = gcm_slots_req_handle(req);
    return GCM_OK;
}

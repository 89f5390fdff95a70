/*
 * slots/slot_handler.c: receive-slot handlers: the FIFO of
 * handler calls, run after progress with the lock released.
 */
#include "config.h"

#include "slots/slots_impl.h"
#include "boot/boot.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>

/* Set while this thread runs a handler: a handler that progresses must
 * not run the next handler inside itself (out of order, and recursion). */
__thread int gcm_slots_in_handler GCM_TLS_HOT;

/* ---- receive-slot handlers ---------------------------------------------- */

/*
 * Queues a message for the handler of its slot. Small data is copied (or
 * taken over), a same-process sender's buffer is used as is until the
 * handler has run, and large data is fetched by an internal receive into
 * a buffer of ours; the call waits in the FIFO until that completes, so
 * later messages cannot overtake it. A synchronous sender is answered
 * after the handler (gcm_slots_hcall_finish). Lock held.
 */
int gcm_slots_hcall_queue(gcm_thr_endpoint_t *endpoint,
                          gcm_port_t *port,
                          const gcm_slots_env_t *env,
                          gcm_payload_t *payload)
{
    gcm_slots_ep_t *sep = gcm_slots_ep(endpoint);
    gcm_slots_hcall_t *h = calloc(1, sizeof(*h));
    size_t size = payload->size;
    gcm_slots_env_t denv;

    if (h == NULL) {
        goto nomem;
    }
    h->port = port;
    h->lco  = port->owner;
    h->fn   = port->handlers[env->rslot].fn;
    h->arg  = port->handlers[env->rslot].arg;
    h->env  = *env;
    h->len  = size;
    switch (payload->kind) {
    case GCM_PAYLOAD_LOCAL:
        h->local   = 1;
        h->payload = *payload;
        h->data    = payload->data;
        payload->kind = GCM_PAYLOAD_TRANSIENT;
        break;
    case GCM_PAYLOAD_RNDV:
    case GCM_PAYLOAD_SHM_RNDV:
        h->data = malloc((size > 0) ? size : 1);
        h->req  = gcm_slots_req_alloc(endpoint, GCM_REQ_RECV);
        if ((h->data == NULL) || (h->req == NULL)) {
            free(h->data);
            if (h->req != NULL) {
                gcm_slots_req_free(h->req);
            }
            free(h);
            goto nomem;
        }
        h->req->port = port;
        h->req->buf  = h->data;
        h->req->len  = size;
        h->req->slot = env->rslot;
        h->req->tag  = env->tag;
        /* The synchronous answer waits for the handler, not the match. */
        denv = *env;
        denv.flags &= (uint16_t)~GCM_ENV_FLAG_SYNC;
        gcm_slots_deliver(endpoint, h->req, &denv, payload);
        gcm_slots_req_posted(h->req);
        break;
    case GCM_PAYLOAD_COPY:
        h->data = payload->data;
        payload->kind = GCM_PAYLOAD_TRANSIENT;
        break;
    default:
        h->data = malloc((size > 0) ? size : 1);
        if (h->data == NULL) {
            free(h);
            goto nomem;
        }
        if (size > 0) {
            memcpy(h->data, payload->data, size);
        }
        gcm_slots_payload_release(endpoint, payload, GCM_OK);
        break;
    }
    if (h->req == NULL) {
        gcm_slots_count(endpoint, GCM_STAT_RECEIVED);
    }
    gcm_list_push_back(&sep->hcalls, &h->elem);
    atomic_fetch_add(&sep->nhcalls, 1);
    /* A sleeping waiter must wake up to run it. */
    gcm_thr_signal(endpoint);
    return GCM_ACCEPT_DONE;

nomem:
    gcm_error("out of memory queueing a message for a handler of LCO %u "
              "from proc %u", env->dst_id, env->src_proc);
    if ((env->flags & GCM_ENV_FLAG_SYNC) &&
        (payload->kind != GCM_PAYLOAD_LOCAL)) {
        gcm_slots_send_ctrl(endpoint, env, GCM_ERR_NO_MEMORY);
    }
    gcm_slots_payload_release(endpoint, payload, GCM_ERR_NO_MEMORY);
    return GCM_ACCEPT_LOST;
}

/* After its handler ran (or not, dead): answer a synchronous sender,
 * complete a same-process one, free what it held. Lock held. */
static void gcm_slots_hcall_finish(gcm_thr_endpoint_t *endpoint,
                                   gcm_slots_hcall_t *h, gcm_status_t status)
{
    if (h->local) {
        gcm_slots_payload_release(endpoint, &h->payload, status);
    } else {
        if (h->env.flags & GCM_ENV_FLAG_SYNC) {
            gcm_slots_send_ctrl(endpoint, &h->env, status);
        }
        free(h->data);
    }
    if (h->req != NULL) {
        gcm_slots_req_free(h->req);
    }
    free(h);
}

/* Is the first handler call ready to run? Lock held. */
gcm_slots_hcall_t *gcm_slots_hcall_ready(gcm_slots_ep_t *sep)
{
    gcm_slots_hcall_t *h;

    if (gcm_list_empty(&sep->hcalls)) {
        return NULL;
    }
    h = gcm_container_of(sep->hcalls.next, gcm_slots_hcall_t, elem);
    if ((h->req != NULL) && !gcm_slots_req_done(h->req)) {
        return NULL;
    }
    return h;
}

/* Runs the handler calls that are ready (some wait). */
static __attribute__((noinline)) void
gcm_slots_handlers_run(gcm_thr_endpoint_t *endpoint, gcm_slots_ep_t *sep)
{
    gcm_slots_hcall_t *h;

    gcm_thr_lock(endpoint);
    if (sep->hrunning) {
        /* That thread runs them all, in order, before it stops. */
        gcm_thr_unlock(endpoint);
        return;
    }
    sep->hrunning = 1;
    gcm_slots_in_handler = 1;
    while ((h = gcm_slots_hcall_ready(sep)) != NULL) {
        gcm_status_t status = (h->req != NULL) ? h->req->status : GCM_OK;
        int dead = h->dead;

        gcm_list_del(&h->elem);
        atomic_fetch_sub(&sep->nhcalls, 1);
        if (dead) {
            status = GCM_ERR_NO_SUCH_LCO;
        }
        gcm_thr_unlock(endpoint);
        /* No lock held: the handler may send, to this process too. */
        if (status == GCM_OK) {
            h->fn(h->lco, h->env.rslot, h->env.tag, h->data, h->len, h->arg);
        } else if (!dead) {
            gcm_warn("a message for the handler of LCO %u slot %d was lost: "
                     "%s", h->env.dst_id, h->env.rslot,
                     gcm_status_string(status));
        }
        gcm_thr_lock(endpoint);
        gcm_slots_hcall_finish(endpoint, h, status);
    }
    sep->hrunning = 0;
    gcm_thr_unlock(endpoint);
    gcm_slots_in_handler = 0;
}

void gcm_slots_run_handlers(gcm_thr_endpoint_t *endpoint)
{
    gcm_slots_ep_t *sep = gcm_slots_ep(endpoint);

    /* After every round of progress: the usual case (no handler call
     * waits) is two loads. */
    if ((sep != NULL) &&
        (atomic_load_explicit(&sep->nhcalls, memory_order_relaxed) != 0) &&
        !gcm_slots_in_handler) {
        gcm_slots_handlers_run(endpoint, sep);
    }
}

gcm_status_t gcm_slots_set_handler(gcm_port_t *port, gcm_lco_h owner,
                                   int rslot, gcm_handler_func_t fn,
                                   void *arg)
{
    gcm_thr_endpoint_t *endpoint = port->endpoint;
    gcm_status_t status = GCM_OK;
    gcm_list_t *pos, *tmp;

    gcm_thr_lock(endpoint);
    if ((rslot < 0) || (rslot >= port->nrecv)) {
        status = GCM_ERR_NO_SUCH_SLOT;
        goto out;
    }
    if (rslot >= port->nhandlers) {
        gcm_slots_handler_t *handlers;
        int n = port->nrecv;

        if (fn == NULL) {
            goto out; /* none set, none to remove */
        }
        handlers = realloc(port->handlers, (size_t)n * sizeof(*handlers));
        if (handlers == NULL) {
            status = GCM_ERR_NO_MEMORY;
            goto out;
        }
        memset(&handlers[port->nhandlers], 0,
               (size_t)(n - port->nhandlers) * sizeof(*handlers));
        port->handlers  = handlers;
        port->nhandlers = n;
    }
    port->owner = owner;
    port->handlers[rslot].fn  = fn;
    port->handlers[rslot].arg = arg;
    if (fn != NULL) {
        /* What waits for receives on the slot now goes to the handler,
         * in arrival order. */
        gcm_list_for_each_safe(pos, tmp, &port->unexpected) {
            gcm_slots_umsg_t *umsg = gcm_container_of(pos, gcm_slots_umsg_t,
                                                      elem);
            if (gcm_slots_matches(rslot, GCM_ANY_TAG, umsg->env.rslot,
                                  umsg->env.tag)) {
                gcm_slots_unexp_del(port, umsg);
                (void)gcm_slots_hcall_queue(endpoint, port, &umsg->env,
                                            &umsg->payload);
                free(umsg);
            }
        }
    }
out:
    gcm_thr_unlock(endpoint);
    if (status == GCM_OK) {
        gcm_slots_run_handlers(endpoint);
    }
    return status;
}

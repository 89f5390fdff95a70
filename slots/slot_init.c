/*
 * slots/slot_init.c: init and finalize of the layer, its
 * statistics, peer failures and freeing ports.
 */
#include "config.h"

#include "slots/slots_impl.h"
#include "boot/boot.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>

struct gcm_slots_proc gcm_slots_proc;

gcm_slots_config_t gcm_slots_config;

static const gcm_config_entry_t gcm_slots_config_entries[] = {
    GCM_CFG("GENCOMM_EAGER_LIMIT", "8192", GCM_CFG_SIZE,
            gcm_slots_config.eager_limit,
            "largest message sent eagerly; larger ones use rendezvous"),
    GCM_CFG("GENCOMM_SHM", "1", GCM_CFG_INT, gcm_slots_config.shm,
            "1: processes on one host talk through shared memory; "
            "0: over UCX"),
    GCM_CFG("GENCOMM_SHM_COOP_MIN", "16384", GCM_CFG_SIZE,
            gcm_slots_config.shm_coop_min,
            "same-host messages from this size on are copied by sender and "
            "receiver together (not with more processes than cores); 0: by "
            "the receiver alone"),
    GCM_CFG("GENCOMM_SHM_MEMBARRIER", "1", GCM_CFG_INT,
            gcm_slots_config.shm_membarrier,
            "1: same-host messages are published without a fence, a "
            "waiter issues membarrier before a long sleep; 0: each "
            "publish fences"),
};
GCM_CONFIG_REGISTER(slots, gcm_slots_config_entries)

/* What the endpoints of earlier initializations counted: the counters
 * are the process's, as they were when they lived in one place. */
static uint64_t gcm_slots_stats_retired[GCM_STAT_LAST];

void gcm_slots_stats(gcm_stats_t *stats_p)
{
    uint64_t sum[GCM_STAT_LAST];
    int i, k;

    memcpy(sum, gcm_slots_stats_retired, sizeof(sum));
    for (i = 0; i < gcm_thr_num_endpoints(); i++) {
        gcm_slots_ep_t *sep = gcm_slots_ep(gcm_thr_endpoint_get(i));
        for (k = 0; (sep != NULL) && (k < GCM_STAT_LAST); k++) {
            sum[k] += atomic_load_explicit(&sep->stats[k],
                                           memory_order_relaxed);
        }
    }
    stats_p->msgs_sent_remote = sum[GCM_STAT_REMOTE];
    stats_p->msgs_sent_local  = sum[GCM_STAT_LOCAL];
    stats_p->msgs_received    = sum[GCM_STAT_RECEIVED];
    stats_p->control_sent     = sum[GCM_STAT_CONTROL];
    stats_p->connections      = gcm_thr_connections();
}

uint64_t gcm_slots_job_token(void)
{
    return gcm_slots_proc.job_token;
}

void gcm_slots_job_ready(gcm_port_t *world)
{
    /* The world is trusted within a job: its token (and that of every
     * pattern the job builds) comes from the job's secret, which only
     * the job's processes hold; nothing public (a pid, the launcher's
     * job id, a counter) tells it. */
    gcm_slots_proc.job_token = gcm_prf64(gcm_boot_secret(),
                                         GCM_BOOT_PRF_TOKEN, 0) | 1;
    world->token = gcm_slots_proc.job_token;
    if (gcm_slots_proc.internal != NULL) {
        gcm_slots_proc.internal->token = gcm_slots_proc.job_token;
    }
}

uint32_t gcm_slots_next_port_id(void)
{
    return atomic_fetch_add(&gcm_slots_proc.next_id, 1);
}

/* ---- failures and freeing ------------------------------------------------- */

/* A process failed: complete what depends on it. Lock held. */
static void gcm_slots_peer_failed(gcm_thr_endpoint_t *endpoint, int proc,
                                  gcm_status_t reason)
{
    gcm_slots_ep_t *sep = gcm_slots_ep(endpoint);
    gcm_list_t *pos, *tmp;
    int b;

    gcm_list_for_each_safe(pos, tmp, &sep->ackwait) {
        struct gcm_request *req = gcm_container_of(pos, struct gcm_request,
                                                   elem);
        if (req->dest_proc == proc) {
            /* Each awaited notice is a part; the last one may complete
             * (and free) the request, so count them first. */
            int parts = ((req->rwait & GCM_RWAIT_ANSWER) ? 1 : 0) +
                        ((req->rwait & GCM_RWAIT_DATA) ? 1 : 0);
            gcm_list_del(&req->elem);
            req->rwait = 0;
            while (parts-- > 0) {
                gcm_slots_send_part_done(req, reason);
            }
        }
    }
    gcm_slots_shm_peer_failed(endpoint, proc, reason);
    for (b = 0; b < GCM_SLOTS_BUCKETS; b++) {
        gcm_port_t *port;
        for (port = sep->buckets[b]; port != NULL; port = port->hash_next) {
            gcm_list_for_each_safe(pos, tmp, &port->posted) {
                struct gcm_request *req =
                    gcm_container_of(pos, struct gcm_request, elem);
                int peer = (req->slot == GCM_ANY_SLOT) ? -1 :
                           (port->pattern ?
                            gcm_slots_pattern_proc(port, req->slot) :
                            port->rpeer[req->slot]);
                if (peer == proc) {
                    gcm_list_del(&req->elem);
                    req->info.slot = req->slot;
                    gcm_slots_req_complete(req, reason);
                }
            }
        }
    }
}

void gcm_slots_port_destroy(gcm_port_t *port)
{
    gcm_thr_endpoint_t *endpoint = port->endpoint;
    gcm_slots_ep_t *sep = gcm_slots_ep(endpoint);
    gcm_port_t **link;
    gcm_list_t *pos, *tmp;
    int i;

    gcm_thr_lock(endpoint);
    port->freed = 1;
    link = &sep->buckets[port->id % GCM_SLOTS_BUCKETS];
    while ((*link != NULL) && (*link != port)) {
        link = &(*link)->hash_next;
    }
    if (*link == port) {
        *link = port->hash_next;
    }
    gcm_list_for_each_safe(pos, tmp, &port->posted) {
        struct gcm_request *req = gcm_container_of(pos, struct gcm_request,
                                                   elem);
        gcm_list_del(&req->elem);
        gcm_slots_req_complete(req, GCM_ERR_CANCELED);
    }
    gcm_list_for_each_safe(pos, tmp, &port->unexpected) {
        gcm_slots_umsg_t *umsg = gcm_container_of(pos, gcm_slots_umsg_t,
                                                  elem);
        gcm_slots_unexp_del(port, umsg);
        gcm_warn("LCO %u freed with an unreceived message (slot %d tag %d, "
                 "%zu bytes)", port->id, umsg->env.rslot, umsg->env.tag,
                 umsg->payload.size);
        gcm_slots_umsg_drop(endpoint, umsg, GCM_ERR_NO_SUCH_LCO);
    }
    /* Handler calls of this LCO run no handler now; they still answer
     * their senders. */
    gcm_list_for_each_safe(pos, tmp, &sep->hcalls) {
        gcm_slots_hcall_t *h = gcm_container_of(pos, gcm_slots_hcall_t,
                                                elem);
        if (h->port == port) {
            h->dead = 1;
        }
    }
    /* Sends still waiting for an answer must not touch the freed edges. */
    gcm_list_for_each_safe(pos, tmp, &sep->ackwait) {
        struct gcm_request *req = gcm_container_of(pos, struct gcm_request,
                                                   elem);
        if (req->env.src_id == port->id) {
            req->edge = NULL;
        }
    }
    gcm_thr_unlock(endpoint);

    /* The world's slots are a pattern: it has no edge table. */
    for (i = 0; (port->edges != NULL) && (i < port->nsend); i++) {
        free(port->edges[i]);
    }
    free(port->edges);
    free(port->rtokens);
    free(port->rpeer);
    free(port->procs);
    free(port->handlers);
    if (port->pattern && (port->token != gcm_slots_proc.job_token)) {
        gcm_slots_token_release(port->token);
    }
    free(port);
}

/* ---- init and finalize ---------------------------------------------------- */

/* What this layer does on each round of an endpoint's progress. */
static unsigned gcm_slots_progress(gcm_thr_endpoint_t *endpoint)
{
    if (gcm_unlikely(gcm_slots_ep(endpoint)->orphans_unknown != 0)) {
        gcm_slots_orphans_expire(endpoint);
    }
    return gcm_slots_shm_progress(endpoint);
}

gcm_status_t gcm_slots_init(void)
{
    static const gcm_thr_upcalls_t upcalls = {
        .am            = { [GCM_AM_MSG] = gcm_slots_am_msg,
                           [GCM_AM_CTRL] = gcm_slots_am_ctrl },
        .peer_failed   = gcm_slots_peer_failed,
        .progress      = gcm_slots_progress,
        .sleep_prepare = gcm_slots_sleep_prepare,
        .sleep_woken   = gcm_slots_shm_sleep_woken,
        .sleep_deepen  = gcm_slots_shm_sleep_deepen,
        .sleep_done    = gcm_slots_shm_sleep_done,
        .after_progress = gcm_slots_run_handlers,
    };
    gcm_slots_pattern_t world;
    gcm_thr_endpoint_t *endpoint;
    gcm_status_t status;
    int i;

    gcm_slots_proc.myproc    = gcm_boot_rank();
    gcm_slots_proc.simulated = (gcm_boot_kind() == GCM_BOOT_SIM);
    /* Drawn from the job's secret once the launcher has handed it round
     * (gcm_slots_job_ready); until then no message is taken. */
    gcm_slots_proc.job_token = 0;
    atomic_init(&gcm_slots_proc.next_id, GCM_PORT_ID_FIRST);

    status = gcm_thr_init(&upcalls);
    if (status != GCM_OK) {
        return status;
    }
    for (i = 0; i < gcm_thr_num_endpoints(); i++) {
        endpoint = gcm_thr_endpoint_get(i);
        endpoint->upper = calloc(1, sizeof(gcm_slots_ep_t));
        if (endpoint->upper == NULL) {
            gcm_thr_finalize();
            return GCM_ERR_NO_MEMORY;
        }
        gcm_list_init(&gcm_slots_ep(endpoint)->ackwait);
        gcm_list_init(&gcm_slots_ep(endpoint)->orphans);
        gcm_list_init(&gcm_slots_ep(endpoint)->matched);
        gcm_list_init(&gcm_slots_ep(endpoint)->hcalls);
        atomic_init(&gcm_slots_ep(endpoint)->nhcalls, 0);
    }
    /* Not fatal: without it every message goes over UCX. */
    (void)gcm_slots_shm_init();
    world.size   = gcm_boot_size();
    world.procs  = NULL;
    world.myrank = gcm_slots_proc.myproc;
    world.home   = 0;
    status = gcm_slots_port_create(gcm_thr_endpoint_get(0),
                                   GCM_PORT_ID_INTERNAL, 1, 0, &world,
                                   &gcm_slots_proc.internal);
    if (status != GCM_OK) {
        gcm_slots_finalize();
        return status;
    }
    return GCM_OK;
}

/*
 * Dissemination barrier over the internal world port: every process has
 * sent all it will send before it leaves, and keeps progressing (answering
 * acknowledgements, serving rendezvous pulls) until all have arrived.
 */
gcm_status_t gcm_slots_barrier(void)
{
    int n = gcm_boot_size();
    int me = gcm_slots_proc.myproc;
    int neps = gcm_thr_num_endpoints();
    gcm_status_t status = GCM_OK;
    char token = 0;
    int dist, round = 0, i;

    if (gcm_slots_proc.simulated) {
        return GCM_OK;
    }
    /* Every endpoint may still owe its peers answers and rendezvous
     * pulls: while the barrier waits on endpoint 0, the others count as
     * having pending requests, so the wait progresses them all. */
    for (i = 1; i < neps; i++) {
        gcm_thr_pending_add(gcm_thr_endpoint_get(i));
    }

    for (dist = 1; dist < n; dist *= 2, round++) {
        gcm_request_h reqs[2];
        char in;
        int to = (me + dist) % n;
        int from = (me - dist + n) % n;
        int k;

        gcm_slots_irecv(gcm_slots_proc.internal, &in, 1, from, round, &reqs[0]);
        gcm_slots_isend(gcm_slots_proc.internal, &token, 1, to, round,
                        &reqs[1]);
        for (k = 0; k < 2; k++) {
            struct gcm_request *req = gcm_slots_req_of(reqs[k]);

            gcm_thr_wait(req->endpoint, gcm_slots_req_done, req);
            if ((req->status != GCM_OK) && (status == GCM_OK)) {
                status = req->status;
            }
            gcm_slots_req_free(req);
        }
        if (status != GCM_OK) {
            break;
        }
    }
    for (i = 1; i < neps; i++) {
        gcm_thr_pending_done(gcm_thr_endpoint_get(i));
    }
    return status;
}

gcm_status_t gcm_slots_finalize(void)
{
    gcm_status_t status = GCM_OK;
    int i;

    /* Nothing may progress behind our back from here on. */
    gcm_thr_pt_stop();
    gcm_slots_req_cache_flush();

    if (gcm_slots_proc.internal != NULL) {
        gcm_slots_port_destroy(gcm_slots_proc.internal);
        gcm_slots_proc.internal = NULL;
    }
    for (i = 0; i < gcm_thr_num_endpoints(); i++) {
        gcm_thr_endpoint_t *endpoint = gcm_thr_endpoint_get(i);
        gcm_slots_ep_t *sep = gcm_slots_ep(endpoint);
        int b;
        if (sep == NULL) {
            continue;
        }
        for (b = 0; b < GCM_SLOTS_BUCKETS; b++) {
            if (sep->buckets[b] != NULL) {
                gcm_warn("finalize: LCO %u still exists", sep->buckets[b]->id);
            }
        }
        while (!gcm_list_empty(&sep->orphans)) {
            gcm_slots_umsg_t *umsg = gcm_container_of(sep->orphans.next,
                                                      gcm_slots_umsg_t, elem);
            gcm_list_del(&umsg->elem);
            gcm_warn("finalize: a message for duplicate LCO %x was never "
                     "received (the LCO was not created here)",
                     umsg->env.dst_id);
            gcm_slots_umsg_drop(endpoint, umsg, GCM_ERR_NO_SUCH_LCO);
        }
        /* Every LCO is freed by now: what is left only answers its
         * senders; a large message still in flight is left to UCX. */
        gcm_slots_run_handlers(endpoint);
        if (!gcm_list_empty(&sep->hcalls)) {
            gcm_warn("finalize: a message for a handler was still being "
                     "fetched");
        }
        while (!gcm_list_empty(&sep->matched)) {
            gcm_slots_umsg_t *umsg = gcm_container_of(sep->matched.next,
                                                      gcm_slots_umsg_t, elem);
            gcm_list_del(&umsg->elem);
            gcm_warn("finalize: a matched message (LCO %x slot %d tag %d) "
                     "was never received with gcm_lco_imrecv",
                     umsg->env.dst_id, umsg->env.rslot, umsg->env.tag);
            gcm_slots_umsg_drop(endpoint, umsg, GCM_ERR_NO_SUCH_LCO);
        }
    }
    /* Connections close (and flush) with the endpoints. */
    for (i = 0; i < gcm_thr_num_endpoints(); i++) {
        gcm_thr_endpoint_t *endpoint = gcm_thr_endpoint_get(i);
        gcm_thr_lock(endpoint);
        gcm_thr_drain(endpoint);
        gcm_thr_unlock(endpoint);
    }
    gcm_slots_shm_finalize();
    {
        void *uppers[GCM_MAX_ENDPOINTS];
        int n = gcm_thr_num_endpoints();
        for (i = 0; i < n; i++) {
            gcm_slots_ep_t *sep = gcm_slots_ep(gcm_thr_endpoint_get(i));
            int k;
            for (k = 0; (sep != NULL) && (k < GCM_STAT_LAST); k++) {
                gcm_slots_stats_retired[k] += atomic_load(&sep->stats[k]);
            }
            uppers[i] = sep;
        }
        gcm_thr_finalize();
        for (i = 0; i < n; i++) {
            free(uppers[i]);
        }
    }
    return status;
}

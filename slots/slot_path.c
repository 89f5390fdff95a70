/*
 * slots/slot_path.c: send and receive paths, matching, the eager,
 * rendezvous and same-process protocols, acknowledgements and refusals.
 */
#include "config.h"

#include "slots/slots.h"
#include "boot/boot.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#define GCM_SLOTS_BUCKETS 256

/* Counters for gcm_get_stats(), kept per endpoint so that threads on
 * different endpoints never write a common cache line per message. */
enum {
    GCM_STAT_REMOTE,
    GCM_STAT_LOCAL,
    GCM_STAT_RECEIVED,
    GCM_STAT_CONTROL,
    GCM_STAT_LAST
};

/* Per-endpoint state of this layer (endpoint->upper). */
typedef struct gcm_slots_ep {
    gcm_port_t *buckets[GCM_SLOTS_BUCKETS];
    /* Messages for derived ports not created here yet (the sender ran its
     * dup first), in arrival order; a new derived port adopts its own. */
    gcm_list_t  orphans;
    gcm_list_t  ackwait;    /* send requests waiting for an answer */
    /* Messages taken by gcm_slots_improbe and not received yet: kept here
     * so that finalize can release what a program never received. */
    gcm_list_t  matched;
    uint64_t    next_req_id;
    /* Handler calls in the order their messages were matched (one FIFO
     * for all ports: order per slot follows), run after progress with the
     * lock released; hrunning while one thread runs them, so that two
     * threads never run two of them out of order. nhcalls: entries, read
     * without the lock to skip the lock when there are none. */
    gcm_list_t  hcalls;
    int         hrunning;
    atomic_int  nhcalls;
    /* gcm_get_stats(): atomic, as the same-process path counts on the
     * sender's endpoint without its lock. */
    atomic_uint_fast64_t stats[GCM_STAT_LAST];
} gcm_slots_ep_t;

/* A message for a receive-slot handler, waiting for its turn (and, if
 * large, for its data to arrive in data). */
typedef struct gcm_slots_hcall {
    gcm_list_t          elem;
    gcm_port_t         *port;   /* to mark it dead when the port goes */
    gcm_lco_h           lco;
    gcm_handler_func_t  fn;
    void               *arg;
    gcm_slots_env_t     env;
    void               *data;   /* ours, or the sender's buffer (local) */
    size_t              len;
    int                 local;  /* same process: payload is the sender's */
    gcm_payload_t       payload;
    struct gcm_request *req;    /* large: internal receive into data */
    int                 dead;   /* its LCO was freed: call nothing */
} gcm_slots_hcall_t;

/* Set while this thread runs a handler: a handler that progresses must
 * not run the next handler inside itself (out of order, and recursion). */
static __thread int gcm_slots_in_handler GCM_TLS_HOT;

static struct {
    uint64_t     job_token;
    atomic_uint  next_id;
    int          myproc;
    gcm_port_t  *internal;
} gcm_slots;

static gcm_slots_ep_t *gcm_slots_ep(gcm_thr_endpoint_t *endpoint)
{
    return endpoint->upper;
}

static void gcm_slots_count(gcm_thr_endpoint_t *endpoint, int which)
{
    atomic_fetch_add_explicit(&gcm_slots_ep(endpoint)->stats[which], 1,
                              memory_order_relaxed);
}

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
}

uint64_t gcm_slots_job_token(void)
{
    return gcm_slots.job_token;
}

uint32_t gcm_slots_next_port_id(void)
{
    return atomic_fetch_add(&gcm_slots.next_id, 1);
}

/* ---- requests ------------------------------------------------------------ */

/*
 * Requests are recycled through a small per-thread cache: allocation on
 * the message path then touches no shared allocator state. A thread's
 * cache is freed when the thread exits.
 */
#define GCM_REQ_CACHE_MAX 64

static __thread struct gcm_request *gcm_req_cache GCM_TLS_HOT;
static __thread int gcm_req_cache_len GCM_TLS_HOT;
static pthread_key_t gcm_req_cache_key;
static pthread_once_t gcm_req_cache_once = PTHREAD_ONCE_INIT;
/* Not a constant to the compiler, so that memset calls the C library's,
 * which clears a request with vector stores, instead of being inlined as
 * "rep stosq", whose start-up cost was a twentieth of a small send. */
static volatile size_t gcm_req_size = sizeof(struct gcm_request);

static void gcm_slots_req_cache_drain(void *unused)
{
    (void)unused;
    while (gcm_req_cache != NULL) {
        struct gcm_request *req = gcm_req_cache;
        gcm_req_cache = *(struct gcm_request **)req;
        free(req);
    }
    gcm_req_cache_len = 0;
}

static void gcm_slots_req_cache_key_create(void)
{
    (void)pthread_key_create(&gcm_req_cache_key, gcm_slots_req_cache_drain);
}

static struct gcm_request *gcm_slots_req_alloc(gcm_thr_endpoint_t *endpoint,
                                               gcm_req_kind_t kind)
{
    struct gcm_request *req = gcm_req_cache;

    if (req != NULL) {
        gcm_req_cache = *(struct gcm_request **)req;
        gcm_req_cache_len--;
        memset(req, 0, gcm_req_size);
    } else {
        req = calloc(1, sizeof(*req));
        if (req == NULL) {
            return NULL;
        }
    }
    atomic_init(&req->done, 0);
    req->kind       = kind;
    req->endpoint   = endpoint;
    req->status     = GCM_OK;
    req->info.slot  = GCM_ANY_SLOT;
    req->info.tag   = GCM_ANY_TAG;
    req->info.error = GCM_OK;
    gcm_list_init(&req->elem);
    return req;
}

void gcm_slots_req_free(struct gcm_request *req)
{
    free(req->tmpbuf);
    if (gcm_req_cache_len >= GCM_REQ_CACHE_MAX) {
        free(req);
        return;
    }
    if (gcm_req_cache_len == 0) {
        /* Registers the exit destructor for this thread's cache. */
        pthread_once(&gcm_req_cache_once, gcm_slots_req_cache_key_create);
        (void)pthread_setspecific(gcm_req_cache_key, &gcm_req_cache);
    }
    *(struct gcm_request **)req = gcm_req_cache;
    gcm_req_cache = req;
    gcm_req_cache_len++;
}

/* Frees this thread's cached requests (at finalize). */
void gcm_slots_req_cache_flush(void)
{
    gcm_slots_req_cache_drain(NULL);
}

/* Marks the request complete; whoever waits on its endpoint wakes up. */
static void gcm_slots_req_complete(struct gcm_request *req,
                                   gcm_status_t status)
{
    gcm_thr_endpoint_t *endpoint = req->endpoint;

    if ((status != GCM_OK) && (req->status == GCM_OK)) {
        req->status = status;
    }
    req->info.error = req->status;
    gcm_assert(!atomic_load(&req->done));
    if (req->counted) {
        gcm_thr_pending_done(endpoint);
    }
    /* Once done is set, the owner may free and reuse the request at once:
     * nothing of it is read after. */
    atomic_store(&req->done, 1);
    gcm_thr_signal(endpoint);
}

/*
 * A request is posted (lock held: the one its completion takes, so that no
 * completion runs in between): if it is not complete, its endpoint needs
 * progress from someone until it is, and counts it as pending. One that
 * completed at once (an eager send, a receive of a waiting message)
 * costs the count nothing.
 */
static void gcm_slots_req_posted(struct gcm_request *req)
{
    if (!atomic_load_explicit(&req->done, memory_order_relaxed)) {
        req->counted = 1;
        gcm_thr_pending_add(req->endpoint);
    }
}

/* One part of a send finished (local completion or the answer). */
void gcm_slots_send_part_done(struct gcm_request *req, gcm_status_t status)
{
    if ((status != GCM_OK) && (req->status == GCM_OK)) {
        req->status = status;
    }
    if (--req->pending == 0) {
        gcm_slots_req_complete(req, req->status);
    }
}

/*
 * A send whose parts all finished before gcm_slots_isend_x handed it out
 * (a small message written into a ring at once): no thread can wait on it
 * yet, so done needs no ordering against a sleeper's re-check and nobody
 * needs a wakeup; the thread that gets the request reads done itself. The
 * sequentially consistent store and the wakeup checks of
 * gcm_slots_req_complete cost a streaming 8-byte sender a sixth of its
 * time. Lock held.
 */
void gcm_slots_send_part_done_unposted(struct gcm_request *req)
{
    if (--req->pending == 0) {
        gcm_assert(!req->counted);
        req->info.error = req->status;
        atomic_store_explicit(&req->done, 1, memory_order_relaxed);
    }
}

/* ---- the port registry ---------------------------------------------------- */

/* Derived ids are unique as (id, generation) pairs; local ones by id
 * alone, whose generation then tells a stale name. So: find by id and
 * generation for derived ids, by id for the others. */
static gcm_port_t *gcm_slots_port_find(gcm_thr_endpoint_t *endpoint,
                                       uint32_t id, uint32_t gen)
{
    gcm_port_t *port = gcm_slots_ep(endpoint)->buckets[id % GCM_SLOTS_BUCKETS];

    while ((port != NULL) &&
           ((port->id != id) ||
            ((id & GCM_PORT_ID_DERIVED) && (port->gen != gen)))) {
        port = port->hash_next;
    }
    return port;
}

/* A derived identity from a hash of its key: the high id bit set, 63 bits
 * of hash in id and generation. */
static void gcm_slots_derive_hash(const void *key, size_t len,
                                  uint32_t *id_p, uint32_t *gen_p)
{
    uint64_t h = gcm_hash64(key, len);

    /* FNV's low bits mix poorly for short keys: fold the halves. */
    h ^= h >> 29;
    h *= 0xbf58476d1ce4e5b9ULL;
    h ^= h >> 32;
    *id_p  = GCM_PORT_ID_DERIVED | (uint32_t)(h & 0x7fffffffu);
    *gen_p = (uint32_t)(h >> 31);
}

void gcm_slots_derive_id(gcm_port_t *parent, uint32_t *id_p, uint32_t *gen_p,
                         uint32_t *home_p)
{
    uint32_t key[3];

    key[0] = parent->id;
    key[1] = parent->gen;
    key[2] = atomic_fetch_add(&parent->nderived, 1);
    gcm_slots_derive_hash(key, sizeof(key), id_p, gen_p);
    if (home_p != NULL) {
        /* Children of the world spread over endpoints 1 and up; the
         * first child of any other port stays where its parent is (a
         * thread's communicator and what it splits off share the
         * thread's endpoint), later ones move on. Never 0: that is the
         * world's endpoint. */
        *home_p = (parent->home == 0) ? key[2] + 1 : parent->home + key[2];
        if (*home_p == 0) {
            *home_p = 1;
        }
    }
}

void gcm_slots_derive_id_keyed(const gcm_port_t *parent, uint64_t key,
                               uint32_t *id_p, uint32_t *gen_p)
{
    uint32_t k[5];

    /* Five words where counted derivations hash three: the two kinds of
     * input never coincide, so neither can repeat the other's ids. */
    k[0] = parent->id;
    k[1] = parent->gen;
    k[2] = 0x6b657964u; /* "keyd" */
    k[3] = (uint32_t)key;
    k[4] = (uint32_t)(key >> 32);
    gcm_slots_derive_hash(k, sizeof(k), id_p, gen_p);
}

int gcm_slots_port_exists(gcm_thr_endpoint_t *endpoint, uint32_t id,
                          uint32_t gen)
{
    int found;

    gcm_thr_lock(endpoint);
    found = (gcm_slots_port_find(endpoint, id, gen) != NULL);
    gcm_thr_unlock(endpoint);
    return found;
}

gcm_status_t gcm_slots_port_create(gcm_thr_endpoint_t *endpoint,
                                   uint32_t id, uint32_t gen, uint64_t token,
                                   const gcm_slots_pattern_t *pattern,
                                   gcm_port_t **port_p)
{
    gcm_slots_ep_t *sep = gcm_slots_ep(endpoint);
    gcm_port_t *port = calloc(1, sizeof(*port));
    gcm_port_t **bucket;
    gcm_list_t *pos, *tmp;

    if (port == NULL) {
        return GCM_ERR_NO_MEMORY;
    }
    port->endpoint = endpoint;
    port->id       = id;
    port->gen      = gen;
    port->token    = token;
    atomic_init(&port->nderived, 0);
    gcm_list_init(&port->posted);
    gcm_list_init(&port->unexpected);
    if (pattern != NULL) {
        port->pattern = 1;
        port->token   = gcm_slots.job_token;
        port->nsend   = pattern->size;
        port->nrecv   = pattern->size;
        port->myrank  = pattern->myrank;
        port->home    = pattern->home;
        if (pattern->procs != NULL) {
            port->procs = malloc((size_t)pattern->size * sizeof(int));
            if (port->procs == NULL) {
                free(port);
                return GCM_ERR_NO_MEMORY;
            }
            memcpy(port->procs, pattern->procs,
                   (size_t)pattern->size * sizeof(int));
        }
    }

    gcm_thr_lock(endpoint);
    bucket = &sep->buckets[id % GCM_SLOTS_BUCKETS];
    port->hash_next = *bucket;
    *bucket = port;
    /* Messages that came before this process created the port. */
    gcm_list_for_each_safe(pos, tmp, &sep->orphans) {
        gcm_slots_umsg_t *umsg = gcm_container_of(pos, gcm_slots_umsg_t,
                                                  elem);
        if ((umsg->env.dst_id == id) && (umsg->env.dst_gen == gen)) {
            gcm_list_del(&umsg->elem);
            gcm_list_push_back(&port->unexpected, &umsg->elem);
        }
    }
    gcm_thr_unlock(endpoint);
    *port_p = port;
    return GCM_OK;
}

gcm_status_t gcm_slots_port_add_send(gcm_port_t *port,
                                     const gcm_slots_dest_t *dest)
{
    gcm_slots_edge_t *edge;

    if (port->nsend == port->send_cap) {
        int cap = (port->send_cap == 0) ? 4 : 2 * port->send_cap;
        gcm_slots_edge_t **edges = realloc(port->edges,
                                           (size_t)cap * sizeof(*edges));
        if (edges == NULL) {
            return GCM_ERR_NO_MEMORY;
        }
        port->edges    = edges;
        port->send_cap = cap;
    }
    edge = calloc(1, sizeof(*edge));
    if (edge == NULL) {
        return GCM_ERR_NO_MEMORY;
    }
    edge->dest  = *dest;
    edge->state = GCM_EDGE_NEW;
    port->edges[port->nsend++] = edge;
    return GCM_OK;
}

gcm_status_t gcm_slots_port_add_recv(gcm_port_t *port, int count)
{
    int need = port->nrecv + count;
    int i;

    if (need > port->recv_cap) {
        int cap = (port->recv_cap == 0) ? 4 : port->recv_cap;
        uint64_t *rtokens;
        int *rpeer;

        while (cap < need) {
            cap *= 2;
        }
        rtokens = realloc(port->rtokens, (size_t)cap * sizeof(*rtokens));
        if (rtokens == NULL) {
            return GCM_ERR_NO_MEMORY;
        }
        port->rtokens = rtokens;
        rpeer = realloc(port->rpeer, (size_t)cap * sizeof(*rpeer));
        if (rpeer == NULL) {
            return GCM_ERR_NO_MEMORY;
        }
        port->rpeer    = rpeer;
        port->recv_cap = cap;
    }
    for (i = port->nrecv; i < need; i++) {
        /* Each receive slot has its own secret for slot names, drawn
         * when its first slot name is made (most slots never get one):
         * until then it is 0, which opens nothing. */
        port->rtokens[i] = 0;
        port->rpeer[i] = -1;
    }
    port->nrecv = need;
    return GCM_OK;
}

uint64_t gcm_slots_recv_token(gcm_port_t *port, int rslot)
{
    uint64_t *token = &port->rtokens[rslot];

    while (*token == 0) {
        gcm_random_bytes(token, sizeof(*token));
    }
    return *token;
}

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

static void gcm_slots_payload_release(gcm_thr_endpoint_t *endpoint,
                                      gcm_payload_t *payload,
                                      gcm_status_t sender_status)
{
    switch (payload->kind) {
    case GCM_PAYLOAD_SHM_RNDV:
        gcm_slots_shm_data_notice(endpoint, payload, sender_status);
        break;
    case GCM_PAYLOAD_HELD:
    case GCM_PAYLOAD_RNDV:
        /* Inside its own callback UCX releases it when we return UCS_OK
         * (and answers a rendezvous sender); releasing it here too would
         * free it twice. */
        if (!payload->in_cb) {
            ucp_am_data_release(endpoint->worker, payload->data);
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

static void gcm_slots_rndv_recv_cb(void *ucx_req, ucs_status_t ucs,
                                   size_t length, void *user_data)
{
    struct gcm_request *req = user_data;
    gcm_status_t status = gcm_thr_status(ucs);

    if (req->tmpbuf != NULL) {
        memcpy(req->buf, req->tmpbuf, req->len);
        free(req->tmpbuf);
        req->tmpbuf = NULL;
        if (status == GCM_OK) {
            status = GCM_ERR_TRUNCATED;
        }
    }
    ucp_request_free(ucx_req);
    gcm_slots_req_complete(req, status);
}

static void gcm_slots_send_ctrl(gcm_thr_endpoint_t *endpoint,
                                const gcm_slots_env_t *env,
                                gcm_status_t status);

/*
 * Hands a message to a matched receive. For a rendezvous, starts pulling
 * the data straight into the user's buffer (or, if the buffer is too small,
 * into a temporary one so the first len bytes can still be delivered).
 * Lock held.
 */
static void gcm_slots_deliver(gcm_thr_endpoint_t *endpoint,
                              struct gcm_request *req,
                              const gcm_slots_env_t *env,
                              gcm_payload_t *payload)
{
    size_t size = payload->size;
    size_t n = (size <= req->len) ? size : req->len;
    gcm_status_t status = (size <= req->len) ? GCM_OK : GCM_ERR_TRUNCATED;
    ucp_request_param_t param;
    void *ucx_req;
    void *target;

    req->info.slot  = env->rslot;
    req->info.tag   = env->tag;
    req->info.count = n;
    gcm_slots_count(endpoint, GCM_STAT_RECEIVED);
    /* A synchronous sender waits for this moment, the match, whatever
     * becomes of the data. (A same-process sender is completed by the
     * release of its LOCAL payload instead.) */
    if ((env->flags & GCM_ENV_FLAG_SYNC) &&
        (payload->kind != GCM_PAYLOAD_LOCAL)) {
        gcm_slots_send_ctrl(endpoint, env, GCM_OK);
    }

    if (payload->kind == GCM_PAYLOAD_SHM_RNDV) {
        /* One copy, straight from the sender's buffer; a truncated
         * message is read up to the receive's length only. */
        gcm_status_t rstatus = gcm_slots_shm_read(endpoint, payload,
                                                  req->buf, n);
        gcm_slots_shm_data_notice(endpoint, payload, rstatus);
        payload->kind = GCM_PAYLOAD_TRANSIENT;
        gcm_slots_req_complete(req, (rstatus != GCM_OK) ? rstatus : status);
        return;
    }
    if (payload->kind != GCM_PAYLOAD_RNDV) {
        if (n > 0) {
            memcpy(req->buf, payload->data, n);
        }
        gcm_slots_payload_release(endpoint, payload, GCM_OK);
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
    memset(&param, 0, sizeof(param));
    param.op_attr_mask = UCP_OP_ATTR_FIELD_CALLBACK |
                         UCP_OP_ATTR_FIELD_USER_DATA |
                         UCP_OP_ATTR_FIELD_MEMORY_TYPE;
    param.memory_type  = UCS_MEMORY_TYPE_HOST;
    param.cb.recv_am   = gcm_slots_rndv_recv_cb;
    param.user_data    = req;
    ucx_req = ucp_am_recv_data_nbx(endpoint->worker, payload->data, target,
                                   size, &param);
    payload->kind = GCM_PAYLOAD_TRANSIENT;
    if (ucx_req == NULL) {
        gcm_slots_rndv_recv_cb(NULL, UCS_OK, size, req);
    } else if (UCS_PTR_IS_ERR(ucx_req)) {
        free(req->tmpbuf);
        req->tmpbuf = NULL;
        gcm_slots_req_complete(req, gcm_thr_status(UCS_PTR_STATUS(ucx_req)));
    }
}

/* ---- control messages ------------------------------------------------------ */

/* Drops a message no receive will take (its LCO freed, finalize): a
 * synchronous remote sender is told, so it does not wait forever. Lock
 * held. */
static void gcm_slots_umsg_drop(gcm_thr_endpoint_t *endpoint,
                                gcm_slots_umsg_t *umsg, gcm_status_t status)
{
    if ((umsg->env.flags & GCM_ENV_FLAG_SYNC) &&
        (umsg->payload.kind != GCM_PAYLOAD_LOCAL)) {
        gcm_slots_send_ctrl(endpoint, &umsg->env, status);
    }
    gcm_slots_payload_release(endpoint, &umsg->payload, status);
    free(umsg);
}

static void gcm_slots_ctrl_sent_cb(void *ucx_req, ucs_status_t ucs,
                                   void *user_data)
{
    free(user_data);
    ucp_request_free(ucx_req);
}

/* Sends a control message to endpoint ep of proc: through shared memory
 * if that is how this connection goes, else over UCX; best effort: a
 * sender that is gone needs no answer. Lock held. */
static void gcm_slots_send_ctrl_to(gcm_thr_endpoint_t *endpoint, int proc,
                                   int ep, const gcm_slots_ctrl_t *msg)
{
    gcm_thr_conn_t *conn = gcm_thr_conn_get(endpoint, proc, ep);
    gcm_slots_ctrl_t *ctrl;
    ucp_request_param_t param;
    void *ucx_req;

    if ((conn == NULL) || (conn->failed != GCM_OK)) {
        return;
    }
    if (gcm_slots_shm_usable(endpoint, conn)) {
        gcm_slots_shm_send_ctrl(endpoint, conn, msg);
        gcm_slots_count(endpoint, GCM_STAT_CONTROL);
        return;
    }
    if (gcm_thr_conn_connect(endpoint, conn) != GCM_OK) {
        return;
    }
    ctrl = malloc(sizeof(*ctrl));
    if (ctrl == NULL) {
        return;
    }
    *ctrl = *msg;
    memset(&param, 0, sizeof(param));
    param.op_attr_mask = UCP_OP_ATTR_FIELD_CALLBACK |
                         UCP_OP_ATTR_FIELD_USER_DATA |
                         UCP_OP_ATTR_FIELD_FLAGS;
    param.cb.send      = gcm_slots_ctrl_sent_cb;
    param.user_data    = ctrl;
    param.flags        = UCP_AM_SEND_FLAG_EAGER;
    ucx_req = ucp_am_send_nbx(conn->ucp_ep, GCM_AM_CTRL, ctrl, sizeof(*ctrl),
                              NULL, 0, &param);
    gcm_slots_count(endpoint, GCM_STAT_CONTROL);
    if (!UCS_PTR_IS_PTR(ucx_req)) {
        free(ctrl);
    }
}

/* Answers a message (accept or refuse). Lock held. */
static void gcm_slots_send_ctrl(gcm_thr_endpoint_t *endpoint,
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

static void gcm_slots_edge_refused(gcm_slots_edge_t *edge,
                                   gcm_status_t status)
{
    if ((edge != NULL) && (status != GCM_OK)) {
        edge->state = status;
    }
}

void gcm_slots_ctrl_in(gcm_thr_endpoint_t *endpoint,
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
        if ((req->id != ctrl.sreq) || !(req->rwait & bit)) {
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
            (ctrl.src_slot < port->nsend)) {
            gcm_slots_edge_refused(port->edges[ctrl.src_slot],
                                   (gcm_status_t)ctrl.status);
        }
        gcm_warn("a message from LCO %u slot %d was refused: %s", ctrl.src_id,
                 ctrl.src_slot, gcm_status_string((gcm_status_t)ctrl.status));
    }
}

static ucs_status_t gcm_slots_am_ctrl(void *arg, const void *header,
                                      size_t header_length, void *data,
                                      size_t length,
                                      const ucp_am_recv_param_t *param)
{
    gcm_slots_ctrl_t ctrl;

    if (header_length != sizeof(ctrl)) {
        gcm_warn("control message of %zu bytes ignored", header_length);
        return UCS_OK;
    }
    memcpy(&ctrl, header, sizeof(ctrl));
    gcm_slots_ctrl_in(arg, &ctrl);
    return UCS_OK;
}

/* ---- receiving ------------------------------------------------------------- */

static gcm_status_t gcm_slots_validate(gcm_port_t *port,
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

/*
 * An entry that owns a message beyond the current call: data UCX lets us
 * keep is kept (*kept_p tells the callback to return UCS_INPROGRESS),
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

/* What became of a message handed to gcm_slots_accept(). */
enum {
    GCM_ACCEPT_LOST = -1,  /* no memory to queue it: it is gone */
    GCM_ACCEPT_DONE = 0,   /* delivered, refused or queued (copied) */
    GCM_ACCEPT_KEPT = 1    /* queued holding UCX's data from its callback */
};

/* ---- receive-slot handlers ---------------------------------------------- */

/*
 * Queues a message for the handler of its slot. Small data is copied (or
 * taken over), a same-process sender's buffer is used as is until the
 * handler has run, and large data is fetched by an internal receive into
 * a buffer of ours; the call waits in the FIFO until that completes, so
 * later messages cannot overtake it. A synchronous sender is answered
 * after the handler (gcm_slots_hcall_finish). Lock held.
 */
static int gcm_slots_hcall_queue(gcm_thr_endpoint_t *endpoint,
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
static gcm_slots_hcall_t *gcm_slots_hcall_ready(gcm_slots_ep_t *sep)
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

void gcm_slots_run_handlers(gcm_thr_endpoint_t *endpoint)
{
    gcm_slots_ep_t *sep = gcm_slots_ep(endpoint);
    gcm_slots_hcall_t *h;

    if (gcm_slots_in_handler || (sep == NULL) ||
        (atomic_load_explicit(&sep->nhcalls, memory_order_relaxed) == 0)) {
        return;
    }
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
                gcm_list_del(&umsg->elem);
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

/* A waiter must not sleep while handler calls it could run are ready. */
static int gcm_slots_sleep_prepare(gcm_thr_endpoint_t *endpoint)
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
 * Takes one in-sequence message: validates, answers if asked, matches a
 * posted receive or queues it as unexpected. Lock held.
 */
static int gcm_slots_accept(gcm_thr_endpoint_t *endpoint,
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
        (env->token == gcm_slots.job_token)) {
        /* A duplicate the sender made already and we not yet: keep the
         * message for it (design: parked, not refused). */
        umsg = gcm_slots_umsg_new(env, payload, &kept);
        if (umsg == NULL) {
            gcm_slots_payload_release(endpoint, payload, GCM_ERR_NO_MEMORY);
            return GCM_ACCEPT_LOST;
        }
        gcm_list_push_back(&gcm_slots_ep(endpoint)->orphans, &umsg->elem);
        gcm_debug("message for duplicate LCO %x from proc %u waits for it",
                  env->dst_id, env->src_proc);
        return kept ? GCM_ACCEPT_KEPT : GCM_ACCEPT_DONE;
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
    gcm_list_push_back(&port->unexpected, &umsg->elem);
    return kept ? GCM_ACCEPT_KEPT : GCM_ACCEPT_DONE;
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
}

/*
 * A message could not be kept (no memory): rather than lose it silently,
 * fail the connection, so that everything that depends on its sender
 * completes with an error, and drop what was parked behind it.
 */
static void gcm_slots_conn_lost(gcm_thr_endpoint_t *endpoint,
                                gcm_thr_conn_t *conn)
{
    while (!gcm_list_empty(&conn->parked)) {
        gcm_slots_umsg_t *umsg = gcm_container_of(conn->parked.next,
                                                  gcm_slots_umsg_t, elem);
        gcm_list_del(&umsg->elem);
        gcm_slots_payload_release(endpoint, &umsg->payload,
                                  GCM_ERR_NO_MEMORY);
        free(umsg);
    }
    gcm_thr_peer_failed(endpoint, conn->proc, GCM_ERR_NO_MEMORY);
}

static ucs_status_t gcm_slots_am_msg(void *arg, const void *header,
                                     size_t header_length, void *data,
                                     size_t length,
                                     const ucp_am_recv_param_t *param)
{
    gcm_thr_endpoint_t *endpoint = arg;
    gcm_slots_env_t env;
    gcm_payload_t payload;

    if (header_length != sizeof(env)) {
        /* Returning UCS_OK lets UCX drop the data. */
        gcm_warn("message with a %zu-byte envelope ignored", header_length);
        return UCS_OK;
    }
    memcpy(&env, header, sizeof(env));
    memset(&payload, 0, sizeof(payload));
    payload.data     = data;
    payload.size     = length;
    payload.sreq     = NULL;
    payload.can_hold = 0;
    payload.in_cb    = 1;
    if (param->recv_attr & UCP_AM_RECV_ATTR_FLAG_RNDV) {
        payload.kind = GCM_PAYLOAD_RNDV;
    } else {
        /* Valid during this callback; kept past it only if UCX allows. */
        payload.kind     = GCM_PAYLOAD_TRANSIENT;
        payload.can_hold = !!(param->recv_attr & UCP_AM_RECV_ATTR_FLAG_DATA);
    }

    return gcm_slots_msg_in(endpoint, &env, &payload) ? UCS_INPROGRESS :
                                                         UCS_OK;
}

int gcm_slots_msg_in(gcm_thr_endpoint_t *endpoint, const gcm_slots_env_t *envp,
                     gcm_payload_t *payload)
{
    gcm_slots_env_t env = *envp;
    gcm_thr_conn_t *conn;
    gcm_slots_umsg_t *umsg;
    int kept = 0;

    if (env.src_proc >= (uint32_t)endpoint->nprocs) {
        gcm_warn("message from unknown proc %u ignored", env.src_proc);
        gcm_slots_payload_release(endpoint, payload, GCM_OK);
        return 0;
    }
    conn = gcm_thr_conn_get(endpoint, (int)env.src_proc, env.src_ep);
    if (conn == NULL) {
        gcm_slots_payload_release(endpoint, payload, GCM_OK);
        return 0;
    }

    if (conn->failed != GCM_OK) {
        /* Messages were lost on this connection: nothing after them can
         * be delivered in order. */
        return 0;
    }
    if (env.seq != conn->rx_seq) {
        /* Ahead of its turn: keep it until the ones before it arrive. */
        umsg = gcm_slots_umsg_new(&env, payload, &kept);
        if (umsg == NULL) {
            gcm_error("out of memory parking a message from proc %u",
                      env.src_proc);
            gcm_slots_conn_lost(endpoint, conn);
            return 0;
        }
        gcm_slots_park(conn, umsg);
        return kept;
    }

    kept = gcm_slots_accept(endpoint, &env, payload);
    if (kept == GCM_ACCEPT_LOST) {
        gcm_slots_conn_lost(endpoint, conn);
        return 0;
    }
    conn->rx_seq++;
    while (!gcm_list_empty(&conn->parked)) {
        umsg = gcm_container_of(conn->parked.next, gcm_slots_umsg_t, elem);
        if (umsg->env.seq != conn->rx_seq) {
            break;
        }
        gcm_list_del(&umsg->elem);
        /* Parked payloads are held or copied already, so accept either
         * consumes them or moves them into an unexpected entry. */
        if (gcm_slots_accept(endpoint, &umsg->env, &umsg->payload) ==
            GCM_ACCEPT_LOST) {
            free(umsg);
            gcm_slots_conn_lost(endpoint, conn);
            break;
        }
        conn->rx_seq++;
        free(umsg);
    }
    return kept == GCM_ACCEPT_KEPT;
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
    gcm_thr_endpoint_t *endpoint = port->endpoint;
    struct gcm_request *req;
    gcm_list_t *pos, *tmp;
    int peer, nrecv;

    /* A pattern's slot count never changes; others' only grow, so a
     * check that passes stays true. */
    if (port->pattern) {
        nrecv = port->nrecv;
    } else {
        gcm_thr_lock(endpoint);
        nrecv = port->nrecv;
        gcm_thr_unlock(endpoint);
    }
    if ((slot != GCM_ANY_SLOT) && ((slot < 0) || (slot >= nrecv))) {
        return gcm_fail(GCM_ERR_NO_SUCH_SLOT, call,
                        "receive slot %d out of range (LCO has %d receive "
                        "slots)", slot, nrecv);
    }
    req = gcm_slots_req_alloc(endpoint, GCM_REQ_RECV);
    if (req == NULL) {
        return GCM_ERR_NO_MEMORY;
    }
    req->port = port;
    req->buf  = buf;
    req->len  = len;
    req->slot = slot;
    req->tag  = tag;

    gcm_thr_lock(endpoint);
    gcm_list_for_each_safe(pos, tmp, &port->unexpected) {
        gcm_slots_umsg_t *umsg = gcm_container_of(pos, gcm_slots_umsg_t,
                                                  elem);
        if (gcm_slots_matches(slot, tag, umsg->env.rslot, umsg->env.tag)) {
            gcm_list_del(&umsg->elem);
            gcm_slots_deliver(endpoint, req, &umsg->env, &umsg->payload);
            free(umsg);
            goto out;
        }
    }
    /* A receive that only a dead process could satisfy fails at once. */
    peer = (slot == GCM_ANY_SLOT) ? -1 :
           (port->pattern ? gcm_slots_pattern_proc(port, slot) :
                            port->rpeer[slot]);
    if (peer >= 0) {
        gcm_thr_conn_t *conn = gcm_thr_conn_get(endpoint, peer, 0);
        if ((conn != NULL) && (conn->failed != GCM_OK)) {
            req->info.slot = slot;
            gcm_slots_req_complete(req, conn->failed);
            goto out;
        }
    }
    gcm_list_push_back(&port->posted, &req->elem);
out:
    gcm_slots_req_posted(req);
    gcm_thr_unlock(endpoint);
    *req_p = req;
    return GCM_OK;
}

int gcm_slots_iprobe(gcm_port_t *port, int slot, int tag,
                     gcm_msg_status_t *info)
{
    gcm_list_t *pos, *tmp;
    int found = 0;

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

    gcm_thr_lock(port->endpoint);
    gcm_list_for_each_safe(pos, tmp, &port->unexpected) {
        gcm_slots_umsg_t *umsg = gcm_container_of(pos, gcm_slots_umsg_t,
                                                  elem);
        if (gcm_slots_matches(slot, tag, umsg->env.rslot, umsg->env.tag)) {
            gcm_list_del(&umsg->elem);
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
    *req_p = req;
    return GCM_OK;
}

/* ---- sending ------------------------------------------------------------- */

/* Why a UCX send of req ended with ucs. Sends are cancelled only by the
 * forced close of a connection whose peer failed (gcm_thr_peer_failed);
 * and whatever error UCX gives for a peer the launcher reported dead, or
 * for a peer of this host that is dying (the launcher has not seen it
 * yet), that is why it failed. */
static gcm_status_t gcm_slots_send_status(const struct gcm_request *req,
                                          ucs_status_t ucs)
{
    if ((ucs == UCS_OK) || (ucs == UCS_INPROGRESS)) {
        return gcm_thr_status(ucs);
    }
    if ((ucs == UCS_ERR_CANCELED) || gcm_thr_proc_dead(req->dest_proc) ||
        gcm_slots_shm_peer_dying(req->dest_proc)) {
        return GCM_ERR_PEER_FAILED;
    }
    return gcm_thr_status(ucs);
}

static void gcm_slots_send_cb(void *ucx_req, ucs_status_t ucs,
                              void *user_data)
{
    struct gcm_request *req = user_data;

    ucp_request_free(ucx_req);
    gcm_slots_send_part_done(req, gcm_slots_send_status(req, ucs));
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
    int copied = (len <= gcm_config.eager_limit) && !sync;

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
    gcm_slots_count(req->endpoint, GCM_STAT_LOCAL);
    if (!copied) {
        /* Completed by the receive, under the destination's lock, which
         * orders this before it. */
        req->counted = 1;
        gcm_thr_pending_add(req->endpoint);
    }

    gcm_thr_lock(dst);
    port = gcm_slots_port_find(dst, dest->id, dest->gen);
    if ((port == NULL) && (dest->id & GCM_PORT_ID_DERIVED) &&
        (dest->token == gcm_slots.job_token)) {
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
    struct gcm_request *req;
    gcm_thr_conn_t *conn;
    ucp_request_param_t param;
    gcm_status_t status;
    void *ucx_req;
    int nsend, state = GCM_EDGE_VALIDATED;

    if (port->pattern) {
        nsend      = port->nsend;
        if ((slot >= 0) && (slot < nsend)) {
            dest.proc = (uint32_t)gcm_slots_pattern_proc(port, slot);
            dest.ep   = (uint16_t)gcm_slots_pattern_ep(port, (int)dest.proc);
        }
        dest.id    = port->id;
        dest.gen   = port->gen;
        dest.token = port->token;
        dest.rslot = port->myrank;
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

    req = gcm_slots_req_alloc(endpoint, GCM_REQ_SEND);
    if (req == NULL) {
        return GCM_ERR_NO_MEMORY;
    }
    req->info.slot  = slot;
    req->info.tag   = tag;
    req->info.count = len;
    *req_p = req;
    if (state < 0) {
        gcm_fail((gcm_status_t)state, call, "send slot %d was refused "
                 "by its receiver earlier", slot);
        gcm_slots_req_complete(req, (gcm_status_t)state);
        return GCM_OK;
    }
    req->edge            = edge;
    req->dest_proc       = (int)dest.proc;
    req->env.dst_id      = dest.id;
    req->env.dst_gen     = dest.gen;
    req->env.token       = dest.token;
    req->env.rslot       = dest.rslot;
    req->env.tag         = tag;
    req->env.src_proc    = (uint32_t)gcm_slots.myproc;
    req->env.src_ep      = (uint16_t)endpoint->index;
    req->env.src_id      = port->id;
    req->env.src_slot    = slot;
    req->env.size        = len;

    if ((int)dest.proc == gcm_slots.myproc) {
        gcm_slots_send_local(req, &dest, buf, len, sync);
        return GCM_OK;
    }

    gcm_thr_lock(endpoint);
    conn = gcm_thr_conn_get(endpoint, (int)dest.proc, dest.ep);
    if (conn == NULL) {
        status = GCM_ERR_NO_MEMORY;
        goto err_unlock;
    }
    if (gcm_slots_shm_usable(endpoint, conn)) {
        gcm_slots_isend_shm(endpoint, conn, req, buf, len, sync);
        gcm_slots_req_posted(req);
        gcm_thr_unlock(endpoint);
        return GCM_OK;
    }
    status = gcm_thr_conn_connect(endpoint, conn);
    if (status != GCM_OK) {
        goto err_unlock;
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

    memset(&param, 0, sizeof(param));
    /* Host memory said outright spares UCX a memory-type lookup. */
    param.op_attr_mask = UCP_OP_ATTR_FIELD_CALLBACK |
                         UCP_OP_ATTR_FIELD_USER_DATA |
                         UCP_OP_ATTR_FIELD_FLAGS |
                         UCP_OP_ATTR_FIELD_MEMORY_TYPE;
    param.memory_type  = UCS_MEMORY_TYPE_HOST;
    param.cb.send      = gcm_slots_send_cb;
    param.user_data    = req;
    param.flags        = (len <= gcm_config.eager_limit) ?
                         UCP_AM_SEND_FLAG_EAGER : UCP_AM_SEND_FLAG_RNDV;
    ucx_req = ucp_am_send_nbx(conn->ucp_ep, GCM_AM_MSG, &req->env,
                              sizeof(req->env), buf, len, &param);
    gcm_slots_count(endpoint, GCM_STAT_REMOTE);
    if (ucx_req == NULL) {
        gcm_slots_send_part_done(req, GCM_OK);
    } else if (UCS_PTR_IS_ERR(ucx_req)) {
        if (req->env.flags & (GCM_ENV_FLAG_ACK | GCM_ENV_FLAG_SYNC)) {
            gcm_list_del(&req->elem);
            req->rwait = 0;
            req->pending--;
        }
        gcm_slots_send_part_done(req, gcm_slots_send_status(
                                          req, UCS_PTR_STATUS(ucx_req)));
    }
    gcm_slots_req_posted(req);
    gcm_thr_unlock(endpoint);
    return GCM_OK;

err_unlock:
    gcm_thr_unlock(endpoint);
    gcm_slots_req_complete(req, status);
    return GCM_OK;
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
        gcm_list_del(&umsg->elem);
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
    free(port);
}

/* ---- init and finalize ---------------------------------------------------- */

gcm_status_t gcm_slots_init(void)
{
    static const gcm_thr_upcalls_t upcalls = {
        .am            = { [GCM_AM_MSG] = gcm_slots_am_msg,
                           [GCM_AM_CTRL] = gcm_slots_am_ctrl },
        .peer_failed   = gcm_slots_peer_failed,
        .progress      = gcm_slots_shm_progress,
        .sleep_prepare = gcm_slots_sleep_prepare,
        .sleep_done    = gcm_slots_shm_sleep_done,
        .after_progress = gcm_slots_run_handlers,
    };
    const char *jobid = gcm_boot_jobid();
    gcm_slots_pattern_t world;
    gcm_thr_endpoint_t *endpoint;
    gcm_status_t status;
    int i;

    gcm_slots.myproc    = gcm_boot_rank();
    /* The world is trusted within a job: its token comes from the job id,
     * which every process knows and other jobs do not share. */
    gcm_slots.job_token = gcm_hash64(jobid, strlen(jobid)) | 1;
    atomic_init(&gcm_slots.next_id, GCM_PORT_ID_FIRST);

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
    world.myrank = gcm_slots.myproc;
    world.home   = 0;
    status = gcm_slots_port_create(gcm_thr_endpoint_get(0),
                                   GCM_PORT_ID_INTERNAL, 1, 0, &world,
                                   &gcm_slots.internal);
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
    int me = gcm_slots.myproc;
    int neps = gcm_thr_num_endpoints();
    gcm_status_t status = GCM_OK;
    char token = 0;
    int dist, round = 0, i;

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

        gcm_slots_irecv(gcm_slots.internal, &in, 1, from, round, &reqs[0]);
        gcm_slots_isend(gcm_slots.internal, &token, 1, to, round, &reqs[1]);
        for (k = 0; k < 2; k++) {
            gcm_thr_wait(reqs[k]->endpoint, gcm_slots_req_done, reqs[k]);
            if ((reqs[k]->status != GCM_OK) && (status == GCM_OK)) {
                status = reqs[k]->status;
            }
            gcm_slots_req_free(reqs[k]);
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

    if (gcm_slots.internal != NULL) {
        gcm_slots_port_destroy(gcm_slots.internal);
        gcm_slots.internal = NULL;
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
        while (ucp_worker_progress(endpoint->worker) != 0) {
        }
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

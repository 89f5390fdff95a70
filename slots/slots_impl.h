/*
 * slots/slots_impl.h: what the files of slots/ share and no other layer
 * sees: the per-endpoint state of the layer, handler calls, and the steps
 * of the send and receive paths that call each other across files.
 */
#ifndef GCM_SLOTS_IMPL_H
#define GCM_SLOTS_IMPL_H

#include "slots/slots.h"

#include <stddef.h>
#include <string.h>

#define GCM_SLOTS_BUCKETS 256
#define GCM_SLOTS_ORPHANS_UNKNOWN 1024

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
    /* Of those, how many have a token no port here holds yet (a pattern
     * made by connect and accept, spawn or join, whose token reached its
     * sender first: from the other side, or from the root of our side
     * before the root's outcome reached us; the token is only checked
     * when the port adopts them; gcm_slots_orphan_keep() says which are
     * kept): at most GCM_SLOTS_ORPHANS_UNKNOWN. They
     * wait at most GENCOMM_CONNECT_TIMEOUT, then are refused
     * (GCM_ERR_NO_SUCH_LCO); orphans_next: the earliest such expiry (or
     * earlier). */
    int         orphans_unknown;
    double      orphans_next;
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
extern __thread int gcm_slots_in_handler GCM_TLS_HOT GCM_INTERNAL;

/* slots/'s settings (slot_init.c). */
typedef struct gcm_slots_config {
    size_t   eager_limit;  /* GENCOMM_EAGER_LIMIT */
    unsigned shm;          /* GENCOMM_SHM */
    size_t   shm_coop_min; /* GENCOMM_SHM_COOP_MIN */
    unsigned shm_membarrier; /* GENCOMM_SHM_MEMBARRIER */
} gcm_slots_config_t;

extern gcm_slots_config_t gcm_slots_config GCM_INTERNAL;

/* The process's state of this layer (slot_init.c). */
struct gcm_slots_proc {
    uint64_t     job_token;
    atomic_uint  next_id;
    int          myproc;
    /* A simulation (GENCOMM_BOOT=sim): no other process exists. */
    int          simulated;
    gcm_port_t  *internal;
};
extern struct gcm_slots_proc gcm_slots_proc GCM_INTERNAL;

static inline gcm_slots_ep_t *gcm_slots_ep(gcm_thr_endpoint_t *endpoint)
{
    return endpoint->upper;
}

/* Counts a message of kind which on endpoint, whose lock the caller
 * holds: a load and a store, no locked instruction. A locked one waits
 * until every store before it has left the core, and the count of a
 * send follows the store of its lane line, which the receiver polls:
 * the sender stood still until the receiver had given that line up.
 * The lock orders the counts of one kind; readers load them
 * (gcm_slots_stats). */
static inline void gcm_slots_count(gcm_thr_endpoint_t *endpoint, int which)
{
    atomic_uint_fast64_t *n = &gcm_slots_ep(endpoint)->stats[which];

    atomic_store_explicit(n, atomic_load_explicit(n, memory_order_relaxed) +
                             1, memory_order_relaxed);
}

/* The same without the lock (a send to an endpoint of this process,
 * GCM_STAT_LOCAL only: no other kind is counted so). */
static inline void gcm_slots_count_unlocked(gcm_thr_endpoint_t *endpoint,
                                            int which)
{
    atomic_fetch_add_explicit(&gcm_slots_ep(endpoint)->stats[which], 1,
                              memory_order_relaxed);
}

/* Tokens of patterns shared with other jobs (slot_port.c): held by the
 * ports that have them; known: the job token or a held one (a message
 * for a derived port not made yet is kept only then). */
int gcm_slots_token_known(uint64_t token) GCM_INTERNAL;

/* What became of a message handed to gcm_slots_accept(). */
enum {
    GCM_ACCEPT_LOST = -1,  /* no memory to queue it: it is gone */
    GCM_ACCEPT_DONE = 0,   /* delivered, refused or queued (copied) */
    GCM_ACCEPT_KEPT = 1    /* queued holding UCX's data from its callback */
};

struct gcm_request *gcm_slots_req_alloc(gcm_thr_endpoint_t *endpoint,
                                        gcm_req_kind_t kind) GCM_INTERNAL;
/* The fields every request starts with (the rest cleared already). */
static inline void gcm_slots_req_setup(struct gcm_request *req,
                                       uint32_t magic,
                                       gcm_thr_endpoint_t *endpoint,
                                       gcm_req_kind_t kind)
{
    req->magic = magic;
    atomic_init(&req->done, 0);
    req->kind       = kind;
    req->endpoint   = endpoint;
    req->status     = GCM_OK;
    req->info.slot  = GCM_ANY_SLOT;
    req->info.tag   = GCM_ANY_TAG;
    req->info.error = GCM_OK;
    gcm_list_init(&req->elem);
}

/* Readies rec, the caller's own storage (gcm_slots_irecv_rec), for a
 * receive. What a receive uses lies before the send's part (env on):
 * only that is cleared, in place (gcm_zero_head: memset was `rep stos`,
 * 26 instructions and a slow start per receive). */
_Static_assert((offsetof(struct gcm_request, env) % 8) == 0,
               "a receive record's clear is a whole number of words");

static inline void gcm_slots_rec_init(struct gcm_request *rec,
                                      gcm_thr_endpoint_t *endpoint)
{
    gcm_zero_head(rec, offsetof(struct gcm_request, env));
    gcm_slots_req_setup(rec, GCM_SLOTS_REC_MAGIC, endpoint, GCM_REQ_RECV);
}

/* Marks the request complete; whoever waits on its endpoint wakes up. */
void gcm_slots_req_complete(struct gcm_request *req,
                            gcm_status_t status) GCM_INTERNAL;

/*
 * A request is posted (lock held: the one its completion takes, so that no
 * completion runs in between): if it is not complete, its endpoint needs
 * progress from someone until it is, and counts it as pending. One that
 * completed at once (an eager send, a receive of a waiting message)
 * costs the count nothing.
 */
void gcm_slots_req_posted(struct gcm_request *req) GCM_INTERNAL;

/* Hands out the request of a transfer just posted (lock not held): its
 * handle, or, when flags hold GCM_SLOTS_XFER_NOREQ and it completed
 * without error already, none (GCM_REQUEST_NULL; the request is released
 * and its status copied to *info_p unless info_p is NULL). */
void gcm_slots_req_hand_out(struct gcm_request *req, int flags,
                            gcm_msg_status_t *info_p,
                            gcm_request_h *req_p) GCM_INTERNAL;

/* Derived ids are unique as (id, generation) pairs; local ones by id
 * alone, whose generation then tells a stale name. So: find by id and
 * generation for derived ids, by id for the others. */
gcm_port_t *gcm_slots_port_find(gcm_thr_endpoint_t *endpoint,
                                uint32_t id, uint32_t gen) GCM_INTERNAL;

void gcm_slots_payload_release(gcm_thr_endpoint_t *endpoint,
                               gcm_payload_t *payload,
                               gcm_status_t sender_status) GCM_INTERNAL;

/*
 * Hands a message to a matched receive. For a rendezvous, starts pulling
 * the data straight into the user's buffer (or, if the buffer is too small,
 * into a temporary one so the first len bytes can still be delivered).
 * Lock held.
 */
void gcm_slots_deliver(gcm_thr_endpoint_t *endpoint,
                       struct gcm_request *req,
                       const gcm_slots_env_t *env,
                       gcm_payload_t *payload) GCM_INTERNAL;

/*
 * The same for a receive that takes no request (GCM_SLOTS_XFER_NOREQ): a
 * message whose data is in memory (no rendezvous) and fits len is copied
 * into buf (and folded) at once, its status written to *info_p unless
 * info_p is NULL: returns 1. Otherwise returns 0 and does nothing: the
 * receive takes a request and gcm_slots_deliver. Lock held.
 */
int gcm_slots_deliver_now(gcm_thr_endpoint_t *endpoint, void *buf,
                          size_t len, const gcm_slots_fold_t *fold,
                          const gcm_slots_env_t *env,
                          gcm_payload_t *payload,
                          gcm_msg_status_t *info_p) GCM_INTERNAL;

/* Answers a message (accept or refuse). Lock held. */
void gcm_slots_send_ctrl(gcm_thr_endpoint_t *endpoint,
                         const gcm_slots_env_t *env,
                         gcm_status_t status) GCM_INTERNAL;

void gcm_slots_edge_refused(gcm_slots_edge_t *edge,
                            gcm_status_t status) GCM_INTERNAL;

/* Drops a message no receive will take (its LCO freed, finalize): a
 * synchronous remote sender is told, so it does not wait forever. Lock
 * held. */
void gcm_slots_umsg_drop(gcm_thr_endpoint_t *endpoint,
                         gcm_slots_umsg_t *umsg, gcm_status_t status)
    GCM_INTERNAL;

int gcm_slots_am_ctrl(gcm_thr_endpoint_t *endpoint, const void *header,
                      size_t header_length, void *data, size_t length,
                      unsigned flags, struct ucp_ep *reply_ep) GCM_INTERNAL;

gcm_status_t gcm_slots_validate(gcm_port_t *port,
                                const gcm_slots_env_t *env) GCM_INTERNAL;

/* On a pattern port (what the library builds: the world, duplicates,
 * splits, node and leader groups, intercommunicators), receive slot r
 * takes messages only from the process of rank r: env->src_proc (which
 * the connection told, never the sender) must be it. Explicit ports take
 * any sender that holds a valid token. */
static inline int gcm_slots_sender_ok(const gcm_port_t *port,
                                      const gcm_slots_env_t *env)
{
    return !port->pattern ||
           ((env->rslot >= 0) && (env->rslot < port->nrecv) &&
            (gcm_slots_pattern_proc(port, env->rslot) ==
             (int)env->src_proc));
}

/* The port's unexpected queue: changed under the endpoint's lock, its
 * length kept beside it for the probes that look without the lock. */
static inline void gcm_slots_unexp_add(gcm_port_t *port,
                                       gcm_slots_umsg_t *umsg)
{
    gcm_list_push_back(&port->unexpected, &umsg->elem);
    __atomic_store_n(&port->nunexpected, port->nunexpected + 1,
                     __ATOMIC_RELEASE);
}

static inline void gcm_slots_unexp_del(gcm_port_t *port,
                                       gcm_slots_umsg_t *umsg)
{
    gcm_list_del(&umsg->elem);
    __atomic_store_n(&port->nunexpected, port->nunexpected - 1,
                     __ATOMIC_RELEASE);
}

/* Whether the queue is empty, without the lock: a message arriving
 * meanwhile is seen by the next look, as it would be with the lock. */
static inline int gcm_slots_unexp_none(gcm_port_t *port)
{
    return __atomic_load_n(&port->nunexpected, __ATOMIC_ACQUIRE) == 0;
}

/*
 * Takes one in-sequence message: validates, answers if asked, matches a
 * posted receive or queues it as unexpected. Lock held.
 */
int gcm_slots_accept(gcm_thr_endpoint_t *endpoint,
                     const gcm_slots_env_t *env,
                     gcm_payload_t *payload) GCM_INTERNAL;

/* A waiter must not sleep while handler calls it could run are ready. */
int gcm_slots_sleep_prepare(gcm_thr_endpoint_t *endpoint) GCM_INTERNAL;

int gcm_slots_am_msg(gcm_thr_endpoint_t *endpoint, const void *header,
                     size_t header_length, void *data, size_t length,
                     unsigned flags, struct ucp_ep *reply_ep) GCM_INTERNAL;

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
                          gcm_payload_t *payload) GCM_INTERNAL;

/* Is the first handler call ready to run? Lock held. */
gcm_slots_hcall_t *gcm_slots_hcall_ready(gcm_slots_ep_t *sep) GCM_INTERNAL;

/* Out-of-order arrivals a connection holds at most: beyond, or for a
 * sequence number that is past or parked already, the connection fails
 * (docs/design.md, "A message's path"). */
#define GCM_SLOTS_PARKED_MAX 4096

/* Inserts a message that came ahead of its turn into its connection's
 * parked list, which stays sorted by sequence number. Lock held. */
void gcm_slots_park(gcm_thr_conn_t *conn, gcm_slots_umsg_t *umsg)
    GCM_INTERNAL;

/* ---- between the paths (slot_*.c) and slot_shm*.c (lock held for all) - */

/* A message arrived on conn (UCX or shared memory): in sequence order it
 * is accepted, else parked. Its sender is conn's process and endpoint,
 * whatever the envelope says (the transport tells the connection: the
 * UCX endpoint it came on, the owner of the ring it was read from).
 * Returns 1 if the payload was kept as is (UCX data held), 0 if it was
 * consumed or copied. */
int gcm_slots_msg_in(gcm_thr_endpoint_t *endpoint, gcm_thr_conn_t *conn,
                     const gcm_slots_env_t *env, gcm_payload_t *payload)
    GCM_INTERNAL;
/* The same, for a caller that decoded the envelope into env itself (the
 * shared-memory path): env is changed, not copied first. */
int gcm_slots_msg_in_own(gcm_thr_endpoint_t *endpoint, gcm_thr_conn_t *conn,
                         gcm_slots_env_t *env, gcm_payload_t *payload)
    GCM_INTERNAL;
/* A control message arrived on conn: it answers only requests sent to
 * conn's process. */
void gcm_slots_ctrl_in(gcm_thr_endpoint_t *endpoint, gcm_thr_conn_t *conn,
                       const gcm_slots_ctrl_t *ctrl) GCM_INTERNAL;
/* Completes one part of a send. */
void gcm_slots_send_part_done(struct gcm_request *req, gcm_status_t status)
    GCM_INTERNAL;
/* The same, for the part done while gcm_slots_isend_x still holds the
 * request (nobody can wait on it yet). Lock held. */
void gcm_slots_send_part_done_unposted(struct gcm_request *req) GCM_INTERNAL;

/* Shared memory between processes of one host (slot_shm*.c): a segment
 * per endpoint, made and published for all of them at init. */
gcm_status_t gcm_slots_shm_init(void) GCM_INTERNAL;
void gcm_slots_shm_finalize(void) GCM_INTERNAL;
/* Decides at the first use of conn whether it goes through shared memory
 * and attaches to the peer's rings if so; returns 1 for shared memory. */
int gcm_slots_shm_usable(gcm_thr_endpoint_t *endpoint, gcm_thr_conn_t *conn)
    GCM_INTERNAL;
/* The same, the choice made already read inline (every send but the
 * first on conn): the call cost a small send some 14 instructions. */
static inline int gcm_slots_shm_on(gcm_thr_endpoint_t *endpoint,
                                   gcm_thr_conn_t *conn)
{
    if (gcm_likely(conn->shm != 0)) {
        return conn->shm > 0;
    }
    return gcm_slots_shm_usable(endpoint, conn);
}
/* Sends req's message (env filled) on conn; completes one part of req
 * when it is in the ring (at once, or later from progress). */
void gcm_slots_shm_send_msg(gcm_thr_endpoint_t *endpoint,
                            gcm_thr_conn_t *conn, struct gcm_request *req,
                            const void *buf, size_t len) GCM_INTERNAL;
/* Writes a small message (env filled, len at most GCM_SLOTS_SHM_CELL_DATA)
 * into conn's ring if nothing waits before it and a cell is free; returns
 * 1 if it did (the message has left: no request is needed), 0 if the
 * caller must send it with a request. Lock held. */
int gcm_slots_shm_send_now(gcm_thr_conn_t *conn, const gcm_slots_env_t *env,
                           const void *buf, size_t len) GCM_INTERNAL;
void gcm_slots_shm_send_ctrl(gcm_thr_endpoint_t *endpoint,
                             gcm_thr_conn_t *conn,
                             const gcm_slots_ctrl_t *ctrl) GCM_INTERNAL;
/* Reads n bytes of a SHM_RNDV payload that arrived at endpoint into
 * buf; with a fold (not NULL), piece by piece, telling fold->fn of each
 * (slots.h). */
gcm_status_t gcm_slots_shm_read(gcm_thr_endpoint_t *endpoint,
                                const gcm_payload_t *payload, void *buf,
                                size_t n, const gcm_slots_fold_t *fold)
    GCM_INTERNAL;
/* Bytes a fold's read takes at a time (rounded down to its unit): small
 * enough that the piece is still in cache when the fold uses it. */
#define GCM_SLOTS_FOLD_PIECE (128 * 1024)
/* The piece of fold's read of n bytes: GCM_SLOTS_FOLD_PIECE rounded down
 * to the fold's unit, or n when the unit is larger. */
size_t gcm_slots_fold_piece(const gcm_slots_fold_t *fold, size_t n)
    GCM_INTERNAL;
void gcm_slots_shm_peer_failed(gcm_thr_endpoint_t *endpoint, int proc,
                               gcm_status_t reason) GCM_INTERNAL;
unsigned gcm_slots_shm_progress(gcm_thr_endpoint_t *endpoint) GCM_INTERNAL;
/* Refuses the orphans of other jobs that waited past their expiry (their
 * pattern was never made here). Lock held; called when there are some
 * (orphans_unknown != 0: the caller's one load when there are none). */
void gcm_slots_orphans_expire(gcm_thr_endpoint_t *endpoint) GCM_INTERNAL;
/* Whether process pid of this host is gone, a zombie or exiting. */
int gcm_slots_pid_dying(pid_t pid) GCM_INTERNAL;
/* Whether proc, on this host, is gone or exiting (0 when not known: another
 * host, or its shared memory off). */
int gcm_slots_shm_peer_dying(int proc) GCM_INTERNAL;
int gcm_slots_shm_sleep_prepare(gcm_thr_endpoint_t *endpoint) GCM_INTERNAL;
int gcm_slots_shm_sleep_woken(gcm_thr_endpoint_t *endpoint) GCM_INTERNAL;
int gcm_slots_shm_sleep_deepen(gcm_thr_endpoint_t *endpoint) GCM_INTERNAL;
void gcm_slots_shm_sleep_done(gcm_thr_endpoint_t *endpoint) GCM_INTERNAL;
/* Largest message copied through a ring cell; larger ones are read from
 * the sender's memory. */
#define GCM_SLOTS_SHM_CELL_DATA 8192

#endif /* GCM_SLOTS_IMPL_H */

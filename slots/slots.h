/*
 * slots/: the send and receive paths.
 *
 * A port is the part of an LCO this layer owns: its identity (id,
 * generation, capability token), its send slots (explicit edges, or the
 * compact world pattern), its receive slots and their matching queues. The
 * LCO layer above wraps a port with names and the public API.
 *
 * Messages from one endpoint to another carry a per-connection sequence
 * number and are matched in that order (UCX does not promise order for
 * active messages); same-process messages are delivered synchronously under
 * the destination endpoint's lock and so keep their order too.
 *
 * Locks: a port's fields and queues are protected by its endpoint's lock.
 */
#ifndef GCM_SLOTS_H
#define GCM_SLOTS_H

#include "threads/thr.h"

#include <stdlib.h>

/* Where a send slot points: one receive slot of one LCO. */
typedef struct gcm_slots_dest {
    uint32_t proc;
    uint16_t ep;
    uint16_t kind;      /* GCM_DEST_LCO or GCM_DEST_SLOT (from a slot name) */
    uint32_t id;
    uint32_t gen;
    uint64_t token;
    int32_t  rslot;
} gcm_slots_dest_t;

enum { GCM_DEST_LCO = 1, GCM_DEST_SLOT = 2 };

/* State of an explicit send slot (an edge). */
enum {
    GCM_EDGE_NEW       = 0,  /* no acknowledgement received yet */
    GCM_EDGE_VALIDATED = 1   /* the receiver accepted a message */
    /* negative: a gcm_status_t the receiver refused with (sticky) */
};

typedef struct gcm_slots_edge {
    gcm_slots_dest_t dest;
    int              state;
} gcm_slots_edge_t;

/* A receive slot's handler (gcm_lco_set_handler). */
typedef struct gcm_slots_handler {
    gcm_handler_func_t fn;     /* NULL: messages are queued for receives */
    void              *arg;
} gcm_slots_handler_t;

typedef struct gcm_port {
    gcm_thr_endpoint_t *endpoint;
    uint32_t            id;
    uint32_t            gen;
    uint64_t            token;
    /* A pattern port (the world, its duplicates) is fully connected over
     * a process group and stored compactly: send slot i and receive slot
     * i are rank i, which is process procs[i] (process i when procs is
     * NULL); this process is rank myrank. No edge table, no names. */
    int                 pattern;
    int                *procs;
    int                 myrank;
    /* A pattern port's home key: in every process of its group it lives
     * on endpoint gcm_thr_home_index(home, that process's endpoint
     * count), so a sender finds the receiver's endpoint without a
     * message. 0: endpoint 0 (the world's). */
    uint32_t            home;
    atomic_uint         nderived;  /* ports derived from this one so far */
    int                 freed;
    /* send slots (explicit ports only) */
    int                 nsend;      /* written under the endpoint's lock
                                     * with an atomic store, read without
                                     * it by argument checks */
    int                 send_cap;
    gcm_slots_edge_t  **edges;
    /* receive slots: per-slot capability token (0 until a slot name is
     * made) and last sender proc */
    int                 nrecv;      /* as nsend */
    int                 recv_cap;
    uint64_t           *rtokens;
    int                *rpeer;
    /* handlers by receive slot (nhandlers entries, NULL until one is
     * set) and the LCO handle they are given */
    gcm_slots_handler_t *handlers;
    int                 nhandlers;
    gcm_lco_h           owner;
    /* matching */
    gcm_list_t          posted;     /* receive requests, in post order */
    gcm_list_t          unexpected; /* messages, in arrival order */
    int                 nunexpected; /* its length: changed under the
                                      * lock, read without it by probes
                                      * that would find nothing */
    struct gcm_port    *hash_next;
} gcm_port_t;

/* Ids of the ports every process has. */
enum {
    GCM_PORT_ID_INTERNAL = 1, /* library's own traffic (finalize barrier) */
    GCM_PORT_ID_WORLD    = 2,
    GCM_PORT_ID_FIRST    = 16 /* user LCOs */
};

/*
 * Ports made collectively (duplicates) get ids every member computes alone
 * from the parent: the high bit set, and 63 bits of a hash of the parent's
 * (id, generation) and how many ports were derived from it before, in id
 * and generation. Locally created ports never have the high bit, so the
 * two kinds cannot collide.
 */
#define GCM_PORT_ID_DERIVED 0x80000000u

/* The group of a pattern port, and where it lives (home key, see
 * gcm_port_t.home). */
typedef struct gcm_slots_pattern {
    int        size;
    const int *procs;   /* process of each rank; NULL: rank i is process i */
    int        myrank;
    uint32_t   home;
} gcm_slots_pattern_t;

typedef enum { GCM_REQ_SEND = 1, GCM_REQ_RECV = 2 } gcm_req_kind_t;

/* The envelope every message carries as its active-message header. */
typedef struct gcm_slots_env {
    uint32_t dst_id;
    uint32_t dst_gen;
    uint64_t token;
    int32_t  rslot;
    int32_t  tag;
    uint64_t seq;
    uint64_t sreq;       /* sender's request id awaiting an answer, or 0 */
    uint32_t src_proc;
    uint16_t src_ep;
    uint16_t flags;
    uint32_t src_id;     /* sender's port, to mark a refused edge */
    int32_t  src_slot;
    uint64_t size;
} gcm_slots_env_t;

#define GCM_ENV_FLAG_ACK  0x1  /* answer with an acknowledgement */
/* Synchronous send: answer when a receive matches the message (not when
 * it arrives); the answer also accepts the edge, so a SYNC message never
 * carries ACK as well. */
#define GCM_ENV_FLAG_SYNC 0x2
/* The sender belongs to another job: src_proc is its rank there, and the
 * connection it came on (which said who it is with a HELLO) tells the
 * receiver which process it is. */
#define GCM_ENV_FLAG_OTHER 0x4

/* How the payload of a message is held until a receive takes it. */
typedef enum {
    GCM_PAYLOAD_TRANSIENT, /* valid only during the UCX callback */
    GCM_PAYLOAD_HELD,      /* data a handler kept (GCM_THR_AM_HOLD) */
    GCM_PAYLOAD_COPY,      /* our malloc'd copy */
    GCM_PAYLOAD_RNDV,      /* UCX rendezvous descriptor: data still remote */
    GCM_PAYLOAD_LOCAL,     /* same process: the sender's buffer */
    GCM_PAYLOAD_SHM_RNDV,  /* same host: data in the sender's memory, read
                            * with process_vm_readv at the match */
    GCM_PAYLOAD_INLINE     /* copied into the unexpected entry holding it
                            * (valid while that entry is) */
} gcm_payload_kind_t;

typedef struct gcm_payload {
    gcm_payload_kind_t  kind;
    void               *data;
    size_t              size;
    struct gcm_request *sreq;   /* LOCAL: the sender's request */
    int                 can_hold; /* TRANSIENT data UCX lets us keep */
    int                 in_cb;    /* inside its UCX callback: UCX releases
                                   * it unless the callback keeps it */
    /* SHM_RNDV: data is the address in process pid (job process proc,
     * endpoint ep), whose request sreq waits for the "data read" notice. */
    int                 pid;
    uint32_t            proc;
    uint16_t            ep;
    uint64_t            cookie;
    /* Kept as an orphan with an unknown token (slots_impl.h), until
     * orphan_expiry (gcm_time_now()), when it is refused. */
    int                 orphan_unknown;
    double              orphan_expiry;
} gcm_payload_t;

/* Data up to this size that must be copied to wait for its receive is
 * kept inside its entry (GCM_PAYLOAD_INLINE): one allocation and one
 * free instead of two each. Up to a shared-memory cell's data (8 KiB):
 * until stop 28 it was 256 bytes, and a 1 KiB message that came before
 * its receive (the root of a 2-process reduce) cost 380 instructions
 * more. */
#define GCM_SLOTS_UMSG_INLINE 8192

/* A message no receive has taken yet (unexpected), or one that arrived
 * ahead of its sequence number (parked on its connection). */
typedef struct gcm_slots_umsg {
    gcm_list_t      elem;
    gcm_slots_env_t env;
    gcm_payload_t   payload;
} gcm_slots_umsg_t;


/* Control message: the answer to a message that asked for one, or the
 * notice that a same-host receiver has read a large message. */
typedef struct gcm_slots_ctrl {
    uint64_t sreq;
    int32_t  status;     /* GCM_OK: accepted; else why refused */
    uint32_t src_id;
    int32_t  src_slot;
    uint32_t kind;       /* GCM_CTRL_ANSWER or GCM_CTRL_DATA */
    /* The sender's claim, as in an envelope (src_proc, src_ep,
     * GCM_ENV_FLAG_OTHER): checked against the connection. */
    uint32_t src_proc;
    uint16_t src_ep;
    uint16_t flags;
} gcm_slots_ctrl_t;

enum { GCM_CTRL_ANSWER = 0, GCM_CTRL_DATA = 1 };

/* The envelope and the control message as they come from the wire (the
 * header of an active message): GCM_OK and the copy in *env_p / *ctrl_p
 * when len is theirs, else GCM_ERR_INVALID_PARAM. Functions of the bytes
 * only, so that a fuzzer can call them alone; what they say about their
 * sender is checked against the connection by the caller. */
gcm_status_t gcm_slots_env_decode(const void *buf, size_t len,
                                  gcm_slots_env_t *env_p) GCM_INTERNAL;
gcm_status_t gcm_slots_ctrl_decode(const void *buf, size_t len,
                                   gcm_slots_ctrl_t *ctrl_p) GCM_INTERNAL;

/* A message or control message waiting for room in a full ring. */
typedef struct gcm_slots_shm_pend {
    gcm_list_t          elem;
    struct gcm_request *req;   /* the message's request; NULL: control */
    const void         *buf;
    size_t              len;
    gcm_slots_ctrl_t    ctrl;
} gcm_slots_shm_pend_t;

/*
 * A receive's fold: fn is told of the data piece by piece as it lands in
 * the receive buffer (bytes [off, off + len) of buf are in; each byte
 * once), so that it can use each piece while it is in cache. Every
 * piece but a truncated message's last is a multiple of unit bytes. A
 * same-host message read from its sender's memory is read
 * GCM_SLOTS_FOLD_PIECE bytes at a time, by the receiver alone unless
 * share is set: then (where a cooperative copy would be offered) the
 * sender may write some of the pieces, which fn is told of once all the
 * receiver's own are in and told, so out of order; each of the
 * receiver's pieces is used as soon as it is in. Without share the
 * pieces come in order. Any other message is one piece once it is
 * whole. fn runs with the endpoint's lock held, in whichever thread
 * progresses the endpoint, before the receive completes; it must not
 * call the library.
 */
typedef struct gcm_slots_fold {
    void  (*fn)(void *ctx, size_t off, size_t len);
    void   *ctx;
    size_t  unit;
    int     share;
} gcm_slots_fold_t;

struct gcm_request {
    atomic_int          done;
    uint32_t            magic;     /* GCM_SLOTS_REQ_MAGIC while in use */
    uint16_t            gen;       /* bumped each time it is released */
    gcm_req_kind_t      kind;
    gcm_status_t        status;
    gcm_thr_endpoint_t *endpoint;  /* progressed by whoever waits */
    /* Counted in its endpoint's pending requests (it did not complete
     * while it was posted); set and read under the lock its completion
     * takes. */
    int                 counted;
    gcm_list_t          elem;      /* posted queue or ack-wait list */
    int                 pending;   /* parts outstanding (lock held) */
    gcm_msg_status_t    info;
    gcm_thr_op_t        op;        /* a UCX send or rendezvous fetch */
    /* receive */
    gcm_port_t         *port;
    void               *buf;
    size_t              len;
    int                 slot;
    int                 tag;
    void               *tmpbuf;    /* truncated rendezvous lands here */
    const gcm_slots_fold_t *fold;  /* NULL: the data stays in buf */
    /* send */
    gcm_slots_env_t     env;       /* must live until UCX is done */
    gcm_slots_edge_t   *edge;      /* NULL for pattern ports */
    uint64_t            id;        /* for acknowledgements */
    int                 dest_proc;
    int                 rwait;     /* GCM_RWAIT_* notices awaited (on the
                                    * ack-wait list while not 0) */
    gcm_slots_shm_pend_t shmq;     /* waiting for room in a ring */
    struct gcm_request *next_free; /* the cache's link */
};

/*
 * Request handles. Request memory is recycled (a per-thread cache) and
 * stays request memory for ever (gcm_handle_alloc_stable); the handle a
 * caller holds is the object's address with its generation in the top 16
 * bits, bumped at every release, so a stale copy of a released handle
 * never reaches the request that reuses its memory, and gcm_wait() and
 * gcm_test() refuse it instead of releasing that request (or caching the
 * object twice). gcm_request_h is an incomplete type: a handle used as an
 * object does not compile.
 */
#define GCM_SLOTS_REQ_MAGIC     0x4e524551u  /* "NREQ" */
/* A request in its caller's storage (gcm_slots_irecv_rec), while in use:
 * never in request memory, so no handle of it passes gcm_slots_req_get. */
#define GCM_SLOTS_REC_MAGIC     0x4e524543u  /* "NREC" */
#define GCM_SLOTS_REQ_ALIGN     64

static inline gcm_request_h gcm_slots_req_handle(const struct gcm_request *req)
{
    return (gcm_request_h)gcm_handle_tag(req, req->gen);
}

/* The object of a handle the library made or checked: no checks. */
static inline struct gcm_request *gcm_slots_req_of(gcm_request_h handle)
{
    return gcm_handle_untag((uintptr_t)handle);
}

/* The live request a handle names, or NULL (GCM_REQUEST_NULL, released,
 * or no request at all: nothing outside request memory is read). */
struct gcm_request *gcm_slots_req_get(gcm_request_h handle) GCM_INTERNAL;

/* What a send on the ack-wait list waits for, one part each. */
enum {
    GCM_RWAIT_ANSWER = 0x1,  /* acceptance, refusal or SYNC match */
    GCM_RWAIT_DATA   = 0x2   /* same host: the receiver read the data */
};


gcm_status_t gcm_slots_init(void) GCM_INTERNAL;
/* Closes the transport; call gcm_slots_barrier() first. */
gcm_status_t gcm_slots_finalize(void) GCM_INTERNAL;
/* Barrier over all processes on endpoint 0, progressing every endpoint
 * while it waits, so that no process leaves while another still needs
 * its answers. */
gcm_status_t gcm_slots_barrier(void) GCM_INTERNAL;

/* Tokens held by this process's ports, counted (a port holds its own):
 * a message for a derived port not created here yet waits for it when
 * its token is held. Holding one before the port exists says that its
 * messages are expected (connect and accept within a job: the other
 * side may send as soon as it has the token). */
gcm_status_t gcm_slots_token_hold(uint64_t token) GCM_INTERNAL;
void gcm_slots_token_release(uint64_t token) GCM_INTERNAL;

/* The token every process of this job gives its world and internal port. */
uint64_t gcm_slots_job_token(void) GCM_INTERNAL;
/* After the first fence, once boot/ holds the job's secret: derives the
 * job token from it and gives it to world and the internal port. Before
 * any message can be taken. */
void gcm_slots_job_ready(gcm_port_t *world) GCM_INTERNAL;

/* Ports. create: homed on endpoint, registered. With a pattern it is
 * fully connected over the group, with token, or the job token when token
 * is 0 (a pattern that spans jobs has a token both jobs were given);
 * without, it starts with no slots. */
gcm_status_t gcm_slots_port_create(gcm_thr_endpoint_t *endpoint,
                                   uint32_t id, uint32_t gen, uint64_t token,
                                   const gcm_slots_pattern_t *pattern,
                                   gcm_port_t **port_p)
    GCM_INTERNAL;
/* The id and generation the next port derived from parent gets (the same
 * in every member when they derive in the same order); *home_p (if not
 * NULL) its home key: for a child of a port of home 0 (the world) one
 * more than the parent's derivation count, so that successive
 * derivations spread over endpoints 1 and up; for a child of any other
 * port the parent's home plus that count (its first child stays on its
 * endpoint). */
void gcm_slots_derive_id(gcm_port_t *parent, uint32_t *id_p, uint32_t *gen_p,
                         uint32_t *home_p) GCM_INTERNAL;
/* An identity derived from parent and key alone (no counter). */
void gcm_slots_derive_id_keyed(const gcm_port_t *parent, uint64_t key,
                               uint32_t *id_p, uint32_t *gen_p)
    GCM_INTERNAL;
/* Is a port with this identity registered on endpoint? Takes the lock. */
int gcm_slots_port_exists(gcm_thr_endpoint_t *endpoint, uint32_t id,
                          uint32_t gen) GCM_INTERNAL;
/* The process behind rank (send or receive slot) of a pattern port. */
static inline int gcm_slots_pattern_proc(const gcm_port_t *port, int rank)
{
    return (port->procs != NULL) ? port->procs[rank] : rank;
}
/* The endpoint of process proc where pattern port lives. */
static inline int gcm_slots_pattern_ep(const gcm_port_t *port, int proc)
{
    if (port->home == 0) {
        return 0;
    }
    return gcm_thr_home_index(port->home, gcm_thr_remote_endpoints(proc));
}
/* Fails pending receives (CANCELED) and held messages, unregisters and
 * frees. Takes the endpoint lock. */
void gcm_slots_port_destroy(gcm_port_t *port) GCM_INTERNAL;
/* Lock held by callers of these three. Adding beyond GCM_MAX_SLOTS (of
 * either kind) is GCM_ERR_INVALID_PARAM and adds nothing. */
gcm_status_t gcm_slots_port_add_send(gcm_port_t *port,
                                     const gcm_slots_dest_t *dest)
    GCM_INTERNAL;
gcm_status_t gcm_slots_port_add_recv(gcm_port_t *port, int count)
    GCM_INTERNAL;
/* The secret of receive slot rslot (in range) of an explicit port, for
 * its slot names: drawn on the first call. Lock held. */
uint64_t gcm_slots_recv_token(gcm_port_t *port, int rslot) GCM_INTERNAL;
/* Next free port id on this process (unique, never reused). */
uint32_t gcm_slots_next_port_id(void) GCM_INTERNAL;

/* Data path. The port's endpoint lock is not held by the caller. */
gcm_status_t gcm_slots_isend(gcm_port_t *port, const void *buf, size_t len,
                             int slot, int tag, gcm_request_h *req_p)
    GCM_INTERNAL;
gcm_status_t gcm_slots_irecv(gcm_port_t *port, void *buf, size_t len,
                             int slot, int tag, gcm_request_h *req_p)
    GCM_INTERNAL;
/* The same with flags and the name of the public call for error texts.
 * SYNC (sends): complete only once a receive matched the message.
 * NOREQ: a transfer that completed without error while it was posted (a
 * small send written into a shared-memory ring or copied in-process, a
 * receive of a message that was waiting) hands out no request: *req_p
 * is GCM_REQUEST_NULL, and a receive's status goes to *info_p (not
 * NULL). Any other transfer gets its request as without the flag. */
enum { GCM_SLOTS_SEND_SYNC = 0x1, GCM_SLOTS_XFER_NOREQ = 0x2 };
gcm_status_t gcm_slots_isend_x(gcm_port_t *port, const void *buf, size_t len,
                               int slot, int tag, int flags,
                               const char *call, gcm_request_h *req_p)
    GCM_INTERNAL;
/* What a send on one slot of a pattern port keeps from one message to the
 * next (gcm_slots_isend_kept): the envelope but its tag, sequence number
 * and size, and the connection. port NULL: empty, filled by the next
 * send; the caller empties it when it is (re)built. */
typedef struct gcm_slots_send_keep {
    gcm_slots_env_t     env;
    const gcm_port_t   *port;
    gcm_thr_conn_t     *conn;  /* NULL: no request-free send on this slot */
} gcm_slots_send_keep_t;
/* gcm_slots_isend_x with GCM_SLOTS_XFER_NOREQ, for a caller that sends on
 * the same slot again and again (a kept collective schedule's send step):
 * a small message to another process of the host takes keep's envelope
 * and connection instead of building and looking them up; anything else
 * (a failed connection, a full ring, a large message) goes through
 * gcm_slots_isend_x. keep belongs to one thread at a time. */
gcm_status_t gcm_slots_isend_kept(gcm_port_t *port, const void *buf,
                                  size_t len, int slot, int tag,
                                  gcm_slots_send_keep_t *keep,
                                  const char *call, gcm_request_h *req_p)
    GCM_INTERNAL;
gcm_status_t gcm_slots_irecv_x(gcm_port_t *port, void *buf, size_t len,
                               int slot, int tag, const char *call,
                               gcm_request_h *req_p) GCM_INTERNAL;
gcm_status_t gcm_slots_irecv_xf(gcm_port_t *port, void *buf, size_t len,
                                int slot, int tag, int flags,
                                const char *call, gcm_msg_status_t *info_p,
                                gcm_request_h *req_p) GCM_INTERNAL;
/* The same with a fold (not NULL; it must outlive the receive): fold->fn
 * is told of each piece of buf as it lands. */
gcm_status_t gcm_slots_irecv_fold(gcm_port_t *port, void *buf, size_t len,
                                  int slot, int tag, int flags,
                                  const gcm_slots_fold_t *fold,
                                  const char *call, gcm_msg_status_t *info_p,
                                  gcm_request_h *req_p) GCM_INTERNAL;
/* gcm_slots_irecv_fold with GCM_SLOTS_XFER_NOREQ, for a caller that owns
 * the storage of its receive (a collective's schedule step, posted again
 * at every run): a receive that does not complete as it is posted uses
 * rec instead of a request from the cache, so its posting, completion and
 * release allocate, clear and free nothing. *req_p is then rec's handle
 * (GCM_REQUEST_NULL when it completed at posting); rec must stay in place
 * until that handle is waited for (gcm_lco_req_wait) or, when done,
 * taken; the handle never reaches a user (gcm_slots_req_get refuses it). */
gcm_status_t gcm_slots_irecv_rec(gcm_port_t *port, void *buf, size_t len,
                                 int slot, int tag,
                                 const gcm_slots_fold_t *fold,
                                 const char *call, gcm_msg_status_t *info_p,
                                 struct gcm_request *rec,
                                 gcm_request_h *req_p) GCM_INTERNAL;
/* Sets (fn not NULL) or removes the handler of receive slot rslot; owner
 * is the LCO handle handlers get. Messages queued on the slot go to the
 * new handler in order. Takes the lock; runs ready handlers after. */
gcm_status_t gcm_slots_set_handler(gcm_port_t *port, gcm_lco_h owner,
                                   int rslot, gcm_handler_func_t fn,
                                   void *arg) GCM_INTERNAL;
/* Runs the endpoint's handler calls that are ready, in order, unless this
 * thread is inside a handler already or another thread runs them. Lock
 * not held. */
void gcm_slots_run_handlers(gcm_thr_endpoint_t *endpoint) GCM_INTERNAL;
/* Returns 1 and fills info if a matching message waits. */
int gcm_slots_iprobe(gcm_port_t *port, int slot, int tag,
                     gcm_msg_status_t *info) GCM_INTERNAL;
/* Cancels a posted receive nothing matched: GCM_OK (it completes with
 * GCM_ERR_CANCELED), GCM_ERR_BUSY if matched or complete already. */
gcm_status_t gcm_slots_cancel(struct gcm_request *req) GCM_INTERNAL;
/* Removes the first unexpected message matching (slot, tag) from port's
 * queue and returns it (info filled), or NULL. Until gcm_slots_imrecv
 * takes it, it is on its endpoint's list of matched messages, which
 * finalize empties. Takes the lock. */
gcm_slots_umsg_t *gcm_slots_improbe(gcm_port_t *port, int slot, int tag,
                                    gcm_msg_status_t *info) GCM_INTERNAL;
/* Delivers a message gcm_slots_improbe returned into buf as a receive on
 * port would; consumes umsg. Takes the lock. */
gcm_status_t gcm_slots_imrecv(gcm_port_t *port, gcm_slots_umsg_t *umsg,
                              void *buf, size_t len, gcm_request_h *req_p)
    GCM_INTERNAL;

static inline int gcm_slots_req_done(void *arg)
{
    struct gcm_request *req = arg;

    return atomic_load_explicit(&req->done, memory_order_acquire);
}

/* Frees a completed request (into the calling thread's cache). */
void gcm_slots_req_free(struct gcm_request *req) GCM_INTERNAL;

/* Releases a completed request: one from the cache goes back to it; a
 * caller's own (gcm_slots_irecv_rec) only drops what it held. */
static inline void gcm_slots_req_release(struct gcm_request *req)
{
    if (req->magic == GCM_SLOTS_REC_MAGIC) {
        if (req->tmpbuf != NULL) {
            free(req->tmpbuf);
            req->tmpbuf = NULL;
        }
        req->magic = 0;
        return;
    }
    gcm_slots_req_free(req);
}
/* Frees the calling thread's cached requests. */
void gcm_slots_req_cache_flush(void) GCM_INTERNAL;

/* The counters of gcm_get_stats(), summed over the endpoints. */
void gcm_slots_stats(gcm_stats_t *stats_p) GCM_INTERNAL;

/* ---- the staging area of a pair (slot_shm_stage.c) -------------------------
 *
 * A shared area per pair of processes of one host for a large commutative
 * reduction between the two (coll/README.md, "The staged allreduce of 2
 * processes"): each process writes its own, reads its partner's. */
#define GCM_SLOTS_STAGE_PIECE   (64 * 1024)
#define GCM_SLOTS_STAGE_HALF    (1024 * 1024)
#define GCM_SLOTS_STAGE_NPIECES (GCM_SLOTS_STAGE_HALF / GCM_SLOTS_STAGE_PIECE)
#define GCM_SLOTS_STAGE_HDR     4096
#define GCM_SLOTS_STAGE_BYTES   \
    ((uint64_t)GCM_SLOTS_STAGE_HDR + 2 * GCM_SLOTS_STAGE_HALF)

typedef struct gcm_slots_stage gcm_slots_stage_t;

/* What a process tells its partner about its area (magic 0: none). */
typedef struct gcm_slots_stage_offer {
    uint64_t magic;
    uint64_t area_magic;
    int32_t  pid;
    int32_t  fd;
    uint64_t bytes;
} gcm_slots_stage_offer_t;

/* inout[i] = in[i] op inout[i] for count elements. */
typedef void gcm_slots_stage_combine_func_t(void *ctx, const void *in,
                                            void *inout, size_t count);

/* This process's area for a pair with world process peer_proc, and the
 * offer to send it (*offer zeroed and NULL returned when peer_proc is not
 * a process of this host reached through shared memory, or on failure). */
gcm_slots_stage_t *gcm_slots_stage_create(int peer_proc,
                                          gcm_slots_stage_offer_t *offer)
    GCM_INTERNAL;
/* Maps the partner's area from its offer (checked against the pid it
 * published): 1, or 0 when it cannot be used. */
int gcm_slots_stage_attach(gcm_slots_stage_t *st,
                           const gcm_slots_stage_offer_t *offer)
    GCM_INTERNAL;
/* Both sides attached: closes the descriptor the partner opened. */
void gcm_slots_stage_ready(gcm_slots_stage_t *st) GCM_INTERNAL;
void gcm_slots_stage_free(gcm_slots_stage_t *st) GCM_INTERNAL;
/* Reduces count elements of esize bytes (a power of two, at most
 * GCM_SLOTS_STAGE_PIECE) of sbuf and the partner's into rbuf (sbuf ==
 * rbuf: in place) with fn, rank 0 or 1 in the pair; both call it with the
 * same count and esize. GCM_ERR_PEER_FAILED when the partner dies while
 * this waits; the area may not be used again then. */
gcm_status_t gcm_slots_stage_allreduce(gcm_slots_stage_t *st, int rank,
                                       const void *sbuf, void *rbuf,
                                       size_t count, size_t esize,
                                       gcm_slots_stage_combine_func_t *fn,
                                       void *ctx) GCM_INTERNAL;

/* ---- pure helpers, exposed for unit tests ---------------------------------- */

/* Does a receive for (slot, tag) accept a message on (rslot, mtag)? Tags
 * above GCM_TAG_UB are the library's own: only a receive naming the tag
 * takes such a message, never GCM_ANY_TAG. */
static inline int gcm_slots_matches(int slot, int tag, int rslot, int mtag)
{
    return ((slot == GCM_ANY_SLOT) || (slot == rslot)) &&
           ((tag == GCM_ANY_TAG) ? ((mtag >= 0) && (mtag <= GCM_TAG_UB)) :
                                   (tag == mtag));
}

#endif /* GCM_SLOTS_H */

/*
 * threads/: endpoints. One UCX context per process; one UCX worker per
 * endpoint; connections to peers made lazily from the worker addresses that
 * boot/ exchanged; progress; waiting that spins briefly and then sleeps on
 * the worker's event file descriptor.
 *
 * Lock: each endpoint has one lock (gcm_thr_endpoint_t.lock) protecting its
 * worker, its connections and everything the upper layers keep per endpoint
 * (LCO registry, matching queues). Upcalls from UCX (AM handlers, error
 * handlers) run inside ucp_worker_progress() and so with that lock held.
 * No code holds two endpoint locks at once: another endpoint is only
 * progressed with gcm_thr_trylock. A mutex of thr_endpoint.c protects
 * thread binding (nbound, nreserved); it is taken with no endpoint lock
 * held.
 */
#ifndef GCM_THR_H
#define GCM_THR_H

#include "util/util.h"

#include <pthread.h>
#include <stdio.h>

/* UCX's handles, as opaque pointers: the layers above never see UCX
 * (its calls are in this layer, thr_am.c; thr_impl.h includes it). */
struct ucp_worker;
struct ucp_ep;

/* Active-message ids the layers above register handlers for. */
enum {
    GCM_AM_MSG   = 1,  /* a message: envelope header + payload */
    GCM_AM_CTRL  = 2,  /* acknowledgement or refusal of a message */
    GCM_AM_HELLO = 3,  /* who opened this connection (another job's
                        * process: thr_hello.c); handled by this layer */
    GCM_AM_LAST
};

struct gcm_thr_endpoint;

/* An active message arrived on endpoint: header and data (length bytes,
 * or with GCM_THR_AM_RNDV a descriptor of length bytes to fetch with
 * gcm_thr_am_recv_data). reply_ep is the UCX endpoint it came on (every
 * gcm_thr_am_send asks UCX for it; NULL if UCX gave none): what
 * gcm_thr_conn_identify takes. Returns nonzero when it keeps data past
 * the call (allowed with GCM_THR_AM_HOLD or GCM_THR_AM_RNDV only), to be
 * given back with gcm_thr_am_data_release. */
typedef int (*gcm_thr_am_func_t)(struct gcm_thr_endpoint *endpoint,
                                 const void *header,
                                 size_t header_length, void *data,
                                 size_t length, unsigned flags,
                                 struct ucp_ep *reply_ep);

/* A connection from one local endpoint to one remote endpoint. */
typedef struct gcm_thr_conn {
    struct gcm_thr_conn *next;       /* other endpoints of the same proc */
    struct gcm_thr_endpoint *owner;  /* the local endpoint */
    int                  proc;
    int                  rep;        /* the remote endpoint's index */
    struct ucp_ep       *ucp_ep;     /* NULL until first used */
    gcm_status_t         failed;     /* GCM_OK, or why it is unusable */
    /* Set by slots/ at first use: 1 when the peer shares this host and
     * all traffic goes through its shared-memory ring (shm_tx), -1 when
     * it goes over UCX, 0 before the choice. Fixed once made, so that the
     * per-connection order holds. */
    int                  shm;
    void                *shm_tx;
    /* Used by slots/: per-connection sequence numbers and the messages that
     * arrived ahead of their turn. */
    uint64_t             tx_seq;
    uint64_t             rx_seq;
    gcm_list_t           parked;
    unsigned             nparked;
    /* A process of another job: the next such connection of the same
     * endpoint (the endpoint's list, searched by UCX endpoint), and
     * whether who is on ucp_ep is known (we sent HELLO on it, or a HELLO
     * that came on it checked out). */
    struct gcm_thr_conn *next_other;
    int                  known;
    /* A connection to another job's process until UCX has finished
     * setting it up (the flush started at connect completed): UCX
     * watches the peer's life only from then on, so until then its
     * contact is asked now and then whether it lives (thr_watch.c).
     * NULL once set up. */
    struct gcm_thr_conn_flush *flush;
    double               probe_at;
    /* UCX (or the peer's contact) said the peer is gone: from this time
     * on, the failure is applied (gcm_thr_conn_lost); 0 when none. */
    double               lost_at;
} gcm_thr_conn_t;

typedef struct gcm_thr_endpoint {
    /* A test-and-test-and-set lock: taking it is one atomic exchange and
     * releasing it a plain store, where a mutex costs two read-modify-write
     * operations. It is taken on every round of a waiting thread's spin,
     * and held only for short, non-blocking work. */
    atomic_int        lock;
    /* Requests of this endpoint not complete yet (gcm_thr_pending_add,
     * gcm_thr_pending_done; slots/ counts those that did not complete
     * while posted), and threads waiting in gcm_thr_wait on it (from a
     * wait's 32nd round or first sleep): an endpoint with pending
     * requests and no waiter is progressed by the waiters of other
     * endpoints (and the progress thread). Beside the lock: the threads
     * that take it change these. */
    atomic_int        npending;
    atomic_int        nwaiters;
    int               index;
    struct ucp_worker *worker;
    int               efd;           /* UCX wakeup fd */
    gcm_thr_conn_t  **conns;         /* by proc; chains by remote endpoint */
    int               nprocs;        /* entries of conns (grows for the
                                      * processes of other jobs) */
    gcm_thr_conn_t   *others;        /* connections to other jobs */
    /* How many of its connections were ever marked failed: while 0, no
     * connection needs a look to know it works (a receive posted at
     * message rate skips it). Only grows. */
    atomic_uint       nfailed;
    void             *upper;         /* slots/ state for this endpoint */
    /* Set by the thread that signals a waiter; cleared by the waiter. */
    atomic_int        signaled;
    /* Threads asleep (or about to sleep) in poll() on efd: a completion
     * costs a wakeup system call only when someone sleeps. */
    atomic_int        sleepers;
    /* One sleeping thread at a time polls (poller is 1 while one does);
     * the others sleep on the futex wake_gen, which the poller and
     * gcm_thr_signal bump. fsleepers: threads on the futex. */
    atomic_int        poller;
    atomic_int        fsleepers;
    atomic_uint       wake_gen;
    /* Launcher reports of dead processes applied so far (lock held). */
    unsigned          died_seen;
    /* Connections to other jobs whose set-up is not known complete
     * (conn->flush set; lock held). */
    int               nflushing;
    /* Connections whose peer was reported gone and not failed yet
     * (conn->lost_at set; lock held), and a time at or before the
     * earliest of their lost_at (so that progress looks at none before). */
    int               nlost;
    double            lost_due;
    /* The argument UCX hands the receive callback of each active message
     * id (thr_am.c). */
    struct gcm_thr_am_arg {
        struct gcm_thr_endpoint *endpoint;
        gcm_thr_am_func_t        fn;
    } am[GCM_AM_LAST];
    /* Threads bound to it (gcm_thr_endpoint_current) and thread LCOs
     * placed on it (gcm_thr_endpoint_reserve); changed under the binding
     * mutex of thr_endpoint.c. */
    int               nbound;
    int               nreserved;
} gcm_thr_endpoint_t;

/* Upcalls registered by the layer above, run with the endpoint lock held. */
typedef void (*gcm_thr_peer_failed_func_t)(gcm_thr_endpoint_t *endpoint,
                                           int proc, gcm_status_t reason);

/* Transports of the layer above beside UCX (shared memory): progress runs
 * after each UCX progress, lock held, and returns the events it handled;
 * sleep_prepare (lock not held) returns a file descriptor a sleeping
 * waiter must poll too, -1 for none, or -2 if work arrived and the waiter
 * must not sleep; sleep_woken (lock not held, may be NULL) reads what
 * made that descriptor readable and returns 0 if it was nothing of the
 * job's (the waiter sleeps on), 1 otherwise; sleep_deepen (lock not held,
 * may be NULL) comes after a first short sleep that nothing ended
 * (GCM_THR_NAP_MS) and returns 0 if the waiter may sleep on as long as it
 * likes, 1 if only for another short sleep, -1 if work arrived; sleep_done
 * ends a sleep that sleep_prepare allowed. */
typedef unsigned (*gcm_thr_progress_func_t)(gcm_thr_endpoint_t *endpoint);
typedef int (*gcm_thr_sleep_prepare_func_t)(gcm_thr_endpoint_t *endpoint);
typedef int (*gcm_thr_sleep_woken_func_t)(gcm_thr_endpoint_t *endpoint);
typedef int (*gcm_thr_sleep_deepen_func_t)(gcm_thr_endpoint_t *endpoint);
typedef void (*gcm_thr_sleep_done_func_t)(gcm_thr_endpoint_t *endpoint);
/* Runs at the end of each round of progress with the lock released: work
 * that may call back into the library (receive-slot handlers). */
typedef void (*gcm_thr_after_progress_func_t)(gcm_thr_endpoint_t *endpoint);

typedef struct gcm_thr_upcalls {
    gcm_thr_am_func_t             am[GCM_AM_LAST];
    gcm_thr_peer_failed_func_t    peer_failed;
    gcm_thr_progress_func_t       progress;
    gcm_thr_sleep_prepare_func_t  sleep_prepare;
    gcm_thr_sleep_woken_func_t    sleep_woken;
    gcm_thr_sleep_deepen_func_t   sleep_deepen;
    gcm_thr_sleep_done_func_t     sleep_done;
    gcm_thr_after_progress_func_t after_progress;
} gcm_thr_upcalls_t;

/* Makes the UCX context and all endpoints (GENCOMM_MAX_ENDPOINTS), and
 * publishes their addresses and their count; the caller fences. The
 * calling thread is bound to endpoint 0. */
gcm_status_t gcm_thr_init(const gcm_thr_upcalls_t *upcalls) GCM_INTERNAL;
void gcm_thr_finalize(void) GCM_INTERNAL;
/* Stops the progress thread if there is one: before the layers above
 * tear down what its progress would touch. */
void gcm_thr_pt_stop(void) GCM_INTERNAL;


/* The calling thread's endpoint. The thread that initialized the library
 * has endpoint 0; any other thread is bound at its first call to an
 * endpoint no thread uses yet (1 and up, those no reservation took
 * first), and when every one is taken, to the least used one, which it
 * then shares. A thread's exit unbinds it. */
gcm_thr_endpoint_t *gcm_thr_endpoint_current(void) GCM_INTERNAL;
gcm_thr_endpoint_t *gcm_thr_endpoint_get(int index) GCM_INTERNAL;
int gcm_thr_num_endpoints(void) GCM_INTERNAL;

/* Endpoints made for GENCOMM_MAX_ENDPOINTS = asked: asked itself when
 * 1..GCM_MAX_ENDPOINTS, else (0) one more than the CPUs of this
 * process's affinity mask, at least 8. */
int gcm_thr_default_endpoints(unsigned asked) GCM_INTERNAL;
/* An endpoint for a new thread LCO: one no thread and no earlier
 * reservation uses while there is one (1 and up), then the least used
 * ones, round robin; 0 when it is the only one. */
int gcm_thr_endpoint_reserve(void) GCM_INTERNAL;
/* The endpoint of a process with neps endpoints where the LCOs of home
 * key home live: 0 for home 0 (the world's), else 1 + (home - 1) %
 * (neps - 1), and 0 when neps is 1. Every member of a communicator
 * computes the same index for each process without a message. */
static inline int gcm_thr_home_index(uint32_t home, int neps)
{
    if ((home == 0) || (neps <= 1)) {
        return 0;
    }
    return 1 + (int)((home - 1) % (uint32_t)(neps - 1));
}

/* How many endpoints process proc has (what it published at init; 1 if
 * it published nothing). Any thread. */
int gcm_thr_remote_endpoints(int proc) GCM_INTERNAL;

/* How many processes of the job share this host, as the launcher says
 * (else the whole job). */
int gcm_thr_count_local(void) GCM_INTERNAL;
/* Oversubscribed: moves this process once to the CPU of its local rank,
 * leaving it unbound (GENCOMM_SPREAD). */
void gcm_thr_spread(void) GCM_INTERNAL;

/* The cores this process's threads can count on at once (its CPU mask,
 * at most its share of the host's), and how many of its threads spin in
 * gcm_thr_wait now: while there are more spinners than cores, each
 * progresses the other endpoints too and gives its core away every round
 * (docs/design.md, "Waiting"). */
int gcm_thr_own_cpus(void) GCM_INTERNAL;
int gcm_thr_spinners(void) GCM_INTERNAL;
/* Empty polls of the calling thread that gave its core away, and whether
 * the host has more of the job's processes than cores (tests). */
unsigned long gcm_thr_poll_yields(void) GCM_INTERNAL;
int gcm_thr_is_oversubscribed(void) GCM_INTERNAL;
/* Times the calling thread's waits (gcm_thr_wait) went to sleep (tests). */
unsigned long gcm_thr_wait_sleeps(void) GCM_INTERNAL;

void gcm_thr_lock_contended(gcm_thr_endpoint_t *endpoint) GCM_INTERNAL;

static inline void gcm_thr_lock(gcm_thr_endpoint_t *endpoint)
{
    if (gcm_likely(!atomic_exchange_explicit(&endpoint->lock, 1,
                                             memory_order_acquire))) {
        return;
    }
    gcm_thr_lock_contended(endpoint);
}

static inline int gcm_thr_trylock(gcm_thr_endpoint_t *endpoint)
{
    return !atomic_load_explicit(&endpoint->lock, memory_order_relaxed) &&
           !atomic_exchange_explicit(&endpoint->lock, 1,
                                     memory_order_acquire);
}

static inline void gcm_thr_unlock(gcm_thr_endpoint_t *endpoint)
{
    atomic_store_explicit(&endpoint->lock, 0, memory_order_release);
}

/* The progress thread (GENCOMM_PROGRESS_THREAD) sleeps when no endpoint
 * needs it: the first pending request of an endpoint, or a waiter leaving
 * one with pending requests, wakes it (when gcm_thr_pt_idle says it
 * sleeps). */
extern atomic_int gcm_thr_pt_idle GCM_INTERNAL;
void gcm_thr_pt_wake(void) GCM_INTERNAL;

/* A request of endpoint starts (any thread, lock held or not) and ends. */
static inline void gcm_thr_pending_add(gcm_thr_endpoint_t *endpoint)
{
    /* Sequentially consistent against the idle progress thread's "idle,
     * then look at every endpoint again": one of the two sees the other. */
    if (gcm_unlikely(atomic_fetch_add(&endpoint->npending, 1) == 0) &&
        gcm_unlikely(atomic_load(&gcm_thr_pt_idle))) {
        gcm_thr_pt_wake();
    }
}

static inline void gcm_thr_pending_done(gcm_thr_endpoint_t *endpoint)
{
    atomic_fetch_sub_explicit(&endpoint->npending, 1, memory_order_release);
}

/* The connection to (proc, rep), created on first use; with the UCX
 * endpoint made if connect. Lock held. NULL only without memory. */
gcm_thr_conn_t *gcm_thr_conn_get(gcm_thr_endpoint_t *endpoint, int proc,
                                 int rep) GCM_INTERNAL;
/* The same for the message path: the first connection to proc, when it
 * is the one to rep and exists (every send of a job's process but the
 * first), is found inline; anything else asks gcm_thr_conn_get. The call
 * and its loop cost a small send over shared memory some 30
 * instructions of its ~260. Lock held. */
static inline gcm_thr_conn_t *gcm_thr_conn_find(gcm_thr_endpoint_t *endpoint,
                                                int proc, int rep)
{
    if (gcm_likely((proc >= 0) && (proc < endpoint->nprocs))) {
        gcm_thr_conn_t *conn = endpoint->conns[proc];

        if (gcm_likely((conn != NULL) && (conn->rep == rep))) {
            return conn;
        }
    }
    return gcm_thr_conn_get(endpoint, proc, rep);
}
/* Makes sure conn->ucp_ep exists. Lock held. A published address that
 * gcm_thr_addr_decode refuses fails the connection for good. */
gcm_status_t gcm_thr_conn_connect(gcm_thr_endpoint_t *endpoint,
                                  gcm_thr_conn_t *conn) GCM_INTERNAL;
/* Checks a worker address as published (len bytes at buf): GCM_OK and the
 * length of the UCX address that follows its header, or
 * GCM_ERR_INVALID_PARAM and why. Bytes alone: callable by itself. */
gcm_status_t gcm_thr_addr_decode(const void *buf, size_t len,
                                 size_t *addr_len_p, const char **why_p)
    GCM_INTERNAL;

/* UCX endpoints (connections) open now, all endpoints together. */
uint64_t gcm_thr_connections(void) GCM_INTERNAL;
/* GENCOMM_CONNECT_TIMEOUT, in seconds. */
unsigned gcm_thr_connect_timeout(void) GCM_INTERNAL;

/* The HELLO header another job's process sends first on a connection it
 * opened (thr_hello.c); its data is the sender's worker address. */
typedef struct gcm_thr_hello {
    uint32_t magic;
    uint16_t version;
    uint16_t ep;
    uint64_t job;
    uint32_t rank;
    uint16_t neps;
    uint16_t port;
    uint32_t ip4;
    uint32_t addr_len;
} gcm_thr_hello_t;

/* Checks a HELLO's header (header_length bytes at header) against the
 * length of its data, from a job other than own_job: GCM_OK and the
 * header in *hello_p, else GCM_ERR_INVALID_PARAM and why. Bytes alone
 * (the data, a worker address, is gcm_thr_addr_decode's). */
gcm_status_t gcm_thr_hello_decode(const void *header, size_t header_length,
                                  size_t data_length, uint64_t own_job,
                                  gcm_thr_hello_t *hello_p,
                                  const char **why_p) GCM_INTERNAL;

/* Nonzero once the launcher reported proc dead. */
int gcm_thr_proc_dead(int proc) GCM_INTERNAL;

/* Marks every connection to proc failed and tells the upper layer. */
void gcm_thr_peer_failed(gcm_thr_endpoint_t *endpoint, int proc,
                         gcm_status_t reason) GCM_INTERNAL;

/* UCX reported an error on conn, or its peer's contact says the process
 * is gone: conn's peer fails GCM_THR_LOST_GRACE_S later, at a round of
 * the endpoint's progress that finds nothing to do, so that what the
 * peer sent before it went reaches its receives first (UCX may report
 * the error before it hands over messages that arrived earlier). Lock
 * held (UCX calls its error handler from inside progress). */
void gcm_thr_conn_lost(gcm_thr_conn_t *conn) GCM_INTERNAL;
/* Applies the failures gcm_thr_conn_lost deferred whose time has come;
 * quiet: the round of progress that calls it handled nothing. Lock
 * held. */
void gcm_thr_apply_lost(gcm_thr_endpoint_t *endpoint, int quiet)
    GCM_INTERNAL;

/* One round of progress (a poll); takes the lock. Every 32nd call of a
 * thread also progresses the other endpoints that have pending requests
 * and no waiter (trying their locks, never waiting for them). With more
 * processes than cores, an empty poll after the caller was away for
 * GENCOMM_POLL_YIELD_US, or in a run of empty polls that lasted that
 * long, gives the core away (docs/design.md, "Polling"). */
void gcm_thr_progress(gcm_thr_endpoint_t *endpoint) GCM_INTERNAL;

/* Waits until done(arg) is true, progressing endpoint: spins, then sleeps
 * on the worker's event fd (and the launcher's fd). Lock not held. done
 * may be called again after it returned true: once true it must stay
 * true, with no further effect. While it waits it also keeps the
 * endpoints nobody waits on moving: every 32 rounds it progresses those
 * with pending requests, and it sleeps watching their event fds too
 * (those no other thread watches), so that a message or completion for
 * any of them wakes it. */
void gcm_thr_wait(gcm_thr_endpoint_t *endpoint, int (*done)(void *arg),
                  void *arg) GCM_INTERNAL;

/* Wakes threads sleeping in gcm_thr_wait() on endpoint, if any; any
 * thread. Call it after making the waited-for condition true. */
void gcm_thr_signal(gcm_thr_endpoint_t *endpoint) GCM_INTERNAL;

/* ---- active messages (thr_am.c) -------------------------------------- */

/* Flags of a received active message (gcm_thr_am_func_t). */
enum {
    GCM_THR_AM_RNDV = 0x1,  /* data is a rendezvous descriptor */
    GCM_THR_AM_HOLD = 0x2   /* data may be kept past the handler */
};

/* Flags of gcm_thr_am_send: the protocol. */
enum {
    GCM_THR_SEND_EAGER = 0x1,
    GCM_THR_SEND_RNDV  = 0x2
};

/* A transfer that did not complete at once: the caller embeds one in an
 * object that lives until done runs (from progress, lock held) with the
 * transfer's status. */
typedef struct gcm_thr_op {
    void (*done)(struct gcm_thr_op *op, gcm_status_t status);
} gcm_thr_op_t;

/* Sends active message id (header hdr of hlen bytes, then len bytes of
 * data) on conn, whose UCX endpoint exists (gcm_thr_conn_connect). Host
 * memory; header and data must stay valid until completion; the
 * receiver learns which connection it came on (reply_ep). Returns
 * GCM_OK when done at once, GCM_INPROGRESS when op->done will run, or
 * the error (op->done never runs). Lock held. */
gcm_status_t gcm_thr_am_send(gcm_thr_conn_t *conn, int id, const void *hdr,
                             size_t hlen, const void *data, size_t len,
                             unsigned flags, gcm_thr_op_t *op) GCM_INTERNAL;
/* Fetches the len bytes of a rendezvous descriptor (data of a handler
 * call with GCM_THR_AM_RNDV) into buf; returns as gcm_thr_am_send. Lock
 * held. */
gcm_status_t gcm_thr_am_recv_data(gcm_thr_endpoint_t *endpoint, void *desc,
                                  void *buf, size_t len, gcm_thr_op_t *op)
    GCM_INTERNAL;
/* Gives back data a handler kept. Lock held. */
void gcm_thr_am_data_release(gcm_thr_endpoint_t *endpoint, void *data)
    GCM_INTERNAL;
/* Progresses endpoint's transport until it has nothing left to do: the
 * last sends of a finalize go out. Lock held. */
void gcm_thr_drain(gcm_thr_endpoint_t *endpoint) GCM_INTERNAL;
/* UCX's version, as UCX spells it. */
const char *gcm_thr_transport_version(void) GCM_INTERNAL;
/* The transports of this process's UCX context, "transport/device" one
 * per line on fp (gencomm_info). */
gcm_status_t gcm_thr_transports_print(FILE *fp) GCM_INTERNAL;

/* Starts the progress thread if it does not run (any thread): for work
 * that must advance while the process computes (passive-target one-sided
 * operations). It stops at finalize. */
gcm_status_t gcm_thr_pt_ensure(void) GCM_INTERNAL;

/* ---- one-sided operations (thr_rma.c) ------------------------------------
 *
 * Memory registered for puts and gets by peers, its packed remote key
 * (malloc'd, the caller frees it), and that key unpacked on the
 * connection from a local endpoint to (proc, rep). The calls on a key,
 * and gcm_thr_rma_rkey, need the local endpoint's lock; map and unmap do
 * not.
 */
typedef struct gcm_thr_rma_mem gcm_thr_rma_mem_t;
typedef struct gcm_thr_rkey gcm_thr_rkey_t;

gcm_status_t gcm_thr_rma_map(void *base, size_t len,
                             gcm_thr_rma_mem_t **mem_p, void **key_p,
                             size_t *keylen_p) GCM_INTERNAL;
void gcm_thr_rma_unmap(gcm_thr_rma_mem_t *mem) GCM_INTERNAL;
gcm_status_t gcm_thr_rma_rkey(gcm_thr_endpoint_t *endpoint, int proc,
                              int rep, const void *key, size_t keylen,
                              gcm_thr_rkey_t **rkey_p) GCM_INTERNAL;
void gcm_thr_rma_rkey_free(gcm_thr_rkey_t *rkey) GCM_INTERNAL;
/* Start a put or get of len bytes at raddr of the key's memory; they are
 * complete once a flush of the connection is. */
gcm_status_t gcm_thr_rma_put(gcm_thr_rkey_t *rkey, const void *buf,
                             size_t len, uint64_t raddr) GCM_INTERNAL;
gcm_status_t gcm_thr_rma_get(gcm_thr_rkey_t *rkey, void *buf, size_t len,
                             uint64_t raddr) GCM_INTERNAL;
/* A flush of the connection of a key: started (GCM_INPROGRESS: done is
 * set by progress later, with status), then ended (lock held) once done
 * is set. */
typedef struct gcm_thr_rma_flush {
    atomic_int   done;
    gcm_status_t status;
    void        *req;
} gcm_thr_rma_flush_t;
gcm_status_t gcm_thr_rma_flush_start(gcm_thr_rkey_t *rkey,
                                     gcm_thr_rma_flush_t *flush)
    GCM_INTERNAL;
void gcm_thr_rma_flush_end(gcm_thr_rma_flush_t *flush) GCM_INTERNAL;
/* The connection a message came on, told by the UCX endpoint it arrived
 * on (reply_ep, sent with UCP_AM_SEND_FLAG_REPLY), never by what the
 * message says: (proc, rep) is only the sender's claim, checked against
 * the connection (for this job's processes: UCX pairs the two ends of a
 * connection, so our endpoint to the claimed process is reply_ep only if
 * the sender is that process). other: the sender said it belongs to
 * another job (proc is then its rank there, and a HELLO told who is on
 * reply_ep). NULL, with a warning, for a message nobody we know sent.
 * Lock held. */
gcm_thr_conn_t *gcm_thr_conn_identify(gcm_thr_endpoint_t *endpoint,
                                      struct ucp_ep *reply_ep, int proc,
                                      int rep,
                                      int other) GCM_INTERNAL;

/* ---- processes of other jobs (thr_procs.c and the files of thr_procs.h) --
 *
 * Process indices 0..job size - 1 are this job's ranks. A process of
 * another job this one learns of (from a name, a port, a spawn, or a
 * connection it opens to us) gets an index from the job size up, once per
 * (job identity, rank) and never reused, so slots/ and the layers above
 * treat it like any process. Each process has a contact: an IPv4 address
 * and TCP port where a thread of it answers one request, the worker
 * address of one of its endpoints (with its job identity and rank, so
 * that a stale contact, now another process's, is recognised).
 */
typedef struct gcm_thr_contact {
    uint32_t ip4;    /* host order; 0: none */
    uint16_t port;   /* host order; 0: none */
} gcm_thr_contact_t;

/* The most processes of other jobs a process can know. */
#define GCM_THR_MAX_OTHER 4096

/* The largest process index + 1: the job's size + GCM_THR_MAX_OTHER. */
int gcm_thr_procs_cap(void) GCM_INTERNAL;
/* Nonzero for an index of a process of another job. */
int gcm_thr_proc_other(int proc) GCM_INTERNAL;
/* The index of process rank of job (the rank itself for this job),
 * added if new, with its contact (kept from the first time given). -1
 * with gcm_last_error() set: the table is full, or a rank outside this
 * job. */
int gcm_thr_proc_lookup(uint64_t job, uint32_t rank,
                        const gcm_thr_contact_t *contact) GCM_INTERNAL;
/* Job identity, rank in it and contact of process proc (any index). */
void gcm_thr_proc_ident(int proc, uint64_t *job_p, uint32_t *rank_p,
                        gcm_thr_contact_t *contact_p) GCM_INTERNAL;
/* This process's contact; the service answering it starts on the first
 * call. GCM_ERR_TRANSPORT if no socket could be made. Any thread. */
gcm_status_t gcm_thr_contact_self(gcm_thr_contact_t *contact_p)
    GCM_INTERNAL;

/* Used by thr_endpoint.c. */
gcm_status_t gcm_thr_procs_init(int job_size) GCM_INTERNAL;
void gcm_thr_procs_finalize(void) GCM_INTERNAL;
/* The endpoint count of another job's process (asking its contact the
 * first time); 1 if it cannot be known. */
int gcm_thr_proc_other_endpoints(int proc) GCM_INTERNAL;
/* The worker address of endpoint rep of another job's process into
 * *addr_p (malloc'd, the caller frees), asking its contact the first
 * time. */
gcm_status_t gcm_thr_proc_address(int proc, int rep, void **addr_p,
                                  size_t *len_p) GCM_INTERNAL;
/* Sends HELLO on a new connection to another job's process. Lock held. */
gcm_status_t gcm_thr_hello_send(gcm_thr_endpoint_t *endpoint,
                                gcm_thr_conn_t *conn) GCM_INTERNAL;
/* Watches a new connection to another job's process until UCX has set
 * it up (a flush), so that the peer's death is seen even if nothing is
 * sent on it. Lock held. */
gcm_status_t gcm_thr_conn_watch(gcm_thr_endpoint_t *endpoint,
                                gcm_thr_conn_t *conn) GCM_INTERNAL;
/* Stops watching conn (its UCX endpoint is being closed). Lock held. */
void gcm_thr_conn_unwatch(gcm_thr_conn_t *conn) GCM_INTERNAL;
/* Asks the contacts of the watched connections' peers whether they live,
 * at most every GCM_THR_PROBE_S each, and fails those that are gone.
 * Lock held; nothing to do (one load) when no connection is watched. */
void gcm_thr_conns_probe(gcm_thr_endpoint_t *endpoint) GCM_INTERNAL;
/* 1 if another job's process proc is known gone (its contact refuses, or
 * answers for another process), 0 if it lives or cannot be told within
 * wait_s seconds. Any thread. */
int gcm_thr_proc_gone(int proc, double wait_s) GCM_INTERNAL;
/* The worker address of our endpoint index as published (kept from
 * init: header and UCX address, gcm_thr_addr_decode). */
const void *gcm_thr_self_address(int index, size_t *len_p) GCM_INTERNAL;

/* ---- descriptors UCX opens (thr_fd.c) ------------------------------------ */

/* The descriptors open at some moment, as a bitmap. */
typedef struct gcm_thr_fds {
    unsigned char *bits;
    int            cap;     /* bits */
} gcm_thr_fds_t;

/* Notes which descriptors are open now. */
void gcm_thr_fds_note(gcm_thr_fds_t *fds) GCM_INTERNAL;
/* Marks close-on-exec those open now that were not in before (only
 * sockets and anonymous inodes, the kinds UCX opens, if ucx_kinds_only),
 * and frees before. */
void gcm_thr_fds_cloexec_new(gcm_thr_fds_t *before, int ucx_kinds_only)
    GCM_INTERNAL;

#endif /* GCM_THR_H */

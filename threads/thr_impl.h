/*
 * threads/thr_impl.h: what the files of threads/ share and no other layer
 * sees: UCX itself. Only this folder includes a UCX header.
 */
#ifndef GCM_THR_IMPL_H
#define GCM_THR_IMPL_H

#include "threads/thr.h"

#include <ucp/api/ucp.h>

/* threads/'s settings (thr_endpoint.c). */
typedef struct gcm_thr_config {
    unsigned spin_count;       /* GENCOMM_SPIN_COUNT */
    unsigned spin_us;          /* GENCOMM_SPIN_US */
    unsigned spread;           /* GENCOMM_SPREAD */
    unsigned wait_timeout_ms;  /* GENCOMM_WAIT_TIMEOUT_MS */
    unsigned poll_yield_us;    /* GENCOMM_POLL_YIELD_US */
    unsigned max_endpoints;    /* GENCOMM_MAX_ENDPOINTS */
    unsigned progress_thread;  /* GENCOMM_PROGRESS_THREAD */
    /* Reaching processes of other jobs (thr_procs.c). */
    unsigned connect_timeout;  /* GENCOMM_CONNECT_TIMEOUT (seconds) */
} gcm_thr_config_t;

extern gcm_thr_config_t gcm_thr_config GCM_INTERNAL;

/* A spin round that yields the core counts as this many that do not
 * against GENCOMM_SPIN_COUNT. */
#define GCM_THR_YIELD_SPINS 32

/* The layer's process-wide state (thr_endpoint.c): the UCX context, the
 * endpoints, thread binding and the progress thread. */
typedef struct gcm_thr_state {
    ucp_context_h        context;
    unsigned             spin_limit;   /* spins before sleeping */
    int                  oversubscribed;
    int                  own_cpus;     /* cores this process's threads
                                        * can count on at once */
    gcm_thr_upcalls_t    upcalls;
    gcm_thr_endpoint_t  *endpoints[GCM_MAX_ENDPOINTS];
    int                  nendpoints;
    /* How many endpoints each process has (it published it at init): 0
     * until first asked. */
    atomic_int          *remote_neps;
    /* Processes the launcher reported dead (by rank), and how many
     * reports came: applied by each endpoint's progress, see
     * gcm_thr_boot_peer_died. */
    atomic_uchar        *died;
    atomic_uint          died_gen;
    atomic_uint_fast64_t nconns;   /* UCX endpoints open now */
    /* Our endpoints' worker addresses, kept from init (HELLO, the
     * contact service). */
    void                *self_addr[GCM_MAX_ENDPOINTS];
    size_t               self_len[GCM_MAX_ENDPOINTS];
    /* Thread binding: bind_lock protects the endpoints' nbound and
     * nreserved; epoch counts initializations (a thread's binding is
     * valid in its own); bind_key unbinds exiting threads. */
    pthread_mutex_t      bind_lock;
    atomic_uint          epoch;
    pthread_key_t        bind_key;
    /* The progress thread (GENCOMM_PROGRESS_THREAD), woken through
     * pt_fd (an eventfd). */
    pthread_t            pt;
    atomic_int           pt_running;  /* set once started (and before
                                       * finalize stops it) */
    pthread_mutex_t      pt_lock;     /* gcm_thr_pt_ensure's starts */
    int                  pt_fd;
    atomic_int           pt_stop;
} gcm_thr_state_t;

extern gcm_thr_state_t gcm_thr GCM_INTERNAL;

/* Keys this layer publishes: "gcm-a<k>" the worker address of endpoint k,
 * "gcm-ne" how many endpoints this process has. */
#define GCM_THR_ADDR_KEY_FMT "gcm-a%d"
#define GCM_THR_NEPS_KEY     "gcm-ne"
#define GCM_THR_ADDR_MAX     8192

/* A published worker address: this header, then the address UCX gave. The
 * header lets a reader tell a value that is no address of ours (garbage,
 * truncated, another build) before UCX sees it: UCX trusts the bytes of
 * an address and asserts on malformed ones. */
#define GCM_THR_ADDR_MAGIC 0x61636d67u   /* "gcma" */

typedef struct gcm_thr_addr_hdr {
    uint32_t magic;
    uint32_t len;       /* bytes of address after the header */
    uint64_t check;     /* gcm_hash64 of those bytes */
} gcm_thr_addr_hdr_t;

/* Between the files of threads/ (thr_endpoint.c, thr_wait.c, thr_init.c). */

/* Makes endpoint index: its UCX worker, lock and wakeup descriptor. */
gcm_status_t gcm_thr_endpoint_create(int index,
                                     gcm_thr_endpoint_t **endpoint_p)
    GCM_INTERNAL;
void gcm_thr_endpoint_destroy(gcm_thr_endpoint_t *endpoint) GCM_INTERNAL;
/* Binds the calling thread to endpoint (binding mutex held). */
void gcm_thr_bind(gcm_thr_endpoint_t *endpoint) GCM_INTERNAL;
/* Closes every connection of every endpoint at once while all workers
 * progress (finalize). */
void gcm_thr_conns_close_all(void) GCM_INTERNAL;
/* The launcher's report of a dead process: recorded, applied by each
 * endpoint's progress (gcm_thr_apply_deaths, lock held). */
void gcm_thr_boot_peer_died(int rank, void *arg) GCM_INTERNAL;
void gcm_thr_apply_deaths(gcm_thr_endpoint_t *endpoint) GCM_INTERNAL;
/* Starts the progress thread. */
gcm_status_t gcm_thr_pt_start(void) GCM_INTERNAL;

/* The one place ucs_status_t becomes gcm_status_t. */
gcm_status_t gcm_thr_status(ucs_status_t status) GCM_INTERNAL;

/* Waits for a UCX request made on endpoint (lock held on entry and exit);
 * returns its status and frees it. */
gcm_status_t gcm_thr_wait_ucx(gcm_thr_endpoint_t *endpoint, void *ucx_req)
    GCM_INTERNAL;

/* The UCX receive callback of every active message id: calls the upper
 * layer's handler for the id (arg: the endpoint's entry for the id). */
ucs_status_t gcm_thr_am_cb(void *arg, const void *header,
                           size_t header_length, void *data, size_t length,
                           const ucp_am_recv_param_t *param) GCM_INTERNAL;

/* The UCX context (thr_rma.c registers memory with it). */
ucp_context_h gcm_thr_context(void) GCM_INTERNAL;

/* The UCX handler of GCM_AM_HELLO (thr_hello.c; arg: the endpoint). */
ucs_status_t gcm_thr_hello_in(void *arg, const void *header,
                              size_t header_length, void *data,
                              size_t length,
                              const ucp_am_recv_param_t *param) GCM_INTERNAL;

#endif /* GCM_THR_IMPL_H */

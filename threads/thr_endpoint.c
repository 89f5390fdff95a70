/*
 * threads/thr_endpoint.c: the UCX context, endpoints and their connections.
 */
#define _GNU_SOURCE /* sched_getaffinity, CPU_COUNT */
#include "config.h"

#include "threads/thr_impl.h"
#include "boot/boot.h"

#include <pthread.h>
#include <errno.h>
#include <limits.h>
#include <linux/futex.h>
#include <poll.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

/* Keys this layer publishes: "gcm-a<k>" the worker address of endpoint k,
 * "gcm-ne" how many endpoints this process has. */
#define GCM_THR_ADDR_KEY_FMT "gcm-a%d"
#define GCM_THR_NEPS_KEY     "gcm-ne"
#define GCM_THR_ADDR_MAX     8192

gcm_thr_config_t gcm_thr_config;

static const gcm_config_entry_t gcm_thr_config_entries[] = {
    GCM_CFG("GENCOMM_SPIN_COUNT", "2000", GCM_CFG_INT,
            gcm_thr_config.spin_count,
            "progress rounds a waiting thread spins before it sleeps"),
    GCM_CFG("GENCOMM_WAIT_TIMEOUT_MS", "100", GCM_CFG_INT,
            gcm_thr_config.wait_timeout_ms,
            "longest single sleep of a waiting thread (ms)"),
    GCM_CFG("GENCOMM_POLL_YIELD_US", "50", GCM_CFG_INT,
            gcm_thr_config.poll_yield_us,
            "with more processes than cores: microseconds of polls that "
            "found nothing before each further empty poll yields the core"),
    GCM_CFG_RANGE("GENCOMM_MAX_ENDPOINTS", "8", gcm_thr_config.max_endpoints,
                  1, GCM_MAX_ENDPOINTS,
                  "endpoints (UCX workers) per process, made at init: "
                  "threads and communicators spread over them"),
    GCM_CFG("GENCOMM_PROGRESS_THREAD", "0", GCM_CFG_INT,
            gcm_thr_config.progress_thread,
            "1: a thread per process progresses the endpoints nobody "
            "waits on; 0: only calls into the library progress"),
    GCM_CFG_RANGE("GENCOMM_CONNECT_TIMEOUT", "30",
                  gcm_thr_config.connect_timeout, 1, 86400,
                  "seconds to reach a process of another job (a name's "
                  "contact, MPI_Comm_connect) before giving up"),
};
GCM_CONFIG_REGISTER(threads, gcm_thr_config_entries)

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

gcm_status_t gcm_thr_addr_decode(const void *buf, size_t len,
                                 size_t *addr_len_p, const char **why_p)
{
    gcm_thr_addr_hdr_t hdr;

    if ((buf == NULL) || (len < sizeof(hdr))) {
        *why_p = "shorter than its header";
        return GCM_ERR_INVALID_PARAM;
    }
    memcpy(&hdr, buf, sizeof(hdr));
    if (hdr.magic != GCM_THR_ADDR_MAGIC) {
        *why_p = "not a worker address";
        return GCM_ERR_INVALID_PARAM;
    }
    if ((hdr.len == 0) || (hdr.len > GCM_THR_ADDR_MAX - sizeof(hdr)) ||
        (hdr.len != len - sizeof(hdr))) {
        *why_p = "its length is not the one it says";
        return GCM_ERR_INVALID_PARAM;
    }
    if (gcm_hash64((const char *)buf + sizeof(hdr), hdr.len) != hdr.check) {
        *why_p = "its bytes do not match their check sum";
        return GCM_ERR_INVALID_PARAM;
    }
    *addr_len_p = hdr.len;
    return GCM_OK;
}

static struct {
    ucp_context_h        context;
    unsigned             spin_limit;   /* spins before sleeping */
    int                  oversubscribed;
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
} gcm_thr = { .bind_lock = PTHREAD_MUTEX_INITIALIZER,
              .pt_lock = PTHREAD_MUTEX_INITIALIZER, .pt_fd = -1 };

static pthread_once_t gcm_thr_bind_once = PTHREAD_ONCE_INIT;

atomic_int gcm_thr_pt_idle;

gcm_status_t gcm_thr_status(ucs_status_t status)
{
    switch (status) {
    case UCS_OK:
        return GCM_OK;
    case UCS_INPROGRESS:
        return GCM_INPROGRESS;
    case UCS_ERR_NO_MEMORY:
        return GCM_ERR_NO_MEMORY;
    case UCS_ERR_INVALID_PARAM:
        return GCM_ERR_INVALID_PARAM;
    case UCS_ERR_CANCELED:
        return GCM_ERR_CANCELED;
    case UCS_ERR_MESSAGE_TRUNCATED:
        return GCM_ERR_TRUNCATED;
    case UCS_ERR_ENDPOINT_TIMEOUT:
    case UCS_ERR_CONNECTION_RESET:
    case UCS_ERR_UNREACHABLE:
    case UCS_ERR_REJECTED:
    case UCS_ERR_NOT_CONNECTED:
    case UCS_ERR_IO_ERROR:
        return GCM_ERR_PEER_FAILED;
    default:
        return GCM_ERR_TRANSPORT;
    }
}

/* ---- endpoints ---------------------------------------------------------- */

static gcm_status_t gcm_thr_endpoint_create(int index,
                                            gcm_thr_endpoint_t **endpoint_p)
{
    ucp_worker_params_t params;
    ucp_am_handler_param_t am;
    gcm_thr_endpoint_t *endpoint;
    ucs_status_t ucs;
    int id;

    endpoint = calloc(1, sizeof(*endpoint));
    if (endpoint == NULL) {
        return GCM_ERR_NO_MEMORY;
    }
    endpoint->index  = index;
    endpoint->nprocs = gcm_boot_size();
    endpoint->conns  = calloc((size_t)endpoint->nprocs,
                              sizeof(*endpoint->conns));
    if (endpoint->conns == NULL) {
        free(endpoint);
        return GCM_ERR_NO_MEMORY;
    }
    atomic_init(&endpoint->lock, 0);
    atomic_init(&endpoint->npending, 0);
    atomic_init(&endpoint->nwaiters, 0);
    atomic_init(&endpoint->signaled, 0);
    atomic_init(&endpoint->sleepers, 0);
    atomic_init(&endpoint->fsleepers, 0);
    atomic_init(&endpoint->poller, 0);
    atomic_init(&endpoint->wake_gen, 0);

    memset(&params, 0, sizeof(params));
    params.field_mask  = UCP_WORKER_PARAM_FIELD_THREAD_MODE;
    /* Our endpoint lock serializes every use of the worker. */
    params.thread_mode = UCS_THREAD_MODE_SERIALIZED;
    ucs = ucp_worker_create(gcm_thr.context, &params, &endpoint->worker);
    if (ucs != UCS_OK) {
        gcm_error("ucp_worker_create failed: %s", ucs_status_string(ucs));
        goto err_free;
    }
    ucs = ucp_worker_get_efd(endpoint->worker, &endpoint->efd);
    if (ucs != UCS_OK) {
        gcm_error("ucp_worker_get_efd failed: %s", ucs_status_string(ucs));
        goto err_worker;
    }
    for (id = 1; id < GCM_AM_LAST; id++) {
        ucp_am_recv_callback_t cb;
        void *arg;

        if (id == GCM_AM_HELLO) {
            /* This layer's own: who opened a connection. */
            cb  = gcm_thr_hello_in;
            arg = endpoint;
        } else if (gcm_thr.upcalls.am[id] != NULL) {
            endpoint->am[id].endpoint = endpoint;
            endpoint->am[id].fn       = gcm_thr.upcalls.am[id];
            cb  = gcm_thr_am_cb;
            arg = &endpoint->am[id];
        } else {
            continue;
        }
        memset(&am, 0, sizeof(am));
        am.field_mask = UCP_AM_HANDLER_PARAM_FIELD_ID |
                        UCP_AM_HANDLER_PARAM_FIELD_FLAGS |
                        UCP_AM_HANDLER_PARAM_FIELD_CB |
                        UCP_AM_HANDLER_PARAM_FIELD_ARG;
        am.id    = (unsigned)id;
        /* Whole messages. Not UCP_AM_FLAG_PERSISTENT_DATA: it makes UCX
         * copy every eager message into a descriptor before the callback,
         * while most are expected and copied straight to the user. */
        am.flags = UCP_AM_FLAG_WHOLE_MSG;
        am.cb    = cb;
        am.arg   = arg;
        ucs = ucp_worker_set_am_recv_handler(endpoint->worker, &am);
        if (ucs != UCS_OK) {
            gcm_error("ucp_worker_set_am_recv_handler failed: %s",
                      ucs_status_string(ucs));
            goto err_worker;
        }
    }
    *endpoint_p = endpoint;
    return GCM_OK;

err_worker:
    ucp_worker_destroy(endpoint->worker);
err_free:
    free(endpoint->conns);
    free(endpoint);
    return GCM_ERR_TRANSPORT;
}

/*
 * Closing at finalize: every connection of every endpoint is closed at
 * once (a flush for a healthy one), then all workers are progressed until
 * the closes are done. Closing one endpoint's connections while only its
 * own worker progressed could wait forever: a connection that carried
 * one-sided operations is flushed by its peer's worker, and that peer may
 * be closing another of its endpoints at that moment, progressing only
 * that one, and waiting in turn for ours.
 */
static void *gcm_thr_conn_close_start(gcm_thr_conn_t *conn)
{
    ucp_request_param_t param;
    void *req;

    if (conn->ucp_ep == NULL) {
        return NULL;
    }
    memset(&param, 0, sizeof(param));
    param.op_attr_mask = UCP_OP_ATTR_FIELD_FLAGS;
    /* A failed connection cannot be flushed; a healthy one is. */
    param.flags = (conn->failed != GCM_OK) ? UCP_EP_CLOSE_FLAG_FORCE : 0;
    req = ucp_ep_close_nbx(conn->ucp_ep, &param);
    conn->ucp_ep = NULL;
    atomic_fetch_sub(&gcm_thr.nconns, 1);
    return UCS_PTR_IS_PTR(req) ? req : NULL;
}

/* Progresses every worker until no request of reqs is in progress, or
 * the deadline; nonzero if some still is. */
static int gcm_thr_closes_wait(void **reqs, int n, double deadline)
{
    int i, busy = 1;

    while (busy && (gcm_time_now() < deadline)) {
        for (i = 0; i < gcm_thr.nendpoints; i++) {
            ucp_worker_progress(gcm_thr.endpoints[i]->worker);
        }
        busy = 0;
        for (i = 0; i < n; i++) {
            busy |= (ucp_request_check_status(reqs[i]) == UCS_INPROGRESS);
        }
    }
    return busy;
}

static void gcm_thr_conns_close_all(void)
{
    gcm_thr_endpoint_t **eps = NULL;
    void **reqs = NULL, *req;
    int n = 0, cap = 0, i, proc;

    for (i = 0; i < gcm_thr.nendpoints; i++) {
        gcm_thr_endpoint_t *endpoint = gcm_thr.endpoints[i];

        gcm_thr_lock(endpoint);
        for (proc = 0; proc < endpoint->nprocs; proc++) {
            while (endpoint->conns[proc] != NULL) {
                gcm_thr_conn_t *conn = endpoint->conns[proc];

                endpoint->conns[proc] = conn->next;
                req = gcm_thr_conn_close_start(conn);
                free(conn);
                if (req == NULL) {
                    continue;
                }
                if (n == cap) {
                    cap = (cap == 0) ? 16 : 2 * cap;
                    reqs = realloc(reqs, (size_t)cap * sizeof(*reqs));
                    eps  = realloc(eps, (size_t)cap * sizeof(*eps));
                    if ((reqs == NULL) || (eps == NULL)) {
                        gcm_error("finalize: out of memory closing "
                                  "connections");
                        abort();
                    }
                }
                reqs[n] = req;
                eps[n]  = endpoint;
                n++;
            }
        }
        gcm_thr_unlock(endpoint);
    }
    /* Finalize is single-threaded (the progress thread stopped): the
     * workers are progressed without their locks. */
    if (gcm_thr_closes_wait(reqs, n, gcm_time_now() + 2.0)) {
        for (i = 0; i < n; i++) {
            if (ucp_request_check_status(reqs[i]) == UCS_INPROGRESS) {
                ucp_request_cancel(eps[i]->worker, reqs[i]);
            }
        }
        if (gcm_thr_closes_wait(reqs, n, gcm_time_now() + 1.0)) {
            gcm_warn("finalize: %d connection(s) did not close", n);
        }
    }
    for (i = 0; i < n; i++) {
        /* One still in progress is released by UCX when it ends. */
        ucp_request_free(reqs[i]);
    }
    free(reqs);
    free(eps);
}

static void gcm_thr_endpoint_destroy(gcm_thr_endpoint_t *endpoint)
{
    gcm_thr_lock(endpoint);
    ucp_worker_destroy(endpoint->worker);
    gcm_thr_unlock(endpoint);
    free(endpoint->conns);
    free(endpoint);
}

/* The calling thread's endpoint, valid while its epoch is the library's
 * (a binding made before a gcm_finalize is void after the next init). */
static __thread gcm_thr_endpoint_t *gcm_thr_mine GCM_TLS_HOT;
static __thread unsigned gcm_thr_mine_epoch GCM_TLS_HOT;

/* Binds the calling thread to endpoint (binding mutex held). */
static void gcm_thr_bind(gcm_thr_endpoint_t *endpoint)
{
    endpoint->nbound++;
    gcm_thr_mine       = endpoint;
    gcm_thr_mine_epoch = atomic_load_explicit(&gcm_thr.epoch,
                                              memory_order_relaxed);
}

/* A thread bound to an endpoint exits: the endpoint is free again for
 * the threads that come later. */
static void gcm_thr_unbind(void *value)
{
    (void)value;
    pthread_mutex_lock(&gcm_thr.bind_lock);
    if ((gcm_thr_mine != NULL) && (gcm_thr.nendpoints > 0) &&
        (gcm_thr_mine_epoch == atomic_load(&gcm_thr.epoch))) {
        gcm_thr_mine->nbound--;
    }
    gcm_thr_mine = NULL;
    pthread_mutex_unlock(&gcm_thr.bind_lock);
}

static void gcm_thr_bind_key_create(void)
{
    (void)pthread_key_create(&gcm_thr.bind_key, gcm_thr_unbind);
}

/* How much endpoint i is used, for choosing among those in use. */
static int gcm_thr_use(int i)
{
    return gcm_thr.endpoints[i]->nbound + gcm_thr.endpoints[i]->nreserved;
}

/*
 * The endpoint for a new user among 1..n-1 (binding mutex held): the
 * first nobody uses; for a thread (not reserve) else the first no thread
 * is bound to; else the least used, the search starting at *cursor_p so
 * that ties go round robin.
 */
static int gcm_thr_choose(int reserve, unsigned *cursor_p)
{
    int n = gcm_thr.nendpoints;
    int i, k, best = -1;

    if (n <= 1) {
        return 0;
    }
    for (i = 1; i < n; i++) {
        if (gcm_thr_use(i) == 0) {
            return i;
        }
    }
    for (i = 1; !reserve && (i < n); i++) {
        if (gcm_thr.endpoints[i]->nbound == 0) {
            return i;
        }
    }
    for (k = 0; k < n - 1; k++) {
        i = 1 + (int)((*cursor_p + (unsigned)k) % (unsigned)(n - 1));
        if ((best < 0) || (gcm_thr_use(i) < gcm_thr_use(best))) {
            best = i;
        }
    }
    *cursor_p = (unsigned)best % (unsigned)(n - 1);
    return best;
}

static gcm_thr_endpoint_t *gcm_thr_endpoint_bind(void)
{
    static unsigned cursor;
    gcm_thr_endpoint_t *endpoint;

    pthread_once(&gcm_thr_bind_once, gcm_thr_bind_key_create);
    pthread_mutex_lock(&gcm_thr.bind_lock);
    if (gcm_thr.nendpoints == 0) {
        /* Not initialized: callers check that first; be safe anyway. */
        pthread_mutex_unlock(&gcm_thr.bind_lock);
        return NULL;
    }
    endpoint = gcm_thr.endpoints[gcm_thr_choose(0, &cursor)];
    gcm_thr_bind(endpoint);
    pthread_mutex_unlock(&gcm_thr.bind_lock);
    /* The key's destructor runs at the thread's exit if the value is not
     * NULL. */
    (void)pthread_setspecific(gcm_thr.bind_key, endpoint);
    gcm_debug("thread bound to endpoint %d", endpoint->index);
    return endpoint;
}

gcm_thr_endpoint_t *gcm_thr_endpoint_current(void)
{
    if (gcm_likely((gcm_thr_mine != NULL) &&
                   (gcm_thr_mine_epoch ==
                    atomic_load_explicit(&gcm_thr.epoch,
                                         memory_order_relaxed)))) {
        return gcm_thr_mine;
    }
    return gcm_thr_endpoint_bind();
}

gcm_thr_endpoint_t *gcm_thr_endpoint_get(int index)
{
    if ((index < 0) || (index >= gcm_thr.nendpoints)) {
        return NULL;
    }
    return gcm_thr.endpoints[index];
}

int gcm_thr_num_endpoints(void)
{
    return gcm_thr.nendpoints;
}

int gcm_thr_endpoint_reserve(void)
{
    static unsigned cursor;
    int index;

    pthread_mutex_lock(&gcm_thr.bind_lock);
    if (gcm_thr.nendpoints <= 1) {
        pthread_mutex_unlock(&gcm_thr.bind_lock);
        return 0;
    }
    index = gcm_thr_choose(1, &cursor);
    gcm_thr.endpoints[index]->nreserved++;
    pthread_mutex_unlock(&gcm_thr.bind_lock);
    return index;
}

int gcm_thr_remote_endpoints(int proc)
{
    uint32_t neps;
    size_t len = sizeof(neps);
    int n;

    if ((proc < 0) || (proc >= gcm_thr_procs_cap())) {
        return 0;
    }
    n = atomic_load_explicit(&gcm_thr.remote_neps[proc],
                             memory_order_relaxed);
    if (gcm_likely(n > 0)) {
        return n;
    }
    if (gcm_thr_proc_other(proc)) {
        n = gcm_thr_proc_other_endpoints(proc);
        atomic_store_explicit(&gcm_thr.remote_neps[proc], n,
                              memory_order_relaxed);
        return n;
    }
    /* Several threads may ask at once: they read the same value. */
    if ((gcm_boot_get(proc, GCM_THR_NEPS_KEY, &neps, &len) != GCM_OK) ||
        (len != sizeof(neps)) || (neps < 1) || (neps > GCM_MAX_ENDPOINTS)) {
        gcm_warn("proc %d published no endpoint count: assuming 1", proc);
        neps = 1;
    }
    atomic_store_explicit(&gcm_thr.remote_neps[proc], (int)neps,
                          memory_order_relaxed);
    return (int)neps;
}

/* ---- connections ---------------------------------------------------------- */

gcm_thr_conn_t *gcm_thr_conn_get(gcm_thr_endpoint_t *endpoint, int proc,
                                 int rep)
{
    gcm_status_t failed = GCM_OK;
    gcm_thr_conn_t *conn;

    if (gcm_unlikely(proc >= endpoint->nprocs)) {
        /* A process of another job: the table grows to take it. */
        int cap = gcm_thr_procs_cap();
        int n = 2 * endpoint->nprocs + 16;
        gcm_thr_conn_t **conns;

        if ((proc < 0) || (proc >= cap)) {
            return NULL;
        }
        if (n > cap) {
            n = cap;
        }
        if (n <= proc) {
            n = proc + 1;
        }
        conns = realloc(endpoint->conns, (size_t)n * sizeof(*conns));
        if (conns == NULL) {
            return NULL;
        }
        memset(conns + endpoint->nprocs, 0,
               (size_t)(n - endpoint->nprocs) * sizeof(*conns));
        endpoint->conns  = conns;
        endpoint->nprocs = n;
    }
    for (conn = endpoint->conns[proc]; conn != NULL; conn = conn->next) {
        if (conn->rep == rep) {
            return conn;
        }
        if (conn->failed != GCM_OK) {
            failed = conn->failed;
        }
    }
    conn = calloc(1, sizeof(*conn));
    if (conn == NULL) {
        return NULL;
    }
    conn->owner  = endpoint;
    conn->proc   = proc;
    conn->rep    = rep;
    /* A process that died is dead to every endpoint of ours. */
    conn->failed = failed;
    gcm_list_init(&conn->parked);
    conn->next = endpoint->conns[proc];
    endpoint->conns[proc] = conn;
    return conn;
}

static void gcm_thr_ep_error_cb(void *arg, ucp_ep_h ep, ucs_status_t status)
{
    gcm_thr_conn_t *conn = arg;

    gcm_debug("connection to proc %d endpoint %d failed: %s", conn->proc,
              conn->rep, ucs_status_string(status));
    gcm_thr_peer_failed(conn->owner, conn->proc, GCM_ERR_PEER_FAILED);
}

/*
 * Closes a failed connection's UCX endpoint without waiting (what UCX
 * asks of an error handler): UCX then completes the operations still in
 * flight on it with an error. A rendezvous send to a process that died
 * would otherwise wait for it forever when UCX itself saw nothing (the
 * launcher told us). Lock held.
 */
static void gcm_thr_conn_abort(gcm_thr_conn_t *conn)
{
    ucp_request_param_t param;
    ucp_ep_h ep = conn->ucp_ep;
    void *req;

    conn->ucp_ep = NULL;
    atomic_fetch_sub(&gcm_thr.nconns, 1);
    memset(&param, 0, sizeof(param));
    param.op_attr_mask = UCP_OP_ATTR_FIELD_FLAGS;
    param.flags        = UCP_EP_CLOSE_FLAG_FORCE;
    req = ucp_ep_close_nbx(ep, &param);
    if (UCS_PTR_IS_PTR(req)) {
        ucp_request_free(req);
    }
}

gcm_status_t gcm_thr_conn_connect(gcm_thr_endpoint_t *endpoint,
                                  gcm_thr_conn_t *conn)
{
    unsigned char *addr;
    size_t len = GCM_THR_ADDR_MAX;
    ucp_ep_params_t params;
    ucs_status_t ucs;
    gcm_status_t status;
    const char *why;
    size_t addr_len;
    gcm_thr_fds_t fds;
    char key[32];
    int neps;

    if (conn->ucp_ep != NULL) {
        return GCM_OK;
    }
    if (conn->failed != GCM_OK) {
        return conn->failed;
    }
    neps = gcm_thr_remote_endpoints(conn->proc);
    if (conn->rep >= neps) {
        /* A name that does not fit the peer (forged, or made by another
         * build): no LCO can live there. */
        return gcm_fail(GCM_ERR_NO_SUCH_LCO, "connect",
                        "proc %d has no endpoint %d (it has %d)",
                        conn->proc, conn->rep, neps);
    }
    if (gcm_thr_proc_other(conn->proc)) {
        /* Asked from its contact, or learnt from its HELLO: encoded as
         * what a process publishes, and checked the same way. */
        status = gcm_thr_proc_address(conn->proc, conn->rep,
                                      (void **)&addr, &len);
        if (status != GCM_OK) {
            return status;
        }
    } else {
        addr = malloc(len);
        if (addr == NULL) {
            return GCM_ERR_NO_MEMORY;
        }
        snprintf(key, sizeof(key), GCM_THR_ADDR_KEY_FMT, conn->rep);
        status = gcm_boot_get(conn->proc, key, addr, &len);
        if (status == GCM_ERR_TRUNCATED) {
            why = "longer than any address";
            len = GCM_THR_ADDR_MAX;
        } else if (status != GCM_OK) {
            free(addr);
            return gcm_fail(status, "connect",
                            "no worker address for proc %d endpoint %d",
                            conn->proc, conn->rep);
        }
    }
    if ((status != GCM_OK) ||
        (gcm_thr_addr_decode(addr, len, &addr_len, &why) != GCM_OK)) {
        free(addr);
        /* This connection can never be made: its sends fail at once,
         * and this is said once. */
        conn->failed = GCM_ERR_TRANSPORT;
        gcm_error("the worker address proc %d published for its endpoint "
                  "%d (%zu bytes) is malformed (%s): the connection to it "
                  "fails", conn->proc, conn->rep, len, why);
        return gcm_fail(GCM_ERR_TRANSPORT, "connect",
                        "the worker address of proc %d endpoint %d is "
                        "malformed (%s)", conn->proc, conn->rep, why);
    }
    (void)addr_len;
    memset(&params, 0, sizeof(params));
    params.field_mask      = UCP_EP_PARAM_FIELD_REMOTE_ADDRESS |
                             UCP_EP_PARAM_FIELD_ERR_HANDLING_MODE |
                             UCP_EP_PARAM_FIELD_ERR_HANDLER;
    params.address         = (const ucp_address_t *)
                             (addr + sizeof(gcm_thr_addr_hdr_t));
    params.err_mode        = UCP_ERR_HANDLING_MODE_PEER;
    params.err_handler.cb  = gcm_thr_ep_error_cb;
    params.err_handler.arg = conn;
    gcm_thr_fds_note(&fds);
    ucs = ucp_ep_create(endpoint->worker, &params, &conn->ucp_ep);
    gcm_thr_fds_cloexec_new(&fds, 1);
    free(addr);
    if (ucs == UCS_OK) {
        atomic_fetch_add(&gcm_thr.nconns, 1);
    }
    if (ucs != UCS_OK) {
        conn->ucp_ep = NULL;
        return gcm_fail(gcm_thr_status(ucs), "connect",
                        "ucp_ep_create to proc %d endpoint %d failed: %s",
                        conn->proc, conn->rep, ucs_status_string(ucs));
    }
    if (conn->failed != GCM_OK) {
        /* The peer was found dead while the endpoint was being made (its
         * error handler ran before ucp_ep_create returned it, or the
         * launcher's word came with the address): nothing may go out
         * on it. */
        gcm_thr_conn_abort(conn);
        return conn->failed;
    }
    if (gcm_thr_proc_other(conn->proc)) {
        gcm_thr_conn_t *c;

        for (c = endpoint->others; (c != NULL) && (c != conn);
             c = c->next_other) {
        }
        if (c == NULL) {
            conn->next_other = endpoint->others;
            endpoint->others = conn;
        }
        /* Who opens a connection to another job says who it is first. */
        if (!conn->known) {
            status = gcm_thr_hello_send(endpoint, conn);
            if (status != GCM_OK) {
                gcm_thr_conn_abort(conn);
                return gcm_fail(status, "connect", "cannot greet process "
                                "%d endpoint %d", conn->proc, conn->rep);
            }
        }
    }
    gcm_debug("connected to proc %d endpoint %d", conn->proc, conn->rep);
    return GCM_OK;
}

gcm_thr_conn_t *gcm_thr_conn_identify(gcm_thr_endpoint_t *endpoint,
                                      ucp_ep_h reply_ep, int proc, int rep,
                                      int other)
{
    gcm_thr_conn_t *conn;

    if (reply_ep == NULL) {
        gcm_warn("a message that does not say its connection was dropped");
        return NULL;
    }
    if (other) {
        for (conn = endpoint->others; conn != NULL; conn = conn->next_other) {
            if ((conn->ucp_ep == reply_ep) && conn->known) {
                return conn;
            }
        }
        gcm_warn("a message from a process of another job that did not say "
                 "who it is was dropped");
        return NULL;
    }
    if ((proc >= 0) && (proc < gcm_boot_size())) {
        for (conn = endpoint->conns[proc]; conn != NULL; conn = conn->next) {
            if (conn->rep == rep) {
                break;
            }
        }
        if (gcm_likely((conn != NULL) && (conn->ucp_ep == reply_ep))) {
            return conn;
        }
    }
    if ((proc < 0) || (proc >= gcm_boot_size()) ||
        (rep >= gcm_thr_remote_endpoints(proc))) {
        gcm_warn("a message claiming to come from process %d endpoint %d, "
                 "which this job does not have, was dropped", proc, rep);
        return NULL;
    }
    conn = gcm_thr_conn_get(endpoint, proc, rep);
    if (conn == NULL) {
        return NULL;
    }
    if ((conn->ucp_ep == NULL) && (conn->failed == GCM_OK) &&
        (gcm_thr_conn_connect(endpoint, conn) == GCM_OK) &&
        (conn->ucp_ep == reply_ep)) {
        return conn;
    }
    if (conn->failed == GCM_OK) {
        gcm_warn("a message claiming to come from process %d endpoint %d "
                 "came on another connection: dropped", proc, rep);
    }
    return NULL;
}

unsigned gcm_thr_connect_timeout(void)
{
    return gcm_thr_config.connect_timeout;
}

uint64_t gcm_thr_connections(void)
{
    return atomic_load(&gcm_thr.nconns);
}

int gcm_thr_proc_dead(int proc)
{
    return (gcm_thr.died != NULL) && (proc >= 0) &&
           (proc < gcm_thr_procs_cap()) && atomic_load(&gcm_thr.died[proc]);
}

void gcm_thr_peer_failed(gcm_thr_endpoint_t *endpoint, int proc,
                         gcm_status_t reason)
{
    gcm_thr_conn_t *conn;

    if ((proc < 0) || (proc >= endpoint->nprocs)) {
        return;
    }
    if (reason == GCM_ERR_PEER_FAILED) {
        /* Named to the launcher if this process aborts because of it. */
        gcm_boot_note_failed(proc);
    }
    for (conn = endpoint->conns[proc]; conn != NULL; conn = conn->next) {
        conn->failed = reason;
    }
    /* A peer we never talked to has no connection yet: remember the
     * failure so that the first use fails at once. */
    if (endpoint->conns[proc] == NULL) {
        conn = gcm_thr_conn_get(endpoint, proc, 0);
        if (conn != NULL) {
            conn->failed = reason;
        }
    }
    if (gcm_thr.upcalls.peer_failed != NULL) {
        gcm_thr.upcalls.peer_failed(endpoint, proc, reason);
    }
    for (conn = endpoint->conns[proc]; conn != NULL; conn = conn->next) {
        if (conn->ucp_ep != NULL) {
            gcm_thr_conn_abort(conn);
        }
    }
    gcm_thr_signal(endpoint);
}

/*
 * The launcher said a process died. This runs inside a boot/ call, with the
 * launcher's lock held, possibly by a thread that holds an endpoint lock
 * (connecting reads peers' addresses from the launcher): taking an
 * endpoint lock here could deadlock. So it only records the death and
 * wakes the waiters; each endpoint's progress applies it.
 */
static void gcm_thr_boot_peer_died(int rank, void *arg)
{
    int i;

    (void)arg;
    if ((gcm_thr.died == NULL) || (rank < 0) || (rank >= gcm_boot_size())) {
        return;
    }
    atomic_store(&gcm_thr.died[rank], 1);
    atomic_fetch_add(&gcm_thr.died_gen, 1);
    for (i = 0; i < gcm_thr.nendpoints; i++) {
        atomic_store(&gcm_thr.endpoints[i]->signaled, 1);
        gcm_thr_signal(gcm_thr.endpoints[i]);
    }
}

/* Fails the processes reported dead since the endpoint last looked. Lock
 * held. */
static void gcm_thr_apply_deaths(gcm_thr_endpoint_t *endpoint)
{
    unsigned gen = atomic_load(&gcm_thr.died_gen);
    int proc;

    if (gcm_likely(gen == endpoint->died_seen)) {
        return;
    }
    endpoint->died_seen = gen;
    for (proc = 0; proc < endpoint->nprocs; proc++) {
        gcm_thr_conn_t *conn = endpoint->conns[proc];
        if (!atomic_load(&gcm_thr.died[proc])) {
            continue;
        }
        /* Once per process: its connections are marked failed then. */
        while ((conn != NULL) && (conn->rep != 0)) {
            conn = conn->next;
        }
        if ((conn == NULL) || (conn->failed == GCM_OK)) {
            gcm_thr_peer_failed(endpoint, proc, GCM_ERR_PEER_FAILED);
        }
    }
}

/* ---- progress and waiting ------------------------------------------------ */

void gcm_thr_lock_contended(gcm_thr_endpoint_t *endpoint)
{
    unsigned spins = 0;

    do {
        /* Read until it looks free, so that waiters do not bounce the
         * cache line; give the core away if the holder does not finish
         * soon (it may be descheduled when oversubscribed). */
        while (atomic_load_explicit(&endpoint->lock, memory_order_relaxed)) {
            if (++spins > 64) {
                sched_yield();
            }
        }
    } while (atomic_exchange_explicit(&endpoint->lock, 1,
                                      memory_order_acquire));
}

/* One round on endpoint, whose lock the caller took: releases the lock,
 * then runs the layer above's work that needs it free; returns the events
 * handled. */
static unsigned gcm_thr_progress_unlock(gcm_thr_endpoint_t *endpoint)
{
    unsigned n = ucp_worker_progress(endpoint->worker);

    gcm_thr_apply_deaths(endpoint);
    if (gcm_thr.upcalls.progress != NULL) {
        n += gcm_thr.upcalls.progress(endpoint);
    }
    gcm_thr_unlock(endpoint);
    if (gcm_thr.upcalls.after_progress != NULL) {
        gcm_thr.upcalls.after_progress(endpoint);
    }
    return n;
}

static unsigned gcm_thr_progress_own(gcm_thr_endpoint_t *endpoint)
{
    gcm_thr_lock(endpoint);
    return gcm_thr_progress_unlock(endpoint);
}

/* Does endpoint need a thread of another endpoint? all: also when it has
 * no pending request (after a wakeup: something may have arrived). */
static int gcm_thr_is_orphan(gcm_thr_endpoint_t *endpoint, int all)
{
    return (atomic_load_explicit(&endpoint->nwaiters,
                                 memory_order_relaxed) == 0) &&
           (all || (atomic_load_explicit(&endpoint->npending,
                                         memory_order_relaxed) > 0));
}

/* Progresses endpoint if its lock is free: never waits for another
 * endpoint's lock, so no thread ever holds or waits for two. */
static unsigned gcm_thr_progress_try(gcm_thr_endpoint_t *endpoint)
{
    if (!gcm_thr_trylock(endpoint)) {
        return 0;
    }
    return gcm_thr_progress_unlock(endpoint);
}

/* Progresses the endpoints other than self that nobody waits on (with
 * pending requests only, unless all). */
static unsigned gcm_thr_progress_orphans(gcm_thr_endpoint_t *self, int all)
{
    unsigned n = 0;
    int i;

    for (i = 0; i < gcm_thr.nendpoints; i++) {
        gcm_thr_endpoint_t *endpoint = gcm_thr.endpoints[i];
        if ((endpoint != self) && gcm_thr_is_orphan(endpoint, all)) {
            n += gcm_thr_progress_try(endpoint);
        }
    }
    return n;
}

/* How many empty polls in a row pass between looks at the clock. */
#define GCM_THR_IDLE_CHECK 64

void gcm_thr_progress(gcm_thr_endpoint_t *endpoint)
{
    static __thread unsigned calls GCM_TLS_HOT;
    static __thread unsigned empty GCM_TLS_HOT;
    static __thread int idle GCM_TLS_HOT;
    static __thread double idle_since GCM_TLS_HOT;
    unsigned n = gcm_thr_progress_own(endpoint);

    /* A program that polls one request (MPI_Test in a loop) must not
     * starve the endpoints its other requests live on. */
    if (gcm_unlikely((++calls % 32) == 0) && (gcm_thr.nendpoints > 1)) {
        n += gcm_thr_progress_orphans(endpoint, 0);
    }
    if (gcm_likely(n != 0)) {
        empty = 0;
        idle  = 0;
        return;
    }
    if (!gcm_thr.oversubscribed) {
        return;
    }
    /* Polls that have found nothing for GENCOMM_POLL_YIELD_US, with more
     * processes than cores: the caller is idle in a loop (MPI_Iprobe or
     * MPI_Test, as HPL's broadcast polls), and the process it waits for
     * may need this core, so every empty poll from then on gives it away.
     * Not from the first empty poll: a program that polls between small
     * pieces of work (HPCC's RandomAccess tests a receive after every
     * update) is busy, and a yield per poll would cost it a system call
     * each time (measured: its MPI sections 1 s -> 9-15 s). */
    if (idle) {
        sched_yield();
    } else if ((++empty % GCM_THR_IDLE_CHECK) == 0) {
        double now = gcm_time_now();
        if (empty == GCM_THR_IDLE_CHECK) {
            idle_since = now;
        } else if ((now - idle_since) * 1e6 >=
                   (double)gcm_thr_config.poll_yield_us) {
            idle = 1;
        }
    }
}

/* Threads that wait while another polls sleep on the endpoint's wake_gen
 * word. */
static void gcm_thr_futex_wait(atomic_uint *word, unsigned value,
                               unsigned timeout_ms)
{
    struct timespec ts;

    ts.tv_sec  = (time_t)(timeout_ms / 1000);
    ts.tv_nsec = (long)(timeout_ms % 1000) * 1000000L;
    (void)syscall(SYS_futex, (unsigned *)word, FUTEX_WAIT_PRIVATE, value,
                  &ts, NULL, 0);
}

static void gcm_thr_futex_wake_all(atomic_uint *word)
{
    (void)syscall(SYS_futex, (unsigned *)word, FUTEX_WAKE_PRIVATE, INT_MAX,
                  NULL, NULL, 0);
}

/* Wakes the threads that wait for the poller (or for a signal). */
static void gcm_thr_wake_waiters(gcm_thr_endpoint_t *endpoint)
{
    atomic_fetch_add(&endpoint->wake_gen, 1);
    if (atomic_load(&endpoint->fsleepers) > 0) {
        gcm_thr_futex_wake_all(&endpoint->wake_gen);
    }
}

void gcm_thr_signal(gcm_thr_endpoint_t *endpoint)
{
    /* Sequentially consistent with the waiter's increment of sleepers and
     * its re-check of the condition: either it sees our completion, or we
     * see it asleep and wake it. */
    if (atomic_load(&endpoint->fsleepers) > 0) {
        gcm_thr_wake_waiters(endpoint);
    }
    if (atomic_load(&endpoint->sleepers) > 0) {
        atomic_store(&endpoint->signaled, 1);
        ucp_worker_signal(endpoint->worker);
    }
}

/*
 * The poller gives its role up: the threads that waited for it progress
 * again, and one of them polls next.
 */
static void gcm_thr_poller_release(gcm_thr_endpoint_t *endpoint)
{
    atomic_store(&endpoint->poller, 0);
    gcm_thr_wake_waiters(endpoint);
}

/* An endpoint a sleeping thread polls, and the fd of the layer above it
 * polls with it (-1: none). */
typedef struct gcm_thr_watch {
    gcm_thr_endpoint_t *endpoint;
    int                 upfd;
    int                 upidx;     /* its index in the poll set */
} gcm_thr_watch_t;

/* The most file descriptors one sleep polls: two per endpoint, the
 * launcher's and the progress thread's. */
#define GCM_THR_MAX_PFD (2 * GCM_MAX_ENDPOINTS + 2)

/*
 * Takes the poller role of endpoint (the caller holds it already if own)
 * and arms its worker and the layer above, adding their fds to pfd.
 * Returns 1 when watched, 0 when not (another thread polls it, or, not
 * own, its lock is busy), -1 when it has work now: no sleeping then.
 */
static int gcm_thr_watch_begin(gcm_thr_endpoint_t *endpoint, int own,
                               gcm_thr_watch_t *w, struct pollfd *pfd,
                               int *npfd_p)
{
    ucs_status_t ucs;
    int upfd;

    if (!own) {
        if (atomic_exchange(&endpoint->poller, 1) != 0) {
            return 0;
        }
        if (!gcm_thr_trylock(endpoint)) {
            atomic_store(&endpoint->poller, 0);
            return 0;
        }
    } else {
        gcm_thr_lock(endpoint);
    }
    ucs = ucp_worker_arm(endpoint->worker);
    gcm_thr_unlock(endpoint);
    if (ucs == UCS_ERR_BUSY) {
        gcm_thr_poller_release(endpoint);
        return -1;
    }
    atomic_fetch_add(&endpoint->sleepers, 1);
    if (atomic_exchange(&endpoint->signaled, 0)) {
        atomic_fetch_sub(&endpoint->sleepers, 1);
        gcm_thr_poller_release(endpoint);
        return -1;
    }
    /* The layer above says it sleeps too (so that its senders wake
     * us) and re-checks its own arrivals after saying so. */
    upfd = -1;
    if (gcm_thr.upcalls.sleep_prepare != NULL) {
        upfd = gcm_thr.upcalls.sleep_prepare(endpoint);
        if (upfd == -2) {
            atomic_fetch_sub(&endpoint->sleepers, 1);
            gcm_thr_poller_release(endpoint);
            return -1;
        }
    }
    w->endpoint = endpoint;
    w->upfd     = upfd;
    w->upidx    = -1;
    pfd[*npfd_p].fd     = endpoint->efd;
    pfd[*npfd_p].events = POLLIN;
    (*npfd_p)++;
    if (upfd >= 0) {
        w->upidx            = *npfd_p;
        pfd[*npfd_p].fd     = upfd;
        pfd[*npfd_p].events = POLLIN;
        (*npfd_p)++;
    }
    return 1;
}

static void gcm_thr_watch_end(gcm_thr_watch_t *w)
{
    if (w->upfd != -1) {
        gcm_thr.upcalls.sleep_done(w->endpoint);
    }
    atomic_fetch_sub(&w->endpoint->sleepers, 1);
    gcm_thr_poller_release(w->endpoint);
}

/*
 * Watches the endpoints other than self that have no waiter (with pending
 * requests only, unless all), as far as they can be, so that whatever
 * arrives for them wakes the sleeper. Returns -1 if one has work now,
 * else 1 if one with pending requests could not be watched (the sleep
 * must be short), else 0.
 */
static int gcm_thr_watch_orphans(gcm_thr_endpoint_t *self, int all,
                                 gcm_thr_watch_t *w, int *nw_p,
                                 struct pollfd *pfd, int *npfd_p)
{
    int i, r, unwatched = 0;

    for (i = 0; i < gcm_thr.nendpoints; i++) {
        gcm_thr_endpoint_t *endpoint = gcm_thr.endpoints[i];
        if ((endpoint == self) || !gcm_thr_is_orphan(endpoint, all)) {
            continue;
        }
        r = gcm_thr_watch_begin(endpoint, 0, &w[*nw_p], pfd, npfd_p);
        if (r < 0) {
            return -1;
        }
        if (r > 0) {
            (*nw_p)++;
        } else if (atomic_load(&endpoint->npending) > 0) {
            unwatched = 1;
        }
    }
    return unwatched;
}

/* Whether what woke a poll is only what the layer above calls noise:
 * its descriptor alone readable, with nothing of the job's (datagrams from
 * outside the job, dropped). Reads what came. */
static int gcm_thr_poll_noise(const struct pollfd *pfd, int npfd,
                              const gcm_thr_watch_t *w, int nw)
{
    int i, k, noise = 1;

    for (i = 0; i < npfd; i++) {
        if (pfd[i].revents == 0) {
            continue;
        }
        for (k = 0; (k < nw) && (w[k].upidx != i); k++) {
        }
        if ((k == nw) || (gcm_thr.upcalls.sleep_woken == NULL) ||
            gcm_thr.upcalls.sleep_woken(w[k].endpoint)) {
            noise = 0;
        }
    }
    return noise;
}

/* Polls pfd; a launcher event (index bootidx) is handled here. A wakeup
 * that was only noise (a flood from outside the job) does not end the
 * sleep: the waiter would spin after each, at the cost of a core. */
static void gcm_thr_poll(struct pollfd *pfd, int npfd, int bootidx,
                         int timeout_ms, const gcm_thr_watch_t *w, int nw)
{
    double deadline = gcm_time_now() + timeout_ms * 1e-3;

    while (poll(pfd, (nfds_t)npfd, timeout_ms) > 0) {
        if ((bootidx >= 0) && (pfd[bootidx].revents != 0)) {
            gcm_boot_poll_events();
            return;
        }
        if (!gcm_thr_poll_noise(pfd, npfd, w, nw)) {
            return;
        }
        timeout_ms = (int)((deadline - gcm_time_now()) * 1e3);
        if (timeout_ms <= 0) {
            return;
        }
    }
}

/*
 * Sleeps once: one thread at a time (the poller) arms the worker and
 * polls the event fds, so that no thread drains or re-arms what another
 * was about to be woken by; the others sleep on a futex that the poller
 * bumps when it wakes and that gcm_thr_signal bumps too. The poller also
 * watches the endpoints nobody waits on (gcm_thr_watch_orphans).
 */
static void gcm_thr_sleep(gcm_thr_endpoint_t *endpoint,
                          int (*done)(void *arg), void *arg)
{
    unsigned gen = atomic_load(&endpoint->wake_gen);
    struct pollfd pfd[GCM_THR_MAX_PFD];
    gcm_thr_watch_t w[GCM_MAX_ENDPOINTS];
    int npfd = 0, nw = 0, bootfd, bootidx = -1, orphans = 0, i;

    if (atomic_exchange(&endpoint->poller, 1) != 0) {
        atomic_fetch_add(&endpoint->fsleepers, 1);
        if (!done(arg) && (atomic_load(&endpoint->wake_gen) == gen) &&
            atomic_load(&endpoint->poller)) {
            gcm_thr_futex_wait(&endpoint->wake_gen, gen,
                               gcm_thr_config.wait_timeout_ms);
        }
        atomic_fetch_sub(&endpoint->fsleepers, 1);
        return;
    }
    if (gcm_thr_watch_begin(endpoint, 1, &w[0], pfd, &npfd) < 0) {
        return;
    }
    nw = 1;
    if (done(arg)) {
        goto out;
    }
    if (gcm_thr.nendpoints > 1) {
        orphans = gcm_thr_watch_orphans(endpoint, 1, w, &nw, pfd, &npfd);
        if (orphans < 0) {
            goto out;
        }
    }
    bootfd = gcm_boot_event_fd();
    if (bootfd >= 0) {
        pfd[npfd].fd     = bootfd;
        pfd[npfd].events = POLLIN;
        bootidx          = npfd++;
    }
    /* An endpoint with pending requests that nobody watches (its lock
     * was busy) is looked at again soon. */
    gcm_thr_poll(pfd, npfd, bootidx,
                 orphans ? 1 : (int)gcm_thr_config.wait_timeout_ms, w, nw);
out:
    for (i = 0; i < nw; i++) {
        gcm_thr_watch_end(&w[i]);
    }
}

void gcm_thr_wait(gcm_thr_endpoint_t *endpoint, int (*done)(void *arg),
                  void *arg)
{
    unsigned spins = 0, rounds = 0;
    unsigned limit = gcm_thr.spin_limit;
    int others = (gcm_thr.nendpoints > 1);
    /* A short wait (the reply of a ping-pong) does not say it waits: the
     * two atomic operations would cost more than what they serve, which
     * is sparing this endpoint the trylocks of other threads (harmless)
     * once a wait lasts. With a progress thread it says so at once, so
     * that the two do not take turns at the lock. */
    int registered = atomic_load_explicit(&gcm_thr.pt_running,
                                          memory_order_relaxed);

    if (done(arg)) {
        return;
    }
    if (registered) {
        atomic_fetch_add(&endpoint->nwaiters, 1);
    }
    while (!done(arg)) {
        gcm_thr_progress_own(endpoint);
        if (done(arg)) {
            break;
        }
        if (others && ((++rounds % 32) == 0)) {
            if (!registered) {
                atomic_fetch_add(&endpoint->nwaiters, 1);
                registered = 1;
            }
            gcm_thr_progress_orphans(endpoint, 0);
        }
        if (++spins < limit) {
            /* With a core of our own, spinning is the fastest wait; with
             * more processes than cores, give the core away each round
             * (the peer we wait for may need it) and soon sleep. */
            if (gcm_thr.oversubscribed) {
                sched_yield();
            }
            continue;
        }
        if (!registered) {
            atomic_fetch_add(&endpoint->nwaiters, 1);
            registered = 1;
        }
        gcm_thr_sleep(endpoint, done, arg);
        if (others) {
            /* Whatever woke us may have been for another endpoint. */
            gcm_thr_progress_orphans(endpoint, 1);
        }
        /* After a sleep spin a little again: the reply usually follows. */
        spins = limit / 2;
    }
    /* Sequentially consistent against the idle progress thread: an
     * endpoint left with pending requests and no waiter is its to
     * watch. */
    if (registered && (atomic_fetch_sub(&endpoint->nwaiters, 1) == 1) &&
        (atomic_load(&endpoint->npending) > 0) &&
        atomic_load(&gcm_thr_pt_idle)) {
        gcm_thr_pt_wake();
    }
}

/* ---- the progress thread ------------------------------------------------ */

void gcm_thr_pt_wake(void)
{
    uint64_t one = 1;

    if (gcm_thr.pt_fd >= 0) {
        /* A full counter means a wakeup is pending already. */
        (void)!write(gcm_thr.pt_fd, &one, sizeof(one));
    }
}

/* Progresses every endpoint that has pending requests and no waiter;
 * sets *pending_p if one has pending requests. */
static unsigned gcm_thr_pt_round(int *pending_p)
{
    unsigned n = 0;
    int i;

    *pending_p = 0;
    for (i = 0; i < gcm_thr.nendpoints; i++) {
        gcm_thr_endpoint_t *endpoint = gcm_thr.endpoints[i];
        if (atomic_load_explicit(&endpoint->npending,
                                 memory_order_relaxed) == 0) {
            continue;
        }
        *pending_p = 1;
        if (gcm_thr_is_orphan(endpoint, 0)) {
            n += gcm_thr_progress_try(endpoint);
        }
    }
    return n;
}

/*
 * Sleeps until something happens on an endpoint with pending requests and
 * no waiter, or a request starts where none was pending (gcm_thr_pt_wake).
 * With nothing pending anywhere it sleeps on its eventfd alone.
 */
static void gcm_thr_pt_sleep(void)
{
    struct pollfd pfd[GCM_THR_MAX_PFD];
    gcm_thr_watch_t w[GCM_MAX_ENDPOINTS];
    int npfd = 1, nw = 0, unwatched, i;
    uint64_t count;

    pfd[0].fd     = gcm_thr.pt_fd;
    pfd[0].events = POLLIN;
    /* Idle first, then look: see gcm_thr_pending_add. */
    atomic_store(&gcm_thr_pt_idle, 1);
    unwatched = gcm_thr_watch_orphans(NULL, 0, w, &nw, pfd, &npfd);
    if (unwatched < 0) {
        goto out;
    }
    /* An endpoint another thread polls wakes that thread, which then
     * progresses it; one whose lock was busy is looked at again soon. */
    (void)poll(pfd, (nfds_t)npfd,
               unwatched ? 1 :
               ((nw > 0) ? (int)gcm_thr_config.wait_timeout_ms : 1000));
out:
    atomic_store(&gcm_thr_pt_idle, 0);
    for (i = 0; i < nw; i++) {
        gcm_thr_watch_end(&w[i]);
    }
    (void)!read(gcm_thr.pt_fd, &count, sizeof(count));
}

static void *gcm_thr_pt_main(void *arg)
{
    unsigned idle = 0;
    int pending;

    (void)arg;
    while (!atomic_load(&gcm_thr.pt_stop)) {
        if (gcm_thr_pt_round(&pending) > 0) {
            idle = 0;
            continue;
        }
        /* A few rounds more while requests are pending, then sleep: an
         * idle progress thread must not take a core from the
         * application, and a thread that sleeps until its data arrives
         * is run at once then, where one that spins yielding waits
         * behind the application's threads for its turn. */
        if (pending && (++idle < 16)) {
            continue;
        }
        gcm_thr_pt_sleep();
        /* Woken for nothing (a timeout): no spinning before the next
         * sleep; an event resets the count. */
        idle = 16;
    }
    return NULL;
}

static gcm_status_t gcm_thr_pt_start(void)
{
    int rc;

    gcm_thr.pt_fd = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
    if (gcm_thr.pt_fd < 0) {
        return gcm_fail(GCM_ERR_INTERNAL, "gcm_init",
                        "eventfd for the progress thread failed: %s",
                        strerror(errno));
    }
    atomic_store(&gcm_thr.pt_stop, 0);
    rc = pthread_create(&gcm_thr.pt, NULL, gcm_thr_pt_main, NULL);
    if (rc != 0) {
        close(gcm_thr.pt_fd);
        gcm_thr.pt_fd = -1;
        return gcm_fail(GCM_ERR_INTERNAL, "gcm_init",
                        "cannot start the progress thread: %s",
                        strerror(rc));
    }
    atomic_store(&gcm_thr.pt_running, 1);
    gcm_debug("progress thread started");
    return GCM_OK;
}

gcm_status_t gcm_thr_pt_ensure(void)
{
    gcm_status_t status = GCM_OK;

    if (atomic_load(&gcm_thr.pt_running)) {
        return GCM_OK;
    }
    pthread_mutex_lock(&gcm_thr.pt_lock);
    if (!atomic_load(&gcm_thr.pt_running)) {
        status = gcm_thr_pt_start();
    }
    pthread_mutex_unlock(&gcm_thr.pt_lock);
    return status;
}

ucp_context_h gcm_thr_context(void)
{
    return gcm_thr.context;
}

void gcm_thr_pt_stop(void)
{
    if (!atomic_load(&gcm_thr.pt_running)) {
        return;
    }
    atomic_store(&gcm_thr.pt_stop, 1);
    gcm_thr_pt_wake();
    pthread_join(gcm_thr.pt, NULL);
    atomic_store(&gcm_thr.pt_running, 0);
    atomic_store(&gcm_thr_pt_idle, 0);
    close(gcm_thr.pt_fd);
    gcm_thr.pt_fd = -1;
}

gcm_status_t gcm_thr_wait_ucx(gcm_thr_endpoint_t *endpoint, void *ucx_req)
{
    ucs_status_t ucs;

    if (ucx_req == NULL) {
        return GCM_OK;
    }
    if (UCS_PTR_IS_ERR(ucx_req)) {
        return gcm_thr_status(UCS_PTR_STATUS(ucx_req));
    }
    while ((ucs = ucp_request_check_status(ucx_req)) == UCS_INPROGRESS) {
        ucp_worker_progress(endpoint->worker);
    }
    ucp_request_free(ucx_req);
    return gcm_thr_status(ucs);
}

/* ---- init and finalize ---------------------------------------------------- */

/* How many processes of the job share this machine as the launcher says
 * it, or 0 when it says nothing. */
static int gcm_thr_launcher_local_size(void)
{
    static const char *const vars[] = {
        "GENCOMM_LOCAL_SIZE",          /* gcrun */
        "MPI_LOCALNRANKS",             /* MPICH Hydra */
        "OMPI_COMM_WORLD_LOCAL_SIZE",  /* Open MPI */
        "SLURM_NTASKS_PER_NODE",
    };
    size_t i;

    for (i = 0; i < sizeof(vars) / sizeof(vars[0]); i++) {
        const char *v = getenv(vars[i]);
        if ((v != NULL) && (atoi(v) > 0)) {
            return atoi(v);
        }
    }
    return 0;
}

/* How many processes of the job share this machine: what the launcher
 * says, else (conservatively) the whole job. */
int gcm_thr_count_local(void)
{
    int n = gcm_thr_launcher_local_size();

    return (n > 0) ? n : gcm_boot_size();
}

/*
 * A job whose processes all share this machine needs no network: UCX's
 * TCP transport would otherwise listen on every interface. Unless the
 * user chose devices or transports, UCX gets the loopback device only
 * (its shared-memory devices are not network devices and stay). Known
 * only when the launcher says how many processes share the host (gcrun
 * always does; its emulated hosts are one real machine).
 */
static void gcm_thr_config_loopback(ucp_config_t *config)
{
    ucs_status_t ucs;

    if ((getenv("UCX_NET_DEVICES") != NULL) || (getenv("UCX_TLS") != NULL) ||
        ((gcm_boot_size() > 1) &&
         (gcm_thr_launcher_local_size() != gcm_boot_size()))) {
        return;
    }
    ucs = ucp_config_modify(config, "NET_DEVICES", "lo");
    if (ucs != UCS_OK) {
        gcm_warn("cannot restrict UCX to the loopback device: %s",
                 ucs_status_string(ucs));
        return;
    }
    gcm_debug("all %d processes on this host: UCX network devices: lo",
              gcm_boot_size());
}

/*
 * The CPUs the job's processes on this host share. A launcher that binds
 * each rank to cores of its own leaves each a mask of a core or two,
 * which says nothing of sharing: then the machine's online CPUs count.
 * Only where gcrun says it bound nothing (GENCOMM_BIND=none) is the
 * process's mask the job's own (a job confined by taskset or a cpuset,
 * which every rank inherits).
 */
static int gcm_thr_count_cpus(void)
{
    const char *bind = getenv("GENCOMM_BIND");
    cpu_set_t set;

    if ((bind != NULL) && (strcmp(bind, "none") == 0) &&
        (sched_getaffinity(0, sizeof(set), &set) == 0) &&
        (CPU_COUNT(&set) > 0)) {
        return CPU_COUNT(&set);
    }
    return (int)sysconf(_SC_NPROCESSORS_ONLN);
}

/* Puts endpoint's worker address where boot/ exchanges it. */
const void *gcm_thr_self_address(int index, size_t *len_p)
{
    if ((index < 0) || (index >= GCM_MAX_ENDPOINTS)) {
        return NULL;
    }
    *len_p = gcm_thr.self_len[index];
    return gcm_thr.self_addr[index];
}

static gcm_status_t gcm_thr_endpoint_publish(gcm_thr_endpoint_t *endpoint)
{
    gcm_thr_addr_hdr_t hdr;
    ucp_address_t *addr;
    unsigned char *value;
    size_t addr_len;
    ucs_status_t ucs;
    gcm_status_t status;
    char key[32];

    ucs = ucp_worker_get_address(endpoint->worker, &addr, &addr_len);
    if (ucs != UCS_OK) {
        return gcm_fail(GCM_ERR_TRANSPORT, "gcm_init",
                        "ucp_worker_get_address failed: %s",
                        ucs_status_string(ucs));
    }
    if (addr_len > GCM_THR_ADDR_MAX - sizeof(hdr)) {
        ucp_worker_release_address(endpoint->worker, addr);
        return gcm_fail(GCM_ERR_TRANSPORT, "gcm_init",
                        "the worker address of endpoint %d has %zu bytes "
                        "(at most %zu)", endpoint->index, addr_len,
                        GCM_THR_ADDR_MAX - sizeof(hdr));
    }
    value = malloc(sizeof(hdr) + addr_len);
    if (value == NULL) {
        ucp_worker_release_address(endpoint->worker, addr);
        return GCM_ERR_NO_MEMORY;
    }
    hdr.magic = GCM_THR_ADDR_MAGIC;
    hdr.len   = (uint32_t)addr_len;
    hdr.check = gcm_hash64(addr, addr_len);
    memcpy(value, &hdr, sizeof(hdr));
    memcpy(value + sizeof(hdr), addr, addr_len);
    ucp_worker_release_address(endpoint->worker, addr);
    snprintf(key, sizeof(key), GCM_THR_ADDR_KEY_FMT, endpoint->index);
    status = gcm_boot_put(key, value, sizeof(hdr) + addr_len);
    /* Kept, as published, for HELLO and the contact service. */
    free(gcm_thr.self_addr[endpoint->index]);
    gcm_thr.self_addr[endpoint->index] = value;
    gcm_thr.self_len[endpoint->index]  = sizeof(hdr) + addr_len;
    if (status != GCM_OK) {
        return gcm_fail(status, "gcm_init", "cannot publish the worker "
                        "address of endpoint %d", endpoint->index);
    }
    return GCM_OK;
}

static gcm_status_t gcm_thr_init_ucx(const gcm_thr_upcalls_t *upcalls)
{
    ucp_config_t *config;
    ucp_params_t params;
    ucs_status_t ucs;
    gcm_status_t status;
    uint32_t n32;
    int neps, i;

    gcm_thr.upcalls = *upcalls;
    gcm_thr.oversubscribed = gcm_thr_count_local() > gcm_thr_count_cpus();
    /* Oversubscribed, a spin round includes a sched_yield(): fewer. */
    gcm_thr.spin_limit = gcm_thr.oversubscribed ?
                         (gcm_thr_config.spin_count + 31) / 32 :
                         gcm_thr_config.spin_count;
    gcm_debug("%s: spinning %u rounds before sleeping",
              gcm_thr.oversubscribed ? "oversubscribed" : "dedicated cores",
              gcm_thr.spin_limit);
    /* Peer-failure handling would otherwise switch shared memory off and
     * send everything over TCP loopback; must be set before the UCX
     * configuration is read. A user's own setting wins. */
    setenv("UCX_MM_ERROR_HANDLING", "y", 0);
    /* Notice dead peers on idle connections within seconds. */
    setenv("UCX_KEEPALIVE_INTERVAL", "1s", 0);

    ucs = ucp_config_read(NULL, NULL, &config);
    if (ucs != UCS_OK) {
        return gcm_fail(GCM_ERR_TRANSPORT, "gcm_init",
                        "ucp_config_read failed: %s", ucs_status_string(ucs));
    }
    gcm_thr_config_loopback(config);
    memset(&params, 0, sizeof(params));
    /* The job's shape lets UCX size its resources (and pick protocols)
     * for the number of peers it will really have. */
    params.field_mask        = UCP_PARAM_FIELD_FEATURES |
                               UCP_PARAM_FIELD_MT_WORKERS_SHARED |
                               UCP_PARAM_FIELD_ESTIMATED_NUM_EPS |
                               UCP_PARAM_FIELD_ESTIMATED_NUM_PPN;
    /* RMA: the puts and gets of one-sided windows between hosts
     * (thr_rma.c). */
    params.features          = UCP_FEATURE_AM | UCP_FEATURE_WAKEUP |
                               UCP_FEATURE_RMA;
    params.mt_workers_shared = 1;
    params.estimated_num_eps = (size_t)gcm_boot_size();
    params.estimated_num_ppn = (size_t)gcm_thr_count_local();
    ucs = ucp_init(&params, config, &gcm_thr.context);
    ucp_config_release(config);
    if (ucs != UCS_OK) {
        return gcm_fail(GCM_ERR_TRANSPORT, "gcm_init", "ucp_init failed: %s",
                        ucs_status_string(ucs));
    }

    /* Every endpoint is made now and its address published before the one
     * fence of gcm_init: under PMI-1 (MPICH's Hydra) a value put after
     * the fence never becomes visible to processes of other hosts, so an
     * endpoint made later could not be reached. Unused workers cost some
     * memory and nothing else (nobody progresses them). */
    neps = (int)gcm_thr_config.max_endpoints;
    if ((neps < 1) || (neps > GCM_MAX_ENDPOINTS)) {
        neps = 1;
    }
    (void)gcm_thr_procs_init(gcm_boot_size());
    gcm_thr.remote_neps = calloc((size_t)gcm_thr_procs_cap(),
                                 sizeof(*gcm_thr.remote_neps));
    if (gcm_thr.remote_neps == NULL) {
        ucp_cleanup(gcm_thr.context);
        gcm_thr.context = NULL;
        return GCM_ERR_NO_MEMORY;
    }
    for (i = 0; i < neps; i++) {
        status = gcm_thr_endpoint_create(i, &gcm_thr.endpoints[i]);
        if (status != GCM_OK) {
            gcm_thr_finalize();
            return gcm_fail(status, "gcm_init", "cannot create endpoint %d",
                            i);
        }
        gcm_thr.nendpoints = i + 1;
        status = gcm_thr_endpoint_publish(gcm_thr.endpoints[i]);
        if (status != GCM_OK) {
            gcm_thr_finalize();
            return status;
        }
    }
    n32 = (uint32_t)neps;
    status = gcm_boot_put(GCM_THR_NEPS_KEY, &n32, sizeof(n32));
    if (status != GCM_OK) {
        gcm_thr_finalize();
        return gcm_fail(status, "gcm_init", "cannot publish the endpoint "
                        "count");
    }
    atomic_store(&gcm_thr.remote_neps[gcm_boot_rank()], neps);
    gcm_thr.died = calloc((size_t)gcm_thr_procs_cap(),
                          sizeof(*gcm_thr.died));
    if (gcm_thr.died == NULL) {
        gcm_thr_finalize();
        return GCM_ERR_NO_MEMORY;
    }
    atomic_init(&gcm_thr.died_gen, 0);
    gcm_boot_set_peer_died_cb(gcm_thr_boot_peer_died, NULL);
    /* A new epoch voids the bindings of an earlier initialization; the
     * initializing thread is endpoint 0's. */
    pthread_mutex_lock(&gcm_thr.bind_lock);
    atomic_fetch_add(&gcm_thr.epoch, 1);
    gcm_thr_bind(gcm_thr.endpoints[0]);
    pthread_mutex_unlock(&gcm_thr.bind_lock);
    if (gcm_thr_config.progress_thread) {
        status = gcm_thr_pt_start();
        if (status != GCM_OK) {
            gcm_thr_finalize();
            return status;
        }
    }
    gcm_debug("%d endpoints%s", neps,
              gcm_thr_config.progress_thread ? ", progress thread" : "");
    return GCM_OK;
}

gcm_status_t gcm_thr_init(const gcm_thr_upcalls_t *upcalls)
{
    gcm_thr_fds_t fds;
    gcm_status_t status;

    /* UCX's descriptors (thr_fd.c): whatever opens meanwhile. */
    gcm_thr_fds_note(&fds);
    status = gcm_thr_init_ucx(upcalls);
    gcm_thr_fds_cloexec_new(&fds, 0);
    return status;
}

void gcm_thr_finalize(void)
{
    int i;

    gcm_thr_pt_stop();
    /* The contact service reads the endpoints' addresses. */
    gcm_thr_procs_finalize();
    gcm_boot_set_peer_died_cb(NULL, NULL);
    pthread_mutex_lock(&gcm_thr.bind_lock);
    atomic_fetch_add(&gcm_thr.epoch, 1);
    pthread_mutex_unlock(&gcm_thr.bind_lock);
    gcm_thr_conns_close_all();
    for (i = 0; i < gcm_thr.nendpoints; i++) {
        gcm_thr_endpoint_destroy(gcm_thr.endpoints[i]);
        gcm_thr.endpoints[i] = NULL;
    }
    gcm_thr.nendpoints = 0;
    free(gcm_thr.died);
    gcm_thr.died = NULL;
    free(gcm_thr.remote_neps);
    gcm_thr.remote_neps = NULL;
    for (i = 0; i < GCM_MAX_ENDPOINTS; i++) {
        free(gcm_thr.self_addr[i]);
        gcm_thr.self_addr[i] = NULL;
        gcm_thr.self_len[i]  = 0;
    }
    if (gcm_thr.context != NULL) {
        ucp_cleanup(gcm_thr.context);
        gcm_thr.context = NULL;
    }
}

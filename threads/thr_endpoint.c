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

gcm_thr_config_t gcm_thr_config;

static const gcm_config_entry_t gcm_thr_config_entries[] = {
    GCM_CFG("GENCOMM_SPIN_COUNT", "2000", GCM_CFG_INT,
            gcm_thr_config.spin_count,
            "progress rounds a waiting thread spins before it sleeps"),
    GCM_CFG("GENCOMM_SPIN_US", "1000", GCM_CFG_INT, gcm_thr_config.spin_us,
            "microseconds a waiting thread with a core of its own spins on "
            "after its GENCOMM_SPIN_COUNT rounds before it sleeps (0: "
            "none)"),
    GCM_CFG("GENCOMM_SPREAD", "1", GCM_CFG_INT, gcm_thr_config.spread,
            "oversubscribed: start each process on the CPU of its local "
            "rank, unbound (0: leave it where the launcher woke it)"),
    GCM_CFG("GENCOMM_WAIT_TIMEOUT_MS", "100", GCM_CFG_INT,
            gcm_thr_config.wait_timeout_ms,
            "longest single sleep of a waiting thread (ms)"),
    GCM_CFG("GENCOMM_POLL_YIELD_US", "50", GCM_CFG_INT,
            gcm_thr_config.poll_yield_us,
            "with more processes than cores: an empty poll yields the core "
            "after the caller was away this many microseconds, or once "
            "empty polls went on this long"),
    GCM_CFG_RANGE("GENCOMM_MAX_ENDPOINTS", "0", gcm_thr_config.max_endpoints,
                  0, GCM_MAX_ENDPOINTS,
                  "endpoints (UCX workers) per process, made at init: "
                  "threads and communicators spread over them; 0: one "
                  "more than the CPUs the process may run on, at least 8"),
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

gcm_thr_state_t gcm_thr = { .bind_lock = PTHREAD_MUTEX_INITIALIZER,
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

gcm_status_t gcm_thr_endpoint_create(int index,
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
    gcm_thr_conn_unwatch(conn);
    memset(&param, 0, sizeof(param));
    param.op_attr_mask = UCP_OP_ATTR_FIELD_FLAGS;
    /* A failed connection cannot be flushed; a healthy one is. */
    param.flags = ((conn->failed != GCM_OK) || (conn->lost_at != 0)) ?
                  UCP_EP_CLOSE_FLAG_FORCE : 0;
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

void gcm_thr_conns_close_all(void)
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

void gcm_thr_endpoint_destroy(gcm_thr_endpoint_t *endpoint)
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
void gcm_thr_bind(gcm_thr_endpoint_t *endpoint)
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

/* Marks conn failed for reason (not GCM_OK), counted on its endpoint. */
static void gcm_thr_conn_fail(gcm_thr_conn_t *conn, gcm_status_t reason)
{
    if (conn->failed == GCM_OK) {
        atomic_fetch_add_explicit(&conn->owner->nfailed, 1,
                                  memory_order_relaxed);
    }
    conn->failed = reason;
    if (conn->lost_at != 0) {
        /* Failed by other news first: nothing left to defer. */
        conn->lost_at = 0;
        conn->owner->nlost--;
    }
}

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
    if (failed != GCM_OK) {
        gcm_thr_conn_fail(conn, failed);
    }
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
    if (conn->ucp_ep != ep) {
        /* Inside the ucp_ep_create that makes it: nothing came on it. */
        gcm_thr_peer_failed(conn->owner, conn->proc, GCM_ERR_PEER_FAILED);
        return;
    }
    gcm_thr_conn_lost(conn);
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

    gcm_thr_conn_unwatch(conn);
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
        gcm_thr_conn_fail(conn, GCM_ERR_TRANSPORT);
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
    if ((ucs != UCS_OK) && gcm_thr_proc_other(conn->proc) &&
        gcm_thr_proc_gone(conn->proc, 1.0)) {
        /* UCX could not reach what the address names (a shared-memory
         * segment gone with its process): that process has ended. */
        conn->ucp_ep = NULL;
        gcm_thr_conn_fail(conn, GCM_ERR_PEER_FAILED);
        return gcm_fail(GCM_ERR_PEER_FAILED, "connect", "process %d of "
                        "another job has ended (ucp_ep_create: %s)",
                        conn->proc, ucs_status_string(ucs));
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
        /* No launcher reports its death: UCX does, once the connection
         * is set up, and its contact until then. */
        status = gcm_thr_conn_watch(endpoint, conn);
        if (status != GCM_OK) {
            gcm_thr_conn_abort(conn);
            return gcm_fail(status, "connect", "cannot watch the "
                            "connection to process %d", conn->proc);
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
        gcm_thr_conn_fail(conn, reason);
    }
    /* A peer we never talked to has no connection yet: remember the
     * failure so that the first use fails at once. */
    if (endpoint->conns[proc] == NULL) {
        conn = gcm_thr_conn_get(endpoint, proc, 0);
        if (conn != NULL) {
            gcm_thr_conn_fail(conn, reason);
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
void gcm_thr_boot_peer_died(int rank, void *arg)
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
void gcm_thr_apply_deaths(gcm_thr_endpoint_t *endpoint)
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


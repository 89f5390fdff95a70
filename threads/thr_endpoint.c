/*
 * threads/thr_endpoint.c: the UCX context, endpoints and their connections.
 */
#include "config.h"

#include "threads/thr.h"
#include "boot/boot.h"

#include <errno.h>
#include <limits.h>
#include <linux/futex.h>
#include <poll.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#define GCM_THR_ADDR_KEY     "gcm-a0"
#define GCM_THR_ADDR_MAX     8192

static struct {
    ucp_context_h        context;
    unsigned             spin_limit;   /* spins before sleeping */
    int                  oversubscribed;
    gcm_thr_upcalls_t    upcalls;
    gcm_thr_endpoint_t  *endpoints[1];
    int                  nendpoints;
    /* Processes the launcher reported dead (by rank), and how many
     * reports came: applied by each endpoint's progress, see
     * gcm_thr_boot_peer_died. */
    atomic_uchar        *died;
    atomic_uint          died_gen;
} gcm_thr;

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
        if (gcm_thr.upcalls.am[id] == NULL) {
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
        am.cb    = gcm_thr.upcalls.am[id];
        am.arg   = endpoint;
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

static void gcm_thr_conn_close(gcm_thr_endpoint_t *endpoint,
                               gcm_thr_conn_t *conn)
{
    ucp_request_param_t param;
    void *req;

    if (conn->ucp_ep == NULL) {
        return;
    }
    memset(&param, 0, sizeof(param));
    param.op_attr_mask = UCP_OP_ATTR_FIELD_FLAGS;
    /* A failed connection cannot be flushed; a healthy one is. */
    param.flags = (conn->failed != GCM_OK) ? UCP_EP_CLOSE_FLAG_FORCE : 0;
    req = ucp_ep_close_nbx(conn->ucp_ep, &param);
    if (UCS_PTR_IS_PTR(req)) {
        double deadline = gcm_time_now() + 2.0;
        while ((ucp_request_check_status(req) == UCS_INPROGRESS) &&
               (gcm_time_now() < deadline)) {
            ucp_worker_progress(endpoint->worker);
        }
        if (ucp_request_check_status(req) == UCS_INPROGRESS) {
            ucp_request_cancel(endpoint->worker, req);
            while (ucp_request_check_status(req) == UCS_INPROGRESS) {
                ucp_worker_progress(endpoint->worker);
            }
        }
        ucp_request_free(req);
    }
    conn->ucp_ep = NULL;
}

static void gcm_thr_endpoint_destroy(gcm_thr_endpoint_t *endpoint)
{
    int proc;

    gcm_thr_lock(endpoint);
    for (proc = 0; proc < endpoint->nprocs; proc++) {
        while (endpoint->conns[proc] != NULL) {
            gcm_thr_conn_t *conn = endpoint->conns[proc];
            endpoint->conns[proc] = conn->next;
            gcm_thr_conn_close(endpoint, conn);
            free(conn);
        }
    }
    ucp_worker_destroy(endpoint->worker);
    gcm_thr_unlock(endpoint);
    free(endpoint->conns);
    free(endpoint);
}

gcm_thr_endpoint_t *gcm_thr_endpoint_current(void)
{
    return gcm_thr.endpoints[0];
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
    static atomic_uint next;

    if (gcm_thr.nendpoints <= 1) {
        return 0;
    }
    return 1 + (int)(atomic_fetch_add(&next, 1) %
                     (unsigned)(gcm_thr.nendpoints - 1));
}

/* ---- connections ---------------------------------------------------------- */

gcm_thr_conn_t *gcm_thr_conn_get(gcm_thr_endpoint_t *endpoint, int proc,
                                 int rep)
{
    gcm_thr_conn_t *conn;

    for (conn = endpoint->conns[proc]; conn != NULL; conn = conn->next) {
        if (conn->rep == rep) {
            return conn;
        }
    }
    conn = calloc(1, sizeof(*conn));
    if (conn == NULL) {
        return NULL;
    }
    conn->owner  = endpoint;
    conn->proc   = proc;
    conn->rep    = rep;
    conn->failed = GCM_OK;
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

gcm_status_t gcm_thr_conn_connect(gcm_thr_endpoint_t *endpoint,
                                  gcm_thr_conn_t *conn)
{
    unsigned char *addr;
    size_t len = GCM_THR_ADDR_MAX;
    ucp_ep_params_t params;
    ucs_status_t ucs;
    gcm_status_t status;

    if (conn->ucp_ep != NULL) {
        return GCM_OK;
    }
    if (conn->failed != GCM_OK) {
        return conn->failed;
    }
    if (conn->rep != 0) {
        return gcm_fail(GCM_ERR_INVALID_PARAM, "connect",
                        "endpoint %d of proc %d is not reachable yet",
                        conn->rep, conn->proc);
    }
    addr = malloc(len);
    if (addr == NULL) {
        return GCM_ERR_NO_MEMORY;
    }
    status = gcm_boot_get(conn->proc, GCM_THR_ADDR_KEY, addr, &len);
    if (status != GCM_OK) {
        free(addr);
        return gcm_fail(status, "connect", "no worker address for proc %d",
                        conn->proc);
    }
    memset(&params, 0, sizeof(params));
    params.field_mask      = UCP_EP_PARAM_FIELD_REMOTE_ADDRESS |
                             UCP_EP_PARAM_FIELD_ERR_HANDLING_MODE |
                             UCP_EP_PARAM_FIELD_ERR_HANDLER;
    params.address         = (const ucp_address_t *)addr;
    params.err_mode        = UCP_ERR_HANDLING_MODE_PEER;
    params.err_handler.cb  = gcm_thr_ep_error_cb;
    params.err_handler.arg = conn;
    ucs = ucp_ep_create(endpoint->worker, &params, &conn->ucp_ep);
    free(addr);
    if (ucs != UCS_OK) {
        conn->ucp_ep = NULL;
        return gcm_fail(gcm_thr_status(ucs), "connect",
                        "ucp_ep_create to proc %d failed: %s", conn->proc,
                        ucs_status_string(ucs));
    }
    gcm_debug("connected to proc %d endpoint %d", conn->proc, conn->rep);
    return GCM_OK;
}

void gcm_thr_peer_failed(gcm_thr_endpoint_t *endpoint, int proc,
                         gcm_status_t reason)
{
    gcm_thr_conn_t *conn;

    if ((proc < 0) || (proc >= endpoint->nprocs)) {
        return;
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

void gcm_thr_progress(gcm_thr_endpoint_t *endpoint)
{
    gcm_thr_lock(endpoint);
    ucp_worker_progress(endpoint->worker);
    gcm_thr_apply_deaths(endpoint);
    if (gcm_thr.upcalls.progress != NULL) {
        gcm_thr.upcalls.progress(endpoint);
    }
    gcm_thr_unlock(endpoint);
    if (gcm_thr.upcalls.after_progress != NULL) {
        gcm_thr.upcalls.after_progress(endpoint);
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

/*
 * Sleeps once: one thread at a time (the poller) arms the worker and
 * polls the event fds, so that no thread drains or re-arms what another
 * was about to be woken by; the others sleep on a futex that the poller
 * bumps when it wakes and that gcm_thr_signal bumps too.
 */
static void gcm_thr_sleep(gcm_thr_endpoint_t *endpoint,
                          int (*done)(void *arg), void *arg)
{
    unsigned gen = atomic_load(&endpoint->wake_gen);
    struct pollfd pfd[3];
    int npfd, bootfd, upfd, bootidx;
    ucs_status_t ucs;

    if (atomic_exchange(&endpoint->poller, 1) != 0) {
        atomic_fetch_add(&endpoint->fsleepers, 1);
        if (!done(arg) && (atomic_load(&endpoint->wake_gen) == gen) &&
            atomic_load(&endpoint->poller)) {
            gcm_thr_futex_wait(&endpoint->wake_gen, gen,
                               gcm_config.wait_timeout_ms);
        }
        atomic_fetch_sub(&endpoint->fsleepers, 1);
        return;
    }
    gcm_thr_lock(endpoint);
    ucs = ucp_worker_arm(endpoint->worker);
    gcm_thr_unlock(endpoint);
    if (ucs == UCS_ERR_BUSY) {
        gcm_thr_poller_release(endpoint);
        return;
    }
    atomic_fetch_add(&endpoint->sleepers, 1);
    if (done(arg) || atomic_exchange(&endpoint->signaled, 0)) {
        atomic_fetch_sub(&endpoint->sleepers, 1);
        gcm_thr_poller_release(endpoint);
        return;
    }
    /* The layer above says it sleeps too (so that its senders wake
     * us) and re-checks its own arrivals after saying so. */
    upfd = -1;
    if (gcm_thr.upcalls.sleep_prepare != NULL) {
        upfd = gcm_thr.upcalls.sleep_prepare(endpoint);
        if (upfd == -2) {
            atomic_fetch_sub(&endpoint->sleepers, 1);
            gcm_thr_poller_release(endpoint);
            return;
        }
    }
    pfd[0].fd     = endpoint->efd;
    pfd[0].events = POLLIN;
    npfd    = 1;
    bootidx = -1;
    bootfd  = gcm_boot_event_fd();
    if (bootfd >= 0) {
        pfd[npfd].fd     = bootfd;
        pfd[npfd].events = POLLIN;
        bootidx          = npfd++;
    }
    if (upfd >= 0) {
        pfd[npfd].fd     = upfd;
        pfd[npfd].events = POLLIN;
        npfd++;
    }
    if (poll(pfd, (nfds_t)npfd, (int)gcm_config.wait_timeout_ms) > 0) {
        if ((bootidx >= 0) && (pfd[bootidx].revents != 0)) {
            gcm_boot_poll_events();
        }
    }
    if (upfd != -1) {
        gcm_thr.upcalls.sleep_done(endpoint);
    }
    atomic_fetch_sub(&endpoint->sleepers, 1);
    gcm_thr_poller_release(endpoint);
}

void gcm_thr_wait(gcm_thr_endpoint_t *endpoint, int (*done)(void *arg),
                  void *arg)
{
    unsigned spins = 0;
    unsigned limit = gcm_thr.spin_limit;

    while (!done(arg)) {
        gcm_thr_progress(endpoint);
        if (done(arg)) {
            break;
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
        gcm_thr_sleep(endpoint, done, arg);
        /* After a sleep spin a little again: the reply usually follows. */
        spins = limit / 2;
    }
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

/* How many processes of the job share this machine: what the launcher
 * says, else (conservatively) the whole job. */
int gcm_thr_count_local(void)
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
    return gcm_boot_size();
}

gcm_status_t gcm_thr_init(const gcm_thr_upcalls_t *upcalls)
{
    ucp_config_t *config;
    ucp_params_t params;
    ucp_address_t *addr;
    size_t addr_len;
    ucs_status_t ucs;
    gcm_status_t status;

    gcm_thr.upcalls = *upcalls;
    gcm_thr.oversubscribed = gcm_thr_count_local() >
                             (int)sysconf(_SC_NPROCESSORS_ONLN);
    /* Oversubscribed, a spin round includes a sched_yield(): fewer. */
    gcm_thr.spin_limit = gcm_thr.oversubscribed ?
                         (gcm_config.spin_count + 31) / 32 :
                         gcm_config.spin_count;
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
    memset(&params, 0, sizeof(params));
    /* The job's shape lets UCX size its resources (and pick protocols)
     * for the number of peers it will really have. */
    params.field_mask        = UCP_PARAM_FIELD_FEATURES |
                               UCP_PARAM_FIELD_MT_WORKERS_SHARED |
                               UCP_PARAM_FIELD_ESTIMATED_NUM_EPS |
                               UCP_PARAM_FIELD_ESTIMATED_NUM_PPN;
    params.features          = UCP_FEATURE_AM | UCP_FEATURE_WAKEUP;
    params.mt_workers_shared = 1;
    params.estimated_num_eps = (size_t)gcm_boot_size();
    params.estimated_num_ppn = (size_t)gcm_thr_count_local();
    ucs = ucp_init(&params, config, &gcm_thr.context);
    ucp_config_release(config);
    if (ucs != UCS_OK) {
        return gcm_fail(GCM_ERR_TRANSPORT, "gcm_init", "ucp_init failed: %s",
                        ucs_status_string(ucs));
    }

    status = gcm_thr_endpoint_create(0, &gcm_thr.endpoints[0]);
    if (status != GCM_OK) {
        ucp_cleanup(gcm_thr.context);
        return gcm_fail(status, "gcm_init", "cannot create endpoint 0");
    }
    gcm_thr.nendpoints = 1;

    ucs = ucp_worker_get_address(gcm_thr.endpoints[0]->worker, &addr,
                                 &addr_len);
    if (ucs != UCS_OK) {
        gcm_thr_finalize();
        return gcm_fail(GCM_ERR_TRANSPORT, "gcm_init",
                        "ucp_worker_get_address failed: %s",
                        ucs_status_string(ucs));
    }
    status = gcm_boot_put(GCM_THR_ADDR_KEY, addr, addr_len);
    ucp_worker_release_address(gcm_thr.endpoints[0]->worker, addr);
    if (status != GCM_OK) {
        gcm_thr_finalize();
        return gcm_fail(status, "gcm_init", "cannot publish worker address");
    }
    gcm_thr.died = calloc((size_t)gcm_boot_size(), sizeof(*gcm_thr.died));
    if (gcm_thr.died == NULL) {
        gcm_thr_finalize();
        return GCM_ERR_NO_MEMORY;
    }
    atomic_init(&gcm_thr.died_gen, 0);
    gcm_boot_set_peer_died_cb(gcm_thr_boot_peer_died, NULL);
    return GCM_OK;
}

void gcm_thr_finalize(void)
{
    int i;

    gcm_boot_set_peer_died_cb(NULL, NULL);
    for (i = 0; i < gcm_thr.nendpoints; i++) {
        gcm_thr_endpoint_destroy(gcm_thr.endpoints[i]);
        gcm_thr.endpoints[i] = NULL;
    }
    gcm_thr.nendpoints = 0;
    free(gcm_thr.died);
    gcm_thr.died = NULL;
    if (gcm_thr.context != NULL) {
        ucp_cleanup(gcm_thr.context);
        gcm_thr.context = NULL;
    }
}

/*
 * threads/thr_init.c: the layer's init and finalize: the UCX context and
 * configuration, the endpoints made and their addresses published, and at
 * finalize every connection closed while all workers progress.
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

/* ---- init and finalize ---------------------------------------------------- */

/* The first of n variables that the launcher set to a number of at
 * least min, or -1. */
static int gcm_thr_launcher_var(const char *const *vars, size_t n, int min)
{
    size_t i;

    for (i = 0; i < n; i++) {
        const char *v = getenv(vars[i]);
        if ((v != NULL) && (atoi(v) >= min)) {
            return atoi(v);
        }
    }
    return -1;
}

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
    int n = gcm_thr_launcher_var(vars, sizeof(vars) / sizeof(vars[0]), 1);

    return (n > 0) ? n : 0;
}

/* This process's rank among those of the job on this machine as the
 * launcher says it, or -1 when it says nothing. */
static int gcm_thr_launcher_local_rank(void)
{
    static const char *const vars[] = {
        "GENCOMM_LOCAL_RANK",          /* gcrun */
        "MPI_LOCALRANKID",             /* MPICH Hydra */
        "OMPI_COMM_WORLD_LOCAL_RANK",  /* Open MPI */
        "SLURM_LOCALID",
    };

    return gcm_thr_launcher_var(vars, sizeof(vars) / sizeof(vars[0]), 0);
}

/* How many processes of the job share this machine: what the launcher
 * says, else (conservatively) the whole job. */
int gcm_thr_count_local(void)
{
    int n = gcm_thr_launcher_local_size();

    return (n > 0) ? n : gcm_boot_size();
}

/*
 * Spreads where the processes of an oversubscribed host start. gcrun's
 * replies at the end of the start-up exchange wake every process from
 * gcrun's CPU, and the kernel places each woken process there; polling
 * (a yield loop), they stay until its balancer moves them, seconds later
 * (4 processes on 2 cores: all four on one core right after MPI_Init in
 * 12 of 20 launches, Open MPI's in 1 of 20). A process whose mask holds
 * several CPUs moves once to the CPU of its local rank (modulo the
 * mask's CPUs), and gets its mask back at once: it stays unbound, the
 * kernel free to move it. GENCOMM_SPREAD=0: not at all.
 */
void gcm_thr_spread(void)
{
    int rank = gcm_thr_launcher_local_rank();
    cpu_set_t mask, one;
    int k, cpu, n;

    if (!gcm_thr.oversubscribed || !gcm_thr_config.spread || (rank < 0) ||
        (sched_getaffinity(0, sizeof(mask), &mask) != 0)) {
        return;
    }
    n = CPU_COUNT(&mask);
    if (n < 2) {
        return;
    }
    k = rank % n;
    for (cpu = 0; (cpu < CPU_SETSIZE) && !(CPU_ISSET(cpu, &mask) &&
                                           (k-- == 0)); cpu++) {
    }
    CPU_ZERO(&one);
    CPU_SET(cpu, &one);
    if (sched_setaffinity(0, sizeof(one), &one) != 0) {
        return;
    }
    if (sched_setaffinity(0, sizeof(mask), &mask) != 0) {
        gcm_warn("cannot give this process its CPU mask back after "
                 "moving it to CPU %d: %s", cpu, strerror(errno));
        return;
    }
    CPU_ZERO(&one);
    gcm_debug("spread: local rank %d starts on CPU %d of its %d%s", rank,
              cpu, n, ((sched_getaffinity(0, sizeof(one), &one) == 0) &&
                  CPU_EQUAL(&one, &mask)) ? ", its mask back" : "");
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

/*
 * The cores this process's own threads can count on at once: those it
 * may run on, and no more than its share of the host's (a process bound
 * to a core has one; two unbound processes on two cores have one each).
 * More threads than that spinning at once take turns (gcm_thr_wait).
 */
static int gcm_thr_count_own_cpus(void)
{
    int local = gcm_thr_count_local();
    int share = gcm_thr_count_cpus() / ((local > 0) ? local : 1);
    cpu_set_t set;

    if ((sched_getaffinity(0, sizeof(set), &set) == 0) &&
        (CPU_COUNT(&set) > 0) && (CPU_COUNT(&set) < share)) {
        share = CPU_COUNT(&set);
    }
    return (share > 1) ? share : 1;
}

/*
 * How many endpoints to make for the setting `asked` (0: automatic). One
 * per thread that may run at once keeps threads off each other's locks:
 * the CPUs this process may run on, plus endpoint 0, which the world and
 * the main thread use (communicator homes spread over 1..K-1). At least
 * 8, the count that served before the machine was asked, and at most
 * GCM_MAX_ENDPOINTS. A process bound to one core gets 8.
 */
int gcm_thr_default_endpoints(unsigned asked)
{
    cpu_set_t set;
    int n;

    if ((asked >= 1) && (asked <= GCM_MAX_ENDPOINTS)) {
        return (int)asked;
    }
    n = 8;
    if ((sched_getaffinity(0, sizeof(set), &set) == 0) &&
        (CPU_COUNT(&set) + 1 > n)) {
        n = CPU_COUNT(&set) + 1;
    }
    return (n > GCM_MAX_ENDPOINTS) ? GCM_MAX_ENDPOINTS : n;
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
    gcm_thr.own_cpus = gcm_thr_count_own_cpus();
    /* Oversubscribed, a spin round includes a sched_yield(): fewer. */
    gcm_thr.spin_limit = gcm_thr.oversubscribed ?
                         (gcm_thr_config.spin_count + GCM_THR_YIELD_SPINS -
                          1) / GCM_THR_YIELD_SPINS :
                         gcm_thr_config.spin_count;
    gcm_debug("%s: spinning %u rounds before sleeping; more than %d "
              "spinning threads take turns",
              gcm_thr.oversubscribed ? "oversubscribed" : "dedicated cores",
              gcm_thr.spin_limit, gcm_thr.own_cpus);
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
    neps = gcm_thr_default_endpoints(gcm_thr_config.max_endpoints);
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

/*
 * ucx_am_bench: the raw UCX floor for the gencomm benchmarks.
 *
 * Two processes, one UCP worker each, talking with active messages only.
 * The program needs no launcher: it forks its peer (parent = rank 0,
 * child = rank 1) and the two trade worker addresses over a socketpair.
 * Progress is a busy ucp_worker_progress() loop on both sides (yielding
 * the core on empty rounds when unbound), so the
 * numbers are the best that UCX's active-message path can do on this
 * machine; gencomm's figures are read as a ratio to these.
 *
 * Output, one line per measurement, on rank 0's stdout:
 *     benchmark,size_bytes,implementation,value,unit
 *
 * Usage: ucx_am_bench [--quick] [--no-bind]
 */
#define _GNU_SOURCE
#include <errno.h>
#include <poll.h>
#include <sched.h>
#include <signal.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <ucp/api/ucp.h>

#include "bench_util.h"

#define IMPL_NAME "ucx"

/* Active-message ids: payload messages and window acknowledgements. */
#define AM_DATA 1
#define AM_ACK  2
#define AM_HELLO 3

/* The handshake resends an unanswered hello this often, this many times. */
#define HELLO_RETRY_MS 100
#define HELLO_TRIES    100

/* Messages in flight per bandwidth window before the receiver acks. */
#define WINDOW 64

/*
 * Up to this size the sender forces the eager protocol; above it UCX picks
 * the protocol itself (rendezvous for the large sizes).
 */
#define EAGER_MAX 8192

/* Room for rendezvous descriptors that arrived but are not yet received. */
#define RNDV_QUEUE_CAP (2 * WINDOW)

/* A hung peer must not hang a benchmark run forever. */
#define RUN_TIMEOUT_S 300

static const size_t lat_sizes[] = { 0, 8, 1024, 65536 };
static const size_t bw_sizes[] = { 65536, 1048576, 4194304 };

typedef struct rndv_slot {
    void  *desc;
    size_t len;
} rndv_slot_t;

/* The whole state of one process; there is exactly one, so it is global. */
static struct {
    int           rank;
    int           sock;        /* socketpair end shared with the peer */
    ucp_context_h context;
    ucp_worker_h  worker;
    ucp_ep_h      ep;
    char         *sbuf;
    char         *rbuf;
    size_t        buf_size;
    /* Payload messages fully landed in rbuf (eager copies + rndv gets). */
    uint64_t      arrived;
    uint64_t      acks;
    uint64_t      hellos;      /* handshake messages, never measured */
    rndv_slot_t   rndv_q[RNDV_QUEUE_CAP];
    int           rndv_head;
    int           rndv_count;
    ucs_status_t  ep_error;
    /* Unbound (--no-bind, as in the test suite): the two processes may
     * share a core with each other and with other work, and a pure busy
     * loop can then starve the peer it waits for; give the core away
     * whenever a round of progress found nothing. */
    int           yield;
} g;

static void die(const char *fmt, ...)
{
    va_list ap;

    fprintf(stderr, "ucx_am_bench[%d]: ", g.rank);
    va_start(ap, fmt);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
    fputc('\n', stderr);
    /* _exit: do not run UCX's atexit cleanup on a half-broken worker. */
    _exit(1);
}

/* ---- socketpair helpers (address exchange and teardown sync) ---- */

static void write_all(int fd, const void *buf, size_t len)
{
    const char *p = buf;

    while (len > 0) {
        ssize_t n = write(fd, p, len);

        if (n < 0 && errno == EINTR) {
            continue;
        }
        if (n <= 0) {
            die("write to peer: %s", strerror(errno));
        }
        p += n;
        len -= (size_t)n;
    }
}

static void read_all(int fd, void *buf, size_t len)
{
    char *p = buf;

    while (len > 0) {
        ssize_t n = read(fd, p, len);

        if (n < 0 && errno == EINTR) {
            continue;
        }
        if (n == 0) {
            die("peer closed the socket (did it crash?)");
        }
        if (n < 0) {
            die("read from peer: %s", strerror(errno));
        }
        p += n;
        len -= (size_t)n;
    }
}

/* ---- UCX callbacks ---- */

static void ep_error_cb(void *arg, ucp_ep_h ep, ucs_status_t status)
{
    g.ep_error = status;
}

static ucs_status_t on_data(void *arg, const void *header,
                            size_t header_length, void *data, size_t length,
                            const ucp_am_recv_param_t *param)
{
    if (length > g.buf_size) {
        die("message of %zu bytes exceeds buffer", length);
    }
    if (param->recv_attr & UCP_AM_RECV_ATTR_FLAG_RNDV) {
        int tail;

        /*
         * Keep the descriptor and start the get from the main loop, as the
         * UCX API documents; a window can deliver many RTS in one progress.
         */
        if (g.rndv_count == RNDV_QUEUE_CAP) {
            die("rendezvous queue overflow");
        }
        tail = (g.rndv_head + g.rndv_count) % RNDV_QUEUE_CAP;
        g.rndv_q[tail].desc = data;
        g.rndv_q[tail].len = length;
        g.rndv_count++;
        return UCS_INPROGRESS;
    }
    if (length > 0) {
        memcpy(g.rbuf, data, length);
    }
    g.arrived++;
    return UCS_OK;
}

static ucs_status_t on_ack(void *arg, const void *header,
                           size_t header_length, void *data, size_t length,
                           const ucp_am_recv_param_t *param)
{
    g.acks++;
    return UCS_OK;
}

static ucs_status_t on_hello(void *arg, const void *header,
                             size_t header_length, void *data, size_t length,
                             const ucp_am_recv_param_t *param)
{
    g.hellos++;
    return UCS_OK;
}

static void rndv_done_cb(void *request, ucs_status_t status, size_t length,
                         void *user_data)
{
    if (status != UCS_OK) {
        die("rendezvous receive failed: %s", ucs_status_string(status));
    }
    g.arrived++;
    ucp_request_free(request);
}

/* ---- progress and send helpers ---- */

static void start_rndv_receives(void)
{
    while (g.rndv_count > 0) {
        rndv_slot_t *slot = &g.rndv_q[g.rndv_head];
        ucp_request_param_t param;
        ucs_status_ptr_t req;

        memset(&param, 0, sizeof(param));
        param.op_attr_mask = UCP_OP_ATTR_FIELD_CALLBACK |
                             UCP_OP_ATTR_FIELD_MEMORY_TYPE;
        param.cb.recv_am = rndv_done_cb;
        param.memory_type = UCS_MEMORY_TYPE_HOST;
        req = ucp_am_recv_data_nbx(g.worker, slot->desc, g.rbuf, slot->len,
                                   &param);
        if (UCS_PTR_IS_ERR(req)) {
            die("ucp_am_recv_data_nbx: %s",
                ucs_status_string(UCS_PTR_STATUS(req)));
        }
        if (req == NULL) {
            /* Completed in place: the callback will not run. */
            g.arrived++;
        }
        g.rndv_head = (g.rndv_head + 1) % RNDV_QUEUE_CAP;
        g.rndv_count--;
    }
}

static void progress(void)
{
    if ((ucp_worker_progress(g.worker) == 0) && g.yield) {
        sched_yield();
    }
    if (g.rndv_count > 0) {
        start_rndv_receives();
    }
    if (g.ep_error != UCS_OK) {
        die("endpoint failed: %s", ucs_status_string(g.ep_error));
    }
}

static ucs_status_ptr_t am_send(unsigned id, const void *buf, size_t len)
{
    ucp_request_param_t param;
    ucs_status_ptr_t req;

    memset(&param, 0, sizeof(param));
    param.op_attr_mask = UCP_OP_ATTR_FIELD_FLAGS |
                         UCP_OP_ATTR_FIELD_MEMORY_TYPE;
    param.flags = (len <= EAGER_MAX) ? UCP_AM_SEND_FLAG_EAGER : 0;
    param.memory_type = UCS_MEMORY_TYPE_HOST;
    req = ucp_am_send_nbx(g.ep, id, NULL, 0, buf, len, &param);
    if (UCS_PTR_IS_ERR(req)) {
        die("ucp_am_send_nbx(%zu bytes): %s", len,
            ucs_status_string(UCS_PTR_STATUS(req)));
    }
    return req;
}

static void wait_req(ucs_status_ptr_t req)
{
    ucs_status_t status;

    if (req == NULL) {
        return;
    }
    while ((status = ucp_request_check_status(req)) == UCS_INPROGRESS) {
        progress();
    }
    ucp_request_free(req);
    if (status != UCS_OK) {
        die("send failed: %s", ucs_status_string(status));
    }
}

static void wait_arrived(uint64_t target)
{
    while (g.arrived < target) {
        progress();
    }
}

/*
 * Meet the peer over the socket while still progressing UCX, so that a peer
 * which needs our progress to finish (e.g. closing its endpoint) is not
 * starved while we wait here.
 */
static void sync_peer(void)
{
    char out = 's';
    char in;
    struct pollfd pfd = { .fd = g.sock, .events = POLLIN };

    write_all(g.sock, &out, 1);
    for (;;) {
        int rc = poll(&pfd, 1, 0);

        if (rc > 0) {
            break;
        }
        if (rc < 0 && errno != EINTR) {
            die("poll: %s", strerror(errno));
        }
        if ((g.worker != NULL) && (ucp_worker_progress(g.worker) == 0) &&
            g.yield) {
            sched_yield();
        }
    }
    read_all(g.sock, &in, 1);
}

/* ---- setup and teardown ---- */

static void bind_to_core(int rank)
{
    cpu_set_t allowed;
    cpu_set_t mine;
    int seen = 0;

    if (sched_getaffinity(0, sizeof(allowed), &allowed) != 0 ||
        CPU_COUNT(&allowed) < 2) {
        /* One CPU (or unknown): both ranks share it; nothing to choose. */
        return;
    }
    for (int cpu = 0; cpu < CPU_SETSIZE; cpu++) {
        if (!CPU_ISSET(cpu, &allowed)) {
            continue;
        }
        if (seen++ == rank) {
            CPU_ZERO(&mine);
            CPU_SET(cpu, &mine);
            if (sched_setaffinity(0, sizeof(mine), &mine) != 0) {
                fprintf(stderr, "ucx_am_bench[%d]: cannot bind to cpu %d\n",
                        rank, cpu);
            }
            return;
        }
    }
}

/* Wait until the endpoint is wired up and everything sent on it is done. */
static void flush_ep(void)
{
    ucp_request_param_t param;
    ucs_status_ptr_t req;
    ucs_status_t status = UCS_OK;

    memset(&param, 0, sizeof(param));
    req = ucp_ep_flush_nbx(g.ep, &param);
    if (UCS_PTR_IS_ERR(req)) {
        status = UCS_PTR_STATUS(req);
    } else if (req != NULL) {
        while ((status = ucp_request_check_status(req)) == UCS_INPROGRESS) {
            progress();
        }
        ucp_request_free(req);
    }
    if (status != UCS_OK) {
        die("ucp_ep_flush_nbx: %s", ucs_status_string(status));
    }
}

static void ucx_setup(void)
{
    ucp_params_t params;
    ucp_config_t *config;
    ucp_worker_params_t wparams;
    ucp_am_handler_param_t hparam;
    ucp_ep_params_t eparams;
    ucp_address_t *addr;
    size_t addr_len;
    size_t peer_len;
    void *peer_addr;
    ucs_status_t status;

    /*
     * Same transport settings as libgencomm: shared memory with peer error
     * handling enabled, else endpoints in UCP_ERR_HANDLING_MODE_PEER leave
     * shared memory for TCP loopback; keepalive as the library sets it. As
     * in the library, a value the user exported wins.
     */
    setenv("UCX_MM_ERROR_HANDLING", "y", 0);
    setenv("UCX_KEEPALIVE_INTERVAL", "1s", 0);

    status = ucp_config_read(NULL, NULL, &config);
    if (status != UCS_OK) {
        die("ucp_config_read: %s", ucs_status_string(status));
    }
    memset(&params, 0, sizeof(params));
    params.field_mask = UCP_PARAM_FIELD_FEATURES |
                        UCP_PARAM_FIELD_ESTIMATED_NUM_EPS;
    params.features = UCP_FEATURE_AM;
    params.estimated_num_eps = 1;
    status = ucp_init(&params, config, &g.context);
    ucp_config_release(config);
    if (status != UCS_OK) {
        die("ucp_init: %s", ucs_status_string(status));
    }

    memset(&wparams, 0, sizeof(wparams));
    wparams.field_mask = UCP_WORKER_PARAM_FIELD_THREAD_MODE;
    wparams.thread_mode = UCS_THREAD_MODE_SINGLE;
    status = ucp_worker_create(g.context, &wparams, &g.worker);
    if (status != UCS_OK) {
        die("ucp_worker_create: %s", ucs_status_string(status));
    }

    memset(&hparam, 0, sizeof(hparam));
    hparam.field_mask = UCP_AM_HANDLER_PARAM_FIELD_ID |
                        UCP_AM_HANDLER_PARAM_FIELD_CB |
                        UCP_AM_HANDLER_PARAM_FIELD_FLAGS;
    hparam.flags = UCP_AM_FLAG_WHOLE_MSG;
    hparam.id = AM_DATA;
    hparam.cb = on_data;
    status = ucp_worker_set_am_recv_handler(g.worker, &hparam);
    if (status == UCS_OK) {
        hparam.id = AM_ACK;
        hparam.cb = on_ack;
        status = ucp_worker_set_am_recv_handler(g.worker, &hparam);
    }
    if (status == UCS_OK) {
        hparam.id = AM_HELLO;
        hparam.cb = on_hello;
        status = ucp_worker_set_am_recv_handler(g.worker, &hparam);
    }
    if (status != UCS_OK) {
        die("ucp_worker_set_am_recv_handler: %s",
            ucs_status_string(status));
    }

    status = ucp_worker_get_address(g.worker, &addr, &addr_len);
    if (status != UCS_OK) {
        die("ucp_worker_get_address: %s", ucs_status_string(status));
    }
    write_all(g.sock, &addr_len, sizeof(addr_len));
    write_all(g.sock, addr, addr_len);
    ucp_worker_release_address(g.worker, addr);
    read_all(g.sock, &peer_len, sizeof(peer_len));
    peer_addr = malloc(peer_len);
    if (peer_addr == NULL) {
        die("out of memory");
    }
    read_all(g.sock, peer_addr, peer_len);

    memset(&eparams, 0, sizeof(eparams));
    eparams.field_mask = UCP_EP_PARAM_FIELD_REMOTE_ADDRESS |
                         UCP_EP_PARAM_FIELD_ERR_HANDLING_MODE |
                         UCP_EP_PARAM_FIELD_ERR_HANDLER;
    eparams.address = peer_addr;
    eparams.err_mode = UCP_ERR_HANDLING_MODE_PEER;
    eparams.err_handler.cb = ep_error_cb;
    eparams.err_handler.arg = NULL;

    /*
     * Connect one side at a time. When both ranks create their endpoints
     * at once and send straight away, UCX 1.13 with peer error handling
     * now and then drops the first message (about one run in 20 hung
     * here). Rank 0 connects and completes the wireup first; rank 1,
     * progressing meanwhile, then creates its endpoint, which UCX matches
     * with the one rank 0's wireup already made. libgencomm connects
     * lazily on first send, which gives the same order.
     */
    if (g.rank == 1) {
        sync_peer();
    }
    status = ucp_ep_create(g.worker, &eparams, &g.ep);
    free(peer_addr);
    if (status != UCS_OK) {
        die("ucp_ep_create: %s", ucs_status_string(status));
    }
    flush_ep();
    if (g.rank == 0) {
        sync_peer();
    }
}

/*
 * One direction of the handshake: the sender sends hellos until the
 * receiver, once it has one, says so over the socket. Unbound and busy
 * polling on a loaded machine (load 5 on 2 cores, UCX 1.13.1), the first
 * ping-pong used to hang about one run in five: rank 1's first reply never
 * reached rank 0 although its send had completed, both ranks spinning.
 * Yielding on empty rounds (g.yield) stops that, and so does this
 * handshake alone (60 runs of 60, no hello resent); it stays so that the
 * measurements start only once both directions have delivered, and so
 * that a dead path ends the run with a message instead of a hang. Hellos
 * have their own handler and count: the measurements never see them.
 */
static void hello_from(int sender)
{
    char byte = 'h';

    if (g.rank != sender) {
        while (g.hellos == 0) {
            progress();
        }
        write_all(g.sock, &byte, 1);
        return;
    }
    for (int tries = 0; tries < HELLO_TRIES; tries++) {
        struct pollfd pfd = { .fd = g.sock, .events = POLLIN };
        double deadline = now_s() + HELLO_RETRY_MS * 1e-3;

        wait_req(am_send(AM_HELLO, g.sbuf, 0));
        while (now_s() < deadline) {
            int rc = poll(&pfd, 1, 0);

            if (rc > 0) {
                read_all(g.sock, &byte, 1);
                return;
            }
            if (rc < 0 && errno != EINTR) {
                die("poll: %s", strerror(errno));
            }
            progress();
        }
    }
    die("rank %d: no hello got through in %d tries", 1 - sender,
        HELLO_TRIES);
}

static void handshake(void)
{
    hello_from(0);
    hello_from(1);
}

static void ucx_teardown(void)
{
    ucp_request_param_t param;
    ucs_status_ptr_t req;

    /* Both sides are done sending before anyone closes. */
    sync_peer();
    memset(&param, 0, sizeof(param));
    param.op_attr_mask = UCP_OP_ATTR_FIELD_FLAGS;
    param.flags = 0; /* flush mode: let in-flight traffic drain */
    req = ucp_ep_close_nbx(g.ep, &param);
    if (UCS_PTR_IS_PTR(req)) {
        while (ucp_request_check_status(req) == UCS_INPROGRESS) {
            progress();
        }
        ucp_request_free(req);
    }
    /* Neither worker may vanish while the other is still closing. */
    sync_peer();
    ucp_worker_destroy(g.worker);
    g.worker = NULL;
    ucp_cleanup(g.context);
}

/* ---- the measurements ---- */

static void report(const char *bench, size_t size, double value,
                   const char *unit)
{
    if (g.rank == 0) {
        printf("%s,%zu,%s,%.3f,%s\n", bench, size, IMPL_NAME, value, unit);
        fflush(stdout);
    }
}

static void latency(size_t size, int warmup, int iters)
{
    double t0 = 0.0;
    uint64_t base = g.arrived;

    for (int i = 0; i < warmup + iters; i++) {
        ucs_status_ptr_t req;

        if (i == warmup) {
            t0 = now_s();
        }
        if (g.rank == 0) {
            req = am_send(AM_DATA, g.sbuf, size);
            wait_arrived(base + (uint64_t)i + 1);
            wait_req(req);
        } else {
            wait_arrived(base + (uint64_t)i + 1);
            req = am_send(AM_DATA, g.sbuf, size);
            wait_req(req);
        }
    }
    report("latency", size, (now_s() - t0) * 1e6 / (2.0 * iters), "us");
}

static void bandwidth(size_t size, int warmup, int windows)
{
    ucs_status_ptr_t reqs[WINDOW];
    uint64_t base_data = g.arrived;
    uint64_t base_acks = g.acks;
    double t0 = 0.0;

    for (int w = 0; w < warmup + windows; w++) {
        if (w == warmup) {
            t0 = now_s();
        }
        if (g.rank == 0) {
            for (int k = 0; k < WINDOW; k++) {
                reqs[k] = am_send(AM_DATA, g.sbuf, size);
            }
            for (int k = 0; k < WINDOW; k++) {
                wait_req(reqs[k]);
            }
            while (g.acks < base_acks + (uint64_t)w + 1) {
                progress();
            }
        } else {
            wait_arrived(base_data + (uint64_t)(w + 1) * WINDOW);
            wait_req(am_send(AM_ACK, g.sbuf, 4));
        }
    }
    report("bandwidth", size,
           (double)size * WINDOW * windows / (now_s() - t0) / 1e6, "MB/s");
}

static void run_all(int quick)
{
    bench_p2p_sweep(quick, lat_sizes, NELEMS(lat_sizes), EAGER_MAX, latency,
                    bw_sizes, NELEMS(bw_sizes), WINDOW, bandwidth);
}

static void usage(FILE *out)
{
    fprintf(out, "usage: ucx_am_bench [--quick] [--no-bind]\n"
                 "  Forks its peer and measures UCX active-message latency "
                 "and bandwidth.\n");
}

int main(int argc, char **argv)
{
    int quick = 0;
    int bind = 1;
    int sv[2];
    pid_t child;
    int rc = 0;

    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--quick") == 0) {
            quick = 1;
        } else if (strcmp(argv[i], "--no-bind") == 0) {
            bind = 0;
            g.yield = 1;
        } else if (strcmp(argv[i], "-h") == 0 ||
                   strcmp(argv[i], "--help") == 0) {
            usage(stdout);
            return 0;
        } else {
            usage(stderr);
            return 2;
        }
    }
    if (getenv("PMI_SIZE") != NULL && atoi(getenv("PMI_SIZE")) != 1) {
        /* Under a launcher every rank would fork: four processes. */
        fprintf(stderr, "ucx_am_bench: run it directly, not under a "
                        "launcher; it forks its own peer\n");
        return 2;
    }

    if (socketpair(AF_UNIX, SOCK_STREAM, 0, sv) != 0) {
        perror("ucx_am_bench: socketpair");
        return 1;
    }
    fflush(NULL);
    child = fork();
    if (child < 0) {
        perror("ucx_am_bench: fork");
        return 1;
    }
    if (child == 0) {
        g.rank = 1;
        g.sock = sv[1];
        close(sv[0]);
        /* An orphaned rank 1 would spin forever; die with the parent. */
        prctl(PR_SET_PDEATHSIG, SIGKILL);
        if (getppid() == 1) {
            _exit(1);
        }
    } else {
        g.rank = 0;
        g.sock = sv[0];
        close(sv[1]);
    }
    alarm(RUN_TIMEOUT_S);
    if (bind) {
        bind_to_core(g.rank);
    }

    g.buf_size = bw_sizes[NELEMS(bw_sizes) - 1];
    g.sbuf = malloc(g.buf_size);
    g.rbuf = malloc(g.buf_size);
    if (g.sbuf == NULL || g.rbuf == NULL) {
        die("out of memory");
    }
    /* Fault the pages in now, not inside a timed loop. */
    memset(g.sbuf, 'a' + g.rank, g.buf_size);
    memset(g.rbuf, 0, g.buf_size);

    ucx_setup();
    handshake();
    sync_peer();
    run_all(quick);
    ucx_teardown();
    free(g.sbuf);
    free(g.rbuf);

    if (g.rank == 1) {
        return 0;
    }
    {
        int wstatus;

        if (waitpid(child, &wstatus, 0) < 0) {
            perror("ucx_am_bench: waitpid");
            rc = 1;
        } else if (!WIFEXITED(wstatus) || WEXITSTATUS(wstatus) != 0) {
            fprintf(stderr, "ucx_am_bench: rank 1 failed (status 0x%x)\n",
                    wstatus);
            rc = 1;
        }
    }
    return rc;
}

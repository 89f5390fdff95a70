/*
 * slots/slot_shm.c: messages between processes of one host through shared
 * memory, beside UCX (as MPICH's ch4 keeps its shared-memory path beside
 * its network module).
 *
 * Every process owns one segment: a memfd, so that nothing is left in
 * /dev/shm whatever way the job ends. Other processes of the host open it
 * through /proc/<pid>/fd/<fd> (what the owner published at init) and map
 * it. It holds one single-producer single-consumer ring of fixed cells per
 * sending process of the host; a sender claims one at its first message to
 * the owner and then sends everything (data and control) through it, so
 * the per-connection order holds.
 *
 * A cell holds a message's envelope and, up to GCM_SLOTS_SHM_CELL_DATA
 * bytes, its data. A larger message is a descriptor (the sender's pid and
 * buffer address): the receiver reads the data with process_vm_readv
 * (one copy) when a receive matches, and sends back a GCM_CTRL_DATA notice
 * that completes the send. Control messages travel in cells too.
 *
 * Rings are indexed by monotonic 64-bit counters: each cell's seq, which
 * the producer writes last (release) and the consumer polls (acquire),
 * and tail, written by the consumer (release) on its own cache lines. A producer finding its ring full queues the message (its
 * request) in order and writes it from progress later, so neither side
 * blocks while it holds its endpoint lock and two processes sending to
 * each other with full rings still drain each other's rings.
 *
 * Waking: a waiter about to sleep increments the segment's "sleeping"
 * count, re-checks its rings, then polls an abstract unix datagram socket
 * named after the job and its process beside UCX's event fd. A producer
 * publishes, fences, and sends a byte only if the count is not zero: one
 * of the two always sees the other (sequentially consistent on both
 * sides). A producer that sleeps waiting for room sets its ring's
 * tx_waiting, and the consumer wakes it after freeing cells.
 *
 * All of it is for endpoint 0 (the only one so far). Locks: the producer
 * side of a ring is used under the sending endpoint's lock, the consumer
 * side under the receiving endpoint's lock.
 */
#define _GNU_SOURCE
#include "config.h"

#include "slots/slots.h"
#include "boot/boot.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/uio.h>
#include <sys/un.h>
#include <unistd.h>

#define GCM_SHM_KEY        "gcm-s0"
#define GCM_SHM_NCELLS     32
#define GCM_SHM_CELL_HDR   96
#define GCM_SHM_CELL_SIZE  \
    ((GCM_SHM_CELL_HDR + GCM_SLOTS_SHM_CELL_DATA + 63) / 64 * 64)
#define GCM_SHM_SEG_HDR    4096
#define GCM_SHM_RING_HDR   384
#define GCM_SHM_OWNERS_OFF 256
#define GCM_SHM_MAX_RINGS  ((GCM_SHM_SEG_HDR - GCM_SHM_OWNERS_OFF) / 4)
#define GCM_SHM_MAGIC      0x67636d73686d3031ULL /* "gcmshm01" */

enum { GCM_SHM_EAGER = 1, GCM_SHM_CMA = 2, GCM_SHM_CTRL = 3 };

/* The segment's first page. */
typedef struct gcm_shm_seg {
    uint64_t                  magic;
    uint32_t                  nrings;
    uint32_t                  ncells;
    uint64_t                  ring_bytes;
    /* Changed by each sender that claims a ring. */
    _Alignas(64) _Atomic uint32_t attach_gen;
    /* Threads of the owner asleep (or about to be). */
    _Alignas(64) _Atomic int32_t  sleeping;
} gcm_shm_seg_t;

typedef struct gcm_shm_ring {
    _Alignas(128) _Atomic uint64_t tail;
    _Alignas(128) _Atomic int32_t  tx_waiting;
    /* Written by the producer while it reads the consumer's memory: until
     * when (gcm_shm_now_ns) the consumer should expect the data notice
     * and spin rather than sleep; 0 when no read is under way. */
    _Alignas(128) _Atomic uint64_t read_until;
} gcm_shm_ring_t;

/* A cell is full when its seq is the producer's count of cells written
 * (index + 1): the consumer polls the next cell itself, so a small message
 * costs it the two cache lines of header, envelope and data, and no
 * separate head counter. */
typedef struct gcm_shm_cell {
    _Atomic uint64_t seq;
    uint32_t        kind;
    uint32_t        len;    /* EAGER: data bytes */
    int32_t         pid;    /* CMA: the sender */
    uint32_t        pad;
    uint64_t        addr;   /* CMA: the sender's buffer */
    gcm_slots_env_t env;
} gcm_shm_cell_t;

_Static_assert(sizeof(gcm_shm_seg_t) <= GCM_SHM_OWNERS_OFF, "seg header");
_Static_assert(sizeof(gcm_shm_ring_t) <= GCM_SHM_RING_HDR, "ring header");
_Static_assert(sizeof(gcm_shm_cell_t) <= GCM_SHM_CELL_HDR, "cell header");
_Static_assert(sizeof(gcm_slots_ctrl_t) <= GCM_SLOTS_SHM_CELL_DATA, "ctrl");

/* What a process publishes about its segment. */
typedef struct gcm_shm_info {
    char     host[256];
    int32_t  pid;
    int32_t  fd;
    uint64_t size;
    uint64_t magic;
    uint64_t probe;     /* the segment's address in its owner */
} gcm_shm_info_t;

/* This process's side of a ring it sends into. */
typedef struct gcm_shm_tx {
    gcm_list_t          elem;
    gcm_list_t          pending;
    int                 proc;
    int                 pid;
    int                 dead;
    void               *map;
    size_t              map_len;
    gcm_shm_seg_t      *seg;
    gcm_shm_ring_t     *ring;
    uint64_t            head;
    uint64_t            tail;      /* as last seen */
    int                 reading;   /* ring->read_until set by us */
    struct sockaddr_un  wake;
    socklen_t           wake_len;
} gcm_shm_tx_t;

/* A ring of this process's segment that a sender claimed. */
typedef struct gcm_shm_rx {
    gcm_shm_ring_t *ring;
    uint64_t        tail;
    int             proc;
    int             pid;    /* 0: unknown */
} gcm_shm_rx_t;

static struct {
    int                 enabled;
    int                 myproc;
    int                 mypid;
    uint64_t            jobhash;
    int                 memfd;
    gcm_shm_seg_t      *seg;
    size_t              seg_len;
    int                 wake_fd;
    int                 send_fd;
    uint32_t            attach_gen;
    gcm_shm_rx_t       *rx;        /* by ring */
    int                *active;    /* claimed rings */
    int                 nactive;
    gcm_list_t          txs;
    unsigned            npending;
    unsigned            rounds;
    atomic_int          check_now;
    double              last_check;
    int                 cma_logged;
} gcm_shm = { .memfd = -1, .wake_fd = -1, .send_fd = -1 };

static _Atomic uint32_t *gcm_shm_owners(gcm_shm_seg_t *seg)
{
    return (_Atomic uint32_t *)((char *)seg + GCM_SHM_OWNERS_OFF);
}

static uint64_t gcm_shm_now_ns(void)
{
    return (uint64_t)(gcm_time_now() * 1e9);
}

static gcm_shm_ring_t *gcm_shm_ring(gcm_shm_seg_t *seg, uint32_t i)
{
    return (gcm_shm_ring_t *)((char *)seg + GCM_SHM_SEG_HDR +
                              (size_t)i * seg->ring_bytes);
}

static gcm_shm_cell_t *gcm_shm_cell(gcm_shm_ring_t *ring, uint64_t idx)
{
    return (gcm_shm_cell_t *)((char *)ring + GCM_SHM_RING_HDR +
                              (size_t)(idx % GCM_SHM_NCELLS) *
                              GCM_SHM_CELL_SIZE);
}

static void *gcm_shm_cell_data(gcm_shm_cell_t *cell)
{
    return (char *)cell + GCM_SHM_CELL_HDR;
}

static uint64_t gcm_shm_magic(int proc)
{
    return GCM_SHM_MAGIC ^ gcm_shm.jobhash ^ ((uint64_t)(unsigned)proc << 20);
}

/* The abstract socket name of proc's wakeups: no file to leak. */
static socklen_t gcm_shm_wake_addr(int proc, struct sockaddr_un *addr)
{
    int n;

    memset(addr, 0, sizeof(*addr));
    addr->sun_family = AF_UNIX;
    n = snprintf(addr->sun_path + 1, sizeof(addr->sun_path) - 1,
                 "gencomm-%016llx-%d", (unsigned long long)gcm_shm.jobhash,
                 proc);
    return (socklen_t)(offsetof(struct sockaddr_un, sun_path) + 1 +
                       (size_t)n);
}

static void gcm_shm_wake(const struct sockaddr_un *addr, socklen_t len)
{
    /* Best effort: a full socket buffer means a wakeup is pending
     * already; a refused one, that its owner is gone. */
    (void)sendto(gcm_shm.send_fd, "w", 1, MSG_DONTWAIT,
                 (const struct sockaddr *)addr, len);
}

/* ---- init and finalize --------------------------------------------------- */

static void gcm_shm_close_all(void)
{
    if (gcm_shm.seg != NULL) {
        munmap(gcm_shm.seg, gcm_shm.seg_len);
        gcm_shm.seg = NULL;
    }
    if (gcm_shm.memfd >= 0) {
        close(gcm_shm.memfd);
        gcm_shm.memfd = -1;
    }
    if (gcm_shm.wake_fd >= 0) {
        close(gcm_shm.wake_fd);
        gcm_shm.wake_fd = -1;
    }
    if (gcm_shm.send_fd >= 0) {
        close(gcm_shm.send_fd);
        gcm_shm.send_fd = -1;
    }
    free(gcm_shm.rx);
    gcm_shm.rx = NULL;
    free(gcm_shm.active);
    gcm_shm.active = NULL;
    gcm_shm.nactive = 0;
    gcm_shm.enabled = 0;
}

/* Peers read our entry whatever our setting: "off" (pid 0) rather than no
 * entry, which the launcher would report as an error. */
static void gcm_shm_publish_off(void)
{
    gcm_shm_info_t info;

    memset(&info, 0, sizeof(info));
    (void)gcm_boot_put(GCM_SHM_KEY, &info, sizeof(info));
}

gcm_status_t gcm_slots_shm_init(gcm_thr_endpoint_t *endpoint)
{
    const char *jobid = gcm_boot_jobid();
    struct sockaddr_un addr;
    socklen_t addr_len;
    gcm_shm_info_t info;
    uint64_t ring_bytes;
    int nrings;
    const char *why;

    gcm_list_init(&gcm_shm.txs);
    gcm_shm.enabled = 0;
    if (gcm_boot_size() < 2) {
        return GCM_OK;
    }
    if (!gcm_config.shm || (endpoint == NULL)) {
        gcm_shm_publish_off();
        return GCM_OK;
    }
    gcm_shm.myproc  = gcm_boot_rank();
    gcm_shm.mypid   = (int)getpid();
    gcm_shm.jobhash = gcm_hash64(jobid, strlen(jobid));
    atomic_init(&gcm_shm.check_now, 0);
    gcm_shm.last_check = gcm_time_now();

    /* One ring per process of the host (the launcher's count, else the
     * job's size): pages nobody writes cost nothing. */
    nrings = gcm_thr_count_local();
    if (nrings < 1) {
        nrings = 1;
    }
    if (nrings > GCM_SHM_MAX_RINGS) {
        nrings = GCM_SHM_MAX_RINGS;
    }
    ring_bytes = GCM_SHM_RING_HDR +
                 (uint64_t)GCM_SHM_NCELLS * GCM_SHM_CELL_SIZE;
    gcm_shm.seg_len = GCM_SHM_SEG_HDR + (size_t)nrings * ring_bytes;

    why = "memfd_create";
    gcm_shm.memfd = memfd_create("gencomm-shm", MFD_CLOEXEC);
    if (gcm_shm.memfd < 0) {
        goto err;
    }
    why = "ftruncate";
    if (ftruncate(gcm_shm.memfd, (off_t)gcm_shm.seg_len) != 0) {
        goto err;
    }
    why = "mmap";
    gcm_shm.seg = mmap(NULL, gcm_shm.seg_len, PROT_READ | PROT_WRITE,
                       MAP_SHARED, gcm_shm.memfd, 0);
    if (gcm_shm.seg == MAP_FAILED) {
        gcm_shm.seg = NULL;
        goto err;
    }
    gcm_shm.seg->nrings     = (uint32_t)nrings;
    gcm_shm.seg->ncells     = GCM_SHM_NCELLS;
    gcm_shm.seg->ring_bytes = ring_bytes;
    gcm_shm.seg->magic      = gcm_shm_magic(gcm_shm.myproc);

    why = "socket";
    gcm_shm.wake_fd = socket(AF_UNIX, SOCK_DGRAM | SOCK_NONBLOCK |
                             SOCK_CLOEXEC, 0);
    gcm_shm.send_fd = socket(AF_UNIX, SOCK_DGRAM | SOCK_NONBLOCK |
                             SOCK_CLOEXEC, 0);
    if ((gcm_shm.wake_fd < 0) || (gcm_shm.send_fd < 0)) {
        goto err;
    }
    why = "bind";
    addr_len = gcm_shm_wake_addr(gcm_shm.myproc, &addr);
    if (bind(gcm_shm.wake_fd, (struct sockaddr *)&addr, addr_len) != 0) {
        goto err;
    }
    why = "malloc";
    gcm_shm.rx     = calloc((size_t)nrings, sizeof(*gcm_shm.rx));
    gcm_shm.active = calloc((size_t)nrings, sizeof(*gcm_shm.active));
    if ((gcm_shm.rx == NULL) || (gcm_shm.active == NULL)) {
        goto err;
    }

    memset(&info, 0, sizeof(info));
    snprintf(info.host, sizeof(info.host), "%s", gcm_boot_hostname());
    info.pid   = gcm_shm.mypid;
    info.fd    = gcm_shm.memfd;
    info.size  = gcm_shm.seg_len;
    info.magic = gcm_shm.seg->magic;
    info.probe = (uint64_t)(uintptr_t)gcm_shm.seg;
    why = "publish";
    if (gcm_boot_put(GCM_SHM_KEY, &info, sizeof(info)) != GCM_OK) {
        goto err;
    }
    gcm_shm.enabled = 1;
    gcm_debug("shm: %d rings of %d cells (%zu bytes)", nrings,
              GCM_SHM_NCELLS, gcm_shm.seg_len);
    return GCM_OK;

err:
    gcm_info("shared memory off (%s: %s): every message goes over UCX", why,
             strerror(errno));
    gcm_shm_close_all();
    gcm_shm_publish_off();
    return GCM_ERR_TRANSPORT;
}

static void gcm_shm_fail_pending(gcm_shm_tx_t *tx, gcm_status_t reason)
{
    while (!gcm_list_empty(&tx->pending)) {
        gcm_slots_shm_pend_t *pend =
            gcm_container_of(tx->pending.next, gcm_slots_shm_pend_t, elem);
        gcm_list_del(&pend->elem);
        gcm_shm.npending--;
        if (pend->req != NULL) {
            gcm_slots_send_part_done(pend->req, reason);
        } else {
            free(pend);
        }
    }
}

void gcm_slots_shm_finalize(gcm_thr_endpoint_t *endpoint)
{
    double deadline = gcm_time_now() + 2.0;

    if (!gcm_shm.enabled) {
        return;
    }
    /* What waits for room (answers, notices) goes out if the peers are
     * still there to take it. */
    while ((gcm_shm.npending > 0) && (gcm_time_now() < deadline)) {
        gcm_thr_progress(endpoint);
    }
    gcm_thr_lock(endpoint);
    while (!gcm_list_empty(&gcm_shm.txs)) {
        gcm_shm_tx_t *tx = gcm_container_of(gcm_shm.txs.next, gcm_shm_tx_t,
                                            elem);
        gcm_list_del(&tx->elem);
        gcm_shm_fail_pending(tx, GCM_ERR_CANCELED);
        munmap(tx->map, tx->map_len);
        free(tx);
    }
    gcm_shm_close_all();
    gcm_thr_unlock(endpoint);
}

/* ---- attaching to a peer ------------------------------------------------- */

static gcm_shm_tx_t *gcm_shm_attach(int proc)
{
    gcm_shm_info_t info;
    size_t len = sizeof(info);
    char path[64];
    struct stat st;
    struct iovec local, remote;
    uint64_t probe = 0;
    _Atomic uint32_t *owners;
    gcm_shm_tx_t *tx;
    gcm_shm_seg_t *seg;
    void *map;
    uint32_t i;
    int fd;

    if ((gcm_boot_get(proc, GCM_SHM_KEY, &info, &len) != GCM_OK) ||
        (len != sizeof(info))) {
        return NULL;
    }
    if (info.pid == 0) {
        return NULL;    /* its shared memory is off */
    }
    info.host[sizeof(info.host) - 1] = '\0';
    if (strcmp(info.host, gcm_boot_hostname()) != 0) {
        return NULL;    /* another host */
    }
    snprintf(path, sizeof(path), "/proc/%d/fd/%d", (int)info.pid,
             (int)info.fd);
    fd = open(path, O_RDWR | O_CLOEXEC);
    if (fd < 0) {
        gcm_info("shm: cannot open proc %d's segment (%s): UCX to it", proc,
                 strerror(errno));
        return NULL;
    }
    if ((fstat(fd, &st) != 0) || ((uint64_t)st.st_size != info.size)) {
        close(fd);
        return NULL;
    }
    map = mmap(NULL, (size_t)info.size, PROT_READ | PROT_WRITE, MAP_SHARED,
               fd, 0);
    close(fd);
    if (map == MAP_FAILED) {
        return NULL;
    }
    seg = map;
    if ((seg->magic != info.magic) || (seg->ncells != GCM_SHM_NCELLS) ||
        (seg->nrings > GCM_SHM_MAX_RINGS) ||
        (GCM_SHM_SEG_HDR + (uint64_t)seg->nrings * seg->ring_bytes >
         info.size)) {
        munmap(map, (size_t)info.size);
        return NULL;
    }
    /* Large messages are read from the sender's memory: make sure the
     * kernel lets us (same user, no ptrace restriction) before choosing
     * this path, and otherwise keep UCX for this peer. */
    local.iov_base  = &probe;
    local.iov_len   = sizeof(probe);
    remote.iov_base = (void *)(uintptr_t)info.probe;
    remote.iov_len  = sizeof(probe);
    if ((process_vm_readv((pid_t)info.pid, &local, 1, &remote, 1, 0) !=
         (ssize_t)sizeof(probe)) || (probe != info.magic)) {
        if (!gcm_shm.cma_logged) {
            gcm_shm.cma_logged = 1;
            gcm_info("shm: process_vm_readv unavailable (%s): same-host "
                     "messages go over UCX", strerror(errno));
        }
        munmap(map, (size_t)info.size);
        return NULL;
    }
    owners = gcm_shm_owners(seg);
    for (i = 0; i < seg->nrings; i++) {
        uint32_t expected = 0;
        if (atomic_compare_exchange_strong(&owners[i], &expected,
                                           (uint32_t)gcm_shm.myproc + 1)) {
            break;
        }
    }
    if (i == seg->nrings) {
        gcm_debug("shm: no free ring at proc %d: UCX to it", proc);
        munmap(map, (size_t)info.size);
        return NULL;
    }
    tx = calloc(1, sizeof(*tx));
    if (tx == NULL) {
        /* The claimed ring stays unused; UCX serves this peer. */
        munmap(map, (size_t)info.size);
        return NULL;
    }
    gcm_list_init(&tx->pending);
    tx->proc     = proc;
    tx->pid      = (int)info.pid;
    tx->map      = map;
    tx->map_len  = (size_t)info.size;
    tx->seg      = seg;
    tx->ring     = gcm_shm_ring(seg, i);
    tx->head     = atomic_load_explicit(&tx->ring->tail,
                                        memory_order_acquire);
    tx->tail     = tx->head;
    tx->wake_len = gcm_shm_wake_addr(proc, &tx->wake);
    gcm_list_push_back(&gcm_shm.txs, &tx->elem);
    atomic_fetch_add(&seg->attach_gen, 1);
    gcm_debug("shm: attached to proc %d (ring %u)", proc, i);
    return tx;
}

int gcm_slots_shm_usable(gcm_thr_endpoint_t *endpoint, gcm_thr_conn_t *conn)
{
    gcm_shm_tx_t *tx;

    if (gcm_likely(conn->shm != 0)) {
        return conn->shm > 0;
    }
    conn->shm = -1;
    if (!gcm_shm.enabled || (endpoint->index != 0) || (conn->rep != 0) ||
        (conn->proc == gcm_shm.myproc) || (conn->failed != GCM_OK) ||
        (conn->ucp_ep != NULL)) {
        return 0;
    }
    tx = gcm_shm_attach(conn->proc);
    if (tx == NULL) {
        return 0;
    }
    conn->shm    = 1;
    conn->shm_tx = tx;
    return 1;
}

/* ---- producing ----------------------------------------------------------- */

static int gcm_shm_room(gcm_shm_tx_t *tx)
{
    if (tx->head - tx->tail < GCM_SHM_NCELLS) {
        return 1;
    }
    tx->tail = atomic_load_explicit(&tx->ring->tail, memory_order_acquire);
    return tx->head - tx->tail < GCM_SHM_NCELLS;
}

static void gcm_shm_publish(gcm_shm_tx_t *tx, gcm_shm_cell_t *cell)
{
    tx->head++;
    atomic_store_explicit(&cell->seq, tx->head, memory_order_release);
    /* Against the owner's "sleeping, then re-check": see the top. */
    atomic_thread_fence(memory_order_seq_cst);
    if (atomic_load_explicit(&tx->seg->sleeping, memory_order_relaxed) > 0) {
        gcm_shm_wake(&tx->wake, tx->wake_len);
    }
}

static void gcm_shm_write_msg(gcm_shm_tx_t *tx, struct gcm_request *req,
                              const void *buf, size_t len)
{
    gcm_shm_cell_t *cell = gcm_shm_cell(tx->ring, tx->head);

    cell->env = req->env;
    if (len <= GCM_SLOTS_SHM_CELL_DATA) {
        cell->kind = GCM_SHM_EAGER;
        cell->len  = (uint32_t)len;
        if (len > 0) {
            memcpy(gcm_shm_cell_data(cell), buf, len);
        }
    } else {
        cell->kind = GCM_SHM_CMA;
        cell->len  = 0;
        cell->pid  = gcm_shm.mypid;
        cell->addr = (uint64_t)(uintptr_t)buf;
    }
    gcm_shm_publish(tx, cell);
}

static void gcm_shm_write_ctrl(gcm_shm_tx_t *tx, const gcm_slots_ctrl_t *ctrl)
{
    gcm_shm_cell_t *cell = gcm_shm_cell(tx->ring, tx->head);

    cell->kind = GCM_SHM_CTRL;
    cell->len  = (uint32_t)sizeof(*ctrl);
    memcpy(gcm_shm_cell_data(cell), ctrl, sizeof(*ctrl));
    gcm_shm_publish(tx, cell);
    if (tx->reading) {
        /* The data notice is out (or whatever follows a read): the
         * consumer may sleep again. */
        tx->reading = 0;
        atomic_store_explicit(&tx->ring->read_until, 0,
                              memory_order_relaxed);
    }
}

/* Writes what waits for room, in order; returns how many. */
static unsigned gcm_shm_flush(gcm_shm_tx_t *tx)
{
    unsigned n = 0;

    while (!gcm_list_empty(&tx->pending) && gcm_shm_room(tx)) {
        gcm_slots_shm_pend_t *pend =
            gcm_container_of(tx->pending.next, gcm_slots_shm_pend_t, elem);
        gcm_list_del(&pend->elem);
        gcm_shm.npending--;
        n++;
        if (pend->req != NULL) {
            gcm_shm_write_msg(tx, pend->req, pend->buf, pend->len);
            gcm_slots_send_part_done(pend->req, GCM_OK);
        } else {
            gcm_shm_write_ctrl(tx, &pend->ctrl);
            free(pend);
        }
    }
    return n;
}

void gcm_slots_shm_send_msg(gcm_thr_endpoint_t *endpoint,
                            gcm_thr_conn_t *conn, struct gcm_request *req,
                            const void *buf, size_t len)
{
    gcm_shm_tx_t *tx = conn->shm_tx;

    (void)endpoint;
    if (gcm_list_empty(&tx->pending) && gcm_shm_room(tx)) {
        gcm_shm_write_msg(tx, req, buf, len);
        gcm_slots_send_part_done(req, GCM_OK);
        return;
    }
    /* Full: the request waits in order; progress writes it. */
    req->shmq.req = req;
    req->shmq.buf = buf;
    req->shmq.len = len;
    gcm_list_push_back(&tx->pending, &req->shmq.elem);
    gcm_shm.npending++;
}

void gcm_slots_shm_send_ctrl(gcm_thr_endpoint_t *endpoint,
                             gcm_thr_conn_t *conn,
                             const gcm_slots_ctrl_t *ctrl)
{
    gcm_shm_tx_t *tx = conn->shm_tx;
    gcm_slots_shm_pend_t *pend;

    (void)endpoint;
    if (gcm_list_empty(&tx->pending) && gcm_shm_room(tx)) {
        gcm_shm_write_ctrl(tx, ctrl);
        return;
    }
    pend = calloc(1, sizeof(*pend));
    if (pend == NULL) {
        /* Best effort, like a control message UCX cannot send. */
        gcm_error("out of memory queueing a control message for proc %d",
                  tx->proc);
        return;
    }
    pend->ctrl = *ctrl;
    gcm_list_push_back(&tx->pending, &pend->elem);
    gcm_shm.npending++;
}

void gcm_slots_shm_peer_failed(gcm_thr_endpoint_t *endpoint, int proc,
                               gcm_status_t reason)
{
    gcm_list_t *pos, *tmp;

    (void)endpoint;
    if (!gcm_shm.enabled) {
        return;
    }
    gcm_list_for_each_safe(pos, tmp, &gcm_shm.txs) {
        gcm_shm_tx_t *tx = gcm_container_of(pos, gcm_shm_tx_t, elem);
        if (tx->proc == proc) {
            tx->dead = 1;
            /* A full ring to a dead process is never drained. */
            gcm_shm_fail_pending(tx, reason);
        }
    }
}

/* The ring we send into at proc (the data notice's way back), or NULL. */
static gcm_shm_tx_t *gcm_shm_tx_of(int proc)
{
    gcm_list_t *pos, *tmp;

    gcm_list_for_each_safe(pos, tmp, &gcm_shm.txs) {
        gcm_shm_tx_t *tx = gcm_container_of(pos, gcm_shm_tx_t, elem);
        if ((tx->proc == proc) && !tx->dead) {
            return tx;
        }
    }
    return NULL;
}

gcm_status_t gcm_slots_shm_read(const gcm_payload_t *payload, void *buf,
                                size_t n)
{
    gcm_shm_tx_t *tx = gcm_shm_tx_of((int)payload->proc);
    size_t done = 0;

    /* The sender waits for this read's notice: tell it that it comes soon
     * (at 1 GB/s at worst, plus 50 us), so that it keeps spinning instead
     * of sleeping and costing us a wakeup per message (streaming 1 MiB
     * messages: 11.3 instead of 13 GB/s). Only a hint: a sleeping sender
     * is woken as ever. */
    if (tx != NULL) {
        tx->reading = 1;
        atomic_store_explicit(&tx->ring->read_until,
                              gcm_shm_now_ns() + 50000 + (uint64_t)n,
                              memory_order_relaxed);
    }

    while (done < n) {
        struct iovec local, remote;
        ssize_t got;

        local.iov_base  = (char *)buf + done;
        local.iov_len   = n - done;
        remote.iov_base = (char *)payload->data + done;
        remote.iov_len  = n - done;
        got = process_vm_readv((pid_t)payload->pid, &local, 1, &remote, 1, 0);
        if (got < 0) {
            if (errno == EINTR) {
                continue;
            }
            if (errno == ESRCH) {
                return GCM_ERR_PEER_FAILED;
            }
            gcm_error("process_vm_readv from proc %u failed: %s",
                      payload->proc, strerror(errno));
            return GCM_ERR_TRANSPORT;
        }
        if (got == 0) {
            return GCM_ERR_TRANSPORT;
        }
        done += (size_t)got;
    }
    return GCM_OK;
}

/* ---- consuming ----------------------------------------------------------- */

/* The pid proc published with its segment, or 0. */
static int gcm_shm_pid_of(int proc)
{
    gcm_shm_info_t info;
    size_t len = sizeof(info);

    if ((gcm_boot_get(proc, GCM_SHM_KEY, &info, &len) != GCM_OK) ||
        (len != sizeof(info))) {
        return 0;
    }
    return (int)info.pid;
}

static void gcm_shm_rescan(uint32_t gen)
{
    _Atomic uint32_t *owners = gcm_shm_owners(gcm_shm.seg);
    uint32_t i;

    gcm_shm.attach_gen = gen;
    for (i = 0; i < gcm_shm.seg->nrings; i++) {
        uint32_t owner;
        if (gcm_shm.rx[i].ring != NULL) {
            continue;
        }
        owner = atomic_load_explicit(&owners[i], memory_order_acquire);
        if (owner == 0) {
            continue;
        }
        gcm_shm.rx[i].ring = gcm_shm_ring(gcm_shm.seg, i);
        gcm_shm.rx[i].proc = (int)owner - 1;
        gcm_shm.rx[i].pid  = gcm_shm_pid_of(gcm_shm.rx[i].proc);
        gcm_shm.rx[i].tail = atomic_load_explicit(&gcm_shm.rx[i].ring->tail,
                                                  memory_order_relaxed);
        gcm_shm.active[gcm_shm.nactive++] = (int)i;
    }
}

static void gcm_shm_handle(gcm_thr_endpoint_t *endpoint, gcm_shm_cell_t *cell)
{
    gcm_slots_env_t env;
    gcm_payload_t payload;
    gcm_slots_ctrl_t ctrl;

    switch (cell->kind) {
    case GCM_SHM_EAGER:
    case GCM_SHM_CMA:
        memcpy(&env, &cell->env, sizeof(env));
        memset(&payload, 0, sizeof(payload));
        if (cell->kind == GCM_SHM_EAGER) {
            payload.kind = GCM_PAYLOAD_TRANSIENT;
            payload.data = gcm_shm_cell_data(cell);
            payload.size = (cell->len <= GCM_SLOTS_SHM_CELL_DATA) ?
                           cell->len : GCM_SLOTS_SHM_CELL_DATA;
        } else {
            payload.kind   = GCM_PAYLOAD_SHM_RNDV;
            payload.data   = (void *)(uintptr_t)cell->addr;
            payload.size   = (size_t)env.size;
            payload.pid    = cell->pid;
            payload.proc   = env.src_proc;
            payload.ep     = env.src_ep;
            payload.cookie = env.sreq;
        }
        (void)gcm_slots_msg_in(endpoint, &env, &payload);
        break;
    case GCM_SHM_CTRL:
        memcpy(&ctrl, gcm_shm_cell_data(cell), sizeof(ctrl));
        gcm_slots_ctrl_in(endpoint, &ctrl);
        break;
    default:
        gcm_warn("shm: cell of unknown kind %u ignored", cell->kind);
        break;
    }
}

static unsigned gcm_shm_drain(gcm_thr_endpoint_t *endpoint, gcm_shm_rx_t *rx)
{
    unsigned n = 0;

    while (n < GCM_SHM_NCELLS) {
        gcm_shm_cell_t *cell = gcm_shm_cell(rx->ring, rx->tail);
        if (atomic_load_explicit(&cell->seq, memory_order_acquire) !=
            rx->tail + 1) {
            break;
        }
        gcm_shm_handle(endpoint, cell);
        rx->tail++;
        n++;
        atomic_store_explicit(&rx->ring->tail, rx->tail,
                              memory_order_release);
    }
    if (n == 0) {
        return 0;
    }
    /* A producer that sleeps until there is room: see the top. */
    atomic_thread_fence(memory_order_seq_cst);
    if (atomic_load_explicit(&rx->ring->tx_waiting, memory_order_relaxed)) {
        struct sockaddr_un addr;
        socklen_t len = gcm_shm_wake_addr(rx->proc, &addr);
        atomic_store_explicit(&rx->ring->tx_waiting, 0,
                              memory_order_relaxed);
        gcm_shm_wake(&addr, len);
    }
    return n;
}

/* Without the launcher's report (not every launcher sends one) a dead
 * peer on this host is noticed here, at most a second or so late. */
static void gcm_shm_check_peers(gcm_thr_endpoint_t *endpoint)
{
    gcm_list_t *pos, *tmp;
    double now = gcm_time_now();

    if (now - gcm_shm.last_check < 1.0) {
        return;
    }
    gcm_shm.last_check = now;
    int i;

    gcm_list_for_each_safe(pos, tmp, &gcm_shm.txs) {
        gcm_shm_tx_t *tx = gcm_container_of(pos, gcm_shm_tx_t, elem);
        if (!tx->dead && (kill((pid_t)tx->pid, 0) != 0) &&
            (errno == ESRCH)) {
            gcm_debug("shm: proc %d (pid %d) is gone", tx->proc, tx->pid);
            tx->dead = 1;
            gcm_thr_peer_failed(endpoint, tx->proc, GCM_ERR_PEER_FAILED);
        }
    }
    /* Processes that send to us: receives bound to them must fail too. */
    for (i = 0; i < gcm_shm.nactive; i++) {
        gcm_shm_rx_t *rx = &gcm_shm.rx[gcm_shm.active[i]];
        gcm_thr_conn_t *conn;
        if ((rx->pid <= 0) || (kill((pid_t)rx->pid, 0) == 0) ||
            (errno != ESRCH)) {
            continue;
        }
        conn = gcm_thr_conn_get(endpoint, rx->proc, 0);
        rx->pid = 0;
        if ((conn != NULL) && (conn->failed == GCM_OK)) {
            gcm_debug("shm: proc %d is gone", rx->proc);
            gcm_thr_peer_failed(endpoint, rx->proc, GCM_ERR_PEER_FAILED);
        }
    }
}

unsigned gcm_slots_shm_progress(gcm_thr_endpoint_t *endpoint)
{
    uint32_t gen;
    unsigned n = 0;
    int i;

    if (!gcm_shm.enabled || (endpoint->index != 0)) {
        return 0;
    }
    gen = atomic_load_explicit(&gcm_shm.seg->attach_gen,
                               memory_order_acquire);
    if (gcm_unlikely(gen != gcm_shm.attach_gen)) {
        gcm_shm_rescan(gen);
    }
    for (i = 0; i < gcm_shm.nactive; i++) {
        n += gcm_shm_drain(endpoint, &gcm_shm.rx[gcm_shm.active[i]]);
    }
    if (gcm_shm.npending > 0) {
        gcm_list_t *pos, *tmp;
        gcm_list_for_each_safe(pos, tmp, &gcm_shm.txs) {
            n += gcm_shm_flush(gcm_container_of(pos, gcm_shm_tx_t, elem));
        }
    }
    if (gcm_unlikely((++gcm_shm.rounds >= 4096) ||
                     atomic_load_explicit(&gcm_shm.check_now,
                                          memory_order_relaxed))) {
        gcm_shm.rounds = 0;
        atomic_store_explicit(&gcm_shm.check_now, 0, memory_order_relaxed);
        gcm_shm_check_peers(endpoint);
    }
    return n;
}

/* Is anything for us in the rings, or can a queued message go out?
 * Lock held. */
static int gcm_shm_busy(void)
{
    gcm_list_t *pos, *tmp;
    int i;

    if (atomic_load(&gcm_shm.seg->attach_gen) != gcm_shm.attach_gen) {
        return 1;
    }
    for (i = 0; i < gcm_shm.nactive; i++) {
        gcm_shm_rx_t *rx = &gcm_shm.rx[gcm_shm.active[i]];
        if (atomic_load(&gcm_shm_cell(rx->ring, rx->tail)->seq) ==
            rx->tail + 1) {
            return 1;
        }
    }
    if (gcm_shm.npending == 0) {
        return 0;
    }
    gcm_list_for_each_safe(pos, tmp, &gcm_shm.txs) {
        gcm_shm_tx_t *tx = gcm_container_of(pos, gcm_shm_tx_t, elem);
        if (gcm_list_empty(&tx->pending) || tx->dead) {
            continue;
        }
        /* Ask its consumer for a wakeup, then look again. */
        atomic_store(&tx->ring->tx_waiting, 1);
        if (gcm_shm_room(tx)) {
            return 1;
        }
    }
    return 0;
}

/* Is a peer reading our memory, its data notice due soon? Lock held. */
static int gcm_shm_being_read(void)
{
    uint64_t now = 0;
    int i;

    for (i = 0; i < gcm_shm.nactive; i++) {
        gcm_shm_rx_t *rx = &gcm_shm.rx[gcm_shm.active[i]];
        uint64_t until = atomic_load_explicit(&rx->ring->read_until,
                                              memory_order_relaxed);
        if (until == 0) {
            continue;
        }
        if (now == 0) {
            now = gcm_shm_now_ns();
        }
        /* Beyond 100 ms: a huge read (one wakeup is nothing to it) or a
         * reader whose clock is not ours (another time namespace). */
        if ((now < until) && (until - now <= 100000000)) {
            return 1;
        }
    }
    return 0;
}

int gcm_slots_shm_sleep_prepare(gcm_thr_endpoint_t *endpoint)
{
    int busy;

    if (!gcm_shm.enabled || (endpoint->index != 0)) {
        return -1;
    }
    gcm_thr_lock(endpoint);
    if (gcm_shm_being_read()) {
        /* Spin on (as Open MPI's vader always does): sleeping would cost
         * the reader a wakeup for the notice. */
        gcm_thr_unlock(endpoint);
        return -2;
    }
    atomic_fetch_add(&gcm_shm.seg->sleeping, 1);
    busy = gcm_shm_busy();
    gcm_thr_unlock(endpoint);
    if (busy) {
        atomic_fetch_sub(&gcm_shm.seg->sleeping, 1);
        return -2;
    }
    return gcm_shm.wake_fd;
}

void gcm_slots_shm_sleep_done(gcm_thr_endpoint_t *endpoint)
{
    char buf[64];

    (void)endpoint;
    atomic_fetch_sub(&gcm_shm.seg->sleeping, 1);
    while (recv(gcm_shm.wake_fd, buf, sizeof(buf), MSG_DONTWAIT) > 0) {
    }
    atomic_store_explicit(&gcm_shm.check_now, 1, memory_order_relaxed);
}

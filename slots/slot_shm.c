/*
 * slots/slot_shm.c: messages between processes of one host through shared
 * memory, beside UCX (as MPICH's ch4 keeps its shared-memory path beside
 * its network module).
 *
 * Every endpoint owns one segment: a memfd, so that nothing is left in
 * /dev/shm whatever way the job ends. Other processes of the host open it
 * through /proc/<pid>/fd/<fd> (what the owner published at init, for all
 * its endpoints at once, before the fence) and map it. It holds single-
 * producer single-consumer rings of fixed cells, one per sending endpoint
 * (a process and one of its endpoints); a sender claims one at its first
 * message to the owner and then sends everything (data and control)
 * through it, so the per-connection order holds. Segments are sparse: a
 * ring nobody claims costs no memory.
 *
 * Nothing in a segment is believed. A claim is the compare-and-swap of the
 * ring's owner word and a note on the owner's claim socket (seqpacket),
 * whose sender the kernel names (SO_PEERCRED): the owner reads a ring only
 * once the note came from the very process the job's table (what each
 * process published at init) lists as the claimed sender, and from then
 * on the ring's cells are that process's, whatever their envelopes say.
 * The owner never reads its own header's sizes back (it keeps its own
 * copies); a sender checks the header of the segment it maps against
 * what it mapped.
 *
 * A cell holds a message's envelope and, up to GCM_SLOTS_SHM_CELL_DATA
 * bytes, its data. A larger message is a descriptor (the sender's buffer
 * address): the receiver reads the data with process_vm_readv from the
 * ring's verified sender (one copy) when a receive matches, and sends back
 * a GCM_CTRL_DATA notice that completes the send. Control messages travel
 * in cells too.
 *
 * Rings are indexed by monotonic 64-bit counters: each cell's seq, which
 * the producer writes last (release) and the consumer polls (acquire),
 * and tail, written by the consumer (release) on its own cache lines. A
 * producer finding its ring full queues the message (its request) in
 * order and writes it from progress later, so neither side blocks while it
 * holds its endpoint lock and two endpoints sending to each other with
 * full rings still drain each other's rings.
 *
 * Waking: a waiter about to sleep on an endpoint increments its segment's
 * "sleeping" count, re-checks its rings, then polls the endpoint's
 * wakeup socket (an abstract unix datagram socket with a random name
 * published at init) beside UCX's event fd. A producer publishes, fences,
 * and sends a note only if the count is not zero: one of the two always
 * sees the other (sequentially consistent on both sides). A producer that
 * sleeps waiting for room sets its ring's tx_waiting, and the consumer
 * wakes the producer's endpoint after freeing cells. Notes from processes
 * that are not the job's (SO_PASSCRED) are dropped, with a warning.
 *
 * Locks: the producer side of a ring (gcm_shm_tx_t, on its endpoint's
 * list) is used under the sending endpoint's lock, the consumer side (the
 * owner's gcm_shm_ep_t) under the receiving endpoint's lock; what is
 * shared by all endpoints is written at init and finalize only, but for
 * the table of the job's pids, whose entries any thread may fill (each
 * with the same value).
 */
#define _GNU_SOURCE
#include "config.h"

#include "slots/slot_shm.h"
#include "boot/boot.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/uio.h>
#include <sys/un.h>
#include <unistd.h>

#define GCM_SHM_KEY        "gcm-s1"
#define GCM_SHM_MAGIC      0x67636d73686d3033ULL /* "gcmshm03" */
/* Claim connections accepted before their note was in (a sender writes
 * it right after connecting): they wait for the next look. */
#define GCM_SHM_EARLY_MAX  16

/* The part of the header a sender checks, copied out of the segment. */
typedef struct gcm_shm_seg_id {
    uint64_t magic;
    uint32_t nrings;
    uint32_t ncells;
    uint64_t ring_bytes;
} gcm_shm_seg_id_t;

/* What a process publishes about its segments: one blob, a head and an
 * entry per endpoint. */
typedef struct gcm_shm_info_head {
    char     host[256];
    int32_t  pid;
    uint32_t nseg;      /* 0: its shared memory is off */
    uint64_t probe;     /* address of segment 0 in its owner */
} gcm_shm_info_head_t;

typedef struct gcm_shm_info_seg {
    int32_t  fd;
    uint32_t pad;
    uint64_t size;
    uint64_t magic;
    uint8_t  sock[GCM_SLOTS_SHM_SOCK_ID];   /* names its two sockets */
} gcm_shm_info_seg_t;

typedef struct gcm_shm_info {
    gcm_shm_info_head_t head;
    gcm_shm_info_seg_t  seg[GCM_MAX_ENDPOINTS];
} gcm_shm_info_t;

/* This endpoint's side of a ring it sends into, at endpoint rep of proc. */
typedef struct gcm_shm_tx {
    gcm_list_t          elem;
    gcm_list_t          pending;
    int                 proc;
    int                 rep;
    int                 ep;        /* ours, the sender */
    int                 pid;
    int                 dead;
    void               *map;
    size_t              map_len;
    gcm_slots_shm_seg_t      *seg;
    gcm_slots_shm_ring_t     *ring;
    uint64_t            head;
    uint64_t            tail;      /* as last seen */
    int                 reading;   /* ring->read_until set by us */
    struct sockaddr_un  wake;
    socklen_t           wake_len;
} gcm_shm_tx_t;

/* A ring of an endpoint's segment whose claim was verified: who sends
 * through it is what the kernel said, not what the segment says. */
typedef struct gcm_shm_rx {
    gcm_slots_shm_ring_t *ring;    /* NULL: not (or not yet) ours to read */
    uint64_t            tail;
    int                 proc;
    int                 ep;        /* the sending endpoint */
    int                 pid;       /* 0 once found gone */
    struct sockaddr_un  wake;      /* the sending endpoint's wakeups */
    socklen_t           wake_len;
} gcm_shm_rx_t;

/* A claim connection whose note has not come yet. */
typedef struct gcm_shm_early {
    int          fd;
    struct ucred cred;
} gcm_shm_early_t;

/* One endpoint's shared memory: its segment and sockets (consumer side)
 * and the rings it sends into (producer side). Its lock protects all of
 * it but the atomics; the wakeup socket is read without it. */
typedef struct gcm_shm_ep {
    int                 index;
    int                 memfd;
    gcm_slots_shm_seg_t      *seg;
    size_t              seg_len;
    int                 wake_fd;   /* datagrams, SO_PASSCRED */
    int                 claim_fd;  /* seqpacket listener */
    uint8_t             sock_id[GCM_SLOTS_SHM_SOCK_ID];
    gcm_shm_early_t     early[GCM_SHM_EARLY_MAX];
    int                 nearly;
    uint32_t            attach_gen;
    gcm_shm_rx_t       *rx;        /* by ring */
    int                *active;    /* verified rings */
    int                 nactive;
    gcm_list_t          txs;
    unsigned            nqueued;   /* messages waiting for room */
    unsigned            rounds;
    atomic_int          check_now;
    double              last_check;
    /* Notes refused, for the warnings: claims, wakeup datagrams. */
    atomic_uint         refused_claims;
    atomic_uint         refused_wakes;
} gcm_shm_ep_t;

static struct {
    int                 enabled;
    int                 myproc;
    int                 mypid;
    uid_t               uid;
    uint64_t            jobhash;
    int                 nrings;    /* per segment of ours */
    int                 send_fd;   /* for wakeups; any thread sends */
    atomic_int          cma_logged;
    int                 neps;
    gcm_shm_ep_t       *eps[GCM_MAX_ENDPOINTS];
    /* The job's table: the pid each process published with its
     * segments, 0 until looked up, -1 when it has none on this host. */
    int                 nprocs;
    atomic_int         *pids;
} gcm_shm = { .send_fd = -1 };

static gcm_shm_ep_t *gcm_shm_ep(gcm_thr_endpoint_t *endpoint)
{
    return gcm_shm.eps[endpoint->index];
}

static _Atomic uint32_t *gcm_shm_owners(gcm_slots_shm_seg_t *seg)
{
    return (_Atomic uint32_t *)((char *)seg + GCM_SLOTS_SHM_OWNERS_OFF);
}

static uint32_t gcm_shm_owner(int proc, int ep)
{
    return ((uint32_t)proc + 1) |
           ((uint32_t)ep << GCM_SLOTS_SHM_OWNER_PROC_BITS);
}

static uint64_t gcm_shm_now_ns(void)
{
    return (uint64_t)(gcm_time_now() * 1e9);
}

static void *gcm_shm_cell_data(gcm_slots_shm_cell_t *cell)
{
    return (char *)cell + GCM_SLOTS_SHM_CELL_HDR;
}

static uint64_t gcm_shm_magic(int proc, int ep)
{
    return GCM_SHM_MAGIC ^ gcm_shm.jobhash ^
           ((uint64_t)(unsigned)proc << 20) ^ ((uint64_t)(unsigned)ep << 56);
}

/* The abstract socket name of an endpoint's wakeups (kind 'w') or claims
 * (kind 'c'): random bytes it drew at init, so that nobody can take the
 * name before it, and no file to leak. */
static socklen_t gcm_shm_sock_addr(const uint8_t id[GCM_SLOTS_SHM_SOCK_ID],
                                   char kind, struct sockaddr_un *addr)
{
    static const char hex[] = "0123456789abcdef";
    char *p;
    int i;

    memset(addr, 0, sizeof(*addr));
    addr->sun_family = AF_UNIX;
    p = addr->sun_path + 1;
    memcpy(p, "gencomm-", 8);
    p += 8;
    for (i = 0; i < GCM_SLOTS_SHM_SOCK_ID; i++) {
        *p++ = hex[id[i] >> 4];
        *p++ = hex[id[i] & 0xf];
    }
    *p++ = '-';
    *p++ = kind;
    return (socklen_t)(p - (char *)addr);
}

static void gcm_shm_wake(const struct sockaddr_un *addr, socklen_t len,
                         int ep)
{
    gcm_slots_shm_note_t note;

    memset(&note, 0, sizeof(note));
    note.magic = GCM_SLOTS_SHM_NOTE_MAGIC;
    note.kind  = GCM_SLOTS_SHM_WAKE;
    note.ep    = (uint16_t)ep;
    note.proc  = gcm_shm.myproc;
    /* Best effort: a full socket buffer means a wakeup is pending
     * already; a refused one, that its owner is gone. */
    (void)sendto(gcm_shm.send_fd, &note, sizeof(note), MSG_DONTWAIT,
                 (const struct sockaddr *)addr, len);
}

/* ---- decoding what comes from outside ------------------------------------ */

gcm_status_t gcm_slots_shm_note_decode(const void *buf, size_t len,
                                       gcm_slots_shm_note_t *note_p)
{
    gcm_slots_shm_note_t note;

    if ((buf == NULL) || (len != sizeof(note))) {
        return GCM_ERR_INVALID_PARAM;
    }
    memcpy(&note, buf, sizeof(note));
    if ((note.magic != GCM_SLOTS_SHM_NOTE_MAGIC) || (note.proc < 0) ||
        (note.ep >= GCM_MAX_ENDPOINTS)) {
        return GCM_ERR_INVALID_PARAM;
    }
    if ((note.kind == GCM_SLOTS_SHM_WAKE) && (note.ring == 0)) {
        *note_p = note;
        return GCM_OK;
    }
    if ((note.kind == GCM_SLOTS_SHM_CLAIM) &&
        (note.ring < GCM_SLOTS_SHM_MAX_RINGS)) {
        *note_p = note;
        return GCM_OK;
    }
    return GCM_ERR_INVALID_PARAM;
}

gcm_status_t gcm_slots_shm_cell_decode(const void *cell, size_t len,
                                       gcm_slots_shm_cell_msg_t *msg_p)
{
    gcm_slots_shm_cell_t hdr;
    gcm_slots_shm_cell_msg_t msg;

    if ((cell == NULL) || (len < GCM_SLOTS_SHM_CELL_HDR)) {
        return GCM_ERR_INVALID_PARAM;
    }
    /* One copy of the header: the producer may write the cell while we
     * read it, and each field is to be read once. */
    memcpy(&hdr, cell, sizeof(hdr));
    memset(&msg, 0, sizeof(msg));
    msg.kind = hdr.kind;
    switch (hdr.kind) {
    case GCM_SLOTS_SHM_EAGER:
        msg.env      = hdr.env;
        msg.data_off = GCM_SLOTS_SHM_CELL_HDR;
        msg.len      = hdr.len;
        if (msg.len > len - GCM_SLOTS_SHM_CELL_HDR) {
            msg.len = len - GCM_SLOTS_SHM_CELL_HDR;
        }
        if (msg.len > GCM_SLOTS_SHM_CELL_DATA) {
            msg.len = GCM_SLOTS_SHM_CELL_DATA;
        }
        break;
    case GCM_SLOTS_SHM_CMA:
        msg.env  = hdr.env;
        msg.addr = hdr.addr;
        break;
    case GCM_SLOTS_SHM_CTRL:
        if (len < GCM_SLOTS_SHM_CELL_HDR + sizeof(msg.ctrl)) {
            return GCM_ERR_INVALID_PARAM;
        }
        memcpy(&msg.ctrl, (const char *)cell + GCM_SLOTS_SHM_CELL_HDR,
               sizeof(msg.ctrl));
        break;
    default:
        return GCM_ERR_INVALID_PARAM;
    }
    *msg_p = msg;
    return GCM_OK;
}

gcm_status_t gcm_slots_shm_seg_check(const void *hdr, size_t hdr_len,
                                     uint64_t mapped_len, uint64_t magic,
                                     uint32_t *nrings_p)
{
    gcm_shm_seg_id_t id;

    if ((hdr == NULL) || (hdr_len < sizeof(id))) {
        return GCM_ERR_INVALID_PARAM;
    }
    memcpy(&id, hdr, sizeof(id));
    if ((id.magic != magic) || (id.ncells != GCM_SLOTS_SHM_NCELLS) ||
        (id.ring_bytes != GCM_SLOTS_SHM_RING_BYTES) || (id.nrings < 1) ||
        (id.nrings > GCM_SLOTS_SHM_MAX_RINGS) ||
        (mapped_len < GCM_SLOTS_SHM_SEG_HDR) ||
        ((mapped_len - GCM_SLOTS_SHM_SEG_HDR) / GCM_SLOTS_SHM_RING_BYTES <
         id.nrings)) {
        return GCM_ERR_INVALID_PARAM;
    }
    *nrings_p = id.nrings;
    return GCM_OK;
}

/* ---- the job's table ----------------------------------------------------- */

/* What proc published about its segments (*nseg_p of them, 0 when its
 * shared memory is off or it is on another host); 0 if nothing usable. */
static int gcm_shm_info_of(int proc, gcm_shm_info_t *info, int *nseg_p)
{
    size_t len = sizeof(*info);

    *nseg_p = 0;
    if ((gcm_boot_get(proc, GCM_SHM_KEY, info, &len) != GCM_OK) ||
        (len < sizeof(info->head))) {
        return 0;
    }
    if ((info->head.nseg == 0) || (info->head.pid <= 0)) {
        return 1;    /* its shared memory is off */
    }
    if ((info->head.nseg > GCM_MAX_ENDPOINTS) ||
        (len != sizeof(info->head) +
                (size_t)info->head.nseg * sizeof(info->seg[0]))) {
        gcm_warn("shm: proc %d published a segment table of %zu bytes: "
                 "UCX to it", proc, len);
        return 0;
    }
    info->head.host[sizeof(info->head.host) - 1] = '\0';
    if (strcmp(info->head.host, gcm_boot_hostname()) != 0) {
        return 1;    /* another host */
    }
    *nseg_p = (int)info->head.nseg;
    return 1;
}

/* The pid proc published with its segments, or 0 (none on this host, its
 * shared memory off, not a process of the job). */
static int gcm_shm_pid_of(int proc)
{
    gcm_shm_info_t *info;
    int nseg, pid;

    if ((proc < 0) || (proc >= gcm_boot_size())) {
        return 0;
    }
    pid = (gcm_shm.pids != NULL) ?
          atomic_load_explicit(&gcm_shm.pids[proc], memory_order_relaxed) :
          0;
    if (gcm_likely(pid != 0)) {
        return (pid > 0) ? pid : 0;
    }
    info = malloc(sizeof(*info));
    pid  = -1;
    if ((info != NULL) && gcm_shm_info_of(proc, info, &nseg) && (nseg > 0)) {
        pid = (int)info->head.pid;
    }
    free(info);
    if (gcm_shm.pids != NULL) {
        /* Several threads may look at once: they store the same value. */
        atomic_store_explicit(&gcm_shm.pids[proc], pid,
                              memory_order_relaxed);
    }
    return (pid > 0) ? pid : 0;
}

/* Whether the kernel's word about a sender (cred) makes it proc of this
 * job, on this host, other than us. */
static int gcm_shm_is_proc(int proc, const struct ucred *cred)
{
    int pid;

    if ((proc < 0) || (proc >= gcm_shm.nprocs) || (proc == gcm_shm.myproc) ||
        (cred->uid != gcm_shm.uid) || (cred->pid <= 0)) {
        return 0;
    }
    pid = gcm_shm_pid_of(proc);
    return (pid > 0) && (pid == (int)cred->pid);
}

/* A note refused: said at warn level, the 1st, 2nd, 4th, 8th... time
 * that count grows (a flood must not flood the log too). */
static void gcm_shm_refuse(gcm_shm_ep_t *sep, atomic_uint *count,
                           const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

static void gcm_shm_refuse(gcm_shm_ep_t *sep, atomic_uint *count,
                           const char *fmt, ...)
{
    unsigned n = atomic_fetch_add(count, 1) + 1;
    char why[256];
    va_list ap;

    if ((n & (n - 1)) != 0) {
        return;
    }
    va_start(ap, fmt);
    vsnprintf(why, sizeof(why), fmt, ap);
    va_end(ap);
    gcm_warn("shm endpoint %d: %s: refused (%u so far)", sep->index, why, n);
}

#define gcm_shm_refuse_claim(_sep, ...) \
    gcm_shm_refuse(_sep, &(_sep)->refused_claims, __VA_ARGS__)
#define gcm_shm_refuse_wake(_sep, ...) \
    gcm_shm_refuse(_sep, &(_sep)->refused_wakes, __VA_ARGS__)

/* ---- init and finalize --------------------------------------------------- */

static void gcm_shm_ep_close(gcm_shm_ep_t *sep)
{
    int i;

    if (sep->seg != NULL) {
        munmap(sep->seg, sep->seg_len);
    }
    if (sep->memfd >= 0) {
        close(sep->memfd);
    }
    if (sep->wake_fd >= 0) {
        close(sep->wake_fd);
    }
    if (sep->claim_fd >= 0) {
        close(sep->claim_fd);
    }
    for (i = 0; i < sep->nearly; i++) {
        close(sep->early[i].fd);
    }
    free(sep->rx);
    free(sep->active);
    free(sep);
}

static void gcm_shm_close_all(void)
{
    int i;

    for (i = 0; i < GCM_MAX_ENDPOINTS; i++) {
        if (gcm_shm.eps[i] != NULL) {
            gcm_shm_ep_close(gcm_shm.eps[i]);
            gcm_shm.eps[i] = NULL;
        }
    }
    if (gcm_shm.send_fd >= 0) {
        close(gcm_shm.send_fd);
        gcm_shm.send_fd = -1;
    }
    gcm_shm.neps    = 0;
    gcm_shm.enabled = 0;
}

/* Peers read our entry whatever our setting: "off" (no segments) rather
 * than no entry, which the launcher would report as an error. */
static void gcm_shm_publish_off(void)
{
    gcm_shm_info_head_t head;

    memset(&head, 0, sizeof(head));
    (void)gcm_boot_put(GCM_SHM_KEY, &head, sizeof(head));
}

/* Makes endpoint index's segment and sockets; *why_p names the step that
 * failed. */
static gcm_shm_ep_t *gcm_shm_ep_create(int index, const char **why_p)
{
    struct sockaddr_un addr;
    socklen_t addr_len;
    gcm_shm_ep_t *sep;
    char name[32];
    int one = 1;

    *why_p = "malloc";
    sep = calloc(1, sizeof(*sep));
    if (sep == NULL) {
        return NULL;
    }
    sep->index    = index;
    sep->memfd    = -1;
    sep->wake_fd  = -1;
    sep->claim_fd = -1;
    gcm_list_init(&sep->txs);
    atomic_init(&sep->check_now, 0);
    atomic_init(&sep->refused_claims, 0);
    atomic_init(&sep->refused_wakes, 0);
    sep->last_check = gcm_time_now();
    sep->seg_len = GCM_SLOTS_SHM_SEG_HDR +
                   (size_t)gcm_shm.nrings * GCM_SLOTS_SHM_RING_BYTES;

    *why_p = "memfd_create";
    snprintf(name, sizeof(name), "gencomm-shm-%d", index);
    sep->memfd = memfd_create(name, MFD_CLOEXEC);
    if (sep->memfd < 0) {
        goto err;
    }
    *why_p = "ftruncate";
    if (ftruncate(sep->memfd, (off_t)sep->seg_len) != 0) {
        goto err;
    }
    *why_p = "mmap";
    sep->seg = mmap(NULL, sep->seg_len, PROT_READ | PROT_WRITE, MAP_SHARED,
                    sep->memfd, 0);
    if (sep->seg == MAP_FAILED) {
        sep->seg = NULL;
        goto err;
    }
    sep->seg->nrings     = (uint32_t)gcm_shm.nrings;
    sep->seg->ncells     = GCM_SLOTS_SHM_NCELLS;
    sep->seg->ring_bytes = GCM_SLOTS_SHM_RING_BYTES;
    sep->seg->magic      = gcm_shm_magic(gcm_shm.myproc, index);

    gcm_random_bytes(sep->sock_id, sizeof(sep->sock_id));
    *why_p = "socket";
    sep->wake_fd = socket(AF_UNIX, SOCK_DGRAM | SOCK_NONBLOCK | SOCK_CLOEXEC,
                          0);
    if (sep->wake_fd < 0) {
        goto err;
    }
    /* The kernel names the sender of every wakeup. */
    *why_p = "setsockopt(SO_PASSCRED)";
    if (setsockopt(sep->wake_fd, SOL_SOCKET, SO_PASSCRED, &one,
                   sizeof(one)) != 0) {
        goto err;
    }
    *why_p = "bind";
    addr_len = gcm_shm_sock_addr(sep->sock_id, 'w', &addr);
    if (bind(sep->wake_fd, (struct sockaddr *)&addr, addr_len) != 0) {
        goto err;
    }
    *why_p = "socket";
    sep->claim_fd = socket(AF_UNIX, SOCK_SEQPACKET | SOCK_NONBLOCK |
                           SOCK_CLOEXEC, 0);
    if (sep->claim_fd < 0) {
        goto err;
    }
    *why_p = "bind";
    addr_len = gcm_shm_sock_addr(sep->sock_id, 'c', &addr);
    if (bind(sep->claim_fd, (struct sockaddr *)&addr, addr_len) != 0) {
        goto err;
    }
    /* Every sender of the host may claim at once (the first messages of
     * an all-to-all): connections wait in the backlog until we look. */
    *why_p = "listen";
    if (listen(sep->claim_fd, SOMAXCONN) != 0) {
        goto err;
    }
    *why_p = "malloc";
    sep->rx     = calloc((size_t)gcm_shm.nrings, sizeof(*sep->rx));
    sep->active = calloc((size_t)gcm_shm.nrings, sizeof(*sep->active));
    if ((sep->rx == NULL) || (sep->active == NULL)) {
        goto err;
    }
    return sep;

err:
    gcm_shm_ep_close(sep);
    return NULL;
}

gcm_status_t gcm_slots_shm_init(void)
{
    const char *jobid = gcm_boot_jobid();
    gcm_shm_info_t *info = NULL;
    const char *why;
    int neps = gcm_thr_num_endpoints();
    int i, saved;

    gcm_shm.enabled = 0;
    if (gcm_boot_size() < 2) {
        return GCM_OK;
    }
    gcm_shm.nprocs = gcm_boot_size();
    gcm_shm.myproc = gcm_boot_rank();
    gcm_shm.mypid  = (int)getpid();
    gcm_shm.uid    = getuid();
    /* The table serves gcm_slots_shm_peer_dying whatever our setting. */
    gcm_shm.pids = calloc((size_t)gcm_shm.nprocs, sizeof(*gcm_shm.pids));
    if (!gcm_slots_config.shm || (neps < 1)) {
        gcm_shm_publish_off();
        return GCM_OK;
    }
    gcm_shm.jobhash = gcm_hash64(jobid, strlen(jobid));
    atomic_init(&gcm_shm.cma_logged, 0);

    /* A ring per endpoint of each process of the host (the launcher's
     * count, else the job's size; their endpoint counts taken to be
     * ours): pages nobody writes cost nothing. A sender that finds no
     * free ring goes over UCX. */
    gcm_shm.nrings = gcm_thr_count_local() * neps;
    if (gcm_shm.nrings < 1) {
        gcm_shm.nrings = 1;
    }
    if (gcm_shm.nrings > GCM_SLOTS_SHM_MAX_RINGS) {
        gcm_shm.nrings = GCM_SLOTS_SHM_MAX_RINGS;
    }

    why = "malloc";
    info = calloc(1, sizeof(*info));
    if ((info == NULL) || (gcm_shm.pids == NULL)) {
        goto err;
    }
    why = "socket";
    gcm_shm.send_fd = socket(AF_UNIX, SOCK_DGRAM | SOCK_NONBLOCK |
                             SOCK_CLOEXEC, 0);
    if (gcm_shm.send_fd < 0) {
        goto err;
    }
    for (i = 0; i < neps; i++) {
        gcm_shm.eps[i] = gcm_shm_ep_create(i, &why);
        if (gcm_shm.eps[i] == NULL) {
            goto err;
        }
        info->seg[i].fd    = gcm_shm.eps[i]->memfd;
        info->seg[i].size  = gcm_shm.eps[i]->seg_len;
        info->seg[i].magic = gcm_shm.eps[i]->seg->magic;
        memcpy(info->seg[i].sock, gcm_shm.eps[i]->sock_id,
               sizeof(info->seg[i].sock));
    }
    gcm_shm.neps = neps;
    snprintf(info->head.host, sizeof(info->head.host), "%s",
             gcm_boot_hostname());
    info->head.pid   = gcm_shm.mypid;
    info->head.nseg  = (uint32_t)neps;
    info->head.probe = (uint64_t)(uintptr_t)gcm_shm.eps[0]->seg;
    why = "publish";
    if (gcm_boot_put(GCM_SHM_KEY, info,
                     sizeof(info->head) +
                     (size_t)neps * sizeof(info->seg[0])) != GCM_OK) {
        goto err;
    }
    free(info);
    gcm_shm.enabled = 1;
    gcm_debug("shm: %d segments of %d rings of %d cells (%zu bytes each)",
              neps, gcm_shm.nrings, GCM_SLOTS_SHM_NCELLS,
              gcm_shm.eps[0]->seg_len);
    return GCM_OK;

err:
    saved = errno;
    gcm_warn("shared memory off (%s: %s): every message goes over UCX", why,
             strerror(saved));
    free(info);
    gcm_shm_close_all();
    gcm_shm_publish_off();
    return GCM_ERR_TRANSPORT;
}

static void gcm_shm_fail_pending(gcm_shm_ep_t *sep, gcm_shm_tx_t *tx,
                                 gcm_status_t reason)
{
    while (!gcm_list_empty(&tx->pending)) {
        gcm_slots_shm_pend_t *pend =
            gcm_container_of(tx->pending.next, gcm_slots_shm_pend_t, elem);
        gcm_list_del(&pend->elem);
        sep->nqueued--;
        if (pend->req != NULL) {
            gcm_slots_send_part_done(pend->req, reason);
        } else {
            free(pend);
        }
    }
}

void gcm_slots_shm_finalize(void)
{
    double deadline = gcm_time_now() + 2.0;
    int i;

    if (!gcm_shm.enabled) {
        goto out;
    }
    /* What waits for room (answers, notices) goes out if the peers are
     * still there to take it. */
    for (i = 0; i < gcm_shm.neps; i++) {
        gcm_thr_endpoint_t *endpoint = gcm_thr_endpoint_get(i);
        while ((gcm_shm.eps[i]->nqueued > 0) &&
               (gcm_time_now() < deadline)) {
            gcm_thr_progress(endpoint);
        }
    }
    for (i = 0; i < gcm_shm.neps; i++) {
        gcm_thr_endpoint_t *endpoint = gcm_thr_endpoint_get(i);
        gcm_shm_ep_t *sep = gcm_shm.eps[i];

        gcm_thr_lock(endpoint);
        while (!gcm_list_empty(&sep->txs)) {
            gcm_shm_tx_t *tx = gcm_container_of(sep->txs.next, gcm_shm_tx_t,
                                                elem);
            gcm_list_del(&tx->elem);
            gcm_shm_fail_pending(sep, tx, GCM_ERR_CANCELED);
            munmap(tx->map, tx->map_len);
            free(tx);
        }
        gcm_thr_unlock(endpoint);
    }
    gcm_shm_close_all();
out:
    free(gcm_shm.pids);
    gcm_shm.pids   = NULL;
    gcm_shm.nprocs = 0;
}

/* ---- attaching to a peer ------------------------------------------------- */

/* Whether process pid of this host is gone or on its way out: no such
 * process, a zombie, or exiting (PF_EXITING in the flags of
 * /proc/PID/stat, set when it starts to die, long before the launcher can
 * tell anyone). A process killed while a peer attaches to it or sends to
 * it over UCX makes both fail in ways that look like transport errors;
 * this tells them apart. */
int gcm_slots_pid_dying(pid_t pid)
{
    char path[64], buf[512];
    const char *p;
    unsigned long flags = 0;
    char state = '?';
    ssize_t len;
    int fd;

    if (pid <= 0) {
        return 0;
    }
    snprintf(path, sizeof(path), "/proc/%d/stat", (int)pid);
    fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0) {
        return (errno == ENOENT) || (errno == ESRCH);
    }
    len = read(fd, buf, sizeof(buf) - 1);
    close(fd);
    if (len <= 0) {
        return (len < 0) && (errno == ESRCH);
    }
    buf[len] = '\0';
    /* "pid (comm) state ppid pgrp session tty_nr tpgid flags ...": the
     * command may hold spaces and parentheses, so parse after the last
     * ')'. */
    p = strrchr(buf, ')');
    if ((p == NULL) ||
        (sscanf(p + 1, " %c %*d %*d %*d %*d %*d %lu", &state, &flags) != 2)) {
        return 0;
    }
    return (state == 'Z') || (state == 'X') || ((flags & 0x4) != 0);
}

int gcm_slots_shm_peer_dying(int proc)
{
    return gcm_slots_pid_dying((pid_t)gcm_shm_pid_of(proc));
}

/* Tells the owner of the segment (its claim socket, named by id) that
 * endpoint ep of ours claimed ring i. 0, or the errno of the step that
 * failed. */
static int gcm_shm_send_claim(const uint8_t id[GCM_SLOTS_SHM_SOCK_ID], int ep,
                              uint32_t i)
{
    gcm_slots_shm_note_t note;
    struct sockaddr_un addr;
    socklen_t addr_len = gcm_shm_sock_addr(id, 'c', &addr);
    int fd, err = 0;

    memset(&note, 0, sizeof(note));
    note.magic = GCM_SLOTS_SHM_NOTE_MAGIC;
    note.kind  = GCM_SLOTS_SHM_CLAIM;
    note.ep    = (uint16_t)ep;
    note.proc  = gcm_shm.myproc;
    note.ring  = i;
    fd = socket(AF_UNIX, SOCK_SEQPACKET | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
    if (fd < 0) {
        return errno;
    }
    /* A unix connect completes at once, into the listener's backlog,
     * without the owner's help; the note waits in the connection. */
    if ((connect(fd, (struct sockaddr *)&addr, addr_len) != 0) ||
        (send(fd, &note, sizeof(note), MSG_NOSIGNAL) !=
         (ssize_t)sizeof(note))) {
        err = (errno != 0) ? errno : EIO;
    }
    close(fd);
    return err;
}

/* Maps the segment of endpoint rep of proc and claims a ring in it for
 * endpoint (the sender). NULL: UCX serves this connection, or *dead_p is
 * set: the peer is gone or dying. */
static gcm_shm_tx_t *gcm_shm_attach(gcm_thr_endpoint_t *endpoint, int proc,
                                    int rep, int *dead_p)
{
    gcm_shm_info_t *info = malloc(sizeof(*info));
    const gcm_shm_info_seg_t *is;
    char path[64];
    struct stat st;
    struct iovec local, remote;
    uint64_t probe = 0;
    _Atomic uint32_t *owners;
    gcm_shm_tx_t *tx = NULL;
    gcm_slots_shm_seg_t *seg;
    void *map = MAP_FAILED;
    uint32_t i, owner, nrings;
    int fd, err, nseg = 0;

    if ((info == NULL) || !gcm_shm_info_of(proc, info, &nseg) ||
        (rep >= nseg)) {
        goto out;
    }
    is = &info->seg[rep];
    snprintf(path, sizeof(path), "/proc/%d/fd/%d", (int)info->head.pid,
             (int)is->fd);
    fd = open(path, O_RDWR | O_CLOEXEC);
    if (fd < 0) {
        /* A peer of this host that is gone (or exited and not yet
         * reaped: its descriptors are closed, while a live process keeps
         * its segment open until the end): UCX would not notice it, and a
         * rendezvous to it would wait forever. */
        if ((errno == ENOENT) ||
            ((kill((pid_t)info->head.pid, 0) != 0) && (errno == ESRCH))) {
            *dead_p = 1;
            goto out;
        }
        gcm_warn("shm: cannot open the segment of proc %d endpoint %d "
                 "(%s): UCX to it", proc, rep, strerror(errno));
        goto out;
    }
    if ((fstat(fd, &st) != 0) || ((uint64_t)st.st_size != is->size) ||
        (is->size < GCM_SLOTS_SHM_SEG_HDR) || (is->size > SIZE_MAX)) {
        close(fd);
        goto out;
    }
    map = mmap(NULL, (size_t)is->size, PROT_READ | PROT_WRITE, MAP_SHARED,
               fd, 0);
    close(fd);
    if (map == MAP_FAILED) {
        goto out;
    }
    seg = map;
    if (gcm_slots_shm_seg_check(seg, GCM_SLOTS_SHM_SEG_HDR, is->size, is->magic,
                                &nrings) != GCM_OK) {
        gcm_warn("shm: the segment of proc %d endpoint %d has a header "
                 "that does not fit it: UCX to it", proc, rep);
        goto out;
    }
    /* Large messages are read from the sender's memory: make sure the
     * kernel lets us (same user, no ptrace restriction) before choosing
     * this path, and otherwise keep UCX for this peer. */
    local.iov_base  = &probe;
    local.iov_len   = sizeof(probe);
    remote.iov_base = (void *)(uintptr_t)info->head.probe;
    remote.iov_len  = sizeof(probe);
    if ((process_vm_readv((pid_t)info->head.pid, &local, 1, &remote, 1, 0) !=
         (ssize_t)sizeof(probe)) || (probe != info->seg[0].magic)) {
        if (!atomic_exchange(&gcm_shm.cma_logged, 1)) {
            gcm_warn("shm: process_vm_readv unavailable (%s): same-host "
                     "messages go over UCX (GENCOMM_SHM=0 says so quietly)",
                     strerror(errno));
        }
        goto out;
    }
    owners = gcm_shm_owners(seg);
    owner  = gcm_shm_owner(gcm_shm.myproc, endpoint->index);
    for (i = 0; i < nrings; i++) {
        uint32_t expected = 0;
        if (atomic_compare_exchange_strong(&owners[i], &expected, owner)) {
            break;
        }
    }
    if (i == nrings) {
        gcm_debug("shm: no free ring at proc %d endpoint %d: UCX to it",
                  proc, rep);
        goto out;
    }
    /* The owner reads the ring once it has our note, which the kernel
     * signs with our pid. */
    err = gcm_shm_send_claim(is->sock, endpoint->index, i);
    if (err != 0) {
        uint32_t mine = owner;
        (void)atomic_compare_exchange_strong(&owners[i], &mine, 0);
        if ((err != ECONNREFUSED) && (err != ENOENT)) {
            gcm_warn("shm: cannot claim a ring of proc %d endpoint %d "
                     "(%s): UCX to it", proc, rep, strerror(err));
        }
        goto out;
    }
    tx = calloc(1, sizeof(*tx));
    if (tx == NULL) {
        /* The claimed ring stays unused; UCX serves this peer. */
        goto out;
    }
    gcm_list_init(&tx->pending);
    tx->proc     = proc;
    tx->rep      = rep;
    tx->ep       = endpoint->index;
    tx->pid      = (int)info->head.pid;
    tx->map      = map;
    tx->map_len  = (size_t)is->size;
    tx->seg      = seg;
    tx->ring     = gcm_slots_shm_ring_at(seg, i);
    tx->head     = atomic_load_explicit(&tx->ring->tail,
                                        memory_order_acquire);
    tx->tail     = tx->head;
    tx->wake_len = gcm_shm_sock_addr(is->sock, 'w', &tx->wake);
    gcm_list_push_back(&gcm_shm_ep(endpoint)->txs, &tx->elem);
    atomic_fetch_add(&seg->attach_gen, 1);
    gcm_debug("shm: endpoint %d attached to proc %d endpoint %d (ring %u)",
              endpoint->index, proc, rep, i);
    map = MAP_FAILED;
out:
    if (map != MAP_FAILED) {
        munmap(map, (size_t)info->seg[rep].size);
    }
    /* Whatever failed above (the descriptor, the size, the probe read of
     * its memory, its claim socket), a peer that is dying failed it: UCX
     * would fail too, or wait forever for a rendezvous. */
    if ((tx == NULL) && (info != NULL) && (nseg > rep) &&
        gcm_slots_pid_dying((pid_t)info->head.pid)) {
        *dead_p = 1;
    }
    free(info);
    return tx;
}

int gcm_slots_shm_usable(gcm_thr_endpoint_t *endpoint, gcm_thr_conn_t *conn)
{
    gcm_shm_tx_t *tx;
    int dead = 0;

    if (gcm_likely(conn->shm != 0)) {
        return conn->shm > 0;
    }
    conn->shm = -1;
    if (!gcm_shm.enabled || (conn->proc == gcm_shm.myproc) ||
        (conn->failed != GCM_OK) || (conn->ucp_ep != NULL)) {
        return 0;
    }
    tx = gcm_shm_attach(endpoint, conn->proc, conn->rep, &dead);
    if (tx == NULL) {
        if (dead) {
            /* What waits for it on this endpoint fails now, and so does
             * the connect that the caller tries next. */
            gcm_thr_peer_failed(endpoint, conn->proc, GCM_ERR_PEER_FAILED);
        }
        return 0;
    }
    conn->shm    = 1;
    conn->shm_tx = tx;
    return 1;
}

/* ---- producing ----------------------------------------------------------- */

static int gcm_shm_room(gcm_shm_tx_t *tx)
{
    if (tx->head - tx->tail < GCM_SLOTS_SHM_NCELLS) {
        return 1;
    }
    tx->tail = atomic_load_explicit(&tx->ring->tail, memory_order_acquire);
    return tx->head - tx->tail < GCM_SLOTS_SHM_NCELLS;
}

static void gcm_shm_publish(gcm_shm_tx_t *tx, gcm_slots_shm_cell_t *cell)
{
    tx->head++;
    atomic_store_explicit(&cell->seq, tx->head, memory_order_release);
    /* Against the owner's "sleeping, then re-check": see the top. */
    atomic_thread_fence(memory_order_seq_cst);
    if (atomic_load_explicit(&tx->seg->sleeping, memory_order_relaxed) > 0) {
        gcm_shm_wake(&tx->wake, tx->wake_len, tx->ep);
    }
}

static void gcm_shm_write_msg(gcm_shm_tx_t *tx, struct gcm_request *req,
                              const void *buf, size_t len)
{
    gcm_slots_shm_cell_t *cell = gcm_slots_shm_cell_at(tx->ring, tx->head);

    cell->env = req->env;
    if (len <= GCM_SLOTS_SHM_CELL_DATA) {
        cell->kind = GCM_SLOTS_SHM_EAGER;
        cell->len  = (uint32_t)len;
        if (len > 0) {
            memcpy(gcm_shm_cell_data(cell), buf, len);
        }
    } else {
        cell->kind = GCM_SLOTS_SHM_CMA;
        cell->len  = 0;
        cell->pid  = gcm_shm.mypid;
        cell->addr = (uint64_t)(uintptr_t)buf;
    }
    gcm_shm_publish(tx, cell);
}

static void gcm_shm_write_ctrl(gcm_shm_tx_t *tx, const gcm_slots_ctrl_t *ctrl)
{
    gcm_slots_shm_cell_t *cell = gcm_slots_shm_cell_at(tx->ring, tx->head);

    cell->kind = GCM_SLOTS_SHM_CTRL;
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
static unsigned gcm_shm_flush(gcm_shm_ep_t *sep, gcm_shm_tx_t *tx)
{
    unsigned n = 0;

    while (!gcm_list_empty(&tx->pending) && gcm_shm_room(tx)) {
        gcm_slots_shm_pend_t *pend =
            gcm_container_of(tx->pending.next, gcm_slots_shm_pend_t, elem);
        gcm_list_del(&pend->elem);
        sep->nqueued--;
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

    if (gcm_list_empty(&tx->pending) && gcm_shm_room(tx)) {
        gcm_shm_write_msg(tx, req, buf, len);
        /* Called from gcm_slots_isend_x only, before it posts req. */
        gcm_slots_send_part_done_unposted(req);
        return;
    }
    /* Full: the request waits in order; progress writes it. */
    req->shmq.req = req;
    req->shmq.buf = buf;
    req->shmq.len = len;
    gcm_list_push_back(&tx->pending, &req->shmq.elem);
    gcm_shm_ep(endpoint)->nqueued++;
}

void gcm_slots_shm_send_ctrl(gcm_thr_endpoint_t *endpoint,
                             gcm_thr_conn_t *conn,
                             const gcm_slots_ctrl_t *ctrl)
{
    gcm_shm_tx_t *tx = conn->shm_tx;
    gcm_slots_shm_pend_t *pend;

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
    gcm_shm_ep(endpoint)->nqueued++;
}

void gcm_slots_shm_peer_failed(gcm_thr_endpoint_t *endpoint, int proc,
                               gcm_status_t reason)
{
    gcm_shm_ep_t *sep;
    gcm_list_t *pos, *tmp;

    if (!gcm_shm.enabled) {
        return;
    }
    sep = gcm_shm_ep(endpoint);
    gcm_list_for_each_safe(pos, tmp, &sep->txs) {
        gcm_shm_tx_t *tx = gcm_container_of(pos, gcm_shm_tx_t, elem);
        if (tx->proc == proc) {
            tx->dead = 1;
            /* A full ring to a dead process is never drained. */
            gcm_shm_fail_pending(sep, tx, reason);
        }
    }
}

gcm_status_t gcm_slots_shm_read(gcm_thr_endpoint_t *endpoint,
                                const gcm_payload_t *payload, void *buf,
                                size_t n)
{
    gcm_thr_conn_t *conn = gcm_thr_conn_get(endpoint, (int)payload->proc,
                                            payload->ep);
    gcm_shm_tx_t *tx = ((conn != NULL) && (conn->shm > 0)) ? conn->shm_tx :
                                                             NULL;
    size_t done = 0;

    /* The sender waits for this read's notice, which goes back through
     * the ring we send into at its endpoint: tell it that the notice
     * comes soon (at 1 GB/s at worst, plus 50 us), so that it keeps
     * spinning instead of sleeping and costing us a wakeup per message
     * (streaming 1 MiB messages: 11.3 instead of 13 GB/s). Only a hint: a
     * sleeping sender is woken as ever. */
    if ((tx != NULL) && !tx->dead) {
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

/* Tells whoever claimed ring i, if we do not read it already, that we
 * never will: a sender of the job whose claim we could not check fails
 * its connection with an error instead of waiting forever. */
static void gcm_shm_mark_refused(gcm_shm_ep_t *sep, uint32_t i)
{
    if (sep->rx[i].ring == NULL) {
        atomic_store(&gcm_slots_shm_ring_at(sep->seg, i)->refused, 1);
    }
}

/* A claim note came from the process the kernel names in cred: the ring
 * becomes readable if that process is the job's proc it says it is, the
 * ring is one of ours and owned in its name, and that endpoint of it has
 * no other ring here. Lock held. */
static void gcm_shm_claim(gcm_shm_ep_t *sep, const gcm_slots_shm_note_t *note,
                          const struct ucred *cred)
{
    _Atomic uint32_t *owners = gcm_shm_owners(sep->seg);
    gcm_shm_info_t *info;
    gcm_shm_rx_t *rx;
    int i, nseg = 0;

    if (note->kind != GCM_SLOTS_SHM_CLAIM) {
        gcm_shm_refuse_claim(sep, "a note of kind %u on the claim socket from "
                             "pid %d", note->kind, (int)cred->pid);
        return;
    }
    if (note->ring >= (uint32_t)gcm_shm.nrings) {
        gcm_shm_refuse_claim(sep, "a claim of ring %u (of %d) from pid %d",
                             note->ring, gcm_shm.nrings, (int)cred->pid);
        return;
    }
    rx = &sep->rx[note->ring];
    if (!gcm_shm_is_proc(note->proc, cred)) {
        gcm_shm_refuse_claim(sep, "a claim of ring %u in the name of proc %d "
                             "from pid %d (uid %d), which is not that process "
                             "of this job", note->ring, note->proc,
                             (int)cred->pid, (int)cred->uid);
        gcm_shm_mark_refused(sep, note->ring);
        return;
    }
    if ((rx->ring != NULL) ||
        (atomic_load(&owners[note->ring]) !=
         gcm_shm_owner(note->proc, note->ep))) {
        gcm_shm_refuse_claim(sep, "a claim of ring %u by proc %d, whose owner "
                             "word names another", note->ring, note->proc);
        return;
    }
    for (i = 0; i < sep->nactive; i++) {
        gcm_shm_rx_t *other = &sep->rx[sep->active[i]];
        if ((other->proc == note->proc) && (other->ep == note->ep)) {
            gcm_shm_refuse_claim(sep, "a second ring (%u) claimed by proc "
                                 "%d endpoint %d", note->ring, note->proc,
                                 note->ep);
            gcm_shm_mark_refused(sep, note->ring);
            return;
        }
    }
    info = malloc(sizeof(*info));
    if ((info == NULL) || !gcm_shm_info_of(note->proc, info, &nseg) ||
        (note->ep >= nseg)) {
        free(info);
        gcm_shm_refuse_claim(sep, "a claim by proc %d endpoint %d, which "
                             "it has not published", note->proc, note->ep);
        gcm_shm_mark_refused(sep, note->ring);
        return;
    }
    rx->proc     = note->proc;
    rx->ep       = note->ep;
    rx->pid      = (int)cred->pid;
    rx->wake_len = gcm_shm_sock_addr(info->seg[note->ep].sock, 'w',
                                     &rx->wake);
    free(info);
    rx->ring = gcm_slots_shm_ring_at(sep->seg, note->ring);
    rx->tail = atomic_load_explicit(&rx->ring->tail, memory_order_relaxed);
    sep->active[sep->nactive++] = (int)note->ring;
    gcm_debug("shm endpoint %d: ring %u is proc %d endpoint %d's (pid %d)",
              sep->index, note->ring, rx->proc, rx->ep, rx->pid);
}

/* Reads the note of a claim connection if it is there: 1 when the
 * connection is done with (note read, or closed without one), 0 when the
 * note is still to come. Lock held. */
static int gcm_shm_claim_read(gcm_shm_ep_t *sep, int fd,
                              const struct ucred *cred)
{
    unsigned char buf[64];
    gcm_slots_shm_note_t note;
    ssize_t n;

    do {
        n = recv(fd, buf, sizeof(buf), MSG_DONTWAIT);
    } while ((n < 0) && (errno == EINTR));
    if ((n < 0) && ((errno == EAGAIN) || (errno == EWOULDBLOCK))) {
        return 0;
    }
    if (n <= 0) {
        return 1;
    }
    if (gcm_slots_shm_note_decode(buf, (size_t)n, &note) != GCM_OK) {
        gcm_shm_refuse_claim(sep, "a malformed claim of %zd bytes from pid %d",
                             n, (int)cred->pid);
        return 1;
    }
    gcm_shm_claim(sep, &note, cred);
    return 1;
}

/* Takes the claims that wait on the claim socket. Lock held. */
static void gcm_shm_accept_claims(gcm_shm_ep_t *sep)
{
    int i = 0;

    while (i < sep->nearly) {
        if (gcm_shm_claim_read(sep, sep->early[i].fd, &sep->early[i].cred)) {
            close(sep->early[i].fd);
            sep->early[i] = sep->early[--sep->nearly];
        } else {
            i++;
        }
    }
    for (;;) {
        struct ucred cred;
        socklen_t len = sizeof(cred);
        int fd = accept4(sep->claim_fd, NULL, NULL,
                         SOCK_NONBLOCK | SOCK_CLOEXEC);

        if (fd < 0) {
            if (errno == EINTR) {
                continue;
            }
            if ((errno != EAGAIN) && (errno != EWOULDBLOCK)) {
                gcm_shm_refuse_claim(sep, "a claim connection (accept: %s)",
                                     strerror(errno));
            }
            return;
        }
        if ((getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &cred, &len) != 0) ||
            (cred.uid != gcm_shm.uid)) {
            gcm_shm_refuse_claim(sep, "a claim connection from pid %d uid %d",
                                 (int)cred.pid, (int)cred.uid);
            close(fd);
            continue;
        }
        if (gcm_shm_claim_read(sep, fd, &cred)) {
            close(fd);
        } else if (sep->nearly < GCM_SHM_EARLY_MAX) {
            sep->early[sep->nearly].fd   = fd;
            sep->early[sep->nearly].cred = cred;
            sep->nearly++;
        } else {
            gcm_shm_refuse_claim(sep, "a claim connection from pid %d that "
                                 "says nothing", (int)cred.pid);
            close(fd);
        }
    }
}

/* A sender may have claimed a ring: look at the claim socket. Lock
 * held. */
static void gcm_shm_refresh(gcm_shm_ep_t *sep)
{
    uint32_t gen = atomic_load_explicit(&sep->seg->attach_gen,
                                        memory_order_acquire);

    if (gcm_likely(gen == sep->attach_gen) && (sep->nearly == 0)) {
        return;
    }
    sep->attach_gen = gen;
    gcm_shm_accept_claims(sep);
}

/* Reads what came to the wakeup socket (a wakeup needs nothing more than
 * having woken us) and drops, with a warning, what came from outside the
 * job; returns how many notes came from the job. Any thread, lock not
 * needed. */
static unsigned gcm_shm_wake_drain(gcm_shm_ep_t *sep)
{
    unsigned ours = 0;

    for (;;) {
        union {
            char           buf[CMSG_SPACE(sizeof(struct ucred))];
            struct cmsghdr align;
        } ctl;
        unsigned char data[64];
        struct iovec iov = { .iov_base = data, .iov_len = sizeof(data) };
        struct msghdr mh;
        struct cmsghdr *cm;
        struct ucred cred = { .pid = 0, .uid = (uid_t)-1, .gid = 0 };
        gcm_slots_shm_note_t note;
        ssize_t n;

        memset(&mh, 0, sizeof(mh));
        mh.msg_iov        = &iov;
        mh.msg_iovlen     = 1;
        mh.msg_control    = ctl.buf;
        mh.msg_controllen = sizeof(ctl.buf);
        n = recvmsg(sep->wake_fd, &mh, MSG_DONTWAIT);
        if (n < 0) {
            if (errno == EINTR) {
                continue;
            }
            return ours;
        }
        for (cm = CMSG_FIRSTHDR(&mh); cm != NULL; cm = CMSG_NXTHDR(&mh, cm)) {
            if ((cm->cmsg_level == SOL_SOCKET) &&
                (cm->cmsg_type == SCM_CREDENTIALS) &&
                (cm->cmsg_len == CMSG_LEN(sizeof(cred)))) {
                memcpy(&cred, CMSG_DATA(cm), sizeof(cred));
            }
        }
        if ((gcm_slots_shm_note_decode(data, (size_t)n, &note) != GCM_OK) ||
            (note.kind != GCM_SLOTS_SHM_WAKE) ||
            !gcm_shm_is_proc(note.proc, &cred)) {
            gcm_shm_refuse_wake(sep, "a datagram of %zd bytes on the "
                                "wakeup socket from pid %d uid %d, which is "
                                "no process of this job", n, (int)cred.pid,
                                (int)cred.uid);
        } else {
            ours++;
        }
    }
}

/* Hands one cell of rx's ring to the message path; who sent it is the
 * ring's verified sender, whatever its envelope says. */
static void gcm_shm_handle(gcm_thr_endpoint_t *endpoint, gcm_shm_rx_t *rx,
                           gcm_slots_shm_cell_t *cell)
{
    gcm_slots_shm_cell_msg_t msg;
    gcm_payload_t payload;
    gcm_thr_conn_t *conn;

    if (gcm_slots_shm_cell_decode(cell, GCM_SLOTS_SHM_CELL_SIZE, &msg) !=
        GCM_OK) {
        gcm_warn("shm: cell of unknown kind %u from proc %d ignored",
                 cell->kind, rx->proc);
        return;
    }
    /* Its sender is the ring's owner, whatever the cell says. */
    conn = gcm_thr_conn_get(endpoint, rx->proc, rx->ep);
    if (conn == NULL) {
        return;
    }
    if (msg.kind == GCM_SLOTS_SHM_CTRL) {
        gcm_slots_ctrl_in(endpoint, conn, &msg.ctrl);
        return;
    }
    msg.env.src_proc = (uint32_t)rx->proc;
    msg.env.src_ep   = (uint16_t)rx->ep;
    memset(&payload, 0, sizeof(payload));
    if (msg.kind == GCM_SLOTS_SHM_EAGER) {
        payload.kind = GCM_PAYLOAD_TRANSIENT;
        payload.data = (char *)cell + msg.data_off;
        payload.size = msg.len;
    } else {
        payload.kind   = GCM_PAYLOAD_SHM_RNDV;
        payload.data   = (void *)(uintptr_t)msg.addr;
        payload.size   = (size_t)msg.env.size;
        payload.pid    = rx->pid;
        payload.proc   = (uint32_t)rx->proc;
        payload.ep     = (uint16_t)rx->ep;
        payload.cookie = msg.env.sreq;
    }
    (void)gcm_slots_msg_in(endpoint, conn, &msg.env, &payload);
}

static unsigned gcm_shm_drain(gcm_thr_endpoint_t *endpoint, gcm_shm_rx_t *rx)
{
    unsigned n = 0;

    while (n < GCM_SLOTS_SHM_NCELLS) {
        gcm_slots_shm_cell_t *cell = gcm_slots_shm_cell_at(rx->ring, rx->tail);
        if (atomic_load_explicit(&cell->seq, memory_order_acquire) !=
            rx->tail + 1) {
            break;
        }
        gcm_shm_handle(endpoint, rx, cell);
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
        atomic_store_explicit(&rx->ring->tx_waiting, 0,
                              memory_order_relaxed);
        gcm_shm_wake(&rx->wake, rx->wake_len, endpoint->index);
    }
    return n;
}

/* Without the launcher's report (not every launcher sends one) a dead
 * peer on this host is noticed here, at most a second or so late. */
static void gcm_shm_check_peers(gcm_thr_endpoint_t *endpoint,
                                gcm_shm_ep_t *sep)
{
    gcm_list_t *pos, *tmp;
    double now = gcm_time_now();
    int i;

    if (now - sep->last_check < 1.0) {
        return;
    }
    sep->last_check = now;
    gcm_list_for_each_safe(pos, tmp, &sep->txs) {
        gcm_shm_tx_t *tx = gcm_container_of(pos, gcm_shm_tx_t, elem);
        if (tx->dead) {
            continue;
        }
        if ((kill((pid_t)tx->pid, 0) != 0) && (errno == ESRCH)) {
            gcm_debug("shm: proc %d (pid %d) is gone", tx->proc, tx->pid);
            tx->dead = 1;
            gcm_thr_peer_failed(endpoint, tx->proc, GCM_ERR_PEER_FAILED);
        } else if (atomic_load(&tx->ring->refused)) {
            /* What we wrote will never be read. */
            gcm_error("shm: proc %d endpoint %d refused our ring: the "
                      "connection to it fails", tx->proc, tx->rep);
            tx->dead = 1;
            gcm_thr_peer_failed(endpoint, tx->proc, GCM_ERR_TRANSPORT);
        }
    }
    /* Processes that send to us: receives bound to them must fail too. */
    for (i = 0; i < sep->nactive; i++) {
        gcm_shm_rx_t *rx = &sep->rx[sep->active[i]];
        gcm_thr_conn_t *conn;
        if ((rx->pid <= 0) || (kill((pid_t)rx->pid, 0) == 0) ||
            (errno != ESRCH)) {
            continue;
        }
        conn = gcm_thr_conn_get(endpoint, rx->proc, rx->ep);
        rx->pid = 0;
        if ((conn != NULL) && (conn->failed == GCM_OK)) {
            gcm_debug("shm: proc %d is gone", rx->proc);
            gcm_thr_peer_failed(endpoint, rx->proc, GCM_ERR_PEER_FAILED);
        }
    }
}

unsigned gcm_slots_shm_progress(gcm_thr_endpoint_t *endpoint)
{
    gcm_shm_ep_t *sep;
    unsigned n = 0;
    int i;

    if (!gcm_shm.enabled) {
        return 0;
    }
    sep = gcm_shm_ep(endpoint);
    gcm_shm_refresh(sep);
    for (i = 0; i < sep->nactive; i++) {
        n += gcm_shm_drain(endpoint, &sep->rx[sep->active[i]]);
    }
    if (sep->nqueued > 0) {
        gcm_list_t *pos, *tmp;
        gcm_list_for_each_safe(pos, tmp, &sep->txs) {
            n += gcm_shm_flush(sep, gcm_container_of(pos, gcm_shm_tx_t,
                                                     elem));
        }
    }
    if (gcm_unlikely((++sep->rounds >= 4096) ||
                     atomic_load_explicit(&sep->check_now,
                                          memory_order_relaxed))) {
        sep->rounds = 0;
        atomic_store_explicit(&sep->check_now, 0, memory_order_relaxed);
        gcm_shm_check_peers(endpoint, sep);
    }
    return n;
}

/* Is anything for endpoint in its rings, or can a queued message go out?
 * Lock held. */
static int gcm_shm_busy(gcm_shm_ep_t *sep)
{
    gcm_list_t *pos, *tmp;
    int i;

    /* A claim that came meanwhile makes its ring one to look at. */
    gcm_shm_refresh(sep);
    for (i = 0; i < sep->nactive; i++) {
        gcm_shm_rx_t *rx = &sep->rx[sep->active[i]];
        if (atomic_load(&gcm_slots_shm_cell_at(rx->ring, rx->tail)->seq) ==
            rx->tail + 1) {
            return 1;
        }
    }
    if (sep->nqueued == 0) {
        return 0;
    }
    gcm_list_for_each_safe(pos, tmp, &sep->txs) {
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
static int gcm_shm_being_read(gcm_shm_ep_t *sep)
{
    uint64_t now = 0;
    int i;

    for (i = 0; i < sep->nactive; i++) {
        gcm_shm_rx_t *rx = &sep->rx[sep->active[i]];
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
    gcm_shm_ep_t *sep;
    int busy;

    if (!gcm_shm.enabled) {
        return -1;
    }
    sep = gcm_shm_ep(endpoint);
    gcm_thr_lock(endpoint);
    if (gcm_shm_being_read(sep)) {
        /* Spin on (as Open MPI's vader always does): sleeping would cost
         * the reader a wakeup for the notice. */
        gcm_thr_unlock(endpoint);
        return -2;
    }
    atomic_fetch_add(&sep->seg->sleeping, 1);
    busy = gcm_shm_busy(sep);
    gcm_thr_unlock(endpoint);
    if (busy) {
        atomic_fetch_sub(&sep->seg->sleeping, 1);
        return -2;
    }
    return sep->wake_fd;
}

int gcm_slots_shm_sleep_woken(gcm_thr_endpoint_t *endpoint)
{
    return gcm_shm_wake_drain(gcm_shm_ep(endpoint)) > 0;
}

void gcm_slots_shm_sleep_done(gcm_thr_endpoint_t *endpoint)
{
    gcm_shm_ep_t *sep = gcm_shm_ep(endpoint);

    atomic_fetch_sub(&sep->seg->sleeping, 1);
    gcm_shm_wake_drain(sep);
    atomic_store_explicit(&sep->check_now, 1, memory_order_relaxed);
}

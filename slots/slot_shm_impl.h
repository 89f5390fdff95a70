/*
 * slots/slot_shm_impl.h: what the files of the same-host path share and
 * nothing else sees: the published table, the producer's and consumer's
 * sides of a ring, the per-endpoint state, the process-wide state, and
 * the helpers the files call across (slot_shm.c says how it all works).
 */
#ifndef GCM_SLOT_SHM_IMPL_H
#define GCM_SLOT_SHM_IMPL_H

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
#define GCM_SHM_MAGIC      0x67636d73686d3037ULL /* "gcmshm07" */
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
    uint64_t            head;      /* cells written */
    uint64_t            tail;      /* cells taken, as last seen */
    uint64_t            lhead;     /* lane lines written */
    uint64_t            ltail;     /* lane lines taken, as last seen */
    int                 reading;   /* ring->read_until set by us */
    struct sockaddr_un  wake;
    socklen_t           wake_len;
} gcm_shm_tx_t;

/* A ring of an endpoint's segment whose claim was verified: who sends
 * through it is what the kernel said, not what the segment says. */
typedef struct gcm_shm_rx {
    gcm_slots_shm_ring_t *ring;    /* NULL: not (or not yet) ours to read */
    uint64_t            tail;      /* cells taken */
    uint64_t            ltail;     /* lane lines taken */
    gcm_slots_shm_line_t *line;    /* lane line ltail */
    _Atomic uint64_t   *cseq;      /* the seq word of cell tail */
    int                 proc;
    int                 ep;        /* the sending endpoint */
    /* The connection its messages come in on, once looked up (they live
     * until the endpoints close, after the same-host path). */
    gcm_thr_conn_t     *conn;
    int                 pid;       /* 0 once found gone */
    struct sockaddr_un  wake;      /* the sending endpoint's wakeups */
    socklen_t           wake_len;
} gcm_shm_rx_t;

/* What an empty poll reads of an active ring: the seq word of its next
 * lane line and the value that word has once the line is full (ltail +
 * 1, its low 32 bits), and the same of its next cell (tail + 1).
 * Kept beside each other for every active ring, so that a poll that
 * finds nothing reads two words per ring and nothing else. */
typedef struct gcm_shm_watch {
    _Atomic uint32_t *seq;
    uint32_t          want;
    _Atomic uint64_t *cseq;
    uint64_t          cwant;
} gcm_shm_watch_t;

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
    gcm_shm_watch_t    *watch;     /* by index in active */
    int                 nactive;
    gcm_list_t          txs;
    unsigned            nqueued;   /* messages waiting for room */
    unsigned            rounds;
    atomic_int          check_now;
    double              last_check;
    /* Notes refused, for the warnings: claims, wakeup datagrams. */
    atomic_uint         refused_claims;
    atomic_uint         refused_wakes;
    /* Cooperative copies of large messages to us (slot_shm_coop.c):
     * how many, their chunks, and the chunks their senders wrote. */
    uint64_t            coop_copies;
    uint64_t            coop_chunks;
    uint64_t            coop_helped;
    /* Large reads by us alone because their sender had one of ours to
     * read (an exchange: it has no hand free), and folded reads
     * (slots.h, gcm_slots_fold_t) with their pieces. */
    uint64_t            coop_skipped;
    /* Large reads by us alone because the host has more of the job's
     * processes than cores (gcm_thr_is_oversubscribed). */
    uint64_t            coop_crowded;
    uint64_t            fold_reads;
    uint64_t            fold_pieces;
    uint64_t            fold_shared;   /* folded reads offered a share */
} gcm_shm_ep_t;

typedef struct gcm_slots_shm_state {
    int                 enabled;
    int                 myproc;
    int                 mypid;
    uid_t               uid;
    uint64_t            jobhash;
    int                 nrings;    /* per segment of ours */
    int                 send_fd;   /* for wakeups; any thread sends */
    /* Our threads are in membarrier's global expedited set: they publish
     * without a fence (gcm_shm_publish_fence). */
    int                 nofence;
    /* A waiter can issue that barrier before its long sleep. */
    int                 barrier;
    atomic_int          cma_logged;
    int                 neps;
    gcm_shm_ep_t       *eps[GCM_MAX_ENDPOINTS];
    /* The job's table: the pid each process published with its
     * segments, 0 until looked up, -1 when it has none on this host. */
    int                 nprocs;
    atomic_int         *pids;
} gcm_slots_shm_state_t;

extern gcm_slots_shm_state_t gcm_slots_shm GCM_INTERNAL;

/* Linux's membarrier, the commands this layer uses (slot_shm_init.c):
 * 0 or a set of commands (query) on success, -1 with errno otherwise. */
enum {
    GCM_SHM_BARRIER_QUERY,
    GCM_SHM_BARRIER_REGISTER,  /* our threads join the global set */
    GCM_SHM_BARRIER_GLOBAL     /* a barrier on every CPU running one */
};
int gcm_slots_shm_membarrier(int cmd) GCM_INTERNAL;

static inline gcm_shm_ep_t *gcm_shm_ep(gcm_thr_endpoint_t *endpoint)
{
    return gcm_slots_shm.eps[endpoint->index];
}

static inline _Atomic uint32_t *gcm_shm_owners(gcm_slots_shm_seg_t *seg)
{
    return (_Atomic uint32_t *)((char *)seg + GCM_SLOTS_SHM_OWNERS_OFF);
}

static inline uint32_t gcm_shm_owner(int proc, int ep)
{
    return ((uint32_t)proc + 1) |
           ((uint32_t)ep << GCM_SLOTS_SHM_OWNER_PROC_BITS);
}

/*
 * The producer's half of the wakeup pairing (slot_shm.c, "Waking"): what
 * comes between a store the consumer polls for and the look at whether
 * it sleeps. Where our threads are in membarrier's set (nofence), the
 * full fence is the sleeper's, issued before its long sleep, and here
 * only the compiler must keep the two in order.
 */
static inline void gcm_shm_publish_fence(void)
{
    if (gcm_likely(gcm_slots_shm.nofence)) {
        atomic_signal_fence(memory_order_seq_cst);
    } else {
        atomic_thread_fence(memory_order_seq_cst);
    }
}

static inline uint64_t gcm_shm_now_ns(void)
{
    return (uint64_t)(gcm_time_now() * 1e9);
}

static inline void *gcm_shm_cell_data(gcm_slots_shm_cell_t *cell)
{
    return (char *)cell + GCM_SLOTS_SHM_CELL_HDR;
}

static inline uint64_t gcm_shm_magic(int proc, int ep)
{
    return GCM_SHM_MAGIC ^ gcm_slots_shm.jobhash ^
           ((uint64_t)(unsigned)proc << 20) ^ ((uint64_t)(unsigned)ep << 56);
}

/* slot_shm.c: sockets and the job's table. */
socklen_t gcm_slots_shm_sock_addr(const uint8_t id[GCM_SLOTS_SHM_SOCK_ID],
                                  char kind, struct sockaddr_un *addr)
    GCM_INTERNAL;
void gcm_slots_shm_wake(const struct sockaddr_un *addr, socklen_t len,
                        int ep) GCM_INTERNAL;
int gcm_slots_shm_info_of(int proc, gcm_shm_info_t *info, int *nseg_p)
    GCM_INTERNAL;
int gcm_slots_shm_pid_of(int proc) GCM_INTERNAL;
int gcm_slots_shm_is_proc(int proc, const struct ucred *cred) GCM_INTERNAL;
void gcm_slots_shm_refuse(gcm_shm_ep_t *sep, atomic_uint *count,
                          const char *fmt, ...)
    __attribute__((format(printf, 3, 4))) GCM_INTERNAL;

#define gcm_shm_refuse_claim(_sep, ...) \
    gcm_slots_shm_refuse(_sep, &(_sep)->refused_claims, __VA_ARGS__)
#define gcm_shm_refuse_wake(_sep, ...) \
    gcm_slots_shm_refuse(_sep, &(_sep)->refused_wakes, __VA_ARGS__)

/* slot_shm_init.c */
void gcm_slots_shm_fail_pending(gcm_shm_ep_t *sep, gcm_shm_tx_t *tx,
                                gcm_status_t reason) GCM_INTERNAL;

/* slot_shm_send.c */
/* Is there room for a cell? */
int gcm_slots_shm_room(gcm_shm_tx_t *tx) GCM_INTERNAL;
/* Is there room for the first message that waits for room? */
int gcm_slots_shm_room_pending(gcm_shm_tx_t *tx) GCM_INTERNAL;
/* Makes a written cell the ring's next (there was room): stamps it with
 * the lane lines written before it. */
void gcm_slots_shm_publish(gcm_shm_tx_t *tx, gcm_slots_shm_cell_t *cell)
    GCM_INTERNAL;
unsigned gcm_slots_shm_flush(gcm_shm_ep_t *sep, gcm_shm_tx_t *tx)
    GCM_INTERNAL;

/* slot_shm_coop.c */
/* Copies len bytes at off between local_base here and remote_base in
 * process pid (job process proc): process_vm_writev when write, else
 * process_vm_readv. GCM_ERR_PEER_FAILED when the process is gone,
 * GCM_ERR_TRANSPORT (logged) for another failure. */
gcm_status_t gcm_slots_shm_copy(int write, int pid, uint32_t proc,
                                void *local_base, uint64_t remote_base,
                                size_t off, size_t len) GCM_INTERNAL;
/* Has endpoint a large message to proc that proc has yet to read (a
 * send waiting for its data notice)? Lock held. */
int gcm_slots_shm_owed(gcm_thr_endpoint_t *endpoint, int proc)
    GCM_INTERNAL;
/* Reads n bytes of a large message into buf alone, piece by piece, each
 * told to fold as soon as it is in (slots.h, gcm_slots_fold_t). */
gcm_status_t gcm_slots_shm_read_fold(gcm_shm_ep_t *sep,
                                     const gcm_payload_t *payload,
                                     void *buf, size_t n,
                                     const gcm_slots_fold_t *fold)
    GCM_INTERNAL;
/* Receives n bytes of a large message into buf with its sender's help
 * through tx, the ring we produce into at the sender, telling fold (NULL:
 * none; else one with share set) of every piece: 1 and the outcome in
 * *status_p, or 0 when no offer could be made (read alone). */
int gcm_slots_shm_coop_read(gcm_shm_ep_t *sep, gcm_shm_tx_t *tx,
                            const gcm_payload_t *payload, void *buf,
                            size_t n, const gcm_slots_fold_t *fold,
                            gcm_status_t *status_p) GCM_INTERNAL;
/* A receiver's offer came through rx: take chunks of it while there are
 * any. Lock held. */
void gcm_slots_shm_coop_help(gcm_thr_endpoint_t *endpoint,
                             gcm_thr_conn_t *conn, gcm_shm_rx_t *rx,
                             const gcm_slots_shm_coop_t *coop) GCM_INTERNAL;

#endif /* GCM_SLOT_SHM_IMPL_H */

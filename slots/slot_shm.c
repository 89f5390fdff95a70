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
 * A ring's lane of 64-byte lines orders what it carries. A message of up
 * to GCM_SLOTS_SHM_LINE_DATA bytes that needs no answer is one line
 * (envelope, data and sequence word in one cache line; the next message
 * in the lane's next line, on its next page: gcm_slots_shm_line_at).
 * Anything else takes a cell, stamped with the count of lines written
 * before it, which the consumer takes once it has taken that many
 * lines: a cell holds a message's envelope and, up to
 * GCM_SLOTS_SHM_CELL_DATA bytes, its data. A larger message is a
 * descriptor (the sender's buffer address): the receiver reads the data
 * with process_vm_readv from the ring's verified sender (one copy) when a
 * receive matches, and sends back a GCM_CTRL_DATA notice that completes
 * the send. Control messages travel in cells too.
 *
 * Lanes and cells are indexed by monotonic counters: each line's and
 * cell's seq, which the producer writes last (release) and the consumer
 * polls (acquire), the next line's and the next cell's, and the tails of
 * both, written by the consumer (release) on their own cache line. A
 * producer finding its ring full queues the message (its request) in
 * order and writes it from progress later, so neither side blocks while it
 * holds its endpoint lock and two endpoints sending to each other with
 * full rings still drain each other's rings.
 *
 * Waking: a waiter about to sleep on an endpoint increments its segment's
 * "sleeping" count, re-checks its rings, then polls the endpoint's
 * wakeup socket (an abstract unix datagram socket with a random name
 * published at init) beside UCX's event fd. A producer publishes and
 * sends a note only if the count is not zero. Which of the two fences:
 * where Linux's membarrier has a global expedited barrier, every process
 * registers for it, producers publish with no fence (a compiler barrier
 * only), and a waiter first naps (GCM_THR_NAP_MS) and issues the barrier
 * and looks at its rings again only before a longer sleep: a message
 * published in the few nanoseconds before the waiter's last look can
 * leave it asleep unwoken, until the nap ends. Without the barrier the
 * producer fences between its store and its look at the count and the
 * waiter sleeps at once (sequentially consistent on both sides: one
 * always sees the other). A producer that sleeps waiting for room sets
 * its ring's tx_waiting, and the consumer wakes the producer's endpoint
 * after freeing cells, the same pairing the other way. Notes from
 * processes that are not the job's (SO_PASSCRED) are dropped, with a
 * warning.
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

#include "slots/slot_shm_impl.h"

gcm_slots_shm_state_t gcm_slots_shm = { .send_fd = -1 };

/* The abstract socket name of an endpoint's wakeups (kind 'w') or claims
 * (kind 'c'): random bytes it drew at init, so that nobody can take the
 * name before it, and no file to leak. */
socklen_t gcm_slots_shm_sock_addr(const uint8_t id[GCM_SLOTS_SHM_SOCK_ID],
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

void gcm_slots_shm_wake(const struct sockaddr_un *addr, socklen_t len,
                        int ep)
{
    gcm_slots_shm_note_t note;

    memset(&note, 0, sizeof(note));
    note.magic = GCM_SLOTS_SHM_NOTE_MAGIC;
    note.kind  = GCM_SLOTS_SHM_WAKE;
    note.ep    = (uint16_t)ep;
    note.proc  = gcm_slots_shm.myproc;
    /* Best effort: a full socket buffer means a wakeup is pending
     * already; a refused one, that its owner is gone. */
    (void)sendto(gcm_slots_shm.send_fd, &note, sizeof(note), MSG_DONTWAIT,
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
int gcm_slots_shm_info_of(int proc, gcm_shm_info_t *info, int *nseg_p)
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
int gcm_slots_shm_pid_of(int proc)
{
    gcm_shm_info_t *info;
    int nseg, pid;

    if ((proc < 0) || (proc >= gcm_boot_size())) {
        return 0;
    }
    pid = (gcm_slots_shm.pids != NULL) ?
          atomic_load_explicit(&gcm_slots_shm.pids[proc],
                               memory_order_relaxed) :
          0;
    if (gcm_likely(pid != 0)) {
        return (pid > 0) ? pid : 0;
    }
    info = malloc(sizeof(*info));
    pid  = -1;
    if ((info != NULL) && gcm_slots_shm_info_of(proc, info, &nseg) &&
        (nseg > 0)) {
        pid = (int)info->head.pid;
    }
    free(info);
    if (gcm_slots_shm.pids != NULL) {
        /* Several threads may look at once: they store the same value. */
        atomic_store_explicit(&gcm_slots_shm.pids[proc], pid,
                              memory_order_relaxed);
    }
    return (pid > 0) ? pid : 0;
}

/* Whether the kernel's word about a sender (cred) makes it proc of this
 * job, on this host, other than us. */
int gcm_slots_shm_is_proc(int proc, const struct ucred *cred)
{
    int pid;

    if ((proc < 0) || (proc >= gcm_slots_shm.nprocs) ||
        (proc == gcm_slots_shm.myproc) ||
        (cred->uid != gcm_slots_shm.uid) || (cred->pid <= 0)) {
        return 0;
    }
    pid = gcm_slots_shm_pid_of(proc);
    return (pid > 0) && (pid == (int)cred->pid);
}

/* A note refused: said at warn level, the 1st, 2nd, 4th, 8th... time
 * that count grows (a flood must not flood the log too). */
void gcm_slots_shm_refuse(gcm_shm_ep_t *sep, atomic_uint *count,
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

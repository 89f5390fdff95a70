/*
 * slots/slot_shm_attach.c: attaching to a peer of the host: mapping its
 * segment, claiming a ring in it, telling a dying peer from a transport error.
 */
#define _GNU_SOURCE
#include "config.h"

#include "slots/slot_shm_impl.h"

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
    return gcm_slots_pid_dying((pid_t)gcm_slots_shm_pid_of(proc));
}

/* Tells the owner of the segment (its claim socket, named by id) that
 * endpoint ep of ours claimed ring i. 0, or the errno of the step that
 * failed. */
static int gcm_shm_send_claim(const uint8_t id[GCM_SLOTS_SHM_SOCK_ID], int ep,
                              uint32_t i)
{
    gcm_slots_shm_note_t note;
    struct sockaddr_un addr;
    socklen_t addr_len = gcm_slots_shm_sock_addr(id, 'c', &addr);
    int fd, err = 0;

    memset(&note, 0, sizeof(note));
    note.magic = GCM_SLOTS_SHM_NOTE_MAGIC;
    note.kind  = GCM_SLOTS_SHM_CLAIM;
    note.ep    = (uint16_t)ep;
    note.proc  = gcm_slots_shm.myproc;
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

    if ((info == NULL) || !gcm_slots_shm_info_of(proc, info, &nseg) ||
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
    if (gcm_slots_shm_seg_check(seg, GCM_SLOTS_SHM_SEG_HDR, is->size,
                                is->magic, &nrings) != GCM_OK) {
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
        if (!atomic_exchange(&gcm_slots_shm.cma_logged, 1)) {
            gcm_warn("shm: process_vm_readv unavailable (%s): same-host "
                     "messages go over UCX (GENCOMM_SHM=0 says so quietly)",
                     strerror(errno));
        }
        goto out;
    }
    owners = gcm_shm_owners(seg);
    owner  = gcm_shm_owner(gcm_slots_shm.myproc, endpoint->index);
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
    tx->lhead    = atomic_load_explicit(&tx->ring->ltail,
                                        memory_order_acquire);
    tx->ltail    = tx->lhead;
    tx->wake_len = gcm_slots_shm_sock_addr(is->sock, 'w', &tx->wake);
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
    if (!gcm_slots_shm.enabled || (conn->proc == gcm_slots_shm.myproc) ||
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

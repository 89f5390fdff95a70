/*
 * slots/slot_shm_recv.c: the consumer's side: claims, wakeups, draining the
 * rings, dead-peer checks, and whether an endpoint may sleep.
 */
#define _GNU_SOURCE
#include "config.h"

#include "slots/slot_shm_impl.h"

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

/* Watches rx, the active ring at index i, from its lane's and its cells'
 * tails on. Lock held. */
static void gcm_shm_watch_set(gcm_shm_ep_t *sep, int i, const gcm_shm_rx_t *rx)
{
    sep->watch[i].seq   = &rx->line->seq;
    sep->watch[i].want  = (uint32_t)(rx->ltail + 1);
    sep->watch[i].cseq  = rx->cseq;
    sep->watch[i].cwant = rx->tail + 1;
}

/* Is the next lane line or the next cell of watch w's ring full? */
static inline int gcm_shm_watch_hit(const gcm_shm_watch_t *w)
{
    return (atomic_load_explicit(w->seq, memory_order_acquire) == w->want) ||
           (atomic_load_explicit(w->cseq, memory_order_acquire) == w->cwant);
}

/* Is the next line or cell of the active ring at index i full? Lock
 * held. */
static inline int gcm_shm_watch_full(const gcm_shm_ep_t *sep, int i)
{
    return gcm_shm_watch_hit(&sep->watch[i]);
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
    if (note->ring >= (uint32_t)gcm_slots_shm.nrings) {
        gcm_shm_refuse_claim(sep, "a claim of ring %u (of %d) from pid %d",
                             note->ring, gcm_slots_shm.nrings, (int)cred->pid);
        return;
    }
    rx = &sep->rx[note->ring];
    if (!gcm_slots_shm_is_proc(note->proc, cred)) {
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
    if ((info == NULL) || !gcm_slots_shm_info_of(note->proc, info, &nseg) ||
        (note->ep >= nseg)) {
        free(info);
        gcm_shm_refuse_claim(sep, "a claim by proc %d endpoint %d, which "
                             "it has not published", note->proc, note->ep);
        gcm_shm_mark_refused(sep, note->ring);
        return;
    }
    rx->proc     = note->proc;
    rx->ep       = note->ep;
    rx->conn     = NULL;
    rx->pid      = (int)cred->pid;
    rx->wake_len = gcm_slots_shm_sock_addr(info->seg[note->ep].sock, 'w',
                                           &rx->wake);
    free(info);
    rx->ring = gcm_slots_shm_ring_at(sep->seg, note->ring);
    rx->tail  = atomic_load_explicit(&rx->ring->tail, memory_order_relaxed);
    rx->ltail = atomic_load_explicit(&rx->ring->ltail, memory_order_relaxed);
    rx->line  = gcm_slots_shm_line_at(rx->ring, rx->ltail);
    rx->cseq  = &gcm_slots_shm_cell_at(rx->ring, rx->tail)->seq;
    sep->active[sep->nactive] = (int)note->ring;
    gcm_shm_watch_set(sep, sep->nactive, rx);
    sep->nactive++;
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
            (cred.uid != gcm_slots_shm.uid)) {
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
            !gcm_slots_shm_is_proc(note.proc, &cred)) {
            gcm_shm_refuse_wake(sep, "a datagram of %zd bytes on the "
                                "wakeup socket from pid %d uid %d, which is "
                                "no process of this job", n, (int)cred.pid,
                                (int)cred.uid);
        } else {
            ours++;
        }
    }
}

/* The connection rx's messages come in on (NULL if there is none). */
static inline gcm_thr_conn_t *gcm_shm_rx_conn(gcm_thr_endpoint_t *endpoint,
                                              gcm_shm_rx_t *rx)
{
    if (gcm_unlikely(rx->conn == NULL)) {
        rx->conn = gcm_thr_conn_get(endpoint, rx->proc, rx->ep);
    }
    return rx->conn;
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
    if ((conn = gcm_shm_rx_conn(endpoint, rx)) == NULL) {
        return;
    }
    if (msg.kind == GCM_SLOTS_SHM_CTRL) {
        gcm_slots_ctrl_in(endpoint, conn, &msg.ctrl);
        return;
    }
    if (msg.kind == GCM_SLOTS_SHM_COOP) {
        gcm_slots_shm_coop_help(endpoint, conn, rx, &msg.coop);
        return;
    }
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
    /* msg.env is ours already: no second copy. The sender in it is set
     * from conn, the ring's owner. */
    (void)gcm_slots_msg_in_own(endpoint, conn, &msg.env, &payload);
}

/* Hands one lane line of rx's ring, a small message, to the message
 * path. Lock held. */
static void gcm_shm_handle_line(gcm_thr_endpoint_t *endpoint,
                                gcm_shm_rx_t *rx, gcm_slots_shm_line_t *line)
{
    gcm_slots_shm_cell_msg_t msg;
    gcm_payload_t payload;
    gcm_thr_conn_t *conn;

    if (gcm_slots_shm_line_decode(line, GCM_SLOTS_SHM_LINE_SIZE, &msg) !=
        GCM_OK) {
        gcm_warn("shm: lane line of unknown kind %u from proc %d ignored",
                 line->kind, rx->proc);
        return;
    }
    if ((conn = gcm_shm_rx_conn(endpoint, rx)) == NULL) {
        return;
    }
    memset(&payload, 0, sizeof(payload));
    payload.kind = GCM_PAYLOAD_TRANSIENT;
    payload.data = (char *)line + msg.data_off;
    payload.size = msg.len;
    (void)gcm_slots_msg_in_own(endpoint, conn, &msg.env, &payload);
}

/* A drain that takes more than GCM_SHM_BURST lines in a row is behind
 * its producer: from then on it fetches the line GCM_SLOTS_SHM_LANE_PAGES
 * (4) further on with each line it takes. The lane's layout keeps the
 * hardware from doing so (gcm_slots_shm_line_at), which a consumer that
 * waits for its next line wants, and one that is behind does not. */
#define GCM_SHM_BURST 2

/* Handles what waits in the active ring at index i (its next lane line
 * or cell is full), lines and cells in the order they were written.
 * Lock held. */
static unsigned gcm_shm_drain(gcm_thr_endpoint_t *endpoint, gcm_shm_ep_t *sep,
                              int i)
{
    gcm_shm_rx_t *rx = &sep->rx[sep->active[i]];
    unsigned n = 0, lines = 0;

    while (n < GCM_SLOTS_SHM_NLINES + GCM_SLOTS_SHM_NCELLS) {
        gcm_slots_shm_line_t *line = rx->line;
        int lfull = atomic_load_explicit(&line->seq, memory_order_acquire) ==
                    (uint32_t)(rx->ltail + 1);
        int cfull = atomic_load_explicit(rx->cseq, memory_order_acquire) ==
                    rx->tail + 1;
        uint32_t lpos = 0;
        int next;

        if (gcm_unlikely(cfull)) {
            GCM_SHM_FIELD(&lpos, gcm_slots_shm_cell_at(rx->ring, rx->tail),
                          lpos);
        }
        next = gcm_slots_shm_next(lfull, cfull, lpos, rx->ltail);
        if (next == GCM_SLOTS_SHM_TAKE_LINE) {
            if (++lines > GCM_SHM_BURST) {
                __builtin_prefetch(gcm_slots_shm_line_ahead(line), 0);
            }
            gcm_shm_handle_line(endpoint, rx, line);
            rx->ltail++;
            rx->line = gcm_slots_shm_line_at(rx->ring, rx->ltail);
            atomic_store_explicit(&rx->ring->ltail, rx->ltail,
                                  memory_order_release);
        } else if (next == GCM_SLOTS_SHM_TAKE_CELL) {
            gcm_shm_handle(endpoint, rx,
                           gcm_slots_shm_cell_at(rx->ring, rx->tail));
            rx->tail++;
            rx->cseq = &gcm_slots_shm_cell_at(rx->ring, rx->tail)->seq;
            atomic_store_explicit(&rx->ring->tail, rx->tail,
                                  memory_order_release);
        } else {
            break;
        }
        n++;
    }
    gcm_shm_watch_set(sep, i, rx);
    if (n == 0) {
        return 0;
    }
    /* A producer that sleeps until there is room: see the top. */
    gcm_shm_publish_fence();
    if (atomic_load_explicit(&rx->ring->tx_waiting, memory_order_relaxed)) {
        atomic_store_explicit(&rx->ring->tx_waiting, 0,
                              memory_order_relaxed);
        gcm_slots_shm_wake(&rx->wake, rx->wake_len, endpoint->index);
    }
    return n;
}

/* Rounds of progress between two looks at whether the peers live. */
#define GCM_SHM_CHECK_ROUNDS 4096

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
    /* Processes that send to us: receives bound to them must fail too,
     * once what the process wrote before it went has been handled. */
    for (i = 0; i < sep->nactive; i++) {
        gcm_shm_rx_t *rx = &sep->rx[sep->active[i]];
        gcm_thr_conn_t *conn;
        if ((rx->pid <= 0) || (kill((pid_t)rx->pid, 0) == 0) ||
            (errno != ESRCH)) {
            continue;
        }
        (void)gcm_shm_drain(endpoint, sep, i);
        conn = gcm_thr_conn_get(endpoint, rx->proc, rx->ep);
        rx->pid = 0;
        if ((conn != NULL) && (conn->failed == GCM_OK)) {
            gcm_debug("shm: proc %d is gone", rx->proc);
            gcm_thr_peer_failed(endpoint, rx->proc, GCM_ERR_PEER_FAILED);
        }
    }
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
}

/* A round with something to do (gcm_slots_shm_progress). Lock held. */
static __attribute__((noinline)) unsigned
gcm_shm_round(gcm_thr_endpoint_t *endpoint, gcm_shm_ep_t *sep)
{
    unsigned n = 0;
    int i;

    gcm_shm_refresh(sep);
    for (i = 0; i < sep->nactive; i++) {
        if (gcm_shm_watch_full(sep, i)) {
            n += gcm_shm_drain(endpoint, sep, i);
        }
    }
    if (sep->nqueued > 0) {
        gcm_list_t *pos, *tmp;
        gcm_list_for_each_safe(pos, tmp, &sep->txs) {
            n += gcm_slots_shm_flush(sep, gcm_container_of(pos,
                                                           gcm_shm_tx_t,
                                                           elem));
        }
    }
    if ((sep->rounds >= GCM_SHM_CHECK_ROUNDS) ||
        atomic_load_explicit(&sep->check_now, memory_order_relaxed)) {
        sep->rounds = 0;
        atomic_store_explicit(&sep->check_now, 0, memory_order_relaxed);
        gcm_shm_check_peers(endpoint, sep);
    }
    return n;
}

unsigned gcm_slots_shm_progress(gcm_thr_endpoint_t *endpoint)
{
    gcm_shm_ep_t *sep;
    int i;

    if (!gcm_slots_shm.enabled) {
        return 0;
    }
    sep = gcm_shm_ep(endpoint);
    /* The usual poll finds nothing: it reads two words per ring and a few
     * of its own, and makes no call. */
    if (gcm_likely((++sep->rounds < GCM_SHM_CHECK_ROUNDS) &&
                   (sep->nqueued == 0) && (sep->nearly == 0) &&
                   (atomic_load_explicit(&sep->seg->attach_gen,
                                         memory_order_acquire) ==
                    sep->attach_gen) &&
                   !atomic_load_explicit(&sep->check_now,
                                         memory_order_relaxed))) {
        const gcm_shm_watch_t *watch = sep->watch;
        int nactive = sep->nactive;

        for (i = 0; (i < nactive) && !gcm_shm_watch_hit(&watch[i]); i++) {
        }
        if (i == nactive) {
            return 0;
        }
    }
    return gcm_shm_round(endpoint, sep);
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
        if (gcm_shm_watch_full(sep, i)) {
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
        if (gcm_slots_shm_room_pending(tx)) {
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

    if (!gcm_slots_shm.enabled) {
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

int gcm_slots_shm_sleep_deepen(gcm_thr_endpoint_t *endpoint)
{
    gcm_shm_ep_t *sep = gcm_shm_ep(endpoint);
    int busy;

    /* A store published before a peer's look at our sleeping count
     * reached us no later than this barrier; one after it, the peer's
     * look sees the count. A barrier that fails allows a nap only. */
    if (gcm_slots_shm.barrier && (gcm_slots_shm_membarrier(
                                      GCM_SHM_BARRIER_GLOBAL) != 0)) {
        return 1;
    }
    gcm_thr_lock(endpoint);
    busy = gcm_shm_busy(sep);
    gcm_thr_unlock(endpoint);
    return busy ? -1 : 0;
}

void gcm_slots_shm_sleep_done(gcm_thr_endpoint_t *endpoint)
{
    gcm_shm_ep_t *sep = gcm_shm_ep(endpoint);

    atomic_fetch_sub(&sep->seg->sleeping, 1);
    gcm_shm_wake_drain(sep);
    atomic_store_explicit(&sep->check_now, 1, memory_order_relaxed);
}


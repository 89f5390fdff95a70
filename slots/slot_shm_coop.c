/*
 * slots/slot_shm_coop.c: large same-host messages copied by both sides.
 *
 * A message above GCM_SLOTS_SHM_CELL_DATA is a descriptor in the ring
 * (the sender's buffer address); the receiver copies it with
 * process_vm_readv when a receive matches. One process copies at about
 * half the speed that two reach, so from GENCOMM_SHM_COOP_MIN bytes on the
 * receiver offers its sender a share: it sets up the chunk counter in the
 * header of the ring it produces into at the sender (a new generation,
 * chunk 0), writes a GCM_SLOTS_SHM_COOP cell there (the send's cookie, its
 * receive buffer's address, the length), and takes chunks itself. A
 * sender that is in the library (waiting for that send, or progressing
 * for anything else) finds the cell, takes chunks off the same counter
 * with compare-and-swap (only while the generation is the cell's) and
 * writes them with process_vm_writev into the receiver, counting each one
 * done. A sender that is busy elsewhere takes nothing: the receiver has
 * taken every chunk by then. The receiver waits only for the chunks the
 * sender took, then sends the data notice that completes the send, as the
 * one-sided read does. A receiver that has a large message of its own
 * for that sender to read (an exchange; slot_shm_send.c) does not offer:
 * neither has a hand free. Nor does one on a host with more of the job's
 * processes than cores: no core is free for a second copier, and a
 * sender that took a chunk may lose its core before it copies it. A
 * folded receive (slots.h) offers only where its fold allows a share:
 * the chunks are then the fold's pieces (named in the offer), each of
 * the receiver's own is folded as soon as it is in, and the sender's
 * once they all are (a reduce's root combines half of the vector while
 * it is in cache, and the other half, which the sender wrote, after).
 *
 * What the receiver sends is not believed: the sender copies from the
 * send's own buffer, found by the cookie among its sends to that process
 * that wait for their data notice, and at most the send's length; it
 * writes only into the process that the ring's claim verified. A write
 * that fails marks the copy failed, and the receiver then reads the whole
 * message itself; a sender that dies while it holds a chunk fails the
 * receive with GCM_ERR_PEER_FAILED instead of hanging it.
 */
#define _GNU_SOURCE
#include "config.h"

#include "slots/slot_shm_impl.h"

#include <sched.h>

#define GCM_SHM_COOP_GEN(_w)   ((uint32_t)((_w) >> 32))
#define GCM_SHM_COOP_INDEX(_w) ((uint32_t)((_w) & 0xffffffffu))

gcm_status_t gcm_slots_shm_copy(int write, int pid, uint32_t proc,
                                void *local_base, uint64_t remote_base,
                                size_t off, size_t len)
{
    size_t done = 0;

    while (done < len) {
        struct iovec local, remote;
        ssize_t got;

        local.iov_base  = (char *)local_base + off + done;
        local.iov_len   = len - done;
        remote.iov_base = (void *)(uintptr_t)(remote_base + off + done);
        remote.iov_len  = len - done;
        got = write ?
              process_vm_writev((pid_t)pid, &local, 1, &remote, 1, 0) :
              process_vm_readv((pid_t)pid, &local, 1, &remote, 1, 0);
        if (got < 0) {
            if (errno == EINTR) {
                continue;
            }
            if (errno == ESRCH) {
                return GCM_ERR_PEER_FAILED;
            }
            gcm_error("%s of %zu bytes %s proc %u failed: %s",
                      write ? "process_vm_writev" : "process_vm_readv",
                      len - done, write ? "to" : "from", proc,
                      strerror(errno));
            return GCM_ERR_TRANSPORT;
        }
        if (got == 0) {
            gcm_error("%s %s proc %u copied nothing",
                      write ? "process_vm_writev" : "process_vm_readv",
                      write ? "to" : "from", proc);
            return GCM_ERR_TRANSPORT;
        }
        done += (size_t)got;
    }
    return GCM_OK;
}

static uint64_t gcm_shm_coop_chunks(uint64_t len, uint64_t chunk)
{
    return (len + chunk - 1) / chunk;
}

int gcm_slots_shm_coop_read(gcm_shm_ep_t *sep, gcm_shm_tx_t *tx,
                            const gcm_payload_t *payload, void *buf,
                            size_t n, const gcm_slots_fold_t *fold,
                            gcm_status_t *status_p)
{
    gcm_slots_shm_ring_t *ring = tx->ring;
    uint64_t chunk = (fold != NULL) ?
                     gcm_slots_shm_coop_fold_chunk(
                         gcm_slots_fold_piece(fold, n), fold->unit, n) :
                     gcm_slots_shm_coop_chunk(n);
    uint64_t nchunks = (chunk > 0) ? gcm_shm_coop_chunks(n, chunk) : 0;
    uint64_t own[GCM_SLOTS_SHM_COOP_FOLD_CHUNKS / 64];
    gcm_slots_shm_coop_t coop;
    gcm_slots_shm_cell_t *cell;
    gcm_status_t status = GCM_OK;
    uint64_t base, w, mine = 0;
    unsigned spins = 0;
    uint32_t gen;

    /* The offer goes in order behind what waits for room, or not at all:
     * then we copy alone. */
    if (tx->dead || (nchunks < 2) || (nchunks > 0x7fffffffu) ||
        ((fold != NULL) && (nchunks > GCM_SLOTS_SHM_COOP_FOLD_CHUNKS)) ||
        !gcm_list_empty(&tx->pending) || !gcm_slots_shm_room(tx)) {
        return 0;
    }
    /* A message in two halves (under 256 KiB) is copied in microseconds:
     * a sender asleep would wake too late to take its half, and waking it
     * would only cost us a system call. */
    if ((n < 2 * GCM_SLOTS_SHM_COOP_CHUNK_MIN) &&
        (atomic_load_explicit(&tx->seg->sleeping, memory_order_relaxed) >
         0)) {
        return 0;
    }
    /* We alone set the generation: a sender still holding an older
     * offer's cell finds it changed and takes nothing. */
    gen = GCM_SHM_COOP_GEN(atomic_load_explicit(&ring->coop_next,
                                                memory_order_relaxed)) + 1;
    if (gen == 0) {
        gen = 1;
    }
    base = (uint64_t)gen << 32;
    atomic_store_explicit(&ring->coop_done, base, memory_order_relaxed);
    atomic_store_explicit(&ring->coop_next, base, memory_order_release);

    memset(&coop, 0, sizeof(coop));
    coop.sreq = payload->cookie;
    coop.addr = (uint64_t)(uintptr_t)buf;
    coop.len  = n;
    coop.gen  = gen;
    if (fold != NULL) {
        coop.chunk = (uint32_t)chunk;
        memset(own, 0, sizeof(own));
        sep->fold_reads++;
        sep->fold_shared++;
    }
    cell = gcm_slots_shm_cell_at(ring, tx->head);
    cell->kind = GCM_SLOTS_SHM_COOP;
    cell->len  = (uint32_t)sizeof(coop);
    memcpy(gcm_shm_cell_data(cell), &coop, sizeof(coop));
    gcm_slots_shm_publish(tx, cell);

    for (;;) {
        uint64_t i, off;

        w = atomic_fetch_add_explicit(&ring->coop_next, 1,
                                      memory_order_acq_rel);
        i = GCM_SHM_COOP_INDEX(w);
        if (i >= nchunks) {
            break;
        }
        mine++;
        if (status != GCM_OK) {
            continue;    /* taken, so that the sender stops */
        }
        off = i * chunk;
        status = gcm_slots_shm_copy(0, payload->pid, payload->proc, buf,
                                    (uint64_t)(uintptr_t)payload->data, off,
                                    (n - off < chunk) ? n - off : chunk);
        if ((fold != NULL) && (status == GCM_OK)) {
            /* Ours: folded while it is in cache. */
            fold->fn(fold->ctx, off, (n - off < chunk) ? n - off : chunk);
            own[i / 64] |= (uint64_t)1 << (i % 64);
            sep->fold_pieces++;
        }
    }
    /* Every chunk is taken: wait for those the sender took (it copies
     * each at once), giving the core away now and then, and looking
     * whether it died holding one. */
    while ((status != GCM_ERR_PEER_FAILED) &&
           (GCM_SHM_COOP_INDEX(atomic_load_explicit(&ring->coop_done,
                                                    memory_order_acquire)) <
            nchunks - mine)) {
        if ((++spins & 63) != 0) {
            continue;
        }
        sched_yield();
        if (((spins & 4095) == 0) &&
            gcm_slots_pid_dying((pid_t)payload->pid)) {
            gcm_error("proc %u died during a copy of %zu bytes to us",
                      payload->proc, n);
            *status_p = GCM_ERR_PEER_FAILED;
            return 1;
        }
    }
    sep->coop_copies++;
    sep->coop_chunks += nchunks;
    sep->coop_helped += nchunks - mine;
    if ((status == GCM_OK) &&
        (atomic_load_explicit(&ring->coop_fail, memory_order_acquire) ==
         gen)) {
        /* A write of the sender failed: what it wrote cannot be trusted
         * to be whole, so read everything ourselves. */
        gcm_warn("shm: proc %u could not write its share of %zu bytes: "
                 "reading them alone", payload->proc, n);
        /* Folded pieces of ours are read again: each takes the sender's
         * data anew before it is folded again. */
        status = (fold != NULL) ?
                 gcm_slots_shm_read_fold(sep, payload, buf, n, fold) :
                 gcm_slots_shm_copy(0, payload->pid, payload->proc, buf,
                                    (uint64_t)(uintptr_t)payload->data, 0,
                                    n);
    } else if ((fold != NULL) && (status == GCM_OK)) {
        /* The sender's chunks, all in now. */
        uint64_t i;

        for (i = 0; i < nchunks; i++) {
            if ((own[i / 64] & ((uint64_t)1 << (i % 64))) == 0) {
                uint64_t off = i * chunk;

                fold->fn(fold->ctx, off,
                         (n - off < chunk) ? n - off : chunk);
                sep->fold_pieces++;
            }
        }
    }
    *status_p = status;
    return 1;
}

/* The send a receiver's offer is about: one of ours to that process that
 * waits for its data notice, or NULL. */
static struct gcm_request *gcm_shm_coop_send(gcm_thr_endpoint_t *endpoint,
                                             gcm_thr_conn_t *conn,
                                             uint64_t sreq)
{
    gcm_list_t *pos, *tmp;

    gcm_list_for_each_safe(pos, tmp, &gcm_slots_ep(endpoint)->ackwait) {
        struct gcm_request *req = gcm_container_of(pos, struct gcm_request,
                                                   elem);
        if ((req->id == sreq) && (req->rwait & GCM_RWAIT_DATA) &&
            (req->dest_proc == conn->proc)) {
            return req;
        }
    }
    return NULL;
}

int gcm_slots_shm_owed(gcm_thr_endpoint_t *endpoint, int proc)
{
    gcm_list_t *pos, *tmp;

    gcm_list_for_each_safe(pos, tmp, &gcm_slots_ep(endpoint)->ackwait) {
        struct gcm_request *req = gcm_container_of(pos, struct gcm_request,
                                                   elem);
        if ((req->rwait & GCM_RWAIT_DATA) && (req->dest_proc == proc)) {
            return 1;
        }
    }
    return 0;
}

void gcm_slots_shm_coop_help(gcm_thr_endpoint_t *endpoint,
                             gcm_thr_conn_t *conn, gcm_shm_rx_t *rx,
                             const gcm_slots_shm_coop_t *coop)
{
    gcm_slots_shm_ring_t *ring = rx->ring;
    struct gcm_request *req;
    uint64_t base = (uint64_t)coop->gen << 32;
    uint64_t chunk, nchunks, w;

    req = gcm_shm_coop_send(endpoint, conn, coop->sreq);
    if (req == NULL) {
        return;    /* read and noticed already, or never ours */
    }
    if ((coop->gen == 0) || (coop->len == 0) || (coop->len > req->len) ||
        (rx->pid <= 0)) {
        gcm_warn("shm: proc %d offered to take a copy of %llu bytes of a "
                 "send of %zu: ignored", rx->proc,
                 (unsigned long long)coop->len, req->len);
        return;
    }
    chunk = gcm_slots_shm_coop_offer_chunk(coop);
    if (chunk == 0) {
        gcm_warn("shm: proc %d offered a copy of %llu bytes in chunks of "
                 "%u: ignored", rx->proc, (unsigned long long)coop->len,
                 coop->chunk);
        return;
    }
    nchunks = gcm_shm_coop_chunks(coop->len, chunk);
    for (;;) {
        uint64_t i, off, len;
        gcm_status_t status;

        w = atomic_load_explicit(&ring->coop_next, memory_order_acquire);
        do {
            if (((w & ~(uint64_t)0xffffffffu) != base) ||
                (GCM_SHM_COOP_INDEX(w) >= nchunks)) {
                return;
            }
        } while (!atomic_compare_exchange_weak_explicit(
                     &ring->coop_next, &w, w + 1, memory_order_acq_rel,
                     memory_order_acquire));
        i   = GCM_SHM_COOP_INDEX(w);
        off = i * chunk;
        len = (coop->len - off < chunk) ? coop->len - off : chunk;
        status = gcm_slots_shm_copy(1, rx->pid, (uint32_t)rx->proc,
                                    req->buf, coop->addr, off, (size_t)len);
        if (status != GCM_OK) {
            atomic_store_explicit(&ring->coop_fail, coop->gen,
                                  memory_order_relaxed);
        }
        atomic_fetch_add_explicit(&ring->coop_done, 1, memory_order_release);
        if (status != GCM_OK) {
            return;    /* the receiver reads it all again */
        }
    }
}

/*
 * slots/slot_shm_send.c: the producer's side of a ring (messages, control
 * messages, what waits for room) and the read of a large message from
 * its sender's memory.
 */
#define _GNU_SOURCE
#include "config.h"

#include "slots/slot_shm_impl.h"

/* ---- producing ----------------------------------------------------------- */

/* Is there room for a lane line? */
static inline int gcm_shm_lane_room(gcm_shm_tx_t *tx)
{
    if (tx->lhead - tx->ltail < GCM_SLOTS_SHM_NLINES) {
        return 1;
    }
    tx->ltail = atomic_load_explicit(&tx->ring->ltail, memory_order_acquire);
    return tx->lhead - tx->ltail < GCM_SLOTS_SHM_NLINES;
}

int gcm_slots_shm_room(gcm_shm_tx_t *tx)
{
    if (tx->head - tx->tail < GCM_SLOTS_SHM_NCELLS) {
        return 1;
    }
    tx->tail = atomic_load_explicit(&tx->ring->tail, memory_order_acquire);
    return tx->head - tx->tail < GCM_SLOTS_SHM_NCELLS;
}

/* Does a message of len bytes with envelope env go in one lane line? */
static inline int gcm_shm_is_small(const gcm_slots_env_t *env, size_t len)
{
    return (len <= GCM_SLOTS_SHM_LINE_DATA) && (env->sreq == 0);
}

/* Is there room for a message of len bytes with envelope env? */
static inline int gcm_shm_room_for(gcm_shm_tx_t *tx,
                                   const gcm_slots_env_t *env, size_t len)
{
    return gcm_shm_is_small(env, len) ? gcm_shm_lane_room(tx)
                                      : gcm_slots_shm_room(tx);
}

/* Is there room for pend, a message or control message that waits? */
static inline int gcm_shm_room_pend(gcm_shm_tx_t *tx,
                                    const gcm_slots_shm_pend_t *pend)
{
    return (pend->req != NULL) ? gcm_shm_room_for(tx, &pend->req->env,
                                                  pend->len)
                               : gcm_slots_shm_room(tx);
}

int gcm_slots_shm_room_pending(gcm_shm_tx_t *tx)
{
    return gcm_list_empty(&tx->pending) ||
           gcm_shm_room_pend(tx, gcm_container_of(tx->pending.next,
                                                  gcm_slots_shm_pend_t,
                                                  elem));
}

/* The consumer may sleep: after a store that it polls for, wake it.
 * Against its "sleeping, then re-check": see the top. */
static inline void gcm_shm_wake_sleeper(gcm_shm_tx_t *tx)
{
    gcm_shm_publish_fence();
    if (atomic_load_explicit(&tx->seg->sleeping, memory_order_relaxed) > 0) {
        gcm_slots_shm_wake(&tx->wake, tx->wake_len, tx->ep);
    }
}

/* Makes the written lane line the ring's next (there was room). */
static inline void gcm_shm_publish_line(gcm_shm_tx_t *tx,
                                        gcm_slots_shm_line_t *line)
{
    tx->lhead++;
    atomic_store_explicit(&line->seq, (uint32_t)tx->lhead,
                          memory_order_release);
    gcm_shm_wake_sleeper(tx);
}

void gcm_slots_shm_publish(gcm_shm_tx_t *tx, gcm_slots_shm_cell_t *cell)
{
    /* It comes after the lines written so far, before the next: the
     * consumer takes it once it has taken this many lines. */
    cell->lpos = (uint32_t)tx->lhead;
    tx->head++;
    atomic_store_explicit(&cell->seq, tx->head, memory_order_release);
    gcm_shm_wake_sleeper(tx);
}

/* A small message (gcm_shm_is_small) in the lane's next line. */
static void gcm_shm_write_line(gcm_shm_tx_t *tx, const gcm_slots_env_t *env,
                               const void *buf, size_t len)
{
    gcm_slots_shm_line_t *line = gcm_slots_shm_line_at(tx->ring, tx->lhead);

    gcm_slots_shm_line_encode(line, env, buf, len);
    gcm_shm_publish_line(tx, line);
}

static void gcm_shm_write_env(gcm_shm_tx_t *tx, const gcm_slots_env_t *env,
                              const void *buf, size_t len)
{
    gcm_slots_shm_cell_t *cell;

    if (gcm_shm_is_small(env, len)) {
        gcm_shm_write_line(tx, env, buf, len);
        return;
    }
    cell = gcm_slots_shm_cell_at(tx->ring, tx->head);
    cell->env = *env;
    if (len <= GCM_SLOTS_SHM_CELL_DATA) {
        cell->kind = GCM_SLOTS_SHM_EAGER;
        cell->len  = (uint32_t)len;
        if (len > 0) {
            memcpy(gcm_shm_cell_data(cell), buf, len);
        }
    } else {
        cell->kind = GCM_SLOTS_SHM_CMA;
        cell->len  = 0;
        cell->pid  = gcm_slots_shm.mypid;
        cell->addr = (uint64_t)(uintptr_t)buf;
    }
    gcm_slots_shm_publish(tx, cell);
}

static void gcm_shm_write_ctrl(gcm_shm_tx_t *tx, const gcm_slots_ctrl_t *ctrl)
{
    gcm_slots_shm_cell_t *cell = gcm_slots_shm_cell_at(tx->ring, tx->head);

    cell->kind = GCM_SLOTS_SHM_CTRL;
    cell->len  = (uint32_t)sizeof(*ctrl);
    memcpy(gcm_shm_cell_data(cell), ctrl, sizeof(*ctrl));
    gcm_slots_shm_publish(tx, cell);
    if (tx->reading) {
        /* The data notice is out (or whatever follows a read): the
         * consumer may sleep again. */
        tx->reading = 0;
        atomic_store_explicit(&tx->ring->read_until, 0,
                              memory_order_relaxed);
    }
}

/* Writes what waits for room, in order; returns how many. */
unsigned gcm_slots_shm_flush(gcm_shm_ep_t *sep, gcm_shm_tx_t *tx)
{
    unsigned n = 0;

    while (!gcm_list_empty(&tx->pending)) {
        gcm_slots_shm_pend_t *pend =
            gcm_container_of(tx->pending.next, gcm_slots_shm_pend_t, elem);
        if (!gcm_shm_room_pend(tx, pend)) {
            break;
        }
        gcm_list_del(&pend->elem);
        sep->nqueued--;
        n++;
        if (pend->req != NULL) {
            gcm_shm_write_env(tx, &pend->req->env, pend->buf, pend->len);
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

    if (gcm_list_empty(&tx->pending) &&
        gcm_shm_room_for(tx, &req->env, len)) {
        gcm_shm_write_env(tx, &req->env, buf, len);
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

int gcm_slots_shm_send_now(gcm_thr_conn_t *conn, const gcm_slots_env_t *env,
                           const void *buf, size_t len)
{
    gcm_shm_tx_t *tx = conn->shm_tx;

    if ((len > GCM_SLOTS_SHM_CELL_DATA) || !gcm_list_empty(&tx->pending) ||
        !gcm_shm_room_for(tx, env, len)) {
        return 0;
    }
    gcm_shm_write_env(tx, env, buf, len);
    return 1;
}

void gcm_slots_shm_send_ctrl(gcm_thr_endpoint_t *endpoint,
                             gcm_thr_conn_t *conn,
                             const gcm_slots_ctrl_t *ctrl)
{
    gcm_shm_tx_t *tx = conn->shm_tx;
    gcm_slots_shm_pend_t *pend;

    if (gcm_list_empty(&tx->pending) && gcm_slots_shm_room(tx)) {
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

    if (!gcm_slots_shm.enabled) {
        return;
    }
    sep = gcm_shm_ep(endpoint);
    gcm_list_for_each_safe(pos, tmp, &sep->txs) {
        gcm_shm_tx_t *tx = gcm_container_of(pos, gcm_shm_tx_t, elem);
        if (tx->proc == proc) {
            tx->dead = 1;
            /* A full ring to a dead process is never drained. */
            gcm_slots_shm_fail_pending(sep, tx, reason);
        }
    }
}

size_t gcm_slots_fold_piece(const gcm_slots_fold_t *fold, size_t n)
{
    size_t piece = GCM_SLOTS_FOLD_PIECE;

    if ((fold->unit > 0) && (fold->unit <= piece)) {
        return piece - piece % fold->unit;
    }
    return n;    /* an element larger than a piece: one read */
}

/* A folded read: piece by piece, each told to the fold as soon as it
 * is in, while it is in cache. */
gcm_status_t gcm_slots_shm_read_fold(gcm_shm_ep_t *sep,
                                     const gcm_payload_t *payload,
                                     void *buf, size_t n,
                                     const gcm_slots_fold_t *fold)
{
    size_t piece = gcm_slots_fold_piece(fold, n), off;

    sep->fold_reads++;
    for (off = 0; off < n; off += piece) {
        size_t len = (n - off < piece) ? n - off : piece;
        gcm_status_t status;

        status = gcm_slots_shm_copy(0, payload->pid, payload->proc, buf,
                                    (uint64_t)(uintptr_t)payload->data, off,
                                    len);
        if (status != GCM_OK) {
            return status;
        }
        fold->fn(fold->ctx, off, len);
        sep->fold_pieces++;
    }
    return GCM_OK;
}

gcm_status_t gcm_slots_shm_read(gcm_thr_endpoint_t *endpoint,
                                const gcm_payload_t *payload, void *buf,
                                size_t n, const gcm_slots_fold_t *fold)
{
    gcm_thr_conn_t *conn = gcm_thr_conn_get(endpoint, (int)payload->proc,
                                            payload->ep);
    gcm_shm_ep_t *sep = gcm_shm_ep(endpoint);
    gcm_shm_tx_t *tx = NULL;
    gcm_status_t status;

    /* The notice goes back through shared memory: attach now if this is
     * the first (a cooperative copy needs the ring). */
    if ((conn != NULL) && gcm_slots_shm_usable(endpoint, conn)) {
        tx = conn->shm_tx;
    }

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
        /* A sender that has a large message of ours to read (an
         * exchange) is busy reading it, or soon: it has no hand free for
         * a share, and an offer would only cost both of us (1 MiB each
         * way: 100 us with offers against 86 alone). */
        if (((fold == NULL) || fold->share) &&
            (gcm_slots_config.shm_coop_min > 0) &&
            (n >= gcm_slots_config.shm_coop_min)) {
            if (gcm_slots_shm_owed(endpoint, (int)payload->proc)) {
                sep->coop_skipped++;
            } else if (gcm_thr_is_oversubscribed()) {
                /* More processes than cores: no core is free for a
                 * second copier, and a sender that took a share may be
                 * off its core, waited for until the scheduler runs it
                 * (a time slice, milliseconds). */
                sep->coop_crowded++;
            } else if (gcm_slots_shm_coop_read(sep, tx, payload, buf, n,
                                               fold, &status)) {
                return status;
            }
        }
    }
    if (fold != NULL) {
        return gcm_slots_shm_read_fold(sep, payload, buf, n, fold);
    }
    return gcm_slots_shm_copy(0, payload->pid, payload->proc, buf,
                              (uint64_t)(uintptr_t)payload->data, 0, n);
}

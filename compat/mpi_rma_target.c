/*
 * compat/mpi_rma_target.c: the handler that serves a window's active
 * messages at the target: operations (checked again here: bytes from
 * another process are not believed), replies, lock requests and the
 * synchronization messages.
 */
#include "config.h"

#include "compat/mpi_win.h"

#include <sched.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/uio.h>

/* ---- target: the handler --------------------------------------------------- */

/* May an operation of an origin act here on the runs at disp: inside
 * this window (its size, or its attached regions)? */
static int gcm_win_local_ok(MPI_Win win, const gcm_win_runs_t *r,
                            int64_t disp)
{
    if (win->flavor == MPI_WIN_FLAVOR_DYNAMIC) {
        return gcm_mpi_win_runs_attached(win->ctl, r, disp);
    }
    return gcm_mpi_win_runs_inside(r, disp, (int64_t)win->wsize);
}

int gcm_mpi_win_msg_runs(const gcm_win_msg_t *m, const char *data,
                         size_t len, gcm_win_runs_t *r, const char **rest,
                         size_t *restlen)
{
    size_t need;

    r->run    = r->inl;
    r->n      = 0;
    r->cap    = 0;
    r->nbytes = 0;
    if ((len < sizeof(*m)) ||
        (m->nruns > (len - sizeof(*m)) / sizeof(gcm_win_run_t)) ||
        (m->nruns > (uint32_t)INT32_MAX)) {
        return 0;
    }
    need = sizeof(*m) + (size_t)m->nruns * sizeof(gcm_win_run_t);
    /* The runs are copied out: the message need not be aligned. */
    if (m->nruns <= sizeof(r->inl) / sizeof(r->inl[0])) {
        r->run = r->inl;
    } else {
        r->run = malloc((size_t)m->nruns * sizeof(gcm_win_run_t));
        if (r->run == NULL) {
            r->run = r->inl;
            return 0;
        }
    }
    memcpy(r->run, data + sizeof(*m), (size_t)m->nruns * sizeof(gcm_win_run_t));
    r->n = (int)m->nruns;
    for (int i = 0; i < r->n; i++) {
        if ((r->run[i].len < 0) ||
            ((uint64_t)r->run[i].len > m->nbytes - r->nbytes)) {
            return 0;
        }
        r->nbytes += (size_t)r->run[i].len;
    }
    if (r->nbytes != m->nbytes) {
        return 0;
    }
    *rest    = data + need;
    *restlen = len - need;
    return 1;
}

/* The reply to an operation that wants data back (or its error). */
static void gcm_win_reply(MPI_Win win, int origin, uint64_t id, int err,
                          const char *data, size_t n)
{
    gcm_win_msg_t *m = malloc(sizeof(*m) + ((err == MPI_SUCCESS) ? n : 0));

    if (m == NULL) {
        gcm_warn("rma: out of memory for a reply to rank %d", origin);
        return;
    }
    memset(m, 0, sizeof(*m));
    m->kind   = GCM_WIN_OP_REPLY;
    m->arg    = err;
    m->id     = id;
    m->nbytes = (err == MPI_SUCCESS) ? n : 0;
    if ((err == MPI_SUCCESS) && (n > 0)) {
        memcpy(m + 1, data, n);
    }
    if (gcm_mpi_win_send(win, origin, m, sizeof(*m) + m->nbytes) !=
        MPI_SUCCESS) {
        gcm_warn("rma: a reply to rank %d could not be sent: %s", origin,
                 gcm_last_error());
    }
}

/* Records an error of an origin's operation for its next ACK. */
static void gcm_win_refuse(MPI_Win win, int origin, int err, const char *why)
{
    int zero = 0;

    gcm_debug("rma: refused an operation of rank %d: %s", origin, why);
    (void)atomic_compare_exchange_strong(&win->t[origin].terr, &zero, err);
}

/* An operation of another host's origin, done here. */
static void gcm_win_op_in(MPI_Win win, int origin, const gcm_win_msg_t *m,
                          const char *data, size_t len)
{
    const char *rest, *cmp = NULL;
    size_t restlen, esize = 1;
    gcm_win_runs_t r;
    MPI_Datatype kind = MPI_DATATYPE_NULL;
    MPI_Op op = MPI_OP_NULL;
    char *base = win->base, *out = NULL;
    int wants = (m->kind == GCM_WIN_OP_GET) || (m->kind == GCM_WIN_OP_GACC) ||
                (m->kind == GCM_WIN_OP_CAS);
    int err = MPI_SUCCESS;

    /* What the program wrote before its last call on the window happens
     * before this (gcm_win_publish). */
    gcm_win_observe(win);
    if (!gcm_mpi_win_msg_runs(m, data, len, &r, &rest, &restlen)) {
        gcm_mpi_win_runs_free(&r);
        gcm_win_refuse(win, origin, MPI_ERR_INTERN, "malformed message");
        if (wants) {
            gcm_win_reply(win, origin, m->id, MPI_ERR_INTERN, NULL, 0);
        }
        return;
    }
    if (!gcm_win_local_ok(win, &r, m->disp)) {
        err = MPI_ERR_RMA_RANGE;
    }
    if ((err == MPI_SUCCESS) && (m->kind != GCM_WIN_OP_PUT) &&
        (m->kind != GCM_WIN_OP_GET)) {
        op   = gcm_mpi_op_of_id(m->arg);
        kind = gcm_mpi_basic_handle((gcm_mpi_basic_t)m->basic, &esize);
        if ((m->kind != GCM_WIN_OP_CAS) &&
            ((op == MPI_OP_NULL) ||
             !gcm_mpi_op_allows(m->arg, (gcm_mpi_basic_t)m->basic))) {
            err = MPI_ERR_OP;
        } else if ((kind == MPI_DATATYPE_NULL) ||
                   ((m->nbytes % esize) != 0)) {
            err = MPI_ERR_TYPE;
        }
        for (int i = 0; (err == MPI_SUCCESS) && (i < r.n); i++) {
            if (((size_t)r.run[i].len % esize) != 0) {
                err = MPI_ERR_TYPE;
            }
        }
    }
    /* The data the operation brings. */
    if ((err == MPI_SUCCESS) &&
        ((((m->kind == GCM_WIN_OP_PUT) ||
           (((m->kind == GCM_WIN_OP_ACC) || (m->kind == GCM_WIN_OP_GACC)) &&
            (op != MPI_NO_OP))) &&
          (restlen != m->nbytes)) ||
         ((m->kind == GCM_WIN_OP_CAS) && (restlen != 2 * m->nbytes)))) {
        err = MPI_ERR_INTERN;
    }
    if (err != MPI_SUCCESS) {
        gcm_mpi_win_runs_free(&r);
        gcm_win_refuse(win, origin, err, "out of the window, or malformed");
        if (wants) {
            gcm_win_reply(win, origin, m->id, err, NULL, 0);
        }
        return;
    }
    if (wants) {
        out = malloc((m->nbytes > 0) ? (size_t)m->nbytes : 1);
        if (out == NULL) {
            gcm_mpi_win_runs_free(&r);
            gcm_win_refuse(win, origin, MPI_ERR_NO_MEM, "out of memory");
            gcm_win_reply(win, origin, m->id, MPI_ERR_NO_MEM, NULL, 0);
            return;
        }
    }
    switch (m->kind) {
    case GCM_WIN_OP_PUT:
        gcm_mpi_win_apply(base, m->disp, &r, MPI_REPLACE, MPI_BYTE, 1, rest,
                          NULL, NULL);
        break;
    case GCM_WIN_OP_GET:
        gcm_mpi_win_apply(base, m->disp, &r, MPI_NO_OP, MPI_BYTE, 1, NULL, NULL,
                          out);
        break;
    case GCM_WIN_OP_CAS:
        cmp = rest + m->nbytes;
        /* fall through */
    default:
        gcm_mpi_win_acc_lock(win, win->ctl);
        gcm_mpi_win_apply(base, m->disp, &r, op, kind, esize, rest, cmp, out);
        gcm_mpi_win_acc_unlock(win->ctl);
        break;
    }
    gcm_mpi_win_runs_free(&r);
    atomic_fetch_add_explicit(&win->applied, 1, memory_order_release);
    if (wants) {
        gcm_win_reply(win, origin, m->id, MPI_SUCCESS, out,
                      (size_t)m->nbytes);
        free(out);
    }
}

/* As target: a REMOTE origin asks for the lock. */
static void gcm_win_lock_in(MPI_Win win, int origin, int type)
{
    gcm_win_lockreq_t *more;
    int grant = 0;

    if ((type != MPI_LOCK_SHARED) && (type != MPI_LOCK_EXCLUSIVE)) {
        gcm_warn("rma: rank %d asked for lock type %d", origin, type);
        return;
    }
    pthread_mutex_lock(&win->mtx);
    if ((win->nlockq == 0) && gcm_win_lock_try(win->ctl, type)) {
        grant = 1;
    } else {
        if (win->nlockq == win->lockq_cap) {
            int cap = (win->lockq_cap == 0) ? 8 : 2 * win->lockq_cap;

            more = realloc(win->lockq, (size_t)cap * sizeof(*more));
            if (more == NULL) {
                pthread_mutex_unlock(&win->mtx);
                gcm_error("rma: out of memory for a lock request of rank "
                          "%d: it waits forever", origin);
                return;
            }
            win->lockq = more;
            win->lockq_cap = cap;
        }
        win->lockq[win->nlockq].origin = origin;
        win->lockq[win->nlockq].type   = type;
        win->nlockq++;
        atomic_fetch_add(&win->ctl->rwait, 1);
    }
    pthread_mutex_unlock(&win->mtx);
    if (grant) {
        (void)gcm_mpi_win_send_hdr(win, origin, GCM_WIN_MSG_GRANT, type, 0);
    } else {
        /* A holder of this host that released the lock before it saw
         * rwait counted this request does not send RETRY: look again
         * (rwait first, then the lock word; the releaser stores the word,
         * then reads rwait: one of the two sees the other). */
        gcm_mpi_win_grant_queued(win);
    }
}

void gcm_mpi_win_grant_queued(MPI_Win win)
{
    gcm_win_lockreq_t granted[16];
    int n, i;

    do {
        n = 0;
        pthread_mutex_lock(&win->mtx);
        while ((win->nlockq > 0) && (n < 16) &&
               gcm_win_lock_try(win->ctl, win->lockq[0].type)) {
            granted[n++] = win->lockq[0];
            memmove(win->lockq, win->lockq + 1,
                    (size_t)(win->nlockq - 1) * sizeof(*win->lockq));
            win->nlockq--;
            atomic_fetch_sub(&win->ctl->rwait, 1);
        }
        pthread_mutex_unlock(&win->mtx);
        for (i = 0; i < n; i++) {
            (void)gcm_mpi_win_send_hdr(win, granted[i].origin,
                                       GCM_WIN_MSG_GRANT, granted[i].type, 0);
        }
    } while (n == 16);
}

void gcm_mpi_win_handler(gcm_lco_h lco, int slot, int tag, const void *data,
                         size_t len, void *arg)
{
    gcm_win_msg_t m;
    MPI_Win win;
    int zero = 0;

    (void)tag;
    win = gcm_mpi_win_hold((uint64_t)(uintptr_t)arg);
    if (win == MPI_WIN_NULL) {
        return;
    }
    if ((slot < 0) || (slot >= win->size) || (len < sizeof(m))) {
        gcm_warn("rma: a malformed message (%zu bytes) from slot %d was "
                 "dropped", len, slot);
        goto out;
    }
    memcpy(&m, data, sizeof(m));
    switch (m.kind) {
    case GCM_WIN_MSG_POST:
        atomic_fetch_add(&win->t[slot].posts, 1);
        break;
    case GCM_WIN_MSG_COMPLETE:
        atomic_fetch_add(&win->t[slot].completes, 1);
        break;
    case GCM_WIN_MSG_GRANT:
        atomic_fetch_add(&win->t[slot].grants, 1);
        break;
    case GCM_WIN_MSG_ACK:
        (void)atomic_compare_exchange_strong(&win->t[slot].ackerr, &zero,
                                             m.arg);
        atomic_fetch_add(&win->t[slot].acks, 1);
        break;
    case GCM_WIN_MSG_FLUSH:
        (void)gcm_mpi_win_send_hdr(win, slot, GCM_WIN_MSG_ACK,
                                   atomic_exchange(&win->t[slot].terr, 0), 0);
        break;
    case GCM_WIN_MSG_LOCK:
        gcm_win_lock_in(win, slot, m.arg);
        break;
    case GCM_WIN_MSG_UNLOCK:
        if ((m.arg == MPI_LOCK_SHARED) || (m.arg == MPI_LOCK_EXCLUSIVE)) {
            gcm_win_lock_release(win->ctl, m.arg);
        }
        gcm_mpi_win_grant_queued(win);
        break;
    case GCM_WIN_MSG_RETRY:
        gcm_mpi_win_grant_queued(win);
        break;
    case GCM_WIN_OP_REPLY:
        if (len - sizeof(m) < m.nbytes) {
            gcm_warn("rma: a short reply from rank %d was dropped", slot);
            break;
        }
        gcm_mpi_win_reply_in(win, slot, &m, (const char *)data + sizeof(m),
                             (size_t)m.nbytes);
        break;
    case GCM_WIN_OP_PUT:
    case GCM_WIN_OP_GET:
    case GCM_WIN_OP_ACC:
    case GCM_WIN_OP_GACC:
    case GCM_WIN_OP_CAS:
        gcm_win_op_in(win, slot, &m, data, len);
        break;
    default:
        gcm_warn("rma: a message of unknown kind %u from rank %d was "
                 "dropped", m.kind, slot);
        break;
    }
    /* A thread asleep in a wait on this window looks again. */
    gcm_lco_wake(lco);
    gcm_mpi_win_reap(win, 0);
out:
    gcm_mpi_win_unhold(win);
}

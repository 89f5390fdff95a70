/*
 * compat/mpi_rma_msg.c: the active messages of windows as an origin
 * sends them (on the window's LCO, tag GCM_WIN_TAG), the operations
 * awaiting replies, and the flush that completes what an origin started:
 * a FLUSH message answered by an ACK once the operations before it are
 * done. Those of one origin to one target arrive in order (one
 * connection, matched in sequence), which gives MPI's default accumulate
 * ordering.
 */
#include "config.h"

#include "compat/mpi_win.h"

#include <sched.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/uio.h>

/* ---- window messages ------------------------------------------------------ */

/* Sends len bytes at msg (malloc'd; the window frees it once sent) to
 * rank. */
int gcm_mpi_win_send(MPI_Win win, int rank, void *msg, size_t len)
{
    gcm_request_h req = GCM_REQUEST_NULL;
    uint32_t kind;
    gcm_status_t status;
    gcm_win_send_t *more;

    status = gcm_mpi_isend_bytes(win->comm, msg, len, rank, GCM_WIN_TAG,
                                 &req);
    if (status != GCM_OK) {
        free(msg);
        return gcm_mpi_errclass(status);
    }
    kind = ((const gcm_win_msg_t *)msg)->kind;
    if ((kind != GCM_WIN_MSG_ACK) && (kind != GCM_WIN_MSG_GRANT) &&
        (kind != GCM_WIN_OP_REPLY) && (kind != GCM_WIN_MSG_FLUSH)) {
        atomic_fetch_add(&win->t[rank].unacked, 1);
    }
    pthread_mutex_lock(&win->mtx);
    if (win->nsends == win->sends_cap) {
        int cap = (win->sends_cap == 0) ? 16 : 2 * win->sends_cap;

        more = realloc(win->sends, (size_t)cap * sizeof(*more));
        if (more == NULL) {
            pthread_mutex_unlock(&win->mtx);
            /* Nothing may be lost: wait for this one now. */
            status = gcm_wait(&req, NULL);
            free(msg);
            return gcm_mpi_errclass(status);
        }
        win->sends = more;
        win->sends_cap = cap;
    }
    win->sends[win->nsends].req = req;
    win->sends[win->nsends].tmp = msg;
    win->nsends++;
    atomic_store_explicit(&win->pending_sends, win->nsends,
                          memory_order_relaxed);
    pthread_mutex_unlock(&win->mtx);
    return MPI_SUCCESS;
}

void gcm_mpi_win_reap(MPI_Win win, int wait)
{
    gcm_win_send_t *all = NULL;
    int n = 0, i, flag;

    /* The common case (copies only): nothing was sent. A send another
     * thread adds meanwhile is reaped by a later call. */
    if (atomic_load_explicit(&win->pending_sends, memory_order_relaxed) ==
        0) {
        return;
    }
    pthread_mutex_lock(&win->mtx);
    if (!wait) {
        /* Complete ones out, in place. */
        for (i = 0; i < win->nsends; i++) {
            /* Looked at without progress: progress runs handlers, which
             * take the lock. */
            flag = 0;
            if (gcm_lco_req_done(win->sends[i].req)) {
                (void)gcm_test(&win->sends[i].req, &flag, NULL);
            }
            if (flag) {
                free(win->sends[i].tmp);
                win->sends[i--] = win->sends[--win->nsends];
            }
        }
        atomic_store_explicit(&win->pending_sends, win->nsends,
                              memory_order_relaxed);
        pthread_mutex_unlock(&win->mtx);
        return;
    }
    /* Waited for with the lock released: waiting runs handlers, which
     * take it. */
    all = win->sends;
    n   = win->nsends;
    win->sends = NULL;
    win->nsends = win->sends_cap = 0;
    atomic_store_explicit(&win->pending_sends, 0, memory_order_relaxed);
    pthread_mutex_unlock(&win->mtx);
    for (i = 0; i < n; i++) {
        (void)gcm_wait(&all[i].req, NULL);
        free(all[i].tmp);
    }
    free(all);
}

/* A message of a header and nothing else. */
int gcm_mpi_win_send_hdr(MPI_Win win, int rank, uint32_t kind, int32_t arg,
                         uint64_t id)
{
    gcm_win_msg_t *m = calloc(1, sizeof(*m));

    if (m == NULL) {
        return MPI_ERR_NO_MEM;
    }
    m->kind = kind;
    m->arg  = arg;
    m->id   = id;
    return gcm_mpi_win_send(win, rank, m, sizeof(*m));
}

int gcm_mpi_win_send_sync(MPI_Win win, int rank, int kind, int arg,
                          const char *call)
{
    int rc = gcm_mpi_win_send_hdr(win, rank, (uint32_t)kind, arg, 0);

    if (rc != MPI_SUCCESS) {
        return gcm_mpi_win_raise(win, rc, call, "cannot send to rank %d: %s",
                                 rank, gcm_last_error());
    }
    return MPI_SUCCESS;
}

/* ---- origin: operations awaiting replies ------------------------------ */

gcm_win_op_t *gcm_mpi_win_op_new(MPI_Win win, int target, void *buf,
                                 int count, MPI_Datatype type,
                                 size_t nbytes)
{
    gcm_win_op_t *op = calloc(1, sizeof(*op));

    if (op == NULL) {
        return NULL;
    }
    op->target = target;
    op->buf    = buf;
    op->count  = count;
    op->type   = type;
    op->nbytes = nbytes;
    atomic_init(&op->done, 0);
    pthread_mutex_lock(&win->mtx);
    op->id = win->next_op++;
    gcm_list_push_back(&win->ops, &op->elem);
    pthread_mutex_unlock(&win->mtx);
    return op;
}

/* Takes op off the list if the reply never can come (its send failed). */
void gcm_mpi_win_op_drop(MPI_Win win, gcm_win_op_t *op)
{
    pthread_mutex_lock(&win->mtx);
    gcm_list_del(&op->elem);
    pthread_mutex_unlock(&win->mtx);
    free(op);
}

/* A reply from target: its data goes where the operation said; a
 * blocking operation's record is freed here, a request's by its test. */
void gcm_mpi_win_reply_in(MPI_Win win, int from, const gcm_win_msg_t *m,
                          const char *data, size_t len)
{
    gcm_list_t *pos, *tmp;
    gcm_win_op_t *op = NULL;
    int drop;

    pthread_mutex_lock(&win->mtx);
    gcm_list_for_each_safe(pos, tmp, &win->ops) {
        gcm_win_op_t *o = gcm_container_of(pos, gcm_win_op_t, elem);

        if ((o->id == m->id) && (o->target == from)) {
            gcm_list_del(pos);
            op = o;
            break;
        }
    }
    pthread_mutex_unlock(&win->mtx);
    if (op == NULL) {
        gcm_warn("rma: a reply from rank %d for no operation (id %llu) was "
                 "dropped", from, (unsigned long long)m->id);
        return;
    }
    op->err = m->arg;
    if ((op->err == MPI_SUCCESS) && (len != op->nbytes)) {
        op->err = MPI_ERR_INTERN;
    }
    if (op->err == MPI_SUCCESS) {
        gcm_mpi_type_unpack(op->type, op->count, data, len, op->buf);
    } else {
        /* The flush that waits for it reports the error. */
        int zero = 0;

        (void)atomic_compare_exchange_strong(&win->t[from].ackerr, &zero,
                                             op->err);
    }
    pthread_mutex_lock(&win->mtx);
    drop = !op->is_req || op->detached;
    atomic_store_explicit(&op->done, 1, memory_order_release);
    pthread_mutex_unlock(&win->mtx);
    if (drop) {
        free(op);
    }
}

/* ---- flush --------------------------------------------------------------- */

typedef struct gcm_win_ack_arg {
    gcm_win_target_t *t;
} gcm_win_ack_arg_t;

static int gcm_win_acked(void *arg)
{
    gcm_win_ack_arg_t *a = arg;

    return atomic_load(&a->t->acks) > 0;
}

/* A FLUSH to rank and its ACK: every message sent to rank before it has
 * been handled there (one connection, handled in order). */
static int gcm_win_flush_msgs(MPI_Win win, int rank, const char *call)
{
    gcm_win_target_t *t = &win->t[rank];
    gcm_win_ack_arg_t arg;
    int rc, err;

    atomic_store(&t->unacked, 0);
    rc = gcm_mpi_win_send_hdr(win, rank, GCM_WIN_MSG_FLUSH, 0, 0);
    if (rc != MPI_SUCCESS) {
        return gcm_mpi_win_raise(win, rc, call, "cannot send to rank %d: %s",
                                 rank, gcm_last_error());
    }
    arg.t = t;
    gcm_mpi_win_wait(win, gcm_win_acked, &arg);
    atomic_fetch_sub(&t->acks, 1);
    err = atomic_exchange(&t->ackerr, 0);
    if (err != MPI_SUCCESS) {
        return gcm_mpi_win_raise(win, err, call, "rank %d refused an "
                                 "operation (outside its window or its "
                                 "attached memory, or malformed)", rank);
    }
    return MPI_SUCCESS;
}

int gcm_mpi_win_flush_target(MPI_Win win, int rank, const char *call)
{
    gcm_win_target_t *t = &win->t[rank];
    gcm_status_t status;

    if (t->method != GCM_WIN_REMOTE) {
        /* Copies are complete when the call returns. */
        return MPI_SUCCESS;
    }
    if ((atomic_exchange(&t->nucx, 0) > 0) && (t->rkey != NULL)) {
        status = gcm_lco_rflush(t->rkey);
        if (status != GCM_OK) {
            return gcm_mpi_win_raise(win, gcm_mpi_errclass(status), call,
                                     "completing the transfers to rank %d "
                                     "failed: %s", rank, gcm_last_error());
        }
    }
    if (atomic_exchange(&t->nam, 0) > 0) {
        return gcm_win_flush_msgs(win, rank, call);
    }
    return MPI_SUCCESS;
}

int gcm_mpi_win_quiesce(MPI_Win win, const char *call)
{
    int r, rc = MPI_SUCCESS, rc2;

    for (r = 0; r < win->size; r++) {
        if (atomic_load(&win->t[r].unacked) > 0) {
            atomic_store(&win->t[r].nam, 0);
            rc2 = gcm_win_flush_msgs(win, r, call);
            if (rc == MPI_SUCCESS) {
                rc = rc2;
            }
        }
    }
    return rc;
}

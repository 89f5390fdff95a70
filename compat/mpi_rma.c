/*
 * compat/mpi_rma.c: the one-sided operations (MPI-3.1 11.3): MPI_Put,
 * MPI_Get, MPI_Accumulate, MPI_Get_accumulate, MPI_Fetch_and_op,
 * MPI_Compare_and_swap and their request forms; the active messages of
 * windows and the handler that serves them at the target; the flush that
 * completes what an origin started.
 *
 * An operation names its target data as (displacement, count, datatype):
 * the runs of bytes that count elements of the datatype cover
 * (gcm_mpi_type_runs) at displacement times the target's disp_unit from
 * the start of its window (an address for dynamic windows). The origin
 * checks them against the target's size and then, by the target's path
 * (mpi_win.h): copies them (DIRECT), has the kernel copy them (CMA), or
 * sends the runs and the packed data to the target, whose handler checks
 * them again (bytes from another process are not believed) and does the
 * same there (REMOTE); contiguous puts and gets to a target with a UCX key
 * go by UCX instead.
 *
 * Accumulates apply under the target's accumulate lock (mpi_win.h says
 * why), element by element in the basic type of the operation, with the
 * reduction loops of mpi_op.c. Those of one origin to one target arrive
 * in order (one connection, matched in sequence), which gives MPI's
 * default accumulate ordering; a flush is a FLUSH message answered by an
 * ACK once the operations before it are done.
 */
#include "config.h"

#include "compat/mpi_win.h"

#include <sched.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/uio.h>

/* Every message of a window uses this tag on the window's LCO. */
#define GCM_WIN_TAG 1

/* Operation kinds beyond the synchronization messages (mpi_win.h). */
enum {
    GCM_WIN_OP_PUT = 32,
    GCM_WIN_OP_GET,
    GCM_WIN_OP_ACC,       /* accumulate, no result */
    GCM_WIN_OP_GACC,      /* get_accumulate and fetch_and_op */
    GCM_WIN_OP_CAS,
    GCM_WIN_OP_REPLY      /* data (or an error) for a GET, GACC, CAS */
};

static int gcm_win_runs_add(void *ctx, MPI_Aint disp, MPI_Aint len)
{
    gcm_win_runs_t *r = ctx;

    if (r->n == r->cap) {
        gcm_win_run_t *more;
        int cap = 2 * r->cap;

        more = malloc((size_t)cap * sizeof(*more));
        if (more == NULL) {
            return MPI_ERR_NO_MEM;
        }
        memcpy(more, r->run, (size_t)r->n * sizeof(*more));
        if (r->run != r->inl) {
            free(r->run);
        }
        r->run = more;
        r->cap = cap;
    }
    r->run[r->n].off = disp;
    r->run[r->n].len = len;
    r->n++;
    r->nbytes += (size_t)len;
    return 0;
}

static int gcm_win_runs_of(MPI_Datatype type, int count, gcm_win_runs_t *r)
{
    const void *start;

    r->run    = r->inl;
    r->n      = 0;
    r->cap    = (int)(sizeof(r->inl) / sizeof(r->inl[0]));
    r->nbytes = 0;
    if (gcm_mpi_type_is_contiguous(type, count, NULL, &start)) {
        /* The common case without a walk: one run from the true lb. */
        r->run[0].off = (int64_t)(intptr_t)start;
        r->run[0].len = (int64_t)gcm_mpi_type_size(type) * count;
        r->n      = (r->run[0].len > 0);
        r->nbytes = (size_t)r->run[0].len;
        return MPI_SUCCESS;
    }
    return gcm_mpi_type_runs(type, count, gcm_win_runs_add, r);
}

static void gcm_win_runs_free(gcm_win_runs_t *r)
{
    if (r->run != r->inl) {
        free(r->run);
    }
}

int gcm_mpi_win_runs_inside(const gcm_win_runs_t *r, int64_t disp,
                            int64_t size)
{
    int i;

    for (i = 0; i < r->n; i++) {
        int64_t a;

        /* disp and the runs may come from another process: a sum past
         * int64_t lies outside whatever it would wrap to. */
        if (__builtin_add_overflow(disp, r->run[i].off, &a) ||
            (r->run[i].len < 0) || (a < 0) || (a > size) ||
            (r->run[i].len > size - a)) {
            return 0;
        }
    }
    return 1;
}

/* Does [addr, addr + len) lie in one region of a dynamic window's control
 * block (this host: read from shared memory)? */
static int gcm_win_attached(gcm_win_ctl_t *ctl, uint64_t addr, uint64_t len)
{
    int i;

    for (i = 0; i < GCM_WIN_MAX_ATTACH; i++) {
        uint64_t l = atomic_load_explicit(&ctl->attach[i].len,
                                          memory_order_acquire);
        uint64_t b = atomic_load_explicit(&ctl->attach[i].base,
                                          memory_order_relaxed);

        if ((l != 0) && (addr >= b) && (addr - b <= l) &&
            (len <= l - (addr - b))) {
            return 1;
        }
    }
    return 0;
}

int gcm_mpi_win_runs_attached(gcm_win_ctl_t *ctl, const gcm_win_runs_t *r,
                              int64_t disp)
{
    int i;

    for (i = 0; i < r->n; i++) {
        int64_t a;

        if (__builtin_add_overflow(disp, r->run[i].off, &a) ||
            (r->run[i].len < 0) ||
            !gcm_win_attached(ctl, (uint64_t)a, (uint64_t)r->run[i].len)) {
            return 0;
        }
    }
    return 1;
}

/* ---- the accumulate lock and applying operations ------------------------ */

static int gcm_win_acc_free(void *arg)
{
    gcm_win_ctl_t *ctl = arg;
    uint32_t zero = 0;

    return atomic_compare_exchange_strong_explicit(&ctl->acc, &zero, 1,
                                                   memory_order_acquire,
                                                   memory_order_relaxed);
}

void gcm_mpi_win_acc_lock(MPI_Win win, gcm_win_ctl_t *ctl)
{
    unsigned i;

    /* Held for a few copies only: spin, then yield (never sleep long, and
     * never progress: a handler may be what takes it). */
    for (i = 0; !gcm_win_acc_free(ctl); i++) {
        if (i > 64) {
            sched_yield();
        }
    }
    (void)win;
}

void gcm_mpi_win_acc_unlock(gcm_win_ctl_t *ctl)
{
    atomic_store_explicit(&ctl->acc, 0, memory_order_release);
}

/*
 * Applies an accumulate at base (memory of this process, or mapped here)
 * over the runs: old data to out (if not NULL), then in op old into it
 * (kind: the elements' basic type). The caller holds the accumulate
 * lock. CAS when cmp is not NULL: one element, replaced by in if it
 * equals cmp.
 */
static void gcm_win_apply(char *base, int64_t disp, const gcm_win_runs_t *r,
                          MPI_Op op, MPI_Datatype kind, size_t esize,
                          const char *in, const char *cmp, char *out)
{
    size_t done = 0;
    int i;

    for (i = 0; i < r->n; i++) {
        /* Through integers: a dynamic window's base is address 0. */
        char *p = (char *)((uintptr_t)base + (uintptr_t)(disp +
                                                         r->run[i].off));
        size_t len = (size_t)r->run[i].len;

        if (out != NULL) {
            memcpy(out + done, p, len);
        }
        if (cmp != NULL) {
            if (memcmp(p, cmp + done, len) == 0) {
                memcpy(p, in + done, len);
            }
        } else if (op == MPI_REPLACE) {
            memcpy(p, in + done, len);
        } else if ((op != MPI_NO_OP) && (len > 0)) {
            gcm_mpi_op_apply(op, in + done, p, (int)(len / esize), kind);
        }
        done += len;
    }
}

/* ---- window messages ------------------------------------------------------ */

/* Sends len bytes at msg (malloc'd; the window frees it once sent) to
 * rank. */
static int gcm_win_send(MPI_Win win, int rank, void *msg, size_t len)
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
static int gcm_win_send_hdr(MPI_Win win, int rank, uint32_t kind, int32_t arg,
                            uint64_t id)
{
    gcm_win_msg_t *m = calloc(1, sizeof(*m));

    if (m == NULL) {
        return MPI_ERR_NO_MEM;
    }
    m->kind = kind;
    m->arg  = arg;
    m->id   = id;
    return gcm_win_send(win, rank, m, sizeof(*m));
}

int gcm_mpi_win_send_sync(MPI_Win win, int rank, int kind, int arg,
                          const char *call)
{
    int rc = gcm_win_send_hdr(win, rank, (uint32_t)kind, arg, 0);

    if (rc != MPI_SUCCESS) {
        return gcm_mpi_win_raise(win, rc, call, "cannot send to rank %d: %s",
                                 rank, gcm_last_error());
    }
    return MPI_SUCCESS;
}

/* ---- origin: operations awaiting replies ------------------------------ */

static gcm_win_op_t *gcm_win_op_new(MPI_Win win, int target, void *buf,
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
static void gcm_win_op_drop(MPI_Win win, gcm_win_op_t *op)
{
    pthread_mutex_lock(&win->mtx);
    gcm_list_del(&op->elem);
    pthread_mutex_unlock(&win->mtx);
    free(op);
}

/* A reply from target: its data goes where the operation said; a
 * blocking operation's record is freed here, a request's by its test. */
static void gcm_win_reply_in(MPI_Win win, int from, const gcm_win_msg_t *m,
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
    if (gcm_win_send(win, origin, m, sizeof(*m) + m->nbytes) != MPI_SUCCESS) {
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
        gcm_win_runs_free(&r);
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
        gcm_win_runs_free(&r);
        gcm_win_refuse(win, origin, err, "out of the window, or malformed");
        if (wants) {
            gcm_win_reply(win, origin, m->id, err, NULL, 0);
        }
        return;
    }
    if (wants) {
        out = malloc((m->nbytes > 0) ? (size_t)m->nbytes : 1);
        if (out == NULL) {
            gcm_win_runs_free(&r);
            gcm_win_refuse(win, origin, MPI_ERR_NO_MEM, "out of memory");
            gcm_win_reply(win, origin, m->id, MPI_ERR_NO_MEM, NULL, 0);
            return;
        }
    }
    switch (m->kind) {
    case GCM_WIN_OP_PUT:
        gcm_win_apply(base, m->disp, &r, MPI_REPLACE, MPI_BYTE, 1, rest, NULL,
                      NULL);
        break;
    case GCM_WIN_OP_GET:
        gcm_win_apply(base, m->disp, &r, MPI_NO_OP, MPI_BYTE, 1, NULL, NULL,
                      out);
        break;
    case GCM_WIN_OP_CAS:
        cmp = rest + m->nbytes;
        /* fall through */
    default:
        gcm_mpi_win_acc_lock(win, win->ctl);
        gcm_win_apply(base, m->disp, &r, op, kind, esize, rest, cmp, out);
        gcm_mpi_win_acc_unlock(win->ctl);
        break;
    }
    gcm_win_runs_free(&r);
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
        (void)gcm_win_send_hdr(win, origin, GCM_WIN_MSG_GRANT, type, 0);
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
            (void)gcm_win_send_hdr(win, granted[i].origin, GCM_WIN_MSG_GRANT,
                                   granted[i].type, 0);
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
        (void)gcm_win_send_hdr(win, slot, GCM_WIN_MSG_ACK,
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
        gcm_win_reply_in(win, slot, &m, (const char *)data + sizeof(m),
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
    rc = gcm_win_send_hdr(win, rank, GCM_WIN_MSG_FLUSH, 0, 0);
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

/* ---- the operations --------------------------------------------------------- */

typedef enum {
    GCM_WIN_PUT,
    GCM_WIN_GET,
    GCM_WIN_ACC,
    GCM_WIN_GACC,
    GCM_WIN_CAS
} gcm_win_kind_t;

/* One operation as the user called it. */
typedef struct gcm_win_call {
    gcm_win_kind_t kind;
    const char    *name;
    const void    *obuf;     /* origin data (put, accumulates, CAS value) */
    int            ocount;
    MPI_Datatype   otype;
    const void    *cbuf;     /* CAS: the compare value */
    void          *rbuf;     /* get's buffer, or the result of the others */
    int            rcount;
    MPI_Datatype   rtype;
    int            rank;
    MPI_Aint       disp;
    int            tcount;
    MPI_Datatype   ttype;
    MPI_Op         op;
    MPI_Request   *req;      /* request forms */
} gcm_win_call_t;

static int gcm_win_check_type(MPI_Win win, MPI_Datatype type, int count,
                              const char *what, const char *call)
{
    MPI_Count len;
    int cls;

    if (count < 0) {
        return gcm_mpi_win_raise(win, MPI_ERR_COUNT, call, "%s count %d is "
                                 "negative", what, count);
    }
    if ((cls = gcm_mpi_type_check(type)) != 0) {
        return gcm_mpi_win_raise(win, cls, call, "%s datatype is not a "
                                 "valid, committed datatype", what);
    }
    /* Every length below is count times the size: it must not wrap. */
    if (__builtin_mul_overflow(gcm_mpi_type_size(type), (MPI_Count)count,
                               &len) || ((uint64_t)len > PTRDIFF_MAX)) {
        return gcm_mpi_win_raise(win, MPI_ERR_COUNT, call, "%s count %d of "
                                 "%lld-byte elements is more bytes than "
                                 "any buffer holds", what, count,
                                 (long long)gcm_mpi_type_size(type));
    }
    return MPI_SUCCESS;
}

/* Can this process access rank in the epochs open now? */
static int gcm_win_may_access(MPI_Win win, int rank)
{
    return win->fence || win->lock_all || (win->t[rank].lock != 0) ||
           win->t[rank].access_in;
}

/* Copies packed data to or from a target of this host through the
 * kernel, over the runs at disp. */
static int gcm_win_cma(MPI_Win win, gcm_win_target_t *t, int write,
                       char *buf, const gcm_win_runs_t *r, int64_t disp)
{
    struct iovec one, *iov = &one;
    gcm_status_t status;
    int i;

    if (r->n > 1) {
        iov = malloc((size_t)r->n * sizeof(*iov));
        if (iov == NULL) {
            return MPI_ERR_NO_MEM;
        }
    }
    for (i = 0; i < r->n; i++) {
        iov[i].iov_base = t->base + disp + r->run[i].off;
        iov[i].iov_len  = (size_t)r->run[i].len;
    }
    status = (r->n > 0) ? gcm_lco_cma(t->pid, write, buf, iov, (size_t)r->n) :
             GCM_OK;
    if (iov != &one) {
        free(iov);
    }
    (void)win;
    return (status == GCM_OK) ? MPI_SUCCESS : gcm_mpi_errclass(status);
}

/* The message of a REMOTE operation: header, runs, then data. */
static void *gcm_win_msg_build(const gcm_win_call_t *c, uint32_t kind,
                               int32_t arg, uint64_t id, int64_t disp,
                               uint32_t basic, const gcm_win_runs_t *r,
                               const void *d1, size_t n1, const void *d2,
                               size_t n2, size_t *len_p)
{
    size_t len = sizeof(gcm_win_msg_t) + (size_t)r->n * sizeof(gcm_win_run_t) +
                 n1 + n2;
    gcm_win_msg_t *m = malloc(len);
    char *p;

    (void)c;
    if (m == NULL) {
        return NULL;
    }
    memset(m, 0, sizeof(*m));
    m->kind   = kind;
    m->arg    = arg;
    m->id     = id;
    m->disp   = disp;
    m->nbytes = r->nbytes;
    m->nruns  = (uint32_t)r->n;
    m->basic  = basic;
    p = (char *)(m + 1);
    memcpy(p, r->run, (size_t)r->n * sizeof(gcm_win_run_t));
    p += (size_t)r->n * sizeof(gcm_win_run_t);
    if (n1 > 0) {
        memcpy(p, d1, n1);
        p += n1;
    }
    if (n2 > 0) {
        memcpy(p, d2, n2);
    }
    *len_p = len;
    return m;
}

/* Request forms: what a request waits for. */
typedef struct gcm_win_rstate {
    MPI_Win       win;
    gcm_win_op_t *op;    /* a reply, or NULL: complete at once */
} gcm_win_rstate_t;

static int gcm_win_req_poll(gcm_mpi_req_t *req)
{
    gcm_win_rstate_t *s = req->state;

    if ((s->op != NULL) &&
        !atomic_load_explicit(&s->op->done, memory_order_acquire)) {
        return 0;
    }
    gcm_mpi_status_empty(&req->status);
    if (s->op != NULL) {
        req->status.MPI_ERROR = s->op->err;
    }
    return 1;
}

static void gcm_win_req_cleanup(void *state)
{
    gcm_win_rstate_t *s = state;
    int drop = 1;

    if (s->op != NULL) {
        pthread_mutex_lock(&s->win->mtx);
        if (!atomic_load(&s->op->done)) {
            /* MPI_Request_free before the reply: the reply frees it. */
            s->op->detached = 1;
            drop = 0;
        }
        pthread_mutex_unlock(&s->win->mtx);
        if (drop) {
            free(s->op);
        }
    }
    free(s);
}

/*
 * The fast path of the commonest operations: one target reached
 * directly, one predefined type on both sides (as many elements), no
 * request: a put or get is one copy, a fetch-and-op on an integer of 4 or
 * 8 bytes with one of the usual operations is done in line under the
 * accumulate lock. Returns -1 when it does not apply (the general path
 * then does everything, checks included), else the result. The
 * displacement is checked here as the general path would.
 */
static int gcm_win_op_fast(MPI_Win win, const gcm_win_call_t *c,
                           gcm_win_target_t *t)
{
    MPI_Datatype type = c->ttype;
    MPI_Count size;
    int64_t off, n;
    char *p;

    if ((t->method != GCM_WIN_DIRECT) || (c->req != NULL) ||
        (win->flavor == MPI_WIN_FLAVOR_DYNAMIC) || (c->tcount <= 0) ||
        (type == MPI_DATATYPE_NULL) || !gcm_mpi_type_is_predefined(type)) {
        return -1;
    }
    if (((c->kind == GCM_WIN_PUT) || (c->kind >= GCM_WIN_ACC)) &&
        ((c->otype != type) || (c->ocount != c->tcount))) {
        return -1;
    }
    if (((c->kind == GCM_WIN_GET) || (c->kind >= GCM_WIN_GACC)) &&
        ((c->rtype != type) || (c->rcount != c->tcount))) {
        return -1;
    }
    size = gcm_mpi_type_size(type);
    n    = (int64_t)size * c->tcount;
    off  = (int64_t)c->disp * t->disp_unit;
    if ((off < 0) || (off > (int64_t)t->size) ||
        (n > (int64_t)t->size - off)) {
        return -1;
    }
    p = t->base + off;
    switch (c->kind) {
    case GCM_WIN_PUT:
        memcpy(p, c->obuf, (size_t)n);
        return MPI_SUCCESS;
    case GCM_WIN_GET:
        memcpy(c->rbuf, p, (size_t)n);
        return MPI_SUCCESS;
    case GCM_WIN_GACC:
        break;
    default:
        return -1;
    }
    /* Fetch-and-op of one integer; the other kinds the general path
     * does (the reduction loops of mpi_op.c, under the same lock). */
    if ((c->tcount != 1) || ((size != 4) && (size != 8)) ||
        ((type != MPI_INT) && (type != MPI_LONG) && (type != MPI_LONG_LONG) &&
         (type != MPI_INT64_T) && (type != MPI_INT32_T) &&
         (type != MPI_UNSIGNED) && (type != MPI_UNSIGNED_LONG) &&
         (type != MPI_UINT64_T) && (type != MPI_UINT32_T) &&
         (type != MPI_AINT))) {
        return -1;
    }
    if ((c->op != MPI_SUM) && (c->op != MPI_REPLACE) &&
        (c->op != MPI_NO_OP)) {
        return -1;
    }
    gcm_mpi_win_acc_lock(win, t->ctl);
    memcpy(c->rbuf, p, (size_t)size);
    if (c->op != MPI_NO_OP) {
        if (size == 8) {
            uint64_t a, b;

            memcpy(&a, p, 8);
            memcpy(&b, c->obuf, 8);
            a = (c->op == MPI_SUM) ? a + b : b;
            memcpy(p, &a, 8);
        } else {
            uint32_t a, b;

            memcpy(&a, p, 4);
            memcpy(&b, c->obuf, 4);
            a = (c->op == MPI_SUM) ? a + b : b;
            memcpy(p, &a, 4);
        }
    }
    gcm_mpi_win_acc_unlock(t->ctl);
    return MPI_SUCCESS;
}

static int gcm_win_op(MPI_Win win, gcm_win_call_t *c)
{
    const char *call = c->name;
    gcm_win_target_t *t;
    gcm_win_runs_t r;
    const void *ostart = NULL, *rstart = NULL;
    char *in = NULL, *res = NULL, *tmpin = NULL, *tmpres = NULL;
    size_t obytes, tbytes, rbytes = 0, esize = 1, mlen;
    MPI_Datatype kindtype = MPI_BYTE;
    gcm_mpi_basic_t basic = GCM_MPI_BASIC_NONE, obasic;
    gcm_win_op_t *op = NULL;
    gcm_win_rstate_t *rs = NULL;
    int64_t disp;
    int rc, acc = (c->kind >= GCM_WIN_ACC);
    void *msg;

    if ((rc = gcm_mpi_win_valid(win, call)) != MPI_SUCCESS) {
        return rc;
    }
    if ((c->req != NULL) && (c->rank != MPI_PROC_NULL) &&
        !win->lock_all && ((c->rank < 0) || (c->rank >= win->size) ||
                           (win->t[c->rank].lock == 0))) {
        return gcm_mpi_win_raise(win, MPI_ERR_RMA_SYNC, call, "request-"
                                 "based operations need a passive-target "
                                 "epoch (MPI_Win_lock or MPI_Win_lock_all)");
    }
    if (c->rank == MPI_PROC_NULL) {
        if (c->req != NULL) {
            rc = gcm_mpi_req_generic(win->comm, NULL, NULL, NULL, c->req);
            if (rc != MPI_SUCCESS) {
                return gcm_mpi_win_raise(win, rc, call, "out of memory");
            }
        }
        return MPI_SUCCESS;
    }
    if ((c->rank < 0) || (c->rank >= win->size)) {
        return gcm_mpi_win_raise(win, MPI_ERR_RANK, call, "target rank %d "
                                 "is not a rank of the window (size %d)",
                                 c->rank, win->size);
    }
    if (!gcm_win_may_access(win, c->rank)) {
        return gcm_mpi_win_raise(win, MPI_ERR_RMA_SYNC, call, "no access "
                                 "epoch to rank %d is open (MPI_Win_fence, "
                                 "MPI_Win_start, MPI_Win_lock or "
                                 "MPI_Win_lock_all first)", c->rank);
    }
    if ((rc = gcm_win_op_fast(win, c, &win->t[c->rank])) >= 0) {
        return rc;
    }
    if (((rc = gcm_win_check_type(win, c->ttype, c->tcount, "target",
                                  call)) != MPI_SUCCESS) ||
        ((c->obuf != NULL || c->kind == GCM_WIN_PUT || c->kind == GCM_WIN_ACC)
         && (c->kind != GCM_WIN_GET) &&
         ((rc = gcm_win_check_type(win, c->otype, c->ocount, "origin",
                                   call)) != MPI_SUCCESS)) ||
        ((c->rbuf != NULL || c->kind == GCM_WIN_GET) &&
         ((rc = gcm_win_check_type(win, c->rtype, c->rcount,
                                   (c->kind == GCM_WIN_GET) ? "origin" :
                                   "result", call)) != MPI_SUCCESS))) {
        return rc;
    }
    if ((c->kind == GCM_WIN_CAS) && !gcm_mpi_type_is_predefined(c->ttype)) {
        return gcm_mpi_win_raise(win, MPI_ERR_TYPE, call, "the datatype "
                                 "must be a predefined one");
    }
    if ((c->kind == GCM_WIN_CAS) && (c->cbuf == NULL)) {
        return gcm_mpi_win_raise(win, MPI_ERR_BUFFER, call, "compare_addr "
                                 "is NULL");
    }
    t = &win->t[c->rank];
    tbytes = (size_t)gcm_mpi_type_size(c->ttype) * (size_t)c->tcount;
    obytes = (c->kind == GCM_WIN_GET) ? 0 :
             (size_t)gcm_mpi_type_size(c->otype) * (size_t)c->ocount;
    if ((c->kind == GCM_WIN_GET) || (c->kind == GCM_WIN_GACC) ||
        (c->kind == GCM_WIN_CAS)) {
        rbytes = (size_t)gcm_mpi_type_size(c->rtype) * (size_t)c->rcount;
    }
    if (acc) {
        /* MPI-3.1 11.3.4: predefined operations only, on the basic type
         * both sides are made of. */
        if ((c->op == MPI_OP_NULL) || (gcm_mpi_op_id(c->op) < 0)) {
            return gcm_mpi_win_raise(win, MPI_ERR_OP, call, "one-sided "
                                     "accumulates take predefined "
                                     "operations only");
        }
        basic = gcm_mpi_type_basic(c->ttype, NULL);
        kindtype = gcm_mpi_basic_handle(basic, &esize);
        if ((kindtype == MPI_DATATYPE_NULL) ||
            !gcm_mpi_op_allows(gcm_mpi_op_id(c->op), basic)) {
            return gcm_mpi_win_raise(win, MPI_ERR_OP, call, "%s is not "
                                     "defined on the target datatype (or it "
                                     "is not built from one predefined "
                                     "type)", gcm_mpi_op_id_name(
                                         gcm_mpi_op_id(c->op)));
        }
        if ((c->op != MPI_NO_OP) || (c->kind == GCM_WIN_CAS)) {
            obasic = gcm_mpi_type_basic(c->otype, NULL);
            if (obasic != basic) {
                return gcm_mpi_win_raise(win, MPI_ERR_TYPE, call, "the "
                                         "origin and target datatypes are "
                                         "not built from the same "
                                         "predefined type");
            }
        } else {
            obytes = 0;
        }
    }
    if (((c->kind == GCM_WIN_PUT || (acc && obytes > 0)) &&
         (obytes != tbytes)) ||
        ((c->kind == GCM_WIN_GET || c->kind == GCM_WIN_GACC ||
          c->kind == GCM_WIN_CAS) && (rbytes != tbytes))) {
        return gcm_mpi_win_raise(win, MPI_ERR_TYPE, call, "the origin and "
                                 "target data differ in size (%zu and %zu "
                                 "bytes)", (c->kind == GCM_WIN_GET) ?
                                 rbytes : obytes, tbytes);
    }
    if (tbytes == 0) {
        goto done;
    }
    rc = gcm_win_runs_of(c->ttype, c->tcount, &r);
    if (rc != MPI_SUCCESS) {
        gcm_win_runs_free(&r);
        return gcm_mpi_win_raise(win, rc, call, "out of memory");
    }
    disp = (int64_t)c->disp * ((win->flavor == MPI_WIN_FLAVOR_DYNAMIC) ? 1 :
                               t->disp_unit);
    if (win->flavor == MPI_WIN_FLAVOR_DYNAMIC) {
        if ((t->ctl != NULL) && !gcm_mpi_win_runs_attached(t->ctl, &r, disp)) {
            gcm_win_runs_free(&r);
            return gcm_mpi_win_raise(win, MPI_ERR_RMA_RANGE, call, "address "
                                     "%#lx (%zu bytes) is not in memory rank "
                                     "%d attached", (unsigned long)c->disp,
                                     tbytes, c->rank);
        }
    } else if (!gcm_mpi_win_runs_inside(&r, disp, (int64_t)t->size)) {
        gcm_win_runs_free(&r);
        return gcm_mpi_win_raise(win, MPI_ERR_RMA_RANGE, call, "displacement "
                                 "%ld (%zu bytes) lies outside the %ld bytes "
                                 "of rank %d's window", (long)c->disp,
                                 tbytes, (long)t->size, c->rank);
    }

    /* The origin side as packed data (or as it is, when contiguous). */
    if (obytes > 0) {
        if (gcm_mpi_type_is_contiguous(c->otype, c->ocount, c->obuf,
                                       &ostart)) {
            in = (char *)ostart;
        } else {
            tmpin = malloc(obytes);
            if (tmpin == NULL) {
                rc = MPI_ERR_NO_MEM;
                goto out;
            }
            gcm_mpi_type_pack(c->otype, c->ocount, c->obuf, tmpin);
            in = tmpin;
        }
    }
    if (rbytes > 0) {
        if (gcm_mpi_type_is_contiguous(c->rtype, c->rcount, c->rbuf,
                                       &rstart)) {
            res = (char *)rstart;
        } else {
            tmpres = malloc(rbytes);
            if (tmpres == NULL) {
                rc = MPI_ERR_NO_MEM;
                goto out;
            }
            res = tmpres;
        }
    }

    switch (t->method) {
    case GCM_WIN_DIRECT:
        if (acc) {
            gcm_mpi_win_acc_lock(win, t->ctl);
            gcm_win_apply(t->base, disp, &r, c->op, kindtype, esize, in,
                          (const char *)c->cbuf, res);
            gcm_mpi_win_acc_unlock(t->ctl);
        } else {
            gcm_win_apply(t->base, disp, &r,
                          (c->kind == GCM_WIN_PUT) ? MPI_REPLACE : MPI_NO_OP,
                          MPI_BYTE, 1, in, NULL, res);
        }
        break;
    case GCM_WIN_CMA:
        if (!acc) {
            rc = gcm_win_cma(win, t, c->kind == GCM_WIN_PUT,
                             (c->kind == GCM_WIN_PUT) ? in : res, &r, disp);
            break;
        }
        {
            /* Read, apply, write back, under the target's lock. */
            char *cur = malloc(tbytes);
            gcm_win_runs_t one;

            if (cur == NULL) {
                rc = MPI_ERR_NO_MEM;
                break;
            }
            one.run = one.inl;
            one.n   = 1;
            one.inl[0].off = 0;
            one.inl[0].len = (int64_t)tbytes;
            one.nbytes = tbytes;
            gcm_mpi_win_acc_lock(win, t->ctl);
            rc = gcm_win_cma(win, t, 0, cur, &r, disp);
            if (rc == MPI_SUCCESS) {
                gcm_win_apply(cur, 0, &one, c->op, kindtype, esize, in,
                              (const char *)c->cbuf, res);
                if ((c->op != MPI_NO_OP) || (c->cbuf != NULL)) {
                    rc = gcm_win_cma(win, t, 1, cur, &r, disp);
                }
            }
            gcm_mpi_win_acc_unlock(t->ctl);
            free(cur);
        }
        break;
    case GCM_WIN_REMOTE:
    default:
        if ((t->rkey != NULL) && !acc && (c->req == NULL) && (r.n == 1) &&
            (win->flavor != MPI_WIN_FLAVOR_DYNAMIC) &&
            (((c->kind == GCM_WIN_PUT) && (tmpin == NULL)) ||
             ((c->kind == GCM_WIN_GET) && (tmpres == NULL)))) {
            /* One run, and the origin contiguous: UCX straight between
             * the buffers (complete at the next flush). */
            uint64_t raddr = (uint64_t)(uintptr_t)t->base +
                             (uint64_t)(disp + r.run[0].off);
            gcm_status_t status = (c->kind == GCM_WIN_PUT) ?
                gcm_lco_rput(t->rkey, in, tbytes, raddr) :
                gcm_lco_rget(t->rkey, res, tbytes, raddr);

            if (status != GCM_OK) {
                rc = gcm_mpi_errclass(status);
                break;
            }
            atomic_fetch_add(&t->nucx, 1);
            break;
        }
        if ((c->kind != GCM_WIN_PUT) && (c->kind != GCM_WIN_ACC)) {
            /* The reply goes to the user's buffer (unpacked there). */
            op = gcm_win_op_new(win, c->rank, c->rbuf, c->rcount, c->rtype,
                                rbytes);
            if (op == NULL) {
                rc = MPI_ERR_NO_MEM;
                break;
            }
            op->is_req = (c->req != NULL);
        }
        msg = gcm_win_msg_build(c, (c->kind == GCM_WIN_PUT) ? GCM_WIN_OP_PUT :
                                (c->kind == GCM_WIN_GET) ? GCM_WIN_OP_GET :
                                (c->kind == GCM_WIN_ACC) ? GCM_WIN_OP_ACC :
                                (c->kind == GCM_WIN_GACC) ? GCM_WIN_OP_GACC :
                                GCM_WIN_OP_CAS,
                                acc ? gcm_mpi_op_id(c->op) : 0,
                                (op != NULL) ? op->id : 0, disp,
                                (uint32_t)basic, &r, in, obytes, c->cbuf,
                                (c->kind == GCM_WIN_CAS) ? tbytes : 0,
                                &mlen);
        if (msg == NULL) {
            rc = MPI_ERR_NO_MEM;
        } else {
            rc = gcm_win_send(win, c->rank, msg, mlen);
        }
        if (rc != MPI_SUCCESS) {
            if (op != NULL) {
                gcm_win_op_drop(win, op);
                op = NULL;
            }
            break;
        }
        atomic_fetch_add(&t->nam, 1);
        break;
    }
out:
    gcm_win_runs_free(&r);
    if ((rc == MPI_SUCCESS) && (tmpres != NULL) &&
        (t->method != GCM_WIN_REMOTE)) {
        gcm_mpi_type_unpack(c->rtype, c->rcount, tmpres, rbytes, c->rbuf);
    }
    free(tmpin);
    free(tmpres);
    if (rc != MPI_SUCCESS) {
        return gcm_mpi_win_raise(win, rc, call, "the operation on rank %d "
                                 "failed: %s", c->rank, gcm_last_error());
    }
done:
    if (c->req != NULL) {
        rs = calloc(1, sizeof(*rs));
        if (rs == NULL) {
            /* The operation is on its way: wait for it instead. */
            rc = gcm_mpi_win_flush_target(win, c->rank, call);
            if (rc == MPI_SUCCESS) {
                rc = gcm_mpi_req_generic(win->comm, NULL, NULL, NULL, c->req);
            }
            return rc;
        }
        rs->win = win;
        rs->op  = op;
        rc = gcm_mpi_req_generic(win->comm, gcm_win_req_poll,
                                 gcm_win_req_cleanup, rs, c->req);
        if (rc != MPI_SUCCESS) {
            /* The reply frees the operation. */
            gcm_win_req_cleanup(rs);
            return gcm_mpi_win_raise(win, rc, call, "out of memory");
        }
    }
    return MPI_SUCCESS;
}

/* ---- the MPI calls --------------------------------------------------------- */

int PMPI_Put(const void *origin_addr, int origin_count,
             MPI_Datatype origin_datatype, int target_rank,
             MPI_Aint target_disp, int target_count,
             MPI_Datatype target_datatype, MPI_Win win)
{
    gcm_win_call_t c = {
        .kind = GCM_WIN_PUT, .name = "MPI_Put", .obuf = origin_addr,
        .ocount = origin_count, .otype = origin_datatype,
        .rank = target_rank, .disp = target_disp, .tcount = target_count,
        .ttype = target_datatype,
    };

    return gcm_win_op(win, &c);
}
GCM_MPI_ALIAS(Put)

int PMPI_Get(void *origin_addr, int origin_count,
             MPI_Datatype origin_datatype, int target_rank,
             MPI_Aint target_disp, int target_count,
             MPI_Datatype target_datatype, MPI_Win win)
{
    gcm_win_call_t c = {
        .kind = GCM_WIN_GET, .name = "MPI_Get", .rbuf = origin_addr,
        .rcount = origin_count, .rtype = origin_datatype,
        .rank = target_rank, .disp = target_disp, .tcount = target_count,
        .ttype = target_datatype,
    };

    return gcm_win_op(win, &c);
}
GCM_MPI_ALIAS(Get)

int PMPI_Accumulate(const void *origin_addr, int origin_count,
                    MPI_Datatype origin_datatype, int target_rank,
                    MPI_Aint target_disp, int target_count,
                    MPI_Datatype target_datatype, MPI_Op op, MPI_Win win)
{
    gcm_win_call_t c = {
        .kind = GCM_WIN_ACC, .name = "MPI_Accumulate", .obuf = origin_addr,
        .ocount = origin_count, .otype = origin_datatype,
        .rank = target_rank, .disp = target_disp, .tcount = target_count,
        .ttype = target_datatype, .op = op,
    };

    return gcm_win_op(win, &c);
}
GCM_MPI_ALIAS(Accumulate)

int PMPI_Get_accumulate(const void *origin_addr, int origin_count,
                        MPI_Datatype origin_datatype, void *result_addr,
                        int result_count, MPI_Datatype result_datatype,
                        int target_rank, MPI_Aint target_disp,
                        int target_count, MPI_Datatype target_datatype,
                        MPI_Op op, MPI_Win win)
{
    gcm_win_call_t c = {
        .kind = GCM_WIN_GACC, .name = "MPI_Get_accumulate",
        .obuf = origin_addr, .ocount = origin_count,
        .otype = origin_datatype, .rbuf = result_addr,
        .rcount = result_count, .rtype = result_datatype,
        .rank = target_rank, .disp = target_disp, .tcount = target_count,
        .ttype = target_datatype, .op = op,
    };

    return gcm_win_op(win, &c);
}
GCM_MPI_ALIAS(Get_accumulate)

int PMPI_Fetch_and_op(const void *origin_addr, void *result_addr,
                      MPI_Datatype datatype, int target_rank,
                      MPI_Aint target_disp, MPI_Op op, MPI_Win win)
{
    gcm_win_call_t c = {
        .kind = GCM_WIN_GACC, .name = "MPI_Fetch_and_op",
        .obuf = origin_addr, .ocount = 1, .otype = datatype,
        .rbuf = result_addr, .rcount = 1, .rtype = datatype,
        .rank = target_rank, .disp = target_disp, .tcount = 1,
        .ttype = datatype, .op = op,
    };

    return gcm_win_op(win, &c);
}
GCM_MPI_ALIAS(Fetch_and_op)

int PMPI_Compare_and_swap(const void *origin_addr, const void *compare_addr,
                          void *result_addr, MPI_Datatype datatype,
                          int target_rank, MPI_Aint target_disp, MPI_Win win)
{
    gcm_win_call_t c = {
        .kind = GCM_WIN_CAS, .name = "MPI_Compare_and_swap",
        .obuf = origin_addr, .ocount = 1, .otype = datatype,
        .cbuf = compare_addr, .rbuf = result_addr, .rcount = 1,
        .rtype = datatype, .rank = target_rank, .disp = target_disp,
        .tcount = 1, .ttype = datatype, .op = MPI_REPLACE,
    };

    return gcm_win_op(win, &c);
}
GCM_MPI_ALIAS(Compare_and_swap)

int PMPI_Rput(const void *origin_addr, int origin_count,
              MPI_Datatype origin_datatype, int target_rank,
              MPI_Aint target_disp, int target_count,
              MPI_Datatype target_datatype, MPI_Win win,
              MPI_Request *request)
{
    gcm_win_call_t c = {
        .kind = GCM_WIN_PUT, .name = "MPI_Rput", .obuf = origin_addr,
        .ocount = origin_count, .otype = origin_datatype,
        .rank = target_rank, .disp = target_disp, .tcount = target_count,
        .ttype = target_datatype, .req = request,
    };

    if (request == NULL) {
        return gcm_mpi_raise(NULL, MPI_ERR_ARG, c.name, "request is NULL");
    }
    return gcm_win_op(win, &c);
}
GCM_MPI_ALIAS(Rput)

int PMPI_Rget(void *origin_addr, int origin_count,
              MPI_Datatype origin_datatype, int target_rank,
              MPI_Aint target_disp, int target_count,
              MPI_Datatype target_datatype, MPI_Win win,
              MPI_Request *request)
{
    gcm_win_call_t c = {
        .kind = GCM_WIN_GET, .name = "MPI_Rget", .rbuf = origin_addr,
        .rcount = origin_count, .rtype = origin_datatype,
        .rank = target_rank, .disp = target_disp, .tcount = target_count,
        .ttype = target_datatype, .req = request,
    };

    if (request == NULL) {
        return gcm_mpi_raise(NULL, MPI_ERR_ARG, c.name, "request is NULL");
    }
    return gcm_win_op(win, &c);
}
GCM_MPI_ALIAS(Rget)

int PMPI_Raccumulate(const void *origin_addr, int origin_count,
                     MPI_Datatype origin_datatype, int target_rank,
                     MPI_Aint target_disp, int target_count,
                     MPI_Datatype target_datatype, MPI_Op op, MPI_Win win,
                     MPI_Request *request)
{
    gcm_win_call_t c = {
        .kind = GCM_WIN_ACC, .name = "MPI_Raccumulate", .obuf = origin_addr,
        .ocount = origin_count, .otype = origin_datatype,
        .rank = target_rank, .disp = target_disp, .tcount = target_count,
        .ttype = target_datatype, .op = op, .req = request,
    };

    if (request == NULL) {
        return gcm_mpi_raise(NULL, MPI_ERR_ARG, c.name, "request is NULL");
    }
    return gcm_win_op(win, &c);
}
GCM_MPI_ALIAS(Raccumulate)

int PMPI_Rget_accumulate(const void *origin_addr, int origin_count,
                         MPI_Datatype origin_datatype, void *result_addr,
                         int result_count, MPI_Datatype result_datatype,
                         int target_rank, MPI_Aint target_disp,
                         int target_count, MPI_Datatype target_datatype,
                         MPI_Op op, MPI_Win win, MPI_Request *request)
{
    gcm_win_call_t c = {
        .kind = GCM_WIN_GACC, .name = "MPI_Rget_accumulate",
        .obuf = origin_addr, .ocount = origin_count,
        .otype = origin_datatype, .rbuf = result_addr,
        .rcount = result_count, .rtype = result_datatype,
        .rank = target_rank, .disp = target_disp, .tcount = target_count,
        .ttype = target_datatype, .op = op, .req = request,
    };

    if (request == NULL) {
        return gcm_mpi_raise(NULL, MPI_ERR_ARG, c.name, "request is NULL");
    }
    return gcm_win_op(win, &c);
}
GCM_MPI_ALIAS(Rget_accumulate)

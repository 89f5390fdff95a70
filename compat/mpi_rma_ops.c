/*
 * compat/mpi_rma_ops.c: the one-sided operations (MPI-3.1 11.3):
 * MPI_Put, MPI_Get, MPI_Accumulate, MPI_Get_accumulate, MPI_Fetch_and_op,
 * MPI_Compare_and_swap and their request forms.
 *
 * The origin checks the target data against the target's size and then,
 * by the target's path (mpi_win.h): copies it (DIRECT), has the kernel
 * copy it (CMA), or sends the runs and the packed data to the target,
 * whose handler checks them again and does the same there (REMOTE);
 * contiguous puts and gets to a target with a UCX key go by UCX instead.
 */
#include "config.h"

#include "compat/mpi_win.h"

#include <sched.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/uio.h>

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
    rc = gcm_mpi_win_runs_of(c->ttype, c->tcount, &r);
    if (rc != MPI_SUCCESS) {
        gcm_mpi_win_runs_free(&r);
        return gcm_mpi_win_raise(win, rc, call, "out of memory");
    }
    disp = (int64_t)c->disp * ((win->flavor == MPI_WIN_FLAVOR_DYNAMIC) ? 1 :
                               t->disp_unit);
    if (win->flavor == MPI_WIN_FLAVOR_DYNAMIC) {
        if ((t->ctl != NULL) && !gcm_mpi_win_runs_attached(t->ctl, &r, disp)) {
            gcm_mpi_win_runs_free(&r);
            return gcm_mpi_win_raise(win, MPI_ERR_RMA_RANGE, call, "address "
                                     "%#lx (%zu bytes) is not in memory rank "
                                     "%d attached", (unsigned long)c->disp,
                                     tbytes, c->rank);
        }
    } else if (!gcm_mpi_win_runs_inside(&r, disp, (int64_t)t->size)) {
        gcm_mpi_win_runs_free(&r);
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
            gcm_mpi_win_apply(t->base, disp, &r, c->op, kindtype, esize, in,
                              (const char *)c->cbuf, res);
            gcm_mpi_win_acc_unlock(t->ctl);
        } else {
            gcm_mpi_win_apply(t->base, disp, &r,
                              (c->kind == GCM_WIN_PUT) ? MPI_REPLACE :
                              MPI_NO_OP, MPI_BYTE, 1, in, NULL, res);
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
                gcm_mpi_win_apply(cur, 0, &one, c->op, kindtype, esize, in,
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
            op = gcm_mpi_win_op_new(win, c->rank, c->rbuf, c->rcount, c->rtype,
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
            rc = gcm_mpi_win_send(win, c->rank, msg, mlen);
        }
        if (rc != MPI_SUCCESS) {
            if (op != NULL) {
                gcm_mpi_win_op_drop(win, op);
                op = NULL;
            }
            break;
        }
        atomic_fetch_add(&t->nam, 1);
        break;
    }
out:
    gcm_mpi_win_runs_free(&r);
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

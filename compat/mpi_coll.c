/*
 * compat/mpi_coll.c: collective operations (MPI-3.1 chapter 5).
 *
 * Every collective is built as a schedule: a list of steps (start a send,
 * start a receive, wait for the transfers started since the last fence,
 * reduce two buffers, copy between layouts) that is then run. Blocking
 * calls run it to the end at once; nonblocking ones hand it to a generic
 * request whose poll function advances it without blocking. One builder
 * per algorithm thus serves both forms.
 *
 * Algorithms (correct first; tuning comes later):
 * - barrier: dissemination, ceil(log2 p) rounds;
 * - bcast: binomial tree;
 * - reduce: binomial tree; for non-commutative operations the tree is
 *   rooted at rank 0 and every combination has the lower ranks on the
 *   left, then rank 0 sends the result to the root;
 * - allreduce: recursive doubling with the usual fold of the first
 *   2 * (p - 2^k) ranks into pairs; partners combine lower-rank data on
 *   the left, so non-commutative operations are correct as well and every
 *   rank computes the bit-identical result;
 * - gather(v), scatter(v): linear (the root posts all transfers at once);
 * - allgather(v): ring;
 * - alltoall(v,w): pairwise exchange;
 * - reduce_scatter(_block): reduce to rank 0, then scatterv;
 * - scan, exscan: recursive doubling in rank order.
 *
 * Transfers are raw bytes by point-to-point rank (gcm_mpi_isend_bytes),
 * all on the one internal tag the call takes from gcm_mpi_coll_tag, so
 * they never match user receives. Data of a non-contiguous datatype is
 * packed into a temporary when a send starts and unpacked when a receive
 * completes. Reductions work on buffers laid out as the user's datatype,
 * because user functions get that datatype as it is.
 *
 * Intercommunicators (MPI-3.1 5.2.2): transfers between the groups go on
 * the intercommunicator by remote rank; work inside a group runs the
 * intracommunicator algorithms over comm->local_comm, on a tag of that
 * communicator (all members of a group make the same calls on it).
 */
#include "config.h"

#include "compat/mpi_impl.h"

#include <limits.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/* ---- schedules ----------------------------------------------------------- */

typedef enum {
    COLL_SEND = 1,
    COLL_RECV,
    COLL_FENCE,    /* wait for the transfers started since the last fence */
    COLL_REDUCE,   /* buf = sbuf op buf */
    COLL_COPY      /* (sbuf, scount, stype) -> (buf, count, type) */
} coll_kind_t;

/*
 * A buffer is (pointer, count, datatype), or raw bytes when the datatype
 * is MPI_DATATYPE_NULL (then len is the length; packed temporaries can
 * exceed what an int count of MPI_BYTE holds).
 */
typedef struct coll_step {
    coll_kind_t    kind;
    MPI_Comm       comm;     /* SEND, RECV */
    int            peer;
    int            tag;
    void          *buf;      /* SEND/RECV data; REDUCE inout; COPY target */
    int            count;
    MPI_Datatype   type;
    size_t         len;      /* raw length when type is NULL */
    const void    *sbuf;     /* REDUCE in (lower ranks); COPY source */
    int            scount;
    MPI_Datatype   stype;
    size_t         slen;
    MPI_Op         op;
    gcm_request_h  req;      /* started transfer */
    void          *tmp;      /* packed data of a non-contiguous buffer */
} coll_step_t;

typedef struct coll_sched {
    coll_step_t   *steps;
    int            nsteps;
    int            cap;
    int            next;     /* first step not yet run */
    int            pending;  /* first step after the last fence */
    void         **mem;      /* temporaries, freed with the schedule */
    int            nmem;
    int            capmem;
    int            nomem;    /* building ran out of memory */
    int            err;      /* first MPI error class met while running */
} coll_sched_t;

/* A group the algorithms run over: ranks are point-to-point ranks of
 * comm (for an intercommunicator's own transfers: remote ranks, with
 * size the remote size). */
typedef struct coll_grp {
    MPI_Comm comm;
    int      tag;
    int      rank;
    int      size;
} coll_grp_t;

/* Zero-length transfers still need a valid address. */
static char coll_dummy;

static void coll_sched_init(coll_sched_t *s)
{
    memset(s, 0, sizeof(*s));
}

static void coll_fail(coll_sched_t *s, int errclass)
{
    if (s->err == MPI_SUCCESS) {
        s->err = errclass;
    }
}

static void *coll_alloc(coll_sched_t *s, size_t len)
{
    void *p;

    if (s->nmem == s->capmem) {
        int cap = (s->capmem == 0) ? 8 : 2 * s->capmem;
        void **m = realloc(s->mem, (size_t)cap * sizeof(*m));

        if (m == NULL) {
            s->nomem = 1;
            return NULL;
        }
        s->mem = m;
        s->capmem = cap;
    }
    p = malloc((len == 0) ? 1 : len);
    if (p == NULL) {
        s->nomem = 1;
        return NULL;
    }
    s->mem[s->nmem++] = p;
    return p;
}

/* Span of count elements of type, from the lowest byte to past the
 * highest (true extent, so that resized types work). */
static void coll_type_span(MPI_Datatype type, int count, MPI_Aint *lo_p,
                           MPI_Aint *hi_p)
{
    MPI_Aint tlb = 0, text = 0, lb, ext, lo, hi, shift;

    PMPI_Type_get_true_extent(type, &tlb, &text);
    gcm_mpi_type_extent(type, &lb, &ext);
    lo = tlb;
    hi = tlb + text;
    if (count > 1) {
        shift = (MPI_Aint)(count - 1) * ext;
        if (shift < 0) {
            lo += shift;
        } else {
            hi += shift;
        }
    }
    *lo_p = lo;
    *hi_p = hi;
}

/* A temporary for count elements laid out as type (the pointer is the
 * element origin, which may lie outside the allocation when true_lb is
 * not 0; only type-described offsets are ever added to it). */
static void *coll_alloc_type(coll_sched_t *s, int count, MPI_Datatype type)
{
    MPI_Aint lo, hi;
    char *mem;

    coll_type_span(type, count, &lo, &hi);
    mem = coll_alloc(s, (size_t)(hi - lo));
    if (mem == NULL) {
        return NULL;
    }
    return (void *)((uintptr_t)mem - (uintptr_t)lo);
}

static coll_step_t *coll_add(coll_sched_t *s, coll_kind_t kind)
{
    coll_step_t *st;

    if (s->nomem != 0) {
        return NULL;
    }
    if (s->nsteps == s->cap) {
        int cap = (s->cap == 0) ? 16 : 2 * s->cap;
        coll_step_t *n = realloc(s->steps, (size_t)cap * sizeof(*n));

        if (n == NULL) {
            s->nomem = 1;
            return NULL;
        }
        s->steps = n;
        s->cap = cap;
    }
    st = &s->steps[s->nsteps++];
    memset(st, 0, sizeof(*st));
    st->kind = kind;
    st->type = MPI_DATATYPE_NULL;
    st->stype = MPI_DATATYPE_NULL;
    st->req = GCM_REQUEST_NULL;
    return st;
}

static void coll_xfer(coll_sched_t *s, coll_kind_t kind, const coll_grp_t *g,
                      const void *buf, int count, MPI_Datatype type,
                      size_t len, int peer)
{
    coll_step_t *st = coll_add(s, kind);

    if (st == NULL) {
        return;
    }
    st->comm = g->comm;
    st->tag = g->tag;
    st->peer = peer;
    st->buf = (void *)buf;
    st->count = count;
    st->type = type;
    st->len = len;
}

static void coll_send(coll_sched_t *s, const coll_grp_t *g, const void *buf,
                      int count, MPI_Datatype type, int peer)
{
    coll_xfer(s, COLL_SEND, g, buf, count, type, 0, peer);
}

static void coll_recv(coll_sched_t *s, const coll_grp_t *g, void *buf,
                      int count, MPI_Datatype type, int peer)
{
    coll_xfer(s, COLL_RECV, g, buf, count, type, 0, peer);
}

static void coll_send_raw(coll_sched_t *s, const coll_grp_t *g,
                          const void *buf, size_t len, int peer)
{
    coll_xfer(s, COLL_SEND, g, buf, 0, MPI_DATATYPE_NULL, len, peer);
}

static void coll_recv_raw(coll_sched_t *s, const coll_grp_t *g, void *buf,
                          size_t len, int peer)
{
    coll_xfer(s, COLL_RECV, g, buf, 0, MPI_DATATYPE_NULL, len, peer);
}

static void coll_fence(coll_sched_t *s)
{
    (void)coll_add(s, COLL_FENCE);
}

/* inout = in op inout; in holds the lower ranks' data. */
static void coll_reduce(coll_sched_t *s, MPI_Op op, const void *in,
                        void *inout, int count, MPI_Datatype type)
{
    coll_step_t *st = coll_add(s, COLL_REDUCE);

    if (st == NULL) {
        return;
    }
    st->op = op;
    st->sbuf = in;
    st->buf = inout;
    st->count = count;
    st->type = type;
}

/* Copies between two layouts (either may be raw: type NULL, len). */
static void coll_copy(coll_sched_t *s, const void *src, int scount,
                      MPI_Datatype stype, size_t slen, void *dst, int count,
                      MPI_Datatype type, size_t len)
{
    coll_step_t *st = coll_add(s, COLL_COPY);

    if (st == NULL) {
        return;
    }
    st->sbuf = src;
    st->scount = scount;
    st->stype = stype;
    st->slen = slen;
    st->buf = dst;
    st->count = count;
    st->type = type;
    st->len = len;
}

static void coll_copy_typed(coll_sched_t *s, const void *src, int scount,
                            MPI_Datatype stype, void *dst, int count,
                            MPI_Datatype type)
{
    coll_copy(s, src, scount, stype, 0, dst, count, type, 0);
}

/* Bytes of data in a buffer. */
static size_t coll_bytes(MPI_Datatype type, int count, size_t len)
{
    if (type == MPI_DATATYPE_NULL) {
        return len;
    }
    return (size_t)count * (size_t)gcm_mpi_type_size(type);
}

/* Where the data of a buffer starts if it is one contiguous run, else
 * NULL. */
static void *coll_contig(void *buf, int count, MPI_Datatype type,
                         size_t len)
{
    const void *start = NULL;

    if (type == MPI_DATATYPE_NULL) {
        return (len == 0) ? &coll_dummy : buf;
    }
    if (gcm_mpi_type_is_contiguous(type, count, buf, &start) == 0) {
        return NULL;
    }
    if (coll_bytes(type, count, 0) == 0) {
        return &coll_dummy;
    }
    return (void *)start;
}

static void coll_start_xfer(coll_sched_t *s, coll_step_t *st)
{
    size_t len = coll_bytes(st->type, st->count, st->len);
    void *p = coll_contig(st->buf, st->count, st->type, st->len);
    gcm_status_t rc;

    if (p == NULL) {
        st->tmp = malloc(len);
        if (st->tmp == NULL) {
            coll_fail(s, MPI_ERR_NO_MEM);
            return;
        }
        if (st->kind == COLL_SEND) {
            gcm_mpi_type_pack(st->type, st->count, st->buf, st->tmp);
        }
        p = st->tmp;
    }
    if (st->kind == COLL_SEND) {
        rc = gcm_mpi_isend_bytes(st->comm, p, len, st->peer, st->tag,
                                 &st->req);
    } else {
        rc = gcm_mpi_irecv_bytes(st->comm, p, len, st->peer, st->tag,
                                 &st->req);
    }
    if (rc != GCM_OK) {
        st->req = GCM_REQUEST_NULL;
        coll_fail(s, gcm_mpi_errclass(rc));
    }
}

static void coll_run_copy(coll_sched_t *s, coll_step_t *st)
{
    size_t slen = coll_bytes(st->stype, st->scount, st->slen);
    size_t dlen = coll_bytes(st->type, st->count, st->len);
    void *src = coll_contig((void *)st->sbuf, st->scount, st->stype,
                            st->slen);
    void *dst = coll_contig(st->buf, st->count, st->type, st->len);
    void *tmp = NULL;
    size_t n = (slen < dlen) ? slen : dlen;

    if (slen > dlen) {
        coll_fail(s, MPI_ERR_TRUNCATE);
    }
    if (n == 0) {
        return;
    }
    if (src == NULL) {
        tmp = malloc(slen);
        if (tmp == NULL) {
            coll_fail(s, MPI_ERR_NO_MEM);
            return;
        }
        gcm_mpi_type_pack(st->stype, st->scount, st->sbuf, tmp);
        src = tmp;
    }
    if (dst != NULL) {
        memmove(dst, src, n);
    } else {
        gcm_mpi_type_unpack(st->type, st->count, src, n, st->buf);
    }
    free(tmp);
}

/* Completes the transfers started since the last fence; without block,
 * returns 0 at the first that is not complete yet. */
static int coll_run_fence(coll_sched_t *s, int block)
{
    gcm_msg_status_t ms;
    gcm_status_t rc;
    int i;

    for (i = s->pending; i < s->next; i++) {
        coll_step_t *st = &s->steps[i];

        if (st->req != GCM_REQUEST_NULL) {
            if ((block == 0) && (gcm_lco_req_done(st->req) == 0)) {
                return 0;
            }
            memset(&ms, 0, sizeof(ms));
            rc = gcm_wait(&st->req, &ms);
            st->req = GCM_REQUEST_NULL;
            if (rc != GCM_OK) {
                coll_fail(s, gcm_mpi_errclass(rc));
            } else if ((st->kind == COLL_RECV) && (st->tmp != NULL)) {
                gcm_mpi_type_unpack(st->type, st->count, st->tmp, ms.count,
                                    st->buf);
            }
        }
        free(st->tmp);
        st->tmp = NULL;
    }
    return 1;
}

/* Runs steps until the schedule ends (returns 1) or, without block, until
 * a fence must wait (returns 0). */
static int coll_advance(coll_sched_t *s, int block)
{
    while (s->next < s->nsteps) {
        coll_step_t *st = &s->steps[s->next];

        switch (st->kind) {
        case COLL_SEND:
        case COLL_RECV:
            coll_start_xfer(s, st);
            break;
        case COLL_FENCE:
            if (coll_run_fence(s, block) == 0) {
                return 0;
            }
            s->pending = s->next + 1;
            break;
        case COLL_REDUCE:
            gcm_mpi_op_apply(st->op, st->sbuf, st->buf, st->count,
                             st->type);
            break;
        case COLL_COPY:
            coll_run_copy(s, st);
            break;
        }
        s->next++;
    }
    /* Transfers after the last fence (builders end with one, but be
     * safe). */
    (void)coll_run_fence(s, 1);
    s->pending = s->next;
    return 1;
}

static void coll_sched_free(coll_sched_t *s)
{
    int i;

    /* Only reached with transfers outstanding when a request was freed
     * early; their buffers must outlive them. */
    for (i = 0; i < s->nsteps; i++) {
        if (s->steps[i].req != GCM_REQUEST_NULL) {
            (void)gcm_wait(&s->steps[i].req, NULL);
        }
        free(s->steps[i].tmp);
    }
    for (i = 0; i < s->nmem; i++) {
        free(s->mem[i]);
    }
    free(s->mem);
    free(s->steps);
}

/* The group of an intracommunicator (or LCO communicator) for this
 * call: takes the call's tag. */
static coll_grp_t coll_grp(MPI_Comm comm)
{
    coll_grp_t g;

    g.comm = comm;
    g.tag = gcm_mpi_coll_tag(comm);
    g.rank = comm->prank;
    g.size = comm->psize;
    return g;
}

static int coll_is_inter(MPI_Comm comm)
{
    return comm->kind == GCM_MPI_COMM_INTER;
}

/* An intercommunicator's groups: the remote one (transfers across, by
 * remote rank; rank is the local rank) and the local one. */
static void coll_grp_inter(MPI_Comm comm, coll_grp_t *rg, coll_grp_t *lg)
{
    rg->comm = comm;
    rg->tag = gcm_mpi_coll_tag(comm);
    rg->rank = comm->rank;
    rg->size = comm->remote_size;
    *lg = coll_grp(comm->local_comm);
}

/* Integer arithmetic: buf may be MPI_BOTTOM (NULL) with absolute
 * displacements, where pointer arithmetic would be undefined. */
static void *coll_off(const void *buf, MPI_Aint off)
{
    return (void *)((uintptr_t)buf + (uintptr_t)off);
}

static void *coll_at(const void *buf, MPI_Aint disp, MPI_Datatype type)
{
    MPI_Aint lb, ext;

    gcm_mpi_type_extent(type, &lb, &ext);
    return coll_off(buf, disp * ext);
}

/* ---- algorithms ---------------------------------------------------------- */

static void coll_barrier_intra(coll_sched_t *s, const coll_grp_t *g)
{
    int k;

    /* Dissemination: after round k every rank has heard, directly or
     * not, from the 2^(k+1) ranks before it. */
    for (k = 1; k < g->size; k <<= 1) {
        coll_send_raw(s, g, NULL, 0, (g->rank + k) % g->size);
        coll_recv_raw(s, g, NULL, 0, (g->rank - k + g->size) % g->size);
        coll_fence(s);
    }
}

/* Binomial tree over ranks relative to root, on raw bytes. */
static void coll_bcast_raw(coll_sched_t *s, const coll_grp_t *g, void *p,
                           size_t len, int root)
{
    int size = g->size;
    int vr = (g->rank - root + size) % size;
    int mask;

    for (mask = 1; mask < size; mask <<= 1) {
        if ((vr & mask) != 0) {
            coll_recv_raw(s, g, p, len, (vr - mask + root) % size);
            coll_fence(s);
            break;
        }
    }
    for (mask >>= 1; mask > 0; mask >>= 1) {
        if (vr + mask < size) {
            coll_send_raw(s, g, p, len, (vr + mask + root) % size);
        }
    }
    coll_fence(s);
}

/* Bcast of a typed buffer: packed once at the root and unpacked once
 * elsewhere when it is not contiguous. */
static void coll_bcast_typed(coll_sched_t *s, const coll_grp_t *g,
                             void *buf, int count, MPI_Datatype type,
                             int root)
{
    size_t len = coll_bytes(type, count, 0);
    void *p = coll_contig(buf, count, type, 0);

    if (g->size == 1) {
        return;
    }
    if (p != NULL) {
        coll_bcast_raw(s, g, p, len, root);
        return;
    }
    p = coll_alloc(s, len);
    if (g->rank == root) {
        coll_copy(s, buf, count, type, 0, p, 0, MPI_DATATYPE_NULL, len);
    }
    coll_bcast_raw(s, g, p, len, root);
    if (g->rank != root) {
        coll_copy(s, p, 0, MPI_DATATYPE_NULL, len, buf, count, type, 0);
    }
}

/*
 * Binomial reduction to root. sbuf is this rank's contribution (never
 * written); rbuf matters at root only (may be sbuf: MPI_IN_PLACE).
 * Children are always higher in the tree's numbering; for non-commutative
 * operations that numbering is the ranks themselves (tree rooted at 0), so
 * "mine op child's" keeps rank order.
 */
static void coll_reduce_intra(coll_sched_t *s, const coll_grp_t *g,
                              const void *sbuf, void *rbuf, int count,
                              MPI_Datatype type, MPI_Op op, int root)
{
    int size = g->size;
    int troot = gcm_mpi_op_is_commutative(op) ? root : 0;
    int vr = (g->rank - troot + size) % size;
    const void *acc = sbuf;
    void *w[2] = { NULL, NULL };
    int wi = 0, mask;

    for (mask = 1; mask < size; mask <<= 1) {
        if ((vr & mask) == 0) {
            int src = vr | mask;
            void *x;

            if (src >= size) {
                continue;
            }
            if (w[wi] == NULL) {
                w[wi] = coll_alloc_type(s, count, type);
            }
            x = w[wi];
            wi ^= 1;
            coll_recv(s, g, x, count, type, (src + troot) % size);
            coll_fence(s);
            coll_reduce(s, op, acc, x, count, type);
            acc = x;
        } else {
            coll_send(s, g, acc, count, type,
                      ((vr & ~mask) + troot) % size);
            coll_fence(s);
            break;
        }
    }
    if (g->rank == troot) {
        if (troot == root) {
            if (acc != rbuf) {
                coll_copy_typed(s, acc, count, type, rbuf, count, type);
            }
        } else {
            coll_send(s, g, acc, count, type, root);
            coll_fence(s);
        }
    } else if (g->rank == root) {
        coll_recv(s, g, rbuf, count, type, troot);
        coll_fence(s);
    }
}

/*
 * Recursive doubling. The first 2*rem ranks fold in pairs (the odd one
 * keeps lower op higher), the remaining pof2 ranks exchange with partners
 * at distance 1, 2, 4... of their new numbering, which keeps contiguous
 * rank ranges in order, and the folded ranks get the result back.
 */
static void coll_allreduce_intra(coll_sched_t *s, const coll_grp_t *g,
                                 const void *sbuf, void *rbuf, int count,
                                 MPI_Datatype type, MPI_Op op)
{
    int rank = g->rank, size = g->size;
    int pof2 = 1, rem, newrank, mask;
    void *acc = rbuf, *x;

    if (sbuf != MPI_IN_PLACE) {
        coll_copy_typed(s, sbuf, count, type, rbuf, count, type);
    }
    if (size == 1) {
        return;
    }
    x = coll_alloc_type(s, count, type);
    while (2 * pof2 <= size) {
        pof2 <<= 1;
    }
    rem = size - pof2;
    if (rank < 2 * rem) {
        if ((rank % 2) == 0) {
            coll_send(s, g, acc, count, type, rank + 1);
            coll_fence(s);
            newrank = -1;
        } else {
            coll_recv(s, g, x, count, type, rank - 1);
            coll_fence(s);
            coll_reduce(s, op, x, acc, count, type);
            newrank = rank / 2;
        }
    } else {
        newrank = rank - rem;
    }
    if (newrank >= 0) {
        for (mask = 1; mask < pof2; mask <<= 1) {
            int newdst = newrank ^ mask;
            int dst = (newdst < rem) ? (2 * newdst + 1) : (newdst + rem);

            coll_send(s, g, acc, count, type, dst);
            coll_recv(s, g, x, count, type, dst);
            coll_fence(s);
            if (dst < rank) {
                coll_reduce(s, op, x, acc, count, type);
            } else {
                void *t = acc;

                coll_reduce(s, op, acc, x, count, type);
                acc = x;
                x = t;
            }
        }
        if (acc != rbuf) {
            coll_copy_typed(s, acc, count, type, rbuf, count, type);
        }
    }
    if (rank < 2 * rem) {
        if ((rank % 2) != 0) {
            coll_send(s, g, rbuf, count, type, rank - 1);
        } else {
            coll_recv(s, g, rbuf, count, type, rank + 1);
        }
        coll_fence(s);
    }
}

/* Inclusive (exclusive = 0) or exclusive prefix reduction by recursive
 * doubling: partial holds the reduction of this rank's aligned block of
 * 2^k ranks; data from a lower partner is prepended to both. */
static void coll_scan_intra(coll_sched_t *s, const coll_grp_t *g,
                            const void *sbuf, void *rbuf, int count,
                            MPI_Datatype type, MPI_Op op, int exclusive)
{
    int rank = g->rank, size = g->size, mask, have = 0;
    const void *in = (sbuf == MPI_IN_PLACE) ? rbuf : sbuf;
    void *partial, *x;

    if (exclusive == 0 && sbuf != MPI_IN_PLACE) {
        coll_copy_typed(s, sbuf, count, type, rbuf, count, type);
    }
    if (size == 1) {
        return;
    }
    partial = coll_alloc_type(s, count, type);
    x = coll_alloc_type(s, count, type);
    coll_copy_typed(s, in, count, type, partial, count, type);
    for (mask = 1; mask < size; mask <<= 1) {
        int dst = rank ^ mask;

        if (dst >= size) {
            continue;
        }
        coll_send(s, g, partial, count, type, dst);
        coll_recv(s, g, x, count, type, dst);
        coll_fence(s);
        if (dst < rank) {
            coll_reduce(s, op, x, partial, count, type);
            if (exclusive == 0 || have != 0) {
                coll_reduce(s, op, x, rbuf, count, type);
            } else {
                coll_copy_typed(s, x, count, type, rbuf, count, type);
                have = 1;
            }
        } else {
            void *t = partial;

            coll_reduce(s, op, partial, x, count, type);
            partial = x;
            x = t;
        }
    }
}

/* One rank's block in a gather-like layout: counts/displs, or the same
 * count for all with displacement rank * count. */
typedef struct coll_layout {
    void         *buf;
    int           count;      /* when counts is NULL */
    const int    *counts;
    const int    *displs;
    MPI_Datatype  type;
} coll_layout_t;

static void *coll_blk(const coll_layout_t *l, int i)
{
    MPI_Aint d = (l->displs != NULL) ? l->displs[i] :
                                       (MPI_Aint)i * l->count;

    return coll_at(l->buf, d, l->type);
}

static int coll_cnt(const coll_layout_t *l, int i)
{
    return (l->counts != NULL) ? l->counts[i] : l->count;
}

/* Linear gather (to_root = 1) or scatter. Intracommunicator: root is a
 * rank of g and takes part with its own block (none if in_place).
 * Intercommunicator: g is the remote group; root is MPI_ROOT (this rank
 * gathers from or scatters to every remote rank), MPI_PROC_NULL, or the
 * remote root. */
static void coll_gather_linear(coll_sched_t *s, const coll_grp_t *g,
                               int inter, int to_root, void *mbuf,
                               int mcount, MPI_Datatype mtype,
                               const coll_layout_t *l, int root,
                               int in_place)
{
    int i;

    if (root == MPI_PROC_NULL) {
        return;
    }
    if ((inter != 0 && root == MPI_ROOT) ||
        (inter == 0 && g->rank == root)) {
        for (i = 0; i < g->size; i++) {
            if (inter == 0 && i == root) {
                if (in_place != 0) {
                    continue;
                }
                if (to_root != 0) {
                    coll_copy_typed(s, mbuf, mcount, mtype, coll_blk(l, i),
                                    coll_cnt(l, i), l->type);
                } else {
                    coll_copy_typed(s, coll_blk(l, i), coll_cnt(l, i),
                                    l->type, mbuf, mcount, mtype);
                }
            } else if (to_root != 0) {
                coll_recv(s, g, coll_blk(l, i), coll_cnt(l, i), l->type, i);
            } else {
                coll_send(s, g, coll_blk(l, i), coll_cnt(l, i), l->type, i);
            }
        }
    } else if (to_root != 0) {
        coll_send(s, g, mbuf, mcount, mtype, root);
    } else {
        coll_recv(s, g, mbuf, mcount, mtype, root);
    }
    coll_fence(s);
}

/* Ring allgather(v) into layout l; this rank's block is already there
 * when sbuf is MPI_IN_PLACE. */
static void coll_allgather_ring(coll_sched_t *s, const coll_grp_t *g,
                                const void *sbuf, int scount,
                                MPI_Datatype stype, const coll_layout_t *l)
{
    int rank = g->rank, size = g->size, k;
    int right = (rank + 1) % size, left = (rank - 1 + size) % size;

    if (sbuf != MPI_IN_PLACE) {
        coll_copy_typed(s, sbuf, scount, stype, coll_blk(l, rank),
                        coll_cnt(l, rank), l->type);
    }
    for (k = 0; k < size - 1; k++) {
        int sb = (rank - k + size) % size;
        int rb = (rank - k - 1 + size) % size;

        coll_send(s, g, coll_blk(l, sb), coll_cnt(l, sb), l->type, right);
        coll_recv(s, g, coll_blk(l, rb), coll_cnt(l, rb), l->type, left);
        coll_fence(s);
    }
}

/* One block per peer for all-to-all: where, how many, which type. */
typedef struct coll_blocks {
    void        **ptr;
    int          *count;
    MPI_Datatype *type;
} coll_blocks_t;

static int coll_blocks_alloc(coll_sched_t *s, int n, coll_blocks_t *b)
{
    b->ptr = coll_alloc(s, (size_t)n * sizeof(*b->ptr));
    b->count = coll_alloc(s, (size_t)n * sizeof(*b->count));
    b->type = coll_alloc(s, (size_t)n * sizeof(*b->type));
    return (b->ptr != NULL && b->count != NULL && b->type != NULL) ? 0 : -1;
}

/* Pairwise exchange: in step k, send to rank + k and receive from
 * rank - k, so that every rank has one partner each way per step.
 * Intercommunicators (g the remote group) post everything at once. */
static void coll_alltoall_pairwise(coll_sched_t *s, const coll_grp_t *g,
                                   int inter, const coll_blocks_t *sb,
                                   const coll_blocks_t *rb, int in_place)
{
    int rank = g->rank, size = g->size, k;

    if (inter != 0) {
        for (k = 0; k < size; k++) {
            coll_send(s, g, sb->ptr[k], sb->count[k], sb->type[k], k);
            coll_recv(s, g, rb->ptr[k], rb->count[k], rb->type[k], k);
        }
        coll_fence(s);
        return;
    }
    if (in_place == 0) {
        coll_copy_typed(s, sb->ptr[rank], sb->count[rank], sb->type[rank],
                        rb->ptr[rank], rb->count[rank], rb->type[rank]);
    }
    for (k = 1; k < size; k++) {
        int dst = (rank + k) % size, src = (rank - k + size) % size;

        coll_send(s, g, sb->ptr[dst], sb->count[dst], sb->type[dst], dst);
        coll_recv(s, g, rb->ptr[src], rb->count[src], rb->type[src], src);
        coll_fence(s);
    }
}

/* MPI_IN_PLACE all-to-all: the data to send is the receive buffer as it
 * was, so it is packed into a temporary first (one raw block per peer);
 * the send blocks then describe that copy. */
static void coll_alltoall_inplace_copy(coll_sched_t *s, int size,
                                       const coll_blocks_t *rb,
                                       coll_blocks_t *sb)
{
    size_t total = 0, off = 0;
    char *tmp;
    int i;

    for (i = 0; i < size; i++) {
        total += coll_bytes(rb->type[i], rb->count[i], 0);
    }
    tmp = coll_alloc(s, total);
    if (tmp == NULL) {
        return;
    }
    for (i = 0; i < size; i++) {
        size_t n = coll_bytes(rb->type[i], rb->count[i], 0);

        coll_copy_typed(s, rb->ptr[i], rb->count[i], rb->type[i], tmp + off,
                        (int)n, MPI_BYTE);
        sb->ptr[i] = tmp + off;
        sb->count[i] = (int)n;
        sb->type[i] = MPI_BYTE;
        off += n;
    }
}

/* ---- argument checks ----------------------------------------------------- */

static int coll_check_comm(MPI_Comm comm, const char *call)
{
    int rc = gcm_mpi_check_init(call);

    if (rc != MPI_SUCCESS) {
        return rc;
    }
    return gcm_mpi_comm_check(comm, call);
}

static int coll_check_count(MPI_Comm comm, const char *call, int count,
                            const char *what)
{
    if (count < 0) {
        return gcm_mpi_raise(comm, MPI_ERR_COUNT, call, "%s %d is negative",
                             what, count);
    }
    return MPI_SUCCESS;
}

static int coll_check_type(MPI_Comm comm, const char *call,
                           MPI_Datatype type, const char *what)
{
    int rc = gcm_mpi_type_check(type);

    if (rc != MPI_SUCCESS) {
        return gcm_mpi_raise(comm, rc, call,
                             "invalid %s (MPI_DATATYPE_NULL, freed, or not "
                             "committed)", what);
    }
    return MPI_SUCCESS;
}

/* A NULL buffer is refused only where it must be wrong: for a datatype
 * whose lb is not 0 it may be MPI_BOTTOM with absolute addresses. */
static int coll_check_buf(MPI_Comm comm, const char *call, const void *buf,
                          int count, MPI_Datatype type, int in_place_ok,
                          const char *what)
{
    MPI_Aint lb, ext;

    if (buf == MPI_IN_PLACE) {
        if (in_place_ok != 0) {
            return MPI_SUCCESS;
        }
        return gcm_mpi_raise(comm, MPI_ERR_BUFFER, call,
                             "MPI_IN_PLACE is not allowed as %s here", what);
    }
    if (buf != NULL || count == 0 || gcm_mpi_type_size(type) == 0) {
        return MPI_SUCCESS;
    }
    gcm_mpi_type_extent(type, &lb, &ext);
    if (lb == 0) {
        return gcm_mpi_raise(comm, MPI_ERR_BUFFER, call,
                             "%s is NULL with count %d", what, count);
    }
    return MPI_SUCCESS;
}

/* count, datatype and buffer of one side of a call. */
static int coll_check_side(MPI_Comm comm, const char *call, const void *buf,
                           int count, MPI_Datatype type, int in_place_ok,
                           const char *bufname)
{
    int rc = coll_check_count(comm, call, count, "count");

    if (rc == MPI_SUCCESS && buf != MPI_IN_PLACE) {
        rc = coll_check_type(comm, call, type, "datatype");
    }
    if (rc == MPI_SUCCESS) {
        rc = coll_check_buf(comm, call, buf, count, type, in_place_ok,
                            bufname);
    }
    return rc;
}

static int coll_check_root(MPI_Comm comm, const char *call, int root)
{
    if (coll_is_inter(comm)) {
        if (root == MPI_ROOT || root == MPI_PROC_NULL ||
            (root >= 0 && root < comm->remote_size)) {
            return MPI_SUCCESS;
        }
        return gcm_mpi_raise(comm, MPI_ERR_ROOT, call,
                             "root %d is not MPI_ROOT, MPI_PROC_NULL or a "
                             "rank of the remote group (size %d)",
                             root, comm->remote_size);
    }
    if (root < 0 || root >= comm->psize) {
        return gcm_mpi_raise(comm, MPI_ERR_ROOT, call,
                             "root %d out of range (communicator size %d)",
                             root, comm->psize);
    }
    return MPI_SUCCESS;
}

static int coll_check_array(MPI_Comm comm, const char *call, const int *a,
                            int n, int counts, const char *what)
{
    int i;

    if (a == NULL && n > 0) {
        return gcm_mpi_raise(comm, MPI_ERR_ARG, call, "%s is NULL", what);
    }
    if (counts != 0) {
        for (i = 0; i < n; i++) {
            if (a[i] < 0) {
                return gcm_mpi_raise(comm, MPI_ERR_COUNT, call,
                                     "%s[%d] = %d is negative", what, i,
                                     a[i]);
            }
        }
    }
    return MPI_SUCCESS;
}

static int coll_check_req(MPI_Comm comm, const char *call,
                          const MPI_Request *request)
{
    if (request == NULL) {
        return gcm_mpi_raise(comm, MPI_ERR_ARG, call, "request is NULL");
    }
    return MPI_SUCCESS;
}

/* Checks (count, datatype, op) of a reduction. */
static int coll_check_reduction(MPI_Comm comm, const char *call, int count,
                                MPI_Datatype type, MPI_Op op)
{
    int rc = coll_check_count(comm, call, count, "count");

    if (rc == MPI_SUCCESS) {
        rc = coll_check_type(comm, call, type, "datatype");
    }
    if (rc == MPI_SUCCESS) {
        rc = gcm_mpi_op_check(op, type, comm, call);
    }
    return rc;
}

static int coll_no_inter_in_place(MPI_Comm comm, const char *call,
                                  const void *sbuf, const void *rbuf)
{
    if (coll_is_inter(comm) &&
        (sbuf == MPI_IN_PLACE || rbuf == MPI_IN_PLACE)) {
        return gcm_mpi_raise(comm, MPI_ERR_BUFFER, call,
                             "MPI_IN_PLACE is not allowed on an "
                             "intercommunicator");
    }
    return MPI_SUCCESS;
}

/* ---- running ------------------------------------------------------------- */

/* Runs a built schedule to its end and frees it; raises what went
 * wrong. */
static int coll_finish(coll_sched_t *s, MPI_Comm comm, const char *call)
{
    int err;

    if (s->nomem != 0) {
        coll_sched_free(s);
        return gcm_mpi_raise(comm, MPI_ERR_NO_MEM, call,
                             "cannot allocate the collective's schedule");
    }
    (void)coll_advance(s, 1);
    err = s->err;
    coll_sched_free(s);
    if (err != MPI_SUCCESS) {
        return gcm_mpi_raise(comm, err, call, "a transfer of the collective "
                             "failed");
    }
    return MPI_SUCCESS;
}

static int coll_req_poll(MPI_Request req)
{
    coll_sched_t *s = req->state;

    if (coll_advance(s, 0) == 0) {
        return 0;
    }
    gcm_mpi_status_empty(&req->status);
    req->status.MPI_ERROR = s->err;
    return 1;
}

static void coll_req_cleanup(void *state)
{
    coll_sched_t *s = state;

    coll_sched_free(s);
    free(s);
}

/* A new schedule for a nonblocking call (NULL: raised). */
static coll_sched_t *coll_new(MPI_Comm comm, const char *call, int *rc_p)
{
    coll_sched_t *s = malloc(sizeof(*s));

    if (s == NULL) {
        *rc_p = gcm_mpi_raise(comm, MPI_ERR_NO_MEM, call,
                              "cannot allocate a schedule");
        return NULL;
    }
    coll_sched_init(s);
    return s;
}

/* Hands a built schedule to a generic request, which starts it. */
static int coll_start(coll_sched_t *s, MPI_Comm comm, const char *call,
                      MPI_Request *request)
{
    int rc;

    if (s->nomem != 0) {
        coll_req_cleanup(s);
        return gcm_mpi_raise(comm, MPI_ERR_NO_MEM, call,
                             "cannot allocate the collective's schedule");
    }
    /* Start what can start now, so the transfers overlap with whatever
     * the caller does next; in verification mode only once the check
     * of the call has passed (the request's first test). */
    if (comm->coll_gate == NULL) {
        (void)coll_advance(s, 0);
    }
    rc = gcm_mpi_req_generic(comm, coll_req_poll, coll_req_cleanup, s,
                             request);
    if (rc != MPI_SUCCESS) {
        coll_req_cleanup(s);
        return rc;
    }
    return MPI_SUCCESS;
}

/* ---- builders shared by blocking and nonblocking forms ------------------- */

static void coll_build_barrier(coll_sched_t *s, MPI_Comm comm)
{
    coll_grp_t g, lg;

    if (coll_is_inter(comm) == 0) {
        g = coll_grp(comm);
        coll_barrier_intra(s, &g);
        return;
    }
    /* Everyone in my group has entered once my group's barrier is done;
     * the leaders swap that news, and each tells its group. */
    coll_grp_inter(comm, &g, &lg);
    coll_barrier_intra(s, &lg);
    if (lg.rank == 0) {
        coll_send_raw(s, &g, NULL, 0, 0);
        coll_recv_raw(s, &g, NULL, 0, 0);
        coll_fence(s);
    }
    coll_bcast_raw(s, &lg, NULL, 0, 0);
}

static void coll_build_bcast(coll_sched_t *s, void *buf, int count,
                             MPI_Datatype type, int root, MPI_Comm comm)
{
    coll_grp_t g, lg;

    if (coll_is_inter(comm) == 0) {
        g = coll_grp(comm);
        coll_bcast_typed(s, &g, buf, count, type, root);
        return;
    }
    coll_grp_inter(comm, &g, &lg);
    if (root == MPI_PROC_NULL) {
        return;
    }
    if (root == MPI_ROOT) {
        coll_send(s, &g, buf, count, type, 0);
        coll_fence(s);
        return;
    }
    if (lg.rank == 0) {
        coll_recv(s, &g, buf, count, type, root);
        coll_fence(s);
    }
    coll_bcast_typed(s, &lg, buf, count, type, 0);
}

static void coll_build_reduce(coll_sched_t *s, const void *sbuf,
                              void *rbuf, int count, MPI_Datatype type,
                              MPI_Op op, int root, MPI_Comm comm)
{
    coll_grp_t g, lg;
    void *tmp = NULL;

    if (coll_is_inter(comm) == 0) {
        g = coll_grp(comm);
        coll_reduce_intra(s, &g, (sbuf == MPI_IN_PLACE) ? rbuf : sbuf, rbuf,
                          count, type, op, root);
        return;
    }
    coll_grp_inter(comm, &g, &lg);
    if (root == MPI_PROC_NULL) {
        return;
    }
    if (root == MPI_ROOT) {
        coll_recv(s, &g, rbuf, count, type, 0);
        coll_fence(s);
        return;
    }
    if (lg.rank == 0) {
        tmp = coll_alloc_type(s, count, type);
    }
    coll_reduce_intra(s, &lg, sbuf, tmp, count, type, op, 0);
    if (lg.rank == 0) {
        coll_send(s, &g, tmp, count, type, root);
        coll_fence(s);
    }
}

static void coll_build_allreduce(coll_sched_t *s, const void *sbuf,
                                 void *rbuf, int count, MPI_Datatype type,
                                 MPI_Op op, MPI_Comm comm)
{
    coll_grp_t g, lg;
    void *tmp = NULL;

    if (coll_is_inter(comm) == 0) {
        g = coll_grp(comm);
        coll_allreduce_intra(s, &g, sbuf, rbuf, count, type, op);
        return;
    }
    /* Each group reduces its data to its leader; the leaders swap, and
     * each spreads the other group's result in its own group. */
    coll_grp_inter(comm, &g, &lg);
    if (lg.rank == 0) {
        tmp = coll_alloc_type(s, count, type);
    }
    coll_reduce_intra(s, &lg, sbuf, tmp, count, type, op, 0);
    if (lg.rank == 0) {
        coll_send(s, &g, tmp, count, type, 0);
        coll_recv(s, &g, rbuf, count, type, 0);
        coll_fence(s);
    }
    coll_bcast_typed(s, &lg, rbuf, count, type, 0);
}

/* Allgather and allgatherv (counts/displs NULL: allgather). */
static void coll_build_allgather(coll_sched_t *s, const void *sbuf,
                                 int scount, MPI_Datatype stype, void *rbuf,
                                 int rcount, const int *rcounts,
                                 const int *displs, MPI_Datatype rtype,
                                 MPI_Comm comm)
{
    coll_layout_t l = { rbuf, rcount, rcounts, displs, rtype };
    coll_grp_t g, lg;
    size_t total = 0, off;
    char *tmp;
    int i;

    if (coll_is_inter(comm) == 0) {
        g = coll_grp(comm);
        coll_allgather_ring(s, &g, sbuf, scount, stype, &l);
        return;
    }
    /* Every process sends to the remote leader, which gathers its remote
     * group's blocks and spreads them (packed) in its own group. */
    coll_grp_inter(comm, &g, &lg);
    coll_send(s, &g, sbuf, scount, stype, 0);
    if (lg.rank == 0) {
        for (i = 0; i < g.size; i++) {
            coll_recv(s, &g, coll_blk(&l, i), coll_cnt(&l, i), rtype, i);
        }
    }
    coll_fence(s);
    if (lg.size == 1) {
        return;
    }
    for (i = 0; i < g.size; i++) {
        total += coll_bytes(rtype, coll_cnt(&l, i), 0);
    }
    tmp = coll_alloc(s, total);
    if (tmp == NULL) {
        return;
    }
    for (i = 0, off = 0; lg.rank == 0 && i < g.size; i++) {
        size_t n = coll_bytes(rtype, coll_cnt(&l, i), 0);

        coll_copy(s, coll_blk(&l, i), coll_cnt(&l, i), rtype, 0, tmp + off,
                  0, MPI_DATATYPE_NULL, n);
        off += n;
    }
    coll_bcast_raw(s, &lg, tmp, total, 0);
    for (i = 0, off = 0; lg.rank != 0 && i < g.size; i++) {
        size_t n = coll_bytes(rtype, coll_cnt(&l, i), 0);

        coll_copy(s, tmp + off, 0, MPI_DATATYPE_NULL, n, coll_blk(&l, i),
                  coll_cnt(&l, i), rtype, 0);
        off += n;
    }
}

/* Alltoall, alltoallv and alltoallw share this: per-peer blocks given by
 * counts (NULL: same count), displacements (NULL: rank * count) in units
 * of extent, or byte displacements with per-peer types (w != 0). */
typedef struct coll_a2a_side {
    const void         *buf;
    int                 count;
    const int          *counts;
    const int          *displs;
    MPI_Datatype        type;
    const MPI_Datatype *types;
} coll_a2a_side_t;

static void coll_a2a_fill(const coll_a2a_side_t *d, int n,
                          coll_blocks_t *b)
{
    int i;

    for (i = 0; i < n; i++) {
        b->count[i] = (d->counts != NULL) ? d->counts[i] : d->count;
        if (d->types != NULL) {
            b->type[i] = d->types[i];
            b->ptr[i] = coll_off(d->buf, d->displs[i]);
        } else {
            MPI_Aint disp = (d->displs != NULL) ? d->displs[i] :
                            (MPI_Aint)i * d->count;

            b->type[i] = d->type;
            b->ptr[i] = coll_at(d->buf, disp, d->type);
        }
    }
}

static void coll_build_alltoall(coll_sched_t *s, const coll_a2a_side_t *sd,
                                const coll_a2a_side_t *rd, MPI_Comm comm)
{
    coll_blocks_t sb, rb;
    coll_grp_t g, lg;
    int inter = coll_is_inter(comm), in_place = (sd->buf == MPI_IN_PLACE);

    if (inter != 0) {
        coll_grp_inter(comm, &g, &lg);
    } else {
        g = coll_grp(comm);
    }
    if (coll_blocks_alloc(s, g.size, &sb) != 0 ||
        coll_blocks_alloc(s, g.size, &rb) != 0) {
        return;
    }
    coll_a2a_fill(rd, g.size, &rb);
    if (in_place != 0) {
        coll_alltoall_inplace_copy(s, g.size, &rb, &sb);
    } else {
        coll_a2a_fill(sd, g.size, &sb);
    }
    coll_alltoall_pairwise(s, &g, inter, &sb, &rb, in_place);
}

/* ---- the MPI functions --------------------------------------------------- */

int PMPI_Barrier(MPI_Comm comm)
{
    static const char call[] = "MPI_Barrier";
    coll_sched_t s;
    int rc = coll_check_comm(comm, call);

    if (rc == MPI_SUCCESS) {
        rc = GCM_MPI_COLL_VERIFY(comm, call, .kind = GCM_MPI_COLL_BARRIER);
    }
    if (rc != MPI_SUCCESS) {
        return rc;
    }
    coll_sched_init(&s);
    coll_build_barrier(&s, comm);
    return coll_finish(&s, comm, call);
}
GCM_MPI_ALIAS(Barrier)

int PMPI_Ibarrier(MPI_Comm comm, MPI_Request *request)
{
    static const char call[] = "MPI_Ibarrier";
    coll_sched_t *s;
    int rc = coll_check_comm(comm, call);

    if (rc == MPI_SUCCESS) {
        rc = coll_check_req(comm, call, request);
    }
    if (rc == MPI_SUCCESS) {
        rc = GCM_MPI_COLL_VERIFY(comm, call, .kind = GCM_MPI_COLL_BARRIER,
                                 .nonblocking = 1);
    }
    if (rc != MPI_SUCCESS || (s = coll_new(comm, call, &rc)) == NULL) {
        return rc;
    }
    coll_build_barrier(s, comm);
    return coll_start(s, comm, call, request);
}
GCM_MPI_ALIAS(Ibarrier)

static int coll_check_bcast(void *buffer, int count, MPI_Datatype datatype,
                            int root, MPI_Comm comm, const char *call)
{
    int rc = coll_check_comm(comm, call);

    if (rc == MPI_SUCCESS) {
        rc = coll_check_root(comm, call, root);
    }
    if (rc == MPI_SUCCESS &&
        !(coll_is_inter(comm) && root == MPI_PROC_NULL)) {
        rc = coll_check_side(comm, call, buffer, count, datatype, 0,
                             "buffer");
    }
    return rc;
}

int PMPI_Bcast(void *buffer, int count, MPI_Datatype datatype, int root,
               MPI_Comm comm)
{
    static const char call[] = "MPI_Bcast";
    coll_sched_t s;
    int rc = coll_check_bcast(buffer, count, datatype, root, comm, call);

    if (rc == MPI_SUCCESS) {
        rc = GCM_MPI_COLL_VERIFY(comm, call, .kind = GCM_MPI_COLL_BCAST,
                                 .root = root, .scount = count,
                                 .stype = datatype);
    }
    if (rc != MPI_SUCCESS) {
        return rc;
    }
    coll_sched_init(&s);
    coll_build_bcast(&s, buffer, count, datatype, root, comm);
    return coll_finish(&s, comm, call);
}
GCM_MPI_ALIAS(Bcast)

int PMPI_Ibcast(void *buffer, int count, MPI_Datatype datatype, int root,
                MPI_Comm comm, MPI_Request *request)
{
    static const char call[] = "MPI_Ibcast";
    coll_sched_t *s;
    int rc = coll_check_bcast(buffer, count, datatype, root, comm, call);

    if (rc == MPI_SUCCESS) {
        rc = coll_check_req(comm, call, request);
    }
    if (rc == MPI_SUCCESS) {
        rc = GCM_MPI_COLL_VERIFY(comm, call, .kind = GCM_MPI_COLL_BCAST,
                                 .nonblocking = 1, .root = root,
                                 .scount = count, .stype = datatype);
    }
    if (rc != MPI_SUCCESS || (s = coll_new(comm, call, &rc)) == NULL) {
        return rc;
    }
    coll_build_bcast(s, buffer, count, datatype, root, comm);
    return coll_start(s, comm, call, request);
}
GCM_MPI_ALIAS(Ibcast)

/* Is this process the root (intra) or the MPI_ROOT side (inter)? And is
 * it a sending member (not the root, not MPI_PROC_NULL)? */
static int coll_am_root(MPI_Comm comm, int root)
{
    return coll_is_inter(comm) ? (root == MPI_ROOT) : (comm->prank == root);
}

static int coll_am_leaf(MPI_Comm comm, int root)
{
    if (coll_is_inter(comm)) {
        return root != MPI_ROOT && root != MPI_PROC_NULL;
    }
    return comm->prank != root;
}

/* Gather, gatherv, scatter, scatterv: is_gather picks the direction;
 * (mbuf, mcount, mtype) is every process's own block (send side of a
 * gather, receive side of a scatter); (rbuf, ...) the root's layout. */
static int coll_rooted(int is_gather, const void *mbuf, int mcount,
                       MPI_Datatype mtype, void *rbuf, int rcount, int is_v,
                       const int *rcounts, const int *displs,
                       MPI_Datatype rtype, int root, MPI_Comm comm,
                       const char *call)
{
    const char *mname = is_gather ? "sendbuf" : "recvbuf";
    const char *rname = is_gather ? "recvbuf" : "sendbuf";
    coll_layout_t l = { rbuf, rcount, rcounts, displs, rtype };
    coll_sched_t s;
    coll_grp_t g, lg;
    int rc = coll_check_comm(comm, call), i, n, in_place = 0;

    if (rc == MPI_SUCCESS) {
        rc = coll_check_root(comm, call, root);
    }
    if (rc == MPI_SUCCESS) {
        rc = coll_no_inter_in_place(comm, call, mbuf, rbuf);
    }
    if (rc != MPI_SUCCESS) {
        return rc;
    }
    n = coll_is_inter(comm) ? comm->remote_size : comm->psize;
    if (coll_am_root(comm, root)) {
        /* The root's layout of everyone's blocks. */
        if (is_v != 0) {
            rc = coll_check_array(comm, call, rcounts, n, 1,
                                  is_gather ? "recvcounts" : "sendcounts");
            if (rc == MPI_SUCCESS) {
                rc = coll_check_array(comm, call, displs, n, 0, "displs");
            }
        } else {
            rc = coll_check_count(comm, call, rcount, "count");
        }
        if (rc == MPI_SUCCESS) {
            rc = coll_check_type(comm, call, rtype, "datatype");
        }
        if (rc == MPI_SUCCESS && rbuf == MPI_IN_PLACE) {
            rc = gcm_mpi_raise(comm, MPI_ERR_BUFFER, call,
                               "MPI_IN_PLACE is not allowed as %s", rname);
        }
        for (i = 0; rc == MPI_SUCCESS && i < n; i++) {
            rc = coll_check_buf(comm, call, rbuf, coll_cnt(&l, i), rtype, 0,
                                rname);
        }
        in_place = (mbuf == MPI_IN_PLACE);
    }
    /* This process's own block: at every non-root of an
     * intracommunicator, at its root unless MPI_IN_PLACE, and at the
     * non-root group of an intercommunicator. */
    if (rc == MPI_SUCCESS && in_place == 0 &&
        (coll_is_inter(comm) == 0 || coll_am_leaf(comm, root) != 0)) {
        rc = coll_check_side(comm, call, mbuf, mcount, mtype, 0, mname);
    }
    if (rc == MPI_SUCCESS) {
        rc = GCM_MPI_COLL_VERIFY(comm, call,
            .kind = is_gather ? (is_v ? GCM_MPI_COLL_GATHERV :
                                        GCM_MPI_COLL_GATHER) :
                                (is_v ? GCM_MPI_COLL_SCATTERV :
                                        GCM_MPI_COLL_SCATTER),
            .root = root,
            .sbuf = is_gather ? mbuf : rbuf, .rbuf = is_gather ? rbuf : mbuf,
            .scount = is_gather ? mcount : rcount,
            .scounts = is_gather ? NULL : rcounts,
            .stype = is_gather ? mtype : rtype,
            .rcount = is_gather ? rcount : mcount,
            .rcounts = is_gather ? rcounts : NULL,
            .rtype = is_gather ? rtype : mtype);
    }
    if (rc != MPI_SUCCESS) {
        return rc;
    }
    coll_sched_init(&s);
    if (coll_is_inter(comm)) {
        coll_grp_inter(comm, &g, &lg);
    } else {
        g = coll_grp(comm);
    }
    coll_gather_linear(&s, &g, coll_is_inter(comm), is_gather, (void *)mbuf,
                       mcount, mtype, &l, root, in_place);
    return coll_finish(&s, comm, call);
}

int PMPI_Gather(const void *sendbuf, int sendcount, MPI_Datatype sendtype,
                void *recvbuf, int recvcount, MPI_Datatype recvtype,
                int root, MPI_Comm comm)
{
    return coll_rooted(1, sendbuf, sendcount, sendtype, recvbuf, recvcount,
                       0, NULL, NULL, recvtype, root, comm, "MPI_Gather");
}
GCM_MPI_ALIAS(Gather)

int PMPI_Gatherv(const void *sendbuf, int sendcount, MPI_Datatype sendtype,
                 void *recvbuf, const int recvcounts[], const int displs[],
                 MPI_Datatype recvtype, int root, MPI_Comm comm)
{
    return coll_rooted(1, sendbuf, sendcount, sendtype, recvbuf, 0, 1,
                       recvcounts, displs, recvtype, root, comm,
                       "MPI_Gatherv");
}
GCM_MPI_ALIAS(Gatherv)

int PMPI_Scatter(const void *sendbuf, int sendcount, MPI_Datatype sendtype,
                 void *recvbuf, int recvcount, MPI_Datatype recvtype,
                 int root, MPI_Comm comm)
{
    return coll_rooted(0, recvbuf, recvcount, recvtype, (void *)sendbuf,
                       sendcount, 0, NULL, NULL, sendtype, root, comm,
                       "MPI_Scatter");
}
GCM_MPI_ALIAS(Scatter)

int PMPI_Scatterv(const void *sendbuf, const int sendcounts[],
                  const int displs[], MPI_Datatype sendtype, void *recvbuf,
                  int recvcount, MPI_Datatype recvtype, int root,
                  MPI_Comm comm)
{
    return coll_rooted(0, recvbuf, recvcount, recvtype, (void *)sendbuf, 0,
                       1, sendcounts, displs, sendtype, root, comm,
                       "MPI_Scatterv");
}
GCM_MPI_ALIAS(Scatterv)

/* Checks of allgather(v): rcounts NULL for allgather. */
static int coll_check_allgather(const void *sendbuf, int sendcount,
                                MPI_Datatype sendtype, void *recvbuf,
                                int recvcount, const int *recvcounts,
                                const int *displs, int is_v,
                                MPI_Datatype recvtype, MPI_Comm comm,
                                const char *call)
{
    coll_layout_t l = { recvbuf, recvcount, recvcounts, displs, recvtype };
    int rc = coll_check_comm(comm, call), n, i;

    if (rc == MPI_SUCCESS) {
        rc = coll_no_inter_in_place(comm, call, sendbuf, recvbuf);
    }
    if (rc != MPI_SUCCESS) {
        return rc;
    }
    n = coll_is_inter(comm) ? comm->remote_size : comm->psize;
    if (is_v != 0) {
        rc = coll_check_array(comm, call, recvcounts, n, 1, "recvcounts");
        if (rc == MPI_SUCCESS) {
            rc = coll_check_array(comm, call, displs, n, 0, "displs");
        }
    } else {
        rc = coll_check_count(comm, call, recvcount, "recvcount");
    }
    if (rc == MPI_SUCCESS) {
        rc = coll_check_type(comm, call, recvtype, "recvtype");
    }
    if (rc == MPI_SUCCESS && recvbuf == MPI_IN_PLACE) {
        rc = gcm_mpi_raise(comm, MPI_ERR_BUFFER, call,
                           "MPI_IN_PLACE is not allowed as recvbuf");
    }
    for (i = 0; rc == MPI_SUCCESS && i < n; i++) {
        rc = coll_check_buf(comm, call, coll_blk(&l, i), coll_cnt(&l, i),
                            recvtype, 0, "recvbuf");
    }
    if (rc == MPI_SUCCESS && sendbuf != MPI_IN_PLACE) {
        rc = coll_check_side(comm, call, sendbuf, sendcount, sendtype, 1,
                             "sendbuf");
    }
    return rc;
}

int PMPI_Allgather(const void *sendbuf, int sendcount,
                   MPI_Datatype sendtype, void *recvbuf, int recvcount,
                   MPI_Datatype recvtype, MPI_Comm comm)
{
    static const char call[] = "MPI_Allgather";
    coll_sched_t s;
    int rc = coll_check_allgather(sendbuf, sendcount, sendtype, recvbuf,
                                  recvcount, NULL, NULL, 0, recvtype, comm,
                                  call);

    if (rc == MPI_SUCCESS) {
        rc = GCM_MPI_COLL_VERIFY(comm, call, .kind = GCM_MPI_COLL_ALLGATHER,
                                 .sbuf = sendbuf, .scount = sendcount,
                                 .stype = sendtype, .rcount = recvcount,
                                 .rtype = recvtype);
    }
    if (rc != MPI_SUCCESS) {
        return rc;
    }
    coll_sched_init(&s);
    coll_build_allgather(&s, sendbuf, sendcount, sendtype, recvbuf,
                         recvcount, NULL, NULL, recvtype, comm);
    return coll_finish(&s, comm, call);
}
GCM_MPI_ALIAS(Allgather)

int PMPI_Iallgather(const void *sendbuf, int sendcount,
                    MPI_Datatype sendtype, void *recvbuf, int recvcount,
                    MPI_Datatype recvtype, MPI_Comm comm,
                    MPI_Request *request)
{
    static const char call[] = "MPI_Iallgather";
    coll_sched_t *s;
    int rc = coll_check_allgather(sendbuf, sendcount, sendtype, recvbuf,
                                  recvcount, NULL, NULL, 0, recvtype, comm,
                                  call);

    if (rc == MPI_SUCCESS) {
        rc = coll_check_req(comm, call, request);
    }
    if (rc == MPI_SUCCESS) {
        rc = GCM_MPI_COLL_VERIFY(comm, call, .kind = GCM_MPI_COLL_ALLGATHER,
                                 .nonblocking = 1, .sbuf = sendbuf,
                                 .scount = sendcount, .stype = sendtype,
                                 .rcount = recvcount, .rtype = recvtype);
    }
    if (rc != MPI_SUCCESS || (s = coll_new(comm, call, &rc)) == NULL) {
        return rc;
    }
    coll_build_allgather(s, sendbuf, sendcount, sendtype, recvbuf,
                         recvcount, NULL, NULL, recvtype, comm);
    return coll_start(s, comm, call, request);
}
GCM_MPI_ALIAS(Iallgather)

int PMPI_Allgatherv(const void *sendbuf, int sendcount,
                    MPI_Datatype sendtype, void *recvbuf,
                    const int recvcounts[], const int displs[],
                    MPI_Datatype recvtype, MPI_Comm comm)
{
    static const char call[] = "MPI_Allgatherv";
    coll_sched_t s;
    int rc = coll_check_allgather(sendbuf, sendcount, sendtype, recvbuf, 0,
                                  recvcounts, displs, 1, recvtype, comm,
                                  call);

    if (rc == MPI_SUCCESS) {
        rc = GCM_MPI_COLL_VERIFY(comm, call, .kind = GCM_MPI_COLL_ALLGATHERV,
                                 .sbuf = sendbuf, .scount = sendcount,
                                 .stype = sendtype, .rcounts = recvcounts,
                                 .rtype = recvtype);
    }
    if (rc != MPI_SUCCESS) {
        return rc;
    }
    coll_sched_init(&s);
    coll_build_allgather(&s, sendbuf, sendcount, sendtype, recvbuf, 0,
                         recvcounts, displs, recvtype, comm);
    return coll_finish(&s, comm, call);
}
GCM_MPI_ALIAS(Allgatherv)

/* Checks of one side of alltoall(v,w): counts/displs/types NULL select
 * the simpler forms. */
static int coll_check_a2a_side(MPI_Comm comm, const char *call,
                               const coll_a2a_side_t *d, int n, int is_v,
                               int is_w, int in_place_ok, const char *what)
{
    int rc = MPI_SUCCESS, i;

    if (d->buf == MPI_IN_PLACE) {
        if (in_place_ok != 0) {
            return MPI_SUCCESS;
        }
        return gcm_mpi_raise(comm, MPI_ERR_BUFFER, call,
                             "MPI_IN_PLACE is not allowed as %s", what);
    }
    if (is_v != 0) {
        rc = coll_check_array(comm, call, d->counts, n, 1, "counts");
        if (rc == MPI_SUCCESS) {
            rc = coll_check_array(comm, call, d->displs, n, 0,
                                  "displacements");
        }
    } else {
        rc = coll_check_count(comm, call, d->count, "count");
    }
    if (rc == MPI_SUCCESS && is_w != 0 && d->types == NULL && n > 0) {
        rc = gcm_mpi_raise(comm, MPI_ERR_ARG, call, "datatypes is NULL");
    }
    for (i = 0; rc == MPI_SUCCESS && i < n; i++) {
        rc = coll_check_type(comm, call,
                             (is_w != 0) ? d->types[i] : d->type,
                             "datatype");
        if (is_w == 0) {
            break;
        }
    }
    for (i = 0; rc == MPI_SUCCESS && i < n; i++) {
        rc = coll_check_buf(comm, call, d->buf,
                            (is_v != 0) ? d->counts[i] : d->count,
                            (is_w != 0) ? d->types[i] : d->type, 0, what);
    }
    return rc;
}

static int coll_alltoall_any(const coll_a2a_side_t *sd,
                             const coll_a2a_side_t *rd, int is_v, int is_w,
                             MPI_Comm comm, int nonblocking,
                             MPI_Request *request, const char *call)
{
    coll_sched_t *s, stack;
    int rc = coll_check_comm(comm, call), n;

    if (rc == MPI_SUCCESS) {
        rc = coll_no_inter_in_place(comm, call, sd->buf, rd->buf);
    }
    if (rc != MPI_SUCCESS) {
        return rc;
    }
    n = coll_is_inter(comm) ? comm->remote_size : comm->psize;
    rc = coll_check_a2a_side(comm, call, rd, n, is_v, is_w, 0, "recvbuf");
    if (rc == MPI_SUCCESS) {
        rc = coll_check_a2a_side(comm, call, sd, n, is_v, is_w, 1,
                                 "sendbuf");
    }
    if (rc == MPI_SUCCESS && nonblocking != 0) {
        rc = coll_check_req(comm, call, request);
    }
    if (rc == MPI_SUCCESS) {
        rc = GCM_MPI_COLL_VERIFY(comm, call,
            .kind = is_w ? GCM_MPI_COLL_ALLTOALLW :
                    is_v ? GCM_MPI_COLL_ALLTOALLV : GCM_MPI_COLL_ALLTOALL,
            .nonblocking = nonblocking, .sbuf = sd->buf,
            .scount = sd->count, .scounts = sd->counts, .stype = sd->type,
            .stypes = sd->types, .rbuf = rd->buf, .rcount = rd->count,
            .rcounts = rd->counts, .rtype = rd->type, .rtypes = rd->types);
    }
    if (rc != MPI_SUCCESS) {
        return rc;
    }
    if (nonblocking == 0) {
        coll_sched_init(&stack);
        coll_build_alltoall(&stack, sd, rd, comm);
        return coll_finish(&stack, comm, call);
    }
    if ((s = coll_new(comm, call, &rc)) == NULL) {
        return rc;
    }
    coll_build_alltoall(s, sd, rd, comm);
    return coll_start(s, comm, call, request);
}

int PMPI_Alltoall(const void *sendbuf, int sendcount, MPI_Datatype sendtype,
                  void *recvbuf, int recvcount, MPI_Datatype recvtype,
                  MPI_Comm comm)
{
    coll_a2a_side_t sd = { sendbuf, sendcount, NULL, NULL, sendtype, NULL };
    coll_a2a_side_t rd = { recvbuf, recvcount, NULL, NULL, recvtype, NULL };

    return coll_alltoall_any(&sd, &rd, 0, 0, comm, 0, NULL, "MPI_Alltoall");
}
GCM_MPI_ALIAS(Alltoall)

int PMPI_Ialltoall(const void *sendbuf, int sendcount,
                   MPI_Datatype sendtype, void *recvbuf, int recvcount,
                   MPI_Datatype recvtype, MPI_Comm comm,
                   MPI_Request *request)
{
    coll_a2a_side_t sd = { sendbuf, sendcount, NULL, NULL, sendtype, NULL };
    coll_a2a_side_t rd = { recvbuf, recvcount, NULL, NULL, recvtype, NULL };

    return coll_alltoall_any(&sd, &rd, 0, 0, comm, 1, request,
                             "MPI_Ialltoall");
}
GCM_MPI_ALIAS(Ialltoall)

int PMPI_Alltoallv(const void *sendbuf, const int sendcounts[],
                   const int sdispls[], MPI_Datatype sendtype,
                   void *recvbuf, const int recvcounts[],
                   const int rdispls[], MPI_Datatype recvtype,
                   MPI_Comm comm)
{
    coll_a2a_side_t sd = { sendbuf, 0, sendcounts, sdispls, sendtype, NULL };
    coll_a2a_side_t rd = { recvbuf, 0, recvcounts, rdispls, recvtype, NULL };

    return coll_alltoall_any(&sd, &rd, 1, 0, comm, 0, NULL,
                             "MPI_Alltoallv");
}
GCM_MPI_ALIAS(Alltoallv)

int PMPI_Alltoallw(const void *sendbuf, const int sendcounts[],
                   const int sdispls[], const MPI_Datatype sendtypes[],
                   void *recvbuf, const int recvcounts[],
                   const int rdispls[], const MPI_Datatype recvtypes[],
                   MPI_Comm comm)
{
    coll_a2a_side_t sd = { sendbuf, 0, sendcounts, sdispls,
                           MPI_DATATYPE_NULL, sendtypes };
    coll_a2a_side_t rd = { recvbuf, 0, recvcounts, rdispls,
                           MPI_DATATYPE_NULL, recvtypes };

    return coll_alltoall_any(&sd, &rd, 1, 1, comm, 0, NULL,
                             "MPI_Alltoallw");
}
GCM_MPI_ALIAS(Alltoallw)

/* Reduce: sendbuf may be MPI_IN_PLACE at the root (intra only). */
static int coll_check_reduce(const void *sendbuf, void *recvbuf, int count,
                             MPI_Datatype datatype, MPI_Op op, int root,
                             MPI_Comm comm, const char *call)
{
    int rc = coll_check_comm(comm, call);

    if (rc == MPI_SUCCESS) {
        rc = coll_check_root(comm, call, root);
    }
    if (rc == MPI_SUCCESS) {
        rc = coll_no_inter_in_place(comm, call, sendbuf, recvbuf);
    }
    if (rc != MPI_SUCCESS ||
        (coll_is_inter(comm) && root == MPI_PROC_NULL)) {
        return rc;
    }
    rc = coll_check_reduction(comm, call, count, datatype, op);
    if (rc == MPI_SUCCESS && coll_am_root(comm, root)) {
        rc = coll_check_buf(comm, call, recvbuf, count, datatype, 0,
                            "recvbuf");
    }
    if (rc == MPI_SUCCESS && !(coll_is_inter(comm) && root == MPI_ROOT)) {
        rc = coll_check_buf(comm, call, sendbuf, count, datatype,
                            coll_am_root(comm, root), "sendbuf");
    }
    return rc;
}

int PMPI_Reduce(const void *sendbuf, void *recvbuf, int count,
                MPI_Datatype datatype, MPI_Op op, int root, MPI_Comm comm)
{
    static const char call[] = "MPI_Reduce";
    coll_sched_t s;
    int rc = coll_check_reduce(sendbuf, recvbuf, count, datatype, op, root,
                               comm, call);

    if (rc == MPI_SUCCESS) {
        rc = GCM_MPI_COLL_VERIFY(comm, call, .kind = GCM_MPI_COLL_REDUCE,
                                 .root = root, .op = op, .scount = count,
                                 .stype = datatype);
    }
    if (rc != MPI_SUCCESS) {
        return rc;
    }
    coll_sched_init(&s);
    coll_build_reduce(&s, sendbuf, recvbuf, count, datatype, op, root, comm);
    return coll_finish(&s, comm, call);
}
GCM_MPI_ALIAS(Reduce)

int PMPI_Ireduce(const void *sendbuf, void *recvbuf, int count,
                 MPI_Datatype datatype, MPI_Op op, int root, MPI_Comm comm,
                 MPI_Request *request)
{
    static const char call[] = "MPI_Ireduce";
    coll_sched_t *s;
    int rc = coll_check_reduce(sendbuf, recvbuf, count, datatype, op, root,
                               comm, call);

    if (rc == MPI_SUCCESS) {
        rc = coll_check_req(comm, call, request);
    }
    if (rc == MPI_SUCCESS) {
        rc = GCM_MPI_COLL_VERIFY(comm, call, .kind = GCM_MPI_COLL_REDUCE,
                                 .nonblocking = 1, .root = root, .op = op,
                                 .scount = count, .stype = datatype);
    }
    if (rc != MPI_SUCCESS || (s = coll_new(comm, call, &rc)) == NULL) {
        return rc;
    }
    coll_build_reduce(s, sendbuf, recvbuf, count, datatype, op, root, comm);
    return coll_start(s, comm, call, request);
}
GCM_MPI_ALIAS(Ireduce)

/* Allreduce, scan, exscan: sendbuf may be MPI_IN_PLACE (intra). */
static int coll_check_allreduce(const void *sendbuf, void *recvbuf,
                                int count, MPI_Datatype datatype, MPI_Op op,
                                MPI_Comm comm, int inter_ok,
                                const char *call)
{
    int rc = coll_check_comm(comm, call);

    if (rc == MPI_SUCCESS && inter_ok == 0 && coll_is_inter(comm)) {
        rc = gcm_mpi_raise(comm, MPI_ERR_COMM, call,
                           "not defined on an intercommunicator");
    }
    if (rc == MPI_SUCCESS) {
        rc = coll_no_inter_in_place(comm, call, sendbuf, recvbuf);
    }
    if (rc == MPI_SUCCESS) {
        rc = coll_check_reduction(comm, call, count, datatype, op);
    }
    if (rc == MPI_SUCCESS) {
        rc = coll_check_buf(comm, call, recvbuf, count, datatype, 0,
                            "recvbuf");
    }
    if (rc == MPI_SUCCESS) {
        rc = coll_check_buf(comm, call, sendbuf, count, datatype, 1,
                            "sendbuf");
    }
    return rc;
}

int PMPI_Allreduce(const void *sendbuf, void *recvbuf, int count,
                   MPI_Datatype datatype, MPI_Op op, MPI_Comm comm)
{
    static const char call[] = "MPI_Allreduce";
    coll_sched_t s;
    int rc = coll_check_allreduce(sendbuf, recvbuf, count, datatype, op,
                                  comm, 1, call);

    if (rc == MPI_SUCCESS) {
        rc = GCM_MPI_COLL_VERIFY(comm, call, .kind = GCM_MPI_COLL_ALLREDUCE,
                                 .op = op, .scount = count,
                                 .stype = datatype);
    }
    if (rc != MPI_SUCCESS) {
        return rc;
    }
    coll_sched_init(&s);
    coll_build_allreduce(&s, sendbuf, recvbuf, count, datatype, op, comm);
    return coll_finish(&s, comm, call);
}
GCM_MPI_ALIAS(Allreduce)

int PMPI_Iallreduce(const void *sendbuf, void *recvbuf, int count,
                    MPI_Datatype datatype, MPI_Op op, MPI_Comm comm,
                    MPI_Request *request)
{
    static const char call[] = "MPI_Iallreduce";
    coll_sched_t *s;
    int rc = coll_check_allreduce(sendbuf, recvbuf, count, datatype, op,
                                  comm, 1, call);

    if (rc == MPI_SUCCESS) {
        rc = coll_check_req(comm, call, request);
    }
    if (rc == MPI_SUCCESS) {
        rc = GCM_MPI_COLL_VERIFY(comm, call, .kind = GCM_MPI_COLL_ALLREDUCE,
                                 .nonblocking = 1, .op = op, .scount = count,
                                 .stype = datatype);
    }
    if (rc != MPI_SUCCESS || (s = coll_new(comm, call, &rc)) == NULL) {
        return rc;
    }
    coll_build_allreduce(s, sendbuf, recvbuf, count, datatype, op, comm);
    return coll_start(s, comm, call, request);
}
GCM_MPI_ALIAS(Iallreduce)

static int coll_scan_any(const void *sendbuf, void *recvbuf, int count,
                         MPI_Datatype datatype, MPI_Op op, MPI_Comm comm,
                         int exclusive, const char *call)
{
    coll_sched_t s;
    coll_grp_t g;
    int rc = coll_check_allreduce(sendbuf, recvbuf, count, datatype, op,
                                  comm, 0, call);

    if (rc == MPI_SUCCESS) {
        rc = GCM_MPI_COLL_VERIFY(comm, call,
            .kind = exclusive ? GCM_MPI_COLL_EXSCAN : GCM_MPI_COLL_SCAN,
            .op = op, .scount = count, .stype = datatype);
    }
    if (rc != MPI_SUCCESS) {
        return rc;
    }
    coll_sched_init(&s);
    g = coll_grp(comm);
    coll_scan_intra(&s, &g, sendbuf, recvbuf, count, datatype, op,
                    exclusive);
    return coll_finish(&s, comm, call);
}

int PMPI_Scan(const void *sendbuf, void *recvbuf, int count,
              MPI_Datatype datatype, MPI_Op op, MPI_Comm comm)
{
    return coll_scan_any(sendbuf, recvbuf, count, datatype, op, comm, 0,
                         "MPI_Scan");
}
GCM_MPI_ALIAS(Scan)

int PMPI_Exscan(const void *sendbuf, void *recvbuf, int count,
                MPI_Datatype datatype, MPI_Op op, MPI_Comm comm)
{
    return coll_scan_any(sendbuf, recvbuf, count, datatype, op, comm, 1,
                         "MPI_Exscan");
}
GCM_MPI_ALIAS(Exscan)

/* Reduce to rank 0 over the whole vector, then scatterv: rank order is
 * kept, so non-commutative operations are right. rcounts NULL: the same
 * rcount for everyone (reduce_scatter_block). */
static int coll_reduce_scatter_any(const void *sendbuf, void *recvbuf,
                                   int rcount, const int *rcounts,
                                   MPI_Datatype datatype, MPI_Op op,
                                   MPI_Comm comm, const char *call)
{
    coll_layout_t l;
    coll_sched_t s;
    coll_grp_t g;
    long long total = 0;
    int rc = coll_check_comm(comm, call), i, n, mine;
    int *displs;
    void *tmp = NULL;
    const void *in;

    if (rc == MPI_SUCCESS && coll_is_inter(comm)) {
        rc = gcm_mpi_raise(comm, MPI_ERR_COMM, call,
                           "intercommunicators are not supported here");
    }
    if (rc != MPI_SUCCESS) {
        return rc;
    }
    n = comm->psize;
    if (rcounts != NULL) {
        rc = coll_check_array(comm, call, rcounts, n, 1, "recvcounts");
    } else {
        rc = coll_check_count(comm, call, rcount, "recvcount");
    }
    for (i = 0; rc == MPI_SUCCESS && i < n; i++) {
        total += (rcounts != NULL) ? rcounts[i] : rcount;
    }
    if (rc == MPI_SUCCESS && total > INT_MAX) {
        rc = gcm_mpi_raise(comm, MPI_ERR_COUNT, call,
                           "the counts add up to %lld, more than an int",
                           total);
    }
    if (rc == MPI_SUCCESS) {
        rc = coll_check_reduction(comm, call, (int)total, datatype, op);
    }
    if (rc != MPI_SUCCESS) {
        return rc;
    }
    mine = (rcounts != NULL) ? rcounts[comm->prank] : rcount;
    if (rc == MPI_SUCCESS) {
        rc = coll_check_buf(comm, call, recvbuf, mine, datatype, 0,
                            "recvbuf");
    }
    if (rc == MPI_SUCCESS) {
        rc = coll_check_buf(comm, call, sendbuf, (int)total, datatype, 1,
                            "sendbuf");
    }
    if (rc == MPI_SUCCESS) {
        rc = GCM_MPI_COLL_VERIFY(comm, call,
            .kind = (rcounts != NULL) ? GCM_MPI_COLL_REDUCE_SCATTER :
                                        GCM_MPI_COLL_REDUCE_SCATTER_BLOCK,
            .op = op, .scount = rcount, .scounts = rcounts,
            .stype = datatype);
    }
    if (rc != MPI_SUCCESS) {
        return rc;
    }
    coll_sched_init(&s);
    g = coll_grp(comm);
    displs = coll_alloc(&s, (size_t)n * sizeof(int));
    if (displs != NULL) {
        for (i = 0, total = 0; i < n; i++) {
            displs[i] = (int)total;
            total += (rcounts != NULL) ? rcounts[i] : rcount;
        }
    }
    if (g.rank == 0) {
        tmp = coll_alloc_type(&s, (int)total, datatype);
    }
    in = (sendbuf == MPI_IN_PLACE) ? recvbuf : sendbuf;
    if (s.nomem == 0) {
        coll_reduce_intra(&s, &g, in, tmp, (int)total, datatype, op, 0);
        l.buf = tmp;
        l.count = rcount;
        l.counts = rcounts;
        l.displs = displs;
        l.type = datatype;
        coll_gather_linear(&s, &g, 0, 0, recvbuf, mine, datatype, &l, 0, 0);
    }
    return coll_finish(&s, comm, call);
}

int PMPI_Reduce_scatter(const void *sendbuf, void *recvbuf,
                        const int recvcounts[], MPI_Datatype datatype,
                        MPI_Op op, MPI_Comm comm)
{
    static const char call[] = "MPI_Reduce_scatter";

    if (recvcounts == NULL) {
        int rc = coll_check_comm(comm, call);

        if (rc != MPI_SUCCESS) {
            return rc;
        }
        return gcm_mpi_raise(comm, MPI_ERR_ARG, call, "recvcounts is NULL");
    }
    return coll_reduce_scatter_any(sendbuf, recvbuf, 0, recvcounts, datatype,
                                   op, comm, call);
}
GCM_MPI_ALIAS(Reduce_scatter)

int PMPI_Reduce_scatter_block(const void *sendbuf, void *recvbuf,
                              int recvcount, MPI_Datatype datatype,
                              MPI_Op op, MPI_Comm comm)
{
    return coll_reduce_scatter_any(sendbuf, recvbuf, recvcount, NULL,
                                   datatype, op, comm,
                                   "MPI_Reduce_scatter_block");
}
GCM_MPI_ALIAS(Reduce_scatter_block)

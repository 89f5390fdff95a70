/*
 * coll/coll_sched.c: the schedule engine (coll/coll.h).
 *
 * Building appends steps; running starts the transfers of the steps up to
 * the next fence, then at the fence completes them (unpacking received
 * data of non-contiguous buffers), combines and copies in order. Data of a
 * non-contiguous type is packed into a temporary when its send starts,
 * so the user's buffer is read at the moment the schedule reaches the
 * step, not when it was built.
 */
#include "config.h"

#include "coll/coll.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>

/* Zero-length transfers still need a valid address. */
static char coll_dummy;

/* The inline arrays are left as they are: only what was handed out is
 * ever read, and clearing them would cost every small call. */
void gcm_coll_sched_init(gcm_coll_sched_t *s, const gcm_coll_type_ops_t *ops)
{
    s->ops = ops;
    s->steps = s->inline_steps;
    s->nsteps = 0;
    s->cap = GCM_COLL_INLINE_STEPS;
    s->next = 0;
    s->pending = 0;
    s->mem = NULL;
    s->nmem = 0;
    s->capmem = 0;
    s->inline_used = 0;
    s->nomem = 0;
    s->err = GCM_OK;
    s->tag = -1;
    s->tag0 = -1;
    s->nrecs = 0;
    s->nkeeps = 0;
}

static void coll_fail(gcm_coll_sched_t *s, gcm_status_t status)
{
    if (s->err == GCM_OK) {
        s->err = status;
    }
}

/*
 * Large temporaries (from COLL_CACHE_MIN bytes) go back to a small cache
 * when their schedule ends, for the next collective to take: malloc would
 * give them back to the system (it trims the top of the heap once a large
 * free region is there), and the next call would fault every page in
 * again (a 1 MiB multi-leader allreduce over 4 processes: about 700 page
 * faults a call, half its time). The cache is shared by the threads under
 * a lock, taken once per large temporary. Each heap block starts with its
 * length, so that it can be cached when freed.
 */
#define COLL_CACHE_MIN   ((size_t)64 * 1024)
#define COLL_CACHE_MAX   ((size_t)64 * 1024 * 1024)
#define COLL_CACHE_SLOTS 4
#define COLL_HDR         sizeof(max_align_t)

static pthread_mutex_t coll_cache_lock = PTHREAD_MUTEX_INITIALIZER;
static void *coll_cache[COLL_CACHE_SLOTS];    /* blocks, header first */

static size_t coll_block_len(const void *base)
{
    size_t len;

    memcpy(&len, base, sizeof(len));
    return len;
}

/* The smallest cached block of at least len bytes, or NULL. */
static void *coll_cache_take(size_t len)
{
    void *p = NULL;
    int i, best = -1;

    pthread_mutex_lock(&coll_cache_lock);
    for (i = 0; i < COLL_CACHE_SLOTS; i++) {
        if (coll_cache[i] != NULL && coll_block_len(coll_cache[i]) >= len &&
            (best < 0 || coll_block_len(coll_cache[i]) <
                         coll_block_len(coll_cache[best]))) {
            best = i;
        }
    }
    if (best >= 0) {
        p = coll_cache[best];
        coll_cache[best] = NULL;
    }
    pthread_mutex_unlock(&coll_cache_lock);
    return p;
}

/* Keeps base in the cache in place of an empty slot or of a smaller
 * block (which is freed), or frees it. */
static void coll_cache_put(void *base)
{
    size_t len = coll_block_len(base);
    int i, small = -1;

    if (len < COLL_CACHE_MIN || len > COLL_CACHE_MAX) {
        free(base);
        return;
    }
    pthread_mutex_lock(&coll_cache_lock);
    for (i = 0; i < COLL_CACHE_SLOTS; i++) {
        if (coll_cache[i] == NULL) {
            small = i;
            break;
        }
        if (coll_block_len(coll_cache[i]) < len &&
            (small < 0 || coll_block_len(coll_cache[i]) <
                          coll_block_len(coll_cache[small]))) {
            small = i;
        }
    }
    if (small >= 0) {
        void *old = coll_cache[small];

        coll_cache[small] = base;
        base = old;
    }
    pthread_mutex_unlock(&coll_cache_lock);
    free(base);
}

void *gcm_coll_alloc(gcm_coll_sched_t *s, size_t len)
{
    size_t a = sizeof(max_align_t);
    size_t room = (len == 0) ? a : (len + a - 1) / a * a;
    void *p;

    if (room <= GCM_COLL_INLINE_BYTES - s->inline_used) {
        p = &s->inline_bytes.b[s->inline_used];
        s->inline_used += room;
        return p;
    }
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
    p = (len >= COLL_CACHE_MIN && len <= COLL_CACHE_MAX) ?
        coll_cache_take(len) : NULL;
    if (p == NULL) {
        if (len > SIZE_MAX - COLL_HDR) {
            s->nomem = 1;
            return NULL;
        }
        p = malloc(COLL_HDR + len);
        if (p == NULL) {
            s->nomem = 1;
            return NULL;
        }
        memcpy(p, &len, sizeof(len));
    }
    s->mem[s->nmem++] = p;
    return (char *)p + COLL_HDR;
}

/* Span of count elements of type, from the lowest byte to past the
 * highest (true extent, so that resized types work). */
static void coll_type_span(const gcm_coll_sched_t *s, gcm_coll_type_h type,
                           int count, ptrdiff_t *lo_p, ptrdiff_t *hi_p)
{
    ptrdiff_t tlb = 0, text = 0, lb, ext, lo, hi, shift;

    s->ops->true_extent(type, &tlb, &text);
    s->ops->extent(type, &lb, &ext);
    lo = tlb;
    hi = tlb + text;
    if (count > 1) {
        shift = (ptrdiff_t)(count - 1) * ext;
        if (shift < 0) {
            lo += shift;
        } else {
            hi += shift;
        }
    }
    *lo_p = lo;
    *hi_p = hi;
}

void *gcm_coll_alloc_type(gcm_coll_sched_t *s, int count,
                          gcm_coll_type_h type)
{
    ptrdiff_t lo, hi;
    char *mem;

    if (type == NULL) {
        return gcm_coll_alloc(s, (size_t)count);
    }
    coll_type_span(s, type, count, &lo, &hi);
    mem = gcm_coll_alloc(s, (size_t)(hi - lo));
    if (mem == NULL) {
        return NULL;
    }
    return (void *)((uintptr_t)mem - (uintptr_t)lo);
}

static gcm_coll_step_t *coll_add(gcm_coll_sched_t *s, gcm_coll_kind_t kind)
{
    gcm_coll_step_t *st;

    if (s->nomem != 0) {
        return NULL;
    }
    if (s->nsteps == s->cap) {
        int cap = 2 * s->cap;
        gcm_coll_step_t *n;

        if (s->steps == s->inline_steps) {
            n = malloc((size_t)cap * sizeof(*n));
            if (n != NULL) {
                memcpy(n, s->steps, (size_t)s->nsteps * sizeof(*n));
            }
        } else {
            n = realloc(s->steps, (size_t)cap * sizeof(*n));
        }
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
    st->req = GCM_REQUEST_NULL;
    return st;
}

/*
 * A typed buffer that is one contiguous run of bytes becomes those raw
 * bytes when its step is built, so that running the step (again and
 * again when the MPI layer keeps the schedule) asks nothing of the type.
 */
static void coll_raw_if_contig(const gcm_coll_sched_t *s, void **buf_p,
                               int *count_p, gcm_coll_type_h *type_p,
                               size_t *len_p)
{
    const void *start = NULL;

    if (*type_p == NULL ||
        s->ops->contig(*type_p, *count_p, *buf_p, &start) == 0) {
        return;
    }
    *len_p = gcm_coll_bytes(s, *type_p, *count_p, 0);
    *buf_p = (*len_p == 0) ? NULL : (void *)start;
    *count_p = 0;
    *type_p = NULL;
}

/* A transfer step with its buffer as given (NULL: out of memory). */
static gcm_coll_step_t *coll_xfer_step(gcm_coll_sched_t *s,
                                       gcm_coll_kind_t kind,
                                       const gcm_coll_grp_t *g,
                                       const void *buf, int count,
                                       gcm_coll_type_h type, size_t len,
                                       int peer)
{
    gcm_coll_step_t *st = coll_add(s, kind);

    if (st == NULL) {
        return NULL;
    }
    st->lco = g->lco;
    st->tag = g->tag;
    st->slot = (g->slot != NULL) ? g->slot[peer] : peer;
    st->buf = (void *)buf;
    st->count = count;
    st->type = type;
    st->len = len;
    if ((kind == GCM_COLL_RECV) && (s->nrecs < GCM_COLL_INLINE_RECS)) {
        st->rec = ++s->nrecs;
    } else if ((kind == GCM_COLL_SEND) &&
               (s->nkeeps < GCM_COLL_INLINE_KEEPS)) {
        st->rec = ++s->nkeeps;
        s->keeps[st->rec - 1].port = NULL;
    }
    return st;
}

static void coll_xfer(gcm_coll_sched_t *s, gcm_coll_kind_t kind,
                      const gcm_coll_grp_t *g, const void *buf, int count,
                      gcm_coll_type_h type, size_t len, int peer)
{
    gcm_coll_step_t *st = coll_xfer_step(s, kind, g, buf, count, type, len,
                                         peer);

    if (st != NULL) {
        coll_raw_if_contig(s, &st->buf, &st->count, &st->type, &st->len);
    }
}

void gcm_coll_send(gcm_coll_sched_t *s, const gcm_coll_grp_t *g,
                   const void *buf, int count, gcm_coll_type_h type,
                   int peer)
{
    coll_xfer(s, GCM_COLL_SEND, g, buf, count, type, 0, peer);
}

void gcm_coll_recv(gcm_coll_sched_t *s, const gcm_coll_grp_t *g, void *buf,
                   int count, gcm_coll_type_h type, int peer)
{
    coll_xfer(s, GCM_COLL_RECV, g, buf, count, type, 0, peer);
}

void gcm_coll_send_raw(gcm_coll_sched_t *s, const gcm_coll_grp_t *g,
                       const void *buf, size_t len, int peer)
{
    coll_xfer(s, GCM_COLL_SEND, g, buf, 0, NULL, len, peer);
}

void gcm_coll_recv_raw(gcm_coll_sched_t *s, const gcm_coll_grp_t *g,
                       void *buf, size_t len, int peer)
{
    coll_xfer(s, GCM_COLL_RECV, g, buf, 0, NULL, len, peer);
}

/* A piece of a combining receive has landed (gcm_slots_fold_t): bytes
 * [off, off + len) of buf, which are those bytes of acc and src too (all
 * three contiguous from their start). Landed in acc itself, it takes src
 * in (commutative op); landed in the scratch, it goes into acc, which
 * first takes src's piece. */
static void coll_fold_piece(void *ctx, size_t off, size_t len)
{
    gcm_coll_step_t *st = ctx;
    size_t n = len / st->fold.unit;
    char *acc = (char *)st->acc + off;

    if (n == 0) {
        return;
    }
    if (st->buf == st->acc) {
        st->ops->combine(st->op, (const char *)st->sbuf + off, acc, (int)n,
                         st->type);
        return;
    }
    if (st->sbuf != st->acc) {
        memcpy(acc, (const char *)st->sbuf + off, n * st->fold.unit);
    }
    st->ops->combine(st->op, (const char *)st->buf + off, acc, (int)n,
                     st->type);
}

/* Whether count elements of type at buf start at buf and are one run. */
static int coll_contig_at(const gcm_coll_sched_t *s, const void *buf,
                          int count, gcm_coll_type_h type)
{
    const void *start = NULL;

    return (s->ops->contig(type, count, buf, &start) != 0) && (start == buf);
}

/* Whether a combining receive of count elements of type may fold with
 * op: a foldable op, and buf, acc and src contiguous from their start. */
static int coll_foldable(const gcm_coll_sched_t *s, const void *buf,
                         const void *acc, const void *src, int count,
                         gcm_coll_type_h type, gcm_coll_op_h op)
{
    return (type != NULL) && (count > 0) && (s->ops->foldable != NULL) &&
           s->ops->foldable(op) && coll_contig_at(s, buf, count, type) &&
           coll_contig_at(s, acc, count, type) &&
           coll_contig_at(s, src, count, type);
}

/* A receive step (buf typed: a fold needs the type of the combine) that
 * combines into acc with src; folded when fold is set. */
static gcm_coll_step_t *coll_combining_recv(gcm_coll_sched_t *s,
                                            const gcm_coll_grp_t *g,
                                            void *buf, const void *src,
                                            void *acc, int count,
                                            gcm_coll_type_h type,
                                            gcm_coll_op_h op, int peer,
                                            int fold, int share)
{
    gcm_coll_step_t *st = coll_xfer_step(s, GCM_COLL_RECV, g, buf, count,
                                         type, 0, peer);

    if (st == NULL) {
        return NULL;
    }
    st->sbuf = src;
    st->acc = acc;
    st->op = op;
    st->ops = s->ops;
    memset(&st->fold, 0, sizeof(st->fold));
    if (fold) {
        st->fold.fn = coll_fold_piece;
        st->fold.unit = s->ops->size(type);
        st->fold.share = share;
    }
    return st;
}

void gcm_coll_recv_combine(gcm_coll_sched_t *s, const gcm_coll_grp_t *g,
                           void *x, const void *src, void *acc, int count,
                           gcm_coll_type_h type, gcm_coll_op_h op, int peer)
{
    const void *from = (src == GCM_COLL_IN_PLACE) ? acc : src;
    int fold = coll_foldable(s, x, acc, from, count, type, op);
    gcm_coll_step_t *st = coll_combining_recv(s, g, x, from, acc, count,
                                              type, op, peer, fold, 0);

    /* Where the operands may swap, a folded receive's data lands in acc
     * itself and src goes into it: no pass over the scratch, no copy of
     * src. */
    if ((st != NULL) && fold && (from != acc) && s->ops->commutative(op)) {
        st->buf = acc;
    }
}

int gcm_coll_can_fold_into(const gcm_coll_sched_t *s, const void *src,
                           void *acc, int count, gcm_coll_type_h type,
                           gcm_coll_op_h op)
{
    return (src != GCM_COLL_IN_PLACE) && (src != acc) &&
           coll_foldable(s, acc, acc, src, count, type, op);
}

void gcm_coll_recv_fold_into(gcm_coll_sched_t *s, const gcm_coll_grp_t *g,
                             const void *src, void *acc, int count,
                             gcm_coll_type_h type, gcm_coll_op_h op,
                             int peer, int share)
{
    /* The data lands in acc (the step's buffer is acc): each piece p
     * becomes src's piece op p (coll_fold_piece), src on the left. */
    (void)coll_combining_recv(s, g, acc, src, acc, count, type, op, peer, 1,
                              share);
}

void gcm_coll_fence(gcm_coll_sched_t *s)
{
    (void)coll_add(s, GCM_COLL_FENCE);
}

void gcm_coll_combine(gcm_coll_sched_t *s, gcm_coll_op_h op, const void *in,
                      void *inout, int count, gcm_coll_type_h type)
{
    gcm_coll_step_t *st;

    if (count == 0) {
        return;
    }
    st = coll_add(s, GCM_COLL_COMBINE);
    if (st == NULL) {
        return;
    }
    st->op = op;
    st->sbuf = in;
    st->buf = inout;
    st->count = count;
    st->type = type;
}

void gcm_coll_copy(gcm_coll_sched_t *s, const void *src, int scount,
                   gcm_coll_type_h stype, size_t slen, void *dst, int count,
                   gcm_coll_type_h type, size_t len)
{
    gcm_coll_step_t *st = coll_add(s, GCM_COLL_COPY);
    void *from = (void *)src;

    if (st == NULL) {
        return;
    }
    st->scount = scount;
    st->stype = stype;
    st->slen = slen;
    st->buf = dst;
    st->count = count;
    st->type = type;
    st->len = len;
    coll_raw_if_contig(s, &from, &st->scount, &st->stype, &st->slen);
    coll_raw_if_contig(s, &st->buf, &st->count, &st->type, &st->len);
    st->sbuf = from;
}

size_t gcm_coll_bytes(const gcm_coll_sched_t *s, gcm_coll_type_h type,
                      int count, size_t len)
{
    if (type == NULL) {
        return len;
    }
    return (size_t)count * s->ops->size(type);
}

void *gcm_coll_at(const gcm_coll_sched_t *s, const void *buf, ptrdiff_t disp,
                  gcm_coll_type_h type)
{
    ptrdiff_t lb, ext;

    if (type == NULL) {
        return gcm_coll_off(buf, disp);
    }
    s->ops->extent(type, &lb, &ext);
    return gcm_coll_off(buf, disp * ext);
}

void *gcm_coll_blk(const gcm_coll_sched_t *s, const gcm_coll_layout_t *l,
                   int i)
{
    ptrdiff_t d = (l->displs != NULL) ? l->displs[i] :
                                        (ptrdiff_t)i * l->count;

    return gcm_coll_at(s, l->buf, d, l->type);
}

int gcm_coll_blocks_alloc(gcm_coll_sched_t *s, int n, gcm_coll_blocks_t *b)
{
    b->ptr = gcm_coll_alloc(s, (size_t)n * sizeof(*b->ptr));
    b->count = gcm_coll_alloc(s, (size_t)n * sizeof(*b->count));
    b->type = gcm_coll_alloc(s, (size_t)n * sizeof(*b->type));
    return (b->ptr != NULL && b->count != NULL && b->type != NULL) ? 0 : -1;
}

/* Where the data of a buffer starts if it is one contiguous run, else
 * NULL. */
static void *coll_contig(const gcm_coll_sched_t *s, void *buf, int count,
                         gcm_coll_type_h type, size_t len)
{
    const void *start = NULL;

    if (type == NULL) {
        return (len == 0) ? &coll_dummy : buf;
    }
    if (s->ops->contig(type, count, buf, &start) == 0) {
        return NULL;
    }
    if (gcm_coll_bytes(s, type, count, 0) == 0) {
        return &coll_dummy;
    }
    return (void *)start;
}

static void coll_run_copy(gcm_coll_sched_t *s, gcm_coll_step_t *st);

/* count elements of type from src to dst, either contiguous or not. */
static void coll_copy_typed(gcm_coll_sched_t *s, const void *src, void *dst,
                            int count, gcm_coll_type_h type)
{
    gcm_coll_step_t cp;

    memset(&cp, 0, sizeof(cp));
    cp.sbuf = src;
    cp.scount = count;
    cp.stype = type;
    cp.buf = dst;
    cp.count = count;
    cp.type = type;
    coll_run_copy(s, &cp);
}

/* A receive without a fold is in: unpack a non-contiguous buffer, and
 * combine a combining receive's data into acc. */
static void coll_recv_done(gcm_coll_sched_t *s, gcm_coll_step_t *st,
                           const gcm_msg_status_t *ms)
{
    if (st->tmp != NULL) {
        s->ops->unpack(st->type, st->count, st->tmp, ms->count, st->buf);
    }
    if (st->acc != NULL) {
        s->ops->combine(st->op, st->buf, st->acc, st->count, st->type);
    }
}

/* Posts the receive of st (fold: NULL or st's) without a request for
 * what completes at posting; one that must wait runs in st's record when
 * it has one. */
static inline gcm_status_t coll_irecv(gcm_coll_sched_t *s,
                                      gcm_coll_step_t *st, void *p,
                                      size_t len, int tag,
                                      const gcm_slots_fold_t *fold,
                                      gcm_msg_status_t *ms)
{
    if (st->rec != 0) {
        return gcm_lco_irecv_rec(st->lco, p, len, st->slot, tag, fold, ms,
                                 &s->recs[st->rec - 1], &st->req);
    }
    if (fold != NULL) {
        return gcm_lco_irecv_fold(st->lco, p, len, st->slot, tag,
                                  GCM_LCO_XFER_NOREQ, fold, ms, &st->req);
    }
    return gcm_lco_irecv_nr(st->lco, p, len, st->slot, tag, ms, &st->req);
}

/* Posts the send of st without a request for what completes at posting,
 * with st's keep when it has one. */
static inline gcm_status_t coll_isend(gcm_coll_sched_t *s,
                                      gcm_coll_step_t *st, const void *p,
                                      size_t len, int tag)
{
    if (st->rec != 0) {
        return gcm_lco_isend_kept(st->lco, p, len, st->slot, tag,
                                  &s->keeps[st->rec - 1], &st->req);
    }
    return gcm_lco_isend_nr(st->lco, p, len, st->slot, tag, &st->req);
}

static void coll_start_xfer(gcm_coll_sched_t *s, gcm_coll_step_t *st)
{
    int tag = (s->tag >= 0) ? s->tag : st->tag;
    gcm_msg_status_t ms;
    gcm_status_t rc;
    size_t len;
    void *p;

    if (st->type == NULL) {
        /* Raw bytes (every contiguous buffer: coll_raw_if_contig). */
        len = st->len;
        p = (len == 0) ? &coll_dummy : st->buf;
    } else {
        len = gcm_coll_bytes(s, st->type, st->count, st->len);
        p = coll_contig(s, st->buf, st->count, st->type, st->len);
    }
    if (p == NULL) {
        st->tmp = malloc((len == 0) ? 1 : len);
        if (st->tmp == NULL) {
            coll_fail(s, GCM_ERR_NO_MEMORY);
            return;
        }
        if (st->kind == GCM_COLL_SEND) {
            s->ops->pack(st->type, st->count, st->buf, st->tmp);
        }
        p = st->tmp;
    }
    /* A transfer that is complete when posted (a small send written into
     * a ring, a receive of a message that was waiting) leaves no request
     * for the fence to wait on; a received non-contiguous buffer is
     * unpacked here then. The steps' arguments are right by construction
     * (the LCO and slots of the group, a library tag), so the transfers
     * skip the internal calls' argument checks. */
    if (st->kind == GCM_COLL_SEND) {
        rc = coll_isend(s, st, p, len, tag);
    } else if (st->fold.fn != NULL) {
        st->fold.ctx = st;
        rc = coll_irecv(s, st, p, len, tag, &st->fold, &ms);
    } else {
        /* A combining receive without a fold copies src into acc while
         * the data travels, and combines once it is in. */
        if ((st->acc != NULL) && (st->sbuf != st->acc)) {
            coll_copy_typed(s, st->sbuf, st->acc, st->count, st->type);
        }
        rc = coll_irecv(s, st, p, len, tag, NULL, &ms);
        if ((rc == GCM_OK) && (st->req == GCM_REQUEST_NULL)) {
            coll_recv_done(s, st, &ms);
        }
    }
    if (rc != GCM_OK) {
        st->req = GCM_REQUEST_NULL;
        coll_fail(s, rc);
    }
}

static void coll_run_copy(gcm_coll_sched_t *s, gcm_coll_step_t *st)
{
    size_t slen = gcm_coll_bytes(s, st->stype, st->scount, st->slen);
    size_t dlen = gcm_coll_bytes(s, st->type, st->count, st->len);
    void *src = coll_contig(s, (void *)st->sbuf, st->scount, st->stype,
                            st->slen);
    void *dst = coll_contig(s, st->buf, st->count, st->type, st->len);
    void *tmp = NULL;
    size_t n = (slen < dlen) ? slen : dlen;

    if (slen > dlen) {
        coll_fail(s, GCM_ERR_TRUNCATED);
    }
    if (n == 0) {
        return;
    }
    if (src == NULL) {
        tmp = malloc(slen);
        if (tmp == NULL) {
            coll_fail(s, GCM_ERR_NO_MEMORY);
            return;
        }
        s->ops->pack(st->stype, st->scount, st->sbuf, tmp);
        src = tmp;
    }
    if (dst != NULL) {
        memmove(dst, src, n);
    } else {
        s->ops->unpack(st->type, st->count, src, n, st->buf);
    }
    free(tmp);
}

/* Completes the transfer of st (started, not complete when posted);
 * without block, returns 0 if it is not complete yet. Only a packed
 * receive or a combining one needs its status. */
static inline int coll_complete(gcm_coll_sched_t *s, gcm_coll_step_t *st,
                                int block)
{
    gcm_msg_status_t ms;
    gcm_status_t rc;

    if (st->req != GCM_REQUEST_NULL) {
        if ((block == 0) && (gcm_lco_req_done(st->req) == 0)) {
            return 0;
        }
        if ((st->tmp == NULL) && (st->acc == NULL)) {
            rc = gcm_lco_req_wait(&st->req, NULL);
        } else {
            memset(&ms, 0, sizeof(ms));
            rc = gcm_lco_req_wait(&st->req, &ms);
            if ((rc == GCM_OK) && (st->kind == GCM_COLL_RECV) &&
                (st->fold.fn == NULL)) {
                coll_recv_done(s, st, &ms);
            }
        }
        st->req = GCM_REQUEST_NULL;
        if (rc != GCM_OK) {
            coll_fail(s, rc);
        }
    }
    if (st->tmp != NULL) {
        free(st->tmp);
        st->tmp = NULL;
    }
    return 1;
}

/* Runs a local step (COMBINE or COPY). A copy of raw bytes (both sides
 * contiguous: gcm_coll_copy made them so when it was built) that fits is
 * one memmove. */
static inline void coll_run_local(gcm_coll_sched_t *s, gcm_coll_step_t *st)
{
    if (st->kind == GCM_COLL_COMBINE) {
        s->ops->combine(st->op, st->sbuf, st->buf, st->count, st->type);
    } else if (st->stype == NULL && st->type == NULL &&
               st->slen <= st->len) {
        if (st->slen != 0) {
            memmove(st->buf, st->sbuf, st->slen);
        }
    } else {
        coll_run_copy(s, st);
    }
}

/* Starts the transfer of st. Raw bytes (every contiguous buffer) with
 * nothing to combine or fold on arrival are posted here rather than
 * through coll_start_xfer: nothing to pack. */
static inline void coll_start_step(gcm_coll_sched_t *s, gcm_coll_step_t *st)
{
    gcm_msg_status_t ms;
    gcm_status_t rc;

    if (st->type == NULL &&
        (st->kind == GCM_COLL_SEND ||
         (st->fold.fn == NULL && st->acc == NULL))) {
        int tag = (s->tag >= 0) ? s->tag : st->tag;
        void *p = (st->len == 0) ? (void *)&coll_dummy : st->buf;

        rc = (st->kind == GCM_COLL_SEND) ?
             coll_isend(s, st, p, st->len, tag) :
             coll_irecv(s, st, p, st->len, tag, NULL, &ms);
        if (gcm_unlikely(rc != GCM_OK)) {
            st->req = GCM_REQUEST_NULL;
            coll_fail(s, rc);
        }
    } else {
        coll_start_xfer(s, st);
    }
}

/*
 * A run from the next step, in one pass: each fence completes the
 * transfers since the one before (the first, those an earlier pass
 * started before it stopped); without block, the pass stops at the first
 * transfer not complete yet, and the next resumes there. A small
 * collective over two ranks is one exchange (local steps, a send and a
 * receive, a fence, local steps), so this pass is most of what the
 * library adds to its two transfers: a blocking collective, a kept
 * schedule run again for a later call, and a nonblocking one (started by
 * its call, finished by its wait) all run through it.
 */
int gcm_coll_sched_advance(gcm_coll_sched_t *s, int block)
{
    gcm_coll_step_t *st = s->steps + s->next, *end = s->steps + s->nsteps;
    gcm_coll_step_t *from = s->steps + s->pending;

    for (; st < end; st++) {
        if (st->kind == GCM_COLL_SEND || st->kind == GCM_COLL_RECV) {
            coll_start_step(s, st);
        } else if (st->kind == GCM_COLL_FENCE) {
            for (; from < st; from++) {
                if (coll_complete(s, from, block) == 0) {
                    s->next = (int)(st - s->steps);
                    s->pending = (int)(from - s->steps);
                    return 0;
                }
            }
            from = st + 1;
        } else {
            coll_run_local(s, st);
        }
    }
    /* Transfers after the last fence (builders end with one, but be
     * safe). */
    for (; from < end; from++) {
        if (coll_complete(s, from, block) == 0) {
            s->next = s->nsteps;
            s->pending = (int)(from - s->steps);
            return 0;
        }
    }
    s->next = s->nsteps;
    s->pending = s->nsteps;
    return 1;
}

void gcm_coll_sched_retag(gcm_coll_sched_t *s, int t0, int t1)
{
    int i;

    for (i = 0; i < s->nsteps; i++) {
        gcm_coll_step_t *st = &s->steps[i];

        if (st->kind == GCM_COLL_SEND || st->kind == GCM_COLL_RECV) {
            st->tag = (st->tag == s->tag0) ? t0 : t1;
        }
    }
    s->tag0 = t0;
}

void gcm_coll_sched_free(gcm_coll_sched_t *s)
{
    int i;

    /* Only reached with transfers outstanding when a request was freed
     * early; their buffers (and the records in s) must outlive them. A
     * record's handle is the library's own, refused by gcm_wait's check
     * of user handles: waited for unchecked. */
    for (i = 0; i < s->nsteps; i++) {
        gcm_coll_step_t *st = &s->steps[i];

        if ((st->req != GCM_REQUEST_NULL) && (st->kind == GCM_COLL_RECV) &&
            (st->rec != 0) &&
            (gcm_slots_req_of(st->req) == &s->recs[st->rec - 1])) {
            (void)gcm_lco_req_wait(&st->req, NULL);
        } else if (st->req != GCM_REQUEST_NULL) {
            (void)gcm_wait(&st->req, NULL);
        }
        free(st->tmp);
    }
    for (i = 0; i < s->nmem; i++) {
        coll_cache_put(s->mem[i]);
    }
    free(s->mem);
    if (s->steps != s->inline_steps) {
        free(s->steps);
    }
    gcm_coll_sched_init(s, s->ops);
}

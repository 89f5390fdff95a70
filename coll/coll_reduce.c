/*
 * coll/coll_reduce.c: reduce, allreduce, reduce_scatter, scan, exscan.
 *
 * - reduce: linear for small data over 3 and 4 processes (each sends to
 *   the root, which posts every receive at once and combines in rank
 *   order); otherwise a binomial tree; for non-commutative operators
 *   the tree is rooted at rank 0 and every combination has the lower
 *   ranks on the left, then rank 0 sends the result to the root. Large data with a
 *   commutative operator: Rabenseifner's reduce-scatter by recursive
 *   vector halving, then a gather of the pieces along the same hypercube.
 * - allreduce: recursive doubling (small data, and every non-commutative
 *   operator: partners combine lower-rank data on the left, so rank order
 *   is kept and every rank computes the bit-identical result); large data
 *   with a commutative operator: Rabenseifner (reduce-scatter by
 *   recursive halving, allgather by recursive doubling).
 *   Non-powers of two take the standard fold for both: the first
 *   2 * (p - 2^k) ranks combine in pairs, the even one of each pair sits
 *   out the hypercube phase and gets the result at the end. (Rabenseifner
 *   and Träff's variants keep the extra ranks busy longer; the fold costs
 *   one extra step of m bytes and is what MPICH and Open MPI do.)
 * - reduce_scatter: recursive halving for commutative operators (with the
 *   same fold); otherwise reduce to rank 0 in rank order, then scatter.
 * - scan, exscan: a linear pipeline in pieces of GENCOMM_COLL_SEGMENT bytes
 *   for up to GENCOMM_COLL_SCAN_LINEAR_MAX ranks (Sanders and Träff: the
 *   simple pipeline wins on small systems by its small constants),
 *   recursive doubling beyond. Both keep rank order.
 */
#include "config.h"

#include "coll/coll_impl.h"

/* ---- binomial reduce and recursive doubling ----------------------------- */

static void coll_reduce_binomial(gcm_coll_sched_t *s, const gcm_coll_grp_t *g,
                                 const void *sbuf, void *rbuf, int count,
                                 gcm_coll_type_h type, gcm_coll_op_h op,
                                 int root)
{
    int size = g->size;
    int troot = s->ops->commutative(op) ? root : 0;
    int vr = (g->rank - troot + size) % size;
    const void *acc = sbuf;
    void *w[2] = { NULL, NULL };
    int wi = 0, mask;
    /* Below GENCOMM_COLL_REDUCE_FOLD_MAX folded and read alone, from it
     * on folded with the child's share (or, without
     * GENCOMM_COLL_REDUCE_SHARE_FOLD, received whole and combined). */
    int small = gcm_coll_bytes(s, type, count, 0) <
                gcm_coll_config.reduce_fold_max;
    int fold = small || gcm_coll_config.reduce_share_fold;
    /* The root's last child's data can land in rbuf itself, combined
     * there with what the root holds (rbuf = acc op rbuf keeps the rank
     * order): no temporary and no copy into rbuf at the end, one pass
     * over the vector less (1 MiB over 2 processes: a third of the
     * root's memory traffic). Not when sbuf is rbuf (in place). */
    int last = (vr == 0 && troot == root && sbuf != rbuf &&
                sbuf != GCM_COLL_IN_PLACE) ? gcm_coll_pof2(size - 1) : 0;

    /* Children are always higher in the tree's numbering; for
     * non-commutative operations that numbering is the ranks themselves
     * (tree rooted at 0), so "mine op child's" keeps rank order. */
    for (mask = 1; mask < size; mask <<= 1) {
        if ((vr & mask) == 0) {
            int src = vr | mask;
            void *x;

            if (src >= size) {
                continue;
            }
            if (mask == last) {
                x = rbuf;
            } else {
                if (w[wi] == NULL) {
                    w[wi] = gcm_coll_alloc_type(s, count, type);
                }
                x = w[wi];
                wi ^= 1;
            }
            /* The child's data is combined as it lands (x = acc op
             * child's). Below GENCOMM_COLL_REDUCE_FOLD_MAX it is read by
             * this process alone: where the child copied a share of it,
             * the combine fetched that share from the child's core (64
             * KiB over 2 processes: 10.4-11.9 us against 6.8-8.7 read
             * alone; coll/README.md). From it on the child's share pays,
             * combined once it is in, after this process's pieces. */
            if (fold && gcm_coll_can_fold_into(s, acc, x, count, type, op)) {
                gcm_coll_recv_fold_into(s, g, acc, x, count, type, op,
                                        (src + troot) % size, !small);
                gcm_coll_fence(s);
            } else {
                gcm_coll_recv(s, g, x, count, type, (src + troot) % size);
                gcm_coll_fence(s);
                gcm_coll_combine(s, op, acc, x, count, type);
            }
            acc = x;
        } else {
            gcm_coll_send(s, g, acc, count, type,
                          ((vr & ~mask) + troot) % size);
            gcm_coll_fence(s);
            break;
        }
    }
    if (g->rank == troot) {
        if (troot == root) {
            if (acc != rbuf) {
                gcm_coll_copy(s, acc, count, type, 0, rbuf, count, type, 0);
            }
        } else {
            gcm_coll_send(s, g, acc, count, type, root);
            gcm_coll_fence(s);
        }
    } else if (g->rank == root) {
        gcm_coll_recv(s, g, rbuf, count, type, troot);
        gcm_coll_fence(s);
    }
}

/*
 * Linear: every rank sends its vector to the root, which posts all its
 * receives at once (one wait: each sender runs once, in whatever order
 * the scheduler runs them) and then combines in rank order, from the
 * highest rank down (inout = lower op inout), into rbuf. Over 4
 * processes sharing 2 cores the binomial tree's second step waits for a
 * rank that must itself have received first; this waits for no chain
 * (coll/README.md, "Small reduce at 3 and 4 processes").
 */
static void coll_reduce_linear(gcm_coll_sched_t *s, const gcm_coll_grp_t *g,
                               const void *sbuf, void *rbuf, int count,
                               gcm_coll_type_h type, gcm_coll_op_h op,
                               int root)
{
    int size = g->size, i;
    const void *mine = sbuf;
    void **x;

    if (g->rank != root) {
        gcm_coll_send(s, g, sbuf, count, type, root);
        gcm_coll_fence(s);
        return;
    }
    x = gcm_coll_alloc(s, (size_t)size * sizeof(*x));
    if (x == NULL) {
        return;
    }
    for (i = 0; i < size; i++) {
        x[i] = NULL;
        if (i != root) {
            x[i] = gcm_coll_alloc_type(s, count, type);
            gcm_coll_recv(s, g, x[i], count, type, i);
        }
    }
    if (sbuf == GCM_COLL_IN_PLACE || sbuf == rbuf) {
        /* rbuf is about to hold the others' combination. */
        void *t = gcm_coll_alloc_type(s, count, type);

        gcm_coll_copy(s, rbuf, count, type, 0, t, count, type, 0);
        mine = t;
    }
    gcm_coll_fence(s);
    gcm_coll_copy(s, (root == size - 1) ? mine : x[size - 1], count, type,
                  0, rbuf, count, type, 0);
    for (i = size - 2; i >= 0; i--) {
        gcm_coll_combine(s, op, (i == root) ? mine : x[i], rbuf, count,
                         type);
    }
}

/* The rank of fold number newrank (see the top of the file). */
static int coll_unfold(int newrank, int rem)
{
    return (newrank < rem) ? 2 * newrank + 1 : newrank + rem;
}

/* The fold: the first 2 * rem ranks pair up; the odd one of each pair
 * combines (lower rank on the left) and goes on as rank / 2, the even one
 * sits out (returns -1). acc holds this rank's data, x is scratch. */
static int coll_fold(gcm_coll_sched_t *s, const gcm_coll_grp_t *g, void *acc,
                     void *x, int count, gcm_coll_type_h type,
                     gcm_coll_op_h op, int rem)
{
    int rank = g->rank;

    if (rank >= 2 * rem) {
        return rank - rem;
    }
    if ((rank % 2) == 0) {
        gcm_coll_send(s, g, acc, count, type, rank + 1);
        gcm_coll_fence(s);
        return -1;
    }
    gcm_coll_recv(s, g, x, count, type, rank - 1);
    gcm_coll_fence(s);
    gcm_coll_combine(s, op, x, acc, count, type);
    return rank / 2;
}

/* The unfold: the odd rank of each pair hands the result to the even. */
static void coll_unfold_result(gcm_coll_sched_t *s, const gcm_coll_grp_t *g,
                               void *rbuf, int count, gcm_coll_type_h type,
                               int rem)
{
    int rank = g->rank;

    if (rank < 2 * rem) {
        if ((rank % 2) != 0) {
            gcm_coll_send(s, g, rbuf, count, type, rank - 1);
        } else {
            gcm_coll_recv(s, g, rbuf, count, type, rank + 1);
        }
        gcm_coll_fence(s);
    }
}

/* Recursive doubling over the fold: partners at distance 1, 2, 4... of
 * the new numbering, which keeps contiguous rank ranges in order. sbuf
 * (GCM_COLL_IN_PLACE: rbuf already holds this rank's data) is copied
 * into rbuf first, except where the first exchange can do without: with
 * every rank in the doubling (no fold), it sends from sbuf and receives
 * into rbuf, and combines sbuf into what came (sbuf op theirs, right for
 * the lower rank of the pair, and for both under a commutative op). A
 * commutative op also combines the partner's data into acc in every
 * round, whichever side it came from, so that acc stays rbuf and no
 * closing copy is needed. At 2 ranks the schedule is then one exchange
 * and one combine. */
static void coll_allreduce_recdbl(gcm_coll_sched_t *s,
                                  const gcm_coll_grp_t *g, const void *sbuf,
                                  void *rbuf, int count,
                                  gcm_coll_type_h type, gcm_coll_op_h op)
{
    int rank = g->rank, pof2 = gcm_coll_pof2(g->size);
    int rem = g->size - pof2, newrank, mask = 1;
    int commute = s->ops->commutative(op);
    void *acc = rbuf, *x = gcm_coll_alloc_type(s, count, type);

    if (sbuf != GCM_COLL_IN_PLACE && rem == 0 &&
        (commute || (rank ^ 1) > rank)) {
        gcm_coll_send(s, g, sbuf, count, type, rank ^ 1);
        gcm_coll_recv(s, g, rbuf, count, type, rank ^ 1);
        gcm_coll_fence(s);
        gcm_coll_combine(s, op, sbuf, rbuf, count, type);
        mask = 2;
    } else if (sbuf != GCM_COLL_IN_PLACE) {
        gcm_coll_copy(s, sbuf, count, type, 0, rbuf, count, type, 0);
    }
    newrank = coll_fold(s, g, acc, x, count, type, op, rem);
    if (newrank >= 0) {
        for (; mask < pof2; mask <<= 1) {
            int dst = coll_unfold(newrank ^ mask, rem);

            gcm_coll_send(s, g, acc, count, type, dst);
            gcm_coll_recv(s, g, x, count, type, dst);
            gcm_coll_fence(s);
            if (dst < rank || commute) {
                gcm_coll_combine(s, op, x, acc, count, type);
            } else {
                void *t = acc;

                gcm_coll_combine(s, op, acc, x, count, type);
                acc = x;
                x = t;
            }
        }
        if (acc != rbuf) {
            gcm_coll_copy(s, acc, count, type, 0, rbuf, count, type, 0);
        }
    }
    coll_unfold_result(s, g, rbuf, count, type, rem);
}

/* ---- Rabenseifner: recursive halving and doubling ---------------------- */

/*
 * The vector is cut into pof2 blocks (block i: cnt(i) elements at
 * displacement disp[i]). In the halving phase, at distance mask = 1, 2,
 * 4..., each rank keeps one half of the range it holds (the lower half if
 * its bit mask is 0), sends the other half to its partner and combines
 * the partner's copy of the kept half into its own; at the end, it holds
 * one block reduced over all pof2 ranks.
 */
typedef struct coll_rab {
    int    pof2;
    int    rem;
    int    newrank;
    int   *disp;     /* pof2 + 1 entries */
    int    lo;       /* block range held: [lo, hi) */
    int    hi;
} coll_rab_t;

static int coll_rab_init(gcm_coll_sched_t *s, coll_rab_t *r, int size,
                         int count)
{
    int i;

    r->pof2 = gcm_coll_pof2(size);
    r->rem = size - r->pof2;
    r->disp = gcm_coll_alloc(s, (size_t)(r->pof2 + 1) * sizeof(int));
    if (r->disp == NULL) {
        return -1;
    }
    r->disp[0] = 0;
    for (i = 0; i < r->pof2; i++) {
        r->disp[i + 1] = r->disp[i] + count / r->pof2 +
                         ((i < count % r->pof2) ? 1 : 0);
    }
    r->lo = 0;
    r->hi = r->pof2;
    return 0;
}

/* Typed pointer to block b of buf, and the count of blocks [a, b). */
static void *coll_rab_at(gcm_coll_sched_t *s, const coll_rab_t *r, void *buf,
                         int b, gcm_coll_type_h type)
{
    return gcm_coll_at(s, buf, r->disp[b], type);
}

static int coll_rab_cnt(const coll_rab_t *r, int a, int b)
{
    return r->disp[b] - r->disp[a];
}

/* src is where this rank's data is at the start: acc itself, or another
 * buffer, from which the first round sends one half and takes the kept
 * half into acc as it combines the partner's copy of it (a copy of the
 * whole vector into acc beforehand would move twice the bytes). The
 * partner's half is combined piece by piece as it arrives where the
 * layout and operator allow (gcm_coll_recv_combine). */
static void coll_rab_halving(gcm_coll_sched_t *s, const gcm_coll_grp_t *g,
                             coll_rab_t *r, const void *src, void *acc,
                             void *x, gcm_coll_type_h type, gcm_coll_op_h op)
{
    int mask;

    for (mask = 1; mask < r->pof2; mask <<= 1) {
        int dst = coll_unfold(r->newrank ^ mask, r->rem);
        int mid = r->lo + (r->hi - r->lo) / 2;
        int klo, khi, slo, shi;

        if ((r->newrank & mask) == 0) {
            klo = r->lo; khi = mid; slo = mid; shi = r->hi;
        } else {
            klo = mid; khi = r->hi; slo = r->lo; shi = mid;
        }
        gcm_coll_send(s, g, coll_rab_at(s, r, (void *)src, slo, type),
                      coll_rab_cnt(r, slo, shi), type, dst);
        gcm_coll_recv_combine(s, g, coll_rab_at(s, r, x, klo, type),
                              coll_rab_at(s, r, (void *)src, klo, type),
                              coll_rab_at(s, r, acc, klo, type),
                              coll_rab_cnt(r, klo, khi), type, op, dst);
        src = acc;
        gcm_coll_fence(s);
        r->lo = klo;
        r->hi = khi;
    }
}

/* The reverse: at distance pof2/2, ..., 1, partners swap the halves they
 * hold, so that both hold the whole; to_root >= 0 (a new rank): only the
 * rank on root's side of each swap receives, the other sends and stops,
 * which gathers the vector at to_root. */
static void coll_rab_doubling(gcm_coll_sched_t *s, const gcm_coll_grp_t *g,
                              coll_rab_t *r, void *acc, gcm_coll_type_h type,
                              int to_root)
{
    int mask;

    for (mask = r->pof2 >> 1; mask > 0; mask >>= 1) {
        int dst = coll_unfold(r->newrank ^ mask, r->rem);
        int h = r->hi - r->lo, plo, phi;

        if ((r->newrank & mask) == 0) {
            plo = r->hi; phi = r->hi + h;
        } else {
            plo = r->lo - h; phi = r->lo;
        }
        if (to_root < 0 || (r->newrank & mask) != (to_root & mask)) {
            gcm_coll_send(s, g, coll_rab_at(s, r, acc, r->lo, type),
                          coll_rab_cnt(r, r->lo, r->hi), type, dst);
        }
        if (to_root < 0 || (r->newrank & mask) == (to_root & mask)) {
            gcm_coll_recv(s, g, coll_rab_at(s, r, acc, plo, type),
                          coll_rab_cnt(r, plo, phi), type, dst);
        }
        gcm_coll_fence(s);
        if (to_root >= 0 && (r->newrank & mask) != (to_root & mask)) {
            return;
        }
        r->lo = (plo < r->lo) ? plo : r->lo;
        r->hi = (phi > r->hi) ? phi : r->hi;
    }
}

/* sbuf may be GCM_COLL_IN_PLACE. Without a fold the halving reads sbuf
 * itself; with one, rbuf gets a copy of it first. */
static void coll_allreduce_rabenseifner(gcm_coll_sched_t *s,
                                        const gcm_coll_grp_t *g,
                                        const void *sbuf, void *rbuf,
                                        int count, gcm_coll_type_h type,
                                        gcm_coll_op_h op)
{
    void *x = gcm_coll_alloc_type(s, count, type);
    const void *src = (sbuf == GCM_COLL_IN_PLACE) ? rbuf : sbuf;
    coll_rab_t r;

    if (coll_rab_init(s, &r, g->size, count) != 0 || x == NULL) {
        return;
    }
    if (r.rem > 0 && src != rbuf) {
        gcm_coll_copy(s, src, count, type, 0, rbuf, count, type, 0);
        src = rbuf;
    }
    r.newrank = coll_fold(s, g, rbuf, x, count, type, op, r.rem);
    if (r.newrank >= 0) {
        coll_rab_halving(s, g, &r, src, rbuf, x, type, op);
        coll_rab_doubling(s, g, &r, rbuf, type, -1);
    }
    coll_unfold_result(s, g, rbuf, count, type, r.rem);
}

/* Reduce: halving, then gather along the hypercube to the root's new
 * rank; a root that sat out the fold gets the result from its pair. */
static void coll_reduce_rabenseifner(gcm_coll_sched_t *s,
                                     const gcm_coll_grp_t *g,
                                     const void *sbuf, void *rbuf, int count,
                                     gcm_coll_type_h type, gcm_coll_op_h op,
                                     int root)
{
    int rank = g->rank, newroot, holder;
    void *acc, *x = gcm_coll_alloc_type(s, count, type);
    coll_rab_t r;

    if (coll_rab_init(s, &r, g->size, count) != 0 || x == NULL) {
        return;
    }
    acc = (rank == root) ? rbuf : gcm_coll_alloc_type(s, count, type);
    if (acc == NULL) {
        return;
    }
    if (acc != sbuf) {
        gcm_coll_copy(s, sbuf, count, type, 0, acc, count, type, 0);
    }
    if (root < 2 * r.rem && (root % 2) == 0) {
        holder = root + 1;
    } else {
        holder = root;
    }
    newroot = (holder < 2 * r.rem) ? holder / 2 : holder - r.rem;
    r.newrank = coll_fold(s, g, acc, x, count, type, op, r.rem);
    if (r.newrank >= 0) {
        coll_rab_halving(s, g, &r, acc, acc, x, type, op);
        coll_rab_doubling(s, g, &r, acc, type, newroot);
    }
    if (holder != root) {
        if (rank == holder) {
            gcm_coll_send(s, g, acc, count, type, root);
            gcm_coll_fence(s);
        } else if (rank == root) {
            gcm_coll_recv(s, g, rbuf, count, type, holder);
            gcm_coll_fence(s);
        }
    }
}

/* ---- entries ------------------------------------------------------------ */

void gcm_coll_reduce_flat(gcm_coll_sched_t *s, const gcm_coll_grp_t *g,
                          const void *sbuf, void *rbuf, int count,
                          gcm_coll_type_h type, gcm_coll_op_h op, int root)
{
    size_t len = gcm_coll_bytes(s, type, count, 0);
    int algo = gcm_coll_config.reduce;

    /* Over a few ranks the binomial tree takes log p steps; halving and
     * gathering take twice as many, each waiting for a partner, to
     * spread bytes that shared memory moves fast anyway. Over a number
     * of ranks that is not a power of two, halving first folds the extra
     * ranks' whole vectors in, and the tree won at every size measured
     * with a core per process (5, 6, 7 and 12; coll/README.md has the
     * measurements). */
    if (algo == GCM_COLL_AUTO) {
        algo = (len >= gcm_coll_config.reduce_large &&
                (unsigned)g->size > gcm_coll_config.reduce_tree_max &&
                gcm_coll_pof2(g->size) == g->size &&
                count >= g->size) ?
               GCM_COLL_REDUCE_RABENSEIFNER : GCM_COLL_REDUCE_BINOMIAL;
        /* Small data over 3 and 4 processes: straight to the root, so
         * that no rank waits for one that must receive first (coll/
         * README.md, "Small reduce at 3 and 4 processes"). */
        if (g->size > 2 &&
            (unsigned)g->size <= gcm_coll_config.reduce_tree_max &&
            len <= gcm_coll_config.reduce_small &&
            gcm_coll_config.reduce_small > 0) {
            algo = GCM_COLL_REDUCE_LINEAR;
        }
    }
    if (algo == GCM_COLL_REDUCE_LINEAR && g->size > 1) {
        gcm_coll_trace("reduce", "linear", g, len);
        coll_reduce_linear(s, g, sbuf, rbuf, count, type, op, root);
        return;
    }
    /* Halving combines in butterfly order, not rank order. */
    if (algo == GCM_COLL_REDUCE_RABENSEIFNER && g->size > 1 &&
        s->ops->commutative(op)) {
        gcm_coll_trace("reduce", "rabenseifner", g, len);
        coll_reduce_rabenseifner(s, g, sbuf, rbuf, count, type, op, root);
        return;
    }
    gcm_coll_trace("reduce", "binomial", g, len);
    coll_reduce_binomial(s, g, sbuf, rbuf, count, type, op, root);
}

/*
 * Whether a reduction runs hierarchically. Large data with a commutative
 * operator stays flat unless GENCOMM_COLL_HIER=1. Through a single leader
 * per node it loses: Rabenseifner's halving pairs the ranks of a node
 * first when nodes are contiguous and spreads the traffic between nodes
 * over all ranks, where the leader carries it alone (1 MiB allreduce on
 * gcrun --nodes 2 -n 4 over TCP: about 0.9 ms flat, 2.2 ms through the
 * leaders). The multi-leader allreduce (coll_hier.c) spreads it too, but
 * on contiguous nodes it moves the same bytes in the same steps as the
 * flat halving, and it measured no faster there.
 */
static int coll_reduce_hier(const gcm_coll_sched_t *s,
                            const gcm_coll_grp_t *g, const gcm_coll_hier_t *h,
                            int count, gcm_coll_type_h type,
                            gcm_coll_op_h op)
{
    int commutative = s->ops->commutative(op);

    if (g->size < 2 || !gcm_coll_hier_use(h, !commutative)) {
        return 0;
    }
    return gcm_coll_config.hier == GCM_COLL_HIER_ON || !commutative ||
           gcm_coll_bytes(s, type, count, 0) < gcm_coll_config.reduce_large;
}

void gcm_coll_reduce(gcm_coll_sched_t *s, const gcm_coll_grp_t *g,
                     const gcm_coll_hier_t *h, const void *sbuf, void *rbuf,
                     int count, gcm_coll_type_h type, gcm_coll_op_h op,
                     int root)
{
    if (coll_reduce_hier(s, g, h, count, type, op)) {
        gcm_coll_trace("reduce", "hier", g,
                       gcm_coll_bytes(s, type, count, 0));
        gcm_coll_hier_reduce(s, g, h, sbuf, rbuf, count, type, op, root);
        return;
    }
    gcm_coll_reduce_flat(s, g, sbuf, rbuf, count, type, op, root);
}

void gcm_coll_allreduce_flat(gcm_coll_sched_t *s, const gcm_coll_grp_t *g,
                             const void *sbuf, void *rbuf, int count,
                             gcm_coll_type_h type, gcm_coll_op_h op)
{
    size_t len = gcm_coll_bytes(s, type, count, 0);
    int algo = gcm_coll_config.allreduce;

    if (algo == GCM_COLL_AUTO) {
        algo = (len >= gcm_coll_config.reduce_large &&
                count >= gcm_coll_pof2(g->size)) ?
               GCM_COLL_ALLREDUCE_RABENSEIFNER : GCM_COLL_ALLREDUCE_RECDBL;
    }
    if (g->size > 1 && algo == GCM_COLL_ALLREDUCE_RABENSEIFNER &&
        s->ops->commutative(op)) {
        gcm_coll_trace("allreduce", "rabenseifner", g, len);
        coll_allreduce_rabenseifner(s, g, sbuf, rbuf, count, type, op);
        return;
    }
    if (g->size == 1) {
        if (sbuf != GCM_COLL_IN_PLACE) {
            gcm_coll_copy(s, sbuf, count, type, 0, rbuf, count, type, 0);
        }
        return;
    }
    gcm_coll_trace("allreduce", "recursive_doubling", g, len);
    coll_allreduce_recdbl(s, g, sbuf, rbuf, count, type, op);
}

size_t gcm_coll_allreduce_staged_min(void)
{
    return (gcm_coll_config.allreduce == GCM_COLL_AUTO) ?
           gcm_coll_config.allreduce_staged_min : 0;
}

void gcm_coll_allreduce(gcm_coll_sched_t *s, const gcm_coll_grp_t *g,
                        const gcm_coll_hier_t *h, const void *sbuf,
                        void *rbuf, int count, gcm_coll_type_h type,
                        gcm_coll_op_h op)
{
    size_t len = gcm_coll_bytes(s, type, count, 0);

    if (coll_reduce_hier(s, g, h, count, type, op)) {
        gcm_coll_trace("allreduce", (s->ops->commutative(op) &&
                                     gcm_coll_hier_multi(h, count, len)) ?
                       "hier_multi_leader" : "hier", g, len);
        gcm_coll_hier_allreduce(s, g, h, sbuf, rbuf, count, type, op);
        return;
    }
    gcm_coll_allreduce_flat(s, g, sbuf, rbuf, count, type, op);
}

/* ---- reduce_scatter ----------------------------------------------------- */

/* Recursive halving at distance pof2/2, ..., 1, so that new rank j ends
 * with block j in natural order; new rank j < rem stands for ranks 2j and
 * 2j + 1 and holds both their blocks, which are adjacent. */
static void coll_reduce_scatter_halving(gcm_coll_sched_t *s,
                                        const gcm_coll_grp_t *g, void *acc,
                                        void *rbuf, const int *cnt,
                                        const int *disp,
                                        gcm_coll_type_h type,
                                        gcm_coll_op_h op)
{
    int size = g->size, rank = g->rank, pof2 = gcm_coll_pof2(size);
    int rem = size - pof2, total = disp[size], newrank, lo, hi, mask, i;
    int *nd = gcm_coll_alloc(s, (size_t)(pof2 + 1) * sizeof(int));
    void *x = gcm_coll_alloc_type(s, total, type);

    if (nd == NULL || x == NULL) {
        return;
    }
    /* New block j: the blocks of the ranks new rank j stands for. */
    for (i = 0; i < pof2; i++) {
        nd[i] = disp[(i < rem) ? 2 * i : i + rem];
    }
    nd[pof2] = total;
    newrank = coll_fold(s, g, acc, x, total, type, op, rem);
    if (newrank >= 0) {
        lo = 0;
        hi = pof2;
        for (mask = pof2 >> 1; mask > 0; mask >>= 1) {
            int dst = coll_unfold(newrank ^ mask, rem);
            int klo, khi, slo, shi;

            if ((newrank & mask) == 0) {
                klo = lo; khi = lo + mask; slo = lo + mask; shi = hi;
            } else {
                klo = lo + mask; khi = hi; slo = lo; shi = lo + mask;
            }
            gcm_coll_send(s, g, gcm_coll_at(s, acc, nd[slo], type),
                          nd[shi] - nd[slo], type, dst);
            gcm_coll_recv(s, g, gcm_coll_at(s, x, nd[klo], type),
                          nd[khi] - nd[klo], type, dst);
            gcm_coll_fence(s);
            gcm_coll_combine(s, op, gcm_coll_at(s, x, nd[klo], type),
                             gcm_coll_at(s, acc, nd[klo], type),
                             nd[khi] - nd[klo], type);
            lo = klo;
            hi = khi;
        }
    }
    if (rank < 2 * rem && (rank % 2) != 0) {
        gcm_coll_send(s, g, gcm_coll_at(s, acc, disp[rank - 1], type),
                      cnt[rank - 1], type, rank - 1);
        gcm_coll_fence(s);
    } else if (rank < 2 * rem) {
        gcm_coll_recv(s, g, rbuf, cnt[rank], type, rank + 1);
        gcm_coll_fence(s);
        return;
    }
    gcm_coll_copy(s, gcm_coll_at(s, acc, disp[rank], type), cnt[rank], type,
                  0, rbuf, cnt[rank], type, 0);
}

void gcm_coll_reduce_scatter(gcm_coll_sched_t *s, const gcm_coll_grp_t *g,
                             const void *sbuf, void *rbuf, int count,
                             const int *counts, gcm_coll_type_h type,
                             gcm_coll_op_h op)
{
    int size = g->size, algo = gcm_coll_config.reduce_scatter, i;
    int *cnt = gcm_coll_alloc(s, (size_t)size * sizeof(int));
    int *disp = gcm_coll_alloc(s, (size_t)(size + 1) * sizeof(int));
    const void *in = (sbuf == GCM_COLL_IN_PLACE) ? rbuf : sbuf;
    gcm_coll_layout_t l;
    void *acc;

    if (cnt == NULL || disp == NULL) {
        return;
    }
    disp[0] = 0;
    for (i = 0; i < size; i++) {
        cnt[i] = (counts != NULL) ? counts[i] : count;
        disp[i + 1] = disp[i] + cnt[i];
    }
    if (algo == GCM_COLL_AUTO) {
        algo = GCM_COLL_RS_HALVING;
    }
    if (algo == GCM_COLL_RS_HALVING && s->ops->commutative(op)) {
        /* The whole vector is combined in a temporary (the input may be
         * the receive buffer itself). */
        gcm_coll_trace("reduce_scatter", "recursive_halving", g,
                       gcm_coll_bytes(s, type, disp[size], 0));
        acc = gcm_coll_alloc_type(s, disp[size], type);
        if (acc != NULL) {
            gcm_coll_copy(s, in, disp[size], type, 0, acc, disp[size], type,
                          0);
            coll_reduce_scatter_halving(s, g, acc, rbuf, cnt, disp, type,
                                        op);
        }
        return;
    }
    /* Rank order: reduce to rank 0 over the whole vector, then scatter. */
    gcm_coll_trace("reduce_scatter", "reduce_scatterv", g,
                   gcm_coll_bytes(s, type, disp[size], 0));
    acc = (g->rank == 0) ? gcm_coll_alloc_type(s, disp[size], type) : NULL;
    coll_reduce_binomial(s, g, in, acc, disp[size], type, op, 0);
    l.buf = acc;
    l.count = count;
    l.counts = counts;
    l.displs = (counts != NULL) ? disp : NULL;
    l.type = type;
    gcm_coll_gather(s, g, NULL, 0, counts != NULL, rbuf, cnt[g->rank], type,
                    &l, 0, 0);
}

/* ---- scan --------------------------------------------------------------- */

/* Recursive doubling in rank order: partial holds the reduction of this
 * rank's aligned block of 2^k ranks; data from a lower partner is
 * prepended to both. */
static void coll_scan_recdbl(gcm_coll_sched_t *s, const gcm_coll_grp_t *g,
                             const void *in, void *rbuf, int count,
                             gcm_coll_type_h type, gcm_coll_op_h op,
                             int exclusive)
{
    int rank = g->rank, size = g->size, mask, have = 0;
    void *partial = gcm_coll_alloc_type(s, count, type);
    void *x = gcm_coll_alloc_type(s, count, type);

    gcm_coll_copy(s, in, count, type, 0, partial, count, type, 0);
    for (mask = 1; mask < size; mask <<= 1) {
        int dst = rank ^ mask;

        if (dst >= size) {
            continue;
        }
        gcm_coll_send(s, g, partial, count, type, dst);
        gcm_coll_recv(s, g, x, count, type, dst);
        gcm_coll_fence(s);
        if (dst < rank) {
            gcm_coll_combine(s, op, x, partial, count, type);
            if (exclusive == 0 || have != 0) {
                gcm_coll_combine(s, op, x, rbuf, count, type);
            } else {
                gcm_coll_copy(s, x, count, type, 0, rbuf, count, type, 0);
                have = 1;
            }
        } else {
            void *t = partial;

            gcm_coll_combine(s, op, partial, x, count, type);
            partial = x;
            x = t;
        }
    }
}

/* The pipeline: rank r receives the prefix of ranks 0..r-1 piece by piece
 * from r - 1, combines its own data on the right and passes the piece on
 * to r + 1. For an inclusive scan rbuf holds this rank's data already. */
static void coll_scan_linear(gcm_coll_sched_t *s, const gcm_coll_grp_t *g,
                             const void *in, void *rbuf, int count,
                             gcm_coll_type_h type, gcm_coll_op_h op,
                             int exclusive)
{
    int rank = g->rank, size = g->size, seg = count, a;
    size_t esize = s->ops->size(type);
    void *x = NULL;

    if (esize > 0 && gcm_coll_config.segment / esize < (size_t)count) {
        seg = (int)(gcm_coll_config.segment / esize);
        seg = (seg < 1) ? 1 : seg;
    }
    if (rank > 0 && (exclusive == 0 || rank < size - 1)) {
        x = gcm_coll_alloc_type(s, count, type);
    }
    for (a = 0; a < count; a += seg) {
        int n = (count - a < seg) ? count - a : seg;
        void *r = gcm_coll_at(s, rbuf, a, type);
        void *t = (x != NULL) ? gcm_coll_at(s, x, a, type) : NULL;
        const void *mine = gcm_coll_at(s, in, a, type);
        const void *out = (exclusive != 0) ? mine : r;

        if (rank > 0 && exclusive == 0) {
            gcm_coll_recv(s, g, t, n, type, rank - 1);
            gcm_coll_fence(s);
            gcm_coll_combine(s, op, t, r, n, type);
        } else if (rank > 0) {
            /* This rank's piece goes into the outgoing buffer while the
             * prefix is on its way (the wait for rank - 1 hides the copy;
             * after the receive it was a pass over the piece on the
             * chain's critical path at every hop), then t = prefix op
             * mine keeps rank order for any op. */
            if (rank < size - 1) {
                gcm_coll_copy(s, mine, n, type, 0, t, n, type, 0);
            }
            gcm_coll_recv(s, g, r, n, type, rank - 1);
            gcm_coll_fence(s);
            if (rank < size - 1) {
                gcm_coll_combine(s, op, r, t, n, type);
                out = t;
            }
        }
        if (rank < size - 1) {
            gcm_coll_send(s, g, out, n, type, rank + 1);
        }
    }
    gcm_coll_fence(s);
}

void gcm_coll_scan(gcm_coll_sched_t *s, const gcm_coll_grp_t *g,
                   const void *sbuf, void *rbuf, int count,
                   gcm_coll_type_h type, gcm_coll_op_h op, int exclusive)
{
    int algo = gcm_coll_config.scan;
    const void *in = sbuf;

    if (sbuf == GCM_COLL_IN_PLACE) {
        /* This rank's data is in rbuf, which the result overwrites. */
        in = rbuf;
        if (exclusive != 0 && g->size > 1) {
            void *t = gcm_coll_alloc_type(s, count, type);

            gcm_coll_copy(s, rbuf, count, type, 0, t, count, type, 0);
            in = t;
        }
    } else if (exclusive == 0) {
        gcm_coll_copy(s, sbuf, count, type, 0, rbuf, count, type, 0);
    }
    if (g->size == 1) {
        return;
    }
    if (algo == GCM_COLL_AUTO) {
        algo = ((unsigned)g->size <= gcm_coll_config.scan_linear_max) ?
               GCM_COLL_SCAN_LINEAR : GCM_COLL_SCAN_RECDBL;
    }
    if (algo == GCM_COLL_SCAN_LINEAR) {
        gcm_coll_trace(exclusive ? "exscan" : "scan", "linear", g,
                       gcm_coll_bytes(s, type, count, 0));
        coll_scan_linear(s, g, in, rbuf, count, type, op, exclusive);
    } else {
        gcm_coll_trace(exclusive ? "exscan" : "scan", "recursive_doubling",
                       g, gcm_coll_bytes(s, type, count, 0));
        coll_scan_recdbl(s, g, in, rbuf, count, type, op, exclusive);
    }
}

/*
 * coll/coll_gather.c: gather, scatter and allgather.
 *
 * - gather, scatter: linear over at most GENCOMM_COLL_GATHER_LINEAR_MAX
 *   ranks at every size (no rank waits for another to forward its
 *   block); beyond, binomial trees over ranks relative to the root (each
 *   rank forwards its subtree's blocks packed in one message: log p steps
 *   at the root instead of p - 1) while blocks are small; from
 *   GENCOMM_COLL_GATHER_LARGE bytes per block the tree flattens to the
 *   linear form, where every block crosses the network once (Träff's
 *   "graceful degradation" in its two end points). The v forms are
 *   linear: only the root knows every count, and the tree would need them
 *   at every inner rank.
 * - allgather: over at most GENCOMM_COLL_ALLGATHER_LINEAR_MAX ranks
 *   linear at every size (every rank's block to every other at once, one
 *   wait: the same bytes as the ring in one round instead of p - 1);
 *   beyond, recursive doubling for powers of two while the total is
 *   below GENCOMM_COLL_ALLGATHER_POF2_LARGE bytes and Bruck's
 *   concatenation for other sizes below GENCOMM_COLL_ALLGATHER_LARGE
 *   (log p steps), then the ring (p - 1 steps of one block).
 *   allgatherv: linear over at most GENCOMM_COLL_ALLGATHER_LINEAR_MAX
 *   ranks, the ring beyond.
 */
#include "config.h"

#include "coll/coll_impl.h"

#include <string.h>

/* ---- gather and scatter ------------------------------------------------- */

void gcm_coll_gather_linear(gcm_coll_sched_t *s, const gcm_coll_grp_t *g,
                            int inter, int to_root, void *mbuf, int mcount,
                            gcm_coll_type_h mtype,
                            const gcm_coll_layout_t *l, int root,
                            int in_place)
{
    int i;

    if (root == GCM_COLL_PROC_NULL) {
        return;
    }
    if ((inter != 0 && root == GCM_COLL_ROOT) ||
        (inter == 0 && g->rank == root)) {
        for (i = 0; i < g->size; i++) {
            if (inter == 0 && i == root) {
                if (in_place != 0) {
                    continue;
                }
                if (to_root != 0) {
                    gcm_coll_copy(s, mbuf, mcount, mtype, 0,
                                  gcm_coll_blk(s, l, i), gcm_coll_cnt(l, i),
                                  l->type, 0);
                } else {
                    gcm_coll_copy(s, gcm_coll_blk(s, l, i),
                                  gcm_coll_cnt(l, i), l->type, 0, mbuf,
                                  mcount, mtype, 0);
                }
            } else if (to_root != 0) {
                gcm_coll_recv(s, g, gcm_coll_blk(s, l, i),
                              gcm_coll_cnt(l, i), l->type, i);
            } else {
                gcm_coll_send(s, g, gcm_coll_blk(s, l, i),
                              gcm_coll_cnt(l, i), l->type, i);
            }
        }
    } else if (to_root != 0) {
        gcm_coll_send(s, g, mbuf, mcount, mtype, root);
    } else {
        gcm_coll_recv(s, g, mbuf, mcount, mtype, root);
    }
    gcm_coll_fence(s);
}

void gcm_coll_gather_raw(gcm_coll_sched_t *s, const gcm_coll_grp_t *g,
                         int to_root, void *mine, void *all, size_t blk,
                         int root)
{
    int size = g->size, vr = (g->rank - root + size) % size;
    int sub = size, mask, top;
    char *tmp;

    if (size == 1 || blk == 0) {
        return;
    }
    /* The subtree of vr: [vr, vr + its lowest set bit), clipped. */
    for (top = 1; top < size; top <<= 1) {
        if ((vr & top) != 0) {
            sub = (vr + top < size) ? top : size - vr;
            break;
        }
    }
    if (vr == 0) {
        /* The root works in relative order; rank order when root is 0. */
        tmp = (root == 0) ? all : gcm_coll_alloc(s, (size_t)size * blk);
        if (tmp == NULL) {
            return;
        }
        if (root != 0 && to_root == 0) {
            gcm_coll_copy(s, (char *)all + (size_t)root * blk, 0, NULL,
                          (size_t)(size - root) * blk, tmp, 0, NULL,
                          (size_t)(size - root) * blk);
            gcm_coll_copy(s, all, 0, NULL, (size_t)root * blk,
                          tmp + (size_t)(size - root) * blk, 0, NULL,
                          (size_t)root * blk);
        }
    } else if (sub == 1) {
        tmp = mine;
    } else {
        tmp = gcm_coll_alloc(s, (size_t)sub * blk);
        if (tmp == NULL) {
            return;
        }
        if (to_root != 0) {
            gcm_coll_copy(s, mine, 0, NULL, blk, tmp, 0, NULL, blk);
        }
    }
    if (to_root == 0 && vr != 0) {
        gcm_coll_recv_raw(s, g, tmp, (size_t)sub * blk,
                          (vr - top + root) % size);
        gcm_coll_fence(s);
    }
    /* Children vr + mask, for mask below top, each with its subtree. */
    for (mask = (vr == 0) ? gcm_coll_pof2(size - 1) : top >> 1; mask > 0;
         mask >>= 1) {
        int child = vr + mask, n;

        if (child >= size) {
            continue;
        }
        n = (child + mask < size) ? mask : size - child;
        if (to_root != 0) {
            gcm_coll_recv_raw(s, g, tmp + (size_t)mask * blk,
                              (size_t)n * blk, (child + root) % size);
        } else {
            gcm_coll_send_raw(s, g, tmp + (size_t)mask * blk,
                              (size_t)n * blk, (child + root) % size);
        }
    }
    gcm_coll_fence(s);
    if (to_root != 0 && vr != 0) {
        gcm_coll_send_raw(s, g, tmp, (size_t)sub * blk,
                          (vr - top + root) % size);
        gcm_coll_fence(s);
    } else if (to_root == 0 && vr != 0 && tmp != mine) {
        gcm_coll_copy(s, tmp, 0, NULL, blk, mine, 0, NULL, blk);
    } else if (to_root != 0 && root != 0) {
        /* Back to rank order; the root's own block (relative 0) is in
         * place already. */
        gcm_coll_copy(s, tmp + blk, 0, NULL, (size_t)(size - root - 1) * blk,
                      (char *)all + (size_t)(root + 1) * blk, 0, NULL,
                      (size_t)(size - root - 1) * blk);
        gcm_coll_copy(s, tmp + (size_t)(size - root) * blk, 0, NULL,
                      (size_t)root * blk, all, 0, NULL, (size_t)root * blk);
    }
}

void gcm_coll_gatherv_raw(gcm_coll_sched_t *s, const gcm_coll_grp_t *g,
                          int to_root, void *mine, size_t mylen, void *all,
                          const size_t off[], const size_t len[], int root)
{
    int i;

    if (g->rank != root) {
        if (to_root != 0) {
            gcm_coll_send_raw(s, g, mine, mylen, root);
        } else {
            gcm_coll_recv_raw(s, g, mine, mylen, root);
        }
        gcm_coll_fence(s);
        return;
    }
    for (i = 0; i < g->size; i++) {
        if (i == root) {
            continue;
        }
        if (to_root != 0) {
            gcm_coll_recv_raw(s, g, (char *)all + off[i], len[i], i);
        } else {
            gcm_coll_send_raw(s, g, (char *)all + off[i], len[i], i);
        }
    }
    gcm_coll_fence(s);
}

/* Binomial gather or scatter of typed blocks: packed into raw blocks of
 * blk bytes where the layout is not one contiguous run. */
static void coll_gather_binomial(gcm_coll_sched_t *s, const gcm_coll_grp_t *g,
                                 int to_root, void *mbuf, int mcount,
                                 gcm_coll_type_h mtype,
                                 const gcm_coll_layout_t *l, int root,
                                 int in_place)
{
    int size = g->size, i;
    const void *start = NULL;
    size_t blk;
    void *all = NULL, *mine = NULL;

    if (g->rank == root) {
        blk = gcm_coll_bytes(s, l->type, l->count, 0);
        if (s->ops->contig(l->type, size * l->count, l->buf, &start) != 0) {
            /* Straight into (or out of) the user's buffer; the root's own
             * block is copied there unless it is in place. */
            all = (void *)start;
            if (in_place == 0 && to_root != 0) {
                gcm_coll_copy(s, mbuf, mcount, mtype, 0,
                              gcm_coll_blk(s, l, root), l->count, l->type,
                              0);
            }
        } else {
            all = gcm_coll_alloc(s, (size_t)size * blk);
            if (all == NULL) {
                return;
            }
            if (in_place == 0 && to_root != 0) {
                gcm_coll_copy(s, mbuf, mcount, mtype, 0,
                              gcm_coll_blk(s, l, root), l->count, l->type,
                              0);
            }
            for (i = 0; to_root == 0 && i < size; i++) {
                if (i != root) {
                    gcm_coll_copy(s, gcm_coll_blk(s, l, i), l->count,
                                  l->type, 0, (char *)all + (size_t)i * blk,
                                  0, NULL, blk);
                }
            }
        }
        gcm_coll_gather_raw(s, g, to_root, NULL, all, blk, root);
        for (i = 0; start == NULL && to_root != 0 && i < size; i++) {
            if (i != root) {
                gcm_coll_copy(s, (char *)all + (size_t)i * blk, 0, NULL,
                              blk, gcm_coll_blk(s, l, i), l->count, l->type,
                              0);
            }
        }
        if (in_place == 0 && to_root == 0) {
            gcm_coll_copy(s, gcm_coll_blk(s, l, root), l->count, l->type, 0,
                          mbuf, mcount, mtype, 0);
        }
        return;
    }
    blk = gcm_coll_bytes(s, mtype, mcount, 0);
    if (s->ops->contig(mtype, mcount, mbuf, &start) != 0) {
        mine = (blk == 0) ? NULL : (void *)start;
    } else {
        mine = gcm_coll_alloc(s, blk);
        if (to_root != 0) {
            gcm_coll_copy(s, mbuf, mcount, mtype, 0, mine, 0, NULL, blk);
        }
    }
    gcm_coll_gather_raw(s, g, to_root, mine, NULL, blk, root);
    if (to_root == 0 && start == NULL) {
        gcm_coll_copy(s, mine, 0, NULL, blk, mbuf, mcount, mtype, 0);
    }
}

void gcm_coll_gather(gcm_coll_sched_t *s, const gcm_coll_grp_t *g,
                     const gcm_coll_hier_t *h, int to_root, int vform,
                     void *mbuf,
                     int mcount, gcm_coll_type_h mtype,
                     const gcm_coll_layout_t *l, int root, int in_place)
{
    int algo = gcm_coll_config.gather;
    size_t blk;

    const char *what = (to_root != 0) ? "gather" : "scatter";

    blk = (g->rank == root) ? gcm_coll_bytes(s, l->type, gcm_coll_cnt(l, 0),
                                             0) :
                              gcm_coll_bytes(s, mtype, mcount, 0);
    if (vform != 0 || g->size == 1) {
        gcm_coll_trace(what, "linear", g, blk);
        gcm_coll_gather_linear(s, g, 0, to_root, mbuf, mcount, mtype, l,
                               root, in_place);
        return;
    }
    if (gcm_coll_hier_use(h, 0)) {
        gcm_coll_trace(what, "hier", g, blk);
        gcm_coll_hier_gather(s, g, h, to_root, mbuf, mcount, mtype, l, root,
                             in_place);
        return;
    }
    if (algo == GCM_COLL_AUTO) {
        algo = ((unsigned)g->size > gcm_coll_config.gather_linear_max &&
                blk < gcm_coll_config.gather_large) ?
               GCM_COLL_GATHER_BINOMIAL : GCM_COLL_GATHER_LINEAR;
    }
    gcm_coll_trace(what, (algo == GCM_COLL_GATHER_BINOMIAL) ? "binomial" :
                   "linear", g, blk);
    if (algo == GCM_COLL_GATHER_BINOMIAL) {
        coll_gather_binomial(s, g, to_root, mbuf, mcount, mtype, l, root,
                             in_place);
    } else {
        gcm_coll_gather_linear(s, g, 0, to_root, mbuf, mcount, mtype, l,
                               root, in_place);
    }
}

/* ---- allgather ---------------------------------------------------------- */

/*
 * This rank's own block when it is not in place yet: the forms that send
 * it first send it from the caller's buffer and copy it into the layout
 * while that transfer runs (a block copied before the first send delays
 * every partner by the copy: 64 KiB over 2 processes, about a fifth of
 * the call).
 */
typedef struct coll_own {
    const void      *buf;     /* NULL: in place already */
    int              count;
    gcm_coll_type_h  type;
} coll_own_t;

/* The own block into the layout (after its send was posted). */
static void coll_own_copy(gcm_coll_sched_t *s, const gcm_coll_grp_t *g,
                          const gcm_coll_layout_t *l, const coll_own_t *own)
{
    if (own->buf != NULL) {
        gcm_coll_copy(s, own->buf, own->count, own->type, 0,
                      gcm_coll_blk(s, l, g->rank), gcm_coll_cnt(l, g->rank),
                      l->type, 0);
    }
}

/* Sends the own block to peer, from where it is now. */
static void coll_own_send(gcm_coll_sched_t *s, const gcm_coll_grp_t *g,
                          const gcm_coll_layout_t *l, const coll_own_t *own,
                          int peer)
{
    if (own->buf != NULL) {
        gcm_coll_send(s, g, own->buf, own->count, own->type, peer);
    } else {
        gcm_coll_send(s, g, gcm_coll_blk(s, l, g->rank),
                      gcm_coll_cnt(l, g->rank), l->type, peer);
    }
}

static void coll_allgather_ring(gcm_coll_sched_t *s, const gcm_coll_grp_t *g,
                                const gcm_coll_layout_t *l,
                                const coll_own_t *own)
{
    int rank = g->rank, size = g->size, k;
    int right = (rank + 1) % size, left = (rank - 1 + size) % size;

    for (k = 0; k < size - 1; k++) {
        int sb = (rank - k + size) % size;
        int rb = (rank - k - 1 + size) % size;

        gcm_coll_recv(s, g, gcm_coll_blk(s, l, rb), gcm_coll_cnt(l, rb),
                      l->type, left);
        if (k == 0) {
            coll_own_send(s, g, l, own, right);
            coll_own_copy(s, g, l, own);
        } else {
            gcm_coll_send(s, g, gcm_coll_blk(s, l, sb), gcm_coll_cnt(l, sb),
                          l->type, right);
        }
        gcm_coll_fence(s);
    }
}

/* Every receive, then this rank's block to rank + 1, rank + 2, ..., and
 * one fence: the ring's p - 1 steps each wait for a neighbour, which over
 * more processes than cores is a process to be scheduled. */
static void coll_allgather_linear(gcm_coll_sched_t *s,
                                  const gcm_coll_grp_t *g,
                                  const gcm_coll_layout_t *l,
                                  const coll_own_t *own)
{
    int rank = g->rank, size = g->size, k;

    for (k = 1; k < size; k++) {
        int src = (rank - k + size) % size;

        gcm_coll_recv(s, g, gcm_coll_blk(s, l, src), gcm_coll_cnt(l, src),
                      l->type, src);
    }
    for (k = 1; k < size; k++) {
        coll_own_send(s, g, l, own, (rank + k) % size);
    }
    coll_own_copy(s, g, l, own);
    gcm_coll_fence(s);
}

/* Powers of two: at distance 1, 2, 4..., partners swap the aligned runs
 * of blocks they hold, which are adjacent in the layout. */
static void coll_allgather_recdbl(gcm_coll_sched_t *s,
                                  const gcm_coll_grp_t *g,
                                  const gcm_coll_layout_t *l)
{
    int rank = g->rank, mask;

    for (mask = 1; mask < g->size; mask <<= 1) {
        int peer = rank ^ mask;
        int mine = rank & ~(mask - 1), theirs = peer & ~(mask - 1);

        gcm_coll_send(s, g, gcm_coll_blk(s, l, mine), mask * l->count,
                      l->type, peer);
        gcm_coll_recv(s, g, gcm_coll_blk(s, l, theirs), mask * l->count,
                      l->type, peer);
        gcm_coll_fence(s);
    }
}

/* Bruck: block j of a temporary holds rank (rank + j)'s block; at
 * distance 2^k each rank sends its first min(2^k, p - 2^k) blocks to
 * rank - 2^k and appends those of rank + 2^k. */
static void coll_allgather_bruck(gcm_coll_sched_t *s, const gcm_coll_grp_t *g,
                                 const gcm_coll_layout_t *l)
{
    int rank = g->rank, size = g->size, dist, j;
    size_t blk = gcm_coll_bytes(s, l->type, l->count, 0);
    char *tmp = gcm_coll_alloc(s, (size_t)size * blk);

    if (tmp == NULL) {
        return;
    }
    gcm_coll_copy(s, gcm_coll_blk(s, l, rank), l->count, l->type, 0, tmp, 0,
                  NULL, blk);
    for (dist = 1; dist < size; dist <<= 1) {
        int n = (dist < size - dist) ? dist : size - dist;

        gcm_coll_send_raw(s, g, tmp, (size_t)n * blk,
                          (rank - dist + size) % size);
        gcm_coll_recv_raw(s, g, tmp + (size_t)dist * blk, (size_t)n * blk,
                          (rank + dist) % size);
        gcm_coll_fence(s);
    }
    for (j = 1; j < size; j++) {
        gcm_coll_copy(s, tmp + (size_t)j * blk, 0, NULL, blk,
                      gcm_coll_blk(s, l, (rank + j) % size), l->count,
                      l->type, 0);
    }
}

void gcm_coll_allgather_raw(gcm_coll_sched_t *s, const gcm_coll_grp_t *g,
                            void *all, const size_t off[],
                            const size_t len[])
{
    int rank = g->rank, size = g->size, k;
    int right = (rank + 1) % size, left = (rank - 1 + size) % size;

    for (k = 0; k < size - 1; k++) {
        int sb = (rank - k + size) % size;
        int rb = (rank - k - 1 + size) % size;

        gcm_coll_send_raw(s, g, (char *)all + off[sb], len[sb], right);
        gcm_coll_recv_raw(s, g, (char *)all + off[rb], len[rb], left);
        gcm_coll_fence(s);
    }
}

void gcm_coll_allgather(gcm_coll_sched_t *s, const gcm_coll_grp_t *g,
                        const gcm_coll_hier_t *h, const void *sbuf,
                        int scount, gcm_coll_type_h stype,
                        const gcm_coll_layout_t *l)
{
    int size = g->size, algo = gcm_coll_config.allgather, i;
    int pof2 = (size & (size - 1)) == 0;
    size_t total = 0;
    coll_own_t own;

    for (i = 0; i < size; i++) {
        total += gcm_coll_bytes(s, l->type, gcm_coll_cnt(l, i), 0);
    }
    if (g->size > 1 && gcm_coll_hier_use(h, 0)) {
        gcm_coll_trace("allgather", "hier", g, total);
        gcm_coll_hier_allgather(s, g, h, sbuf, scount, stype, l);
        return;
    }
    if (size == 1) {
        algo = GCM_COLL_ALLGATHER_RING;
    } else if (l->counts != NULL) {
        /* allgatherv: blocks of their own sizes, linear or the ring. */
        algo = ((algo == GCM_COLL_ALLGATHER_LINEAR) ||
                ((algo == GCM_COLL_AUTO) &&
                 ((unsigned)size <= gcm_coll_config.allgather_linear_max))) ?
               GCM_COLL_ALLGATHER_LINEAR : GCM_COLL_ALLGATHER_RING;
    } else if (algo == GCM_COLL_AUTO) {
        if ((unsigned)size <= gcm_coll_config.allgather_linear_max) {
            algo = GCM_COLL_ALLGATHER_LINEAR;
        } else if (total >= (pof2 ? gcm_coll_config.allgather_pof2_large :
                                    gcm_coll_config.allgather_large)) {
            algo = GCM_COLL_ALLGATHER_RING;
        } else {
            algo = pof2 ? GCM_COLL_ALLGATHER_RECDBL :
                          GCM_COLL_ALLGATHER_BRUCK;
        }
    }
    if (algo == GCM_COLL_ALLGATHER_RECDBL && !pof2) {
        algo = GCM_COLL_ALLGATHER_BRUCK;
    }
    own.buf = (sbuf == GCM_COLL_IN_PLACE) ? NULL : sbuf;
    own.count = scount;
    own.type = stype;
    if (size == 1 || algo == GCM_COLL_ALLGATHER_RECDBL ||
        algo == GCM_COLL_ALLGATHER_BRUCK) {
        coll_own_copy(s, g, l, &own);
        own.buf = NULL;
    }
    if (size == 1) {
        return;
    }
    switch (algo) {
    case GCM_COLL_ALLGATHER_RECDBL:
        gcm_coll_trace("allgather", "recursive_doubling", g, total);
        coll_allgather_recdbl(s, g, l);
        break;
    case GCM_COLL_ALLGATHER_BRUCK:
        gcm_coll_trace("allgather", "bruck", g, total);
        coll_allgather_bruck(s, g, l);
        break;
    case GCM_COLL_ALLGATHER_LINEAR:
        gcm_coll_trace("allgather", "linear", g, total);
        coll_allgather_linear(s, g, l, &own);
        break;
    default:
        gcm_coll_trace("allgather", "ring", g, total);
        coll_allgather_ring(s, g, l, &own);
        break;
    }
}

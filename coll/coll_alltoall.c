/*
 * coll/coll_alltoall.c: all-to-all.
 *
 * - Bruck's algorithm for small blocks (at most GENCOMM_COLL_ALLTOALL_SMALL
 *   bytes, more than two ranks, alltoall only): ceil(log2 p) steps, each
 *   moving about half of the data, so the latency term is log p instead
 *   of p - 1;
 * - linear over a few ranks (at most GENCOMM_COLL_ALLTOALL_LINEAR_MAX at
 *   every size; blocks above GENCOMM_COLL_ALLTOALL_SMALL, and the v and w
 *   forms, below GENCOMM_COLL_ALLTOALL_PAIRWISE_MIN): every receive and
 *   send posted at once in the pairwise order, one wait for all, so that
 *   no rank waits for a step of its partners before it hands out the rest
 *   of its blocks;
 * - pairwise exchange otherwise (every block crosses the network once, one
 *   partner each way per step): larger groups.
 */
#include "config.h"

#include "coll/coll_impl.h"

void gcm_coll_alltoall_pairwise(gcm_coll_sched_t *s, const gcm_coll_grp_t *g,
                                int inter, const gcm_coll_blocks_t *sb,
                                const gcm_coll_blocks_t *rb, int in_place)
{
    int rank = g->rank, size = g->size, k;

    if (inter != 0) {
        for (k = 0; k < size; k++) {
            gcm_coll_send(s, g, sb->ptr[k], sb->count[k], sb->type[k], k);
            gcm_coll_recv(s, g, rb->ptr[k], rb->count[k], rb->type[k], k);
        }
        gcm_coll_fence(s);
        return;
    }
    if (in_place == 0) {
        gcm_coll_copy(s, sb->ptr[rank], sb->count[rank], sb->type[rank], 0,
                      rb->ptr[rank], rb->count[rank], rb->type[rank], 0);
    }
    /* In step k, send to rank + k and receive from rank - k. */
    for (k = 1; k < size; k++) {
        int dst = (rank + k) % size, src = (rank - k + size) % size;

        gcm_coll_send(s, g, sb->ptr[dst], sb->count[dst], sb->type[dst],
                      dst);
        gcm_coll_recv(s, g, rb->ptr[src], rb->count[src], rb->type[src],
                      src);
        gcm_coll_fence(s);
    }
}

/*
 * The pairwise order without its steps: the receives first (a block that
 * arrives finds its buffer posted instead of waiting as unexpected), then
 * the sends to rank + 1, rank + 2, ..., and one fence. Over 4 processes
 * on 2 cores a step of the pairwise form waits for its partner to be
 * scheduled, p - 1 times; here a rank hands out all its blocks at once.
 */
static void coll_alltoall_linear(gcm_coll_sched_t *s, const gcm_coll_grp_t *g,
                                 const gcm_coll_blocks_t *sb,
                                 const gcm_coll_blocks_t *rb, int in_place)
{
    int rank = g->rank, size = g->size, k;

    if (in_place == 0) {
        gcm_coll_copy(s, sb->ptr[rank], sb->count[rank], sb->type[rank], 0,
                      rb->ptr[rank], rb->count[rank], rb->type[rank], 0);
    }
    for (k = 1; k < size; k++) {
        int src = (rank - k + size) % size;

        gcm_coll_recv(s, g, rb->ptr[src], rb->count[src], rb->type[src],
                      src);
    }
    for (k = 1; k < size; k++) {
        int dst = (rank + k) % size;

        gcm_coll_send(s, g, sb->ptr[dst], sb->count[dst], sb->type[dst],
                      dst);
    }
    gcm_coll_fence(s);
}

/*
 * Bruck: block i of a temporary first holds the block for rank + i; in
 * the step of bit k every block whose index has bit k set moves to rank
 * + 2^k (packed in one message); at the end block i holds what rank - i
 * sent to this rank.
 */
static void coll_alltoall_bruck(gcm_coll_sched_t *s, const gcm_coll_grp_t *g,
                                const gcm_coll_blocks_t *sb,
                                const gcm_coll_blocks_t *rb)
{
    int rank = g->rank, size = g->size, dist, i, n;
    size_t blk = gcm_coll_bytes(s, sb->type[0], sb->count[0], 0);
    char *tmp = gcm_coll_alloc(s, (size_t)size * blk);
    char *out = gcm_coll_alloc(s, (size_t)(size / 2 + 1) * blk);
    char *in = gcm_coll_alloc(s, (size_t)(size / 2 + 1) * blk);

    if (tmp == NULL || out == NULL || in == NULL) {
        return;
    }
    for (i = 0; i < size; i++) {
        int d = (rank + i) % size;

        gcm_coll_copy(s, sb->ptr[d], sb->count[d], sb->type[d], 0,
                      tmp + (size_t)i * blk, 0, NULL, blk);
    }
    for (dist = 1; dist < size; dist <<= 1) {
        for (i = 0, n = 0; i < size; i++) {
            if ((i & dist) != 0) {
                gcm_coll_copy(s, tmp + (size_t)i * blk, 0, NULL, blk,
                              out + (size_t)n * blk, 0, NULL, blk);
                n++;
            }
        }
        gcm_coll_send_raw(s, g, out, (size_t)n * blk, (rank + dist) % size);
        gcm_coll_recv_raw(s, g, in, (size_t)n * blk,
                          (rank - dist + size) % size);
        gcm_coll_fence(s);
        for (i = 0, n = 0; i < size; i++) {
            if ((i & dist) != 0) {
                gcm_coll_copy(s, in + (size_t)n * blk, 0, NULL, blk,
                              tmp + (size_t)i * blk, 0, NULL, blk);
                n++;
            }
        }
    }
    for (i = 0; i < size; i++) {
        int src = (rank - i + size) % size;

        gcm_coll_copy(s, tmp + (size_t)i * blk, 0, NULL, blk, rb->ptr[src],
                      rb->count[src], rb->type[src], 0);
    }
}

void gcm_coll_alltoall(gcm_coll_sched_t *s, const gcm_coll_grp_t *g,
                       const gcm_coll_hier_t *h, const gcm_coll_blocks_t *sb,
                       const gcm_coll_blocks_t *rb, int in_place, int uniform)
{
    int algo = gcm_coll_config.alltoall;
    size_t blk;

    blk = gcm_coll_bytes(s, sb->type[0], sb->count[0], 0);
    if (g->size == 1) {
        gcm_coll_trace("alltoall", "pairwise", g, blk);
        gcm_coll_alltoall_pairwise(s, g, 0, sb, rb, in_place);
        return;
    }
    /* The v and w forms: blocks of their own sizes, so no Bruck (nor the
     * leaders' packing); linear below the pairwise form's group size, as
     * alltoall of large blocks. */
    if (uniform == 0) {
        if ((algo == GCM_COLL_ALLTOALL_LINEAR) ||
            ((algo == GCM_COLL_AUTO) &&
             (((unsigned)g->size <= gcm_coll_config.alltoall_linear_max) ||
              ((unsigned)g->size < gcm_coll_config.alltoall_pairwise_min)))) {
            gcm_coll_trace("alltoallv", "linear", g, blk);
            coll_alltoall_linear(s, g, sb, rb, in_place);
        } else {
            gcm_coll_trace("alltoallv", "pairwise", g, blk);
            gcm_coll_alltoall_pairwise(s, g, 0, sb, rb, in_place);
        }
        return;
    }
    /* Through the leaders only while blocks are small: they carry every
     * block of their node, which pays for itself in fewer messages. */
    if (gcm_coll_hier_use(h, 0) &&
        (gcm_coll_config.hier == GCM_COLL_HIER_ON ||
         blk <= gcm_coll_config.alltoall_small)) {
        gcm_coll_trace("alltoall", "hier", g, blk);
        gcm_coll_hier_alltoall(s, g, h, sb, rb);
        return;
    }
    if (algo == GCM_COLL_AUTO) {
        if ((unsigned)g->size <= gcm_coll_config.alltoall_linear_max) {
            algo = GCM_COLL_ALLTOALL_LINEAR;
        } else if (blk <= gcm_coll_config.alltoall_small) {
            algo = GCM_COLL_ALLTOALL_BRUCK;
        } else if ((unsigned)g->size <
                   gcm_coll_config.alltoall_pairwise_min) {
            algo = GCM_COLL_ALLTOALL_LINEAR;
        } else {
            algo = GCM_COLL_ALLTOALL_PAIRWISE;
        }
    }
    if (algo == GCM_COLL_ALLTOALL_LINEAR) {
        gcm_coll_trace("alltoall", "linear", g, blk);
        coll_alltoall_linear(s, g, sb, rb, in_place);
    } else if (algo == GCM_COLL_ALLTOALL_BRUCK) {
        gcm_coll_trace("alltoall", "bruck", g, blk);
        coll_alltoall_bruck(s, g, sb, rb);
    } else {
        gcm_coll_trace("alltoall", "pairwise", g, blk);
        gcm_coll_alltoall_pairwise(s, g, 0, sb, rb, in_place);
    }
}

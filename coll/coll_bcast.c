/*
 * coll/coll_bcast.c: barrier and broadcast.
 *
 * - barrier: linear over 3 to a few ranks (every rank tells rank 0,
 *   which then releases them all), else dissemination (ceil(log2 p)
 *   rounds of zero-byte messages);
 * - bcast: linear (the root sends to each) over a few ranks at every
 *   size; beyond, binomial tree for small data and, for large data (at
 *   least GENCOMM_COLL_BCAST_LARGE bytes) van de Geijn's
 *   scatter along a binomial tree followed by a ring allgather, which
 *   moves about 2m bytes through the root instead of m log p.
 */
#include "config.h"

#include "coll/coll_impl.h"

void gcm_coll_barrier_dissemination(gcm_coll_sched_t *s,
                                    const gcm_coll_grp_t *g)
{
    int k;

    /* After round k every rank has heard, directly or not, from the
     * 2^(k+1) ranks before it. */
    for (k = 1; k < g->size; k <<= 1) {
        gcm_coll_send_raw(s, g, NULL, 0, (g->rank + k) % g->size);
        gcm_coll_recv_raw(s, g, NULL, 0, (g->rank - k + g->size) % g->size);
        gcm_coll_fence(s);
    }
}

/*
 * Over 3 or 4 ranks this takes as many hops as dissemination (two) with
 * fewer messages, 2(p - 1) instead of p ceil(log2 p), and rank 0 leaves
 * first: a broadcast or reduction rooted there right after finds the
 * other ranks waiting for it instead of making them wait. Dissemination
 * let rank 0 out last, two hops after the last rank came in; with 4
 * processes on 2 cores each hop waits for a process to be scheduled, and
 * an 8-byte bcast from rank 0 after a barrier took several microseconds
 * where this takes a fraction of one (bench/mpi_coll_bench.c). A barrier
 * alone measures about the same either way; a symmetric collective right
 * after it (alltoall) starts with the ranks let out one after another.
 */
void gcm_coll_barrier_linear(gcm_coll_sched_t *s, const gcm_coll_grp_t *g)
{
    int r;

    if (g->size < 2) {
        return;
    }
    if (g->rank != 0) {
        gcm_coll_send_raw(s, g, NULL, 0, 0);
        gcm_coll_recv_raw(s, g, NULL, 0, 0);
        gcm_coll_fence(s);
        return;
    }
    for (r = 1; r < g->size; r++) {
        gcm_coll_recv_raw(s, g, NULL, 0, r);
    }
    gcm_coll_fence(s);
    for (r = 1; r < g->size; r++) {
        gcm_coll_send_raw(s, g, NULL, 0, r);
    }
    gcm_coll_fence(s);
}

void gcm_coll_fanin(gcm_coll_sched_t *s, const gcm_coll_grp_t *g, int root)
{
    int size = g->size;
    int vr = (g->rank - root + size) % size;
    int mask;

    for (mask = 1; mask < size; mask <<= 1) {
        if ((vr & mask) != 0) {
            gcm_coll_send_raw(s, g, NULL, 0, (vr - mask + root) % size);
            gcm_coll_fence(s);
            return;
        }
        if (vr + mask < size) {
            gcm_coll_recv_raw(s, g, NULL, 0, (vr + mask + root) % size);
            gcm_coll_fence(s);
        }
    }
}

/* The barrier's algorithm for size ranks (node structure h): a
 * GCM_COLL_BARRIER_* choice, or -1 for the hierarchical form. */
static int coll_barrier_algo(int size, const gcm_coll_hier_t *h)
{
    int algo = gcm_coll_config.barrier;

    if (gcm_coll_hier_use(h, 0)) {
        return -1;
    }
    /* Two ranks: dissemination is one exchange, one hop where the
     * linear form takes two. */
    if (algo == GCM_COLL_AUTO) {
        algo = (size > 2 &&
                (unsigned)size <= gcm_coll_config.barrier_linear_max) ?
               GCM_COLL_BARRIER_LINEAR : GCM_COLL_BARRIER_DISSEMINATION;
    }
    return algo;
}

int gcm_coll_barrier_is_exchange(int size, const gcm_coll_hier_t *h)
{
    if (size != 2 ||
        coll_barrier_algo(size, h) != GCM_COLL_BARRIER_DISSEMINATION) {
        return 0;
    }
    gcm_debug("coll: barrier dissemination, 2 ranks, 0 bytes");
    return 1;
}

int gcm_coll_barrier_is_linear(int size, const gcm_coll_hier_t *h)
{
    if (size < 3 || coll_barrier_algo(size, h) != GCM_COLL_BARRIER_LINEAR) {
        return 0;
    }
    gcm_debug("coll: barrier linear, %d ranks, 0 bytes", size);
    return 1;
}

void gcm_coll_barrier(gcm_coll_sched_t *s, const gcm_coll_grp_t *g,
                      const gcm_coll_hier_t *h)
{
    int algo = coll_barrier_algo(g->size, h);

    if (algo < 0) {
        gcm_coll_trace("barrier", "hier", g, 0);
        gcm_coll_hier_barrier(s, g, h);
    } else if (algo == GCM_COLL_BARRIER_LINEAR) {
        gcm_coll_trace("barrier", "linear", g, 0);
        gcm_coll_barrier_linear(s, g);
    } else {
        gcm_coll_trace("barrier", "dissemination", g, 0);
        gcm_coll_barrier_dissemination(s, g);
    }
}

/* Binomial tree over ranks relative to root. */
void gcm_coll_bcast_raw(gcm_coll_sched_t *s, const gcm_coll_grp_t *g,
                        void *p, size_t len, int root)
{
    int size = g->size;
    int vr = (g->rank - root + size) % size;
    int mask;

    for (mask = 1; mask < size; mask <<= 1) {
        if ((vr & mask) != 0) {
            gcm_coll_recv_raw(s, g, p, len, (vr - mask + root) % size);
            gcm_coll_fence(s);
            break;
        }
    }
    for (mask >>= 1; mask > 0; mask >>= 1) {
        if (vr + mask < size) {
            gcm_coll_send_raw(s, g, p, len, (vr + mask + root) % size);
        }
    }
    gcm_coll_fence(s);
}

/*
 * The root sends to each rank. Over a few ranks that is as many messages
 * as the binomial tree and every rank one hop from the root, where the
 * tree puts one rank of four two hops away: with more processes than
 * cores each hop waits for a process to be scheduled (4 processes on 2
 * cores: that rank's wait was most of an 8-byte bcast).
 */
static void coll_bcast_linear(gcm_coll_sched_t *s, const gcm_coll_grp_t *g,
                              void *p, size_t len, int root)
{
    int r;

    if (g->rank != root) {
        gcm_coll_recv_raw(s, g, p, len, root);
    } else {
        for (r = 1; r < g->size; r++) {
            gcm_coll_send_raw(s, g, p, len, (root + r) % g->size);
        }
    }
    gcm_coll_fence(s);
}

/* Bytes [off, off + n) of the chunks [a, b) when len bytes are cut into
 * pieces of c bytes (the last ones short or empty). */
static void coll_chunks(size_t len, size_t c, int a, int b, size_t *off_p,
                        size_t *n_p)
{
    size_t lo = (size_t)a * c, hi = (size_t)b * c;

    lo = (lo < len) ? lo : len;
    hi = (hi < len) ? hi : len;
    *off_p = lo;
    *n_p = hi - lo;
}

void gcm_coll_bcast_scatter_allgather(gcm_coll_sched_t *s,
                                      const gcm_coll_grp_t *g, void *p,
                                      size_t len, int root)
{
    int size = g->size;
    int vr = (g->rank - root + size) % size;
    size_t c = (len + (size_t)size - 1) / (size_t)size, off, n;
    char *buf = p;
    int mask, k;

    /* Scatter: the rank with relative number vr receives the chunks of
     * its subtree, [vr, vr + lowest set bit of vr), from its parent, and
     * hands the upper halves on to its children. */
    for (mask = 1; mask < size; mask <<= 1) {
        if ((vr & mask) != 0) {
            int end = (vr + mask < size) ? vr + mask : size;

            coll_chunks(len, c, vr, end, &off, &n);
            gcm_coll_recv_raw(s, g, buf + off, n, (vr - mask + root) % size);
            gcm_coll_fence(s);
            break;
        }
    }
    for (mask >>= 1; mask > 0; mask >>= 1) {
        if (vr + mask < size) {
            int end = (vr + 2 * mask < size) ? vr + 2 * mask : size;

            coll_chunks(len, c, vr + mask, end, &off, &n);
            gcm_coll_send_raw(s, g, buf + off, n, (vr + mask + root) % size);
        }
    }
    gcm_coll_fence(s);
    /* Ring allgather of the chunks, in relative numbering. */
    for (k = 0; k < size - 1; k++) {
        int sc = (vr - k + size) % size, rc = (vr - k - 1 + size) % size;
        size_t soff, sn;

        coll_chunks(len, c, sc, sc + 1, &soff, &sn);
        coll_chunks(len, c, rc, rc + 1, &off, &n);
        gcm_coll_send_raw(s, g, buf + soff, sn, (g->rank + 1) % size);
        gcm_coll_recv_raw(s, g, buf + off, n, (g->rank - 1 + size) % size);
        gcm_coll_fence(s);
    }
}

void gcm_coll_bcast_bytes(gcm_coll_sched_t *s, const gcm_coll_grp_t *g,
                          void *p, size_t len, int root)
{
    int algo = gcm_coll_config.bcast;

    if (g->size == 1) {
        return;
    }
    /* Over a few ranks the root sends to each at every size: the
     * receivers read from the root's buffer at once, one hop each,
     * where scatter + allgather takes 1 + (p - 1) steps that each wait
     * for a partner (coll/README.md has the measurements). */
    if (algo == GCM_COLL_AUTO) {
        if ((unsigned)g->size <= gcm_coll_config.bcast_linear_max) {
            algo = GCM_COLL_BCAST_LINEAR;
        } else {
            algo = (len >= gcm_coll_config.bcast_large) ?
                   GCM_COLL_BCAST_SCATTER_ALLGATHER : GCM_COLL_BCAST_BINOMIAL;
        }
    }
    if (algo == GCM_COLL_BCAST_SCATTER_ALLGATHER && len > 0) {
        gcm_coll_trace("bcast", "scatter_allgather", g, len);
        gcm_coll_bcast_scatter_allgather(s, g, p, len, root);
    } else if (algo == GCM_COLL_BCAST_LINEAR) {
        gcm_coll_trace("bcast", "linear", g, len);
        coll_bcast_linear(s, g, p, len, root);
    } else {
        gcm_coll_trace("bcast", "binomial", g, len);
        gcm_coll_bcast_raw(s, g, p, len, root);
    }
}

void gcm_coll_bcast_flat(gcm_coll_sched_t *s, const gcm_coll_grp_t *g,
                         void *buf, int count, gcm_coll_type_h type,
                         int root)
{
    size_t len = gcm_coll_bytes(s, type, count, 0);
    const void *start = NULL;
    void *p;

    if (g->size == 1) {
        return;
    }
    /* Packed once at the root and unpacked once elsewhere when the
     * layout is not contiguous. */
    if (len == 0) {
        p = NULL;
    } else if (s->ops->contig(type, count, buf, &start) != 0) {
        p = (void *)start;
    } else {
        p = gcm_coll_alloc(s, len);
        if (g->rank == root) {
            gcm_coll_copy(s, buf, count, type, 0, p, 0, NULL, len);
        }
    }
    gcm_coll_bcast_bytes(s, g, p, len, root);
    if (p != NULL && p != start && g->rank != root) {
        gcm_coll_copy(s, p, 0, NULL, len, buf, count, type, 0);
    }
}

void gcm_coll_bcast(gcm_coll_sched_t *s, const gcm_coll_grp_t *g,
                    const gcm_coll_hier_t *h, void *buf, int count,
                    gcm_coll_type_h type, int root)
{
    if (g->size > 1 && gcm_coll_hier_use(h, 0)) {
        gcm_coll_trace("bcast", "hier", g, gcm_coll_bytes(s, type, count, 0));
        gcm_coll_hier_bcast(s, g, h, buf, count, type, root);
        return;
    }
    gcm_coll_bcast_flat(s, g, buf, count, type, root);
}

/*
 * coll/coll_impl.h: what the files of coll/ share and nobody else needs:
 * the names of the GENCOMM_COLL_* choices, the single algorithms that the
 * entries of coll.h choose from, and the hierarchy's groups.
 */
#ifndef GCM_COLL_IMPL_H
#define GCM_COLL_IMPL_H

#include "coll/coll.h"

/* The words of each GENCOMM_COLL_* setting, in util/util.c's order (the
 * setting holds the index; 0 is "auto" for all). */
enum { GCM_COLL_AUTO = 0 };
enum { GCM_COLL_HIER_OFF = 1, GCM_COLL_HIER_ON = 2 };
enum { GCM_COLL_BARRIER_DISSEMINATION = 1, GCM_COLL_BARRIER_LINEAR = 2 };
enum { GCM_COLL_BCAST_BINOMIAL = 1, GCM_COLL_BCAST_SCATTER_ALLGATHER = 2,
       GCM_COLL_BCAST_LINEAR = 3 };
enum { GCM_COLL_REDUCE_BINOMIAL = 1, GCM_COLL_REDUCE_RABENSEIFNER = 2 };
enum { GCM_COLL_ALLREDUCE_RECDBL = 1, GCM_COLL_ALLREDUCE_RABENSEIFNER = 2 };
enum { GCM_COLL_RS_HALVING = 1, GCM_COLL_RS_REDUCE_SCATTERV = 2 };
enum { GCM_COLL_SCAN_LINEAR = 1, GCM_COLL_SCAN_RECDBL = 2 };
enum { GCM_COLL_GATHER_BINOMIAL = 1, GCM_COLL_GATHER_LINEAR = 2 };
enum { GCM_COLL_ALLGATHER_RECDBL = 1, GCM_COLL_ALLGATHER_BRUCK = 2,
       GCM_COLL_ALLGATHER_RING = 3 };
enum { GCM_COLL_ALLTOALL_BRUCK = 1, GCM_COLL_ALLTOALL_PAIRWISE = 2 };

/* Says at debug level which algorithm a call runs, so that the choice
 * can be followed (and the tests can check it) with
 * GENCOMM_LOG_LEVEL=debug: "coll: <collective> <algorithm>, ...". */
#define gcm_coll_trace(_coll, _algo, _g, _bytes) \
    gcm_debug("coll: %s %s, %d ranks, %zu bytes", (_coll), (_algo), \
              (_g)->size, (size_t)(_bytes))

/* Largest power of two <= n (n >= 1). */
static inline int gcm_coll_pof2(int n)
{
    int p = 1;

    while (2 * p <= n) {
        p <<= 1;
    }
    return p;
}

/* ---- single algorithms (flat, over one group) */

void gcm_coll_barrier_dissemination(gcm_coll_sched_t *s,
                                    const gcm_coll_grp_t *g) GCM_INTERNAL;
/* Zero-byte messages from every rank to rank 0, then from rank 0 to
 * every rank. */
void gcm_coll_barrier_linear(gcm_coll_sched_t *s, const gcm_coll_grp_t *g)
    GCM_INTERNAL;
/* Zero-byte binomial fan-in to root: once root passes it, every rank of
 * g has entered. */
void gcm_coll_fanin(gcm_coll_sched_t *s, const gcm_coll_grp_t *g, int root)
    GCM_INTERNAL;
/* The broadcast of raw bytes by scatter (binomial) and ring allgather. */
void gcm_coll_bcast_scatter_allgather(gcm_coll_sched_t *s,
                                      const gcm_coll_grp_t *g, void *p,
                                      size_t len, int root) GCM_INTERNAL;
/* The flat broadcast (choice by size) of raw bytes, and of a typed
 * buffer. */
void gcm_coll_bcast_bytes(gcm_coll_sched_t *s, const gcm_coll_grp_t *g,
                          void *p, size_t len, int root) GCM_INTERNAL;
void gcm_coll_bcast_flat(gcm_coll_sched_t *s, const gcm_coll_grp_t *g,
                         void *buf, int count, gcm_coll_type_h type,
                         int root) GCM_INTERNAL;
/* The flat reduce and allreduce (choice by size and operator). */
void gcm_coll_reduce_flat(gcm_coll_sched_t *s, const gcm_coll_grp_t *g,
                          const void *sbuf, void *rbuf, int count,
                          gcm_coll_type_h type, gcm_coll_op_h op, int root)
    GCM_INTERNAL;
void gcm_coll_allreduce_flat(gcm_coll_sched_t *s, const gcm_coll_grp_t *g,
                             const void *sbuf, void *rbuf, int count,
                             gcm_coll_type_h type, gcm_coll_op_h op)
    GCM_INTERNAL;
/* Binomial gather (to_root) or scatter of the same number of raw bytes
 * per rank: tmp at the root holds size * blk bytes in rank order (rank
 * r's block at r * blk); elsewhere mine is this rank's block. */
void gcm_coll_gather_raw(gcm_coll_sched_t *s, const gcm_coll_grp_t *g,
                         int to_root, void *mine, void *all, size_t blk,
                         int root) GCM_INTERNAL;
/* Allgather of raw blocks of possibly different sizes (len[r] bytes at
 * all + off[r]); this rank's block is in place. */
void gcm_coll_allgather_raw(gcm_coll_sched_t *s, const gcm_coll_grp_t *g,
                            void *all, const size_t off[],
                            const size_t len[]) GCM_INTERNAL;
/* Gather of raw blocks of different sizes to root (linear: only the
 * root's sizes are needed, len[] and off[] are read at the root). */
void gcm_coll_gatherv_raw(gcm_coll_sched_t *s, const gcm_coll_grp_t *g,
                          int to_root, void *mine, size_t mylen, void *all,
                          const size_t off[], const size_t len[], int root)
    GCM_INTERNAL;

/* ---- the hierarchy (coll_hier.c) */

/* Whether the hierarchical form should run on h: the setting, whether h
 * spans several nodes with some node of several ranks (auto), and, when
 * in_order (a non-commutative reduction), whether every node's ranks are
 * contiguous (else only the flat forms keep rank order). */
int gcm_coll_hier_use(const gcm_coll_hier_t *h, int in_order) GCM_INTERNAL;

/* Whether a hierarchical allreduce of count elements (bytes of data) with
 * a commutative operator takes the multi-leader form: several nodes, each
 * with several ranks, at least one element per piece, and large data
 * (from GENCOMM_COLL_REDUCE_LARGE: small data wants the fewer messages of
 * the single leader). */
int gcm_coll_hier_multi(const gcm_coll_hier_t *h, int count, size_t bytes)
    GCM_INTERNAL;

/* The hierarchical algorithms (h passed gcm_coll_hier_use). */
void gcm_coll_hier_barrier(gcm_coll_sched_t *s, const gcm_coll_grp_t *g,
                           const gcm_coll_hier_t *h) GCM_INTERNAL;
void gcm_coll_hier_bcast(gcm_coll_sched_t *s, const gcm_coll_grp_t *g,
                         const gcm_coll_hier_t *h, void *buf, int count,
                         gcm_coll_type_h type, int root) GCM_INTERNAL;
void gcm_coll_hier_reduce(gcm_coll_sched_t *s, const gcm_coll_grp_t *g,
                          const gcm_coll_hier_t *h, const void *sbuf,
                          void *rbuf, int count, gcm_coll_type_h type,
                          gcm_coll_op_h op, int root) GCM_INTERNAL;
void gcm_coll_hier_allreduce(gcm_coll_sched_t *s, const gcm_coll_grp_t *g,
                             const gcm_coll_hier_t *h, const void *sbuf,
                             void *rbuf, int count, gcm_coll_type_h type,
                             gcm_coll_op_h op) GCM_INTERNAL;
void gcm_coll_hier_gather(gcm_coll_sched_t *s, const gcm_coll_grp_t *g,
                          const gcm_coll_hier_t *h, int to_root, void *mbuf,
                          int mcount, gcm_coll_type_h mtype,
                          const gcm_coll_layout_t *l, int root, int in_place)
    GCM_INTERNAL;
void gcm_coll_hier_allgather(gcm_coll_sched_t *s, const gcm_coll_grp_t *g,
                             const gcm_coll_hier_t *h, const void *sbuf,
                             int scount, gcm_coll_type_h stype,
                             const gcm_coll_layout_t *l) GCM_INTERNAL;
void gcm_coll_hier_alltoall(gcm_coll_sched_t *s, const gcm_coll_grp_t *g,
                            const gcm_coll_hier_t *h,
                            const gcm_coll_blocks_t *sb,
                            const gcm_coll_blocks_t *rb) GCM_INTERNAL;

#endif /* GCM_COLL_IMPL_H */

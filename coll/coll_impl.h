/*
 * coll/coll_impl.h: what the files of coll/ share and nobody else needs:
 * the names of the GENCOMM_COLL_* choices, the single algorithms that the
 * entries of coll.h choose from, and the hierarchy's groups.
 */
#ifndef GCM_COLL_IMPL_H
#define GCM_COLL_IMPL_H

#include "coll/coll.h"

/* ---- settings (coll_config.c) ------------------------------------------
 *
 * The choices of each GENCOMM_COLL_* setting, one X-macro per collective:
 * _(PREFIX, NAME, word) gives the constant PREFIX_NAME and the word of the
 * setting. 0 is "auto" for all; the others count from 1 in list order,
 * and the table's word list is made from the same macro, so the two
 * cannot drift apart.
 */
#define GCM_COLL_HIER_CHOICES(_, _p) \
    _(_p, OFF, 0) _(_p, ON, 1)
#define GCM_COLL_BARRIER_CHOICES(_, _p) \
    _(_p, DISSEMINATION, dissemination) _(_p, LINEAR, linear)
#define GCM_COLL_BCAST_CHOICES(_, _p) \
    _(_p, BINOMIAL, binomial) _(_p, SCATTER_ALLGATHER, scatter_allgather) \
    _(_p, LINEAR, linear)
#define GCM_COLL_REDUCE_CHOICES(_, _p) \
    _(_p, BINOMIAL, binomial) _(_p, RABENSEIFNER, rabenseifner) \
    _(_p, LINEAR, linear)
#define GCM_COLL_ALLREDUCE_CHOICES(_, _p) \
    _(_p, RECDBL, recursive_doubling) _(_p, RABENSEIFNER, rabenseifner)
#define GCM_COLL_RS_CHOICES(_, _p) \
    _(_p, HALVING, recursive_halving) \
    _(_p, REDUCE_SCATTERV, reduce_scatterv)
#define GCM_COLL_SCAN_CHOICES(_, _p) \
    _(_p, LINEAR, linear) _(_p, RECDBL, recursive_doubling)
#define GCM_COLL_GATHER_CHOICES(_, _p) \
    _(_p, BINOMIAL, binomial) _(_p, LINEAR, linear)
#define GCM_COLL_ALLGATHER_CHOICES(_, _p) \
    _(_p, RECDBL, recursive_doubling) _(_p, BRUCK, bruck) _(_p, RING, ring) \
    _(_p, LINEAR, linear)
#define GCM_COLL_ALLTOALL_CHOICES(_, _p) \
    _(_p, BRUCK, bruck) _(_p, PAIRWISE, pairwise) _(_p, LINEAR, linear)

#define GCM_COLL_CHOICE_ENUM(_p, _name, _word) _p##_##_name,
#define GCM_COLL_CHOICE_WORD(_p, _name, _word) "|" #_word
/* The constants of one collective's choices (auto is 0). */
#define GCM_COLL_CHOICE_CONSTANTS(_choices, _p) \
    enum { _p##_AUTO_ = 0, _choices(GCM_COLL_CHOICE_ENUM, _p) };
/* The word list of one collective's setting: "auto|...". */
#define GCM_COLL_CHOICE_WORDS(_choices) \
    "auto" _choices(GCM_COLL_CHOICE_WORD, _)

enum { GCM_COLL_AUTO = 0 };
GCM_COLL_CHOICE_CONSTANTS(GCM_COLL_HIER_CHOICES, GCM_COLL_HIER)
GCM_COLL_CHOICE_CONSTANTS(GCM_COLL_BARRIER_CHOICES, GCM_COLL_BARRIER)
GCM_COLL_CHOICE_CONSTANTS(GCM_COLL_BCAST_CHOICES, GCM_COLL_BCAST)
GCM_COLL_CHOICE_CONSTANTS(GCM_COLL_REDUCE_CHOICES, GCM_COLL_REDUCE)
GCM_COLL_CHOICE_CONSTANTS(GCM_COLL_ALLREDUCE_CHOICES, GCM_COLL_ALLREDUCE)
GCM_COLL_CHOICE_CONSTANTS(GCM_COLL_RS_CHOICES, GCM_COLL_RS)
GCM_COLL_CHOICE_CONSTANTS(GCM_COLL_SCAN_CHOICES, GCM_COLL_SCAN)
GCM_COLL_CHOICE_CONSTANTS(GCM_COLL_GATHER_CHOICES, GCM_COLL_GATHER)
GCM_COLL_CHOICE_CONSTANTS(GCM_COLL_ALLGATHER_CHOICES, GCM_COLL_ALLGATHER)
GCM_COLL_CHOICE_CONSTANTS(GCM_COLL_ALLTOALL_CHOICES, GCM_COLL_ALLTOALL)

/*
 * Defaults of the collectives' thresholds (bytes, or processes for the
 * scan): coll/README.md says where they come from. Data of at least
 * BCAST_LARGE bytes is broadcast by scatter and allgather; reductions of
 * at least REDUCE_LARGE bytes use recursive halving (commutative
 * operators), except reduce over at most REDUCE_TREE_MAX processes or over
 * a number of processes that is not a power of two, which keeps the
 * binomial tree, or over 3 to REDUCE_TREE_MAX processes
 * at most REDUCE_SMALL bytes, which goes straight to the root (linear);
 * gather and scatter over at most GATHER_LINEAR_MAX processes, and their
 * blocks of at least GATHER_LARGE bytes, go straight to and from the
 * root; allgather over at most
 * ALLGATHER_LINEAR_MAX processes is linear whatever its size, and beyond
 * that runs in a ring from a total of ALLGATHER_LARGE bytes
 * (ALLGATHER_POF2_LARGE over a power of two of processes); all-to-all
 * blocks of at most ALLTOALL_SMALL bytes take Bruck's algorithm, except
 * over at most ALLTOALL_LINEAR_MAX processes, where every block is posted
 * at once (linear) whatever its size; larger blocks are linear too over
 * fewer than ALLTOALL_PAIRWISE_MIN processes, pairwise from there on;
 * scans over at most SCAN_LINEAR_MAX processes run as a pipeline of
 * SEGMENT-byte pieces;
 * barriers over 3 to BARRIER_LINEAR_MAX processes gather at rank 0, which
 * releases the others; broadcasts over at most BCAST_LINEAR_MAX
 * processes go from the root to each, whatever their size.
 */
#define GCM_COLL_BCAST_LARGE      32768
#define GCM_COLL_REDUCE_LARGE     16384
#define GCM_COLL_GATHER_LARGE     65536
#define GCM_COLL_GATHER_LINEAR_MAX 4
#define GCM_COLL_ALLGATHER_LARGE  65536
#define GCM_COLL_ALLGATHER_POF2_LARGE 16777216
#define GCM_COLL_ALLTOALL_SMALL   256
#define GCM_COLL_ALLTOALL_LINEAR_MAX 4
#define GCM_COLL_ALLTOALL_PAIRWISE_MIN 17
#define GCM_COLL_ALLGATHER_LINEAR_MAX 4
#define GCM_COLL_REDUCE_TREE_MAX  4
#define GCM_COLL_REDUCE_SMALL     1024
/* Below this many bytes the binomial reduce reads a child's vector alone,
 * combining it as it lands (it stays in this core's cache); from it on,
 * the child may copy a share (slots/slot_shm_coop.c), which is faster
 * once the vector no longer fits in cache anyway (coll/README.md). The
 * parent then still combines its own pieces as they land, and the
 * child's share once it is in (GCM_COLL_REDUCE_SHARE_FOLD 1), or the
 * whole vector once it is in (0). */
#define GCM_COLL_REDUCE_FOLD_MAX  262144
#define GCM_COLL_REDUCE_SHARE_FOLD 1
#define GCM_COLL_SCAN_LINEAR_MAX  4
#define GCM_COLL_BARRIER_LINEAR_MAX 4
#define GCM_COLL_BCAST_LINEAR_MAX 4
#define GCM_COLL_SEGMENT          65536
/* Allreduce of 2 processes of one host through their staging area
 * (GENCOMM_COLL_ALLREDUCE_STAGED_MIN; coll/README.md). */
#define GCM_COLL_ALLREDUCE_STAGED_MIN 524288

/* coll/'s settings: the choices (constants above) and the thresholds of
 * the automatic choice. */
typedef struct gcm_coll_config {
    int      hier;                /* GENCOMM_COLL_HIER */
    int      barrier;             /* GENCOMM_COLL_BARRIER */
    int      bcast;               /* GENCOMM_COLL_BCAST */
    int      reduce;              /* GENCOMM_COLL_REDUCE */
    int      allreduce;           /* GENCOMM_COLL_ALLREDUCE */
    int      reduce_scatter;      /* GENCOMM_COLL_REDUCE_SCATTER */
    int      scan;                /* GENCOMM_COLL_SCAN */
    int      gather;              /* GENCOMM_COLL_GATHER */
    int      allgather;           /* GENCOMM_COLL_ALLGATHER */
    int      alltoall;            /* GENCOMM_COLL_ALLTOALL */
    size_t   bcast_large;         /* GENCOMM_COLL_BCAST_LARGE */
    size_t   reduce_large;        /* GENCOMM_COLL_REDUCE_LARGE */
    size_t   gather_large;        /* GENCOMM_COLL_GATHER_LARGE */
    unsigned gather_linear_max;   /* GENCOMM_COLL_GATHER_LINEAR_MAX */
    size_t   allgather_large;     /* GENCOMM_COLL_ALLGATHER_LARGE */
    size_t   allgather_pof2_large; /* GENCOMM_COLL_ALLGATHER_POF2_LARGE */
    size_t   alltoall_small;      /* GENCOMM_COLL_ALLTOALL_SMALL */
    unsigned scan_linear_max;     /* GENCOMM_COLL_SCAN_LINEAR_MAX */
    unsigned barrier_linear_max;  /* GENCOMM_COLL_BARRIER_LINEAR_MAX */
    unsigned bcast_linear_max;    /* GENCOMM_COLL_BCAST_LINEAR_MAX */
    unsigned alltoall_linear_max; /* GENCOMM_COLL_ALLTOALL_LINEAR_MAX */
    unsigned alltoall_pairwise_min; /* GENCOMM_COLL_ALLTOALL_PAIRWISE_MIN */
    unsigned allgather_linear_max; /* GENCOMM_COLL_ALLGATHER_LINEAR_MAX */
    unsigned reduce_tree_max;     /* GENCOMM_COLL_REDUCE_TREE_MAX */
    size_t   reduce_small;        /* GENCOMM_COLL_REDUCE_SMALL */
    size_t   reduce_fold_max;     /* GENCOMM_COLL_REDUCE_FOLD_MAX */
    unsigned reduce_share_fold;   /* GENCOMM_COLL_REDUCE_SHARE_FOLD */
    size_t   segment;             /* GENCOMM_COLL_SEGMENT */
    size_t   allreduce_staged_min; /* GENCOMM_COLL_ALLREDUCE_STAGED_MIN */
} gcm_coll_config_t;

extern gcm_coll_config_t gcm_coll_config GCM_INTERNAL;

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

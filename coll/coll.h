/*
 * coll/: collective algorithms as schedules over LCO groups.
 *
 * A collective is first built as a schedule, a list of steps (start a
 * send, start a receive, wait for the transfers started since the last
 * fence, combine two buffers, copy between layouts), then run: at once to
 * the end for a blocking call, or a little at every poll for a
 * nonblocking one. One builder per algorithm thus serves both forms.
 *
 * coll/ knows nothing of MPI. The layer above describes its data with
 * opaque type and operator handles and a table of functions
 * (gcm_coll_type_ops_t: sizes, extents, pack, unpack, combine), given to
 * every schedule; a NULL type is raw bytes. compat/ passes MPI datatypes
 * and operators through it; the native generalized collective
 * (gcm_coll_general, coll_general.c) passes bytes and a user function.
 *
 * Transfers go on an LCO by send slot, with one tag per call
 * (gcm_coll_grp_t). A group is either a whole LCO (rank r is slot r) or a
 * view of some of its slots; the node and leader groups of the
 * hierarchical algorithms (coll_hier.c) are LCOs of their own, derived
 * from the parent without messages and cached with it.
 */
#ifndef GCM_COLL_H
#define GCM_COLL_H

#include "lco/lco.h"

#include <stddef.h>
#include <stdint.h>

/* ---- the upper layer's data, seen through a table --------------------- */

/* Opaque handles: coll/ never looks inside them. A NULL type is raw
 * bytes (a length instead of a count). */
typedef struct gcm_coll_type *gcm_coll_type_h;
typedef struct gcm_coll_op   *gcm_coll_op_h;

typedef struct gcm_coll_type_ops {
    /* Bytes of data in one element. */
    size_t (*size)(gcm_coll_type_h type);
    /* lb and extent of one element, and its true lb and true extent
     * (from its lowest to past its highest byte). */
    void   (*extent)(gcm_coll_type_h type, ptrdiff_t *lb_p,
                     ptrdiff_t *extent_p);
    void   (*true_extent)(gcm_coll_type_h type, ptrdiff_t *lb_p,
                          ptrdiff_t *extent_p);
    /* Nonzero if count elements at buf are one contiguous run of bytes;
     * *start_p is then where it starts. */
    int    (*contig)(gcm_coll_type_h type, int count, const void *buf,
                     const void **start_p);
    /* count elements at buf into out (count * size bytes) and back; unpack
     * takes only the first nbytes of in (a truncated receive). */
    void   (*pack)(gcm_coll_type_h type, int count, const void *buf,
                   void *out);
    void   (*unpack)(gcm_coll_type_h type, int count, const void *in,
                     size_t nbytes, void *buf);
    /* inout[i] = in[i] op inout[i] for count elements; in holds the
     * lower ranks' data. */
    void   (*combine)(gcm_coll_op_h op, const void *in, void *inout,
                      int count, gcm_coll_type_h type);
    /* May the operands of op be reordered? */
    int    (*commutative)(gcm_coll_op_h op);
    /* May combine run on op while data arrives: from whichever thread
     * progresses the transfer, with the library's lock held (code of the
     * library's own, no user function)? NULL: never. */
    int    (*foldable)(gcm_coll_op_h op);
} gcm_coll_type_ops_t;

/* Internal tags (above GCM_TAG_UB) from here to GCM_COLL_TAG_GENERAL +
 * GCM_COLL_TAG_UB carry gcm_coll_general's calls, tag for tag; the MPI
 * layer's per-call tags stay below. */
#define GCM_COLL_TAG_GENERAL 0x68000000

/* "This rank's data is already in the receive buffer": the same value as
 * MPI_IN_PLACE, so that compat/ passes the user's pointer unchanged. */
#define GCM_COLL_IN_PLACE ((void *)-1)

/* ---- groups and schedules --------------------------------------------- */

/*
 * The processes (or LCOs) an algorithm runs over: ranks 0..size-1, this
 * one being rank, each reached through a send slot of lco (slot[r], or r
 * when slot is NULL) and heard on the receive slot of the same index.
 * tag is the call's: every member uses the same one for the same call.
 */
typedef struct gcm_coll_grp {
    gcm_lco_h   lco;
    int         tag;
    int         rank;
    int         size;
    const int  *slot;
} gcm_coll_grp_t;

typedef enum {
    GCM_COLL_SEND = 1,
    GCM_COLL_RECV,
    GCM_COLL_FENCE,    /* wait for the transfers started since the last one */
    GCM_COLL_COMBINE,  /* buf = sbuf op buf */
    GCM_COLL_COPY      /* (sbuf, scount, stype) -> (buf, count, type) */
} gcm_coll_kind_t;

/* One step. A buffer is (pointer, count, type), or raw bytes when type is
 * NULL (then len is its length: packed temporaries can exceed what an int
 * count holds). */
typedef struct gcm_coll_step {
    gcm_coll_kind_t  kind;
    gcm_lco_h        lco;      /* SEND, RECV */
    int              slot;
    int              tag;
    void            *buf;      /* SEND/RECV data; COMBINE inout; COPY dst */
    int              count;
    gcm_coll_type_h  type;
    size_t           len;
    const void      *sbuf;     /* COMBINE in (lower ranks); COPY source */
    int              scount;
    gcm_coll_type_h  stype;
    size_t           slen;
    gcm_coll_op_h    op;
    gcm_request_h    req;      /* a started transfer */
    int              rec;      /* RECV: 1 + the index of its record in
                                * the schedule's recs, or 0: none;
                                * SEND: 1 + the index of its keep in
                                * the schedule's keeps, or 0: none */
    void            *tmp;      /* packed data of a non-contiguous buffer */
    /* A RECV that combines (gcm_coll_recv_combine): acc = what arrives
     * op sbuf, count elements of type; buf is scratch. With a fold, the
     * pieces are combined as they arrive. */
    void            *acc;
    const gcm_coll_type_ops_t *ops;
    gcm_slots_fold_t fold;
} gcm_coll_step_t;

/* Steps and bytes of temporaries a schedule holds in itself: enough for
 * the small collectives of a few dozen ranks (a dissemination barrier of
 * 32 ranks is 15 steps), which thus run without malloc. Larger schedules
 * go to the heap. */
#define GCM_COLL_INLINE_STEPS 16
#define GCM_COLL_INLINE_BYTES 256
/* Receive steps that run in a record of the schedule's own (slots.h,
 * gcm_slots_irecv_rec) when their message has not come when they are
 * posted, instead of taking a request from the cache and giving it back:
 * the first ones built, enough for the small collectives of up to 5 ranks
 * (the linear allgather and alltoall receive from each other rank); the
 * others take requests. */
#define GCM_COLL_INLINE_RECS  4
/* Send steps that keep their envelope and connection from one run of the
 * schedule to the next (gcm_lco_isend_kept): the first ones built, as for
 * the records. Building the schedule (again) empties them. */
#define GCM_COLL_INLINE_KEEPS 4

typedef struct gcm_coll_sched {
    const gcm_coll_type_ops_t *ops;
    gcm_coll_step_t *steps;    /* inline_steps until it outgrows them */
    int              nsteps;
    int              cap;
    int              next;     /* first step not yet run */
    int              pending;  /* first step after the last fence */
    void           **mem;      /* heap temporaries, freed with the schedule */
    int              nmem;
    int              capmem;
    size_t           inline_used;  /* bytes of inline_bytes handed out */
    int              nomem;    /* building ran out of memory */
    gcm_status_t     err;      /* first failure met while running */
    int              tag;      /* >= 0: the tag of every transfer (a
                                * schedule run again for a later call,
                                * whose transfers share one tag); -1:
                                * each step's own */
    int              tag0;     /* >= 0: a schedule run again for later
                                * calls whose transfers are under two
                                * tags (tag -1): the first of them (see
                                * gcm_coll_sched_retag); else -1 */
    gcm_coll_step_t  inline_steps[GCM_COLL_INLINE_STEPS];
    union {
        max_align_t   align;
        unsigned char b[GCM_COLL_INLINE_BYTES];
    } inline_bytes;
    int              nrecs;    /* records handed to receive steps */
    struct gcm_request recs[GCM_COLL_INLINE_RECS];
    int              nkeeps;   /* keeps handed to send steps */
    gcm_slots_send_keep_t keeps[GCM_COLL_INLINE_KEEPS];
} gcm_coll_sched_t;

void gcm_coll_sched_init(gcm_coll_sched_t *s, const gcm_coll_type_ops_t *ops)
    GCM_INTERNAL;
/* Runs steps until the schedule ends (returns 1) or, without block, until
 * a fence must wait (returns 0). Failures go to s->err; the schedule
 * still runs to its end so that no peer is left waiting on a step
 * skipped here. */
int gcm_coll_sched_advance(gcm_coll_sched_t *s, int block) GCM_INTERNAL;
/* Moves the transfers of s, under two tags (s->tag0 and another), to
 * the two of a later call: those under s->tag0 to t0, the others to t1;
 * t0 is then s->tag0. For a schedule run again whose transfers must stay
 * apart (the two directions of a neighbour collective). */
void gcm_coll_sched_retag(gcm_coll_sched_t *s, int t0, int t1) GCM_INTERNAL;
/* Waits for what is still in flight, frees temporaries and steps. */
void gcm_coll_sched_free(gcm_coll_sched_t *s) GCM_INTERNAL;

/* Temporaries freed with the schedule (NULL and s->nomem set when out of
 * memory; building goes on harmlessly and the caller reports it). */
void *gcm_coll_alloc(gcm_coll_sched_t *s, size_t len) GCM_INTERNAL;
/* For count elements laid out as type: the pointer is the element origin,
 * which may lie outside the allocation when the true lb is not 0. */
void *gcm_coll_alloc_type(gcm_coll_sched_t *s, int count,
                          gcm_coll_type_h type) GCM_INTERNAL;

void gcm_coll_send(gcm_coll_sched_t *s, const gcm_coll_grp_t *g,
                   const void *buf, int count, gcm_coll_type_h type,
                   int peer) GCM_INTERNAL;
void gcm_coll_recv(gcm_coll_sched_t *s, const gcm_coll_grp_t *g, void *buf,
                   int count, gcm_coll_type_h type, int peer) GCM_INTERNAL;
void gcm_coll_send_raw(gcm_coll_sched_t *s, const gcm_coll_grp_t *g,
                       const void *buf, size_t len, int peer) GCM_INTERNAL;
void gcm_coll_recv_raw(gcm_coll_sched_t *s, const gcm_coll_grp_t *g,
                       void *buf, size_t len, int peer) GCM_INTERNAL;
/* Receives count elements of type from peer and leaves, once the next
 * fence is passed, acc = received op src (the received data on the left;
 * src may be acc, else it is copied). x (count elements) is scratch.
 * When the layout and op allow (contiguous, lower bound 0, op foldable),
 * each piece is combined as it arrives, while it is in cache: no pass
 * over a whole temporary, no separate copy of src. */
void gcm_coll_recv_combine(gcm_coll_sched_t *s, const gcm_coll_grp_t *g,
                           void *x, const void *src, void *acc, int count,
                           gcm_coll_type_h type, gcm_coll_op_h op, int peer)
    GCM_INTERNAL;
/* Whether gcm_coll_recv_fold_into may take src, acc, count, type and op:
 * a foldable op, both buffers contiguous from their start, src neither
 * acc nor GCM_COLL_IN_PLACE. */
int gcm_coll_can_fold_into(const gcm_coll_sched_t *s, const void *src,
                           void *acc, int count, gcm_coll_type_h type,
                           gcm_coll_op_h op) GCM_INTERNAL;
/* Receives count elements of type from peer into acc itself and leaves,
 * once the next fence is passed, acc = src op received (src on the left:
 * rank order for an operator that does not commute). Each piece is
 * combined as it lands, while it is in this core's cache. Without share
 * the data is read by this process alone (a sender's share lands in the
 * other core's cache, and the combine then fetches it from there); with
 * share a sender on this host may copy some of the pieces, combined once
 * all are in (slots.h, gcm_slots_fold_t). Only where
 * gcm_coll_can_fold_into says so. */
void gcm_coll_recv_fold_into(gcm_coll_sched_t *s, const gcm_coll_grp_t *g,
                             const void *src, void *acc, int count,
                             gcm_coll_type_h type, gcm_coll_op_h op,
                             int peer, int share) GCM_INTERNAL;
void gcm_coll_fence(gcm_coll_sched_t *s) GCM_INTERNAL;
/* inout = in op inout; in holds the lower ranks' data. */
void gcm_coll_combine(gcm_coll_sched_t *s, gcm_coll_op_h op, const void *in,
                      void *inout, int count, gcm_coll_type_h type)
    GCM_INTERNAL;
/* Copies between two layouts (either may be raw: type NULL, len). */
void gcm_coll_copy(gcm_coll_sched_t *s, const void *src, int scount,
                   gcm_coll_type_h stype, size_t slen, void *dst, int count,
                   gcm_coll_type_h type, size_t len) GCM_INTERNAL;

/* Bytes of data in count elements of type (len for raw). */
size_t gcm_coll_bytes(const gcm_coll_sched_t *s, gcm_coll_type_h type,
                      int count, size_t len) GCM_INTERNAL;
/* buf + disp extents of type, in integer arithmetic: buf may be NULL
 * (MPI_BOTTOM) with absolute displacements. */
void *gcm_coll_at(const gcm_coll_sched_t *s, const void *buf, ptrdiff_t disp,
                  gcm_coll_type_h type) GCM_INTERNAL;
static inline void *gcm_coll_off(const void *buf, ptrdiff_t off)
{
    return (void *)((uintptr_t)buf + (uintptr_t)off);
}

/* ---- block layouts ---------------------------------------------------- */

/* Blocks of a gather-like buffer: block i holds counts[i] (or count)
 * elements at displacement displs[i] (or i * count) extents of type. */
typedef struct gcm_coll_layout {
    void            *buf;
    int              count;
    const int       *counts;
    const int       *displs;
    gcm_coll_type_h  type;
} gcm_coll_layout_t;

void *gcm_coll_blk(const gcm_coll_sched_t *s, const gcm_coll_layout_t *l,
                   int i) GCM_INTERNAL;
static inline int gcm_coll_cnt(const gcm_coll_layout_t *l, int i)
{
    return (l->counts != NULL) ? l->counts[i] : l->count;
}

/* One block per peer for all-to-all: where, how many, which type. */
typedef struct gcm_coll_blocks {
    void            **ptr;
    int              *count;
    gcm_coll_type_h  *type;
} gcm_coll_blocks_t;

/* Arrays for n blocks (0, or -1 out of memory). */
int gcm_coll_blocks_alloc(gcm_coll_sched_t *s, int n, gcm_coll_blocks_t *b)
    GCM_INTERNAL;

/* ---- the node structure of a group (coll_hier.c) ----------------------- */

/*
 * Which node each rank of a group is on, its node group and its leader
 * group (the lowest rank of each node), built once per communicator on
 * its first collective and freed with it. "Node" is whatever the caller
 * groups by: the host for processes, the process for the LCOs of a
 * thread communicator.
 */
typedef struct gcm_coll_hier gcm_coll_hier_t;

/*
 * Builds the structure of the group of size ranks (this one is rank) over
 * lco from node[r], a key of rank r's node (equal keys: same node).
 * procs[r] is rank r's process when lco is a pattern LCO over processes:
 * the node and leader groups are then pattern LCOs derived from lco
 * (keyed, no messages: every member computes the same ones). With procs
 * NULL they are views of lco's slots. Local; NULL without memory.
 */
gcm_coll_hier_t *gcm_coll_hier_create(gcm_lco_h lco, int rank, int size,
                                      const uint64_t node[],
                                      const int procs[]) GCM_INTERNAL;
void gcm_coll_hier_free(gcm_coll_hier_t *h) GCM_INTERNAL;
/* Zero when GENCOMM_COLL_HIER=0 (no structure need be made). */
int gcm_coll_hier_enabled(void) GCM_INTERNAL;

/* ---- algorithm choice --------------------------------------------------
 *
 * Each entry below picks its algorithm from the message size and the
 * group size (thresholds in util/util.h, GENCOMM_COLL_* settings), or the
 * one a GENCOMM_COLL_<NAME> setting forces. h, where taken, is the group's
 * node structure (NULL: none known); GENCOMM_COLL_HIER decides whether
 * the hierarchical form runs.
 */

void gcm_coll_barrier(gcm_coll_sched_t *s, const gcm_coll_grp_t *g,
                      const gcm_coll_hier_t *h) GCM_INTERNAL;
/* Is the barrier of size ranks (node structure h) one exchange of empty
 * messages between the two ranks, as gcm_coll_barrier would build it (2
 * ranks, flat, dissemination)? Then the caller may run that exchange
 * without a schedule (the MPI layer's blocking barrier: one
 * gcm_lco_exchange_nr). Traces the choice as gcm_coll_barrier does. */
int gcm_coll_barrier_is_exchange(int size, const gcm_coll_hier_t *h)
    GCM_INTERNAL;
/* Is the barrier of size ranks (3 or more; node structure h) linear
 * (flat: every rank tells rank 0, which then releases them all)? Then
 * the caller may run it without a schedule (the MPI layer's blocking
 * barrier: gcm_lco_fan_nr at rank 0, gcm_lco_exchange_nr with rank 0
 * elsewhere). Traces the choice as gcm_coll_barrier does. */
int gcm_coll_barrier_is_linear(int size, const gcm_coll_hier_t *h)
    GCM_INTERNAL;
void gcm_coll_bcast(gcm_coll_sched_t *s, const gcm_coll_grp_t *g,
                    const gcm_coll_hier_t *h, void *buf, int count,
                    gcm_coll_type_h type, int root) GCM_INTERNAL;
/* Binomial broadcast of raw bytes (any length, p may be NULL for 0). */
void gcm_coll_bcast_raw(gcm_coll_sched_t *s, const gcm_coll_grp_t *g,
                        void *p, size_t len, int root) GCM_INTERNAL;
/* sbuf is this rank's contribution (never written; the caller resolves
 * GCM_COLL_IN_PLACE to rbuf); rbuf matters at root only. */
void gcm_coll_reduce(gcm_coll_sched_t *s, const gcm_coll_grp_t *g,
                     const gcm_coll_hier_t *h, const void *sbuf, void *rbuf,
                     int count, gcm_coll_type_h type, gcm_coll_op_h op,
                     int root) GCM_INTERNAL;
/* The fewest bytes a blocking allreduce of 2 processes of one host runs
 * through the pair's staging area (GENCOMM_COLL_ALLREDUCE_STAGED_MIN); 0:
 * never (also when GENCOMM_COLL_ALLREDUCE names an algorithm). The MPI
 * layer decides the rest (compat/mpi_coll_staged.c). */
size_t gcm_coll_allreduce_staged_min(void) GCM_INTERNAL;
/* sbuf may be GCM_COLL_IN_PLACE. */
void gcm_coll_allreduce(gcm_coll_sched_t *s, const gcm_coll_grp_t *g,
                        const gcm_coll_hier_t *h, const void *sbuf,
                        void *rbuf, int count, gcm_coll_type_h type,
                        gcm_coll_op_h op) GCM_INTERNAL;
/* Block i (counts[i], or count for all when counts is NULL) of the
 * reduction goes to rank i's rbuf; sbuf may be GCM_COLL_IN_PLACE (the
 * whole vector is then in rbuf). */
void gcm_coll_reduce_scatter(gcm_coll_sched_t *s, const gcm_coll_grp_t *g,
                             const void *sbuf, void *rbuf, int count,
                             const int *counts, gcm_coll_type_h type,
                             gcm_coll_op_h op) GCM_INTERNAL;
/* Inclusive (exclusive = 0) or exclusive prefix reduction. */
void gcm_coll_scan(gcm_coll_sched_t *s, const gcm_coll_grp_t *g,
                   const void *sbuf, void *rbuf, int count,
                   gcm_coll_type_h type, gcm_coll_op_h op, int exclusive)
    GCM_INTERNAL;

/*
 * Gather (to_root = 1) or scatter within a group: (mbuf, mcount, mtype)
 * is this rank's own block (not used by the root when in_place), l the
 * root's layout of everybody's blocks (read at the root only). vform (the
 * v forms, whose counts only the root knows): the transfers go straight
 * between root and ranks.
 */
void gcm_coll_gather(gcm_coll_sched_t *s, const gcm_coll_grp_t *g,
                     const gcm_coll_hier_t *h, int to_root, int vform,
                     void *mbuf,
                     int mcount, gcm_coll_type_h mtype,
                     const gcm_coll_layout_t *l, int root, int in_place)
    GCM_INTERNAL;
/* The linear form, also between the groups of an intercommunicator (g is
 * then the remote group and root GCM_COLL_ROOT, GCM_COLL_PROC_NULL or the
 * remote root). */
#define GCM_COLL_ROOT      (-3)
#define GCM_COLL_PROC_NULL (-1)
void gcm_coll_gather_linear(gcm_coll_sched_t *s, const gcm_coll_grp_t *g,
                            int inter, int to_root, void *mbuf, int mcount,
                            gcm_coll_type_h mtype,
                            const gcm_coll_layout_t *l, int root,
                            int in_place) GCM_INTERNAL;
/* Allgather(v) into layout l; sbuf GCM_COLL_IN_PLACE: this rank's block
 * is there already. */
void gcm_coll_allgather(gcm_coll_sched_t *s, const gcm_coll_grp_t *g,
                        const gcm_coll_hier_t *h, const void *sbuf,
                        int scount, gcm_coll_type_h stype,
                        const gcm_coll_layout_t *l) GCM_INTERNAL;
/* All-to-all from blocks sb to blocks rb (in_place: sb is a copy the
 * caller made of rb). uniform: every block has the same size everywhere
 * (alltoall, not v or w), which the Bruck and hierarchical forms need. */
void gcm_coll_alltoall(gcm_coll_sched_t *s, const gcm_coll_grp_t *g,
                       const gcm_coll_hier_t *h, const gcm_coll_blocks_t *sb,
                       const gcm_coll_blocks_t *rb, int in_place,
                       int uniform) GCM_INTERNAL;
/* Pairwise exchange; between the groups of an intercommunicator (inter),
 * everything is posted at once. */
void gcm_coll_alltoall_pairwise(gcm_coll_sched_t *s, const gcm_coll_grp_t *g,
                                int inter, const gcm_coll_blocks_t *sb,
                                const gcm_coll_blocks_t *rb, int in_place)
    GCM_INTERNAL;

#endif /* GCM_COLL_H */

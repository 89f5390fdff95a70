/*
 * compat/mpi_coll_impl.h: collective operations (MPI-3.1 chapter 5): what
 * the files compat/mpi_coll_*.c share.
 *
 * The MPI side of the collectives: argument checks, the blocking and
 * nonblocking entries, intercommunicators, and the translation of MPI's
 * buffers (datatypes, MPI_IN_PLACE, v and w layouts) for coll/, which
 * builds each call as a schedule and chooses its algorithm (coll/coll.h,
 * coll/README.md). MPI datatypes and operators reach coll/ as opaque
 * handles through coll_mpi_ops; its transfers go on the communicator's
 * LCO on one internal tag per call (gcm_mpi_coll_tag), so they never
 * match user receives.
 *
 * Each communicator caches its node structure for the hierarchical
 * algorithms, built on its first collective from the host names of
 * MPI_Init (mpi_hier.c), and the schedules of its last barrier, bcast,
 * reduce, allreduce, allgather, alltoall, gather, scatter, scan, exscan,
 * reduce_scatter_block and the v and w forms gatherv, scatterv,
 * allgatherv, alltoallv, alltoallw and reduce_scatter, and the five
 * neighbour collectives, blocking and nonblocking (mpi_coll_run.c,
 * "schedules kept between calls"),
 * in comm->coll_cache, freed with the communicator.
 *
 * Intercommunicators (MPI-3.1 5.2.2): transfers between the groups go on
 * the intercommunicator by remote rank; work inside a group runs the
 * intracommunicator algorithms over comm->local_comm, on a tag of that
 * communicator (all members of a group make the same calls on it).
 */
#ifndef GCM_MPI_COLL_IMPL_H
#define GCM_MPI_COLL_IMPL_H

#include "compat/mpi_impl.h"

#include <string.h>

typedef gcm_coll_sched_t  coll_sched_t;
typedef gcm_coll_grp_t    coll_grp_t;
typedef gcm_coll_layout_t coll_layout_t;
typedef gcm_coll_blocks_t coll_blocks_t;

#define CT(_type) ((gcm_coll_type_h)(_type))
#define CO(_op)   ((gcm_coll_op_h)(_op))
/* What a communicator's collectives cache (see "schedules kept between
 * calls" for the schedules). */
enum {
    COLL_KEPT_BARRIER,
    COLL_KEPT_BCAST,
    COLL_KEPT_REDUCE,
    COLL_KEPT_ALLREDUCE,
    COLL_KEPT_ALLGATHER,
    COLL_KEPT_ALLTOALL,
    COLL_KEPT_GATHER,
    COLL_KEPT_SCATTER,
    COLL_KEPT_SCAN,
    COLL_KEPT_EXSCAN,
    COLL_KEPT_REDUCE_SCATTER_BLOCK,
    /* The v and w forms: their keys hold the contents of their arrays
     * (coll_vec_t). */
    COLL_KEPT_GATHERV,
    COLL_KEPT_SCATTERV,
    COLL_KEPT_ALLGATHERV,
    COLL_KEPT_ALLTOALLV,
    COLL_KEPT_ALLTOALLW,
    COLL_KEPT_REDUCE_SCATTER,
    /* The neighbour collectives, blocking and nonblocking
     * (mpi_topo_nbr.c); the keys of the v and w forms hold their
     * arrays. */
    COLL_KEPT_NBR_ALLGATHER,
    COLL_KEPT_NBR_ALLGATHERV,
    COLL_KEPT_NBR_ALLTOALL,
    COLL_KEPT_NBR_ALLTOALLV,
    COLL_KEPT_NBR_ALLTOALLW,
    COLL_KEPT_N
};

/* The arrays of a v or w call that its schedule is built from (counts,
 * displacements and, w form, datatypes: those significant at this
 * process), each a[i] of len[i] bytes. In a call's key they are the
 * user's arrays; in a kept schedule's key, a copy of those of the call
 * that built it (gcm_mpi_coll_vec_copy). Keys compare them element by
 * element, never by pointer: a program may change them in place between
 * calls, and the builders read them (no step points into them). */
#define COLL_VEC_MAX 6
typedef struct gcm_mpi_coll_vec {
    int         n;
    const void *a[COLL_VEC_MAX];
    size_t      len[COLL_VEC_MAX];
} coll_vec_t;

static inline void gcm_mpi_coll_vec_add(coll_vec_t *v, const void *a,
                                        size_t len)
{
    v->a[v->n] = a;
    v->len[v->n] = len;
    v->n++;
}

/* A copy of v's arrays in one allocation, freed with free() (NULL: out
 * of memory). */
coll_vec_t *gcm_mpi_coll_vec_copy(const coll_vec_t *v) GCM_INTERNAL;

/* Do a and b (either NULL: no arrays) hold the same arrays? A NULL
 * array of the call never matches one that has elements. Inline only
 * the test that settles the keys without arrays. */
int gcm_mpi_coll_vec_same(const coll_vec_t *a, const coll_vec_t *b)
    GCM_INTERNAL;

/* Are all the datatypes of a w call's arrays (v: counts, displacements
 * and datatypes of each side in turn, the datatypes every third)
 * predefined? */
int gcm_mpi_coll_vec_predefined(const coll_vec_t *v) GCM_INTERNAL;

static inline int gcm_mpi_coll_vec_eq(const coll_vec_t *a,
                                      const coll_vec_t *b)
{
    return a == b || gcm_mpi_coll_vec_same(a, b);
}

typedef struct gcm_mpi_coll_key {
    const void            *sbuf;
    void                  *rbuf;
    int                    count;
    MPI_Datatype           type;
    MPI_Op                 op;
    int                    root;
    /* The receive side where it has its own (allgather, alltoall: count
     * and type above are the send side's); else 0 and MPI_DATATYPE_NULL. */
    int                    rcount;
    MPI_Datatype           rtype;
    const gcm_coll_hier_t *h;     /* the node structure the build saw */
    const coll_vec_t      *vec;   /* v and w forms; else NULL */
} coll_key_t;

typedef struct coll_kept {
    int          valid;
    coll_key_t   key;
    coll_sched_t s;
} coll_kept_t;

struct gcm_mpi_coll_nb;   /* mpi_coll_run.c */

struct gcm_mpi_coll_cache {
    gcm_coll_hier_t *hier;
    coll_kept_t     *kept[COLL_KEPT_N];   /* allocated on first use */
    /* The same for the nonblocking forms: the schedule kept for the next
     * call with the same arguments. It stays here while a request runs
     * it (its inuse flag says so: mpi_coll_nb.h), so its request's end
     * gives it back with a store rather than a compare-and-swap; only a
     * call on the communicator replaces it, and a request's end puts one
     * here only where there is none. */
    struct gcm_mpi_coll_nb *_Atomic nbkept[COLL_KEPT_N];
    /* One emptied schedule object of a nonblocking call, for the next
     * call that does not find a kept one: allocating and clearing it
     * (inline steps and bytes, some 2 KiB) cost more than the rest of an
     * 8-byte call. */
    struct gcm_mpi_coll_nb *_Atomic nbspare;
    /* Persistent collectives made on the communicator: the number picks
     * each one's tag (MPI orders their _init calls like collectives). */
    unsigned         pseq;
    /* How the blocking barrier runs (mpi_coll_rooted.c,
     * coll_barrier_form): one exchange of empty messages with the
     * partner (2 processes), linear without a schedule (3 or 4), or a
     * schedule; 0 not decided yet. */
    int              barrier_form;
    /* The request object of the last MPI_Ibarrier of two processes that
     * completed well, idle, for the next one (taken by a call on the
     * communicator; given back, from any thread, only where none is: a
     * second Ibarrier while one is active takes a fresh object). */
    gcm_mpi_req_t *_Atomic pair_req;
    /* The sends of those barriers without a schedule, blocking and
     * nonblocking, to rank r (rank 0: r - 1) or, from the other ranks, to
     * the partner or rank 0 ([0]): their envelope and connection
     * (gcm_lco_isend_kept; empty until the first, used by one call at a
     * time as MPI orders a communicator's collectives). */
    gcm_slots_send_keep_t bar_keeps[GCM_LCO_FAN_MAX - 1];
    /* The pair's staging area for large allreduces of 2 processes
     * (mpi_coll_staged.c): staged_state 0 not opened yet, 1 open (staged
     * set), -1 not to be used (the partner could not map it, or a call
     * failed in it). */
    gcm_slots_stage_t *staged;
    int               staged_state;
};

/* ---- the three forms of a call --------------------------------------------
 *
 * Each collective has a blocking form (MPI_Bcast), a nonblocking one
 * (MPI_Ibcast: a request that advances the schedule) and a persistent one
 * (MPI_Bcast_init, MPI-4.0 6.13: a request that keeps the schedule, built
 * once, and runs it again at each MPI_Start). One entry per collective
 * takes the form as its mode; the same builder serves all three.
 */
typedef enum {
    COLL_BLOCKING = 0,
    COLL_NONBLOCKING,
    COLL_PERSISTENT
} coll_mode_t;

/* The fields of a verification descriptor that name the form. */
#define COLL_VFY_MODE(_mode) \
    .nonblocking = ((_mode) == COLL_NONBLOCKING), \
    .persistent = ((_mode) == COLL_PERSISTENT)

/* The arguments a form adds: the request (nonblocking, persistent) and
 * the info (persistent; MPI_INFO_NULL or valid). 0, or raised. */
int gcm_mpi_coll_check_mode(MPI_Comm comm, const char *call, int mode,
                            MPI_Info info, const MPI_Request *request)
    GCM_INTERNAL;

/* The schedule to build a call of mode in: s_stack, initialized, for a
 * blocking call, else a new one (NULL: out of memory, raised in *rc_p).
 * From here to gcm_mpi_coll_launch, a persistent call's groups take
 * persistent tags (gcm_mpi_coll_call_tag). */
coll_sched_t *gcm_mpi_coll_sched_for(int mode, MPI_Comm comm,
                                     const char *call, coll_sched_t *s_stack,
                                     int *rc_p) GCM_INTERNAL;

/* Ends a call of mode whose schedule s (from gcm_mpi_coll_sched_for) is
 * built: runs it (blocking), starts it as a request (nonblocking), or
 * makes the inactive persistent request that MPI_Start runs. */
int gcm_mpi_coll_launch(int mode, coll_sched_t *s, MPI_Comm comm,
                        const char *call, MPI_Request *request) GCM_INTERNAL;

/* Makes the inactive persistent request of a built schedule (from
 * gcm_mpi_coll_sched_for), which MPI_Start runs (mpi_coll_run.c); on
 * failure the schedule is freed and the error raised. */
int gcm_mpi_coll_persist(coll_sched_t *s, MPI_Comm comm, const char *call,
                         MPI_Request *request) GCM_INTERNAL;

/* The tag of the call being built on comm: its next sequence tag
 * (gcm_mpi_coll_tag), or, while a persistent call is built, its next
 * persistent one. */
int gcm_mpi_coll_call_tag(MPI_Comm comm) GCM_INTERNAL;

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

/* MPI_IN_PLACE all-to-all: the data to send is the receive buffer as it
 * was, so it is packed into a temporary first (one raw block per peer);
 * the send blocks then describe that copy. */
void gcm_mpi_coll_alltoall_inplace_copy(coll_sched_t *s, int size,
                                        const coll_blocks_t *rb,
                                        coll_blocks_t *sb) GCM_INTERNAL;

/* Is this process the root (intra) or the MPI_ROOT side (inter)? And is
 * it a sending member (not the root, not MPI_PROC_NULL)? */
int gcm_mpi_coll_am_root(MPI_Comm comm, int root) GCM_INTERNAL;

/* Layout helpers for the checks. */
void *gcm_mpi_coll_blk(const coll_layout_t *l, int i) GCM_INTERNAL;

/* Allgather and allgatherv (counts/displs NULL: allgather). */
void gcm_mpi_coll_build_allgather(coll_sched_t *s, const void *sbuf,
                                  int scount, MPI_Datatype stype, void *rbuf,
                                  int rcount, const int *rcounts,
                                  const int *displs, MPI_Datatype rtype,
                                  MPI_Comm comm) GCM_INTERNAL;

void gcm_mpi_coll_build_allreduce(coll_sched_t *s, const void *sbuf,
                                  void *rbuf, int count, MPI_Datatype type,
                                  MPI_Op op, MPI_Comm comm) GCM_INTERNAL;

void gcm_mpi_coll_build_alltoall(coll_sched_t *s, const coll_a2a_side_t *sd,
                                 const coll_a2a_side_t *rd, MPI_Comm comm)
    GCM_INTERNAL;

void gcm_mpi_coll_build_barrier(coll_sched_t *s, MPI_Comm comm) GCM_INTERNAL;

void gcm_mpi_coll_build_bcast(coll_sched_t *s, void *buf, int count,
                              MPI_Datatype type, int root, MPI_Comm comm)
    GCM_INTERNAL;

void gcm_mpi_coll_build_reduce(coll_sched_t *s, const void *sbuf,
                               void *rbuf, int count, MPI_Datatype type,
                               MPI_Op op, int root, MPI_Comm comm)
    GCM_INTERNAL;

void gcm_mpi_coll_build_reduce_scatter(coll_sched_t *s, const void *sbuf,
                                       void *rbuf, int rcount,
                                       const int *rcounts, MPI_Datatype type,
                                       MPI_Op op, MPI_Comm comm) GCM_INTERNAL;

/* Gather, gatherv, scatter, scatterv (see gcm_mpi_coll_rooted). */
void gcm_mpi_coll_build_rooted(coll_sched_t *s, int is_gather, int is_v,
                               void *mbuf, int mcount, MPI_Datatype mtype,
                               const coll_layout_t *l, int root, int in_place,
                               MPI_Comm comm) GCM_INTERNAL;

void gcm_mpi_coll_build_scan(coll_sched_t *s, const void *sbuf, void *rbuf,
                             int count, MPI_Datatype type, MPI_Op op,
                             MPI_Comm comm, int exclusive) GCM_INTERNAL;

/* comm's cache, made on first use (NULL: out of memory). */
struct gcm_mpi_coll_cache *gcm_mpi_coll_cache_of(MPI_Comm comm) GCM_INTERNAL;

int gcm_mpi_coll_check_array(MPI_Comm comm, const char *call, const int *a,
                             int n, int counts, const char *what) GCM_INTERNAL;

/* A NULL buffer is refused only where it must be wrong: for a datatype
 * whose lb is not 0 it may be MPI_BOTTOM with absolute addresses. */
int gcm_mpi_coll_check_buf(MPI_Comm comm, const char *call, const void *buf,
                           int count, MPI_Datatype type, int in_place_ok,
                           const char *what) GCM_INTERNAL;

/* The communicator of a collective: a valid one passes on two
 * comparisons (the layer up, the handle's magic); anything else takes
 * gcm_mpi_comm_check, which says what is wrong. */
static inline int gcm_mpi_coll_check_comm(MPI_Comm comm, const char *call)
{
    if (gcm_likely(gcm_mpi_is_up() && comm != MPI_COMM_NULL &&
                   comm->magic == GCM_MPI_MAGIC_COMM)) {
        return MPI_SUCCESS;
    }
    return gcm_mpi_comm_check(comm, call);
}

int gcm_mpi_coll_check_count(MPI_Comm comm, const char *call, int count,
                             const char *what) GCM_INTERNAL;

/* Checks (count, datatype, op) of a reduction. */
int gcm_mpi_coll_check_reduction(MPI_Comm comm, const char *call, int count,
                                 MPI_Datatype type, MPI_Op op) GCM_INTERNAL;

int gcm_mpi_coll_check_req(MPI_Comm comm, const char *call,
                           const MPI_Request *request) GCM_INTERNAL;

int gcm_mpi_coll_check_root(MPI_Comm comm, const char *call, int root)
    GCM_INTERNAL;

/* count, datatype and buffer of one side of a call. */
int gcm_mpi_coll_check_side(MPI_Comm comm, const char *call, const void *buf,
                            int count, MPI_Datatype type, int in_place_ok,
                            const char *bufname) GCM_INTERNAL;

int gcm_mpi_coll_check_type(MPI_Comm comm, const char *call,
                            MPI_Datatype type, const char *what) GCM_INTERNAL;

int gcm_mpi_coll_cnt(const coll_layout_t *l, int i) GCM_INTERNAL;

/* What a blocking collective returns once its transfers ran: err, the
 * first failed transfer's status, raised on comm. */
/* A blocking allreduce (arguments checked; sendbuf may be MPI_IN_PLACE)
 * through the staging area of the 2 processes of comm, when the call
 * qualifies (mpi_coll_staged.c): 1 and the call's result in *rc_p, or 0:
 * the caller runs its schedule. Both processes decide alike from the
 * arguments they share. */
int gcm_mpi_coll_allreduce_staged(const void *sendbuf, void *recvbuf,
                                  int count, MPI_Datatype datatype, MPI_Op op,
                                  MPI_Comm comm, const char *call, int *rc_p)
    GCM_INTERNAL;

int gcm_mpi_coll_result(MPI_Comm comm, const char *call, gcm_status_t err)
    GCM_INTERNAL;

/* Runs a built schedule to its end and frees it; raises what went
 * wrong. */
int gcm_mpi_coll_finish(coll_sched_t *s, MPI_Comm comm, const char *call)
    GCM_INTERNAL;

/* Runs the schedule of a blocking call (from gcm_mpi_coll_kept_get;
 * built unless hit), keeps it if it can be run again, and raises what
 * went wrong. */
int gcm_mpi_coll_finish_kept(coll_sched_t *s, MPI_Comm comm, int which,
                             int hit, unsigned seq0, const char *call)
    GCM_INTERNAL;

/* The group of an intracommunicator (or LCO communicator) for this
 * call: takes the call's tag. */
coll_grp_t gcm_mpi_coll_grp(MPI_Comm comm) GCM_INTERNAL;

/* An intercommunicator's groups: the remote one (transfers across, by
 * remote rank; rank is the local rank) and the local one. */
void gcm_mpi_coll_grp_inter(MPI_Comm comm, coll_grp_t *rg, coll_grp_t *lg)
    GCM_INTERNAL;

/*
 * The node structure of an intracommunicator, made on first use: the node
 * of a rank is its host (an LCO communicator whose slots reach some
 * process more than once: its process, the level below the host). NULL
 * when there is none to use: a single rank, the hierarchy not built yet
 * (the allgather of MPI_Init itself), GENCOMM_COLL_HIER=0, or no memory
 * (the flat algorithms are always right).
 *
 * MPI orders the collectives on a communicator, so no two threads build
 * it at once.
 */
const gcm_coll_hier_t *gcm_mpi_coll_hier_of(MPI_Comm comm) GCM_INTERNAL;

int gcm_mpi_coll_is_inter(MPI_Comm comm) GCM_INTERNAL;

/* The schedule for a blocking call of collective which with arguments
 * key: kept (*hit_p set: built already, under this call's tag), or
 * empty, to build in (kept, with a copy of key's arrays, when the call
 * can be, else s_stack). */
coll_sched_t *gcm_mpi_coll_kept_get(MPI_Comm comm, int which,
                                    const coll_key_t *key,
                                    coll_sched_t *s_stack, int *hit_p)
    GCM_INTERNAL;

/* Are two keys equal but for their arrays (vec)? Keys of the v and w
 * forms also compare those (gcm_mpi_coll_kept_find; mpi_coll_run.c,
 * coll_key_eq). */
static inline int gcm_mpi_coll_key_eq(const coll_key_t *a,
                                      const coll_key_t *b)
{
    return a->sbuf == b->sbuf && a->rbuf == b->rbuf &&
           a->count == b->count && a->type == b->type && a->op == b->op &&
           a->root == b->root && a->rcount == b->rcount &&
           a->rtype == b->rtype && a->h == b->h;
}

/* The schedule kept for blocking calls of collective which on comm, if
 * a call with arguments key (and arrays: the blocking neighbour v and w
 * forms) built it (and it ran well), else NULL: a
 * blocking call that finds it skips its argument checks (as
 * gcm_mpi_coll_kept_same says) and runs it (gcm_mpi_coll_kept_run).
 * Inline: the lookup of every blocking call of a kept collective. */
static inline coll_kept_t *gcm_mpi_coll_kept_find(MPI_Comm comm, int which,
                                                  const coll_key_t *key)
{
    const struct gcm_mpi_coll_cache *c = comm->coll_cache;
    coll_kept_t *k;

    if (c != NULL && (k = c->kept[which]) != NULL && k->valid &&
        gcm_mpi_coll_key_eq(&k->key, key) &&
        gcm_mpi_coll_vec_eq(k->key.vec, key->vec)) {
        return k;
    }
    return NULL;
}

/* How a call's schedule was found (gcm_mpi_coll_get), for its run or
 * start (gcm_mpi_coll_end). */
typedef struct gcm_mpi_coll_got {
    int      which;   /* the kept collective; -1: built, not kept */
    int      hit;     /* a kept schedule, built already */
    unsigned seq0;    /* blocking: comm's call count before the build */
} coll_got_t;

/* The schedule for a call of mode of collective which (-1: one not kept)
 * with arguments key: for a blocking or nonblocking call, the one kept
 * for the same arguments (g->hit set) or one to build and keep
 * (gcm_mpi_coll_kept_get, gcm_mpi_coll_nb_get), else as
 * gcm_mpi_coll_sched_for. NULL: raised in *rc_p. */
coll_sched_t *gcm_mpi_coll_get(int mode, MPI_Comm comm, int which,
                               const coll_key_t *key, coll_sched_t *s_stack,
                               coll_got_t *g, const char *call, int *rc_p)
    GCM_INTERNAL;

/* Ends a call whose schedule s (from gcm_mpi_coll_get, g) is built: a
 * blocking one runs it and keeps it (gcm_mpi_coll_finish_kept), the
 * others as gcm_mpi_coll_launch. */
int gcm_mpi_coll_end(int mode, coll_sched_t *s, MPI_Comm comm,
                     const coll_got_t *g, const char *call,
                     MPI_Request *request) GCM_INTERNAL;

/* Runs k (from gcm_mpi_coll_kept_find) for this call, under its tag;
 * raises what went wrong (and the next call builds anew). */
int gcm_mpi_coll_kept_run(coll_kept_t *k, MPI_Comm comm, const char *call)
    GCM_INTERNAL;

/* Was a schedule kept for blocking or nonblocking calls of collective
 * which on comm (checked valid) built and run by a call with arguments
 * key? Then they passed their checks, and a blocking or nonblocking call
 * (mode) may skip them (0 for a persistent one). */
int gcm_mpi_coll_kept_same(MPI_Comm comm, int which, int mode,
                           const coll_key_t *key) GCM_INTERNAL;

/* A new schedule for a nonblocking call (NULL: raised). */
coll_sched_t *gcm_mpi_coll_new(MPI_Comm comm, const char *call, int *rc_p)
    GCM_INTERNAL;

/* The schedule for a nonblocking call of collective which with arguments
 * key: the one kept from an earlier call with the same arguments when it
 * is idle (*hit_p set: built already, under this call's tag), else a new
 * one to build in, kept after its request for later calls when it can
 * be (as gcm_mpi_coll_kept_get does for blocking calls). NULL: raised. */
coll_sched_t *gcm_mpi_coll_nb_get(MPI_Comm comm, int which,
                                  const coll_key_t *key, int *hit_p,
                                  const char *call, int *rc_p) GCM_INTERNAL;

/* What gcm_mpi_coll_nb_again returns when the call takes the general
 * path. */
#define GCM_MPI_COLL_MISS (-1)

/* A nonblocking call of collective which with arguments key on comm (a
 * valid communicator) started from the schedule kept for the same
 * arguments, checks and all skipped: MPI_SUCCESS, *request its handle.
 * GCM_MPI_COLL_MISS (nothing done): there is none, request is NULL, or
 * verification mode is on; the caller goes on as before. */
int gcm_mpi_coll_nb_again(MPI_Comm comm, int which, const coll_key_t *key,
                          MPI_Request *request) GCM_INTERNAL;

/* What a call of a kept collective (which) in mode with arguments key
 * looks up before its checks: a nonblocking call whose arguments are
 * those of the schedule kept for its form is started from it (the result
 * of gcm_mpi_coll_nb_again). Else GCM_MPI_COLL_MISS, *k_p the schedule
 * kept for a blocking call of these arguments (NULL: none, or not a
 * blocking call), and *check_p 0 when the call may skip its argument
 * checks (gcm_mpi_coll_kept_same). */
static inline int gcm_mpi_coll_lookup(MPI_Comm comm, int which, int mode,
                                      const coll_key_t *key,
                                      MPI_Request *request, coll_kept_t **k_p,
                                      int *check_p)
{
    *k_p = NULL;
    if (mode == COLL_NONBLOCKING) {
        int rc = gcm_mpi_coll_nb_again(comm, which, key, request);

        if (rc != GCM_MPI_COLL_MISS) {
            return rc;
        }
    } else if (mode == COLL_BLOCKING) {
        *k_p = gcm_mpi_coll_kept_find(comm, which, key);
    }
    *check_p = *k_p == NULL &&
               !gcm_mpi_coll_kept_same(comm, which, mode, key);
    return GCM_MPI_COLL_MISS;
}

int gcm_mpi_coll_no_inter_in_place(MPI_Comm comm, const char *call,
                                   const void *sbuf, const void *rbuf)
    GCM_INTERNAL;

/* MPI_ROOT and MPI_PROC_NULL as coll/ names them. */
int gcm_mpi_coll_root(int root) GCM_INTERNAL;

/* Gather, gatherv, scatter, scatterv: is_gather picks the direction;
 * (mbuf, mcount, mtype) is every process's own block (send side of a
 * gather, receive side of a scatter); (rbuf, ...) the root's layout. */
int gcm_mpi_coll_rooted(int is_gather, const void *mbuf, int mcount,
                        MPI_Datatype mtype, void *rbuf, int rcount, int is_v,
                        const int *rcounts, const int *displs,
                        MPI_Datatype rtype, int root, MPI_Comm comm,
                        int mode, MPI_Info info, MPI_Request *request,
                        const char *call) GCM_INTERNAL;

void gcm_mpi_coll_sched_init(coll_sched_t *s) GCM_INTERNAL;

/* Hands a built schedule (from gcm_mpi_coll_new) to a generic request, which
 * starts it. */
int gcm_mpi_coll_start(coll_sched_t *s, MPI_Comm comm, const char *call,
                       MPI_Request *request) GCM_INTERNAL;

/* The arguments of a call, as kept schedules are looked up by (inline:
 * every blocking call of a kept collective makes one). */
static inline coll_key_t gcm_mpi_coll_key(MPI_Comm comm, const void *sbuf,
                                          void *rbuf, int count,
                                          MPI_Datatype type, MPI_Op op,
                                          int root)
{
    coll_key_t key;

    key.sbuf = sbuf;
    key.rbuf = rbuf;
    key.count = count;
    key.type = type;
    key.op = op;
    key.root = root;
    key.rcount = 0;
    key.rtype = MPI_DATATYPE_NULL;
    key.vec = NULL;
    key.h = (comm->kind == GCM_MPI_COMM_INTER) ? NULL :
            gcm_mpi_coll_hier_of(comm);
    return key;
}

/* What the nonblocking entries of the collectives whose blocking entries
 * are their own (bcast, reduce, allreduce) do first, in their own frame,
 * as the blocking ones look up their kept schedules: a call whose
 * arguments (those of gcm_mpi_coll_key) are the kept nonblocking
 * schedule's is started from it (the result of gcm_mpi_coll_nb_again).
 * GCM_MPI_COLL_MISS, nothing done: there is none, or comm is no valid
 * communicator (the entry's general function then says why). */
static inline int gcm_mpi_coll_nb_first(MPI_Comm comm, int which,
                                        const void *sbuf, void *rbuf,
                                        int count, MPI_Datatype type,
                                        MPI_Op op, int root,
                                        MPI_Request *request)
{
    coll_key_t key;

    if (gcm_unlikely(!gcm_mpi_is_up() || comm == MPI_COMM_NULL ||
                     comm->magic != GCM_MPI_MAGIC_COMM)) {
        return GCM_MPI_COLL_MISS;
    }
    key = gcm_mpi_coll_key(comm, sbuf, rbuf, count, type, op, root);
    return gcm_mpi_coll_nb_again(comm, which, &key, request);
}

#endif /* GCM_MPI_COLL_IMPL_H */

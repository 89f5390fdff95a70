/*
 * compat/mpi_coll.c: collective operations (MPI-3.1 chapter 5).
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
 * MPI_Init (mpi_hier.c), and the schedules of its last blocking barrier,
 * bcast, reduce and allreduce ("schedules kept between calls" below), in
 * comm->coll_cache, freed with the communicator.
 *
 * Intercommunicators (MPI-3.1 5.2.2): transfers between the groups go on
 * the intercommunicator by remote rank; work inside a group runs the
 * intracommunicator algorithms over comm->local_comm, on a tag of that
 * communicator (all members of a group make the same calls on it).
 */
#include "config.h"

#include "compat/mpi_impl.h"

#include <limits.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/* ---- MPI data for coll/ ------------------------------------------------- */

typedef gcm_coll_sched_t  coll_sched_t;
typedef gcm_coll_grp_t    coll_grp_t;
typedef gcm_coll_layout_t coll_layout_t;
typedef gcm_coll_blocks_t coll_blocks_t;

#define CT(_type) ((gcm_coll_type_h)(_type))
#define CO(_op)   ((gcm_coll_op_h)(_op))

static size_t coll_mpi_size(gcm_coll_type_h type)
{
    return (size_t)gcm_mpi_type_size((MPI_Datatype)type);
}

static void coll_mpi_extent(gcm_coll_type_h type, ptrdiff_t *lb_p,
                            ptrdiff_t *extent_p)
{
    MPI_Aint lb, ext;

    gcm_mpi_type_extent((MPI_Datatype)type, &lb, &ext);
    *lb_p = (ptrdiff_t)lb;
    *extent_p = (ptrdiff_t)ext;
}

static void coll_mpi_true_extent(gcm_coll_type_h type, ptrdiff_t *lb_p,
                                 ptrdiff_t *extent_p)
{
    MPI_Aint lb = 0, ext = 0;

    PMPI_Type_get_true_extent((MPI_Datatype)type, &lb, &ext);
    *lb_p = (ptrdiff_t)lb;
    *extent_p = (ptrdiff_t)ext;
}

static int coll_mpi_contig(gcm_coll_type_h type, int count, const void *buf,
                           const void **start_p)
{
    return gcm_mpi_type_is_contiguous((MPI_Datatype)type, count, buf,
                                      start_p);
}

static void coll_mpi_pack(gcm_coll_type_h type, int count, const void *buf,
                          void *out)
{
    gcm_mpi_type_pack((MPI_Datatype)type, count, buf, out);
}

static void coll_mpi_unpack(gcm_coll_type_h type, int count, const void *in,
                            size_t nbytes, void *buf)
{
    gcm_mpi_type_unpack((MPI_Datatype)type, count, in, nbytes, buf);
}

static void coll_mpi_combine(gcm_coll_op_h op, const void *in, void *inout,
                             int count, gcm_coll_type_h type)
{
    gcm_mpi_op_apply((MPI_Op)op, in, inout, count, (MPI_Datatype)type);
}

static int coll_mpi_commutative(gcm_coll_op_h op)
{
    return gcm_mpi_op_is_commutative((MPI_Op)op);
}

static const gcm_coll_type_ops_t coll_mpi_ops = {
    .size        = coll_mpi_size,
    .extent      = coll_mpi_extent,
    .true_extent = coll_mpi_true_extent,
    .contig      = coll_mpi_contig,
    .pack        = coll_mpi_pack,
    .unpack      = coll_mpi_unpack,
    .combine     = coll_mpi_combine,
    .commutative = coll_mpi_commutative,
};

static void coll_sched_init(coll_sched_t *s)
{
    gcm_coll_sched_init(s, &coll_mpi_ops);
}

/* The group of an intracommunicator (or LCO communicator) for this
 * call: takes the call's tag. */
static coll_grp_t coll_grp(MPI_Comm comm)
{
    coll_grp_t g;

    g.lco = comm->lco;
    g.tag = gcm_mpi_coll_tag(comm);
    g.rank = comm->prank;
    g.size = comm->psize;
    g.slot = NULL;
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
    rg->lco = comm->lco;
    rg->tag = gcm_mpi_coll_tag(comm);
    rg->rank = comm->rank;
    rg->size = comm->remote_size;
    rg->slot = NULL;
    *lg = coll_grp(comm->local_comm);
}

/* MPI_ROOT and MPI_PROC_NULL as coll/ names them. */
static int coll_root(int root)
{
    if (root == MPI_ROOT) {
        return GCM_COLL_ROOT;
    }
    return (root == MPI_PROC_NULL) ? GCM_COLL_PROC_NULL : root;
}

/* What a communicator's collectives cache (see "schedules kept between
 * calls" for the schedules). */
enum {
    COLL_KEPT_BARRIER,
    COLL_KEPT_BCAST,
    COLL_KEPT_REDUCE,
    COLL_KEPT_ALLREDUCE,
    COLL_KEPT_N
};

typedef struct coll_key {
    const void            *sbuf;
    void                  *rbuf;
    int                    count;
    MPI_Datatype           type;
    MPI_Op                 op;
    int                    root;
    const gcm_coll_hier_t *h;     /* the node structure the build saw */
} coll_key_t;

typedef struct coll_kept {
    int          valid;
    coll_key_t   key;
    coll_sched_t s;
} coll_kept_t;

struct gcm_mpi_coll_cache {
    gcm_coll_hier_t *hier;
    coll_kept_t     *kept[COLL_KEPT_N];   /* allocated on first use */
};

/* comm's cache, made on first use (NULL: out of memory). */
static struct gcm_mpi_coll_cache *coll_cache_of(MPI_Comm comm)
{
    if (comm->coll_cache == NULL) {
        comm->coll_cache = calloc(1, sizeof(*comm->coll_cache));
    }
    return comm->coll_cache;
}

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
static const gcm_coll_hier_t *coll_hier_of(MPI_Comm comm)
{
    struct gcm_mpi_coll_cache *c = comm->coll_cache;
    uint64_t *node;
    int *procs, n = comm->psize, r, by_proc = 0;

    if (c != NULL && c->hier != NULL) {
        return c->hier;
    }
    if (n < 2 || comm->kind == GCM_MPI_COMM_INTER ||
        !gcm_coll_hier_enabled() ||
        gcm_mpi_hier_host(0, NULL) != 0 ||
        (c = coll_cache_of(comm)) == NULL) {
        return NULL;
    }
    node = malloc((size_t)n * sizeof(*node));
    procs = malloc((size_t)n * sizeof(*procs));
    if (node == NULL || procs == NULL) {
        free(node);
        free(procs);
        return NULL;
    }
    for (r = 0; r < n; r++) {
        procs[r] = (comm->kind == GCM_MPI_COMM_LCO) ?
                   gcm_lco_send_slot_proc(comm->lco, r) :
                   gcm_mpi_comm_proc(comm, r);
    }
    if (comm->kind == GCM_MPI_COMM_LCO) {
        /* Several LCOs of one process: the process is the node. */
        for (r = 0; r < n && !by_proc; r++) {
            int q;

            for (q = 0; q < r && !by_proc; q++) {
                by_proc = (procs[q] == procs[r]);
            }
        }
    }
    for (r = 0; r < n; r++) {
        if (by_proc || gcm_mpi_hier_host(procs[r], &node[r]) != 0) {
            node[r] = (uint64_t)procs[r];
        }
    }
    c->hier = gcm_coll_hier_create(comm->lco, comm->prank, n, node,
                                   (comm->kind == GCM_MPI_COMM_LCO) ?
                                   NULL : procs);
    free(node);
    free(procs);
    return c->hier;
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
        total += gcm_coll_bytes(s, rb->type[i], rb->count[i], 0);
    }
    tmp = gcm_coll_alloc(s, total);
    if (tmp == NULL) {
        return;
    }
    for (i = 0; i < size; i++) {
        size_t n = gcm_coll_bytes(s, rb->type[i], rb->count[i], 0);

        gcm_coll_copy(s, rb->ptr[i], rb->count[i], rb->type[i], 0,
                      tmp + off, (int)n, CT(MPI_BYTE), 0);
        sb->ptr[i] = tmp + off;
        sb->count[i] = (int)n;
        sb->type[i] = CT(MPI_BYTE);
        off += n;
    }
}

/* Layout helpers for the checks. */
static void *coll_blk(const coll_layout_t *l, int i)
{
    MPI_Aint lb, ext;
    MPI_Aint d = (l->displs != NULL) ? l->displs[i] :
                                       (MPI_Aint)i * l->count;

    gcm_mpi_type_extent((MPI_Datatype)l->type, &lb, &ext);
    return gcm_coll_off(l->buf, d * ext);
}

static int coll_cnt(const coll_layout_t *l, int i)
{
    return gcm_coll_cnt(l, i);
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

/* What a blocking collective returns once its schedule ran: err, the
 * first failed transfer's status, raised on comm. */
static int coll_result(MPI_Comm comm, const char *call, gcm_status_t err)
{
    if (gcm_mpi_errclass(err) != MPI_SUCCESS) {
        return gcm_mpi_raise(comm, gcm_mpi_errclass(err), call,
                             "a transfer of the collective failed: %s",
                             gcm_status_string(err));
    }
    return MPI_SUCCESS;
}

/* Runs a built schedule to its end and frees it; raises what went
 * wrong. */
static int coll_finish(coll_sched_t *s, MPI_Comm comm, const char *call)
{
    gcm_status_t err;

    if (s->nomem != 0) {
        gcm_coll_sched_free(s);
        return gcm_mpi_raise(comm, MPI_ERR_NO_MEM, call,
                             "cannot allocate the collective's schedule");
    }
    (void)gcm_coll_sched_advance(s, 1);
    err = s->err;
    gcm_coll_sched_free(s);
    return coll_result(comm, call, err);
}

/* ---- schedules kept between blocking calls ------------------------------
 *
 * Programs call the same collective with the same arguments over and
 * over (a solver's residual allreduce, a time step's barrier). Building
 * the schedule of a small call was about a third of the instructions of
 * a 2-process 8-byte allreduce, so an intracommunicator keeps, per
 * collective, the schedule of its last blocking call, and a call with
 * the same arguments runs it again under its own tag. Only what the same
 * handles always mean is kept: predefined datatypes and operators (a
 * freed user type's handle may come back as another type), and schedules
 * whose transfers all go on the communicator's LCO under the one tag of
 * the call (the hierarchical forms also use derived LCOs). Buffers are
 * read when the steps run, never when they are built, so new data in the
 * same buffers is what the next call sends.
 */

static int coll_key_eq(const coll_key_t *a, const coll_key_t *b)
{
    return a->sbuf == b->sbuf && a->rbuf == b->rbuf &&
           a->count == b->count && a->type == b->type && a->op == b->op &&
           a->root == b->root && a->h == b->h;
}

/* The schedule for a blocking call of collective which with arguments
 * key: kept (*hit_p set: built already, under this call's tag), or
 * empty, to build in (kept when the call can be, else s_stack). */
static coll_sched_t *coll_kept_get(MPI_Comm comm, int which,
                                   const coll_key_t *key,
                                   coll_sched_t *s_stack, int *hit_p)
{
    struct gcm_mpi_coll_cache *c;
    coll_kept_t *k;
    int i, tag;

    *hit_p = 0;
    if (coll_is_inter(comm) ||
        (key->type != MPI_DATATYPE_NULL &&
         !gcm_mpi_type_is_predefined(key->type)) ||
        (key->op != MPI_OP_NULL && gcm_mpi_op_id(key->op) < 0)) {
        coll_sched_init(s_stack);
        return s_stack;
    }
    c = coll_cache_of(comm);
    if (c == NULL) {
        coll_sched_init(s_stack);
        return s_stack;
    }
    k = c->kept[which];
    if (k == NULL) {
        k = malloc(sizeof(*k));
        if (k == NULL) {
            coll_sched_init(s_stack);
            return s_stack;
        }
        k->valid = 0;
        coll_sched_init(&k->s);
        c->kept[which] = k;
    }
    if (k->valid && coll_key_eq(&k->key, key)) {
        /* The tag a build would have taken. */
        tag = gcm_mpi_coll_tag(comm);
        for (i = 0; i < k->s.nsteps; i++) {
            gcm_coll_step_t *st = &k->s.steps[i];

            if (st->kind == GCM_COLL_SEND || st->kind == GCM_COLL_RECV) {
                st->tag = tag;
            }
        }
        k->s.next = 0;
        k->s.pending = 0;
        k->s.err = GCM_OK;
        *hit_p = 1;
        return &k->s;
    }
    /* Another call: its schedule replaces the one kept. */
    gcm_coll_sched_free(&k->s);
    k->valid = 0;
    k->key = *key;
    return &k->s;
}

/* May s, just built by one call that took seq0 as its number, run again
 * for a later call (with that call's tag)? */
static int coll_keepable(MPI_Comm comm, const coll_sched_t *s,
                         unsigned seq0)
{
    int i, tag = -1;

    if (s->nomem != 0 ||
        atomic_load_explicit(&comm->coll_seq, memory_order_relaxed) !=
        seq0 + 1) {
        return 0;
    }
    for (i = 0; i < s->nsteps; i++) {
        const gcm_coll_step_t *st = &s->steps[i];

        if (st->kind != GCM_COLL_SEND && st->kind != GCM_COLL_RECV) {
            continue;
        }
        if (st->lco != comm->lco || (tag >= 0 && st->tag != tag)) {
            return 0;
        }
        tag = st->tag;
    }
    return 1;
}

void gcm_mpi_coll_cache_free(MPI_Comm comm)
{
    struct gcm_mpi_coll_cache *c = comm->coll_cache;
    int i;

    if (c == NULL) {
        return;
    }
    gcm_coll_hier_free(c->hier);
    for (i = 0; i < COLL_KEPT_N; i++) {
        if (c->kept[i] != NULL) {
            gcm_coll_sched_free(&c->kept[i]->s);
            free(c->kept[i]);
        }
    }
    free(c);
    comm->coll_cache = NULL;
}

/* Runs the schedule of a blocking call (from coll_kept_get; built unless
 * hit), keeps it if it can be run again, and raises what went wrong. */
static int coll_finish_kept(coll_sched_t *s, MPI_Comm comm, int which,
                            int hit, unsigned seq0, const char *call)
{
    coll_kept_t *k;
    gcm_status_t err;

    if (comm->coll_cache == NULL ||
        (k = comm->coll_cache->kept[which]) == NULL || s != &k->s) {
        return coll_finish(s, comm, call);
    }
    if (!hit && !coll_keepable(comm, s, seq0)) {
        k->valid = 0;
        return coll_finish(s, comm, call);
    }
    (void)gcm_coll_sched_advance(s, 1);
    err = s->err;
    /* After a failure the next call builds anew. */
    k->valid = (err == GCM_OK);
    if (!k->valid) {
        gcm_coll_sched_free(s);
    }
    return coll_result(comm, call, err);
}

/* The arguments of a call, as kept schedules are looked up by. */
static coll_key_t coll_key(MPI_Comm comm, const void *sbuf, void *rbuf,
                           int count, MPI_Datatype type, MPI_Op op,
                           int root)
{
    coll_key_t key;

    key.sbuf = sbuf;
    key.rbuf = rbuf;
    key.count = count;
    key.type = type;
    key.op = op;
    key.root = root;
    key.h = coll_is_inter(comm) ? NULL : coll_hier_of(comm);
    return key;
}

/*
 * Nonblocking collectives progress whenever any thread waits in the
 * library, not only when their own request is tested (MPI-3.1 5.12: a
 * process blocked in a wait on something else must not keep a collective
 * of its peers from completing). Running schedules are listed here; the
 * wait hook (gcm_lco_set_wait_hook) advances each one that no other
 * thread is advancing at the moment. A schedule is listed once its
 * verification (if any) has passed, and unlisted before it is freed.
 */
typedef struct coll_nb {
    coll_sched_t s;
    gcm_list_t   elem;
    atomic_int   busy;     /* a thread advances s */
    int          listed;
} coll_nb_t;

static struct {
    pthread_mutex_t lock;
    gcm_list_t      active;
    atomic_int      n;
} coll_nb_reg = { .lock = PTHREAD_MUTEX_INITIALIZER,
                  .active = { &coll_nb_reg.active, &coll_nb_reg.active } };

static _Thread_local int coll_nb_in_hook;

static void coll_nb_hook(void)
{
    gcm_list_t *e;

    if ((atomic_load_explicit(&coll_nb_reg.n, memory_order_relaxed) == 0) ||
        coll_nb_in_hook ||
        (pthread_mutex_trylock(&coll_nb_reg.lock) != 0)) {
        return;
    }
    /* A user reduction may wait in the library: no recursion. */
    coll_nb_in_hook = 1;
    for (e = coll_nb_reg.active.next; e != &coll_nb_reg.active; e = e->next) {
        coll_nb_t *nb = gcm_container_of(e, coll_nb_t, elem);

        if (atomic_exchange_explicit(&nb->busy, 1, memory_order_acquire)) {
            continue;
        }
        (void)gcm_coll_sched_advance(&nb->s, 0);
        atomic_store_explicit(&nb->busy, 0, memory_order_release);
    }
    coll_nb_in_hook = 0;
    pthread_mutex_unlock(&coll_nb_reg.lock);
}

static void coll_nb_list(coll_nb_t *nb)
{
    if (nb->listed) {
        return;
    }
    pthread_mutex_lock(&coll_nb_reg.lock);
    gcm_list_push_back(&coll_nb_reg.active, &nb->elem);
    nb->listed = 1;
    if (atomic_fetch_add(&coll_nb_reg.n, 1) == 0) {
        gcm_lco_set_wait_hook(coll_nb_hook);
    }
    pthread_mutex_unlock(&coll_nb_reg.lock);
}

static void coll_nb_unlist(coll_nb_t *nb)
{
    if (!nb->listed) {
        return;
    }
    pthread_mutex_lock(&coll_nb_reg.lock);
    gcm_list_del(&nb->elem);
    nb->listed = 0;
    atomic_fetch_sub(&coll_nb_reg.n, 1);
    pthread_mutex_unlock(&coll_nb_reg.lock);
}

static int coll_req_poll(gcm_mpi_req_t *req)
{
    coll_nb_t *nb = req->state;
    int done;

    /* Polled only once the verification passed. */
    coll_nb_list(nb);
    if (atomic_exchange_explicit(&nb->busy, 1, memory_order_acquire)) {
        return 0;
    }
    done = gcm_coll_sched_advance(&nb->s, 0);
    atomic_store_explicit(&nb->busy, 0, memory_order_release);
    if (done == 0) {
        return 0;
    }
    coll_nb_unlist(nb);
    gcm_mpi_status_empty(&req->status);
    req->status.MPI_ERROR = gcm_mpi_errclass(nb->s.err);
    return 1;
}

static void coll_req_cleanup(void *state)
{
    coll_nb_t *nb = state;

    coll_nb_unlist(nb);
    gcm_coll_sched_free(&nb->s);
    free(nb);
}

/* A new schedule for a nonblocking call (NULL: raised). */
static coll_sched_t *coll_new(MPI_Comm comm, const char *call, int *rc_p)
{
    coll_nb_t *nb = calloc(1, sizeof(*nb));

    if (nb == NULL) {
        *rc_p = gcm_mpi_raise(comm, MPI_ERR_NO_MEM, call,
                              "cannot allocate a schedule");
        return NULL;
    }
    atomic_init(&nb->busy, 0);
    coll_sched_init(&nb->s);
    return &nb->s;
}

/* Hands a built schedule (from coll_new) to a generic request, which
 * starts it. */
static int coll_start(coll_sched_t *s, MPI_Comm comm, const char *call,
                      MPI_Request *request)
{
    coll_nb_t *nb = gcm_container_of(s, coll_nb_t, s);
    int gated = (comm->coll_gate != NULL);
    int rc;

    if (s->nomem != 0) {
        coll_req_cleanup(nb);
        return gcm_mpi_raise(comm, MPI_ERR_NO_MEM, call,
                             "cannot allocate the collective's schedule");
    }
    /* Start what can start now, so the transfers overlap with whatever
     * the caller does next; in verification mode only once the check
     * of the call has passed (the request's first test). */
    if (!gated) {
        (void)gcm_coll_sched_advance(s, 0);
    }
    rc = gcm_mpi_req_generic(comm, coll_req_poll, coll_req_cleanup, nb,
                             request);
    if (rc != MPI_SUCCESS) {
        coll_req_cleanup(nb);
        return rc;
    }
    if (!gated) {
        coll_nb_list(nb);
    }
    return MPI_SUCCESS;
}

/* ---- builders shared by blocking and nonblocking forms -------------------
 *
 * An intracommunicator's call goes to coll/'s entry, which chooses the
 * algorithm; an intercommunicator's is put together here from transfers
 * across and the local group's collectives.
 */

static void coll_build_barrier(coll_sched_t *s, MPI_Comm comm)
{
    coll_grp_t g, lg;

    if (coll_is_inter(comm) == 0) {
        g = coll_grp(comm);
        gcm_coll_barrier(s, &g, coll_hier_of(comm));
        return;
    }
    /* Everyone in my group has entered once my group's barrier is done;
     * the leaders swap that news, and each tells its group. */
    coll_grp_inter(comm, &g, &lg);
    gcm_coll_barrier(s, &lg, NULL);
    if (lg.rank == 0) {
        gcm_coll_send_raw(s, &g, NULL, 0, 0);
        gcm_coll_recv_raw(s, &g, NULL, 0, 0);
        gcm_coll_fence(s);
    }
    gcm_coll_bcast_raw(s, &lg, NULL, 0, 0);
}

static void coll_build_bcast(coll_sched_t *s, void *buf, int count,
                             MPI_Datatype type, int root, MPI_Comm comm)
{
    coll_grp_t g, lg;

    if (coll_is_inter(comm) == 0) {
        g = coll_grp(comm);
        gcm_coll_bcast(s, &g, coll_hier_of(comm), buf, count, CT(type),
                       root);
        return;
    }
    coll_grp_inter(comm, &g, &lg);
    if (root == MPI_PROC_NULL) {
        return;
    }
    if (root == MPI_ROOT) {
        gcm_coll_send(s, &g, buf, count, CT(type), 0);
        gcm_coll_fence(s);
        return;
    }
    if (lg.rank == 0) {
        gcm_coll_recv(s, &g, buf, count, CT(type), root);
        gcm_coll_fence(s);
    }
    gcm_coll_bcast(s, &lg, NULL, buf, count, CT(type), 0);
}

static void coll_build_reduce(coll_sched_t *s, const void *sbuf,
                              void *rbuf, int count, MPI_Datatype type,
                              MPI_Op op, int root, MPI_Comm comm)
{
    coll_grp_t g, lg;
    void *tmp = NULL;

    if (coll_is_inter(comm) == 0) {
        g = coll_grp(comm);
        gcm_coll_reduce(s, &g, coll_hier_of(comm),
                        (sbuf == MPI_IN_PLACE) ? rbuf : sbuf, rbuf, count,
                        CT(type), CO(op), root);
        return;
    }
    coll_grp_inter(comm, &g, &lg);
    if (root == MPI_PROC_NULL) {
        return;
    }
    if (root == MPI_ROOT) {
        gcm_coll_recv(s, &g, rbuf, count, CT(type), 0);
        gcm_coll_fence(s);
        return;
    }
    if (lg.rank == 0) {
        tmp = gcm_coll_alloc_type(s, count, CT(type));
    }
    gcm_coll_reduce(s, &lg, NULL, sbuf, tmp, count, CT(type), CO(op), 0);
    if (lg.rank == 0) {
        gcm_coll_send(s, &g, tmp, count, CT(type), root);
        gcm_coll_fence(s);
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
        gcm_coll_allreduce(s, &g, coll_hier_of(comm), sbuf, rbuf, count,
                           CT(type), CO(op));
        return;
    }
    /* Each group reduces its data to its leader; the leaders swap, and
     * each spreads the other group's result in its own group. */
    coll_grp_inter(comm, &g, &lg);
    if (lg.rank == 0) {
        tmp = gcm_coll_alloc_type(s, count, CT(type));
    }
    gcm_coll_reduce(s, &lg, NULL, sbuf, tmp, count, CT(type), CO(op), 0);
    if (lg.rank == 0) {
        gcm_coll_send(s, &g, tmp, count, CT(type), 0);
        gcm_coll_recv(s, &g, rbuf, count, CT(type), 0);
        gcm_coll_fence(s);
    }
    gcm_coll_bcast(s, &lg, NULL, rbuf, count, CT(type), 0);
}

static void coll_build_scan(coll_sched_t *s, const void *sbuf, void *rbuf,
                            int count, MPI_Datatype type, MPI_Op op,
                            MPI_Comm comm, int exclusive)
{
    coll_grp_t g = coll_grp(comm);

    gcm_coll_scan(s, &g, sbuf, rbuf, count, CT(type), CO(op), exclusive);
}

static void coll_build_reduce_scatter(coll_sched_t *s, const void *sbuf,
                                      void *rbuf, int rcount,
                                      const int *rcounts, MPI_Datatype type,
                                      MPI_Op op, MPI_Comm comm)
{
    coll_grp_t g = coll_grp(comm);

    gcm_coll_reduce_scatter(s, &g, sbuf, rbuf, rcount, rcounts, CT(type),
                            CO(op));
}

/* Gather, gatherv, scatter, scatterv (see coll_rooted). */
static void coll_build_rooted(coll_sched_t *s, int is_gather, int is_v,
                              void *mbuf, int mcount, MPI_Datatype mtype,
                              const coll_layout_t *l, int root, int in_place,
                              MPI_Comm comm)
{
    coll_grp_t g, lg;

    if (coll_is_inter(comm)) {
        coll_grp_inter(comm, &g, &lg);
        gcm_coll_gather_linear(s, &g, 1, is_gather, mbuf, mcount, CT(mtype),
                               l, coll_root(root), in_place);
        return;
    }
    g = coll_grp(comm);
    gcm_coll_gather(s, &g, coll_hier_of(comm), is_gather, is_v, mbuf,
                    mcount, CT(mtype), l, root, in_place);
}

/* Allgather and allgatherv (counts/displs NULL: allgather). */
static void coll_build_allgather(coll_sched_t *s, const void *sbuf,
                                 int scount, MPI_Datatype stype, void *rbuf,
                                 int rcount, const int *rcounts,
                                 const int *displs, MPI_Datatype rtype,
                                 MPI_Comm comm)
{
    coll_layout_t l = { rbuf, rcount, rcounts, displs, CT(rtype) };
    coll_grp_t g, lg;
    size_t total = 0, off;
    char *tmp;
    int i;

    if (coll_is_inter(comm) == 0) {
        g = coll_grp(comm);
        gcm_coll_allgather(s, &g, coll_hier_of(comm), sbuf, scount,
                           CT(stype), &l);
        return;
    }
    /* Every process sends to the remote leader, which gathers its remote
     * group's blocks and spreads them (packed) in its own group. */
    coll_grp_inter(comm, &g, &lg);
    gcm_coll_send(s, &g, sbuf, scount, CT(stype), 0);
    if (lg.rank == 0) {
        for (i = 0; i < g.size; i++) {
            gcm_coll_recv(s, &g, gcm_coll_blk(s, &l, i), coll_cnt(&l, i),
                          CT(rtype), i);
        }
    }
    gcm_coll_fence(s);
    if (lg.size == 1) {
        return;
    }
    for (i = 0; i < g.size; i++) {
        total += gcm_coll_bytes(s, CT(rtype), coll_cnt(&l, i), 0);
    }
    tmp = gcm_coll_alloc(s, total);
    if (tmp == NULL) {
        return;
    }
    for (i = 0, off = 0; lg.rank == 0 && i < g.size; i++) {
        size_t n = gcm_coll_bytes(s, CT(rtype), coll_cnt(&l, i), 0);

        gcm_coll_copy(s, gcm_coll_blk(s, &l, i), coll_cnt(&l, i), CT(rtype),
                      0, tmp + off, 0, NULL, n);
        off += n;
    }
    gcm_coll_bcast_raw(s, &lg, tmp, total, 0);
    for (i = 0, off = 0; lg.rank != 0 && i < g.size; i++) {
        size_t n = gcm_coll_bytes(s, CT(rtype), coll_cnt(&l, i), 0);

        gcm_coll_copy(s, tmp + off, 0, NULL, n, gcm_coll_blk(s, &l, i),
                      coll_cnt(&l, i), CT(rtype), 0);
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

static void coll_a2a_fill(coll_sched_t *s, const coll_a2a_side_t *d, int n,
                          coll_blocks_t *b)
{
    int i;

    for (i = 0; i < n; i++) {
        b->count[i] = (d->counts != NULL) ? d->counts[i] : d->count;
        if (d->types != NULL) {
            b->type[i] = CT(d->types[i]);
            b->ptr[i] = gcm_coll_off(d->buf, d->displs[i]);
        } else {
            MPI_Aint disp = (d->displs != NULL) ? d->displs[i] :
                            (MPI_Aint)i * d->count;

            b->type[i] = CT(d->type);
            b->ptr[i] = gcm_coll_at(s, d->buf, disp, CT(d->type));
        }
    }
}

static void coll_build_alltoall(coll_sched_t *s, const coll_a2a_side_t *sd,
                                const coll_a2a_side_t *rd, MPI_Comm comm)
{
    coll_blocks_t sb, rb;
    coll_grp_t g, lg;
    int inter = coll_is_inter(comm), in_place = (sd->buf == MPI_IN_PLACE);
    int uniform = (rd->counts == NULL);

    if (inter != 0) {
        coll_grp_inter(comm, &g, &lg);
    } else {
        g = coll_grp(comm);
    }
    if (gcm_coll_blocks_alloc(s, g.size, &sb) != 0 ||
        gcm_coll_blocks_alloc(s, g.size, &rb) != 0) {
        return;
    }
    coll_a2a_fill(s, rd, g.size, &rb);
    if (in_place != 0) {
        coll_alltoall_inplace_copy(s, g.size, &rb, &sb);
    } else {
        coll_a2a_fill(s, sd, g.size, &sb);
    }
    if (inter != 0) {
        gcm_coll_alltoall_pairwise(s, &g, 1, &sb, &rb, in_place);
    } else {
        gcm_coll_alltoall(s, &g, coll_hier_of(comm), &sb, &rb, in_place,
                          uniform);
    }
}

/* ---- the MPI functions --------------------------------------------------- */

int PMPI_Barrier(MPI_Comm comm)
{
    static const char call[] = "MPI_Barrier";
    coll_sched_t s, *sp;
    coll_key_t key;
    unsigned seq0;
    int hit;
    int rc = coll_check_comm(comm, call);

    if (rc == MPI_SUCCESS) {
        rc = GCM_MPI_COLL_VERIFY(comm, call, .kind = GCM_MPI_COLL_BARRIER);
    }
    if (rc != MPI_SUCCESS) {
        return rc;
    }
    key = coll_key(comm, NULL, NULL, 0, MPI_DATATYPE_NULL, MPI_OP_NULL, 0);
    seq0 = atomic_load_explicit(&comm->coll_seq, memory_order_relaxed);
    sp = coll_kept_get(comm, COLL_KEPT_BARRIER, &key, &s, &hit);
    if (!hit) {
        coll_build_barrier(sp, comm);
    }
    return coll_finish_kept(sp, comm, COLL_KEPT_BARRIER, hit, seq0, call);
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
    coll_sched_t s, *sp;
    coll_key_t key;
    unsigned seq0;
    int hit;
    int rc = coll_check_bcast(buffer, count, datatype, root, comm, call);

    if (rc == MPI_SUCCESS) {
        rc = GCM_MPI_COLL_VERIFY(comm, call, .kind = GCM_MPI_COLL_BCAST,
                                 .root = root, .scount = count,
                                 .stype = datatype);
    }
    if (rc != MPI_SUCCESS) {
        return rc;
    }
    key = coll_key(comm, NULL, buffer, count, datatype, MPI_OP_NULL, root);
    seq0 = atomic_load_explicit(&comm->coll_seq, memory_order_relaxed);
    sp = coll_kept_get(comm, COLL_KEPT_BCAST, &key, &s, &hit);
    if (!hit) {
        coll_build_bcast(sp, buffer, count, datatype, root, comm);
    }
    return coll_finish_kept(sp, comm, COLL_KEPT_BCAST, hit, seq0, call);
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
    coll_layout_t l = { rbuf, rcount, rcounts, displs, CT(rtype) };
    coll_sched_t s;
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
    coll_build_rooted(&s, is_gather, is_v, (void *)mbuf, mcount, mtype, &l,
                      root, in_place, comm);
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
    coll_layout_t l = { recvbuf, recvcount, recvcounts, displs,
                        CT(recvtype) };
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
    coll_sched_t s, *sp;
    coll_key_t key;
    unsigned seq0;
    int hit;
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
    key = coll_key(comm, sendbuf, recvbuf, count, datatype, op, root);
    seq0 = atomic_load_explicit(&comm->coll_seq, memory_order_relaxed);
    sp = coll_kept_get(comm, COLL_KEPT_REDUCE, &key, &s, &hit);
    if (!hit) {
        coll_build_reduce(sp, sendbuf, recvbuf, count, datatype, op, root,
                          comm);
    }
    return coll_finish_kept(sp, comm, COLL_KEPT_REDUCE, hit, seq0, call);
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
    coll_sched_t s, *sp;
    coll_key_t key;
    unsigned seq0;
    int hit;
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
    key = coll_key(comm, sendbuf, recvbuf, count, datatype, op, 0);
    seq0 = atomic_load_explicit(&comm->coll_seq, memory_order_relaxed);
    sp = coll_kept_get(comm, COLL_KEPT_ALLREDUCE, &key, &s, &hit);
    if (!hit) {
        coll_build_allreduce(sp, sendbuf, recvbuf, count, datatype, op,
                             comm);
    }
    return coll_finish_kept(sp, comm, COLL_KEPT_ALLREDUCE, hit, seq0, call);
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
    coll_build_scan(&s, sendbuf, recvbuf, count, datatype, op, comm,
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

/* Reduce_scatter(_block): rcounts NULL: the same rcount for everyone
 * (reduce_scatter_block). */
static int coll_reduce_scatter_any(const void *sendbuf, void *recvbuf,
                                   int rcount, const int *rcounts,
                                   MPI_Datatype datatype, MPI_Op op,
                                   MPI_Comm comm, const char *call)
{
    coll_sched_t s;
    long long total = 0;
    int rc = coll_check_comm(comm, call), i, n, mine;

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
    coll_build_reduce_scatter(&s, sendbuf, recvbuf, rcount, rcounts,
                              datatype, op, comm);
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

/*
 * compat/mpi_coll_run.c: running a collective's schedule: blocking
 * calls, the schedules kept between blocking calls, nonblocking requests
 * and persistent ones.
 */
#include "config.h"

#include "compat/mpi_coll_nb.h"
#include "compat/mpi_req_kept.h"

#include <limits.h>
#include <stddef.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/* ---- schedules kept between calls -----------------------------------------
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
 * same buffers is what the next call sends. The nonblocking forms keep
 * theirs the same way (gcm_mpi_coll_nb_get): the finished schedule is
 * installed in its communicator when its request is freed, for the next
 * call with the same arguments, and stays there, idle or running (its
 * inuse flag: a request's end then needs one store, no compare-and-swap);
 * a call that finds it running (two in flight) builds its own. Kept so, both forms: barrier, bcast, reduce,
 * allreduce, allgather, alltoall, gather, scatter, scan, exscan,
 * reduce_scatter_block, gatherv, scatterv, allgatherv, alltoallv,
 * alltoallw, reduce_scatter and the five neighbour collectives
 * (mpi_topo_nbr.c).
 * The count, displacement and type arrays of the v and w forms may hold
 * other values under the same pointers at the next call: their keys
 * compare the arrays' contents (coll_vec_t), the kept schedule holding a
 * copy of those it was built from; alltoallw's (and the neighbour
 * alltoallw's) only when all its datatypes are predefined. The neighbour
 * collectives take two tags a call (their two groups: the two directions
 * of a Cartesian dimension, which may reach the same process): a kept
 * schedule of two tags takes a later call's two (coll_sched_again).
 * A blocking or nonblocking call whose arguments are those of a kept
 * schedule (of either form) checks only its communicator and its request
 * (gcm_mpi_coll_kept_same): the call that built the schedule passed the
 * same checks.
 */

static void coll_nb_free(coll_nb_t *nb);
static void coll_nb_dispose(coll_nb_t *nb);

static inline int coll_key_eq(const coll_key_t *a, const coll_key_t *b)
{
    return gcm_mpi_coll_key_eq(a, b) && gcm_mpi_coll_vec_eq(a->vec, b->vec);
}

/* May a call with arguments key on comm keep its schedule? Only when its
 * handles always mean the same (predefined datatypes and operator), on an
 * intracommunicator. */
static int coll_key_keepable(MPI_Comm comm, const coll_key_t *key)
{
    return !gcm_mpi_coll_is_inter(comm) &&
           (key->type == MPI_DATATYPE_NULL ||
            gcm_mpi_type_is_predefined(key->type)) &&
           (key->rtype == MPI_DATATYPE_NULL ||
            gcm_mpi_type_is_predefined(key->rtype)) &&
           (key->op == MPI_OP_NULL || gcm_mpi_op_id(key->op) >= 0);
}

/* Makes kept schedule s ready to run again for this call: every
 * transfer under the tag a build would have taken (coll_keepable: they
 * shared the building call's), or, for a schedule of two tags (tag0 set:
 * the neighbour collectives' two directions), each under the first or
 * the second of the two a build would have taken. */
static inline void coll_sched_again(coll_sched_t *s, MPI_Comm comm)
{
    if (gcm_likely(s->tag0 < 0)) {
        s->tag = gcm_mpi_coll_tag(comm);
    } else {
        unsigned seq = atomic_fetch_add_explicit(&comm->coll_seq, 2,
                                                 memory_order_relaxed);

        gcm_coll_sched_retag(s, gcm_mpi_coll_seq_tag(seq),
                             gcm_mpi_coll_seq_tag(seq + 1));
    }
    s->next = 0;
    s->pending = 0;
    s->err = GCM_OK;
}

coll_sched_t *gcm_mpi_coll_kept_get(MPI_Comm comm, int which,
                                    const coll_key_t *key,
                                    coll_sched_t *s_stack, int *hit_p)
{
    struct gcm_mpi_coll_cache *c;
    coll_kept_t *k = gcm_mpi_coll_kept_find(comm, which, key);

    if (k != NULL) {
        coll_sched_again(&k->s, comm);
        *hit_p = 1;
        return &k->s;
    }
    *hit_p = 0;
    /* A schedule kept under key passed coll_key_keepable when it was
     * built: only a new key is asked. */
    if (!coll_key_keepable(comm, key) ||
        (c = gcm_mpi_coll_cache_of(comm)) == NULL) {
        gcm_mpi_coll_sched_init(s_stack);
        return s_stack;
    }
    k = c->kept[which];
    if (k == NULL) {
        k = malloc(sizeof(*k));
        if (k == NULL) {
            gcm_mpi_coll_sched_init(s_stack);
            return s_stack;
        }
        k->valid = 0;
        k->key.vec = NULL;
        gcm_mpi_coll_sched_init(&k->s);
        c->kept[which] = k;
    }
    /* Another call: its schedule replaces the one kept, and the copy of
     * its arrays (v and w forms) the old one's. */
    gcm_coll_sched_free(&k->s);
    k->valid = 0;
    free((void *)k->key.vec);
    k->key = *key;
    if (key->vec != NULL &&
        (k->key.vec = gcm_mpi_coll_vec_copy(key->vec)) == NULL) {
        gcm_mpi_coll_sched_init(s_stack);
        return s_stack;
    }
    return &k->s;
}

int gcm_mpi_coll_kept_run(coll_kept_t *k, MPI_Comm comm, const char *call)
{
    coll_sched_again(&k->s, comm);
    return gcm_mpi_coll_finish_kept(&k->s, comm, -1, 1, 0, call);
}

/* May s, just built by one call that took seq0 as its first number, run
 * again for a later call (with that call's tags)? Its transfers must all
 * go on comm's LCO under the one or two tags the call took (the first:
 * every collective's group; the second: the neighbour collectives' other
 * direction); s then records the first when there are two
 * (coll_sched_again). */
static int coll_keepable(MPI_Comm comm, coll_sched_t *s, unsigned seq0)
{
    unsigned ntags = atomic_load_explicit(&comm->coll_seq,
                                          memory_order_relaxed) - seq0;
    int tag0 = gcm_mpi_coll_seq_tag(seq0);
    int tag1 = gcm_mpi_coll_seq_tag(seq0 + 1);
    int i;

    if (s->nomem != 0 || ntags < 1 || ntags > 2) {
        return 0;
    }
    for (i = 0; i < s->nsteps; i++) {
        const gcm_coll_step_t *st = &s->steps[i];

        if (st->kind != GCM_COLL_SEND && st->kind != GCM_COLL_RECV) {
            continue;
        }
        if (st->lco != comm->lco ||
            (st->tag != tag0 && (ntags < 2 || st->tag != tag1))) {
            return 0;
        }
    }
    s->tag0 = (ntags == 2) ? tag0 : -1;
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
        coll_nb_t *nb = atomic_exchange(&c->nbkept[i], NULL);

        if (c->kept[i] != NULL) {
            gcm_coll_sched_free(&c->kept[i]->s);
            free((void *)c->kept[i]->key.vec);
            free(c->kept[i]);
        }
        if (nb != NULL) {
            coll_nb_free(nb);
        }
    }
    /* Last: the frees above may have left one here. */
    coll_nb_dispose(atomic_exchange(&c->nbspare, NULL));
    if (c->pair_req != NULL) {
        gcm_mpi_req_free(c->pair_req);
    }
    gcm_lco_stage_free(c->staged);
    free(c);
    comm->coll_cache = NULL;
}

/* Runs the schedule of a blocking call (from gcm_mpi_coll_kept_get;
 * built unless hit), keeps it if it can be run again, and raises what
 * went wrong. */
int gcm_mpi_coll_finish_kept(coll_sched_t *s, MPI_Comm comm, int which,
                             int hit, unsigned seq0, const char *call)
{
    coll_kept_t *k;
    gcm_status_t err;

    if (hit) {
        /* s is the kept one (gcm_mpi_coll_kept_get). */
        k = gcm_container_of(s, coll_kept_t, s);
    } else if (comm->coll_cache == NULL ||
               (k = comm->coll_cache->kept[which]) == NULL || s != &k->s) {
        return gcm_mpi_coll_finish(s, comm, call);
    } else if (!coll_keepable(comm, s, seq0)) {
        k->valid = 0;
        return gcm_mpi_coll_finish(s, comm, call);
    }
    (void)gcm_coll_sched_advance(s, 1);
    err = s->err;
    if (gcm_likely(err == GCM_OK)) {
        k->valid = 1;
        return MPI_SUCCESS;
    }
    /* After a failure the next call builds anew. */
    k->valid = 0;
    gcm_coll_sched_free(s);
    return gcm_mpi_coll_result(comm, call, err);
}


/* Was a schedule kept for calls of collective which on comm (a valid
 * communicator), blocking or nonblocking, built and run by a call with
 * arguments key? Those arguments passed their checks then, and would pass
 * them again: the checks depend only on the communicator and the
 * arguments, and a kept schedule's datatypes and operator are predefined,
 * so their handles always mean the same. A blocking or nonblocking call
 * (mode) that finds its arguments so skips them; a persistent one checks
 * them (it is made once). The nonblocking schedule read here stays put:
 * only a call on comm takes it (this thread: MPI orders the collectives
 * on a communicator), and a request's end only puts one where there was
 * none, after setting its key (or changes the inuse flag of the one
 * there, never its key). */
int gcm_mpi_coll_kept_same(MPI_Comm comm, int which, int mode,
                           const coll_key_t *key)
{
    const struct gcm_mpi_coll_cache *c = comm->coll_cache;
    const coll_kept_t *k;
    const coll_nb_t *nb;

    if (c == NULL || mode == COLL_PERSISTENT) {
        return 0;
    }
    if ((k = c->kept[which]) != NULL && k->valid &&
        coll_key_eq(&k->key, key)) {
        return 1;
    }
    nb = atomic_load_explicit(&c->nbkept[which], memory_order_acquire);
    return nb != NULL && coll_key_eq(&nb->key, key);
}

/*
 * A nonblocking (or persistent) collective holds the datatypes and the
 * operator its steps use until its request is freed: the program may free
 * them as soon as the call returns (MPI-3.1 4.1.9 and 5.9.7), and the
 * steps pack, unpack and combine with them later. Every step takes its
 * own references (steps do not change once built), so releasing walks
 * the same steps.
 */
/* Does a step of s use a datatype or an operator that the program may
 * free (one not predefined)? */
static int coll_sched_uses_derived(const coll_sched_t *s)
{
    int i;

    for (i = 0; i < s->nsteps; i++) {
        const gcm_coll_step_t *st = &s->steps[i];

        /* Most steps name none (bytes, a fence): one test for them. */
        if (((uintptr_t)st->type | (uintptr_t)st->stype |
             (uintptr_t)st->op) == 0) {
            continue;
        }
        if ((st->type != NULL &&
             !gcm_mpi_type_is_predefined((MPI_Datatype)st->type)) ||
            (st->stype != NULL &&
             !gcm_mpi_type_is_predefined((MPI_Datatype)st->stype)) ||
            (st->op != NULL && gcm_mpi_op_id((MPI_Op)st->op) < 0)) {
            return 1;
        }
    }
    return 0;
}

static void coll_nb_hold_walk(coll_nb_t *nb, int take)
{
    const coll_sched_t *s = &nb->s;
    int i;

    if (take == nb->held) {
        return;
    }
    /* Predefined handles are never freed: a schedule of only those (a
     * kept one runs again and again) holds nothing, and need not walk its
     * steps at every request. Its steps do not change once built. */
    if (nb->owns == 0) {
        nb->owns = coll_sched_uses_derived(s) ? 2 : 1;
    }
    if (nb->owns == 1) {
        return;
    }
    nb->held = take;
    for (i = 0; i < s->nsteps; i++) {
        const gcm_coll_step_t *st = &s->steps[i];
        MPI_Datatype types[2] = { (MPI_Datatype)st->type,
                                  (MPI_Datatype)st->stype };
        int k;

        for (k = 0; k < 2; k++) {
            if (types[k] == MPI_DATATYPE_NULL) {
                continue;
            }
            if (take) {
                gcm_mpi_type_retain(types[k]);
            } else {
                gcm_mpi_type_release(types[k]);
            }
        }
        if (st->op != NULL) {
            if (take) {
                gcm_mpi_op_retain((MPI_Op)st->op);
            } else {
                gcm_mpi_op_release((MPI_Op)st->op);
            }
        }
    }
}

/* Takes (take 1) or drops the references of nb's steps; nothing to do,
 * without a call, for a schedule known to use only predefined handles. */
static inline void coll_nb_hold(coll_nb_t *nb, int take)
{
    if (nb->owns != 1) {
        coll_nb_hold_walk(nb, take);
    }
}


/* The status of a collective that ran well: gcm_mpi_status_empty,
 * inline. */
static inline void coll_status_ok(MPI_Status *st)
{
    st->MPI_SOURCE    = MPI_ANY_SOURCE;
    st->MPI_TAG       = MPI_ANY_TAG;
    st->MPI_ERROR     = MPI_SUCCESS;
    st->gcm_cancelled = 0;
    st->gcm_count     = 0;
}

/* The status of req, whose schedule nb is over. */
static void coll_req_over(gcm_mpi_req_t *req, coll_nb_t *nb)
{
    gcm_mpi_coll_nb_unlist(nb);
    gcm_mpi_status_empty(&req->status);
    if (nb->failed != 0) {
        /* The mismatch the check found, and why: the request's error. */
        req->status.MPI_ERROR = nb->failed;
        free(req->errtext);
        req->errtext = nb->text;
        nb->text = NULL;
    } else if (nb->s.err != GCM_OK) {
        req->status.MPI_ERROR = gcm_mpi_errclass(nb->s.err);
    }
}

static int coll_req_poll(gcm_mpi_req_t *req)
{
    coll_nb_t *nb = req->state;
    int done;

    if (atomic_exchange_explicit(&nb->busy, 1, memory_order_acquire)) {
        return 0;
    }
    done = gcm_mpi_coll_nb_advance(nb);
    atomic_store_explicit(&nb->busy, 0, memory_order_release);
    if (done == 0) {
        return 0;
    }
    coll_req_over(req, nb);
    return 1;
}

/*
 * MPI_Wait (and the other waits of one request) on a collective: once its
 * check is over (verification mode), the schedule runs to its end as the
 * blocking call runs it, each transfer waited for in turn (the wait hook
 * still advances the other schedules meanwhile), rather than polled round
 * after round with the running list's lock. Another thread advancing it
 * now: 0, and the caller polls.
 */
static int coll_req_wait(gcm_mpi_req_t *req)
{
    coll_nb_t *nb = req->state;

    if (atomic_exchange_explicit(&nb->busy, 1, memory_order_acquire)) {
        return 0;
    }
    if (nb->gate != NULL) {
        atomic_store_explicit(&nb->busy, 0, memory_order_release);
        return 0;
    }
    /* This thread runs it to its end now: the wait hook need not visit
     * it while this wait spins (with no other schedule running, the hook
     * then returns at its first test). Unlisted here rather than at the
     * end (coll_req_over), so no lock pair is added. */
    gcm_mpi_coll_nb_unlist(nb);
    if (nb->failed == 0) {
        (void)gcm_coll_sched_advance(&nb->s, 1);
    }
    atomic_store_explicit(&nb->busy, 0, memory_order_release);
    coll_req_over(req, nb);
    return 1;
}

static inline void coll_req_cleanup(void *state);
static inline void coll_req_cleanup_ok(void *state);

/*
 * MPI_Wait on a collective waited at once: what coll_req_wait,
 * coll_req_over, gcm_mpi_req_finish and the release do, in one pass, for
 * the usual case (the schedule runs to its end without failing). Taken
 * out of the parked slot (or off the list), the schedule is advanced by
 * no hook any more, and by no other thread (MPI: one request is not
 * completed by two calls at once), so no busy flag is needed. The
 * release is gcm_mpi_req_release_kept_ok, its cleanup coll_req_cleanup's
 * for a schedule that ran well, inlined. 1 when done so, 0 when the
 * general path must complete it (gcm_mpi_coll_req_wait).
 */
static inline int coll_req_wait_release(gcm_mpi_req_t *req,
                                        MPI_Status *status)
{
    coll_nb_t *nb = req->state;

    if (req->persistent) {
        return 0;
    }
    if (!req->complete) {
        gcm_mpi_coll_nb_unlist(nb);
        if (gcm_unlikely(nb->gate != NULL || nb->failed != 0)) {
            gcm_mpi_coll_nb_list(nb);   /* its check first: general path */
            return 0;
        }
        (void)gcm_coll_sched_advance(&nb->s, 1);
        if (gcm_unlikely(nb->s.err != GCM_OK)) {
            coll_req_over(req, nb);
            req->complete = 1;
            return 0;
        }
    } else if (req->status.MPI_ERROR != MPI_SUCCESS) {
        return 0;
    } else {
        gcm_mpi_coll_nb_unlist(nb);
    }
    if (status != MPI_STATUS_IGNORE) {
        gcm_mpi_status_empty_single(status);
    }
    gcm_mpi_req_release_kept_ok(req, coll_req_cleanup_ok);
    return 1;
}

int gcm_mpi_coll_req_wait(gcm_mpi_req_t *req, MPI_Request *request,
                          MPI_Status *status)
{
    if (gcm_likely(coll_req_wait_release(req, status))) {
        return gcm_mpi_req_kept_waited(request);
    }
    return gcm_mpi_wait_general(req, request, status);
}

/* Frees an emptied schedule object and the request kept with it. */
static void coll_nb_dispose(coll_nb_t *nb)
{
    if (nb != NULL && nb->req != NULL) {
        gcm_mpi_req_free(nb->req);
    }
    free(nb);
}

static void coll_nb_free(coll_nb_t *nb)
{
    coll_nb_t *none = NULL;

    gcm_mpi_coll_nb_unlist(nb);
    coll_nb_hold(nb, 0);
    if (nb->which >= 0 && nb->key.vec != NULL) {
        free((void *)nb->key.vec);   /* its copy of a v call's arrays */
    }
    if (nb->gate != NULL) {
        gcm_mpi_coll_gate_free(nb->gate);
    }
    if (nb->text != NULL) {
        free(nb->text);
    }
    gcm_coll_sched_free(&nb->s);   /* empty again, ready for another */
    if (nb->cache == NULL ||
        !atomic_compare_exchange_strong(&nb->cache->nbspare, &none, nb)) {
        coll_nb_dispose(nb);
    }
}

/* A schedule that ran well, not installed, its request over: installed
 * in its communicator's slot for the next call with the same arguments
 * where the slot is empty, else freed. */
static void coll_nb_install(coll_nb_t *nb)
{
    struct gcm_mpi_coll_cache *c = nb->comm->coll_cache;
    coll_nb_t *none = NULL;

    if (nb->keep && c != NULL) {
        /* Set before it is there: the next call may take it at once. */
        nb->installed = 1;
        atomic_store_explicit(&nb->inuse, COLL_NB_IDLE, memory_order_relaxed);
        if (atomic_compare_exchange_strong(&c->nbkept[nb->which], &none,
                                           nb)) {
            return;
        }
        nb->installed = 0;
    }
    coll_nb_free(nb);
}

static inline void coll_req_cleanup(void *state)
{
    coll_nb_t *nb = state;
    int ok;

    /* The references of the request end with it (a kept schedule takes
     * new ones with its next request). */
    coll_nb_hold(nb, 0);
    /* A schedule that ran well goes back to its communicator for the
     * next call with the same arguments, unless one is there already. */
    ok = nb->keep && nb->failed == 0 && nb->gate == NULL &&
         nb->s.err == GCM_OK && nb->comm->coll_cache != NULL;
    if (nb->installed) {
        /* Idle again; or dead, for the next call on comm to free (only
         * such a call takes an installed schedule out). Unlisted first:
         * this store is the request's last touch of nb. */
        gcm_mpi_coll_nb_unlist(nb);
        atomic_store_explicit(&nb->inuse, ok ? COLL_NB_IDLE : COLL_NB_DEAD,
                              memory_order_release);
    } else if (ok) {
        gcm_mpi_coll_nb_unlist(nb);
        coll_nb_install(nb);
    } else {
        coll_nb_free(nb);
    }
}

/* coll_req_cleanup for a request that ran well (as
 * coll_req_wait_release sees: no failed check, no error, unlisted). An
 * installed schedule, the usual case, is idle again with one store. */
static inline void coll_req_cleanup_ok(void *state)
{
    coll_nb_t *nb = state;

    coll_nb_hold(nb, 0);
    if (gcm_likely(nb->installed)) {
        atomic_store_explicit(&nb->inuse, COLL_NB_IDLE, memory_order_release);
    } else {
        coll_nb_install(nb);
    }
}

/* A new schedule for a nonblocking call (NULL: raised): the spare of
 * comm's cache (emptied when it was freed), or a new one. Only the
 * fields before the schedule's steps are set: a step is cleared when it
 * is added, and builders never read bytes they did not write. */
coll_sched_t *gcm_mpi_coll_new(MPI_Comm comm, const char *call, int *rc_p)
{
    struct gcm_mpi_coll_cache *c = gcm_mpi_coll_cache_of(comm);
    coll_nb_t *nb = (c != NULL) ? atomic_exchange(&c->nbspare, NULL) : NULL;

    if (nb == NULL) {
        nb = malloc(sizeof(*nb));
        if (nb == NULL) {
            *rc_p = gcm_mpi_raise(comm, MPI_ERR_NO_MEM, call,
                                  "cannot allocate a schedule");
            return NULL;
        }
        gcm_mpi_coll_sched_init(&nb->s);
        nb->req = NULL;
    }
    /* Every field after the request object, set one by one (a memset of
     * them cost as much again): but elem (its links are set when it is
     * listed, read only while listed) and key (set, and read, only for
     * a schedule kept for later calls: which >= 0, gcm_mpi_coll_nb_get). */
    atomic_init(&nb->busy, 0);
    nb->listed = 0;
    nb->parked = 0;
    nb->which = -1;
    nb->keep = 0;
    nb->installed = 0;
    atomic_init(&nb->inuse, COLL_NB_RUNNING);
    nb->seq0 = 0;
    nb->comm = comm;
    nb->cache = c;
    nb->gate = NULL;
    nb->failed = 0;
    nb->text = NULL;
    nb->held = 0;
    nb->owns = 0;
    return &nb->s;
}

coll_sched_t *gcm_mpi_coll_nb_get(MPI_Comm comm, int which,
                                  const coll_key_t *key, int *hit_p,
                                  const char *call, int *rc_p)
{
    struct gcm_mpi_coll_cache *c = comm->coll_cache;
    coll_sched_t *s;
    coll_nb_t *nb = NULL;
    int use = COLL_NB_RUNNING;

    *hit_p = 0;
    /* The installed schedule (only a call on comm, this one, takes it
     * out; a request's end only changes its inuse). */
    if (c != NULL &&
        (nb = atomic_load_explicit(&c->nbkept[which],
                                   memory_order_acquire)) != NULL) {
        use = atomic_load_explicit(&nb->inuse, memory_order_acquire);
    }
    if (use == COLL_NB_IDLE && coll_key_eq(&nb->key, key)) {
        atomic_store_explicit(&nb->inuse, COLL_NB_RUNNING,
                              memory_order_relaxed);
        coll_sched_again(&nb->s, comm);
        *hit_p = 1;
        return &nb->s;
    }
    /* What the same handles always mean, as for blocking calls. A
     * schedule a request runs stays; an idle one of other arguments is
     * replaced by a call that can keep its own, and a dead one goes. */
    if (!coll_key_keepable(comm, key) ||
        (c = gcm_mpi_coll_cache_of(comm)) == NULL) {
        if (use == COLL_NB_DEAD) {
            atomic_store_explicit(&c->nbkept[which], NULL,
                                  memory_order_relaxed);
            coll_nb_free(nb);
        }
        return gcm_mpi_coll_new(comm, call, rc_p);
    }
    if (nb != NULL && use != COLL_NB_RUNNING) {
        atomic_store_explicit(&c->nbkept[which], NULL, memory_order_relaxed);
        coll_nb_free(nb);
    }
    s = gcm_mpi_coll_new(comm, call, rc_p);
    if (s != NULL) {
        nb = gcm_container_of(s, coll_nb_t, s);
        nb->which = which;
        nb->key = *key;
        /* The arrays of a v or w call: copied (kept only so). */
        if (key->vec != NULL &&
            (nb->key.vec = gcm_mpi_coll_vec_copy(key->vec)) == NULL) {
            nb->which = -1;
        }
        nb->comm = comm;
        nb->seq0 = atomic_load_explicit(&comm->coll_seq,
                                        memory_order_relaxed);
    }
    return s;
}

/* Starts what can start of nb's schedule now, its request req just set
 * up: the transfers then overlap with whatever the caller does next (in
 * verification mode only once the check of the call has passed at every
 * member). Local either way. A schedule that ran to its end here (its
 * peers' data had come) needs no progress from other waits: it is never
 * listed, and its request is complete already (its wait or test finds it
 * so at once, without advancing the schedule again). */
static void coll_nb_go(coll_nb_t *nb, gcm_mpi_req_t *req)
{
    if (!gcm_mpi_coll_nb_advance(nb)) {
        gcm_mpi_coll_nb_list(nb);
    } else {
        coll_req_over(req, nb);
        req->complete = 1;
    }
}

/* The generic request of a built schedule (from gcm_mpi_coll_new); on
 * failure the schedule is freed and the error raised. */
static int coll_request(coll_sched_t *s, MPI_Comm comm, const char *call,
                        MPI_Request *req_p)
{
    coll_nb_t *nb = gcm_container_of(s, coll_nb_t, s);
    int rc;

    if (s->nomem != 0) {
        coll_req_cleanup(nb);
        return gcm_mpi_raise(comm, MPI_ERR_NO_MEM, call,
                             "cannot allocate the collective's schedule");
    }
    coll_nb_hold(nb, 1);
    /* The spare's own request object was set up by its first request:
     * only its life is set again (status: at its end, coll_req_over). */
    if (nb->req != NULL) {
        *req_p = gcm_mpi_req_generic_again(nb->req, comm);
    } else if ((rc = gcm_mpi_req_generic_kept(&nb->req, comm, coll_req_poll,
                                              coll_req_cleanup, nb,
                                              req_p)) != MPI_SUCCESS) {
        coll_req_cleanup(nb);
        return gcm_mpi_raise(comm, rc, call, "cannot allocate a request");
    }
    nb->req->wait = coll_req_wait;
    return MPI_SUCCESS;
}

/* Hands a built schedule (from gcm_mpi_coll_new) to a generic request, which
 * starts it. */
int gcm_mpi_coll_start(coll_sched_t *s, MPI_Comm comm, const char *call,
                       MPI_Request *request)
{
    coll_nb_t *nb = gcm_container_of(s, coll_nb_t, s);
    int rc;

    /* (A check left on comm by a call that fails here is finished by
     * the next check on comm: the other members run it.) */
    if ((rc = coll_request(s, comm, call, request)) != MPI_SUCCESS) {
        return rc;
    }
    /* Kept after its request if it can run again for a later call. */
    nb->keep = (nb->which >= 0) &&
               (nb->keep || coll_keepable(comm, s, nb->seq0));
    /* The check of this call, in verification mode (it is this call's:
     * collectives on one communicator are not called concurrently). */
    nb->gate = comm->coll_gate;
    comm->coll_gate = NULL;
    coll_nb_go(nb, gcm_mpi_req_of(*request));
    return MPI_SUCCESS;
}

/*
 * A nonblocking call of a kept collective whose arguments are those of
 * the schedule kept for its nonblocking calls (a loop of MPI_Iallreduce
 * and MPI_Wait): the schedule and the request object kept with it are
 * taken back and started in one pass, before the call's argument checks
 * (the call that built the schedule passed the same: see
 * gcm_mpi_coll_kept_same). What gcm_mpi_coll_nb_get, coll_request and
 * gcm_mpi_coll_start do, less what a kept schedule has already: it is
 * keepable (keep set), holds no handle the program may free (only
 * predefined ones: owns is 1), has no check (not in verification mode)
 * and its request object is its own, set up by coll_request at its first
 * request. Verification mode, and a call that finds no such schedule,
 * take the general path (GCM_MPI_COLL_MISS, nothing changed).
 */
int gcm_mpi_coll_nb_again(MPI_Comm comm, int which, const coll_key_t *key,
                          MPI_Request *request)
{
    struct gcm_mpi_coll_cache *c = comm->coll_cache;
    coll_nb_t *nb;
    gcm_mpi_req_t *req;

    if (c == NULL || request == NULL || gcm_mpi_coll_checking()) {
        return GCM_MPI_COLL_MISS;
    }
    nb = atomic_load_explicit(&c->nbkept[which], memory_order_acquire);
    if (nb == NULL ||
        atomic_load_explicit(&nb->inuse, memory_order_acquire) !=
            COLL_NB_IDLE ||
        !coll_key_eq(&nb->key, key)) {
        return GCM_MPI_COLL_MISS;
    }
    /* Taken. Only a call on comm takes it (this thread: MPI orders the
     * collectives on a communicator), and only such a call takes it out
     * of the slot: idle, it is this call's. It stays installed; its
     * request's end makes it idle again (coll_req_cleanup_ok). */
    atomic_store_explicit(&nb->inuse, COLL_NB_RUNNING, memory_order_relaxed);
    coll_sched_again(&nb->s, comm);
    coll_nb_hold(nb, 1);
    req = nb->req;
    *request = gcm_mpi_req_generic_again(req, comm);
    req->wait = coll_req_wait;
    /* coll_nb_go, whose check there is none of here: the schedule
     * itself. */
    if (!gcm_coll_sched_advance(&nb->s, 0)) {
        gcm_mpi_coll_nb_list(nb);
        return MPI_SUCCESS;
    }
    /* Over where it started (never listed): coll_req_over, inline for a
     * run that went well. */
    if (gcm_likely(nb->s.err == GCM_OK)) {
        coll_status_ok(&req->status);
    } else {
        coll_req_over(req, nb);
    }
    req->complete = 1;
    return MPI_SUCCESS;
}

/* ---- persistent requests -------------------------------------------------
 *
 * A persistent collective's request (mpi_coll_launch.c makes its
 * schedule): each MPI_Start runs the schedule again from its first step,
 * and completion makes the request inactive again.
 */

static int coll_req_start(gcm_mpi_req_t *req)
{
    coll_nb_t *nb = req->state;

    nb->s.next = 0;
    nb->s.pending = 0;
    nb->s.err = GCM_OK;
    gcm_mpi_status_empty(&req->status);
    req->complete = 0;
    req->active = 1;
    if (!gcm_coll_sched_advance(&nb->s, 0)) {
        gcm_mpi_coll_nb_list(nb);   /* as gcm_mpi_coll_start */
    }
    return MPI_SUCCESS;
}

int gcm_mpi_coll_persist(coll_sched_t *s, MPI_Comm comm, const char *call,
                         MPI_Request *request)
{
    MPI_Request handle;
    gcm_mpi_req_t *req;
    int rc;

    if ((rc = coll_request(s, comm, call, &handle)) != MPI_SUCCESS) {
        return rc;
    }
    req = gcm_mpi_req_of(handle);
    gcm_mpi_status_empty(&req->status);   /* a reused one's is old */
    req->persistent = 1;
    req->active = 0;
    req->start = coll_req_start;
    *request = handle;
    return MPI_SUCCESS;
}

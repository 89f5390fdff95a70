/*
 * compat/mpi_coll_rooted.c: MPI_Barrier, MPI_Bcast, MPI_Gather(v)
 * and MPI_Scatter(v), with their nonblocking and persistent forms.
 */
#include "config.h"

#include "compat/mpi_coll_impl.h"
#include "compat/mpi_req_kept.h"

#include <limits.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/* ---- the MPI functions --------------------------------------------------- */

/*
 * A barrier of two processes is one exchange of empty messages with the
 * partner (gcm_coll_barrier_is_exchange), and a linear one over 3 or 4
 * (gcm_coll_barrier_is_linear) is one such exchange with rank 0 at the
 * other ranks and, at rank 0, the arrivals then the releases
 * (gcm_lco_fan_nr): the blocking one runs them here, without a schedule,
 * its executor or a kept schedule's lookup, under the call's tag as a
 * schedule's transfers would be (so they match no other traffic).
 * Nothing is allocated: the sends keep their envelopes and connections in
 * the communicator's cache (bar_keeps), and a receive that must wait runs
 * in a record on this call's stack. Decided once per communicator, when
 * its node structure is known (it is, outside MPI_Init);
 * intercommunicators and LCO communicators (threads) take the general
 * path.
 */
enum {
    COLL_BARRIER_SCHED = -1,    /* a schedule */
    COLL_BARRIER_PAIR  = 1,     /* one exchange with the partner */
    COLL_BARRIER_FAN   = 2      /* linear, without a schedule */
};

static int coll_barrier_decide(MPI_Comm comm)
{
    struct gcm_mpi_coll_cache *c;
    const gcm_coll_hier_t *h = NULL;
    int n = comm->psize, form = COLL_BARRIER_SCHED;

    if (comm->kind == GCM_MPI_COMM_INTRA && n >= 2 && n <= GCM_LCO_FAN_MAX) {
        h = gcm_mpi_coll_hier_of(comm);
        if ((n == 2) ? gcm_coll_barrier_is_exchange(2, h) :
            gcm_coll_barrier_is_linear(n, h)) {
            form = (n == 2) ? COLL_BARRIER_PAIR : COLL_BARRIER_FAN;
        }
        if (h == NULL && gcm_coll_hier_enabled()) {
            return form;
        }
    }
    if ((c = gcm_mpi_coll_cache_of(comm)) != NULL) {
        c->barrier_form = form;
    }
    return form;
}

static inline int coll_barrier_form(MPI_Comm comm)
{
    const struct gcm_mpi_coll_cache *c = comm->coll_cache;

    if (gcm_likely(c != NULL && c->barrier_form != 0)) {
        return c->barrier_form;
    }
    return coll_barrier_decide(comm);
}

static inline int coll_barrier_is_pair(MPI_Comm comm)
{
    return coll_barrier_form(comm) == COLL_BARRIER_PAIR;
}

static int coll_barrier_direct(MPI_Comm comm, int form, const char *call)
{
    struct gcm_mpi_coll_cache *c = comm->coll_cache;
    gcm_slots_send_keep_t *keeps = (c != NULL) ? c->bar_keeps : NULL;
    /* Where the receives wait, if they must. */
    struct gcm_request recs[GCM_LCO_FAN_MAX - 1];
    int tag = gcm_mpi_coll_tag(comm);
    gcm_status_t err;

    if (form == COLL_BARRIER_FAN && comm->prank == 0) {
        err = gcm_lco_fan_nr(comm->lco, comm->psize, tag, keeps, recs);
    } else {
        err = gcm_lco_exchange_nr(comm->lco, NULL, 0, NULL, 0,
                                  (form == COLL_BARRIER_PAIR) ?
                                  1 - comm->prank : 0, tag, keeps, recs);
    }
    if (gcm_likely(err == GCM_OK)) {
        return MPI_SUCCESS;
    }
    return gcm_mpi_coll_result(comm, call, err);
}

/*
 * The nonblocking form of that exchange (MPI_Ibarrier of two processes,
 * outside verification mode): the send and the receive are posted as the
 * blocking barrier posts them, and the request keeps only what did not
 * complete then, the receive's in req->native and the send's in req->buf
 * (a generic request uses neither otherwise). Its poll and its wait
 * complete those, the send first; the first failure is the request's
 * error, with its text. A receive that must wait runs in the request
 * object's own record (req->nstore, as MPI_Irecv's: gcm_lco_irecv_rec),
 * taken or waited for before the object is released or used again.
 *
 * Its request object is kept by the communicator between calls, as a
 * kept schedule's is (gcm_mpi_req_generic_kept; req->state is the request
 * itself, for its cleanup): an Ibarrier waited at once allocates, clears
 * and frees none. A second Ibarrier while one is active finds none kept
 * and takes a fresh object; of the two, the first to end well goes back,
 * the other to the allocator, as does one that failed.
 */
static void coll_pair_fail(gcm_mpi_req_t *req, gcm_status_t err)
{
    if (err != GCM_OK && req->status.MPI_ERROR == MPI_SUCCESS) {
        req->status.MPI_ERROR = gcm_mpi_errclass(err);
        free(req->errtext);
        req->errtext = strdup(gcm_last_error());
    }
}

static int coll_pair_poll(gcm_mpi_req_t *req)
{
    gcm_request_h sreq = req->buf;

    if (sreq != GCM_REQUEST_NULL) {
        if (!gcm_lco_req_done(sreq)) {
            return 0;
        }
        req->buf = NULL;
        coll_pair_fail(req, gcm_lco_req_take(&sreq, NULL));
    }
    if (req->native != GCM_REQUEST_NULL) {
        if (!gcm_lco_req_done(req->native)) {
            return 0;
        }
        coll_pair_fail(req, gcm_lco_req_take(&req->native, NULL));
    }
    return 1;
}

static int coll_pair_wait(gcm_mpi_req_t *req)
{
    gcm_request_h sreq = req->buf;

    if (sreq != GCM_REQUEST_NULL) {
        req->buf = NULL;
        coll_pair_fail(req, gcm_lco_req_wait(&sreq, NULL));
    }
    if (req->native != GCM_REQUEST_NULL) {
        coll_pair_fail(req, gcm_lco_req_wait(&req->native, NULL));
    }
    return 1;
}

/* The release's last step (gcm_mpi_req_release_kept): the object goes
 * back to its communicator when it ended well and none is there, else
 * to the allocator. Not touched once given back. */
static inline void coll_pair_cleanup(void *state)
{
    gcm_mpi_req_t *req = state;
    struct gcm_mpi_coll_cache *c = req->comm->coll_cache;
    gcm_mpi_req_t *none = NULL;

    if (c == NULL || req->status.MPI_ERROR != MPI_SUCCESS ||
        !atomic_compare_exchange_strong(&c->pair_req, &none, req)) {
        gcm_mpi_req_free(req);
    }
}

/* MPI_Wait on it (req->kept is GCM_MPI_REQ_KEPT_PAIR): its transfers
 * waited for, its status written and the request released, its object
 * back to the communicator; the general path where it failed. */
int gcm_mpi_coll_pair_wait(gcm_mpi_req_t *req, MPI_Request *request,
                           MPI_Status *status)
{
    if (!req->complete) {
        (void)coll_pair_wait(req);
        req->complete = 1;
    }
    if (gcm_unlikely(req->status.MPI_ERROR != MPI_SUCCESS)) {
        return gcm_mpi_wait_general(req, request, status);
    }
    if (status != MPI_STATUS_IGNORE) {
        gcm_mpi_status_empty_single(status);
    }
    gcm_mpi_req_release_kept_ok(req, coll_pair_cleanup);
    return gcm_mpi_req_kept_waited(request);
}

static int coll_ibarrier_pair(MPI_Comm comm, MPI_Request *request,
                              const char *call)
{
    struct gcm_mpi_coll_cache *c = comm->coll_cache;
    gcm_request_h sreq, rreq;
    gcm_mpi_req_t *req = NULL;
    gcm_status_t err;

    if (gcm_unlikely(request == NULL)) {
        return gcm_mpi_coll_check_req(comm, call, request);
    }
    if (c != NULL) {
        req = atomic_load_explicit(&c->pair_req, memory_order_acquire);
    }
    if (req != NULL) {
        /* Taken. Only a call on comm takes it (MPI orders the collectives
         * on a communicator), and a release only puts one where there is
         * none: the slot holds req until this store. */
        atomic_store_explicit(&c->pair_req, NULL, memory_order_relaxed);
        *request = gcm_mpi_req_generic_again(req, comm);
    } else if (gcm_mpi_req_generic_kept(&req, comm, coll_pair_poll,
                                        coll_pair_cleanup, NULL,
                                        request) == MPI_SUCCESS) {
        req->state = req;
        req->kept = GCM_MPI_REQ_KEPT_PAIR;
    } else {
        return gcm_mpi_raise(comm, MPI_ERR_NO_MEM, call,
                             "cannot allocate a request");
    }
    err = gcm_lco_exchange_post(comm->lco, 1 - comm->prank,
                                gcm_mpi_coll_tag(comm),
                                (c != NULL) ? &c->bar_keeps[0] : NULL,
                                &req->nstore, &sreq, &rreq);
    coll_pair_fail(req, err);
    req->buf    = sreq;
    req->native = rreq;
    req->wait   = coll_pair_wait;
    req->complete = (sreq == GCM_REQUEST_NULL && rreq == GCM_REQUEST_NULL);
    return MPI_SUCCESS;
}

int PMPI_Barrier(MPI_Comm comm)
{
    static const char call[] = "MPI_Barrier";
    coll_sched_t s, *sp;
    coll_kept_t *k;
    coll_key_t key;
    unsigned seq0;
    int hit, form;
    int rc = gcm_mpi_coll_check_comm(comm, call);

    if (rc == MPI_SUCCESS) {
        rc = GCM_MPI_COLL_VERIFY(comm, call, .kind = GCM_MPI_COLL_BARRIER);
    }
    if (rc != MPI_SUCCESS) {
        return rc;
    }
    if ((form = coll_barrier_form(comm)) > 0) {
        return coll_barrier_direct(comm, form, call);
    }
    key  = gcm_mpi_coll_key(comm, NULL, NULL, 0, MPI_DATATYPE_NULL, MPI_OP_NULL,
                            0);
    if ((k = gcm_mpi_coll_kept_find(comm, COLL_KEPT_BARRIER, &key)) != NULL) {
        return gcm_mpi_coll_kept_run(k, comm, call);
    }
    seq0 = atomic_load_explicit(&comm->coll_seq, memory_order_relaxed);
    sp = gcm_mpi_coll_kept_get(comm, COLL_KEPT_BARRIER, &key, &s, &hit);
    if (!hit) {
        gcm_mpi_coll_build_barrier(sp, comm);
    }
    return gcm_mpi_coll_finish_kept(sp, comm, COLL_KEPT_BARRIER, hit, seq0,
                                    call);
}
GCM_MPI_ALIAS(Barrier)

/* The nonblocking and persistent forms (the blocking one keeps its
 * schedule between calls: PMPI_Barrier). */
static int coll_barrier_any(MPI_Comm comm, int mode, MPI_Info info,
                            MPI_Request *request, const char *call)
{
    coll_sched_t stack, *s;
    coll_key_t key;
    int hit = 0;
    /* (PMPI_Ibarrier checked comm.) */
    int rc = (mode == COLL_NONBLOCKING) ? MPI_SUCCESS :
             gcm_mpi_coll_check_comm(comm, call);

    if (rc == MPI_SUCCESS && mode == COLL_NONBLOCKING) {
        key = gcm_mpi_coll_key(comm, NULL, NULL, 0, MPI_DATATYPE_NULL,
                               MPI_OP_NULL, 0);
        rc = gcm_mpi_coll_nb_again(comm, COLL_KEPT_BARRIER, &key, request);
        if (rc != GCM_MPI_COLL_MISS) {
            return rc;
        }
        rc = MPI_SUCCESS;
    }
    if (rc == MPI_SUCCESS) {
        rc = gcm_mpi_coll_check_mode(comm, call, mode, info, request);
    }
    if (rc == MPI_SUCCESS) {
        rc = GCM_MPI_COLL_VERIFY(comm, call, .kind = GCM_MPI_COLL_BARRIER,
                                 COLL_VFY_MODE(mode));
    }
    if (rc != MPI_SUCCESS) {
        return rc;
    }
    if (mode == COLL_NONBLOCKING) {
        s = gcm_mpi_coll_nb_get(comm, COLL_KEPT_BARRIER, &key, &hit, call,
                                &rc);
    } else {
        s = gcm_mpi_coll_sched_for(mode, comm, call, &stack, &rc);
    }
    if (s == NULL) {
        return rc;
    }
    if (!hit) {
        gcm_mpi_coll_build_barrier(s, comm);
    }
    return gcm_mpi_coll_launch(mode, s, comm, call, request);
}

int PMPI_Ibarrier(MPI_Comm comm, MPI_Request *request)
{
    static const char call[] = "MPI_Ibarrier";
    int rc = gcm_mpi_coll_check_comm(comm, call);

    if (rc != MPI_SUCCESS) {
        return rc;
    }
    if (!gcm_mpi_coll_checking() && coll_barrier_is_pair(comm)) {
        return coll_ibarrier_pair(comm, request, call);
    }
    return coll_barrier_any(comm, COLL_NONBLOCKING, MPI_INFO_NULL, request,
                            call);
}
GCM_MPI_ALIAS(Ibarrier)

int PMPI_Barrier_init(MPI_Comm comm, MPI_Info info, MPI_Request *request)
{
    return coll_barrier_any(comm, COLL_PERSISTENT, info, request,
                            "MPI_Barrier_init");
}
GCM_MPI_ALIAS(Barrier_init)

static int coll_check_bcast(void *buffer, int count, MPI_Datatype datatype,
                            int root, MPI_Comm comm, const char *call)
{
    int rc = gcm_mpi_coll_check_comm(comm, call);

    if (rc == MPI_SUCCESS) {
        rc = gcm_mpi_coll_check_root(comm, call, root);
    }
    if (rc == MPI_SUCCESS &&
        !(gcm_mpi_coll_is_inter(comm) && root == MPI_PROC_NULL)) {
        rc = gcm_mpi_coll_check_side(comm, call, buffer, count, datatype, 0,
                                     "buffer");
    }
    return rc;
}

int PMPI_Bcast(void *buffer, int count, MPI_Datatype datatype, int root,
               MPI_Comm comm)
{
    static const char call[] = "MPI_Bcast";
    coll_sched_t s, *sp;
    coll_kept_t *k;
    coll_key_t key;
    unsigned seq0;
    int hit;
    int rc = gcm_mpi_coll_check_comm(comm, call);

    if (rc != MPI_SUCCESS) {
        return rc;
    }
    key = gcm_mpi_coll_key(comm, NULL, buffer, count, datatype, MPI_OP_NULL,
                           root);
    k = gcm_mpi_coll_kept_find(comm, COLL_KEPT_BCAST, &key);
    if (k == NULL &&
        !gcm_mpi_coll_kept_same(comm, COLL_KEPT_BCAST, COLL_BLOCKING, &key)) {
        rc = coll_check_bcast(buffer, count, datatype, root, comm, call);
    }
    if (rc == MPI_SUCCESS) {
        rc = GCM_MPI_COLL_VERIFY(comm, call, .kind = GCM_MPI_COLL_BCAST,
                                 .root = root, .scount = count,
                                 .stype = datatype);
    }
    if (rc != MPI_SUCCESS) {
        return rc;
    }
    if (k != NULL) {
        return gcm_mpi_coll_kept_run(k, comm, call);
    }
    seq0 = atomic_load_explicit(&comm->coll_seq, memory_order_relaxed);
    sp = gcm_mpi_coll_kept_get(comm, COLL_KEPT_BCAST, &key, &s, &hit);
    if (!hit) {
        gcm_mpi_coll_build_bcast(sp, buffer, count, datatype, root, comm);
    }
    return gcm_mpi_coll_finish_kept(sp, comm, COLL_KEPT_BCAST, hit, seq0, call);
}
GCM_MPI_ALIAS(Bcast)

static int coll_bcast_any(void *buffer, int count, MPI_Datatype datatype,
                          int root, MPI_Comm comm, int mode, MPI_Info info,
                          MPI_Request *request, const char *call)
{
    coll_sched_t stack, *s;
    coll_key_t key;
    int hit = 0;
    int rc = gcm_mpi_coll_check_comm(comm, call);

    if (rc != MPI_SUCCESS) {
        return rc;
    }
    key = gcm_mpi_coll_key(comm, NULL, buffer, count, datatype, MPI_OP_NULL,
                           root);
    if (mode == COLL_NONBLOCKING) {
        rc = gcm_mpi_coll_nb_again(comm, COLL_KEPT_BCAST, &key, request);
        if (rc != GCM_MPI_COLL_MISS) {
            return rc;
        }
        rc = MPI_SUCCESS;
    }
    if (!gcm_mpi_coll_kept_same(comm, COLL_KEPT_BCAST, mode, &key)) {
        rc = coll_check_bcast(buffer, count, datatype, root, comm, call);
    }
    if (rc == MPI_SUCCESS) {
        rc = gcm_mpi_coll_check_mode(comm, call, mode, info, request);
    }
    if (rc == MPI_SUCCESS) {
        rc = GCM_MPI_COLL_VERIFY(comm, call, .kind = GCM_MPI_COLL_BCAST,
                                 COLL_VFY_MODE(mode), .root = root,
                                 .scount = count, .stype = datatype);
    }
    if (rc != MPI_SUCCESS) {
        return rc;
    }
    if (mode == COLL_NONBLOCKING) {
        s = gcm_mpi_coll_nb_get(comm, COLL_KEPT_BCAST, &key, &hit, call,
                                &rc);
    } else {
        s = gcm_mpi_coll_sched_for(mode, comm, call, &stack, &rc);
    }
    if (s == NULL) {
        return rc;
    }
    if (!hit) {
        gcm_mpi_coll_build_bcast(s, buffer, count, datatype, root, comm);
    }
    return gcm_mpi_coll_launch(mode, s, comm, call, request);
}

int PMPI_Ibcast(void *buffer, int count, MPI_Datatype datatype, int root,
                MPI_Comm comm, MPI_Request *request)
{
    int rc = gcm_mpi_coll_nb_first(comm, COLL_KEPT_BCAST, NULL, buffer,
                                   count, datatype, MPI_OP_NULL, root,
                                   request);

    if (rc != GCM_MPI_COLL_MISS) {
        return rc;
    }
    return coll_bcast_any(buffer, count, datatype, root, comm,
                          COLL_NONBLOCKING, MPI_INFO_NULL, request,
                          "MPI_Ibcast");
}
GCM_MPI_ALIAS(Ibcast)

int PMPI_Bcast_init(void *buffer, int count, MPI_Datatype datatype,
                    int root, MPI_Comm comm, MPI_Info info,
                    MPI_Request *request)
{
    return coll_bcast_any(buffer, count, datatype, root, comm,
                          COLL_PERSISTENT, info, request, "MPI_Bcast_init");
}
GCM_MPI_ALIAS(Bcast_init)

/* Is this process the root (intra) or the MPI_ROOT side (inter)? And is
 * it a sending member (not the root, not MPI_PROC_NULL)? */
int gcm_mpi_coll_am_root(MPI_Comm comm, int root)
{
    return gcm_mpi_coll_is_inter(comm) ? (root == MPI_ROOT)
                                       : (comm->prank == root);
}

static int coll_am_leaf(MPI_Comm comm, int root)
{
    if (gcm_mpi_coll_is_inter(comm)) {
        return root != MPI_ROOT && root != MPI_PROC_NULL;
    }
    return comm->prank != root;
}

/* Gather, gatherv, scatter, scatterv: is_gather picks the direction;
 * (mbuf, mcount, mtype) is every process's own block (send side of a
 * gather, receive side of a scatter); (rbuf, ...) the root's layout. */
/* The key of a gather or scatter (not v) as a kept schedule is looked up
 * by: only the arguments significant here, so that those MPI ignores
 * (the root's layout at the other members of an intracommunicator, the
 * root's own block with MPI_IN_PLACE) may be anything, and are never
 * read (coll_key_keepable reads the datatypes). */
static coll_key_t coll_rooted_key(MPI_Comm comm, const void *mbuf,
                                  int mcount, MPI_Datatype mtype, void *rbuf,
                                  int rcount, MPI_Datatype rtype, int root)
{
    int layout = gcm_mpi_coll_is_inter(comm) || comm->prank == root;
    coll_key_t key;

    if (layout && mbuf == MPI_IN_PLACE) {
        mcount = 0;
        mtype = MPI_DATATYPE_NULL;
    }
    key = gcm_mpi_coll_key(comm, mbuf, NULL, mcount, mtype, MPI_OP_NULL,
                           root);
    if (layout) {
        key.rbuf = rbuf;
        key.rcount = rcount;
        key.rtype = rtype;
    }
    return key;
}

/* The arrays of a gatherv or scatterv that its schedule is built from:
 * the root's counts and displacements, at the root of an
 * intracommunicator (elsewhere MPI ignores them; an intercommunicator's
 * schedule is not kept). */
static void coll_rooted_vec(MPI_Comm comm, const int *rcounts,
                            const int *displs, int root, coll_vec_t *v)
{
    size_t len = (size_t)comm->psize * sizeof(int);

    v->n = 0;
    if (!gcm_mpi_coll_is_inter(comm) && comm->prank == root) {
        gcm_mpi_coll_vec_add(v, rcounts, len);
        gcm_mpi_coll_vec_add(v, displs, len);
    }
}

/* The checks of a gather, gatherv, scatter or scatterv (as
 * gcm_mpi_coll_rooted; l: the root's layout), after the communicator's
 * and the form's. */
static int coll_rooted_check(int is_gather, const void *mbuf, int mcount,
                             MPI_Datatype mtype, const coll_layout_t *l,
                             int is_v, int root, MPI_Comm comm,
                             const char *call)
{
    const char *mname = is_gather ? "sendbuf" : "recvbuf";
    const char *rname = is_gather ? "recvbuf" : "sendbuf";
    MPI_Datatype rtype = (MPI_Datatype)l->type;
    int rc = gcm_mpi_coll_check_root(comm, call, root), i, n;

    if (rc == MPI_SUCCESS) {
        rc = gcm_mpi_coll_no_inter_in_place(comm, call, mbuf, l->buf);
    }
    if (rc != MPI_SUCCESS) {
        return rc;
    }
    n = gcm_mpi_coll_is_inter(comm) ? comm->remote_size : comm->psize;
    if (gcm_mpi_coll_am_root(comm, root)) {
        /* The root's layout of everyone's blocks. */
        if (is_v != 0) {
            rc = gcm_mpi_coll_check_array(comm, call, l->counts, n, 1,
                                          is_gather ? "recvcounts"
                                                    : "sendcounts");
            if (rc == MPI_SUCCESS) {
                rc = gcm_mpi_coll_check_array(comm, call, l->displs, n, 0,
                                              "displs");
            }
        } else {
            rc = gcm_mpi_coll_check_count(comm, call, l->count, "count");
        }
        if (rc == MPI_SUCCESS) {
            rc = gcm_mpi_coll_check_type(comm, call, rtype, "datatype");
        }
        if (rc == MPI_SUCCESS && l->buf == MPI_IN_PLACE) {
            rc = gcm_mpi_raise(comm, MPI_ERR_BUFFER, call,
                               "MPI_IN_PLACE is not allowed as %s", rname);
        }
        for (i = 0; rc == MPI_SUCCESS && i < n; i++) {
            rc = gcm_mpi_coll_check_buf(comm, call, l->buf,
                                        gcm_mpi_coll_cnt(l, i), rtype, 0,
                                        rname);
        }
        if (mbuf == MPI_IN_PLACE) {
            return rc;
        }
    }
    /* This process's own block: at every non-root of an
     * intracommunicator, at its root unless MPI_IN_PLACE, and at the
     * non-root group of an intercommunicator. */
    if (rc == MPI_SUCCESS &&
        (gcm_mpi_coll_is_inter(comm) == 0 || coll_am_leaf(comm, root) != 0)) {
        rc = gcm_mpi_coll_check_side(comm, call, mbuf, mcount, mtype, 0, mname);
    }
    return rc;
}

int gcm_mpi_coll_rooted(int is_gather, const void *mbuf, int mcount,
                        MPI_Datatype mtype, void *rbuf, int rcount, int is_v,
                        const int *rcounts, const int *displs,
                        MPI_Datatype rtype, int root, MPI_Comm comm,
                        int mode, MPI_Info info, MPI_Request *request,
                        const char *call)
{
    coll_layout_t l = { rbuf, rcount, rcounts, displs, CT(rtype) };
    coll_sched_t stack, *s;
    coll_kept_t *k;
    coll_key_t key;
    coll_vec_t vec;
    coll_got_t g;
    int which = is_gather ? (is_v ? COLL_KEPT_GATHERV : COLL_KEPT_GATHER) :
                            (is_v ? COLL_KEPT_SCATTERV : COLL_KEPT_SCATTER);
    int rc = gcm_mpi_coll_check_comm(comm, call), check;

    if (rc != MPI_SUCCESS) {
        return rc;
    }
    key = coll_rooted_key(comm, mbuf, mcount, mtype, rbuf, rcount, rtype,
                          root);
    if (is_v != 0) {
        coll_rooted_vec(comm, rcounts, displs, root, &vec);
        key.vec = &vec;
    }
    rc = gcm_mpi_coll_lookup(comm, which, mode, &key, request, &k, &check);
    if (rc != GCM_MPI_COLL_MISS) {
        return rc;
    }
    rc = gcm_mpi_coll_check_mode(comm, call, mode, info, request);
    if (rc == MPI_SUCCESS && check) {
        rc = coll_rooted_check(is_gather, mbuf, mcount, mtype, &l, is_v, root,
                               comm, call);
    }
    if (rc == MPI_SUCCESS) {
        rc = GCM_MPI_COLL_VERIFY(comm, call,
            .kind = is_gather ? (is_v ? GCM_MPI_COLL_GATHERV :
                                        GCM_MPI_COLL_GATHER) :
                                (is_v ? GCM_MPI_COLL_SCATTERV :
                                        GCM_MPI_COLL_SCATTER),
            COLL_VFY_MODE(mode), .root = root,
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
    if (k != NULL) {
        return gcm_mpi_coll_kept_run(k, comm, call);
    }
    s = gcm_mpi_coll_get(mode, comm, which, &key, &stack, &g, call, &rc);
    if (s == NULL) {
        return rc;
    }
    if (!g.hit) {
        /* The root's own block in place: nothing of it to send or
         * receive. */
        gcm_mpi_coll_build_rooted(s, is_gather, is_v, (void *)mbuf, mcount,
                                  mtype, &l, root,
                                  gcm_mpi_coll_am_root(comm, root) &&
                                  mbuf == MPI_IN_PLACE, comm);
    }
    return gcm_mpi_coll_end(mode, s, comm, &g, call, request);
}

/* Gather, scatter and their v forms, each in its three forms. */
int PMPI_Gather(const void *sendbuf, int sendcount, MPI_Datatype sendtype,
                void *recvbuf, int recvcount, MPI_Datatype recvtype,
                int root, MPI_Comm comm)
{
    return gcm_mpi_coll_rooted(1, sendbuf, sendcount, sendtype, recvbuf,
                               recvcount, 0, NULL, NULL, recvtype, root, comm,
                               COLL_BLOCKING, MPI_INFO_NULL, NULL,
                               "MPI_Gather");
}
GCM_MPI_ALIAS(Gather)

int PMPI_Igather(const void *sendbuf, int sendcount, MPI_Datatype sendtype,
                 void *recvbuf, int recvcount, MPI_Datatype recvtype,
                 int root, MPI_Comm comm, MPI_Request *request)
{
    return gcm_mpi_coll_rooted(1, sendbuf, sendcount, sendtype, recvbuf,
                               recvcount, 0, NULL, NULL, recvtype, root, comm,
                               COLL_NONBLOCKING, MPI_INFO_NULL, request,
                               "MPI_Igather");
}
GCM_MPI_ALIAS(Igather)

int PMPI_Gather_init(const void *sendbuf, int sendcount,
                     MPI_Datatype sendtype, void *recvbuf, int recvcount,
                     MPI_Datatype recvtype, int root, MPI_Comm comm,
                     MPI_Info info, MPI_Request *request)
{
    return gcm_mpi_coll_rooted(1, sendbuf, sendcount, sendtype, recvbuf,
                               recvcount, 0, NULL, NULL, recvtype, root, comm,
                               COLL_PERSISTENT, info, request,
                               "MPI_Gather_init");
}
GCM_MPI_ALIAS(Gather_init)

int PMPI_Gatherv(const void *sendbuf, int sendcount, MPI_Datatype sendtype,
                 void *recvbuf, const int recvcounts[], const int displs[],
                 MPI_Datatype recvtype, int root, MPI_Comm comm)
{
    return gcm_mpi_coll_rooted(1, sendbuf, sendcount, sendtype, recvbuf, 0, 1,
                               recvcounts, displs, recvtype, root, comm,
                               COLL_BLOCKING, MPI_INFO_NULL, NULL,
                               "MPI_Gatherv");
}
GCM_MPI_ALIAS(Gatherv)

int PMPI_Igatherv(const void *sendbuf, int sendcount, MPI_Datatype sendtype,
                  void *recvbuf, const int recvcounts[], const int displs[],
                  MPI_Datatype recvtype, int root, MPI_Comm comm,
                  MPI_Request *request)
{
    return gcm_mpi_coll_rooted(1, sendbuf, sendcount, sendtype, recvbuf, 0, 1,
                               recvcounts, displs, recvtype, root, comm,
                               COLL_NONBLOCKING, MPI_INFO_NULL, request,
                               "MPI_Igatherv");
}
GCM_MPI_ALIAS(Igatherv)

int PMPI_Gatherv_init(const void *sendbuf, int sendcount,
                      MPI_Datatype sendtype, void *recvbuf,
                      const int recvcounts[], const int displs[],
                      MPI_Datatype recvtype, int root, MPI_Comm comm,
                      MPI_Info info, MPI_Request *request)
{
    return gcm_mpi_coll_rooted(1, sendbuf, sendcount, sendtype, recvbuf, 0, 1,
                               recvcounts, displs, recvtype, root, comm,
                               COLL_PERSISTENT, info, request,
                               "MPI_Gatherv_init");
}
GCM_MPI_ALIAS(Gatherv_init)

int PMPI_Scatter(const void *sendbuf, int sendcount, MPI_Datatype sendtype,
                 void *recvbuf, int recvcount, MPI_Datatype recvtype,
                 int root, MPI_Comm comm)
{
    return gcm_mpi_coll_rooted(0, recvbuf, recvcount, recvtype, (void *)sendbuf,
                               sendcount, 0, NULL, NULL, sendtype, root, comm,
                               COLL_BLOCKING, MPI_INFO_NULL, NULL,
                               "MPI_Scatter");
}
GCM_MPI_ALIAS(Scatter)

int PMPI_Iscatter(const void *sendbuf, int sendcount, MPI_Datatype sendtype,
                  void *recvbuf, int recvcount, MPI_Datatype recvtype,
                  int root, MPI_Comm comm, MPI_Request *request)
{
    return gcm_mpi_coll_rooted(0, recvbuf, recvcount, recvtype, (void *)sendbuf,
                               sendcount, 0, NULL, NULL, sendtype, root, comm,
                               COLL_NONBLOCKING, MPI_INFO_NULL, request,
                               "MPI_Iscatter");
}
GCM_MPI_ALIAS(Iscatter)

int PMPI_Scatter_init(const void *sendbuf, int sendcount,
                      MPI_Datatype sendtype, void *recvbuf, int recvcount,
                      MPI_Datatype recvtype, int root, MPI_Comm comm,
                      MPI_Info info, MPI_Request *request)
{
    return gcm_mpi_coll_rooted(0, recvbuf, recvcount, recvtype, (void *)sendbuf,
                               sendcount, 0, NULL, NULL, sendtype, root, comm,
                               COLL_PERSISTENT, info, request,
                               "MPI_Scatter_init");
}
GCM_MPI_ALIAS(Scatter_init)

int PMPI_Scatterv(const void *sendbuf, const int sendcounts[],
                  const int displs[], MPI_Datatype sendtype, void *recvbuf,
                  int recvcount, MPI_Datatype recvtype, int root,
                  MPI_Comm comm)
{
    return gcm_mpi_coll_rooted(0, recvbuf, recvcount, recvtype, (void *)sendbuf,
                               0, 1, sendcounts, displs, sendtype, root, comm,
                               COLL_BLOCKING, MPI_INFO_NULL, NULL,
                               "MPI_Scatterv");
}
GCM_MPI_ALIAS(Scatterv)

int PMPI_Iscatterv(const void *sendbuf, const int sendcounts[],
                   const int displs[], MPI_Datatype sendtype, void *recvbuf,
                   int recvcount, MPI_Datatype recvtype, int root,
                   MPI_Comm comm, MPI_Request *request)
{
    return gcm_mpi_coll_rooted(0, recvbuf, recvcount, recvtype, (void *)sendbuf,
                               0, 1, sendcounts, displs, sendtype, root, comm,
                               COLL_NONBLOCKING, MPI_INFO_NULL, request,
                               "MPI_Iscatterv");
}
GCM_MPI_ALIAS(Iscatterv)

int PMPI_Scatterv_init(const void *sendbuf, const int sendcounts[],
                       const int displs[], MPI_Datatype sendtype,
                       void *recvbuf, int recvcount, MPI_Datatype recvtype,
                       int root, MPI_Comm comm, MPI_Info info,
                       MPI_Request *request)
{
    return gcm_mpi_coll_rooted(0, recvbuf, recvcount, recvtype, (void *)sendbuf,
                               0, 1, sendcounts, displs, sendtype, root, comm,
                               COLL_PERSISTENT, info, request,
                               "MPI_Scatterv_init");
}
GCM_MPI_ALIAS(Scatterv_init)

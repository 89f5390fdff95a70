/*
 * compat/mpi_wait.c: completing MPI requests (MPI-3.1 sections 3.7.3-3.7.5):
 * every wait and test form, and the error each request reports.
 */
#include "config.h"

#include "compat/mpi_impl.h"
#include "compat/mpi_greq.h"
#include "compat/mpi_req_impl.h"
#include "compat/mpi_req_kept.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Why the last request this thread finished with an error failed, when
 * the request knows (a failed verification of a collective); empty: the
 * native layer's last error says. */
static __thread char gcm_mpi_req_why[MPI_MAX_ERROR_STRING / 2];

static const char *gcm_mpi_req_reason(void)
{
    return (gcm_mpi_req_why[0] != '\0') ? gcm_mpi_req_why : gcm_last_error();
}

int gcm_mpi_req_finish(gcm_mpi_req_t *req, MPI_Request *req_p,
                       MPI_Status *status)
{
    int err = (req->kind == GCM_MPI_REQ_GREQ) ? gcm_mpi_greq_finish(req) :
              req->status.MPI_ERROR;

    if (err != MPI_SUCCESS) {
        snprintf(gcm_mpi_req_why, sizeof(gcm_mpi_req_why), "%s",
                 (req->errtext != NULL) ? req->errtext : "");
    }

    gcm_mpi_status_set(status, &req->status);
    if (req->persistent) {
        req->active   = 0;
        req->complete = 0;
        free(req->errtext);
        req->errtext = NULL;
    } else {
        gcm_mpi_req_release(req);
        if (req_p != NULL) {
            *req_p = MPI_REQUEST_NULL;
        }
    }
    return err;
}

/* A request that waits and tests treat as done at once with an empty
 * status: MPI_REQUEST_NULL (NULL) or an inactive persistent request. */
static int gcm_mpi_req_is_null(const gcm_mpi_req_t *req)
{
    return (req == NULL) || (req->persistent && !req->active);
}

/* Reports a failed request through its communicator's error handler. */
static int gcm_mpi_req_error(MPI_Comm comm, int err, const char *call)
{
    if (err == MPI_SUCCESS) {
        return MPI_SUCCESS;
    }
    return gcm_mpi_raise(comm, err, call, "the request failed: %s",
                         gcm_mpi_req_reason());
}

/* Refuses a handle that is no live request: freed (a stale copy), or
 * never one. */
int gcm_mpi_req_bad(const char *call, const char *what)
{
    return gcm_mpi_raise(NULL, MPI_ERR_REQUEST, call,
                         "%s is not a valid request (freed already, or "
                         "never a request)", what);
}

/* Checks an array of handles once: after this, gcm_mpi_req_of opens
 * them. With generic not NULL, *generic becomes 1 if one of them is an
 * active generic request (a collective's schedule). */
static int gcm_mpi_check_reqs(int count, const MPI_Request reqs[],
                              const char *call, int *generic)
{
    char what[32];
    int rc, i;

    if ((rc = gcm_mpi_check_init(call)) != MPI_SUCCESS) {
        return rc;
    }
    if (count < 0) {
        return gcm_mpi_raise(NULL, MPI_ERR_COUNT, call,
                             "count %d is negative", count);
    }
    if ((count > 0) && (reqs == NULL)) {
        return gcm_mpi_raise(NULL, MPI_ERR_ARG, call,
                             "array_of_requests is NULL");
    }
    for (i = 0; i < count; i++) {
        const gcm_mpi_req_t *req;

        if (reqs[i] == MPI_REQUEST_NULL) {
            continue;
        }
        if ((req = gcm_mpi_req_get(reqs[i])) == NULL) {
            snprintf(what, sizeof(what), "request %d", i);
            return gcm_mpi_req_bad(call, what);
        }
        if ((generic != NULL) && (req->kind == GCM_MPI_REQ_GENERIC) &&
            !gcm_mpi_req_is_null(req)) {
            *generic = 1;
        }
    }
    return MPI_SUCCESS;
}

static int gcm_mpi_check_array(int count, const MPI_Request reqs[],
                               const char *call)
{
    return gcm_mpi_check_reqs(count, reqs, call, NULL);
}

int gcm_mpi_wait_general(gcm_mpi_req_t *req, MPI_Request *request,
                         MPI_Status *status)
{
    MPI_Comm comm = req->comm;
    int err;

    gcm_mpi_req_wait(req);
    err = gcm_mpi_req_finish(req, request, status);
    gcm_mpi_orphans_reap(0);
    return gcm_mpi_req_error(comm, err, "MPI_Wait");
}

/* MPI_Wait of every request that the fast path of PMPI_Wait did not
 * take. */
static GCM_NOINLINE int gcm_mpi_wait_one(MPI_Request *request,
                                         MPI_Status *status)
{
    static const char *call = "MPI_Wait";
    gcm_mpi_req_t *req;
    int err;

    /* The usual case, a live request with the layer up, in one test; the
     * checks of every other case after it. */
    if (gcm_unlikely(request == NULL || !gcm_mpi_is_up() ||
                     (req = gcm_mpi_req_get(*request)) == NULL)) {
        if (request == NULL) {
            return gcm_mpi_raise(NULL, MPI_ERR_REQUEST, call,
                                 "request is NULL");
        }
        if ((err = gcm_mpi_check_array(1, request, call)) != MPI_SUCCESS) {
            return err;
        }
        req = gcm_mpi_req_of(*request);   /* MPI_REQUEST_NULL: NULL */
    }
    if (gcm_mpi_req_is_null(req)) {
        gcm_mpi_status_empty_single(status);
        return MPI_SUCCESS;
    }
    /* A collective's request, in one pass: its schedule run, its
     * status written and the request released together. */
    if (req->kept) {
        return gcm_mpi_req_kept_wait(req, request, status);
    }
    return gcm_mpi_wait_general(req, request, status);
}

/* A nonblocking collective waited at once (its kept request the last
 * this thread handed out), its handle checked inline and the rest a tail
 * call to its one pass (gcm_mpi_req_kept_wait). Every other case takes
 * gcm_mpi_wait_one. */
int PMPI_Wait(MPI_Request *request, MPI_Status *status)
{
    gcm_mpi_req_t *req;

    if (gcm_likely(request != NULL && gcm_mpi_is_up()) &&
        (req = gcm_mpi_req_get_recent(*request)) != NULL && req->kept) {
        return gcm_mpi_req_kept_wait(req, request, status);
    }
    return gcm_mpi_wait_one(request, status);
}
GCM_MPI_ALIAS(Wait)

int PMPI_Test(MPI_Request *request, int *flag, MPI_Status *status)
{
    static const char *call = "MPI_Test";
    gcm_mpi_req_t *req;
    MPI_Comm comm;
    int err;

    if ((request == NULL) || (flag == NULL)) {
        return gcm_mpi_raise(NULL, MPI_ERR_ARG, call,
                             "request or flag is NULL");
    }
    /* As MPI_Wait: a live request with the layer up in one test (a
     * polling loop tests it over and over), every other case after. */
    if (gcm_unlikely(!gcm_mpi_is_up() ||
                     (req = gcm_mpi_req_get(*request)) == NULL)) {
        if ((err = gcm_mpi_check_array(1, request, call)) != MPI_SUCCESS) {
            return err;
        }
        req = gcm_mpi_req_of(*request);   /* MPI_REQUEST_NULL: NULL */
    }
    gcm_mpi_orphans_reap(0);
    if (gcm_mpi_req_is_null(req)) {
        *flag = 1;
        gcm_mpi_status_empty_single(status);
        return MPI_SUCCESS;
    }
    *flag = gcm_mpi_req_test(req);
    if (!*flag) {
        return MPI_SUCCESS;
    }
    comm = req->comm;
    err = gcm_mpi_req_finish(req, request, status);
    return gcm_mpi_req_error(comm, err, call);
}
GCM_MPI_ALIAS(Test)

int PMPI_Request_get_status(MPI_Request request, int *flag,
                            MPI_Status *status)
{
    static const char *call = "MPI_Request_get_status";
    gcm_mpi_req_t *req;
    int err;

    if (flag == NULL) {
        return gcm_mpi_raise(NULL, MPI_ERR_ARG, call, "flag is NULL");
    }
    if ((err = gcm_mpi_check_array(1, &request, call)) != MPI_SUCCESS) {
        return err;
    }
    req = gcm_mpi_req_of(request);
    if (gcm_mpi_req_is_null(req)) {
        *flag = 1;
        gcm_mpi_status_empty_single(status);
        return MPI_SUCCESS;
    }
    *flag = gcm_mpi_req_test(req);
    if (*flag && (req->kind == GCM_MPI_REQ_GREQ)) {
        /* Its status is what its query_fn says, each time asked. */
        err = gcm_mpi_greq_query(req, status);
        return (err == MPI_SUCCESS) ? err :
               gcm_mpi_raise(NULL, err, call, "the generalized request's "
                             "query_fn returned error code %d", err);
    }
    if (*flag) {
        gcm_mpi_status_set(status, &req->status);
    }
    return MPI_SUCCESS;
}
GCM_MPI_ALIAS(Request_get_status)

/* A send or receive of the fast path: nothing packed, no type or text
 * held, not persistent. Once its native request is done, a wait turns
 * the native status into the caller's and frees both in one step
 * (gcm_mpi_all_finish_one), with no MPI status staged in between. */
static inline int gcm_mpi_req_is_plain(const gcm_mpi_req_t *req)
{
    return ((req->kind == GCM_MPI_REQ_SEND) ||
            (req->kind == GCM_MPI_REQ_RECV)) &&
           !req->persistent && (req->tmp == NULL) &&
           (req->datatype == MPI_DATATYPE_NULL) && (req->errtext == NULL);
}

/* Is req complete? The scans of Waitall and Testall ask each round: a
 * send or receive is only looked at (its native request done), and
 * completed when it is finished; every other kind is completed here, as
 * it can only be advanced by the check itself. */
static inline int gcm_mpi_req_done_now(gcm_mpi_req_t *req)
{
    if (req->complete) {
        return 1;
    }
    if ((req->kind == GCM_MPI_REQ_SEND) || (req->kind == GCM_MPI_REQ_RECV)) {
        return gcm_lco_req_done(req->native);
    }
    return gcm_mpi_req_check(req, 0);
}

/* gcm_mpi_all_finish_one for every request but a plain one whose native
 * transfer succeeded. */
static int gcm_mpi_all_finish_checked(gcm_mpi_req_t *req, MPI_Request *req_p,
                                      MPI_Status *st)
{
    int err;

    if (req->complete && (req->comm == MPI_COMM_NULL) &&
        gcm_mpi_req_is_plain(req) && (req->status.MPI_ERROR == MPI_SUCCESS)) {
        /* A send done when posted (gcm_mpi_isend_fast): it holds nothing,
         * and its status is the empty one. */
        if (st != MPI_STATUS_IGNORE) {
            *st = req->status;
        }
        gcm_mpi_req_free(req);
        *req_p = MPI_REQUEST_NULL;
        return MPI_SUCCESS;
    }
    if (!req->complete) {
        (void)gcm_mpi_req_check(req, 0);   /* its native one is done */
    }
    err = gcm_mpi_req_finish(req, req_p, st);
    if (st != MPI_STATUS_IGNORE) {
        st->MPI_ERROR = err;
    }
    return err;
}

/* Finishes one request that gcm_mpi_req_done_now found complete, for the
 * calls with an array of statuses: status out with MPI_ERROR set,
 * request freed (or made inactive). Returns its error code. */
static inline int gcm_mpi_all_finish_one(gcm_mpi_req_t *req,
                                         MPI_Request *req_p, MPI_Status *st)
{
    gcm_msg_status_t info;
    gcm_status_t status;

    if (!req->complete && gcm_mpi_req_is_plain(req)) {
        status = gcm_lco_req_take(&req->native, &info);
        if (gcm_unlikely(status != GCM_OK)) {
            gcm_mpi_req_result(req, status, &info);
            return gcm_mpi_all_finish_checked(req, req_p, st);
        }
        if (st != MPI_STATUS_IGNORE) {
            gcm_mpi_status_native(st, req->kind, &info);
            st->MPI_ERROR = MPI_SUCCESS;
        }
        if (!req->comm->predefined) {
            gcm_mpi_comm_unref(req->comm);
        }
        gcm_mpi_req_free(req);
        *req_p = MPI_REQUEST_NULL;
        return MPI_SUCCESS;
    }
    return gcm_mpi_all_finish_checked(req, req_p, st);
}

/* Waitall and Testall once every request is complete: statuses out,
 * requests freed, MPI_ERR_IN_STATUS raised if any failed. */
static int gcm_mpi_finish_all(int count, MPI_Request reqs[],
                              MPI_Status statuses[], const char *call)
{
    MPI_Comm errcomm = NULL;
    int i, any_error = 0;

    for (i = 0; i < count; i++) {
        MPI_Status *st = (statuses != MPI_STATUSES_IGNORE) ? &statuses[i] :
                         MPI_STATUS_IGNORE;
        gcm_mpi_req_t *req = gcm_mpi_req_of(reqs[i]);
        MPI_Comm comm;

        if (gcm_mpi_req_is_null(req)) {
            gcm_mpi_status_empty(st);
            continue;
        }
        comm = req->comm;
        if (gcm_mpi_all_finish_one(req, &reqs[i], st) != MPI_SUCCESS) {
            errcomm   = comm;
            any_error = 1;
        }
    }
    if (!any_error) {
        return MPI_SUCCESS;
    }
    return gcm_mpi_raise(errcomm, MPI_ERR_IN_STATUS, call,
                         "a request failed (see its status): %s",
                         gcm_mpi_req_reason());
}

typedef struct gcm_mpi_all {
    int          count;
    MPI_Request *reqs;
    /* Every request before first is complete (or null). */
    int          first;
    /* Some request is generic: every one is polled each round. */
    int          poll_all;
    /* The LCO the wait progresses, and whether the first incomplete
     * request has been seen on another one (the wait then ends, and
     * goes on there). */
    gcm_lco_h    lco;
    int          moved;
} gcm_mpi_all_t;

/* Are all requests complete? Native requests complete in whatever order
 * their traffic comes, but the done check of each costs something, and
 * the wait calls it on every round: the check stops at the first
 * incomplete one unless a collective's schedule is among them. Those
 * advance only when polled, and one may wait for another of the same
 * process (two LCOs of one process in one collective): then every
 * request is polled. Inline in its three callers: a call of it cost a
 * dozen instructions of entry and exit, four times a wait. */
static inline __attribute__((always_inline)) int
gcm_mpi_all_scan(gcm_mpi_all_t *all)
{
    int i, done = 1;

    for (i = all->first; i < all->count; i++) {
        gcm_mpi_req_t *req = gcm_mpi_req_of(all->reqs[i]);

        if (gcm_mpi_req_is_null(req) || gcm_mpi_req_done_now(req)) {
            if (done) {
                all->first = i + 1;
            }
            continue;
        }
        done = 0;
        if (!all->poll_all) {
            break;
        }
    }
    return done;
}

/*
 * The wait's check: done once all are complete, and also once the first
 * incomplete request is on an LCO other than the one the wait progresses
 * (the caller then waits on that one). A communicator lives on its home
 * endpoint, not the calling thread's (a thread's duplicate of the world
 * is seldom on the endpoint the thread is bound to): a wait on another
 * endpoint would move its traffic only every 32nd round, through the
 * care for endpoints nobody waits on. Once true, it stays true.
 */
static int gcm_mpi_all_done_cb(void *arg)
{
    gcm_mpi_all_t *all = arg;

    if (all->moved || gcm_mpi_all_scan(all)) {
        return 1;
    }
    if (gcm_mpi_req_lco(gcm_mpi_req_of(all->reqs[all->first])) != all->lco) {
        all->moved = 1;
        return 1;
    }
    return 0;
}

int PMPI_Waitall(int count, MPI_Request reqs[], MPI_Status statuses[])
{
    static const char *call = "MPI_Waitall";
    gcm_mpi_all_t all = { count, reqs, 0, 0, NULL, 0 };
    int rc;

    if ((rc = gcm_mpi_check_reqs(count, reqs, call, &all.poll_all)) !=
        MPI_SUCCESS) {
        return rc;
    }
    while (!gcm_mpi_all_scan(&all)) {
        all.lco   = gcm_mpi_req_lco(gcm_mpi_req_of(reqs[all.first]));
        all.moved = 0;
        gcm_lco_wait_on(all.lco, gcm_mpi_all_done_cb, &all);
    }
    gcm_mpi_orphans_reap(0);
    return gcm_mpi_finish_all(count, reqs, statuses, call);
}
GCM_MPI_ALIAS(Waitall)

int PMPI_Testall(int count, MPI_Request reqs[], int *flag,
                 MPI_Status statuses[])
{
    static const char *call = "MPI_Testall";
    int rc, i;

    if ((rc = gcm_mpi_check_array(count, reqs, call)) != MPI_SUCCESS) {
        return rc;
    }
    if (flag == NULL) {
        return gcm_mpi_raise(NULL, MPI_ERR_ARG, call, "flag is NULL");
    }
    gcm_mpi_reqs_progress(count, reqs);
    for (i = 0; i < count; i++) {
        gcm_mpi_req_t *req = gcm_mpi_req_of(reqs[i]);

        if (!gcm_mpi_req_is_null(req) && !gcm_mpi_req_done_now(req)) {
            *flag = 0;
            return MPI_SUCCESS;
        }
    }
    *flag = 1;
    return gcm_mpi_finish_all(count, reqs, statuses, call);
}
GCM_MPI_ALIAS(Testall)

typedef struct gcm_mpi_any_arg {
    int          count;
    MPI_Request *reqs;
    int          index;
} gcm_mpi_any_arg_t;

static int gcm_mpi_any_done_cb(void *arg)
{
    gcm_mpi_any_arg_t *any = arg;
    int i;

    for (i = 0; i < any->count; i++) {
        gcm_mpi_req_t *req = gcm_mpi_req_of(any->reqs[i]);

        if (!gcm_mpi_req_is_null(req) && gcm_mpi_req_check_done(req)) {
            any->index = i;
            return 1;
        }
    }
    return 0;
}

/* Index of a complete active request, or -1 if none is active at all
 * (*active_p = 0) or none is complete yet. */
static int gcm_mpi_find_any(int count, MPI_Request reqs[], int wait,
                            int *active_p)
{
    gcm_mpi_any_arg_t any = { count, reqs, -1 };
    gcm_lco_h lco = NULL;
    int i;

    *active_p = 0;
    for (i = 0; i < count; i++) {
        gcm_mpi_req_t *req = gcm_mpi_req_of(reqs[i]);

        if (!gcm_mpi_req_is_null(req)) {
            if (!*active_p) {
                lco = gcm_mpi_req_lco(req);
            }
            *active_p = 1;
        }
    }
    if (!*active_p) {
        return -1;
    }
    if (gcm_mpi_any_done_cb(&any)) {
        return any.index;
    }
    /* On the first active request's endpoint; those of others on other
     * endpoints are progressed by waiters there or, with none, by this
     * wait (gcm_thr_wait's care for endpoints nobody waits on). */
    if (wait) {
        gcm_lco_wait_on(lco, gcm_mpi_any_done_cb, &any);
        return any.index;
    }
    gcm_mpi_reqs_progress(count, reqs);
    return gcm_mpi_any_done_cb(&any) ? any.index : -1;
}

static int gcm_mpi_any(int count, MPI_Request reqs[], int *index, int *flag,
                       MPI_Status *status, int wait, const char *call)
{
    gcm_mpi_req_t *req;
    MPI_Comm comm;
    int rc, i, active, err;

    if ((rc = gcm_mpi_check_array(count, reqs, call)) != MPI_SUCCESS) {
        return rc;
    }
    if ((index == NULL) || (!wait && (flag == NULL))) {
        return gcm_mpi_raise(NULL, MPI_ERR_ARG, call,
                             "index or flag is NULL");
    }
    i = gcm_mpi_find_any(count, reqs, wait, &active);
    if (!active) {
        *index = MPI_UNDEFINED;
        if (flag != NULL) {
            *flag = 1;
        }
        gcm_mpi_status_empty_single(status);
        return MPI_SUCCESS;
    }
    if (i < 0) {
        *flag = 0;
        *index = MPI_UNDEFINED;
        return MPI_SUCCESS;
    }
    if (flag != NULL) {
        *flag = 1;
    }
    *index = i;
    req = gcm_mpi_req_of(reqs[i]);
    comm = req->comm;
    err = gcm_mpi_req_finish(req, &reqs[i], status);
    return gcm_mpi_req_error(comm, err, call);
}

int PMPI_Waitany(int count, MPI_Request reqs[], int *index,
                 MPI_Status *status)
{
    return gcm_mpi_any(count, reqs, index, NULL, status, 1, "MPI_Waitany");
}
GCM_MPI_ALIAS(Waitany)

int PMPI_Testany(int count, MPI_Request reqs[], int *index, int *flag,
                 MPI_Status *status)
{
    return gcm_mpi_any(count, reqs, index, flag, status, 0, "MPI_Testany");
}
GCM_MPI_ALIAS(Testany)

static int gcm_mpi_some(int incount, MPI_Request reqs[], int *outcount,
                        int indices[], MPI_Status statuses[], int wait,
                        const char *call)
{
    MPI_Comm errcomm = NULL;
    int rc, i, n = 0, active, any_error = 0;

    if ((rc = gcm_mpi_check_array(incount, reqs, call)) != MPI_SUCCESS) {
        return rc;
    }
    if ((outcount == NULL) || ((incount > 0) && (indices == NULL))) {
        return gcm_mpi_raise(NULL, MPI_ERR_ARG, call,
                             "outcount or array_of_indices is NULL");
    }
    i = gcm_mpi_find_any(incount, reqs, wait, &active);
    if (!active) {
        *outcount = MPI_UNDEFINED;
        return MPI_SUCCESS;
    }
    if (i >= 0) {
        for (i = 0; i < incount; i++) {
            gcm_mpi_req_t *req = gcm_mpi_req_of(reqs[i]);
            MPI_Status *st;

            if (gcm_mpi_req_is_null(req) || !gcm_mpi_req_check_done(req)) {
                continue;
            }
            st = (statuses != MPI_STATUSES_IGNORE) ? &statuses[n] :
                 MPI_STATUS_IGNORE;
            if (req->status.MPI_ERROR != MPI_SUCCESS) {
                errcomm = req->comm;
            }
            any_error |= (gcm_mpi_all_finish_one(req, &reqs[i], st) !=
                          MPI_SUCCESS);
            indices[n++] = i;
        }
    }
    *outcount = n;
    if (!any_error) {
        return MPI_SUCCESS;
    }
    return gcm_mpi_raise(errcomm, MPI_ERR_IN_STATUS, call,
                         "a request failed (see its status)");
}

int PMPI_Waitsome(int incount, MPI_Request reqs[], int *outcount,
                  int indices[], MPI_Status statuses[])
{
    return gcm_mpi_some(incount, reqs, outcount, indices, statuses, 1,
                        "MPI_Waitsome");
}
GCM_MPI_ALIAS(Waitsome)

int PMPI_Testsome(int incount, MPI_Request reqs[], int *outcount,
                  int indices[], MPI_Status statuses[])
{
    return gcm_mpi_some(incount, reqs, outcount, indices, statuses, 0,
                        "MPI_Testsome");
}
GCM_MPI_ALIAS(Testsome)

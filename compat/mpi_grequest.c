/*
 * compat/mpi_grequest.c: generalized requests and the calls that set a
 * status (MPI-3.1 12.2 and 12.3).
 *
 * A generalized request is an MPI request whose operation the program
 * runs itself (often in a thread of its own) and declares done with
 * MPI_Grequest_complete, from any thread. The waits and tests of
 * mpi_request.c treat it like any other request; what is particular
 * happens through the hooks declared in mpi_impl.h:
 *
 * - completion is a flag the completing thread sets (release) and a
 *   waiter reads (acquire); the completing thread then wakes every
 *   thread asleep in a wait of the library (it cannot know which
 *   endpoint the waiter sleeps on);
 * - the call that completes it (a wait or test) asks query_fn for its
 *   status, then runs free_fn: their error code is the request's;
 *   MPI_Request_get_status asks query_fn each time and frees nothing;
 * - MPI_Request_free runs free_fn at once if the request is complete,
 *   else MPI_Grequest_complete runs it: whichever of the two comes last,
 *   decided by one atomic operation on the request's flags, so that a
 *   program may free the request in one thread while another completes
 *   it; until then the program's copy of the handle stays valid;
 * - MPI_Cancel calls cancel_fn, telling it whether the request is
 *   complete already.
 *
 * The status setters are for query functions: the number of basic
 * elements received (kept as bytes, as the library's own statuses keep
 * them, so MPI_Get_count and MPI_Get_elements read them alike) and the
 * cancel flag MPI_Test_cancelled reads.
 */
#include "config.h"

#include "compat/mpi_impl.h"
#include "compat/mpi_greq.h"

#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define GREQ_DONE  0x1   /* MPI_Grequest_complete was called */
#define GREQ_FREED 0x2   /* MPI_Request_free was called */

typedef struct gcm_mpi_greq {
    MPI_Grequest_query_function  *query_fn;
    MPI_Grequest_free_function   *free_fn;
    MPI_Grequest_cancel_function *cancel_fn;
    void                         *extra_state;
    atomic_int                    flags;
} gcm_mpi_greq_t;

static gcm_mpi_greq_t *greq_of(gcm_mpi_req_t *req)
{
    return req->state;
}

int gcm_mpi_greq_done(gcm_mpi_req_t *req)
{
    return (atomic_load_explicit(&greq_of(req)->flags,
                                 memory_order_acquire) & GREQ_DONE) != 0;
}

static void greq_set_text(gcm_mpi_req_t *req, const char *fn, int code)
{
    char text[128];

    snprintf(text, sizeof(text), "the generalized request's %s returned "
             "error code %d", fn, code);
    free(req->errtext);
    req->errtext = strdup(text);
}

int gcm_mpi_greq_query(gcm_mpi_req_t *req, MPI_Status *status)
{
    gcm_mpi_greq_t *g = greq_of(req);
    MPI_Status dummy;

    /* query_fn always gets a status to fill, even when the caller
     * ignores it (MPI-3.1 12.2). */
    if (status == MPI_STATUS_IGNORE) {
        status = &dummy;
    }
    gcm_mpi_status_empty(status);
    return g->query_fn(g->extra_state, status);
}

/* Runs free_fn (once: the caller is the one that decided to free). */
static int greq_run_free(gcm_mpi_req_t *req)
{
    gcm_mpi_greq_t *g = greq_of(req);

    return g->free_fn(g->extra_state);
}

int gcm_mpi_greq_finish(gcm_mpi_req_t *req)
{
    int err = gcm_mpi_greq_query(req, &req->status);
    int ferr;

    if (err != MPI_SUCCESS) {
        greq_set_text(req, "query_fn", err);
    }
    ferr = greq_run_free(req);
    if (err == MPI_SUCCESS && ferr != MPI_SUCCESS) {
        greq_set_text(req, "free_fn", ferr);
        err = ferr;
    }
    req->status.MPI_ERROR = err;
    return err;
}

int gcm_mpi_greq_cancel(gcm_mpi_req_t *req)
{
    gcm_mpi_greq_t *g = greq_of(req);

    return g->cancel_fn(g->extra_state, gcm_mpi_greq_done(req));
}

int gcm_mpi_greq_request_free(gcm_mpi_req_t *req)
{
    int old = atomic_fetch_or_explicit(&greq_of(req)->flags, GREQ_FREED,
                                       memory_order_acq_rel);
    int rc;

    if ((old & GREQ_DONE) == 0) {
        return MPI_SUCCESS;   /* MPI_Grequest_complete frees it */
    }
    rc = greq_run_free(req);
    gcm_mpi_req_release(req);
    return rc;
}

int PMPI_Grequest_start(MPI_Grequest_query_function *query_fn,
                        MPI_Grequest_free_function *free_fn,
                        MPI_Grequest_cancel_function *cancel_fn,
                        void *extra_state, MPI_Request *request)
{
    static const char call[] = "MPI_Grequest_start";
    gcm_mpi_greq_t *g;
    gcm_mpi_req_t *req;
    int rc;

    if ((rc = gcm_mpi_check_init(call)) != MPI_SUCCESS) {
        return rc;
    }
    if ((query_fn == NULL) || (free_fn == NULL) || (cancel_fn == NULL)) {
        return gcm_mpi_raise(NULL, MPI_ERR_ARG, call,
                             "query_fn, free_fn or cancel_fn is NULL");
    }
    if (request == NULL) {
        return gcm_mpi_raise(NULL, MPI_ERR_ARG, call, "request is NULL");
    }
    g = malloc(sizeof(*g));
    req = (g != NULL) ? gcm_mpi_req_alloc() : NULL;
    if (req == NULL) {
        free(g);
        return gcm_mpi_raise(NULL, MPI_ERR_NO_MEM, call, "out of memory");
    }
    g->query_fn    = query_fn;
    g->free_fn     = free_fn;
    g->cancel_fn   = cancel_fn;
    g->extra_state = extra_state;
    atomic_init(&g->flags, 0);
    /* No communicator: its waits progress the waiting thread's
     * endpoint, and errors go to MPI_COMM_WORLD's handler. */
    req->magic   = GCM_MPI_MAGIC_REQ;
    req->kind    = GCM_MPI_REQ_GREQ;
    req->active  = 1;
    req->state   = g;
    req->cleanup = free;
    gcm_mpi_status_empty(&req->status);
    *request = gcm_mpi_req_handle(req);
    return MPI_SUCCESS;
}
GCM_MPI_ALIAS(Grequest_start)

int PMPI_Grequest_complete(MPI_Request request)
{
    static const char call[] = "MPI_Grequest_complete";
    gcm_mpi_req_t *req = gcm_mpi_req_get(request);
    int old, rc;

    if ((req == NULL) || (req->kind != GCM_MPI_REQ_GREQ)) {
        return gcm_mpi_raise(NULL, MPI_ERR_REQUEST, call,
                             "not a generalized request (freed, or never "
                             "one)");
    }
    old = atomic_fetch_or_explicit(&greq_of(req)->flags, GREQ_DONE,
                                   memory_order_acq_rel);
    if ((old & GREQ_DONE) != 0) {
        return gcm_mpi_raise(NULL, MPI_ERR_REQUEST, call,
                             "the request was completed before");
    }
    if ((old & GREQ_FREED) != 0) {
        /* Freed by the program already: it is ours to free now. */
        rc = greq_run_free(req);
        gcm_mpi_req_release(req);
        return (rc == MPI_SUCCESS) ? rc :
               gcm_mpi_raise(NULL, rc, call, "the generalized request's "
                             "free_fn returned error code %d", rc);
    }
    /* The owner may free the request as soon as it sees it done: it is
     * not touched after the flag. */
    gcm_lco_wake_waiters();
    return MPI_SUCCESS;
}
GCM_MPI_ALIAS(Grequest_complete)

/* ---- setting a status ---------------------------------------------------- */

/* Basic elements in the first bytes of packed data of datatype. */
static MPI_Count elements_in(MPI_Datatype datatype, MPI_Count bytes)
{
    MPI_Status st;
    MPI_Count n = 0;

    st.gcm_count = bytes;
    (void)PMPI_Get_elements_x(&st, datatype, &n);
    return n;
}

/*
 * The bytes that hold count basic elements of datatype (MPI_Get_elements
 * counts basic elements, so that is what count means: MPI-3.1 12.3):
 * whole elements of the datatype, then the shortest part of one more
 * that holds the rest, found by bisection over its bytes.
 */
static MPI_Count elements_bytes(MPI_Datatype datatype, MPI_Count count)
{
    MPI_Count size = gcm_mpi_type_size(datatype), per = 0, rest, lo, hi;

    (void)gcm_mpi_type_sig(datatype, 1, &per);
    if (size == 0 || per == 0) {
        return 0;
    }
    rest = count % per;
    lo = 0;
    hi = size;   /* elements_in(size) == per > rest */
    while (lo < hi) {
        MPI_Count mid = lo + (hi - lo) / 2;

        if (elements_in(datatype, mid) >= rest) {
            hi = mid;
        } else {
            lo = mid + 1;
        }
    }
    return (count / per) * size + lo;
}

static int status_set_elements(MPI_Status *status, MPI_Datatype datatype,
                               MPI_Count count, const char *call)
{
    MPI_Count size, per = 0;

    if (status == MPI_STATUS_IGNORE) {
        return gcm_mpi_raise(NULL, MPI_ERR_ARG, call, "status is NULL");
    }
    if (gcm_mpi_type_check(datatype) != MPI_SUCCESS) {
        return gcm_mpi_raise(NULL, MPI_ERR_TYPE, call,
                             "invalid datatype (MPI_DATATYPE_NULL, freed, "
                             "or not committed)");
    }
    if (count < 0) {
        return gcm_mpi_raise(NULL, MPI_ERR_COUNT, call,
                             "count %lld is negative", (long long)count);
    }
    size = gcm_mpi_type_size(datatype);
    (void)gcm_mpi_type_sig(datatype, 1, &per);
    if ((per > 0) && (size > 0) && (count / per + 1 > INT64_MAX / size)) {
        return gcm_mpi_raise(NULL, MPI_ERR_COUNT, call,
                             "%lld basic elements overflow MPI_Count bytes",
                             (long long)count);
    }
    status->gcm_count = elements_bytes(datatype, count);
    return MPI_SUCCESS;
}

int PMPI_Status_set_elements(MPI_Status *status, MPI_Datatype datatype,
                             int count)
{
    return status_set_elements(status, datatype, count,
                               "MPI_Status_set_elements");
}
GCM_MPI_ALIAS(Status_set_elements)

int PMPI_Status_set_elements_x(MPI_Status *status, MPI_Datatype datatype,
                               MPI_Count count)
{
    return status_set_elements(status, datatype, count,
                               "MPI_Status_set_elements_x");
}
GCM_MPI_ALIAS(Status_set_elements_x)

int PMPI_Status_set_cancelled(MPI_Status *status, int flag)
{
    if (status == MPI_STATUS_IGNORE) {
        return gcm_mpi_raise(NULL, MPI_ERR_ARG, "MPI_Status_set_cancelled",
                             "status is NULL");
    }
    status->gcm_cancelled = (flag != 0);
    return MPI_SUCCESS;
}
GCM_MPI_ALIAS(Status_set_cancelled)

/*
 * compat/mpi_request.c: MPI requests and their completion (MPI-3.1
 * sections 3.7.3-3.7.5, 3.8.4, 3.9): wait and test in all their forms,
 * cancel, free, and the generic requests nonblocking collectives use.
 *
 * An MPI request wraps a native request (gcm_request_h) or a schedule that
 * a poll function advances. Waiting sleeps like gcm_wait: it progresses
 * the endpoint the request's communicator lives on (so that threads on
 * communicators of different endpoints never share a lock), spinning
 * briefly and then blocking on its event file descriptor, so that
 * oversubscribed runs do not burn cores.
 */
#include "config.h"

#include "compat/mpi_impl.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Requests freed with MPI_Request_free while still running: completed
 * (and really freed) whenever requests are tested, and at MPI_Finalize. */
static struct {
    pthread_mutex_t lock;
    gcm_mpi_req_t **reqs;
    int             n;
    int             cap;
} gcm_mpi_orphans = { PTHREAD_MUTEX_INITIALIZER, NULL, 0, 0 };

void gcm_mpi_status_empty(MPI_Status *status)
{
    if (status != MPI_STATUS_IGNORE) {
        status->MPI_SOURCE    = MPI_ANY_SOURCE;
        status->MPI_TAG       = MPI_ANY_TAG;
        status->MPI_ERROR     = MPI_SUCCESS;
        status->gcm_cancelled = 0;
        status->gcm_count     = 0;
    }
}

void gcm_mpi_status_set(MPI_Status *status, const MPI_Status *src)
{
    int err;

    if (status != MPI_STATUS_IGNORE) {
        err = status->MPI_ERROR;
        *status = *src;
        status->MPI_ERROR = err;
    }
}

/* The empty status of a single-completion call (MPI_ERROR left alone). */
static void gcm_mpi_status_empty_single(MPI_Status *status)
{
    MPI_Status empty;

    gcm_mpi_status_empty(&empty);
    gcm_mpi_status_set(status, &empty);
}

/*
 * Request objects live in memory that stays request memory for ever
 * (util/util_handle.c), recycled through a small per-thread cache, as the
 * native requests are (slots/slot_request.c): a window of nonblocking
 * calls then touches no shared state, and threads do not meet in an
 * allocator. What a cache cannot hold goes to one shared list; a thread's
 * cache goes there when the thread exits, the finalizing thread's at
 * MPI_Finalize. A freed object has its magic cleared and its generation
 * bumped, so that a stale handle to it, or to whatever reuses it, reads
 * as no request. A cache holds up to 256 (42 KiB): a window of 64 sends
 * and 64 receives in flight, as benchmarks and halo exchanges keep,
 * overflowed a cache of 64 for half its requests.
 */
#define GCM_MPI_REQ_CACHE_MAX 256
/* Request objects start on these lines (gcm_handle_alloc_stable). */
#define GCM_MPI_REQ_ALIGN     64

static __thread gcm_mpi_req_t *gcm_mpi_req_cache GCM_TLS_HOT;
static __thread int gcm_mpi_req_cache_len GCM_TLS_HOT;
static pthread_key_t gcm_mpi_req_cache_key;
static pthread_once_t gcm_mpi_req_cache_once = PTHREAD_ONCE_INIT;

static gcm_handle_pool_t gcm_mpi_req_spare =
    GCM_HANDLE_POOL_INIT(struct gcm_mpi_request, next_free);

/* Not a constant to the compiler: see gcm_mpi_req_alloc. */
static volatile size_t gcm_mpi_req_size = sizeof(struct gcm_mpi_request);

static void gcm_mpi_req_cache_drain(void *unused)
{
    (void)unused;
    gcm_handle_pool_put(&gcm_mpi_req_spare, gcm_mpi_req_cache);
    gcm_mpi_req_cache = NULL;
    gcm_mpi_req_cache_len = 0;
}

static void gcm_mpi_req_cache_key_create(void)
{
    (void)pthread_key_create(&gcm_mpi_req_cache_key, gcm_mpi_req_cache_drain);
}

void gcm_mpi_req_cache_flush(void)
{
    gcm_mpi_req_cache_drain(NULL);
}

gcm_mpi_req_t *gcm_mpi_req_alloc(void)
{
    gcm_mpi_req_t *req = gcm_mpi_req_cache;
    uint16_t gen;

    if (req != NULL) {
        gcm_mpi_req_cache = req->next_free;
        gcm_mpi_req_cache_len--;
    } else {
        req = gcm_handle_pool_get(&gcm_mpi_req_spare);
        if (req == NULL) {
            return NULL;
        }
    }
    /* memset with a size the compiler cannot see: with the constant it
     * turned the set into calls of the allocator's calloc path before
     * (a tenth of an 8-byte MPI_Sendrecv). */
    gen = req->gen;
    memset(req, 0, gcm_mpi_req_size);
    req->gen = gen;
    return req;
}

/* The user's handle dies: a stale copy of it (and its Fortran integer)
 * no longer names the request. */
static void gcm_mpi_req_kill_handle(gcm_mpi_req_t *req)
{
    if (req->has_fint) {
        gcm_mpi_fint_forget((const void *)gcm_mpi_req_handle(req));
        req->has_fint = 0;
    }
    req->gen++;
}

void gcm_mpi_req_free(gcm_mpi_req_t *req)
{
    /* Stale handles to it (and to whatever reuses it) are refused from
     * now on. */
    req->magic = 0;
    gcm_mpi_req_kill_handle(req);
    if (gcm_mpi_req_cache_len >= GCM_MPI_REQ_CACHE_MAX) {
        req->next_free = NULL;
        gcm_handle_pool_put(&gcm_mpi_req_spare, req);
        return;
    }
    if (gcm_mpi_req_cache_len == 0) {
        /* Registers the exit destructor for this thread's cache. */
        pthread_once(&gcm_mpi_req_cache_once, gcm_mpi_req_cache_key_create);
        (void)pthread_setspecific(gcm_mpi_req_cache_key, &gcm_mpi_req_cache);
    }
    req->next_free = gcm_mpi_req_cache;
    gcm_mpi_req_cache = req;
    gcm_mpi_req_cache_len++;
}

gcm_mpi_req_t *gcm_mpi_req_get(MPI_Request handle)
{
    gcm_mpi_req_t *req = gcm_mpi_req_of(handle);

    if ((handle == MPI_REQUEST_NULL) ||
        !gcm_handle_is_stable(req, GCM_MPI_REQ_ALIGN)) {
        return NULL;
    }
    if ((req->magic != GCM_MPI_MAGIC_REQ) ||
        (req->gen != gcm_handle_gen((uintptr_t)handle))) {
        return NULL;
    }
    return req;
}

int gcm_mpi_req_generic(MPI_Comm comm, gcm_mpi_req_poll_func_t poll,
                        void (*cleanup)(void *state), void *state,
                        MPI_Request *req_p)
{
    gcm_mpi_req_t *req = gcm_mpi_req_alloc();

    if (req == NULL) {
        return MPI_ERR_NO_MEM;
    }
    gcm_mpi_comm_ref(comm);
    req->magic   = GCM_MPI_MAGIC_REQ;
    req->kind    = (poll != NULL) ? GCM_MPI_REQ_GENERIC : GCM_MPI_REQ_DONE;
    req->active  = 1;
    req->comm    = comm;
    req->poll    = poll;
    req->cleanup = cleanup;
    req->state   = state;
    gcm_mpi_status_empty(&req->status);
    req->complete = (poll == NULL);
    *req_p = gcm_mpi_req_handle(req);
    return MPI_SUCCESS;
}

/* Progresses the endpoint of each active request's communicator once
 * (requests on one communicator usually come together). A communicator's
 * traffic is progressed on the endpoint its LCO lives on, which for a
 * thread LCO of MPIX_Comm_create_threads need not be the calling
 * thread's. */
static void gcm_mpi_reqs_progress(int count, MPI_Request reqs[])
{
    MPI_Comm last = NULL;
    int i;

    for (i = 0; i < count; i++) {
        gcm_mpi_req_t *req = gcm_mpi_req_of(reqs[i]);

        if ((req != NULL) && !req->complete &&
            (!req->persistent || req->active) && (req->comm != last)) {
            last = req->comm;
            gcm_lco_progress((last != NULL) ? last->lco : NULL);
        }
    }
    if (last == NULL) {
        gcm_progress();
    }
}

/* Turns a finished native request into the MPI status. */
static void gcm_mpi_req_complete_native(gcm_mpi_req_t *req)
{
    gcm_msg_status_t info;
    gcm_status_t status;

    status = gcm_wait(&req->native, &info);
    req->status.MPI_ERROR     = gcm_mpi_errclass(status);
    req->status.gcm_cancelled = (status == GCM_ERR_CANCELED);
    if (req->status.MPI_ERROR != MPI_SUCCESS) {
        /* The reason goes with the request: it may complete long before
         * the call that reports it (a send done once posted), and other
         * calls in between set the thread's last error. Without memory
         * the last error is reported, as before. */
        free(req->errtext);
        req->errtext = strdup(gcm_last_error());
    }
    if (req->kind == GCM_MPI_REQ_RECV) {
        req->status.MPI_SOURCE = info.slot;
        req->status.MPI_TAG    = info.tag;
        req->status.gcm_count  = (MPI_Count)info.count;
        if ((req->tmp != NULL) && (status != GCM_ERR_CANCELED)) {
            gcm_mpi_type_unpack(req->datatype, req->count, req->tmp,
                                info.count, req->buf);
        }
    } else {
        req->status.MPI_SOURCE = MPI_ANY_SOURCE;
        req->status.MPI_TAG    = MPI_ANY_TAG;
        req->status.gcm_count  = 0;
    }
    if (req->tmp != NULL) {
        free(req->tmp);
        req->tmp = NULL;
    }
    req->complete = 1;
}

/* The LCO whose endpoint advances req (NULL: the thread's endpoint). */
static gcm_lco_h gcm_mpi_req_lco(const gcm_mpi_req_t *req)
{
    return (req->comm != NULL) ? req->comm->lco : NULL;
}

/* Completes req if it can without blocking; progress: also advance its
 * endpoint once first. */
static int gcm_mpi_req_check(gcm_mpi_req_t *req, int progress)
{
    if (req->complete) {
        return 1;
    }
    switch (req->kind) {
    case GCM_MPI_REQ_SEND:
    case GCM_MPI_REQ_RECV:
        /* A wait looks at it on every round: one look when nothing is
         * progressed. */
        if (!gcm_lco_req_done(req->native)) {
            if (!progress) {
                break;
            }
            gcm_lco_progress(gcm_mpi_req_lco(req));
            if (!gcm_lco_req_done(req->native)) {
                break;
            }
        }
        gcm_mpi_req_complete_native(req);
        break;
    case GCM_MPI_REQ_GREQ:
        /* Completed by the program (MPI_Grequest_complete), from any
         * thread: nothing of the library's moves it. */
        req->complete = gcm_mpi_greq_done(req);
        break;
    case GCM_MPI_REQ_GENERIC:
        if (req->poll(req)) {
            req->complete = 1;
        } else if (progress) {
            gcm_lco_progress(gcm_mpi_req_lco(req));
            if (req->poll(req)) {
                req->complete = 1;
            }
        }
        break;
    default:
        req->complete = 1;
        break;
    }
    return req->complete;
}

int gcm_mpi_req_test(gcm_mpi_req_t *req)
{
    return gcm_mpi_req_check(req, 1);
}

int gcm_mpi_req_check_now(gcm_mpi_req_t *req)
{
    return gcm_mpi_req_check(req, 0);
}

static int gcm_mpi_req_done_cb(void *arg)
{
    return gcm_mpi_req_check(arg, 0);
}

void gcm_mpi_req_wait(gcm_mpi_req_t *req)
{
    if (!gcm_mpi_req_check(req, 0)) {
        gcm_lco_wait_on(gcm_mpi_req_lco(req), gcm_mpi_req_done_cb, req);
    }
}

void gcm_mpi_req_release(gcm_mpi_req_t *req)
{
    free(req->errtext);
    if (req->cleanup != NULL) {
        req->cleanup(req->state);
    }
    free(req->tmp);
    if (req->datatype != MPI_DATATYPE_NULL) {
        gcm_mpi_type_release(req->datatype);
    }
    gcm_mpi_comm_unref(req->comm);
    gcm_mpi_req_free(req);
}

/* Reaps orphaned requests that have completed. */
static void gcm_mpi_orphans_reap(int wait)
{
    int i;

    if (atomic_load_explicit((_Atomic int *)&gcm_mpi_orphans.n,
                             memory_order_relaxed) == 0) {
        return;   /* a stale zero only delays the reaping to a later call */
    }
    pthread_mutex_lock(&gcm_mpi_orphans.lock);
    for (i = 0; i < gcm_mpi_orphans.n;) {
        gcm_mpi_req_t *req = gcm_mpi_orphans.reqs[i];

        if (wait && (req->kind == GCM_MPI_REQ_RECV) && !req->complete) {
            /* At MPI_Finalize a receive nobody will match must not hang
             * the job. */
            gcm_lco_cancel(req->native);
        }
        if (wait) {
            gcm_mpi_req_wait(req);
        }
        if (gcm_mpi_req_check(req, 0)) {
            gcm_mpi_req_release(req);
            gcm_mpi_orphans.reqs[i] =
                gcm_mpi_orphans.reqs[--gcm_mpi_orphans.n];
        } else {
            i++;
        }
    }
    pthread_mutex_unlock(&gcm_mpi_orphans.lock);
}

void gcm_mpi_requests_finalize(void)
{
    gcm_mpi_orphans_reap(1);
    free(gcm_mpi_orphans.reqs);
    gcm_mpi_orphans.reqs = NULL;
    gcm_mpi_orphans.cap  = 0;
}

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

/* gcm_mpi_req_finish for the calls with an array of statuses, which set
 * MPI_ERROR in each (they may return MPI_ERR_IN_STATUS). Nonzero if the
 * request failed. */
static int gcm_mpi_req_finish_multi(gcm_mpi_req_t *req, MPI_Request *req_p,
                                    MPI_Status *status)
{
    int err = gcm_mpi_req_finish(req, req_p, status);

    if (status != MPI_STATUS_IGNORE) {
        status->MPI_ERROR = err;
    }
    return err != MPI_SUCCESS;
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
static int gcm_mpi_req_bad(const char *call, const char *what)
{
    return gcm_mpi_raise(NULL, MPI_ERR_REQUEST, call,
                         "%s is not a valid request (freed already, or "
                         "never a request)", what);
}

/* Checks an array of handles once: after this, gcm_mpi_req_of opens
 * them. */
static int gcm_mpi_check_array(int count, const MPI_Request reqs[],
                               const char *call)
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
        if ((reqs[i] != MPI_REQUEST_NULL) &&
            (gcm_mpi_req_get(reqs[i]) == NULL)) {
            snprintf(what, sizeof(what), "request %d", i);
            return gcm_mpi_req_bad(call, what);
        }
    }
    return MPI_SUCCESS;
}

int PMPI_Wait(MPI_Request *request, MPI_Status *status)
{
    static const char *call = "MPI_Wait";
    gcm_mpi_req_t *req;
    MPI_Comm comm;
    int err;

    if (request == NULL) {
        return gcm_mpi_raise(NULL, MPI_ERR_REQUEST, call, "request is NULL");
    }
    if ((err = gcm_mpi_check_array(1, request, call)) != MPI_SUCCESS) {
        return err;
    }
    req = gcm_mpi_req_of(*request);
    if (gcm_mpi_req_is_null(req)) {
        gcm_mpi_status_empty_single(status);
        return MPI_SUCCESS;
    }
    comm = req->comm;
    gcm_mpi_req_wait(req);
    err = gcm_mpi_req_finish(req, request, status);
    gcm_mpi_orphans_reap(0);
    return gcm_mpi_req_error(comm, err, call);
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
    if ((err = gcm_mpi_check_array(1, request, call)) != MPI_SUCCESS) {
        return err;
    }
    gcm_mpi_orphans_reap(0);
    req = gcm_mpi_req_of(*request);
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

        if (gcm_mpi_req_is_null(req)) {
            gcm_mpi_status_empty(st);
            continue;
        }
        if (req->status.MPI_ERROR != MPI_SUCCESS) {
            errcomm = req->comm;
        }
        any_error |= gcm_mpi_req_finish_multi(req, &reqs[i], st);
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
 * request is polled. */
static int gcm_mpi_all_scan(gcm_mpi_all_t *all)
{
    int i, done = 1;

    for (i = all->first; i < all->count; i++) {
        gcm_mpi_req_t *req = gcm_mpi_req_of(all->reqs[i]);

        if (gcm_mpi_req_is_null(req) || gcm_mpi_req_check(req, 0)) {
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
    int rc, i;

    if ((rc = gcm_mpi_check_array(count, reqs, call)) != MPI_SUCCESS) {
        return rc;
    }
    for (i = 0; i < count; i++) {
        gcm_mpi_req_t *req = gcm_mpi_req_of(reqs[i]);

        if (!gcm_mpi_req_is_null(req) && (req->kind == GCM_MPI_REQ_GENERIC)) {
            all.poll_all = 1;
        }
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

        if (!gcm_mpi_req_is_null(req) && !gcm_mpi_req_check(req, 0)) {
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

        if (!gcm_mpi_req_is_null(req) && gcm_mpi_req_check(req, 0)) {
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

            if (gcm_mpi_req_is_null(req) || !gcm_mpi_req_check(req, 0)) {
                continue;
            }
            st = (statuses != MPI_STATUSES_IGNORE) ? &statuses[n] :
                 MPI_STATUS_IGNORE;
            if (req->status.MPI_ERROR != MPI_SUCCESS) {
                errcomm = req->comm;
            }
            any_error |= gcm_mpi_req_finish_multi(req, &reqs[i], st);
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

int PMPI_Cancel(MPI_Request *request)
{
    static const char *call = "MPI_Cancel";
    gcm_mpi_req_t *req;
    int rc;

    if ((rc = gcm_mpi_check_init(call)) != MPI_SUCCESS) {
        return rc;
    }
    if ((request == NULL) || ((req = gcm_mpi_req_get(*request)) == NULL)) {
        return gcm_mpi_req_bad(call, "the request");
    }
    if (req->persistent && !req->active) {
        return gcm_mpi_raise(req->comm, MPI_ERR_REQUEST, call,
                             "the persistent request is not active");
    }
    if (req->kind == GCM_MPI_REQ_GENERIC && req->persistent) {
        return gcm_mpi_raise(req->comm, MPI_ERR_REQUEST, call,
                             "a persistent collective cannot be cancelled "
                             "(MPI-4.0 6.13)");
    }
    if (req->kind == GCM_MPI_REQ_GREQ) {
        rc = gcm_mpi_greq_cancel(req);
        return (rc == MPI_SUCCESS) ? rc :
               gcm_mpi_raise(NULL, rc, call, "the generalized request's "
                             "cancel_fn returned error code %d", rc);
    }
    /* Receives not yet matched are cancelled; anything else (a send, a
     * matched receive, a collective) completes normally, which the
     * standard allows: MPI_Test_cancelled then says false. */
    if ((req->kind == GCM_MPI_REQ_RECV) && !req->complete &&
        (req->native != GCM_REQUEST_NULL)) {
        gcm_lco_cancel(req->native);
    }
    return MPI_SUCCESS;
}
GCM_MPI_ALIAS(Cancel)

int PMPI_Request_free(MPI_Request *request)
{
    static const char *call = "MPI_Request_free";
    gcm_mpi_req_t *req;
    gcm_mpi_req_t **grown;
    int rc;

    if ((rc = gcm_mpi_check_init(call)) != MPI_SUCCESS) {
        return rc;
    }
    if ((request == NULL) || ((req = gcm_mpi_req_get(*request)) == NULL)) {
        return gcm_mpi_req_bad(call, "the request");
    }
    if (req->kind == GCM_MPI_REQ_GENERIC && req->persistent &&
        req->active) {
        /* Its schedule runs on buffers the program is about to reuse. */
        return gcm_mpi_raise(req->comm, MPI_ERR_REQUEST, call,
                             "an active persistent collective cannot be "
                             "freed: complete it first (MPI-4.0 6.13)");
    }
    *request = MPI_REQUEST_NULL;
    if (req->kind == GCM_MPI_REQ_GREQ) {
        rc = gcm_mpi_greq_request_free(req);
        return (rc == MPI_SUCCESS) ? rc :
               gcm_mpi_raise(NULL, rc, call, "the generalized request's "
                             "free_fn returned error code %d", rc);
    }
    if ((req->persistent && !req->active) || gcm_mpi_req_check(req, 0)) {
        gcm_mpi_req_release(req);
        return MPI_SUCCESS;
    }
    /* Still running: it completes on its own and is freed then. Its
     * handle is dead already: the generation moves on now. */
    req->persistent = 0;
    req->freed      = 1;
    gcm_mpi_req_kill_handle(req);
    pthread_mutex_lock(&gcm_mpi_orphans.lock);
    if (gcm_mpi_orphans.n == gcm_mpi_orphans.cap) {
        int cap = (gcm_mpi_orphans.cap > 0) ? 2 * gcm_mpi_orphans.cap : 16;

        grown = realloc(gcm_mpi_orphans.reqs, (size_t)cap * sizeof(*grown));
        if (grown == NULL) {
            pthread_mutex_unlock(&gcm_mpi_orphans.lock);
            gcm_mpi_req_wait(req);
            gcm_mpi_req_release(req);
            return MPI_SUCCESS;
        }
        gcm_mpi_orphans.reqs = grown;
        gcm_mpi_orphans.cap  = cap;
    }
    gcm_mpi_orphans.reqs[gcm_mpi_orphans.n++] = req;
    pthread_mutex_unlock(&gcm_mpi_orphans.lock);
    return MPI_SUCCESS;
}
GCM_MPI_ALIAS(Request_free)

int PMPI_Test_cancelled(const MPI_Status *status, int *flag)
{
    if ((status == NULL) || (flag == NULL)) {
        return gcm_mpi_raise(NULL, MPI_ERR_ARG, "MPI_Test_cancelled",
                             "status or flag is NULL");
    }
    *flag = status->gcm_cancelled;
    return MPI_SUCCESS;
}
GCM_MPI_ALIAS(Test_cancelled)

/*
 * compat/mpi_request.c: MPI request objects (MPI-3.1 sections 3.7.3,
 * 3.8.4, 3.9): allocation, completion of one request, cancel, free, and
 * the generic requests nonblocking collectives use; mpi_wait.c has the
 * wait and test calls.
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
#include "compat/mpi_greq.h"
#include "compat/mpi_req_impl.h"
#include "compat/mpi_req_kept.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Requests freed with MPI_Request_free while still running: completed
 * (and really freed) whenever requests are tested, and at MPI_Finalize.
 * Their number (gcm_mpi_orphans_count, mpi_impl.h) changes under the
 * lock, and is read without it first (atomic: a test in another thread
 * looks whether there is anything to reap). */
static struct {
    pthread_mutex_t lock;
    gcm_mpi_req_t **reqs;
    int             cap;
} gcm_mpi_orphans = { PTHREAD_MUTEX_INITIALIZER, NULL, 0 };
atomic_int gcm_mpi_orphans_count;

/* The number of orphans (the lock held, or a hint without it). */
static int gcm_mpi_orphans_n(void)
{
    return atomic_load_explicit(&gcm_mpi_orphans_count, memory_order_relaxed);
}

/* Sets it (the lock held). */
static void gcm_mpi_orphans_set_n(int n)
{
    atomic_store_explicit(&gcm_mpi_orphans_count, n, memory_order_relaxed);
}

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
void gcm_mpi_status_empty_single(MPI_Status *status)
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
 * as no request. A cache holds up to 256 (128 KiB: each object has room
 * for a receive's native request): a window of 64 sends and 64 receives
 * in flight, as benchmarks and halo exchanges keep, overflowed a cache of
 * 64 for half its requests.
 */
#define GCM_MPI_REQ_CACHE_MAX 256
/* Request objects start on these lines (gcm_handle_alloc_stable). */
#define GCM_MPI_REQ_ALIGN     64

static __thread gcm_mpi_req_t *gcm_mpi_req_cache GCM_TLS_HOT;
static __thread int gcm_mpi_req_cache_len GCM_TLS_HOT;
/* The exit destructor of this thread's cache is registered. */
static __thread int gcm_mpi_req_cache_reg GCM_TLS_HOT;
static pthread_key_t gcm_mpi_req_cache_key;
static pthread_once_t gcm_mpi_req_cache_once = PTHREAD_ONCE_INIT;

static gcm_handle_pool_t gcm_mpi_req_spare =
    GCM_HANDLE_POOL_INIT(struct gcm_mpi_request, next_free);

/* What is cleared stops before the room for a receive's native request
 * (nstore), which the receive readies itself. The volatile copy is not a
 * constant to the compiler: see gcm_mpi_req_alloc. */
#define GCM_MPI_REQ_CLEAR offsetof(struct gcm_mpi_request, nstore)
static volatile size_t gcm_mpi_req_size = GCM_MPI_REQ_CLEAR;

/* Clears what a new request needs cleared with 16-byte stores in place
 * (gcm_zero_head): half of gcm_mpi_req_alloc was a call of memset. */
_Static_assert((GCM_MPI_REQ_CLEAR % 8) == 0,
               "the clear of a request is a whole number of words");

static inline void gcm_mpi_req_clear(gcm_mpi_req_t *req)
{
    gcm_zero_head(req, GCM_MPI_REQ_CLEAR);
}

static void gcm_mpi_req_cache_drain(void *key_value)
{
    if (key_value != NULL) {
        /* The thread exits (the key's value is cleared): a request freed
         * after this, by another key's destructor, registers again. */
        gcm_mpi_req_cache_reg = 0;
    }
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

    if (gcm_likely(req != NULL)) {
        /* From the cache (every call of a program in its stride): cleared
         * when it was freed (gcm_mpi_req_cache_push), so that this, which
         * a send calls right after it wrote its message to a line the
         * receiver polls, makes no stores to queue behind that line. Its
         * link stays as it was: nothing reads it while the request lives
         * (gcm_mpi_req_free_slow sets it before the pool walks it). */
        gcm_mpi_req_cache = req->next_free;
        gcm_mpi_req_cache_len--;
        return req;
    }
    req = gcm_handle_pool_get(&gcm_mpi_req_spare);
    if (req == NULL) {
        return NULL;
    }
    /* memset with a size the compiler cannot see: with the constant it
     * turned the set into calls of the allocator's calloc path before
     * (a tenth of an 8-byte MPI_Sendrecv). */
    gen = req->gen;
    memset(req, 0, gcm_mpi_req_size);
    req->gen = gen;
    return req;
}

static inline void gcm_mpi_req_cache_push(gcm_mpi_req_t *req)
{
    uint16_t gen = req->gen;

    /* A clear of constant size, which the compiler writes as a dozen
     * vector stores in place (the call of memset with the size read at
     * run time cost twice that). */
    gcm_mpi_req_clear(req);
    req->gen = gen;
    req->next_free = gcm_mpi_req_cache;
    gcm_mpi_req_cache = req;
    gcm_mpi_req_cache_len++;
}

/* gcm_mpi_req_free's rare cases, out of its frame: a handle with a
 * Fortran integer, a full cache, a cache with no exit destructor yet. */
static GCM_NOINLINE void gcm_mpi_req_free_slow(gcm_mpi_req_t *req)
{
    gcm_mpi_req_kill_handle(req);
    if (gcm_mpi_req_cache_len >= GCM_MPI_REQ_CACHE_MAX) {
        req->next_free = NULL;
        gcm_handle_pool_put(&gcm_mpi_req_spare, req);
        return;
    }
    if (!gcm_mpi_req_cache_reg) {
        /* Registers the exit destructor for this thread's cache, once
         * (a request allocated and freed per call empties the cache at
         * every call). */
        pthread_once(&gcm_mpi_req_cache_once, gcm_mpi_req_cache_key_create);
        (void)pthread_setspecific(gcm_mpi_req_cache_key, &gcm_mpi_req_cache);
        gcm_mpi_req_cache_reg = 1;
    }
    gcm_mpi_req_cache_push(req);
}

void gcm_mpi_req_free(gcm_mpi_req_t *req)
{
    /* Stale handles to it (and to whatever reuses it) are refused from
     * now on. */
    req->magic = 0;
    if (gcm_unlikely(req->has_fint ||
                     (gcm_mpi_req_cache_len >= GCM_MPI_REQ_CACHE_MAX) ||
                     !gcm_mpi_req_cache_reg)) {
        gcm_mpi_req_free_slow(req);
        return;
    }
    req->gen++;   /* gcm_mpi_req_kill_handle without a Fortran integer */
    gcm_mpi_req_cache_push(req);
}

__thread const gcm_mpi_req_t *gcm_mpi_req_recent GCM_TLS_HOT;

gcm_mpi_req_t *gcm_mpi_req_get(MPI_Request handle)
{
    gcm_mpi_req_t *req = gcm_mpi_req_of(handle);

    if ((handle == MPI_REQUEST_NULL) || (req == NULL) ||
        ((req != gcm_mpi_req_recent) &&
         !gcm_handle_is_stable(req, GCM_MPI_REQ_ALIGN))) {
        return NULL;
    }
    if ((req->magic != GCM_MPI_MAGIC_REQ) ||
        (req->gen != gcm_handle_gen((uintptr_t)handle))) {
        return NULL;
    }
    return req;
}

/* Sets req up as a generic request on comm. */
static void gcm_mpi_req_generic_set(gcm_mpi_req_t *req, MPI_Comm comm,
                                    gcm_mpi_req_poll_func_t poll,
                                    void (*cleanup)(void *state),
                                    void *state)
{
    gcm_mpi_req_generic_live(req, comm);
    req->kind    = (poll != NULL) ? GCM_MPI_REQ_GENERIC : GCM_MPI_REQ_DONE;
    req->poll    = poll;
    req->cleanup = cleanup;
    req->state   = state;
    gcm_mpi_status_empty(&req->status);
    req->complete = (poll == NULL);
}

int gcm_mpi_req_generic(MPI_Comm comm, gcm_mpi_req_poll_func_t poll,
                        void (*cleanup)(void *state), void *state,
                        MPI_Request *req_p)
{
    gcm_mpi_req_t *req = gcm_mpi_req_alloc();

    if (req == NULL) {
        return MPI_ERR_NO_MEM;
    }
    gcm_mpi_req_generic_set(req, comm, poll, cleanup, state);
    *req_p = gcm_mpi_req_handle(req);
    return MPI_SUCCESS;
}

int gcm_mpi_req_generic_kept(gcm_mpi_req_t **kept_p, MPI_Comm comm,
                             gcm_mpi_req_poll_func_t poll,
                             void (*cleanup)(void *state), void *state,
                             MPI_Request *req_p)
{
    gcm_mpi_req_t *req = *kept_p;

    if (req == NULL) {
        req = gcm_mpi_req_alloc();
        if (req == NULL) {
            return MPI_ERR_NO_MEM;
        }
        req->kept = GCM_MPI_REQ_KEPT_COLL;   /* the pair's sets its own */
        *kept_p = req;
    }
    gcm_mpi_req_generic_set(req, comm, poll, cleanup, state);
    gcm_mpi_req_recent = req;
    *req_p = gcm_mpi_req_handle(req);
    return MPI_SUCCESS;
}


/* Progresses the endpoint of each active request's communicator once
 * (requests on one communicator usually come together). A communicator's
 * traffic is progressed on the endpoint its LCO lives on, which for a
 * thread LCO of MPIX_Comm_create_threads need not be the calling
 * thread's. */
void gcm_mpi_reqs_progress(int count, MPI_Request reqs[])
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

    status = gcm_lco_req_take(&req->native, &info);
    gcm_mpi_req_result(req, status, &info);
}

void gcm_mpi_req_result(gcm_mpi_req_t *req, gcm_status_t status,
                        const gcm_msg_status_t *info)
{
    gcm_mpi_status_native(&req->status, req->kind, info);
    req->status.MPI_ERROR     = gcm_likely(status == GCM_OK) ? MPI_SUCCESS :
                                gcm_mpi_errclass(status);
    req->status.gcm_cancelled = (status == GCM_ERR_CANCELED);
    if (req->status.MPI_ERROR != MPI_SUCCESS) {
        /* The reason goes with the request: it may complete long before
         * the call that reports it (a send done once posted), and other
         * calls in between set the thread's last error. Without memory
         * the last error is reported, as before. */
        free(req->errtext);
        req->errtext = strdup(gcm_last_error());
    }
    if ((req->kind == GCM_MPI_REQ_RECV) && (req->tmp != NULL) &&
        (status != GCM_ERR_CANCELED)) {
        gcm_mpi_type_unpack(req->datatype, req->count, req->tmp,
                            info->count, req->buf);
    }
    if (req->tmp != NULL) {
        free(req->tmp);
        req->tmp = NULL;
    }
    req->complete = 1;
}

/* Completes req if it can without blocking; progress: also advance its
 * endpoint once first. */
int gcm_mpi_req_check(gcm_mpi_req_t *req, int progress)
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
    if (req->complete) {
        return;
    }
    if ((req->wait != NULL) && req->wait(req)) {
        req->complete = 1;
        return;
    }
    if (!gcm_mpi_req_check(req, 0)) {
        gcm_lco_wait_on(gcm_mpi_req_lco(req), gcm_mpi_req_done_cb, req);
    }
}

void gcm_mpi_req_release(gcm_mpi_req_t *req)
{
    if (req->kept) {
        gcm_mpi_req_release_kept(req, req->cleanup);
        return;
    }
    /* A small message's request has none of these: no call for them. */
    if (gcm_unlikely(req->errtext != NULL)) {
        free(req->errtext);
    }
    if (req->cleanup != NULL) {
        req->cleanup(req->state);
    }
    if (req->tmp != NULL) {
        free(req->tmp);
    }
    if (req->datatype != MPI_DATATYPE_NULL) {
        gcm_mpi_type_release(req->datatype);
    }
    if ((req->comm != MPI_COMM_NULL) && !req->comm->predefined) {
        gcm_mpi_comm_unref(req->comm);
    }
    gcm_mpi_req_free(req);
}

/* Reaps orphaned requests that have completed. */
void gcm_mpi_orphans_reap(int wait)
{
    int i;

    if (gcm_mpi_orphans_n() == 0) {
        return;   /* a stale zero only delays the reaping to a later call */
    }
    pthread_mutex_lock(&gcm_mpi_orphans.lock);
    for (i = 0; i < gcm_mpi_orphans_n();) {
        gcm_mpi_req_t *req = gcm_mpi_orphans.reqs[i];

        if (wait && (req->kind == GCM_MPI_REQ_RECV) && !req->complete) {
            /* At MPI_Finalize a receive nobody will match must not hang
             * the job. */
            gcm_lco_req_cancel(req->native);
        }
        if (wait) {
            gcm_mpi_req_wait(req);
        }
        if (gcm_mpi_req_check(req, 0)) {
            gcm_mpi_req_release(req);
            gcm_mpi_orphans_set_n(gcm_mpi_orphans_n() - 1);
            gcm_mpi_orphans.reqs[i] =
                gcm_mpi_orphans.reqs[gcm_mpi_orphans_n()];
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
        gcm_lco_req_cancel(req->native);
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
    if (gcm_mpi_orphans_n() == gcm_mpi_orphans.cap) {
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
    gcm_mpi_orphans.reqs[gcm_mpi_orphans_n()] = req;
    gcm_mpi_orphans_set_n(gcm_mpi_orphans_n() + 1);
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

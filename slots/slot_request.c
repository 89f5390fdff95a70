/*
 * slots/slot_request.c: requests: the per-thread cache, completion
 * and the parts of a send.
 */
#include "config.h"

#include "slots/slots_impl.h"
#include "boot/boot.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>

/* ---- requests ------------------------------------------------------------ */

/*
 * Requests are recycled through a small per-thread cache: allocation on
 * the message path then touches no shared allocator state. Their memory
 * stays request memory (gcm_handle_alloc_stable), so that a stale handle
 * can be read and refused (slots.h); what a cache cannot hold goes to one
 * shared list, and so does a thread's cache when the thread exits.
 */
#define GCM_REQ_CACHE_MAX 64

static __thread struct gcm_request *gcm_req_cache GCM_TLS_HOT;
static __thread int gcm_req_cache_len GCM_TLS_HOT;
/* The thread's exit destructor is registered (once: a cache that empties
 * and fills again at every message must not pay for it each time). */
static __thread int gcm_req_cache_keyed GCM_TLS_HOT;
static pthread_key_t gcm_req_cache_key;
static pthread_once_t gcm_req_cache_once = PTHREAD_ONCE_INIT;
/* Not a constant to the compiler, so that memset calls the C library's,
 * which clears a request with vector stores, instead of being inlined as
 * "rep stosq", whose start-up cost was a twentieth of a small send. */
static volatile size_t gcm_req_size = sizeof(struct gcm_request);

static gcm_handle_pool_t gcm_req_spare =
    GCM_HANDLE_POOL_INIT(struct gcm_request, next_free);

static void gcm_slots_req_cache_drain(void *unused)
{
    (void)unused;
    gcm_handle_pool_put(&gcm_req_spare, gcm_req_cache);
    gcm_req_cache = NULL;
    gcm_req_cache_len = 0;
    /* A request freed by a later destructor registers it again. */
    gcm_req_cache_keyed = 0;
}

static void gcm_slots_req_cache_key_create(void)
{
    (void)pthread_key_create(&gcm_req_cache_key, gcm_slots_req_cache_drain);
}

struct gcm_request *gcm_slots_req_alloc(gcm_thr_endpoint_t *endpoint,
                                        gcm_req_kind_t kind)
{
    struct gcm_request *req = gcm_req_cache;
    uint16_t gen;

    if (req != NULL) {
        gcm_req_cache = req->next_free;
        gcm_req_cache_len--;
    } else {
        req = gcm_handle_pool_get(&gcm_req_spare);
        if (req == NULL) {
            return NULL;
        }
    }
    gen = req->gen;
    memset(req, 0, gcm_req_size);
    req->gen   = gen;
    gcm_slots_req_setup(req, GCM_SLOTS_REQ_MAGIC, endpoint, kind);
    return req;
}

void gcm_slots_req_free(struct gcm_request *req)
{
    /* Only a truncated rendezvous has one: no call for the others. */
    if (gcm_unlikely(req->tmpbuf != NULL)) {
        free(req->tmpbuf);
    }
    /* Its handle dies: a stale copy is refused from now on. */
    req->magic = 0;
    req->gen++;
    if (gcm_req_cache_len >= GCM_REQ_CACHE_MAX) {
        req->next_free = NULL;
        gcm_handle_pool_put(&gcm_req_spare, req);
        return;
    }
    if (gcm_unlikely(!gcm_req_cache_keyed)) {
        /* Registers the exit destructor for this thread's cache. */
        pthread_once(&gcm_req_cache_once, gcm_slots_req_cache_key_create);
        (void)pthread_setspecific(gcm_req_cache_key, &gcm_req_cache);
        gcm_req_cache_keyed = 1;
    }
    req->next_free = gcm_req_cache;
    gcm_req_cache = req;
    gcm_req_cache_len++;
}

struct gcm_request *gcm_slots_req_get(gcm_request_h handle)
{
    struct gcm_request *req = gcm_slots_req_of(handle);

    if ((handle == GCM_REQUEST_NULL) ||
        !gcm_handle_is_stable(req, GCM_SLOTS_REQ_ALIGN)) {
        return NULL;
    }
    if ((req->magic != GCM_SLOTS_REQ_MAGIC) ||
        (req->gen != gcm_handle_gen((uintptr_t)handle))) {
        return NULL;
    }
    return req;
}

/* Returns this thread's cached requests to the shared list (at
 * finalize). */
void gcm_slots_req_cache_flush(void)
{
    gcm_slots_req_cache_drain(NULL);
}

/* Marks the request complete; whoever waits on its endpoint wakes up. */
void gcm_slots_req_complete(struct gcm_request *req,
                            gcm_status_t status)
{
    gcm_thr_endpoint_t *endpoint = req->endpoint;

    if ((status != GCM_OK) && (req->status == GCM_OK)) {
        req->status = status;
    }
    req->info.error = req->status;
    gcm_assert(!atomic_load(&req->done));
    if (req->counted) {
        gcm_thr_pending_done(endpoint);
    }
    /* Once done is set, the owner may free and reuse the request at once:
     * nothing of it is read after. */
    atomic_store(&req->done, 1);
    gcm_thr_signal(endpoint);
}

/*
 * A request is posted (lock held: the one its completion takes, so that no
 * completion runs in between): if it is not complete, its endpoint needs
 * progress from someone until it is, and counts it as pending. One that
 * completed at once (an eager send, a receive of a waiting message)
 * costs the count nothing.
 */
void gcm_slots_req_posted(struct gcm_request *req)
{
    if (!atomic_load_explicit(&req->done, memory_order_relaxed)) {
        req->counted = 1;
        gcm_thr_pending_add(req->endpoint);
    }
}

void gcm_slots_req_hand_out(struct gcm_request *req, int flags,
                            gcm_msg_status_t *info_p, gcm_request_h *req_p)
{
    /* Acquire: a completion on another thread (a large in-process send
     * copied by its receive) wrote what is read and released here. */
    if ((flags & GCM_SLOTS_XFER_NOREQ) &&
        atomic_load_explicit(&req->done, memory_order_acquire) &&
        (req->status == GCM_OK)) {
        if (info_p != NULL) {
            *info_p = req->info;
        }
        gcm_slots_req_release(req);
        *req_p = GCM_REQUEST_NULL;
        return;
    }
    *req_p = gcm_slots_req_handle(req);
}

/* One part of a send finished (local completion or the answer). */
void gcm_slots_send_part_done(struct gcm_request *req, gcm_status_t status)
{
    if ((status != GCM_OK) && (req->status == GCM_OK)) {
        req->status = status;
    }
    if (--req->pending == 0) {
        gcm_slots_req_complete(req, req->status);
    }
}

/*
 * A send whose parts all finished before gcm_slots_isend_x handed it out
 * (a small message written into a ring at once): no thread can wait on it
 * yet, so done needs no ordering against a sleeper's re-check and nobody
 * needs a wakeup; the thread that gets the request reads done itself. The
 * sequentially consistent store and the wakeup checks of
 * gcm_slots_req_complete cost a streaming 8-byte sender a sixth of its
 * time. Lock held.
 */
void gcm_slots_send_part_done_unposted(struct gcm_request *req)
{
    if (--req->pending == 0) {
        gcm_assert(!req->counted);
        req->info.error = req->status;
        atomic_store_explicit(&req->done, 1, memory_order_relaxed);
    }
}

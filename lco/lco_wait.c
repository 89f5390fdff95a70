/*
 * lco/lco_wait.c: waiting and progress on the endpoint an LCO
 * lives on, with the MPI layer's wait hook. A thread that makes true
 * what another waits for without a message (an MPI generalized request
 * completed by the program) wakes the waiters of every endpoint.
 */
#include "config.h"

#include "lco/lco_impl.h"
#include "boot/boot.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>

static void (*_Atomic gcm_lco_wait_hook)(void);

void gcm_lco_set_wait_hook(void (*hook)(void))
{
    atomic_store_explicit(&gcm_lco_wait_hook, hook, memory_order_release);
}

typedef struct gcm_lco_hooked {
    int  (*done)(void *arg);
    void  *arg;
    void (*hook)(void);
} gcm_lco_hooked_t;

static int gcm_lco_hooked_done(void *arg)
{
    gcm_lco_hooked_t *h = arg;

    h->hook();
    return h->done(h->arg);
}

void gcm_lco_thr_wait(gcm_thr_endpoint_t *endpoint, int (*done)(void *arg),
                      void *arg)
{
    gcm_lco_hooked_t h;

    h.hook = atomic_load_explicit(&gcm_lco_wait_hook, memory_order_acquire);
    if (h.hook == NULL) {
        gcm_thr_wait(endpoint, done, arg);
        return;
    }
    h.done = done;
    h.arg  = arg;
    gcm_thr_wait(endpoint, gcm_lco_hooked_done, &h);
}

int gcm_lco_endpoint_reserve(void)
{
    return gcm_thr_endpoint_reserve();
}

void gcm_lco_wait_until(int (*done)(void *arg), void *arg)
{
    gcm_lco_wait_on(NULL, done, arg);
}

/* The endpoint lco lives on, or the calling thread's for NULL. The
 * library is up (the callers checked). */
static gcm_thr_endpoint_t *gcm_lco_home(gcm_lco_h lco)
{
    return ((lco != NULL) && (lco->magic == GCM_LCO_MAGIC)) ?
           lco->port->endpoint : gcm_thr_endpoint_current();
}

void gcm_lco_wait_on(gcm_lco_h lco, int (*done)(void *arg), void *arg)
{
    if ((done == NULL) || !gcm_initialized()) {
        return;
    }
    gcm_lco_thr_wait(gcm_lco_home(lco), done, arg);
}

void gcm_lco_progress(gcm_lco_h lco)
{
    if (gcm_initialized()) {
        gcm_thr_progress(gcm_lco_home(lco));
    }
}

void gcm_lco_wake_waiters(void)
{
    int i, n;

    if (!gcm_initialized()) {
        return;
    }
    /* A signal costs two loads where nobody sleeps. */
    n = gcm_thr_num_endpoints();
    for (i = 0; i < n; i++) {
        gcm_thr_signal(gcm_thr_endpoint_get(i));
    }
}

/*
 * threads/thr_wait.c: progress and waiting on endpoints (spin, then sleep
 * on the worker's and the upper layer's file descriptors, progressing the
 * endpoints nobody waits on), and the progress thread.
 */
#define _GNU_SOURCE /* sched_getaffinity, CPU_COUNT */
#include "config.h"

#include "threads/thr_impl.h"
#include "boot/boot.h"

#include <pthread.h>
#include <errno.h>
#include <limits.h>
#include <linux/futex.h>
#include <poll.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

/* ---- progress and waiting ------------------------------------------------ */

void gcm_thr_lock_contended(gcm_thr_endpoint_t *endpoint)
{
    unsigned spins = 0;

    do {
        /* Read until it looks free, so that waiters do not bounce the
         * cache line; give the core away if the holder does not finish
         * soon (it may be descheduled when oversubscribed). */
        while (atomic_load_explicit(&endpoint->lock, memory_order_relaxed)) {
            if (++spins > 64) {
                sched_yield();
            }
        }
    } while (atomic_exchange_explicit(&endpoint->lock, 1,
                                      memory_order_acquire));
}

/* One round on endpoint, whose lock the caller took: releases the lock,
 * then runs the layer above's work that needs it free; returns the events
 * handled. */
static unsigned gcm_thr_progress_unlock(gcm_thr_endpoint_t *endpoint)
{
    unsigned n = ucp_worker_progress(endpoint->worker);

    /* Each is a load and a test when there is nothing to do (an empty
     * poll): no call then. */
    if (gcm_unlikely(endpoint->nflushing != 0)) {
        gcm_thr_conns_probe(endpoint);
    }
    if (gcm_thr.upcalls.progress != NULL) {
        n += gcm_thr.upcalls.progress(endpoint);
    }
    if (gcm_unlikely(endpoint->nlost != 0)) {
        gcm_thr_apply_lost(endpoint, n == 0);
    }
    /* Deaths last: what a process wrote to the shared-memory rings
     * before it died (the launcher tells of a death once it is over) has
     * reached its receives above, before what still waits for it fails. */
    if (gcm_unlikely(atomic_load_explicit(&gcm_thr.died_gen,
                                          memory_order_relaxed) !=
                     endpoint->died_seen)) {
        gcm_thr_apply_deaths(endpoint);
    }
    gcm_thr_unlock(endpoint);
    if (gcm_thr.upcalls.after_progress != NULL) {
        gcm_thr.upcalls.after_progress(endpoint);
    }
    return n;
}

static unsigned gcm_thr_progress_own(gcm_thr_endpoint_t *endpoint)
{
    gcm_thr_lock(endpoint);
    return gcm_thr_progress_unlock(endpoint);
}

/* Does endpoint need a thread of another endpoint? all: also when it has
 * no pending request (after a wakeup: something may have arrived). */
static int gcm_thr_is_orphan(gcm_thr_endpoint_t *endpoint, int all)
{
    return (atomic_load_explicit(&endpoint->nwaiters,
                                 memory_order_relaxed) == 0) &&
           (all || (atomic_load_explicit(&endpoint->npending,
                                         memory_order_relaxed) > 0));
}

/* Progresses endpoint if its lock is free: never waits for another
 * endpoint's lock, so no thread ever holds or waits for two. */
static unsigned gcm_thr_progress_try(gcm_thr_endpoint_t *endpoint)
{
    if (!gcm_thr_trylock(endpoint)) {
        return 0;
    }
    return gcm_thr_progress_unlock(endpoint);
}

/* Progresses the endpoints other than self that nobody waits on (with
 * pending requests only, unless all). */
static unsigned gcm_thr_progress_orphans(gcm_thr_endpoint_t *self, int all)
{
    unsigned n = 0;
    int i;

    for (i = 0; i < gcm_thr.nendpoints; i++) {
        gcm_thr_endpoint_t *endpoint = gcm_thr.endpoints[i];
        if ((endpoint != self) && gcm_thr_is_orphan(endpoint, all)) {
            n += gcm_thr_progress_try(endpoint);
        }
    }
    return n;
}

/* Yields of this thread's empty polls (tests count them). */
static __thread unsigned long gcm_thr_poll_yields_n GCM_TLS_HOT;

unsigned long gcm_thr_poll_yields(void)
{
    return gcm_thr_poll_yields_n;
}

/* Sleeps of the calling thread's waits (gcm_thr_wait_sleeps). */
static __thread unsigned long gcm_thr_wait_sleeps_n;

unsigned long gcm_thr_wait_sleeps(void)
{
    return gcm_thr_wait_sleeps_n;
}

int gcm_thr_is_oversubscribed(void)
{
    return gcm_thr.oversubscribed;
}

/*
 * One poll (MPI_Test, MPI_Iprobe, the native test and probe): a round on
 * endpoint. With more processes than cores, an empty one may give the core
 * away, so that the process the caller waits for (the sender of HPL's
 * panel) runs. It does when the caller has been away from the library for
 * GENCOMM_POLL_YIELD_US since its last poll (it computes between polls, as
 * HPL's update does: a yield costs it little against that, and the rank
 * that must send gets the core at once instead of at the scheduler's next
 * tick), and at every empty poll once its empty polls have gone on for
 * that long without a pause (it polls in a loop). Not on a run of empty
 * polls that are close together and short: a program that polls between
 * small pieces of work (HPCC's RandomAccess tests a receive after every
 * update) is busy, and a yield per poll would cost it a system call each
 * time (measured: its MPI sections 1 s -> 9-15 s).
 */
void gcm_thr_progress(gcm_thr_endpoint_t *endpoint)
{
    static __thread unsigned calls GCM_TLS_HOT;
    static __thread int idle GCM_TLS_HOT;
    static __thread double run_since GCM_TLS_HOT; /* first empty poll */
    static __thread double left GCM_TLS_HOT;      /* last empty poll's end */
    unsigned n = gcm_thr_progress_own(endpoint);
    double now, limit;
    int away;

    /* A program that polls one request (MPI_Test in a loop) must not
     * starve the endpoints its other requests live on. */
    if (gcm_unlikely((++calls % 32) == 0) && (gcm_thr.nendpoints > 1)) {
        n += gcm_thr_progress_orphans(endpoint, 0);
    }
    if (gcm_likely(n != 0)) {
        idle = 0;
        left = 0;
        return;
    }
    if (!gcm_thr.oversubscribed) {
        return;
    }
    now   = gcm_time_now();
    limit = (double)gcm_thr_config.poll_yield_us * 1e-6;
    away  = (left != 0) && (now - left >= limit);
    if (away || (left == 0)) {
        run_since = now;
        idle      = 0;
    } else if (!idle && (now - run_since >= limit)) {
        idle = 1;
    }
    if (away || idle) {
        gcm_thr_poll_yields_n++;
        sched_yield();
        now = gcm_time_now();
    }
    left = now;
}

/* Threads that wait while another polls sleep on the endpoint's wake_gen
 * word. */
static void gcm_thr_futex_wait(atomic_uint *word, unsigned value,
                               unsigned timeout_ms)
{
    struct timespec ts;

    ts.tv_sec  = (time_t)(timeout_ms / 1000);
    ts.tv_nsec = (long)(timeout_ms % 1000) * 1000000L;
    (void)syscall(SYS_futex, (unsigned *)word, FUTEX_WAIT_PRIVATE, value,
                  &ts, NULL, 0);
}

static void gcm_thr_futex_wake_all(atomic_uint *word)
{
    (void)syscall(SYS_futex, (unsigned *)word, FUTEX_WAKE_PRIVATE, INT_MAX,
                  NULL, NULL, 0);
}

/* Wakes the threads that wait for the poller (or for a signal). */
static void gcm_thr_wake_waiters(gcm_thr_endpoint_t *endpoint)
{
    atomic_fetch_add(&endpoint->wake_gen, 1);
    if (atomic_load(&endpoint->fsleepers) > 0) {
        gcm_thr_futex_wake_all(&endpoint->wake_gen);
    }
}

void gcm_thr_signal(gcm_thr_endpoint_t *endpoint)
{
    /* Sequentially consistent with the waiter's increment of sleepers and
     * its re-check of the condition: either it sees our completion, or we
     * see it asleep and wake it. */
    if (atomic_load(&endpoint->fsleepers) > 0) {
        gcm_thr_wake_waiters(endpoint);
    }
    if (atomic_load(&endpoint->sleepers) > 0) {
        atomic_store(&endpoint->signaled, 1);
        ucp_worker_signal(endpoint->worker);
    }
}

/*
 * The poller gives its role up: the threads that waited for it progress
 * again, and one of them polls next.
 */
static void gcm_thr_poller_release(gcm_thr_endpoint_t *endpoint)
{
    atomic_store(&endpoint->poller, 0);
    gcm_thr_wake_waiters(endpoint);
}

/* An endpoint a sleeping thread polls, and the fd of the layer above it
 * polls with it (-1: none). */
typedef struct gcm_thr_watch {
    gcm_thr_endpoint_t *endpoint;
    int                 upfd;
    int                 upidx;     /* its index in the poll set */
} gcm_thr_watch_t;

/* The most file descriptors one sleep polls: two per endpoint, the
 * launcher's and the progress thread's. */
#define GCM_THR_MAX_PFD (2 * GCM_MAX_ENDPOINTS + 2)

/* A sleep's first part, which the layer above's producers may not cut
 * short (gcm_thr_poll_deep): at most this many milliseconds late. */
#define GCM_THR_NAP_MS 1

/*
 * Takes the poller role of endpoint (the caller holds it already if own)
 * and arms its worker and the layer above, adding their fds to pfd.
 * Returns 1 when watched, 0 when not (another thread polls it, or, not
 * own, its lock is busy), -1 when it has work now: no sleeping then.
 */
static int gcm_thr_watch_begin(gcm_thr_endpoint_t *endpoint, int own,
                               gcm_thr_watch_t *w, struct pollfd *pfd,
                               int *npfd_p)
{
    ucs_status_t ucs;
    int upfd;

    if (!own) {
        if (atomic_exchange(&endpoint->poller, 1) != 0) {
            return 0;
        }
        if (!gcm_thr_trylock(endpoint)) {
            atomic_store(&endpoint->poller, 0);
            return 0;
        }
    } else {
        gcm_thr_lock(endpoint);
    }
    ucs = ucp_worker_arm(endpoint->worker);
    gcm_thr_unlock(endpoint);
    if (ucs == UCS_ERR_BUSY) {
        gcm_thr_poller_release(endpoint);
        return -1;
    }
    atomic_fetch_add(&endpoint->sleepers, 1);
    if (atomic_exchange(&endpoint->signaled, 0)) {
        atomic_fetch_sub(&endpoint->sleepers, 1);
        gcm_thr_poller_release(endpoint);
        return -1;
    }
    /* The layer above says it sleeps too (so that its senders wake
     * us) and re-checks its own arrivals after saying so. */
    upfd = -1;
    if (gcm_thr.upcalls.sleep_prepare != NULL) {
        upfd = gcm_thr.upcalls.sleep_prepare(endpoint);
        if (upfd == -2) {
            atomic_fetch_sub(&endpoint->sleepers, 1);
            gcm_thr_poller_release(endpoint);
            return -1;
        }
    }
    w->endpoint = endpoint;
    w->upfd     = upfd;
    w->upidx    = -1;
    pfd[*npfd_p].fd     = endpoint->efd;
    pfd[*npfd_p].events = POLLIN;
    (*npfd_p)++;
    if (upfd >= 0) {
        w->upidx            = *npfd_p;
        pfd[*npfd_p].fd     = upfd;
        pfd[*npfd_p].events = POLLIN;
        (*npfd_p)++;
    }
    return 1;
}

static void gcm_thr_watch_end(gcm_thr_watch_t *w)
{
    if (w->upfd != -1) {
        gcm_thr.upcalls.sleep_done(w->endpoint);
    }
    atomic_fetch_sub(&w->endpoint->sleepers, 1);
    gcm_thr_poller_release(w->endpoint);
}

/*
 * Watches the endpoints other than self that have no waiter (with pending
 * requests only, unless all), as far as they can be, so that whatever
 * arrives for them wakes the sleeper. Returns -1 if one has work now,
 * else 1 if one with pending requests could not be watched (the sleep
 * must be short), else 0.
 */
static int gcm_thr_watch_orphans(gcm_thr_endpoint_t *self, int all,
                                 gcm_thr_watch_t *w, int *nw_p,
                                 struct pollfd *pfd, int *npfd_p)
{
    int i, r, unwatched = 0;

    for (i = 0; i < gcm_thr.nendpoints; i++) {
        gcm_thr_endpoint_t *endpoint = gcm_thr.endpoints[i];
        if ((endpoint == self) || !gcm_thr_is_orphan(endpoint, all)) {
            continue;
        }
        r = gcm_thr_watch_begin(endpoint, 0, &w[*nw_p], pfd, npfd_p);
        if (r < 0) {
            return -1;
        }
        if (r > 0) {
            (*nw_p)++;
        } else if (atomic_load(&endpoint->npending) > 0) {
            unwatched = 1;
        }
    }
    return unwatched;
}

/* Whether what woke a poll is only what the layer above calls noise:
 * its descriptor alone readable, with nothing of the job's (datagrams from
 * outside the job, dropped). Reads what came. */
static int gcm_thr_poll_noise(const struct pollfd *pfd, int npfd,
                              const gcm_thr_watch_t *w, int nw)
{
    int i, k, noise = 1;

    for (i = 0; i < npfd; i++) {
        if (pfd[i].revents == 0) {
            continue;
        }
        for (k = 0; (k < nw) && (w[k].upidx != i); k++) {
        }
        if ((k == nw) || (gcm_thr.upcalls.sleep_woken == NULL) ||
            gcm_thr.upcalls.sleep_woken(w[k].endpoint)) {
            noise = 0;
        }
    }
    return noise;
}

/* Polls pfd; a launcher event (index bootidx) is handled here. A wakeup
 * that was only noise (a flood from outside the job) does not end the
 * sleep: the waiter would spin after each, at the cost of a core. Returns
 * 0 when the time ran out, 1 when something ended the sleep. */
static int gcm_thr_poll(struct pollfd *pfd, int npfd, int bootidx,
                        int timeout_ms, const gcm_thr_watch_t *w, int nw)
{
    double deadline = gcm_time_now() + timeout_ms * 1e-3;
    int n;

    while ((n = poll(pfd, (nfds_t)npfd, timeout_ms)) > 0) {
        if ((bootidx >= 0) && (pfd[bootidx].revents != 0)) {
            gcm_boot_poll_events();
            return 1;
        }
        if (!gcm_thr_poll_noise(pfd, npfd, w, nw)) {
            return 1;
        }
        timeout_ms = (int)((deadline - gcm_time_now()) * 1e3);
        if (timeout_ms <= 0) {
            return 0;
        }
    }
    return n != 0;
}

/*
 * gcm_thr_poll, for a sleep the layer above may not be woken from at once
 * (sleep_deepen: its producers publish without a fence, and a message
 * published just as the waiter went to sleep can find it asleep unwoken):
 * first a nap of GCM_THR_NAP_MS, then, when the layer above allows it, the
 * rest of the timeout. The short waits of the data path stay naps.
 */
static void gcm_thr_poll_deep(struct pollfd *pfd, int npfd, int bootidx,
                              int timeout_ms, const gcm_thr_watch_t *w,
                              int nw)
{
    double deadline = gcm_time_now() + timeout_ms * 1e-3;
    int k, r, deep, nap = GCM_THR_NAP_MS;

    for (k = 0; (k < nw) && (w[k].upfd < 0); k++) {
    }
    if ((k == nw) || (gcm_thr.upcalls.sleep_deepen == NULL) ||
        (timeout_ms <= nap)) {
        (void)gcm_thr_poll(pfd, npfd, bootidx, timeout_ms, w, nw);
        return;
    }
    while (!gcm_thr_poll(pfd, npfd, bootidx, nap, w, nw)) {
        deep = 1;
        for (k = 0; k < nw; k++) {
            if (w[k].upfd < 0) {
                continue;
            }
            r = gcm_thr.upcalls.sleep_deepen(w[k].endpoint);
            if (r < 0) {
                return;
            }
            deep = deep && (r == 0);
        }
        timeout_ms = (int)((deadline - gcm_time_now()) * 1e3);
        if (timeout_ms <= 0) {
            return;
        }
        if (deep) {
            (void)gcm_thr_poll(pfd, npfd, bootidx, timeout_ms, w, nw);
            return;
        }
        nap = (timeout_ms < nap) ? timeout_ms : nap;
    }
}

/*
 * Sleeps once: one thread at a time (the poller) arms the worker and
 * polls the event fds, so that no thread drains or re-arms what another
 * was about to be woken by; the others sleep on a futex that the poller
 * bumps when it wakes and that gcm_thr_signal bumps too. The poller also
 * watches the endpoints nobody waits on (gcm_thr_watch_orphans).
 */
static void gcm_thr_sleep(gcm_thr_endpoint_t *endpoint,
                          int (*done)(void *arg), void *arg)
{
    unsigned gen = atomic_load(&endpoint->wake_gen);
    struct pollfd pfd[GCM_THR_MAX_PFD];
    gcm_thr_watch_t w[GCM_MAX_ENDPOINTS];
    int npfd = 0, nw = 0, bootfd, bootidx = -1, orphans = 0, i;

    if (atomic_exchange(&endpoint->poller, 1) != 0) {
        atomic_fetch_add(&endpoint->fsleepers, 1);
        if (!done(arg) && (atomic_load(&endpoint->wake_gen) == gen) &&
            atomic_load(&endpoint->poller)) {
            gcm_thr_futex_wait(&endpoint->wake_gen, gen,
                               gcm_thr_config.wait_timeout_ms);
        }
        atomic_fetch_sub(&endpoint->fsleepers, 1);
        return;
    }
    if (gcm_thr_watch_begin(endpoint, 1, &w[0], pfd, &npfd) < 0) {
        return;
    }
    nw = 1;
    if (done(arg)) {
        goto out;
    }
    if (gcm_thr.nendpoints > 1) {
        orphans = gcm_thr_watch_orphans(endpoint, 1, w, &nw, pfd, &npfd);
        if (orphans < 0) {
            goto out;
        }
    }
    bootfd = gcm_boot_event_fd();
    if (bootfd >= 0) {
        pfd[npfd].fd     = bootfd;
        pfd[npfd].events = POLLIN;
        bootidx          = npfd++;
    }
    /* An endpoint with pending requests that nobody watches (its lock
     * was busy) is looked at again soon. */
    gcm_thr_poll_deep(pfd, npfd, bootidx,
                      orphans ? 1 : (int)gcm_thr_config.wait_timeout_ms, w,
                      nw);
out:
    for (i = 0; i < nw; i++) {
        gcm_thr_watch_end(&w[i]);
    }
}

/*
 * Threads of this process spinning in gcm_thr_wait now, on a cache line of
 * their own (a wait that lasts changes it twice). When there are more
 * than the cores the process can count on (gcm_thr.own_cpus: threads of a
 * process bound to one core, or more threads than cores), the spinners
 * take turns at a core: the thread of a pair whose data has come may not
 * be running, while one whose data has not come spins. So each spinner
 * then also progresses every other endpoint in use whose lock is free,
 * waited on or not (drains its rings into its queues, completes its
 * receives, sends what waited for room in a ring, receives its replies),
 * and gives the core away after every GCM_THR_CROWDED_YIELD rounds in
 * which nothing came for its own wait (every round when the process is
 * oversubscribed): whichever thread holds the core moves every thread's
 * messages, and the threads whose waits that ended run next.
 */
static struct {
    atomic_int n;
} __attribute__((aligned(64))) gcm_thr_spinning;

/* Rounds a wait spins before it counts itself among the spinners: a
 * short wait (a ping-pong's reply) spares the two atomic operations. */
#define GCM_THR_SPIN_COUNTED 16

static int gcm_thr_crowded(void)
{
    return atomic_load_explicit(&gcm_thr_spinning.n, memory_order_relaxed) >
           gcm_thr.own_cpus;
}

int gcm_thr_spinners(void)
{
    return atomic_load(&gcm_thr_spinning.n);
}

int gcm_thr_own_cpus(void)
{
    return gcm_thr.own_cpus;
}

/* Is endpoint in use: a pending request or a waiter? */
static int gcm_thr_in_use(gcm_thr_endpoint_t *endpoint)
{
    return (atomic_load_explicit(&endpoint->npending,
                                 memory_order_relaxed) > 0) ||
           (atomic_load_explicit(&endpoint->nwaiters,
                                 memory_order_relaxed) > 0);
}

/* Progresses every endpoint other than self that is in use (a pending
 * request or a waiter) and whose lock is free. One in no use is left to
 * the thread that posts there next: a round costs an idle endpoint's
 * progress otherwise (a process bound to one core has 8). */
static unsigned gcm_thr_progress_siblings(gcm_thr_endpoint_t *self)
{
    unsigned n = 0;
    int i;

    for (i = 0; i < gcm_thr.nendpoints; i++) {
        gcm_thr_endpoint_t *endpoint = gcm_thr.endpoints[i];
        if ((endpoint != self) && gcm_thr_in_use(endpoint)) {
            n += gcm_thr_progress_try(endpoint);
        }
    }
    return n;
}

/* Empty rounds of its own endpoint a spinner on a crowded core makes
 * between two yields, when the process has the cores it counts on (not
 * oversubscribed). A yield between two threads of a core is a context
 * switch of a microsecond or two, while a reply in flight comes in well
 * under that: yielding after every round, two processes of two threads
 * on two cores (mpi_thread_bench --threads 2, each process bound to a
 * core) switched 3,000-7,600 times in 8,000 windows of 64 messages and
 * passed 0.89-0.98 of the one-thread rate; yielding after 16, 210-240
 * times and 0.98-1.02 (threads/README.md, "Crowded waits"). */
#define GCM_THR_CROWDED_YIELD 16

/* One round of a spinner on a crowded core: the other endpoints too, then
 * the core to another thread if yield says so. Returns whether anything
 * moved. */
static unsigned gcm_thr_crowded_round(gcm_thr_endpoint_t *endpoint,
                                      int yield, int (*done)(void *arg),
                                      void *arg)
{
    unsigned n = gcm_thr_progress_siblings(endpoint);

    if (yield && !done(arg)) {
        sched_yield();
    }
    return n;
}

/* Endpoints in use: with pending requests or a waiter, self included. */
static int gcm_thr_busy_endpoints(void)
{
    int i, n = 0;

    for (i = 0; i < gcm_thr.nendpoints; i++) {
        n += gcm_thr_in_use(gcm_thr.endpoints[i]);
    }
    return n;
}

/*
 * Whether a wait that has spun its GENCOMM_SPIN_COUNT rounds spins on: with
 * a core of its own, until GENCOMM_SPIN_US have passed since it first
 * asked (*until, 0 before). A round on an idle endpoint takes about
 * 100 ns, so the rounds alone end a wait's spinning after some 200 us, and
 * a step of a large collective waits longer than that: each such wait
 * then paid a sleep and a wakeup (bench/README.md, "With spare cores").
 * A core of its own: no more processes than cores, and no more endpoints
 * in use in this process than the cores it counts on (the caller also
 * offers the core every GCM_THR_CROWDED_YIELD rounds meanwhile, for the
 * threads the endpoints do not show). Without both, 4 threads of a
 * process bound to one core lost 8% of their message rate waiting for a
 * spinner to give the core back (threads/README.md, "Spinning on"). The
 * clock is read once per half limit of rounds, never in a short wait.
 */
static int gcm_thr_spin_more(double *until)
{
    double now;

    if (gcm_thr.oversubscribed || (gcm_thr_config.spin_us == 0) ||
        (gcm_thr_config.spin_count == 0) ||
        (gcm_thr_busy_endpoints() > gcm_thr.own_cpus)) {
        return 0;
    }
    now = gcm_time_now();
    if (*until == 0.0) {
        *until = now + (double)gcm_thr_config.spin_us * 1e-6;
        return 1;
    }
    return now < *until;
}

void gcm_thr_wait(gcm_thr_endpoint_t *endpoint, int (*done)(void *arg),
                  void *arg)
{
    double spin_until = 0.0;
    unsigned spins = 0, rounds = 0, empty = 0;
    unsigned limit = gcm_thr.spin_limit;
    int others = (gcm_thr.nendpoints > 1);
    int counted = 0;
    /* A short wait (the reply of a ping-pong) does not say it waits: the
     * two atomic operations would cost more than what they serve, which
     * is sparing this endpoint the trylocks of other threads (harmless)
     * once a wait lasts. With a progress thread it says so at once, so
     * that the two do not take turns at the lock. */
    int registered = atomic_load_explicit(&gcm_thr.pt_running,
                                          memory_order_relaxed);

    if (done(arg)) {
        return;
    }
    if (registered) {
        atomic_fetch_add(&endpoint->nwaiters, 1);
    }
    /* One look at done a round, after its progress: a wait that ends in
     * its first round (the message was there) looks twice in all, where
     * a look before each round as well cost a third (three for a
     * two-request MPI_Waitall). */
    for (;;) {
        unsigned n = gcm_thr_progress_own(endpoint);

        if (done(arg)) {
            break;
        }
        if (others && ((++rounds % 32) == 0)) {
            if (!registered) {
                atomic_fetch_add(&endpoint->nwaiters, 1);
                registered = 1;
            }
            gcm_thr_progress_orphans(endpoint, 0);
        }
        if (counted && others && gcm_thr_crowded()) {
            /* The core goes to another thread every round when
             * oversubscribed (the peer may need it), otherwise after
             * every GCM_THR_CROWDED_YIELD rounds in which nothing came
             * for this wait. A round that moved something, here or for
             * another endpoint, does not count towards sleeping; an
             * empty one counts as GCM_THR_YIELD_SPINS (as one round when
             * oversubscribed: the limit counts yields then). */
            empty = (n == 0) ? empty + 1 : 0;
            n += gcm_thr_crowded_round(
                endpoint,
                gcm_thr.oversubscribed ||
                    ((empty > 0) && ((empty % GCM_THR_CROWDED_YIELD) == 0)),
                done, arg);
            if (n == 0) {
                spins += gcm_thr.oversubscribed ? 1 : GCM_THR_YIELD_SPINS;
            }
            if (spins < limit) {
                continue;
            }
        } else if (++spins < limit) {
            if (!counted && (spins >= GCM_THR_SPIN_COUNTED)) {
                atomic_fetch_add(&gcm_thr_spinning.n, 1);
                counted = 1;
            }
            /* With a core of our own, spinning is the fastest wait; with
             * more processes than cores, give the core away each round
             * (the peer we wait for may need it) and soon sleep. Spinning
             * on past the rounds, offer the core every
             * GCM_THR_CROWDED_YIELD rounds: a thread that needs it and
             * that the endpoints do not show (one between its calls)
             * gets it then, not at the end of this one's time slice. */
            if (gcm_thr.oversubscribed ||
                ((spin_until != 0.0) &&
                 ((spins % GCM_THR_CROWDED_YIELD) == 0))) {
                sched_yield();
            }
            continue;
        } else if (gcm_thr_spin_more(&spin_until)) {
            spins = limit / 2;
            continue;
        }
        if (!registered) {
            atomic_fetch_add(&endpoint->nwaiters, 1);
            registered = 1;
        }
        /* A sleeper needs no core. */
        if (counted) {
            atomic_fetch_sub(&gcm_thr_spinning.n, 1);
            counted = 0;
        }
        gcm_thr_wait_sleeps_n++;
        gcm_thr_sleep(endpoint, done, arg);
        if (others) {
            /* Whatever woke us may have been for another endpoint. */
            gcm_thr_progress_orphans(endpoint, 1);
        }
        /* After a sleep spin a little again: the reply usually follows. */
        spins = limit / 2;
    }
    if (counted) {
        atomic_fetch_sub(&gcm_thr_spinning.n, 1);
    }
    /* Sequentially consistent against the idle progress thread: an
     * endpoint left with pending requests and no waiter is its to
     * watch. */
    if (registered && (atomic_fetch_sub(&endpoint->nwaiters, 1) == 1) &&
        (atomic_load(&endpoint->npending) > 0) &&
        atomic_load(&gcm_thr_pt_idle)) {
        gcm_thr_pt_wake();
    }
}

/* ---- the progress thread ------------------------------------------------ */

void gcm_thr_pt_wake(void)
{
    uint64_t one = 1;

    if (gcm_thr.pt_fd >= 0) {
        /* A full counter means a wakeup is pending already. */
        (void)!write(gcm_thr.pt_fd, &one, sizeof(one));
    }
}

/* Progresses every endpoint that has pending requests and no waiter;
 * sets *pending_p if one has pending requests. */
static unsigned gcm_thr_pt_round(int *pending_p)
{
    unsigned n = 0;
    int i;

    *pending_p = 0;
    for (i = 0; i < gcm_thr.nendpoints; i++) {
        gcm_thr_endpoint_t *endpoint = gcm_thr.endpoints[i];
        if (atomic_load_explicit(&endpoint->npending,
                                 memory_order_relaxed) == 0) {
            continue;
        }
        *pending_p = 1;
        if (gcm_thr_is_orphan(endpoint, 0)) {
            n += gcm_thr_progress_try(endpoint);
        }
    }
    return n;
}

/*
 * Sleeps until something happens on an endpoint with pending requests and
 * no waiter, or a request starts where none was pending (gcm_thr_pt_wake).
 * With nothing pending anywhere it sleeps on its eventfd alone.
 */
static void gcm_thr_pt_sleep(void)
{
    struct pollfd pfd[GCM_THR_MAX_PFD];
    gcm_thr_watch_t w[GCM_MAX_ENDPOINTS];
    int npfd = 1, nw = 0, unwatched, i;
    uint64_t count;

    pfd[0].fd     = gcm_thr.pt_fd;
    pfd[0].events = POLLIN;
    /* Idle first, then look: see gcm_thr_pending_add. */
    atomic_store(&gcm_thr_pt_idle, 1);
    unwatched = gcm_thr_watch_orphans(NULL, 0, w, &nw, pfd, &npfd);
    if (unwatched < 0) {
        goto out;
    }
    /* An endpoint another thread polls wakes that thread, which then
     * progresses it; one whose lock was busy is looked at again soon. */
    gcm_thr_poll_deep(pfd, npfd, -1,
                      unwatched ? 1 :
                      ((nw > 0) ? (int)gcm_thr_config.wait_timeout_ms : 1000),
                      w, nw);
out:
    atomic_store(&gcm_thr_pt_idle, 0);
    for (i = 0; i < nw; i++) {
        gcm_thr_watch_end(&w[i]);
    }
    (void)!read(gcm_thr.pt_fd, &count, sizeof(count));
}

static void *gcm_thr_pt_main(void *arg)
{
    unsigned idle = 0;
    int pending;

    (void)arg;
    while (!atomic_load(&gcm_thr.pt_stop)) {
        if (gcm_thr_pt_round(&pending) > 0) {
            idle = 0;
            continue;
        }
        /* A few rounds more while requests are pending, then sleep: an
         * idle progress thread must not take a core from the
         * application, and a thread that sleeps until its data arrives
         * is run at once then, where one that spins yielding waits
         * behind the application's threads for its turn. */
        if (pending && (++idle < 16)) {
            continue;
        }
        gcm_thr_pt_sleep();
        /* Woken for nothing (a timeout): no spinning before the next
         * sleep; an event resets the count. */
        idle = 16;
    }
    return NULL;
}

gcm_status_t gcm_thr_pt_start(void)
{
    int rc;

    gcm_thr.pt_fd = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
    if (gcm_thr.pt_fd < 0) {
        return gcm_fail(GCM_ERR_INTERNAL, "gcm_init",
                        "eventfd for the progress thread failed: %s",
                        strerror(errno));
    }
    atomic_store(&gcm_thr.pt_stop, 0);
    rc = pthread_create(&gcm_thr.pt, NULL, gcm_thr_pt_main, NULL);
    if (rc != 0) {
        close(gcm_thr.pt_fd);
        gcm_thr.pt_fd = -1;
        return gcm_fail(GCM_ERR_INTERNAL, "gcm_init",
                        "cannot start the progress thread: %s",
                        strerror(rc));
    }
    atomic_store(&gcm_thr.pt_running, 1);
    gcm_debug("progress thread started");
    return GCM_OK;
}

gcm_status_t gcm_thr_pt_ensure(void)
{
    gcm_status_t status = GCM_OK;

    if (atomic_load(&gcm_thr.pt_running)) {
        return GCM_OK;
    }
    pthread_mutex_lock(&gcm_thr.pt_lock);
    if (!atomic_load(&gcm_thr.pt_running)) {
        status = gcm_thr_pt_start();
    }
    pthread_mutex_unlock(&gcm_thr.pt_lock);
    return status;
}

ucp_context_h gcm_thr_context(void)
{
    return gcm_thr.context;
}

void gcm_thr_pt_stop(void)
{
    if (!atomic_load(&gcm_thr.pt_running)) {
        return;
    }
    atomic_store(&gcm_thr.pt_stop, 1);
    gcm_thr_pt_wake();
    pthread_join(gcm_thr.pt, NULL);
    atomic_store(&gcm_thr.pt_running, 0);
    atomic_store(&gcm_thr_pt_idle, 0);
    close(gcm_thr.pt_fd);
    gcm_thr.pt_fd = -1;
}

gcm_status_t gcm_thr_wait_ucx(gcm_thr_endpoint_t *endpoint, void *ucx_req)
{
    ucs_status_t ucs;

    if (ucx_req == NULL) {
        return GCM_OK;
    }
    if (UCS_PTR_IS_ERR(ucx_req)) {
        return gcm_thr_status(UCS_PTR_STATUS(ucx_req));
    }
    while ((ucs = ucp_request_check_status(ucx_req)) == UCS_INPROGRESS) {
        ucp_worker_progress(endpoint->worker);
    }
    ucp_request_free(ucx_req);
    return gcm_thr_status(ucs);
}

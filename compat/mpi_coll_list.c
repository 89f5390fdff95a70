/*
 * compat/mpi_coll_list.c: the running list of nonblocking (and
 * persistent) collectives, which the wait hook advances from every wait
 * in the library (mpi_coll_nb.h; their requests: mpi_coll_run.c), and
 * the kept schedules installed on a communicator taken out when it is
 * freed.
 */
#include "config.h"

#include "compat/mpi_coll_nb.h"

#include <pthread.h>
#include <sched.h>
#include <stdlib.h>
#include <stdatomic.h>

int gcm_mpi_coll_nb_advance(coll_nb_t *nb)
{
    int errclass = MPI_SUCCESS;
    char *text = NULL;

    if (nb->gate != NULL) {
        if (!gcm_mpi_coll_gate_poll(nb->gate, &errclass, &text)) {
            return 0;
        }
        gcm_mpi_coll_gate_free(nb->gate);
        nb->gate = NULL;
        if (errclass != MPI_SUCCESS) {
            nb->failed = errclass;
            nb->text = text;
        }
    }
    if (nb->failed != 0) {
        return 1;
    }
    return gcm_coll_sched_advance(&nb->s, 0);
}

/*
 * The running list's lock is a flag rather than a mutex: the mutex's
 * lock and unlock cost about as much as the rest of the request's set-up
 * together. It is held for a list operation, or by the hook while it
 * advances the listed schedules; a thread that finds it held spins
 * briefly, then yields.
 *
 * A started schedule is first parked, when the slot is free, rather than
 * listed: one compare-and-swap instead of the lock pair and the list's
 * links. Its wait (usually the next call) takes it back the same way, so
 * a collective waited at once never touches the list. A hook that finds
 * one parked lists it (under the lock) before it advances the list, so
 * every wait in the library still progresses it; once the slot is
 * emptied by a hook, the schedule's own unlisting takes the lock, which
 * the hook held while listing it.
 */
struct gcm_mpi_coll_nb_reg gcm_mpi_coll_nb_reg = {
    .active = { &gcm_mpi_coll_nb_reg.active, &gcm_mpi_coll_nb_reg.active }
};
/* Its name in this file. */
#define coll_nb_reg gcm_mpi_coll_nb_reg

static int coll_nb_reg_trylock(void)
{
    return atomic_load_explicit(&coll_nb_reg.lock, memory_order_relaxed) == 0 &&
           atomic_exchange_explicit(&coll_nb_reg.lock, 1,
                                    memory_order_acquire) == 0;
}

static void coll_nb_reg_lock(void)
{
    int spins = 0;

    while (!coll_nb_reg_trylock()) {
        if (++spins >= 64) {
            sched_yield();
            spins = 0;
        }
    }
}

static void coll_nb_reg_unlock(void)
{
    atomic_store_explicit(&coll_nb_reg.lock, 0, memory_order_release);
}

static _Thread_local int coll_nb_in_hook GCM_TLS_HOT;

/* Puts nb on the list (the lock held). */
static void coll_nb_push(coll_nb_t *nb)
{
    gcm_list_push_back(&coll_nb_reg.active, &nb->elem);
    nb->listed = 1;
    atomic_store_explicit(&coll_nb_reg.n,
                          atomic_load_explicit(&coll_nb_reg.n,
                                               memory_order_relaxed) + 1,
                          memory_order_relaxed);
}

static void coll_nb_hook(void)
{
    coll_nb_t *p;
    gcm_list_t *e;

    if ((atomic_load_explicit(&coll_nb_reg.n, memory_order_relaxed) == 0 &&
         atomic_load_explicit(&coll_nb_reg.parked,
                              memory_order_relaxed) == NULL) ||
        coll_nb_in_hook || !coll_nb_reg_trylock()) {
        return;
    }
    /* A parked schedule joins the list, under the lock its own
     * unlisting then takes. */
    p = atomic_exchange_explicit(&coll_nb_reg.parked, NULL,
                                 memory_order_acquire);
    if (p != NULL) {
        coll_nb_push(p);
    }
    /* A user reduction may wait in the library: no recursion. */
    coll_nb_in_hook = 1;
    for (e = coll_nb_reg.active.next; e != &coll_nb_reg.active; e = e->next) {
        coll_nb_t *nb = gcm_container_of(e, coll_nb_t, elem);

        if (atomic_exchange_explicit(&nb->busy, 1, memory_order_acquire)) {
            continue;
        }
        (void)gcm_mpi_coll_nb_advance(nb);
        atomic_store_explicit(&nb->busy, 0, memory_order_release);
    }
    coll_nb_in_hook = 0;
    coll_nb_reg_unlock();
}

void gcm_mpi_coll_nb_list_slow(coll_nb_t *nb)
{
    coll_nb_reg_lock();
    coll_nb_push(nb);
    if (!atomic_load_explicit(&coll_nb_reg.hooked, memory_order_relaxed)) {
        /* Once: the hook returns at its first test while n is 0 and
         * nothing is parked. */
        gcm_lco_set_wait_hook(coll_nb_hook);
        atomic_store_explicit(&coll_nb_reg.hooked, 1, memory_order_relaxed);
    }
    coll_nb_reg_unlock();
}

void gcm_mpi_coll_nb_unlist_slow(coll_nb_t *nb)
{
    coll_nb_t *self = nb;

    if (nb->parked) {
        nb->parked = 0;
        if (atomic_compare_exchange_strong_explicit(
                &coll_nb_reg.parked, &self, NULL, memory_order_acquire,
                memory_order_relaxed)) {
            return;   /* never listed */
        }
        /* A hook took it, and listed it under the lock it held. */
        coll_nb_reg_lock();
        if (!nb->listed) {
            coll_nb_reg_unlock();
            return;
        }
    } else if (!nb->listed) {
        return;
    } else {
        coll_nb_reg_lock();
    }
    gcm_list_del(&nb->elem);
    nb->listed = 0;
    atomic_store_explicit(&coll_nb_reg.n,
                          atomic_load_explicit(&coll_nb_reg.n,
                                               memory_order_relaxed) - 1,
                          memory_order_relaxed);
    coll_nb_reg_unlock();
}

/* ---- installed schedules of freed communicators ----------------------------
 *
 * A kept schedule installed on its communicator (mpi_coll_run.c) holds a
 * reference on it, which the requests it runs borrow: they take none and
 * drop none (req->borrowed). So the communicator cannot go while one is
 * installed, and MPI_Comm_free takes them out first. One that a request
 * still runs cannot be taken out then (its request's end gives it back
 * with a plain store, and may run in another thread at any time): its
 * communicator waits here, freed by the program, until a later
 * MPI_Comm_free (or MPI_Finalize, which frees every communicator) finds
 * it idle. Nothing but the requests' ends touches such a schedule
 * meanwhile: the communicator's handle is dead.
 */
static struct {
    pthread_mutex_t lock;
    MPI_Comm       *comms;
    int             n, cap;
} coll_nb_lingering = { PTHREAD_MUTEX_INITIALIZER, NULL, 0, 0 };

/* Takes comm's idle (or dead) installed schedules out and frees them;
 * *drop_p counts the references they held. 1 if one is still running. */
static int coll_nb_take_out(MPI_Comm comm, int *drop_p)
{
    struct gcm_mpi_coll_cache *c = comm->coll_cache;
    int i, running = 0;

    if (c == NULL) {
        return 0;
    }
    for (i = 0; i < COLL_KEPT_N; i++) {
        coll_nb_t *nb = atomic_load_explicit(&c->nbkept[i],
                                             memory_order_acquire);

        if (nb == NULL) {
            continue;
        }
        /* Its request's end stores idle (release) as its last touch. */
        if (atomic_load_explicit(&nb->inuse, memory_order_acquire) ==
            COLL_NB_RUNNING) {
            running = 1;
            continue;
        }
        atomic_store_explicit(&c->nbkept[i], NULL, memory_order_relaxed);
        gcm_mpi_coll_nb_free(nb);
        (*drop_p)++;
    }
    return running;
}

int gcm_mpi_coll_nb_uninstall(MPI_Comm comm)
{
    int drop = 0, running = coll_nb_take_out(comm, &drop);

    /* The caller's reference stays: never comm's last. */
    while (drop-- > 0) {
        gcm_mpi_comm_unref(comm);
    }
    return running;
}

/* The lingering communicators whose installed schedules are all idle now
 * drop them (the lock held); the last reference frees the communicator. */
static void coll_nb_sweep(void)
{
    int i = 0;

    while (i < coll_nb_lingering.n) {
        MPI_Comm comm = coll_nb_lingering.comms[i];
        int drop = 0;

        if (coll_nb_take_out(comm, &drop)) {
            i++;
        } else {
            coll_nb_lingering.comms[i] =
                coll_nb_lingering.comms[--coll_nb_lingering.n];
        }
        while (drop-- > 0) {
            gcm_mpi_comm_unref(comm);
        }
    }
}

void gcm_mpi_coll_comm_free(MPI_Comm comm)
{
    pthread_mutex_lock(&coll_nb_lingering.lock);
    coll_nb_sweep();
    if (gcm_mpi_coll_nb_uninstall(comm)) {
        if (coll_nb_lingering.n == coll_nb_lingering.cap) {
            int cap = (coll_nb_lingering.cap > 0) ?
                      2 * coll_nb_lingering.cap : 8;
            MPI_Comm *grown = realloc(coll_nb_lingering.comms,
                                      (size_t)cap * sizeof(*grown));

            if (grown == NULL) {
                /* It stays until MPI_Finalize frees every communicator. */
                pthread_mutex_unlock(&coll_nb_lingering.lock);
                return;
            }
            coll_nb_lingering.comms = grown;
            coll_nb_lingering.cap = cap;
        }
        coll_nb_lingering.comms[coll_nb_lingering.n++] = comm;
    }
    pthread_mutex_unlock(&coll_nb_lingering.lock);
}

void gcm_mpi_coll_lingering_clear(void)
{
    pthread_mutex_lock(&coll_nb_lingering.lock);
    free(coll_nb_lingering.comms);
    coll_nb_lingering.comms = NULL;
    coll_nb_lingering.n = 0;
    coll_nb_lingering.cap = 0;
    pthread_mutex_unlock(&coll_nb_lingering.lock);
}

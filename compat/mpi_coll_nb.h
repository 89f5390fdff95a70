/*
 * compat/mpi_coll_nb.h: a nonblocking (or persistent) collective's
 * schedule object and the running list that the wait hook advances,
 * between compat/mpi_coll_run.c (requests: start, wait, release) and
 * compat/mpi_coll_list.c (the list and the hook).
 */
#ifndef GCM_MPI_COLL_NB_H
#define GCM_MPI_COLL_NB_H

#include "compat/mpi_coll_impl.h"

#include <stdatomic.h>

/*
 * Nonblocking collectives progress whenever any thread waits in the
 * library, not only when their own request is tested (MPI-3.1 5.12: a
 * process blocked in a wait on something else must not keep a collective
 * of its peers from completing). Running schedules are listed here; the
 * wait hook (gcm_lco_set_wait_hook) advances each one that no other
 * thread is advancing at the moment: in verification mode its check
 * first (which must pass at every member before the schedule starts, and
 * which the other members' waits may need, whatever request this member
 * waits on), then its schedule. A schedule is listed (or parked, see
 * gcm_mpi_coll_nb_list) when it starts (unless it ran to its end there) and
 * unlisted once over or before it is freed. A wait on its own request
 * runs it as a blocking call does (coll_req_wait; MPI_Wait:
 * gcm_mpi_coll_req_wait).
 */
struct gcm_mpi_coll_nb {
    coll_sched_t s;
    /* The request object of its calls, kept with it (allocated at its
     * first request, freed with it): gcm_mpi_req_generic_kept. Released,
     * it comes back with the schedule (coll_req_cleanup, the release's
     * last step), so a call that takes the schedule takes a request no
     * other thread touches any more. */
    gcm_mpi_req_t *req;
    gcm_list_t   elem;
    atomic_int   busy;     /* a thread advances the check or s */
    int          listed;   /* on the list (changed under its lock) */
    int          parked;   /* put in the parked slot (its caller's) */
    /* Kept for the next call with the same arguments (which >= 0, keep
     * set once its build proved keepable): see gcm_mpi_coll_nb_get. */
    int          which;
    int          keep;
    /* Installed in its communicator's slot (nbkept[which]; set before it
     * goes there, cleared when a call on comm takes it out), and then
     * inuse: COLL_NB_IDLE (the next call may take it), COLL_NB_RUNNING
     * (a request runs it: set by the call that takes it, cleared by the
     * request's end with a release store, its last touch of the object)
     * or COLL_NB_DEAD (its request failed: the next call on comm that
     * finds it frees it). */
    int          installed;
    atomic_int   inuse;
    unsigned     seq0;
    coll_key_t   key;
    MPI_Comm     comm;
    /* The cache of comm when the call made it (NULL: none): the object
     * goes back there as its spare when freed. */
    struct gcm_mpi_coll_cache *cache;
    /* Verification mode: the check of the call (NULL: none, or over);
     * failed: the class of its mismatch (the schedule never runs), and
     * text why (malloc'd, may be NULL). */
    struct gcm_mpi_coll_vfy *gate;
    int          failed;
    char        *text;
    int          held;     /* coll_nb_hold took its references */
    int          owns;     /* 0: not known yet; 1: its steps use only
                            * predefined types and operators (nothing to
                            * hold); 2: some step uses another */
    /* (A field added here is set by gcm_mpi_coll_new.) */
};

typedef struct gcm_mpi_coll_nb coll_nb_t;

enum { COLL_NB_IDLE = 0, COLL_NB_RUNNING = 1, COLL_NB_DEAD = 2 };

/* The running list (mpi_coll_list.c): its lock, the listed schedules, and
 * the one parked slot (see there). Read inline by the fast paths of
 * gcm_mpi_coll_nb_list and gcm_mpi_coll_nb_unlist only. */
struct gcm_mpi_coll_nb_reg {
    atomic_int lock;
    gcm_list_t active;
    atomic_int n;
    atomic_int hooked;   /* the wait hook is set (set under lock) */
    _Atomic(coll_nb_t *) parked;
};
extern struct gcm_mpi_coll_nb_reg gcm_mpi_coll_nb_reg GCM_INTERNAL;

/* Advances nb's check, then its schedule, without blocking (busy held
 * or nb not shared yet); 1 once it is over: run to its end, or failed
 * its check. */
int gcm_mpi_coll_nb_advance(coll_nb_t *nb) GCM_INTERNAL;

/* gcm_mpi_coll_nb_list when the parked slot is taken: listed under the
 * lock (the wait hook set on the first). */
void gcm_mpi_coll_nb_list_slow(coll_nb_t *nb) GCM_INTERNAL;

/* gcm_mpi_coll_nb_unlist when nb is listed, or was parked and a hook
 * took it from the slot since. */
void gcm_mpi_coll_nb_unlist_slow(coll_nb_t *nb) GCM_INTERNAL;

/* Makes nb's progress every wait's business: parked (one
 * compare-and-swap, inline: a collective waited at once parks and takes
 * back its schedule at every call), or listed. */
static inline void gcm_mpi_coll_nb_list(coll_nb_t *nb)
{
    coll_nb_t *none = NULL;

    if (nb->listed || nb->parked) {
        return;
    }
    if (atomic_load_explicit(&gcm_mpi_coll_nb_reg.hooked,
                             memory_order_relaxed) &&
        atomic_load_explicit(&gcm_mpi_coll_nb_reg.parked,
                             memory_order_relaxed) == NULL &&
        atomic_compare_exchange_strong_explicit(
            &gcm_mpi_coll_nb_reg.parked, &none, nb, memory_order_release,
            memory_order_relaxed)) {
        nb->parked = 1;
        return;
    }
    gcm_mpi_coll_nb_list_slow(nb);
}

/* Takes nb off the list or out of the parked slot (inline: out of the
 * slot, where no hook took it); nothing when it is in neither (a
 * schedule run to its end where it started, or unlisted already). */
static inline void gcm_mpi_coll_nb_unlist(coll_nb_t *nb)
{
    coll_nb_t *self = nb;

    if (nb->parked &&
        atomic_compare_exchange_strong_explicit(
            &gcm_mpi_coll_nb_reg.parked, &self, NULL, memory_order_acquire,
            memory_order_relaxed)) {
        nb->parked = 0;
        return;
    }
    if (nb->parked || nb->listed) {
        gcm_mpi_coll_nb_unlist_slow(nb);
    }
}

#endif /* GCM_MPI_COLL_NB_H */

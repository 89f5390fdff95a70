/*
 * compat/mpi_win_passive.c: passive target synchronization (MPI-3.1
 * 11.5.3 to 11.5.4): lock, unlock, lock_all, unlock_all, the flushes and
 * MPI_Win_sync.
 */
#include "config.h"

#include "compat/mpi_win.h"

#include <limits.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/uio.h>
#include <time.h>
#include <unistd.h>

/* ---- passive target ---------------------------------------------------------- */

/* The lock word of a target of this host. */
typedef struct gcm_win_lockarg {
    gcm_win_ctl_t *ctl;
    int            type;
    int            taken;
} gcm_win_lockarg_t;

/* Stays true once it took the lock (a wait may ask again). */
static int gcm_win_lock_taken(void *arg)
{
    gcm_win_lockarg_t *a = arg;

    if (!a->taken) {
        a->taken = gcm_win_lock_try(a->ctl, a->type);
    }
    return a->taken;
}

typedef struct gcm_win_grant_arg {
    MPI_Win    win;
    const int *ranks;
    int        n;
} gcm_win_grant_arg_t;

static int gcm_win_granted(void *arg)
{
    gcm_win_grant_arg_t *a = arg;
    int i;

    for (i = 0; i < a->n; i++) {
        if (atomic_load(&a->win->t[a->ranks[i]].grants) <= 0) {
            return 0;
        }
    }
    return 1;
}

/* Takes the lock of type on each of ranks (none NOCHECK): those of this
 * host on their lock word, the others through their handler (all asked
 * first, then all waited for). */
static int gcm_win_acquire(MPI_Win win, int type, const int *ranks, int n,
                           const char *call)
{
    gcm_win_grant_arg_t garg;
    gcm_win_lockarg_t larg;
    int *remote, nremote = 0, i, rc;

    remote = malloc(((size_t)n + 1) * sizeof(int));
    if (remote == NULL) {
        return gcm_mpi_win_raise(win, MPI_ERR_NO_MEM, call, "out of memory");
    }
    for (i = 0; i < n; i++) {
        if (win->t[ranks[i]].method == GCM_WIN_REMOTE) {
            rc = gcm_mpi_win_send_sync(win, ranks[i], GCM_WIN_MSG_LOCK, type,
                                       call);
            if (rc != MPI_SUCCESS) {
                free(remote);
                return rc;
            }
            remote[nremote++] = ranks[i];
        }
    }
    for (i = 0; i < n; i++) {
        if (win->t[ranks[i]].method != GCM_WIN_REMOTE) {
            larg.ctl   = win->t[ranks[i]].ctl;
            larg.type  = type;
            larg.taken = 0;
            if (!gcm_win_lock_taken(&larg)) {
                gcm_mpi_win_spin(win, gcm_win_lock_taken, &larg);
            }
        }
    }
    if (nremote > 0) {
        garg.win   = win;
        garg.ranks = remote;
        garg.n     = nremote;
        gcm_mpi_win_wait(win, gcm_win_granted, &garg);
        for (i = 0; i < nremote; i++) {
            atomic_fetch_sub(&win->t[remote[i]].grants, 1);
        }
    }
    free(remote);
    gcm_win_observe(win);
    return MPI_SUCCESS;
}

/* Releases the lock of type on rank (its operations complete already). */
static int gcm_win_release_lock(MPI_Win win, int rank, int type,
                                const char *call)
{
    gcm_win_target_t *t = &win->t[rank];

    if (t->method == GCM_WIN_REMOTE) {
        return gcm_mpi_win_send_sync(win, rank, GCM_WIN_MSG_UNLOCK, type,
                                     call);
    }
    gcm_win_lock_release(t->ctl, type);
    /* Against a request being queued at the target: see gcm_win_lock_in
     * (mpi_rma_target.c). */
    atomic_thread_fence(memory_order_seq_cst);
    if (atomic_load(&t->ctl->rwait) > 0) {
        /* Requests of other hosts wait at that target: its handler must
         * look again (this process's own are granted here). */
        if (rank == win->rank) {
            gcm_mpi_win_grant_queued(win);
        } else {
            return gcm_mpi_win_send_sync(win, rank, GCM_WIN_MSG_RETRY, 0,
                                         call);
        }
    }
    return MPI_SUCCESS;
}

/* A lock held without asking (MPI_MODE_NOCHECK): not released either. */
#define GCM_WIN_LOCK_NOCHECK 0x10000

int PMPI_Win_lock(int lock_type, int rank, int assert, MPI_Win win)
{
    static const char *call = "MPI_Win_lock";
    int rc;

    if ((rc = gcm_mpi_win_check_assert(win, assert, MPI_MODE_NOCHECK, "a lock",
                                       call)) != MPI_SUCCESS) {
        return rc;
    }
    if ((lock_type != MPI_LOCK_SHARED) && (lock_type != MPI_LOCK_EXCLUSIVE)) {
        return gcm_mpi_win_raise(win, MPI_ERR_LOCKTYPE, call, "lock type %d "
                                 "is neither MPI_LOCK_SHARED nor "
                                 "MPI_LOCK_EXCLUSIVE", lock_type);
    }
    if (rank == MPI_PROC_NULL) {
        return MPI_SUCCESS;
    }
    if ((rc = gcm_mpi_win_check_rank(win, rank, call)) != MPI_SUCCESS) {
        return rc;
    }
    if (win->t[rank].lock != 0) {
        return gcm_mpi_win_raise(win, MPI_ERR_RMA_SYNC, call, "rank %d is "
                                 "locked already by this process", rank);
    }
    if (win->lock_all || win->access_on || win->expose_on) {
        return gcm_mpi_win_raise(win, MPI_ERR_RMA_SYNC, call, "%s is open",
                                 gcm_mpi_win_open_epoch(win));
    }
    if (!(assert & MPI_MODE_NOCHECK)) {
        rc = gcm_win_acquire(win, lock_type, &rank, 1, call);
        if (rc != MPI_SUCCESS) {
            return rc;
        }
        win->t[rank].lock = lock_type;
    } else {
        win->t[rank].lock = lock_type | GCM_WIN_LOCK_NOCHECK;
    }
    win->nlocked++;
    win->fence = 0;
    return MPI_SUCCESS;
}
GCM_MPI_ALIAS(Win_lock)

int PMPI_Win_unlock(int rank, MPI_Win win)
{
    static const char *call = "MPI_Win_unlock";
    int rc, lock, first;

    if ((rc = gcm_mpi_win_check(win, call)) != MPI_SUCCESS) {
        return rc;
    }
    if (rank == MPI_PROC_NULL) {
        return MPI_SUCCESS;
    }
    if ((rc = gcm_mpi_win_check_rank(win, rank, call)) != MPI_SUCCESS) {
        return rc;
    }
    lock = win->t[rank].lock;
    if (lock == 0) {
        return gcm_mpi_win_raise(win, MPI_ERR_RMA_SYNC, call, "rank %d is "
                                 "not locked by this process (MPI_Win_lock)",
                                 rank);
    }
    first = gcm_mpi_win_flush_target(win, rank, call);
    gcm_mpi_win_reap(win, 0);
    atomic_thread_fence(memory_order_seq_cst);
    win->t[rank].lock = 0;
    win->nlocked--;
    if (!(lock & GCM_WIN_LOCK_NOCHECK)) {
        rc = gcm_win_release_lock(win, rank, lock, call);
        if (first == MPI_SUCCESS) {
            first = rc;
        }
    }
    return first;
}
GCM_MPI_ALIAS(Win_unlock)

int PMPI_Win_lock_all(int assert, MPI_Win win)
{
    static const char *call = "MPI_Win_lock_all";
    int *ranks, r, rc;

    if ((rc = gcm_mpi_win_check_assert(win, assert, MPI_MODE_NOCHECK,
                                       "a lock", call)) != MPI_SUCCESS) {
        return rc;
    }
    if (gcm_mpi_win_open_epoch(win) != NULL) {
        return gcm_mpi_win_raise(win, MPI_ERR_RMA_SYNC, call, "%s is open",
                                 gcm_mpi_win_open_epoch(win));
    }
    if (!(assert & MPI_MODE_NOCHECK)) {
        ranks = malloc(((size_t)win->size + 1) * sizeof(int));
        if (ranks == NULL) {
            return gcm_mpi_win_raise(win, MPI_ERR_NO_MEM, call,
                                     "out of memory");
        }
        for (r = 0; r < win->size; r++) {
            ranks[r] = r;
        }
        rc = gcm_win_acquire(win, MPI_LOCK_SHARED, ranks, win->size, call);
        free(ranks);
        if (rc != MPI_SUCCESS) {
            return rc;
        }
        win->lock_all = 1;
    } else {
        win->lock_all = 2;
    }
    win->fence = 0;
    return MPI_SUCCESS;
}
GCM_MPI_ALIAS(Win_lock_all)

int PMPI_Win_unlock_all(MPI_Win win)
{
    static const char *call = "MPI_Win_unlock_all";
    int r, rc, nocheck, first;

    if ((rc = gcm_mpi_win_check(win, call)) != MPI_SUCCESS) {
        return rc;
    }
    if (!win->lock_all) {
        return gcm_mpi_win_raise(win, MPI_ERR_RMA_SYNC, call, "no "
                                 "MPI_Win_lock_all epoch is open");
    }
    first = gcm_mpi_win_flush_all(win, call);
    nocheck = (win->lock_all == 2);
    win->lock_all = 0;
    for (r = 0; (r < win->size) && !nocheck; r++) {
        rc = gcm_win_release_lock(win, r, MPI_LOCK_SHARED, call);
        if (first == MPI_SUCCESS) {
            first = rc;
        }
    }
    return first;
}
GCM_MPI_ALIAS(Win_unlock_all)

/* rank may be flushed: a passive-target epoch reaches it. */
static int gcm_win_check_passive(MPI_Win win, int rank, const char *call)
{
    if (!win->lock_all && (win->t[rank].lock == 0)) {
        return gcm_mpi_win_raise(win, MPI_ERR_RMA_SYNC, call, "rank %d is "
                                 "not locked (MPI_Win_lock or "
                                 "MPI_Win_lock_all)", rank);
    }
    return MPI_SUCCESS;
}

static int gcm_win_flush_common(int rank, MPI_Win win, const char *call)
{
    int rc;

    if ((rc = gcm_mpi_win_check(win, call)) != MPI_SUCCESS) {
        return rc;
    }
    if (rank == MPI_PROC_NULL) {
        return MPI_SUCCESS;
    }
    if (((rc = gcm_mpi_win_check_rank(win, rank, call)) != MPI_SUCCESS) ||
        ((rc = gcm_win_check_passive(win, rank, call)) != MPI_SUCCESS)) {
        return rc;
    }
    rc = gcm_mpi_win_flush_target(win, rank, call);
    gcm_mpi_win_reap(win, 0);
    atomic_thread_fence(memory_order_seq_cst);
    return rc;
}

static int gcm_win_flush_all_common(MPI_Win win, const char *call)
{
    int rc;

    if ((rc = gcm_mpi_win_check(win, call)) != MPI_SUCCESS) {
        return rc;
    }
    if (!win->lock_all && (win->nlocked == 0)) {
        return gcm_mpi_win_raise(win, MPI_ERR_RMA_SYNC, call, "no passive "
                                 "target epoch is open (MPI_Win_lock or "
                                 "MPI_Win_lock_all)");
    }
    return gcm_mpi_win_flush_all(win, call);
}

/* Local completion is not cheaper to wait for than remote completion in
 * any of the paths (copies, or messages acknowledged in order): the local
 * forms complete remotely too, which MPI allows. */
int PMPI_Win_flush(int rank, MPI_Win win)
{
    return gcm_win_flush_common(rank, win, "MPI_Win_flush");
}
GCM_MPI_ALIAS(Win_flush)

int PMPI_Win_flush_local(int rank, MPI_Win win)
{
    return gcm_win_flush_common(rank, win, "MPI_Win_flush_local");
}
GCM_MPI_ALIAS(Win_flush_local)

int PMPI_Win_flush_all(MPI_Win win)
{
    return gcm_win_flush_all_common(win, "MPI_Win_flush_all");
}
GCM_MPI_ALIAS(Win_flush_all)

int PMPI_Win_flush_local_all(MPI_Win win)
{
    return gcm_win_flush_all_common(win, "MPI_Win_flush_local_all");
}
GCM_MPI_ALIAS(Win_flush_local_all)

int PMPI_Win_sync(MPI_Win win)
{
    static const char *call = "MPI_Win_sync";
    int rc;

    if ((rc = gcm_mpi_win_check(win, call)) != MPI_SUCCESS) {
        return rc;
    }
    /* One copy of the memory (MPI_WIN_UNIFIED): a full barrier of this
     * processor orders this process's loads and stores against the
     * others'. */
    atomic_thread_fence(memory_order_seq_cst);
    gcm_lco_progress(win->comm->lco);
    gcm_win_observe(win);
    return MPI_SUCCESS;
}
GCM_MPI_ALIAS(Win_sync)

/*
 * compat/mpi_win_active.c: active target synchronization (MPI-3.1
 * 11.5.1, 11.5.2): MPI_Win_fence, and post, start, complete, wait and
 * test; the checks of ranks and assertions the passive calls share.
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

/* ---- synchronization --------------------------------------------------------- */

int gcm_mpi_win_check_rank(MPI_Win win, int rank, const char *call)
{
    if ((rank < 0) || (rank >= win->size)) {
        return gcm_mpi_win_raise(win, MPI_ERR_RANK, call, "rank %d is not a "
                                 "rank of the window (size %d)", rank,
                                 win->size);
    }
    return MPI_SUCCESS;
}

/* Completes this process's operations on every target; the first error
 * (raised already) is returned, after all the others were flushed: the
 * synchronization that follows must go on (other processes wait for it).
 * The calls that end epochs do the same. */
int gcm_mpi_win_flush_all(MPI_Win win, const char *call)
{
    int r, rc, first = MPI_SUCCESS;

    for (r = 0; r < win->size; r++) {
        rc = gcm_mpi_win_flush_target(win, r, call);
        if (first == MPI_SUCCESS) {
            first = rc;
        }
    }
    gcm_mpi_win_reap(win, 1);
    atomic_thread_fence(memory_order_seq_cst);
    return first;
}

/* The window is live and assert holds only bits of allowed (what: the
 * call's kind, for the text). */
int gcm_mpi_win_check_assert(MPI_Win win, int assert, int allowed,
                             const char *what, const char *call)
{
    int rc;

    if ((rc = gcm_mpi_win_check(win, call)) != MPI_SUCCESS) {
        return rc;
    }
    if ((assert & ~allowed) != 0) {
        return gcm_mpi_win_raise(win, MPI_ERR_ASSERT, call, "assert %#x "
                                 "holds bits %s does not take", assert,
                                 what);
    }
    return MPI_SUCCESS;
}

int PMPI_Win_fence(int assert, MPI_Win win)
{
    static const char *call = "MPI_Win_fence";
    const char *open;
    int rc, first = MPI_SUCCESS;

    if ((rc = gcm_mpi_win_check_assert(win, assert, MPI_MODE_NOSTORE |
                                       MPI_MODE_NOPUT | MPI_MODE_NOPRECEDE |
                                       MPI_MODE_NOSUCCEED, "a fence",
                                       call)) != MPI_SUCCESS) {
        return rc;
    }
    open = gcm_mpi_win_open_epoch(win);
    if (open != NULL) {
        return gcm_mpi_win_raise(win, MPI_ERR_RMA_SYNC, call, "%s is open",
                                 open);
    }
    if (!(assert & MPI_MODE_NOPRECEDE)) {
        first = gcm_mpi_win_flush_all(win, call);
    }
    rc = PMPI_Barrier(win->comm);
    if (rc != MPI_SUCCESS) {
        return gcm_mpi_win_raise(win, rc, call, "the barrier failed");
    }
    atomic_thread_fence(memory_order_seq_cst);
    gcm_win_observe(win);
    win->fence = !(assert & MPI_MODE_NOSUCCEED);
    return first;
}
GCM_MPI_ALIAS(Win_fence)

/* The ranks of the window of group's members, in *ranks_p (malloc'd). */
static int gcm_win_group_ranks(MPI_Win win, MPI_Group group, int **ranks_p,
                               int *n_p, const char *call)
{
    MPI_Group wgroup;
    int *in, *out, n, i, rc;

    if (gcm_mpi_group_check(group) != 0) {
        return gcm_mpi_win_raise(win, MPI_ERR_GROUP, call,
                                 "not a valid group");
    }
    if (win->comm->size != win->comm->psize) {
        return gcm_mpi_win_raise(win, MPI_ERR_UNSUPPORTED_OPERATION, call,
                                 "groups name processes, and this window's "
                                 "processes hold several LCOs each: use "
                                 "fences or locks");
    }
    PMPI_Group_size(group, &n);
    in  = malloc(((size_t)n + 1) * sizeof(int));
    out = malloc(((size_t)n + 1) * sizeof(int));
    if ((in == NULL) || (out == NULL)) {
        free(in);
        free(out);
        return gcm_mpi_win_raise(win, MPI_ERR_NO_MEM, call, "out of memory");
    }
    for (i = 0; i < n; i++) {
        in[i] = i;
    }
    rc = PMPI_Comm_group(win->comm, &wgroup);
    if (rc == MPI_SUCCESS) {
        rc = PMPI_Group_translate_ranks(group, n, in, wgroup, out);
        PMPI_Group_free(&wgroup);
    }
    free(in);
    if (rc != MPI_SUCCESS) {
        free(out);
        return gcm_mpi_win_raise(win, rc, call, "cannot translate the group");
    }
    for (i = 0; i < n; i++) {
        if (out[i] == MPI_UNDEFINED) {
            free(out);
            return gcm_mpi_win_raise(win, MPI_ERR_GROUP, call, "rank %d of "
                                     "the group is not in the window", i);
        }
    }
    *ranks_p = out;
    *n_p = n;
    return MPI_SUCCESS;
}

/* What post and start check: the epoch they open is not open already
 * (open, and why not if it is), no passive-target epoch is, and the
 * group's ranks in the window (*ranks_p, malloc'd). */
static int gcm_win_pscw_open(MPI_Win win, MPI_Group group, int open,
                             const char *why, int **ranks_p, int *n_p,
                             const char *call)
{
    if (open) {
        return gcm_mpi_win_raise(win, MPI_ERR_RMA_SYNC, call, "%s", why);
    }
    if (win->lock_all || (win->nlocked > 0)) {
        return gcm_mpi_win_raise(win, MPI_ERR_RMA_SYNC, call, "a passive "
                                 "target epoch is open");
    }
    return gcm_win_group_ranks(win, group, ranks_p, n_p, call);
}

int PMPI_Win_post(MPI_Group group, int assert, MPI_Win win)
{
    static const char *call = "MPI_Win_post";
    int rc, i, *ranks, n;

    if ((rc = gcm_mpi_win_check_assert(win, assert, MPI_MODE_NOCHECK |
                                       MPI_MODE_NOSTORE | MPI_MODE_NOPUT,
                                       "a post", call)) != MPI_SUCCESS) {
        return rc;
    }
    rc = gcm_win_pscw_open(win, group, win->expose_on, "an exposure epoch "
                           "is open already (MPI_Win_wait first)", &ranks,
                           &n, call);
    if (rc != MPI_SUCCESS) {
        return rc;
    }
    atomic_thread_fence(memory_order_seq_cst);
    for (i = 0; i < n; i++) {
        /* NOCHECK: the origins know the epoch is open (the program
         * synchronized otherwise); MPI_Win_start then waits for
         * nothing. */
        if (!(assert & MPI_MODE_NOCHECK)) {
            rc = gcm_mpi_win_send_sync(win, ranks[i], GCM_WIN_MSG_POST, 0,
                                       call);
            if (rc != MPI_SUCCESS) {
                free(ranks);
                return rc;
            }
        }
    }
    free(win->expose);
    win->expose    = ranks;
    win->nexpose   = n;
    win->expose_on = 1;
    win->fence     = 0;
    return MPI_SUCCESS;
}
GCM_MPI_ALIAS(Win_post)

typedef struct gcm_win_count_arg {
    MPI_Win    win;
    const int *ranks;
    int        n;
    int        posts;   /* count POSTs, else COMPLETEs */
} gcm_win_count_arg_t;

static int gcm_win_counted(void *arg)
{
    gcm_win_count_arg_t *a = arg;
    int i;

    for (i = 0; i < a->n; i++) {
        gcm_win_target_t *t = &a->win->t[a->ranks[i]];

        if (atomic_load(a->posts ? &t->posts : &t->completes) <= 0) {
            return 0;
        }
    }
    return 1;
}

static void gcm_win_uncount(gcm_win_count_arg_t *a)
{
    int i;

    for (i = 0; i < a->n; i++) {
        gcm_win_target_t *t = &a->win->t[a->ranks[i]];

        atomic_fetch_sub(a->posts ? &t->posts : &t->completes, 1);
    }
}

int PMPI_Win_start(MPI_Group group, int assert, MPI_Win win)
{
    static const char *call = "MPI_Win_start";
    gcm_win_count_arg_t arg;
    int rc, i, *ranks, n;

    if ((rc = gcm_mpi_win_check_assert(win, assert, MPI_MODE_NOCHECK,
                                       "a start", call)) != MPI_SUCCESS) {
        return rc;
    }
    rc = gcm_win_pscw_open(win, group, win->access_on, "an access epoch "
                           "is open already (MPI_Win_complete first)",
                           &ranks, &n, call);
    if (rc != MPI_SUCCESS) {
        return rc;
    }
    if (!(assert & MPI_MODE_NOCHECK)) {
        /* Each target's POST: its exposure epoch is open. */
        arg.win   = win;
        arg.ranks = ranks;
        arg.n     = n;
        arg.posts = 1;
        gcm_mpi_win_wait(win, gcm_win_counted, &arg);
        gcm_win_uncount(&arg);
    }
    atomic_thread_fence(memory_order_seq_cst);
    for (i = 0; i < n; i++) {
        win->t[ranks[i]].access_in = 1;
    }
    free(win->access);
    win->access    = ranks;
    win->naccess   = n;
    win->access_on = 1;
    win->fence     = 0;
    return MPI_SUCCESS;
}
GCM_MPI_ALIAS(Win_start)

int PMPI_Win_complete(MPI_Win win)
{
    static const char *call = "MPI_Win_complete";
    int rc, i, first = MPI_SUCCESS;

    if ((rc = gcm_mpi_win_check(win, call)) != MPI_SUCCESS) {
        return rc;
    }
    if (!win->access_on) {
        return gcm_mpi_win_raise(win, MPI_ERR_RMA_SYNC, call, "no access "
                                 "epoch is open (MPI_Win_start)");
    }
    for (i = 0; i < win->naccess; i++) {
        rc = gcm_mpi_win_flush_target(win, win->access[i], call);
        if (first == MPI_SUCCESS) {
            first = rc;
        }
    }
    atomic_thread_fence(memory_order_seq_cst);
    for (i = 0; i < win->naccess; i++) {
        win->t[win->access[i]].access_in = 0;
        /* After the operations on the same connection: the target's
         * handler sees them done first. */
        rc = gcm_mpi_win_send_sync(win, win->access[i],
                                   GCM_WIN_MSG_COMPLETE, 0, call);
        if (first == MPI_SUCCESS) {
            first = rc;
        }
    }
    win->access_on = 0;
    return first;
}
GCM_MPI_ALIAS(Win_complete)

static void gcm_win_expose_end(MPI_Win win)
{
    gcm_win_count_arg_t arg;

    arg.win   = win;
    arg.ranks = win->expose;
    arg.n     = win->nexpose;
    arg.posts = 0;
    gcm_win_uncount(&arg);
    win->expose_on = 0;
    atomic_thread_fence(memory_order_seq_cst);
    gcm_win_observe(win);
}

/* The count of the open exposure epoch's completions (gcm_win_counted),
 * or MPI_ERR_RMA_SYNC raised when no exposure epoch is open. */
static int gcm_win_exposure(MPI_Win win, gcm_win_count_arg_t *arg,
                            const char *call)
{
    if (!win->expose_on) {
        return gcm_mpi_win_raise(win, MPI_ERR_RMA_SYNC, call, "no exposure "
                                 "epoch is open (MPI_Win_post)");
    }
    arg->win   = win;
    arg->ranks = win->expose;
    arg->n     = win->nexpose;
    arg->posts = 0;
    return MPI_SUCCESS;
}

int PMPI_Win_wait(MPI_Win win)
{
    static const char *call = "MPI_Win_wait";
    gcm_win_count_arg_t arg;
    int rc;

    if ((rc = gcm_mpi_win_check(win, call)) != MPI_SUCCESS) {
        return rc;
    }
    if ((rc = gcm_win_exposure(win, &arg, call)) != MPI_SUCCESS) {
        return rc;
    }
    gcm_mpi_win_wait(win, gcm_win_counted, &arg);
    gcm_win_expose_end(win);
    return MPI_SUCCESS;
}
GCM_MPI_ALIAS(Win_wait)

int PMPI_Win_test(MPI_Win win, int *flag)
{
    static const char *call = "MPI_Win_test";
    gcm_win_count_arg_t arg;
    int rc;

    if ((rc = gcm_mpi_win_check_ptr(win, flag, "flag", call)) != MPI_SUCCESS) {
        return rc;
    }
    if ((rc = gcm_win_exposure(win, &arg, call)) != MPI_SUCCESS) {
        return rc;
    }
    gcm_lco_progress(win->comm->lco);
    *flag = gcm_win_counted(&arg);
    if (*flag) {
        gcm_win_expose_end(win);
    }
    return MPI_SUCCESS;
}
GCM_MPI_ALIAS(Win_test)

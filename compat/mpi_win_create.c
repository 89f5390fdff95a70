/*
 * compat/mpi_win_create.c: the four ways to make a window
 * (MPI_Win_create, MPI_Win_allocate, MPI_Win_allocate_shared,
 * MPI_Win_create_dynamic) and MPI_Win_free.
 *
 * Making a window is collective over its communicator: each member
 * makes its memory and control block, a private duplicate of the
 * communicator (its LCO carries the window's messages, its handler set
 * on every receive slot), registers its memory with UCX when some member
 * is on another host, and the members exchange one descriptor each (an
 * allgather, then the UCX keys by an allgatherv). Errors of one member's
 * arguments travel in its descriptor, so that all fail alike rather than
 * some waiting forever. Each origin then decides how it reaches each
 * target, and an allreduce tells every member whether some origin needs
 * its progress (active messages), in which case its endpoint is kept
 * progressed.
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

/* ---- making a window ------------------------------------------------------ */

/* What each member tells the others when a window is made. */
typedef struct gcm_win_desc {
    int32_t  err;        /* MPI_SUCCESS, or the class of its bad argument */
    int32_t  proc;       /* world index */
    int32_t  pid;
    int32_t  disp_unit;
    uint64_t host;       /* host key: equal keys share memory */
    uint64_t base;       /* window memory, in its address space */
    uint64_t size;
    uint64_t ctl;        /* control block, in its address space */
    int32_t  ctl_fd;
    int32_t  data_fd;    /* >= 0: the memory is in that segment */
    uint64_t data_len;   /* its length */
    uint64_t data_off;   /* where the memory starts in it */
    uint64_t keylen;     /* UCX key bytes (in the allgatherv) */
} gcm_win_desc_t;

/* The world index of rank r of the window's communicator. */
static int gcm_win_rank_proc(MPI_Comm comm, int r)
{
    if (comm->kind == GCM_MPI_COMM_LCO) {
        return gcm_lco_send_slot_proc(comm->lco, r);
    }
    return gcm_mpi_comm_proc(comm, r);
}

static uint64_t gcm_win_host_of(int proc)
{
    uint64_t key = 0;

    if (gcm_mpi_hier_host(proc, &key) != 0) {
        /* No hierarchy: one host. */
        return 0;
    }
    return key;
}

/* A new window object, on the dead list until it is made. */
static MPI_Win gcm_win_alloc(void)
{
    MPI_Win win = calloc(1, sizeof(*win));

    if (win == NULL) {
        return NULL;
    }
    pthread_mutex_init(&win->mtx, NULL);
    gcm_list_init(&win->ops);
    atomic_init(&win->hrefs, 0);
    win->errh = MPI_ERRORS_ARE_FATAL;
    win->next_op = 1;
    pthread_mutex_lock(&gcm_mpi_wins.lock);
    gcm_mpi_wins_init();
    win->id = gcm_mpi_wins.next_id++;
    gcm_list_push_back(&gcm_mpi_wins.dead, &win->elem);
    pthread_mutex_unlock(&gcm_mpi_wins.lock);
    return win;
}

/* Maps what rank r exposes, from its descriptor, and chooses how to
 * reach it. */
static void gcm_win_target_init(MPI_Win win, int r, const gcm_win_desc_t *d,
                                const uint64_t *offsets, const char *key,
                                int myproc, uint64_t myhost)
{
    gcm_win_target_t *t = &win->t[r];
    struct iovec remote;
    uint64_t probe = 0;

    t->size      = (MPI_Aint)d->size;
    t->disp_unit = d->disp_unit;
    t->pid       = d->pid;
    t->proc      = d->proc;
    t->method    = GCM_WIN_REMOTE;
    t->base      = (char *)(uintptr_t)d->base;
    if (d->proc == myproc) {
        t->method = GCM_WIN_DIRECT;
        t->ctl    = (gcm_win_ctl_t *)(uintptr_t)d->ctl;
    } else if (d->host == myhost) {
        t->ctlmap = gcm_lco_seg_map(d->pid, d->ctl_fd, sizeof(gcm_win_ctl_t));
        if ((t->ctlmap != NULL) &&
            (((gcm_win_ctl_t *)t->ctlmap)->magic == GCM_WIN_CTL_MAGIC)) {
            t->ctl = t->ctlmap;
        }
        if ((t->ctl != NULL) && (win->flavor == MPI_WIN_FLAVOR_SHARED)) {
            t->method = GCM_WIN_DIRECT;
        } else if ((t->ctl != NULL) && (d->data_fd >= 0)) {
            t->map = gcm_lco_seg_map(d->pid, d->data_fd,
                                     (size_t)d->data_len);
            if (t->map != NULL) {
                t->maplen = (size_t)d->data_len;
                t->base   = (char *)t->map + d->data_off;
                t->method = GCM_WIN_DIRECT;
            }
        }
        if ((t->ctl != NULL) && (t->method != GCM_WIN_DIRECT)) {
            /* The kernel must let us copy into it (same user, no ptrace
             * restriction): read its control block's magic word. */
            remote.iov_base = (void *)(uintptr_t)d->ctl;
            remote.iov_len  = sizeof(probe);
            if ((gcm_lco_cma(d->pid, 0, &probe, &remote, 1) == GCM_OK) &&
                (probe == GCM_WIN_CTL_MAGIC)) {
                t->method = GCM_WIN_CMA;
            }
        }
        if (t->method == GCM_WIN_REMOTE) {
            t->ctl = NULL;
        }
    }
    if (win->flavor == MPI_WIN_FLAVOR_SHARED) {
        t->base = (char *)win->shmap + offsets[r];
    }
    if ((t->method == GCM_WIN_REMOTE) && (d->keylen > 0) &&
        (gcm_lco_rkey_open(win->comm->lco, r, key, (size_t)d->keylen,
                           &t->rkey) != GCM_OK)) {
        /* Active messages serve it instead. */
        gcm_debug("rma: no UCX key for rank %d: %s", r, gcm_last_error());
        t->rkey = NULL;
    }
}

/* The allgather of the members' descriptors: MPI_SUCCESS, or the error
 * of the first member that reported one (*bad_p its rank). */
static int gcm_win_exchange(MPI_Win win, const gcm_win_desc_t *mine,
                            gcm_win_desc_t *all, int *bad_p)
{
    int rc, r;

    rc = PMPI_Allgather(mine, (int)sizeof(*mine), MPI_BYTE, all,
                        (int)sizeof(*mine), MPI_BYTE, win->comm);
    if (rc != MPI_SUCCESS) {
        return rc;
    }
    for (r = 0; r < win->size; r++) {
        if (all[r].err != MPI_SUCCESS) {
            *bad_p = r;
            return all[r].err;
        }
    }
    return MPI_SUCCESS;
}

/*
 * The common part of the four ways to make a window. base/size: the
 * memory of MPI_Win_create; the allocating flavors allocate it here and
 * return it in *baseptr.
 */
static int gcm_win_make(void *base, MPI_Aint size, int disp_unit,
                        MPI_Info info, MPI_Comm comm, int flavor,
                        const char *call, void *baseptr, MPI_Win *win_p)
{
    gcm_win_desc_t mine, *all = NULL;
    uint64_t *offsets = NULL, total = 0, myhost;
    int *keycounts = NULL, *keydispls = NULL, *need = NULL, *needall = NULL;
    char *keys = NULL;
    void *mykey = NULL;
    size_t mykeylen = 0, seg_off = 0;
    gcm_lco_seg_t *aseg;
    MPI_Win win = MPI_WIN_NULL;
    int rc, r, n, myproc, err = MPI_SUCCESS, remote_any = 0, bad = -1;
    int totalkey = 0, made = 0;

    if ((rc = gcm_mpi_comm_check(comm, call)) != MPI_SUCCESS) {
        return rc;
    }
    if (comm->kind == GCM_MPI_COMM_INTER) {
        return gcm_mpi_raise(comm, MPI_ERR_COMM, call, "windows need an "
                             "intracommunicator");
    }
    if (comm->prank == MPI_UNDEFINED) {
        return gcm_mpi_raise(comm, MPI_ERR_COMM, call, "this LCO has no send "
                             "slot to itself: it is not part of a "
                             "communicator structure");
    }
    if (win_p == NULL) {
        return gcm_mpi_raise(comm, MPI_ERR_ARG, call, "win is NULL");
    }
    /* The other arguments are checked by every member and the verdicts
     * exchanged: a collective that some members leave early hangs the
     * others. */
    if (size < 0) {
        err = MPI_ERR_SIZE;
    } else if (disp_unit <= 0) {
        err = MPI_ERR_DISP;
    } else if ((info != MPI_INFO_NULL) && (gcm_mpi_info_check(info) != 0)) {
        err = MPI_ERR_INFO;
    } else if ((flavor == MPI_WIN_FLAVOR_CREATE) && (size > 0) &&
               (base == NULL)) {
        err = MPI_ERR_BASE;
    } else if ((flavor != MPI_WIN_FLAVOR_CREATE) &&
               (flavor != MPI_WIN_FLAVOR_DYNAMIC) && (baseptr == NULL)) {
        err = MPI_ERR_ARG;
    }

    win = gcm_win_alloc();
    if (win == NULL) {
        return gcm_mpi_raise(comm, MPI_ERR_NO_MEM, call, "out of memory");
    }
    win->flavor    = flavor;
    win->disp_unit = (disp_unit > 0) ? disp_unit : 1;
    win->wsize     = (size > 0) ? size : 0;
    rc = gcm_mpi_comm_dup_bare(comm, call, &win->comm);
    if (rc != MPI_SUCCESS) {
        /* Every member derived alike: they all fail here alike. */
        gcm_mpi_win_release(win);
        return rc;
    }
    /* Errors of the window's collectives are the window's. */
    gcm_mpi_errh_release(win->comm->errh);
    win->comm->errh = MPI_ERRORS_RETURN;
    win->rank = win->comm->prank;
    win->size = win->comm->psize;
    n = win->size;
    myproc = gcm_proc_rank();
    myhost = gcm_win_host_of(myproc);
    for (r = 0; r < n; r++) {
        if (gcm_win_host_of(gcm_win_rank_proc(win->comm, r)) != myhost) {
            remote_any = 1;
        }
    }

    all       = calloc((size_t)n, sizeof(*all));
    offsets   = calloc((size_t)n + 1, sizeof(*offsets));
    keycounts = calloc((size_t)n, sizeof(int));
    keydispls = calloc((size_t)n, sizeof(int));
    need      = calloc((size_t)n, sizeof(int));
    needall   = calloc((size_t)n, sizeof(int));
    win->t    = calloc((size_t)n, sizeof(*win->t));
    if ((all == NULL) || (offsets == NULL) || (keycounts == NULL) ||
        (keydispls == NULL) || (need == NULL) || (needall == NULL) ||
        (win->t == NULL)) {
        err = (err != MPI_SUCCESS) ? err : MPI_ERR_NO_MEM;
    }

    /* This member's memory and control block. */
    if ((err == MPI_SUCCESS) &&
        (gcm_lco_seg_create(sizeof(gcm_win_ctl_t), &win->ctlseg) != GCM_OK)) {
        err = MPI_ERR_NO_MEM;
    }
    if (err == MPI_SUCCESS) {
        win->ctl = gcm_lco_seg_base(win->ctlseg);
        win->ctl->magic = GCM_WIN_CTL_MAGIC;
    }
    memset(&mine, 0, sizeof(mine));
    mine.data_fd = -1;
    if ((err == MPI_SUCCESS) && (flavor == MPI_WIN_FLAVOR_ALLOCATE)) {
        if (gcm_lco_seg_create((size_t)size, &win->seg) != GCM_OK) {
            err = MPI_ERR_NO_MEM;
        } else {
            win->base     = gcm_lco_seg_base(win->seg);
            mine.data_fd  = gcm_lco_seg_fd(win->seg);
            mine.data_len = gcm_lco_seg_len(win->seg);
        }
    } else if ((err == MPI_SUCCESS) && (flavor == MPI_WIN_FLAVOR_CREATE)) {
        win->base = base;
        aseg = (size > 0) ?
               gcm_mpi_win_allocmem_find(base, (size_t)size, &seg_off) : NULL;
        if (aseg != NULL) {
            /* MPI_Alloc_mem memory: the host's processes map it. */
            mine.data_fd  = gcm_lco_seg_fd(aseg);
            mine.data_len = gcm_lco_seg_len(aseg);
            mine.data_off = seg_off;
        }
    }
    if ((err == MPI_SUCCESS) && remote_any && (size > 0) &&
        (flavor != MPI_WIN_FLAVOR_DYNAMIC) &&
        (flavor != MPI_WIN_FLAVOR_SHARED) &&
        (gcm_lco_rmem_register(win->base, (size_t)size, &win->rmem, &mykey,
                               &mykeylen) != GCM_OK)) {
        /* No UCX key: the others reach this memory by active messages. */
        gcm_debug("rma: memory not registered: %s", gcm_last_error());
        win->rmem = NULL;
        mykeylen = 0;
    }
    mine.err       = err;
    mine.proc      = myproc;
    mine.pid       = (int32_t)getpid();
    mine.disp_unit = win->disp_unit;
    mine.host      = myhost;
    mine.base      = (uint64_t)(uintptr_t)win->base;
    mine.size      = (uint64_t)win->wsize;
    mine.ctl       = (uint64_t)(uintptr_t)win->ctl;
    mine.ctl_fd    = (win->ctlseg != NULL) ? gcm_lco_seg_fd(win->ctlseg) : -1;
    mine.keylen    = mykeylen;

    /* allocate_shared: the sizes first; the lowest rank makes one
     * segment for the host, the members' parts one after the other. */
    if (all == NULL) {
        /* Without memory nothing can be exchanged. */
        err = MPI_ERR_NO_MEM;
        goto fail;
    }
    if (flavor == MPI_WIN_FLAVOR_SHARED) {
        err = gcm_win_exchange(win, &mine, all, &bad);
        for (r = 0; (r < n) && (err == MPI_SUCCESS); r++) {
            if (all[r].host != myhost) {
                err = MPI_ERR_RMA_SHARED;
            }
            offsets[r] = total;
            total += all[r].size;
        }
        if (err != MPI_SUCCESS) {
            goto fail;
        }
        offsets[n] = total;
        if (win->rank == 0) {
            if (gcm_lco_seg_create((size_t)total, &win->seg) != GCM_OK) {
                mine.err = MPI_ERR_NO_MEM;
            } else {
                mine.data_fd  = gcm_lco_seg_fd(win->seg);
                mine.data_len = gcm_lco_seg_len(win->seg);
            }
        }
    }
    err = gcm_win_exchange(win, &mine, all, &bad);
    if (err != MPI_SUCCESS) {
        goto fail;
    }
    for (r = 0; r < n; r++) {
        if (all[r].keylen > (uint64_t)(INT_MAX / 2) ||
            (uint64_t)totalkey + all[r].keylen > (uint64_t)(INT_MAX / 2)) {
            err = MPI_ERR_INTERN;
            goto fail;
        }
        keycounts[r] = (int)all[r].keylen;
        keydispls[r] = totalkey;
        totalkey += keycounts[r];
    }
    if (flavor == MPI_WIN_FLAVOR_SHARED) {
        /* The one segment, mapped by every member. */
        if (win->rank == 0) {
            win->shmap = gcm_lco_seg_base(win->seg);
        } else {
            win->shmap = gcm_lco_seg_map(all[0].pid, all[0].data_fd,
                                         (size_t)all[0].data_len);
            win->shmaplen = (size_t)all[0].data_len;
            if (win->shmap == NULL) {
                err = MPI_ERR_RMA_SHARED;
            }
        }
        if (win->shmap != NULL) {
            win->base = (char *)win->shmap + offsets[win->rank];
        }
    }
    if (totalkey > 0) {
        keys = malloc((size_t)totalkey);
        if (keys == NULL) {
            err = MPI_ERR_NO_MEM;
        }
        /* Everybody takes part, whatever its own state. */
        rc = PMPI_Allgatherv(mykey, (int)mykeylen, MPI_BYTE,
                             (keys != NULL) ? keys : mykey, keycounts,
                             keydispls, MPI_BYTE, win->comm);
        if ((rc != MPI_SUCCESS) && (err == MPI_SUCCESS)) {
            err = rc;
        }
    }
    if (err == MPI_SUCCESS) {
        for (r = 0; r < n; r++) {
            gcm_win_target_init(win, r, &all[r], offsets,
                                (keys != NULL) ? keys + keydispls[r] : NULL,
                                myproc, myhost);
            need[r] = (win->t[r].method == GCM_WIN_REMOTE);
            gcm_debug("rma: window %llu reaches rank %d %s",
                      (unsigned long long)win->id, r,
                      (win->t[r].method == GCM_WIN_DIRECT) ? "directly" :
                      (win->t[r].method == GCM_WIN_CMA) ? "by CMA" :
                      (win->t[r].rkey != NULL) ? "by UCX and messages" :
                      "by messages");
        }
        /* Handlers first: a member that leaves the allreduce below may
         * send at once. They find the window on the live list (its
         * handle stays dead until the end). */
        pthread_mutex_lock(&gcm_mpi_wins.lock);
        gcm_list_del(&win->elem);
        gcm_list_push_back(&gcm_mpi_wins.live, &win->elem);
        pthread_mutex_unlock(&gcm_mpi_wins.lock);
        for (r = 0; r < n; r++) {
            if (gcm_lco_set_handler(win->comm->lco, r, gcm_mpi_win_handler,
                                    (void *)(uintptr_t)win->id) != GCM_OK) {
                err = MPI_ERR_INTERN;
            }
        }
    } else {
        /* Nobody reaches anybody: but the allreduce must happen. */
        for (r = 0; r < n; r++) {
            need[r] = -1;
        }
    }
    /* Which members some origin reaches by active messages (they must
     * progress while they compute); -1 from a member that failed. */
    rc = PMPI_Allreduce(need, needall, n, MPI_INT, MPI_MIN, win->comm);
    if (rc == MPI_SUCCESS) {
        int anyfail = 0;

        for (r = 0; r < n; r++) {
            anyfail |= (needall[r] < 0);
        }
        if (anyfail && (err == MPI_SUCCESS)) {
            err = MPI_ERR_OTHER;
        }
        if (err == MPI_SUCCESS) {
            rc = PMPI_Allreduce(need, needall, n, MPI_INT, MPI_MAX,
                                win->comm);
        }
    }
    if ((rc != MPI_SUCCESS) && (err == MPI_SUCCESS)) {
        err = rc;
    }
    if (err != MPI_SUCCESS) {
        goto fail;
    }
    if (needall[win->rank] > 0) {
        if (gcm_lco_keep_progressed(win->comm->lco, 1) != GCM_OK) {
            gcm_warn("rma: cannot start the progress thread (%s): passive "
                     "targets of other hosts progress only in MPI calls",
                     gcm_last_error());
        }
        win->progressed = 1;
    }

    win->attr_size      = win->wsize;
    win->attr_disp_unit = win->disp_unit;
    win->attr_flavor    = flavor;
    win->attr_model     = MPI_WIN_UNIFIED;
    if (info != MPI_INFO_NULL) {
        (void)PMPI_Info_dup(info, &win->info);
    }
    if ((flavor == MPI_WIN_FLAVOR_ALLOCATE) ||
        (flavor == MPI_WIN_FLAVOR_SHARED)) {
        *(void **)baseptr = win->base;
    }
    /* The handle is alive. */
    pthread_mutex_lock(&gcm_mpi_wins.lock);
    win->magic = GCM_MPI_MAGIC_WIN;
    pthread_mutex_unlock(&gcm_mpi_wins.lock);
    gcm_debug("rma: window %llu made (flavor %d, %d ranks)",
              (unsigned long long)win->id, flavor, n);
    *win_p = win;
    made = 1;

fail:
    free(all);
    free(offsets);
    free(keycounts);
    free(keydispls);
    free(need);
    free(needall);
    free(keys);
    free(mykey);
    if (made) {
        return MPI_SUCCESS;
    }
    gcm_mpi_win_release(win);
    if (bad >= 0) {
        return gcm_mpi_raise(comm, err, call, "rank %d passed a bad argument "
                             "(%s)", bad, (err == MPI_ERR_SIZE) ? "size" :
                             (err == MPI_ERR_DISP) ? "disp_unit" :
                             (err == MPI_ERR_INFO) ? "info" :
                             (err == MPI_ERR_BASE) ? "base" :
                             (err == MPI_ERR_NO_MEM) ? "out of memory" :
                             "baseptr or win");
    }
    if (err == MPI_ERR_RMA_SHARED) {
        return gcm_mpi_raise(comm, err, call, "the processes of the "
                             "communicator do not share memory (several "
                             "hosts)");
    }
    return gcm_mpi_raise(comm, err, call, "cannot make the window");
}

/* Releases everything of a window, which leaves it dead (on the dead
 * list). No collective call: MPI_Win_free synchronizes first. */
void gcm_mpi_win_release(MPI_Win win)
{
    int r;

    gcm_mpi_fint_forget(win);
    pthread_mutex_lock(&gcm_mpi_wins.lock);
    win->magic = 0;
    gcm_list_del(&win->elem);
    gcm_list_push_back(&gcm_mpi_wins.dead, &win->elem);
    pthread_mutex_unlock(&gcm_mpi_wins.lock);
    /* A handler that found the window before it left the list ends
     * first. */
    while (atomic_load_explicit(&win->hrefs, memory_order_acquire) > 0) {
        sched_yield();
    }
    if (win->progressed && (win->comm != MPI_COMM_NULL)) {
        (void)gcm_lco_keep_progressed(win->comm->lco, 0);
        win->progressed = 0;
    }
    if (win->comm != MPI_COMM_NULL) {
        /* No handler of its LCO runs once it is freed. */
        gcm_mpi_win_reap(win, 1);
        (void)PMPI_Comm_free(&win->comm);
    }
    for (r = 0; (win->t != NULL) && (r < win->size); r++) {
        gcm_lco_rkey_close(win->t[r].rkey);
        gcm_lco_seg_unmap(win->t[r].map, win->t[r].maplen);
        gcm_lco_seg_unmap(win->t[r].ctlmap, sizeof(gcm_win_ctl_t));
    }
    free(win->t);
    win->t = NULL;
    gcm_lco_rmem_deregister(win->rmem);
    win->rmem = NULL;
    if (win->shmaplen > 0) {
        gcm_lco_seg_unmap(win->shmap, win->shmaplen);
    }
    win->shmap = NULL;
    gcm_lco_seg_destroy(win->seg);
    win->seg = NULL;
    gcm_lco_seg_destroy(win->ctlseg);
    win->ctlseg = NULL;
    win->ctl = NULL;
    free(win->access);
    free(win->expose);
    win->access = win->expose = NULL;
    free(win->sends);
    win->sends = NULL;
    win->nsends = 0;
    free(win->lockq);
    win->lockq = NULL;
    free(win->regions);
    win->regions = NULL;
    if (win->group != MPI_GROUP_NULL) {
        gcm_mpi_group_release(win->group);
        win->group = MPI_GROUP_NULL;
    }
    if (win->info != MPI_INFO_NULL) {
        PMPI_Info_free(&win->info);
    }
    gcm_mpi_errh_release(win->errh);
    win->errh = MPI_ERRORS_ARE_FATAL;
}

int PMPI_Win_create(void *base, MPI_Aint size, int disp_unit, MPI_Info info,
                    MPI_Comm comm, MPI_Win *win)
{
    return gcm_win_make(base, size, disp_unit, info, comm,
                        MPI_WIN_FLAVOR_CREATE, "MPI_Win_create", NULL, win);
}
GCM_MPI_ALIAS(Win_create)

int PMPI_Win_allocate(MPI_Aint size, int disp_unit, MPI_Info info,
                      MPI_Comm comm, void *baseptr, MPI_Win *win)
{
    return gcm_win_make(NULL, size, disp_unit, info, comm,
                        MPI_WIN_FLAVOR_ALLOCATE, "MPI_Win_allocate", baseptr,
                        win);
}
GCM_MPI_ALIAS(Win_allocate)

int PMPI_Win_allocate_shared(MPI_Aint size, int disp_unit, MPI_Info info,
                             MPI_Comm comm, void *baseptr, MPI_Win *win)
{
    return gcm_win_make(NULL, size, disp_unit, info, comm,
                        MPI_WIN_FLAVOR_SHARED, "MPI_Win_allocate_shared",
                        baseptr, win);
}
GCM_MPI_ALIAS(Win_allocate_shared)

int PMPI_Win_create_dynamic(MPI_Info info, MPI_Comm comm, MPI_Win *win)
{
    return gcm_win_make(MPI_BOTTOM, 0, 1, info, comm, MPI_WIN_FLAVOR_DYNAMIC,
                        "MPI_Win_create_dynamic", NULL, win);
}
GCM_MPI_ALIAS(Win_create_dynamic)

/* Names the epochs still open (NULL: none). */
const char *gcm_mpi_win_open_epoch(MPI_Win win)
{
    if (win->lock_all) {
        return "an MPI_Win_lock_all epoch";
    }
    if (win->nlocked > 0) {
        return "an MPI_Win_lock epoch";
    }
    if (win->access_on) {
        return "an access epoch of MPI_Win_start";
    }
    if (win->expose_on) {
        return "an exposure epoch of MPI_Win_post";
    }
    return NULL;
}

int PMPI_Win_free(MPI_Win *winp)
{
    static const char *call = "MPI_Win_free";
    const char *open;
    MPI_Win win;
    int rc;

    if (winp == NULL) {
        return gcm_mpi_raise(NULL, MPI_ERR_ARG, call, "win is NULL");
    }
    win = *winp;
    if ((rc = gcm_mpi_win_check(win, call)) != MPI_SUCCESS) {
        return rc;
    }
    open = gcm_mpi_win_open_epoch(win);
    if (open != NULL) {
        return gcm_mpi_win_raise(win, MPI_ERR_RMA_SYNC, call, "%s is still "
                                 "open (close it before freeing the "
                                 "window)", open);
    }
    {
        gcm_mpi_attr_host_t h = { GCM_MPI_ATTR_WIN, win, &win->attrs };

        rc = gcm_mpi_attr_delete_every(&h);
        if (rc != MPI_SUCCESS) {
            return gcm_mpi_win_raise(win, rc, call, "an attribute delete "
                                     "callback failed");
        }
    }
    /* Nobody touches this memory after everybody arrived here; what
     * this process started must be complete before, and its messages
     * handled (the barrier's own may travel on other connections, and
     * must not overtake one that would then find no window). */
    rc = gcm_mpi_win_quiesce(win, call);
    if (rc != MPI_SUCCESS) {
        return rc;
    }
    gcm_mpi_win_reap(win, 1);
    rc = PMPI_Barrier(win->comm);
    gcm_mpi_win_release(win);
    *winp = MPI_WIN_NULL;
    if (rc != MPI_SUCCESS) {
        return gcm_mpi_raise(NULL, rc, call, "the closing barrier failed");
    }
    return MPI_SUCCESS;
}
GCM_MPI_ALIAS(Win_free)

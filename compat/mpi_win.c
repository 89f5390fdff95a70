/*
 * compat/mpi_win.c: one-sided communication windows (MPI-3.1 chapter
 * 11): MPI_Alloc_mem, the four ways to make a window, MPI_Win_free, what
 * a window carries (attributes, name, info, group, error handler) and
 * every synchronization call (fence; post, start, complete, wait, test;
 * lock, unlock, lock_all, unlock_all, flush, sync). The operations and
 * the active messages are in mpi_rma.c; mpi_win.h says how an origin
 * reaches each target.
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
 *
 * Freed windows are kept (their handle dead) until MPI_Finalize, so that
 * a call on a stale handle reports MPI_ERR_WIN instead of reading freed
 * memory, and a handler call that raced with the free finds no window.
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

/* ---- the windows of the process ------------------------------------------ */

static struct {
    pthread_mutex_t lock;
    int             init;
    gcm_list_t      live;
    gcm_list_t      dead;
    uint64_t        next_id;
} gcm_wins = { PTHREAD_MUTEX_INITIALIZER, 0, { NULL, NULL },
               { NULL, NULL }, 1 };

/* With gcm_wins.lock held. */
static void gcm_wins_init(void)
{
    if (!gcm_wins.init) {
        gcm_list_init(&gcm_wins.live);
        gcm_list_init(&gcm_wins.dead);
        gcm_wins.init = 1;
    }
}

int gcm_mpi_win_valid(MPI_Win win, const char *call)
{
    int rc;

    if ((rc = gcm_mpi_check_init(call)) != MPI_SUCCESS) {
        return rc;
    }
    if (win == MPI_WIN_NULL) {
        return gcm_mpi_raise(NULL, MPI_ERR_WIN, call, "window is "
                             "MPI_WIN_NULL");
    }
    if (win->magic != GCM_MPI_MAGIC_WIN) {
        return gcm_mpi_raise(NULL, MPI_ERR_WIN, call, "not a valid window "
                             "(freed, or never created)");
    }
    return MPI_SUCCESS;
}

int gcm_mpi_win_check(MPI_Win win, const char *call)
{
    int rc = gcm_mpi_win_valid(win, call);

    if (rc == MPI_SUCCESS) {
        gcm_win_publish(win);
    }
    return rc;
}

MPI_Win gcm_mpi_win_hold(uint64_t id)
{
    gcm_list_t *pos, *tmp;
    MPI_Win win = MPI_WIN_NULL;

    pthread_mutex_lock(&gcm_wins.lock);
    if (gcm_wins.init) {
        gcm_list_for_each_safe(pos, tmp, &gcm_wins.live) {
            MPI_Win w = gcm_container_of(pos, struct gcm_mpi_win, elem);

            if (w->id == id) {
                atomic_fetch_add(&w->hrefs, 1);
                win = w;
                break;
            }
        }
    }
    pthread_mutex_unlock(&gcm_wins.lock);
    return win;
}

void gcm_mpi_win_unhold(MPI_Win win)
{
    atomic_fetch_sub_explicit(&win->hrefs, 1, memory_order_release);
}

void gcm_mpi_win_wait(MPI_Win win, int (*done)(void *arg), void *arg)
{
    gcm_lco_wait_on(win->comm->lco, done, arg);
}

void gcm_mpi_win_spin(MPI_Win win, int (*done)(void *arg), void *arg)
{
    struct timespec ts;
    unsigned i;

    for (i = 0; !done(arg); i++) {
        /* Other members may need this process's handlers meanwhile. */
        gcm_lco_progress(win->comm->lco);
        if (done(arg) || (i < 16)) {
            continue;
        }
        if (i < 256) {
            sched_yield();
            continue;
        }
        ts.tv_sec  = 0;
        ts.tv_nsec = (i < 1256) ? (long)(i - 255) * 1000 : 1000000;
        nanosleep(&ts, NULL);
    }
}

/* ---- MPI_Alloc_mem and MPI_Free_mem ---------------------------------------- */

/*
 * Memory from MPI_Alloc_mem lives in a shared segment (unless info says
 * alloc_shm = false), so that a window made over it with MPI_Win_create
 * is reached directly by the other processes of the host, as one from
 * MPI_Win_allocate is. The list finds the segment of an address.
 */
typedef struct gcm_mpi_allocmem {
    struct gcm_mpi_allocmem *next;
    char                    *base;
    size_t                   len;
    gcm_lco_seg_t           *seg;   /* NULL: malloc'd */
} gcm_mpi_allocmem_t;

static struct {
    pthread_mutex_t     lock;
    gcm_mpi_allocmem_t *list;
} gcm_allocmem = { PTHREAD_MUTEX_INITIALIZER, NULL };

/* The segment holding [base, base + len), and base's offset in it. */
static gcm_lco_seg_t *gcm_allocmem_find(const void *base, size_t len,
                                        size_t *off_p)
{
    gcm_mpi_allocmem_t *m;
    gcm_lco_seg_t *seg = NULL;
    uintptr_t b = (uintptr_t)base;

    pthread_mutex_lock(&gcm_allocmem.lock);
    for (m = gcm_allocmem.list; m != NULL; m = m->next) {
        uintptr_t mb = (uintptr_t)m->base;

        if ((m->seg != NULL) && (b >= mb) && (b - mb <= m->len) &&
            (len <= m->len - (b - mb))) {
            seg = m->seg;
            *off_p = (size_t)(b - (uintptr_t)gcm_lco_seg_base(seg));
            break;
        }
    }
    pthread_mutex_unlock(&gcm_allocmem.lock);
    return seg;
}

int PMPI_Alloc_mem(MPI_Aint size, MPI_Info info, void *baseptr)
{
    static const char *call = "MPI_Alloc_mem";
    gcm_mpi_allocmem_t *m;
    char value[16];
    int flag = 0, rc;

    if ((rc = gcm_mpi_check_init(call)) != MPI_SUCCESS) {
        return rc;
    }
    if (size < 0) {
        return gcm_mpi_raise(NULL, MPI_ERR_SIZE, call, "size %ld is "
                             "negative", (long)size);
    }
    if (baseptr == NULL) {
        return gcm_mpi_raise(NULL, MPI_ERR_ARG, call, "baseptr is NULL");
    }
    if ((info != MPI_INFO_NULL) && (gcm_mpi_info_check(info) != 0)) {
        return gcm_mpi_raise(NULL, MPI_ERR_INFO, call,
                             "not a valid info object");
    }
    if (info != MPI_INFO_NULL) {
        (void)PMPI_Info_get(info, "alloc_shm", (int)sizeof(value) - 1, value,
                            &flag);
    }
    m = calloc(1, sizeof(*m));
    if (m == NULL) {
        return gcm_mpi_raise(NULL, MPI_ERR_NO_MEM, call, "out of memory");
    }
    m->len = (size_t)size;
    if (flag && (strcmp(value, "false") == 0)) {
        m->base = malloc((size > 0) ? (size_t)size : 1);
    } else if (gcm_lco_seg_create((size_t)size, &m->seg) == GCM_OK) {
        m->base = gcm_lco_seg_base(m->seg);
    }
    if (m->base == NULL) {
        free(m);
        return gcm_mpi_raise(NULL, MPI_ERR_NO_MEM, call, "cannot allocate "
                             "%ld bytes", (long)size);
    }
    pthread_mutex_lock(&gcm_allocmem.lock);
    m->next = gcm_allocmem.list;
    gcm_allocmem.list = m;
    pthread_mutex_unlock(&gcm_allocmem.lock);
    *(void **)baseptr = m->base;
    return MPI_SUCCESS;
}
GCM_MPI_ALIAS(Alloc_mem)

int PMPI_Free_mem(void *base)
{
    static const char *call = "MPI_Free_mem";
    gcm_mpi_allocmem_t *m, **pos;
    int rc;

    if ((rc = gcm_mpi_check_init(call)) != MPI_SUCCESS) {
        return rc;
    }
    if (base == NULL) {
        return MPI_SUCCESS;
    }
    pthread_mutex_lock(&gcm_allocmem.lock);
    for (pos = &gcm_allocmem.list; (m = *pos) != NULL; pos = &m->next) {
        if (m->base == base) {
            *pos = m->next;
            break;
        }
    }
    pthread_mutex_unlock(&gcm_allocmem.lock);
    if (m == NULL) {
        return gcm_mpi_raise(NULL, MPI_ERR_BASE, call, "%p is not memory "
                             "MPI_Alloc_mem returned (or was freed)", base);
    }
    if (m->seg != NULL) {
        gcm_lco_seg_destroy(m->seg);
    } else {
        free(m->base);
    }
    free(m);
    return MPI_SUCCESS;
}
GCM_MPI_ALIAS(Free_mem)

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

static void gcm_win_release(MPI_Win win);

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
    pthread_mutex_lock(&gcm_wins.lock);
    gcm_wins_init();
    win->id = gcm_wins.next_id++;
    gcm_list_push_back(&gcm_wins.dead, &win->elem);
    pthread_mutex_unlock(&gcm_wins.lock);
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
    int totalkey = 0;

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
        gcm_win_release(win);
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
        aseg = (size > 0) ? gcm_allocmem_find(base, (size_t)size, &seg_off) :
               NULL;
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
        pthread_mutex_lock(&gcm_wins.lock);
        gcm_list_del(&win->elem);
        gcm_list_push_back(&gcm_wins.live, &win->elem);
        pthread_mutex_unlock(&gcm_wins.lock);
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
    free(all);
    free(offsets);
    free(keycounts);
    free(keydispls);
    free(need);
    free(needall);
    free(keys);
    free(mykey);
    /* The handle is alive. */
    pthread_mutex_lock(&gcm_wins.lock);
    win->magic = GCM_MPI_MAGIC_WIN;
    pthread_mutex_unlock(&gcm_wins.lock);
    gcm_debug("rma: window %llu made (flavor %d, %d ranks)",
              (unsigned long long)win->id, flavor, n);
    *win_p = win;
    return MPI_SUCCESS;

fail:
    free(all);
    free(offsets);
    free(keycounts);
    free(keydispls);
    free(need);
    free(needall);
    free(keys);
    free(mykey);
    gcm_win_release(win);
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
static void gcm_win_release(MPI_Win win)
{
    int r;

    gcm_mpi_fint_forget(win);
    pthread_mutex_lock(&gcm_wins.lock);
    win->magic = 0;
    gcm_list_del(&win->elem);
    gcm_list_push_back(&gcm_wins.dead, &win->elem);
    pthread_mutex_unlock(&gcm_wins.lock);
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
static const char *gcm_win_open_epoch(MPI_Win win)
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
    open = gcm_win_open_epoch(win);
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
    gcm_win_release(win);
    *winp = MPI_WIN_NULL;
    if (rc != MPI_SUCCESS) {
        return gcm_mpi_raise(NULL, rc, call, "the closing barrier failed");
    }
    return MPI_SUCCESS;
}
GCM_MPI_ALIAS(Win_free)

void gcm_mpi_win_finalize(void)
{
    gcm_mpi_allocmem_t *m;
    gcm_list_t *pos, *tmp;

    pthread_mutex_lock(&gcm_wins.lock);
    if (!gcm_wins.init) {
        pthread_mutex_unlock(&gcm_wins.lock);
        goto mem;
    }
    pthread_mutex_unlock(&gcm_wins.lock);
    /* Windows the program left: released here (no collective call). */
    for (;;) {
        MPI_Win win = NULL;

        pthread_mutex_lock(&gcm_wins.lock);
        if (!gcm_list_empty(&gcm_wins.live)) {
            win = gcm_container_of(gcm_wins.live.next, struct gcm_mpi_win,
                                   elem);
        }
        pthread_mutex_unlock(&gcm_wins.lock);
        if (win == NULL) {
            break;
        }
        {
            gcm_mpi_attr_host_t h = { GCM_MPI_ATTR_WIN, win, &win->attrs };

            (void)gcm_mpi_attr_delete_every(&h);
        }
        gcm_win_release(win);
    }
    pthread_mutex_lock(&gcm_wins.lock);
    gcm_list_for_each_safe(pos, tmp, &gcm_wins.dead) {
        MPI_Win win = gcm_container_of(pos, struct gcm_mpi_win, elem);

        gcm_list_del(pos);
        pthread_mutex_destroy(&win->mtx);
        free(win);
    }
    gcm_wins.init = 0;
    pthread_mutex_unlock(&gcm_wins.lock);
mem:
    pthread_mutex_lock(&gcm_allocmem.lock);
    while ((m = gcm_allocmem.list) != NULL) {
        gcm_allocmem.list = m->next;
        if (m->seg != NULL) {
            gcm_lco_seg_destroy(m->seg);
        } else {
            free(m->base);
        }
        free(m);
    }
    pthread_mutex_unlock(&gcm_allocmem.lock);
}

/* ---- what a window carries ------------------------------------------------ */

int PMPI_Win_get_group(MPI_Win win, MPI_Group *group)
{
    static const char *call = "MPI_Win_get_group";
    int rc;

    if ((rc = gcm_mpi_win_check(win, call)) != MPI_SUCCESS) {
        return rc;
    }
    if (group == NULL) {
        return gcm_mpi_win_raise(win, MPI_ERR_ARG, call, "group is NULL");
    }
    rc = PMPI_Comm_group(win->comm, group);
    if (rc != MPI_SUCCESS) {
        return gcm_mpi_win_raise(win, rc, call, "cannot make the group");
    }
    return MPI_SUCCESS;
}
GCM_MPI_ALIAS(Win_get_group)

int PMPI_Win_set_name(MPI_Win win, const char *win_name)
{
    static const char *call = "MPI_Win_set_name";
    int rc;

    if ((rc = gcm_mpi_win_check(win, call)) != MPI_SUCCESS) {
        return rc;
    }
    if (win_name == NULL) {
        return gcm_mpi_win_raise(win, MPI_ERR_ARG, call, "win_name is NULL");
    }
    snprintf(win->name, sizeof(win->name), "%s", win_name);
    return MPI_SUCCESS;
}
GCM_MPI_ALIAS(Win_set_name)

int PMPI_Win_get_name(MPI_Win win, char *win_name, int *resultlen)
{
    static const char *call = "MPI_Win_get_name";
    int rc;

    if ((rc = gcm_mpi_win_check(win, call)) != MPI_SUCCESS) {
        return rc;
    }
    if ((win_name == NULL) || (resultlen == NULL)) {
        return gcm_mpi_win_raise(win, MPI_ERR_ARG, call,
                                 "win_name or resultlen is NULL");
    }
    snprintf(win_name, MPI_MAX_OBJECT_NAME, "%s", win->name);
    *resultlen = (int)strlen(win_name);
    return MPI_SUCCESS;
}
GCM_MPI_ALIAS(Win_get_name)

int PMPI_Win_set_info(MPI_Win win, MPI_Info info)
{
    static const char *call = "MPI_Win_set_info";
    MPI_Info copy;
    int rc;

    if ((rc = gcm_mpi_win_check(win, call)) != MPI_SUCCESS) {
        return rc;
    }
    if (gcm_mpi_info_check(info) != 0) {
        return gcm_mpi_win_raise(win, MPI_ERR_INFO, call,
                                 "not a valid info object");
    }
    rc = PMPI_Info_dup(info, &copy);
    if (rc != MPI_SUCCESS) {
        return gcm_mpi_win_raise(win, rc, call, "cannot copy the info");
    }
    if (win->info != MPI_INFO_NULL) {
        PMPI_Info_free(&win->info);
    }
    win->info = copy;
    return MPI_SUCCESS;
}
GCM_MPI_ALIAS(Win_set_info)

int PMPI_Win_get_info(MPI_Win win, MPI_Info *info_used)
{
    static const char *call = "MPI_Win_get_info";
    int rc;

    if ((rc = gcm_mpi_win_check(win, call)) != MPI_SUCCESS) {
        return rc;
    }
    if (info_used == NULL) {
        return gcm_mpi_win_raise(win, MPI_ERR_ARG, call, "info_used is NULL");
    }
    /* A new object the caller frees: the hints as set (none of them
     * changes what the window does). */
    rc = (win->info != MPI_INFO_NULL) ? PMPI_Info_dup(win->info, info_used) :
         PMPI_Info_create(info_used);
    if (rc != MPI_SUCCESS) {
        return gcm_mpi_win_raise(win, rc, call, "cannot make the info");
    }
    return MPI_SUCCESS;
}
GCM_MPI_ALIAS(Win_get_info)

int PMPI_Win_shared_query(MPI_Win win, int rank, MPI_Aint *size,
                          int *disp_unit, void *baseptr)
{
    static const char *call = "MPI_Win_shared_query";
    int rc, r;

    if ((rc = gcm_mpi_win_check(win, call)) != MPI_SUCCESS) {
        return rc;
    }
    if ((size == NULL) || (disp_unit == NULL) || (baseptr == NULL)) {
        return gcm_mpi_win_raise(win, MPI_ERR_ARG, call,
                                 "size, disp_unit or baseptr is NULL");
    }
    if (rank == MPI_PROC_NULL) {
        /* The lowest rank with memory (MPI-3.1 11.2.3). */
        for (r = 0; (r < win->size) && (win->t[r].size == 0); r++) {
        }
        if (r == win->size) {
            r = 0;
        }
    } else if ((rank < 0) || (rank >= win->size)) {
        return gcm_mpi_win_raise(win, MPI_ERR_RANK, call, "rank %d is not a "
                                 "rank of the window (size %d)", rank,
                                 win->size);
    } else {
        r = rank;
    }
    if (win->t[r].method != GCM_WIN_DIRECT) {
        if (win->flavor == MPI_WIN_FLAVOR_SHARED) {
            return gcm_mpi_win_raise(win, MPI_ERR_RMA_SHARED, call,
                                     "the memory of rank %d is not mapped "
                                     "here", r);
        }
        /* MPI-4: memory that cannot be reached gives size 0. */
        *size = 0;
        *disp_unit = win->t[r].disp_unit;
        *(void **)baseptr = NULL;
        return MPI_SUCCESS;
    }
    *size = win->t[r].size;
    *disp_unit = win->t[r].disp_unit;
    *(void **)baseptr = win->t[r].base;
    return MPI_SUCCESS;
}
GCM_MPI_ALIAS(Win_shared_query)

/* ---- attributes ------------------------------------------------------------ */

int PMPI_Win_create_keyval(MPI_Win_copy_attr_function *win_copy_attr_fn,
                           MPI_Win_delete_attr_function *win_delete_attr_fn,
                           int *win_keyval, void *extra_state)
{
    return gcm_mpi_attr_keyval_create(GCM_MPI_ATTR_WIN,
                                      (void (*)(void))win_copy_attr_fn,
                                      (void (*)(void))win_delete_attr_fn,
                                      win_keyval, extra_state,
                                      "MPI_Win_create_keyval");
}
GCM_MPI_ALIAS(Win_create_keyval)

int PMPI_Win_free_keyval(int *win_keyval)
{
    return gcm_mpi_attr_keyval_free(GCM_MPI_ATTR_WIN, win_keyval,
                                    "MPI_Win_free_keyval");
}
GCM_MPI_ALIAS(Win_free_keyval)

/* The host of win's attributes (the window's checked; changing: the
 * predefined keys are refused). */
static int gcm_win_attr_host(MPI_Win win, int keyval, int changing,
                             gcm_mpi_attr_host_t *h, const char *call)
{
    int rc;

    if ((rc = gcm_mpi_win_check(win, call)) != MPI_SUCCESS) {
        return rc;
    }
    if (changing && (keyval >= MPI_WIN_BASE) && (keyval <= MPI_WIN_MODEL)) {
        return gcm_mpi_win_raise(win, MPI_ERR_KEYVAL, call, "keyval %d is "
                                 "predefined (read-only)", keyval);
    }
    h->kind   = GCM_MPI_ATTR_WIN;
    h->handle = win;
    h->attrs  = &win->attrs;
    return MPI_SUCCESS;
}

int PMPI_Win_set_attr(MPI_Win win, int win_keyval, void *attribute_val)
{
    static const char *call = "MPI_Win_set_attr";
    gcm_mpi_attr_host_t h;
    int rc;

    if ((rc = gcm_win_attr_host(win, win_keyval, 1, &h, call)) !=
        MPI_SUCCESS) {
        return rc;
    }
    return gcm_mpi_attr_set(&h, win_keyval, attribute_val, call);
}
GCM_MPI_ALIAS(Win_set_attr)

int PMPI_Win_get_attr(MPI_Win win, int win_keyval, void *attribute_val,
                      int *flag)
{
    static const char *call = "MPI_Win_get_attr";
    gcm_mpi_attr_host_t h;
    int rc;

    if ((rc = gcm_win_attr_host(win, win_keyval, 0, &h, call)) !=
        MPI_SUCCESS) {
        return rc;
    }
    if ((attribute_val == NULL) || (flag == NULL)) {
        return gcm_mpi_win_raise(win, MPI_ERR_ARG, call,
                                 "attribute_val or flag is NULL");
    }
    /* MPI-3.1 11.2.6: the base itself, the others through pointers. */
    *flag = 1;
    switch (win_keyval) {
    case MPI_WIN_BASE:
        *(void **)attribute_val = win->base;
        return MPI_SUCCESS;
    case MPI_WIN_SIZE:
        *(MPI_Aint **)attribute_val = &win->attr_size;
        return MPI_SUCCESS;
    case MPI_WIN_DISP_UNIT:
        *(int **)attribute_val = &win->attr_disp_unit;
        return MPI_SUCCESS;
    case MPI_WIN_CREATE_FLAVOR:
        *(int **)attribute_val = &win->attr_flavor;
        return MPI_SUCCESS;
    case MPI_WIN_MODEL:
        *(int **)attribute_val = &win->attr_model;
        return MPI_SUCCESS;
    default:
        break;
    }
    *flag = 0;
    return gcm_mpi_attr_get(&h, win_keyval, attribute_val, flag, call);
}
GCM_MPI_ALIAS(Win_get_attr)

int PMPI_Win_delete_attr(MPI_Win win, int win_keyval)
{
    static const char *call = "MPI_Win_delete_attr";
    gcm_mpi_attr_host_t h;
    int rc;

    if ((rc = gcm_win_attr_host(win, win_keyval, 1, &h, call)) !=
        MPI_SUCCESS) {
        return rc;
    }
    return gcm_mpi_attr_delete(&h, win_keyval, call);
}
GCM_MPI_ALIAS(Win_delete_attr)

/* ---- dynamic windows -------------------------------------------------------- */

int PMPI_Win_attach(MPI_Win win, void *base, MPI_Aint size)
{
    static const char *call = "MPI_Win_attach";
    gcm_win_region_t *regions;
    uintptr_t b = (uintptr_t)base;
    int rc, i, slot = -1;

    if ((rc = gcm_mpi_win_check(win, call)) != MPI_SUCCESS) {
        return rc;
    }
    if (win->flavor != MPI_WIN_FLAVOR_DYNAMIC) {
        return gcm_mpi_win_raise(win, MPI_ERR_RMA_FLAVOR, call, "only "
                                 "windows of MPI_Win_create_dynamic take "
                                 "attached memory");
    }
    if (size < 0) {
        return gcm_mpi_win_raise(win, MPI_ERR_SIZE, call, "size %ld is "
                                 "negative", (long)size);
    }
    if ((base == NULL) && (size > 0)) {
        return gcm_mpi_win_raise(win, MPI_ERR_BASE, call, "base is NULL");
    }
    if (size == 0) {
        return MPI_SUCCESS;
    }
    if (b + (uintptr_t)size < b) {
        return gcm_mpi_win_raise(win, MPI_ERR_SIZE, call, "the region wraps "
                                 "around the address space");
    }
    for (i = 0; i < win->nregions; i++) {
        uintptr_t rb = (uintptr_t)win->regions[i].base;

        if ((b < rb + (uintptr_t)win->regions[i].len) &&
            (rb < b + (uintptr_t)size)) {
            return gcm_mpi_win_raise(win, MPI_ERR_RMA_ATTACH, call,
                                     "the region overlaps one attached "
                                     "before");
        }
    }
    for (i = 0; i < GCM_WIN_MAX_ATTACH; i++) {
        if (atomic_load(&win->ctl->attach[i].len) == 0) {
            slot = i;
            break;
        }
    }
    if (slot < 0) {
        return gcm_mpi_win_raise(win, MPI_ERR_RMA_ATTACH, call, "%d regions "
                                 "are attached already (the most a window "
                                 "holds)", GCM_WIN_MAX_ATTACH);
    }
    regions = realloc(win->regions,
                      ((size_t)win->nregions + 1) * sizeof(*regions));
    if (regions == NULL) {
        return gcm_mpi_win_raise(win, MPI_ERR_NO_MEM, call, "out of memory");
    }
    win->regions = regions;
    regions[win->nregions].base = base;
    regions[win->nregions].len  = size;
    win->nregions++;
    /* Origins of this host read the table: base first, then the length
     * that makes the entry count. */
    atomic_store(&win->ctl->attach[slot].base, (uint64_t)b);
    atomic_store_explicit(&win->ctl->attach[slot].len, (uint64_t)size,
                          memory_order_release);
    atomic_fetch_add(&win->ctl->nattach, 1);
    return MPI_SUCCESS;
}
GCM_MPI_ALIAS(Win_attach)

int PMPI_Win_detach(MPI_Win win, const void *base)
{
    static const char *call = "MPI_Win_detach";
    int rc, i;

    if ((rc = gcm_mpi_win_check(win, call)) != MPI_SUCCESS) {
        return rc;
    }
    if (win->flavor != MPI_WIN_FLAVOR_DYNAMIC) {
        return gcm_mpi_win_raise(win, MPI_ERR_RMA_FLAVOR, call, "only "
                                 "windows of MPI_Win_create_dynamic have "
                                 "attached memory");
    }
    for (i = 0; i < win->nregions; i++) {
        if (win->regions[i].base == base) {
            break;
        }
    }
    if (i == win->nregions) {
        return gcm_mpi_win_raise(win, MPI_ERR_BASE, call, "%p is not the "
                                 "base of an attached region", base);
    }
    win->regions[i] = win->regions[--win->nregions];
    for (i = 0; i < GCM_WIN_MAX_ATTACH; i++) {
        if ((atomic_load(&win->ctl->attach[i].len) != 0) &&
            (atomic_load(&win->ctl->attach[i].base) ==
             (uint64_t)(uintptr_t)base)) {
            atomic_store_explicit(&win->ctl->attach[i].len, 0,
                                  memory_order_release);
            atomic_fetch_sub(&win->ctl->nattach, 1);
            break;
        }
    }
    return MPI_SUCCESS;
}
GCM_MPI_ALIAS(Win_detach)

/* ---- synchronization --------------------------------------------------------- */

static int gcm_win_check_rank(MPI_Win win, int rank, const char *call)
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
static int gcm_win_flush_all(MPI_Win win, const char *call)
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
static int gcm_win_check_assert(MPI_Win win, int assert, int allowed,
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

    if ((rc = gcm_win_check_assert(win, assert, MPI_MODE_NOSTORE |
                                   MPI_MODE_NOPUT | MPI_MODE_NOPRECEDE |
                                   MPI_MODE_NOSUCCEED, "a fence",
                                   call)) != MPI_SUCCESS) {
        return rc;
    }
    open = gcm_win_open_epoch(win);
    if (open != NULL) {
        return gcm_mpi_win_raise(win, MPI_ERR_RMA_SYNC, call, "%s is open",
                                 open);
    }
    if (!(assert & MPI_MODE_NOPRECEDE)) {
        first = gcm_win_flush_all(win, call);
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

    if ((rc = gcm_win_check_assert(win, assert, MPI_MODE_NOCHECK |
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

    if ((rc = gcm_win_check_assert(win, assert, MPI_MODE_NOCHECK,
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

int PMPI_Win_wait(MPI_Win win)
{
    static const char *call = "MPI_Win_wait";
    gcm_win_count_arg_t arg;
    int rc;

    if ((rc = gcm_mpi_win_check(win, call)) != MPI_SUCCESS) {
        return rc;
    }
    if (!win->expose_on) {
        return gcm_mpi_win_raise(win, MPI_ERR_RMA_SYNC, call, "no exposure "
                                 "epoch is open (MPI_Win_post)");
    }
    arg.win   = win;
    arg.ranks = win->expose;
    arg.n     = win->nexpose;
    arg.posts = 0;
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

    if ((rc = gcm_mpi_win_check(win, call)) != MPI_SUCCESS) {
        return rc;
    }
    if (flag == NULL) {
        return gcm_mpi_win_raise(win, MPI_ERR_ARG, call, "flag is NULL");
    }
    if (!win->expose_on) {
        return gcm_mpi_win_raise(win, MPI_ERR_RMA_SYNC, call, "no exposure "
                                 "epoch is open (MPI_Win_post)");
    }
    arg.win   = win;
    arg.ranks = win->expose;
    arg.n     = win->nexpose;
    arg.posts = 0;
    gcm_lco_progress(win->comm->lco);
    *flag = gcm_win_counted(&arg);
    if (*flag) {
        gcm_win_expose_end(win);
    }
    return MPI_SUCCESS;
}
GCM_MPI_ALIAS(Win_test)

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
     * (mpi_rma.c). */
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

    if ((rc = gcm_win_check_assert(win, assert, MPI_MODE_NOCHECK, "a lock",
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
    if ((rc = gcm_win_check_rank(win, rank, call)) != MPI_SUCCESS) {
        return rc;
    }
    if (win->t[rank].lock != 0) {
        return gcm_mpi_win_raise(win, MPI_ERR_RMA_SYNC, call, "rank %d is "
                                 "locked already by this process", rank);
    }
    if (win->lock_all || win->access_on || win->expose_on) {
        return gcm_mpi_win_raise(win, MPI_ERR_RMA_SYNC, call, "%s is open",
                                 gcm_win_open_epoch(win));
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
    if ((rc = gcm_win_check_rank(win, rank, call)) != MPI_SUCCESS) {
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

    if ((rc = gcm_win_check_assert(win, assert, MPI_MODE_NOCHECK,
                                   "a lock", call)) != MPI_SUCCESS) {
        return rc;
    }
    if (gcm_win_open_epoch(win) != NULL) {
        return gcm_mpi_win_raise(win, MPI_ERR_RMA_SYNC, call, "%s is open",
                                 gcm_win_open_epoch(win));
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
    first = gcm_win_flush_all(win, call);
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
    if (((rc = gcm_win_check_rank(win, rank, call)) != MPI_SUCCESS) ||
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
    return gcm_win_flush_all(win, call);
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

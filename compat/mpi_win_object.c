/*
 * compat/mpi_win_object.c: the windows of the process and the memory of
 * MPI_Alloc_mem (MPI-3.1 chapter 11; mpi_win.h says what a window is).
 *
 * Freed windows are kept (their handle dead) until MPI_Finalize, so that
 * a call on a stale handle reports MPI_ERR_WIN instead of reading freed
 * memory, and a handler call that raced with the free finds no window.
 * MPI_Finalize releases the windows the program left and the memory of
 * MPI_Alloc_mem it did not free.
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

struct gcm_mpi_wins gcm_mpi_wins = { PTHREAD_MUTEX_INITIALIZER, 0,
                                     { NULL, NULL }, { NULL, NULL }, 1 };

/* With gcm_mpi_wins.lock held. */
void gcm_mpi_wins_init(void)
{
    if (!gcm_mpi_wins.init) {
        gcm_list_init(&gcm_mpi_wins.live);
        gcm_list_init(&gcm_mpi_wins.dead);
        gcm_mpi_wins.init = 1;
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

int gcm_mpi_win_check_ptr(MPI_Win win, const void *ptr, const char *what,
                          const char *call)
{
    int rc = gcm_mpi_win_check(win, call);

    if ((rc == MPI_SUCCESS) && (ptr == NULL)) {
        rc = gcm_mpi_win_raise(win, MPI_ERR_ARG, call, "%s is NULL", what);
    }
    return rc;
}

MPI_Win gcm_mpi_win_hold(uint64_t id)
{
    gcm_list_t *pos, *tmp;
    MPI_Win win = MPI_WIN_NULL;

    pthread_mutex_lock(&gcm_mpi_wins.lock);
    if (gcm_mpi_wins.init) {
        gcm_list_for_each_safe(pos, tmp, &gcm_mpi_wins.live) {
            MPI_Win w = gcm_container_of(pos, struct gcm_mpi_win, elem);

            if (w->id == id) {
                atomic_fetch_add(&w->hrefs, 1);
                win = w;
                break;
            }
        }
    }
    pthread_mutex_unlock(&gcm_mpi_wins.lock);
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
gcm_lco_seg_t *gcm_mpi_win_allocmem_find(const void *base, size_t len,
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

void gcm_mpi_win_finalize(void)
{
    gcm_mpi_allocmem_t *m;
    gcm_list_t *pos, *tmp;

    pthread_mutex_lock(&gcm_mpi_wins.lock);
    if (!gcm_mpi_wins.init) {
        pthread_mutex_unlock(&gcm_mpi_wins.lock);
        goto mem;
    }
    pthread_mutex_unlock(&gcm_mpi_wins.lock);
    /* Windows the program left: released here (no collective call). */
    for (;;) {
        MPI_Win win = NULL;

        pthread_mutex_lock(&gcm_mpi_wins.lock);
        if (!gcm_list_empty(&gcm_mpi_wins.live)) {
            win = gcm_container_of(gcm_mpi_wins.live.next, struct gcm_mpi_win,
                                   elem);
        }
        pthread_mutex_unlock(&gcm_mpi_wins.lock);
        if (win == NULL) {
            break;
        }
        {
            gcm_mpi_attr_host_t h = { GCM_MPI_ATTR_WIN, win, &win->attrs };

            (void)gcm_mpi_attr_delete_every(&h);
        }
        gcm_mpi_win_release(win);
    }
    pthread_mutex_lock(&gcm_mpi_wins.lock);
    gcm_list_for_each_safe(pos, tmp, &gcm_mpi_wins.dead) {
        MPI_Win win = gcm_container_of(pos, struct gcm_mpi_win, elem);

        gcm_list_del(pos);
        pthread_mutex_destroy(&win->mtx);
        free(win);
    }
    gcm_mpi_wins.init = 0;
    pthread_mutex_unlock(&gcm_mpi_wins.lock);
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

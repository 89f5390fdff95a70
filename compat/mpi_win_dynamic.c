/*
 * compat/mpi_win_dynamic.c: the memory of a dynamic window
 * (MPI_Win_attach and MPI_Win_detach, MPI-3.1 11.2.4).
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

/*
 * compat/mpi_win_query.c: what a window carries (MPI-3.1 11.2.6, 11.2.7,
 * 6.7): its group, name, info, the memory of a shared window's members
 * (MPI_Win_shared_query) and its attributes.
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

/* ---- what a window carries ------------------------------------------------ */

int PMPI_Win_get_group(MPI_Win win, MPI_Group *group)
{
    static const char *call = "MPI_Win_get_group";
    int rc;

    if ((rc = gcm_mpi_win_check_ptr(win, group, "group", call)) !=
        MPI_SUCCESS) {
        return rc;
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

    if ((rc = gcm_mpi_win_check_ptr(win, win_name, "win_name", call)) !=
        MPI_SUCCESS) {
        return rc;
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
    int rc;

    if ((rc = gcm_mpi_win_check(win, call)) != MPI_SUCCESS) {
        return rc;
    }
    if (gcm_mpi_info_check(info) != 0) {
        return gcm_mpi_win_raise(win, MPI_ERR_INFO, call,
                                 "not a valid info object");
    }
    rc = gcm_mpi_info_replace(&win->info, info);
    if (rc != MPI_SUCCESS) {
        return gcm_mpi_win_raise(win, rc, call, "cannot copy the info");
    }
    return MPI_SUCCESS;
}
GCM_MPI_ALIAS(Win_set_info)

int PMPI_Win_get_info(MPI_Win win, MPI_Info *info_used)
{
    static const char *call = "MPI_Win_get_info";
    int rc;

    if ((rc = gcm_mpi_win_check_ptr(win, info_used, "info_used", call)) !=
        MPI_SUCCESS) {
        return rc;
    }
    /* A new object the caller frees: the hints as set (none of them
     * changes what the window does). */
    rc = gcm_mpi_info_hand_out(win->info, info_used);
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

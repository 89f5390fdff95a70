/*
 * compat/mpi_comm_query.c: what a communicator tells: size, rank, its
 * groups (made on first use and cached), whether it is an
 * intercommunicator, comparison, name and info.
 */
#include "config.h"

#include "boot/boot.h"
#include "compat/mpi_comm_impl.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int PMPI_Comm_size(MPI_Comm comm, int *size)
{
    int rc;

    if ((rc = gcm_mpi_comm_check_ptr(comm, size, "size", "MPI_Comm_size")) !=
        MPI_SUCCESS) {
        return rc;
    }
    *size = comm->size;
    return MPI_SUCCESS;
}
GCM_MPI_ALIAS(Comm_size)

int PMPI_Comm_rank(MPI_Comm comm, int *rank)
{
    int rc;

    if ((rc = gcm_mpi_comm_check_ptr(comm, rank, "rank", "MPI_Comm_rank")) !=
        MPI_SUCCESS) {
        return rc;
    }
    *rank = comm->rank;
    return MPI_SUCCESS;
}
GCM_MPI_ALIAS(Comm_rank)

/* comm's group (local, or remote), made on first use and cached. Threads
 * may ask at once (MPI_THREAD_MULTIPLE): each that finds no group makes
 * one, the first to publish it wins and the others drop theirs. */
static int gcm_mpi_comm_group_of(MPI_Comm comm, int remote, MPI_Group *g_p)
{
    MPI_Group *cache = remote ? &comm->rgroup : &comm->group;
    int n = remote ? comm->remote_size : comm->size;
    MPI_Group g = __atomic_load_n(cache, __ATOMIC_ACQUIRE);
    MPI_Group expected = MPI_GROUP_NULL;
    int *procs, i, rc;

    if (g == MPI_GROUP_NULL) {
        procs = malloc(((size_t)n + 1) * sizeof(int));
        if (procs == NULL) {
            return MPI_ERR_NO_MEM;
        }
        for (i = 0; i < n; i++) {
            procs[i] = remote ? gcm_mpi_comm_rproc(comm, i) :
                       gcm_mpi_comm_proc(comm, i);
        }
        rc = gcm_mpi_group_create(n, procs, gcm_proc_rank(), &g);
        free(procs);
        if (rc != MPI_SUCCESS) {
            return rc;
        }
        /* The cache's reference is no user handle. */
        gcm_mpi_group_handles_add(g, -1);
        if (!__atomic_compare_exchange_n(cache, &expected, g, 0,
                                         __ATOMIC_ACQ_REL,
                                         __ATOMIC_ACQUIRE)) {
            gcm_mpi_group_release(g);
            g = expected;
        }
    }
    gcm_mpi_group_retain(g);
    *g_p = g;
    return MPI_SUCCESS;
}

/* The checks of the calls on an intercommunicator's remote group: comm
 * valid, an intercommunicator, ptr not NULL. */
static int gcm_mpi_comm_check_remote(MPI_Comm comm, const void *ptr,
                                     const char *what, const char *call)
{
    int rc;

    if ((rc = gcm_mpi_comm_check(comm, call)) != MPI_SUCCESS) {
        return rc;
    }
    if (comm->kind != GCM_MPI_COMM_INTER) {
        return gcm_mpi_raise(comm, MPI_ERR_COMM, call,
                             "not an intercommunicator");
    }
    if (ptr == NULL) {
        return gcm_mpi_raise(comm, MPI_ERR_ARG, call, "%s is NULL", what);
    }
    return MPI_SUCCESS;
}

/* A user handle of comm's local or remote group in *group. */
static int gcm_mpi_comm_group_give(MPI_Comm comm, int remote,
                                   MPI_Group *group, const char *call)
{
    int rc = gcm_mpi_comm_group_of(comm, remote, group);

    if (rc != MPI_SUCCESS) {
        return gcm_mpi_raise(comm, rc, call, "cannot make the group");
    }
    gcm_mpi_group_handles_add(*group, 1);
    return MPI_SUCCESS;
}

int PMPI_Comm_group(MPI_Comm comm, MPI_Group *group)
{
    static const char *call = "MPI_Comm_group";
    int rc = gcm_mpi_comm_check_ptr(comm, group, "group", call);

    return (rc != MPI_SUCCESS) ? rc :
           gcm_mpi_comm_group_give(comm, 0, group, call);
}
GCM_MPI_ALIAS(Comm_group)

int PMPI_Comm_remote_group(MPI_Comm comm, MPI_Group *group)
{
    static const char *call = "MPI_Comm_remote_group";
    int rc = gcm_mpi_comm_check_remote(comm, group, "group", call);

    return (rc != MPI_SUCCESS) ? rc :
           gcm_mpi_comm_group_give(comm, 1, group, call);
}
GCM_MPI_ALIAS(Comm_remote_group)

int PMPI_Comm_remote_size(MPI_Comm comm, int *size)
{
    int rc = gcm_mpi_comm_check_remote(comm, size, "size",
                                       "MPI_Comm_remote_size");

    if (rc == MPI_SUCCESS) {
        *size = comm->remote_size;
    }
    return rc;
}
GCM_MPI_ALIAS(Comm_remote_size)

int PMPI_Comm_test_inter(MPI_Comm comm, int *flag)
{
    int rc;

    if ((rc = gcm_mpi_comm_check_ptr(comm, flag, "flag",
                                     "MPI_Comm_test_inter")) != MPI_SUCCESS) {
        return rc;
    }
    *flag = (comm->kind == GCM_MPI_COMM_INTER);
    return MPI_SUCCESS;
}
GCM_MPI_ALIAS(Comm_test_inter)

int PMPI_Comm_compare(MPI_Comm comm1, MPI_Comm comm2, int *result)
{
    static const char *call = "MPI_Comm_compare";
    MPI_Group g1, g2;
    int rc, gres;

    if (((rc = gcm_mpi_comm_check(comm1, call)) != MPI_SUCCESS) ||
        ((rc = gcm_mpi_comm_check(comm2, call)) != MPI_SUCCESS)) {
        return rc;
    }
    if (result == NULL) {
        return gcm_mpi_raise(comm1, MPI_ERR_ARG, call, "result is NULL");
    }
    if (comm1 == comm2) {
        *result = MPI_IDENT;
        return MPI_SUCCESS;
    }
    if ((comm1->kind == GCM_MPI_COMM_INTER) !=
        (comm2->kind == GCM_MPI_COMM_INTER)) {
        *result = MPI_UNEQUAL;
        return MPI_SUCCESS;
    }
    if ((gcm_mpi_comm_group_of(comm1, 0, &g1) != MPI_SUCCESS) ||
        (gcm_mpi_comm_group_of(comm2, 0, &g2) != MPI_SUCCESS)) {
        return gcm_mpi_raise(comm1, MPI_ERR_NO_MEM, call, "out of memory");
    }
    gres = gcm_mpi_group_compare(g1, g2);
    gcm_mpi_group_release(g1);
    gcm_mpi_group_release(g2);
    if ((gres == MPI_IDENT) && (comm1->kind == GCM_MPI_COMM_INTER)) {
        if ((gcm_mpi_comm_group_of(comm1, 1, &g1) != MPI_SUCCESS) ||
            (gcm_mpi_comm_group_of(comm2, 1, &g2) != MPI_SUCCESS)) {
            return gcm_mpi_raise(comm1, MPI_ERR_NO_MEM, call,
                                 "out of memory");
        }
        gres = gcm_mpi_group_compare(g1, g2);
        gcm_mpi_group_release(g1);
        gcm_mpi_group_release(g2);
    }
    *result = (gres == MPI_IDENT) ? MPI_CONGRUENT : gres;
    return MPI_SUCCESS;
}
GCM_MPI_ALIAS(Comm_compare)

int PMPI_Comm_set_name(MPI_Comm comm, const char *comm_name)
{
    int rc;

    if ((rc = gcm_mpi_comm_check_ptr(comm, comm_name, "comm_name",
                                     "MPI_Comm_set_name")) != MPI_SUCCESS) {
        return rc;
    }
    /* Longer names are truncated, as the standard allows. */
    snprintf(comm->name, sizeof(comm->name), "%s", comm_name);
    return MPI_SUCCESS;
}
GCM_MPI_ALIAS(Comm_set_name)

int PMPI_Comm_get_name(MPI_Comm comm, char *comm_name, int *resultlen)
{
    int rc;

    if ((rc = gcm_mpi_comm_check(comm, "MPI_Comm_get_name")) !=
        MPI_SUCCESS) {
        return rc;
    }
    if ((comm_name == NULL) || (resultlen == NULL)) {
        return gcm_mpi_raise(comm, MPI_ERR_ARG, "MPI_Comm_get_name",
                             "comm_name or resultlen is NULL");
    }
    snprintf(comm_name, MPI_MAX_OBJECT_NAME, "%s", comm->name);
    *resultlen = (int)strlen(comm_name);
    return MPI_SUCCESS;
}
GCM_MPI_ALIAS(Comm_get_name)

int PMPI_Comm_set_info(MPI_Comm comm, MPI_Info info)
{
    static const char *call = "MPI_Comm_set_info";
    int rc;

    if ((rc = gcm_mpi_comm_check(comm, call)) != MPI_SUCCESS) {
        return rc;
    }
    if (gcm_mpi_info_check(info) != 0) {
        return gcm_mpi_raise(comm, MPI_ERR_INFO, call,
                             "not a valid info object");
    }
    return gcm_mpi_info_replace(&comm->info, info);
}
GCM_MPI_ALIAS(Comm_set_info)

int PMPI_Comm_get_info(MPI_Comm comm, MPI_Info *info_used)
{
    static const char *call = "MPI_Comm_get_info";
    int rc;

    if ((rc = gcm_mpi_comm_check_ptr(comm, info_used, "info_used", call)) !=
        MPI_SUCCESS) {
        return rc;
    }
    /* No hint changes the library's behaviour: give back what was set. */
    return gcm_mpi_info_hand_out(comm->info, info_used);
}
GCM_MPI_ALIAS(Comm_get_info)

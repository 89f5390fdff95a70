/*
 * compat/mpi_comm_split.c: MPI_Comm_split and MPI_Comm_split_type: one
 * exchange of (color, key), MPI_Allgather.
 */
#include "config.h"

#include "boot/boot.h"
#include "compat/mpi_comm_impl.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int gcm_mpi_split_cmp(const void *a, const void *b)
{
    const gcm_mpi_split_entry_t *x = a, *y = b;

    if (x->key != y->key) {
        return (x->key < y->key) ? -1 : 1;
    }
    return (x->rank < y->rank) ? -1 : (x->rank > y->rank);
}

/* Split comm by a 64-bit color (MPI_UNDEFINED: no new communicator). */
static int gcm_mpi_comm_split64(MPI_Comm comm, int64_t color, int key,
                                const char *call, MPI_Comm *newcomm)
{
    gcm_mpi_split_entry_t mine, *all;
    int *procs, n = 0, myrank = 0, i, rc;

    mine.color = color;
    mine.key   = key;
    mine.rank  = comm->rank;
    all   = malloc((size_t)comm->size * sizeof(*all));
    procs = malloc((size_t)comm->size * sizeof(int));
    if ((all == NULL) || (procs == NULL)) {
        free(all);
        free(procs);
        return gcm_mpi_raise(comm, MPI_ERR_NO_MEM, call, "out of memory");
    }
    /* The collective raises its own failure on comm. */
    rc = PMPI_Allgather(&mine, (int)sizeof(mine), MPI_BYTE, all,
                        (int)sizeof(mine), MPI_BYTE, comm);
    if (rc != MPI_SUCCESS) {
        free(all);
        free(procs);
        return rc;
    }
    if (color != MPI_UNDEFINED) {
        for (i = 0; i < comm->size; i++) {
            if (all[i].color == color) {
                all[n++] = all[i];
            }
        }
        qsort(all, (size_t)n, sizeof(*all), gcm_mpi_split_cmp);
        for (i = 0; i < n; i++) {
            procs[i] = gcm_mpi_comm_proc(comm, all[i].rank);
            if (all[i].rank == comm->rank) {
                myrank = i;
            }
        }
    }
    /* Every member derives (those without a color pass n = 0): the
     * groups of different colors are disjoint, so sharing one identity
     * is safe. */
    rc = gcm_mpi_comm_derive(comm, n, procs, myrank, call, newcomm);
    free(all);
    free(procs);
    return rc;
}

int gcm_mpi_check_intra(MPI_Comm comm, const char *call)
{
    int rc;

    if ((rc = gcm_mpi_comm_check(comm, call)) != MPI_SUCCESS) {
        return rc;
    }
    if (comm->kind == GCM_MPI_COMM_INTER) {
        return gcm_mpi_raise(comm, MPI_ERR_COMM, call,
                             "an intercommunicator is not supported here");
    }
    if (comm->kind == GCM_MPI_COMM_LCO) {
        return gcm_mpi_raise(comm, MPI_ERR_COMM, call, (comm->size <
                             comm->psize) ? "not supported on LCOs with "
                             "several LCOs per process (one per thread)" :
                             "not supported on an LCO built slot by slot: "
                             "MPI_Comm_dup it first");
    }
    return MPI_SUCCESS;
}

int PMPI_Comm_split(MPI_Comm comm, int color, int key, MPI_Comm *newcomm)
{
    static const char *call = "MPI_Comm_split";
    int rc;

    if ((rc = gcm_mpi_comm_check_ptr(comm, newcomm, "newcomm", call)) !=
        MPI_SUCCESS) {
        return rc;
    }
    if ((color < 0) && (color != MPI_UNDEFINED)) {
        return gcm_mpi_raise(comm, MPI_ERR_ARG, call,
                             "color %d is negative (only MPI_UNDEFINED "
                             "may be)", color);
    }
    if (comm->kind == GCM_MPI_COMM_INTER) {
        rc = gcm_mpi_inter_split(comm, color, key, call, newcomm);
    } else if ((rc = gcm_mpi_check_intra(comm, call)) == MPI_SUCCESS) {
        rc = gcm_mpi_comm_split64(comm, color, key, call, newcomm);
    }
    if (rc == MPI_SUCCESS) {
        gcm_mpi_graph_auto(*newcomm);
    }
    return rc;
}
GCM_MPI_ALIAS(Comm_split)

int PMPI_Comm_split_type(MPI_Comm comm, int split_type, int key,
                         MPI_Info info, MPI_Comm *newcomm)
{
    static const char *call = "MPI_Comm_split_type";
    const char *host, *resource = NULL;
    int64_t color;
    int rc;

    if ((rc = gcm_mpi_check_intra(comm, call)) != MPI_SUCCESS) {
        return rc;
    }
    if (newcomm == NULL) {
        return gcm_mpi_raise(comm, MPI_ERR_ARG, call, "newcomm is NULL");
    }
    if ((info != MPI_INFO_NULL) && (gcm_mpi_info_check(info) != 0)) {
        return gcm_mpi_raise(comm, MPI_ERR_INFO, call,
                             "not a valid info object");
    }
    if (split_type == MPI_UNDEFINED) {
        color = MPI_UNDEFINED;
    } else if (split_type == MPI_COMM_TYPE_SHARED) {
        /* Processes that share memory: the same host. The color is a
         * hash of the host name, kept non-negative and distinct from
         * MPI_UNDEFINED. */
        host  = gcm_boot_hostname();
        color = (int64_t)(gcm_hash64(host, strlen(host)) >> 2);
    } else if ((split_type == MPI_COMM_TYPE_HW_GUIDED) ||
               (split_type == MPI_COMM_TYPE_HW_UNGUIDED)) {
        /* The hierarchy's levels (mpi_hier.c). */
        rc = gcm_mpi_hier_split_color(comm, split_type, info, &color,
                                      &resource);
        if (rc != MPI_SUCCESS) {
            return gcm_mpi_raise(comm, rc, call,
                                 "the hardware hierarchy is not available");
        }
    } else {
        return gcm_mpi_raise(comm, MPI_ERR_ARG, call,
                             "split type %d is not supported (use "
                             "MPI_COMM_TYPE_SHARED, _HW_GUIDED, "
                             "_HW_UNGUIDED or MPI_UNDEFINED)",
                             split_type);
    }
    rc = gcm_mpi_comm_split64(comm, color, key, call, newcomm);
    if ((rc == MPI_SUCCESS) && (resource != NULL) &&
        (*newcomm != MPI_COMM_NULL)) {
        /* MPI-4 7.4.2: the new communicator's info names the resource. */
        MPI_Info hw;

        if (PMPI_Info_create(&hw) == MPI_SUCCESS) {
            (void)PMPI_Info_set(hw, "mpi_hw_resource_type", resource);
            (void)PMPI_Comm_set_info(*newcomm, hw);
            (void)PMPI_Info_free(&hw);
        }
    }
    if (rc == MPI_SUCCESS) {
        gcm_mpi_graph_auto(*newcomm);
    }
    return rc;
}
GCM_MPI_ALIAS(Comm_split_type)

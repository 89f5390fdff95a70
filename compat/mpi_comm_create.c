/*
 * compat/mpi_comm_create.c: MPI_Comm_create and MPI_Comm_create_group
 * (nothing but the group the caller passes), and communicators keyed by
 * the caller.
 */
#include "config.h"

#include "boot/boot.h"
#include "compat/mpi_comm_impl.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The world indices of group's members and this process's rank in it. */
static int gcm_mpi_group_members(MPI_Group group, int **procs_p, int *n_p,
                                 int *myrank_p)
{
    int n, i;

    PMPI_Group_size(group, &n);
    PMPI_Group_rank(group, myrank_p);
    *procs_p = malloc(((size_t)n + 1) * sizeof(int));
    if (*procs_p == NULL) {
        return MPI_ERR_NO_MEM;
    }
    for (i = 0; i < n; i++) {
        (*procs_p)[i] = gcm_mpi_group_proc(group, i);
    }
    *n_p = n;
    return MPI_SUCCESS;
}

/* Is every member of group a member of comm? */
static int gcm_mpi_group_within(MPI_Comm comm, int n, const int procs[])
{
    int i, r, found;

    if (comm->procs == NULL) {
        for (i = 0; i < n; i++) {
            if ((procs[i] < 0) || (procs[i] >= comm->size)) {
                return 0;
            }
        }
        return 1;
    }
    for (i = 0; i < n; i++) {
        found = 0;
        for (r = 0; (r < comm->size) && !found; r++) {
            found = (comm->procs[r] == procs[i]);
        }
        if (!found) {
            return 0;
        }
    }
    return 1;
}

int PMPI_Comm_create(MPI_Comm comm, MPI_Group group, MPI_Comm *newcomm)
{
    static const char *call = "MPI_Comm_create";
    int *procs, n, myrank, rc;

    if ((rc = gcm_mpi_comm_check(comm, call)) != MPI_SUCCESS) {
        return rc;
    }
    if ((comm->kind != GCM_MPI_COMM_INTER) &&
        ((rc = gcm_mpi_check_intra(comm, call)) != MPI_SUCCESS)) {
        return rc;
    }
    if (gcm_mpi_group_check(group) != 0) {
        return gcm_mpi_raise(comm, MPI_ERR_GROUP, call,
                             "not a valid group");
    }
    if (newcomm == NULL) {
        return gcm_mpi_raise(comm, MPI_ERR_ARG, call, "newcomm is NULL");
    }
    if (gcm_mpi_group_members(group, &procs, &n, &myrank) != MPI_SUCCESS) {
        return gcm_mpi_raise(comm, MPI_ERR_NO_MEM, call, "out of memory");
    }
    if (!gcm_mpi_group_within(comm, n, procs)) {
        free(procs);
        return gcm_mpi_raise(comm, MPI_ERR_GROUP, call,
                             "the group is not a subset of the "
                             "communicator's %sgroup",
                             (comm->kind == GCM_MPI_COMM_INTER) ? "local " :
                             "");
    }
    if (comm->kind == GCM_MPI_COMM_INTER) {
        /* Each group passes a subset of its own (MPI-3.1 6.4.2). */
        rc = gcm_mpi_inter_create(comm, n, procs, myrank, call, newcomm);
    } else {
        rc = gcm_mpi_comm_derive(comm, (myrank == MPI_UNDEFINED) ? 0 : n,
                                 procs, myrank, call, newcomm);
    }
    free(procs);
    if (rc == MPI_SUCCESS) {
        gcm_mpi_graph_auto(*newcomm);
    }
    return rc;
}
GCM_MPI_ALIAS(Comm_create)

int PMPI_Comm_create_group(MPI_Comm comm, MPI_Group group, int tag,
                           MPI_Comm *newcomm)
{
    static const char *call = "MPI_Comm_create_group";
    gcm_mpi_cg_count_t *cg;
    uint64_t key;
    int *procs, n, myrank, rc;

    if ((rc = gcm_mpi_check_intra(comm, call)) != MPI_SUCCESS) {
        return rc;
    }
    if (gcm_mpi_group_check(group) != 0) {
        return gcm_mpi_raise(comm, MPI_ERR_GROUP, call,
                             "not a valid group");
    }
    if ((tag < 0) || (tag > GCM_TAG_UB)) {
        return gcm_mpi_raise(comm, MPI_ERR_TAG, call,
                             "tag %d is outside 0..MPI_TAG_UB", tag);
    }
    if (newcomm == NULL) {
        return gcm_mpi_raise(comm, MPI_ERR_ARG, call, "newcomm is NULL");
    }
    if (gcm_mpi_group_members(group, &procs, &n, &myrank) != MPI_SUCCESS) {
        return gcm_mpi_raise(comm, MPI_ERR_NO_MEM, call, "out of memory");
    }
    if (myrank == MPI_UNDEFINED) {
        free(procs);
        return gcm_mpi_raise(comm, MPI_ERR_GROUP, call,
                             "the calling process is not in the group");
    }
    if (!gcm_mpi_group_within(comm, n, procs)) {
        free(procs);
        return gcm_mpi_raise(comm, MPI_ERR_GROUP, call,
                             "the group is not a subset of the "
                             "communicator's group");
    }
    /* Only the group's members call, so the parent's derivation count
     * cannot be used. The identity comes from the group, the tag and how
     * many times this (group, tag) was used on comm before: the same in
     * every member, since the members make these calls in the same
     * order, and distinct between calls. */
    procs[n] = tag;
    key = gcm_hash64(procs, ((size_t)n + 1) * sizeof(int));
    for (cg = comm->cg_counts; cg != NULL; cg = cg->next) {
        if (cg->key == key) {
            break;
        }
    }
    if (cg == NULL) {
        cg = calloc(1, sizeof(*cg));
        if (cg == NULL) {
            free(procs);
            return gcm_mpi_raise(comm, MPI_ERR_NO_MEM, call,
                                 "out of memory");
        }
        cg->key   = key;
        cg->next  = comm->cg_counts;
        comm->cg_counts = cg;
    }
    rc = gcm_mpi_comm_make_keyed(comm, key, cg->count++, n, procs, myrank,
                                 comm, call, newcomm);
    free(procs);
    if (rc == MPI_SUCCESS) {
        gcm_mpi_graph_auto(*newcomm);
    }
    return rc;
}
GCM_MPI_ALIAS(Comm_create_group)

int gcm_mpi_comm_make_keyed(MPI_Comm parent, uint64_t key, uint32_t count,
                            int n, const int procs[], int myrank,
                            MPI_Comm errh_from, const char *call,
                            MPI_Comm *newcomm)
{
    uint32_t id, gen, home;

    gcm_lco_derive_id_keyed(parent->lco, key ^ ((uint64_t)count << 40) ^
                            count, &id, &gen);
    /* Its endpoint from the same inputs: the members agree, and
     * different groups and tags spread over the endpoints. */
    home = 1 + (uint32_t)((key ^ count) % 65521u);
    return gcm_mpi_comm_make(id, gen, home, n, procs, myrank, errh_from,
                             call, newcomm);
}

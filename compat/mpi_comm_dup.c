/*
 * compat/mpi_comm_dup.c: MPI_Comm_dup, MPI_Comm_dup_with_info,
 * MPI_Comm_idup and MPI_Comm_idup_with_info (no message: the identity is
 * derived, mpi_comm_derive.c).
 */
#include "config.h"

#include "boot/boot.h"
#include "compat/mpi_comm_impl.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int gcm_mpi_comm_dup_common(MPI_Comm comm, MPI_Comm *newcomm,
                                   const char *call);

int gcm_mpi_comm_dup_bare(MPI_Comm comm, const char *call, MPI_Comm *newcomm)
{
    MPI_Comm dup = MPI_COMM_NULL;
    uint32_t id, gen;
    gcm_status_t status;
    gcm_lco_h lco;
    int rc, owned, *procs;

    switch (comm->kind) {
    case GCM_MPI_COMM_INTRA:
        procs = gcm_mpi_comm_procs(comm, &owned);
        if (procs == NULL) {
            return gcm_mpi_raise(comm, MPI_ERR_NO_MEM, call,
                                 "out of memory");
        }
        rc = gcm_mpi_comm_derive(comm, comm->size, procs, comm->rank, call,
                                 &dup);
        if (owned) {
            free(procs);
        }
        break;
    case GCM_MPI_COMM_INTER:
        /* Both groups share the intercommunicator's identity and derive
         * from it in the same order: the same new identity everywhere. */
        gcm_lco_derive_id(comm->lco, &id, &gen);
        status = gcm_lco_create_pattern_x(id, gen, 0,
                                          gcm_lco_token_of(comm->lco),
                                          comm->remote_size, comm->rprocs,
                                          comm->rank, &lco);
        if (status != GCM_OK) {
            return gcm_mpi_raise(comm, gcm_mpi_errclass(status), call,
                                 "cannot create the LCO: %s",
                                 gcm_last_error());
        }
        dup = gcm_mpi_comm_alloc(GCM_MPI_COMM_INTER, lco);
        if (dup == NULL) {
            gcm_lco_free(&lco);
            return gcm_mpi_raise(comm, MPI_ERR_NO_MEM, call,
                                 "out of memory");
        }
        dup->rank        = comm->rank;
        dup->size        = comm->size;
        dup->remote_size = comm->remote_size;
        dup->prank       = comm->prank;
        dup->psize       = comm->psize;
        dup->errh        = comm->errh;
        gcm_mpi_errh_retain(dup->errh);
        /* The arrays as they are: an intercommunicator's remote group is
         * never stored as the identity. */
        rc = gcm_mpi_ints_copy(comm->size, comm->procs, &dup->procs);
        if (rc == MPI_SUCCESS) {
            rc = gcm_mpi_ints_copy(comm->remote_size, comm->rprocs,
                                   &dup->rprocs);
        }
        if ((rc == MPI_SUCCESS) && (comm->local_comm != MPI_COMM_NULL)) {
            rc = gcm_mpi_comm_dup_common(comm->local_comm, &dup->local_comm,
                                         call);
        }
        if (rc != MPI_SUCCESS) {
            gcm_mpi_comm_destroy(dup);
            return gcm_mpi_raise(comm, rc, call, "cannot copy the groups");
        }
        break;
    case GCM_MPI_COMM_LCO:
    default:
        /* A structure built by hand becomes a library-made communicator
         * with the same ranks, when each slot targets its own process. */
        if (comm->prank == MPI_UNDEFINED) {
            return gcm_mpi_raise(comm, MPI_ERR_COMM, call,
                                 "this LCO has no send slot to itself: it "
                                 "is not part of a communicator structure");
        }
        if (comm->size < comm->psize) {
            /* Several LCOs in one process (one per thread): no pattern
             * says which of them a rank is; build the copy by names. */
            rc = gcm_mpi_lco_dup_by_names(comm, call, &dup);
            break;
        }
        procs = malloc((size_t)comm->psize * sizeof(int));
        if (procs == NULL) {
            return gcm_mpi_raise(comm, MPI_ERR_NO_MEM, call,
                                 "out of memory");
        }
        for (rc = 0; rc < comm->psize; rc++) {
            procs[rc] = gcm_lco_send_slot_proc(comm->lco, rc);
        }
        rc = gcm_mpi_comm_derive(comm, comm->psize, procs, comm->prank,
                                 call, &dup);
        free(procs);
        break;
    }
    if (rc == MPI_SUCCESS) {
        *newcomm = dup;
    }
    return rc;
}

static int gcm_mpi_comm_dup_common(MPI_Comm comm, MPI_Comm *newcomm,
                                   const char *call)
{
    MPI_Comm dup = MPI_COMM_NULL;
    int rc;

    if ((rc = gcm_mpi_comm_check_ptr(comm, newcomm, "newcomm", call)) !=
        MPI_SUCCESS) {
        return rc;
    }
    rc = gcm_mpi_comm_dup_bare(comm, call, &dup);
    if (rc != MPI_SUCCESS) {
        return rc;
    }
    /* The duplicate has comm's topology, attributes and info hints
     * (MPI-3.1 6.4.2). */
    rc = gcm_mpi_topo_copy(comm, dup);
    if ((rc == MPI_SUCCESS) && (comm->info != MPI_INFO_NULL)) {
        rc = PMPI_Info_dup(comm->info, &dup->info);
    }
    if (rc == MPI_SUCCESS) {
        rc = gcm_mpi_attr_copy(comm, dup);
    }
    if (rc != MPI_SUCCESS) {
        gcm_mpi_attr_delete_all(dup);
        gcm_mpi_comm_destroy(dup);
        return gcm_mpi_raise(comm, rc, call,
                             "an attribute copy callback failed");
    }
    *newcomm = dup;
    gcm_mpi_graph_auto(dup);
    return MPI_SUCCESS;
}

int PMPI_Comm_dup(MPI_Comm comm, MPI_Comm *newcomm)
{
    return gcm_mpi_comm_dup_common(comm, newcomm, "MPI_Comm_dup");
}
GCM_MPI_ALIAS(Comm_dup)

int PMPI_Comm_dup_with_info(MPI_Comm comm, MPI_Info info, MPI_Comm *newcomm)
{
    static const char *call = "MPI_Comm_dup_with_info";
    int rc;

    if ((rc = gcm_mpi_comm_check(comm, call)) != MPI_SUCCESS) {
        return rc;
    }
    if ((info != MPI_INFO_NULL) && (gcm_mpi_info_check(info) != 0)) {
        return gcm_mpi_raise(comm, MPI_ERR_INFO, call,
                             "not a valid info object");
    }
    rc = gcm_mpi_comm_dup_common(comm, newcomm, call);
    if ((rc == MPI_SUCCESS) && ((*newcomm)->info != MPI_INFO_NULL)) {
        /* info's hints, not comm's. */
        PMPI_Info_free(&(*newcomm)->info);
    }
    if ((rc == MPI_SUCCESS) && (info != MPI_INFO_NULL)) {
        rc = PMPI_Info_dup(info, &(*newcomm)->info);
        if (rc != MPI_SUCCESS) {
            gcm_mpi_attr_delete_all(*newcomm);
            gcm_mpi_comm_destroy(*newcomm);
            *newcomm = MPI_COMM_NULL;
        }
    }
    return rc;
}
GCM_MPI_ALIAS(Comm_dup_with_info)

/* MPI_Comm_idup and MPI_Comm_idup_with_info (with_info: info's hints
 * replace comm's). A duplicate needs no message: it is complete at once,
 * and so is its request. */
static int gcm_mpi_comm_idup_as(MPI_Comm comm, int with_info, MPI_Info info,
                                MPI_Comm *newcomm, MPI_Request *request,
                                const char *call)
{
    int rc;

    if ((rc = gcm_mpi_comm_check_ptr(comm, request, "request", call)) !=
        MPI_SUCCESS) {
        return rc;
    }
    rc = with_info ? PMPI_Comm_dup_with_info(comm, info, newcomm) :
         gcm_mpi_comm_dup_common(comm, newcomm, call);
    if (rc != MPI_SUCCESS) {
        return rc;
    }
    return gcm_mpi_req_generic(comm, NULL, NULL, NULL, request);
}

int PMPI_Comm_idup(MPI_Comm comm, MPI_Comm *newcomm, MPI_Request *request)
{
    return gcm_mpi_comm_idup_as(comm, 0, MPI_INFO_NULL, newcomm, request,
                                "MPI_Comm_idup");
}
GCM_MPI_ALIAS(Comm_idup)

int PMPI_Comm_idup_with_info(MPI_Comm comm, MPI_Info info,
                             MPI_Comm *newcomm, MPI_Request *request)
{
    return gcm_mpi_comm_idup_as(comm, 1, info, newcomm, request,
                                "MPI_Comm_idup_with_info");
}
GCM_MPI_ALIAS(Comm_idup_with_info)

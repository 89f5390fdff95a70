/*
 * compat/mpi_comm_derive.c: how a communicator is made from its parent.
 *
 * Every intracommunicator the library makes (dup, split, create,
 * create_group, split_type) is a pattern LCO (lco/lco.h): fully connected
 * over its group, stored as the group alone, with an identity every
 * member derives from the parent without a message. So MPI_Comm_dup
 * sends nothing and costs the same at any process count. split and
 * split_type exchange (color, key) once (MPI_Allgather); create and
 * create_group need nothing but the group the caller passes.
 *
 * Each of them lives on an endpoint given by its home key, which every
 * member derives with the identity (gcm_lco_derive_id_homed): children of
 * the world go to endpoints 1, 2, ... in the order they are made, so "one
 * communicator per thread" (MPI_Comm_dup T times, one thread each) gives
 * every thread a channel with locks, queues and rings of its own, with no
 * code change; a communicator's first child stays on its endpoint.
 * MPI_COMM_WORLD, MPI_COMM_SELF and intercommunicators live on endpoint 0.
 */
#include "config.h"

#include "boot/boot.h"
#include "compat/mpi_comm_impl.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- making communicators --------------------------------------------- */

/* A copy of n ints (none of NULL). */
int gcm_mpi_ints_copy(int n, const int src[], int **out_p)
{
    *out_p = NULL;
    if (src == NULL) {
        return MPI_SUCCESS;
    }
    *out_p = malloc(((size_t)n + 1) * sizeof(int));
    if (*out_p == NULL) {
        return MPI_ERR_NO_MEM;
    }
    memcpy(*out_p, src, (size_t)n * sizeof(int));
    return MPI_SUCCESS;
}

/* Copies procs unless it is the identity over the whole world (then the
 * communicator stores nothing, like the world). */
static int gcm_mpi_procs_copy(int n, const int procs[], int **out_p)
{
    int i, identity = (n == gcm_proc_count());

    for (i = 0; identity && (i < n); i++) {
        identity = (procs[i] == i);
    }
    return gcm_mpi_ints_copy(n, identity ? NULL : procs, out_p);
}

/* The identity of a communicator derived from parent, and its home key
 * (which endpoint of each member it lives on). Pattern parents derive
 * them alone; an LCO the user built has a different identity in every
 * member, so the member with point-to-point rank 0 derives them and sends
 * them to the others. */
static int gcm_mpi_comm_derive_id(MPI_Comm parent, uint32_t *id_p,
                                  uint32_t *gen_p, uint32_t *home_p)
{
    uint32_t idgen[3];
    gcm_status_t status = GCM_OK;
    int tag, r;

    if (parent->kind != GCM_MPI_COMM_LCO) {
        gcm_lco_derive_id_homed(parent->lco, id_p, gen_p, home_p);
        return MPI_SUCCESS;
    }
    tag = gcm_mpi_coll_tag(parent);
    if (parent->prank == 0) {
        gcm_lco_derive_id_homed(parent->lco, &idgen[0], &idgen[1],
                                &idgen[2]);
        for (r = 1; (r < parent->psize) && (status == GCM_OK); r++) {
            status = gcm_mpi_send_bytes(parent, idgen, sizeof(idgen), r,
                                        tag);
        }
    } else {
        status = gcm_mpi_recv_bytes(parent, idgen, sizeof(idgen), 0, tag);
    }
    if (status != GCM_OK) {
        return gcm_mpi_errclass(status);
    }
    *id_p   = idgen[0];
    *gen_p  = idgen[1];
    *home_p = idgen[2];
    return MPI_SUCCESS;
}

int gcm_mpi_comm_make(uint32_t id, uint32_t gen, uint32_t home, int n,
                      const int procs[], int myrank, MPI_Comm errh_from,
                      const char *call, MPI_Comm *newcomm)
{
    gcm_status_t status;
    gcm_lco_h lco;
    MPI_Comm comm;
    int rc;

    /* What is derived from a communicator shared with another job keeps
     * its token, which that job's members hold too. */
    status = gcm_lco_create_pattern_x(id, gen, home,
                                      gcm_lco_token_of(errh_from->lco), n,
                                      procs, myrank, &lco);
    if (status != GCM_OK) {
        return gcm_mpi_raise(errh_from, gcm_mpi_errclass(status), call,
                             "cannot create the communicator's LCO: %s",
                             gcm_last_error());
    }
    comm = gcm_mpi_comm_alloc(GCM_MPI_COMM_INTRA, lco);
    if (comm == NULL) {
        gcm_lco_free(&lco);
        return gcm_mpi_raise(errh_from, MPI_ERR_NO_MEM, call,
                             "out of memory");
    }
    rc = gcm_mpi_procs_copy(n, procs, &comm->procs);
    if (rc != MPI_SUCCESS) {
        gcm_mpi_comm_destroy(comm);
        return gcm_mpi_raise(errh_from, rc, call, "out of memory");
    }
    comm->rank  = myrank;
    comm->size  = n;
    comm->prank = myrank;
    comm->psize = n;
    comm->errh  = errh_from->errh;
    gcm_mpi_errh_retain(comm->errh);
    *newcomm = comm;
    return MPI_SUCCESS;
}

int gcm_mpi_comm_derive(MPI_Comm parent, int n, const int procs[],
                        int myrank, const char *call, MPI_Comm *newcomm)
{
    uint32_t id, gen, home;
    int rc;

    rc = gcm_mpi_comm_derive_id(parent, &id, &gen, &home);
    if (rc != MPI_SUCCESS) {
        return gcm_mpi_raise(parent, rc, call,
                             "cannot agree on the new communicator's "
                             "identity");
    }
    if (n == 0) {
        *newcomm = MPI_COMM_NULL;
        return MPI_SUCCESS;
    }
    return gcm_mpi_comm_make(id, gen, home, n, procs, myrank, parent, call,
                             newcomm);
}

/* World indices of the members of comm's (local) group, in rank order:
 * the communicator's own array or, for the world, a new identity array.
 * *owned_p says whether the caller frees it. */
int *gcm_mpi_comm_procs(MPI_Comm comm, int *owned_p)
{
    int *procs, i;

    *owned_p = 0;
    if (comm->procs != NULL) {
        return comm->procs;
    }
    procs = calloc((size_t)comm->size + 1, sizeof(int));
    if (procs != NULL) {
        for (i = 0; i < comm->size; i++) {
            procs[i] = i;
        }
        *owned_p = 1;
    }
    return procs;
}

/*
 * compat/mpi_comm_impl.h: what the files of communicators
 * (compat/mpi_comm_*.c) share.
 */
#ifndef GCM_MPI_COMM_IMPL_H
#define GCM_MPI_COMM_IMPL_H

#include "compat/mpi_impl.h"

/* MPI_Comm_create_group counts per (group, tag), see there. */
typedef struct gcm_mpi_cg_count {
    uint64_t                 key;
    uint32_t                 count;
    struct gcm_mpi_cg_count *next;
} gcm_mpi_cg_count_t;

/* A copy of n ints (none of NULL). */
int gcm_mpi_ints_copy(int n, const int src[], int **out_p) GCM_INTERNAL;

/* A new communicator of identity (id, gen) homed at home over the world
 * indices procs (n of them; this process is rank myrank), with the error
 * handler of errh_from. */
int gcm_mpi_comm_make(uint32_t id, uint32_t gen, uint32_t home, int n,
                      const int procs[], int myrank, MPI_Comm errh_from,
                      const char *call, MPI_Comm *newcomm) GCM_INTERNAL;

/* World indices of the members of comm's (local) group, in rank order:
 * the communicator's own array or, for the world, a new identity array.
 * *owned_p says whether the caller frees it. */
int *gcm_mpi_comm_procs(MPI_Comm comm, int *owned_p) GCM_INTERNAL;

/* comm is a valid intracommunicator that is not an LCO built slot by
 * slot (else raised on it). */
int gcm_mpi_check_intra(MPI_Comm comm, const char *call) GCM_INTERNAL;

#endif /* GCM_MPI_COMM_IMPL_H */

/*
 * compat/mpi_topo.c: process topologies (MPI-3.1 chapter 7).
 * Placeholder hooks until the family lands.
 */
#include "config.h"

#include "compat/mpi_impl.h"

int gcm_mpi_topo_copy(MPI_Comm oldcomm, MPI_Comm newcomm)
{
    (void)oldcomm;
    (void)newcomm;
    return MPI_SUCCESS;
}

void gcm_mpi_topo_free(MPI_Comm comm)
{
    (void)comm;
}

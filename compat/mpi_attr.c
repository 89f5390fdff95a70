/*
 * compat/mpi_attr.c: attribute caching on communicators (MPI-3.1 6.7).
 * Placeholder hooks until the family lands.
 */
#include "config.h"

#include "compat/mpi_impl.h"

int gcm_mpi_attr_copy(MPI_Comm oldcomm, MPI_Comm newcomm)
{
    (void)oldcomm;
    (void)newcomm;
    return MPI_SUCCESS;
}

int gcm_mpi_attr_delete_all(MPI_Comm comm)
{
    (void)comm;
    return MPI_SUCCESS;
}

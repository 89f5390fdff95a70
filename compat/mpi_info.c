/*
 * compat/mpi_info.c: info objects (MPI-3.1 9).
 * Placeholder until the family lands.
 */
#include "config.h"

#include "compat/mpi_impl.h"

struct gcm_mpi_info {
    uint32_t magic;
};

struct gcm_mpi_info gcm_mpi_info_env = { GCM_MPI_MAGIC_INFO };

int gcm_mpi_info_check(MPI_Info info)
{
    return ((info != NULL) && (info->magic == GCM_MPI_MAGIC_INFO)) ?
           MPI_SUCCESS : MPI_ERR_INFO;
}

void gcm_mpi_info_env_init(int argc, char **argv)
{
    (void)argc;
    (void)argv;
}

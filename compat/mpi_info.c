/*
 * compat/mpi_info.c: info objects (MPI-3.1 9).
 * Placeholder until the family lands.
 */
#include "config.h"

#include "compat/mpi_impl.h"

#include <stdlib.h>

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

/* Until the info family lands: empty info objects. */
int PMPI_Info_create(MPI_Info *info)
{
    *info = calloc(1, sizeof(**info));
    if (*info == NULL) {
        return MPI_ERR_NO_MEM;
    }
    (*info)->magic = GCM_MPI_MAGIC_INFO;
    return MPI_SUCCESS;
}

int PMPI_Info_dup(MPI_Info info, MPI_Info *newinfo)
{
    (void)info;
    return PMPI_Info_create(newinfo);
}

int PMPI_Info_free(MPI_Info *info)
{
    free(*info);
    *info = MPI_INFO_NULL;
    return MPI_SUCCESS;
}

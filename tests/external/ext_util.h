/*
 * tests/external/ext_util.h: what the external-communicator programs
 * share: every process's processor name (cluster:node on the emulated
 * hosts of the scripts) and an external attribute's value.
 *
 * Header only (every function static): include it after mpi.h.
 */
#ifndef GCM_EXT_UTIL_H
#define GCM_EXT_UTIL_H

#include <mpi.h>

#include <string.h>

/* Every process's processor name, by rank (at most 16 processes). */
static char names[16][MPI_MAX_PROCESSOR_NAME];

/* Gathers names over c, where this process is rank of size. */
static void gather_names(MPI_Comm c, int rank, int size)
    __attribute__((unused));

static void gather_names(MPI_Comm c, int rank, int size)
{
    int len, p;

    MPI_Get_processor_name(names[rank], &len);
    MPI_Allgather(MPI_IN_PLACE, 0, MPI_DATATYPE_NULL, names,
                  MPI_MAX_PROCESSOR_NAME, MPI_CHAR, c);
    for (p = 0; p < size; p++) {
        names[p][MPI_MAX_PROCESSOR_NAME - 1] = '\0';
    }
}

/* Whether process p's name is in cluster ("cluster:..."). */
static int in_cluster(int p, const char *cluster) __attribute__((unused));

static int in_cluster(int p, const char *cluster)
{
    size_t n = strlen(cluster);

    return strncmp(names[p], cluster, n) == 0 && names[p][n] == ':';
}

/* The value of external attribute key on c, or NULL. */
static const char *attr(MPI_Comm c, const char *key) __attribute__((unused));

static const char *attr(MPI_Comm c, const char *key)
{
    char *value = NULL;
    int kv, flag = 0;

    MPIX_Keyval_external(&kv, key, &flag);
    if (!flag) {
        return NULL;
    }
    MPI_Comm_get_attr(c, kv, &value, &flag);
    return flag ? value : NULL;
}

#endif /* GCM_EXT_UTIL_H */

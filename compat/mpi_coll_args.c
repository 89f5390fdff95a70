/*
 * compat/mpi_coll_args.c: the argument checks the collectives
 * share.
 */
#include "config.h"

#include "compat/mpi_coll_impl.h"

#include <limits.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/* ---- argument checks ----------------------------------------------------- */

int gcm_mpi_coll_check_count(MPI_Comm comm, const char *call, int count,
                             const char *what)
{
    if (count < 0) {
        return gcm_mpi_raise(comm, MPI_ERR_COUNT, call, "%s %d is negative",
                             what, count);
    }
    return MPI_SUCCESS;
}

int gcm_mpi_coll_check_type(MPI_Comm comm, const char *call,
                            MPI_Datatype type, const char *what)
{
    int rc = gcm_mpi_type_check(type);

    if (rc != MPI_SUCCESS) {
        return gcm_mpi_raise(comm, rc, call,
                             "invalid %s (MPI_DATATYPE_NULL, freed, or not "
                             "committed)", what);
    }
    return MPI_SUCCESS;
}

/*
 * count elements of type from each process of comm: the schedules of
 * coll/ size their buffers and offsets for the whole group, so that many
 * bytes must fit an MPI_Aint (they do for any buffer that can exist).
 * MPI_ERR_COUNT otherwise, never a length that wraps.
 */
static int coll_check_bytes(MPI_Comm comm, const char *call, int count,
                            MPI_Datatype type)
{
    MPI_Count size = gcm_mpi_type_size(type), all;
    int n = comm->psize;

    if (comm->size > n) {
        n = comm->size;
    }
    if (comm->remote_size > n) {
        n = comm->remote_size;
    }
    if (__builtin_mul_overflow(size, (MPI_Count)count, &all) ||
        __builtin_mul_overflow(all, (MPI_Count)((n > 0) ? n : 1), &all) ||
        ((uint64_t)all > (uint64_t)PTRDIFF_MAX)) {
        return gcm_mpi_raise(comm, MPI_ERR_COUNT, call,
                             "%d elements of %lld bytes from each of %d "
                             "processes are more bytes than any buffer "
                             "holds", count, (long long)size, n);
    }
    return MPI_SUCCESS;
}

/* A NULL buffer is refused only where it must be wrong: for a datatype
 * whose lb is not 0 it may be MPI_BOTTOM with absolute addresses. The
 * count must not make a length that overflows (coll_check_bytes). */
int gcm_mpi_coll_check_buf(MPI_Comm comm, const char *call, const void *buf,
                           int count, MPI_Datatype type, int in_place_ok,
                           const char *what)
{
    MPI_Aint lb, ext;
    int rc;

    if (buf == MPI_IN_PLACE) {
        if (in_place_ok != 0) {
            return MPI_SUCCESS;
        }
        return gcm_mpi_raise(comm, MPI_ERR_BUFFER, call,
                             "MPI_IN_PLACE is not allowed as %s here", what);
    }
    if ((rc = coll_check_bytes(comm, call, count, type)) != MPI_SUCCESS) {
        return rc;
    }
    if (buf != NULL || count == 0 || gcm_mpi_type_size(type) == 0) {
        return MPI_SUCCESS;
    }
    gcm_mpi_type_extent(type, &lb, &ext);
    if (lb == 0) {
        return gcm_mpi_raise(comm, MPI_ERR_BUFFER, call,
                             "%s is NULL with count %d", what, count);
    }
    return MPI_SUCCESS;
}

/* count, datatype and buffer of one side of a call. */
int gcm_mpi_coll_check_side(MPI_Comm comm, const char *call, const void *buf,
                            int count, MPI_Datatype type, int in_place_ok,
                            const char *bufname)
{
    int rc = gcm_mpi_coll_check_count(comm, call, count, "count");

    if (rc == MPI_SUCCESS && buf != MPI_IN_PLACE) {
        rc = gcm_mpi_coll_check_type(comm, call, type, "datatype");
    }
    if (rc == MPI_SUCCESS) {
        rc = gcm_mpi_coll_check_buf(comm, call, buf, count, type, in_place_ok,
                                    bufname);
    }
    return rc;
}

int gcm_mpi_coll_check_root(MPI_Comm comm, const char *call, int root)
{
    if (gcm_mpi_coll_is_inter(comm)) {
        if (root == MPI_ROOT || root == MPI_PROC_NULL ||
            (root >= 0 && root < comm->remote_size)) {
            return MPI_SUCCESS;
        }
        return gcm_mpi_raise(comm, MPI_ERR_ROOT, call,
                             "root %d is not MPI_ROOT, MPI_PROC_NULL or a "
                             "rank of the remote group (size %d)",
                             root, comm->remote_size);
    }
    if (root < 0 || root >= comm->psize) {
        return gcm_mpi_raise(comm, MPI_ERR_ROOT, call,
                             "root %d out of range (communicator size %d)",
                             root, comm->psize);
    }
    return MPI_SUCCESS;
}

int gcm_mpi_coll_check_array(MPI_Comm comm, const char *call, const int *a,
                             int n, int counts, const char *what)
{
    int i;

    if (a == NULL && n > 0) {
        return gcm_mpi_raise(comm, MPI_ERR_ARG, call, "%s is NULL", what);
    }
    if (counts != 0) {
        for (i = 0; i < n; i++) {
            if (a[i] < 0) {
                return gcm_mpi_raise(comm, MPI_ERR_COUNT, call,
                                     "%s[%d] = %d is negative", what, i,
                                     a[i]);
            }
        }
    }
    return MPI_SUCCESS;
}

int gcm_mpi_coll_check_req(MPI_Comm comm, const char *call,
                           const MPI_Request *request)
{
    if (request == NULL) {
        return gcm_mpi_raise(comm, MPI_ERR_ARG, call, "request is NULL");
    }
    return MPI_SUCCESS;
}

int gcm_mpi_coll_check_mode(MPI_Comm comm, const char *call, int mode,
                            MPI_Info info, const MPI_Request *request)
{
    if (mode == COLL_BLOCKING) {
        return MPI_SUCCESS;
    }
    if (mode == COLL_PERSISTENT && info != MPI_INFO_NULL &&
        gcm_mpi_info_check(info) != MPI_SUCCESS) {
        return gcm_mpi_raise(comm, MPI_ERR_INFO, call,
                             "info is not a valid info object");
    }
    return gcm_mpi_coll_check_req(comm, call, request);
}

/* Checks (count, datatype, op) of a reduction. */
int gcm_mpi_coll_check_reduction(MPI_Comm comm, const char *call, int count,
                                 MPI_Datatype type, MPI_Op op)
{
    int rc = gcm_mpi_coll_check_count(comm, call, count, "count");

    if (rc == MPI_SUCCESS) {
        rc = gcm_mpi_coll_check_type(comm, call, type, "datatype");
    }
    if (rc == MPI_SUCCESS) {
        rc = coll_check_bytes(comm, call, count, type);
    }
    if (rc == MPI_SUCCESS) {
        rc = gcm_mpi_op_check(op, type, comm, call);
    }
    return rc;
}

int gcm_mpi_coll_no_inter_in_place(MPI_Comm comm, const char *call,
                                   const void *sbuf, const void *rbuf)
{
    if (gcm_mpi_coll_is_inter(comm) &&
        (sbuf == MPI_IN_PLACE || rbuf == MPI_IN_PLACE)) {
        return gcm_mpi_raise(comm, MPI_ERR_BUFFER, call,
                             "MPI_IN_PLACE is not allowed on an "
                             "intercommunicator");
    }
    return MPI_SUCCESS;
}

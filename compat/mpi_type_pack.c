/*
 * compat/mpi_type_pack.c: MPI_Pack, MPI_Unpack and MPI_Pack_size.
 */
#include "config.h"

#include "compat/mpi_type_impl.h"

#include <limits.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <wchar.h>

/* ---- packing ------------------------------------------------------------ */

/* count * size as an int, or MPI_ERR_COUNT. */
static int packed_bytes(int count, MPI_Datatype datatype, int *bytes,
                        const char *call)
{
    MPI_Count n;

    if (__builtin_mul_overflow((MPI_Count)count, datatype->size, &n) ||
        n > INT_MAX) {
        return gcm_mpi_raise(NULL, MPI_ERR_COUNT, call,
                             "%d elements do not fit in an int of bytes",
                             count);
    }
    *bytes = (int)n;
    return MPI_SUCCESS;
}

int PMPI_Pack_size(int incount, MPI_Datatype datatype, MPI_Comm comm,
                   int *size)
{
    static const char call[] = "MPI_Pack_size";
    int rc = gcm_mpi_type_check_count(incount, call);

    (void)comm;
    if (rc == MPI_SUCCESS) {
        rc = gcm_mpi_type_check_committed(datatype, call);
    }
    if (rc == MPI_SUCCESS) {
        rc = gcm_mpi_type_check_out(size, "size", call);
    }
    if (rc != MPI_SUCCESS) {
        return rc;
    }
    return packed_bytes(incount, datatype, size, call);
}
GCM_MPI_ALIAS(Pack_size)

/* The checks of Pack and Unpack: position within a buffer of bufsize
 * bytes, with room for count elements after it. */
static int check_pack(int count, MPI_Datatype datatype, int bufsize,
                      const int *position, int *bytes, const char *call)
{
    int rc = gcm_mpi_type_check_count(count, call);

    if (rc == MPI_SUCCESS) {
        rc = gcm_mpi_type_check_committed(datatype, call);
    }
    if (rc == MPI_SUCCESS) {
        rc = gcm_mpi_type_check_out(position, "position", call);
    }
    if (rc != MPI_SUCCESS) {
        return rc;
    }
    if (bufsize < 0) {
        return gcm_mpi_raise(NULL, MPI_ERR_ARG, call,
                             "negative buffer size %d", bufsize);
    }
    if (*position < 0) {
        return gcm_mpi_raise(NULL, MPI_ERR_ARG, call,
                             "negative position %d", *position);
    }
    rc = packed_bytes(count, datatype, bytes, call);
    if (rc != MPI_SUCCESS) {
        return rc;
    }
    if (*position > bufsize || *bytes > bufsize - *position) {
        return gcm_mpi_raise(NULL, MPI_ERR_TRUNCATE, call,
                             "%d bytes at position %d do not fit in %d",
                             *bytes, *position, bufsize);
    }
    return MPI_SUCCESS;
}

int PMPI_Pack(const void *inbuf, int incount, MPI_Datatype datatype,
              void *outbuf, int outsize, int *position, MPI_Comm comm)
{
    static const char call[] = "MPI_Pack";
    int bytes;
    int rc = check_pack(incount, datatype, outsize, position, &bytes, call);

    (void)comm;
    if (rc != MPI_SUCCESS) {
        return rc;
    }
    /* inbuf may be MPI_BOTTOM (NULL) with absolute displacements. */
    if (bytes > 0 && outbuf == NULL) {
        return gcm_mpi_raise(NULL, MPI_ERR_ARG, call,
                             "outbuf is NULL for %d bytes", bytes);
    }
    gcm_mpi_type_pack(datatype, incount, inbuf,
                      gcm_mpi_type_addr(outbuf, *position));
    *position += bytes;
    return MPI_SUCCESS;
}
GCM_MPI_ALIAS(Pack)

int PMPI_Unpack(const void *inbuf, int insize, int *position, void *outbuf,
                int outcount, MPI_Datatype datatype, MPI_Comm comm)
{
    static const char call[] = "MPI_Unpack";
    int bytes;
    int rc = check_pack(outcount, datatype, insize, position, &bytes, call);

    (void)comm;
    if (rc != MPI_SUCCESS) {
        return rc;
    }
    /* outbuf may be MPI_BOTTOM (NULL) with absolute displacements. */
    if (bytes > 0 && inbuf == NULL) {
        return gcm_mpi_raise(NULL, MPI_ERR_ARG, call,
                             "inbuf is NULL for %d bytes", bytes);
    }
    gcm_mpi_type_unpack(datatype, outcount,
                        gcm_mpi_type_addr(inbuf, *position), (size_t)bytes,
                        outbuf);
    *position += bytes;
    return MPI_SUCCESS;
}
GCM_MPI_ALIAS(Unpack)

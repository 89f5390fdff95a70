/*
 * compat/mpi_req_impl.h: between mpi_request.c (request objects, cancel,
 * free) and mpi_wait.c (the wait and test calls), beside the request
 * calls of compat/mpi_impl.h.
 */
#ifndef GCM_MPI_REQ_IMPL_H
#define GCM_MPI_REQ_IMPL_H

#include "compat/mpi_impl.h"

/* Completes req if it can without blocking; progress: also advance its
 * endpoint once first. */
int gcm_mpi_req_check(gcm_mpi_req_t *req, int progress) GCM_INTERNAL;
/* gcm_mpi_req_check(req, 0), without a call for a complete request (the
 * scans of the waits ask each round). */
static inline int gcm_mpi_req_check_done(gcm_mpi_req_t *req)
{
    return req->complete || gcm_mpi_req_check(req, 0);
}
/* The LCO whose endpoint advances req (NULL: the thread's endpoint). */
static inline gcm_lco_h gcm_mpi_req_lco(const gcm_mpi_req_t *req)
{
    return (req->comm != NULL) ? req->comm->lco : NULL;
}
/* The status of a send or receive whose native transfer ended (info:
 * its native status), but for MPI_ERROR and the cancelled flag. */
static inline void gcm_mpi_status_native(MPI_Status *status, int kind,
                                         const gcm_msg_status_t *info)
{
    if (kind == GCM_MPI_REQ_RECV) {
        status->MPI_SOURCE = info->slot;
        status->MPI_TAG    = info->tag;
        status->gcm_count  = (MPI_Count)info->count;
    } else {
        status->MPI_SOURCE = MPI_ANY_SOURCE;
        status->MPI_TAG    = MPI_ANY_TAG;
        status->gcm_count  = 0;
    }
    status->gcm_cancelled = 0;
}

#endif /* GCM_MPI_REQ_IMPL_H */

/*
 * compat/mpi_greq.h: generalized requests (mpi_grequest.c), for the
 * request calls of mpi_request.c and mpi_wait.c.
 */
#ifndef GCM_MPI_GREQ_H
#define GCM_MPI_GREQ_H

#include "compat/mpi_impl.h"

/* Has MPI_Grequest_complete been called? (any thread may call it) */
int gcm_mpi_greq_done(gcm_mpi_req_t *req) GCM_INTERNAL;
/* A completion call finishes req: its query_fn fills req->status, then
 * its free_fn runs; returns the first error code of the two (also left
 * in req->status.MPI_ERROR, the reason in req->errtext). */
int gcm_mpi_greq_finish(gcm_mpi_req_t *req) GCM_INTERNAL;
/* MPI_Request_get_status of a complete one: query_fn into *status. */
int gcm_mpi_greq_query(gcm_mpi_req_t *req, MPI_Status *status) GCM_INTERNAL;
/* MPI_Cancel: cancel_fn, told whether it is complete; its error code. */
int gcm_mpi_greq_cancel(gcm_mpi_req_t *req) GCM_INTERNAL;
/* MPI_Request_free: frees it now (free_fn) if complete, else when
 * MPI_Grequest_complete is called; free_fn's error code or 0. */
int gcm_mpi_greq_request_free(gcm_mpi_req_t *req) GCM_INTERNAL;

#endif /* GCM_MPI_GREQ_H */

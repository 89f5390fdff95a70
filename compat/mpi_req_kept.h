/*
 * compat/mpi_req_kept.h: request objects kept by their state between
 * requests (gcm_mpi_req_generic_kept): a nonblocking collective's
 * schedule (mpi_coll_run.c) and the communicator, for the two-process
 * MPI_Ibarrier (mpi_coll_rooted.c). Their release, and MPI_Wait's one
 * pass for each (mpi_wait.c).
 */
#ifndef GCM_MPI_REQ_KEPT_H
#define GCM_MPI_REQ_KEPT_H

#include "compat/mpi_impl.h"

#include <stdlib.h>

/* What keeps a kept request object (req->kept). */
enum {
    GCM_MPI_REQ_KEPT_COLL = 1,   /* a collective's schedule */
    GCM_MPI_REQ_KEPT_PAIR = 2    /* the communicator: MPI_Ibarrier of two */
};

/* MPI_Wait's general path, for a live request req (*request its handle):
 * waits for it, completes it and reaps orphans (mpi_wait.c). */
int gcm_mpi_wait_general(gcm_mpi_req_t *req, MPI_Request *request,
                         MPI_Status *status) GCM_INTERNAL;

/* MPI_Wait on a collective's live request req (req->kept is
 * GCM_MPI_REQ_KEPT_COLL; *request its handle), in one pass: its schedule
 * run to its end, status written, req released and *request made
 * MPI_REQUEST_NULL; where that pass cannot complete it (a failure, whose
 * status is kept in req; a persistent request), the general path. Returns
 * what MPI_Wait returns. */
int gcm_mpi_coll_req_wait(gcm_mpi_req_t *req, MPI_Request *request,
                          MPI_Status *status) GCM_INTERNAL;
/* The same for the request of an MPI_Ibarrier of two processes
 * (GCM_MPI_REQ_KEPT_PAIR): waits for its transfers (mpi_coll_rooted.c). */
int gcm_mpi_coll_pair_wait(gcm_mpi_req_t *req, MPI_Request *request,
                           MPI_Status *status) GCM_INTERNAL;

/* MPI_Wait on a kept request (req->kept set): the one of its kind (a
 * tail call: MPI_Wait's fast path needs no frame of its own). */
static inline int gcm_mpi_req_kept_wait(gcm_mpi_req_t *req,
                                        MPI_Request *request,
                                        MPI_Status *status)
{
    return (req->kept == GCM_MPI_REQ_KEPT_PAIR) ?
           gcm_mpi_coll_pair_wait(req, request, status) :
           gcm_mpi_coll_req_wait(req, request, status);
}

/* The end of both when their pass released the request. */
static inline int gcm_mpi_req_kept_waited(MPI_Request *request)
{
    *request = MPI_REQUEST_NULL;
    gcm_mpi_orphans_reap_any();
    return MPI_SUCCESS;
}

/*
 * The release of a request kept by its state (gcm_mpi_req_generic_kept),
 * cleanup its req->cleanup (inline: a caller that knows it, a
 * collective's wait, has it inlined too). Once cleanup hands the request
 * back, another thread may take the state and the request with it for
 * its next call at once (a collective's schedule goes back to its
 * communicator, where the next caller finds it): so the request is left
 * ready for that (handle dead, fields as a new request has them) before,
 * and never touched after. The communicator's reference goes last: the
 * state may still use the communicator, and the request holds it alive
 * until then.
 *
 * gcm_mpi_req_release_kept_ok is the same for a request that ran well in
 * a wait's one pass (gcm_mpi_req_kept_wait), less what such a
 * request has as a new one has it already: it is not persistent (the
 * passes leave persistent ones to the general path), neither freed (a
 * freed request is not waited) nor cancelled (MPI_Cancel leaves a
 * collective alone), has no start, and its wait is set again at each
 * start.
 */
static inline void gcm_mpi_req_release_kept_ok(gcm_mpi_req_t *req,
                                               void (*cleanup)(void *state))
{
    void *state = req->state;
    MPI_Comm comm = req->comm;

    req->magic = 0;
    gcm_mpi_req_kill_handle(req);
    if (gcm_unlikely(req->errtext != NULL)) {
        free(req->errtext);
        req->errtext = NULL;
    }
    cleanup(state);
    if ((comm != MPI_COMM_NULL) && !comm->predefined) {
        gcm_mpi_comm_unref(comm);
    }
}

static inline void gcm_mpi_req_release_kept(gcm_mpi_req_t *req,
                                            void (*cleanup)(void *state))
{
    req->persistent = 0;
    req->freed      = 0;
    req->cancelled  = 0;
    req->start      = NULL;
    req->wait       = NULL;
    gcm_mpi_req_release_kept_ok(req, cleanup);
}

#endif /* GCM_MPI_REQ_KEPT_H */

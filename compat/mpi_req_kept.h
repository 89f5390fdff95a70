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

/* MPI_Wait on a collective's nonpersistent request (req->kept is
 * GCM_MPI_REQ_KEPT_COLL): runs its schedule to its end, writes status and
 * releases req; 1 when done so (the request succeeded), 0 when the
 * general path must complete it (nothing lost: a failure's status is kept
 * in req; a persistent request). */
int gcm_mpi_coll_req_wait_release(gcm_mpi_req_t *req, MPI_Status *status)
    GCM_INTERNAL;
/* The same for the request of an MPI_Ibarrier of two processes
 * (GCM_MPI_REQ_KEPT_PAIR): waits for its transfers (mpi_coll_rooted.c). */
int gcm_mpi_coll_pair_wait_release(gcm_mpi_req_t *req, MPI_Status *status)
    GCM_INTERNAL;

/* MPI_Wait's pass for a kept request (req->kept set): the one of its
 * kind; 1 when it completed and released req, 0 when the general path
 * must. */
static inline int gcm_mpi_req_kept_wait_release(gcm_mpi_req_t *req,
                                                MPI_Status *status)
{
    return (req->kept == GCM_MPI_REQ_KEPT_PAIR) ?
           gcm_mpi_coll_pair_wait_release(req, status) :
           gcm_mpi_coll_req_wait_release(req, status);
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
 * a wait's one pass (gcm_mpi_req_kept_wait_release), less what such a
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

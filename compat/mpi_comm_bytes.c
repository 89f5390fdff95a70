/*
 * compat/mpi_comm_bytes.c: raw transfers for the library's own protocols
 * on a communicator (bytes, no datatype, no matching with the program's
 * messages), and the tags of its collectives.
 */
#include "config.h"

#include "boot/boot.h"
#include "compat/mpi_comm_impl.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- raw transfers for the library's own protocols --------------------- */

int gcm_mpi_coll_tag(MPI_Comm comm)
{
    return gcm_mpi_coll_seq_tag(atomic_fetch_add_explicit(
        &comm->coll_seq, 1, memory_order_relaxed));
}

gcm_status_t gcm_mpi_isend_bytes(MPI_Comm comm, const void *buf, size_t len,
                                 int dest, int tag, gcm_request_h *req_p)
{
    return gcm_lco_isend_x(comm->lco, buf, len, dest, tag, 0, req_p);
}

gcm_status_t gcm_mpi_irecv_bytes(MPI_Comm comm, void *buf, size_t len,
                                 int source, int tag, gcm_request_h *req_p)
{
    return gcm_lco_irecv_x(comm->lco, buf, len, source, tag, req_p);
}

/* The blocking forms: req waited for once started (status GCM_OK). */
static gcm_status_t gcm_mpi_bytes_wait(gcm_status_t status,
                                       gcm_request_h *req)
{
    return (status != GCM_OK) ? status : gcm_wait(req, NULL);
}

gcm_status_t gcm_mpi_send_bytes(MPI_Comm comm, const void *buf, size_t len,
                                int dest, int tag)
{
    gcm_request_h req;

    return gcm_mpi_bytes_wait(gcm_mpi_isend_bytes(comm, buf, len, dest, tag,
                                                  &req), &req);
}

gcm_status_t gcm_mpi_recv_bytes(MPI_Comm comm, void *buf, size_t len,
                                int source, int tag)
{
    gcm_request_h req;

    return gcm_mpi_bytes_wait(gcm_mpi_irecv_bytes(comm, buf, len, source,
                                                  tag, &req), &req);
}

gcm_status_t gcm_mpi_sendrecv_bytes(MPI_Comm comm, const void *sbuf,
                                    size_t slen, int dest, void *rbuf,
                                    size_t rlen, int source, int tag)
{
    gcm_request_h reqs[2];
    gcm_status_t status;

    status = gcm_mpi_irecv_bytes(comm, rbuf, rlen, source, tag, &reqs[0]);
    if (status != GCM_OK) {
        return status;
    }
    status = gcm_mpi_isend_bytes(comm, sbuf, slen, dest, tag, &reqs[1]);
    if (status != GCM_OK) {
        gcm_lco_cancel(reqs[0]);
        gcm_wait(&reqs[0], NULL);
        return status;
    }
    return gcm_waitall(2, reqs, NULL);
}

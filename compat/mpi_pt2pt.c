/*
 * compat/mpi_pt2pt.c: point-to-point communication (MPI-3.1 chapter 3):
 * the four send modes, blocking and nonblocking, receives, send-receive
 * and persistent requests (buffered sends: mpi_bsend.c; probes:
 * mpi_probe.c).
 *
 * A rank is a slot: a send to rank r goes out on send slot r of the
 * communicator's LCO and a receive from r waits on receive slot r, so
 * MPI's matching (source, tag, order per pair) is the native matching.
 * Contiguous data goes straight from and into the user's buffer; other
 * layouts are packed into (or received into and unpacked from) one
 * temporary buffer.
 */
#include "config.h"

#include "compat/mpi_impl.h"
#include "compat/mpi_pt2pt_impl.h"
#include "compat/mpi_type_impl.h"

#include <limits.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

/* ---- argument checks --------------------------------------------------- */

/* Checks (buf, count, datatype); after it, count * size fits a size_t
 * (the lengths below are made without checks). */
int gcm_mpi_check_buffer(MPI_Comm comm, const void *buf, int count,
                         MPI_Datatype datatype, const char *call)
{
    size_t len;
    int rc;

    if (count < 0) {
        return gcm_mpi_raise(comm, MPI_ERR_COUNT, call,
                             "count %d is negative", count);
    }
    if (gcm_mpi_type_check(datatype) != 0) {
        return gcm_mpi_raise(comm, MPI_ERR_TYPE, call,
                             (datatype == MPI_DATATYPE_NULL) ?
                             "datatype is MPI_DATATYPE_NULL" :
                             "datatype is not valid or not committed");
    }
    rc = gcm_mpi_type_bytes(comm, call, datatype, count, &len);
    if (rc != MPI_SUCCESS) {
        return rc;
    }
    if ((buf == MPI_IN_PLACE)) {
        return gcm_mpi_raise(comm, MPI_ERR_BUFFER, call,
                             "MPI_IN_PLACE is not a point-to-point buffer");
    }
    return MPI_SUCCESS;
}

/* rank: a destination (wild = 0) or a source (wild = 1). */
static int gcm_mpi_check_rank(MPI_Comm comm, int rank, int wild,
                              const char *call)
{
    if ((rank == MPI_PROC_NULL) || (wild && (rank == MPI_ANY_SOURCE))) {
        return MPI_SUCCESS;
    }
    if ((rank < 0) || (rank >= comm->psize)) {
        return gcm_mpi_raise(comm, MPI_ERR_RANK, call,
                             "%s rank %d is out of range (the %s has %d)",
                             wild ? "source" : "destination", rank,
                             (comm->kind == GCM_MPI_COMM_INTER) ?
                             "remote group" :
                             (comm->kind == GCM_MPI_COMM_LCO) ?
                             (wild ? "LCO's receive slots" :
                              "LCO's send slots") : "communicator",
                             comm->psize);
    }
    return MPI_SUCCESS;
}

int gcm_mpi_check_tag(MPI_Comm comm, int tag, int wild,
                      const char *call)
{
    if ((wild && (tag == MPI_ANY_TAG)) ||
        ((tag >= 0) && (tag <= GCM_TAG_UB))) {
        return MPI_SUCCESS;
    }
    return gcm_mpi_raise(comm, MPI_ERR_TAG, call,
                         "tag %d is outside 0..MPI_TAG_UB (%d)%s", tag,
                         GCM_TAG_UB, wild ? " and not MPI_ANY_TAG" : "");
}

/* The receive slot count of an LCO may differ from its send slot count:
 * a receive names a receive slot. */
int gcm_mpi_check_source(MPI_Comm comm, int source, const char *call)
{
    int nrecv;

    if ((comm->kind == GCM_MPI_COMM_LCO) && (source >= 0)) {
        gcm_lco_num_recv_slots(comm->lco, &nrecv);
        if (source >= nrecv) {
            return gcm_mpi_raise(comm, MPI_ERR_RANK, call,
                                 "receive slot %d is out of range (the LCO "
                                 "has %d receive slots)", source, nrecv);
        }
        return MPI_SUCCESS;
    }
    return gcm_mpi_check_rank(comm, source, 1, call);
}

static int gcm_mpi_check_send(const void *buf, int count,
                              MPI_Datatype datatype, int dest, int tag,
                              MPI_Comm comm, const char *call)
{
    int rc;

    if (((rc = gcm_mpi_comm_check(comm, call)) != MPI_SUCCESS) ||
        ((rc = gcm_mpi_check_buffer(comm, buf, count, datatype, call)) !=
         MPI_SUCCESS) ||
        ((rc = gcm_mpi_check_rank(comm, dest, 0, call)) != MPI_SUCCESS) ||
        ((rc = gcm_mpi_check_tag(comm, tag, 0, call)) != MPI_SUCCESS)) {
        return rc;
    }
    return MPI_SUCCESS;
}

static int gcm_mpi_check_recv(const void *buf, int count,
                              MPI_Datatype datatype, int source, int tag,
                              MPI_Comm comm, const char *call)
{
    int rc;

    if (((rc = gcm_mpi_comm_check(comm, call)) != MPI_SUCCESS) ||
        ((rc = gcm_mpi_check_buffer(comm, buf, count, datatype, call)) !=
         MPI_SUCCESS) ||
        ((rc = gcm_mpi_check_source(comm, source, call)) != MPI_SUCCESS) ||
        ((rc = gcm_mpi_check_tag(comm, tag, 1, call)) != MPI_SUCCESS)) {
        return rc;
    }
    return MPI_SUCCESS;
}

int gcm_mpi_native_error(MPI_Comm comm, gcm_status_t status,
                         const char *call)
{
    return gcm_mpi_raise(comm, gcm_mpi_errclass(status), call, "%s",
                         gcm_last_error());
}

/* ---- data layout -------------------------------------------------------- */

/* Where count elements of datatype at buf travel from: the buffer itself
 * when contiguous, else a packed copy (*tmp_p, to free). */
static int gcm_mpi_send_data(const void *buf, int count,
                             MPI_Datatype datatype, const void **data_p,
                             size_t *len_p, void **tmp_p)
{
    size_t len = (size_t)gcm_mpi_type_size(datatype) * (size_t)count;
    const void *start;

    *len_p = len;
    *tmp_p = NULL;
    if ((len == 0) ||
        gcm_mpi_type_is_contiguous(datatype, count, buf, &start)) {
        *data_p = (len == 0) ? buf : start;
        return MPI_SUCCESS;
    }
    *tmp_p = malloc(len);
    if (*tmp_p == NULL) {
        return MPI_ERR_NO_MEM;
    }
    gcm_mpi_type_pack(datatype, count, buf, *tmp_p);
    *data_p = *tmp_p;
    return MPI_SUCCESS;
}

/* Where a receive lands: the buffer itself when contiguous, else a
 * temporary unpacked on completion. */
int gcm_mpi_recv_data(void *buf, int count, MPI_Datatype datatype,
                      void **data_p, size_t *len_p, void **tmp_p)
{
    size_t len = (size_t)gcm_mpi_type_size(datatype) * (size_t)count;
    const void *start;

    *len_p = len;
    *tmp_p = NULL;
    if ((len == 0) ||
        gcm_mpi_type_is_contiguous(datatype, count, buf, &start)) {
        *data_p = (len == 0) ? buf : (void *)start;
        return MPI_SUCCESS;
    }
    *tmp_p = malloc(len);
    if (*tmp_p == NULL) {
        return MPI_ERR_NO_MEM;
    }
    *data_p = *tmp_p;
    return MPI_SUCCESS;
}

/* The status of a receive or probe. Like every single-completion call's
 * (MPI-3.1 3.2.5: only calls that can return MPI_ERR_IN_STATUS set it),
 * it leaves MPI_ERROR as the caller had it. */
void gcm_mpi_status_fill(MPI_Status *status,
                         const gcm_msg_status_t *info,
                         gcm_status_t result)
{
    if (status != MPI_STATUS_IGNORE) {
        status->MPI_SOURCE    = info->slot;
        status->MPI_TAG       = info->tag;
        status->gcm_cancelled = (result == GCM_ERR_CANCELED);
        status->gcm_count     = (MPI_Count)info->count;
    }
}

/* MPI_PROC_NULL's status (MPI_ERROR left alone, as above). */
void gcm_mpi_status_proc_null(MPI_Status *status)
{
    if (status != MPI_STATUS_IGNORE) {
        status->MPI_SOURCE    = MPI_PROC_NULL;
        status->MPI_TAG       = MPI_ANY_TAG;
        status->gcm_cancelled = 0;
        status->gcm_count     = 0;
    }
}

static int gcm_mpi_truncated(MPI_Comm comm, const gcm_msg_status_t *info,
                             size_t len, const char *call)
{
    return gcm_mpi_raise(comm, MPI_ERR_TRUNCATE, call,
                         "message from %d with tag %d does not fit: the "
                         "receive buffer holds %zu bytes", info->slot,
                         info->tag, len);
}

/* ---- the fast path -------------------------------------------------------
 *
 * Most calls name a valid communicator, a predefined type whose elements
 * lie packed (every predefined type but the pair types with a hole), a
 * peer and a tag in range. That is decided once per call, one test per
 * argument, before anything else; a call that fails any test takes the
 * checked path, which finds what is wrong and says so. The data then goes
 * straight from and into the user's buffer, and the request holds
 * neither the type (predefined types live for ever) nor, once complete,
 * the communicator.
 */

/* Are the arguments of a send (recv = 0) or a receive plainly valid for
 * the fast path? */
static inline int gcm_mpi_fast_args(MPI_Comm comm, const void *buf,
                                    int count, MPI_Datatype datatype,
                                    int peer, int tag, int recv)
{
    return gcm_mpi_fast_peer(comm, peer, tag, recv) &&
           (datatype != MPI_DATATYPE_NULL) &&
           (datatype->magic == GCM_MPI_MAGIC_TYPE) &&
           datatype->predefined && datatype->dense &&
           (count >= 0) && (buf != MPI_IN_PLACE) &&
           /* The native layer takes the buffer unchecked from here. */
           ((buf != NULL) || (count == 0));
}

/* The bytes of count elements of a type gcm_mpi_fast_args accepted (at
 * most INT_MAX times the largest predefined size: no overflow). */
static inline size_t gcm_mpi_fast_len(int count, MPI_Datatype datatype)
{
    return (size_t)count * (size_t)datatype->size;
}

/* A request for a fast-path transfer whose native request is nreq: it
 * holds a reference on comm while it runs. */
static GCM_ALWAYS_INLINE gcm_mpi_req_t *
gcm_mpi_req_fast(int kind, MPI_Comm comm, gcm_request_h nreq)
{
    gcm_mpi_req_t *req = gcm_mpi_req_alloc();

    if (gcm_likely(req != NULL)) {
        if (!comm->predefined) {
            gcm_mpi_comm_ref(comm);
        }
        req->magic    = GCM_MPI_MAGIC_REQ;
        req->kind     = kind;
        req->active   = 1;
        req->comm     = comm;
        req->native   = nreq;
        req->status.MPI_ERROR = MPI_SUCCESS;
    }
    return req;
}

/* A nonblocking standard or synchronous send on the fast path. A send
 * done when posted (a small message went out at once) gets a request that
 * is complete already and holds nothing: no native request, no
 * communicator. */
static int gcm_mpi_isend_fast(const void *buf, int count,
                              MPI_Datatype datatype, int dest, int tag,
                              MPI_Comm comm, int flags, MPI_Request *request,
                              const char *call)
{
    gcm_msg_status_t info;
    gcm_request_h nreq;
    gcm_mpi_req_t *req;
    gcm_status_t status;

    /* Arguments checked: the native call checks none of them again. */
    status = (flags == 0) ?
             gcm_lco_isend_nr(comm->lco, buf,
                              gcm_mpi_fast_len(count, datatype), dest, tag,
                              &nreq) :
             gcm_lco_isend_x(comm->lco, buf,
                             gcm_mpi_fast_len(count, datatype), dest, tag,
                             flags | GCM_LCO_XFER_NOREQ, &nreq);
    if (gcm_unlikely(status != GCM_OK)) {
        return gcm_mpi_native_error(comm, status, call);
    }
    if ((nreq == GCM_REQUEST_NULL) || gcm_lco_req_done(nreq)) {
        status = (nreq == GCM_REQUEST_NULL) ? GCM_OK :
                 gcm_lco_req_take(&nreq, &info);
        if (gcm_likely(status == GCM_OK)) {
            req = gcm_mpi_req_alloc();
            if (gcm_unlikely(req == NULL)) {
                return gcm_mpi_raise(comm, MPI_ERR_NO_MEM, call,
                                     "out of memory");
            }
            req->magic    = GCM_MPI_MAGIC_REQ;
            req->kind     = GCM_MPI_REQ_SEND;
            req->active   = 1;
            req->complete = 1;
            req->status.MPI_SOURCE = MPI_ANY_SOURCE;
            req->status.MPI_TAG    = MPI_ANY_TAG;
            *request = gcm_mpi_req_handle(req);
            return MPI_SUCCESS;
        }
        /* It failed at once: the request says so when completed. */
        req = gcm_mpi_req_fast(GCM_MPI_REQ_SEND, comm, GCM_REQUEST_NULL);
        if (req != NULL) {
            gcm_mpi_req_result(req, status, &info);
        }
    } else {
        req = gcm_mpi_req_fast(GCM_MPI_REQ_SEND, comm, nreq);
    }
    if (gcm_unlikely(req == NULL)) {
        if (nreq != GCM_REQUEST_NULL) {
            (void)gcm_wait(&nreq, NULL);
        }
        return gcm_mpi_raise(comm, MPI_ERR_NO_MEM, call, "out of memory");
    }
    *request = gcm_mpi_req_handle(req);
    return MPI_SUCCESS;
}

/* A nonblocking receive on the fast path: if it must wait, in its MPI
 * request (nstore), one request object per message, not two. */
static int gcm_mpi_irecv_fast(void *buf, int count, MPI_Datatype datatype,
                              int source, int tag, MPI_Comm comm,
                              MPI_Request *request)
{
    gcm_msg_status_t info;
    gcm_mpi_req_t *req;
    gcm_status_t status;

    req = gcm_mpi_req_fast(GCM_MPI_REQ_RECV, comm, GCM_REQUEST_NULL);
    if (gcm_unlikely(req == NULL)) {
        return gcm_mpi_raise(comm, MPI_ERR_NO_MEM, "MPI_Irecv",
                             "out of memory");
    }
    status = gcm_lco_irecv_rec(comm->lco, buf,
                               gcm_mpi_fast_len(count, datatype),
                               (source == MPI_ANY_SOURCE) ? GCM_ANY_SLOT :
                               source,
                               (tag == MPI_ANY_TAG) ? GCM_ANY_TAG : tag, NULL,
                               &info, &req->nstore, &req->native);
    if (gcm_unlikely(status != GCM_OK)) {
        gcm_mpi_req_release(req);
        return gcm_mpi_native_error(comm, status, "MPI_Irecv");
    }
    if (req->native == GCM_REQUEST_NULL) {
        gcm_mpi_req_result(req, GCM_OK, &info);
    }
    *request = gcm_mpi_req_handle(req);
    return MPI_SUCCESS;
}

/* ---- sends ------------------------------------------------------------ */

/* Starts a send of any mode into req (allocated by the caller, kind
 * SEND). Buffered sends complete at once. */
static int gcm_mpi_send_start(gcm_mpi_req_t *req, const char *call)
{
    const void *data;
    gcm_status_t status;
    size_t len;
    int rc;

    req->active   = 1;
    req->complete = 0;
    gcm_mpi_status_empty(&req->status);
    if (req->peer == MPI_PROC_NULL) {
        req->complete = 1;
        return MPI_SUCCESS;
    }
    if (req->mode == GCM_MPI_MODE_BUFFERED) {
        rc = gcm_mpi_bsend_start(req->buf, req->count, req->datatype,
                                 req->peer, req->tag, req->comm, call);
        req->complete = 1;
        req->status.MPI_ERROR = rc;
        return rc;
    }
    rc = gcm_mpi_send_data(req->buf, req->count, req->datatype, &data, &len,
                           &req->tmp);
    if (rc != MPI_SUCCESS) {
        return gcm_mpi_raise(req->comm, rc, call, "out of memory");
    }
    status = gcm_lco_isend_x(req->comm->lco, data, len, req->peer, req->tag,
                             (req->mode == GCM_MPI_MODE_SYNC) ?
                             GCM_LCO_SEND_SYNC : 0, &req->native);
    if (status != GCM_OK) {
        free(req->tmp);
        req->tmp = NULL;
        return gcm_mpi_native_error(req->comm, status, call);
    }
    /* A small send is usually done once posted: its native request goes
     * back to the cache now, so that a window of sends reuses one native
     * request instead of holding as many as it has messages. */
    (void)gcm_mpi_req_check_now(req);
    return MPI_SUCCESS;
}

static int gcm_mpi_recv_start(gcm_mpi_req_t *req, const char *call)
{
    gcm_status_t status;
    void *data;
    size_t len;
    int rc;

    req->active   = 1;
    req->complete = 0;
    gcm_mpi_status_empty(&req->status);
    if (req->peer == MPI_PROC_NULL) {
        gcm_mpi_status_proc_null(&req->status);
        req->complete = 1;
        return MPI_SUCCESS;
    }
    rc = gcm_mpi_recv_data(req->buf, req->count, req->datatype, &data, &len,
                           &req->tmp);
    if (rc != MPI_SUCCESS) {
        return gcm_mpi_raise(req->comm, rc, call, "out of memory");
    }
    status = gcm_lco_irecv_x(req->comm->lco, data, len,
                             (req->peer == MPI_ANY_SOURCE) ? GCM_ANY_SLOT :
                             req->peer,
                             (req->tag == MPI_ANY_TAG) ? GCM_ANY_TAG :
                             req->tag, &req->native);
    if (status != GCM_OK) {
        free(req->tmp);
        req->tmp = NULL;
        return gcm_mpi_native_error(req->comm, status, call);
    }
    /* The same for a receive whose message was waiting. */
    (void)gcm_mpi_req_check_now(req);
    return MPI_SUCCESS;
}

/* Frees a request that never started (its references on the communicator
 * and the type too). */
void gcm_mpi_req_discard(gcm_mpi_req_t *req)
{
    free(req->tmp);
    gcm_mpi_type_release(req->datatype);
    gcm_mpi_comm_unref(req->comm);
    gcm_mpi_req_free(req);
}

gcm_mpi_req_t *gcm_mpi_req_new(int kind, void *buf, int count,
                               MPI_Datatype datatype, int peer,
                               int tag, MPI_Comm comm, int mode)
{
    gcm_mpi_req_t *req = gcm_mpi_req_alloc();

    if (req != NULL) {
        /* The communicator and the type stay for the request, whatever
         * the program frees meanwhile. */
        gcm_mpi_comm_ref(comm);
        gcm_mpi_type_retain(datatype);
        req->magic    = GCM_MPI_MAGIC_REQ;
        req->kind     = kind;
        req->comm     = comm;
        req->buf      = buf;
        req->count    = count;
        req->datatype = datatype;
        req->peer     = peer;
        req->tag      = tag;
        req->mode     = mode;
    }
    return req;
}

/* Makes (and unless persistent starts) a send request: *req_p is the
 * object. */
static int gcm_mpi_isend_req(const void *buf, int count,
                             MPI_Datatype datatype, int dest, int tag,
                             MPI_Comm comm, int mode, int persistent,
                             const char *call, gcm_mpi_req_t **req_p)
{
    gcm_mpi_req_t *req;
    int rc;

    rc = gcm_mpi_check_send(buf, count, datatype, dest, tag, comm, call);
    if (rc != MPI_SUCCESS) {
        return rc;
    }
    req = gcm_mpi_req_new(GCM_MPI_REQ_SEND, (void *)buf, count, datatype,
                          dest, tag, comm, mode);
    if (req == NULL) {
        return gcm_mpi_raise(comm, MPI_ERR_NO_MEM, call, "out of memory");
    }
    if (persistent) {
        req->persistent = 1;
        *req_p = req;
        return MPI_SUCCESS;
    }
    rc = gcm_mpi_send_start(req, call);
    if (rc != MPI_SUCCESS) {
        gcm_mpi_req_discard(req);
        return rc;
    }
    *req_p = req;
    return MPI_SUCCESS;
}

/* A NULL request argument: raised on comm if it is one. */
static int gcm_mpi_request_arg_null(MPI_Comm comm, const char *call)
{
    int rc = gcm_mpi_comm_check(comm, call);

    return (rc != MPI_SUCCESS) ? rc :
           gcm_mpi_raise(comm, MPI_ERR_ARG, call, "request is NULL");
}

static int gcm_mpi_isend_mode(const void *buf, int count,
                              MPI_Datatype datatype, int dest, int tag,
                              MPI_Comm comm, MPI_Request *request, int mode,
                              int persistent, const char *call)
{
    gcm_mpi_req_t *req = NULL;
    int rc;

    if (request == NULL) {
        return gcm_mpi_request_arg_null(comm, call);
    }
    rc = gcm_mpi_isend_req(buf, count, datatype, dest, tag, comm, mode,
                           persistent, call, &req);
    if (rc == MPI_SUCCESS) {
        *request = gcm_mpi_req_handle(req);
    }
    return rc;
}

/* Blocking send of any mode: no MPI request on the way. */
static int gcm_mpi_send_mode(const void *buf, int count,
                             MPI_Datatype datatype, int dest, int tag,
                             MPI_Comm comm, int mode, const char *call)
{
    gcm_request_h nreq;
    gcm_status_t status;
    const void *data;
    void *tmp;
    size_t len;
    int rc, fast;

    fast = gcm_mpi_fast_args(comm, buf, count, datatype, dest, tag, 0) &&
           (mode != GCM_MPI_MODE_BUFFERED);
    if (fast) {
        data = buf;
        len  = gcm_mpi_fast_len(count, datatype);
        tmp  = NULL;
    } else {
        rc = gcm_mpi_check_send(buf, count, datatype, dest, tag, comm,
                                call);
        if (gcm_unlikely(rc != MPI_SUCCESS)) {
            return rc;
        }
        if (dest == MPI_PROC_NULL) {
            return MPI_SUCCESS;
        }
        if (mode == GCM_MPI_MODE_BUFFERED) {
            return gcm_mpi_bsend_start(buf, count, datatype, dest, tag,
                                       comm, call);
        }
        rc = gcm_mpi_send_data(buf, count, datatype, &data, &len, &tmp);
        if (rc != MPI_SUCCESS) {
            return gcm_mpi_raise(comm, rc, call, "out of memory");
        }
    }
    /* As in MPI_Recv: checked already on the fast path. */
    status = (fast && (mode != GCM_MPI_MODE_SYNC)) ?
             gcm_lco_isend_nr(comm->lco, data, len, dest, tag, &nreq) :
             gcm_lco_isend_x(comm->lco, data, len, dest, tag,
                             ((mode == GCM_MPI_MODE_SYNC) ?
                              GCM_LCO_SEND_SYNC : 0) | GCM_LCO_XFER_NOREQ,
                             &nreq);
    if (gcm_likely(status == GCM_OK) && (nreq != GCM_REQUEST_NULL)) {
        status = gcm_lco_req_done(nreq) ? gcm_lco_req_take(&nreq, NULL) :
                 gcm_wait(&nreq, NULL);
    }
    if (tmp != NULL) {
        free(tmp);
    }
    if (gcm_unlikely(status != GCM_OK)) {
        return gcm_mpi_native_error(comm, status, call);
    }
    return MPI_SUCCESS;
}

int PMPI_Send(const void *buf, int count, MPI_Datatype datatype, int dest,
              int tag, MPI_Comm comm)
{
    return gcm_mpi_send_mode(buf, count, datatype, dest, tag, comm,
                             GCM_MPI_MODE_STANDARD, "MPI_Send");
}
GCM_MPI_ALIAS(Send)

int PMPI_Ssend(const void *buf, int count, MPI_Datatype datatype, int dest,
               int tag, MPI_Comm comm)
{
    return gcm_mpi_send_mode(buf, count, datatype, dest, tag, comm,
                             GCM_MPI_MODE_SYNC, "MPI_Ssend");
}
GCM_MPI_ALIAS(Ssend)

int PMPI_Bsend(const void *buf, int count, MPI_Datatype datatype, int dest,
               int tag, MPI_Comm comm)
{
    return gcm_mpi_send_mode(buf, count, datatype, dest, tag, comm,
                             GCM_MPI_MODE_BUFFERED, "MPI_Bsend");
}
GCM_MPI_ALIAS(Bsend)

int PMPI_Rsend(const void *buf, int count, MPI_Datatype datatype, int dest,
               int tag, MPI_Comm comm)
{
    /* A ready send may be a standard send (MPI-3.1 3.4): the receive is
     * posted already, and the standard path is the fast one. */
    return gcm_mpi_send_mode(buf, count, datatype, dest, tag, comm,
                             GCM_MPI_MODE_READY, "MPI_Rsend");
}
GCM_MPI_ALIAS(Rsend)

int PMPI_Isend(const void *buf, int count, MPI_Datatype datatype, int dest,
               int tag, MPI_Comm comm, MPI_Request *request)
{
    if (gcm_mpi_fast_args(comm, buf, count, datatype, dest, tag, 0) &&
        (request != NULL)) {
        return gcm_mpi_isend_fast(buf, count, datatype, dest, tag, comm, 0,
                                  request, "MPI_Isend");
    }
    return gcm_mpi_isend_mode(buf, count, datatype, dest, tag, comm, request,
                              GCM_MPI_MODE_STANDARD, 0, "MPI_Isend");
}
GCM_MPI_ALIAS(Isend)

int PMPI_Issend(const void *buf, int count, MPI_Datatype datatype, int dest,
                int tag, MPI_Comm comm, MPI_Request *request)
{
    if (gcm_mpi_fast_args(comm, buf, count, datatype, dest, tag, 0) &&
        (request != NULL)) {
        return gcm_mpi_isend_fast(buf, count, datatype, dest, tag, comm,
                                  GCM_LCO_SEND_SYNC, request, "MPI_Issend");
    }
    return gcm_mpi_isend_mode(buf, count, datatype, dest, tag, comm, request,
                              GCM_MPI_MODE_SYNC, 0, "MPI_Issend");
}
GCM_MPI_ALIAS(Issend)

int PMPI_Ibsend(const void *buf, int count, MPI_Datatype datatype, int dest,
                int tag, MPI_Comm comm, MPI_Request *request)
{
    return gcm_mpi_isend_mode(buf, count, datatype, dest, tag, comm, request,
                              GCM_MPI_MODE_BUFFERED, 0, "MPI_Ibsend");
}
GCM_MPI_ALIAS(Ibsend)

int PMPI_Irsend(const void *buf, int count, MPI_Datatype datatype, int dest,
                int tag, MPI_Comm comm, MPI_Request *request)
{
    return gcm_mpi_isend_mode(buf, count, datatype, dest, tag, comm, request,
                              GCM_MPI_MODE_READY, 0, "MPI_Irsend");
}
GCM_MPI_ALIAS(Irsend)

int PMPI_Send_init(const void *buf, int count, MPI_Datatype datatype,
                   int dest, int tag, MPI_Comm comm, MPI_Request *request)
{
    return gcm_mpi_isend_mode(buf, count, datatype, dest, tag, comm, request,
                              GCM_MPI_MODE_STANDARD, 1, "MPI_Send_init");
}
GCM_MPI_ALIAS(Send_init)

int PMPI_Ssend_init(const void *buf, int count, MPI_Datatype datatype,
                    int dest, int tag, MPI_Comm comm, MPI_Request *request)
{
    return gcm_mpi_isend_mode(buf, count, datatype, dest, tag, comm, request,
                              GCM_MPI_MODE_SYNC, 1, "MPI_Ssend_init");
}
GCM_MPI_ALIAS(Ssend_init)

int PMPI_Bsend_init(const void *buf, int count, MPI_Datatype datatype,
                    int dest, int tag, MPI_Comm comm, MPI_Request *request)
{
    return gcm_mpi_isend_mode(buf, count, datatype, dest, tag, comm, request,
                              GCM_MPI_MODE_BUFFERED, 1, "MPI_Bsend_init");
}
GCM_MPI_ALIAS(Bsend_init)

int PMPI_Rsend_init(const void *buf, int count, MPI_Datatype datatype,
                    int dest, int tag, MPI_Comm comm, MPI_Request *request)
{
    return gcm_mpi_isend_mode(buf, count, datatype, dest, tag, comm, request,
                              GCM_MPI_MODE_READY, 1, "MPI_Rsend_init");
}
GCM_MPI_ALIAS(Rsend_init)

/* ---- receives --------------------------------------------------------- */

/* Makes (and unless persistent starts) a receive request: *req_p is the
 * object. */
static int gcm_mpi_irecv_req(void *buf, int count, MPI_Datatype datatype,
                             int source, int tag, MPI_Comm comm,
                             int persistent, const char *call,
                             gcm_mpi_req_t **req_p)
{
    gcm_mpi_req_t *req;
    int rc;

    rc = gcm_mpi_check_recv(buf, count, datatype, source, tag, comm, call);
    if (rc != MPI_SUCCESS) {
        return rc;
    }
    req = gcm_mpi_req_new(GCM_MPI_REQ_RECV, buf, count, datatype, source,
                          tag, comm, 0);
    if (req == NULL) {
        return gcm_mpi_raise(comm, MPI_ERR_NO_MEM, call, "out of memory");
    }
    if (persistent) {
        req->persistent = 1;
        *req_p = req;
        return MPI_SUCCESS;
    }
    rc = gcm_mpi_recv_start(req, call);
    if (rc != MPI_SUCCESS) {
        gcm_mpi_req_discard(req);
        return rc;
    }
    *req_p = req;
    return MPI_SUCCESS;
}

static GCM_NOINLINE int gcm_mpi_irecv_common(void *buf, int count,
                                             MPI_Datatype datatype,
                                             int source, int tag,
                                             MPI_Comm comm,
                                             MPI_Request *request,
                                             int persistent,
                                             const char *call)
{
    gcm_mpi_req_t *req = NULL;
    int rc;

    if (request == NULL) {
        return gcm_mpi_request_arg_null(comm, call);
    }
    rc = gcm_mpi_irecv_req(buf, count, datatype, source, tag, comm,
                           persistent, call, &req);
    if (rc == MPI_SUCCESS) {
        *request = gcm_mpi_req_handle(req);
    }
    return rc;
}

int PMPI_Irecv(void *buf, int count, MPI_Datatype datatype, int source,
               int tag, MPI_Comm comm, MPI_Request *request)
{
    if (gcm_mpi_fast_args(comm, buf, count, datatype, source, tag, 1) &&
        (request != NULL)) {
        return gcm_mpi_irecv_fast(buf, count, datatype, source, tag, comm,
                                  request);
    }
    return gcm_mpi_irecv_common(buf, count, datatype, source, tag, comm,
                                request, 0, "MPI_Irecv");
}
GCM_MPI_ALIAS(Irecv)

int PMPI_Recv_init(void *buf, int count, MPI_Datatype datatype, int source,
                   int tag, MPI_Comm comm, MPI_Request *request)
{
    return gcm_mpi_irecv_common(buf, count, datatype, source, tag, comm,
                                request, 1, "MPI_Recv_init");
}
GCM_MPI_ALIAS(Recv_init)

int PMPI_Recv(void *buf, int count, MPI_Datatype datatype, int source,
              int tag, MPI_Comm comm, MPI_Status *status)
{
    static const char *call = "MPI_Recv";
    struct gcm_request store;   /* where it runs if it must wait */
    gcm_msg_status_t info;
    gcm_request_h nreq;
    gcm_status_t result;
    void *data, *tmp;
    size_t len;
    int rc, fast, slot, ntag;

    fast = gcm_mpi_fast_args(comm, buf, count, datatype, source, tag, 1);
    if (fast) {
        data = buf;
        len  = gcm_mpi_fast_len(count, datatype);
        tmp  = NULL;
    } else {
        rc = gcm_mpi_check_recv(buf, count, datatype, source, tag, comm,
                                call);
        if (gcm_unlikely(rc != MPI_SUCCESS)) {
            return rc;
        }
        if (source == MPI_PROC_NULL) {
            gcm_mpi_status_proc_null(status);
            return MPI_SUCCESS;
        }
        rc = gcm_mpi_recv_data(buf, count, datatype, &data, &len, &tmp);
        if (rc != MPI_SUCCESS) {
            return gcm_mpi_raise(comm, rc, call, "out of memory");
        }
    }
    slot = (source == MPI_ANY_SOURCE) ? GCM_ANY_SLOT : source;
    ntag = (tag == MPI_ANY_TAG) ? GCM_ANY_TAG : tag;
    /* On the fast path the native call checks nothing again, and a
     * receive that must wait runs on the stack (its handle: no check). */
    result = fast ?
             gcm_lco_irecv_rec(comm->lco, data, len, slot, ntag, NULL, &info,
                               &store, &nreq) :
             gcm_lco_irecv_xf(comm->lco, data, len, slot, ntag,
                              GCM_LCO_XFER_NOREQ, &info, &nreq);
    if (gcm_unlikely(result != GCM_OK)) {
        free(tmp);
        return gcm_mpi_native_error(comm, result, call);
    }
    if (nreq != GCM_REQUEST_NULL) {
        result = gcm_lco_req_done(nreq) ? gcm_lco_req_take(&nreq, &info) :
                 gcm_lco_req_wait(&nreq, &info);
    }
    if (tmp != NULL) {
        gcm_mpi_type_unpack(datatype, count, tmp, info.count, buf);
        free(tmp);
    }
    gcm_mpi_status_fill(status, &info, result);
    if (gcm_likely(result == GCM_OK)) {
        return MPI_SUCCESS;
    }
    if (result == GCM_ERR_TRUNCATED) {
        return gcm_mpi_truncated(comm, &info, len, call);
    }
    return gcm_mpi_native_error(comm, result, call);
}
GCM_MPI_ALIAS(Recv)

int PMPI_Start(MPI_Request *request)
{
    static const char *call = "MPI_Start";
    gcm_mpi_req_t *req;
    int rc;

    if ((rc = gcm_mpi_check_init(call)) != MPI_SUCCESS) {
        return rc;
    }
    if ((request == NULL) || ((req = gcm_mpi_req_get(*request)) == NULL) ||
        !req->persistent) {
        return gcm_mpi_raise(NULL, MPI_ERR_REQUEST, call,
                             "not a persistent request (freed, or never "
                             "made by a *_init call)");
    }
    if (req->active) {
        return gcm_mpi_raise(req->comm, MPI_ERR_REQUEST, call,
                             "the request is active already (wait for it "
                             "before starting it again)");
    }
    if (req->start != NULL) {
        return req->start(req);   /* a persistent collective */
    }
    return (req->kind == GCM_MPI_REQ_SEND) ? gcm_mpi_send_start(req, call) :
           gcm_mpi_recv_start(req, call);
}
GCM_MPI_ALIAS(Start)

int PMPI_Startall(int count, MPI_Request array_of_requests[])
{
    int i, rc;

    if (count < 0) {
        return gcm_mpi_raise(NULL, MPI_ERR_COUNT, "MPI_Startall",
                             "count %d is negative", count);
    }
    if ((count > 0) && (array_of_requests == NULL)) {
        return gcm_mpi_raise(NULL, MPI_ERR_ARG, "MPI_Startall",
                             "array_of_requests is NULL");
    }
    for (i = 0; i < count; i++) {
        rc = PMPI_Start(&array_of_requests[i]);
        if (rc != MPI_SUCCESS) {
            return rc;
        }
    }
    return MPI_SUCCESS;
}
GCM_MPI_ALIAS(Startall)

/* ---- send-receive -------------------------------------------------------- */

int PMPI_Sendrecv(const void *sendbuf, int sendcount, MPI_Datatype sendtype,
                  int dest, int sendtag, void *recvbuf, int recvcount,
                  MPI_Datatype recvtype, int source, int recvtag,
                  MPI_Comm comm, MPI_Status *status)
{
    static const char *call = "MPI_Sendrecv";
    gcm_mpi_req_t *reqs[2];
    int rc, src, rrc;

    rc = gcm_mpi_irecv_req(recvbuf, recvcount, recvtype, source, recvtag,
                           comm, 0, call, &reqs[0]);
    if (rc != MPI_SUCCESS) {
        return rc;
    }
    rc = gcm_mpi_isend_req(sendbuf, sendcount, sendtype, dest, sendtag, comm,
                           GCM_MPI_MODE_STANDARD, 0, call, &reqs[1]);
    if (rc != MPI_SUCCESS) {
        if ((reqs[0]->kind == GCM_MPI_REQ_RECV) && !reqs[0]->complete &&
            (reqs[0]->native != GCM_REQUEST_NULL)) {
            gcm_lco_req_cancel(reqs[0]->native);
        }
        gcm_mpi_req_wait(reqs[0]);
        gcm_mpi_req_finish(reqs[0], NULL, MPI_STATUS_IGNORE);
        return rc;
    }
    gcm_mpi_req_wait(reqs[0]);
    gcm_mpi_req_wait(reqs[1]);
    src = gcm_mpi_req_finish(reqs[1], NULL, MPI_STATUS_IGNORE);
    rrc = gcm_mpi_req_finish(reqs[0], NULL, status);
    if (src != MPI_SUCCESS) {
        return gcm_mpi_raise(comm, src, call,
                             "the send failed: %s", gcm_last_error());
    }
    if (rrc != MPI_SUCCESS) {
        return gcm_mpi_raise(comm, rrc, call,
                             "the receive failed: %s", gcm_last_error());
    }
    return MPI_SUCCESS;
}
GCM_MPI_ALIAS(Sendrecv)

int PMPI_Sendrecv_replace(void *buf, int count, MPI_Datatype datatype,
                          int dest, int sendtag, int source, int recvtag,
                          MPI_Comm comm, MPI_Status *status)
{
    static const char *call = "MPI_Sendrecv_replace";
    size_t len;
    void *copy;
    int rc;

    rc = gcm_mpi_check_send(buf, count, datatype, dest, sendtag, comm, call);
    if (rc != MPI_SUCCESS) {
        return rc;
    }
    /* The outgoing data is packed first, so the receive may land in the
     * same buffer. */
    len = (size_t)gcm_mpi_type_size(datatype) * (size_t)count;
    if (len > (size_t)INT_MAX) {
        /* The packed copy travels as MPI_BYTE with an int count. */
        return gcm_mpi_raise(comm, MPI_ERR_COUNT, call,
                             "%zu bytes exceed what one call can replace "
                             "(INT_MAX bytes)", len);
    }
    copy = malloc((len > 0) ? len : 1);
    if (copy == NULL) {
        return gcm_mpi_raise(comm, MPI_ERR_NO_MEM, call, "out of memory");
    }
    if (len > 0) {
        gcm_mpi_type_pack(datatype, count, buf, copy);
    }
    rc = PMPI_Sendrecv(copy, (int)len, MPI_BYTE, dest, sendtag, buf, count,
                       datatype, source, recvtag, comm, status);
    free(copy);
    return rc;
}
GCM_MPI_ALIAS(Sendrecv_replace)


/*
 * compat/mpi_probe.c: probes and matched probes (MPI-3.1 sections 3.8.1-3.8.3):
 * MPI_Probe, MPI_Iprobe, MPI_Mprobe, MPI_Improbe, MPI_Mrecv, MPI_Imrecv.
 */
#include "config.h"

#include "compat/mpi_impl.h"
#include "compat/mpi_pt2pt_impl.h"

#include <limits.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

/* MPI_MESSAGE_NO_PROC: the message a matched probe of MPI_PROC_NULL
 * finds. */
struct gcm_mpi_message gcm_mpi_message_no_proc = { GCM_MPI_MAGIC_MSG, NULL,
                                                   NULL, { 0, 0, 0, 0 } };

/* ---- probes ------------------------------------------------------------ */

static int gcm_mpi_check_probe(int source, int tag, MPI_Comm comm,
                               const char *call)
{
    int rc;

    if (((rc = gcm_mpi_comm_check(comm, call)) != MPI_SUCCESS) ||
        ((rc = gcm_mpi_check_source(comm, source, call)) != MPI_SUCCESS) ||
        ((rc = gcm_mpi_check_tag(comm, tag, 1, call)) != MPI_SUCCESS)) {
        return rc;
    }
    return MPI_SUCCESS;
}

int PMPI_Iprobe(int source, int tag, MPI_Comm comm, int *flag,
                MPI_Status *status)
{
    static const char *call = "MPI_Iprobe";
    gcm_msg_status_t info;
    gcm_status_t result;
    int rc;

    /* A program may probe in a loop: plainly valid arguments in one test
     * each, the checks that say what is wrong (and MPI_PROC_NULL) after
     * it. */
    if (gcm_unlikely(!gcm_mpi_fast_peer(comm, source, tag, 1) ||
                     (flag == NULL))) {
        if ((rc = gcm_mpi_check_probe(source, tag, comm, call)) !=
            MPI_SUCCESS) {
            return rc;
        }
        if (flag == NULL) {
            return gcm_mpi_raise(comm, MPI_ERR_ARG, call, "flag is NULL");
        }
        if (source == MPI_PROC_NULL) {
            *flag = 1;
            gcm_mpi_status_proc_null(status);
            return MPI_SUCCESS;
        }
    }
    /* Checked above: the poll alone. */
    result = gcm_lco_iprobe_nr(comm->lco,
                               (source == MPI_ANY_SOURCE) ? GCM_ANY_SLOT :
                               source, (tag == MPI_ANY_TAG) ? GCM_ANY_TAG :
                               tag, flag, &info);
    if (result != GCM_OK) {
        return gcm_mpi_native_error(comm, result, call);
    }
    if (*flag) {
        gcm_mpi_status_fill(status, &info, GCM_OK);
    }
    return MPI_SUCCESS;
}
GCM_MPI_ALIAS(Iprobe)

typedef struct gcm_mpi_probe_arg {
    MPI_Comm         comm;
    int              slot;
    int              tag;
    int              matched;     /* improbe: take the message */
    gcm_message_h    msg;
    gcm_msg_status_t info;
    gcm_status_t     result;
} gcm_mpi_probe_arg_t;

static int gcm_mpi_probe_cb(void *arg)
{
    gcm_mpi_probe_arg_t *p = arg;
    int flag = 0;

    /* A waiter may ask again after it was told yes: a matched probe must
     * not take a second message then (the first would be lost). */
    if ((p->msg != NULL) || (p->result != GCM_OK)) {
        return 1;
    }
    if (p->matched) {
        p->result = gcm_lco_improbe(p->comm->lco, p->slot, p->tag, &flag,
                                    &p->msg, &p->info);
    } else {
        p->result = gcm_lco_iprobe_nr(p->comm->lco, p->slot, p->tag,
                                      &flag, &p->info);
    }
    return flag || (p->result != GCM_OK);
}

int PMPI_Probe(int source, int tag, MPI_Comm comm, MPI_Status *status)
{
    static const char *call = "MPI_Probe";
    gcm_mpi_probe_arg_t p;
    int rc;

    if ((rc = gcm_mpi_check_probe(source, tag, comm, call)) != MPI_SUCCESS) {
        return rc;
    }
    if (source == MPI_PROC_NULL) {
        gcm_mpi_status_proc_null(status);
        return MPI_SUCCESS;
    }
    memset(&p, 0, sizeof(p));
    p.comm = comm;
    p.slot = (source == MPI_ANY_SOURCE) ? GCM_ANY_SLOT : source;
    p.tag  = (tag == MPI_ANY_TAG) ? GCM_ANY_TAG : tag;
    gcm_lco_wait_on(comm->lco, gcm_mpi_probe_cb, &p);
    if (p.result != GCM_OK) {
        return gcm_mpi_native_error(comm, p.result, call);
    }
    gcm_mpi_status_fill(status, &p.info, GCM_OK);
    return MPI_SUCCESS;
}
GCM_MPI_ALIAS(Probe)

static int gcm_mpi_mprobe_common(int source, int tag, MPI_Comm comm,
                                 int *flag, MPI_Message *message,
                                 MPI_Status *status, int wait,
                                 const char *call)
{
    struct gcm_mpi_message *m;
    gcm_mpi_probe_arg_t p;
    int rc;

    if ((rc = gcm_mpi_check_probe(source, tag, comm, call)) != MPI_SUCCESS) {
        return rc;
    }
    if ((message == NULL) || (!wait && (flag == NULL))) {
        return gcm_mpi_raise(comm, MPI_ERR_ARG, call,
                             "message or flag is NULL");
    }
    if (source == MPI_PROC_NULL) {
        if (flag != NULL) {
            *flag = 1;
        }
        *message = MPI_MESSAGE_NO_PROC;
        gcm_mpi_status_proc_null(status);
        return MPI_SUCCESS;
    }
    memset(&p, 0, sizeof(p));
    p.comm    = comm;
    p.slot    = (source == MPI_ANY_SOURCE) ? GCM_ANY_SLOT : source;
    p.tag     = (tag == MPI_ANY_TAG) ? GCM_ANY_TAG : tag;
    p.matched = 1;
    if (wait) {
        gcm_lco_wait_on(comm->lco, gcm_mpi_probe_cb, &p);
    } else if (!gcm_mpi_probe_cb(&p)) {
        gcm_lco_progress(comm->lco);
        if (!gcm_mpi_probe_cb(&p)) {
            *flag = 0;
            return MPI_SUCCESS;
        }
    }
    if (p.result != GCM_OK) {
        return gcm_mpi_native_error(comm, p.result, call);
    }
    m = gcm_mpi_handle_alloc(sizeof(*m));
    if (m == NULL) {
        /* The message is ours now: it must not be lost. Receive it into
         * nothing is worse; report and keep it unreachable is worse
         * still, so take memory-failure as fatal for this call. */
        return gcm_mpi_raise(comm, MPI_ERR_NO_MEM, call, "out of memory");
    }
    m->magic = GCM_MPI_MAGIC_MSG;
    m->comm  = comm;
    m->msg   = p.msg;
    m->info  = p.info;
    *message = m;
    if (flag != NULL) {
        *flag = 1;
    }
    gcm_mpi_status_fill(status, &p.info, GCM_OK);
    return MPI_SUCCESS;
}

int PMPI_Mprobe(int source, int tag, MPI_Comm comm, MPI_Message *message,
                MPI_Status *status)
{
    return gcm_mpi_mprobe_common(source, tag, comm, NULL, message, status, 1,
                                 "MPI_Mprobe");
}
GCM_MPI_ALIAS(Mprobe)

int PMPI_Improbe(int source, int tag, MPI_Comm comm, int *flag,
                 MPI_Message *message, MPI_Status *status)
{
    return gcm_mpi_mprobe_common(source, tag, comm, flag, message, status, 0,
                                 "MPI_Improbe");
}
GCM_MPI_ALIAS(Improbe)

int PMPI_Imrecv(void *buf, int count, MPI_Datatype datatype,
                MPI_Message *message, MPI_Request *request)
{
    static const char *call = "MPI_Imrecv";
    struct gcm_mpi_message *m;
    gcm_status_t status;
    gcm_mpi_req_t *req;
    void *data;
    size_t len;
    int rc;

    if ((rc = gcm_mpi_check_init(call)) != MPI_SUCCESS) {
        return rc;
    }
    if ((message == NULL) || (*message == MPI_MESSAGE_NULL) ||
        ((*message)->magic != GCM_MPI_MAGIC_MSG) || (request == NULL)) {
        return gcm_mpi_raise(NULL, MPI_ERR_REQUEST, call,
                             "not a valid message handle (from "
                             "MPI_Mprobe or MPI_Improbe)");
    }
    m = *message;
    if ((rc = gcm_mpi_check_buffer(m->comm, buf, count, datatype, call)) !=
        MPI_SUCCESS) {
        return rc;
    }
    if (m == MPI_MESSAGE_NO_PROC) {
        *message = MPI_MESSAGE_NULL;
        rc = gcm_mpi_req_generic(MPI_COMM_WORLD, NULL, NULL, NULL, request);
        if (rc == MPI_SUCCESS) {
            gcm_mpi_status_proc_null(&gcm_mpi_req_of(*request)->status);
        }
        return rc;
    }
    req = gcm_mpi_req_new(GCM_MPI_REQ_RECV, buf, count, datatype,
                          m->info.slot, m->info.tag, m->comm, 0);
    if (req == NULL) {
        return gcm_mpi_raise(m->comm, MPI_ERR_NO_MEM, call, "out of memory");
    }
    rc = gcm_mpi_recv_data(buf, count, datatype, &data, &len, &req->tmp);
    if (rc != MPI_SUCCESS) {
        gcm_mpi_req_discard(req);
        return gcm_mpi_raise(m->comm, rc, call, "out of memory");
    }
    req->active = 1;
    status = gcm_lco_imrecv(m->comm->lco, m->msg, data, len, &req->native);
    if (status != GCM_OK) {
        gcm_mpi_req_discard(req);
        return gcm_mpi_native_error(m->comm, status, call);
    }
    gcm_mpi_handle_free(m);
    *message = MPI_MESSAGE_NULL;
    *request = gcm_mpi_req_handle(req);
    return MPI_SUCCESS;
}
GCM_MPI_ALIAS(Imrecv)

int PMPI_Mrecv(void *buf, int count, MPI_Datatype datatype,
               MPI_Message *message, MPI_Status *status)
{
    MPI_Request req;
    int rc;

    rc = PMPI_Imrecv(buf, count, datatype, message, &req);
    if (rc != MPI_SUCCESS) {
        return rc;
    }
    rc = PMPI_Wait(&req, status);
    return rc;
}
GCM_MPI_ALIAS(Mrecv)

/*
 * compat/mpi_dpm_connect.c: MPI_Comm_connect.
 */
#include "config.h"

#include "compat/mpi_dpm_impl.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The root's part (gcm_mpi_dpm_root_fn): a timeout below 0 is a bad info
 * value. */
static void dpm_connect_root(const char *port_name, double timeout,
                             MPI_Comm comm, const unsigned char *group,
                             gcm_mpi_dpm_outcome_t *out,
                             unsigned char **remote_p,
                             char *why, size_t whylen)
{
    gcm_lco_h q = NULL, t = NULL;
    gcm_slotname_t target;
    gcm_request_h sreq = GCM_REQUEST_NULL;
    unsigned char *buf = NULL, *rep = NULL;
    size_t len = 0;
    gcm_mpi_dpm_msg_t m;
    gcm_mpi_dpm_wait_t w;
    gcm_status_t status;

    memset(out, 0, sizeof(*out));
    if (timeout < 0) {
        out->errclass = MPI_ERR_INFO_VALUE;
        snprintf(why, whylen, "info key \"timeout\" is not a positive "
                 "number of seconds");
        return;
    }
    out->errclass = MPI_ERR_PORT;
    if (gcm_mpi_dpm_port_parse(port_name, &target) != 0) {
        snprintf(why, whylen, "'%.64s' is not a port name", port_name);
        return;
    }
    memset(&m, 0, sizeof(m));
    m.kind    = GCM_DPM_REQUEST;
    m.n       = (uint32_t)comm->size;
    m.members = (unsigned char *)group;
    status = gcm_lco_create(&q);
    if (status == GCM_OK) {
        status = gcm_lco_add_recv_slots(q, 1);
    }
    if (status == GCM_OK) {
        status = gcm_slot_name(q, 0, &m.reply);
    }
    if (status == GCM_OK) {
        status = gcm_lco_create(&t);
    }
    if (status == GCM_OK) {
        status = gcm_lco_add_send_slot(t, &target);
        if (status == GCM_ERR_INVALID_PARAM) {
            snprintf(why, whylen, "'%.64s' is not a port name: %s",
                     port_name, gcm_last_error());
            goto out;
        }
    }
    if ((status == GCM_OK) &&
        ((buf = gcm_mpi_dpm_msg_build(&m, &len)) == NULL)) {
        status = GCM_ERR_NO_MEMORY;
    }
    if (status == GCM_OK) {
        status = gcm_isend(t, buf, len, 0, GCM_DPM_TAG_REQ, &sreq);
    }
    if (status != GCM_OK) {
        out->errclass = gcm_mpi_errclass(status);
        snprintf(why, whylen, "cannot send the request: %s",
                 gcm_last_error());
        goto out;
    }
    /* The reply, unless the request is refused or time runs out. */
    memset(&w, 0, sizeof(w));
    w.lco      = q;
    w.tag      = GCM_DPM_TAG_REP;
    w.deadline = gcm_time_now() + timeout;
    w.sreq     = sreq;
    gcm_lco_wait_on(q, gcm_mpi_dpm_wait_cb, &w);
    sreq = w.sreq;
    if (w.sstatus != GCM_OK) {
        snprintf(why, whylen, "%s: %s",
                 (w.sstatus == GCM_ERR_NO_SUCH_LCO) ? "the port is closed" :
                 (w.sstatus == GCM_ERR_PEER_FAILED) ?
                 "the port's process is gone" : "the port refused the "
                 "request", gcm_status_string(w.sstatus));
        goto out;
    }
    if (!w.got) {
        snprintf(why, whylen, (w.result != GCM_OK) ? "waiting for the "
                 "accepting side failed" : "no accept on the port within "
                 "%.1f s", timeout);
        goto out;
    }
    status = gcm_mpi_dpm_take(&w, &rep, &len);
    if ((status != GCM_OK) ||
        (gcm_mpi_dpm_msg_parse(rep, len, GCM_DPM_REPLY, &m) != 0)) {
        snprintf(why, whylen, "the accepting side's reply is malformed");
        goto out;
    }
    if (m.errclass != MPI_SUCCESS) {
        out->errclass = m.errclass;
        snprintf(why, whylen, "the accepting side failed");
        goto out;
    }
    *remote_p = malloc((size_t)m.n * GCM_LCO_PROCID_SIZE);
    if (*remote_p == NULL) {
        out->errclass = MPI_ERR_NO_MEM;
        snprintf(why, whylen, "out of memory");
        goto out;
    }
    memcpy(*remote_p, m.members, (size_t)m.n * GCM_LCO_PROCID_SIZE);
    /* The accepting side may send as soon as its reply is taken. */
    if (gcm_lco_token_expect(m.token) != GCM_OK) {
        free(*remote_p);
        *remote_p = NULL;
        out->errclass = MPI_ERR_NO_MEM;
        snprintf(why, whylen, "out of memory");
        goto out;
    }
    out->errclass = MPI_SUCCESS;
    out->n        = m.n;
    out->id       = m.id;
    out->gen      = m.gen;
    out->token    = m.token;
out:
    if (sreq != GCM_REQUEST_NULL) {
        int flag = 0;

        /* Taken in by the accepting side once the reply came. */
        if (out->errclass == MPI_SUCCESS) {
            (void)gcm_wait(&sreq, NULL);
        } else if ((gcm_test(&sreq, &flag, NULL), !flag)) {
            gcm_mpi_dpm_abandon(sreq);
        }
    }
    free(buf);
    free(rep);
    if (t != NULL) {
        gcm_lco_free(&t);
    }
    /* A reply that comes after this is refused: the accepting side's
     * synchronous send fails and it takes the next request. */
    if (q != NULL) {
        gcm_lco_free(&q);
    }
}

int PMPI_Comm_connect(const char *port_name, MPI_Info info, int root,
                      MPI_Comm comm, MPI_Comm *newcomm)
{
    static const char *call = "MPI_Comm_connect";
    double timeout;
    int rc;

    if ((rc = gcm_mpi_dpm_check(call, info, root, comm, newcomm,
                                "newcomm")) != MPI_SUCCESS) {
        return rc;
    }
    /* Only the root's info counts; a bad one fails at the root. */
    timeout = (comm->rank == root) ? gcm_mpi_dpm_timeout(info) : 0;
    return gcm_mpi_dpm_connect(port_name, timeout, root, comm, call,
                               newcomm);
}
GCM_MPI_ALIAS(Comm_connect)

int gcm_mpi_dpm_connect(const char *port_name, double timeout, int root,
                        MPI_Comm comm, const char *call, MPI_Comm *newcomm)
{
    return gcm_mpi_dpm_pair(port_name, timeout, root, comm, dpm_connect_root,
                            "connect", call, newcomm);
}

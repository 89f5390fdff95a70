/*
 * compat/mpi_dpm_accept.c: MPI_Comm_accept.
 */
#include "config.h"

#include "compat/mpi_dpm_impl.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The root's side: takes requests until one is answered, or until
 * deadline (0: none) with out->errclass MPI_ERR_SPAWN. */
static void dpm_accept_root(gcm_lco_h port, double deadline, MPI_Comm comm,
                            const unsigned char *group,
                            gcm_mpi_dpm_outcome_t *out,
                            unsigned char **remote_p, char *why,
                            size_t whylen)
{
    unsigned char *req = NULL, *buf = NULL;
    size_t len = 0;
    gcm_mpi_dpm_msg_t in, m;
    gcm_mpi_dpm_wait_t w;
    gcm_status_t status;
    gcm_request_h sreq;
    gcm_lco_h r;
    int expected = 0;

    memset(out, 0, sizeof(*out));
    for (;;) {
        memset(&w, 0, sizeof(w));
        w.lco      = port;
        w.tag      = GCM_DPM_TAG_REQ;
        w.deadline = deadline;
        gcm_lco_wait_on(port, gcm_mpi_dpm_wait_cb, &w);
        if (!w.got && (w.result == GCM_OK)) {
            /* Only spawn gives a deadline: its children never came. */
            out->errclass = MPI_ERR_SPAWN;
            snprintf(why, whylen, "the spawned processes did not connect "
                     "within %.0f s (GENCOMM_CONNECT_TIMEOUT)",
                     gcm_lco_connect_timeout());
            free(req);
            return;
        }
        if (!w.got) {
            out->errclass = gcm_mpi_errclass(w.result);
            snprintf(why, whylen, "waiting on the port failed: %s",
                     gcm_status_string(w.result));
            return;
        }
        free(req);
        req = NULL;
        if ((gcm_mpi_dpm_take(&w, &req, &len) != GCM_OK) ||
            (gcm_mpi_dpm_msg_parse(req, len, GCM_DPM_REQUEST, &in) != 0)) {
            gcm_warn("MPI_Comm_accept: a malformed request ignored");
            continue;
        }
        memset(&m, 0, sizeof(m));
        m.kind    = GCM_DPM_REPLY;
        m.n       = (uint32_t)comm->size;
        m.members = (unsigned char *)group;
        /* The intercommunicator's identity: a derived id (high bit) and
         * generation at random, and a secret token for both groups. */
        gcm_random_kernel_bytes(&m.id, sizeof(m.id));
        gcm_random_kernel_bytes(&m.gen, sizeof(m.gen));
        do {
            gcm_random_kernel_bytes(&m.token, sizeof(m.token));
        } while (m.token == 0);
        m.id |= 0x80000000u;
        buf = gcm_mpi_dpm_msg_build(&m, &len);
        r = NULL;
        /* Once connect's root has the reply its side may send at once:
         * its messages wait here for the intercommunicator, with no
         * deadline since the token is held. */
        status = (buf == NULL) ? GCM_ERR_NO_MEMORY :
                 gcm_lco_token_expect(m.token);
        if (status == GCM_OK) {
            expected = 1;
            status = gcm_lco_create(&r);
        }
        if (status == GCM_OK) {
            status = gcm_lco_add_send_slot(r, &in.reply);
        }
        if (status == GCM_OK) {
            /* Synchronous: done when connect's root has taken it. */
            status = gcm_lco_isend_x(r, buf, len, 0, GCM_DPM_TAG_REP,
                                     GCM_LCO_SEND_SYNC, &sreq);
        }
        if (status == GCM_OK) {
            /* A request naming a slot nobody takes from must not hold
             * accept forever: it waits as long as a connect would. */
            gcm_mpi_dpm_send_wait_t sw;

            sw.req      = sreq;
            sw.deadline = gcm_time_now() + gcm_lco_connect_timeout();
            gcm_lco_wait_on(r, gcm_mpi_dpm_send_cb, &sw);
            if (gcm_lco_req_done(sreq)) {
                status = gcm_wait(&sreq, NULL);
            } else {
                gcm_mpi_dpm_abandon(sreq);
                status = GCM_ERR_PEER_FAILED;
            }
        }
        if (r != NULL) {
            gcm_lco_free(&r);
        }
        free(buf);
        buf = NULL;
        if (status == GCM_OK) {
            break;
        }
        if (expected) {
            gcm_lco_token_unexpect(m.token);
            expected = 0;
        }
        /* That connect gave up (or its process is gone): the next. */
        gcm_debug("MPI_Comm_accept: a connect gave up (%s)",
                  gcm_status_string(status));
    }
    *remote_p = malloc((size_t)in.n * GCM_LCO_PROCID_SIZE);
    if (*remote_p == NULL) {
        gcm_lco_token_unexpect(m.token);
        out->errclass = MPI_ERR_NO_MEM;
        snprintf(why, whylen, "out of memory");
        free(req);
        return;
    }
    memcpy(*remote_p, in.members, (size_t)in.n * GCM_LCO_PROCID_SIZE);
    out->errclass = MPI_SUCCESS;
    out->n        = in.n;
    out->id       = m.id;
    out->gen      = m.gen;
    out->token    = m.token;
    free(req);
}

int PMPI_Comm_accept(const char *port_name, MPI_Info info, int root,
                     MPI_Comm comm, MPI_Comm *newcomm)
{
    static const char *call = "MPI_Comm_accept";
    int rc;

    if ((rc = gcm_mpi_dpm_check(call, info, root, comm, newcomm,
                                "newcomm")) != MPI_SUCCESS) {
        return rc;
    }
    return gcm_mpi_dpm_accept(port_name, 0, root, comm, call, newcomm);
}
GCM_MPI_ALIAS(Comm_accept)

/* The root's part (gcm_mpi_dpm_root_fn): the port must be one this
 * process opened; a timeout (spawn's) sets a deadline. */
static void accept_root(const char *port_name, double timeout,
                        MPI_Comm comm, const unsigned char *group,
                        gcm_mpi_dpm_outcome_t *out, unsigned char **remote_p,
                        char *why, size_t whylen)
{
    gcm_lco_h port =
        (port_name != NULL) ? gcm_mpi_dpm_port_lco(port_name) : NULL;

    if (port == NULL) {
        out->errclass = MPI_ERR_PORT;
        snprintf(why, whylen, "'%.64s' is not a port this process opened",
                 (port_name != NULL) ? port_name : "(null)");
        return;
    }
    dpm_accept_root(port, (timeout > 0) ? gcm_time_now() + timeout : 0, comm,
                    group, out, remote_p, why, whylen);
}

int gcm_mpi_dpm_accept(const char *port_name, double timeout, int root,
                       MPI_Comm comm, const char *call, MPI_Comm *newcomm)
{
    return gcm_mpi_dpm_pair(port_name, timeout, root, comm, accept_root,
                            "accept", call, newcomm);
}
